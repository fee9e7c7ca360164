"""Moving a survey database between backends: a SQLite file into an empty PostgreSQL database, or back.

Both ends are brought to the same schema version first (the target is
migrated, the source must have no pending migration); every table is copied
in one transaction of the target, its rows in column order (so the copy holds
no arrival order), and before that transaction commits the row count of
every table and every survey's tallies are compared between the two. A
difference rolls the whole copy back.
"""

from __future__ import annotations

from dataclasses import dataclass

from storage import migrations, queries
from storage.connection import executemany, immediate_transaction, read_snapshot

#: Every table of the schema, parents before the tables that refer to them.
TABLES = (
    "designs",
    "responses",
    "tallies",
    "group_tallies",
    "pattern_tallies",
    "pair_tallies",
    "daily_counts",
    "daily_tallies",
    "submission_keys",
    "invitation_codes",
    "survey_states",
    "hour_histograms",
    "bursts",
    "burst_tallies",
    "excluded_days",
    "admins",
    "admin_sessions",
    "account_links",
    "survey_roles",
    "audit_log",
    "surveys",
    "survey_versions",
    "catalog_changes",
    "catalog_generation",
    "events",
    "api_tokens",
    "releases",
)
#: Rows read and written at a time.
BATCH_ROWS = 5000


@dataclass(frozen=True)
class CopyReport:
    """What :func:`copy_database` copied: rows per table, and the surveys whose tallies were compared."""

    rows: dict[str, int]
    surveys: tuple[str, ...]


def copy_database(source, target) -> CopyReport:
    """Copy every row of ``source`` into the empty database ``target`` (either backend each); return the counts.

    Raises ValueError if ``source`` has pending migrations or ``target``
    holds any row, RuntimeError (with nothing written) if the copy's counts
    or tallies differ from the source's.
    """
    if migrations.pending_names(source):
        raise ValueError(f"the source database has pending migrations {migrations.pending_names(source)}: migrate it")
    migrations.migrate(target)
    filled = [table for table in TABLES if target.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]]
    if filled:
        raise ValueError(f"the target database is not empty: rows in {', '.join(filled)}")
    with immediate_transaction(target), read_snapshot(source):
        rows = {table: _copy_table(source, target, table) for table in TABLES}
        surveys = _compare(source, target, rows)
    return CopyReport(rows, surveys)


def _copy_table(source, target, table: str) -> int:
    """Copy one table (a name from :data:`TABLES`) in batches, ordered by every column; return the rows."""
    columns = [name for (name, *_) in source.execute(f"SELECT * FROM {table} LIMIT 0").description]
    listed = ", ".join(columns)
    order = ", ".join(str(i + 1) for i in range(len(columns)))
    insert = f"INSERT INTO {table} ({listed}) VALUES ({', '.join('?' * len(columns))})"
    cursor = source.execute(f"SELECT {listed} FROM {table} ORDER BY {order}")
    copied = 0
    while batch := cursor.fetchmany(BATCH_ROWS):
        executemany(target, insert, [tuple(row) for row in batch])
        copied += len(batch)
    return copied


def _compare(source, target, rows: dict[str, int]) -> tuple[str, ...]:
    """Check the copy's row counts and every survey's kept tallies against the source's."""
    for table, count in rows.items():
        (copied,) = target.execute(f"SELECT COUNT(*) FROM {table}").fetchone()
        if copied != count:
            raise RuntimeError(f"{table}: {count} rows in the source, {copied} in the copy")
    surveys = tuple(sorted(name for (name,) in source.execute("SELECT DISTINCT survey_id FROM designs").fetchall()))
    for survey_id in surveys:
        if queries.tallies(source, survey_id) != queries.tallies(target, survey_id):
            raise RuntimeError(f"survey {survey_id!r}: the copy's tallies differ from the source's")
        if queries.response_count(source, survey_id) != queries.response_count(target, survey_id):
            raise RuntimeError(f"survey {survey_id!r}: the copy's response count differs from the source's")
    return surveys
