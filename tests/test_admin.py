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

from analysis import (
    INTERVAL_METHODS,
    confidence_sequence,
    difference_sequence,
    estimate_multiple_choice,
    estimate_proportion,
    half_width_for_n,
    option_confidence_sequences,
    sample_size_for_half_width,
    sample_size_for_sequence_half_width,
)
from storage import responses, survey_states
from surveys.files import load_catalog
from surveys.wording import SEQUENCE_NOTE, margin_text, short_percent, table_percent
from tests.helpers.drivers import ADMIN_NAME, ADMIN_PASSWORD, csrf_token_in, wire_form
from tests.helpers.records import add_responses, dump, many, model_answers
from tests.helpers.sample_surveys import K_OPTION_AS_MATRIX, K_OPTION_DESIGN_LINE, QUIZ_YAML, TWO_GROUP_YAML
from web.db import open_database
from web.options import MAX_CONFIDENCE_LEVEL

pytestmark = pytest.mark.both_backends

#: The options' own checks: a bad option is refused before the survey's results are read, so one backend is
#: enough; reading and showing the results on PostgreSQL is what this module's other tests check.
OPTIONS_ONLY = pytest.mark.sqlite_only(
    reason="a bad option is refused before the results are read; reading them runs on both backends elsewhere"
)

PAGES = [
    "/admin/",
    "/admin/surveys/quiz",
    "/admin/surveys/quiz?by=year",
    "/admin/surveys/quiz?model_outcome=cheated&model_predictors=year",
]
EXPORTS = [
    "/admin/surveys/quiz/estimates.json",
    "/admin/surveys/quiz/estimates.csv",
    "/admin/surveys/quiz/responses.csv",
    "/admin/surveys/quiz/codebook.json",
    "/admin/surveys/quiz/breakdown.csv?by=year",
    "/admin/surveys/quiz/breakdown.json?by=year",
    "/admin/surveys/quiz/model.json?model_outcome=cheated&model_predictors=year",
    "/admin/surveys/quiz/model.csv?model_outcome=cheated&model_predictors=year&model_reference=year:second",
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
    assert survey_states.closed_override(db, "quiz") is None


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
    response = auth.client.post(
        "/admin/login?next=https://evil.example/",
        data={"csrf_token": token, "name": ADMIN_NAME, "password": ADMIN_PASSWORD},
    )
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
    assert "Test quiz" in html and ">open<" in html and '<td data-label="Responses">5</td>' in html
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


@OPTIONS_ONLY
@pytest.mark.parametrize(
    "query, message",
    [
        ("method=bayes", "Unknown interval method"),
        ("level=2", "confidence level"),
        ("level=abc", "confidence level"),
        ("by=cheated", "not a non-randomized question"),
        ("half_width=0", "margin of error"),
    ],
)
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


@OPTIONS_ONLY
def test_bad_confidence_levels_are_400_naming_the_value(app, auth, subtests):
    """Every bad level on every route with options, under every interval method: each pair a subtest of its own
    on one signed-in client (a refused GET changes nothing), instead of a test, an app and a sign-in each."""
    add_responses(app, many(30, 20))
    auth.login()
    for route in OPTION_ROUTES:
        for value in BAD_NUMBERS:
            with subtests.test(route=route, value=value):
                for method in INTERVAL_METHODS:
                    response = auth.client.get(f"{route}method={method}&level={value}")
                    assert response.status_code == 400, (route, method, value)
                    assert "confidence level must be" in response.get_data(as_text=True)
                    assert f"got “{value}”" in response.get_data(as_text=True)


@OPTIONS_ONLY
def test_bad_half_widths_are_400_naming_the_value(app, auth, subtests):
    """Every bad margin of error, each a subtest on one signed-in client."""
    add_responses(app, many(30, 20))
    auth.login()
    for value in [*BAD_NUMBERS, "0.5", "0.0001"]:
        with subtests.test(value=value):
            response = auth.client.get(f"/admin/surveys/quiz?half_width={value}")
            assert response.status_code == 400
            assert "margin of error must be" in response.get_data(as_text=True)
            assert f"got “{value}”" in response.get_data(as_text=True)


def test_the_highest_confidence_level_is_computed(app, auth, subtests):
    """The highest level on every route with options, under every method, each route a subtest."""
    add_responses(app, many(30, 20))
    auth.login()
    for route in OPTION_ROUTES:
        with subtests.test(route=route):
            for method in INTERVAL_METHODS:
                response = auth.client.get(f"{route}method={method}&level={MAX_CONFIDENCE_LEVEL}&half_width=0.001")
                assert response.status_code == 200, (route, method)


@OPTIONS_ONLY
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    level=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.floats(0.999999, 1.0)),
    half_width=st.floats(allow_nan=True, allow_infinity=True),
)
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
    add_responses(app, many(120, 80))
    auth.login()
    html = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    assert "<svg" in html and 'role="img"' in html
    expected = estimate_proportion(120, 200)
    ci = expected.confidence_interval()
    assert (
        "Estimated share of true yes answers to “Have you ever cheated on an exam?” in the population "
        f"sampled: {round(expected.estimate * 100)}% (95% confidence interval {round(ci.low * 100)}% to "
        f"{round(ci.high * 100)}%)."
    ) in html
    assert "Estimated shares of true answers to “How often have you used AI-written text as your own?”" in html
    assert f"{100 * expected.estimate:.1f}%" in html


