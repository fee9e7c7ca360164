"""Playwright in Debian's Chromium against the app on a free loopback port.

What the respondent's browser sends is read off the wire (``page.expect_request``),
so these tests prove that the true answers never leave the device.
"""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path
from urllib.parse import parse_qsl

import pytest
from playwright.sync_api import expect

from analysis.design import (
    TWO_COIN,
    CrosswiseDesign,
    ForcedResponseDesign,
    KukDesign,
    MangatDesign,
    MultipleChoiceDesign,
    TriangularDesign,
    UnrelatedQuestionDesign,
    WarnerDesign,
)
from analysis.misclassification import MisclassificationDesign
from analysis.two_group import CheaterDetectionDesign, StochasticLieDetectorDesign
from storage import queries
from surveys.arms import group_yes_probabilities
from tests.helpers.audit import (
    LIVE_FAMILY_ALPHA,
    N_DRAWS,
    audit,
    clopper_pearson_lower,
    clopper_pearson_upper,
    yes_no_expected,
)
from tests.helpers.browser_steps import BROWSER_ONLY_ON_SQLITE, quiz_page
from tests.helpers.records import stored_bytes
from tests.helpers.servers import served
from web.db import open_database

pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only(reason=BROWSER_ONLY_ON_SQLITE)]

#: Makes crypto.getRandomValues fill every word with 2^32 - 5. With the page's
#: own rejection sampling that gives: randomBelow(2) = 1 (coin heads, and the
#: second coin heads: yes), randomBelow(4) = 3 (the last option),
#: randomBelow(6) = 5 (the die's forced no). So every randomized answer
#: differs from the truth chosen below, and the truth can be looked for.
FORCED_COINS = """
crypto.getRandomValues = function (array) { array.fill(4294967291); return array; };
"""
TRUTH = {"cheated": "No", "lied": "Yes", "ai_use": "sometimes", "year": "second"}


def fill_in(page, answers=TRUTH):
    """Answer through the labels, as a screen-reader user would find the inputs."""
    for name, label in answers.items():
        page.locator(f"fieldset[data-question={name}]").get_by_label(label, exact=True).check()


def posted_fields(request) -> list[tuple[str, str]]:
    return parse_qsl(request.post_data, keep_blank_values=True)


def posted_answers(request, app, prefix: str = "rr-") -> dict[str, str | None]:
    """The answers a request carries, as choice names (``None``: no answer), read back
    from the fixed-width values with the server's own ``parse_wire_value``."""
    from web.forms import parse_wire_value

    survey = app_survey(app)
    return {
        name[len(prefix) :]: parse_wire_value(survey.question(name[len(prefix) :]), value)
        for name, value in posted_fields(request)
        if name.startswith(prefix)
    }


def stored_answers(app) -> list[dict]:
    from web.db import open_database

    db = open_database(app)
    try:
        return [dict(row, answers=json.loads(row["answers"])) for row in db.query("SELECT * FROM responses")]
    finally:
        db.close()


def rows(app, table: str) -> list[dict]:
    from web.db import open_database

    db = open_database(app)
    try:
        return list(db.query(f'SELECT * FROM "{table}"'))
    finally:
        db.close()


def every_stored_value(app) -> set[str]:
    """Every cell of every table, answers JSON unpacked; design descriptions left
    out (they list every choice of the survey, which is no one's answer)."""
    from web.db import open_database

    db = open_database(app)
    try:
        names = [t for t in db.table_names() if t != "designs"]
    finally:
        db.close()
    values = set()
    for table in names:
        for row in rows(app, table):
            for column, value in row.items():
                if column == "answers":
                    values.update(json.loads(value).values())
                elif column != "design":
                    values.add(str(value))
    return values


def app_survey(app):
    from surveys.files import load_catalog

    return load_catalog(app.config["SURVEYS_DIR"]).get("quiz")


def submit(page):
    with page.expect_request(lambda r: r.method == "POST") as request_info:
        page.get_by_role("button", name="Submit answers").click()
    page.wait_for_load_state()
    return request_info.value


