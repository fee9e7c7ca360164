"""Playwright: a researcher writes a survey in the page with a mistake, sees the problem beside its line,
fixes it, saves the draft and previews it with and without JavaScript (web/editor.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.browser_steps import BROWSER_ONLY_ON_SQLITE, sign_in
from tests.helpers.sample_surveys import QUIZ_YAML

pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only(reason=BROWSER_ONLY_ON_SQLITE)]
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
DRAFT_YAML = QUIZ_YAML.replace("id: quiz", "id: drafted")


def test_a_survey_written_with_a_mistake_is_fixed_beside_its_line_and_previewed(page, live_server, admin_account):
    sign_in(page, live_server)
    page.get_by_role("link", name="New survey").click()
    broken = DRAFT_YAML.replace("a: 1/6, b: 1/6", "a: -1/6, b: 1/6")
    page.get_by_label("The survey as YAML").fill(broken)
    page.get_by_role("button", name="Save as a draft").click()
    page.wait_for_load_state()
    line = next(n for n, text in enumerate(broken.splitlines(), start=1) if "a: -1/6" in text)
    beside = page.locator(f"#line-{line} .problem")
    assert "field 'design.a'" in beside.inner_text() and "question 'lied'" in beside.inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "editor-problem.png"), full_page=True)

    page.get_by_label("The survey as YAML").fill(
        page.get_by_label("The survey as YAML").input_value().replace("-1/6", "1/6")
    )
    page.get_by_role("button", name="Save as a draft").click()
    page.wait_for_url(f"{live_server}/admin/surveys/drafted/edit")
    assert "is saved as a draft" in page.locator(".notice.success").inner_text()

    page.locator("a.preview-server").first.click()
    page.wait_for_load_state()
    assert page.locator("fieldset[data-question=cheated]").is_visible()
    assert page.locator("script[src$='randomize.js']").count() == 0
    page.go_back()
    page.locator("a.preview-device").first.click()
    page.wait_for_load_state()
    assert page.locator("fieldset[data-question=cheated]").is_visible()
    assert page.locator("script[src$='randomize.js']").count() == 1