def test_an_interval_wider_than_fifty_points_reads_too_few_answers_to_tell(app, auth):
    add_responses(app, many(30, 20))  # two coins, n = 50: the 95% interval is 42% to 95%
    auth.login()
    html = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    assert (
        "Too few answers to tell: the share of true yes answers to “Have you ever cheated on an exam?” in the "
        "population sampled could be anywhere from 42% to 95% (95% confidence)."
    ) in html
    assert "an interval wider than 50 percentage points (± 25)" in html


def test_breakdown_by_a_plain_question(app, auth):
    add_responses(app, many(30, 20))
    auth.login()
    html = auth.client.get("/admin/surveys/quiz?by=year").get_data(as_text=True)
    assert "first" in html and "second" in html and "Difference" in html


def test_close_and_reopen_from_the_admin_page(app, auth, respondent):
    auth.login()
    token = auth.csrf_token("/admin/")
    assert (
        auth.client.post("/admin/surveys/quiz/state", data={"csrf_token": token, "state": "closed"}).status_code == 302
    )
    assert auth.client.get("/s/quiz").status_code == 410
    assert auth.client.get("/admin/surveys/quiz").status_code == 200  # results stay readable
    auth.client.post("/admin/surveys/quiz/state", data={"csrf_token": token, "state": "open"})
    assert auth.client.get("/s/quiz").status_code == 200


def test_below_the_floor_the_page_shows_a_one_sided_bound_not_a_zero_interval(app, auth):
    # 38 noisy yeses of 200 under two coins: 19% < 25%; the mapped interval would be [0, 0].
    from analysis import outside_design

    add_responses(app, many(38, 162))
    auth.login()
    html = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    bound = outside_design(38, 200).bound
    assert (
        "Fewer yes answers to “Have you ever cheated on an exam?” (19%) than the design alone produces (25%): "
        f"the share of true ones is at most {round(bound * 100)}% (one-sided 95% bound)."
    ) in html
    assert f"≤ {100 * bound:.1f}%" in html and "below the design&#39;s floor" in html
    assert "About 0%" not in html
    row = next(
        r
        for r in auth.client.get("/admin/surveys/quiz/estimates.json").get_json()["rows"]
        if r["question"] == "cheated"
    )
    assert row["outside_design"] == "below" and row["one_sided_bound"] == pytest.approx(bound, rel=1e-12)


def test_the_survey_epsilon_is_the_tighter_bound_and_says_which(app, auth):
    add_responses(app, many(3, 2))
    auth.login()
    html = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    # ln 3 + 2 ln 5 = 4.32 by sequential composition; advanced composition gives 28.36, never smaller here.
    assert "ε per respondent 4.32 (sequential composition, pure ε-differential privacy: the tighter" in html
    assert "28.36" not in html


def test_answers_under_an_older_design_raise_the_epsilon_shown(app, auth, surveys_dir):
    from tests.helpers.sample_surveys import QUIZ_YAML

    path = surveys_dir / "quiz.yaml"
    old = QUIZ_YAML.replace(
        "    label: Have you ever cheated on an exam?\n",
        "    label: Have you ever cheated on an exam?\n    design: {t: 4/5, a: 1/10, b: 1/10}\n",
    )
    path.write_text(old)
    add_responses(app, many(3, 2))  # cheated under ln 9
    path.write_text(QUIZ_YAML.replace("version: 1", "version: 2"))  # back to two coins: ln 3
    auth.login()
    html = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    assert "ε per respondent 4.32" in html  # ln 3 + ln 5 + ln 5, the current designs
    # answered: cheated ln 9, ai_use ln 5 (lied has no answers): ln 45 = 3.81 < 4.32, so no note
    assert 'id="answered-epsilon"' not in html
    add_responses(app, [{"cheated": "yes", "lied": "no", "ai_use": "never", "year": "first"}])
    html = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    # now lied has answers too: ln 9 + ln 5 + ln 5 = ln 225 = 5.42 > 4.32
    assert 'id="answered-epsilon"' in html and "at most\n 5.42" in html


