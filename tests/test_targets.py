"""Tests of surveys.targets: the confidence sequence's margin now against each target, from kept tallies."""

from __future__ import annotations

import pytest
from numpy.testing import assert_allclose

from analysis import (
    confidence_sequence,
    estimate_proportion,
    sample_size_for_sequence_half_width,
    two_group_sample_size_for_sequence,
    two_group_sequence,
)
from surveys.design_contract import question_design_key
from surveys.results import difference_bounds
from surveys.targets import every_target_met, grouped_by, target_progress
from tests.helpers.sample_surveys import TWO_GROUP_YAML, make_survey, two_group_tallies

SHARE = {"question": "cheated", "margin": 0.1}
DIFFERENCE = {"question": "cheated", "by": "dept", "groups": ["arts", "law"], "margin": 0.3, "confidence_level": 0.9}


def survey_with(*targets):
    return make_survey(targets=list(targets))


def tally(survey, yes: int, no: int) -> dict:
    """``{design key: {answer: count}}`` of the question ``cheated`` under its file's design."""
    return {question_design_key(survey.question("cheated")): {"yes": yes, "no": no}}


def test_a_share_target_reads_the_half_width_of_the_confidence_sequence():
    survey = survey_with(SHARE)
    (progress,) = target_progress(survey, {"cheated": tally(survey, 300, 700)}, {})
    sequence = confidence_sequence(300, 1000, 0.5, 0.25, 0.25)
    assert progress.n == 1000
    assert_allclose(progress.half_width, (sequence.high - sequence.low) / 2, rtol=1e-12)
    assert progress.half_width > 0.1 and not progress.met  # two coins at n = 1,000: about 0.11


@pytest.mark.parametrize(("yes", "no", "met"), [(300, 700, False), (1500, 3500, True)])
def test_a_share_target_is_met_once_the_sequence_is_narrow_enough(yes, no, met):
    survey = survey_with(SHARE)
    (progress,) = target_progress(survey, {"cheated": tally(survey, yes, no)}, {})
    assert progress.met is met
    assert (progress.half_width <= 0.1) is met


def test_needed_n_plans_at_the_share_estimated_now_and_is_left_out_when_not_asked():
    survey = survey_with(SHARE)
    tallies = {"cheated": tally(survey, 300, 700)}
    (planned,) = target_progress(survey, tallies, {})
    estimate = estimate_proportion(300, 1000, 0.5, 0.25, 0.25).estimate
    assert planned.needed_n == sample_size_for_sequence_half_width(0.1, 0.95, 0.5, 0.25, 0.25, pi=estimate)
    assert planned.needed_n > 1000
    (unplanned,) = target_progress(survey, tallies, {}, plan=False)
    assert unplanned.needed_n is None and unplanned.half_width == planned.half_width


def test_no_answers_is_not_met():
    survey = survey_with(SHARE, DIFFERENCE)
    progress = target_progress(survey, {}, {"dept": {"arts": {"cheated": tally(survey, 5, 5)}}})
    assert [(p.n, p.half_width, p.met) for p in progress] == [(0, None, False), (10, None, False)]
    assert not every_target_met(progress)


def test_a_difference_target_reads_the_difference_sequence_of_the_two_groups():
    survey = survey_with(DIFFERENCE)
    grouped = {
        "dept": {
            "arts": {"cheated": tally(survey, 120, 280)},
            "law": {"cheated": tally(survey, 200, 200)},
            "science": {"cheated": tally(survey, 1, 1)},
        }
    }
    (progress,) = target_progress(survey, {}, grouped)
    bounds = difference_bounds(
        [estimate_proportion(120, 400, 0.5, 0.25, 0.25)], [estimate_proportion(200, 400, 0.5, 0.25, 0.25)], 0.9
    )
    assert progress.n == 800
    assert_allclose(progress.half_width, (bounds.high - bounds.low) / 2, rtol=1e-12)
    assert progress.met is (progress.half_width <= 0.3)


def test_every_target_met_needs_at_least_one_target_and_all_of_them():
    survey = survey_with(SHARE, {"question": "lied", "margin": 0.5})
    lied = {question_design_key(survey.question("lied")): {"yes": 3000, "no": 7000}}
    wide = target_progress(survey, {"cheated": tally(survey, 30, 70), "lied": lied}, {})
    narrow = target_progress(survey, {"cheated": tally(survey, 3000, 7000), "lied": lied}, {})
    assert [p.met for p in wide] == [False, True] and not every_target_met(wide)
    assert every_target_met(narrow)
    assert not every_target_met(())


def test_grouped_by_names_each_grouping_question_once():
    survey = survey_with(SHARE, DIFFERENCE, {**DIFFERENCE, "groups": ["law", "science"]})
    assert grouped_by(survey) == ("dept",)
    assert grouped_by(survey_with(SHARE)) == ()


# --------------------------------------------------------------------------
# Two-group questions (stochastic lie detector, cheater detection).


def two_group_survey_with(*targets):
    return make_survey(TWO_GROUP_YAML, targets=list(targets))


