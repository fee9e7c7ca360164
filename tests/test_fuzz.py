"""Fuzzing the respondent and admin endpoints with Hypothesis.

The property, for every request: the answer is never a 5xx; valid input
gets its normal answer (200 or a redirect); anything else is a 4xx whose
page says why in words; and a refused request leaves every table of the
database exactly as it was.

Each test builds one app (this module's ``app`` fixture, on each backend in turn) and runs
its Hypothesis examples against it, with a fresh test client per example
where cookies matter, comparing a dump of the database before and after
each request. ``RR_FUZZ_EXAMPLES`` raises the number of examples for a
deeper local run; the default keeps the file to a few seconds and, with
``derandomize``, the same on every run.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections import Counter
from urllib.parse import quote, urlsplit

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from werkzeug.datastructures import MultiDict

from analysis import INTERVAL_METHODS
from storage import accounts, responses
from surveys.files import load_catalog
from surveys.form_fields import CONTROL_FIELDS
from surveys.submission import noisy_response
from tests.helpers.drivers import ADMIN_NAME, ADMIN_PASSWORD, AdminSession, Respondent, csrf_token_in, message_of
from tests.helpers.records import dump_database
from tests.helpers.sample_surveys import QUIZ_YAML, make_survey
from web.db import open_database
from web.forms import INVITATION_CODE, SUBMISSION_KEY, wire_value

pytestmark = pytest.mark.both_backends

FUZZ = settings(
    max_examples=int(os.environ.get("RR_FUZZ_EXAMPLES", "120")),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

QUESTIONS = {
    "cheated": ("yes", "no"),
    "lied": ("yes", "no"),
    "ai_use": ("never", "once", "sometimes", "often"),
    "year": ("first", "second", "third", "fourth"),
}
QUIZ = make_survey(QUIZ_YAML)


def wire(name: str, choice: str | None) -> str:
    """What the form posts for ``choice`` of question ``name`` (``None``: "No answer")."""
    return wire_value(QUIZ.question(name), choice)


def posted(prefix: str = "", **choices) -> list[tuple[str, str]]:
    """``(field, value)`` pairs as the form posts ``choices`` (``{question: choice or None}``)."""
    return [(prefix + name, wire(name, choice)) for name, choice in choices.items()]


#: The values the form can post for each question: its padded choices, and "No answer" for the optional one.
WIRE = {
    name: [wire(name, c) for c in choices] + ([wire(name, None)] if name == "lied" else [])
    for name, choices in QUESTIONS.items()
}

# --------------------------------------------------------------------------
# An app, a dump of its database, the "refused with a message" check.


@pytest.fixture
def app(make_app):
    """An app on the test's backend (a temporary SQLite file, or the session's emptied PostgreSQL
    database) serving the quiz, with one admin account (hashed cheaply, as every test's: sign-in is fuzzed,
    not the hash)."""
    app = make_app(
        {
            "SECRET_KEY": "fuzz-secret-key",
            "RATELIMIT_SUBMISSIONS": "1000000/600",
            "RATELIMIT_SIGNINS": "1000000/600",
        }
    )
    db = open_database(app)
    accounts.create_admin(db, ADMIN_NAME, ADMIN_PASSWORD)
    db.close()
    return app


@pytest.fixture
def snapshot(app):
    """``snapshot()``: every row of the app's database (:func:`tests.helpers.records.dump_database`), read through one
    connection kept for the test: the examples dump before and after every request."""
    db = open_database(app)
    yield lambda: dump_database(db)
    db.close()


def without_admin_sessions(tables: dict) -> dict:
    """A dump without the admin sessions and the audit log: a right password starts a session, and every
    sign-in, right or wrong, is written in the audit log (:func:`sign_in_entries_only` checks those entries;
    failures are counted in the rate-limit file)."""
    return {table: rows for table, rows in tables.items() if table not in ("admin_sessions", "audit_log")}


def outside_the_logs(tables: dict) -> dict:
    """A dump without the audit log and the events: a download is written in both (who, which file; never what
    was in it), and nothing else changes."""
    return {table: rows for table, rows in tables.items() if table not in ("audit_log", "events")}


def sign_in_entries_only(before: dict, after: dict) -> None:
    """The audit log gained nothing but sign-in entries, with no password in them."""
    added = set(after.get("audit_log", ())) - set(before.get("audit_log", ()))
    assert {row[3] for row in added} <= {"sign-in", "sign-in-failed"}, added
    assert not any(ADMIN_PASSWORD in str(row) for row in added), added


def assert_refused(response, before: dict, after: dict) -> None:
    """A 4xx, a readable sentence saying why, and nothing written."""
    body = response.get_data(as_text=True)
    assert 400 <= response.status_code < 500, (response.status_code, body[:3000])
    assert re.search(r"\w{3,}", message_of(response)), (response.status_code, body[:3000])
    assert after == before, "a refused request changed the database"


def merged_slashes(response) -> bool:
    """Werkzeug's ``merge_slashes``: an id with a "/" at either end (sent as %2F) makes
    "//" in the path, answered with a 308 to the same path with one slash, on this site (a path)."""
    return (
        response.status_code == 308
        and response.headers["Location"].startswith("/")
        and not urlsplit(response.headers["Location"]).netloc
    )


def seed_responses(app, count: int = 8) -> None:
    """Noisy answers stored directly, so the results pages have numbers to show."""
    survey = load_catalog(app.config["SURVEYS_DIR"]).get("quiz")
    db = open_database(app)
    for i in range(count):
        answers = {
            "cheated": ("yes", "no", "no")[i % 3],
            "ai_use": QUESTIONS["ai_use"][i % 4],
            "year": ("first", "second")[i % 2],
            **({"lied": "no"} if i % 3 else {}),
        }
        responses.store_response(db, noisy_response(survey, answers, "device"), f"fuzz-seed-{i:08d}", "2026-11-22")
    db.close()


# --------------------------------------------------------------------------
# Strategies: odd text, odd keys, fields absent, once or repeated.

ODD_STRINGS = [
    "",
    " ",
    "\x00",
    "yes\x00",
    "\x00yes",
    "\u202eon\u202c",
    "\u200fno\u200e",
    "\u200b",
    "\ufeffyes",
    "\uffff",
    "\t",
    "\n",
    "\u3000",
    "\u00a0",
    "\U0010ffff",
    "😀",
    "👩‍👩‍👧‍👦",
    "y\u0435s",
    "YES",
    "Yes",
    "yes ",
    " no",
    "ｏｆｔｅｎ",
    "ǅ",
    "ß",
    "<script>alert(1)</script>",
    "\"'><img src=x>",
    "' OR 1=1 --",
    "%00",
    "%s%n%x",
    "{{7*7}}",
    "${x}",
    "../../etc/passwd",
    "\\\\server\\share",
    "\r\nSet-Cookie: x=1",
    "nan",
    "inf",
    "-inf",
    "1e309",
    "-0",
    "0x10",
    "9" * 400,
    "[]",
    "{}",
    "null",
    "true",
    "device",
    "server",
    "rr-cheated",
]
ODD_CHARS = st.characters(codec="utf-8", exclude_categories=("Cs",))
short_text = st.one_of(st.sampled_from(ODD_STRINGS), st.text(ODD_CHARS, max_size=30))
#: Long values by repetition, up to ~100 KB: the top end is over MAX_CONTENT_LENGTH (64 KiB).
long_text = st.builds(
    lambda s, n: s * n,
    st.sampled_from(["a", "é", "😀", "\x00", "\u202e", "yes"]),
    st.sampled_from([1000, 5000, 20000, 25000]),
)
odd_text = st.one_of(short_text, short_text, short_text, long_text)
#: In a URL, "long" stops at a few KB, as in front of any real server.
url_text = st.one_of(
    short_text,
    short_text,
    short_text,
    st.builds(lambda s, n: s * n, st.sampled_from(["a", "é", "😀", "\x00"]), st.sampled_from([300, 2000])),
)
odd_key = st.one_of(
    st.sampled_from(
        [
            "salary",
            "rr-",
            "rr-rr-cheated",
            "RR-cheated",
            "cheated ",
            "csrf_token\x00",
            "a[]",
            "__proto__",
            "ai_use[]",
            "x" * 2000,
            "\x00",
            "",
        ]
    ),
    st.text(ODD_CHARS, min_size=1, max_size=20),
)

#: Placeholders, replaced in the test by the real values of the example's session.
CSRF, KEY, SEALED, SEALED_TAMPERED, FILE = "<<csrf>>", "<<key>>", "<<sealed>>", "<<sealed-tampered>>", "<<file>>"
#: The placeholders' controls, and valid answers as the form posts them.
CONTROLS = [("csrf_token", CSRF), ("submission_key", KEY)]
VALID = posted(cheated="no", ai_use="once", year="first", lied=None)


def field(name: str, values: st.SearchStrategy) -> st.SearchStrategy:
    """``name`` absent, once or repeated, with values drawn from ``values``."""
    return st.lists(values, max_size=3).map(lambda vs: [(name, v) for v in vs])


def mostly(usual, unusual) -> st.SearchStrategy:
    """``usual`` three times in four, else ``unusual``: most examples stay near the valid path."""
    return st.sampled_from([True, True, True, False]).flatmap(lambda ok: usual if ok else unusual)


def csrf_field(valid: str = CSRF) -> st.SearchStrategy:
    """The session's token; sometimes missing, junk or sent twice."""
    return mostly(
        st.just([("csrf_token", valid)]),
        st.sampled_from([[], [("csrf_token", valid)] * 2]) | field("csrf_token", short_text),
    )