def test_a_select_one_with_a_six_decimal_t_loads_and_every_page_and_export_works(app, auth, surveys_dir):
    from tests.helpers.sample_surveys import QUIZ_YAML

    (surveys_dir / "quiz.yaml").write_text(QUIZ_YAML.replace("design: {t: 1/2}", "design: {t: 0.654321}"))
    add_responses(app, many(30, 20))
    auth.login()
    for path in PAGES + EXPORTS:
        response = auth.client.get(path)
        assert response.status_code == 200, (path, response.get_data(as_text=True)[:300])
    rows = [
        r for r in auth.client.get("/admin/surveys/quiz/estimates.json").get_json()["rows"] if r["question"] == "ai_use"
    ]
    assert len(rows) == 4 and all(r["ci_low"] is not None and r["error"] == "" for r in rows)


def test_a_question_that_fails_shows_a_message_in_its_row(app, auth, monkeypatch):
    from surveys.kinds import choice as choice_kind

    def broken(*args, **kwargs):
        raise ValueError("forced for the test")

    monkeypatch.setattr(choice_kind, "estimate_multiple_choice", broken)
    add_responses(app, many(120, 80))
    auth.login()
    response = auth.client.get("/admin/surveys/quiz")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "could not be computed (ValueError: forced for the test)" in html
    assert "Estimated share of true yes answers to “Have you ever cheated on an exam?”" in html
    data = auth.client.get("/admin/surveys/quiz/estimates.json").get_json()
    assert {r["error"] for r in data["rows"] if r["question"] == "ai_use"} == {"ValueError: forced for the test"}
    assert auth.client.get("/admin/surveys/quiz/estimates.csv").status_code == 200


def test_group_differences_show_the_raw_estimates_they_subtract(app, auth):
    # year first (even i) and second (odd i); cheated yes for i < 10: 5 of 30 in each group,
    # raw (5/30 - 1/4)/(1/2) = -16.7% in both, shown clipped as 0.0% in the group rows.
    add_responses(app, many(10, 50))
    auth.login()
    html = auth.client.get("/admin/surveys/quiz?by=year").get_data(as_text=True)
    assert "Difference of the raw estimates" in html
    assert "<td>-16.7% − -16.7%</td><td>0.0%</td>" in html


# --------------------------------------------------------------------------
# The researcher's pages: break-downs, planning, messages, confirmation.


def test_the_dashboard_shows_the_tighter_epsilon_and_says_which_bound(app, auth):
    auth.login()
    html = auth.client.get("/admin/").get_data(as_text=True)
    survey = load_catalog(app.config["SURVEYS_DIR"]).get("quiz")
    assert survey.epsilon.best < survey.epsilon.advanced  # ln 75 = 4.32 beats advanced composition
    assert "advanced:" not in html and f"{survey.epsilon.advanced:.2f}" not in html
    assert f"{survey.epsilon.best:.2f}" in html
    assert "sequential composition, pure ε-differential privacy: the tighter of the two valid bounds" in html


@pytest.mark.parametrize("typed", ["5", "5%", "0.05", " 5 % "])
def test_a_margin_of_error_of_5_5_percent_or_0_05_plans_for_five_points(app, auth, typed):
    add_responses(app, many(30, 20))
    auth.login()
    response = auth.client.get("/admin/surveys/quiz", query_string={"half_width": typed})
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    survey = load_catalog(app.config["SURVEYS_DIR"]).get("quiz")
    needed = sample_size_for_half_width(0.05, 0.95, *survey.question("cheated").design.exact())
    assert (
        f"a margin of error of plus or minus 5 percentage points at 95% confidence needs\n <strong>{needed}</strong>"
        in html
    )
    assert "Margin of error (plus or minus)" in html
    assert "5 means plus or minus 5 points" in html
    assert 'name="half_width" value="5"' in html


def test_planning_on_the_results_page_gives_the_answers_under_the_sequence_too(app, auth):
    add_responses(app, many(30, 20))
    auth.login()
    html = auth.client.get("/admin/surveys/quiz", query_string={"half_width": "5"}).get_data(as_text=True)
    needed = sample_size_for_sequence_half_width(0.05, 0.95, 0.5, 0.25, 0.25)
    assert "if you fix that number in advance and look once, at the end" in html
    assert f'expect about <strong class="needed-sequence">{needed}</strong>' in html


