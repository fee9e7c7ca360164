"""Playwright: issue 26's journey through the workspace, on both backends. The site administrator invites a
researcher and an analyst by one-time links; the researcher uploads an XLSForm workbook (English and French, a
randomized yes/no question) whose design does not add up, fixes it in the page's YAML, saves the draft, previews it
in both languages, opens it, shares it with the analyst and makes an API token; 30 respondents answer through the
device path; the analyst reads the results and downloads an export but cannot edit, close, delete or see another
researcher's survey; the owner closes, archives, backs up and deletes it, after which it and its token answer 404,
none of its rows is left, and the administrator's audit log shows who deleted it.

Every page on the way is saved at 375 and 1280 px (``test-artifacts/screenshots/workspace-sqlite/``) and
checked with axe-core (:mod:`tests.helpers.accessibility`): no violation on any. On PostgreSQL the same journey
runs with every assertion, but without screenshots or axe: the pages are the same, and the SQLite run has
checked each of them (on a shared two-core machine: 40 to 56 s on SQLite with them, 23 to 33 s on PostgreSQL
without).
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from storage import accounts, roles
from storage import surveys as stored_surveys
from tests.helpers.accessibility import SCREENSHOTS, PageChecks, describe
from tests.helpers.browser_steps import press, sign_in
from tests.helpers.records import dump
from tests.helpers.workbooks import workbook
from web.db import open_database

pytestmark = [pytest.mark.browser, pytest.mark.both_backends]

PASSWORD = "a password long enough"
SURVEY_ID = "exam-honesty"
ANSWERS = 30
#: Makes crypto.getRandomValues return 2^32 - 5 for every word: both coins of the two-coin design (t = 1/2,
#: a = b = 1/4) land heads, a forced "yes", whatever the truth (tests/test_browser_respond.py). Every
#: respondent's truth is "no", so a stored "no" would be a true answer.
FORCED_YES = "crypto.getRandomValues = function (array) { array.fill(4294967291); return array; };"
OTHER_SURVEY = """\
id: others-survey
title: Someone else's survey
version: 1
questions:
  - name: copied
    type: yes_no
    label: Have you copied homework?
"""


def exam_workbook(path: Path) -> Path:
    """An XLSForm workbook in English and French: a randomized yes/no question (two coins, t = 1/2 and a = b =
    1/4, but b written 1/2 by mistake) and a year asked directly."""
    survey = [
        ["type", "name", "label::English (en)", "label::Français (fr)", "randomize"]
        + ["design::t", "design::a", "design::b"],
        ["yes_no", "cheated", "Have you ever cheated on an exam?", "Avez-vous déjà triché à un examen ?", ""]
        + ["1/2", "1/4", "1/2"],
        ["select_one year", "year", "Year of study", "Année d'études", "no", "", "", ""],
    ]
    choices = [
        ["list_name", "name", "label::English (en)", "label::Français (fr)"],
        ["year", "first", "First year", "Première année"],
        ["year", "second", "Second year", "Deuxième année"],
    ]
    settings = [
        ["form_id", "form_title::English (en)", "form_title::Français (fr)", "version", "default_language"],
        [SURVEY_ID, "Exam honesty", "Honnêteté aux examens", "1", "English (en)"],
    ]
    return workbook(path, {"survey": survey, "choices": choices, "settings": settings})


#: How wide the page is laid out: wider than the viewport, and the reader scrolls sideways.
SCROLL_WIDTH = "document.documentElement.scrollWidth"


class Looks:
    """Each page seen, checked at the journey's widths (:class:`PageChecks`) and for its width (no page wider
    than the screen: ``too_wide``), its name checked once."""

    def __init__(self, folder: Path, widths: tuple[int, ...]):
        self.checks = PageChecks(folder=folder)
        self.widths = widths
        self.names: list[str] = []
        self.too_wide: list[str] = []

    def see(self, page, name: str) -> None:
        page.wait_for_load_state()
        self.names.append(name)
        for width in self.widths:
            page.set_viewport_size({"width": width, "height": 800})
            self.checks.check(page, name)
            self.too_wide += [] if page.evaluate(SCROLL_WIDTH) <= width else [f"{name} at {width} px"]


def someone_elses_survey(app) -> None:
    """A researcher (not a site administrator) owning a survey of her own, made as the app would."""
    db = open_database(app)
    accounts.create_admin(db, "olga", PASSWORD, site_admin=False)
    stored_surveys.save_version(db, OTHER_SURVEY, source_name="others.yaml", managed_by=None, actor="olga")
    roles.set_role(db, "others-survey", "olga", "owner")
    db.close()


def sign_in_as(page, url: str, name: str) -> None:
    page.goto(f"{url}/admin/login")
    page.get_by_label("Account", exact=True).fill(name)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    press(page, "Sign in")
    page.wait_for_url(f"{url}/admin/")


def invite(page, name: str) -> str:
    """On the accounts page, make ``name``'s account; its one-time link."""
    page.get_by_label("Account name").fill(name)
    press(page, "Make the account and its link")
    return page.get_by_label(f"Link for {name}").input_value()