def test_device_path_sends_only_randomized_answers(page, live_server, app):
    page.goto(f"{live_server}/s/quiz")
    fill_in(page)
    request = submit(page)
    fields = posted_fields(request)
    names = [name for name, _ in fields]
    assert "randomized_on" in names and dict(fields)["randomized_on"] == "device"
    for question in ("cheated", "lied", "ai_use", "year"):
        assert question not in names  # the true-answer fields are never sent
        assert f"rr-{question}" in names
    assert sorted(names) == sorted(
        ["csrf_token", "submission_key", "randomized_on", "rr-cheated", "rr-lied", "rr-ai_use", "rr-year"]
    )
    expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
    (row,) = stored_answers(app)
    assert row["randomized_on"] == "device"
    assert row["answers"] == posted_answers(request, app)


@pytest.mark.both_backends  # the end-to-end privacy check, with each backend's stored bytes
def test_true_answers_are_not_in_the_request_db_or_log(page, live_server, app, caplog):
    caplog.set_level(logging.INFO)
    page.add_init_script(FORCED_COINS)
    page.goto(f"{live_server}/s/quiz")
    fill_in(page)
    request = submit(page)
    sent = posted_answers(request, app)
    assert sent["cheated"] == "yes" and sent["lied"] == "no" and sent["ai_use"] == "often"
    assert "sometimes" not in request.post_data  # the true ai_use answer
    assert sent["year"] == "second"  # not randomized, sent as given
    (row,) = stored_answers(app)
    assert row["answers"] == {"cheated": "yes", "lied": "no", "ai_use": "often", "year": "second"}
    assert "sometimes" not in every_stored_value(app)
    assert {"often", "second"} <= every_stored_value(app)  # the search does find stored answers
    # designs holds the survey's definition (every choice name, "sometimes" too), nothing per respondent:
    from surveys.design_contract import design_record

    assert [r["questions"] for r in rows(app, "designs")] == [design_record(app_survey(app))]
    assert b"127.0.0.1" not in stored_bytes(app)  # the database and the rate-limit counts
    assert "POST /s/quiz" in caplog.text  # the log was captured ...
    assert "127.0.0.1" not in caplog.text and "sometimes" not in caplog.text  # ... and holds neither