def test_a_refused_margin_of_error_is_shown_on_the_page_beside_its_field(app, auth):
    add_responses(app, many(30, 20))
    auth.login()
    response = auth.client.get("/admin/surveys/quiz?half_width=50%25")
    html = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "<h2>Estimates</h2>" in html  # the results page, not a bare error page
    assert 'id="error-half_width" role="alert">The margin of error must be at least 0.1 and below 50' in html
    assert "got “50%”" in html
    assert 'name="half_width" value="50%"' in html  # what was typed stays in the field


def test_planning_is_for_the_question_chosen_from_its_own_answers(app, auth):
    # 60 responses, of which only 20 answered the optional "lied" (t = 2/3, a = b = 1/6).
    answers = many(30, 30)
    for i, one in enumerate(answers):
        if i < 20:
            one["lied"] = "yes" if i % 2 else "no"
    add_responses(app, answers)
    auth.login()
    html = auth.client.get("/admin/surveys/quiz?plan=lied&half_width=10").get_data(as_text=True)
    design = load_catalog(app.config["SURVEYS_DIR"]).get("quiz").question("lied").design
    needed = sample_size_for_half_width(0.1, 0.95, *design.exact())
    now = half_width_for_n(20, 0.95, *design.exact())
    assert "For “Have you lied to a professor?”" in html
    assert f"<strong>{needed}</strong> answers to this question" in html
    assert (
        f"With the 20 answers to it so far, the margin of error is at most <strong>{margin_text(now)}</strong>" in html
    )
    assert '<option value="lied" selected>' in html
    response = auth.client.get("/admin/surveys/quiz?plan=year")
    assert response.status_code == 400 and "is not a randomized yes/no question of this survey" in response.get_data(
        as_text=True
    )


def test_a_break_down_has_a_chart_compact_tables_and_group_selects(app, auth):
    add_responses(app, many(60, 60))
    auth.login()
    html = auth.client.get("/admin/surveys/quiz?by=year").get_data(as_text=True)
    assert 'aria-label="Estimates by Year of study: 4 groups side by side' in html
    # One table per randomized question (3), each with a row per group (4), not a table per group.
    assert html.count('<table class="compact">') == 3
    assert html.count('<th scope="row">third</th>') == 3 + 1  # and the plain question's own table
    for name in ("first", "second"):
        assert f'<select name="{name}">' in html
    assert '<option value="first" selected>first</option>' in html  # the pair shown is selected
    chosen = auth.client.get("/admin/surveys/quiz?by=year&first=second&second=first").get_data(as_text=True)
    assert "<td>second − first</td>" in chosen


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (
            "first=first&second=nope",
            "There is no group “nope” in the break-down by Year of study; "
            "the groups are: first, second, third, fourth.",
        ),
        ("first=first", "Choose two groups to compare"),
        ("first=second&second=second", "Choose two different groups to compare"),
    ],
)
def test_an_unknown_group_is_a_400_naming_it_on_the_page(app, auth, query, message):
    add_responses(app, many(60, 60))
    auth.login()
    response = auth.client.get(f"/admin/surveys/quiz?by=year&{query}")
    html = response.get_data(as_text=True)
    assert response.status_code == 400
    assert message in html
    assert 'id="error-groups" role="alert"' in html and "<h2>Estimates</h2>" in html


def test_the_break_down_exports_hold_every_group_and_match_the_page(app, auth):
    add_responses(app, many(60, 60))
    auth.login()
    html = auth.client.get("/admin/surveys/quiz?by=year&method=wald&level=0.9").get_data(as_text=True)
    assert "/admin/surveys/quiz/breakdown.csv?by=year&amp;method=wald&amp;level=0.9" in html
    response = auth.client.get("/admin/surveys/quiz/breakdown.csv?by=year&method=wald&level=0.9")
    assert response.status_code == 200
    assert response.headers["Content-Disposition"] == 'attachment; filename="quiz-breakdown-year.csv"'
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    # 4 groups x (2 yes/no questions + 4 options).
    assert len(rows) == 4 * 6 and {r["group"] for r in rows} == {"first", "second", "third", "fourth"}
    first = next(r for r in rows if r["group"] == "first" and r["question"] == "cheated")
    # i % 2 == 0 are "first": 30 of the 60 yes and 30 of the 60 no.
    expected = estimate_proportion(30, 60)
    assert int(first["n"]) == 60 and float(first["estimate_raw"]) == pytest.approx(expected.estimate_raw, rel=1e-12)
    ci = expected.confidence_interval(0.9, "wald")
    assert (float(first["ci_low"]), float(first["ci_high"])) == pytest.approx((ci.low, ci.high), rel=1e-9)
    data = auth.client.get("/admin/surveys/quiz/breakdown.json?by=year&method=wald&level=0.9").get_json()
    assert data["by"] == "year" and data["method"] == "wald" and len(data["rows"]) == 24
    assert [g["group"] for g in data["groups"]] == ["first", "second", "third", "fourth"]
    missing = auth.client.get("/admin/surveys/quiz/breakdown.csv")
    assert missing.status_code == 400 and "Choose the question to break the results down by" in missing.get_data(
        as_text=True
    )
    wrong = auth.client.get("/admin/surveys/quiz/breakdown.json?by=cheated")
    assert wrong.status_code == 400 and "“cheated” is not a non-randomized question" in wrong.get_data(as_text=True)


