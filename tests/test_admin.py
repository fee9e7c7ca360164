"""Request tests of the admin pages and exports: signed out, signed in, 0/1/many responses."""

from __future__ import annotations

import csv
import io
import json
import math
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis import INTERVAL_METHODS, estimate_multiple_choice, estimate_proportion
from storage import connection, responses
from surveys.files import load_catalog
from surveys.submission import noisy_response
from tests.conftest import ADMIN_NAME, ADMIN_PASSWORD
from web.options import MAX_CONFIDENCE_LEVEL

PAGES = [
    "/admin/",
    "/admin/surveys/quiz",
    "/admin/surveys/quiz?by=year",
]
EXPORTS = [
    "/admin/surveys/quiz/estimates.json",
    "/admin/surveys/quiz/estimates.csv",
    "/admin/surveys/quiz/responses.csv",
    "/admin/surveys/quiz/codebook.json",
]


def add_responses(app, answers_list, randomized_on="device"):
    """Store noisy answers directly, as the submission path would."""
    survey = load_catalog(app.config["SURVEYS_DIR"]).get("quiz")
    db = connection.connect(app.config["DATABASE"])
    for i, answers in enumerate(answers_list):
        key = f"seed-{i:08d}-{len(answers_list):06d}"
        responses.store_response(db, noisy_response(survey, answers, randomized_on), key, "2026-11-22")
    db.close()


def many(n_yes: int, n_no: int):
    years = ["first", "second"]
    return [
        {"cheated": "yes" if i < n_yes else "no", "ai_use": ["never", "once", "sometimes", "often"][i % 4],
         "year": years[i % 2]}
        for i in range(n_yes + n_no)
    ]


@pytest.mark.parametrize("path", PAGES)
def test_pages_redirect_to_sign_in_when_signed_out(client, path):
    response = client.get(path)
    assert response.status_code == 302
    assert "/admin/login" in response.headers["Location"]


@pytest.mark.parametrize("path", EXPORTS)
def test_exports_answer_401_when_signed_out(client, path):
    response = client.get(path)
    assert response.status_code == 401
    assert "Sign in" in response.get_data(as_text=True)


def test_state_change_refuses_anonymous_posts(client, db):
    response = client.post("/admin/surveys/quiz/state", data={"state": "closed"})
    assert response.status_code in (400, 401)
    assert responses.closed_override(db, "quiz") is None


def test_sign_in_wrong_password(auth):
    response = auth.login(password="not the password")
    assert response.status_code == 401
    assert "Wrong account name or password" in response.get_data(as_text=True)
    assert auth.client.get("/admin/").status_code == 302


def test_sign_in_without_csrf_is_refused(client, admin_account):
    response = client.post("/admin/login", data={"name": ADMIN_NAME, "password": ADMIN_PASSWORD})
    assert response.status_code == 400
    assert client.get("/admin/").status_code == 302


def test_sign_in_is_throttled_per_account(auth):
    for _ in range(5):
        assert auth.login(password="wrong wrong wrong").status_code == 401
    locked = auth.login()  # the right password, but the account is locked
    assert locked.status_code == 429
    assert "Too many failed sign-ins" in locked.get_data(as_text=True)
    assert int(locked.headers["Retry-After"]) > 0


def test_sign_in_gives_a_fresh_session_and_sign_out_ends_it(auth):
    auth.client.get("/s/quiz")  # a respondent session (CSRF token) before sign-in
    before = auth.client.get_cookie("session").value
    response = auth.login()
    assert response.status_code == 302 and response.headers["Location"].endswith("/admin/")
    after = auth.client.get_cookie("session")
    assert after is None or after.value != before  # the CSRF session from before sign-in is gone
    cookie = auth.client.get_cookie("rr_admin", path="/admin")
    assert cookie.http_only and cookie.same_site == "Strict"
    assert auth.client.get("/admin/").status_code == 200
    auth.logout()
    assert auth.client.get("/admin/").status_code == 302


def test_sign_in_only_redirects_within_admin(auth):
    token = auth.csrf_token()
    response = auth.client.post("/admin/login?next=https://evil.example/", data={
        "csrf_token": token, "name": ADMIN_NAME, "password": ADMIN_PASSWORD})
    assert response.headers["Location"].endswith("/admin/")


