"""People in the browser (web/people.py): accounts, one-time links, the Account page, the second factor and
each survey's people; with what the audit log records of them."""

from __future__ import annotations

import re
import time

import pyotp
import pytest

from storage import account_links, accounts, audit, roles, second_factor
from tests.helpers.drivers import ADMIN_NAME, ADMIN_PASSWORD, AdminSession, csrf_token_in, message_of

pytestmark = pytest.mark.both_backends

PASSWORD = "a password long enough"


def post(session: AdminSession, path: str, data: dict, page: str = "/admin/account"):
    """Post ``data`` to ``path`` with the CSRF token of ``page`` as ``session``'s browser holds it."""
    return session.client.post(path, data={**data, "csrf_token": session.csrf_token(page)})


def person(app, db, name: str, site_admin: bool = False) -> AdminSession:
    """A new account ``name`` signed in in a browser of its own."""
    accounts.create_admin(db, name, PASSWORD, site_admin=site_admin)
    session = AdminSession(app.test_client(), app)
    assert session.login(name, PASSWORD).status_code == 302
    return session


def actions(db) -> list[tuple]:
    return [(e.actor, e.action, e.survey_id) for e in reversed(audit.entries(db))]


def shown_link(response) -> str:
    return re.search(r'readonly value="http://localhost(/admin/link/[^"]+)"', response.get_data(as_text=True)).group(1)


def test_an_invitation_link_lets_its_holder_choose_the_password_once(auth, app, db):
    auth.login()
    response = post(auth, "/admin/accounts", {"name": "ines", "days": "7"}, page="/admin/accounts")
    assert response.status_code == 200
    link = shown_link(response)
    token = link.rsplit("/", 1)[1]
    stored = db.execute("SELECT token_hash, account, purpose FROM account_links").fetchall()
    assert [(row[1], row[2]) for row in stored] == [("ines", "invitation")] and token not in stored[0][0]
    assert accounts.sign_in(db, "ines", "") is False  # no password before the link is used
    invitee = AdminSession(app.test_client(), app)
    page = invitee.client.get(link)
    assert page.status_code == 200 and "ines" in page.get_data(as_text=True)
    token_field = csrf_token_in(page.get_data(as_text=True))
    chosen = {"password": PASSWORD, "again": PASSWORD, "csrf_token": token_field}
    assert invitee.client.post(link, data=chosen).status_code == 302
    assert invitee.login("ines", PASSWORD).status_code == 302
    again = invitee.client.post(link, data=chosen)
    assert again.status_code == 410 and "used already" in message_of(again)
    assert not roles.is_site_admin(db, "ines") and roles.roles_of(db, "ines") == {}
    assert ("researcher", "account-invited", None) in actions(db) and ("ines", "account-created", None) in actions(db)


def test_expired_and_unknown_links_are_refused_and_change_nothing(client, db):
    token = account_links.invite(db, "late", 1, now=time.time() - 2 * 86400)
    response = client.get(f"/admin/link/{token}")
    assert response.status_code == 410 and "expired" in message_of(response)
    assert client.post(f"/admin/link/{token}", data={"password": PASSWORD, "again": PASSWORD}).status_code == 410
    unknown = client.get("/admin/link/" + "x" * 43)
    assert unknown.status_code == 404 and "not a valid" in message_of(unknown)
    assert accounts.sign_in(db, "late", PASSWORD) is False


def test_a_disabled_account_is_signed_out_and_refused_until_enabled(auth, app, db):
    auth.login()
    ana = person(app, db, "ana")
    assert post(auth, "/admin/accounts/ana/disabled", {"disabled": "1"}, page="/admin/accounts").status_code == 302
    assert ana.client.get("/admin/").status_code == 302  # to the sign-in page: its session ended
    refused = ana.login("ana", PASSWORD)
    assert refused.status_code == 401 and "Wrong account name or password" in message_of(refused)
    assert post(auth, "/admin/accounts/ana/disabled", {"disabled": "0"}, page="/admin/accounts").status_code == 302
    assert ana.login("ana", PASSWORD).status_code == 302
    assert [a for _, a, _ in actions(db) if a.startswith("account-")] == ["account-disabled", "account-enabled"]


