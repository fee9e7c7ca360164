"""The results page's correlation panel (web/correlation_data.py, templates/admin/_correlation.html) and its
exports (correlation.json, correlation.csv, ``export correlation``)."""

from __future__ import annotations

import csv
import io
import json
import re
from html import unescape

import pytest

from analysis import correlate
from storage import audit, day_exclusions, kept_counts, responses
from surveys.correlation import ASSUMPTION, CORRELATION_COLUMNS, question_design_key
from surveys.submission import noisy_response
from tests.helpers.drivers import csrf_token_in
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
    kept = kept_counts.pair_tallies(db, "pairs", "cheated", "copied")
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
    before = kept_counts._kept_pair_rows(db, "pairs")
    response = client.get(f"/admin/surveys/pairs?{query}")
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert 'id="error-pair"' in html and message in html
    assert kept_counts._kept_pair_rows(db, "pairs") == before


def test_a_pair_without_answers_says_so_and_a_survey_with_one_question_has_no_pair(auth, client, surveys_dir):
    auth.login()
    html = client.get("/admin/surveys/quiz").get_data(as_text=True)
    assert "No respondent has answered both" in panel(html)
    single = PAIRS_YAML.replace("id: pairs", "id: single").split("  - {name: lied")[0]
    (surveys_dir / "single.yaml").write_text(single)
    html = client.get("/admin/surveys/single").get_data(as_text=True)
    assert "No correlation: this survey has fewer than two randomized yes/no questions" in html


def test_surveys_recount_pairs_makes_the_kept_counts_equal_a_recount(runner, pairs, db):
    kept = kept_counts._kept_pair_rows(db, "pairs")
    db.execute("UPDATE pair_tallies SET count = count + 5 WHERE survey_id = 'pairs'")
    assert kept_counts._kept_pair_rows(db, "pairs") != kept
    result = runner.invoke(args=["surveys", "recount-pairs", "pairs"])
    assert result.exit_code == 0, result.output
    assert f"Recounted the pair counts of pairs: {len(kept)} rows" in result.output
    assert kept_counts._kept_pair_rows(db, "pairs") == kept == kept_counts._scan_pair_tallies(db, "pairs")
    refused = runner.invoke(args=["surveys", "recount-pairs", "nope"])
    assert refused.exit_code == 2 and "no responses are stored" in refused.output


def expected_figures(level: float):
    """The panel's figures of (cheated, copied) at ``level``, from the stored table, apart from the app."""
    table = [[STORED[(a, b)] for b in ("yes", "no")] for a in ("yes", "no")]
    return correlate(table, SURVEY.question("cheated").design, SURVEY.question("copied").design, level)


