"""Playwright: the results page's "How well does the design fit?" section, with an anchor's careless share and a
corrected share, has no accessibility violation (axe-core)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from storage import responses
from surveys.submission import noisy_response
from tests.helpers.accessibility import axe_violations
from tests.helpers.browser_steps import BROWSER_ONLY_ON_SQLITE, sign_in
from tests.helpers.sample_surveys import ANCHORED_YAML, survey_in
from web.db import open_database

pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only(reason=BROWSER_ONLY_ON_SQLITE)]


@pytest.fixture
def anchored(surveys_dir):
    (surveys_dir / "anchored.yaml").write_text(ANCHORED_YAML)
    return surveys_dir


def test_the_design_fit_section_has_no_accessibility_violation(anchored, page, live_server, app, admin_account):
    survey = survey_in(app, "anchored")
    db = open_database(app)
    for index, answers in enumerate([{"half": "yes", "cheated": "yes"}] * 34 + [{"half": "no", "cheated": "no"}] * 66):
        responses.store_response(db, noisy_response(survey, answers, "device"), f"axe-{index}", "2026-11-20")
    db.close()
    sign_in(page, live_server)
    page.goto(f"{live_server}/admin/surveys/anchored")
    expect(page.locator("#careless-corrected")).to_be_visible()
    assert axe_violations(page) == []
