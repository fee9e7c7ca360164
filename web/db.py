"""The database connection each worker thread keeps, and the ``init-db`` command.

``DATABASE_URL`` (``FLASK_DATABASE_URL=postgresql://...``) selects
PostgreSQL: each worker process opens a psycopg pool after the fork and each
request takes one connection from it, given back at the end of the request.
Unset, the SQLite file ``DATABASE`` is used as follows.

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

from storage import connection, migrations, postgres, ratelimit, transfer


def database_target(app: Flask) -> str:
    """The PostgreSQL URL if ``DATABASE_URL`` is set, else the SQLite file's path."""
    return app.config.get("DATABASE_URL") or app.config["DATABASE"]


def open_database(app: Flask):
    """A connection of the caller's own (close it), to whichever database the app uses."""
    return connection.connect(database_target(app))


def get_db() -> sqlite_utils.Database | postgres.PostgresDatabase:
    """This request's connection: from the worker's pool on PostgreSQL, else this
    worker thread's SQLite connection, opened on first use and kept."""
    if "db" not in g and current_app.config.get("DATABASE_URL"):
        g.db = postgres.from_pool(_worker_pool(current_app))
    if "db" not in g:
        cache = current_app.extensions.setdefault("db_connections", {})
        key = (os.getpid(), threading.get_ident(), current_app.config["DATABASE"])
        db = cache.get(key)
        if db is None:
            db = cache[key] = connection.connect(current_app.config["DATABASE"])
        g.db = db
    return g.db


def _worker_pool(app: Flask):
    """This worker process's PostgreSQL pool, opened on first use after the fork."""
    pools = app.extensions.setdefault("db_pools", {})
    key = (os.getpid(), app.config["DATABASE_URL"])
    if key not in pools:
        pools[key] = postgres.open_pool(app.config["DATABASE_URL"])
    return pools[key]


def close_pools(app: Flask) -> None:
    """Close the PostgreSQL pools this app opened (tests; a worker's pool ends with its process)."""
    for pool in app.extensions.pop("db_pools", {}).values():
        pool.close()


def end_request(_exc: BaseException | None = None) -> None:
    """Roll back whatever transaction the request left open; a SQLite connection
    stays open, a PostgreSQL one goes back to its pool."""
    db = g.pop("db", None)
    if db is None:
        return
    connection.roll_back_open_transaction(db)
    if connection.is_postgres(db):
        db.close()


def migrate_database(target: str) -> list[str]:
    """Create the database file (and its folder), or the PostgreSQL schema and its rate-limit tables,
    or apply pending migrations."""
    if not postgres.is_url(target):
        Path(target).parent.mkdir(parents=True, exist_ok=True)
    db = connection.connect(target)
    try:
        applied = migrations.migrate(db)
        if connection.is_postgres(db):
            ratelimit.create_postgres_tables(db)
        return applied
    finally:
        db.close()


def ensure_schema(app: Flask) -> None:
    """Create or migrate the database on first run."""
    migrate_database(database_target(app))


def _shown(target: str) -> str:
    """The database named without its password."""
    return postgres.without_password(target) if postgres.is_url(target) else target


@click.command("init-db")
@with_appcontext
def init_db_command() -> None:
    """Create the database, or apply pending migrations."""
    target = database_target(current_app)
    applied = migrate_database(target)
    click.echo(f"Database {_shown(target)}: " + (f"applied {', '.join(applied)}" if applied else "up to date"))


@click.command("copy-db")
@click.argument("source")
@click.argument("target")
def copy_db_command(source: str, target: str) -> None:
    """Copy the database SOURCE into the empty database TARGET (each a SQLite path or a postgresql:// URL)."""
    if not postgres.is_url(target):
        Path(target).parent.mkdir(parents=True, exist_ok=True)
    source_db, target_db = connection.connect(source), connection.connect(target)
    try:
        report = transfer.copy_database(source_db, target_db)
    except (ValueError, RuntimeError) as error:
        raise click.ClickException(str(error)) from None
    finally:
        source_db.close()
        target_db.close()
    click.echo(f"Copied {_shown(source)} to {_shown(target)}; counts and tallies compared equal:")
    for table, rows in report.rows.items():
        click.echo(f"  {table}: {rows}")


def init_app(app: Flask) -> None:
    app.teardown_appcontext(end_request)
    app.cli.add_command(init_db_command)
    app.cli.add_command(copy_db_command)