def junk_fields(values: st.SearchStrategy = odd_text) -> st.SearchStrategy:
    """Usually none; else one or two fields of this app's no form."""
    return mostly(st.just([]), st.lists(st.tuples(odd_key, values), min_size=1, max_size=2))


@st.composite
def submission_forms(draw) -> list[tuple[str, str]]:
    """A submission as (key, value) pairs: mostly near-valid, with faults mixed in."""
    path = draw(st.sampled_from(["device", "server", "server-implicit", "junk-path", "sealed"]))
    prefix = "rr-" if path == "device" or (path == "junk-path" and draw(st.booleans())) else ""
    pairs = draw(csrf_field()) + draw(mostly(st.just([("submission_key", KEY)]), field("submission_key", short_text)))
    if path in ("device", "server"):
        pairs.append(("randomized_on", path))
    elif path == "junk-path":
        pairs += draw(field("randomized_on", odd_text))
    elif path == "sealed":
        pairs += draw(field("sealed", st.sampled_from([SEALED, SEALED_TAMPERED]) | short_text))
    for name, choices in QUESTIONS.items():
        good = [(prefix + name, draw(st.sampled_from(WIRE[name])))]
        bad = field(
            draw(st.sampled_from([prefix + name, name, "rr-" + name])),
            st.sampled_from(WIRE[name] + list(choices)) | odd_text,
        )
        pairs += draw(mostly(st.just(good), bad))
    pairs += draw(junk_fields())
    pairs += draw(mostly(st.just([]), field("invitation_code", short_text)))
    pairs += draw(mostly(st.just([]), st.sampled_from([[("upload", FILE)], [("cheated", FILE)], [("sealed", FILE)]])))
    return draw(st.permutations(pairs))


