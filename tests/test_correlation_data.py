"""The results page's correlation panel (web/correlation_data.py, templates/admin/_correlation.html)."""

from __future__ import annotations

from html import unescape

import pytest

from analysis import correlate
from storage import queries, responses
from surveys.correlation import ASSUMPTION, question_design_key
from surveys.submission import noisy_response
from tests.helpers.sample_surveys import make_survey

pytestmark = pytest.mark.both_backends

PAIRS_YAML = """\
id: pairs
title: Pairs
version: 1
questions:
  - {name: cheated, type: yes_no, label: Cheated on an exam}
  - {name: lied, type: yes_no, label: Lied to a teacher, design: {t: 2/3, a: 1/6, b: 1/6}}
  - {name: copied, type: yes_no, label: Copied homework, design: {model: warner, p: 3/4}}
  - {name: year, type: select_one, label: Year, choices: [first, second], randomize: false}
"""
SURVEY = make_survey(PAIRS_YAML)
#: Stored (noisy) answers to cheated and copied, and how many respondents gave each pair.
STORED = {("yes", "yes"): 46, ("yes", "no"): 39, ("no", "yes"): 44, ("no", "no"): 71}


@pytest.fixture
def pairs(surveys_dir, db):
    (surveys_dir / "pairs.yaml").write_text(PAIRS_YAML)
    i = 0
    for (cheated, copied), count in STORED.items():
        for _ in range(count):
            answers = {"cheated": cheated, "copied": copied, "lied": "no", "year": "first"}
            response = noisy_response(SURVEY, answers, "device")
            responses.store_response(db, response, f"pairs-{i:08d}", "2026-11-26")
            i += 1


def panel(html: str) -> str:
    return html[html.index('id="correlation"') :]


def test_the_panel_shows_the_chosen_pairs_figures_and_its_assumption(auth, client, pairs, db):
    auth.login()
    response = client.get("/admin/surveys/pairs?pair_first=copied&pair_second=cheated&level=0.9")
    assert response.status_code == 200
    html = panel(response.get_data(as_text=True))
    first, second = SURVEY.question("cheated"), SURVEY.question("copied")
    table = [[STORED[(a, b)] for b in ("yes", "no")] for a in ("yes", "no")]
    expected = correlate(table, first.design, second.design, 0.9)
    assert f"{expected.phi:.3f} (standard error {expected.phi_std_err:.3f})" in html
    assert f"{expected.phi_ci[0]:.3f} to {expected.phi_ci[1]:.3f}" in html
    assert f"G = {expected.lr_statistic:.2f}" in html
    assert f"{expected.odds_ratio:.2f}" in html
    assert "200 respondents answered both questions" in html
    assert ASSUMPTION in unescape(html)
    assert '<option value="copied" selected>' in html and '<option value="cheated" selected>' in html
    kept = queries.pair_tallies(db, "pairs", "cheated", "copied")
    assert kept == {(question_design_key(first), question_design_key(second)): STORED}


def test_without_a_choice_the_first_two_questions_are_shown(auth, client, pairs):
    auth.login()
    html = panel(client.get("/admin/surveys/pairs").get_data(as_text=True))
    assert "“Cheated on an exam” (rows) and “Lied to a teacher” (columns)" in html


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("pair_first=year&pair_second=cheated", "&#39;year&#39; is not a randomized yes/no question"),
        ("pair_first=cheated&pair_second=nobody", "&#39;nobody&#39; is not"),
        ("pair_first=cheated&pair_second=cheated", "twice"),
    ],
)
def test_a_bad_pair_is_a_400_naming_it_and_nothing_changes(auth, client, pairs, db, query, message):
    auth.login()
    before = queries._kept_pair_rows(db, "pairs")
    response = client.get(f"/admin/surveys/pairs?{query}")
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert 'id="error-pair"' in html and message in html
    assert queries._kept_pair_rows(db, "pairs") == before


def test_a_pair_without_answers_says_so_and_a_survey_with_one_question_has_no_pair(auth, client, surveys_dir):
    auth.login()
    html = client.get("/admin/surveys/quiz").get_data(as_text=True)
    assert "No respondent has answered both" in panel(html)
    single = PAIRS_YAML.replace("id: pairs", "id: single").split("  - {name: lied")[0]
    (surveys_dir / "single.yaml").write_text(single)
    html = client.get("/admin/surveys/single").get_data(as_text=True)
    assert "No correlation: this survey has fewer than two randomized yes/no questions" in html


def test_surveys_recount_pairs_makes_the_kept_counts_equal_a_recount(runner, pairs, db):
    kept = queries._kept_pair_rows(db, "pairs")
    db.execute("UPDATE pair_tallies SET count = count + 5 WHERE survey_id = 'pairs'")
    assert queries._kept_pair_rows(db, "pairs") != kept
    result = runner.invoke(args=["surveys", "recount-pairs", "pairs"])
    assert result.exit_code == 0, result.output
    assert f"Recounted the pair counts of pairs: {len(kept)} rows" in result.output
    assert queries._kept_pair_rows(db, "pairs") == kept == queries._scan_pair_tallies(db, "pairs")
    refused = runner.invoke(args=["surveys", "recount-pairs", "nope"])
    assert refused.exit_code == 2 and "no responses are stored" in refused.output
