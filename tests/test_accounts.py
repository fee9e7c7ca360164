"""Tests of admin accounts: Argon2id hashing and per-account throttling."""

from __future__ import annotations

import pytest
from argon2 import extract_parameters

from storage import accounts

pytestmark = pytest.mark.both_backends

PASSWORD = "a long enough password"
#: The tests of the real hash (its parameters, the rehash, the unknown name's check, the check's thread); the others
#: hash with conftest's cheap hasher, as every other module's tests do.
REAL = pytest.mark.real_password_hashing


@REAL
def test_password_is_stored_as_argon2id_at_or_above_owasp_minimum(fresh_db):
    accounts.create_admin(fresh_db, "ana", PASSWORD)
    stored = fresh_db.execute("SELECT password_hash FROM admins").fetchone()[0]
    assert stored.startswith("$argon2id$") and PASSWORD not in stored
    params = extract_parameters(stored)
    # OWASP Password Storage Cheat Sheet minimum for Argon2id: m = 19 MiB, t = 2, p = 1.
    assert params.memory_cost >= 19 * 1024 and params.time_cost >= 2 and params.parallelism >= 1


@REAL
def test_a_hash_made_with_four_lanes_still_signs_in_and_is_rehashed_with_one(fresh_db):
    # Hashes made before the change to one lane (argon2-cffi's default of four lanes).
    from argon2 import PasswordHasher, Type

    earlier = PasswordHasher(time_cost=3, memory_cost=64 * 1024, parallelism=4, type=Type.ID).hash(PASSWORD)
    fresh_db.execute("INSERT INTO admins (name, password_hash) VALUES (?, ?)", ["ana", earlier])
    assert accounts.sign_in(fresh_db, "ana", PASSWORD) is True
    stored = fresh_db.execute("SELECT password_hash FROM admins").fetchone()[0]
    assert extract_parameters(stored).parallelism == 1 and stored != earlier
    assert accounts.sign_in(fresh_db, "ana", PASSWORD) is True


@REAL
def test_sign_in_ok_and_refused(fresh_db):
    accounts.create_admin(fresh_db, "ana", PASSWORD)
    assert accounts.sign_in(fresh_db, "ana", PASSWORD) is True
    assert accounts.sign_in(fresh_db, "ana", "wrong password!") is False
    assert accounts.sign_in(fresh_db, "nobody", PASSWORD) is False


@REAL
def test_the_unknown_names_hash_has_the_hashers_parameters_and_its_own_password():
    """The hash an unknown name is checked against is written out in the code: it must cost what an account's
    costs (the same type, memory, passes, lanes and lengths as the hasher's) and be a real Argon2 hash."""
    from argon2.exceptions import VerifyMismatchError

    dummy = extract_parameters(accounts._DUMMY_HASH)
    real = extract_parameters(accounts.HASHER.hash("any password at all"))
    assert dummy == real
    assert accounts.HASHER.verify(accounts._DUMMY_HASH, "not a real password, only for timing")
    with pytest.raises(VerifyMismatchError):
        accounts.HASHER.verify(accounts._DUMMY_HASH, PASSWORD)


@REAL
def test_unknown_name_costs_one_argon2_check_like_a_known_one(fresh_db, monkeypatch):
    accounts.create_admin(fresh_db, "ana", PASSWORD)
    checked = []
    real = accounts._verify
    monkeypatch.setattr(accounts, "_verify", lambda h, p: checked.append(h) or real(h, p))
    accounts.sign_in(fresh_db, "ana", "wrong password!")
    accounts.sign_in(fresh_db, "nobody", "wrong password!")
    assert len(checked) == 2 and checked[1] == accounts._DUMMY_HASH


