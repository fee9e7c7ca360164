"""Tests of admin accounts: Argon2id hashing and per-account throttling."""

from __future__ import annotations

import pytest
from argon2 import extract_parameters

from surveys import accounts

PASSWORD = "a long enough password"


def test_password_is_stored_as_argon2id_at_or_above_owasp_minimum(fresh_db):
    accounts.create_admin(fresh_db, "ana", PASSWORD)
    stored = fresh_db.execute("SELECT password_hash FROM admins").fetchone()[0]
    assert stored.startswith("$argon2id$") and PASSWORD not in stored
    params = extract_parameters(stored)
    # OWASP Password Storage Cheat Sheet minimum for Argon2id: m = 19 MiB, t = 2, p = 1.
    assert params.memory_cost >= 19 * 1024 and params.time_cost >= 2 and params.parallelism >= 1


def test_sign_in_ok_and_refused(fresh_db):
    accounts.create_admin(fresh_db, "ana", PASSWORD)
    assert accounts.sign_in(fresh_db, "ana", PASSWORD).outcome == "ok"
    assert accounts.sign_in(fresh_db, "ana", "wrong password!").outcome == "refused"
    assert accounts.sign_in(fresh_db, "nobody", PASSWORD).outcome == "refused"


def test_account_locks_after_repeated_failures_even_for_the_right_password(fresh_db):
    accounts.create_admin(fresh_db, "ana", PASSWORD)
    now = 1_000_000.0
    for _ in range(accounts.FREE_FAILURES):
        assert accounts.sign_in(fresh_db, "ana", "wrong", now=now).outcome == "refused"
    locked = accounts.sign_in(fresh_db, "ana", PASSWORD, now=now + 1)
    assert locked.outcome == "locked" and 0 < locked.retry_after <= accounts.FIRST_LOCK_SECONDS
    assert accounts.sign_in(fresh_db, "ana", PASSWORD, now=now + accounts.FIRST_LOCK_SECONDS + 1).outcome == "ok"


@pytest.mark.parametrize("failures, seconds", [(4, 0), (5, 30), (6, 60), (7, 120), (20, 900)])
def test_lock_doubles_up_to_fifteen_minutes(failures, seconds):
    assert accounts.lock_seconds(failures) == seconds


def test_reset_password_lifts_the_lock(fresh_db):
    accounts.create_admin(fresh_db, "ana", PASSWORD)
    for _ in range(accounts.FREE_FAILURES):
        accounts.sign_in(fresh_db, "ana", "wrong")
    accounts.set_password(fresh_db, "ana", "another good password")
    assert accounts.sign_in(fresh_db, "ana", "another good password").outcome == "ok"


@pytest.mark.parametrize("name, password, message", [
    ("bad name!", PASSWORD, "'bad name!'"),
    ("", PASSWORD, "''"),
    ("ana", "short", "at least 12 characters, got 5"),
])
def test_bad_accounts_are_refused(fresh_db, name, password, message):
    with pytest.raises(ValueError, match=message):
        accounts.create_admin(fresh_db, name, password)


def test_duplicate_and_missing_accounts(fresh_db):
    accounts.create_admin(fresh_db, "ana", PASSWORD)
    with pytest.raises(ValueError, match="'ana' exists"):
        accounts.create_admin(fresh_db, "ana", PASSWORD)
    with pytest.raises(ValueError, match="'bob'"):
        accounts.set_password(fresh_db, "bob", PASSWORD)
