"""A survey's open/closed state as an admin or its targets leave it (``survey_states``), and its reads.

The file's dates and ``closed`` flag say when a survey takes answers; a row
here overrides the flag: an admin's choice (:func:`set_closed`), or the
closing a survey that met its targets writes once (:func:`close_on_targets`),
which never overrides an admin. Each submission reads it
(:func:`send_closed_override`, in the answer's own transaction from
:func:`storage.responses.store_submission`). Knows nothing of Flask.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlite_utils

from storage import audit, events
from storage.connection import immediate_transaction


def set_closed(db: sqlite_utils.Database, survey_id: str, closed: bool, note: audit.Note | None = None) -> None:
    """Close or open ``survey_id`` by hand, and write ``note`` to the audit log in the same transaction."""
    with immediate_transaction(db):
        write_closed(db, survey_id, closed)
        audit.write_if(db, note)


def write_closed(db: sqlite_utils.Database, survey_id: str, closed: bool) -> None:
    """:func:`set_closed` inside the caller's transaction."""
    db.execute(
        "INSERT INTO survey_states (survey_id, closed) VALUES (?, ?)"
        " ON CONFLICT (survey_id) DO UPDATE SET closed = excluded.closed",
        [survey_id, int(closed)],
    )


def close_on_targets(db: sqlite_utils.Database, survey_id: str) -> bool:
    """Close a survey that met its targets, unless an admin opened or closed it by hand; True if it closed now.

    The admin's choice is a row in ``survey_states``; this writes one only
    where there is none, so it never reopens a survey, never overrides an
    admin, and two answers that both see the targets met close it once.
    """
    with immediate_transaction(db):
        cursor = db.execute(
            "INSERT INTO survey_states (survey_id, closed) VALUES (?, 1) ON CONFLICT (survey_id) DO NOTHING",
            [survey_id],
        )
        closed = cursor.rowcount == 1
        if closed:
            events.add(db, survey_id, "closed-by-targets", "closed-by-targets")
    return closed


def closed_choice(stored: object) -> bool | None:
    """The admin's choice as ``survey_states.closed`` stores it (0 or 1; None where no row was read)."""
    return None if stored is None else bool(stored)


def closed_override(db: sqlite_utils.Database, survey_id: str) -> bool | None:
    """The admin's open/closed choice for a survey, or None if never set."""
    return send_closed_override(db, survey_id)()


def send_closed_override(db: sqlite_utils.Database, survey_id: str) -> Callable[[], bool | None]:
    """:func:`closed_override`, the query sent now and read when the returned function is called."""
    cursor = db.execute("SELECT closed FROM survey_states WHERE survey_id = ?", [survey_id])

    def read() -> bool | None:
        rows = cursor.fetchall()
        return closed_choice(rows[0][0] if rows else None)

    return read


def closed_override_and_key_seen(
    db: sqlite_utils.Database, survey_id: str, key: str | None
) -> tuple[bool | None, bool]:
    """:func:`closed_override` and :func:`submission_key_exists` (False for no ``key``) in one query: one round
    trip on PostgreSQL where a submission made two."""
    return send_closed_override_and_key_seen(db, survey_id, key)()


def send_closed_override_and_key_seen(
    db: sqlite_utils.Database, survey_id: str, key: str | None
) -> Callable[[], tuple[bool | None, bool]]:
    """:func:`closed_override_and_key_seen`, the query sent now and read when the returned function is called
    (in a pipeline, :func:`storage.connection.pipeline`, with the statements sent beside it)."""
    cursor = db.execute(
        "SELECT (SELECT closed FROM survey_states WHERE survey_id = ?),"
        " EXISTS (SELECT 1 FROM submission_keys WHERE key = ?)",
        [survey_id, key or ""],
    )

    def read() -> tuple[bool | None, bool]:
        closed, seen = cursor.fetchone()
        return closed_choice(closed), bool(seen)

    return read
