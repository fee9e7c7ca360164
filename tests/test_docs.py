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
    path for path in command_paths(create_app({"TESTING": True, "SECRET_KEY": "x"}).cli)
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