def device_request(browser, live_server, answers: dict):
    """The request a fresh browser (no cookie, no remembered noise) posts for ``answers``."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{live_server}/s/quiz")
    fill_in(page, answers)
    request = submit(page)
    context.close()
    return request


def test_device_request_is_as_long_whatever_the_answers(browser, live_server, app):
    """Long and short choice names, "No answer" and random noise: one body length."""
    long_answers = device_request(browser, live_server, TRUTH)
    short_answers = device_request(browser, live_server, {"cheated": "Yes", "ai_use": "once", "year": "first"})
    assert posted_answers(short_answers, app)["lied"] is None  # left at the pre-checked "No answer"
    assert posted_answers(long_answers, app)["lied"] is not None
    assert len(long_answers.post_data) == len(short_answers.post_data)


def test_server_path_request_is_as_long_whatever_the_answers(browser, live_server, app):
    context = browser.new_context(java_script_enabled=False)
    lengths = set()
    for answers in (TRUTH, {"cheated": "Yes", "ai_use": "once", "year": "first"}):
        page = context.new_page()
        page.goto(f"{live_server}/s/quiz")
        fill_in(page, answers)
        lengths.add(len(submit(page).post_data))
        context.clear_cookies()
    context.close()
    assert len(lengths) == 1, lengths


def test_server_path_without_javascript(browser, live_server, app):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server}/s/quiz")
    fill_in(page)
    request = submit(page)
    names = [name for name, _ in posted_fields(request)]
    assert "cheated" in names and "randomized_on" not in names
    assert not any(name.startswith("rr-") for name in names)
    expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
    (row,) = stored_answers(app)
    assert row["randomized_on"] == "server"
    assert row["answers"]["cheated"] in {"yes", "no"}
    context.close()


def test_retake_is_refused_and_the_same_noise_is_resent(page, live_server, app):
    page.goto(f"{live_server}/s/quiz")
    fill_in(page)
    first = posted_answers(submit(page), app)
    page.goto(f"{live_server}/s/quiz")
    expect(page.get_by_role("heading", name="You have already answered this survey")).to_be_visible()
    # Without the cookie the server would take it, but the device resends the
    # noise it drew the first time (permanent randomized response).
    page.context.clear_cookies()
    page.goto(f"{live_server}/s/quiz")
    fill_in(page, {**TRUTH, "cheated": "Yes"})
    second = posted_answers(submit(page), app)
    for name in ("cheated", "lied", "ai_use"):
        assert second[name] == first[name]


def test_a_refused_device_form_says_what_is_missing_not_that_this_browser_answered_before(page, live_server, app):
    """A device submission without a required answer (a browser that does not check ``required``) is refused
    with the question's own message, and the form shown again does not claim an earlier answer: nothing was
    stored (before, it said "This browser has answered this survey before" and "Not a valid choice")."""
    page.goto(f"{live_server}/s/quiz")
    fill_in(page, {name: label for name, label in TRUTH.items() if name != "cheated"})
    page.locator("fieldset[data-question=cheated] input").evaluate_all(
        "inputs => inputs.forEach(input => input.removeAttribute('required'))"
    )
    page.get_by_role("button", name="Submit answers", exact=True).click()
    page.wait_for_load_state()
    text = page.inner_text("main")
    assert "Your answers were not sent" in text and "Please choose an answer to this question." in text
    assert "Not a valid choice" not in text
    assert page.locator("#memo-note").is_hidden()
    db = open_database(app)
    try:
        assert queries.response_count(db, "quiz") == 0
    finally:
        db.close()


def test_phone_sized_screen(browser, live_server):
    context = browser.new_context(viewport={"width": 375, "height": 667}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(f"{live_server}/s/quiz")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    button = page.get_by_role("button", name="Submit answers")
    box = button.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 375 and box["height"] >= 40
    fill_in(page)
    submit(page)
    expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    context.close()


def test_keyboard_only(page, live_server):
    page.goto(f"{live_server}/s/quiz")
    for name in ("cheated", "lied", "ai_use", "year"):
        for _ in range(40):
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.name") == name:
                break
        page.keyboard.press("Space")
        assert page.evaluate(f"document.querySelector('input[name={name}]:checked') !== null")
    for _ in range(10):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.tagName") == "BUTTON":
            break
    with page.expect_navigation():
        page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Thank you")).to_be_visible()


def test_every_input_has_a_label(page, live_server):
    page.goto(f"{live_server}/s/quiz")
    unlabeled = page.evaluate(
        "[...document.querySelectorAll('input:not([type=hidden])')].filter(i => i.labels.length === 0).length"
    )
    assert unlabeled == 0


@pytest.fixture(scope="module")
def randomizer(browser, module_quiz_server):
    """The quiz page with the served randomize.js, loaded once for the module's audits of ``window.RR``'s
    randomizers that set nothing on the page (no arm, no seeded words): each ``page.evaluate`` draws from
    ``crypto.getRandomValues`` and returns counts, so no test reads what another left (a new app, server,
    context and load cost about a second a test on a busy machine). A test that sets something has its own."""
    with quiz_page(browser, module_quiz_server, "window.RR") as page:
        yield page


def browser_counts(page, expression: str, truths: list, n: int) -> dict:
    """Run the page's own randomizer ``n`` times per truth; return report counts."""
    return page.evaluate(
        """([expression, truths, n]) => {
            const counts = {};
            for (const truth of truths) {
                counts[truth] = {};
                for (let i = 0; i < n; i++) {
                    const report = String(eval(expression));
                    counts[truth][report] = (counts[truth][report] || 0) + 1;
                }
            }
            return counts;
        }""",
        [expression, truths, n],
    )


