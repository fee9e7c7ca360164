"""surveys/design_fit.py and surveys/schema_anchor.py: the "How well does the design fit?" checks from kept counts,
and the survey file's known_prevalence key."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from analysis.fit import logistic_fit_test
from analysis.regression import fit_logistic
from surveys.design_contract import question_design_key
from surveys.design_fit import CARELESS_ASSUMPTION, design_fit
from surveys.files import load_survey_text
from surveys.models import ModelChoice, answer_pattern, fit_model
from surveys.results import compute_results
from surveys.schema import SurveyFileError
from tests.helpers.sample_surveys import TWO_GROUP_YAML, model_survey, two_group_tallies

ANCHOR_YAML = """\
id: anchored
title: Anchored
version: 1
questions:
  - name: coin
    type: yes_no
    label: Did your last coin toss show heads?
    known_prevalence: 1/2
  - name: cheated
    type: yes_no
    label: Did you cheat?
  - name: paired
    type: yes_no
    label: Paired statements
    design:
      model: crosswise
      q: 1/4
      innocuous: My mother was born in January, February or March.
"""

PAIRED_LABEL = "    label: Paired statements\n"


def _tallies(survey, counts):
    return {name: {question_design_key(survey.question(name)): {"yes": y, "no": n}} for name, (y, n) in counts.items()}


def test_the_anchor_measures_the_careless_share_and_corrects_the_others():
    """Two coins: the anchor's 400 yes of 1000 read as (0.4 - 1/4) / (1/2) = 0.3, so c = (0.5 - 0.3) / 0.5 = 0.4;
    "cheated" reads 0.18 and is corrected to 0.18 / 0.6 = 0.3. The crosswise question is not corrected."""
    survey = load_survey_text(ANCHOR_YAML, "a.yaml")
    results = compute_results(
        survey, _tallies(survey, {"coin": (400, 600), "cheated": (340, 660), "paired": (5, 5)}), 1000
    )
    check = design_fit(survey, results, None, None).careless
    assert_allclose([check.share.estimate, check.share.std_err], [0.4, math.sqrt(0.24 / 1000) / 0.5 / 0.5])
    rows = {row.question.name: row for row in check.rows}
    assert_allclose(rows["cheated"].corrected.estimate, 0.3)
    assert rows["cheated"].corrected.uncorrected == pytest.approx(0.18)
    assert rows["paired"].corrected is None and "paired-statement" in rows["paired"].note
    assert check.assumption == CARELESS_ASSUMPTION and "same on every question" in check.assumption


def test_without_an_anchor_or_answers_there_is_no_careless_check():
    plain = load_survey_text(ANCHOR_YAML.replace("    known_prevalence: 1/2\n", ""), "a.yaml")
    assert plain.anchor is None
    assert design_fit(plain, compute_results(plain, {}, 0), None, None).empty
    anchored = load_survey_text(ANCHOR_YAML, "a.yaml")
    check = design_fit(anchored, compute_results(anchored, {}, 0), None, None).careless
    assert check.share is None and "no estimate" in check.message


@pytest.mark.parametrize(
    ("replacement", "message"),
    [
        ("known_prevalence: 0", "cannot reveal them"),
        ("known_prevalence: 3/2", "at most 1"),
        ("known_prevalence: many", "such as 0.25"),
    ],
)
def test_a_bad_known_prevalence_is_refused(replacement, message):
    with pytest.raises(SurveyFileError, match=message):
        load_survey_text(ANCHOR_YAML.replace("known_prevalence: 1/2", replacement), "a.yaml")


def test_an_anchor_must_be_one_randomized_one_design_question():
    crosswise = ANCHOR_YAML.replace(PAIRED_LABEL, PAIRED_LABEL + "    known_prevalence: 1/4\n")
    with pytest.raises(SurveyFileError, match="only one question"):
        load_survey_text(crosswise, "a.yaml")
    moved = ANCHOR_YAML.replace("    known_prevalence: 1/2\n", "").replace(
        PAIRED_LABEL, PAIRED_LABEL + "    known_prevalence: 1/4\n"
    )
    with pytest.raises(SurveyFileError, match="paired-statement"):
        load_survey_text(moved, "a.yaml")
    two_group = TWO_GROUP_YAML.replace("p2: 3/5}", "p2: 3/5}\n    known_prevalence: 1/2")
    with pytest.raises(SurveyFileError, match="one design for everyone"):
        load_survey_text(two_group, "t.yaml")


def test_each_two_group_question_is_saturated_with_a_compliance_test():
    survey = load_survey_text(TWO_GROUP_YAML, "t.yaml")
    tallies = two_group_tallies(
        survey, {"evaded": {"1": (60, 40), "2": (40, 60)}, "doped": {"1": (100, 100), "2": (140, 60)}}
    )
    checks = design_fit(survey, compute_results(survey, tallies, 400), None, None).two_group
    assert [c.question.name for c in checks] == ["evaded", "doped"]
    for check in checks:
        assert check.fit.model.saturated and "saturated: no test of the design itself is possible" in check.sentence
        assert check.fit.compliance.df == 1 and "G²" in check.sentence


def test_the_model_check_equals_the_fit_over_the_same_cells():
    """Two plain predictors (3 x 3 levels), main effects only: 9 cells, 5 parameters, 4 degrees of freedom."""
    survey = model_survey()
    key = question_design_key(survey.question("cheated"))
    rng = np.random.default_rng(5)  # test data only
    by_pattern, rows, yes, no = {}, [], [], []
    for a in range(3):
        for b in range(3):
            y = int(rng.binomial(200, 0.3 + 0.05 * a))
            by_pattern[answer_pattern({"p0": f"c{a}", "p1": f"c{b}"}, ["p0", "p1"])] = {"yes": y, "no": 200 - y}
            rows.append([a == 1, a == 2, b == 1, b == 2])
            yes.append(y)
            no.append(200 - y)
    tallies = {key: by_pattern}
    model = fit_model(survey, ModelChoice("cheated", ("p0", "p1"), {}), tallies)
    check = design_fit(survey, compute_results(survey, {}, 0), model, tallies).model
    x = np.array(rows, dtype=float)
    reference = logistic_fit_test(
        fit_logistic(x, yes, no, survey.question("cheated").design), x, yes, no, survey.question("cheated").design
    )
    assert (check.fit.cells, check.fit.parameters, check.fit.pearson.df) == (9, 5, 4)
    assert_allclose(check.fit.deviance.statistic, reference.deviance.statistic, rtol=1e-6)
    assert "Pearson X²" in check.sentence
    one = fit_model(survey, ModelChoice("cheated", ("p0",), {}), tallies)
    saturated = design_fit(survey, compute_results(survey, {}, 0), one, tallies).model
    assert saturated.fit.saturated and "no test is possible" in saturated.sentence


def test_an_anchor_that_would_make_everyone_careless_corrects_nothing():
    """No stored yes of 100 under two coins reads -0.5 for a known 1/2: a careless share of 2, clipped; nothing is
    divided by 1 - 0.999, and the share's interval stays inside [0, 1]."""
    survey = load_survey_text(ANCHOR_YAML, "a.yaml")
    results = compute_results(survey, _tallies(survey, {"coin": (0, 100), "cheated": (30, 70)}), 100)
    check = design_fit(survey, results, None, None).careless
    assert check.rows == () and "nothing is corrected" in check.message
    assert 0 <= check.share.ci.low <= check.share.ci.high <= 1
