"""Invitation codes: single-use codes a survey may require, made by the researcher and used by one answer each.

Only a code's SHA-256 is stored (:func:`hash_code`); the answer's own transaction marks its code used
(:func:`storage.responses.store_submission`).
"""

from __future__ import annotations

import hashlib
import secrets

import sqlite_utils

from storage.connection import executemany, immediate_transaction
from surveys.tables import FORMULA_STARTS


def hash_code(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


def new_invitation_code() -> str:
    """A random code of 12 URL-safe characters (72 bits) that never starts with a character a spreadsheet
    reads as a formula (:data:`surveys.tables.FORMULA_STARTS`: ``-`` is one of the URL-safe ones), so the
    codes CSV and ``codes create``'s lines open as text, the code exactly what a respondent types. A code
    starting so is drawn again (1 in 64), which takes log2(64/63) = 0.02 bits of its 72."""
    while True:
        code = secrets.token_urlsafe(9)
        if not code.startswith(FORMULA_STARTS):
            return code


def add_invitation_codes(db: sqlite_utils.Database, survey_id: str, count: int) -> list[str]:
    """Create ``count`` new single-use codes; only their hashes are stored."""
    if count < 1:
        raise ValueError(f"count must be >= 1, got {count}")
    codes = [new_invitation_code() for _ in range(count)]
    with immediate_transaction(db):
        executemany(
            db,
            "INSERT INTO invitation_codes (survey_id, code_hash) VALUES (?, ?)",
            [(survey_id, hash_code(code)) for code in codes],
        )
    return codes


def invitation_code_counts(db: sqlite_utils.Database, survey_id: str) -> tuple[int, int]:
    """``(made, used)``: how many invitation codes ``survey_id`` has, and how many were used."""
    row = db.execute(
        "SELECT COUNT(*), COALESCE(SUM(used), 0) FROM invitation_codes WHERE survey_id = ?", [survey_id]
    ).fetchone()
    return int(row[0]), int(row[1])


def invitation_code_is_valid(db: sqlite_utils.Database, survey_id: str, code: str) -> bool:
    row = db.execute(
        "SELECT used FROM invitation_codes WHERE survey_id = ? AND code_hash = ?",
        [survey_id, hash_code(code)],
    ).fetchone()
    return row is not None and row[0] == 0
