"""Steps of a browser test (Playwright driving Chromium): signing in, answering, pressing a button, and checking
that no request a page posted carries a true randomized answer."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from tests.helpers.drivers import ADMIN_NAME, ADMIN_PASSWORD, carried

#: Why a browser test runs on SQLite only (``pytest.mark.sqlite_only(reason=...)``): what it checks is the page and
#: its script; the server's side of every request it makes runs on both backends in tests without a browser.
BROWSER_ONLY_ON_SQLITE = (
    "a browser test checks the page and its script in Chromium; what the server does with the requests is "
    "tested on both backends without a browser (test_respond.py, test_pages.py, test_security.py)"
)


def sign_in(page, live_server: str) -> None:
    """Sign the Playwright ``page`` in as the test researcher (the ``admin_account`` fixture's)."""
    page.goto(f"{live_server}/admin/")
    page.get_by_label("Account").fill(ADMIN_NAME)
    page.get_by_label("Password").fill(ADMIN_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{live_server}/admin/")


def fill_in(page, answers: dict) -> None:
    """Check, in a Playwright page, the option labelled ``answers[question]`` of each question."""
    for name, label in answers.items():
        page.locator(f"fieldset[data-question={name}]").get_by_label(label, exact=True).check()


def press(page, name: str) -> None:
    """Click the button named ``name`` and wait for the page it loads."""
    page.get_by_role("button", name=name, exact=True).click()
    page.wait_for_load_state()


def check_requests(app, survey, posts: list[str], device: bool, true: dict, noisy: dict) -> None:
    """No posted form carries a true randomized answer: not in its token (answers of earlier pages), and,
    on the device path, not in its answers either (JavaScript off, a page's own answers are sent true).

    ``true``: the randomized questions' true answers; ``noisy``: what the fixed randomizer makes of them.
    """
    assert posts, "no request was seen"
    from urllib.parse import parse_qsl

    from web.forms import parse_wire_value

    for body in posts:
        fields = dict(parse_qsl(body, keep_blank_values=True))
        if "carried" in fields:
            for name, value in carried(app, survey, fields["carried"]).items():
                assert value is None or name not in true or value == noisy[name], (name, value)
        if device:
            for key, value in fields.items():
                name = key.removeprefix("rr-")
                if key.startswith("rr-") and name in true:
                    assert parse_wire_value(survey.question(name), value, blank_ok=True) in (None, noisy[name])
            assert not any(key in true for key in fields)  # never a true answer under a question's own name


@contextlib.contextmanager
def quiz_page(browser, server: str, script: str) -> Iterator:
    """A page of a new browser context on ``server``'s quiz, with the served (minified) randomize.js loaded and
    ``script`` (its global, such as ``window.RR``) checked to be there; the context is closed after. For the tests
    that share one page per module (they only call the page's functions and read nothing another test changes)."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{server}/s/quiz")
        assert page.evaluate(f"typeof {script}") == "object"
        yield page
    finally:
        context.close()
