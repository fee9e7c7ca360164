"""The database connection each worker thread keeps, and the ``init-db`` command.

Opening the file costs more than most requests' work: ``connect`` runs its
pragmas, and closing the last connection to a WAL database checkpoints the
log and deletes it (two ``fsync`` calls), which doubled a submission's time
(``bench/profile_submit.py``). So each worker keeps one connection per
process and thread, on the app (never at module level), opened on first use
after gunicorn's fork and never shared between threads, as
:mod:`web.limits` does for the rate-limit file. At the end of every request
a transaction left open by an error is rolled back, so the next request
starts clean.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import click
import sqlite_utils
from flask import Flask, current_app, g
from flask.cli import with_appcontext

from storage import connection, migrations


def get_db() -> sqlite_utils.Database:
    """This worker thread's connection to the database, opened on first use and kept."""
    if "db" not in g:
        cache = current_app.extensions.setdefault("db_connections", {})
        key = (os.getpid(), threading.get_ident(), current_app.config["DATABASE"])
        db = cache.get(key)
        if db is None:
            db = cache[key] = connection.connect(current_app.config["DATABASE"])
        g.db = db
    return g.db


def end_request(_exc: BaseException | None = None) -> None:
    """Roll back whatever transaction the request left open; the connection stays open."""
    db = g.pop("db", None)
    if db is not None and db.conn.in_transaction:
        db.conn.rollback()


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
    app.teardown_appcontext(end_request)
    app.cli.add_command(init_db_command)
