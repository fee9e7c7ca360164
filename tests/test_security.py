"""Security properties of the whole app, checked route by route.

The admin routes and the POST routes are enumerated from ``app.url_map``,
so a route added later is checked (or makes these tests fail until it is
listed) without anyone remembering to add it here.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import re
import tempfile
import threading
import zipfile
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pyreadstat
import pytest
from itsdangerous import URLSafeSerializer
from werkzeug.http import parse_set_header

from app import create_app
from storage import accounts, connection, ratelimit
from surveys import protocol
from tests.helpers.drivers import (
    ADMIN_NAME,
    ADMIN_PASSWORD,
    AdminSession,
    Respondent,
    csrf_token_in,
    message_of,
    wire_form,
)
from tests.helpers.records import add_responses, dump
from tests.helpers.sample_surveys import QUIZ_YAML, survey_in
from web.auth import DEVICE_COOKIE
from web.db import open_database
from web.permissions import ADMIN_COOKIE, DATA_SUFFIXES

pytestmark = pytest.mark.both_backends

#: The admin endpoints anyone may use: the sign-in form itself.
PUBLIC_ADMIN_ENDPOINTS = {"auth.login", "auth.second_factor_code", "people.use_link"}
#: Every POST endpoint, with the test below that shows it refuses a missing token.
CSRF_CHECKED_POSTS = {
    "respond.submit",
    "auth.login",
    "auth.logout",
    "admin.set_state",
    "admin.exclude_day",
    "admin.include_day",
    "admin.preview_submit",
    # tests/test_integrity.py::test_setting_aside_without_a_csrf_token_or_with_a_bad_day_changes_nothing
    "admin.set_burst_aside",
    "admin.keep_burst",
    # tests/test_people.py::test_every_people_form_refuses_a_missing_csrf_token
    "auth.second_factor_code",
    "people.use_link",
    "people.invite",
    "people.set_disabled",
    "people.reset",
    "people.set_site_admin",
    "people.change_password",
    "people.end_other_sessions",
    "people.start_second_factor",
    "people.confirm_second_factor",
    "people.turn_second_factor_off",
    "people.set_person",
    "people.remove_person",
    # tests/test_editor.py::test_without_a_csrf_token_nothing_is_stored
    "editor.create_survey",
    "editor.save_survey",
    "editor.append_to_source",
    # tests/test_editor.py::test_the_unsaved_text_is_previewed_in_each_language_and_path_storing_nothing
    "editor.preview_text",
    # tests/test_lifecycle.py::test_a_lifecycle_post_without_a_csrf_token_changes_nothing
    "lifecycle.open_",
    "lifecycle.close",
    "lifecycle.archive",
    "lifecycle.unarchive",
    "lifecycle.listed",
    "lifecycle.clear",
    "lifecycle.delete",
    # tests/test_codes_web.py::test_making_codes_without_a_csrf_token_makes_none
    "codes.create_codes",
    # tests/test_api.py::test_making_or_revoking_a_token_without_a_csrf_token_changes_nothing
    "tokens.create_token",
    "tokens.revoke_token",
    # tests/test_releases_web.py::test_publishing_without_a_valid_csrf_token_stores_nothing
    "releases.post_release",
}
URL_ARGUMENTS = {
    "survey_id": "quiz",
    "filename": "style.css",
    "fmt": "sav",
    "name": "researcher",
    "token": "no-such-link",
    "token_id": "none",
}
#: An argument whose value depends on the route: ``name`` is an account's on the people pages, a file's in the API.
URL_ARGUMENTS_OF = {"api.survey_file": {"name": "codebook.json"}}
TRUTH = {"cheated": "no", "lied": "yes", "ai_use": "sometimes", "year": "third"}


def url_of(app, rule) -> str:
    with app.test_request_context():
        values = {**URL_ARGUMENTS, **URL_ARGUMENTS_OF.get(rule.endpoint, {})}
        return app.url_map.bind("localhost").build(rule.endpoint, {a: values[a] for a in rule.arguments})


def routes(app, method: str, prefix: str = "/"):
    """``(endpoint, url)`` of every rule answering ``method`` under ``prefix``."""
    return [
        (rule.endpoint, url_of(app, rule))
        for rule in app.url_map.iter_rules()
        if method in rule.methods and rule.rule.startswith(prefix)
    ]


def is_export(url: str) -> bool:
    return url.endswith(DATA_SUFFIXES)


# --------------------------------------------------------------------------
# Anonymous access to admin URLs.


def test_admin_routes_are_found_by_enumeration(app):
    endpoints = {endpoint for method in ("GET", "POST") for endpoint, _ in routes(app, method, "/admin")}
    assert {
        "admin.dashboard",
        "admin.survey_page",
        "admin.set_state",
        "auth.logout",
        "exports.estimates_json",
        "exports.estimates_csv",
        "exports.responses_csv",
        "exports.codebook_json",
        "exports.breakdown_csv",
        "exports.breakdown_json",
        "admin.confirm_close",
    } <= endpoints


def test_every_admin_url_refuses_anonymous_access(app, client, admin_account):
    add_responses(app, [{"cheated": "yes", "ai_use": "often", "year": "first"}])
    before = dump(app)
    problems = []
    for endpoint, url in routes(app, "GET", "/admin"):
        if endpoint in PUBLIC_ADMIN_ENDPOINTS:
            continue
        response = client.get(url)
        if is_export(url):
            if response.status_code != 401 or not message_of(response):
                problems.append((url, response.status_code, "export should be 401 with a message"))
        else:
            location = urlsplit(response.headers.get("Location", ""))
            if (
                response.status_code != 302
                or location.path != "/admin/login"
                or parse_qs(location.query)["next"] != [url]
            ):
                problems.append((url, response.status_code, response.headers.get("Location")))
        if "often" in response.get_data(as_text=True):
            problems.append((url, "shows stored data to an anonymous visitor"))
    token = csrf_token_in(client.get("/admin/login").get_data(as_text=True))  # an anonymous session's own token
    for endpoint, url in routes(app, "POST", "/admin"):
        if endpoint in PUBLIC_ADMIN_ENDPOINTS:
            continue
        for data in ({}, {"csrf_token": token, "state": "closed"}):
            response = client.post(url, data=data)
            refused = response.status_code in (400, 401) and message_of(response)
            signed_out = endpoint == "auth.logout" and response.headers.get("Location") == "/admin/login"
            if not (refused or signed_out):
                problems.append((url, sorted(data), response.status_code))
    assert problems == []
    assert dump(app) == before


# --------------------------------------------------------------------------
# CSRF on every POST form.


def test_every_post_route_is_checked_for_csrf(app):
    assert {endpoint for endpoint, _ in routes(app, "POST")} == CSRF_CHECKED_POSTS


@pytest.mark.parametrize("token", ["missing", "junk", "another session's"])
def test_submission_without_a_valid_token_stores_nothing(app, respondent, token):
    controls = respondent.open_form()
    other = Respondent(app.test_client()).open_form()["csrf_token"]
    data = {**controls, **wire_form(survey_in(app), TRUTH)}
    if token == "missing":
        del data["csrf_token"]
    else:
        data["csrf_token"] = "ImFiYyI.junk.junk" if token == "junk" else other
    before = dump(app)
    response = respondent.client.post("/s/quiz", data=data)
    assert response.status_code == 400 and message_of(response)
    assert "Set-Cookie" not in response.headers or "rr_done" not in response.headers["Set-Cookie"]
    assert dump(app) == before


def test_sign_in_without_token_does_not_sign_in_or_count(app, client, admin_account):
    client.get("/admin/login")
    before = dump(app)
    response = client.post("/admin/login", data={"name": ADMIN_NAME, "password": ADMIN_PASSWORD})
    assert response.status_code == 400 and message_of(response)
    assert client.get("/admin/").status_code == 302
    assert dump(app) == before


def test_sign_out_without_token_keeps_the_session(auth):
    auth.login()
    response = auth.client.post("/admin/logout")
    assert response.status_code == 400 and message_of(response)
    assert auth.client.get("/admin/").status_code == 200


@pytest.mark.parametrize("token", ["missing", "junk", "another session's"])
def test_state_change_without_a_valid_token_changes_nothing(app, auth, token):
    other = csrf_token_in(app.test_client().get("/admin/login").get_data(as_text=True))
    auth.login()
    data = (
        {"state": "closed"}
        if token == "missing"
        else {"state": "closed", "csrf_token": "ImFiYyI.junk.junk" if token == "junk" else other}
    )
    before = dump(app)
    response = auth.client.post("/admin/surveys/quiz/state", data=data)
    assert response.status_code == 400 and message_of(response)
    assert dump(app) == before


def test_a_preview_sent_without_a_valid_token_is_refused(auth):
    auth.login()
    response = auth.client.post("/admin/surveys/quiz/preview", data={"cheated": "yes"})
    assert response.status_code == 400 and message_of(response)
    assert "What was stored" not in response.get_data(as_text=True)


# --------------------------------------------------------------------------
# Headers and markup on every page.


def every_response(app, auth, respondent):
    """``(label, response)`` for every GET route (signed in), the POST outcomes and the error pages."""
    add_responses(app, [{"cheated": "yes", "ai_use": "often", "year": "first"}])
    anonymous = app.test_client()
    controls = respondent.open_form()
    out = [
        ("GET /admin/login", anonymous.get("/admin/login")),
        ("anonymous /admin/", anonymous.get("/admin/")),
        ("anonymous export", anonymous.get("/admin/surveys/quiz/responses.csv")),
        ("form", respondent.client.get("/s/quiz")),
        ("404", anonymous.get("/s/no-such-survey")),
        ("405", anonymous.put("/s/quiz")),
        ("413", anonymous.post("/s/quiz", data={"x": "a" * 70_000})),
        ("400 submission", anonymous.post("/s/quiz", data={"cheated": "yes"})),
        ("thank-you", respondent.submit(TRUTH, controls=controls)),
        ("409 retake", respondent.submit(TRUTH, controls={**controls, "submission_key": "k" * 20})),
        ("401 sign-in", auth.login(password="wrong password!")),
    ]
    auth.login()
    for _endpoint, url in routes(app, "GET"):
        response = auth.client.get(url)
        response.get_data()
        response.close()  # the static file's handle
        out.append((url, response))
    out.append(("400 admin option", auth.client.get("/admin/surveys/quiz?level=2")))
    out.append(
        (
            "302 state change",
            auth.client.post(
                "/admin/surveys/quiz/state", data={"csrf_token": auth.csrf_token("/admin/"), "state": "open"}
            ),
        )
    )
    out.append(("302 sign-out", auth.logout()))
    return out


def test_security_headers_on_every_page(app, auth, respondent):
    problems = []
    for label, response in every_response(app, auth, respondent):
        headers = response.headers
        csp = {d.split()[0]: d.split()[1:] for d in headers.get("Content-Security-Policy", "").split(";") if d.strip()}
        expected = [
            csp.get("script-src") == ["'self'"],
            csp.get("frame-ancestors") == ["'none'"],
            not any("'unsafe-inline'" in v or "'unsafe-eval'" in v for v in csp.values()),
            headers.get("X-Frame-Options") == "DENY",
            headers.get("X-Content-Type-Options") == "nosniff",
            headers.get("Referrer-Policy") == "no-referrer",
            label == "/static/style.css" or "no-store" in parse_set_header(headers.get("Cache-Control", "")),
        ]
        if not all(expected):
            problems.append((label, response.status_code, expected, dict(headers)))
    assert problems == []


INLINE_CODE = re.compile(r"<script(?![^>]*\ssrc=)[^>]*>|<style[\s>]|\sstyle=|\son[a-z]+=|javascript:", re.I)


def test_no_page_needs_inline_script_or_style(app, auth, respondent):
    """The policy blocks inline code: a page that relied on it would break in the browser."""
    pages = [(label, r) for label, r in every_response(app, auth, respondent) if r.mimetype == "text/html"]
    assert len(pages) > 10
    assert [
        (label, INLINE_CODE.findall(r.get_data(as_text=True)))
        for label, r in pages
        if INLINE_CODE.search(r.get_data(as_text=True))
    ] == []


# --------------------------------------------------------------------------
# Cookies.


def cookie_attributes(response, name: str) -> set[str]:
    """The flags of cookie ``name`` as set by ``response``: ``{"httponly", "samesite=lax", ...}``."""
    header = next(h for h in response.headers.getlist("Set-Cookie") if h.startswith(f"{name}="))
    parts = (part.strip().lower() for part in header.split(";")[1:])
    return {part for part in parts if not part.startswith(("expires=", "max-age=", "path=", "domain="))}


def test_admin_cookie_is_httponly_strict_and_only_for_admin_pages(auth):
    response = auth.login()
    attributes = cookie_attributes(response, ADMIN_COOKIE)
    assert {"httponly", "samesite=strict"} <= attributes and "secure" not in attributes
    header = next(h for h in response.headers.getlist("Set-Cookie") if h.startswith(f"{ADMIN_COOKIE}="))
    assert "Path=/admin" in header


def test_cookies_are_secure_when_configured(app, admin_account):
    app.config["SESSION_COOKIE_SECURE"] = True
    client = app.test_client()
    client.environ_base["wsgi.url_scheme"] = "https"
    assert {"httponly", "samesite=lax", "secure"} <= cookie_attributes(client.get("/admin/login"), "session")
    thanks = Respondent(client).submit(TRUTH)
    assert thanks.status_code == 200
    assert {"httponly", "samesite=lax", "secure"} <= cookie_attributes(thanks, "rr_done_quiz")
    signed_in = AdminSession(client, app).login()
    assert signed_in.status_code == 302
    assert {"httponly", "samesite=strict", "secure"} <= cookie_attributes(signed_in, ADMIN_COOKIE)


# --------------------------------------------------------------------------
# Admin sessions: server-side, ended by sign-out, a new password or sign-out-everywhere.


def captured_admin_cookie(auth) -> str:
    auth.login()
    return auth.client.get_cookie(ADMIN_COOKIE, path="/admin").value


def works(app, cookie: str) -> bool:
    """Whether a stolen admin cookie, replayed from another browser, opens the dashboard."""
    thief = app.test_client()
    thief.set_cookie(ADMIN_COOKIE, cookie, path="/admin")
    return thief.get("/admin/").status_code == 200


def test_captured_cookie_stops_working_after_sign_out(app, auth):
    cookie = captured_admin_cookie(auth)
    assert works(app, cookie)
    auth.logout()
    assert not works(app, cookie)
    assert auth.client.get("/admin/").status_code == 302


def test_new_password_and_sign_out_everywhere_end_every_session(app, auth, runner):
    cookie = captured_admin_cookie(auth)
    result = runner.invoke(
        args=["admin", "reset-password", ADMIN_NAME, "--password-stdin"], input="a brand new password\n"
    )
    assert result.exit_code == 0, result.output
    assert not works(app, cookie)
    session = AdminSession(app.test_client(), app)
    assert session.login(password="a brand new password").status_code == 302
    cookie = session.client.get_cookie(ADMIN_COOKIE, path="/admin").value
    assert works(app, cookie)
    result = runner.invoke(args=["admin", "sign-out-everywhere", ADMIN_NAME])
    assert result.exit_code == 0 and "1 session" in result.output
    assert not works(app, cookie)
    assert runner.invoke(args=["admin", "sign-out-everywhere", "nobody"]).exit_code != 0


def test_survey_form_leaves_the_admin_cookie_a_browser_session_cookie(auth):
    signed_in = auth.login()
    header = next(h for h in signed_in.headers.getlist("Set-Cookie") if h.startswith(f"{ADMIN_COOKIE}="))
    assert "expires=" not in header.lower() and "max-age=" not in header.lower()
    form = auth.client.get("/s/quiz")  # the respondents' CSRF session becomes persistent ...
    assert "Expires=" in next(h for h in form.headers.getlist("Set-Cookie") if h.startswith("session="))
    assert not any(h.startswith(f"{ADMIN_COOKIE}=") for h in form.headers.getlist("Set-Cookie"))  # ... not this
    assert auth.client.get("/admin/").status_code == 200


# --------------------------------------------------------------------------
# Sign-in throttling.


def from_address(app, address: str) -> AdminSession:
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return AdminSession(client, app)


def test_sign_in_locks_the_name_from_that_address_after_five_failures(app, auth):
    db = open_database(app)
    accounts.create_admin(db, "colleague", "another long password")
    db.close()
    for _ in range(ratelimit.FREE_FAILURES):
        assert auth.login(password="not the password").status_code == 401
    locked = auth.login()  # the right password, during the lock
    assert locked.status_code == 429
    assert 0 < int(locked.headers["Retry-After"]) <= ratelimit.FIRST_LOCK_SECONDS + 1
    assert "Too many failed sign-ins" in locked.get_data(as_text=True)
    assert auth.client.get("/admin/").status_code == 302  # not signed in
    other = AdminSession(app.test_client(), app).login("colleague", "another long password")
    assert other.status_code == 302  # the lock is per account


def answers_to(session: AdminSession, name: str, attempts: int) -> list[tuple[int, str, str | None]]:
    out = []
    for _ in range(attempts):
        response = session.login(name, "not the password")
        out.append((response.status_code, message_of(response), response.headers.get("Retry-After")))
    return out


def test_unknown_and_known_names_get_the_same_answers(app, admin_account):
    known = answers_to(from_address(app, "192.0.2.1"), ADMIN_NAME, ratelimit.FREE_FAILURES + 2)
    unknown = answers_to(from_address(app, "192.0.2.2"), "nobody", ratelimit.FREE_FAILURES + 2)
    assert known == unknown
    assert [status for status, _, _ in known] == [401] * ratelimit.FREE_FAILURES + [429, 429]


def test_a_stranger_cannot_lock_the_owner_out(app, admin_account):
    stranger = from_address(app, "198.51.100.7")
    for _ in range(ratelimit.FREE_FAILURES + 3):
        stranger.login(password="guessing guessing")
    assert stranger.login().status_code == 429  # even the right password, from the stranger's address
    owner = from_address(app, "203.0.113.9")
    assert owner.login().status_code == 302
    assert owner.client.get("/admin/").status_code == 200


def test_sign_in_beyond_the_hashing_slots_is_refused_without_hashing(app, auth, monkeypatch):
    checks = []
    real = accounts._verify
    monkeypatch.setattr(accounts, "_verify", lambda h, p: checks.append(1) or real(h, p))
    with ratelimit.exclusive_slot(app.config["RATELIMIT_DATABASE"] + ".hashing", 1) as held:
        assert held  # another worker is checking a password now
        busy = auth.login()
        assert busy.status_code == 503 and int(busy.headers["Retry-After"]) > 0
        assert "busy" in message_of(busy).lower() and checks == []
        assert auth.client.get("/admin/").status_code == 302
    assert auth.login().status_code == 302 and checks == [1]


def test_a_sign_in_while_every_slot_hashes_is_refused_before_its_form_is_read(app, monkeypatch):
    """Under a flood the busy refusal is all a sign-in costs: neither its form nor its account's lock is read
    (the app-wide CSRF check still runs first)."""
    from web import auth as auth_views

    client = app.test_client()
    token = csrf_token_in(client.get("/admin/login").get_data(as_text=True))
    read = []
    monkeypatch.setattr(auth_views, "LoginForm", lambda: read.append("form"))
    monkeypatch.setattr(auth_views, "signin_lock", lambda name: read.append("lock"))
    with ratelimit.exclusive_slot(app.config["RATELIMIT_DATABASE"] + ".hashing", 1) as held:
        assert held
        busy = client.post("/admin/login", data={"csrf_token": token, "name": "x", "password": "y"})
    assert busy.status_code == 503 and read == []


def test_sign_ins_are_limited_per_address(app, auth):
    app.config["RATELIMIT_SIGNINS"] = "3/600"
    statuses = [auth.login("nobody", "whatever password").status_code for _ in range(4)]
    assert statuses == [401, 401, 401, 429]
    limited = auth.login()
    assert limited.status_code == 429 and int(limited.headers["Retry-After"]) > 0
    assert "Too many requests" in limited.get_data(as_text=True)


# --------------------------------------------------------------------------
# Sign-in behind a proxy (issue 24): budgets per network, a slot kept for remembered browsers.

OWNER_ADDRESS = "203.0.113.9"


def proxied_app(make_app, **settings):
    """An app behind one trusted proxy (``PROXY_FIX=1``, the documented deployment) with the owner's account."""
    app = make_app({"SECRET_KEY": "test-secret-key", "PROXY_FIX": 1, **settings})
    db = open_database(app)
    accounts.create_admin(db, ADMIN_NAME, ADMIN_PASSWORD)
    db.close()
    return app


