"""Playwright: an owner chooses the figures of a release, shows its cost, publishes it, reads the ledger, and
anyone opens the release at its address, its print view and its CSV. The publishing page, the ledger, the
release and its print view at 375 and 1280 px: no wider than the screen, saved as screenshots in
``test-artifacts/screenshots/`` and checked with axe-core (:mod:`tests.helpers.accessibility`)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.helpers.accessibility import PageChecks, describe
from tests.helpers.browser_steps import BROWSER_ONLY_ON_SQLITE, sign_in
from tests.helpers.records import add_responses, many
from tests.helpers.sample_surveys import quiz_with_releases

pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only(reason=BROWSER_ONLY_ON_SQLITE)]


@pytest.fixture
def surveys_dir(tmp_path):
    folder = tmp_path / "surveys"
    folder.mkdir()
    (folder / "quiz.yaml").write_text(quiz_with_releases())
    return folder


def fits(checks: PageChecks, page, name: str) -> None:
    """At 375 and 1280 px the page is no wider than its viewport; saved and checked with axe into ``checks``."""
    page.wait_for_load_state("load")
    for width in (375, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        assert page.evaluate("document.documentElement.scrollWidth") <= width, (name, width)
        checks.check(page, f"releases-{name}")


def test_an_owner_publishes_a_release_and_anyone_reads_it_on_a_phone(page, browser, app, live_server, admin_account):
    checks = PageChecks()
    add_responses(app, many(30, 34))
    sign_in(page, live_server)
    page.goto(f"{live_server}/admin/surveys/quiz")
    page.get_by_role("link", name="Published releases and their budget").click()
    expect(page.get_by_text("No release is published yet.")).to_be_visible()
    page.get_by_role("link", name="Publish a release").click()
    for label in (
        "Estimate of “Have you ever cheated on an exam?” (randomized answers) (free)",
        "Answers to “Year of study”: counts and shares (costs budget)",
        "Most common answer to “Year of study” (costs budget)",
        "“Have you ever cheated on an exam?” by “Year of study” (costs budget)",
    ):
        page.get_by_label(label, exact=True).check()
    page.get_by_label("Epsilon of this release").fill("0.6")
    page.get_by_role("button", name="Show the cost").click()
    expect(page.get_by_text("It can be published.")).to_be_visible()
    expect(page.get_by_text("Left after it: epsilon 0.4.")).to_be_visible()
    fits(checks, page, "new")
    page.get_by_role("button", name="Publish", exact=True).click()
    page.wait_for_url(f"{live_server}/admin/surveys/quiz/releases")
    expect(page.get_by_text("Release 1 of “Test quiz” is published")).to_be_visible()
    fits(checks, page, "ledger")
    address = page.get_by_role("link", name="Release 1", exact=True).get_attribute("href")

    reader = browser.new_context().new_page()
    reader.goto(f"{live_server}{address}")
    expect(reader.get_by_role("heading", name="Test quiz", exact=True)).to_be_visible()
    expect(reader.get_by_role("heading", name="What protects the respondents")).to_be_visible()
    assert reader.locator("svg.chart").count() == 3
    fits(checks, reader, "release")
    with reader.expect_download() as download:
        reader.get_by_role("link", name="Download exactly what is published (CSV)").click()
    assert download.value.suggested_filename == "release-quiz-1.csv"
    reader.get_by_role("link", name="Print view").click()
    assert reader.get_by_role("link", name="Print view").count() == 0
    fits(checks, reader, "print")
    assert len(checks.found) == 8 and describe(checks.found) == ""
