"""Playwright: the results page of a survey with ``sample_design`` (its "Design-weighted estimates" table of
yes/no and option shares) at 375 and 1280 px: no wider than the screen, the Hajek shares visible, saved as
screenshots in ``test-artifacts/screenshots/`` and checked with axe-core (:mod:`tests.helpers.accessibility`)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from playwright.sync_api import expect

from analysis import design_share
from tests.helpers.accessibility import PageChecks, describe
from tests.helpers.browser_steps import BROWSER_ONLY_ON_SQLITE, sign_in
from tests.helpers.records import add_responses
from tests.helpers.sample_surveys import SAMPLE_DESIGN_YAML

pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only(reason=BROWSER_ONLY_ON_SQLITE)]

#: Per class: stored yeses to ``cheated`` of 20, and stored answers to ``ai_use`` of 20 (never, once, sometimes,
#: often); ``lied`` is not answered (its row says so across the table).
CHEATED_YES = {"c1": 9, "c2": 4, "c3": 14, "c4": 10}
AI_USE = {"c1": (8, 4, 5, 3), "c2": (3, 9, 4, 4), "c3": (6, 6, 2, 6), "c4": (10, 2, 5, 3)}
SOMETIMES = {group: counts[2] for group, counts in AI_USE.items()}


def _answers() -> list[dict]:
    rows = []
    for group, counts in AI_USE.items():
        ai_use = [option for option, n in zip(("never", "once", "sometimes", "often"), counts) for _ in range(n)]
        rows += [
            {"cheated": "yes" if i < CHEATED_YES[group] else "no", "ai_use": ai_use[i], "class": group}
            for i in range(20)
        ]
    return rows


#: Per row of the design-weighted table: its cells, each counted by its colspan (the header's count in each).
ROW_WIDTHS = """() => [...document.querySelectorAll('table.design-weighted tr')].map(
    row => [...row.cells].reduce((sum, cell) => sum + cell.colSpan, 0))"""


def _hajek(counts: dict, t, a, b) -> str:
    """The Hajek share of ``counts`` per class under the file's design, as the page prints it."""
    args = ([10, 10, 4, 4], ["arts", "arts", "science", "science"], True, [20, 20, 8, 8], 400, t, a, b)
    share = design_share(list(counts.values()), [20] * 4, *args)
    return f"{share.hajek.estimate * 100:.1f}%"


@pytest.fixture
def surveys_dir(tmp_path):
    folder = tmp_path / "surveys"
    folder.mkdir()
    (folder / "quiz.yaml").write_text(SAMPLE_DESIGN_YAML)
    return folder


def test_the_design_weighted_table_fits_a_phone_and_a_desktop_and_has_no_accessibility_violation(
    page, app, live_server, admin_account
):
    checks = PageChecks()
    add_responses(app, _answers())
    sign_in(page, live_server)
    page.goto(f"{live_server}/admin/surveys/quiz")
    page.wait_for_load_state("load")
    expected = {
        "#weighted-cheated": _hajek(CHEATED_YES, 0.5, 0.25, 0.25),
        "#weighted-ai_use-sometimes": _hajek(SOMETIMES, Fraction(1, 2), Fraction(1, 8), Fraction(3, 8)),
    }
    widths = page.evaluate(ROW_WIDTHS)
    assert len(widths) == 7 and set(widths) == {11}, widths  # the header, cheated, lied (no answers), 4 options
    for width in (375, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        assert page.evaluate("document.documentElement.scrollWidth") <= width, width
        for row, share in expected.items():
            cell = page.locator(f"{row} .weighted-estimate")
            cell.scroll_into_view_if_needed()
            expect(cell).to_be_visible()
            expect(cell).to_have_text(share)
        checks.check(page, "sample-design-results")
    assert describe(checks.found) == ""
