"""surveys/weights.py and the results page's weighted estimates (web/weights_data.py, templates/admin/_weights.html)."""

from __future__ import annotations

import csv
import io
import re

import pytest

from analysis import estimate_finite_population, estimate_proportion, post_stratify, raked_share
from surveys.design_contract import question_design_key
from surveys.weights import SKIPPED_NOTE, weight_results
from tests.helpers.records import add_responses, campus_life_answers
from tests.helpers.sample_surveys import QUIZ_YAML, make_survey

pytestmark = pytest.mark.both_backends

WEIGHTED_YAML = QUIZ_YAML.replace(
    "questions:\n",
    "population_counts:\n  - {by: year, counts: {first: 3000, second: 1000, third: 900, fourth: 100}}\nquestions:\n",
    1,
)
SURVEY = make_survey(WEIGHTED_YAML)
COUNTS = {"first": 3000, "second": 1000, "third": 900, "fourth": 100}
# Stored "cheated" answers (two coins) per year: (yes, no).
CHEATED = {"first": (30, 70), "second": (60, 40), "third": (20, 20), "fourth": (5, 5)}


def _tallies(by_group):
    key = question_design_key(SURVEY.question("cheated"))
    yes, no = by_group
    return {"cheated": {key: {"yes": yes, "no": no}}}


def test_a_yes_no_share_is_post_stratified_with_each_groups_finite_population_variance():
    grouped = {year: _tallies(CHEATED[year]) for year in CHEATED}
    total = (sum(y for y, _ in CHEATED.values()), sum(n for _, n in CHEATED.values()))
    weighting = weight_results(SURVEY, _tallies(total), grouped)
    share = next(s for s in weighting.shares if s.question.name == "cheated")
    parts = [estimate_finite_population(y, y + n, COUNTS[g], 0.5, 0.25, 0.25) for g, (y, n) in CHEATED.items()]
    overall = estimate_finite_population(total[0], sum(total), 5000, 0.5, 0.25, 0.25)
    expected = post_stratify(
        [p.estimate.estimate_raw for p in parts],
        [p.variance for p in parts],
        list(COUNTS.values()),
        0.95,
        overall.estimate.estimate_raw,
        overall.std_err,
    )
    assert share.estimate.estimate_raw == pytest.approx(expected.estimate_raw)
    assert share.estimate.variance == pytest.approx(expected.variance)
    assert share.estimate.design_effect == pytest.approx(expected.variance / overall.std_err**2)
    assert share.estimate.finite_population and share.n == 250
    assert weighting.left_out == 0


def test_a_group_without_answers_gives_no_weighted_estimate_and_says_which():
    grouped = {year: _tallies(CHEATED[year]) for year in ("first", "second", "third")}
    weighting = weight_results(SURVEY, _tallies((110, 130)), grouped)
    share = next(s for s in weighting.shares if s.question.name == "cheated")
    assert share.estimate is None and "fourth" in share.note


def test_without_population_counts_there_is_no_weighting():
    assert weight_results(make_survey(QUIZ_YAML), {}, {}) is None


def _answers():
    rows = []
    for year, (yes, no) in CHEATED.items():
        rows += [{"cheated": "yes", "ai_use": "never", "year": year}] * yes
        rows += [{"cheated": "no", "ai_use": "once", "year": year}] * no
    return rows


def test_the_results_page_shows_the_weighted_estimate_its_se_and_the_design_effect(app, surveys_dir, auth):
    (surveys_dir / "quiz.yaml").write_text(WEIGHTED_YAML)
    add_responses(app, _answers() + [{"cheated": "yes", "ai_use": "often"}])  # one without a year: left out
    auth.login()
    page = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    row = re.search(r'<tr id="weighted-cheated">(.*?)</tr>', page, re.S).group(1)
    grouped = {year: _tallies(CHEATED[year]) for year in CHEATED}
    key = question_design_key(SURVEY.question("cheated"))
    expected = weight_results(SURVEY, {"cheated": {key: {"yes": 116, "no": 135}}}, grouped).shares[0].estimate
    weighted = re.search(r'class="weighted-estimate">([^<]+)<', row).group(1)
    assert weighted == f"{expected.estimate * 100:.1f}%"
    assert f"{expected.design_effect:.2f}" in row
    unweighted = estimate_proportion(116, 251)
    assert f"{unweighted.estimate * 100:.1f}%" in row
    assert "1 answer with no answer to Year of study is left out" in page
    assert "like a random sample of that group" in page


