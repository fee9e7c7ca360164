"""Fixed-window rate limits shared by every worker process.

The counts live in a small SQLite file of their own (not the answers
database): every worker sees the same counts, and losing them in a crash
costs nothing, so that file is written with ``synchronous = OFF``. Buckets
are opaque strings; the web layer makes them from a keyed hash of the
client address, so no address is stored, and windows older than the
previous one are deleted as new ones start.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from surveys.storage import BUSY_TIMEOUT_SECONDS


@dataclass(frozen=True)
class Limit:
    """At most ``count`` hits per ``seconds`` (a fixed window)."""

    count: int
    seconds: int

    @classmethod
    def parse(cls, text: str) -> "Limit":
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


def connect(path: str | Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute(
        "CREATE TABLE IF NOT EXISTS hits (bucket TEXT NOT NULL, window INTEGER NOT NULL,"
        " count INTEGER NOT NULL, PRIMARY KEY (bucket, window)) WITHOUT ROWID"
    )
    return conn


def hit(conn: sqlite3.Connection, bucket: str, limit: Limit, now: float) -> Verdict:
    """Count one hit for ``bucket``; refuse it if the window is full."""
    window = int(now // limit.seconds)
    (count,) = conn.execute(
        "INSERT INTO hits (bucket, window, count) VALUES (?, ?, 1)"
        " ON CONFLICT DO UPDATE SET count = count + 1 RETURNING count",
        [bucket, window],
    ).fetchone()
    if count == 1:
        conn.execute("DELETE FROM hits WHERE bucket = ? AND window < ?", [bucket, window])
    retry_after = int((window + 1) * limit.seconds - now) + 1
    return Verdict(count <= limit.count, retry_after)
