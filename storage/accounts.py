"""Admin accounts: Argon2id password hashes and server-side sign-in sessions.

Takes a :class:`sqlite_utils.Database`; knows nothing of Flask.

Hashing uses Argon2id with 64 MiB of memory, 3 passes and 1 lane, stronger
than OWASP's minimum (19 MiB, 2 passes, 1 lane; OWASP Password Storage Cheat
Sheet). One lane, not argon2-cffi's default 4: the lanes run as threads, and
four of them took both cores of a 2-core server for the length of a check,
stalling respondents during a sign-in flood; an attacker's cost (memory times
passes) is the same. Hashes made with other parameters (the earlier 4 lanes,
or weaker ones) are rehashed at the next successful sign-in
(``check_needs_rehash``).

Sessions are kept on the server (``admin_sessions``): the browser holds a
random token, the database only its SHA-256 hash, the account and the
expiry. Signing out deletes the session; a new password and
``end_all_sessions`` delete every session of the account, so a captured
cookie stops working at once. Throttling of failed sign-ins lives in
:mod:`storage.ratelimit` (per account name and address).
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time

import sqlite_utils
from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError

from storage.connection import immediate_transaction

HASHER = PasswordHasher(time_cost=3, memory_cost=64 * 1024, parallelism=1, type=Type.ID)
NAME = re.compile(r"^[A-Za-z0-9_.@-]{1,64}$")
MIN_PASSWORD_LENGTH = 12
SESSION_SECONDS = 12 * 3600
#: Verified against when the account does not exist, so that an unknown name
#: takes as long to refuse as a wrong password.
_DUMMY_HASH = HASHER.hash("not a real password, only for timing")


def check_name(name: str) -> str:
    if not NAME.match(name or ""):
        raise ValueError(f"account name must be 1-64 letters, digits or _.@-, got {name!r}")
    return name


def check_password(password: str) -> str:
    if len(password) < MIN_PASSWORD_LENGTH:
        raise ValueError(f"password must have at least {MIN_PASSWORD_LENGTH} characters, got {len(password)}")
    return password


def create_admin(db: sqlite_utils.Database, name: str, password: str) -> None:
    check_name(name)
    password_hash = HASHER.hash(check_password(password))
    with immediate_transaction(db):
        if db.execute("SELECT 1 FROM admins WHERE name = ?", [name]).fetchone():
            raise ValueError(f"an account called {name!r} exists already")
        db.execute("INSERT INTO admins (name, password_hash) VALUES (?, ?)", [name, password_hash])


def set_password(db: sqlite_utils.Database, name: str, password: str) -> None:
    password_hash = HASHER.hash(check_password(password))
    with immediate_transaction(db):
        cursor = db.execute("UPDATE admins SET password_hash = ? WHERE name = ?", [password_hash, name])
        if cursor.rowcount != 1:
            raise ValueError(f"there is no account called {name!r}")
        db.execute("DELETE FROM admin_sessions WHERE name = ?", [name])


def list_admins(db: sqlite_utils.Database, now: float | None = None) -> list[dict]:
    """Every account with its number of live sessions."""
    now = time.time() if now is None else now
    rows = db.execute(
        "SELECT name, (SELECT COUNT(*) FROM admin_sessions AS s WHERE s.name = a.name AND s.expires > ?)"
        " AS sessions FROM admins AS a ORDER BY name",
        [now],
    ).fetchall()
    return [{"name": name, "sessions": sessions} for name, sessions in rows]


def sign_in(db: sqlite_utils.Database, name: str, password: str) -> bool:
    """True if ``password`` is the account's; an unknown name takes as long to refuse.

    Throttling is the caller's (:mod:`storage.ratelimit`), the same for known
    and unknown names, so the answer never tells whether an account exists.
    """
    row = db.execute("SELECT password_hash FROM admins WHERE name = ?", [name]).fetchone()
    if row is None:
        _verify(_DUMMY_HASH, password)
        return False
    (password_hash,) = row
    if not _verify(password_hash, password):
        return False
    if HASHER.check_needs_rehash(password_hash):
        with immediate_transaction(db):
            db.execute("UPDATE admins SET password_hash = ? WHERE name = ?", [HASHER.hash(password), name])
    return True


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def start_session(db: sqlite_utils.Database, name: str, now: float | None = None) -> str:
    """A new session for ``name``, valid :data:`SESSION_SECONDS`; return its token.

    Only the token's hash is stored. Expired sessions are deleted here.
    """
    now = time.time() if now is None else now
    token = secrets.token_urlsafe(32)
    with immediate_transaction(db):
        db.execute("DELETE FROM admin_sessions WHERE expires <= ?", [now])
        db.execute(
            "INSERT INTO admin_sessions (token_hash, name, expires) VALUES (?, ?, ?)",
            [_token_hash(token), check_name(name), now + SESSION_SECONDS],
        )
    return token


def session_account(db: sqlite_utils.Database, token: str | None, now: float | None = None) -> str | None:
    """The account a live session token belongs to, or None."""
    if not token:
        return None
    now = time.time() if now is None else now
    row = db.execute(
        "SELECT name FROM admin_sessions WHERE token_hash = ? AND expires > ?", [_token_hash(token), now]
    ).fetchone()
    return None if row is None else row[0]


def end_session(db: sqlite_utils.Database, token: str | None) -> None:
    """Sign one session out (nothing happens for an unknown token)."""
    if token:
        with immediate_transaction(db):
            db.execute("DELETE FROM admin_sessions WHERE token_hash = ?", [_token_hash(token)])


def end_all_sessions(db: sqlite_utils.Database, name: str) -> int:
    """Sign ``name`` out everywhere; return how many sessions ended."""
    with immediate_transaction(db):
        if not db.execute("SELECT 1 FROM admins WHERE name = ?", [name]).fetchone():
            raise ValueError(f"there is no account called {name!r}")
        return db.execute("DELETE FROM admin_sessions WHERE name = ?", [name]).rowcount


def _verify(password_hash: str, password: str) -> bool:
    try:
        return HASHER.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False
