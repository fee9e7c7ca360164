"""The README and docs/ stay true to the code: every CLI command and setting documented (as sqlite-utils
checks its CLI), every cited test there, every survey-file example loading, every command shown existing,
every internal link resolving, the README short, and the site building."""

from __future__ import annotations

import ast
import functools
import os
import posixpath
import re
import shlex
import subprocess
import sys
import unicodedata

import pytest

from app import ROOT, SETTINGS, create_app

README = (ROOT / "README.md").read_text()

#: The pages of the documentation: the README, then docs/ (the site's pages), by repository path.
PAGES = {"README.md": README} | {f"docs/{path.name}": path.read_text() for path in sorted((ROOT / "docs").glob("*.md"))}

#: Every page, and the other READMEs the pages link to (their citations and links are checked too).
CITING_PAGES = PAGES | {
    name: (ROOT / name).read_text() for name in ("analysis/README.md", "bench/README.md") if (ROOT / name).exists()
}

DOCUMENTATION = "\n".join(PAGES.values())

#: Flask's own commands, which the app does not define.
FLASK_COMMANDS = {"run", "shell", "routes"}


def command_paths(group, prefix=()):
    import click

    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            yield from command_paths(command, (*prefix, name))
        else:
            yield " ".join((*prefix, name))


ALL_COMMANDS = set(command_paths(create_app({"TESTING": True, "SECRET_KEY": "x"}).cli))
OWN_COMMANDS = sorted(path for path in ALL_COMMANDS if path.split()[0] not in FLASK_COMMANDS)


def test_there_are_commands_to_check():
    assert "surveys check" in OWN_COMMANDS and "init-db" in OWN_COMMANDS


def test_there_are_pages_to_check():
    assert {"docs/survey-files.md", "docs/researchers.md", "docs/privacy.md"} <= set(PAGES)
    assert {"docs/deployment.md", "docs/development.md", "docs/architecture.md"} <= set(PAGES)


@pytest.mark.parametrize("command", OWN_COMMANDS)
def test_every_command_is_documented(command):
    assert f"`{command}" in DOCUMENTATION


@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_every_setting_is_documented(setting):
    assert f"`FLASK_{setting}`" in DOCUMENTATION


def test_readme_opens_with_the_two_commands():
    first_block = README.split("```sh", 1)[1].split("```", 1)[0]
    assert [line.split("#")[0].strip() for line in first_block.strip().splitlines()] == ["make run", "make test"]


def test_the_readme_is_read_in_five_minutes():
    """Under 300 lines: what it is, the two commands, screenshots, one's own survey, and links."""
    assert len(README.splitlines()) < 300


def test_ci_runs_the_readme_test_command():
    assert "exec make test" in (ROOT / ".ci" / "run").read_text()


def readme_test_references(text: str) -> list[tuple[str, str]]:
    """``(file, test)`` for every ``tests/test_x.py::test_y`` in the text; a bare
    ``::test_z`` refers to the file named last before it."""
    out, current = [], None
    for match in re.finditer(r"(tests/test_\w+\.py)?::(test_\w+)", text):
        current = match.group(1) or current
        out.append((current, match.group(2)))
    return out


def test_the_docs_name_tests_for_their_statements():
    assert len(readme_test_references(README)) >= 5
    assert sum(len(readme_test_references(text)) for text in PAGES.values()) >= 300


def test_a_bare_test_name_refers_to_the_file_named_before_it_on_the_same_page():
    assert readme_test_references("tests/test_a.py::test_b, ::test_c") == [
        ("tests/test_a.py", "test_b"),
        ("tests/test_a.py", "test_c"),
    ]
    assert readme_test_references("::test_c") == [(None, "test_c")]


@functools.cache
def defined_tests(path: str) -> set[str]:
    """The names of the functions defined in the test file ``path``."""
    tree = ast.parse((ROOT / path).read_text())
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}


@pytest.mark.parametrize(
    "page, path, name",
    [(page, path, name) for page, text in CITING_PAGES.items() for path, name in readme_test_references(text)],
)
def test_every_test_the_docs_name_exists(page, path, name):
    """A statement backed by a named test stays backed: renaming or deleting the test fails here."""
    assert path is not None, f"::{name} in {page} names no file before it"
    assert (ROOT / path).exists(), f"{page} cites {path}, which does not exist"
    assert name in defined_tests(path), (page, path, name)


def fenced_blocks(text: str, language: str) -> list[str]:
    """The contents of every fenced code block of ``language`` in ``text``, indented ones (in lists) too."""
    blocks = re.findall(rf"^( *)```{language}\n(.*?)^\1```", text, re.S | re.M)
    return ["\n".join(line.removeprefix(indent) for line in body.splitlines()) for indent, body in blocks]


def survey_file_examples() -> list[tuple[str, int, str]]:
    """``(page, number, text)`` of every YAML block that is a whole survey file (it has an ``id`` and
    ``questions``); the other YAML blocks are parts of one."""
    out = []
    for page, text in PAGES.items():
        for number, block in enumerate(fenced_blocks(text, "yaml")):
            if re.search(r"^id:", block, re.M) and re.search(r"^questions:", block, re.M):
                out.append((page, number, block))
    return out