@pytest.mark.parametrize("design", [TWO_COIN, ForcedResponseDesign("2/3", "1/6", "1/6")], ids=["two-coin", "die"])
def test_browser_yes_no_randomizer_passes_privacy_audit(randomizer, design):
    page = randomizer
    spec = json.dumps(design.to_dict())
    counts = browser_counts(page, f"RR.randomizeYesNo(truth === 'yes', {spec}) ? 'yes' : 'no'", ["yes", "no"], N_DRAWS)
    for truth in counts:
        counts[truth].setdefault("yes", 0)
        counts[truth].setdefault("no", 0)
    assert audit(counts, N_DRAWS, design.epsilon, yes_no_expected(design), LIVE_FAMILY_ALPHA) == []


def test_browser_multiple_choice_randomizer_passes_privacy_audit(randomizer):
    design = MultipleChoiceDesign(4, "1/2")
    page = randomizer
    n = N_DRAWS // 2
    spec = json.dumps(design.to_dict())
    counts = browser_counts(page, f"RR.randomizeIndex(Number(truth), {spec})", ["0", "1", "2", "3"], n)
    for truth in counts:
        for report in "0123":
            counts[truth].setdefault(report, 0)
    expected = {x: {r: (0.5 if r == x else 0) + 1 / 8 for r in "0123"} for x in "0123"}
    assert audit(counts, n, design.epsilon, expected, LIVE_FAMILY_ALPHA) == []


def test_browser_random_below_has_no_modulo_bias(page, live_server):
    """randomBelow(3) from words forced to 2^32 - 1 must reject them (that word is
    past the largest multiple of 3 below 2^32) and use the next acceptable one."""
    page.add_init_script("""
        const words = [4294967295, 4294967295, 7];
        let i = 0;
        crypto.getRandomValues = function (a) { a[0] = words[Math.min(i++, 2)]; return a; };
    """)
    page.goto(f"{live_server}/s/quiz")
    assert page.evaluate("RR.randomBelow(3)") == 7 % 3
    assert page.evaluate("RR.randomBelow(2 ** 32)") == 7


# --------------------------------------------------------------------------
# What the respondent sees: wording with and without JavaScript, the phone
# layout of the shipped surveys, retakes, and screenshots for review.

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
#: The first question must start within a screen and a half of a 375-px-wide phone.
PHONE = {"width": 375, "height": 800}
DESKTOP = {"width": 1280, "height": 900}
FIRST_QUESTION_MAX_Y = 1200
SERVER_SENTENCE = "JavaScript is off, so this form sends your true answers; the server randomizes them at once"


@pytest.fixture
def shipped_app(make_app):
    """The app serving the shipped example surveys (survey_files/*.yaml), on the test's backend."""
    from app import ROOT

    return make_app({"SURVEYS_DIR": str(ROOT / "survey_files"), "SECRET_KEY": "shipped"})


@pytest.fixture
def shipped_server(shipped_app):
    """:func:`shipped_app` on a free port; yields its base URL."""
    with served(shipped_app) as url:
        yield url


def visible_text(page) -> str:
    return " ".join(page.inner_text("main").split())


def first_question_top(page) -> float:
    return page.evaluate("document.querySelector('fieldset.question').getBoundingClientRect().top + window.scrollY")


@pytest.mark.parametrize(
    "survey_id",
    [
        "exam-integrity",
        "workplace-wellbeing",
        "drug-use-crosswise",
        "exam-crosswise-extended",
        "campus-life",
        "research-integrity",
    ],
)
@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_first_question_starts_within_a_screen_and_a_half_on_a_phone(browser, shipped_server, survey_id, javascript):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, java_script_enabled=javascript)
    page = context.new_page()
    page.goto(f"{shipped_server}/s/{survey_id}")
    top = first_question_top(page)
    assert top < FIRST_QUESTION_MAX_Y, f"{survey_id}: the first question starts at {top:.0f} px"
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    context.close()


def test_without_javascript_the_page_says_the_server_randomizes(browser, shipped_server):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{shipped_server}/s/exam-integrity")
    page.get_by_text("How your answers are protected").click()  # <details> opens without JavaScript
    assert page.locator("details.explain").evaluate("d => d.open")
    text = visible_text(page)
    assert "device" not in text, text
    assert SERVER_SENTENCE in text
    context.close()


