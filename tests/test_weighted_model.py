"""surveys/weighted_model.py (the logistic model weighted to population_counts), surveys.weights.margin_cell_weights,
and where it shows: the results page (templates/admin/_weighted_model.html), the model exports and `export model`."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from numpy.testing import assert_allclose

from analysis import fit_logistic, fit_weighted_logistic, rake
from surveys.design_contract import question_design_key
from surveys.models import ModelChoice, answer_pattern
from surveys.weighted_model import WEIGHTED_MODEL_COLUMNS, fit_weighted_model, weighted_model_json
from surveys.weights import margin_cell_weights
from tests.helpers.records import add_responses
from tests.helpers.sample_surveys import QUIZ_YAML, make_survey

pytestmark = pytest.mark.both_backends

CAMPUS = (
    "  - name: campus\n    type: select_one\n    label: Where do you live?\n"
    "    choices: ['on', 'off']\n    randomize: false\n"
)
YEAR_COUNTS = {"first": 3000, "second": 1000, "third": 900, "fourth": 100}
ONE_MARGIN_YAML = (
    QUIZ_YAML.replace(
        "questions:\n",
        "population_counts:\n  - {by: year, counts: {first: 3000, second: 1000, third: 900, fourth: 100}}\n"
        "questions:\n",
        1,
    )
    + CAMPUS
)
TWO_MARGINS_YAML = ONE_MARGIN_YAML.replace(
    "questions:\n", "  - {by: campus, counts: {'on': 2000, 'off': 3000}}\nquestions:\n", 1
)
YEARS = ("first", "second", "third", "fourth")
CAMPUSES = ("on", "off")
# Stored "cheated" answers (two coins) per (year, campus): (yes, no); the first-years under-represented.
CELLS = {
    ("first", "on"): (20, 30),
    ("first", "off"): (15, 35),
    ("second", "on"): (40, 20),
    ("second", "off"): (30, 30),
    ("third", "on"): (18, 12),
    ("third", "off"): (14, 16),
    ("fourth", "on"): (12, 8),
    ("fourth", "off"): (9, 11),
}
CAMPUS_CHOICE = ModelChoice("cheated", ("campus",), {})


def _kept(survey, cells=CELLS, without_year=(3, 4)) -> dict:
    """The outcome's kept pattern counts: every (year, campus) cell, and some answers with no year."""
    plain = ["year", "campus"]
    by_pattern = {
        answer_pattern({"year": y, "campus": c}, plain): {"yes": yes, "no": no} for (y, c), (yes, no) in cells.items()
    }
    by_pattern[answer_pattern({"campus": "on"}, plain)] = {"yes": without_year[0], "no": without_year[1]}
    return {question_design_key(survey.question("cheated")): by_pattern}


def _arrays():
    """Per (year, campus) cell in the CELLS order: the campus indicator, yes, no, and the year of the cell."""
    x = np.array([[float(c == "off")] for _, c in CELLS])
    yes = np.array([y for y, _ in CELLS.values()])
    no = np.array([n for _, n in CELLS.values()])
    return x, yes, no, [y for y, _ in CELLS]


def test_one_margin_weights_each_answer_by_its_years_population_over_its_answers():
    survey = make_survey(ONE_MARGIN_YAML)
    result = fit_weighted_model(survey, CAMPUS_CHOICE, _kept(survey))
    x, yes, no, years = _arrays()
    answered = {year: sum(sum(CELLS[(year, c)]) for c in CAMPUSES) for year in YEARS}
    weights = [YEAR_COUNTS[year] / answered[year] for year in years]
    expected = fit_weighted_logistic(x, yes, no, (0.5, 0.25, 0.25), weights)
    assert result.message is None and result.method == "post-stratified"
    assert result.fit.names == ("intercept", "Where do you live?: off vs on")
    assert_allclose([c.estimate for c in result.fit.coefficients], [c.estimate for c in expected.coefficients])
    assert_allclose(np.array(result.fit.covariance), np.array(expected.covariance), rtol=1e-9)
    assert result.fit.weighted_n == pytest.approx(sum(YEAR_COUNTS.values()))
    assert result.left_out == 7  # the answers without a year have no weight
    unweighted = fit_logistic(x, yes, no, (0.5, 0.25, 0.25))
    assert abs(result.fit.coefficients[1].estimate - unweighted.coefficients[1].estimate) > 0.01


