"""The ``sample_design:`` key of a survey file (surveys/schema_sample_design.py)."""

import pytest

from surveys.definition import SampleDesign
from surveys.schema import SurveyFileError, parse_survey

QUESTIONS = [
    {"name": "cheated", "type": "yes_no", "label": "Cheated?"},
    {"name": "class", "type": "select_one", "label": "Class", "choices": ["c1", "c2", "c3"], "randomize": False},
    {"name": "faculty", "type": "select_one", "label": "Faculty", "choices": ["arts", "science"], "randomize": False},
]
CLUSTERED = {
    "clusters": "class",
    "strata": {"arts": ["c1", "c2"], "science": ["c3"]},
    "weights": {"c1": 12.5, "c2": 12.5, "c3": 40},
    "fpc": {"arts": 25, "science": 40},
    "variance": "jackknife",
}


def survey_with(design, **more):
    mapping = {"id": "design", "title": "Design", "version": 1, "questions": QUESTIONS, **more}
    return mapping if design is None else mapping | {"sample_design": design}


def problems_of(design, **more):
    with pytest.raises(SurveyFileError) as raised:
        parse_survey(survey_with(design, **more), "design.yaml")
    return [(p.field, p.message) for p in raised.value.problems]


def test_without_the_key_there_is_no_sample_design():
    assert parse_survey(survey_with(None), "d.yaml").sample_design is None


def test_clusters_within_strata_with_weights_and_fpc_load_in_the_questions_order():
    design = parse_survey(survey_with(CLUSTERED), "d.yaml").sample_design
    assert design == SampleDesign(
        clusters="class",
        strata=None,
        cluster_strata=(("c1", "arts"), ("c2", "arts"), ("c3", "science")),
        weights=(("c1", 12.5), ("c2", 12.5), ("c3", 40.0)),
        fpc=(("arts", 25), ("science", 40)),
        variance="jackknife",
    )
    assert design.by == "class"


def test_strata_without_clusters_name_a_plain_question_and_one_stratum_may_take_one_fpc():
    design = parse_survey(survey_with({"strata": "faculty", "weights": {"arts": 3, "science": 1}}), "d.yaml")
    assert design.sample_design.by == "faculty" and design.sample_design.variance == "linearization"
    one = parse_survey(survey_with({"clusters": "class", "fpc": 30}), "d.yaml").sample_design
    assert one.fpc == (("", 30),) and one.weights == ()


@pytest.mark.parametrize(
    ("design", "field", "message"),
    [
        ("yes", "sample_design", "must be a mapping"),
        ({}, "sample_design", "give clusters, strata or both"),
        ({"clusters": "cheated"}, "sample_design.clusters", "plain (not randomized)"),
        ({"clusters": "nope"}, "sample_design.clusters", "got 'nope'"),
        ({"strata": "cheated"}, "sample_design.strata", "plain (not randomized)"),
        ({"clusters": "class", "strata": "faculty"}, "sample_design.strata", "must list each stratum's clusters"),
        ({"clusters": "class", "strata": {"arts": ["c1", "c2"]}}, "sample_design.strata", "c3 missing"),
        ({"clusters": "class", "strata": {"arts": ["c1", "c2", "c3", "c9"]}}, "sample_design.strata", "c9 is not"),
        (
            {"clusters": "class", "strata": {"arts": ["c1", "c2"], "science": ["c2", "c3"]}},
            "sample_design.strata.science",
            "c2 is already in stratum arts",
        ),
        ({"clusters": "class", "weights": {"c1": 1, "c2": 1}}, "sample_design.weights", "c3 missing"),
        ({"clusters": "class", "weights": {"c1": 0, "c2": 1, "c3": 1}}, "sample_design.weights.c1", "positive"),
        ({"clusters": "class", "weights": {"c1": 1, "c2": 1, "c3": 1, "c4": 1}}, "sample_design.weights", "c4 is not"),
        ({"strata": "faculty", "fpc": {"arts": 100}}, "sample_design.fpc", "one count for each stratum"),
        ({"strata": "faculty", "fpc": {"arts": 1.5, "science": 3}}, "sample_design.fpc.arts", "whole number"),
        ({"clusters": "class", "fpc": 2}, "sample_design.fpc", "at least the 3 clusters"),
        (CLUSTERED | {"fpc": {"arts": 1, "science": 5}}, "sample_design.fpc.arts", "at least the 2 clusters"),
        ({"clusters": "class", "variance": "bootstrap"}, "sample_design.variance", "linearization or jackknife"),
        ({"clusters": "class", "wieghts": {}}, "sample_design.wieghts", "did you mean 'weights'"),
    ],
)
def test_a_bad_sample_design_is_a_problem_naming_where_it_is(design, field, message):
    problems = problems_of(design)
    assert any(f == field and message in m for f, m in problems), problems


def test_sample_design_and_population_counts_together_are_refused():
    counts = {"by": "faculty", "counts": {"arts": 1200, "science": 800}}
    problems = problems_of({"strata": "faculty"}, population_counts=counts)
    assert any(f == "sample_design" and "cannot be given with population_counts" in m for f, m in problems)