def test_with_javascript_the_page_says_the_device_randomizes(page, shipped_server):
    page.goto(f"{shipped_server}/s/exam-integrity")
    page.get_by_text("How your answers are protected").click()
    text = visible_text(page)
    # two coins, a die and a random option: not coins alone
    assert "The random draws are made on your device: your true answers to the randomized questions never" in text
    assert "coins are flipped on your device" not in text
    assert "This browser keeps the randomized answers it sent" in text
    assert SERVER_SENTENCE not in text


def test_a_retake_is_told_that_the_earlier_randomized_answers_were_sent_again(page, live_server, app):
    page.goto(f"{live_server}/s/quiz")
    expect(page.locator("#memo-note")).not_to_be_visible()
    fill_in(page)
    first_request = submit(page)
    expect(page.locator("#resent-note")).not_to_be_visible()  # a first answer: nothing was resent
    page.context.clear_cookies()
    page.goto(f"{live_server}/s/quiz")
    expect(page.locator("#memo-note")).to_be_visible()  # said before sending
    first = stored_answers(app)[0]["answers"]
    differing = {"cheated": "No" if first["cheated"] == "yes" else "Yes"}
    fill_in(page, {**TRUTH, **differing})
    request = submit(page)
    expect(page.locator("#resent-note")).to_be_visible()
    assert "sent the randomized answers it drew then" in page.locator("#resent-note").inner_text()
    assert len(request.post_data) == len(first_request.post_data)  # nothing added to the request
    assert sorted(name for name, _ in posted_fields(request)) == sorted(
        ["csrf_token", "submission_key", "randomized_on", "rr-cheated", "rr-lied", "rr-ai_use", "rr-year"]
    )


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_screenshots_of_the_form_and_the_thank_you_page(browser, shipped_server, javascript):
    """For review: the form at phone and desktop width, and the thank-you page, JavaScript on and off."""
    ARTIFACTS.mkdir(exist_ok=True)
    mode = "js" if javascript else "no-js"
    for name, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
        context = browser.new_context(
            viewport=viewport, java_script_enabled=javascript, is_mobile=name == "phone", has_touch=name == "phone"
        )
        page = context.new_page()
        page.goto(f"{shipped_server}/s/exam-integrity")
        path = ARTIFACTS / f"respond-form-{name}-{mode}.png"
        page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 0
        if name == "phone":
            fill_in(page, {"cheated": "No", "plagiarism": "No", "ai_use": "Never", "year": "second"})
            submit(page)
            expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
            page.screenshot(path=str(ARTIFACTS / f"respond-thanks-{mode}.png"), full_page=True)
        context.close()


def test_a_survey_closes_itself_in_the_browser_once_its_target_is_met(browser, live_server, app, surveys_dir):
    """2,000 answers stored with as many noisy yeses as noes, and a ±target between the sequence's
    half-width at 2,000 and at 2,003 answers (two coins, 95%): the second answer sent from a browser
    meets it, the survey closes itself, and the next respondent's browser shows the closed page."""
    from analysis import confidence_sequence
    from tests.helpers.records import add_responses, many
    from tests.helpers.sample_surveys import QUIZ_YAML

    def half_width(yes: int, n: int) -> float:
        sequence = confidence_sequence(yes, n)
        return (sequence.high - sequence.low) / 2

    margin = (half_width(1000, 2000) + half_width(1001, 2003)) / 2
    (surveys_dir / "quiz.yaml").write_text(
        QUIZ_YAML + f"targets:\n  - {{question: cheated, margin: {margin!r}}}\nclose_when_targets_met: true\n"
    )
    add_responses(app, many(1000, 1000))
    sent = 0
    for _ in range(5):
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"{live_server}/s/quiz")
        if page.get_by_role("heading", name="This survey is closed").count():
            context.close()
            break
        fill_in(page)
        submit(page)
        expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
        sent += 1
        context.close()
    assert sent == 2
    assert len(stored_answers(app)) == 2002
    context = browser.new_context()
    page = context.new_page()
    response = page.goto(f"{live_server}/s/quiz")
    assert response.status == 410 and page.get_by_role("heading", name="This survey is closed").is_visible()


# --------------------------------------------------------------------------
# One-parameter yes/no designs on the device.