def test_there_are_survey_file_examples():
    pages = {page for page, _, _ in survey_file_examples()}
    assert {"README.md", "docs/survey-files.md"} <= pages


@pytest.mark.parametrize(
    "page, number, text", survey_file_examples(), ids=[f"{page}-{number}" for page, number, _ in survey_file_examples()]
)
def test_every_survey_file_example_loads_through_the_validator(page, number, text, tmp_path):
    """An example a reader copies is a survey the app serves: no problem in it (surveys.files, surveys.schema)."""
    from surveys.files import load_survey_file
    from surveys.schema import SurveyFileError

    path = tmp_path / "example.yaml"
    path.write_text(text)
    try:
        load_survey_file(path)
    except SurveyFileError as error:
        pytest.fail(f"the survey-file example {number} of {page} has problems: {error}")


def survey_file_keys() -> list[str]:
    """Every key a survey file may hold: the survey's, a question's, a target's and each design model's."""
    from surveys.schema import SURVEY_KEYS
    from surveys.schema_designs import MODEL_KEYS
    from surveys.schema_questions import QUESTION_KEYS
    from surveys.schema_targets import TARGET_KEYS

    model_keys = {key for keys in MODEL_KEYS.values() for key in keys}
    return sorted({*SURVEY_KEYS, *QUESTION_KEYS, *TARGET_KEYS, *model_keys, "model", "matrix"})


@pytest.mark.parametrize("key", survey_file_keys())
def test_every_survey_file_key_is_documented(key):
    """The survey-file reference (docs/survey-files.md) names every key the validator takes."""
    text = PAGES["docs/survey-files.md"]
    assert f"`{key}`" in text or re.search(rf"[{{\s]{key}:", text), f"{key} is not in docs/survey-files.md"


def shell_commands(block: str) -> list[list[str]]:
    """The commands of a shell block, each as its words: comments dropped, ``\\`` lines joined, and
    pipelines, ``&&`` and ``;`` split; leading ``NAME=value`` settings dropped."""
    text = re.sub(r"\\\n", " ", block)
    commands = []
    for line in text.splitlines():
        words = shlex.split(line, comments=True)
        current: list[str] = []
        for word in [*words, ";"]:
            if word in {"|", "&&", "||", ";"}:
                while current and re.fullmatch(r"[A-Z_]+=.*", current[0]):
                    current.pop(0)
                if current:
                    commands.append(current)
                current = []
            else:
                current.append(word)
    return commands


def test_shell_commands_are_split_into_their_words():
    assert shell_commands('echo "$P" | .venv/bin/flask --app app admin create a  # note\nX=1 make run PORT=8000') == [
        ["echo", "$P"],
        [".venv/bin/flask", "--app", "app", "admin", "create", "a"],
        ["make", "run", "PORT=8000"],
    ]


def make_targets() -> set[str]:
    return set(re.findall(r"^([\w.-]+):", (ROOT / "Makefile").read_text(), re.M))


def flask_command(words: list[str]) -> str | None:
    """The app's command that ``words`` (after ``--app app``) name: the longest run of them that is one."""
    for end in range(len(words), 0, -1):
        if " ".join(words[:end]) in ALL_COMMANDS:
            return " ".join(words[:end])
    return None


def shown_commands() -> list[tuple[str, list[str]]]:
    """``(page, words)`` of every command in the pages' ``sh`` blocks."""
    return [
        (page, words)
        for page, text in PAGES.items()
        for block in fenced_blocks(text, "sh")
        for words in shell_commands(block)
    ]


def test_there_are_shell_commands_to_check():
    programs = {words[0] for _, words in shown_commands()}
    assert {"make", ".venv/bin/flask"} <= programs


@pytest.mark.parametrize(
    "page, words", shown_commands(), ids=lambda value: " ".join(value) if isinstance(value, list) else value
)
def test_every_command_shown_in_a_shell_block_exists(page, words):
    """``make`` targets are in the Makefile, ``flask --app app`` commands in the app's CLI, and programs
    of the virtual environment in it."""
    program = words[0]
    if program == "make":
        targets = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
        assert set(targets) <= make_targets(), f"{page}: no such make target in {words}"
    if posixpath.basename(program) == "flask":
        assert words[1:3] == ["--app", "app"], f"{page}: {words} does not name the app"
        assert flask_command(words[3:]), f"{page}: no such command: {' '.join(words)}"
    if program.startswith(".venv/bin/"):
        assert (ROOT / program).exists(), f"{page}: {program} is not installed by make setup"


def inline_flask_commands() -> list[tuple[str, str]]:
    """``(page, words)`` of every ``flask --app app ...`` written in the text of a page."""
    found = []
    for page, text in PAGES.items():
        for match in re.finditer(r"flask --app app ([a-z][\w-]*(?: [a-z][\w-]*)*)", text):
            found.append((page, match.group(1)))
    return found


@pytest.mark.parametrize("page, words", inline_flask_commands())
def test_every_flask_command_named_in_the_text_exists(page, words):
    assert flask_command(words.split()), f"{page}: no such command: flask --app app {words}"