def acceptable(pairs) -> bool:
    """The test's own reading of the rules: should this submission be accepted (stored,
    or thanked again for a repeated submission key)?"""
    form = MultiDict(pairs)
    keys = [key for key, _ in pairs]
    if any(value == FILE for _, value in pairs) or form.get("csrf_token") != CSRF:
        return False
    if "sealed" in form:
        return form["sealed"] == SEALED  # the sealed answers were checked when they were sealed
    randomized_on = form.get("randomized_on", "server")
    if len(set(keys)) < len(keys) or randomized_on not in ("device", "server"):
        return False
    prefix = "rr-" if randomized_on == "device" else ""
    if not set(keys) <= {prefix + name for name in QUESTIONS} | CONTROL_FIELDS:
        return False
    key, code = form.get("submission_key", ""), form.get("invitation_code", "")
    if not ((key == KEY or SUBMISSION_KEY.match(key)) and (not code.strip() or INVITATION_CODE.match(code))):
        return False
    return all(form.get(prefix + name) in WIRE[name] for name in QUESTIONS)


def resolve(pairs, tokens: dict) -> MultiDict:
    return MultiDict([(k, tokens.get(v, v)) for k, v in pairs])


# --------------------------------------------------------------------------
# Respondent pages.


def sealed_tokens(app) -> dict:
    """A genuine sealed token from the confirm page (reached with this browser's own
    token made already expired by a negative time limit), and a tampered copy."""
    respondent = Respondent(app.test_client())
    controls = respondent.open_form()
    limit, app.config["WTF_CSRF_TIME_LIMIT"] = app.config["WTF_CSRF_TIME_LIMIT"], -1
    try:
        page = respondent.submit({"cheated": "no", "ai_use": "once", "year": "first"}, controls=controls)
    finally:
        app.config["WTF_CSRF_TIME_LIMIT"] = limit
    assert page.status_code == 400
    token = re.search(r'name="sealed" value="([^"]+)"', page.get_data(as_text=True)).group(1)
    return {SEALED: token, SEALED_TAMPERED: token[:-2] + ("AA" if token[-2:] != "AA" else "BB")}