BINARY_SOFTWARE_DESIGNS = [
    WarnerDesign("3/4"),
    UnrelatedQuestionDesign("2/3", "1/4"),
    KukDesign("7/10", "3/10"),
    MangatDesign("3/4"),
]


@pytest.mark.parametrize("design", BINARY_SOFTWARE_DESIGNS, ids=["warner", "unrelated", "kuk", "mangat"])
def test_browser_binary_randomizer_passes_privacy_audit(randomizer, design):
    """randomize.js through its dispatch (RR.randomizeAnswer with the design key's spec): 10^5 draws per true
    answer, audited like the server's, at family level 10^-5 (a new sample each run: tests/helpers/audit.py)."""
    page = randomizer
    spec = json.dumps({"choices": ["yes", "no"], "design": design.to_dict()})
    counts = browser_counts(page, f"RR.randomizeAnswer(truth, {spec})", ["yes", "no"], N_DRAWS)
    for truth in counts:
        counts[truth].setdefault("yes", 0)
        counts[truth].setdefault("no", 0)
    assert audit(counts, N_DRAWS, design.epsilon, yes_no_expected(design), LIVE_FAMILY_ALPHA) == []


@pytest.mark.parametrize("design", [CrosswiseDesign("1/4"), TriangularDesign("1/4")], ids=["crosswise", "triangular"])
def test_browser_passes_crosswise_and_triangular_answers_through(randomizer, design):
    page = randomizer
    spec = json.dumps({"choices": ["yes", "no"], "design": design.to_dict()})
    counts = browser_counts(page, f"RR.randomizeAnswer(truth, {spec})", ["yes", "no"], 1000)
    assert counts == {"yes": {"yes": 1000}, "no": {"no": 1000}}


def test_device_sends_the_crosswise_answer_as_given_and_warner_randomized(browser, shipped_server):
    """The shipped crosswise example with every draw forced to 2^32 - 5 (randomBelow(4) = 3, so Warner with
    p = 3/4 answers the negation: a true "yes" is sent as "no"); the crosswise answer is sent as chosen."""
    context = browser.new_context()
    page = context.new_page()
    page.add_init_script(FORCED_COINS)
    page.goto(f"{shipped_server}/s/drug-use-crosswise")
    assert "Second statement: “My mother's birthday is in January, February or March.”" in visible_text(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "respond-form-crosswise-js.png"), full_page=True)  # for review
    fill_in(page, {"cannabis": "Exactly one “yes”", "pills": "Yes"})
    request = submit(page)
    fields = dict(posted_fields(request))
    assert "cannabis" not in fields and "pills" not in fields
    assert fields["rr-cannabis"].strip() == "no" and fields["rr-pills"].strip() == "no"
    expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
    context.close()


# --------------------------------------------------------------------------
# The shipped stochastic lie detector with its direct-question control arm.

LIE_DETECTOR = "tax-honesty-lie-detector"
#: Every draw 0: randomBelow(n) = 0, so the lie detector's u = 0 is below group 2's theta0 D = (1 - 2/3) 3 = 1
#: and a true "no" is sent as "yes".
ZERO_DRAWS = "crypto.getRandomValues = function (array) { array.fill(0); return array; };"


def remembered_arm(arm: str) -> str:
    """An init script that puts this browser in ``arm`` (as randomize.js remembers a drawn arm)."""
    return f'window.localStorage.setItem("rr:{LIE_DETECTOR}:v1:arm", "{arm}");'


def shipped_rows(shipped_app) -> list[dict]:
    from web.db import open_database

    db = open_database(shipped_app)
    try:
        return list(db.query("SELECT arm, randomized_on, answers FROM responses"))
    finally:
        db.close()


