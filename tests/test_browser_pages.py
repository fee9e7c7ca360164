"""Playwright: a three-page survey with skip logic answered in Chromium, JavaScript on and off.

Every request is read off the wire (``page.on("request")``): its answer fields and the
signed token of the answers so far (unsealed with the server's key) must hold no true
answer to a randomized question from an earlier page, and the database none at all.
Back must keep the answers. Screenshots are saved in ``test-artifacts/``.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import expect

from tests.helpers import browser_steps, records
from tests.helpers.browser_steps import BROWSER_ONLY_ON_SQLITE, fill_in, press
from tests.helpers.records import stored_answers, stored_arms
from tests.helpers.sample_surveys import MANAGERS_YAML, PAGED_ARMS_YAML, PAGED_YAML, make_survey

pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only(reason=BROWSER_ONLY_ON_SQLITE)]

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
SURVEY = make_survey(PAGED_YAML)
#: crypto.getRandomValues always 2^32 - 5 (see tests/test_browser_respond.py): every randomized
#: answer below comes out as the opposite of the true one chosen.
FORCED_COINS = "crypto.getRandomValues = function (array) { array.fill(4294967291); return array; };"
#: The true answers, by label, page by page; and what the forced coins (or, without JavaScript,
#: the flipping server) turn the randomized ones into.
PAGE_1 = {"cheated": "No", "lied": "Yes"}
PAGE_2 = {"ai_use": "never", "year": "first", "first_exam": "No"}
PAGE_3 = {"residence": "On campus", "campus_help": "No"}
TRUE = {"cheated": "no", "lied": "yes", "ai_use": "never", "first_exam": "no", "campus_help": "no"}
NOISY = {"cheated": "yes", "lied": "no", "ai_use": "often", "first_exam": "yes", "campus_help": "yes"}


@pytest.fixture
def paged(surveys_dir):
    (surveys_dir / "paged.yaml").write_text(PAGED_YAML)


def check_requests(app, posts: list[str], device: bool) -> None:
    browser_steps.check_requests(app, SURVEY, posts, device, TRUE, NOISY)


def answer_three_pages(page, url: str, shot: str) -> None:
    """Pages 1 to 3, Back from page 3 (its answer kept), forward again, and submit."""
    page.goto(url)
    assert "Page 1 of 3" in page.inner_text("main")
    fill_in(page, PAGE_1)
    press(page, "Next")
    assert "Page 2 of 3" in page.inner_text("main")
    fill_in(page, PAGE_2)
    assert "Only if “Year of study” is “first”." in page.inner_text("fieldset[data-question=first_exam]")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"pages-{shot}-page2.png"), full_page=True)
    press(page, "Next")
    assert "Page 3 of 3" in page.inner_text("main")
    fill_in(page, {"residence": "On campus"})
    press(page, "Back")
    main = page.inner_text("main")
    assert "Page 2 of 3" in main and "cannot be shown" in main
    assert "has answered this survey before" not in main  # a page shown again, not an earlier response
    device_note = "this browser sends the same randomized answers again"
    device = not shot.endswith("nojs")  # shots "js", "nojs", "preview-js", "preview-nojs"
    assert (device_note in main) == device and ("choose again to replace them" in main) == (not device)
    assert page.locator("fieldset[data-question=year]").get_by_label("first", exact=True).is_checked()
    assert (
        page.locator("fieldset[data-question=ai_use]").get_by_label("Keep my earlier answer", exact=False).is_checked()
    )
    page.screenshot(path=str(ARTIFACTS / f"pages-{shot}-back.png"), full_page=True)
    press(page, "Next")
    assert page.locator("fieldset[data-question=residence]").get_by_label("On campus", exact=True).is_checked()
    fill_in(page, {"campus_help": "No"})
    press(page, "Submit answers")
    assert "What was stored" in page.inner_text("main")
    page.screenshot(path=str(ARTIFACTS / f"pages-{shot}-thanks.png"), full_page=True)


def test_with_javascript_three_pages_send_and_carry_only_noisy_answers(page, live_server, app, paged):
    page.add_init_script(FORCED_COINS)
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.post_data) if r.method == "POST" else None)
    page.goto(f"{live_server}/s/paged")
    fill_in(page, PAGE_1)
    press(page, "Next")
    expect(page.locator("fieldset[data-question=first_exam]")).not_to_be_visible()  # skip logic on the device
    fill_in(page, {"year": "first"})
    asked = page.locator("fieldset[data-question=first_exam]")
    expect(asked).to_be_visible()
    expect(asked.get_by_label("No answer")).not_to_be_visible()  # required once asked
    assert not page.evaluate("document.getElementById('survey-form').checkValidity()")
    answer_three_pages(page, f"{live_server}/s/paged", "js")
    check_requests(app, posts, device=True)
    (row,) = stored_answers(app)
    assert {name: row[name] for name in TRUE} == NOISY and row["year"] == "first" and row["residence"] == "campus"


def test_without_javascript_three_pages_carry_only_noisy_answers_between_pages(
    browser, live_server, app, paged, monkeypatch
):
    from web import pages

    flip = {"yes": "no", "no": "yes", "never": "often"}
    monkeypatch.setattr(
        pages, "randomize_on_server", lambda survey, answers, arm="": {k: flip.get(v, v) for k, v in answers.items()}
    )
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.post_data) if r.method == "POST" else None)
    page.goto(f"{live_server}/s/paged")
    answer_three_pages(page, f"{live_server}/s/paged", "nojs")
    check_requests(app, posts, device=False)
    (row,) = stored_answers(app)
    assert {name: row[name] for name in TRUE} == NOISY and row["residence"] == "campus"
    context.close()


PREVIEW = "/admin/surveys/paged/preview"


def check_preview(app, context, posts: list[tuple[str, str]], before: dict) -> None:
    """Every post went to the preview (never the real form's address), nothing was stored or counted, and the
    browser holds no cookie that marks the survey answered."""
    assert posts and {url.split("?")[0] for url, _ in posts} == {PREVIEW}
    assert records.dump(app) == before and stored_answers(app) == []
    assert not [cookie["name"] for cookie in context.cookies() if cookie["name"].startswith("rr_done")]


def preview_posts(page) -> list[tuple[str, str]]:
    """The (path, body) of every POST the page sends, filled as they go."""
    posts: list[tuple[str, str]] = []
    page.on("request", lambda r: posts.append((urlsplit(r.url).path, r.post_data)) if r.method == "POST" else None)
    return posts


def test_with_javascript_the_preview_goes_page_by_page_under_the_banner_and_stores_nothing(
    browser, live_server, app, paged, admin_account
):
    context = browser.new_context()
    context.add_init_script(FORCED_COINS)
    page = context.new_page()
    browser_steps.sign_in(page, live_server)
    before = records.dump(app)
    posts = preview_posts(page)
    answer_three_pages(page, f"{live_server}{PREVIEW}", "preview-js")
    expect(page.locator(".preview-banner")).to_be_visible()
    check_preview(app, context, posts, before)
    check_requests(app, [body for _, body in posts], device=True)
    memos = page.evaluate("Object.keys(localStorage)")
    assert "rr:preview-paged:v1" in memos and "rr:paged:v1" not in memos  # the real form's memo untouched
    context.close()


def test_without_javascript_the_preview_goes_page_by_page_under_the_banner_and_stores_nothing(
    browser, live_server, app, paged, admin_account, monkeypatch
):
    from web import pages

    flip = {"yes": "no", "no": "yes", "never": "often"}
    monkeypatch.setattr(
        pages, "randomize_on_server", lambda survey, answers, arm="": {k: flip.get(v, v) for k, v in answers.items()}
    )
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    browser_steps.sign_in(page, live_server)
    before = records.dump(app)
    posts = preview_posts(page)
    answer_three_pages(page, f"{live_server}{PREVIEW}", "preview-nojs")
    expect(page.locator(".preview-banner")).to_be_visible()
    check_preview(app, context, posts, before)
    check_requests(app, [body for _, body in posts], device=False)
    context.close()


ARMED = make_survey(PAGED_ARMS_YAML)
#: Every word of the device's crypto.getRandomValues for the armed survey (as tests/test_browser_designs.py
#: does): each draw reads 1 mod 4 = 1 (or 1 mod 2 = 1): not direct (1 is not below 1 of 4), group 1 (below 2 of
#: 4); the lie detector's true "no", group 1, stored "yes" (below theta0 = 3 of 4); two coins: heads, heads, "yes".
ARMED_WORD = 1
#: The armed survey's true answers and what the device's draws (or the flipping server) make of them in group 1.
ARMED_TRUE = {"evaded": "no", "cheated": "no"}
ARMED_NOISY = {"evaded": "yes", "cheated": "yes"}


@pytest.fixture
def armed(surveys_dir):
    (surveys_dir / "armed.yaml").write_text(PAGED_ARMS_YAML)


def server_draws(monkeypatch, arm: str) -> None:
    """The server's draw of the arm (the form's hidden field before the device, if any, draws its own)."""
    monkeypatch.setattr("web.answering.draw_arm", lambda group_share, direct_share: arm)


def posted_arms(posts: list[str]) -> list[str]:
    return [dict(parse_qsl(body)).get("arm") for body in posts]


def answer_armed_pages(page, shot: str) -> None:
    """Page 1 (the lie detector), page 2, Back to page 1 (the arm kept), forward again, and submit."""
    fill_in(page, {"evaded": "No"})
    press(page, "Next")
    assert "Page 2 of 2" in page.inner_text("main")
    fill_in(page, {"year": "first", "cheated": "No"})
    press(page, "Back")
    assert "Page 1 of 2" in page.inner_text("main")
    press(page, "Next")
    fill_in(page, {"cheated": "No"})
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"pages-arms-{shot}-page2.png"), full_page=True)
    press(page, "Submit answers")
    assert "What was stored" in page.inner_text("main")
    page.screenshot(path=str(ARTIFACTS / f"pages-arms-{shot}-thanks.png"), full_page=True)


def test_with_javascript_the_devices_arm_is_drawn_once_and_carried_to_every_page(
    page, live_server, app, armed, monkeypatch
):
    server_draws(monkeypatch, "2")  # the device draws its own, group 1
    page.add_init_script(f"crypto.getRandomValues = function (array) {{ array.fill({ARMED_WORD}); return array; }};")
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.post_data) if r.method == "POST" else None)
    page.goto(f"{live_server}/s/armed")
    # What the device remembers as its arm is changed behind its back: a later page that drew or
    # remembered again, instead of taking the carried arm, would post group 2 and be refused.
    page.evaluate(
        "Object.keys(localStorage).filter(k => k.endsWith(':arm')).forEach(k => localStorage.setItem(k, '2'))"
    )
    answer_armed_pages(page, "js")
    assert posted_arms(posts) == ["1"] * 4
    browser_steps.check_requests(app, ARMED, posts, True, ARMED_TRUE, ARMED_NOISY)
    (row,) = stored_answers(app)
    assert {name: row[name] for name in ARMED_TRUE} == ARMED_NOISY and row["year"] == "first"
    assert stored_arms(app) == ["1"]


def test_without_javascript_the_servers_arm_randomizes_every_page_and_is_stored(
    browser, live_server, app, armed, monkeypatch
):
    from web import pages

    server_draws(monkeypatch, "1")
    arms = []

    def flip(survey, answers, arm=""):
        arms.append(arm)
        return {k: {"yes": "no", "no": "yes"}.get(v, v) for k, v in answers.items()}

    monkeypatch.setattr(pages, "randomize_on_server", flip)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.post_data) if r.method == "POST" else None)
    page.goto(f"{live_server}/s/armed")
    answer_armed_pages(page, "nojs")
    context.close()
    assert posted_arms(posts) == ["1"] * 4 and set(arms) == {"1"}
    browser_steps.check_requests(app, ARMED, posts, False, ARMED_TRUE, ARMED_NOISY)
    (row,) = stored_answers(app)
    assert {name: row[name] for name in ARMED_TRUE} == ARMED_NOISY and stored_arms(app) == ["1"]


@pytest.fixture
def managers(surveys_dir):
    (surveys_dir / "managers.yaml").write_text(MANAGERS_YAML)


def test_without_javascript_a_required_question_an_earlier_page_asks_is_not_pre_answered_and_posts_as_shown(
    browser, live_server, app, managers
):
    """Issue 23, point 9, in Chromium with JavaScript off: page 2 asks managers two required questions; none has
    "No answer" checked, so Submit without answering them is held by the browser (no request), and the page as
    answered is stored."""
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.post_data) if r.method == "POST" else None)
    page.goto(f"{live_server}/s/managers")
    fill_in(page, {"role": "Manager"})
    press(page, "Next")
    assert "Page 2 of 2" in page.inner_text("main")
    for name in ("pressured", "team"):
        # the two answers, nothing checked; the blank option is withheld (hidden and disabled, never posted)
        radios = page.locator(f"fieldset[data-question={name}] input[type=radio]:not([disabled])")
        assert radios.count() == 2 and not any(radios.nth(i).is_checked() for i in range(2))
        assert page.locator(f"fieldset[data-question={name}] .no-answer").is_hidden()
    assert not any(option.is_visible() for option in page.get_by_label("No answer").all())  # withheld: hidden
    fill_in(page, {"overtime": "No"})
    page.get_by_role("button", name="Submit answers", exact=True).click()
    page.wait_for_load_state()
    missing = page.locator("fieldset[data-question=pressured] input[type=radio]").first
    assert missing.evaluate("radio => radio.validity.valueMissing")
    assert len(posts) == 1 and "Page 2 of 2" in page.inner_text("main")  # the browser asks for the answers first
    fill_in(page, {"pressured": "Yes", "team": "Under ten"})
    press(page, "Submit answers")
    assert len(posts) == 2 and "What was stored" in page.inner_text("main")
    (row,) = stored_answers(app)
    assert row["role"] == "manager" and row["team"] == "small" and row["pressured"] in ("yes", "no")
    context.close()