def test_a_target_on_a_two_group_question_reads_the_half_width_of_its_prevalence_sequence():
    """SLD p = (1/3, 2/3), 540 of 900 and 360 of 900 yes: pi = 0.4 and the sequence maps both rates' sequences
    at 97.5% (0.36 each side, inside [0, 1]): a margin of 0.4 is met, one of 0.3 is not."""
    survey = two_group_survey_with({"question": "evaded", "margin": 0.4}, {"question": "doped", "margin": 0.5})
    tallies = two_group_tallies(survey, {"evaded": {"1": (540, 360), "2": (360, 540)}})
    evaded, doped = target_progress(survey, tallies, {})
    sequence = two_group_sequence((540, 360), (900, 900), survey.question("evaded").design, 0.95)
    assert evaded.n == 1800 and 0.3 < evaded.half_width < 0.4 and evaded.met
    assert_allclose(evaded.half_width, (sequence.high - sequence.low) / 2, rtol=1e-12)
    design = survey.question("evaded").design
    assert evaded.needed_n == two_group_sample_size_for_sequence(design, 0.4, 0.95, 0.5, (0.6, 0.4))
    assert evaded.needed_n <= 1800  # met, so the answers so far are enough
    assert (doped.n, doped.half_width, doped.met) == (0, None, False)
    narrow = make_survey(TWO_GROUP_YAML, targets=[{"question": "evaded", "margin": 0.3}])
    assert not target_progress(narrow, tallies, {})[0].met


def test_a_two_group_target_plans_at_the_survey_group_share():
    survey = make_survey(TWO_GROUP_YAML, group_1_share="1/4", targets=[{"question": "evaded", "margin": 0.35}])
    tallies = two_group_tallies(survey, {"evaded": {"1": (300, 200), "2": (200, 300)}})
    (progress,) = target_progress(survey, tallies, {})
    design = survey.question("evaded").design
    assert progress.needed_n == two_group_sample_size_for_sequence(design, 0.35, 0.95, 0.25, (0.6, 0.4))
    assert progress.needed_n != two_group_sample_size_for_sequence(design, 0.35, 0.95, 0.5, (0.6, 0.4))


def test_a_difference_target_on_a_two_group_question_adds_the_two_groups_sequences():
    survey = two_group_survey_with({"question": "evaded", "by": "region", "groups": ["north", "south"], "margin": 0.9})
    design = survey.question("evaded").design
    north = two_group_tallies(survey, {"evaded": {"1": (540, 360), "2": (360, 540)}})
    south = two_group_tallies(survey, {"evaded": {"1": (400, 400), "2": (300, 500)}})
    (progress,) = target_progress(survey, {}, {"region": {"north": north, "south": south}})
    each = [
        two_group_sequence(yes, (900, 900) if yes == (540, 360) else (800, 800), design, 0.975)
        for yes in ((540, 360), (400, 300))
    ]
    assert progress.n == 3400
    assert_allclose(progress.half_width, sum((s.high - s.low) / 2 for s in each), rtol=1e-12)


NUMBERS_YAML = """\
id: nums
title: Numbers
version: 1
questions:
  - {name: drinks, type: decimal, label: Drinks, min: 1, max: 16, step: 0.5, epsilon: 1, mechanism: laplace}
  - {name: hours, type: integer, label: Hours, min: 0, max: 20, epsilon: 1, mechanism: bounded}
"""

#: Kept sums ``(n, sum, sum of squares)`` of each number's outputs in grid steps, within what its design can send.
NUMBER_SUMS = {"drinks": (900, 13_500, 400_000), "hours": (900, 400, 400)}


def number_survey(*targets):
    import yaml

    from surveys.schema import parse_survey

    return parse_survey(yaml.safe_load(NUMBERS_YAML) | ({"targets": list(targets)} if targets else {}), "nums.yaml")


def number_tallies(survey) -> dict:
    return {
        name: {question_design_key(survey.question(name)): {"b00": n, "=sum": total, "=sumsq": squares}}
        for name, (n, total, squares) in NUMBER_SUMS.items()
    }


@pytest.mark.parametrize("name", ["drinks", "hours"])
def test_a_number_target_is_met_exactly_when_the_means_sequence_is_within_the_margin(name):
    """The half-width is numeric_sequence's on the kept sums, in the question's units (grid steps times step);
    the target is met just above it and not just below; the answers needed are numeric_sequence_needed_n's."""
    from analysis.numeric import numeric_sequence, numeric_sequence_needed_n

    question = number_survey().question(name)
    sequence = numeric_sequence(question.design, *NUMBER_SUMS[name], 0.9)
    half_width = (sequence.high - sequence.low) / 2 * float(question.number.step)
    for margin, met in ((half_width * (1 + 1e-9), True), (half_width * (1 - 1e-9), False)):
        survey = number_survey({"question": name, "margin": margin, "confidence_level": 0.9})
        (progress,) = target_progress(survey, number_tallies(survey), {})
        assert progress.n == 900
        assert_allclose(progress.half_width, half_width, rtol=1e-12)
        assert progress.met is met and every_target_met((progress,)) is met
    wider = number_survey({"question": name, "margin": half_width / 2, "confidence_level": 0.9})
    (progress,) = target_progress(wider, number_tallies(wider), {})
    step = float(question.number.step)
    assert progress.needed_n == numeric_sequence_needed_n(question.design, half_width / 2 / step, 0.9) > 900
    assert progress.scale.upper is None and progress.scale.unit == ""  # shown in the question's units