def choose_password(page, link: str, looks: Looks | None) -> None:
    page.goto(link)
    if looks:
        looks.see(page, "invitation-link")
    page.get_by_label("New password").fill(PASSWORD)
    page.get_by_label("The same password again").fill(PASSWORD)
    press(page, "Set my password")
    assert "Your password for" in page.inner_text("main")
    if looks:
        looks.see(page, "password-set")


def administrator_invites(browser, url: str, looks: Looks) -> tuple:
    """Step 1: the site administrator invites the researcher and the analyst; each chooses a password."""
    admin = browser.new_context().new_page()
    sign_in(admin, url)
    admin.get_by_role("link", name="Accounts", exact=True).click()
    looks.see(admin, "accounts")
    rita_link = invite(admin, "rita")
    looks.see(admin, "accounts-new-link")
    ana_link = invite(admin, "ana")
    admin.context.close()
    rita, ana = browser.new_context().new_page(), browser.new_context().new_page()
    choose_password(rita, rita_link, looks)
    choose_password(ana, ana_link, None)
    assert ana.goto(ana_link).status == 410  # used: the link works once
    sign_in_as(rita, url, "rita")
    looks.see(rita, "researcher-dashboard")
    return rita, ana


def upload_fix_preview_open(page, url: str, workbook_path: Path, looks: Looks) -> None:
    """Step 2: the workbook uploaded, its mistake (b = 1/2) fixed in the YAML, the draft saved, previewed in
    English and French with JavaScript, and opened."""
    page.get_by_role("link", name="New survey").click()
    looks.see(page, "new-survey")
    page.get_by_label("Upload a survey file (.yaml, .yml) or an XLSForm workbook (.xlsx)").set_input_files(
        workbook_path
    )
    press(page, "Save as a draft")
    problems = page.locator("#problems").inner_text()
    assert "t + a + b must equal 1" in problems, problems
    looks.see(page, "upload-problem")
    source = page.get_by_label("The survey as YAML")
    assert "    b: 1/2" in source.input_value() and "Avez-vous" in source.input_value()
    source.fill(source.input_value().replace("    b: 1/2", "    b: 1/4"))
    press(page, "Save as a draft")
    page.wait_for_url(f"{url}/admin/surveys/{SURVEY_ID}/edit")
    assert "is saved as a draft" in page.locator(".notice.success").inner_text()
    looks.see(page, "editor")
    previews = page.locator("a.preview-device")
    assert previews.count() == 2
    for number, (language, label) in enumerate(
        [("en", "Have you ever cheated on an exam?"), ("fr", "Avez-vous déjà triché à un examen ?")]
    ):
        page.locator("a.preview-device").nth(number).click()
        page.wait_for_load_state()
        assert label in page.inner_text("main") and page.locator("script[src*='randomize']").count() == 1
        looks.see(page, f"preview-{language}")
        page.go_back()
    page.get_by_role("link", name="Results, stage and sharing of “Exam honesty”").click()
    looks.see(page, "survey-draft")
    press(page, "Open")
    assert "is live" in page.locator(".notice.success").inner_text()
    looks.see(page, "survey-open")


def share_with_analyst(page, looks: Looks) -> None:
    """Step 3: the owner gives ana the analyst's role on the survey."""
    page.get_by_role("link", name="People", exact=True).click()
    looks.see(page, "people")
    page.get_by_label("Account name").fill("ana")
    page.get_by_label("Role", exact=True).select_option("analyst")
    press(page, "Give this role")
    expect(page.get_by_role("cell", name="analyst", exact=True)).to_be_visible()
    looks.see(page, "people-shared")