def test_submissions_are_stored_or_refused_with_a_message(app, snapshot):
    sealed = sealed_tokens(app)
    seen = Counter()

    @FUZZ
    @given(pairs=submission_forms())
    @example(pairs=[*CONTROLS, *VALID])
    @example(pairs=[*CONTROLS, *posted(cheated="no", ai_use="once", year="first")])  # the optional one left out
    @example(
        pairs=[
            *CONTROLS,
            ("randomized_on", "device"),
            *posted("rr-", cheated="yes", ai_use="often", year="first", lied="no"),
        ]
    )
    @example(pairs=[("csrf_token", CSRF), ("sealed", SEALED)])
    @example(pairs=[*CONTROLS, *posted(cheated="no", ai_use="once", year="first"), ("lied", " ")])
    @example(
        pairs=[
            *CONTROLS,
            ("randomized_on", "device"),
            *posted("rr-", cheated="no", ai_use="once", year="first"),
            ("rr-lied", "\u3000"),
        ]
    )
    @example(pairs=[*CONTROLS, ("cheated", "no"), ("ai_use", "once"), ("year", "first"), ("lied", "")])  # unpadded
    @example(pairs=[*CONTROLS, *VALID, ("upload", FILE)])
    @example(pairs=[("csrf_token", CSRF), ("sealed", SEALED_TAMPERED)])
    @example(pairs=[("submission_key", KEY), *VALID])
    @example(pairs=[*CONTROLS, *VALID, ("cheated", wire("cheated", "yes"))])
    @example(pairs=[*CONTROLS, *VALID, ("note", "x" * 70000)])
    def check(pairs):
        client = app.test_client()
        controls = Respondent(client).open_form()
        tokens = {
            CSRF: controls["csrf_token"],
            KEY: controls["submission_key"],
            **sealed,
            FILE: (io.BytesIO(b"yes"), "answers.txt"),
        }
        before = snapshot()
        response = client.post("/s/quiz", data=resolve(pairs, tokens))
        after = snapshot()
        seen[response.status_code] += 1
        if acceptable(pairs):  # 413: junk beside a sealed token can make the body too large
            assert response.status_code in (200, 413), (response.status_code, message_of(response))
        if response.status_code != 200:
            assert_refused(response, before, after)
            return
        assert acceptable(pairs), "accepted a submission that breaks the rules"
        assert "Thank you" in response.get_data(as_text=True)
        assert len(after["responses"]) - len(before["responses"]) in (0, 1)  # 0: a repeated submission key
        for row in after["responses"]:
            answers = json.loads(row[6])  # id, survey_id, version, design_id, randomized_on, day, answers, ...
            assert all(value in QUESTIONS[name] for name, value in answers.items()), answers

    check()
    assert {200, 400, 413} <= set(seen)  # the examples reached both the stored and the refused paths


