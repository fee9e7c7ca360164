"""Read-only API tokens, one survey each (issue 26).

Takes a :class:`sqlite_utils.Database`; knows nothing of Flask.

A token is a random string shown once to the owner who made it; only its
SHA-256 hash is stored (a token has 256 bits of randomness, so a fast hash
is enough: nothing can be guessed from it). Each row keeps a label, who made
it and on which day, the last day (UTC) it was used and whether it was revoked.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlite_utils

from storage.connection import immediate_transaction

#: The longest label kept.
MAX_LABEL = 80
#: What every token starts with, so that one pasted in the wrong place is recognised.
PREFIX = "rrt_"


@dataclass(frozen=True)
class Token:
    """A stored token (never the token itself)."""

    id: str
    survey_id: str
    label: str
    made_on: str
    made_by: str | None
    last_used: str | None
    revoked: bool


def _today() -> str:
    return datetime.now(UTC).date().isoformat()


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def check_label(label: str) -> str:
    label = label.strip()
    if not label or len(label) > MAX_LABEL:
        raise ValueError(f"a token's label is 1 to {MAX_LABEL} characters, not {label[: MAX_LABEL + 1]!r}")
    return label


def create(db: sqlite_utils.Database, survey_id: str, label: str, actor: str | None, day: str | None = None) -> str:
    """Make a token for ``survey_id`` on ``day`` (default: today, UTC); returns the token itself, which is
    stored only as its hash."""
    label = check_label(label)
    token = PREFIX + secrets.token_urlsafe(32)
    with immediate_transaction(db):
        db.execute(
            "INSERT INTO api_tokens (id, token_hash, survey_id, label, made_on, made_by) VALUES (?, ?, ?, ?, ?, ?)",
            [secrets.token_hex(8), hash_token(token), survey_id, label, day or _today(), actor],
        )
    return token


def of_survey(db: sqlite_utils.Database, survey_id: str) -> list[Token]:
    """The survey's tokens, newest first (revoked ones too)."""
    rows = db.execute(
        "SELECT id, survey_id, label, made_on, made_by, last_used, revoked FROM api_tokens"
        " WHERE survey_id = ? ORDER BY made_on DESC, label",
        [survey_id],
    ).fetchall()
    return [Token(*row[:6], bool(row[6])) for row in rows]


def revoke(db: sqlite_utils.Database, survey_id: str, token_id: str) -> Token | None:
    """Revoke the token ``token_id`` of ``survey_id``; the token, or None if the survey has no such live token."""
    with immediate_transaction(db):
        found = [t for t in of_survey(db, survey_id) if t.id == token_id and not t.revoked]
        if not found:
            return None
        db.execute("UPDATE api_tokens SET revoked = 1 WHERE id = ? AND survey_id = ?", [token_id, survey_id])
    return found[0]


def use(db: sqlite_utils.Database, token: str, day: str) -> Token | None:
    """The live token ``token`` (None if unknown or revoked), noting ``day`` as its last use (a write only
    on the first use of a day)."""
    row = db.execute(
        "SELECT id, survey_id, label, made_on, made_by, last_used, revoked FROM api_tokens"
        " WHERE token_hash = ? AND revoked = 0",
        [hash_token(token)],
    ).fetchone()
    if row is None:
        return None
    if row[5] != day:
        with immediate_transaction(db):
            db.execute("UPDATE api_tokens SET last_used = ? WHERE id = ?", [day, row[0]])
    return Token(*row[:5], day, False)
