"""Numbers and check-all-that-apply answered in Chromium, JavaScript on and off (issue 27).

The shipped survey ``student-habits`` has a number under the one-bit design (``drinks``), a decimal under the
discrete Laplace mechanism (``unpaid_hours``), a check-all-that-apply question (``done``) and a plain number
(``age``). With JavaScript on, the request carries only the noisy outputs (``rr-<name>``, in their designs'
fixed widths); off, the true grid positions and pairs, randomized by the server. Either way: no true value in
the request (on the device path), the database or the log, and one request length whatever the answers.
"""

from __future__ import annotations

import json
import logging
from urllib.parse import parse_qsl, urlencode

import pytest
from playwright.sync_api import expect

from app import ROOT
from tests.helpers.browser_steps import BROWSER_ONLY_ON_SQLITE, fill_in, press
from tests.helpers.drivers import carried
from tests.helpers.records import stored_answers
from tests.helpers.sample_surveys import DIRECT_NUMBERS_YAML, PAGED_NUMBERS_YAML, make_survey, survey_in
from tests.helpers.servers import served
from web.db import open_database

pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only(reason=BROWSER_ONLY_ON_SQLITE)]

SURVEY = "student-habits"
#: Two sets of true answers, as the lists show them (drinks 0..30, hours in half-hour steps 0.0..20.0, age
#: 16..99; each posted as its grid position: hours 18.5 is position 37, age 99 position 83) and the ticks of
#: ``done``.
LOW = {"drinks": "0", "unpaid_hours": "0.0", "age": "16", "done": (False, False, False)}
HIGH = {"drinks": "30", "unpaid_hours": "18.5", "age": "99", "done": (True, False, True)}


@pytest.fixture
def habits_app(make_app):
    return make_app({"SURVEYS_DIR": str(ROOT / "survey_files"), "SECRET_KEY": "habits"})


@pytest.fixture
def habits_server(habits_app):
    with served(habits_app) as url:
        yield url


def answer(page, truth: dict) -> None:
    for name in ("drinks", "unpaid_hours", "age"):
        page.locator(f"select[name={name}]").select_option(label=truth[name])
    for index, ticked in enumerate(truth["done"], start=1):
        page.locator(f'input[name="done.{index}"][value="{1 if ticked else 0}"]').check()


def submit(page):
    with page.expect_request(lambda r: r.method == "POST") as request_info:
        page.get_by_role("button", name="Submit answers").click()
    page.wait_for_load_state()
    return request_info.value


def request_for(browser, url: str, truth: dict, javascript: bool):
    context = browser.new_context(java_script_enabled=javascript)
    page = context.new_page()
    page.goto(f"{url}/s/{SURVEY}")
    answer(page, truth)
    request = submit(page)
    thanks = page.inner_text("main")
    context.close()
    return request, thanks


def stored(app) -> list[dict]:
    db = open_database(app)
    try:
        return [dict(row, answers=json.loads(row["answers"])) for row in db.query("SELECT * FROM responses")]
    finally:
        db.close()


def test_javascript_on_sends_only_noisy_outputs_of_one_length(browser, habits_server, habits_app, caplog):
    """The device posts rr- fields only, each in its design's width; the stored outputs are those posted; the
    true grid positions are in no request field, and two very different answers post one length."""
    caplog.set_level(logging.INFO)
    low, _ = request_for(browser, habits_server, LOW, True)
    high, thanks = request_for(browser, habits_server, HIGH, True)
    assert "Thank you" in thanks
    fields = dict(parse_qsl(high.post_data, keep_blank_values=True))
    assert fields["randomized_on"] == "device"
    assert not {"drinks", "unpaid_hours", "age", "done.1"} & set(fields)  # no true-answer field is sent
    survey = survey_in(habits_app, SURVEY)
    hours = survey.question("unpaid_hours").design
    assert fields["rr-drinks"] in ("0", "1")  # the one-bit design
    assert len(fields["rr-unpaid_hours"]) == hours.wire_width and "+" not in fields["rr-unpaid_hours"]
    assert fields["rr-age"] == "83" and set(fields["rr-done"]) <= {"0", "1"} and len(fields["rr-done"]) == 3
    assert len(low.post_data) == len(high.post_data)
    rows = stored(habits_app)
    assert [row["randomized_on"] for row in rows] == ["device", "device"]
    last = next(row["answers"] for row in rows if row["answers"]["age"] == "83")
    assert last["drinks"] == fields["rr-drinks"] and last["done"] == fields["rr-done"]
    assert int(last["unpaid_hours"]) == hours.parse_wire(fields["rr-unpaid_hours"])
    assert "unpaid_hours=37" not in caplog.text and "rr-" not in caplog.text


