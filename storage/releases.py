"""Published releases of a survey and what they cost its release budget (issue 28).

Takes a :class:`sqlite_utils.Database`; knows nothing of Flask.

A release is stored once, as published: its JSON (:class:`surveys.releases.Release`),
its random unlisted ``token`` (the public address ``/r/<token>``), its cost
and the number of answers it counted. It is never recomputed: the public page
reads the stored JSON. The budget check and the insert run in ONE
transaction (:func:`publish`), under a lock of the survey's releases, so two
owners publishing at once cannot both spend what is left: the second waits,
then sees the first's cost.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlite_utils

from analysis.central import PrivacyCost
from storage import audit
from storage.connection import immediate_transaction, is_postgres

#: ``pg_advisory_xact_lock(key, hashtext(survey_id))``: one publisher of a survey at a time on PostgreSQL
#: (any fixed number no other code uses; on SQLite ``BEGIN IMMEDIATE`` already admits one writer).
_POSTGRES_RELEASE_LOCK = 7_351_028

_COLUMNS = "token, survey_id, number, made_on, made_by, epsilon, delta, rho, answers, listed, body"


@dataclass(frozen=True)
class StoredRelease:
    """One stored release: its address, when and by whom, its cost, its answers and its JSON body."""

    token: str
    survey_id: str
    number: int
    made_on: str
    made_by: str | None
    epsilon: float
    delta: float
    rho: float
    answers: int
    listed: bool
    body: str

    @property
    def cost(self) -> PrivacyCost:
        """What this release charged the survey's budget."""
        return PrivacyCost(epsilon=self.epsilon, delta=self.delta, rho=self.rho)


def new_token() -> str:
    """A release's unlisted address: 16 random bytes from :mod:`secrets`, URL-safe (22 characters)."""
    return secrets.token_urlsafe(16)


def _stored(row) -> StoredRelease:
    *head, listed, body = row
    return StoredRelease(*head, bool(listed), body)


def lock_survey(db: sqlite_utils.Database, survey_id: str) -> None:
    """Inside the caller's write transaction, wait for any other publisher of ``survey_id`` to finish.

    On PostgreSQL a transaction-scoped advisory lock keyed by the survey (released at commit or rollback);
    on SQLite nothing is needed: :func:`storage.connection.immediate_transaction` holds the one write lock
    from its ``BEGIN IMMEDIATE``, before anything is read."""
    if is_postgres(db):
        db.execute("SELECT pg_advisory_xact_lock(?, hashtext(?))", [_POSTGRES_RELEASE_LOCK, survey_id])


def add_release(
    db: sqlite_utils.Database,
    survey_id: str,
    release_json: str,
    token: str,
    epsilon: float,
    delta: float,
    rho: float,
    answers: int,
    listed: bool = False,
    *,
    made_on: str | None = None,
    made_by: str | None = None,
) -> StoredRelease:
    """Store a release inside the caller's transaction: the survey's next number, made ``made_on`` (default:
    today, UTC; the day only, as every date of the answers database: tests/test_integrity.py). Raises
    ValueError for a negative cost or count (nothing written)."""
    for name, value in (("epsilon", epsilon), ("delta", delta), ("rho", rho), ("answers", answers)):
        if not value >= 0:
            raise ValueError(f"a release's {name} is 0 or more, not {value!r}")
    number = db.execute("SELECT COALESCE(MAX(number), 0) + 1 FROM releases WHERE survey_id = ?", [survey_id])
    row = (
        token,
        survey_id,
        int(number.fetchone()[0]),
        made_on or datetime.now(UTC).date().isoformat(),
        made_by,
        float(epsilon),
        float(delta),
        float(rho),
        int(answers),
        1 if listed else 0,
        release_json,
    )
    db.execute(f"INSERT INTO releases ({_COLUMNS}) VALUES ({', '.join('?' for _ in row)})", list(row))
    return _stored(row)


def releases_of(db: sqlite_utils.Database, survey_id: str) -> list[StoredRelease]:
    """The survey's releases, oldest first."""
    rows = db.execute(f"SELECT {_COLUMNS} FROM releases WHERE survey_id = ? ORDER BY number", [survey_id])
    return [_stored(row) for row in rows.fetchall()]


def release_by_token(db: sqlite_utils.Database, token: str) -> StoredRelease | None:
    """The release whose address is ``token``, or None."""
    row = db.execute(f"SELECT {_COLUMNS} FROM releases WHERE token = ?", [token]).fetchone()
    return None if row is None else _stored(row)


def listed_releases(db: sqlite_utils.Database) -> list[StoredRelease]:
    """Every release its owner chose to list on the public start page, by survey then oldest first; their
    ``body`` is left out (``""``): the start page shows only their survey, number, date and address."""
    columns = _COLUMNS.replace(", body", ", '' AS body")
    rows = db.execute(f"SELECT {columns} FROM releases WHERE listed = 1 ORDER BY survey_id, number")
    return [_stored(row) for row in rows.fetchall()]


def spent(db: sqlite_utils.Database, survey_id: str) -> list[PrivacyCost]:
    """What each of the survey's releases cost, oldest first (the ledger's and the budget check's input)."""
    rows = db.execute("SELECT epsilon, delta, rho FROM releases WHERE survey_id = ? ORDER BY number", [survey_id])
    return [PrivacyCost(epsilon=e, delta=d, rho=r) for e, d, r in rows.fetchall()]


def answers_at_last(db: sqlite_utils.Database, survey_id: str) -> int | None:
    """The answers the survey's latest release counted; None before its first release."""
    row = db.execute(
        "SELECT answers FROM releases WHERE survey_id = ? ORDER BY number DESC LIMIT 1", [survey_id]
    ).fetchone()
    return None if row is None else int(row[0])


def publish(
    db: sqlite_utils.Database,
    survey_id: str,
    check: Callable[[list[PrivacyCost], int | None], None],
    release_json: str,
    cost: PrivacyCost,
    answers: int,
    note: audit.Note,
    *,
    listed: bool = False,
    made_on: str | None = None,
) -> StoredRelease:
    """Check and store a release in one transaction: lock the survey's releases, call
    ``check(spent, answers_at_last)`` (which raises to refuse: nothing is written, the exception goes to the
    caller), then insert the release under a new token and write ``note`` in the audit log."""
    with immediate_transaction(db):
        lock_survey(db, survey_id)
        check(spent(db, survey_id), answers_at_last(db, survey_id))
        stored = add_release(
            db,
            survey_id,
            release_json,
            new_token(),
            cost.epsilon,
            cost.delta,
            cost.rho,
            answers,
            listed,
            made_on=made_on,
            made_by=note.actor,
        )
        audit.write(db, note)
    return stored