def forwarded_from(app, address: str, client=None) -> AdminSession:
    """A browser whose requests the proxy forwards as coming from ``address``."""
    client = client or app.test_client()
    client.environ_base["HTTP_X_FORWARDED_FOR"] = address
    return AdminSession(client, app)


def remembered_owner(app) -> AdminSession:
    """The owner's browser after one earlier sign-in (and sign-out) there."""
    owner = forwarded_from(app, OWNER_ADDRESS)
    assert owner.login().status_code == 302
    owner.logout()
    return owner


def rotating_addresses(count: int) -> list[str]:
    """As a flood rotates them: IPv4 addresses in many /24 networks, then addresses of one IPv6 /64."""
    return [f"198.51.{i % 250}.{1 + i // 250}" for i in range(count)] + [
        f"2001:db8:77:1:{i:x}::{i + 1:x}" for i in range(count)
    ]


def test_a_flood_from_rotating_addresses_holding_the_check_does_not_keep_the_remembered_owner_out(
    make_app, monkeypatch
):
    """Issue 24, point 1: strangers rotating over many addresses keep the machine's password-check slot
    busy with wrong passwords for the owner's own name; the owner, in the browser where they signed in
    before and from an address of their own, signs in (it was a 503). No answer is a 500."""
    app = proxied_app(make_app)
    owner = remembered_owner(app)
    checking, release = threading.Event(), threading.Event()
    real = accounts._verify_here
    owners_checks = []  # the threads the owner's checks ran on

    def strangers_check_lasts(password_hash, password):
        if password != ADMIN_PASSWORD:
            checking.set()
            release.wait(timeout=60)
        else:
            owners_checks.append(threading.get_native_id())
        return real(password_hash, password)

    monkeypatch.setattr(accounts, "_verify_here", strangers_check_lasts)
    addresses = rotating_addresses(40)
    held = []
    holder = threading.Thread(
        target=lambda: held.append(forwarded_from(app, addresses[0]).login(password="guess guess guess").status_code)
    )
    holder.start()
    try:
        assert checking.wait(timeout=30)  # a stranger's check holds the slot
        flood = [forwarded_from(app, a).login(password="guess guess guess").status_code for a in addresses[1:]]
        owner.client.environ_base["HTTP_X_FORWARDED_FOR"] = "192.0.2.44"  # the owner's laptop, on another network
        signed_in = owner.login()
    finally:
        release.set()
        holder.join(timeout=60)
    assert signed_in.status_code == 302 and owner.client.get("/admin/").status_code == 200
    per_network = ratelimit.Limit.parse(app.config["RATELIMIT_SIGNINS"]).count
    assert flood[:39] == [503] * 39  # from 39 IPv4 networks
    assert flood[39:] == [503] * per_network + [429] * (40 - per_network)  # from one IPv6 /64
    assert held == [401]
    assert forwarded_from(app, "192.0.2.45").login().status_code == 302  # once the flood ends, any browser
    # The remembered browser's check ran on the serving thread, at its priority; the new browser's on a
    # low-priority checking thread.
    assert owners_checks[0] == threading.get_native_id() != owners_checks[1]


