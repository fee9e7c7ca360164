"""One-time links: an invitation to a new account, or a reset of an existing one (issue 26).

Takes a :class:`sqlite_utils.Database`; knows nothing of Flask.

A site administrator invites someone by naming the account: the account is
made at once with no usable password (an empty hash, which no password
matches), so roles can be given before the invitee arrives, and a link is
made for it. A reset empties the password of an existing account the same
way, turns its second factor off and ends its sessions. Either way the
administrator is shown the link to pass on; the database keeps only the
SHA-256 hash of its random token (as for sessions), the account, the
purpose and the expiry. Opening the link lets the holder choose the
account's password once: a used link stays marked used, an expired one is
refused, and a new link for an account ends its earlier ones.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import dataclass

import sqlite_utils

from storage.accounts import check_name
from storage.connection import immediate_transaction

PURPOSES = ("invitation", "reset")
#: How long a link may be asked to live, in days.
MAX_DAYS = 30
#: The password hash of an account that has no password yet: no password matches it.
NO_PASSWORD = ""


@dataclass(frozen=True)
class Link:
    """A live link's ``account`` and ``purpose`` (``invitation`` or ``reset``) and when it ``expires``."""

    account: str
    purpose: str
    expires: float


class LinkRefused(ValueError):
    """A link that cannot be used: ``reason`` is ``unknown``, ``used`` or ``expired``."""

    def __init__(self, reason: str):
        super().__init__(f"this link is {reason}")
        self.reason = reason


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def check_days(days: float) -> float:
    if not 0 < days <= MAX_DAYS:
        raise ValueError(f"a link lives between a few hours and {MAX_DAYS} days, not {days!r}")
    return days


def _new_link(db: sqlite_utils.Database, name: str, purpose: str, days: float, now: float) -> str:
    """Inside the caller's transaction: end ``name``'s earlier links, add one, return its token."""
    token = secrets.token_urlsafe(32)
    db.execute("UPDATE account_links SET used = 1 WHERE account = ? AND used = 0", [name])
    db.execute(
        "INSERT INTO account_links (token_hash, account, purpose, expires) VALUES (?, ?, ?, ?)",
        [_hash(token), name, purpose, now + check_days(days) * 86400],
    )
    return token


def invite(db: sqlite_utils.Database, name: str, days: float, now: float | None = None) -> str:
    """Make the account ``name`` (no password yet, not a site administrator) and its invitation; the token."""
    check_name(name)
    check_days(days)
    now = time.time() if now is None else now
    with immediate_transaction(db):
        if db.execute("SELECT 1 FROM admins WHERE name = ?", [name]).fetchone():
            raise ValueError(f"an account called {name!r} exists already")
        db.execute(
            "INSERT INTO admins (name, password_hash, site_admin) VALUES (?, ?, 0)",
            [name, NO_PASSWORD],
        )
        return _new_link(db, name, "invitation", days, now)


def reset(db: sqlite_utils.Database, name: str, days: float, now: float | None = None) -> str:
    """Empty ``name``'s password, turn its second factor off, end its sessions; the token of its reset link."""
    check_days(days)
    now = time.time() if now is None else now
    with immediate_transaction(db):
        cursor = db.execute(
            "UPDATE admins SET password_hash = ?, totp_secret = NULL, totp_enabled = 0 WHERE name = ?",
            [NO_PASSWORD, name],
        )
        if cursor.rowcount != 1:
            raise ValueError(f"there is no account called {name!r}")
        db.execute("DELETE FROM admin_sessions WHERE name = ?", [name])
        return _new_link(db, name, "reset", days, now)


def _live(db: sqlite_utils.Database, token: str, now: float) -> Link:
    row = db.execute(
        "SELECT account, purpose, expires, used FROM account_links WHERE token_hash = ?", [_hash(token or "")]
    ).fetchone()
    if row is None:
        raise LinkRefused("unknown")
    account, purpose, expires, used = row
    if used:
        raise LinkRefused("used")
    if expires <= now:
        raise LinkRefused("expired")
    return Link(account, purpose, expires)


def open_link(db: sqlite_utils.Database, token: str, now: float | None = None) -> Link:
    """The live link ``token`` names; :class:`LinkRefused` if it is unknown, used or expired."""
    return _live(db, token, time.time() if now is None else now)


def use_link(db: sqlite_utils.Database, token: str, password_hash: str, now: float | None = None) -> Link:
    """Set the password hash of the account ``token``'s link names and mark the link used, at once."""
    now = time.time() if now is None else now
    with immediate_transaction(db):
        link = _live(db, token, now)
        db.execute("UPDATE account_links SET used = 1 WHERE token_hash = ?", [_hash(token)])
        db.execute("UPDATE admins SET password_hash = ? WHERE name = ?", [password_hash, link.account])
        db.execute("DELETE FROM admin_sessions WHERE name = ?", [link.account])
    return link


def pending(db: sqlite_utils.Database, now: float | None = None) -> dict[str, Link]:
    """The live links by account (at most one each)."""
    now = time.time() if now is None else now
    rows = db.execute(
        "SELECT account, purpose, expires FROM account_links WHERE used = 0 AND expires > ?", [now]
    ).fetchall()
    return {account: Link(account, purpose, expires) for account, purpose, expires in rows}
