"""The ``releases:`` key of a survey file (surveys/schema_releases.py)."""

from fractions import Fraction

import pytest

from surveys.schema import SurveyFileError, parse_survey
from surveys.schema_releases import DEFAULT_MIN_NEW_ANSWERS, ReleasePolicy

QUESTIONS = [
    {"name": "cheated", "type": "yes_no", "label": "Cheated?"},
    {"name": "year", "type": "select_one", "label": "Year", "choices": ["first", "second"], "randomize": False},
]


def survey_with(releases):
    mapping = {"id": "rel", "title": "Releases", "version": 1, "questions": QUESTIONS}
    return mapping if releases is None else mapping | {"releases": releases}


def problems_of(releases):
    with pytest.raises(SurveyFileError) as raised:
        parse_survey(survey_with(releases), "rel.yaml")
    return [(p.question, p.field, p.message) for p in raised.value.problems]


def test_without_a_releases_key_the_survey_has_no_policy():
    assert parse_survey(survey_with(None), "rel.yaml").release_policy is None


def test_a_releases_key_loads_with_its_defaults():
    """Only the budget is required; epsilon is exact (text ``1/2`` and the decimal 0.1 as written)."""
    policy = parse_survey(survey_with({"budget": {"epsilon": "1/2"}}), "rel.yaml").release_policy
    assert policy == ReleasePolicy(Fraction(1, 2), 0.0, 1, DEFAULT_MIN_NEW_ANSWERS)
    full = {"budget": {"epsilon": 0.1, "delta": "1e-6"}, "rows_per_person": 3, "min_new_answers": 10}
    policy = parse_survey(survey_with(full), "rel.yaml").release_policy
    assert policy == ReleasePolicy(Fraction(1, 10), 1e-6, 3, 10)


@pytest.mark.parametrize(
    ("releases", "field", "message"),
    [
        ("yes", "releases", "must be a mapping"),
        ({"budget": {"epsilon": 1}, "rows_per_persn": 2}, "releases.rows_per_persn", "did you mean 'rows_per_person'"),
        ({"rows_per_person": 2}, "releases.budget", "is required"),
        ({"budget": 1}, "releases.budget", "must be a mapping"),
        ({"budget": {"delta": 0}}, "releases.budget.epsilon", "is required"),
        ({"budget": {"epsilon": 0}}, "releases.budget.epsilon", "a number above 0"),
        ({"budget": {"epsilon": -1}}, "releases.budget.epsilon", "a number above 0"),
        ({"budget": {"epsilon": "lots"}}, "releases.budget.epsilon", "a number above 0"),
        ({"budget": {"epsilon": True}}, "releases.budget.epsilon", "YAML reads unquoted"),
        ({"budget": {"epsilon": float("inf")}}, "releases.budget.epsilon", "a number above 0"),
        ({"budget": {"epsilon": 1, "delta": 1}}, "releases.budget.delta", "below 0.001"),
        ({"budget": {"epsilon": 1, "delta": -0.1}}, "releases.budget.delta", "below 0.001"),
        ({"budget": {"epsilon": 1, "delta": 0.01}}, "releases.budget.delta", "below 0.001"),
        ({"budget": {"epsilon": 1, "eps": 1}}, "releases.budget.eps", "unknown key"),
        ({"budget": {"epsilon": 1}, "rows_per_person": 0}, "releases.rows_per_person", "1 or more"),
        ({"budget": {"epsilon": 1}, "rows_per_person": 1.5}, "releases.rows_per_person", "1 or more"),
        ({"budget": {"epsilon": 1}, "min_new_answers": 0}, "releases.min_new_answers", "1 or more"),
    ],
)
def test_each_mistake_of_releases_is_one_problem_naming_its_key(releases, field, message):
    problems = problems_of(releases)
    assert len(problems) == 1, problems
    assert problems[0][0] is None and problems[0][1] == field and message in problems[0][2], problems


def test_a_policy_checks_its_own_fields():
    with pytest.raises(ValueError, match="rows_per_person"):
        ReleasePolicy(Fraction(1), 0.0, 0, 50)
    with pytest.raises(ValueError, match="epsilon"):
        ReleasePolicy(Fraction(0), 0.0, 1, 50)
    with pytest.raises(ValueError, match="delta"):
        ReleasePolicy(Fraction(1), 0.5, 1, 50)