@REAL
def test_a_password_is_checked_on_a_thread_of_lower_priority_and_the_callers_priority_is_untouched(
    fresh_db, monkeypatch
):
    """The check runs where respondents' requests come first (niceness raised by HASHING_NICENESS, up to
    19); the serving thread keeps its own. Fails if the check runs on the caller's thread."""
    import os
    import threading

    def priority() -> tuple[int, int]:
        return threading.get_native_id(), os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    accounts.create_admin(fresh_db, "ana", PASSWORD)
    seen = []
    real = accounts._verify_here
    monkeypatch.setattr(accounts, "_verify_here", lambda h, p: seen.append(priority()) or real(h, p))
    caller = priority()
    assert accounts.sign_in(fresh_db, "ana", PASSWORD) is True
    assert accounts.sign_in(fresh_db, "nobody", PASSWORD) is False  # the dummy check: the same path
    assert len(seen) == 2
    for thread, niceness in seen:
        assert thread != caller[0]
        assert niceness == min(19, caller[1] + accounts.HASHING_NICENESS)
    assert priority() == caller


@REAL
def test_a_check_admitted_ahead_of_a_flood_runs_on_the_callers_thread_at_its_priority(fresh_db, monkeypatch):
    """``niced=False`` (a remembered browser's sign-in): the check is not left waiting for a core behind
    the flood's own requests. Fails if it runs on the low-priority threads."""
    import os
    import threading

    def priority() -> tuple[int, int]:
        return threading.get_native_id(), os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    accounts.create_admin(fresh_db, "ana", PASSWORD)
    seen = []
    real = accounts._verify_here
    monkeypatch.setattr(accounts, "_verify_here", lambda h, p: seen.append(priority()) or real(h, p))
    assert accounts.sign_in(fresh_db, "ana", PASSWORD, niced=False) is True
    assert accounts.sign_in(fresh_db, "ana", "wrong password!", niced=False) is False
    assert seen == [priority(), priority()]


def test_session_lives_until_it_is_ended_or_expires(fresh_db):
    accounts.create_admin(fresh_db, "ana", PASSWORD)
    token = accounts.start_session(fresh_db, "ana", now=1000.0)
    assert accounts.session_account(fresh_db, token, now=1001.0) == "ana"
    assert accounts.session_account(fresh_db, token, now=1000.0 + accounts.SESSION_SECONDS) is None
    assert accounts.session_account(fresh_db, token + "x", now=1001.0) is None
    assert accounts.session_account(fresh_db, None) is None
    stored = [row[0] for row in fresh_db.execute("SELECT token_hash FROM admin_sessions")]
    assert token not in stored and len(stored) == 1  # only its hash
    accounts.end_session(fresh_db, token)
    assert accounts.session_account(fresh_db, token, now=1001.0) is None


def test_new_session_deletes_expired_ones(fresh_db):
    accounts.create_admin(fresh_db, "ana", PASSWORD)
    accounts.start_session(fresh_db, "ana", now=0.0)
    accounts.start_session(fresh_db, "ana", now=accounts.SESSION_SECONDS + 1.0)
    assert fresh_db.execute("SELECT COUNT(*) FROM admin_sessions").fetchone()[0] == 1


def test_new_password_and_end_all_sessions_end_every_session(fresh_db):
    accounts.create_admin(fresh_db, "ana", PASSWORD)
    accounts.create_admin(fresh_db, "bob", PASSWORD)
    first, second = accounts.start_session(fresh_db, "ana"), accounts.start_session(fresh_db, "ana")
    bobs = accounts.start_session(fresh_db, "bob")
    accounts.set_password(fresh_db, "ana", "another good password")
    assert accounts.session_account(fresh_db, first) is None and accounts.session_account(fresh_db, second) is None
    assert accounts.sign_in(fresh_db, "ana", "another good password")
    assert accounts.end_all_sessions(fresh_db, "bob") == 1
    assert accounts.session_account(fresh_db, bobs) is None
    assert [row["sessions"] for row in accounts.list_admins(fresh_db)] == [0, 0]
    with pytest.raises(ValueError, match="'carol'"):
        accounts.end_all_sessions(fresh_db, "carol")


