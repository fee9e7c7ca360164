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

A sign-in's check runs on a thread of its own at a lower CPU priority
(:data:`HASHING_NICENESS`, :func:`_verify`): while respondents' requests want
the cores, they come first, and a flood of sign-ins slows the checks rather
than the survey (bench/README.md, "Sign-in flood"). A thread's priority can
be lowered but not raised again without privileges, hence threads kept for
checking only, one pool per process.

Sessions are kept on the server (``admin_sessions``): the browser holds a
random token, the database only its SHA-256 hash, the account and the
expiry. Signing out deletes the session; a new password and
``end_all_sessions`` delete every session of the account, so a captured
cookie stops working at once. Throttling of failed sign-ins lives in
:mod:`storage.ratelimit` (per account name and network).

A browser that has signed in holds a remembered-device token
(:func:`remembered_device_token`): the account name and an expiry, signed
with the app's secret key over the account's password hash. It signs nobody
in; it only lets that browser's sign-in as that account use a password-check
slot no stranger can take (``web.limits.hashing_slot``). A new password ends
every such token, as the hash it was signed over is gone.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import sqlite_utils
from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError

from storage.connection import immediate_transaction
from storage.roles import refuse_if_last_site_admin

HASHER = PasswordHasher(time_cost=3, memory_cost=64 * 1024, parallelism=1, type=Type.ID)
NAME = re.compile(r"^[A-Za-z0-9_.@-]{1,64}$")
MIN_PASSWORD_LENGTH = 12
SESSION_SECONDS = 12 * 3600
#: Verified against when the account does not exist, so that an unknown name
#: takes as long to refuse as a wrong password: ``HASHER.hash("not a real password, only for timing")``,
#: written out once instead of hashed again by every process at import (about 0.17 s of a core in each
#: gunicorn worker and command). Its parameters are :data:`HASHER`'s (tests/test_accounts.py checks it), so
#: checking a password against it costs what checking against an account's hash costs.
_DUMMY_HASH = "$argon2id$v=19$m=65536,t=3,p=1$iDFkeL5h/4afyaft5YmEAg$fhJHJBoKYBn8ukPrkI8myXU9USdHZmGlUuDLIJMkLbg"


def check_name(name: str) -> str:
    if not NAME.match(name or ""):
        raise ValueError(f"account name must be 1-64 letters, digits or _.@-, got {name!r}")
    return name


def check_password(password: str) -> str:
    if len(password) < MIN_PASSWORD_LENGTH:
        raise ValueError(f"password must have at least {MIN_PASSWORD_LENGTH} characters, got {len(password)}")
    return password


def create_admin(db: sqlite_utils.Database, name: str, password: str, site_admin: bool = True) -> None:
    """Make the account ``name``: a site administrator, or (``site_admin=False``) an account that sees only
    the surveys it is given a role on."""
    check_name(name)
    password_hash = HASHER.hash(check_password(password))
    with immediate_transaction(db):
        if db.execute("SELECT 1 FROM admins WHERE name = ?", [name]).fetchone():
            raise ValueError(f"an account called {name!r} exists already")
        db.execute(
            "INSERT INTO admins (name, password_hash, site_admin) VALUES (?, ?, ?)",
            [name, password_hash, int(site_admin)],
        )


def set_password(db: sqlite_utils.Database, name: str, password: str) -> None:
    password_hash = HASHER.hash(check_password(password))
    with immediate_transaction(db):
        cursor = db.execute("UPDATE admins SET password_hash = ? WHERE name = ?", [password_hash, name])
        if cursor.rowcount != 1:
            raise ValueError(f"there is no account called {name!r}")
        db.execute("DELETE FROM admin_sessions WHERE name = ?", [name])