def test_the_exports_give_the_panels_figures(auth, client, pairs, db):
    auth.login()
    query = "pair_first=copied&pair_second=cheated&level=0.9"
    html = panel(client.get(f"/admin/surveys/pairs?{query}").get_data(as_text=True))
    assert "/admin/surveys/pairs/correlation.csv?pair_first=cheated&amp;pair_second=copied&amp;level=0.9" in html
    expected = expected_figures(0.9)
    data = client.get(f"/admin/surveys/pairs/correlation.json?{query}").get_json()
    assert (data["first"], data["second"], data["n"], data["left_out"]) == ("cheated", "copied", 200, 0)
    assert data["method"] == expected.method and data["confidence_level"] == 0.9 and data["message"] is None
    assert data["stored_table"] == [[46, 39], [44, 71]] and data["assumption"] == ASSUMPTION
    body = client.get(f"/admin/surveys/pairs/correlation.csv?{query}")
    assert body.status_code == 200 and body.headers["Content-Disposition"].endswith(
        'pairs-correlation-cheated-copied.csv"'
    )
    rows = list(csv.DictReader(io.StringIO(body.get_data(as_text=True))))
    assert tuple(rows[0]) == CORRELATION_COLUMNS
    assert [r["figure"] for r in rows] == [r["figure"] for r in data["rows"]] == [
        *["joint"] * 4, "phi", "odds_ratio", "independence_test"
    ]  # fmt: skip
    for got in (rows, data["rows"]):
        by_cell = {(r["first_answer"], r["second_answer"]): r for r in got[:4]}
        for cell in expected.cells:
            row = by_cell[("yes" if cell.first else "no", "yes" if cell.second else "no")]
            assert float(row["estimate"]) == pytest.approx(cell.estimate, rel=1e-12)
            assert float(row["moment"]) == pytest.approx(cell.moment, rel=1e-12)
            assert float(row["std_err"]) == pytest.approx(cell.std_err, rel=1e-12)
        phi, odds, test = got[4:]
        assert [float(phi[k]) for k in ("estimate", "std_err", "low", "high")] == pytest.approx(
            [expected.phi, expected.phi_std_err, *expected.phi_ci], rel=1e-12
        )
        assert [float(odds[k]) for k in ("estimate", "low", "high")] == pytest.approx(
            [expected.odds_ratio, *expected.odds_ratio_ci], rel=1e-12
        )
        assert [float(test[k]) for k in ("statistic", "df", "p_value")] == pytest.approx(
            [expected.lr_statistic, expected.df, expected.p_value], rel=1e-12
        )
        assert all(r["method"] == expected.method and int(r["n"]) == 200 and int(r["left_out"]) == 0 for r in got)
    # the panel shows the same figures the exports give
    assert f"{expected.phi:.3f} (standard error {expected.phi_std_err:.3f})" in html
    assert f"G = {expected.lr_statistic:.2f}" in html


def test_the_exports_leave_out_the_excluded_days_as_the_panel_does(auth, client, pairs, db):
    answers = {"cheated": "yes", "copied": "yes", "lied": "no", "year": "first"}
    for i in range(30):
        responses.store_response(db, noisy_response(SURVEY, answers, "device"), f"later-{i:04d}", "2026-11-27")
    day_exclusions.exclude_day(db, "pairs", "2026-11-27")
    auth.login()
    data = client.get("/admin/surveys/pairs/correlation.json?pair_first=cheated&pair_second=copied").get_json()
    assert data["n"] == 200 and data["stored_table"] == [[46, 39], [44, 71]]
    html = panel(client.get("/admin/surveys/pairs?pair_first=cheated&pair_second=copied").get_data(as_text=True))
    assert "200 respondents answered both questions" in html


@pytest.mark.parametrize("file", ["correlation.json", "correlation.csv"])
@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("pair_first=year&pair_second=cheated", "'year' is not a randomized yes/no question"),
        ("pair_first=cheated&pair_second=nobody", "'nobody' is not"),
        ("pair_first=cheated&pair_second=cheated", "twice"),
        ("pair_first=cheated", "Choose the two randomized yes/no questions with pair_first=… and pair_second=…"),
        ("pair_first=cheated&pair_second=lied&level=2", "level"),
    ],
)
def test_a_bad_pair_in_an_export_is_a_400_naming_it(auth, client, pairs, db, file, query, message):
    auth.login()
    before = audit_rows(db)
    response = client.get(f"/admin/surveys/pairs/{file}?{query}")
    assert response.status_code == 400
    assert message in unescape(response.get_data(as_text=True))
    assert audit_rows(db) == before  # a refused export is not noted as a download


def audit_rows(db) -> int:
    return db.execute("SELECT COUNT(*) FROM audit_log").fetchone()[0]


