"""Playwright: an admin signs in, reads a survey's results, changes the interval
method and downloads the CSV. A screenshot of the results page is saved in
``test-artifacts/`` (kept by CI as an artifact)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from playwright.sync_api import expect

from analysis import estimate_proportion
from tests.helpers.browser_steps import BROWSER_ONLY_ON_SQLITE, sign_in
from tests.helpers.records import add_responses, many

pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only(reason=BROWSER_ONLY_ON_SQLITE)]
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


def test_admin_reads_results_changes_method_and_downloads(page, live_server, app, admin_account):
    add_responses(app, many(70, 50))
    sign_in(page, live_server)
    page.get_by_role("link", name="Test quiz").click()
    page.wait_for_load_state()
    chart = page.locator("svg.chart")
    expect(chart).to_be_visible()
    expected = estimate_proportion(70, 120)
    expect(page.get_by_text(f"{100 * expected.estimate:.1f}%").first).to_be_visible()
    wilson = expected.confidence_interval(0.95, "wilson")
    expect(page.get_by_text(f"{100 * wilson.low:.1f}% – {100 * wilson.high:.1f}%").first).to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "admin-results.png"), full_page=True)

    page.get_by_label("Interval method").select_option("clopper-pearson")
    page.get_by_role("button", name="Update").click()
    page.wait_for_url("**method=clopper-pearson**")
    exact = expected.confidence_interval(0.95, "clopper-pearson")
    expect(page.get_by_text(f"{100 * exact.low:.1f}% – {100 * exact.high:.1f}%").first).to_be_visible()

    with page.expect_download() as download_info:
        page.get_by_role("link", name="Estimates (CSV)").click()
    text = Path(download_info.value.path()).read_text()
    rows = {r["question"]: r for r in csv.DictReader(io.StringIO(text)) if not r["option"]}
    assert rows["cheated"]["ci_method"] == "clopper-pearson"
    assert float(rows["cheated"]["ci_low"]) == pytest.approx(exact.low, rel=1e-9)
    assert (ARTIFACTS / "admin-results.png").stat().st_size > 10_000


PHONE = {"width": 375, "height": 667}
DESKTOP = {"width": 1280, "height": 900}


def signed_in_page(browser, live_server, viewport):
    """A fresh context of ``viewport`` size, signed in."""
    context = browser.new_context(
        viewport=viewport, is_mobile=viewport["width"] < 500, has_touch=viewport["width"] < 500
    )
    page = context.new_page()
    sign_in(page, live_server)
    return page


def page_overflow(page) -> int:
    """How far the page itself is wider than the window (0: nothing falls off the screen)."""
    return page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")


def cut_chart_labels(page) -> list[str]:
    """Chart texts cut short with an ellipsis, or drawn past the chart's right edge."""
    return page.evaluate(
        """() => [...document.querySelectorAll('svg.chart text')].filter(t => {
            const width = t.ownerSVGElement.viewBox.baseVal.width;
            const box = t.getBBox();
            return t.textContent.trim().endsWith('\u2026') || box.x + box.width > width + 0.5 || box.x < -0.5;
        }).map(t => t.textContent)"""
    )


def smallest_chart_font_px(page) -> float:
    """The smallest rendered font size of a chart text, in CSS pixels on the screen."""
    return page.evaluate(
        """() => Math.min(...[...document.querySelectorAll('svg.chart text')].map(t => {
            const svg = t.ownerSVGElement;
            const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            return parseFloat(getComputedStyle(t).fontSize) * scale;
        }))"""
    )


LONG_LABEL = "In the last twelve months, how many times have you seen a classmate copy answers during an exam?"


def lengthen_a_label(surveys_dir):
    """Give the first question a label as long as the shipped examples' longest (cut short before)."""
    path = surveys_dir / "quiz.yaml"
    path.write_text(path.read_text().replace("Have you ever cheated on an exam?", LONG_LABEL))


ADMIN_PAGES = {
    "dashboard": "/admin/",
    "results": "/admin/surveys/quiz",
    "breakdown": "/admin/surveys/quiz?by=year",
}