def test_strangers_failing_as_the_owner_lock_their_network_but_not_the_remembered_owner(make_app):
    """A stranger in the owner's own /24 who fails as the owner locks that name for the whole network, a
    new browser there included; the owner's remembered browser keeps a count of its own."""
    app = proxied_app(make_app)
    owner = remembered_owner(app)
    stranger = forwarded_from(app, "203.0.113.200")
    assert [stranger.login(password="guess guess guess").status_code for _ in range(ratelimit.FREE_FAILURES)] == [
        401
    ] * ratelimit.FREE_FAILURES
    assert stranger.login().status_code == 429  # even the right password
    assert forwarded_from(app, "203.0.113.10").login().status_code == 429  # a new browser in that network
    assert forwarded_from(app, "203.0.114.10").login().status_code == 302  # another network
    assert owner.login().status_code == 302


@pytest.mark.parametrize(
    "addresses, elsewhere",
    [
        (["198.51.100.1", "198.51.100.254", "198.51.100.77", "198.51.100.2"], "198.51.101.1"),
        (
            ["2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:fffe", "2001:db8:1:2:abcd::", "2001:db8:1:2::9"],
            "2001:db8:1:3::1",
        ),
    ],
)
def test_addresses_of_one_ipv4_slash_24_or_ipv6_slash_64_share_one_sign_in_budget(make_app, addresses, elsewhere):
    app = proxied_app(make_app, RATELIMIT_SIGNINS="3/600")
    statuses = [forwarded_from(app, address).login("nobody", "whatever password").status_code for address in addresses]
    assert statuses == [401, 401, 401, 429]
    assert forwarded_from(app, elsewhere).login("nobody", "whatever password").status_code == 401