@pytest.mark.parametrize(
    "name, password, message",
    [
        ("bad name!", PASSWORD, "'bad name!'"),
        ("", PASSWORD, "''"),
        ("ana", "short", "at least 12 characters, got 5"),
    ],
)
def test_bad_accounts_are_refused(fresh_db, name, password, message):
    with pytest.raises(ValueError, match=message):
        accounts.create_admin(fresh_db, name, password)


def test_duplicate_and_missing_accounts(fresh_db):
    accounts.create_admin(fresh_db, "ana", PASSWORD)
    with pytest.raises(ValueError, match="'ana' exists"):
        accounts.create_admin(fresh_db, "ana", PASSWORD)
    with pytest.raises(ValueError, match="'bob'"):
        accounts.set_password(fresh_db, "bob", PASSWORD)


def test_a_remembered_device_token_names_its_account_until_it_expires(fresh_db):
    accounts.create_admin(fresh_db, "ana", PASSWORD)
    token = accounts.remembered_device_token(fresh_db, "ana", "secret", now=1000.0)
    assert accounts.remembered_device_account(fresh_db, token, "secret", now=1001.0) == "ana"
    last = 1000.0 + accounts.REMEMBERED_DEVICE_SECONDS
    assert accounts.remembered_device_account(fresh_db, token, "secret", now=last - 1) == "ana"
    assert accounts.remembered_device_account(fresh_db, token, "secret", now=last) is None


#: Forgeries of ana's remembered-device token, none of which may name an account.
FORGERIES = {
    "another account's name under ana's signature": lambda token: token.replace("~ana", "~bob"),
    "a later expiry": lambda token: str(int(token.split("~")[0]) + 10**6) + token[token.index("~") :],
    "the last character of the signature changed": lambda token: token[:-1] + ("x" if token[-1] != "x" else "y"),
    "empty": lambda token: "",
    "only separators": lambda token: "~~",
    "an expiry that is no number": lambda token: "soon~abc~ana",
    "a digit to isdigit(), not to int()": lambda token: "\u00b2~abc~ana",
    "a signature that is not ASCII (compare_digest would raise on a str)": lambda token: (
        token.split("~")[0] + "~\u00e9~ana"
    ),
    "a signature of zeros": lambda token: token.split("~")[0] + "~" + "0" * 64 + "~ana",
}


def test_a_forged_or_altered_remembered_device_token_names_no_account(fresh_db, subtests):
    """Each forgery a subtest against the same two accounts (reading a token changes nothing stored), instead of
    a database and two Argon2 hashes each."""
    accounts.create_admin(fresh_db, "ana", PASSWORD)
    accounts.create_admin(fresh_db, "bob", PASSWORD)
    token = accounts.remembered_device_token(fresh_db, "ana", "secret", now=1000.0)
    assert accounts.remembered_device_account(fresh_db, token, "secret", now=1001.0) == "ana"
    for forgery, forge in FORGERIES.items():
        with subtests.test(forgery=forgery):
            assert accounts.remembered_device_account(fresh_db, forge(token), "secret", now=1001.0) is None


def test_a_remembered_device_token_ends_with_the_password_the_secret_or_the_account(fresh_db):
    accounts.create_admin(fresh_db, "ana", PASSWORD)
    token = accounts.remembered_device_token(fresh_db, "ana", "secret", now=1000.0)
    assert accounts.remembered_device_account(fresh_db, token, "another secret", now=1001.0) is None
    assert accounts.remembered_device_account(fresh_db, None, "secret", now=1001.0) is None
    accounts.set_password(fresh_db, "ana", "another good password")
    assert accounts.remembered_device_account(fresh_db, token, "secret", now=1001.0) is None
    again = accounts.remembered_device_token(fresh_db, "ana", "secret", now=1000.0)
    fresh_db.execute("DELETE FROM admins WHERE name = ?", ["ana"])
    assert accounts.remembered_device_account(fresh_db, again, "secret", now=1001.0) is None
    with pytest.raises(ValueError, match="'carol'"):
        accounts.remembered_device_token(fresh_db, "carol", "secret")