@pytest.mark.parametrize("count", [0, 1, 60])
def test_every_page_and_export_works_signed_in(app, auth, count):
    add_responses(app, many(count // 2, count - count // 2))
    auth.login()
    for path in PAGES + EXPORTS:
        response = auth.client.get(path)
        assert response.status_code == 200, (path, response.get_data(as_text=True)[:500])
        assert response.headers["Cache-Control"] == "no-store"


def test_dashboard_shows_state_counts_epsilon_and_broken_files(app, auth, surveys_dir):
    (surveys_dir / "broken.yaml").write_text("id: broken\ntitle: B\nversion: 1\nquestions: []\n")
    add_responses(app, many(3, 2))
    auth.login()
    html = auth.client.get("/admin/").get_data(as_text=True)
    assert "Test quiz" in html and ">open<" in html and "<td>5</td>" in html
    assert "4.32" in html  # ln 3 + 2 ln 5 = ln 75 = 4.317
    assert "broken.yaml" in html and "Broken survey files" in html
    assert "<svg" in html


def test_estimates_export_equals_the_analysis_package(app, auth):
    add_responses(app, many(30, 20))
    auth.login()
    data = auth.client.get("/admin/surveys/quiz/estimates.json").get_json()
    assert data["survey_id"] == "quiz" and data["version"] == 1 and data["exported_at"]
    assert data["epsilon_per_respondent"]["basic"] == pytest.approx(math.log(75))
    rows = {(r["question"], r["option"] or None): r for r in data["rows"]}
    expected = estimate_proportion(30, 50)  # two coins
    cheated = rows[("cheated", None)]
    assert cheated["n"] == 50 and cheated["yes_count"] == 30
    assert cheated["estimate_raw"] == pytest.approx(expected.estimate_raw, abs=0, rel=1e-12)
    assert cheated["std_err"] == pytest.approx(expected.std_err, rel=1e-12)
    ci = expected.confidence_interval(0.95, "wilson")
    assert (cheated["ci_low"], cheated["ci_high"]) == pytest.approx((ci.low, ci.high), rel=1e-12)
    counts = [13, 13, 12, 12]  # i % 4 over 50 answers
    mc = estimate_multiple_choice(counts, 0.5)
    for option, projected in zip(["never", "once", "sometimes", "often"], mc.estimate_projected):
        assert rows[("ai_use", option)]["estimate_clipped"] == pytest.approx(projected, rel=1e-12)


def test_interval_method_and_level_are_selectable(app, auth):
    add_responses(app, many(30, 20))
    auth.login()
    data = auth.client.get("/admin/surveys/quiz/estimates.json?method=clopper-pearson&level=0.9").get_json()
    cheated = next(r for r in data["rows"] if r["question"] == "cheated")
    ci = estimate_proportion(30, 50).confidence_interval(0.9, "clopper-pearson")
    assert cheated["ci_method"] == "clopper-pearson" and cheated["confidence_level"] == 0.9
    assert (cheated["ci_low"], cheated["ci_high"]) == pytest.approx((ci.low, ci.high), rel=1e-12)


@pytest.mark.parametrize("query, message", [
    ("method=bayes", "Unknown interval method"),
    ("level=2", "confidence level"),
    ("level=abc", "confidence level"),
    ("by=cheated", "not a non-randomized question"),
    ("half_width=0", "half-width"),
])
def test_bad_options_are_400_with_a_message(app, auth, query, message):
    auth.login()
    response = auth.client.get(f"/admin/surveys/quiz?{query}")
    assert response.status_code == 400
    assert message in response.get_data(as_text=True)


OPTION_ROUTES = [
    "/admin/surveys/quiz?",
    "/admin/surveys/quiz?by=year&",
    "/admin/surveys/quiz/estimates.json?",
    "/admin/surveys/quiz/estimates.csv?",
]
BAD_NUMBERS = ["nan", "inf", "-inf", "1e-400", "1e400", "0.9999999999999999", "abc", "", "0x1p-1"]


@pytest.mark.parametrize("route", OPTION_ROUTES)
@pytest.mark.parametrize("value", BAD_NUMBERS)
def test_bad_confidence_levels_are_400_naming_the_value(app, auth, route, value):
    add_responses(app, many(30, 20))
    auth.login()
    for method in INTERVAL_METHODS:
        response = auth.client.get(f"{route}method={method}&level={value}")
        assert response.status_code == 400, (route, method, value)
        assert "confidence level must be" in response.get_data(as_text=True)
        assert f"got “{value}”" in response.get_data(as_text=True)


@pytest.mark.parametrize("value", [*BAD_NUMBERS, "0.5", "0.0001"])
def test_bad_half_widths_are_400_naming_the_value(app, auth, value):
    add_responses(app, many(30, 20))
    auth.login()
    response = auth.client.get(f"/admin/surveys/quiz?half_width={value}")
    assert response.status_code == 400
    assert "half-width must be" in response.get_data(as_text=True)
    assert f"got “{value}”" in response.get_data(as_text=True)


@pytest.mark.parametrize("route", OPTION_ROUTES)
def test_the_highest_confidence_level_is_computed(app, auth, route):
    add_responses(app, many(30, 20))
    auth.login()
    for method in INTERVAL_METHODS:
        response = auth.client.get(f"{route}method={method}&level={MAX_CONFIDENCE_LEVEL}&half_width=0.001")
        assert response.status_code == 200, (route, method)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(level=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.floats(0.999999, 1.0)),
       half_width=st.floats(allow_nan=True, allow_infinity=True))
def test_any_float_option_is_200_or_a_400_naming_it(app, auth, level, half_width):
    if not auth.client.get_cookie("session"):
        add_responses(app, many(3, 2))
        auth.login()
    query = {"level": repr(level), "half_width": repr(half_width)}
    response = auth.client.get("/admin/surveys/quiz", query_string=query)
    assert response.status_code in (200, 400)
    if response.status_code == 400:
        body = response.get_data(as_text=True)
        assert f"got “{level!r}”" in body or f"got “{half_width!r}”" in body


def test_estimates_csv_has_a_row_per_question_and_option(app, auth):
    add_responses(app, many(5, 5))
    auth.login()
    text = auth.client.get("/admin/surveys/quiz/estimates.csv").get_data(as_text=True)
    rows = list(csv.DictReader(io.StringIO(text)))
    keys = [(r["question"], r["option"]) for r in rows]
    assert ("cheated", "") in keys and ("lied", "") in keys
    assert [k for k in keys if k[0] == "ai_use"] == [("ai_use", o) for o in ["never", "once", "sometimes", "often"]]


def test_responses_csv_holds_the_noisy_answers(app, auth):
    add_responses(app, many(2, 1))
    auth.login()
    response = auth.client.get("/admin/surveys/quiz/responses.csv")
    assert response.headers["Content-Disposition"].startswith("attachment")
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert sorted(r["cheated"] for r in rows) == ["no", "yes", "yes"]
    assert {r["randomized_on"] for r in rows} == {"device"}
    codebook = auth.client.get("/admin/surveys/quiz/codebook.json").get_json()
    assert "cheated" in json.dumps(codebook)


def test_results_page_shows_numbers_chart_and_sentence(app, auth):
    add_responses(app, many(30, 20))
    auth.login()
    html = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    assert "<svg" in html and 'role="img"' in html
    assert "95% confidence" in html
    assert re.search(r"Between \d+(\.\d)?% and \d+(\.\d)?%", html)
    expected = estimate_proportion(30, 50)
    assert f"{100 * expected.estimate:.1f}%" in html


def test_breakdown_by_a_plain_question(app, auth):
    add_responses(app, many(30, 20))
    auth.login()
    html = auth.client.get("/admin/surveys/quiz?by=year").get_data(as_text=True)
    assert "first" in html and "second" in html and "Difference" in html


def test_close_and_reopen_from_the_admin_page(app, auth, respondent):
    auth.login()
    token = auth.csrf_token("/admin/")
    assert auth.client.post("/admin/surveys/quiz/state", data={"csrf_token": token, "state": "closed"}).status_code == 302
    assert auth.client.get("/s/quiz").status_code == 410
    assert auth.client.get("/admin/surveys/quiz").status_code == 200  # results stay readable
    auth.client.post("/admin/surveys/quiz/state", data={"csrf_token": token, "state": "open"})
    assert auth.client.get("/s/quiz").status_code == 200
