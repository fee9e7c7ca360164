"""Playwright: a site administrator invites a researcher and shares a survey with her as analyst; she
chooses her password from the link, sees the results and exports but no owner's button, switches a second
factor on and signs in with it. Each people page at 375 and 1280 px: no wider than the screen, saved as a
screenshot in ``test-artifacts/screenshots/`` and checked with axe-core (:mod:`tests.helpers.accessibility`)."""

from __future__ import annotations

import time

import pyotp
import pytest
from playwright.sync_api import expect

from tests.helpers.accessibility import PageChecks, describe
from tests.helpers.browser_steps import BROWSER_ONLY_ON_SQLITE, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only(reason=BROWSER_ONLY_ON_SQLITE)]
PASSWORD = "a password long enough"


def fits(checks: PageChecks, page, name: str) -> None:
    """At 375 and 1280 px the page is no wider than its viewport; saved and checked with axe into ``checks``.

    Measured once the page has loaded, its stylesheets included: a click that navigates returns when the new
    page's elements are there, and a width read before admin.css applies (the secret's wrapping) was a flake."""
    page.wait_for_load_state("load")
    for width in (375, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        assert page.evaluate("document.documentElement.scrollWidth") <= width, (name, width)
        checks.check(page, f"people-{name}")


def sign_in_as(page, live_server: str, name: str) -> None:
    page.goto(f"{live_server}/admin/login")
    page.get_by_label("Account", exact=True).fill(name)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()


def test_an_invited_analyst_chooses_her_password_reads_results_and_signs_in_with_a_second_factor(
    page, browser, live_server, admin_account
):
    checks = PageChecks()
    sign_in(page, live_server)
    page.get_by_role("link", name="Accounts", exact=True).click()
    page.get_by_label("Account name").fill("ines")
    page.get_by_role("button", name="Make the account and its link").click()
    link = page.get_by_label("Link for ines").input_value()
    fits(checks, page, "accounts")
    page.goto(f"{live_server}/admin/surveys/quiz/people")
    page.get_by_label("Account name").fill("ines")
    page.get_by_label("Role", exact=True).select_option("analyst")
    page.get_by_role("button", name="Give this role").click()
    expect(page.get_by_role("cell", name="analyst", exact=True)).to_be_visible()
    fits(checks, page, "survey-people")

    ines = browser.new_context().new_page()
    ines.goto(link)
    fits(checks, ines, "link")
    ines.get_by_label("New password").fill(PASSWORD)
    ines.get_by_label("The same password again").fill(PASSWORD)
    ines.get_by_role("button", name="Set my password").click()
    expect(ines.get_by_text("Your password for ines is set")).to_be_visible()
    sign_in_as(ines, live_server, "ines")
    ines.get_by_role("link", name="Test quiz").click()
    expect(ines.get_by_role("heading", name="Export")).to_be_visible()
    assert ines.get_by_role("link", name="Close this survey…").count() == 0
    assert ines.get_by_role("link", name="People").count() == 0

    ines.get_by_role("link", name="Account", exact=True).click()
    fits(checks, ines, "account")
    ines.get_by_role("button", name="Set up a second factor").click()
    secret = ines.locator("code.secret").first.inner_text()
    fits(checks, ines, "account-enrolling")
    ines.get_by_label("Six-digit code").fill(pyotp.TOTP(secret).now())
    ines.get_by_role("button", name="Switch the second factor on").click()
    expect(ines.get_by_text("Your second factor is on")).to_be_visible()
    ines.get_by_role("button", name="Sign out (ines)").click()
    sign_in_as(ines, live_server, "ines")
    ines.wait_for_url("**/admin/login/code")
    fits(checks, ines, "second-factor-code")
    ines.get_by_label("The six-digit code your authenticator app shows now").fill(
        pyotp.TOTP(secret).at(time.time() + 30)
    )
    ines.get_by_role("button", name="Sign in").click()
    ines.wait_for_url(f"{live_server}/admin/")
    expect(ines.get_by_role("link", name="Test quiz")).to_be_visible()
    assert len(checks.found) == 12 and describe(checks.found) == ""
