"""Throttles shared by every worker process: fixed-window rate limits,
sign-in failure locks, and a bound on concurrent password hashing.

On SQLite the counts live in a small SQLite file of their own (not the
answers database): every worker of the host sees the same counts, and losing
them in a crash costs nothing, so that file is written with
``synchronous = OFF``. On PostgreSQL they live in ``UNLOGGED`` tables of the
app's database (not written to the write-ahead log, emptied after a crash),
so every app server of a deployment counts against the same windows. Each
call is one short transaction; the SQL is the same on both. Buckets
and keys are opaque strings; the web layer makes them from keyed hashes of
the client address (and account name), so no address is stored. Writes
delete what has run out: a window's count once that window is over (on the
SQLite file, by the first hit of each second of a connection: the others
are one statement, :func:`send_hit`), a failure record once its lock is over
and it has been quiet for :data:`FAILURES_FORGOTTEN_SECONDS`. So the file
never holds a hash longer than it is needed, give or take a second.

Sign-in budgets count networks, not addresses (:func:`network_of`): an IPv4
/24 or an IPv6 /64 is one client, as one household or one rented server
holds a whole /64 and can rotate through it.
"""

from __future__ import annotations

import fcntl
import ipaddress
import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from storage import postgres
from storage.connection import BUSY_TIMEOUT_SECONDS, create_private_file, is_postgres

#: Failed sign-ins allowed in a row before a lock.
FREE_FAILURES = 5
FIRST_LOCK_SECONDS = 30
MAX_LOCK_SECONDS = 15 * 60
#: A failure record is kept this long after its last failure (and past its lock).
FAILURES_FORGOTTEN_SECONDS = 24 * 3600
#: Prefix lengths of one client's network: an IPv4 /24, an IPv6 /64 (the smallest network an ISP assigns).
IPV4_PREFIX, IPV6_PREFIX = 24, 64
#: The one network of every client address that is not an IP address.
UNKNOWN_NETWORK = "unknown"


def network_of(address: str | None) -> str:
    """The network ``address`` belongs to, as ``"198.51.100.0/24"`` or ``"2001:db8:1:2::/64"``.

    An IPv4 address seen through an IPv6 socket (``::ffff:198.51.100.7``) is
    its IPv4 /24. Anything that is not an address is :data:`UNKNOWN_NETWORK`,
    one network for all, so garbled values cannot each become a budget.
    """
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:
        return UNKNOWN_NETWORK
    if ip.version == 6 and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    if ip.version == 4:
        return str(ipaddress.IPv4Network((int(ip), IPV4_PREFIX), strict=False))
    return str(ipaddress.IPv6Network((int(ip), IPV6_PREFIX), strict=False))  # int(): no zone (%eth0)


@dataclass(frozen=True)
class Limit:
    """At most ``count`` hits per ``seconds`` (a fixed window)."""

    count: int
    seconds: int

    @classmethod
    def parse(cls, text: str) -> Limit:
        """``"300/600"`` -> 300 hits per 600 seconds."""
        try:
            count, seconds = (int(part) for part in str(text).split("/"))
        except ValueError:
            raise ValueError(f"a rate limit is written COUNT/SECONDS such as 300/600, got {text!r}") from None
        if count < 1 or seconds < 1:
            raise ValueError(f"a rate limit needs COUNT >= 1 and SECONDS >= 1, got {text!r}")
        return cls(count, seconds)


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    retry_after: int
    #: Hits in the bucket's current window, this one included.
    count: int = 0


