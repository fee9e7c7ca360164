"""The database: opening it, transactions, the SQL spelled per backend, private files, rebuild and backup.

Takes and returns :class:`sqlite_utils.Database` objects, or
:class:`storage.postgres.PostgresDatabase` when :func:`connect` is given a
``postgresql://`` URL; knows nothing of Flask. The few SQL spellings that
differ between SQLite and PostgreSQL are :class:`Dialect` fields, chosen by
:func:`dialect`. The schema is in :mod:`storage.migrations`, the writes in
:mod:`storage.responses`, the reads in :mod:`storage.queries`.

Every write is one short ``BEGIN IMMEDIATE`` transaction: the write lock is
taken up front, so concurrent writers queue on the busy timeout instead of
failing with "database is locked" when a read transaction tries to upgrade.

What the file's layout still says about arrival order, and what removes it:

* Inside a b-tree page the cell pointers are in key (random id) order, but
  SQLite writes each new cell into the page's free space below the others,
  so until the page is next rebuilt the cells' byte offsets follow arrival
  (a later row at a lower offset). That is a weak signal in ``responses``
  and a stronger one in its indexes (``tests/test_row_order.py`` measures
  it). The write-ahead log holds the page images of recent commits in
  commit order (an automatic checkpoint copies them into the file but does
  not erase them; they are overwritten as the log is reused): there the
  order of the latest commits is plain.
* :func:`rebuild` (``flask --app app compact``) removes both: ``VACUUM``
  rewrites every table and index in key order, so the file becomes a
  function of the stored rows alone, and ``wal_checkpoint(TRUNCATE)`` empties
  the log. Rows stored after it carry the weak order again until the next
  rebuild: run it daily (cron) and after closing a survey.
* :func:`backup` writes a rebuilt copy (``VACUUM INTO``), never the live
  layout, in rollback-journal mode with no log beside it.
* ``secure_delete`` is on: space freed when a page split moves cells (and
  deleted rows, as in the rate-limit file) is zeroed. Without it, stale
  copies of moved cells stay in the page's free space and record earlier
  layouts (``tests/test_row_order.py``).
* Database files, their ``-wal`` and ``-shm`` files and backups are created
  with mode 0600 (:func:`create_private_file`; SQLite gives ``-wal`` and
  ``-shm`` the database file's mode). An existing file keeps its mode.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
import psycopg.sql
import sqlite_utils

from storage import postgres

#: How long a write waits for the lock before giving up ("database is locked"); the web
#: layer then answers 503 with Retry-After. Well below gunicorn's 30 s worker timeout.
BUSY_TIMEOUT_SECONDS = 5


def create_private_file(path: str | Path) -> Path:
    """Create ``path`` empty with mode 0600 (whatever the umask) if it does
    not exist, so that SQLite opens a file only its owner can read; an
    existing file is left as it is."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    return path


def connect(path: str | Path) -> sqlite_utils.Database | postgres.PostgresDatabase:
    """Open the database file (created 0600) with WAL, a busy timeout, full
    durability and ``secure_delete`` (freed space zeroed); a ``postgresql://``
    URL opens a PostgreSQL connection of its own instead."""
    if postgres.is_url(path):
        return postgres.connect(path)
    conn = sqlite3.connect(str(create_private_file(path)), timeout=BUSY_TIMEOUT_SECONDS)
    db = sqlite_utils.Database(conn)
    db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_SECONDS * 1000}")
    db.execute("PRAGMA secure_delete = ON")
    _set_wal(db)
    db.execute("PRAGMA synchronous = FULL")
    db.execute("PRAGMA foreign_keys = ON")
    return db


