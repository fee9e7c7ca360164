"""Playwright: a researcher writes a survey in the page with a mistake, sees the problem beside its line,
fixes it, saves the draft and previews it with and without JavaScript (web/editor.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.helpers.accessibility import axe_violations
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
    expect(page.locator("fieldset[data-question=cheated]")).to_be_visible()
    assert page.locator("script[src$='randomize.js']").count() == 0
    page.go_back()
    page.locator("a.preview-device").first.click()
    page.wait_for_load_state()
    expect(page.locator("fieldset[data-question=cheated]")).to_be_visible()
    assert page.locator("script[src$='randomize.js']").count() == 1


def add_question(page, kind: str, settings: dict, name: str, label: str, design: str) -> None:
    """The guided editor: pick ``kind``, type its settings, compare the designs, then add ``design``'s question."""
    page.get_by_role("link", name="Add a question").click()
    page.get_by_label("Kind").select_option(label=kind)
    page.get_by_role("button", name="Show the designs for this kind").click()
    page.wait_for_load_state()
    for field, value in settings.items():
        page.get_by_label(field).first.fill(value)
    page.get_by_role("button", name="Show the designs for this kind").click()
    page.wait_for_load_state()
    expect(page.locator("#design-choices")).to_be_visible()
    assert page.locator("tr[data-design=bounded]").count() == 1
    assert axe_violations(page) == []
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"editor-add-{name}.png"), full_page=True)
    page.get_by_label("Name (a lower-case letter").fill(name)
    page.get_by_label("The question as respondents read it").fill(label)
    page.locator(f"tr[data-design={design}] input[type=radio]").check()
    page.get_by_role("button", name="Add the question to the YAML").click()
    page.wait_for_load_state()


def test_a_decimal_and_a_check_all_question_are_added_with_their_designs_compared(page, live_server, admin_account):
    """A researcher adds a decimal question with the Laplace mechanism and a check-all-that-apply question with the
    symmetric encoding, comparing each kind's designs side by side, and saves both into the draft."""
    sign_in(page, live_server)
    page.get_by_role("link", name="New survey").click()
    page.get_by_label("The survey as YAML").fill(DRAFT_YAML)
    page.get_by_role("button", name="Save as a draft").click()
    page.wait_for_url(f"{live_server}/admin/surveys/drafted/edit")

    decimal = {"Smallest answer": "0", "Largest answer": "10", "Step between answers": "0.5", "ε of the question": "1"}
    add_question(page, "A number with decimals", decimal, "tip", "How much did you tip?", "laplace")
    text = page.get_by_label("The survey as YAML").input_value()
    assert "type: decimal" in text and "step: 0.5" in text and "mechanism: laplace" in text
    page.get_by_role("button", name="Save", exact=True).click()
    page.wait_for_url(f"{live_server}/admin/surveys/drafted/edit")

    page.get_by_role("link", name="Add a question").click()
    page.get_by_label("Kind").select_option(label="Tick all that apply")
    page.get_by_role("button", name="Show the designs for this kind").click()
    page.wait_for_load_state()
    page.locator("#choices-shown").fill("Copied\nLied\nCheated")
    page.get_by_label("ε of the question").fill("2")
    page.get_by_role("button", name="Show the designs for this kind").click()
    page.wait_for_load_state()
    rows = page.locator("#design-choices tbody tr")
    assert rows.count() == 4 and "3 options" in page.locator("#design-choices caption").inner_text()
    page.get_by_label("Name (a lower-case letter").fill("done")
    page.get_by_label("The question as respondents read it").fill("Which of these have you done?")
    page.locator("#choices").fill("Copied\nLied\nCheated")
    page.locator("tr[data-design=symmetric_unary] input[type=radio]").check()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "editor-add-check-all.png"), full_page=True)
    assert axe_violations(page) == []
    page.get_by_role("button", name="Add the question to the YAML").click()
    page.wait_for_load_state()
    page.get_by_role("button", name="Save", exact=True).click()
    page.wait_for_url(f"{live_server}/admin/surveys/drafted/edit")
    text = page.get_by_label("The survey as YAML").input_value()
    assert "type: decimal" in text and "type: select_multiple" in text and "encoding: symmetric_unary" in text
    assert "Saved" in page.locator(".notice.success").inner_text()