def make_a_token(page, url: str, looks: Looks) -> str:
    """Step 3 too: the owner makes a read-only API token (shown once) and a script reads the responses with it."""
    page.goto(f"{url}/admin/surveys/{SURVEY_ID}")
    page.get_by_role("link", name="API tokens").click()
    looks.see(page, "tokens")
    page.get_by_label("Label (who or what uses it)").fill("nightly report")
    press(page, "Make a token")
    token = page.locator("code.new-token").inner_text()
    looks.see(page, "token-made")
    return token


def api_read(page, url: str, token: str):
    return page.request.get(
        f"{url}/api/surveys/{SURVEY_ID}/responses.csv", headers={"Authorization": f"Bearer {token}"}
    )


def respondents_answer(browser, url: str, looks: Looks) -> list[str]:
    """Step 4: :data:`ANSWERS` respondents, one after another on one device whose cookies and storage are
    cleared between them, each answering "No" (randomized to a forced "yes" by :data:`FORCED_YES`); the bodies
    of the posts sent."""
    context = browser.new_context()
    context.add_init_script(FORCED_YES)
    page = context.new_page()
    posts: list[str] = []
    page.on("request", lambda request: posts.append(request.post_data or "") if request.method == "POST" else None)
    for number in range(ANSWERS):
        page.goto(f"{url}/s/{SURVEY_ID}")
        if number == 0:
            looks.see(page, "form")
        page.locator("fieldset[data-question=cheated]").get_by_label("No", exact=True).check()
        year = ("First year", "Second year")[number % 2]
        page.locator("fieldset[data-question=year]").get_by_label(year, exact=True).check()
        press(page, "Submit answers")
        expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
        if number == 0:
            looks.see(page, "thanks")
        page.evaluate("localStorage.clear()")
        context.clear_cookies()
    context.close()
    return posts


def stored_rows(app) -> list[dict]:
    db = open_database(app)
    try:
        query = "SELECT randomized_on, answers FROM responses WHERE survey_id = ?"
        return [dict(row) for row in db.query(query, [SURVEY_ID])]
    finally:
        db.close()


def check_answers_stored_randomized(app, posts: list[str]) -> None:
    assert len(posts) == ANSWERS and all("rr-cheated=yes" in body for body in posts)
    assert not any("cheated=no" in body for body in posts)  # never a true answer, under any name
    rows = stored_rows(app)
    assert len(rows) == ANSWERS
    assert {row["randomized_on"] for row in rows} == {"device"}
    answers = [json.loads(row["answers"]) for row in rows]
    assert {answer["cheated"] for answer in answers} == {"yes"}  # every truth was "no"
    assert sorted(answer["year"] for answer in answers) == ["first"] * 15 + ["second"] * 15


def analyst_reads_but_cannot_change(page, url: str, looks: Looks) -> None:
    """Step 5: ana sees her one survey's results and downloads its responses; every owner's page and the
    other researcher's survey answer 404."""
    sign_in_as(page, url, "ana")
    looks.see(page, "analyst-dashboard")
    main = page.inner_text("main")
    assert "Exam honesty" in main and "Someone else" not in main and "Test quiz" not in main
    page.get_by_role("link", name="Exam honesty").first.click()
    looks.see(page, "analyst-results")
    expect(page.get_by_role("heading", name="Export")).to_be_visible()
    for owner_control in ("Edit", "Delete…", "Close this survey…", "People"):
        assert page.get_by_role("link", name=owner_control, exact=True).count() == 0, owner_control
    for owner_button in ("Open", "Archive"):
        assert page.get_by_role("button", name=owner_button, exact=True).count() == 0, owner_button
    with page.expect_download() as download:
        page.get_by_role("link", name="Noisy responses (CSV)").click()
    exported = list(csv.DictReader(io.StringIO(Path(download.value.path()).read_text("utf-8"))))
    assert len(exported) == ANSWERS
    token = page.locator("input[name=csrf_token]").first.get_attribute("value")  # the sign-out form's
    for path in ("edit", "delete", "close"):
        assert page.goto(f"{url}/admin/surveys/{SURVEY_ID}/{path}").status == 404, path
    looks.see(page, "analyst-not-found")
    for path in ("delete", "archive", "close"):
        form = {"csrf_token": token, "confirm_id": SURVEY_ID}
        posted = page.request.post(f"{url}/admin/surveys/{SURVEY_ID}/{path}", form=form)
        assert posted.status == 404, path
    assert page.goto(f"{url}/admin/surveys/others-survey").status == 404
    page.context.close()