def list_admins(db: sqlite_utils.Database, now: float | None = None) -> list[dict]:
    """Every account with its number of live sessions, whether it is a site administrator, disabled,
    has a password yet (an invitation not yet used has none) and has a second factor switched on."""
    now = time.time() if now is None else now
    rows = db.execute(
        "SELECT name, (SELECT COUNT(*) FROM admin_sessions AS s WHERE s.name = a.name AND s.expires > ?)"
        " AS sessions, site_admin, disabled, password_hash <> '', totp_enabled FROM admins AS a ORDER BY name",
        [now],
    ).fetchall()
    keys = ("name", "sessions", "site_admin", "disabled", "has_password", "second_factor")
    return [dict(zip(keys, (name, sessions, *map(bool, flags)), strict=True)) for name, sessions, *flags in rows]


def sign_in(db: sqlite_utils.Database, name: str, password: str, niced: bool = True) -> bool:
    """True if ``password`` is the account's; an unknown name takes as long to refuse.

    Throttling is the caller's (:mod:`storage.ratelimit`), the same for known
    and unknown names, so the answer never tells whether an account exists.
    The check runs at a lower CPU priority (:func:`_verify`); ``niced=False``
    runs it on the caller's thread at the caller's priority, for the few
    sign-ins the caller admits ahead of a flood (a remembered browser's: at
    the lower priority, a flood's own requests left it seconds without a core).
    """
    verify = _verify if niced else _verify_here
    row = db.execute("SELECT password_hash, disabled FROM admins WHERE name = ?", [name]).fetchone()
    if row is None:
        verify(_DUMMY_HASH, password)
        return False
    password_hash, disabled = row
    if not verify(password_hash, password) or disabled:  # a disabled account is refused as a wrong password
        return False
    if HASHER.check_needs_rehash(password_hash):
        with immediate_transaction(db):
            db.execute("UPDATE admins SET password_hash = ? WHERE name = ?", [HASHER.hash(password), name])
    return True


#: How long a browser that signed in keeps its remembered-device token.
REMEMBERED_DEVICE_SECONDS = 30 * 24 * 3600


def _device_signature(secret: str, name: str, expires: int, password_hash: str) -> str:
    message = f"remembered-device\0{name}\0{expires}\0{password_hash}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def _password_hash_of(db: sqlite_utils.Database, name: str) -> str | None:
    row = db.execute("SELECT password_hash FROM admins WHERE name = ?", [name]).fetchone()
    return None if row is None else row[0]


def remembered_device_token(db: sqlite_utils.Database, name: str, secret: str, now: float | None = None) -> str:
    """A token ``EXPIRES~SIGNATURE~NAME`` naming ``name`` for :data:`REMEMBERED_DEVICE_SECONDS`.

    The signature is an HMAC-SHA256 under ``secret`` of the name, the expiry
    and the account's current password hash, so it cannot be made without the
    secret and stops counting when the password changes.
    """
    password_hash = _password_hash_of(db, name)
    if password_hash is None:
        raise ValueError(f"there is no account called {name!r}")
    expires = int(time.time() if now is None else now) + REMEMBERED_DEVICE_SECONDS
    return f"{expires}~{_device_signature(secret, name, expires, password_hash)}~{name}"


def remembered_device_account(
    db: sqlite_utils.Database, token: str | None, secret: str, now: float | None = None
) -> str | None:
    """The account a live, unaltered remembered-device token names, or None (one indexed read, no hashing)."""
    expires, signature, name = (token or "").split("~", 2) if (token or "").count("~") >= 2 else ("", "", "")
    if (
        not (expires.isascii() and expires.isdigit())
        or int(expires) <= (time.time() if now is None else now)
        or not NAME.match(name)
    ):
        return None
    password_hash = _password_hash_of(db, name)
    if password_hash is None:
        return None
    expected = _device_signature(secret, name, int(expires), password_hash)
    return name if hmac.compare_digest(expected.encode(), signature.encode()) else None


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
        "SELECT s.name FROM admin_sessions AS s JOIN admins AS a ON a.name = s.name"
        " WHERE s.token_hash = ? AND s.expires > ? AND a.disabled = 0",
        [_token_hash(token), now],
    ).fetchone()
    return None if row is None else row[0]