def test_the_last_active_site_administrator_stays_one(auth, app, db):
    auth.login()
    for path, data in (("disabled", {"disabled": "1"}), ("site-admin", {"site_admin": "0"})):
        response = post(auth, f"/admin/accounts/{ADMIN_NAME}/{path}", data, page="/admin/accounts")
        assert response.status_code == 409 and "last active site administrator" in message_of(response)
    assert roles.is_site_admin(db, ADMIN_NAME)
    person(app, db, "second")
    assert (
        post(auth, "/admin/accounts/second/site-admin", {"site_admin": "1"}, page="/admin/accounts").status_code == 302
    )
    assert (
        post(auth, f"/admin/accounts/{ADMIN_NAME}/site-admin", {"site_admin": "0"}, page="/admin/accounts").status_code
        == 302
    )
    assert roles.is_site_admin(db, "second") and not roles.is_site_admin(db, ADMIN_NAME)


def test_a_reset_ends_the_password_second_factor_and_sessions_and_gives_a_new_link(auth, app, db):
    auth.login()
    ana = person(app, db, "ana")
    second_factor.start_enrolment(db, "ana")
    response = post(auth, "/admin/accounts/ana/reset", {}, page="/admin/accounts")
    link = shown_link(response)
    assert ana.client.get("/admin/").status_code == 302
    assert accounts.sign_in(db, "ana", PASSWORD) is False and second_factor.pending_secret(db, "ana") is None
    assert ana.client.get(link).status_code == 200
    assert ("researcher", "account-reset", None) in actions(db)


def test_accounts_pages_are_for_site_administrators_only(auth, app, db):
    ana = person(app, db, "ana")
    assert ana.client.get("/admin/accounts").status_code == 403
    assert "/admin/accounts" not in ana.client.get("/admin/").get_data(as_text=True)


def test_changing_ones_password_needs_the_current_one_and_ends_the_other_sessions(auth, app, db):
    ana = person(app, db, "ana")
    elsewhere = AdminSession(app.test_client(), app)
    elsewhere.login("ana", PASSWORD)
    new = {"password": "a brand new password", "again": "a brand new password"}
    wrong = post(ana, "/admin/account/password", {**new, "current": "not the password"})
    assert wrong.status_code == 400 and accounts.sign_in(db, "ana", PASSWORD)
    assert post(ana, "/admin/account/password", {**new, "current": PASSWORD}).status_code == 302
    assert ana.client.get("/admin/account").status_code == 200  # this browser stays signed in
    assert elsewhere.client.get("/admin/account").status_code == 302  # the other one does not
    assert accounts.sign_in(db, "ana", "a brand new password")
    assert ("ana", "password-changed", None) in actions(db)


def test_checks_of_ones_current_password_are_rate_limited_like_sign_ins(make_app):
    from web.db import open_database

    app = make_app({"SECRET_KEY": "k", "RATELIMIT_SIGNINS": "3/600"})
    db = open_database(app)
    ana = person(app, db, "ana")  # one sign-in: one of the three
    new = {"password": "a brand new password", "again": "a brand new password", "current": "wrong guess!"}
    statuses = [post(ana, "/admin/account/password", new).status_code for _ in range(3)]
    assert statuses == [400, 400, 429] and accounts.sign_in(db, "ana", PASSWORD)
    db.close()


def test_signing_out_the_other_sessions_keeps_this_one(auth, app, db):
    ana = person(app, db, "ana")
    elsewhere = AdminSession(app.test_client(), app)
    elsewhere.login("ana", PASSWORD)
    response = post(ana, "/admin/account/sessions", {})
    assert response.status_code == 302
    assert ana.client.get("/admin/account").status_code == 200
    assert elsewhere.client.get("/admin/account").status_code == 302
    assert ("ana", "sessions-ended", None) in actions(db)


def enrol(session: AdminSession, db, name: str) -> str:
    """Switch ``name``'s second factor on through the Account page; its secret."""
    assert post(session, "/admin/account/second-factor", {}).status_code == 302
    page = session.client.get("/admin/account").get_data(as_text=True)
    secret = second_factor.pending_secret(db, name)
    assert secret in page and "otpauth://totp/" in page
    assert post(session, "/admin/account/second-factor/confirm", {"code": "000000"}).status_code in (302, 400)
    if not second_factor.is_enabled(db, name):  # 000000 was (rarely) the right code
        assert (
            post(session, "/admin/account/second-factor/confirm", {"code": pyotp.TOTP(secret).now()}).status_code == 302
        )
    return secret


