"""Playwright: every page a researcher and a respondent see, in the order they meet them, at a phone's width
(375 px) and a desktop's (1280 px). Each page is saved as a screenshot in ``test-artifacts/screenshots/``
(``<page>-<width>.png``) and checked with axe-core (:mod:`tests.helpers.accessibility`): no violation on any.

Per width, two browser contexts: a visitor's with JavaScript off (the sign-in page and its errors, the public form
as the server randomizes it) and a researcher's with JavaScript on (signed in once, at the first width; the
second width reuses the signed-in state), which then answers the public form as a respondent's device does.

To add a page, add a step to :func:`visitor_pages` or :func:`researcher_pages` that opens it and calls
``checks.check(page, "<name>")``, and its name to :data:`VISITOR_PAGES` or :data:`RESEARCHER_PAGES`.
To run the journey on PostgreSQL too, replace :data:`BACKENDS` by ``pytest.mark.both_backends``.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.helpers import accessibility
from tests.helpers.accessibility import PageChecks, describe
from tests.helpers.browser_steps import BROWSER_ONLY_ON_SQLITE, press, sign_in
from tests.helpers.drivers import ADMIN_NAME
from tests.helpers.records import add_responses, many
from tests.helpers.sample_surveys import QUIZ_YAML

#: The journey's backends (the ``app`` fixture's): SQLite, as every browser test.
BACKENDS = pytest.mark.sqlite_only(reason=BROWSER_ONLY_ON_SQLITE)
pytestmark = [pytest.mark.browser, pytest.mark.journey, BACKENDS]

WIDTHS = {375: {"width": 375, "height": 667}, 1280: {"width": 1280, "height": 900}}
ANSWERS = {"cheated": "No", "lied": "Yes", "ai_use": "sometimes", "year": "second"}
#: The pages each context checks, in order, at each width.
VISITOR_PAGES = [
    "start",
    "not-found",
    "sign-in",
    "sign-in-wrong-password",
    "sign-in-empty",
    *(f"{name}-nojs" for name in ("form", "refused", "thanks", "answered-before")),
]
RESEARCHER_PAGES = [
    "dashboard",
    "results",
    "results-by-group",
    "close",
    "preview",
    "preview-thanks",
    "new-survey",
    "new-survey-problems",
    "editor",
    "add-question",
    *(f"{name}-js" for name in ("form", "refused", "thanks", "answered-before")),
]


def new_context(browser, width: int, javascript: bool, signed_in: dict | None = None):
    """A context of ``width`` (a phone's touch screen below 500 px), with or without JavaScript, and with the
    cookies of ``signed_in`` (a context's ``storage_state()``) if given."""
    phone = width < 500
    return browser.new_context(
        viewport=WIDTHS[width],
        is_mobile=phone,
        has_touch=phone,
        java_script_enabled=javascript,
        storage_state=signed_in,
    )


def choose(page, answers: dict) -> None:
    """Check the option labelled ``answers[question]`` of each question."""
    for name, label in answers.items():
        page.locator(f"fieldset[data-question={name}]").get_by_label(label, exact=True).check()


def leave_out(page, question: str) -> None:
    """Lift the browser's own check of ``question`` (its radios' ``required``), as a browser that does not check
    would, so the form is sent without its answer and the server's refusal is shown."""
    page.locator(f"fieldset[data-question={question}] input").evaluate_all(
        "inputs => inputs.forEach(input => input.removeAttribute('required'))"
    )


def answer_the_form(page, url: str, checks: PageChecks, mode: str) -> None:
    """The public form, refused for a missing answer, then answered: the form, the refusal, the thank-you page,
    and the form's address opened again (this browser has answered)."""
    page.goto(f"{url}/s/quiz")
    checks.check(page, f"form-{mode}")
    choose(page, {name: label for name, label in ANSWERS.items() if name != "cheated"})
    leave_out(page, "cheated")
    press(page, "Submit answers")
    assert "Your answers were not sent" in page.inner_text("main")
    checks.check(page, f"refused-{mode}")
    choose(page, ANSWERS)
    press(page, "Submit answers")
    expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
    checks.check(page, f"thanks-{mode}")
    page.goto(f"{url}/s/quiz")
    expect(page.get_by_role("heading", name="You have already answered this survey")).to_be_visible()
    checks.check(page, f"answered-before-{mode}")


def visitor_pages(page, url: str, checks: PageChecks) -> None:
    """JavaScript off: the start page, a survey that does not exist, the sign-in page, a wrong password, an empty
    sign-in form; the public form, refused and answered."""
    page.goto(f"{url}/")
    checks.check(page, "start")
    assert page.goto(f"{url}/s/no-such-survey").status == 404
    checks.check(page, "not-found")
    page.goto(f"{url}/admin/login")
    checks.check(page, "sign-in")
    page.get_by_label("Account").fill(ADMIN_NAME)
    page.get_by_label("Password").fill("not the password")
    press(page, "Sign in")
    assert "Wrong account name or password." in page.inner_text("main")
    checks.check(page, "sign-in-wrong-password")
    page.goto(f"{url}/admin/login")
    page.locator("form").evaluate("form => form.noValidate = true")  # the server's check, not the browser's
    press(page, "Sign in")
    assert "This field is required." in page.inner_text("main")
    checks.check(page, "sign-in-empty")
    answer_the_form(page, url, checks, "nojs")


def researcher_pages(page, url: str, checks: PageChecks) -> None:
    """JavaScript on, signed in: the dashboard, a survey's results (and by group), the step before closing it, its
    preview and the preview's thank-you page; then the public form as a respondent's device sends it."""
    page.goto(f"{url}/admin/")
    checks.check(page, "dashboard")
    page.get_by_role("link", name="Test quiz").click()
    page.wait_for_load_state()
    expect(page.locator("svg.chart").first).to_be_visible()
    checks.check(page, "results")
    page.goto(f"{url}/admin/surveys/quiz?by=year")
    checks.check(page, "results-by-group")
    page.goto(f"{url}/admin/surveys/quiz/close")
    checks.check(page, "close")
    page.goto(f"{url}/admin/surveys/quiz/preview")
    checks.check(page, "preview")
    choose(page, ANSWERS)
    press(page, "Submit answers")
    expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
    checks.check(page, "preview-thanks")
    write_a_survey(page, url, checks)
    answer_the_form(page, url, checks, "js")


def write_a_survey(page, url: str, checks: PageChecks) -> None:
    """The editor (web/editor.py): a new survey written with a mistake, the problem beside its line, the survey
    saved once fixed, and its Add a question page. Each width writes a survey of its own id."""
    survey_id = f"written-{page.viewport_size['width']}"
    text = QUIZ_YAML.replace("id: quiz", f"id: {survey_id}").replace("title: Test quiz", "title: Written in the page")
    page.goto(f"{url}/admin/surveys/new")
    checks.check(page, "new-survey")
    page.get_by_label("The survey as YAML").fill(text.replace("a: 1/6, b: 1/6", "a: -1/6, b: 1/6"))
    press(page, "Save as a draft")
    assert page.locator("ol.source-lines .problem").count() == 1
    checks.check(page, "new-survey-problems")
    page.get_by_label("The survey as YAML").fill(text)
    press(page, "Save as a draft")
    page.wait_for_url(f"{url}/admin/surveys/{survey_id}/edit")
    checks.check(page, "editor")
    page.get_by_role("link", name="Add a question").click()
    page.wait_for_load_state()
    assert page.locator("#design-choices tbody tr").count() > 2
    checks.check(page, "add-question")


def test_every_page_at_both_widths_has_no_accessibility_violation(browser, live_server, app, admin_account):
    add_responses(app, many(70, 50))
    checks = PageChecks()
    signed_in = None
    for width in WIDTHS:
        visitor = new_context(browser, width, javascript=False)
        visitor_pages(visitor.new_page(), live_server, checks)
        visitor.close()
        researcher = new_context(browser, width, javascript=True, signed_in=signed_in)
        page = researcher.new_page()
        if signed_in is None:
            sign_in(page, live_server)
            signed_in = researcher.storage_state()
        researcher_pages(page, live_server, checks)
        researcher.close()
    expected = [f"{name} at {width} px" for width in WIDTHS for name in VISITOR_PAGES + RESEARCHER_PAGES]
    assert list(checks.found) == expected
    if describe(checks.found):
        pytest.fail(f"axe found violations:\n{describe(checks.found)}", pytrace=False)


#: A page with two violations axe must report: an image with no text, and grey text too pale on white.
BROKEN_PAGE = """<!doctype html><html lang="en"><head><title>Broken</title></head><body><main><h1>Broken</h1>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" id="nameless">
<p style="color: #bbb">Too pale</p></main></body></html>"""


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "nojs"])
def test_the_check_reports_each_violation_with_its_rule_impact_target_and_help(browser, javascript, tmp_path):
    context = browser.new_context(java_script_enabled=javascript)
    page = context.new_page()
    page.set_content(BROKEN_PAGE)
    checks = PageChecks(folder=tmp_path)
    checks.check(page, "broken")
    context.close()
    assert [v.id for v in checks.found["broken at 1280 px"]] == ["color-contrast", "image-alt"]
    report = describe(checks.found)
    assert "image-alt (critical) at #nameless: Images must have alternative text" in report
    assert "color-contrast (serious) at p: Elements must meet minimum color contrast ratio thresholds" in report
    assert (tmp_path / "broken-1280.png").stat().st_size > 0


def test_a_cached_axe_that_is_not_the_pinned_tarball_is_refused(tmp_path):
    cache = tmp_path / "axe.tgz"
    cache.write_bytes(accessibility.fetch_axe().read_bytes() + b"\0")
    with pytest.raises(accessibility.AxeFetchError, match="not the pinned"):
        accessibility.fetch_axe(cache)
