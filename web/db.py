"""One database connection per request, cached on ``flask.g`` (as in flaskr)."""

from __future__ import annotations

import click
import sqlite_utils
from flask import Flask, current_app, g
from flask.cli import with_appcontext

from surveys import storage


def get_db() -> sqlite_utils.Database:
    """The request's connection, opened on first use."""
    if "db" not in g:
        g.db = storage.connect(current_app.config["DATABASE"])
    return g.db


def close_db(_exc: BaseException | None = None) -> None:
    db = g.pop("db", None)
    if db is not None:
        db.close()


def ensure_schema(app: Flask) -> None:
    """Create or migrate the database file on first run."""
    from pathlib import Path

    Path(app.config["DATABASE"]).parent.mkdir(parents=True, exist_ok=True)
    db = storage.connect(app.config["DATABASE"])
    try:
        if storage.needs_migration(db):
            storage.migrate(db)
    finally:
        db.close()


@click.command("init-db")
@with_appcontext
def init_db_command() -> None:
    """Create the database, or apply pending migrations."""
    from pathlib import Path

    path = current_app.config["DATABASE"]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    db = storage.connect(path)
    applied = storage.migrate(db)
    db.close()
    click.echo(f"Database {path}: " + (f"applied {', '.join(applied)}" if applied else "up to date"))


def init_app(app: Flask) -> None:
    app.teardown_appcontext(close_db)
    app.cli.add_command(init_db_command)
