"""Tests of surveys.timeline: running sums per day, each point the results page's own figures at that day."""

from __future__ import annotations

import dataclasses

import pytest

from surveys import results, timeline
from surveys.design_contract import question_design_key
from tests.helpers.sample_surveys import make_survey


@pytest.fixture
def survey():
    return make_survey()


def daily(survey, *days):
    """``days``: ``(day, yes, no)`` for cheated under its current design."""
    key = question_design_key(survey.question("cheated"))
    return [(day, {"cheated": {key: {"yes": yes, "no": no}}}) for day, yes, no in days]


def test_each_point_is_the_result_of_the_answers_up_to_that_day(survey):
    kept = daily(survey, ("2026-11-20", 10, 20), ("2026-11-21", 30, 5), ("2026-11-23", 0, 15))
    line = timeline.question_timeline(survey.question("cheated"), kept, 0.9)
    assert [(p.day, p.n) for p in line.points] == [("2026-11-20", 30), ("2026-11-21", 65), ("2026-11-23", 80)]
    key = question_design_key(survey.question("cheated"))
    for point, (yes, no) in zip(line.points, [(10, 20), (40, 25), (40, 40)]):
        expected = results.question_result(survey.question("cheated"), {key: {"yes": yes, "no": no}}, 0.9)
        assert point.estimate == expected.estimate
        assert (point.sequence_low, point.sequence_high) == (expected.sequence.low, expected.sequence.high)


def test_excluded_days_are_left_out_of_every_running_sum(survey):
    kept = daily(survey, ("2026-11-20", 10, 20), ("2026-11-21", 30, 5), ("2026-11-23", 0, 15))
    line = timeline.question_timeline(survey.question("cheated"), kept, excluded_days=["2026-11-21"])
    assert [(p.day, p.n) for p in line.points] == [("2026-11-20", 30), ("2026-11-23", 45)]


def test_many_days_are_thinned_to_the_limit_keeping_the_first_and_last(survey):
    kept = daily(survey, *[(f"2026-{1 + i // 28:02d}-{1 + i % 28:02d}", 3, 7) for i in range(200)])
    line = timeline.question_timeline(survey.question("cheated"), kept)
    assert len(line.points) == timeline.MAX_POINTS
    assert (line.points[0].n, line.points[-1].n) == (10, 2000)
    assert [p.day for p in line.points] == sorted(p.day for p in line.points)


def test_only_randomized_yes_no_questions_have_a_timeline(survey):
    assert [t.question.name for t in timeline.survey_timelines(survey, [])] == ["cheated", "lied"]
    with pytest.raises(ValueError, match="ai_use"):
        timeline.question_timeline(survey.question("ai_use"), [])


@pytest.mark.parametrize("pooled", [False, True])
def test_a_running_point_is_what_the_results_page_shows(pooled):
    """The time chart's cheap point: the same n, estimate and sequence as question_result."""
    from analysis import ForcedResponseDesign
    from surveys.design_contract import question_design_key
    from surveys.results import question_result, running_point
    from tests.helpers.sample_surveys import make_survey

    survey = make_survey()
    question = survey.question("cheated")
    by_design = {question_design_key(question): {"yes": 70, "no": 130}}
    if pooled:
        old = dataclasses.replace(question, design=ForcedResponseDesign("2/3", "1/6", "1/6"))
        by_design[question_design_key(old)] = {"yes": 40, "no": 60}
    result = question_result(question, by_design, 0.9)
    n, estimate, sequence = running_point(question, by_design, 0.9)
    assert (n, estimate, sequence) == (result.n, result.estimate, result.sequence)
    assert result.pooled is pooled and running_point(question, {}, 0.9) is None