def test_failures_rotated_over_one_ipv6_slash_64_lock_the_name_for_all_of_it(make_app):
    app = proxied_app(make_app)
    rotated = [f"2001:db8:9:9:{i:x}::1" for i in range(ratelimit.FREE_FAILURES)]
    assert {forwarded_from(app, a).login(password="guess guess guess").status_code for a in rotated} == {401}
    assert forwarded_from(app, "2001:db8:9:9:ffff::1").login().status_code == 429
    assert forwarded_from(app, "2001:db8:9:a::1").login().status_code == 302


def test_the_remembered_browser_cookie_is_kept_for_sign_in_only_and_gets_no_one_in_by_itself(make_app):
    """The cookie goes only to the sign-in page; a wrong password with it is still refused; forged, another
    account's, or from before a new password, it earns nothing (a 503 while the shared slot is busy)."""
    app = proxied_app(make_app)
    owner = forwarded_from(app, OWNER_ADDRESS)
    header = next(h for h in owner.login().headers.getlist("Set-Cookie") if h.startswith(f"{DEVICE_COOKIE}="))
    assert "Path=/admin/login" in header and "HttpOnly" in header and "SameSite=Strict" in header
    assert f"Max-Age={accounts.REMEMBERED_DEVICE_SECONDS}" in header
    owner.logout()
    assert owner.login(password="not the password").status_code == 401
    token = owner.client.get_cookie(DEVICE_COOKIE, path="/admin/login").value
    db = open_database(app)
    accounts.create_admin(db, "colleague", "another long password")
    db.close()

    def with_cookie(value: str, name: str = ADMIN_NAME) -> int:
        browser = forwarded_from(app, "192.0.2.50")
        browser.client.set_cookie(DEVICE_COOKIE, value, path="/admin/login")
        return browser.login(name, "another long password" if name == "colleague" else ADMIN_PASSWORD).status_code

    with ratelimit.exclusive_slot(app.config["RATELIMIT_DATABASE"] + ".hashing", 1) as held:
        assert held  # a stranger's check
        assert with_cookie(token) == 302
        assert with_cookie(token.replace(f"~{ADMIN_NAME}", "~colleague"), "colleague") == 503
        assert with_cookie(token, "colleague") == 503
        expires, mac, name = token.split("~", 2)
        assert with_cookie(f"{expires}~{mac[:-1]}{'1' if mac.endswith('0') else '0'}~{name}") == 503
        result = app.test_cli_runner().invoke(
            args=["admin", "reset-password", ADMIN_NAME, "--password-stdin"], input=ADMIN_PASSWORD + "\n"
        )
        assert result.exit_code == 0, result.output
        assert with_cookie(token) == 503


