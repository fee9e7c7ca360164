"""surveys/sample_design.py and the results page's design-weighted estimates (web/weights_data.py,
templates/admin/_sample_design.html), the estimates JSON and CSV and ``flask export estimates``."""

from __future__ import annotations

import csv
import io
import json
import re
from fractions import Fraction

import pytest

from analysis import design_share
from surveys.design_contract import question_design_key
from surveys.sample_design import design_results
from tests.helpers.records import add_responses
from tests.helpers.sample_surveys import QUIZ_YAML, make_survey

pytestmark = pytest.mark.both_backends

CLASS = (
    "  - name: class\n    type: select_one\n    label: Your class\n"
    "    choices: [c1, c2, c3, c4]\n    randomize: false\n"
)
DESIGN_YAML = (
    QUIZ_YAML.replace(
        "questions:\n",
        "population_size: 400\nsample_design:\n  clusters: class\n"
        "  strata: {arts: [c1, c2], science: [c3, c4]}\n  weights: {c1: 10, c2: 10, c3: 4, c4: 4}\n"
        "  fpc: {arts: 20, science: 8}\nquestions:\n",
        1,
    )
    + CLASS
)
SURVEY = make_survey(DESIGN_YAML)
# Stored answers per class: cheated (yes, no) under two coins; lied (yes, no) under t = 2/3, a = b = 1/6.
CHEATED = {"c1": (9, 11), "c2": (4, 16), "c3": (14, 6), "c4": (10, 10)}
LIED = {"c1": (5, 15), "c2": (8, 12), "c3": (11, 9), "c4": (6, 14)}


def _grouped(cheated, lied):
    keys = {name: question_design_key(SURVEY.question(name)) for name in ("cheated", "lied")}
    return {
        group: {
            "cheated": {keys["cheated"]: {"yes": cheated[group][0], "no": cheated[group][1]}},
            "lied": {keys["lied"]: {"yes": lied[group][0], "no": lied[group][1]}},
        }
        for group in cheated
    }


def _expected(counts, t, a, b, **kwargs):
    return design_share(
        [y for y, _ in counts.values()],
        [y + n for y, n in counts.values()],
        [10, 10, 4, 4],
        ["arts", "arts", "science", "science"],
        True,
        [20, 20, 8, 8],
        400,
        t,
        a,
        b,
        **kwargs,
    )


def test_each_yes_no_share_is_weighted_by_its_clusters_strata_and_weights():
    grouped = _grouped(CHEATED, LIED) | {None: _grouped({"x": (3, 2)}, {"x": (1, 1)})["x"]}
    weighting = design_results(SURVEY, grouped)
    cheated, lied = weighting.rows
    expected = _expected(CHEATED, 0.5, 0.25, 0.25)
    assert cheated.share.hajek.estimate_raw == pytest.approx(expected.hajek.estimate_raw)
    assert cheated.share.hajek.variance == pytest.approx(expected.hajek.variance)
    assert cheated.share.horvitz_thompson.variance == pytest.approx(expected.horvitz_thompson.variance)
    assert cheated.n == 80 and cheated.share.totals.psus == 4 and cheated.share.totals.strata == 2
    sixth = Fraction(1, 6)
    assert lied.share.hajek.estimate_raw == pytest.approx(_expected(LIED, 4 * sixth, sixth, sixth).hajek.estimate_raw)
    assert [q.name for q in weighting.not_weighted] == ["ai_use"]
    assert weighting.left_out == 5 and weighting.population_size == 400


def test_without_clusters_each_stratum_is_counted_from_its_two_kinds_of_answer():
    yaml = QUIZ_YAML.replace(
        "questions:\n",
        "sample_design:\n  strata: year\n  weights: {first: 2, second: 3, third: 3, fourth: 5}\n"
        "  variance: jackknife\nquestions:\n",
        1,
    )
    survey = make_survey(yaml)
    key = question_design_key(survey.question("cheated"))
    counts = {"first": (20, 30), "second": (15, 15), "third": (9, 21), "fourth": (12, 8)}
    grouped = {g: {"cheated": {key: {"yes": y, "no": n}}} for g, (y, n) in counts.items()}
    row = design_results(survey, grouped).rows[0]
    expected = design_share(
        [y for y, _ in counts.values()],
        [y + n for y, n in counts.values()],
        [2, 3, 3, 5],
        clustered=False,
        method="jackknife",
    )
    assert row.share.hajek.variance == pytest.approx(expected.hajek.variance)
    assert row.share.horvitz_thompson is None and row.share.totals.method == "jackknife"