def test_the_cli_writes_the_panels_figures(runner, pairs, tmp_path):
    expected = expected_figures(0.95)
    result = runner.invoke(args=["export", "correlation", "pairs", "--first", "copied", "--second", "cheated"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["first"], data["second"], data["n"]) == ("cheated", "copied", 200)
    phi = next(r for r in data["rows"] if r["figure"] == "phi")
    assert phi["estimate"] == pytest.approx(expected.phi, rel=1e-12)
    assert [phi["low"], phi["high"]] == pytest.approx(expected.phi_ci, rel=1e-12)
    out = tmp_path / "pair.csv"
    args = ["export", "correlation", "pairs", "--first", "cheated", "--second", "copied", "--format", "csv"]
    result = runner.invoke(args=[*args, "--level", "0.9", "-o", str(out)])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    test = next(r for r in rows if r["figure"] == "independence_test")
    assert float(test["statistic"]) == pytest.approx(expected_figures(0.9).lr_statistic, rel=1e-12)
    odds = next(r for r in rows if r["figure"] == "odds_ratio")
    assert [float(odds["low"]), float(odds["high"])] == pytest.approx(expected_figures(0.9).odds_ratio_ci, rel=1e-12)
    refused = runner.invoke(args=["export", "correlation", "pairs", "--first", "year", "--second", "cheated"])
    assert refused.exit_code == 2 and "'year' is not a randomized yes/no question" in refused.output


def test_an_api_token_reads_the_correlation_exports_and_the_download_is_audited(auth, client, app, pairs, db):
    auth.login()
    path = "/admin/surveys/pairs/tokens"
    csrf = csrf_token_in(client.get(path).get_data(as_text=True))
    made = client.post(path, data={"csrf_token": csrf, "label": "pairs script"}).get_data(as_text=True)
    token = re.search(r'<code class="new-token">([^<]+)</code>', made).group(1)
    query = "pair_first=cheated&pair_second=copied"
    script = app.test_client()  # no cookie
    by_token = script.get(f"/api/surveys/pairs/correlation.csv?{query}", headers={"Authorization": f"Bearer {token}"})
    assert by_token.status_code == 200
    assert by_token.get_data() == client.get(f"/admin/surveys/pairs/correlation.csv?{query}").get_data()
    details = {e.detail for e in audit.entries(db) if e.action == "export" and e.actor == "token:pairs script"}
    assert details == {"correlation.csv of cheated and copied"}


ECWM_PAIRS_YAML = """\
id: ecwmpairs
title: Extended crosswise pairs
version: 1
questions:
  - name: cannabis
    type: yes_no
    label: Used cannabis
    design:
      model: crosswise
      q: 1/4
      innocuous: My mother's birthday is in January, February or March.
      extended: {innocuous: My mother's birthday is between April and December.}
  - {name: copied, type: yes_no, label: Copied homework, design: {model: warner, p: 3/4}}
"""


def test_an_extended_crosswise_question_counts_group_1_and_says_why_group_2_is_left_out(auth, client, surveys_dir, db):
    """The correlation reads one table under one design per question: group 1's pairs of the extended crosswise
    question are counted, group 2's are left out, and the panel and the JSON say so and why."""
    (surveys_dir / "ecwmpairs.yaml").write_text(ECWM_PAIRS_YAML)
    survey = make_survey(ECWM_PAIRS_YAML)
    for i, (group, cannabis, copied) in enumerate([("1", "yes", "no")] * 30 + [("2", "no", "yes")] * 12):
        response = noisy_response(survey, {"cannabis": cannabis, "copied": copied}, "device", group)
        responses.store_response(db, response, f"ecwm-{i:08d}", "2026-11-26")
    auth.login()
    html = unescape(panel(client.get("/admin/surveys/ecwmpairs").get_data(as_text=True)))
    assert (
        "30 respondents answered both questions; 12 more who answered both under an older design or in group 2" in html
    )
    assert "“Used cannabis” is an extended crosswise question: only its group 1's answers" in html
    assert "direct-question arm are left out" not in html
    exported = client.get("/admin/surveys/ecwmpairs/correlation.json?pair_first=cannabis&pair_second=copied")
    assert exported.status_code == 200, exported.get_data(as_text=True)
    data = exported.get_json()
    assert (data["n"], data["left_out"]) == (30, 12) and "group 2's are left out" in data["assumption"]