@pytest.mark.parametrize("name", sorted(ADMIN_PAGES))
@pytest.mark.parametrize(("size", "viewport"), [("phone", PHONE), ("desktop", DESKTOP)])
def test_admin_pages_fit_the_screen_and_are_saved(
    browser, live_server, app, admin_account, surveys_dir, name, size, viewport
):
    lengthen_a_label(surveys_dir)
    add_responses(app, many(70, 50))
    page = signed_in_page(browser, live_server, viewport)
    page.goto(f"{live_server}{ADMIN_PAGES[name]}")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"admin-{name}-{size}.png"), full_page=True)
    assert page_overflow(page) <= 0
    assert cut_chart_labels(page) == []
    if name != "dashboard":
        assert smallest_chart_font_px(page) >= 11
    if size == "desktop":
        # The page uses the width of a desktop screen, not a 700-pixel column.
        assert page.evaluate("document.querySelector('main').getBoundingClientRect().width") >= 1100
    page.context.close()


def test_dashboard_on_a_phone_shows_epsilon_and_close_without_scrolling_sideways(
    browser, live_server, app, admin_account
):
    page = signed_in_page(browser, live_server, PHONE)
    for element in (page.get_by_role("link", name="Close").first, page.locator("td.epsilon").first):
        box = element.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    assert page_overflow(page) <= 0
    page.context.close()


@pytest.mark.parametrize(("size", "viewport"), [("phone", PHONE), ("desktop", DESKTOP)])
def test_admin_fits_a_model_sees_its_table_and_chart_and_downloads_it(
    browser, live_server, app, admin_account, size, viewport
):
    from surveys.files import load_catalog
    from surveys.models import ModelChoice
    from tests.helpers.records import model_answers
    from web import gather
    from web.charts import figures
    from web.db import open_database

    add_responses(app, model_answers())
    page = signed_in_page(browser, live_server, viewport)
    page.get_by_role("link", name="Test quiz").click()
    page.wait_for_load_state()
    form = page.get_by_role("form", name="Model to fit")
    form.get_by_label("Outcome").select_option("cheated")
    form.get_by_label("Year of study").check()
    form.get_by_label("reference").select_option("year:second")
    form.get_by_role("button", name="Fit the model").click()
    page.wait_for_url("**model_predictors=year**")

    db = open_database(app)
    survey = load_catalog(app.config["SURVEYS_DIR"]).get("quiz")
    expected = gather.stored_model(db, survey, ModelChoice("cheated", ("year",), {"year": "second"}), 0.95)
    db.close()
    third = expected.fit.coefficient("Year of study: third vs second")
    coefficients = page.get_by_role("table", name="Coefficients")
    expect(coefficients).to_be_visible()
    row = coefficients.get_by_role("row", name="Year of study: third vs second")
    assert f"{third.estimate:.3f}" in row.inner_text()
    chart = page.locator("figure svg.chart").filter(has_text="Predicted share of true yes")
    chart.scroll_into_view_if_needed()
    expect(chart).to_be_visible()
    assert chart.locator("circle.estimate").count() == len(expected.groups) == 3
    for group in expected.groups:  # each group's predicted share and interval, written beside its row
        expect(chart.get_by_text(figures(group), exact=True)).to_be_visible()
    assert page.locator("p.model-sentence").inner_text().startswith("From 400 answers")
    assert page_overflow(page) <= 0
    assert cut_chart_labels(page) == []
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#model").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"admin-model-{size}.png"), full_page=True)
    if size == "desktop":
        page.screenshot(path=str(ARTIFACTS / "admin-model.png"), full_page=True)

    with page.expect_download() as download_info:
        page.get_by_role("link", name="Model (CSV)").click()
    rows = list(csv.DictReader(io.StringIO(Path(download_info.value.path()).read_text())))
    downloaded = {r["name"]: r for r in rows if r["kind"] == "coefficient"}
    assert float(downloaded["Year of study: third vs second"]["estimate"]) == pytest.approx(third.estimate, rel=1e-9)
    assert float(downloaded["Year of study: third vs second"]["high"]) == pytest.approx(third.odds_ratio_high, rel=1e-9)
    assert [r["name"] for r in rows if r["kind"] == "lr_test"] == ["Year of study", "model"]
    assert len([r for r in rows if r["kind"] == "prevalence"]) == 3
    assert (ARTIFACTS / f"admin-model-{size}.png").stat().st_size > 10_000
    page.context.close()
