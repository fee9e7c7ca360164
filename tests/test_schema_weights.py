"""The ``population_counts:`` key of a survey file (surveys/schema_weights.py)."""

import pytest

from surveys.definition import PopulationMargin
from surveys.schema import SurveyFileError, parse_survey

QUESTIONS = [
    {"name": "cheated", "type": "yes_no", "label": "Cheated?"},
    {"name": "faculty", "type": "select_one", "label": "Faculty", "choices": ["arts", "science"], "randomize": False},
    {"name": "year", "type": "select_one", "label": "Year", "choices": ["first", "second"], "randomize": False},
]


def survey_with(counts):
    mapping = {"id": "weights", "title": "Weights", "version": 1, "questions": QUESTIONS}
    return mapping if counts is None else mapping | {"population_counts": counts}


def problems_of(counts):
    with pytest.raises(SurveyFileError) as raised:
        parse_survey(survey_with(counts), "weights.yaml")
    return [(p.field, p.message) for p in raised.value.problems]


def test_without_the_key_there_are_no_population_counts():
    assert parse_survey(survey_with(None), "weights.yaml").population_counts == ()


def test_one_margin_as_a_mapping_and_two_as_a_list_load_in_the_questions_order():
    one = parse_survey(survey_with({"by": "faculty", "counts": {"science": 800, "arts": 1200}}), "w.yaml")
    assert one.population_counts == (PopulationMargin("faculty", (("arts", 1200), ("science", 800))),)
    two = [
        {"by": "faculty", "counts": {"arts": 1200, "science": 800}},
        {"by": "year", "counts": {"first": 1100, "second": 900}},
    ]
    assert [m.by for m in parse_survey(survey_with(two), "w.yaml").population_counts] == ["faculty", "year"]


@pytest.mark.parametrize(
    ("counts", "field", "message"),
    [
        ("lots", "population_counts", "must be a list of margins"),
        ({"by": "cheated", "counts": {"yes": 1}}, "population_counts[1].by", "plain (not randomized)"),
        ({"by": "nope", "counts": {"a": 1}}, "population_counts[1].by", "got 'nope'"),
        ({"by": "faculty", "counts": {"arts": 1200}}, "population_counts[1].counts", "science missing"),
        ({"by": "faculty", "counts": {"arts": 1, "science": 2, "law": 3}}, "population_counts[1].counts", "law is not"),
        ({"by": "faculty", "counts": {"arts": 0, "science": 2}}, "population_counts[1].counts.arts", "1 or more"),
        ({"by": "faculty", "counts": [1, 2]}, "population_counts[1].counts", "must map each answer"),
        ({"by": "faculty", "counts": {"arts": 1, "science": 2}, "wieght": 1}, "population_counts[1].wieght", ""),
        (
            [
                {"by": "faculty", "counts": {"arts": 1, "science": 2}},
                {"by": "faculty", "counts": {"arts": 1, "science": 2}},
            ],
            "population_counts[2]",
            "second time",
        ),
        (
            [
                {"by": "faculty", "counts": {"arts": 1, "science": 2}},
                {"by": "year", "counts": {"first": 1, "second": 1}},
            ],
            "population_counts",
            "same population",
        ),
    ],
)
def test_a_bad_population_count_is_a_problem_naming_where_it_is(counts, field, message):
    problems = problems_of(counts)
    assert any(f == field and message in m for f, m in problems), problems