def test_the_shipped_campus_life_survey_weights_its_shares_and_its_model_to_its_enrolment(app, auth):
    """survey_files/campus-life.yaml: "cheated" post-stratified to the example university's enrolment (3,100 in
    first year, 8,900 later), each year's two-coin share debiased by hand; the model of "cheated" on housing is
    fitted weighted beside it."""
    from app import ROOT

    app.config["SURVEYS_DIR"] = str(ROOT / "survey_files")
    answers = campus_life_answers()
    add_responses(app, answers, survey_id="campus-life")
    auth.login()
    page = auth.client.get("/admin/surveys/campus-life?model_outcome=cheated&model_predictors=housing").get_data(
        as_text=True
    )
    said = " ".join(re.sub(r"<[^>]+>", " ", page).split())
    assert "population counts of Year of study given in the survey file (first: 3,100, later: 8,900)" in said

    def debiased(year):  # two coins: (stored yes share - 1/4) / (1/2)
        stored = [a["cheated"] for a in answers if a["year"] == year]
        return (stored.count("yes") / len(stored) - 0.25) / 0.5

    expected = (3100 * debiased("first") + 8900 * debiased("later")) / 12000
    row = re.search(r'<tr id="weighted-cheated">(.*?)</tr>', page, re.S).group(1)
    assert re.search(r'class="weighted-estimate">([^<]+)<', row).group(1) == f"{expected * 100:.1f}%"
    model = page[page.index('id="weighted-model"') :]
    assert "Post-stratified to the population counts of “Year of study”" in model
    assert "Where do you live during term?: Elsewhere vs In student housing" in model


def test_a_question_asked_only_of_some_respondents_is_not_weighted_and_says_why(app, auth):
    """campus-life's housemate_theft is asked only of students in student housing (``relevant:``): the
    enrolment counts describe every student, so its share and its model are not weighted to them, and the page
    says why (a post-stratified share would describe no defined population)."""
    from app import ROOT

    app.config["SURVEYS_DIR"] = str(ROOT / "survey_files")
    add_responses(app, campus_life_answers(), survey_id="campus-life")
    auth.login()
    page = auth.client.get("/admin/surveys/campus-life?model_outcome=housemate_theft&model_predictors=year").get_data(
        as_text=True
    )
    row = re.search(r'<tr id="weighted-housemate_theft">(.*?)</tr>', page, re.S).group(1)
    assert "weighted-estimate" not in row and SKIPPED_NOTE in row
    model = page[page.index('id="weighted-model"') :]
    assert SKIPPED_NOTE in model
    document = auth.client.get("/admin/surveys/campus-life/estimates.json").get_json()["weighted"]
    theft = next(r for r in document["rows"] if r["question"] == "housemate_theft")
    assert theft["weighted_estimate"] is None


def test_a_survey_without_population_counts_shows_no_weighted_section(app, auth):
    add_responses(app, _answers())
    auth.login()
    assert 'id="weighted"' not in auth.client.get("/admin/surveys/quiz").get_data(as_text=True)