def test_a_success_message_has_the_success_style_and_an_error_the_error_style(app, auth):
    auth.login()
    token = auth.csrf_token("/admin/")
    response = auth.client.post(
        "/admin/surveys/quiz/state", data={"csrf_token": token, "state": "open"}, follow_redirects=True
    )
    html = response.get_data(as_text=True)
    assert '<div class="notice success" role="status">“Test quiz” is now open.</div>' in html
    auth.logout()
    failed = auth.login(password="wrong").get_data(as_text=True)
    assert '<div class="notice error" role="alert">Wrong account name or password.</div>' in failed


def test_closing_a_survey_asks_for_confirmation_first(app, auth, respondent):
    auth.login()
    dashboard = auth.client.get("/admin/").get_data(as_text=True)
    assert 'name="state" value="closed"' not in dashboard  # no one-click close
    assert 'href="/admin/surveys/quiz/close?next=/admin/"' in dashboard
    results = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    assert 'name="state" value="closed"' not in results and 'href="/admin/surveys/quiz/close?next=' in results
    confirm = auth.client.get("/admin/surveys/quiz/close?next=/admin/")
    html = confirm.get_data(as_text=True)
    assert confirm.status_code == 200 and "Close “Test quiz”?" in html
    assert 'name="state" value="closed"' in html and "Yes, close “Test quiz”" in html
    assert auth.client.get("/s/quiz").status_code == 200  # still open: the page only asks
    token = csrf_token_in(html)
    done = auth.client.post(
        "/admin/surveys/quiz/state", data={"csrf_token": token, "state": "closed", "next": "/admin/"}
    )
    assert done.status_code == 302 and auth.client.get("/s/quiz").status_code == 410


def test_the_model_section_fits_the_chosen_model_from_the_kept_counts(app, auth):
    from surveys import wording
    from surveys.models import ModelChoice
    from web import gather

    add_responses(app, model_answers())
    auth.login()
    page = auth.client.get("/admin/surveys/quiz?model_outcome=cheated&model_predictors=year&model_reference=year:first")
    html = page.get_data(as_text=True)
    assert page.status_code == 200, html[-2000:]
    survey = load_catalog(app.config["SURVEYS_DIR"]).get("quiz")
    db = open_database(app)
    expected = gather.stored_model(db, survey, ModelChoice("cheated", ("year",), {"year": "first"}), 0.95)
    db.close()
    assert expected.fit is not None and expected.n == 400
    coefficient = expected.fit.coefficient("Year of study: second vs first")
    assert f'<th scope="row">Year of study: second vs first</th><td>{coefficient.estimate:.3f}</td>' in html
    assert f"{coefficient.odds_ratio_low:.2f} – {coefficient.odds_ratio_high:.2f}" in html
    assert "Likelihood-ratio tests" in html and "Predicted prevalence" in html
    assert wording.model_sentence(expected).split("(")[0] in html


def test_a_bad_model_choice_is_shown_beside_the_form_with_status_400(app, auth):
    add_responses(app, model_answers(30))
    auth.login()
    page = auth.client.get("/admin/surveys/quiz?model_outcome=cheated&model_predictors=lied")
    assert page.status_code == 400
    assert 'id="error-model"' in page.get_data(as_text=True)
    assert "lied” cannot be a predictor" in page.get_data(as_text=True)


def test_too_few_answers_for_a_model_say_so(app, auth):
    add_responses(app, model_answers(6))
    auth.login()
    html = auth.client.get("/admin/surveys/quiz?model_outcome=cheated&model_predictors=year").get_data(as_text=True)
    assert "Too few answers to fit a model" in html
    assert "Coefficients" not in html


