"""The optional second factor: time-based one-time codes (TOTP, RFC 6238) with pyotp (issue 26).

Takes a :class:`sqlite_utils.Database`; knows nothing of Flask.

Enrolling keeps a new random secret (``admins.totp_secret``) but switches
nothing on; a code made from it switches it on (``totp_enabled``). At
sign-in a code is accepted within one 30-second step either side of now
(clocks drift), and only once: the step of each code accepted is kept
(``totp_last_step``) and a code of that step or an earlier one is refused,
so a code seen over someone's shoulder cannot be used again.
"""

from __future__ import annotations

import hmac
import re
import time

import pyotp
import sqlite_utils

from storage.connection import immediate_transaction

#: The issuer an authenticator app shows beside the account.
ISSUER = "RR survey"
#: Steps either side of now a code may come from.
WINDOW = 1
CODE = re.compile(r"^[0-9]{6}$")


def _row(db: sqlite_utils.Database, name: str):
    row = db.execute("SELECT totp_secret, totp_enabled, totp_last_step FROM admins WHERE name = ?", [name]).fetchone()
    if row is None:
        raise ValueError(f"there is no account called {name!r}")
    return row


def is_enabled(db: sqlite_utils.Database, name: str) -> bool:
    row = db.execute("SELECT totp_enabled FROM admins WHERE name = ?", [name]).fetchone()
    return bool(row and row[0])


def pending_secret(db: sqlite_utils.Database, name: str) -> str | None:
    """The secret of an enrolment not yet confirmed, or None."""
    secret, enabled, _ = _row(db, name)
    return None if enabled else secret


def start_enrolment(db: sqlite_utils.Database, name: str) -> str:
    """A new secret for ``name``, kept but not switched on (replacing any unconfirmed one)."""
    secret = pyotp.random_base32()
    with immediate_transaction(db):
        if _row(db, name)[1]:
            raise ValueError(f"{name!r} has a second factor already: turn it off first")
        db.execute("UPDATE admins SET totp_secret = ? WHERE name = ?", [secret, name])
    return secret


def provisioning_uri(secret: str, name: str) -> str:
    """The ``otpauth://`` address an authenticator app reads."""
    return pyotp.TOTP(secret).provisioning_uri(name=name, issuer_name=ISSUER)


def _matching_step(secret: str, code: str, after: int, now: float) -> int | None:
    """The time step within :data:`WINDOW` of ``now``, later than ``after``, whose code is ``code``."""
    if not CODE.match(code or ""):
        return None
    totp = pyotp.TOTP(secret)
    current = int(now) // totp.interval
    for step in range(current - WINDOW, current + WINDOW + 1):
        if step > after and hmac.compare_digest(totp.at(step * totp.interval), code):
            return step
    return None


def confirm_enrolment(db: sqlite_utils.Database, name: str, code: str, now: float | None = None) -> bool:
    """Switch the pending secret on if ``code`` is its current code; False (nothing changes) otherwise."""
    now = time.time() if now is None else now
    with immediate_transaction(db):
        secret, enabled, last = _row(db, name)
        step = None if enabled or not secret else _matching_step(secret, code, last, now)
        if step is None:
            return False
        db.execute("UPDATE admins SET totp_enabled = 1, totp_last_step = ? WHERE name = ?", [step, name])
    return True


def check_code(db: sqlite_utils.Database, name: str, code: str, now: float | None = None) -> bool:
    """Whether ``code`` is a code of ``name``'s second factor not used before; it is then used up."""
    now = time.time() if now is None else now
    with immediate_transaction(db):
        secret, enabled, last = _row(db, name)
        step = _matching_step(secret, code, last, now) if enabled and secret else None
        if step is None:
            return False
        db.execute("UPDATE admins SET totp_last_step = ? WHERE name = ?", [step, name])
    return True


def turn_off(db: sqlite_utils.Database, name: str) -> None:
    """Forget ``name``'s second factor (enrolled or pending)."""
    with immediate_transaction(db):
        _row(db, name)
        db.execute("UPDATE admins SET totp_secret = NULL, totp_enabled = 0, totp_last_step = 0 WHERE name = ?", [name])