def test_device_sends_the_lie_detector_answer_randomized_in_its_group(browser, shipped_server, shipped_app):
    """Group 2, every draw 0: the true "no" leaves the device as "yes" (never as "no"), with the group in one
    character; the stored row has the same group and answer. The form says nothing of a direct arm."""
    context = browser.new_context()
    page = context.new_page()
    page.add_init_script(remembered_arm("2") + ZERO_DRAWS)
    page.goto(f"{shipped_server}/s/{LIE_DETECTOR}")
    expect(page.locator("#direct-arm-note")).not_to_be_visible()
    assert "randomized on this device" in visible_text(page)  # group 2 randomizes here
    page.get_by_text("How your answers are protected").click()
    assert "no epsilon guarantee: one answer fully reveals" in visible_text(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "respond-form-lie-detector-js.png"), full_page=True)  # for review
    fill_in(page, {"evaded": "No", "employment": "Self-employed"})
    request = submit(page)
    fields = dict(posted_fields(request))
    assert "evaded" not in fields and fields["rr-evaded"].strip() == "yes"
    assert (fields["arm"], fields["randomized_on"]) == ("2", "device")
    expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
    (row,) = shipped_rows(shipped_app)
    assert (row["arm"], row["randomized_on"], json.loads(row["answers"])["evaded"]) == ("2", "device", "yes")
    context.close()


def test_device_in_the_direct_arm_says_so_and_sends_the_answer_as_given(browser, shipped_server, shipped_app):
    context = browser.new_context()
    page = context.new_page()
    page.add_init_script(remembered_arm("d") + ZERO_DRAWS)
    page.goto(f"{shipped_server}/s/{LIE_DETECTOR}")
    expect(page.locator("#direct-arm-note")).to_be_visible()
    assert "nothing is randomized" in page.locator("#direct-arm-note").inner_text()
    assert "randomized on this device" not in visible_text(page)  # the note under the questions is hidden
    fill_in(page, {"evaded": "No", "employment": "Employed"})
    fields = dict(posted_fields(submit(page)))
    assert fields["rr-evaded"].strip() == "no" and fields["arm"] == "d"
    (row,) = shipped_rows(shipped_app)
    assert (row["arm"], json.loads(row["answers"])["evaded"]) == ("direct", "no")
    context.close()


def test_without_javascript_the_lie_detector_arm_comes_from_the_server(browser, shipped_server, shipped_app):
    """JavaScript off: the server drew the arm with the form (posted back as drawn) and randomizes on arrival;
    the page says that the true answer is sent."""
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{shipped_server}/s/{LIE_DETECTOR}")
    drawn = page.locator("input[name=arm]").get_attribute("value")
    assert drawn in ("1", "2", "d")
    assert page.locator("#direct-arm-note").is_visible() == (drawn == "d")
    assert SERVER_SENTENCE in visible_text(page)
    page.screenshot(path=str(ARTIFACTS / "respond-form-lie-detector-no-js.png"), full_page=True)  # for review
    fill_in(page, {"evaded": "Yes", "employment": "Other or none"})
    fields = dict(posted_fields(submit(page)))
    assert fields["arm"] == drawn and "rr-evaded" not in fields
    (row,) = shipped_rows(shipped_app)
    assert row["arm"] == {"d": "direct"}.get(drawn, drawn) and row["randomized_on"] == "server"
    assert json.loads(row["answers"])["evaded"] == "yes"  # a true yes is stored yes in either group, and directly
    context.close()


@pytest.mark.parametrize(
    "design",
    [StochasticLieDetectorDesign("1/3", "2/3"), CheaterDetectionDesign("1/4", "3/5")],
    ids=["sld", "cdm"],
)
@pytest.mark.parametrize("group", ["1", "2"])
def test_browser_two_group_randomizer_passes_privacy_audit(page, live_server, design, group):
    """randomize.js through its dispatch in each group (RR.setArm): 10^5 draws per true answer, audited like the
    server's, at family level 10^-5 (a new sample each run), against the group's theta1 = 1 and theta0
    (surveys/arms.py)."""
    page.goto(f"{live_server}/s/quiz")
    page.evaluate(f"RR.setArm('{group}')")
    spec = json.dumps({"choices": ["yes", "no"], "design": design.to_dict()})
    counts = browser_counts(page, f"RR.randomizeAnswer(truth, {spec})", ["yes", "no"], N_DRAWS)
    for truth in counts:
        counts[truth].setdefault("yes", 0)
        counts[truth].setdefault("no", 0)
    theta1, theta0 = (float(p) for p in group_yes_probabilities(design, group))
    expected = {"yes": {"yes": theta1, "no": 1 - theta1}, "no": {"yes": theta0, "no": 1 - theta0}}
    assert audit(counts, N_DRAWS, design.epsilon, expected, LIVE_FAMILY_ALPHA) == []


