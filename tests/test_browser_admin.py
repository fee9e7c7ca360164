"""Playwright: an admin signs in, reads a survey's results, changes the interval
method and downloads the CSV. A screenshot of the results page is saved in
``test-artifacts/`` (kept by CI as an artifact)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from analysis import estimate_proportion
from tests.helpers import ADMIN_NAME, ADMIN_PASSWORD, add_responses, many

pytestmark = pytest.mark.browser
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


def sign_in(page, live_server):
    page.goto(f"{live_server}/admin/")
    page.get_by_label("Account").fill(ADMIN_NAME)
    page.get_by_label("Password").fill(ADMIN_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{live_server}/admin/")


def test_admin_reads_results_changes_method_and_downloads(page, live_server, app, admin_account):
    add_responses(app, many(70, 50))
    sign_in(page, live_server)
    page.get_by_role("link", name="Test quiz").click()
    page.wait_for_load_state()
    chart = page.locator("svg.chart")
    assert chart.is_visible()
    expected = estimate_proportion(70, 120)
    assert page.get_by_text(f"{100 * expected.estimate:.1f}%").first.is_visible()
    wilson = expected.confidence_interval(0.95, "wilson")
    assert page.get_by_text(f"{100 * wilson.low:.1f}% – {100 * wilson.high:.1f}%").first.is_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "admin-results.png"), full_page=True)

    page.get_by_label("Interval method").select_option("clopper-pearson")
    page.get_by_role("button", name="Update").click()
    page.wait_for_url("**method=clopper-pearson**")
    exact = expected.confidence_interval(0.95, "clopper-pearson")
    assert page.get_by_text(f"{100 * exact.low:.1f}% – {100 * exact.high:.1f}%").first.is_visible()

    with page.expect_download() as download_info:
        page.get_by_role("link", name="Estimates (CSV)").click()
    text = Path(download_info.value.path()).read_text()
    rows = {r["question"]: r for r in csv.DictReader(io.StringIO(text)) if not r["option"]}
    assert rows["cheated"]["ci_method"] == "clopper-pearson"
    assert float(rows["cheated"]["ci_low"]) == pytest.approx(exact.low, rel=1e-9)
    assert (ARTIFACTS / "admin-results.png").stat().st_size > 10_000