# --------------------------------------------------------------------------
# No true answer anywhere.


def force_noise(monkeypatch) -> dict:
    """Coins that never tell the truth here: what the server path stores for TRUTH.

    Two coins (cheated): both bits 1, so "yes". Forced response 2/3, 1/6, 1/6
    (lied): u = 5 of 6 is neither truthful nor forced yes, so "no". ai_use
    (t = 1/2, k = 4): u = 1 of 2 is not truthful, the random option is the
    last, "often". year is not randomized.
    """
    monkeypatch.setattr(protocol.secrets, "randbits", lambda k: (1 << k) - 1)
    monkeypatch.setattr(protocol.secrets, "randbelow", lambda n: n - 1)
    return {"cheated": "yes", "lied": "no", "ai_use": "often", "year": "third"}


def stored_list(html: str) -> dict[str, str]:
    """The thank-you page's "What was stored" list, label to value."""
    pairs = re.findall(r"<dt>(.*?)</dt><dd>(.*?)(?: <span|</dd>)", html, re.S)
    return {label: value.strip() for label, value in pairs}


NORMALIZE = [
    (re.compile(r'(name="csrf_token"(?: type="hidden")? value=")[^"]+'), r"\1"),
    (re.compile(r'(name="submission_key" type="hidden" value=")[^"]+'), r"\1"),  # the preview's fresh key
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+\-Z:0-9]*"), "<time>"),
    (re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? UTC"), "<time>"),  # the audit log's and the events'
]