def test_browser_draws_the_arm_with_the_shares(page, live_server):
    """20,000 device draws with group share 1/2 and direct share 1/5: each arm within its Clopper-Pearson
    interval, the three together at family level 10^-5 (a new sample each run: tests/helpers/audit.py)."""
    page.goto(f"{live_server}/s/quiz")
    n = 20_000
    counts = page.evaluate(
        """(n) => { const c = {}; for (let i = 0; i < n; i++) { const a = RR.drawArm("1/2", "1/5");
        c[a] = (c[a] || 0) + 1; } return c; }""",
        n,
    )
    expected = {"d": 0.2, "1": 0.4, "2": 0.4}
    assert set(counts) == set(expected)
    for arm, share in expected.items():
        alpha = LIVE_FAMILY_ALPHA / 2 / len(expected)  # two one-sided bounds per arm
        low, high = clopper_pearson_lower(counts[arm], n, alpha), clopper_pearson_upper(counts[arm], n, alpha)
        assert low <= share <= high, counts


def test_browser_misclassification_randomizer_passes_privacy_audit(randomizer):
    """randomize.js through its dispatch: 10^5 draws per true option of a 3 x 3 matrix, audited like the
    server's against P[j, i] (van den Hout and van der Heijden 2002)."""
    design = MisclassificationDesign([["3/5", "1/10", "1/5"], ["1/4", "7/10", "1/5"], ["3/20", "1/5", "3/5"]])
    choices = ["low", "middle", "high"]
    page = randomizer
    spec = json.dumps({"choices": choices, "design": design.to_dict()})
    counts = browser_counts(page, f"RR.randomizeAnswer(truth, {spec})", choices, N_DRAWS)
    for truth in counts:
        for report in choices:
            counts[truth].setdefault(report, 0)
    expected = {x: {r: float(design.matrix[j][i]) for j, r in enumerate(choices)} for i, x in enumerate(choices)}
    assert audit(counts, N_DRAWS, design.epsilon, expected, LIVE_FAMILY_ALPHA) == []


SHIPPED_IDS = sorted(path.stem for path in (Path(__file__).resolve().parent.parent / "survey_files").glob("*.yaml"))


@pytest.mark.parametrize("survey_id", SHIPPED_IDS)
@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_the_privacy_wording_a_browser_shows_is_true_of_the_designs(browser, shipped_server, survey_id, javascript):
    """Each shipped survey's first page as Chromium shows it (the details opened), JavaScript on or off, against
    the designs' own properties (analysis/): "no stored answer proves" only when no epsilon is infinite, coins
    only with the two-coin design, the device note only under a page with an answer drawn on the device."""
    from surveys.files import load_survey_file

    survey = load_survey_file(Path(__file__).resolve().parent.parent / "survey_files" / f"{survey_id}.yaml")
    drawn = {
        q.name for q in survey.questions if q.design is not None and getattr(q.design, "randomized_by_software", True)
    }
    revealing = any(math.isinf(q.design.epsilon) for q in survey.questions if q.design is not None)
    context = browser.new_context(java_script_enabled=javascript)
    page = context.new_page()
    if survey.group_1_share is not None:
        page.add_init_script(remembered_arm("1"))  # a group that randomizes, not the direct arm
    page.goto(f"{shipped_server}/s/{survey_id}")
    page.get_by_text("How your answers are protected").click()
    text = visible_text(page)
    assert ("no stored answer proves" in text) == bool(drawn and not revealing), text
    assert ("coin" in text.lower()) == any(q.design == TWO_COIN for q in survey.questions), text
    first_page_drawn = bool(drawn & set(survey.page_names[0]))
    assert ("randomized on this device" in text) == (javascript and first_page_drawn), text
    assert ("the server randomizes them at once" in text) == (not javascript and bool(drawn)), text
    context.close()