#: ``PRAGMA user_version`` of a file that has :data:`_SCHEMA`.
_SCHEMA_VERSION = 2
_SCHEMA = (
    # Earlier versions kept a table "hits" without expiry times; its rows are useless now.
    "DROP TABLE IF EXISTS hits",
    "CREATE TABLE IF NOT EXISTS window_hits (bucket TEXT NOT NULL, window INTEGER NOT NULL,"
    " count INTEGER NOT NULL, expires REAL NOT NULL, PRIMARY KEY (bucket, window)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS window_hits_expires ON window_hits (expires)",
    "CREATE TABLE IF NOT EXISTS signin_failures (name_key TEXT NOT NULL, address_key TEXT NOT NULL,"
    " failures INTEGER NOT NULL, locked_until REAL NOT NULL, forget_after REAL NOT NULL,"
    " PRIMARY KEY (name_key, address_key)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS signin_failures_forget ON signin_failures (forget_after)",
)
#: The same tables on PostgreSQL, unlogged: a crash empties them, as losing counts costs nothing.
_POSTGRES_SCHEMA = (
    'CREATE UNLOGGED TABLE IF NOT EXISTS window_hits (bucket TEXT NOT NULL, "window" BIGINT NOT NULL,'
    ' count BIGINT NOT NULL, expires DOUBLE PRECISION NOT NULL, PRIMARY KEY (bucket, "window"))',
    "CREATE INDEX IF NOT EXISTS window_hits_expires ON window_hits (expires)",
    "CREATE UNLOGGED TABLE IF NOT EXISTS signin_failures (name_key TEXT NOT NULL, address_key TEXT NOT NULL,"
    " failures BIGINT NOT NULL, locked_until DOUBLE PRECISION NOT NULL, forget_after DOUBLE PRECISION NOT NULL,"
    " PRIMARY KEY (name_key, address_key))",
    "CREATE INDEX IF NOT EXISTS signin_failures_forget ON signin_failures (forget_after)",
)
#: Key of the advisory lock under which app servers starting together create the tables once.
_SCHEMA_LOCK_KEY = 0x52520015


def create_postgres_tables(db: postgres.PostgresDatabase) -> None:
    """Create the rate-limit tables in the PostgreSQL database if they are missing (idempotent)."""
    with db.conn.transaction():
        db.execute("SELECT pg_advisory_xact_lock(?)", [_SCHEMA_LOCK_KEY])
        for statement in _POSTGRES_SCHEMA:
            db.execute(statement)


def connect(path: str | Path):
    """Open the counts file, created 0600, with ``secure_delete`` so deleted
    windows' bucket hashes are zeroed, not left in free space; a
    ``postgresql://`` URL opens a connection of its own to that database's
    rate-limit tables (created if missing)."""
    if postgres.is_url(path):
        db = postgres.connect(path)
        create_postgres_tables(db)
        return db
    conn = sqlite3.connect(
        str(create_private_file(path)), timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None, factory=CountsConnection
    )
    conn.execute("PRAGMA secure_delete = ON")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = OFF")
    if conn.execute("PRAGMA user_version").fetchone()[0] != _SCHEMA_VERSION:
        conn.execute("BEGIN IMMEDIATE")
        for statement in _SCHEMA:
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")
        conn.execute("COMMIT")
    return conn


class CountsConnection(sqlite3.Connection):
    """A connection to the SQLite counts file, which knows when it last deleted the windows that ran out."""

    #: ``now`` of this connection's last deletion of the windows that ran out (:func:`send_hit`).
    purged_at: float = float("-inf")


#: Seconds a connection to the SQLite counts file lets pass between two deletions of the windows that ran out.
PURGE_EVERY_SECONDS = 1.0


@contextmanager
def _transaction(conn) -> Iterator[None]:
    """One short write transaction: ``BEGIN IMMEDIATE`` on SQLite, psycopg's ``transaction()`` on PostgreSQL."""
    if is_postgres(conn):
        with conn.conn.transaction():
            yield
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


#: Count one hit of a bucket's window (a new window starts at 1) and return its count.
COUNT_HIT = (
    'INSERT INTO window_hits (bucket, "window", count, expires) VALUES (?, ?, 1, ?)'
    ' ON CONFLICT (bucket, "window") DO UPDATE SET count = window_hits.count + 1 RETURNING count'
)


def hit(conn, bucket: str, limit: Limit, now: float) -> Verdict:
    """Count one hit for ``bucket``; refuse it if the window is full.

    Every call first deletes the counts of every bucket whose window is over,
    in the same transaction as the count (on PostgreSQL, in the same statement).
    """
    return send_hit(conn, bucket, limit, now)()