def _set_wal(db: sqlite_utils.Database) -> None:
    """``PRAGMA journal_mode = WAL``, retried for up to the busy timeout while another process holds the file.

    Setting the journal mode can answer "database is locked" at once, without
    SQLite's busy handler, while another connection writes (gunicorn's workers
    all start together and the first one migrates a new file): that failed a
    worker's boot, and gunicorn then stopped every worker.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_SECONDS
    while True:
        try:
            db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@contextmanager
def immediate_transaction(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any exception.

    On PostgreSQL, psycopg's ``transaction()`` (``BEGIN`` ... ``COMMIT``):
    row locks are taken as rows are written, and unique keys make a second
    writer of the same key wait for the first to commit or roll back.
    """
    if is_postgres(db):
        with db.conn.transaction():
            yield db
        return
    db.conn.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.rollback()
        raise
    db.conn.execute("COMMIT")


@contextmanager
def pipelined_transaction(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """:func:`immediate_transaction` for a write of many statements: on PostgreSQL they go out in one
    psycopg pipeline (https://www.psycopg.org/psycopg3/docs/advanced/pipeline.html), so the client waits
    only where it reads a result (a ``fetch*`` of a ``RETURNING``: the ``BEGIN`` travels with it) and once at
    the end (the ``COMMIT`` with the writes before it). Any error, raised by the server at either wait or by
    the block, rolls the transaction back. On SQLite, :func:`immediate_transaction` itself."""
    if not is_postgres(db):
        with immediate_transaction(db):
            yield db
        return
    conn = db.conn
    try:
        with conn.pipeline():
            conn.execute("BEGIN")  # the pool's connections are in autocommit: a transaction block by hand
            yield db
            conn.execute("COMMIT")
    except BaseException:
        if db.in_transaction:  # not on a lost connection, which has none to roll back
            conn.execute("ROLLBACK")
        raise


@contextmanager
def pipeline(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """Statements sent together, outside a transaction, their results read after the block: on PostgreSQL
    one psycopg pipeline, which waits for every result at its end, so independent statements (each atomic
    on its own) cost one round trip. On SQLite nothing (statements run as they are sent; no round trips)."""
    if not is_postgres(db):
        yield db
        return
    with db.conn.pipeline():
        yield db


@contextmanager
def read_snapshot(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """One read transaction: every query inside sees the same committed state
    (WAL readers never block the writers; on PostgreSQL a ``REPEATABLE READ``
    read-only transaction)."""
    if is_postgres(db):
        with db.conn.transaction():
            db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield db
        return
    db.conn.execute("BEGIN")
    try:
        yield db
    finally:
        if db.conn.in_transaction:
            db.conn.execute("COMMIT")


def is_postgres(db) -> bool:
    return getattr(db, "dialect", None) == "postgresql"


def executemany(db, sql: str, rows: Iterable[Sequence]) -> None:
    """Run ``sql`` (``?`` placeholders) once per row, inside the caller's transaction."""
    if is_postgres(db):
        db.executemany(sql, rows)
    else:
        db.conn.executemany(sql, rows)


def streaming_cursor(db, sql: str, params: Sequence):
    """A cursor over ``sql`` whose rows are fetched as the caller reads them (``fetchmany``).

    On PostgreSQL a server-side (named) cursor, so a large result is never
    held in this process; it lives in the caller's transaction
    (:func:`read_snapshot`). SQLite's cursors step through the rows anyway.
    """
    if is_postgres(db):
        return db.server_cursor(sql, params)
    return db.conn.execute(sql, params)


def in_transaction(db) -> bool:
    """Whether ``db`` has a transaction open (on either backend)."""
    return db.in_transaction if is_postgres(db) else db.conn.in_transaction


def roll_back_open_transaction(db) -> None:
    """Roll back a transaction an error left open (the connection stays usable)."""
    if in_transaction(db):
        db.conn.rollback()


@dataclass(frozen=True)
class Dialect:
    """The SQL spellings that differ between SQLite and PostgreSQL; every other statement is shared."""

    name: str
    #: The text of one JSON field of a TEXT column, the field name a parameter: ``{column}``.
    json_field: str
    #: A table of ``(key, value)`` of a JSON object in a TEXT column: ``{column}``.
    json_pairs: str
    #: ``column <in_values> ?`` with one parameter holding a list (see :func:`in_values`).
    in_values: str
    #: Null-safe "differs from".
    is_not: str
    #: Aggregate joining a batch's CSV lines with CRLF, in id order.
    join_lines: str
    #: An index hint ``{index}`` (PostgreSQL plans without one).
    indexed_by: str


SQLITE = Dialect(
    name="sqlite",
    json_field="json_extract({column}, '$.' || ?)",
    json_pairs="json_each({column})",
    in_values="IN (SELECT value FROM json_each(?))",
    is_not="IS NOT",
    join_lines="group_concat(line, char(13, 10))",
    indexed_by=" INDEXED BY {index}",
)
POSTGRESQL = Dialect(
    name="postgresql",
    json_field="({column}::jsonb ->> ?)",
    json_pairs="jsonb_each_text({column}::jsonb)",
    in_values="= ANY(?)",
    is_not="IS DISTINCT FROM",
    join_lines="string_agg(line, E'\\r\\n' ORDER BY id)",
    indexed_by="",
)


def dialect(db) -> Dialect:
    return POSTGRESQL if is_postgres(db) else SQLITE


def values_param(db, values: Sequence[str]) -> object:
    """The parameter for :attr:`Dialect.in_values`: a JSON array on SQLite, a list on PostgreSQL."""
    return list(values) if is_postgres(db) else json.dumps(list(values))


def rebuild(db: sqlite_utils.Database) -> int:
    """Rewrite the database in key order (see :func:`_rebuild_sqlite`; on PostgreSQL
    :func:`_cluster_postgres`); return the responses kept."""
    if is_postgres(db):
        _cluster_postgres(db)
    else:
        _rebuild_sqlite(db)
    (count,) = db.execute("SELECT COUNT(*) FROM responses").fetchone()
    return count


def _cluster_postgres(db) -> list[str]:
    """``CLUSTER`` every table of the schema that has a primary key ``USING`` that key, then ``ANALYZE``.

    PostgreSQL appends each new row version to its table's heap, so the heap
    (and a ``pg_dump``, which copies it in heap order) keeps arrival order;
    ``CLUSTER`` rewrites each table into a new file in key (random id) order.
    It takes an ``ACCESS EXCLUSIVE`` lock per table: submissions wait for it
    (up to their lock timeout, then 503). What it does not remove: the old
    files' blocks freed on disk, and the write-ahead log (and any archive or
    standby), which record writes in commit order until they are recycled.
    Returns the tables rewritten.
    """
    keyed = db.execute(
        "SELECT t.relname, i.relname FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid"
        " JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_namespace n ON n.oid = t.relnamespace"
        " WHERE x.indisprimary AND n.nspname = current_schema() ORDER BY t.relname"
    ).fetchall()
    for table, index in keyed:  # names read from the catalog, quoted as identifiers
        names = [psycopg.sql.Identifier(name).as_string(db.conn) for name in (table, index)]
        db.execute(f"CLUSTER {names[0]} USING {names[1]}")
    db.execute("ANALYZE")
    return [table for table, _ in keyed]


def _rebuild_sqlite(db: sqlite_utils.Database) -> None:
    """Rewrite the database in key order and empty the write-ahead log; return the responses kept.

    ``VACUUM`` rebuilds every table and index from the rows alone, which
    removes the weak arrival order left in page layouts (see the module
    notes); ``wal_checkpoint(TRUNCATE)`` then copies the rebuilt pages into
    the file and truncates the log, so no older page image stays in it.
    Writers wait for the rebuild on the busy timeout; run it when the
    survey is quiet. Raises RuntimeError if a reader kept the log from
    being emptied (run it again).
    """
    db.execute("VACUUM")
    busy, _, _ = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    if busy:
        raise RuntimeError("the database was rebuilt but a reader kept the write-ahead log from being emptied")


def backup(source: str | Path, target: str | Path) -> int:
    """Write a rebuilt copy of the database online; return the responses copied.

    ``VACUUM INTO`` reads one consistent snapshot (one read transaction: WAL
    readers do not block writers) and writes it in key order, so the copy
    carries no arrival order, in rollback-journal mode with no ``-wal`` or
    ``-shm`` file. The copy is written to a file beside ``target``, created
    0600, checked with ``PRAGMA integrity_check``, then renamed into place,
    so ``target`` is never half-written. A ``postgresql://`` source is
    dumped with ``pg_dump`` instead (:func:`_dump_postgres`).
    """
    target = Path(target)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    try:
        if postgres.is_url(source):
            count = _dump_postgres(str(source), create_private_file(partial))
        else:
            _write_rebuilt_copy(source, create_private_file(partial))
            count = _check_copy(partial)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    partial.replace(target)
    return count


def _write_rebuilt_copy(source: str | Path, partial: Path) -> None:
    src = sqlite3.connect(str(source), timeout=BUSY_TIMEOUT_SECONDS)
    try:
        src.execute("PRAGMA secure_delete = ON")
        src.execute("VACUUM INTO ?", [str(partial)])
    finally:
        src.close()


def _check_copy(partial: Path) -> int:
    """Check the copy's integrity and journal mode; return its responses."""
    dst = sqlite3.connect(str(partial))
    try:
        (mode,) = dst.execute("PRAGMA journal_mode").fetchone()
        if mode == "wal":
            raise RuntimeError(f"the backup {partial} is in WAL mode; it would need its -wal file")
        (ok,) = dst.execute("PRAGMA integrity_check").fetchone()
        if ok != "ok":
            raise RuntimeError(f"backup failed its integrity check: {ok}")
        (count,) = dst.execute("SELECT COUNT(*) FROM responses").fetchone()
    finally:
        dst.close()
    return count


#: Tables whose rows ``backup`` leaves out of a PostgreSQL dump (their definitions are kept): the
#: rate-limit counts, keyed hashes of client addresses that must not outlive their windows.
DUMP_WITHOUT_DATA = ("window_hits", "signin_failures")


def _dump_postgres(url: str, partial: Path) -> int:
    """``pg_dump --format=custom`` of the database into ``partial`` (created 0600); return its responses.

    The dump reads a snapshot exported from a ``REPEATABLE READ`` transaction
    (``pg_export_snapshot``), so the responses counted here are exactly those
    dumped, while the app keeps writing. The password goes to ``pg_dump`` in
    its environment, never on its command line. The dump is then read back
    with ``pg_restore --list``. Rows are dumped in heap order: run ``compact``
    (:func:`_cluster_postgres`) first so that they carry no arrival order.
    """
    info = psycopg.conninfo.conninfo_to_dict(url)
    password = info.pop("password", None)
    env = dict(os.environ, **({"PGPASSWORD": str(password)} if password is not None else {}))
    with psycopg.connect(url) as conn:
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        (snapshot,) = conn.execute("SELECT pg_export_snapshot()").fetchone()
        (count,) = conn.execute("SELECT COUNT(*) FROM responses").fetchone()
        command = ["pg_dump", "--format=custom", "--no-owner", "--no-privileges", f"--snapshot={snapshot}"]
        command += [f"--exclude-table-data={table}" for table in DUMP_WITHOUT_DATA]
        _run_tool([*command, "--file", str(partial), "--dbname", psycopg.conninfo.make_conninfo(**info)], env)
    _run_tool(["pg_restore", "--list", str(partial)], env)
    return count


def _run_tool(command: list[str], env: dict) -> None:
    """Run a PostgreSQL client program; RuntimeError with its message if it fails or is missing."""
    try:
        result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise RuntimeError(f"{command[0]} was not found; install the PostgreSQL client programs") from None
    if result.returncode != 0:
        raise RuntimeError(f"{command[0]} failed ({result.returncode}): {result.stderr.strip()}")
