"""The audit log: who did what and when (issue 26).

Takes a :class:`sqlite_utils.Database`; knows nothing of Flask.

Each entry is a time, the account that acted (None for a failed sign-in's
unknown name or the command line), an action from :data:`ACTIONS`, the survey
it concerned (if any) and a short detail. Never an answer, never a
respondent's address or anything typed in a survey form: callers pass what
an administrator did, not what a respondent sent. Entries are kept for the
``AUDIT_LOG_DAYS`` setting and then removed (:func:`purge_older_than`).
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass

import sqlite_utils

from storage.connection import immediate_transaction

#: What the log records. A new kind of entry is added here first.
ACTIONS = (
    "sign-in",
    "sign-in-failed",
    "sign-out",
    "password-changed",
    "sessions-ended",
    "second-factor-changed",
    "account-invited",
    "account-created",
    "account-disabled",
    "account-enabled",
    "account-reset",
    "survey-created",
    "survey-edited",
    "survey-imported",
    "survey-state",
    "survey-deleted",
    "test-answers-cleared",
    "role-changed",
    "export",
    "codes-created",
    "token-created",
    "token-revoked",
    "days-excluded",
    "burst-decided",
    "release-published",
)

MAX_DETAIL = 500


@dataclass(frozen=True)
class Entry:
    at: float
    actor: str | None
    action: str
    survey_id: str | None
    detail: str


@dataclass(frozen=True)
class Note:
    """An entry to write inside the transaction of the change it records (:func:`write`): the storage
    functions that change a survey, its stage or its people take one as ``note``, so the change and its
    entry are committed together or not at all."""

    actor: str | None
    action: str
    survey_id: str | None = None
    detail: str = ""


def write(db: sqlite_utils.Database, note: Note, now: float | None = None) -> None:
    """Add ``note`` inside the caller's transaction (it commits or rolls back with the change it records).
    The id is random: entries are ordered by time."""
    if note.action not in ACTIONS:
        raise ValueError(f"unknown audit action {note.action!r}")
    at = time.time() if now is None else now
    db.execute(
        "INSERT INTO audit_log (id, at, actor, action, survey_id, detail) VALUES (?, ?, ?, ?, ?, ?)",
        [secrets.token_hex(16), at, note.actor, note.action, note.survey_id, note.detail[:MAX_DETAIL]],
    )


def write_if(db: sqlite_utils.Database, note: Note | None) -> None:
    """:func:`write` ``note`` unless it is None (a change made without an actor to record)."""
    if note is not None:
        write(db, note)


def record(
    db: sqlite_utils.Database,
    actor: str | None,
    action: str,
    survey_id: str | None = None,
    detail: str = "",
    now: float | None = None,
) -> None:
    """Add one entry in a transaction of its own (for what is not itself a write: a sign-in, an export)."""
    with immediate_transaction(db):
        write(db, Note(actor, action, survey_id, detail), now)


def entries(
    db: sqlite_utils.Database, survey_ids: list[str] | None = None, limit: int = 500, actor: str | None = None
) -> list[Entry]:
    """The newest ``limit`` entries, newest first; only those about ``survey_ids`` or made by ``actor`` when
    either is given (an owner's view: the surveys they own, and what they did themselves, such as deleting
    a survey they no longer own), else all of them (a site administrator's)."""
    if survey_ids is not None and not survey_ids and actor is None:
        return []
    sql = "SELECT at, actor, action, survey_id, detail FROM audit_log"
    args: list = []
    if survey_ids is not None:
        about = "survey_id IN (" + ", ".join("?" for _ in survey_ids) + ")" if survey_ids else "0 = 1"
        sql += f" WHERE ({about} OR actor = ?)" if actor is not None else f" WHERE {about}"
        args.extend([*survey_ids, *([actor] if actor is not None else [])])
    sql += " ORDER BY at DESC LIMIT ?"
    args.append(int(limit))
    return [Entry(*row) for row in db.execute(sql, args).fetchall()]


def purge_older_than(db: sqlite_utils.Database, days: float, now: float | None = None) -> int:
    """Remove the entries older than ``days`` days; the number removed."""
    if days <= 0:
        raise ValueError(f"an audit log is kept for a positive number of days, not {days!r}")
    cutoff = (time.time() if now is None else now) - days * 86400
    with immediate_transaction(db):
        return db.execute("DELETE FROM audit_log WHERE at < ?", [cutoff]).rowcount
