"""Notifications: what happened to a survey that its people are told of (issue 26).

Takes a :class:`sqlite_utils.Database`; knows nothing of Flask.

An event is a survey id, a key that makes it happen once (``target:QUESTION``,
``closed-by-targets``, ``burst:DAY``, ``export:...``), a day (UTC: no finer
time, as an answer keeps only its day), a kind from
:data:`KINDS` and a short detail: never an answer, never an address. The
dashboard lists them (:func:`recent`); :func:`claim_unmailed` hands each to
the mailer once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import sqlite_utils

from storage.connection import immediate_transaction

#: The kinds of event, with the sentence a person reads.
KINDS = {
    "target-met": "A target was met",
    "closed-by-targets": "The survey closed itself: its targets are met",
    "burst": "Integrity warning: a burst of responses",
    "export": "The responses were exported",
}


def today() -> str:
    """Today (UTC) as YYYY-MM-DD: the only time an event keeps, as an answer keeps only its day."""
    return datetime.now(UTC).date().isoformat()


@dataclass(frozen=True)
class Event:
    survey_id: str
    day: str
    kind: str
    detail: str

    @property
    def title(self) -> str:
        return KINDS[self.kind]


def add(
    db: sqlite_utils.Database, survey_id: str, key: str, kind: str, detail: str = "", day: str | None = None
) -> bool:
    """Note the event ``key`` of ``survey_id`` unless noted already (inside the caller's transaction, if any);
    True if it is new."""
    return send_add(db, survey_id, key, kind, detail, day).rowcount == 1


def send_add(db: sqlite_utils.Database, survey_id: str, key: str, kind: str, detail: str = "", day: str | None = None):
    """:func:`add` sent without reading whether it was new (the cursor): inside a pipelined submission."""
    if kind not in KINDS:
        raise ValueError(f"unknown event kind {kind!r}")
    return db.execute(
        "INSERT INTO events (survey_id, key, day, kind, detail) VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT (survey_id, key) DO NOTHING",
        [survey_id, key, day or today(), kind, detail[:300]],
    )


def note(db: sqlite_utils.Database, survey_id: str, key: str, kind: str, detail: str = "") -> bool:
    """:func:`add` in a transaction of its own."""
    with immediate_transaction(db):
        return add(db, survey_id, key, kind, detail)


def recent(db: sqlite_utils.Database, survey_ids, limit: int = 50) -> list[Event]:
    """The newest ``limit`` events of ``survey_ids``, newest first."""
    ids = list(survey_ids)
    if not ids:
        return []
    rows = db.execute(
        "SELECT survey_id, day, kind, detail FROM events WHERE survey_id IN ("
        + ", ".join("?" for _ in ids)
        + ") ORDER BY day DESC, survey_id, kind, key LIMIT ?",
        [*ids, int(limit)],
    ).fetchall()
    return [Event(*row) for row in rows]


def claim_unmailed(db: sqlite_utils.Database) -> list[Event]:
    """The events not mailed yet, marked mailed in the same transaction (so each goes out once, whichever
    worker claims it), oldest first."""
    with immediate_transaction(db):
        rows = db.execute(
            "UPDATE events SET mailed = 1 WHERE mailed = 0 RETURNING survey_id, day, kind, detail"
        ).fetchall()
    return sorted((Event(*row) for row in rows), key=lambda event: event.day)


def owner_addresses(db: sqlite_utils.Database, survey_id: str) -> list[str]:
    """The e-mail addresses of the survey's owners who gave one and are not disabled."""
    rows = db.execute(
        "SELECT admins.email FROM survey_roles JOIN admins ON admins.name = survey_roles.account"
        " WHERE survey_roles.survey_id = ? AND survey_roles.role = 'owner' AND admins.disabled = 0"
        " AND admins.email IS NOT NULL AND admins.email <> '' ORDER BY admins.email",
        [survey_id],
    ).fetchall()
    return [email for (email,) in rows]


def set_email(db: sqlite_utils.Database, name: str, email: str | None) -> None:
    """Set (or with None or "" remove) account ``name``'s address for notifications."""
    email = (email or "").strip() or None
    if email is not None and ("@" not in email or len(email) > 254 or any(c.isspace() for c in email)):
        raise ValueError(f"not an e-mail address: {email[:254]!r}")
    with immediate_transaction(db):
        if db.execute("UPDATE admins SET email = ? WHERE name = ?", [email, name]).rowcount != 1:
            raise ValueError(f"there is no account called {name!r}")