def test_two_margins_weight_each_cell_by_raking_to_both():
    survey = make_survey(TWO_MARGINS_YAML)
    result = fit_weighted_model(survey, ModelChoice("cheated", ("year",), {}), _kept(survey))
    sample = np.array([[sum(CELLS[(y, c)]) for c in CAMPUSES] for y in YEARS], float)
    raked = rake(sample, [list(YEAR_COUNTS.values()), [2000, 3000]]).weights
    x = np.array([[float(y == level) for level in YEARS[1:]] for y, _ in CELLS])
    _, yes, no, _ = _arrays()
    weights = [raked[YEARS.index(y), CAMPUSES.index(c)] for y, c in CELLS]
    expected = fit_weighted_logistic(x, yes, no, (0.5, 0.25, 0.25), weights)
    assert result.method == "raked" and [q.name for q in result.by] == ["year", "campus"]
    assert_allclose([c.estimate for c in result.fit.coefficients], [c.estimate for c in expected.coefficients])
    assert_allclose([c.std_err for c in result.fit.coefficients], [c.std_err for c in expected.coefficients])


def test_margin_cell_weights_are_population_over_answers_and_name_an_empty_level():
    survey = make_survey(ONE_MARGIN_YAML)
    levels = np.array([[YEARS.index(y)] for y, _ in CELLS])
    answers = np.array([sum(counts) for counts in CELLS.values()])
    table, method = margin_cell_weights(survey, levels, answers)
    answered = [sum(sum(CELLS[(y, c)]) for c in CAMPUSES) for y in YEARS]
    assert method == "post-stratified"
    assert_allclose(table, [YEAR_COUNTS[y] / n for y, n in zip(YEARS, answered)])
    kept = [row for row, (y, _) in enumerate(CELLS) if y != "fourth"]
    with pytest.raises(ValueError, match="no answers at year = fourth"):
        margin_cell_weights(survey, levels[kept], answers[kept])
    without_fourth = {cell: counts for cell, counts in CELLS.items() if cell[0] != "fourth"}
    result = fit_weighted_model(survey, CAMPUS_CHOICE, _kept(survey, without_fourth))
    assert result.fit is None and "no answers at year = fourth" in result.message


def test_no_weighted_model_without_population_counts_or_for_a_number():
    survey = make_survey(QUIZ_YAML + CAMPUS)
    assert fit_weighted_model(survey, CAMPUS_CHOICE, _kept(survey)) is None
    assert weighted_model_json(None) == {}


def test_too_few_answers_give_a_message_not_a_number():
    survey = make_survey(ONE_MARGIN_YAML)
    few = dict.fromkeys(CELLS, (1, 1))
    result = fit_weighted_model(survey, CAMPUS_CHOICE, _kept(survey, few, (0, 0)))
    assert result.fit is None and "Too few answers" in result.message
    document = weighted_model_json(result)["weighted"]
    assert document["rows"] == [] and document["message"] == result.message


def test_the_json_holds_the_robust_errors_and_says_what_the_weights_assume():
    survey = make_survey(ONE_MARGIN_YAML)
    result = fit_weighted_model(survey, CAMPUS_CHOICE, _kept(survey))
    document = weighted_model_json(result)["weighted"]
    assert document["method"] == "post-stratified" and document["by"] == ["year"]
    assert document["covariance"].startswith("sandwich")
    row = document["rows"][1]
    assert row["weighted_robust_std_err"] == pytest.approx(result.fit.coefficients[1].std_err)
    assert "Year of study" in document["assumption"]


