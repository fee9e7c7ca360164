"""The second factor (storage/second_factor.py): on only once a code confirms it, a code within one step of
now accepted, each step's code once."""

from __future__ import annotations

import pyotp
import pytest

from storage import accounts, roles, second_factor

pytestmark = pytest.mark.both_backends

NOW = 1_800_000_000.0


@pytest.fixture
def ana(fresh_db):
    accounts.create_admin(fresh_db, "ana", "a password long enough")
    return pyotp.TOTP(second_factor.start_enrolment(fresh_db, "ana"))


def test_nothing_is_on_until_a_code_confirms_it(fresh_db, ana):
    assert not second_factor.is_enabled(fresh_db, "ana")
    assert second_factor.check_code(fresh_db, "ana", ana.at(NOW), now=NOW) is False
    assert second_factor.confirm_enrolment(fresh_db, "ana", ana.at(NOW - 120), now=NOW) is False
    assert second_factor.confirm_enrolment(fresh_db, "ana", ana.at(NOW), now=NOW) is True
    assert second_factor.is_enabled(fresh_db, "ana") and second_factor.pending_secret(fresh_db, "ana") is None
    assert "otpauth://totp/" in second_factor.provisioning_uri(ana.secret, "ana")


@pytest.mark.parametrize(("offset", "accepted"), [(-60, False), (-30, True), (0, True), (30, True), (60, False)])
def test_a_code_is_accepted_within_one_step_of_now(fresh_db, ana, offset, accepted):
    second_factor.confirm_enrolment(fresh_db, "ana", ana.at(NOW - 600), now=NOW - 600)
    assert second_factor.check_code(fresh_db, "ana", ana.at(NOW + offset), now=NOW) is accepted


def test_each_code_counts_once_and_never_an_earlier_one(fresh_db, ana):
    second_factor.confirm_enrolment(fresh_db, "ana", ana.at(NOW - 600), now=NOW - 600)
    assert second_factor.check_code(fresh_db, "ana", ana.at(NOW), now=NOW)
    assert not second_factor.check_code(fresh_db, "ana", ana.at(NOW), now=NOW + 1)
    assert not second_factor.check_code(fresh_db, "ana", ana.at(NOW - 30), now=NOW + 1)
    assert second_factor.check_code(fresh_db, "ana", ana.at(NOW + 30), now=NOW + 30)


@pytest.mark.parametrize("code", ["", "12345", "1234567", "abcdef", " 123456"])
def test_malformed_codes_are_refused(fresh_db, ana, code):
    second_factor.confirm_enrolment(fresh_db, "ana", ana.at(NOW), now=NOW)
    assert second_factor.check_code(fresh_db, "ana", code, now=NOW + 30) is False


def test_turning_off_forgets_the_secret(fresh_db, ana):
    second_factor.confirm_enrolment(fresh_db, "ana", ana.at(NOW), now=NOW)
    with pytest.raises(ValueError, match="has a second factor already"):
        second_factor.start_enrolment(fresh_db, "ana")
    second_factor.turn_off(fresh_db, "ana")
    assert not second_factor.is_enabled(fresh_db, "ana") and second_factor.pending_secret(fresh_db, "ana") is None


def test_the_last_active_site_administrator_and_the_last_owner_stay(fresh_db, ana):
    """storage/roles.py and storage/accounts.py: the rules the people pages rely on."""
    for change in (
        lambda: accounts.set_disabled(fresh_db, "ana", True),
        lambda: roles.set_site_admin(fresh_db, "ana", False),
    ):
        with pytest.raises(ValueError, match="last active site administrator"):
            change()
    roles.set_role(fresh_db, "quiz", "ana", "owner")
    with pytest.raises(ValueError, match="last owner"):
        roles.set_role(fresh_db, "quiz", "ana", "analyst")
    assert roles.role_of(fresh_db, "quiz", "ana") == "owner" and roles.is_site_admin(fresh_db, "ana")
