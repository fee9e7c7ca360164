"""Command-line commands: ``flask --app app surveys check`` and friends."""

from __future__ import annotations

import sys

import click
from flask import Flask, current_app
from flask.cli import AppGroup

from surveys import storage
from surveys.loader import load_catalog

surveys_cli = AppGroup("surveys", help="Check and manage survey files.")
codes_cli = AppGroup("codes", help="Single-use invitation codes.")


@surveys_cli.command("check")
@click.argument("folder", required=False)
def check_command(folder: str | None) -> None:
    """Validate every survey file; exit 1 if any has a problem."""
    folder = folder or current_app.config["SURVEYS_DIR"]
    catalog = load_catalog(folder)
    for survey in catalog.surveys.values():
        click.echo(f"ok    {survey.source}: {survey.id} v{survey.version}, "
                   f"{len(survey.questions)} questions, epsilon {survey.epsilon.basic:.3f}")
    for problem in catalog.problems:
        click.echo(f"error {problem}", err=True)
    if catalog.problems:
        sys.exit(1)


@codes_cli.command("create")
@click.argument("survey_id")
@click.argument("count", type=click.IntRange(1, 100_000))
def create_codes_command(survey_id: str, count: int) -> None:
    """Create COUNT single-use invitation codes for SURVEY_ID and print them."""
    from web.db import get_db

    for code in storage.add_invitation_codes(get_db(), survey_id, count):
        click.echo(code)


def init_app(app: Flask) -> None:
    app.cli.add_command(surveys_cli)
    app.cli.add_command(codes_cli)
