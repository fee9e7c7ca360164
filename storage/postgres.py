"""PostgreSQL through psycopg 3: the thin wrapper the storage modules write their SQL against.

The storage modules write SQL with ``?`` placeholders and call
``db.execute(sql, params)``, as on a :class:`sqlite_utils.Database`;
:class:`PostgresDatabase` offers the same call on a psycopg connection, in
autocommit mode so that a statement outside a transaction commits at once and
every write runs in :func:`storage.connection.immediate_transaction` (psycopg's
``Connection.transaction``). The SQL that differs between the two databases is
spelled in :mod:`storage.connection` (``Dialect``); nothing else is hidden.
The web layer takes connections from a :class:`psycopg_pool.ConnectionPool`
(:func:`open_pool`), opened after the fork, one per worker process.
"""

from __future__ import annotations

import secrets
import select
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache

import psycopg
import psycopg.rows
from psycopg_pool import ConnectionPool

#: Seconds a request waits for a pooled connection, a new connection or a lock before giving up with
#: :class:`psycopg.OperationalError` (the web layer answers 503 with Retry-After), as SQLite's busy timeout.
WAIT_SECONDS = 5.0

#: URL schemes that select PostgreSQL (``FLASK_DATABASE_URL=postgresql://user@host/db``).
SCHEMES = ("postgresql://", "postgres://")


def is_url(target: object) -> bool:
    """True if ``target`` is a PostgreSQL URL rather than the path of a SQLite file."""
    return isinstance(target, str) and target.startswith(SCHEMES)


def without_password(url: str) -> str:
    """``url`` with any password replaced by ``***``, to print it."""
    info = psycopg.conninfo.conninfo_to_dict(url)
    if "password" in info:
        info["password"] = "***"
    return psycopg.conninfo.make_conninfo(**info)


@lru_cache(maxsize=512)
def placeholders(sql: str) -> str:
    """``sql`` with SQLite's ``?`` placeholders written as psycopg's ``%s`` (a literal ``%`` doubled)."""
    return sql.replace("%", "%%").replace("?", "%s")


class PostgresDatabase:
    """One psycopg connection with the ``execute`` call the storage modules use.

    ``conn`` is the psycopg connection itself (``conn.transaction()``,
    ``conn.info``); ``release`` is called by :meth:`close` (a pool's
    ``putconn``), else the connection is closed.
    """

    dialect = "postgresql"

    def __init__(self, conn: psycopg.Connection, release=None):
        self.conn = conn
        self._release = release

    def execute(self, sql: str, params: Sequence | None = None) -> psycopg.Cursor:
        return self.conn.execute(placeholders(sql), params or None)

    def executemany(self, sql: str, rows: Iterable[Sequence]) -> None:
        rows = list(rows)
        if rows:
            with self.conn.cursor() as cursor:
                cursor.executemany(placeholders(sql), rows)

    def server_cursor(self, sql: str, params: Sequence) -> psycopg.ServerCursor:
        """A named cursor: the server keeps the result and hands rows over as they are fetched."""
        cursor = self.conn.cursor(name=f"rr_{secrets.token_hex(8)}")
        cursor.execute(placeholders(sql), params)
        return cursor

    def query(self, sql: str, params: Sequence | None = None) -> Iterator[dict]:
        """Rows as dicts (``sqlite_utils.Database.query``, positional parameters only)."""
        with self.conn.cursor(row_factory=psycopg.rows.dict_row) as cursor:
            yield from cursor.execute(placeholders(sql), params or None)

    @property
    def in_transaction(self) -> bool:
        """True inside a transaction; False on a lost (broken or closed) connection, which has none to roll back."""
        if self.conn.closed or self.conn.broken:
            return False
        return self.conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE

    def rollback(self) -> None:
        self.conn.rollback()

    def table_names(self) -> list[str]:
        return [
            name
            for (name,) in self.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
                " ORDER BY table_name"
            ).fetchall()
        ]

    def column_names(self, table: str) -> list[str]:
        return [
            name
            for (name,) in self.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()"
                " AND table_name = ? ORDER BY ordinal_position",
                [table],
            ).fetchall()
        ]

    def close(self) -> None:
        if self._release is not None:
            self._release(self.conn)
        else:
            self.conn.close()


def connect(url: str) -> PostgresDatabase:
    """A connection of its own (CLI commands, tests), in autocommit mode."""
    return PostgresDatabase(psycopg.connect(url, autocommit=True))


def open_pool(url: str, max_size: int = 4) -> ConnectionPool:
    """A pool of autocommit connections for one worker process (open it after the fork).

    Waits are bounded by :data:`WAIT_SECONDS`, well below gunicorn's 30 s worker timeout: taking a
    connection (``PoolTimeout`` when the server is lost or every connection busy), opening one
    (``connect_timeout``) and waiting for a row or table lock (``lock_timeout``, ``LockNotAvailable``).
    Each raises a :class:`psycopg.OperationalError`, which the web layer answers with a 503.

    A lost connection is replaced in the background, tried again after 1, 3, 7, 15, 31 ... s; psycopg_pool
    keeps at it for ``reconnect_timeout`` (5 minutes by default), so after a long outage its next try could
    come a minute after the server was back, every request meanwhile waiting its 5 s for a connection. Here
    a series of tries ends after the same :data:`WAIT_SECONDS`, and the next request that finds no
    connection starts a new one at once
    (tests/test_postgres.py::test_a_pool_connects_again_as_soon_as_the_server_is_back_after_a_long_outage).
    """
    wait = WAIT_SECONDS
    kwargs = {
        "autocommit": True,
        "connect_timeout": max(1, round(wait)),
        "options": f"-c lock_timeout={int(wait * 1000)}",
    }
    return ConnectionPool(
        url, min_size=1, max_size=max_size, kwargs=kwargs, timeout=wait, reconnect_timeout=wait, open=True
    )


def from_pool(pool: ConnectionPool) -> PostgresDatabase:
    """A connection taken from ``pool``; :meth:`PostgresDatabase.close` gives it back.

    A connection the server closed while it sat idle in the pool (the server restarted, failed over or was
    killed) is closed here and the next one taken, so the requests after a restart do not each fail on one
    (tests/test_postgres.py::test_the_connections_a_restarted_server_closed_are_not_handed_out). Up to
    ``max_size`` are dropped in a row; then the pool's next connection is given as it is."""
    for _ in range(pool.max_size):
        conn = pool.getconn()
        if not closed_by_server(conn):
            return PostgresDatabase(conn, release=pool.putconn)
        conn.close()
        pool.putconn(conn)  # closed: the pool drops it and opens another in the background
    return PostgresDatabase(pool.getconn(), release=pool.putconn)


def closed_by_server(conn: psycopg.Connection) -> bool:
    """Whether the server has closed ``conn``, or written to it while it was idle, which an idle connection
    only sees when it is being closed (the server's "terminating connection" message, or the end of the
    stream): its socket polled without waiting, no round trip. A connection it wrote to for another reason
    (a setting's new value) is dropped too, which costs one new connection."""
    poller = select.poll()
    poller.register(conn.fileno(), select.POLLIN)
    return bool(poller.poll(0))