def inline_make_targets() -> list[tuple[str, str]]:
    """``(page, target)`` of every ``make TARGET`` written in backticks in the text of a page."""
    return [
        (page, match.group(1)) for page, text in PAGES.items() for match in re.finditer(r"`make ([a-z][\w-]*)", text)
    ]


def test_there_are_make_targets_named_in_the_text():
    assert {"run", "test", "docs", "bench", "mutation"} <= {target for _, target in inline_make_targets()}


@pytest.mark.parametrize("page, target", sorted(set(inline_make_targets())))
def test_every_make_target_named_in_the_text_exists(page, target):
    assert target in make_targets(), f"{page}: no such make target: {target}"


def slug(heading: str) -> str:
    """The anchor of a heading, as MkDocs (Python-Markdown's toc) and GitHub both write it for plain words:
    code marks and punctuation dropped, lower case, spaces as hyphens."""
    text = re.sub(r"[`*]", "", heading)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(text: str) -> set[str]:
    without_code = re.sub(r"^( *)```.*?^\1```", "", text, flags=re.S | re.M)
    return {slug(heading) for heading in re.findall(r"^#{1,6} (.+)$", without_code, re.M)}


def test_slugs_are_those_of_the_site_and_github():
    assert slug("A misclassification matrix for `select_one`") == "a-misclassification-matrix-for-select_one"
    assert slug("Defending a survey's integrity") == "defending-a-surveys-integrity"


def internal_links() -> list[tuple[str, str]]:
    """``(page, target)`` of every relative link and image of the pages (not ``http``, not ``mailto``)."""
    return [
        (page, match.group(1))
        for page, text in CITING_PAGES.items()
        for match in re.finditer(r"\]\(([^)\s]+)\)", re.sub(r"^( *)```.*?^\1```", "", text, flags=re.S | re.M))
        if not re.match(r"[a-z]+:", match.group(1))
    ]


def test_there_are_internal_links_to_check():
    assert ("README.md", "docs/privacy.md") in internal_links()


@pytest.mark.parametrize("page, target", internal_links())
def test_every_internal_link_resolves(page, target):
    """A relative link between the README and docs/ names a file there, and an anchor one of its headings."""
    path, _, anchor = target.partition("#")
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(page), path)) if path else page
    assert not resolved.startswith(".."), f"{page}: {target} leaves the repository"
    assert (ROOT / resolved).exists(), f"{page}: {target} is not a file ({resolved})"
    if anchor:
        assert anchor in anchors((ROOT / resolved).read_text()), f"{page}: {target} names no heading of {resolved}"


def test_the_site_builds_strictly(tmp_path):
    """``make docs``: MkDocs in strict mode, so a broken link, anchor or page in the nav fails the build
    (not ``--quiet``: it hides the warnings that strict mode counts)."""
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    home = (tmp_path / "site" / "index.html").read_text()
    assert "make run" in home and 'src="img/form.png"' in home
    assert (tmp_path / "site" / "statistics" / "index.html").exists()


PACKAGES = ("analysis", "surveys", "storage", "web", "bench")


def layout_section() -> str:
    return PAGES["docs/development.md"].split("## Layout", 1)[1].split("\n## ", 1)[0]


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
def test_the_layout_names_every_module(module):
    """A newcomer reading the layout (docs/development.md) finds every module there: in its folder's list of
    modules (``### <folder>/ modules``) or, for a folder without one, its row of the table; a top-level module
    by name in the table."""
    folder, _, name = module.rpartition("/")
    rows = [line for line in layout_section().splitlines() if line.startswith("|")]
    if folder:
        assert f"`{name}`" in folder_listing(folder, rows), f"{module} is missing from the layout's {folder}/"
    else:
        assert any(f"`{name}`" in r for r in rows), f"{module} is missing from the layout table"


def folder_listing(folder: str, rows: list[str]) -> str:
    """What the layout says of ``folder``'s modules: its section of one line a module, else its table row."""
    heading = f"### {folder}/ modules"
    if heading in layout_section():
        return layout_section().split(heading, 1)[1].split("\n### ", 1)[0]
    return next((r for r in rows if f"`{folder}/`" in r), "")


def analysis_module_table() -> str:
    text = (ROOT / "analysis" / "README.md").read_text()
    return text.split("| module | what it holds |", 1)[1].split("\n\n", 1)[0]


def test_the_analysis_module_table_matches_all():
    """Every public name of analysis (``__all__``) is in analysis/README.md's module table,
    and every name the table shows is public or a module there."""
    import analysis

    rows = [row for row in analysis_module_table().splitlines() if not row.startswith("| `_")]  # private modules
    table = "\n".join(rows)
    shown = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", table))
    modules = {path.stem for path in (ROOT / "analysis").glob("*.py") if not path.stem.startswith("_")}
    assert set(analysis.__all__) - shown == set(), "public names missing from the table"
    assert shown - set(analysis.__all__) == set(), "the table shows names that are not public"
    assert {m.removesuffix(".py") for m in re.findall(r"`(\w+\.py)`", table)} == modules