def test_a_second_factor_is_asked_after_the_password_and_each_code_counts_once(auth, app, db):
    ana = person(app, db, "ana")
    wrong = post(ana, "/admin/account/second-factor", {})
    assert wrong.status_code == 302 and not second_factor.is_enabled(db, "ana")  # nothing on before a code
    secret = second_factor.pending_secret(db, "ana")
    off_code = pyotp.TOTP(secret).at(time.time() - 600)
    assert post(ana, "/admin/account/second-factor/confirm", {"code": off_code}).status_code == 400
    assert post(ana, "/admin/account/second-factor/confirm", {"code": pyotp.TOTP(secret).now()}).status_code == 302
    assert second_factor.is_enabled(db, "ana")
    browser = AdminSession(app.test_client(), app)
    step = browser.login("ana", PASSWORD)
    assert step.status_code == 302 and step.location.endswith("/admin/login/code")
    assert browser.client.get("/admin/").status_code == 302  # no session before the code
    code_page = "/admin/login/code"
    wrong = post(browser, code_page, {"code": off_code}, page=code_page)
    assert wrong.status_code == 401
    code = pyotp.TOTP(secret).at(time.time() + 30)  # the next step's: not used at the confirmation
    assert post(browser, code_page, {"code": code}, page=code_page).status_code == 302
    assert browser.client.get("/admin/").status_code == 200
    again = AdminSession(app.test_client(), app)
    again.login("ana", PASSWORD)
    assert post(again, code_page, {"code": code}, page=code_page).status_code == 401  # used already
    assert ("ana", "sign-in-failed", None) in actions(db)
    assert ("ana", "second-factor-changed", None) in actions(db)


def test_second_factor_codes_are_rate_limited_like_sign_ins(make_app):
    from tests.helpers.drivers import ADMIN_NAME as name
    from web.db import open_database

    app = make_app({"SECRET_KEY": "k", "RATELIMIT_SIGNINS": "3/600"})
    db = open_database(app)
    accounts.create_admin(db, name, ADMIN_PASSWORD)
    second_factor.start_enrolment(db, name)
    assert second_factor.confirm_enrolment(db, name, pyotp.TOTP(second_factor._row(db, name)[0]).now())
    browser = AdminSession(app.test_client(), app)
    browser.login()
    statuses = [
        post(browser, "/admin/login/code", {"code": "12345x"}, page="/admin/login/code").status_code for _ in range(5)
    ]
    db.close()
    assert 429 in statuses and statuses[0] != 429


def test_site_administrators_set_up_a_second_factor_first_when_the_setting_says_so(make_app):
    from tests.helpers.drivers import ADMIN_NAME as name
    from web.db import open_database

    app = make_app({"SECRET_KEY": "k", "REQUIRE_SECOND_FACTOR_FOR_SITE_ADMINS": True})
    db = open_database(app)
    accounts.create_admin(db, name, ADMIN_PASSWORD)
    accounts.create_admin(db, "ana", PASSWORD, site_admin=False)
    admin = AdminSession(app.test_client(), app)
    admin.login()
    sent = admin.client.get("/admin/")
    assert sent.status_code == 302 and sent.location.endswith("/admin/account")
    assert post(admin, "/admin/surveys/quiz/state", {"state": "closed"}).status_code == 403
    enrol(admin, db, name)
    assert admin.client.get("/admin/").status_code == 200
    ana = AdminSession(app.test_client(), app)
    ana.login("ana", PASSWORD)
    assert ana.client.get("/admin/").status_code == 200  # not a site administrator: not asked
    db.close()


def test_owners_share_a_survey_and_each_role_sees_its_buttons_only(auth, app, db):
    owner = person(app, db, "olga")
    roles.set_role(db, "quiz", "olga", "owner")
    viewer, analyst = person(app, db, "vic"), person(app, db, "ann")
    people_page = "/admin/surveys/quiz/people"
    for name, role in (("vic", "viewer"), ("ann", "analyst")):
        assert post(owner, people_page, {"account": name, "role": role}, page=people_page).status_code == 302
    assert roles.people_of(db, "quiz") == [("olga", "owner"), ("ann", "analyst"), ("vic", "viewer")]
    pages = {
        name: s.client.get("/admin/surveys/quiz").get_data(as_text=True)
        for name, s in (("vic", viewer), ("ann", analyst), ("olga", owner))
    }
    assert "<h2>Export</h2>" not in pages["vic"] and "<h2>Export</h2>" in pages["ann"]
    assert "Close this survey" not in pages["ann"] and "Close this survey" in pages["olga"]
    assert people_page not in pages["ann"] and people_page in pages["olga"]
    assert viewer.client.get("/admin/surveys/quiz/estimates.csv").status_code == 404
    assert analyst.client.get("/admin/surveys/quiz/estimates.csv").status_code == 200
    assert analyst.client.get(people_page).status_code == 404
    assert ("olga", "role-changed", "quiz") in actions(db)