def test_the_estimates_json_and_csv_gain_the_weighted_figures(app, surveys_dir, auth):
    (surveys_dir / "quiz.yaml").write_text(WEIGHTED_YAML)
    add_responses(app, _answers())
    auth.login()
    grouped = {year: _tallies(CHEATED[year]) for year in CHEATED}
    key = question_design_key(SURVEY.question("cheated"))
    expected = weight_results(SURVEY, {"cheated": {key: {"yes": 115, "no": 135}}}, grouped).shares[0].estimate
    document = auth.client.get("/admin/surveys/quiz/estimates.json").get_json()["weighted"]
    assert document["by"] == "year" and document["population_counts"]["first"] == 3000
    row = next(r for r in document["rows"] if r["question"] == "cheated")
    assert row["weighted_estimate_raw"] == pytest.approx(expected.estimate_raw)
    assert row["weighted_std_err"] == pytest.approx(expected.std_err)
    assert row["design_effect"] == pytest.approx(expected.design_effect)
    assert {r["option"] for r in document["rows"] if r["question"] == "ai_use"} == {
        "never",
        "once",
        "sometimes",
        "often",
    }
    text = auth.client.get("/admin/surveys/quiz/estimates.csv").get_data(as_text=True)
    rows = list(csv.DictReader(io.StringIO(text)))
    cheated = next(r for r in rows if r["question"] == "cheated")
    assert float(cheated["weighted_estimate_raw"]) == pytest.approx(expected.estimate_raw)
    assert float(cheated["design_effect"]) == pytest.approx(expected.design_effect)


def test_a_survey_without_population_counts_exports_no_weighted_columns(app, auth):
    add_responses(app, _answers())
    auth.login()
    assert "weighted" not in auth.client.get("/admin/surveys/quiz/estimates.json").get_json()
    assert "design_effect" not in auth.client.get("/admin/surveys/quiz/estimates.csv").get_data(as_text=True)


RAKED_YAML = WEIGHTED_YAML.replace(
    "questions:\n",
    "  - {by: campus, counts: {'on': 2000, 'off': 3000}}\nquestions:\n",
    1,
) + (
    "  - name: campus\n    type: select_one\n    label: Where do you live?\n"
    "    choices: ['on', 'off']\n    randomize: false\n"
)
# Stored "cheated" answers (two coins) per (year, campus): (yes, no).
RAKED_CELLS = {
    ("first", "on"): (20, 30),
    ("first", "off"): (15, 35),
    ("second", "on"): (30, 20),
    ("second", "off"): (25, 25),
    ("third", "on"): (10, 10),
    ("third", "off"): (12, 8),
    ("fourth", "on"): (4, 6),
    ("fourth", "off"): (3, 2),
}


def test_with_two_margins_the_page_and_the_json_show_each_yes_no_share_raked_to_both(app, surveys_dir, auth):
    (surveys_dir / "quiz.yaml").write_text(RAKED_YAML)
    rows = []
    for (year, campus), (yes, no) in RAKED_CELLS.items():
        rows += [{"cheated": "yes", "year": year, "campus": campus}] * yes
        rows += [{"cheated": "no", "year": year, "campus": campus}] * no
    add_responses(app, rows)
    years, campuses = ["first", "second", "third", "fourth"], ["on", "off"]
    ys = [[RAKED_CELLS[(y, c)][0] for c in campuses] for y in years]
    ns = [[sum(RAKED_CELLS[(y, c)]) for c in campuses] for y in years]
    expected = raked_share(ys, ns, [[3000, 1000, 900, 100], [2000, 3000]])
    auth.login()
    page = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    row = re.search(r'<tr id="raked-cheated">(.*?)</tr>', page, re.S).group(1)
    assert f">{expected.estimate * 100:.1f}%<" in row and f"{expected.design_effect:.2f}" in row
    assert "Raked to the margins of year and campus" in page
    document = auth.client.get("/admin/surveys/quiz/estimates.json").get_json()["weighted"]
    raked = next(r for r in document["raked_rows"] if r["question"] == "cheated")
    assert raked["weighted_estimate_raw"] == pytest.approx(expected.estimate_raw)
    assert raked["weighted_std_err"] == pytest.approx(expected.std_err)
    assert document["raked_by"] == ["year", "campus"]