def test_javascript_off_the_server_randomizes_and_the_request_is_as_long(browser, habits_server, habits_app):
    """Without JavaScript the true positions are posted (one width each, every pair always posted) and the
    server stores noisy outputs: the one-bit design's 0/1, a Laplace output, the pairs as randomized bits."""
    low, _ = request_for(browser, habits_server, LOW, False)
    high, thanks = request_for(browser, habits_server, HIGH, False)
    assert len(low.post_data) == len(high.post_data)
    fields = dict(parse_qsl(high.post_data, keep_blank_values=True))
    assert {"drinks", "unpaid_hours", "age", "done.1", "done.2", "done.3"} <= set(fields)
    assert "What was stored" in thanks
    rows = stored(habits_app)
    assert [row["randomized_on"] for row in rows] == ["server", "server"]
    for row in rows:
        assert row["answers"]["drinks"] in ("0", "1")
        assert len(row["answers"]["done"]) == 3


def test_a_retake_sends_the_remembered_outputs(browser, habits_server, habits_app):
    """Permanent randomized response: the same browser answering again (its "answered" cookie cleared, as
    someone retaking on purpose would) sends the outputs it drew the first time, so retakes cannot average the
    noise away; a plain answer is sent as newly given."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{habits_server}/s/{SURVEY}")
    answer(page, HIGH)
    first = dict(parse_qsl(submit(page).post_data))
    context.clear_cookies()
    page.goto(f"{habits_server}/s/{SURVEY}")
    answer(page, LOW)
    second = dict(parse_qsl(submit(page).post_data))
    context.close()
    for name in ("rr-drinks", "rr-unpaid_hours", "rr-done"):
        assert first[name] == second[name]
    assert second["rr-age"] == "00"  # a plain answer is sent as given


# --------------------------------------------------------------------------
# A survey of two pages with numbers and a check-all question (tests/helpers/sample_surveys.py PAGED_NUMBERS_YAML):
# [cheated, drinks, done] | [unpaid_hours, age]; each walk goes to page 2, Back (keeping every earlier answer),
# Next and Submit.

PAGED = make_survey(PAGED_NUMBERS_YAML)
#: Two sets of true answers, by the labels the form shows (hours 18.5 is grid position 37).
PAGED_LOW = {"cheated": "No", "drinks": "0", "done": (False, False, False), "unpaid_hours": "0.0", "age": "16"}
PAGED_HIGH = {"cheated": "Yes", "drinks": "30", "done": (True, False, True), "unpaid_hours": "18.5", "age": "99"}
#: The fields that would carry a true answer to a randomized number or check-all question.
TRUE_FIELDS = {"drinks", "unpaid_hours", "done.1", "done.2", "done.3"}


@pytest.fixture
def paged_habits(surveys_dir):
    (surveys_dir / "paged-habits.yaml").write_text(PAGED_NUMBERS_YAML)


def walk_pages(browser, url: str, truth: dict, javascript: bool) -> list[dict]:
    """One respondent through the two pages (Back from page 2 keeps page 1's answers); every POST's fields."""
    context = browser.new_context(java_script_enabled=javascript)
    page = context.new_page()
    posts: list[dict] = []
    page.on(
        "request",
        lambda r: posts.append(dict(parse_qsl(r.post_data, keep_blank_values=True))) if r.method == "POST" else None,
    )
    page.goto(f"{url}/s/paged-habits")
    fill_in(page, {"cheated": truth["cheated"]})
    page.locator("select[name=drinks]").select_option(label=truth["drinks"])
    for index, ticked in enumerate(truth["done"], start=1):
        page.locator(f'input[name="done.{index}"][value="{1 if ticked else 0}"]').check()
    press(page, "Next")
    assert "Page 2 of 2" in page.inner_text("main")
    press(page, "Back")
    main = page.inner_text("main")
    assert "Page 1 of 2" in main and "cannot be shown" in main
    assert "Keep my earlier answer" in page.locator("select[name=drinks] option:checked").inner_text()
    assert page.locator('input[name="done.keep"][value="1"]').is_checked()
    press(page, "Next")
    page.locator("select[name=unpaid_hours]").select_option(label=truth["unpaid_hours"])
    page.locator("select[name=age]").select_option(label=truth["age"])
    press(page, "Submit answers")
    assert "What was stored" in page.inner_text("main")
    context.close()
    return posts


def test_two_pages_with_javascript_send_and_carry_only_the_devices_outputs_at_one_length(
    browser, live_server, app, paged_habits
):
    """The device posts only noisy outputs on every page (no true-answer field); the token carries page 1's
    outputs through Back and Next (kept: posted blank the second time); they are what is stored; every request
    is as long for two very different sets of answers."""
    low = walk_pages(browser, live_server, PAGED_LOW, True)
    high = walk_pages(browser, live_server, PAGED_HIGH, True)
    assert [len(urlencode(fields)) for fields in low] == [len(urlencode(fields)) for fields in high]
    assert len(high) == 4 and all(fields["randomized_on"] == "device" for fields in high)
    assert not any(TRUE_FIELDS & set(fields) for fields in low + high)
    first, _, kept, last = high
    assert kept["rr-drinks"].strip() == "" and kept["rr-done"].strip() == ""  # kept: blank, the token has them
    for fields in high[1:]:
        token = carried(app, PAGED, fields["carried"])
        assert str(PAGED.question("drinks").design.parse_wire(first["rr-drinks"])) == token["drinks"]
        assert token["done"] == first["rr-done"]
    row = next(answers for answers in stored_answers(app) if answers["age"] == "83")
    assert row["drinks"] == token["drinks"] and row["done"] == first["rr-done"]
    assert row["unpaid_hours"] == str(PAGED.question("unpaid_hours").design.parse_wire(last["rr-unpaid_hours"]))


def test_two_pages_without_javascript_are_randomized_by_the_server_and_carry_its_outputs_at_one_length(
    browser, live_server, app, paged_habits
):
    """Without JavaScript each page posts its true values (every pair, one width each) and the server randomizes
    them on arrival: the token after page 1 carries the server's outputs, kept through Back and Next, and they are
    what is stored; every request is as long for two very different sets of answers."""
    low = walk_pages(browser, live_server, PAGED_LOW, False)
    high = walk_pages(browser, live_server, PAGED_HIGH, False)
    assert [len(urlencode(fields)) for fields in low] == [len(urlencode(fields)) for fields in high]
    assert {"drinks", "done.1", "done.2", "done.3"} <= set(high[0]) and high[2]["done.keep"] == "1"
    after_first = carried(app, PAGED, high[1]["carried"])
    for fields in high[2:]:
        token = carried(app, PAGED, fields["carried"])
        assert (token["drinks"], token["done"]) == (after_first["drinks"], after_first["done"])
    row = next(answers for answers in stored_answers(app) if answers["age"] == "83")
    assert row["drinks"] == after_first["drinks"] and row["done"] == after_first["done"]
    low_output, high_output = PAGED.question("drinks").design.output_range
    assert low_output <= int(row["drinks"]) <= high_output and len(row["done"]) == 3


def test_in_the_direct_arm_the_device_sends_the_yes_no_as_given_and_randomizes_the_number(
    browser, live_server, app, surveys_dir
):
    """A browser drawn into the direct-question arm: the note says that numbers stay randomized; the yes/no answer is
    sent as given and the number as its design's one bit (0 or 1, never the true 20), stored in the direct arm."""
    (surveys_dir / "direct-numbers.yaml").write_text(DIRECT_NUMBERS_YAML)
    context = browser.new_context()
    page = context.new_page()
    page.add_init_script('window.localStorage.setItem("rr:direct-numbers:v1:arm", "d");')
    page.goto(f"{live_server}/s/direct-numbers")
    note = page.locator("#direct-arm-note")
    expect(note).to_be_visible()
    expect(note).to_contain_text("except the numbers")
    fill_in(page, {"cheated": "Yes"})
    page.locator("select[name=drinks]").select_option(label="20")
    fields = dict(parse_qsl(submit(page).post_data, keep_blank_values=True))
    context.close()
    assert fields["arm"] == "d" and fields["rr-cheated"].strip() == "yes" and fields["rr-drinks"] in ("0", "1")
    (row,) = stored(app)
    assert row["arm"] == "direct" and row["answers"] == {"cheated": "yes", "drinks": fields["rr-drinks"]}