def statistics_file_rows(body: bytes, fmt: str) -> str:
    """An SPSS or Stata file's rows (without the random response id) and labels, as sorted text:
    the file itself carries its creation time."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"file.{fmt}"
        path.write_bytes(body)
        frame, meta = (pyreadstat.read_sav if fmt == "sav" else pyreadstat.read_dta)(str(path))
    rows = sorted(repr(list(row[1:])) for row in frame.itertuples(index=False))
    return "\n".join([*rows, repr(meta.column_labels), repr(meta.variable_value_labels), repr(meta.notes)])


def admin_outputs(app, client) -> dict[str, str]:
    """Every admin page and export, signed in, with tokens, times and response ids blanked."""
    out = {}
    for _endpoint, url in routes(app, "GET", "/admin") + [("by", "/admin/surveys/quiz?by=year")]:
        if url.endswith((".sav", ".dta")):
            out[url] = statistics_file_rows(client.get(url).get_data(), url.rpartition(".")[2])
            continue
        if url.endswith(".zip"):  # the backup before deletion (web/lifecycle.py): each member as text
            response = client.get(url)
            members = zipfile.ZipFile(io.BytesIO(response.get_data()))
            response.close()
            for name in members.namelist():
                text = members.read(name).decode("utf-8")
                if name == "responses.csv":
                    text = "\n".join(sorted(",".join(row[1:]) for row in list(csv.reader(io.StringIO(text)))[1:]))
                for pattern, replacement in NORMALIZE:
                    text = pattern.sub(replacement, text)
                out[f"{url}:{name}"] = text
            continue
        text = client.get(url).get_data(as_text=True)
        if url.endswith("responses.csv"):
            rows = list(csv.reader(io.StringIO(text)))
            text = "\n".join(sorted(",".join(row[1:]) for row in rows[1:]))  # ids are random
        for pattern, replacement in NORMALIZE:
            text = pattern.sub(replacement, text)
        out[url] = text
    return out


def answer_through_every_path(app, truth: dict) -> tuple[str, str]:
    """The server path, then the confirm-page path (this browser's token expired); returns both pages."""
    thanks = Respondent(app.test_client()).submit(truth)
    assert thanks.status_code == 200
    late = app.test_client()
    controls = Respondent(late).open_form()
    limit, app.config["WTF_CSRF_TIME_LIMIT"] = app.config["WTF_CSRF_TIME_LIMIT"], -1  # expired at once
    try:
        confirm = late.post("/s/quiz", data={**controls, **wire_form(survey_in(app), truth)})
    finally:
        app.config["WTF_CSRF_TIME_LIMIT"] = limit
    assert confirm.status_code == 400
    sealed = re.search(r'name="sealed" value="([^"]+)"', confirm.get_data(as_text=True)).group(1)
    _, payload = URLSafeSerializer(app.config["SECRET_KEY"], salt="sealed-noisy-answers").loads_unsafe(sealed)
    token = csrf_token_in(confirm.get_data(as_text=True))
    assert late.post("/s/quiz", data={"csrf_token": token, "sealed": sealed}).status_code == 200
    return thanks.get_data(as_text=True), confirm.get_data(as_text=True) + json.dumps(payload)


def test_no_page_export_log_or_table_holds_a_true_answer(app, tmp_path, monkeypatch, caplog):
    for name in ["", *logging.root.manager.loggerDict]:
        caplog.set_level(logging.DEBUG, logger=name or None)
    stored = force_noise(monkeypatch)
    db = open_database(app)
    accounts.create_admin(db, ADMIN_NAME, ADMIN_PASSWORD)
    db.close()

    thanks, confirm = answer_through_every_path(app, TRUTH)
    shown = stored_list(thanks)
    assert shown == {
        "Have you ever cheated on an exam?": "Yes",
        "Have you lied to a professor?": "No",  # labels, as shown
        "How often have you used AI-written text as your own?": "often",
        "Year of study": "third",
    }
    assert "sometimes" not in thanks and "sometimes" not in confirm

    client = app.test_client()
    assert AdminSession(client, app).login().status_code == 302
    outputs = admin_outputs(app, client)
    responses = list(
        csv.DictReader(io.StringIO(client.get("/admin/surveys/quiz/responses.csv").get_data(as_text=True)))
    )
    assert [{q: row[q] for q in stored} for row in responses] == [stored, stored]
    rows = client.get("/admin/surveys/quiz/estimates.json").get_json()["rows"]
    counts = {(r["question"], r["option"]): r["yes_count"] for r in rows}
    assert counts[("ai_use", "sometimes")] == 0 and counts[("ai_use", "often")] == 2
    assert counts[("cheated", "")] == 2 and counts[("lied", "")] == 0

    tables = dump(app)
    assert "sometimes" not in repr(tables["responses"])
    assert "sometimes" not in [answer for _, _, _, answer, _ in tables["tallies"]]
    assert "sometimes" not in caplog.text

    # A twin app whose respondents told a different truth but drew the same noise
    # shows exactly the same admin pages and exports: the truth leaves no trace.
    twin_dir = tmp_path / "twin"
    twin_dir.mkdir()
    (twin_dir / "quiz.yaml").write_text(QUIZ_YAML)
    twin = create_app(
        {
            **{k: app.config[k] for k in ("TESTING", "SECRET_KEY", "RATELIMIT_SUBMISSIONS")},
            "DATABASE": str(tmp_path / "twin.sqlite3"),
            "SURVEYS_DIR": str(twin_dir),
        }
    )
    db = connection.connect(twin.config["DATABASE"])
    accounts.create_admin(db, ADMIN_NAME, ADMIN_PASSWORD)
    db.close()
    twin_thanks, _ = answer_through_every_path(
        twin, {"cheated": "yes", "lied": "no", "ai_use": "never", "year": "third"}
    )
    assert stored_list(twin_thanks) == shown
    twin_client = twin.test_client()
    AdminSession(twin_client, twin).login()
    assert admin_outputs(twin, twin_client) == outputs