def test_raw_bodies_are_refused_with_a_message(app, snapshot):
    content_types = [
        "application/x-www-form-urlencoded",
        "multipart/form-data",
        "multipart/form-data; boundary=x",
        "application/json",
        "text/plain",
        "",
        "application/x-www-form-urlencoded; charset=latin-1",
    ]
    seen = Counter()

    @FUZZ
    @given(
        body=st.binary(max_size=2000) | st.text(ODD_CHARS, max_size=300).map(str.encode),
        content_type=st.sampled_from(content_types),
    )
    @example(body=b"csrf_token=%ff%fe&cheated=%00&cheated=yes", content_type=content_types[0])
    @example(body=b'{"cheated": "yes"}', content_type="application/json")
    def check(body, content_type):
        client = app.test_client()
        Respondent(client).open_form()
        before = snapshot()
        response = client.post("/s/quiz", data=body, content_type=content_type)
        seen[response.status_code] += 1
        assert_refused(response, before, snapshot())

    check()
    assert set(seen) == {400, 415}  # 415: not a form at all


def test_any_survey_id_or_query_string_is_answered_without_error(app, snapshot):
    seen = Counter()

    @FUZZ
    @given(
        survey_id=mostly(st.just("quiz"), url_text | st.sampled_from(["QUIZ", "quiz ", "quiz/x", "..", ""])),
        query=st.lists(st.tuples(st.sampled_from(["code", "next"]) | odd_key, url_text), max_size=3),
        method=st.sampled_from(["GET", "GET", "POST", "HEAD", "PUT"]),
    )
    @example(survey_id="quiz", query=[("code", "<script>alert(1)</script>")], method="GET")
    @example(survey_id="\x00", query=[], method="GET")
    def check(survey_id, query, method):
        before = snapshot()
        response = app.test_client().open(f"/s/{quote(survey_id, safe='')}", method=method, query_string=query)
        seen[response.status_code] += 1
        if response.status_code == 200:
            assert survey_id == "quiz" and method in ("GET", "HEAD")
            assert "<script>alert" not in response.get_data(as_text=True)  # query values are escaped
            assert snapshot() == before
        elif merged_slashes(response):
            assert "/" in survey_id and snapshot() == before
        elif method != "HEAD":
            assert_refused(response, before, snapshot())
        else:
            assert 400 <= response.status_code < 500

    check()
    assert {200, 404, 405} <= set(seen)


# --------------------------------------------------------------------------
# Admin pages.

QUERY_VALUES = {
    "method": [*INTERVAL_METHODS, "", "WILSON", "agresti-coull", "wilson\x00"],
    "level": [
        "0.8",
        "0.9",
        "0.95",
        "0.99",
        "0.5",
        "0.999999999",
        "1",
        "0",
        "-0.95",
        "nan",
        "inf",
        "-inf",
        "1e-400",
        "1e400",
        "95%",
        "0,95",
        "٠.٩٥",
        " 0.95 ",
        "0.95e0",
        "0x1p-1",
        "",
        "9" * 400,
    ],
    "half_width": ["0.05", "0.01", "0.4999", "0.5", "0", "-0.05", "1e-300", "5e-324", "1e-12", "nan", "inf", ""],
    "by": ["year", "cheated", "ai_use", "lied", "", "nope", "year\x00"],
    "first": ["first", "second", "third", "none", "", "None"],
    "second": ["first", "second", "fourth", "", "null"],
    "next": ["/admin/", "//evil.example", "https://evil.example/admin", "/admin\r\nX-Injected: 1"],
}
admin_query = st.lists(
    mostly(
        st.sampled_from(sorted(QUERY_VALUES)).flatmap(
            lambda key: st.tuples(st.just(key), mostly(st.sampled_from(QUERY_VALUES[key]), url_text))
        ),
        st.tuples(odd_key, url_text),
    ),
    max_size=5,
)
ADMIN_GETS = [
    "/admin/",
    "/admin/surveys/{}",
    "/admin/surveys/{}/estimates.json",
    "/admin/surveys/{}/estimates.csv",
    "/admin/surveys/{}/responses.csv",
    "/admin/surveys/{}/codebook.json",
]