def test_a_stratum_with_one_cluster_is_named_and_a_second_design_gives_no_estimate():
    lonely = design_results(SURVEY, _grouped({k: CHEATED[k] for k in ("c1", "c2", "c3")}, LIED))
    assert "Stratum science has answers from one sampling unit only" in lonely.rows[0].note
    other = make_survey(
        DESIGN_YAML.replace(
            "label: Have you ever cheated on an exam?\n", "label: Cheated?\n    design: {t: 2/3, a: 1/6, b: 1/6}\n"
        )
    )
    grouped = _grouped(CHEATED, LIED)
    grouped["c4"]["cheated"] |= {question_design_key(other.question("cheated")): {"yes": 1, "no": 1}}
    row = design_results(SURVEY, grouped).rows[0]
    assert row.share is None and "several designs" in row.note
    assert design_results(SURVEY, {}).rows[0].note == "No answers yet."


def _answers():
    rows = []
    for group in CHEATED:
        yes, no = CHEATED[group]
        lied_yes, _ = LIED[group]
        for i in range(yes + no):
            rows.append(
                {"cheated": "yes" if i < yes else "no", "lied": "yes" if i < lied_yes else "no", "class": group}
            )
    return rows


def test_the_results_page_shows_hajek_and_horvitz_thompson_with_their_design_effects(app, surveys_dir, auth):
    (surveys_dir / "quiz.yaml").write_text(DESIGN_YAML)
    add_responses(app, _answers() + [{"cheated": "yes", "lied": "no"}])  # one without a class: left out
    auth.login()
    page = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    row = re.search(r'<tr id="weighted-cheated">(.*?)</tr>', page, re.S).group(1)
    expected = _expected(CHEATED, 0.5, 0.25, 0.25)
    assert re.search(r'class="weighted-estimate">([^<]+)<', row).group(1) == f"{expected.hajek.estimate * 100:.1f}%"
    assert re.search(r'class="ht-estimate">([^<]+)<', row).group(1) == (
        f"{expected.horvitz_thompson.estimate * 100:.1f}%"
    )
    assert f"{expected.hajek.design_effect:.2f}" in row
    assert "Design-weighted estimates" in page and "within 2 strata" in page
    assert "1 answer with no answer to Your class is left out" in page
    assert "not weighted here: How often have you used AI-written text as your own?" in page


def test_the_estimates_json_csv_and_the_cli_export_carry_the_design_columns(app, surveys_dir, auth, runner):
    (surveys_dir / "quiz.yaml").write_text(DESIGN_YAML)
    add_responses(app, _answers())
    auth.login()
    expected = _expected(CHEATED, 0.5, 0.25, 0.25)
    document = auth.client.get("/admin/surveys/quiz/estimates.json").get_json()["weighted"]
    assert document["method"] == "design" and document["clusters"] == "class"
    row = next(r for r in document["rows"] if r["question"] == "cheated")
    assert row["weighted_estimate_raw"] == pytest.approx(expected.hajek.estimate_raw)
    assert row["ht_std_err"] == pytest.approx(expected.horvitz_thompson.std_err)
    assert row["psus"] == 4 and row["variance_method"] == "linearization"
    text = auth.client.get("/admin/surveys/quiz/estimates.csv").get_data(as_text=True)
    cheated = next(r for r in csv.DictReader(io.StringIO(text)) if r["question"] == "cheated")
    assert float(cheated["design_effect"]) == pytest.approx(expected.hajek.design_effect)
    assert float(cheated["ht_estimate_raw"]) == pytest.approx(expected.horvitz_thompson.estimate_raw)
    exported = json.loads(runner.invoke(args=["export", "estimates", "quiz", "--format", "json"]).output)
    assert exported["weighted"]["rows"][0]["weighted_std_err"] == pytest.approx(expected.hajek.std_err)
    printed = runner.invoke(args=["export", "estimates", "quiz", "--format", "csv"]).output
    row = next(r for r in csv.DictReader(io.StringIO(printed)) if r["question"] == "cheated")
    assert float(row["ht_std_err"]) == pytest.approx(expected.horvitz_thompson.std_err)