def test_the_model_exports_hold_the_fit_shown_on_the_page(app, auth):
    add_responses(app, model_answers())
    auth.login()
    query = "model_outcome=cheated&model_predictors=year&model_reference=year:second&level=0.9"
    body = auth.client.get(f"/admin/surveys/quiz/model.json?{query}").get_json()
    assert body["outcome"] == "cheated" and body["n"] == 400
    assert body["predictors"] == [{"question": "year", "reference": "second", "levels": ["first", "third"]}]
    names = [row["name"] for row in body["rows"] if row["kind"] == "coefficient"]
    assert names == ["intercept", "Year of study: first vs second", "Year of study: third vs second"]
    assert all(row["confidence_level"] == 0.9 for row in body["rows"] if row["kind"] == "coefficient")
    text = auth.client.get(f"/admin/surveys/quiz/model.csv?{query}").get_data(as_text=True)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [(r["kind"], r["name"]) for r in rows] == [(r["kind"], r["name"]) for r in body["rows"]]
    assert math.isclose(float(rows[1]["estimate"]), body["rows"][1]["estimate"], rel_tol=1e-12)
    refused = auth.client.get("/admin/surveys/quiz/model.json?model_predictors=year")
    assert refused.status_code == 400 and "model_outcome" in refused.get_data(as_text=True)


# --------------------------------------------------------------------------
# Anytime-valid confidence sequences.


def test_the_results_page_shows_each_sequence_beside_its_interval_with_its_meaning(app, auth):
    add_responses(app, many(120, 80))
    auth.login()
    html = auth.client.get("/admin/surveys/quiz?level=0.9").get_data(as_text=True)
    cheated = confidence_sequence(120, 200, confidence_level=0.9)
    ci = estimate_proportion(120, 200).confidence_interval(0.9)
    interval = f"{table_percent(ci.low)} – {table_percent(ci.high)}"
    sequence = f'<span class="sequence">{table_percent(cheated.low)} – {table_percent(cheated.high)}</span>'
    assert f"<td>{interval}</td><td>{sequence}</td>" in html
    options = option_confidence_sequences([50, 50, 50, 50], 0.5, 0.9)  # i % 4 over 200 answers
    assert f'<span class="sequence">{table_percent(options[0].low)} – {table_percent(options[0].high)}</span>' in html
    assert SEQUENCE_NOTE in html and "90% anytime-valid sequence" in html


def test_the_difference_between_two_groups_shows_its_sequence(app, auth):
    add_responses(app, many(80, 120))  # year first: 40 yes of 100; second: 40 of 100
    auth.login()
    html = auth.client.get("/admin/surveys/quiz?by=year").get_data(as_text=True)
    expected = difference_sequence(estimate_proportion(40, 100), estimate_proportion(40, 100), 0.95)
    assert f'<span class="sequence">{table_percent(expected.low)} – {table_percent(expected.high)}</span>' in html


def test_the_estimates_exports_carry_the_sequence_bounds(app, auth):
    add_responses(app, many(30, 20))
    auth.login()
    rows = {
        (r["question"], r["option"]): r
        for r in auth.client.get("/admin/surveys/quiz/estimates.json").get_json()["rows"]
    }
    cheated = confidence_sequence(30, 50)
    assert (rows[("cheated", "")]["sequence_low"], rows[("cheated", "")]["sequence_high"]) == (
        cheated.low,
        cheated.high,
    )
    never = option_confidence_sequences([13, 13, 12, 12], 0.5)[0]
    assert (rows[("ai_use", "never")]["sequence_low"], rows[("ai_use", "never")]["sequence_high"]) == (
        never.low,
        never.high,
    )
    text = auth.client.get("/admin/surveys/quiz/estimates.csv").get_data(as_text=True)
    row = next(r for r in csv.DictReader(io.StringIO(text)) if r["question"] == "cheated")
    assert (float(row["sequence_low"]), float(row["sequence_high"])) == (cheated.low, cheated.high)


def test_the_results_page_draws_the_estimate_over_time_from_the_kept_daily_tallies(app, auth):
    add_responses(app, many(30, 20), day="2026-11-20")
    add_responses(app, many(40, 10), day="2026-11-21")
    auth.login()
    html = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    assert 'id="over-time"' in html and html.count('class="timechart"') == 2  # cheated and lied (no answers)
    first, now = confidence_sequence(30, 50), confidence_sequence(70, 100)
    assert f"({short_percent(first.low)} to {short_percent(first.high)}), n = 50</title>" in html
    assert f"on 2026-11-21, with 100 answers, {short_percent(estimate_proportion(70, 100).estimate)}" in html
    assert f"sequence {short_percent(now.low)} to {short_percent(now.high)}" in html


# --------------------------------------------------------------------------
# Preview.