def send_hit(conn, bucket: str, limit: Limit, now: float) -> Callable[[], Verdict]:
    """:func:`hit`, with its verdict read when the returned function is called: on PostgreSQL one statement
    sent now (in a pipeline it waits with the statements around it; in autocommit it is atomic on its own),
    read then; on SQLite counted at once in the rate-limit file. There a connection deletes the windows that
    ran out with its first hit of each :data:`PURGE_EVERY_SECONDS` (in one short transaction with the count;
    on PostgreSQL every hit deletes them in its one statement), and counts the others in one statement, atomic
    in autocommit: every submission counts its arrival inside the answers database's write lock, so the three
    other calls were paid by every writer waiting for that lock."""
    window = int(now // limit.seconds)
    window_end = (window + 1) * limit.seconds
    retry_after = int(window_end - now) + 1
    if is_postgres(conn):  # one statement: one round trip instead of four
        cursor = conn.execute(
            f"WITH expired AS (DELETE FROM window_hits WHERE expires <= ?) {COUNT_HIT}",
            [now, bucket, window, window_end],
        )
        return lambda: _verdict(cursor.fetchone()[0], limit, retry_after)
    if not _purge_due(conn, now):
        ((count,),) = conn.execute(COUNT_HIT, [bucket, window, window_end]).fetchall()  # all: the statement ends
        return lambda: _verdict(count, limit, retry_after)
    with _transaction(conn):
        conn.execute("DELETE FROM window_hits WHERE expires <= ?", [now])
        (count,) = conn.execute(COUNT_HIT, [bucket, window, window_end]).fetchone()
    conn.purged_at = now
    return lambda: _verdict(count, limit, retry_after)


def _purge_due(conn: CountsConnection, now: float) -> bool:
    """Whether this hit deletes the windows that ran out: :data:`PURGE_EVERY_SECONDS` after the connection's
    last deletion (:attr:`CountsConnection.purged_at`), or at once for a clock that went back."""
    return not conn.purged_at <= now < conn.purged_at + PURGE_EVERY_SECONDS


def _verdict(count: int, limit: Limit, retry_after: int) -> Verdict:
    return Verdict(count <= limit.count, retry_after, count)


def lock_seconds(failures: int) -> int:
    """Lock after the ``failures``-th failure in a row: 0, then 30 s doubling to 15 min."""
    if failures < FREE_FAILURES:
        return 0
    return min(FIRST_LOCK_SECONDS * 2 ** (failures - FREE_FAILURES), MAX_LOCK_SECONDS)


def signin_lock(conn, name_key: str, address_key: str, now: float) -> int:
    """Seconds left of the sign-in lock on this account name from this address (0: none)."""
    row = conn.execute(
        "SELECT locked_until FROM signin_failures WHERE name_key = ? AND address_key = ?", [name_key, address_key]
    ).fetchone()
    return 0 if row is None or row[0] <= now else int(row[0] - now) + 1


def record_signin_failure(conn, name_key: str, address_key: str, now: float) -> int:
    """Count a failed sign-in for this name from this address; return the failures in a row.

    The lock this starts (:func:`lock_seconds`) holds only for this name from
    this address, so nobody elsewhere can lock the account's owner out.
    Records that have run out are deleted first. The count goes up in one
    upsert, so failures sent at once from several app servers all count.
    """
    with _transaction(conn):
        conn.execute("DELETE FROM signin_failures WHERE forget_after <= ?", [now])
        (failures,) = conn.execute(
            "INSERT INTO signin_failures (name_key, address_key, failures, locked_until, forget_after)"
            " VALUES (?, ?, 1, ?, ?) ON CONFLICT (name_key, address_key)"
            " DO UPDATE SET failures = signin_failures.failures + 1 RETURNING failures",
            [name_key, address_key, now, now + FAILURES_FORGOTTEN_SECONDS],
        ).fetchone()
        locked_until = now + lock_seconds(failures)
        conn.execute(
            "UPDATE signin_failures SET locked_until = ?, forget_after = ? WHERE name_key = ? AND address_key = ?",
            [locked_until, locked_until + FAILURES_FORGOTTEN_SECONDS, name_key, address_key],
        )
    return failures


def clear_signin_failures(conn, name_key: str, address_key: str | None = None) -> None:
    """Forget the failures of this name from this address, or from every address."""
    if address_key is None:
        conn.execute("DELETE FROM signin_failures WHERE name_key = ?", [name_key])
    else:
        conn.execute("DELETE FROM signin_failures WHERE name_key = ? AND address_key = ?", [name_key, address_key])


@contextmanager
def exclusive_slot(path: str | Path, slots: int) -> Iterator[bool]:
    """Hold one of ``slots`` machine-wide slots while the block runs; yields
    False at once, holding nothing, when all are taken.

    A slot is an exclusive ``flock`` on the file ``<path>.<i>``, so the bound
    holds across every worker process of this machine, and a slot is released
    when its holder ends, even by ``kill -9``.
    """
    if slots < 1:
        raise ValueError(f"slots must be at least 1, got {slots}")
    for index in range(slots):
        fd = os.open(f"{path}.{index}", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
        return
    yield False