def owner_closes_archives_deletes(page, url: str, looks: Looks) -> None:
    """Step 6: close (through its confirmation page), archive, back up, and delete with the id typed."""
    page.goto(f"{url}/admin/surveys/{SURVEY_ID}")
    page.get_by_role("link", name="Close this survey…").click()
    looks.see(page, "close")
    press(page, "Yes, close “Exam honesty”")
    assert "closed" in page.locator(".notice.success").inner_text()
    looks.see(page, "survey-closed")
    press(page, "Archive")
    assert "is archived" in page.locator(".notice.success").inner_text()
    looks.see(page, "survey-archived")
    page.get_by_role("link", name="Delete…").click()
    looks.see(page, "delete")
    with page.expect_download() as download:
        page.get_by_role("link", name="Download a backup first").click()
    with zipfile.ZipFile(download.value.path()) as backup:
        assert len(backup.read("responses.csv").decode().strip().splitlines()) == ANSWERS + 1
    page.get_by_label("Type the survey's id").fill("exam")
    press(page, "Delete “Exam honesty” for good")
    assert "nothing was deleted" in page.inner_text("main")
    looks.see(page, "delete-mismatch")
    page.get_by_label("Type the survey's id").fill(SURVEY_ID)
    press(page, "Delete “Exam honesty” for good")
    page.wait_for_url(f"{url}/admin/")
    assert "everything stored of it are deleted" in page.locator(".notice.success").inner_text()
    looks.see(page, "dashboard-after-delete")
    assert page.goto(f"{url}/admin/surveys/{SURVEY_ID}").status == 404
    assert page.goto(f"{url}/s/{SURVEY_ID}").status == 404


def administrator_reads_the_audit_log(browser, url: str, looks: Looks) -> None:
    """The deletion stays on record, with who made it, for the site administrator."""
    page = browser.new_context().new_page()
    sign_in(page, url)
    page.get_by_role("link", name="Audit log").click()
    looks.see(page, "audit-log")
    deleted = page.get_by_role("row").filter(has_text="survey-deleted")
    assert deleted.count() == 1 and "rita" in deleted.inner_text() and SURVEY_ID in deleted.inner_text()
    page.context.close()


def check_no_row_left(app) -> None:
    """No table holds the survey's id, except those that keep it on purpose (the audit log, the change that
    told every process)."""
    left = {
        table: rows
        for table, rows in dump(app).items()
        if table not in stored_surveys.KEPT_AFTER_DELETE and SURVEY_ID in repr(rows)
    }
    assert left == {}


def test_invited_researcher_uploads_fixes_opens_shares_and_deletes_a_survey_an_analyst_only_reads(
    browser, live_server, app, admin_account, app_backend, tmp_path
):
    someone_elses_survey(app)
    widths = (375, 1280) if app_backend == "sqlite" else ()  # the pages are the same: looked at once
    looks = Looks(SCREENSHOTS / f"workspace-{app_backend}", widths)
    rita, ana = administrator_invites(browser, live_server, looks)
    upload_fix_preview_open(rita, live_server, exam_workbook(tmp_path / "exam.xlsx"), looks)
    share_with_analyst(rita, looks)
    token = make_a_token(rita, live_server, looks)
    check_answers_stored_randomized(app, respondents_answer(browser, live_server, looks))
    read = api_read(rita, live_server, token)
    assert read.status == 200 and len(read.text().strip().splitlines()) == ANSWERS + 1
    analyst_reads_but_cannot_change(ana, live_server, looks)
    owner_closes_archives_deletes(rita, live_server, looks)
    assert api_read(rita, live_server, token).status in (401, 404)  # the token went with its survey
    check_no_row_left(app)
    administrator_reads_the_audit_log(browser, live_server, looks)
    assert looks.too_wide == []
    assert list(looks.checks.found) == [f"{name} at {width} px" for name in looks.names for width in widths]
    if describe(looks.checks.found):
        pytest.fail(f"axe found violations:\n{describe(looks.checks.found)}", pytrace=False)
