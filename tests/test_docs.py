"""The README documents every CLI command and every setting (as sqlite-utils checks its CLI)."""

from __future__ import annotations

import pytest

from app import ROOT, SETTINGS, create_app

README = (ROOT / "README.md").read_text()


def command_paths(group, prefix=()):
    import click

    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            yield from command_paths(command, (*prefix, name))
        else:
            yield " ".join((*prefix, name))


OWN_COMMANDS = sorted(
    path
    for path in command_paths(create_app({"TESTING": True, "SECRET_KEY": "x"}).cli)
    if path.split()[0] not in {"run", "shell", "routes"}
)


def test_there_are_commands_to_check():
    assert "surveys check" in OWN_COMMANDS and "init-db" in OWN_COMMANDS


@pytest.mark.parametrize("command", OWN_COMMANDS)
def test_every_command_is_in_the_readme(command):
    assert f"`{command}" in README


@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_every_setting_is_in_the_readme(setting):
    assert f"`FLASK_{setting}`" in README


def test_readme_opens_with_the_two_commands():
    first_block = README.split("```sh", 1)[1].split("```", 1)[0]
    assert [line.split("#")[0].strip() for line in first_block.strip().splitlines()] == ["make run", "make test"]


def test_ci_runs_the_readme_test_command():
    assert "exec make test" in (ROOT / ".ci" / "run").read_text()


def readme_test_references(text: str) -> list[tuple[str, str]]:
    """``(file, test)`` for every ``tests/test_x.py::test_y`` in the text; a bare
    ``::test_z`` refers to the file named last before it."""
    import re

    out, current = [], None
    for match in re.finditer(r"(tests/test_\w+\.py)?::(test_\w+)", text):
        current = match.group(1) or current
        out.append((current, match.group(2)))
    return out


def test_readme_names_tests_for_its_statements():
    assert len(readme_test_references(README)) >= 5


@pytest.mark.parametrize("path, name", readme_test_references(README))
def test_every_test_the_readme_names_exists(path, name):
    """A statement backed by a named test stays backed: renaming or deleting the test fails here."""
    import ast

    assert path is not None, f"::{name} in the README names no file before it"
    tree = ast.parse((ROOT / path).read_text())
    assert name in {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}, (path, name)


PACKAGES = ("analysis", "surveys", "storage", "web", "bench")


def layout_section() -> str:
    return README.split("## Layout", 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize(
    "module",
    sorted(
        f"{path.parent.name}/{path.name}"
        for package in PACKAGES
        for path in (ROOT / package).glob("*.py")
        if path.name != "__init__.py"
    )
    + sorted(path.name for path in ROOT.glob("*.py")),
)
def test_the_readme_layout_names_every_module(module):
    """A newcomer reading the layout table finds every module there, by its folder's row or by name."""
    folder, _, name = module.rpartition("/")
    rows = [line for line in layout_section().splitlines() if line.startswith("|")]
    if folder:
        row = next((r for r in rows if f"`{folder}/`" in r), "")
        assert f"`{name}`" in row, f"{module} is missing from the README's layout row for {folder}/"
    else:
        assert any(f"`{name}`" in r for r in rows), f"{module} is missing from the README's layout table"


def analysis_module_table() -> str:
    text = (ROOT / "analysis" / "README.md").read_text()
    return text.split("| module | what it holds |", 1)[1].split("\n\n", 1)[0]


def test_the_analysis_module_table_matches_all():
    """Every public name of analysis (``__all__``) is in analysis/README.md's module table,
    and every name the table shows is public or a module there."""
    import re

    import analysis

    rows = [row for row in analysis_module_table().splitlines() if not row.startswith("| `_")]  # private modules
    table = "\n".join(rows)
    shown = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", table))
    modules = {path.stem for path in (ROOT / "analysis").glob("*.py") if not path.stem.startswith("_")}
    assert set(analysis.__all__) - shown == set(), "public names missing from the table"
    assert shown - set(analysis.__all__) == set(), "the table shows names that are not public"
    assert {m.removesuffix(".py") for m in re.findall(r"`(\w+\.py)`", table)} == modules
