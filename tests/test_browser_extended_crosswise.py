"""Playwright: an extended crosswise question in Chromium. The device (JavaScript on) and the server (off) each
draw the group; the respondent reads that group's second statement only, and the answer is sent and stored as
given with the group. ``crypto.getRandomValues`` fills every word with 13 (13 mod 2 = 1: not below group 1's
share of 1/2, so group 2), and the server's ``secrets.randbelow(n)`` returns 13 mod n."""

from __future__ import annotations

import json
from types import SimpleNamespace
from urllib.parse import parse_qsl

import pytest
from playwright.sync_api import expect

from tests.helpers.browser_steps import BROWSER_ONLY_ON_SQLITE
from tests.helpers.sample_surveys import ECWM_FIRST as FIRST
from tests.helpers.sample_surveys import ECWM_SECOND as SECOND
from tests.helpers.sample_surveys import ECWM_YAML

pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only(reason=BROWSER_ONLY_ON_SQLITE)]

WORD = 13


@pytest.fixture
def ecwm_server(surveys_dir, live_server):
    (surveys_dir / "ecwm.yaml").write_text(ECWM_YAML)
    return live_server


def _stored(app) -> list[dict]:
    from web.db import open_database

    db = open_database(app)
    try:
        return [dict(row, answers=json.loads(row["answers"])) for row in db.query("SELECT * FROM responses")]
    finally:
        db.close()


def _answer_same_and_submit(page):
    page.locator("fieldset[data-question=cannabis]").get_by_label("Both “yes” or both “no”", exact=True).check()
    with page.expect_request(lambda r: r.method == "POST") as request_info:
        page.get_by_role("button", name="Submit answers").click()
    page.wait_for_load_state()
    return request_info.value


def test_the_device_draws_group_2_shows_its_statement_and_sends_the_answer_as_given(
    browser, ecwm_server, app, monkeypatch
):
    """The server renders the form for group 1 (its draw fixed at 0); the device draws group 2 and shows
    group 2's statement in its place."""
    import surveys.arms

    monkeypatch.setattr(surveys.arms, "secrets", SimpleNamespace(randbelow=lambda n: 0))
    context = browser.new_context()
    page = context.new_page()
    page.add_init_script(f"crypto.getRandomValues = function (a) {{ a.fill({WORD}); return a; }};")
    page.goto(f"{ecwm_server}/s/ecwm")
    expect(page.locator("#second-cannabis-2")).to_be_visible()
    expect(page.locator("#second-cannabis-2")).to_contain_text(SECOND)
    expect(page.locator("#second-cannabis")).to_be_hidden()
    assert FIRST in page.locator("#second-cannabis").inner_text()  # sent, but hidden
    request = _answer_same_and_submit(page)
    sent = dict(parse_qsl(request.post_data))
    assert sent["arm"] == "2" and sent["randomized_on"] == "device"
    (row,) = _stored(app)
    assert (row["arm"], row["randomized_on"], row["answers"]) == ("2", "device", {"cannabis": "yes"})
    context.close()


def test_without_javascript_the_server_draws_group_2_and_shows_its_statement(browser, ecwm_server, app, monkeypatch):
    import surveys.arms

    monkeypatch.setattr(surveys.arms, "secrets", SimpleNamespace(randbelow=lambda n: WORD % n))
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{ecwm_server}/s/ecwm")
    assert page.locator("input[name=arm]").get_attribute("value") == "2"
    expect(page.locator("#second-cannabis-2")).to_be_visible()
    expect(page.locator("#second-cannabis-2")).to_contain_text(SECOND)
    expect(page.locator("#second-cannabis")).to_be_hidden()
    assert FIRST in page.locator("#second-cannabis").inner_text()  # sent, but hidden
    _answer_same_and_submit(page)
    (row,) = _stored(app)
    assert (row["arm"], row["randomized_on"], row["answers"]) == ("2", "server", {"cannabis": "yes"})
    context.close()
