"""One database connection per request, cached on ``flask.g`` (as in flaskr)."""

from __future__ import annotations

from pathlib import Path

import click
import sqlite_utils
from flask import Flask, current_app, g
from flask.cli import with_appcontext

from storage import connection, migrations


def get_db() -> sqlite_utils.Database:
    """The request's connection, opened on first use."""
    if "db" not in g:
        g.db = connection.connect(current_app.config["DATABASE"])
    return g.db


def close_db(_exc: BaseException | None = None) -> None:
    db = g.pop("db", None)
    if db is not None:
        db.close()


def migrate_database(path: str) -> list[str]:
    """Create the database file (and its folder) or apply pending migrations."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    db = connection.connect(path)
    try:
        return migrations.migrate(db)
    finally:
        db.close()


def ensure_schema(app: Flask) -> None:
    """Create or migrate the database file on first run."""
    migrate_database(app.config["DATABASE"])


@click.command("init-db")
@with_appcontext
def init_db_command() -> None:
    """Create the database, or apply pending migrations."""
    path = current_app.config["DATABASE"]
    applied = migrate_database(path)
    click.echo(f"Database {path}: " + (f"applied {', '.join(applied)}" if applied else "up to date"))


def init_app(app: Flask) -> None:
    app.teardown_appcontext(close_db)
    app.cli.add_command(init_db_command)
