"""The migration set and how a migration joins it, for both backends.

:data:`migrations` is sqlite-utils' set (it records applied names on SQLite); :data:`MIGRATIONS` lists every
migration in the order registered, which :mod:`storage.migrations` applies on PostgreSQL. A migration module
registers its steps with :func:`migration`, in order: ``storage/migrations_001_009.py``, then
``storage/migrations_010_017.py``, then the newest, in ``storage/migrations.py`` (which imports the two first).
Each table definition passes through :func:`ddl`.
"""

from __future__ import annotations

import re

from sqlite_utils import Migrations

from storage.connection import is_postgres

migrations = Migrations("rr-survey")
#: Every migration in order, as registered (the PostgreSQL runner applies these).
MIGRATIONS: list = []


def migration(function):
    """Register ``function`` as the next migration, under its name, for both backends."""
    MIGRATIONS.append(function)
    return migrations()(function)


def ddl(db, sql: str) -> str:
    """A table definition as the backend spells it: on PostgreSQL no ``WITHOUT ROWID``, ``REAL`` as a double."""
    if not is_postgres(db):
        return sql
    return re.sub(r"\bREAL\b", "DOUBLE PRECISION", sql.replace("WITHOUT ROWID", ""))