def test_the_preview_needs_a_researcher_and_shows_the_real_form_with_a_banner(client, auth):
    assert client.get("/admin/surveys/quiz/preview").status_code == 302  # to sign-in
    auth.login()
    page = client.get("/admin/surveys/quiz/preview")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "Nothing sent from this preview is stored or counted." in html and "(the survey is open)" in html
    assert 'action="/admin/surveys/quiz/preview"' in html and 'data-survey="preview-quiz"' in html
    real = client.get("/s/quiz").get_data(as_text=True)
    for question in (
        "Have you ever cheated on an exam?",
        "Year of study",
        "How often have you used AI-written text as your own?",
    ):
        assert question in html and question in real
    assert "preview-banner" not in real and 'action="/s/quiz"' in real


def test_a_closed_survey_can_be_previewed(client, auth, app):
    auth.login()
    token = auth.csrf_token("/admin/")
    client.post("/admin/surveys/quiz/state", data={"csrf_token": token, "state": "closed"})
    assert client.get("/s/quiz").status_code == 410
    page = client.get("/admin/surveys/quiz/preview")
    assert page.status_code == 200 and "(the survey is closed)" in page.get_data(as_text=True)


def test_answers_sent_from_the_preview_are_randomized_shown_and_never_stored(client, auth, app):
    auth.login()
    before = dump(app)
    html = client.get("/admin/surveys/quiz/preview").get_data(as_text=True)
    token = csrf_token_in(html)
    survey = load_catalog(app.config["SURVEYS_DIR"]).get("quiz")
    answers = {"cheated": "yes", "ai_use": "never", "year": "first"}
    sent = client.post(
        "/admin/surveys/quiz/preview",
        data={"csrf_token": token, "submission_key": "preview-key-0001", **wire_form(survey, answers)},
    )
    thanks = sent.get_data(as_text=True)
    assert sent.status_code == 200 and "What was stored" in thanks and "preview-banner" in thanks
    assert "rr_done_quiz" not in sent.headers.get("Set-Cookie", "")
    refused = client.post("/admin/surveys/quiz/preview", data={"csrf_token": token, "cheated": "maybe"})
    assert refused.status_code == 400 and "preview-banner" in refused.get_data(as_text=True)
    assert dump(app) == before  # nothing stored, counted or remembered


def test_the_dashboard_shows_how_far_each_target_is(app, auth, surveys_dir):
    from tests.helpers.sample_surveys import QUIZ_YAML

    (surveys_dir / "quiz.yaml").write_text(
        QUIZ_YAML + "targets:\n  - {question: cheated, margin: 0.05}\n  - {question: lied, margin: 0.1}\n"
        "close_when_targets_met: true\n"
    )
    add_responses(app, many(300, 700))
    auth.login()
    html = auth.client.get("/admin/").get_data(as_text=True)
    row = load_catalog(str(surveys_dir)).surveys["quiz"]
    assert row.targets[0].margin == 0.05
    cheated = re.search(r"cheated:\s+±([\d.]+) now,\s+target ±5\.0 points \(95%\): about ([\d,]+) more answers", html)
    assert cheated, html
    assert 5.0 < float(cheated.group(1)) < 15.0  # two coins, 1,000 answers: about ±11 points
    assert int(cheated.group(2).replace(",", "")) > 1000
    assert re.search(r"lied:\s+no answers yet,\s+target ±10\.0 points", html)
    assert "closes itself when every target is met" in html and ">open" in html


def test_results_page_of_a_triangular_question_says_no_epsilon_guarantee(app, auth, surveys_dir):
    """Triangular with q = 1/4: 120 stored "yes to at least one" of 200, so pi_hat = 1 - (1 - 0.6) / (1 - 1/4)
    = 0.4667 (Yu, Tian and Tang 2008); a stored "no" proves no trait, so no epsilon is given as a number."""
    triangular = QUIZ_YAML.replace(
        "    label: Have you ever cheated on an exam?\n",
        "    label: Have you ever cheated on an exam?\n"
        '    design: {model: triangular, q: 1/4, innocuous: "My birthday is in January, February or March."}\n',
    )
    (surveys_dir / "quiz.yaml").write_text(triangular)
    add_responses(app, many(120, 80))
    auth.login()
    html = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    assert "∞ (no epsilon guarantee: one answer fully reveals)" in html
    assert "triangular (innocuous yes share q=1/4; a stored “no” proves no trait)" in html
    assert f"{100 * (1 - 0.4 / 0.75):.1f}%" in html


