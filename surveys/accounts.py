"""Admin accounts: Argon2id password hashes and per-account sign-in throttling.

Takes a :class:`sqlite_utils.Database`; knows nothing of Flask.

Hashing uses argon2-cffi's defaults for Argon2id: 64 MiB of memory, 3
passes, 4 lanes, stronger than OWASP's minimum (19 MiB, 2 passes, 1 lane;
OWASP Password Storage Cheat Sheet). Hashes made with weaker parameters are
upgraded at the next successful sign-in (``check_needs_rehash``).

Throttling: after :data:`FREE_FAILURES` failed sign-ins in a row an account
is locked for 30 s, doubling with every further failure up to 15 minutes.
The count lives in the database, so it holds across every worker process.
A correct password during a lock is refused too; a success resets the count.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

import sqlite_utils
from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError

from surveys.storage import immediate_transaction

HASHER = PasswordHasher(time_cost=3, memory_cost=64 * 1024, parallelism=4, type=Type.ID)
NAME = re.compile(r"^[A-Za-z0-9_.@-]{1,64}$")
MIN_PASSWORD_LENGTH = 12
FREE_FAILURES = 5
FIRST_LOCK_SECONDS = 30
MAX_LOCK_SECONDS = 15 * 60
#: Verified against when the account does not exist, so that an unknown name
#: takes as long to refuse as a wrong password.
_DUMMY_HASH = HASHER.hash("not a real password, only for timing")


@dataclass(frozen=True)
class SignIn:
    """Outcome of a sign-in attempt: ``ok``, ``refused`` or ``locked`` (with seconds to wait)."""

    outcome: str
    retry_after: int = 0


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
        cursor = db.execute(
            "UPDATE admins SET password_hash = ?, failed_logins = 0, locked_until = 0 WHERE name = ?",
            [password_hash, name],
        )
        if cursor.rowcount != 1:
            raise ValueError(f"there is no account called {name!r}")


def list_admins(db: sqlite_utils.Database) -> list[dict]:
    return list(db.query("SELECT name, failed_logins, locked_until FROM admins ORDER BY name"))


def lock_seconds(failures: int) -> int:
    """Lock after the ``failures``-th failure in a row: 0, then 30 s doubling to 15 min."""
    if failures < FREE_FAILURES:
        return 0
    return min(FIRST_LOCK_SECONDS * 2 ** (failures - FREE_FAILURES), MAX_LOCK_SECONDS)


def sign_in(db: sqlite_utils.Database, name: str, password: str, now: float | None = None) -> SignIn:
    """Check a password, counting failures per account."""
    now = time.time() if now is None else now
    row = db.execute(
        "SELECT password_hash, failed_logins, locked_until FROM admins WHERE name = ?", [name]
    ).fetchone()
    if row is None:
        _verify(_DUMMY_HASH, password)
        return SignIn("refused")
    password_hash, failures, locked_until = row
    if locked_until > now:
        return SignIn("locked", int(locked_until - now) + 1)
    if not _verify(password_hash, password):
        with immediate_transaction(db):  # read and count under the write lock: no lost failures
            failures = db.execute("SELECT failed_logins FROM admins WHERE name = ?", [name]).fetchone()[0] + 1
            db.execute(
                "UPDATE admins SET failed_logins = ?, locked_until = ? WHERE name = ?",
                [failures, now + lock_seconds(failures), name],
            )
        return SignIn("refused")
    with immediate_transaction(db):
        new_hash = HASHER.hash(password) if HASHER.check_needs_rehash(password_hash) else password_hash
        db.execute(
            "UPDATE admins SET failed_logins = 0, locked_until = 0, password_hash = ? WHERE name = ?",
            [new_hash, name],
        )
    return SignIn("ok")


def _verify(password_hash: str, password: str) -> bool:
    try:
        return HASHER.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False