def is_export(path: str) -> bool:
    return path.endswith((".csv", ".json"))


def check_export_body(path: str, response) -> None:
    body = response.get_data(as_text=True)
    if path.endswith(".json"):
        json.loads(body)
    else:
        rows = list(csv.reader(io.StringIO(body)))
        assert rows and all(len(row) == len(rows[0]) for row in rows)


def test_admin_pages_and_exports_take_any_query_string(app, snapshot):
    seed_responses(app)
    signed_in = app.test_client()
    assert AdminSession(signed_in, app).login().status_code == 302
    anonymous = app.test_client()
    seen = Counter()

    @FUZZ
    @given(
        template=st.sampled_from(ADMIN_GETS),
        survey_id=mostly(st.just("quiz"), url_text),
        query=admin_query,
        admin=mostly(st.just(True), st.just(False)),
    )
    @example(template="/admin/surveys/{}", survey_id="quiz", query=[("half_width", "1e-300")], admin=True)
    @example(template="/admin/surveys/{}", survey_id="quiz", query=[("half_width", "5e-324")], admin=True)
    @example(template="/admin/surveys/{}", survey_id="quiz", query=[("level", "0.999999999")], admin=True)
    @example(
        template="/admin/surveys/{}",
        survey_id="quiz",
        query=[("by", "year"), ("first", "first"), ("second", "first")],
        admin=True,
    )
    @example(
        template="/admin/surveys/{}/estimates.csv",
        survey_id="quiz",
        query=[("method", "wald"), ("level", "0.5")],
        admin=True,
    )
    def check(template, survey_id, query, admin):
        path = template.format(quote(survey_id, safe=""))
        before = snapshot()
        response = (signed_in if admin else anonymous).get(path, query_string=query)
        status = response.status_code
        seen[status, admin] += 1
        if status == 200:
            assert admin
            if is_export(path):
                check_export_body(path, response)
            after = snapshot()
            assert outside_the_logs(after) == outside_the_logs(before)
            added = set(after["audit_log"]) - set(before["audit_log"])
            assert {row[3] for row in added} <= ({"export"} if is_export(path) else set()), added
        elif status == 302:
            assert not admin and not is_export(path)
            assert urlsplit(response.headers["Location"]).path == "/admin/login"
            assert snapshot() == before
        elif merged_slashes(response):
            assert survey_id == "" or "/" in survey_id
        else:
            assert_refused(response, before, snapshot())
            assert admin or status in (401, 404), status

    check()
    assert {(200, True), (400, True), (404, True), (302, False), (401, False)} <= set(seen)