# --------------------------------------------------------------------------
# The results page, the exports and the CLI.


def _rows():
    rows = []
    for (year, campus), (yes, no) in CELLS.items():
        rows += [{"cheated": "yes", "year": year, "campus": campus}] * yes
        rows += [{"cheated": "no", "year": year, "campus": campus}] * no
    return rows


@pytest.fixture
def weighted_quiz(app, surveys_dir):
    (surveys_dir / "quiz.yaml").write_text(ONE_MARGIN_YAML)
    add_responses(app, _rows())
    survey = make_survey(ONE_MARGIN_YAML)
    return fit_weighted_model(survey, CAMPUS_CHOICE, _kept(survey, without_year=(0, 0)))


MODEL_QUERY = "model_outcome=cheated&model_predictors=campus"


def test_the_results_page_shows_the_weighted_model_beside_the_model(weighted_quiz, auth):
    auth.login()
    page = auth.client.get(f"/admin/surveys/quiz?{MODEL_QUERY}").get_data(as_text=True)
    section = page[page.index('id="weighted-model"') :]
    slope = weighted_quiz.fit.coefficients[1]
    assert f"{slope.estimate:.3f}" in section and f"{slope.std_err:.3f}" in section
    assert "Post-stratified to the population counts of “Year of study”" in section
    assert weighted_quiz.assumption in section
    assert page.index('id="model"') < page.index('id="weighted-model"') < page.index('id="predictor"')


def test_the_model_json_and_csv_gain_the_weighted_fields_and_columns(weighted_quiz, auth):
    auth.login()
    document = auth.client.get(f"/admin/surveys/quiz/model.json?{MODEL_QUERY}").get_json()
    slope = weighted_quiz.fit.coefficients[1]
    assert document["weighted"]["rows"][1]["weighted_estimate"] == pytest.approx(slope.estimate)
    assert document["weighted"]["rows"][1]["weighted_robust_std_err"] == pytest.approx(slope.std_err)
    text = auth.client.get(f"/admin/surveys/quiz/model.csv?{MODEL_QUERY}").get_data(as_text=True)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert set(WEIGHTED_MODEL_COLUMNS) <= set(rows[0])
    coefficient = next(r for r in rows if r["kind"] == "coefficient" and r["name"] == slope.name)
    assert float(coefficient["weighted_robust_std_err"]) == pytest.approx(slope.std_err)
    assert coefficient["weighted_method"] == "post-stratified"
    assert all(r["weighted_estimate"] == "" for r in rows if r["kind"] != "coefficient")


def test_a_survey_without_population_counts_exports_the_model_as_before(app, auth):
    add_responses(app, [{"cheated": "yes", "year": "first"}] * 30 + [{"cheated": "no", "year": "second"}] * 30)
    auth.login()
    document = auth.client.get("/admin/surveys/quiz/model.json?model_outcome=cheated&model_predictors=year")
    assert "weighted" not in document.get_json()
    text = auth.client.get("/admin/surveys/quiz/model.csv?model_outcome=cheated&model_predictors=year")
    assert "weighted" not in text.get_data(as_text=True)


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_export_model_on_the_command_line_carries_the_weighted_fit(weighted_quiz, runner, fmt):
    result = runner.invoke(
        args=["export", "model", "quiz", "--outcome", "cheated", "--predictor", "campus", "--format", fmt]
    )
    assert result.exit_code == 0, result.output
    slope = weighted_quiz.fit.coefficients[1]
    if fmt == "json":
        assert json.loads(result.output)["weighted"]["rows"][1]["weighted_robust_std_err"] == pytest.approx(
            slope.std_err
        )
    else:
        row = next(r for r in csv.DictReader(io.StringIO(result.output)) if r["name"] == slope.name)
        assert float(row["weighted_robust_std_err"]) == pytest.approx(slope.std_err)
