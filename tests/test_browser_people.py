"""Playwright: a site administrator invites a researcher and shares a survey with her as analyst; she
chooses her password from the link, sees the results and exports but no owner's button, switches a second
factor on and signs in with it. Screenshots of the people pages at 375 and 1280 px in ``test-artifacts/``."""

from __future__ import annotations

import time
from pathlib import Path

import pyotp
import pytest

from tests.helpers.browser_steps import BROWSER_ONLY_ON_SQLITE, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only(reason=BROWSER_ONLY_ON_SQLITE)]
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
PASSWORD = "a password long enough"


def fits(page, name: str) -> None:
    """The page is no wider than its viewport, at 375 and 1280 px; a screenshot of each."""
    ARTIFACTS.mkdir(exist_ok=True)
    for width in (375, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        assert page.evaluate("document.documentElement.scrollWidth") <= width, (name, width)
        page.screenshot(path=str(ARTIFACTS / f"people-{name}-{width}.png"), full_page=True)


def sign_in_as(page, live_server: str, name: str) -> None:
    page.goto(f"{live_server}/admin/login")
    page.get_by_label("Account", exact=True).fill(name)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()


def test_an_invited_analyst_chooses_her_password_reads_results_and_signs_in_with_a_second_factor(
    page, browser, live_server, admin_account
):
    sign_in(page, live_server)
    page.get_by_role("link", name="Accounts", exact=True).click()
    page.get_by_label("Account name").fill("ines")
    page.get_by_role("button", name="Make the account and its link").click()
    link = page.get_by_label("Link for ines").input_value()
    fits(page, "accounts")
    page.goto(f"{live_server}/admin/surveys/quiz/people")
    page.get_by_label("Account name").fill("ines")
    page.get_by_label("Role", exact=True).select_option("analyst")
    page.get_by_role("button", name="Give this role").click()
    assert page.get_by_role("cell", name="analyst", exact=True).is_visible()
    fits(page, "survey-people")

    ines = browser.new_context().new_page()
    ines.goto(link)
    ines.get_by_label("New password").fill(PASSWORD)
    ines.get_by_label("The same password again").fill(PASSWORD)
    ines.get_by_role("button", name="Set my password").click()
    assert ines.get_by_text("Your password for ines is set").is_visible()
    sign_in_as(ines, live_server, "ines")
    ines.get_by_role("link", name="Test quiz").click()
    assert ines.get_by_role("heading", name="Export").is_visible()
    assert ines.get_by_role("link", name="Close this survey…").count() == 0
    assert ines.get_by_role("link", name="People").count() == 0

    ines.get_by_role("link", name="Account", exact=True).click()
    ines.get_by_role("button", name="Set up a second factor").click()
    secret = ines.locator("code.secret").first.inner_text()
    fits(ines, "account-enrolling")
    ines.get_by_label("Six-digit code").fill(pyotp.TOTP(secret).now())
    ines.get_by_role("button", name="Switch the second factor on").click()
    assert ines.get_by_text("Your second factor is on").is_visible()
    ines.get_by_role("button", name="Sign out (ines)").click()
    sign_in_as(ines, live_server, "ines")
    ines.wait_for_url("**/admin/login/code")
    ines.get_by_label("The six-digit code your authenticator app shows now").fill(
        pyotp.TOTP(secret).at(time.time() + 30)
    )
    ines.get_by_role("button", name="Sign in").click()
    ines.wait_for_url(f"{live_server}/admin/")
    assert ines.get_by_role("link", name="Test quiz").is_visible()