def test_the_last_owner_stays_and_unknown_accounts_are_refused(auth, app, db):
    owner = person(app, db, "olga")
    roles.set_role(db, "quiz", "olga", "owner")
    page = "/admin/surveys/quiz/people"
    removed = post(owner, page + "/remove", {"account": "olga"}, page=page)
    assert removed.status_code == 409 and "last owner" in message_of(removed)
    demoted = post(owner, page, {"account": "olga", "role": "viewer"}, page=page)
    assert demoted.status_code == 400 and "last owner" in message_of(demoted)
    unknown = post(owner, page, {"account": "nobody", "role": "viewer"}, page=page)
    assert unknown.status_code == 400 and "no account called" in message_of(unknown)
    assert roles.people_of(db, "quiz") == [("olga", "owner")]


def test_sign_in_failure_and_sign_out_are_audited_without_unknown_names(auth, db):
    auth.login(ADMIN_NAME, "wrong password!")
    auth.login("no-such-person", "wrong password!")
    auth.login()
    auth.logout()
    assert actions(db) == [
        (ADMIN_NAME, "sign-in-failed", None),
        (None, "sign-in-failed", None),
        (ADMIN_NAME, "sign-in", None),
        (ADMIN_NAME, "sign-out", None),
    ]
    assert not any("no-such-person" in (e.detail + (e.actor or "")) for e in audit.entries(db))


def test_every_people_form_refuses_a_missing_csrf_token(auth, app, db):
    """Each form of web/people.py (and the second factor's code) posted without its token changes nothing."""
    auth.login()
    roles.set_role(db, "quiz", ADMIN_NAME, "owner")
    token = account_links.invite(db, "ines", 7)
    before = accounts.list_admins(db), roles.people_of(db, "quiz"), account_links.pending(db)
    forms = {
        "/admin/accounts": {"name": "eve", "days": "7"},
        "/admin/accounts/ines/disabled": {"disabled": "1"},
        "/admin/accounts/ines/reset": {},
        "/admin/accounts/ines/site-admin": {"site_admin": "1"},
        f"/admin/link/{token}": {"password": PASSWORD, "again": PASSWORD},
        "/admin/account/password": {"current": ADMIN_PASSWORD, "password": PASSWORD, "again": PASSWORD},
        "/admin/account/sessions": {},
        "/admin/account/second-factor": {},
        "/admin/account/second-factor/confirm": {"code": "123456"},
        "/admin/account/second-factor/off": {"current": ADMIN_PASSWORD},
        "/admin/surveys/quiz/people": {"account": "ines", "role": "owner"},
        "/admin/surveys/quiz/people/remove": {"account": ADMIN_NAME},
        "/admin/login/code": {"code": "123456"},
    }
    statuses = {path: auth.client.post(path, data=data).status_code for path, data in forms.items()}
    assert statuses == dict.fromkeys(forms, 400)
    assert (accounts.list_admins(db), roles.people_of(db, "quiz"), account_links.pending(db)) == before
    assert second_factor.pending_secret(db, ADMIN_NAME) is None


def test_a_role_change_is_never_committed_without_its_audit_entry(auth, app, db, monkeypatch):
    import types

    person(app, db, "vic")
    auth.login()
    page = "/admin/surveys/quiz/people"
    before = len(audit.entries(db))

    def fail(_size):
        raise RuntimeError("injected failure")

    attempts = ((page, {"account": "vic", "role": "viewer"}, None), (page + "/remove", {"account": "vic"}, "analyst"))
    for path, data, held in attempts:
        if held:
            roles.set_role(db, "quiz", "vic", held)
        token = auth.csrf_token(page)
        with monkeypatch.context() as patched:
            patched.setattr(audit, "secrets", types.SimpleNamespace(token_hex=fail))
            with pytest.raises(RuntimeError, match="injected failure"):
                auth.client.post(path, data={"csrf_token": token, **data})
        assert roles.role_of(db, "quiz", "vic") == held and len(audit.entries(db)) == before