def test_results_page_shows_the_lie_detectors_honesty_and_the_group_sizes(app, auth, surveys_dir):
    """Stored through the write path with each response's arm: groups 1 and 2 (60 of 100 and 40 of 100 yes) give
    pi = 0.4 and t = 0.5 (Moshagen, Musch and Erdfelder 2012); the direct arm is not counted."""
    from surveys.submission import noisy_response

    (surveys_dir / "twogroup.yaml").write_text(TWO_GROUP_YAML)
    survey = load_catalog(surveys_dir).get("twogroup")
    db = open_database(app)
    plan = [("1", "yes", 60), ("1", "no", 40), ("2", "yes", 40), ("2", "no", 60), ("direct", "yes", 7)]
    index = 0
    for arm, answer, count in plan:
        for _ in range(count):
            response = noisy_response(survey, {"evaded": answer}, "device", arm)
            responses.store_response(db, response, f"key-{index:06d}", "2026-11-22")
            index += 1
    db.close()
    auth.login()
    html = auth.client.get("/admin/surveys/twogroup").get_data(as_text=True)
    assert "Honesty of carriers (t: share of carriers who answer “yes”): <strong>50.0%</strong>" in html
    assert "n = 100 and 100, stored yes 60 and 40" in html
    assert "profile-likelihood intervals" in html and "40.0%" in html
    # the control arm: 7 yes of 7 asked directly; randomized response minus direct = 0.4 - 1 = -60.0%
    assert "Direct-question control arm: 7 yes of 7" in html and "<strong>-60.0%</strong>" in html


def test_results_page_plans_a_two_group_question_and_pools_its_design_versions(app, auth, surveys_dir):
    """Answers stored under an older lie detector (p = 1/4, 3/4) and the current one (1/3, 2/3) are estimated
    apart and pooled (tests/test_results.py); the planning panel plans the lie detector in its worst case."""
    from analysis import two_group_sample_size, two_group_worst_case
    from surveys.submission import noisy_response

    old_yaml = TWO_GROUP_YAML.replace("p1: 1/3, p2: 2/3", "p1: 1/4, p2: 3/4")
    db = open_database(app)
    index = 0
    for text, version in ((old_yaml, "1"), (TWO_GROUP_YAML.replace("version: 1", "version: 2"), "2")):
        (surveys_dir / "twogroup.yaml").write_text(text)
        survey = load_catalog(surveys_dir).get("twogroup")
        assert str(survey.version) == version
        for arm, answer, count in [("1", "yes", 30), ("1", "no", 20), ("2", "yes", 20), ("2", "no", 30)]:
            for _ in range(count):
                response = noisy_response(survey, {"evaded": answer}, "device", arm)
                responses.store_response(db, response, f"key-{index:06d}", "2026-11-22")
                index += 1
    db.close()
    auth.login()
    html = auth.client.get("/admin/surveys/twogroup?plan=evaded&half_width=5").get_data(as_text=True)
    assert "pooled over 2 designs" in html and 'class="two-group-pooled"' in html
    assert "each weighted by the inverse of its variance in the worst case" in html
    assert "Two random groups under the current design: n = 50 and 50" in html
    design = survey.question("evaded").design
    planned = two_group_sample_size(design, 0.05, *two_group_worst_case(design))
    assert f"<strong>{planned.n}</strong> answers to this question ({planned.n1} in group 1 and {planned.n2}" in html
    assert "Assumed: the worst case, each group's reported-yes rate at one half" in html
    assert "With the 50 and 50 answers of the two groups under this design" in html


def test_results_page_pools_the_versions_of_a_matrix_question_and_states_the_assumption(app, auth, surveys_dir):
    """ai_use under the quiz's k-option design (version 1), then under a matrix (version 2): both versions'
    estimates are shown and pooled (the figures: tests/test_results.py)."""
    from surveys.submission import noisy_response

    db = open_database(app)
    index = 0
    for text in (
        QUIZ_YAML,
        QUIZ_YAML.replace("version: 1", "version: 2").replace(K_OPTION_DESIGN_LINE, K_OPTION_AS_MATRIX),
    ):
        (surveys_dir / "quiz.yaml").write_text(text)
        survey = load_catalog(surveys_dir).get("quiz")
        for answer, count in [("never", 4), ("once", 3), ("sometimes", 2), ("often", 1)]:
            for _ in range(count):
                response = noisy_response(survey, {"cheated": "no", "ai_use": answer, "year": "first"}, "device")
                responses.store_response(db, response, f"key-{index:06d}", "2026-11-22")
                index += 1
    db.close()
    auth.login()
    html = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    assert 'class="matrix-pooled"' in html and "pooled over 2 designs" in html
    assert "misclassification matrix (4 options) (current): n = 10" in html
    assert "assumed: every design measures the same true shares" in html
    # planning on every option share, with the 10 answers under the current matrix (tests/test_results.py)
    assert "needs <strong>1537</strong> answers under the current design" in html
    assert "With the 10 answers under it, the widest option's margin is at most" in html