def end_session(db: sqlite_utils.Database, token: str | None) -> None:
    """Sign one session out (nothing happens for an unknown token)."""
    if token:
        with immediate_transaction(db):
            db.execute("DELETE FROM admin_sessions WHERE token_hash = ?", [_token_hash(token)])


def end_other_sessions(db: sqlite_utils.Database, name: str, keep: str | None) -> int:
    """Sign ``name`` out of every session but the one whose token is ``keep``; return how many ended."""
    with immediate_transaction(db):
        return db.execute(
            "DELETE FROM admin_sessions WHERE name = ? AND token_hash <> ?", [name, _token_hash(keep or "")]
        ).rowcount


def set_disabled(db: sqlite_utils.Database, name: str, disabled: bool) -> None:
    """Disable ``name`` (its sessions end; a sign-in is refused as a wrong password) or enable it again.
    The last active site administrator cannot be disabled."""
    with immediate_transaction(db):
        if disabled:
            refuse_if_last_site_admin(db, name)
        cursor = db.execute("UPDATE admins SET disabled = ? WHERE name = ?", [int(disabled), name])
        if cursor.rowcount != 1:
            raise ValueError(f"there is no account called {name!r}")
        if disabled:
            db.execute("DELETE FROM admin_sessions WHERE name = ?", [name])


def verify_password(db: sqlite_utils.Database, name: str, password: str) -> bool:
    """Whether ``password`` is ``name``'s (an account changing its own password proves it first)."""
    password_hash = _password_hash_of(db, name)
    return password_hash is not None and _verify(password_hash, password)


def end_all_sessions(db: sqlite_utils.Database, name: str) -> int:
    """Sign ``name`` out everywhere; return how many sessions ended."""
    with immediate_transaction(db):
        if not db.execute("SELECT 1 FROM admins WHERE name = ?", [name]).fetchone():
            raise ValueError(f"there is no account called {name!r}")
        return db.execute("DELETE FROM admin_sessions WHERE name = ?", [name]).rowcount


#: How much lower than the serving threads a password check runs (``nice``; 19 is the lowest priority).
HASHING_NICENESS = 10
#: Checks that may run at once in one process (the machine-wide bound is ``SIGNIN_CONCURRENCY``).
HASHING_THREADS = 4
_hashing_pools: dict[int, ThreadPoolExecutor] = {}
_hashing_pools_lock = threading.Lock()


def _lower_this_threads_priority() -> None:
    """Raise this thread's niceness by :data:`HASHING_NICENESS` (Linux: a thread id is a target of
    ``setpriority``). Where the system refuses, the thread keeps its priority: checks still run."""
    try:
        thread = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, thread, min(19, os.getpriority(os.PRIO_PROCESS, thread) + HASHING_NICENESS))
    except OSError:
        pass


def _hashing_pool() -> ThreadPoolExecutor:
    """This process's low-priority checking threads, started on first use (after a fork, anew: a forked
    child has none of its parent's threads)."""
    pid = os.getpid()
    with _hashing_pools_lock:
        pool = _hashing_pools.get(pid)
        if pool is None:
            pool = _hashing_pools[pid] = ThreadPoolExecutor(
                HASHING_THREADS, thread_name_prefix="password-check", initializer=_lower_this_threads_priority
            )
        return pool


def _verify_here(password_hash: str, password: str) -> bool:
    try:
        return HASHER.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def _verify(password_hash: str, password: str) -> bool:
    """Whether ``password`` matches ``password_hash``, checked on a low-priority thread (the caller waits;
    argon2-cffi releases the GIL while it hashes). A known and an unknown account take the same path."""
    return _hashing_pool().submit(_verify_here, password_hash, password).result()
