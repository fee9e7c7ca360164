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