def test_state_changes_are_made_only_with_a_valid_form(app, snapshot):
    signed_in = app.test_client()
    auth = AdminSession(signed_in, app)
    auth.login()
    tokens = {True: auth.csrf_token("/admin/")}
    anonymous = app.test_client()
    tokens[False] = csrf_token_in(anonymous.get("/admin/login").get_data(as_text=True))
    seen = Counter()

    @FUZZ
    @given(
        admin=mostly(st.just(True), st.just(False)),
        survey_id=mostly(st.just("quiz"), url_text),
        pairs=st.tuples(
            csrf_field(),
            mostly(st.sampled_from([[("state", "open")], [("state", "closed")]]), field("state", short_text)),
            mostly(st.just([]), field("next", st.sampled_from(QUERY_VALUES["next"]) | short_text)),
            junk_fields(),
        ).map(lambda t: sum(t, [])),
    )
    @example(admin=True, survey_id="quiz", pairs=[("csrf_token", CSRF), ("state", "closed")])
    @example(
        admin=True,
        survey_id="quiz",
        pairs=[("csrf_token", CSRF), ("state", "open"), ("next", "/admin\r\nX-Injected: 1")],
    )
    @example(admin=False, survey_id="quiz", pairs=[("csrf_token", CSRF), ("state", "closed")])
    @example(admin=False, survey_id="quiz", pairs=[("state", "closed")])  # the (400, False) below, whatever is drawn
    @example(admin=True, survey_id="/quiz", pairs=[("csrf_token", CSRF), ("state", "closed")])
    def check(admin, survey_id, pairs):
        data = resolve(pairs, {CSRF: tokens[admin]})
        before = snapshot()
        response = (signed_in if admin else anonymous).post(
            f"/admin/surveys/{quote(survey_id, safe='')}/state", data=data
        )
        after = snapshot()
        seen[response.status_code, admin] += 1
        valid = (
            admin
            and survey_id == "quiz"
            and data.get("csrf_token") == tokens[True]
            and data.get("state") in ("open", "closed")
        )
        if response.status_code == 302:
            assert valid, data
            location = urlsplit(response.headers["Location"])
            assert not location.netloc and location.path.startswith("/admin")
            changed = ("survey_states", "audit_log")  # the state, and who changed it (storage/audit.py)
            assert {k: v for k, v in after.items() if k not in changed} == {
                k: v for k, v in before.items() if k not in changed
            }
            assert after["survey_states"] == [("quiz", int(data.get("state") == "closed"))]
            added = set(after["audit_log"]) - set(before["audit_log"])
            assert [row[3:] for row in added] == [
                ("survey-state", "quiz", "opened" if data.get("state") == "open" else "closed")
            ]
        elif merged_slashes(response):
            assert "/" in survey_id and after == before
        else:
            assert not valid or response.status_code == 413, response.status_code  # 413: body over 64 KiB
            assert_refused(response, before, after)

    check()
    assert {(302, True), (400, True), (400, False), (401, False)} <= set(seen)


def test_sign_in_takes_any_junk(app, snapshot):
    seen = Counter()

    @FUZZ
    @given(
        pairs=st.tuples(
            csrf_field(),
            mostly(
                st.just([("name", ADMIN_NAME)]),
                field("name", st.sampled_from([ADMIN_NAME.upper(), "nobody", "x" * 65]) | odd_text),
            ),
            mostly(
                st.just([("password", ADMIN_PASSWORD)]),
                field("password", st.sampled_from([ADMIN_PASSWORD + " ", "x" * 1025]) | odd_text),
            ),
            junk_fields(short_text),
        ).map(lambda t: sum(t, [])),
        next_=mostly(st.none(), st.sampled_from(QUERY_VALUES["next"]) | url_text),
    )
    @example(
        pairs=[("csrf_token", CSRF), ("name", ADMIN_NAME), ("password", ADMIN_PASSWORD)],
        next_="/admin\r\nX-Injected: 1",
    )
    @example(
        pairs=[("csrf_token", CSRF), ("name", ADMIN_NAME), ("password", ADMIN_PASSWORD)],
        next_="//evil.example/admin",
    )
    @example(pairs=[("csrf_token", CSRF), ("name", "\x00"), ("password", "\x00" * 20)], next_=None)
    def check(pairs, next_):
        client = app.test_client()
        token = csrf_token_in(client.get("/admin/login").get_data(as_text=True))
        data = resolve(pairs, {CSRF: token})
        before = snapshot()
        response = client.post("/admin/login", data=data, query_string={"next": next_} if next_ else None)
        after = snapshot()
        seen[response.status_code] += 1
        right = (
            data.get("csrf_token") == token
            and data.get("name") == ADMIN_NAME
            and data.get("password") == ADMIN_PASSWORD
        )
        if response.status_code == 302:
            assert right, data
            location = urlsplit(response.headers["Location"])
            assert not location.netloc and location.path.startswith("/admin")
            assert "\n" not in response.headers["Location"] and "X-Injected" not in response.headers
            assert without_admin_sessions(after) == without_admin_sessions(before)
        else:
            assert not right or response.status_code in (413, 429), response.status_code
            assert_refused(response, without_admin_sessions(before), without_admin_sessions(after))
        sign_in_entries_only(before, after)

    check()
    assert {302, 400, 401} <= set(seen)
