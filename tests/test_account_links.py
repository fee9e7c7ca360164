"""One-time links (storage/account_links.py): only the token's hash is kept, a link works once and not after
its expiry, and a new link for an account ends its earlier ones."""

from __future__ import annotations

import hashlib

import pytest

from storage import account_links, accounts

pytestmark = pytest.mark.both_backends

NOW = 1_800_000_000.0


def test_an_invitation_keeps_only_the_hash_and_works_once(fresh_db):
    token = account_links.invite(fresh_db, "ines", 7, now=NOW)
    rows = fresh_db.execute("SELECT token_hash FROM account_links").fetchall()
    assert rows == [(hashlib.sha256(token.encode()).hexdigest(),)]
    assert account_links.open_link(fresh_db, token, now=NOW + 1) == account_links.Link(
        "ines", "invitation", NOW + 7 * 86400
    )
    assert accounts.sign_in(fresh_db, "ines", "") is False
    account_links.use_link(fresh_db, token, accounts.HASHER.hash("a password long enough"), now=NOW + 2)
    assert accounts.sign_in(fresh_db, "ines", "a password long enough", niced=False)
    with pytest.raises(account_links.LinkRefused) as refused:
        account_links.open_link(fresh_db, token, now=NOW + 3)
    assert refused.value.reason == "used"


def test_a_link_past_its_expiry_or_unknown_is_refused(fresh_db):
    token = account_links.invite(fresh_db, "ines", 1, now=NOW)
    for given, at, reason in ((token, NOW + 86400, "expired"), ("x" * 43, NOW, "unknown")):
        with pytest.raises(account_links.LinkRefused) as refused:
            account_links.use_link(fresh_db, given, "hash", now=at)
        assert refused.value.reason == reason
    assert fresh_db.execute("SELECT password_hash FROM admins WHERE name = 'ines'").fetchone() == ("",)


def test_a_reset_empties_the_password_and_ends_the_earlier_link(fresh_db):
    accounts.create_admin(fresh_db, "ana", "a password long enough", site_admin=False)
    accounts.start_session(fresh_db, "ana", now=NOW)
    first = account_links.reset(fresh_db, "ana", 7, now=NOW)
    second = account_links.reset(fresh_db, "ana", 7, now=NOW)
    assert accounts.sign_in(fresh_db, "ana", "a password long enough", niced=False) is False
    assert fresh_db.execute("SELECT COUNT(*) FROM admin_sessions").fetchone() == (0,)
    with pytest.raises(account_links.LinkRefused):
        account_links.open_link(fresh_db, first, now=NOW)
    assert account_links.open_link(fresh_db, second, now=NOW).purpose == "reset"
    assert set(account_links.pending(fresh_db, now=NOW)) == {"ana"}


@pytest.mark.parametrize(("name", "days"), [("ok", 0), ("ok", 31), ("bad name", 7)])
def test_bad_names_and_lifetimes_are_refused(fresh_db, name, days):
    with pytest.raises(ValueError, match=repr(days) if name == "ok" else "account name"):
        account_links.invite(fresh_db, name, days, now=NOW)
    assert fresh_db.execute("SELECT COUNT(*) FROM admins").fetchone() == (0,)


def test_an_existing_name_cannot_be_invited(fresh_db):
    account_links.invite(fresh_db, "ines", 7, now=NOW)
    with pytest.raises(ValueError, match="exists already"):
        account_links.invite(fresh_db, "ines", 7, now=NOW)
