"""Tests of surveys.results: every figure must be analysis's own output.

The point of these tests is that there is no second implementation of an
estimator: each result is compared with what the analysis function returns
for the same counts, with ``==``, and a few numbers are derived by hand in
comments as a sanity check.
"""

from __future__ import annotations

import dataclasses
import math

import pytest
import yaml
from numpy.testing import assert_allclose
from scipy.stats import norm

import analysis
from surveys import results
from surveys.design_contract import question_design_key
from surveys.kinds import choice as choice_kind
from surveys.schema import parse_survey
from tests.helpers.sample_surveys import DEPT_SURVEY_YAML as SURVEY_YAML
from tests.helpers.sample_surveys import (
    K_OPTION_AS_MATRIX,
    K_OPTION_DESIGN_LINE,
    RRTCS_SURVEY_YAML,
    TWO_GROUP_YAML,
    make_survey,
    two_group_tallies,
)

pytestmark = pytest.mark.both_backends


@pytest.fixture
def survey():
    return make_survey()


def key(survey, name):
    return question_design_key(survey.question(name))


def old_design_key(survey, name, design):
    """The key the question would have had under another design."""
    return question_design_key(dataclasses.replace(survey.question(name), design=design))


DIE = analysis.ForcedResponseDesign("2/3", "1/6", "1/6")


# --------------------------------------------------------------------------
# Yes/no questions.


def test_yes_no_result_is_analysis_output(survey):
    # Two coins, 100 answers, 40 yes: lambda_hat = 0.4, so the estimate is
    # (0.4 - 1/4) / (1/2) = 0.3, inside [0, 1].
    tallies = {"cheated": {key(survey, "cheated"): {"yes": 40, "no": 60}}}
    result = results.compute_results(survey, tallies, 100).question("cheated")
    expected = analysis.estimate_proportion(40, 100, 0.5, 0.25, 0.25)
    assert_allclose(result.estimate, 0.3)
    assert (result.n, result.yes_count, result.observed_rate) == (100, 40, expected.observed_rate)
    assert result.estimate == expected.estimate and result.estimate_raw == expected.estimate_raw
    assert result.std_err == expected.std_err
    assert result.ci == expected.confidence_interval(0.95, "wilson")
    assert result.per_design[0].estimate == expected
    assert result.epsilon == analysis.forced_response_epsilon(0.5, 0.25, 0.25) == pytest.approx(math.log(3))
    assert result.design_label == analysis.TWO_COIN.label()
    assert not result.pooled and result.pooled_estimate is None
    assert result.flags == ()


@pytest.mark.parametrize("method", sorted(analysis.INTERVAL_METHODS))
@pytest.mark.parametrize("level", [0.9, 0.99])
def test_interval_method_and_level_are_passed_to_analysis(survey, method, level):
    tallies = {"cheated": {key(survey, "cheated"): {"yes": 55, "no": 45}}}
    result = results.compute_results(survey, tallies, 100, level, method)
    expected = analysis.estimate_proportion(55, 100).confidence_interval(level, method)
    assert result.question("cheated").ci == expected
    assert (result.confidence_level, result.method) == (level, method)


def test_sentence_states_the_interval_in_percent(survey):
    tallies = {"cheated": {key(survey, "cheated"): {"yes": 40, "no": 60}}}
    result = results.compute_results(survey, tallies, 100).question("cheated")
    low, high = round(result.ci.low * 100), round(result.ci.high * 100)
    assert result.sentence == (
        "Estimated share of true yes answers to \u201cHave you ever cheated on an exam?\u201d in the population "
        f"sampled: 30% (95% confidence interval {low}% to {high}%)."
    )


def test_small_n_flag_below_the_threshold(survey):
    k = key(survey, "cheated")
    below = results.compute_results(survey, {"cheated": {k: {"yes": 15, "no": results.SMALL_N - 16}}}, 29)
    at = results.compute_results(survey, {"cheated": {k: {"yes": 15, "no": results.SMALL_N - 15}}}, 30)
    assert below.question("cheated").flags == ("small n",)
    assert at.question("cheated").flags == ()


def test_clipped_flag_when_the_raw_estimate_is_below_zero(survey):
    # 10 yes out of 100 with two coins: (0.1 - 0.25) / 0.5 = -0.3, clipped to 0.
    tallies = {"cheated": {key(survey, "cheated"): {"yes": 10, "no": 90}}}
    result = results.compute_results(survey, tallies, 100).question("cheated")
    assert_allclose(result.estimate_raw, -0.3)
    assert result.estimate == 0.0 and result.clipped
    assert result.flags == ("clipped", "below the design's floor")
    assert result.outside == analysis.outside_design(10, 100) and 0 < result.outside.bound < 1


def test_several_designs_are_pooled_with_analysis(survey):
    current, old = key(survey, "cheated"), old_design_key(survey, "cheated", DIE)
    tallies = {"cheated": {current: {"yes": 60, "no": 90}, old: {"yes": 30, "no": 70}}}
    result = results.compute_results(survey, tallies, 250).question("cheated")
    two_coins = analysis.estimate_proportion(60, 150, 0.5, 0.25, 0.25)
    die = analysis.estimate_proportion(30, 100, 2 / 3, 1 / 6, 1 / 6)
    pooled = analysis.pool_estimates([two_coins, die])  # current design first
    assert result.pooled and len(result.per_design) == 2
    assert [d.estimate for d in result.per_design] == [two_coins, die]
    assert result.pooled_estimate == pooled
    assert (result.estimate, result.estimate_raw, result.std_err) == (
        pooled.estimate,
        pooled.estimate_raw,
        pooled.std_err,
    )
    assert result.ci == pooled.confidence_interval(0.95) and result.ci.method == "wald"
    assert (result.n, result.yes_count, result.observed_rate) == (250, 90, 90 / 250)
    assert result.epsilon == max(analysis.TWO_COIN.epsilon, DIE.epsilon) == pytest.approx(math.log(5))
    assert result.design_label == "pooled over 2 designs"
    assert "several designs" in result.flags


def test_no_responses(survey):
    result = results.compute_results(survey, {}, 0)
    cheated = result.question("cheated")
    assert cheated.n == 0 and cheated.flags == ("no responses",)
    assert None is cheated.estimate is cheated.estimate_raw is cheated.std_err is cheated.ci
    assert cheated.sentence == "No answers to \u201cHave you ever cheated on an exam?\u201d yet."
    assert cheated.epsilon == analysis.TWO_COIN.epsilon
    choice = result.question("ai_use")
    assert choice.n == 0 and choice.flags == ("no responses",)
    assert all(option.estimate_projected is None for option in choice.options)
    assert result.question("dept").shares is None


def test_answers_under_an_incompatible_design_are_ignored_and_flagged(survey):
    yes_no_key = key(survey, "cheated")  # a yes/no key filed under a select_one question
    tallies = {"ai_use": {key(survey, "ai_use"): {"never": 40}, yes_no_key: {"yes": 5}}}
    result = results.compute_results(survey, tallies, 45).question("ai_use")
    assert result.n == 40 and not result.pooled
    assert "some answers ignored" in result.flags


def test_questions_in_survey_order_and_epsilon(survey):
    result = results.compute_results(survey, {}, 0)
    assert [r.question.name for r in result.questions] == ["cheated", "lied", "ai_use", "dept"]
    assert result.epsilon == survey.epsilon
    assert isinstance(result.question("dept"), results.PlainResult)


@pytest.mark.parametrize(
    "kwargs", [{"method": "bayes"}, {"confidence_level": 1.5}, {"confidence_level": 0}, {"response_count": -1}]
)
def test_bad_arguments_raise_value_error(survey, kwargs):
    arguments = {"response_count": 0, **kwargs}
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        results.compute_results(survey, {}, **arguments)


# --------------------------------------------------------------------------
# Plain and multiple-choice questions.


def test_plain_counts_in_choice_order_with_zeros(survey):
    tallies = {"dept": {key(survey, "dept"): {"law": 3, "arts": 1}}}
    result = results.compute_results(survey, tallies, 4).question("dept")
    assert result.counts == (1, 0, 3)
    assert result.shares == (0.25, 0.0, 0.75)
    assert result.n == 4 and result.flags == ()


def test_multiple_choice_is_analysis_output(survey):
    counts = (50, 20, 20, 10)
    tallies = {"ai_use": {key(survey, "ai_use"): dict(zip(("never", "once", "sometimes", "often"), counts))}}
    result = results.compute_results(survey, tallies, 100).question("ai_use")
    expected = analysis.estimate_multiple_choice(counts, 0.5)
    intervals = expected.confidence_intervals(0.95, "wilson")
    assert result.n == 100 and not result.pooled
    for j, option in enumerate(result.options):
        assert option.choice == survey.question("ai_use").choices[j]
        assert option.count == counts[j]
        assert option.observed == expected.observed[j]
        assert option.estimate_raw == expected.estimate_raw[j]
        assert option.estimate_projected == expected.estimate_projected[j]
        assert option.std_err == expected.std_err[j]
        assert option.ci == intervals[j]
    # often: (0.1 - 1/8) / (1/2) = -0.05 < 0, so the projection moved it.
    assert_allclose(result.options[3].estimate_raw, -0.05)
    assert result.flags == ("clipped", "below the design's floor")
    marginal = analysis.MultipleChoiceDesign(4, "1/2").option_marginal().exact()
    assert result.options[3].outside == analysis.outside_design(10, 100, *marginal)
    assert [o.outside for o in result.options[:3]] == [None, None, None]
    assert_allclose(sum(o.estimate_projected for o in result.options), 1.0)
    assert result.epsilon == expected.epsilon


def test_multiple_choice_under_several_designs_pools_each_option(survey):
    names = ("never", "once", "sometimes", "often")
    old_design = analysis.MultipleChoiceDesign(4, "3/4")
    current, old = key(survey, "ai_use"), old_design_key(survey, "ai_use", old_design)
    new_counts, old_counts = (40, 30, 20, 10), (70, 10, 10, 10)
    tallies = {"ai_use": {current: dict(zip(names, new_counts)), old: dict(zip(names, old_counts))}}
    result = results.compute_results(survey, tallies, 200).question("ai_use")
    assert result.pooled and len(result.per_design) == 2 and "several designs" in result.flags
    raws = []
    for j, option in enumerate(result.options):
        # Option j alone: forced response with t, a = (1 - t)/4, b = 1 - t - a.
        new = analysis.estimate_proportion(new_counts[j], 100, 0.5, 0.125, 0.375)
        previous = analysis.estimate_proportion(old_counts[j], 100, 0.75, 0.0625, 0.1875)
        pooled = analysis.pool_estimates([new, previous])
        assert option.estimate_raw == pooled.estimate_raw
        assert option.std_err == pooled.std_err
        assert option.ci == pooled.confidence_interval(0.95)
        assert option.count == new_counts[j] + old_counts[j]
        raws.append(pooled.estimate_raw)
    projected = analysis.project_to_simplex(raws)
    assert [o.estimate_projected for o in result.options] == list(projected)
    assert_allclose(sum(o.estimate_projected for o in result.options), 1.0)
    assert result.design_label == "pooled over 2 designs"
    assert result.epsilon == max(old_design.epsilon, survey.question("ai_use").design.epsilon)


# --------------------------------------------------------------------------
# Planning.


def test_planning_uses_the_design_needing_most_answers(survey):
    plan = results.plan(survey, 400)
    # Two coins (t=1/2) needs more than the die (t=2/3): 1537 answers for +/-5 points.
    assert plan.question.name == "cheated"
    assert plan.needed_n == analysis.sample_size_for_half_width(0.05, 0.95, 0.5, 0.25, 0.25) == 1537
    assert plan.half_width_now == analysis.half_width_for_n(400, 0.95, 0.5, 0.25, 0.25)


def test_planning_gives_the_answers_the_confidence_sequence_needs_too(survey):
    plan = results.plan(survey, 400, half_width=0.05)
    assert plan.needed_n_sequence == analysis.sample_size_for_sequence_half_width(0.05, 0.95, 0.5, 0.25, 0.25) == 5666
    other = results.plan(survey, 0, half_width=0.1, confidence_level=0.9, question="lied")
    assert other.needed_n_sequence == analysis.sample_size_for_sequence_half_width(0.1, 0.9, *other.design.exact())
    assert other.needed_n_sequence > other.needed_n


def test_plan_with_other_targets_and_no_responses(survey):
    plan = results.plan(survey, 0, half_width=0.1, confidence_level=0.9)
    assert plan.needed_n == analysis.sample_size_for_half_width(0.1, 0.9, 0.5, 0.25, 0.25)
    assert plan.half_width_now is None
    assert (plan.half_width, plan.confidence_level, plan.response_count) == (0.1, 0.9, 0)


def test_no_planning_without_a_yes_no_question():
    mapping = yaml.safe_load(SURVEY_YAML)
    mapping["questions"] = [q for q in mapping["questions"] if q["type"] != "yes_no"]
    survey = parse_survey(mapping, "quiz.yaml")
    assert results.plan(survey, 10) is None


def test_answers_under_an_older_design_count_with_their_own_epsilon(survey):
    # cheated now two coins (ln 3); older answers under t = 0.8, a = b = 0.1: ln 9. The survey's
    # epsilon counts ln 3; a respondent under the old design paid ln 9 for that question.
    old = old_design_key(survey, "cheated", analysis.ForcedResponseDesign("4/5", "1/10", "1/10"))
    tallies = {
        "cheated": {key(survey, "cheated"): {"yes": 5, "no": 5}, old: {"yes": 3, "no": 3}},
        "ai_use": {key(survey, "ai_use"): {"never": 4}},
    }
    result = results.compute_results(survey, tallies, 16)
    assert_allclose(result.answered_epsilon.per_question, [math.log(5), math.log(9)])  # ai_use, cheated by name
    assert_allclose(result.answered_epsilon.basic, math.log(45))  # lied (ln 5) has no answers
    assert_allclose(result.epsilon.basic, math.log(75))  # the current designs: ln 3 + ln 5 + ln 5
    assert results.compute_results(survey, {}, 0).answered_epsilon is None


def test_a_question_that_fails_shows_its_error_and_the_others_still_compute(survey, monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("t + a + b must equal 1")

    monkeypatch.setattr(choice_kind, "estimate_multiple_choice", broken)
    tallies = {
        "cheated": {key(survey, "cheated"): {"yes": 40, "no": 60}},
        "ai_use": {key(survey, "ai_use"): {"never": 50, "once": 50}},
    }
    computed = results.compute_results(survey, tallies, 100)
    failed = computed.question("ai_use")
    assert failed.flags == ("not computed",) and failed.error == "ValueError: t + a + b must equal 1"
    assert "could not be computed (ValueError: t + a + b must equal 1)" in failed.sentence
    assert all(o.estimate_projected is None for o in failed.options)
    assert computed.question("cheated").estimate == analysis.estimate_proportion(40, 100).estimate


def test_a_select_one_with_a_six_decimal_t_is_estimated():
    # t = 0.654321, k = 4: the forced share (1 - t)/4 = 345679/4000000 needs a denominator above 10^6.
    survey = make_survey(
        questions=[
            {
                "name": "ai_use",
                "type": "select_one",
                "label": "Q",
                "choices": ["a", "b", "c", "d"],
                "design": {"t": 0.654321},
            }
        ]
    )
    tallies = {"ai_use": {key(survey, "ai_use"): {"a": 10, "b": 20, "c": 30, "d": 40}}}
    result = results.compute_results(survey, tallies, 100).question("ai_use")
    assert result.error is None
    expected = analysis.estimate_multiple_choice([10, 20, 30, 40], survey.question("ai_use").design.t)
    assert [o.ci for o in result.options] == list(expected.confidence_intervals())


# --------------------------------------------------------------------------
# Anytime-valid confidence sequences.


@pytest.mark.parametrize("level", [0.9, 0.95])
def test_a_yes_no_question_carries_its_confidence_sequence(survey, level):
    tallies = {"cheated": {key(survey, "cheated"): {"yes": 40, "no": 60}}}
    result = results.compute_results(survey, tallies, 100, level).question("cheated")
    expected = analysis.confidence_sequence(40, 100, 0.5, 0.25, 0.25, level)
    assert (result.sequence.low, result.sequence.high) == (expected.low, expected.high)
    assert (result.sequence.confidence_level, result.sequence.designs) == (level, 1)
    # Valid at every look: wider than the fixed-sample interval at the same level.
    assert result.sequence.low < result.ci.low and result.sequence.high > result.ci.high


def test_a_question_without_answers_has_no_sequence(survey):
    result = results.compute_results(survey, {}, 0)
    assert result.question("cheated").sequence is None
    assert all(option.sequence is None for option in result.question("ai_use").options)


def test_several_designs_intersect_their_sequences_at_alpha_over_m(survey):
    current, old = key(survey, "cheated"), old_design_key(survey, "cheated", DIE)
    tallies = {"cheated": {current: {"yes": 60, "no": 90}, old: {"yes": 30, "no": 70}}}
    result = results.compute_results(survey, tallies, 250).question("cheated")
    two_coins = analysis.confidence_sequence(60, 150, 0.5, 0.25, 0.25, 0.975)
    die = analysis.confidence_sequence(30, 100, "2/3", "1/6", "1/6", 0.975)
    assert result.sequence.low == max(two_coins.low, die.low)
    assert result.sequence.high == min(two_coins.high, die.high)
    assert result.sequence.designs == 2 and result.sequence.confidence_level == 0.95


def test_designs_that_disagree_beyond_chance_give_the_hull_not_an_empty_set(survey):
    current, old = key(survey, "cheated"), old_design_key(survey, "cheated", DIE)
    tallies = {"cheated": {current: {"yes": 1000, "no": 0}, old: {"yes": 0, "no": 1000}}}
    sequence = results.compute_results(survey, tallies, 2000).question("cheated").sequence
    assert (sequence.low, sequence.high) == (0.0, 1.0)


def test_sequence_bounds_needs_answers():
    with pytest.raises(ValueError, match="at least one design"):
        results.sequence_bounds([], 0.95)


def test_each_option_carries_its_confidence_sequence(survey):
    counts = (50, 20, 20, 10)
    tallies = {"ai_use": {key(survey, "ai_use"): dict(zip(("never", "once", "sometimes", "often"), counts))}}
    result = results.compute_results(survey, tallies, 100).question("ai_use")
    expected = analysis.option_confidence_sequences(counts, 0.5, 0.95)
    assert [(o.sequence.low, o.sequence.high) for o in result.options] == [(e.low, e.high) for e in expected]


def test_pooled_options_intersect_each_designs_marginal_sequence(survey):
    names = ("never", "once", "sometimes", "often")
    old_design = analysis.MultipleChoiceDesign(4, "3/4")
    current, old = key(survey, "ai_use"), old_design_key(survey, "ai_use", old_design)
    new_counts, old_counts = (40, 30, 20, 10), (70, 10, 10, 10)
    tallies = {"ai_use": {current: dict(zip(names, new_counts)), old: dict(zip(names, old_counts))}}
    result = results.compute_results(survey, tallies, 200).question("ai_use")
    new = analysis.option_confidence_sequences(new_counts, 0.5, 0.975)
    previous = analysis.option_confidence_sequences(old_counts, "3/4", 0.975)
    for j, option in enumerate(result.options):
        assert option.sequence.low == max(new[j].low, previous[j].low)
        assert option.sequence.high == min(new[j].high, previous[j].high)
        assert option.sequence.designs == 2


# --------------------------------------------------------------------------
# One-parameter yes/no designs.


def crosswise_survey(q="1/4"):
    mapping = {
        "id": "cw",
        "title": "Crosswise",
        "version": 1,
        "questions": [
            {
                "name": "cannabis",
                "type": "yes_no",
                "label": "I used cannabis.",
                "design": {"model": "crosswise", "q": q, "innocuous": "My mother's birthday is in January-March."},
            }
        ],
    }
    return parse_survey(mapping, "cw.yaml")


@pytest.mark.parametrize(("q", "estimate"), [("1/4", 0.7), ("3/4", 0.3)])
def test_crosswise_reads_the_answer_that_points_to_the_trait(q, estimate):
    """40 "same" (stored yes) of 100: lambda = 0.4 and pi_hat = (lambda + q - 1) / (2q - 1) (Yu, Tian and Tang
    2008): (0.4 - 0.75) / (-0.5) = 0.7 for q = 1/4, (0.4 - 0.25) / 0.5 = 0.3 for q = 3/4. With q < 1/2 the
    estimator counts the 60 stored noes ("exactly one yes") under the equivalent design (1/2, 1/4, 1/4)."""
    survey = crosswise_survey(q)
    tallies = {"cannabis": {key(survey, "cannabis"): {"yes": 40, "no": 60}}}
    result = results.compute_results(survey, tallies, 100).question("cannabis")
    assert_allclose(result.estimate, estimate)
    assert (result.n, result.yes_count, result.observed_rate) == (100, 40, 0.4)
    design = survey.question("cannabis").design
    trait_count = 60 if q == "1/4" else 40
    assert result.per_design[0].estimate == analysis.estimate_proportion(trait_count, 100, *design.exact())
    assert result.epsilon == pytest.approx(math.log(3))
    assert result.outside is None


def test_a_planning_target_counts_binary_designs():
    survey = crosswise_survey()
    plan = results.plan(survey, 0, 0.05, 0.95)
    assert plan.question.name == "cannabis"
    assert plan.needed_n == analysis.sample_size_for_half_width(0.05, 0.95, *survey.question("cannabis").design.exact())


# --------------------------------------------------------------------------
# Two-group designs: the prevalence and the second parameter from the kept per-group tallies.


@pytest.fixture
def two_group_survey():
    return make_survey(TWO_GROUP_YAML)


def test_lie_detector_result_is_the_moment_estimate_of_the_two_groups(two_group_survey):
    """Moshagen, Musch and Erdfelder (2012) with p1 = 1/3, p2 = 2/3 and yes rates 0.6 and 0.4 (n = 100 each):
    pi = 1 - (0.6 - 0.4) / (1/3) = 0.4, t = (0.6 - 0.6 (2/3)) / 0.4 = 0.5,
    SE(pi) = sqrt(0.24/100 + 0.24/100) / (1/3) = 0.2078461. The direct arm's answers are not counted."""
    tallies = two_group_tallies(two_group_survey, {"evaded": {"1": (60, 40), "2": (40, 60), "direct": (3, 17)}})
    result = results.compute_results(two_group_survey, tallies, 220).question("evaded")
    assert (result.n, result.yes_count) == (200, 100)
    assert_allclose([result.estimate, result.two_group.value], [0.4, 0.5], atol=1e-12)
    assert_allclose(result.std_err, math.sqrt(0.0048) * 3, rtol=1e-12)
    assert result.ci.method == result.two_group.ci.method == "profile likelihood"
    assert result.ci.low < 0.4 < result.ci.high and result.two_group.parameter == "t"
    assert result.flags == () and math.isinf(result.epsilon)


def test_cheater_detection_result_reports_the_share_of_cheaters(two_group_survey):
    """Clark and Desharnais (1998) with p1 = 1/4, p2 = 3/5, yes rates 0.5 and 0.7: pi = (0.6 * 0.5 - 0.25 * 0.7)
    / 0.35 = 0.357143, beta = 0.2 / 0.35, gamma = 1 - pi - beta = 0.071429."""
    tallies = two_group_tallies(two_group_survey, {"doped": {"1": (100, 100), "2": (140, 60)}})
    result = results.compute_results(two_group_survey, tallies, 400).question("doped")
    assert_allclose([result.estimate, result.two_group.value], [0.125 / 0.35, 1 - 0.125 / 0.35 - 0.2 / 0.35])
    assert result.two_group.parameter == "gamma" and "cheaters" in result.two_group.label


def test_answers_of_another_design_or_without_a_group_are_ignored_and_flagged(two_group_survey):
    tallies = two_group_tallies(two_group_survey, {"evaded": {"1": (60, 40), "2": (40, 60)}})
    tallies["evaded"][question_design_key(two_group_survey.question("evaded"))] = {"yes": 5, "no": 5}
    result = results.compute_results(two_group_survey, tallies, 210).question("evaded")
    assert result.n == 200 and results.FLAG_IGNORED in result.flags


def test_a_group_with_fewer_than_two_answers_gives_no_figures(two_group_survey):
    tallies = two_group_tallies(two_group_survey, {"evaded": {"1": (30, 10), "2": (1, 0)}})
    result = results.compute_results(two_group_survey, tallies, 41).question("evaded")
    assert result.estimate is None and result.two_group is None and result.n == 41
    assert "so far 40 and 1" in result.sentence


def test_the_direct_arm_is_compared_with_the_randomized_estimate(two_group_survey):
    """RR (lie detector) pi = 0.4 with SE 0.2078461; direct 3 of 20 = 0.15 with SE sqrt(0.15 * 0.85 / 20):
    difference 0.25 with SE sqrt(0.2078461^2 + 0.0798436^2) = 0.2226544 (Lensvelt-Mulders et al. 2005)."""
    tallies = two_group_tallies(two_group_survey, {"evaded": {"1": (60, 40), "2": (40, 60), "direct": (3, 17)}})
    control = results.compute_results(two_group_survey, tallies, 220).question("evaded").control
    assert (control.direct_yes, control.direct_n) == (3, 20)
    assert_allclose(
        [control.difference, control.std_err], [0.25, math.hypot(math.sqrt(0.0048) * 3, math.sqrt(0.006375))]
    )
    assert_allclose(
        [control.ci.low, control.ci.high], [0.25 - 1.959964 * 0.2226544, 0.25 + 1.959964 * 0.2226544], atol=1e-6
    )


def test_a_one_group_question_is_compared_with_its_direct_arm_and_pools_nothing_from_it():
    survey = make_survey(SURVEY_YAML, direct_share="1/5")
    question = survey.question("cheated")
    tallies = {
        "cheated": {
            question_design_key(question): {"yes": 40, "no": 60},
            question_design_key(question, "direct"): {"yes": 1, "no": 9},
        }
    }
    result = results.compute_results(survey, tallies, 110).question("cheated")
    assert result.n == 100 and results.FLAG_IGNORED not in result.flags  # the direct answers are not debiased
    assert_allclose(result.control.difference, (0.4 - 0.25) / 0.5 - 0.1)


# --------------------------------------------------------------------------
# select_one with a misclassification matrix.

MATRIX_YAML = SURVEY_YAML.replace(K_OPTION_DESIGN_LINE, K_OPTION_AS_MATRIX)


def test_a_misclassification_result_is_p_inverse_lambda():
    """This matrix is the k-option design with t = 1/2, k = 4 (each option forced with 1/8), so the estimate is
    (lambda_j - 1/8) / (1/2): 40 of 100 "never" give 0.55 (van den Hout and van der Heijden 2002)."""
    survey = make_survey(MATRIX_YAML)
    assert survey.question("ai_use").design.kind == "misclassification"
    tallies = {"ai_use": {key(survey, "ai_use"): {"never": 40, "once": 30, "sometimes": 20, "often": 10}}}
    result = results.compute_results(survey, tallies, 100).question("ai_use")
    assert_allclose([o.estimate_raw for o in result.options], [0.55, 0.35, 0.15, -0.05])
    assert result.options[3].estimate_projected == 0.0 and results.FLAG_CLIPPED in result.flags
    # each option has its own marginal, so the matrix path is the k-option path: the same standard errors (the
    # share clamped to what the design allows), and 10 of 100 "often" (under the forced 1/8) a one-sided bound
    expected = analysis.estimate_multiple_choice((40, 30, 20, 10), "1/2")
    assert_allclose([o.std_err for o in result.options], expected.std_err)
    assert result.options[3].outside.side == "below" and results.FLAG_BELOW_FLOOR in result.flags
    assert result.options[3].ci.side == "upper" and result.options[3].ci.high == result.options[3].outside.bound
    # each option's anytime-valid sequence (analysis.matrix_option_sequences) holds its estimate and is wider than
    # the interval
    for option in result.options[:3]:
        assert option.sequence.low <= option.estimate <= option.sequence.high
        assert option.sequence.high - option.sequence.low > option.ci.high - option.ci.low
        assert option.ci.method == "clopper-pearson"


def test_matrix_versions_are_estimated_apart_and_pooled_with_weights_free_of_the_answers():
    """Current matrix (the k-option t = 1/2, k = 4: P^-1 rows span 2, worst variance 1/n) with (40, 30, 20, 10):
    (0.55, 0.35, 0.15, -0.05); an older k-option version t = 3/4 (P^-1 = 4/3 (I - J/16), rows span 4/3, worst
    variance 4/(9n)) with the same counts: 4/3 (lambda - 1/16) = (0.45, 0.95/3, 0.55/3, 0.05). Weights 100 and
    225, so option 0 pools to (4 * 0.55 + 9 * 0.45) / 13 = 25/52."""
    survey = make_survey(MATRIX_YAML)
    old = analysis.MultipleChoiceDesign(4, "3/4")
    counts = {"never": 40, "once": 30, "sometimes": 20, "often": 10}
    tallies = {"ai_use": {key(survey, "ai_use"): counts, old_design_key(survey, "ai_use", old): counts}}
    result = results.compute_results(survey, tallies, 200).question("ai_use")
    assert result.pooled and results.FLAG_SEVERAL_DESIGNS in result.flags and results.FLAG_IGNORED not in result.flags
    assert (result.n, result.design_label) == (200, "pooled over 2 designs")
    assert [v.design for v in result.matrix_versions] == [
        survey.question("ai_use").design,
        analysis.MisclassificationDesign.from_multiple_choice(4, "3/4"),
    ]
    expected = analysis.pool_misclassification(result.matrix_versions)
    assert [o.estimate_raw for o in result.options] == list(expected.estimate_raw)
    assert [o.std_err for o in result.options] == list(expected.std_err)
    assert [o.ci for o in result.options] == list(expected.confidence_intervals(0.95))
    assert_allclose(result.options[0].estimate_raw, 25 / 52, rtol=1e-12)
    assert_allclose(expected.weights[0], [4 / 13] * 4, rtol=1e-12)
    assert [o.count for o in result.options] == [80, 60, 40, 20]


def test_a_matrix_version_with_other_options_is_flagged_ignored_not_pooled():
    survey = make_survey(MATRIX_YAML)
    question = survey.question("ai_use")
    other = dataclasses.replace(
        question,
        choices=question.choices[:3],
        design=analysis.MisclassificationDesign.from_multiple_choice(3, "1/2"),
    )
    tallies = {
        "ai_use": {
            key(survey, "ai_use"): {"never": 40, "once": 30, "sometimes": 20, "often": 10},
            question_design_key(other): {"never": 5, "once": 5, "sometimes": 5},
        }
    }
    result = results.compute_results(survey, tallies, 115).question("ai_use")
    assert result.n == 100 and not result.pooled and results.FLAG_IGNORED in result.flags
    assert_allclose([o.estimate_raw for o in result.options], [0.55, 0.35, 0.15, -0.05])


def test_a_k_option_question_whose_older_version_was_a_matrix_is_read_through_matrices(survey):
    """The survey's k-option question (t = 1/2) had a matrix before: both versions are read and pooled."""
    older = analysis.MisclassificationDesign.from_multiple_choice(4, "3/4")
    counts = {"never": 40, "once": 30, "sometimes": 20, "often": 10}
    tallies = {"ai_use": {key(survey, "ai_use"): counts, old_design_key(survey, "ai_use", older): counts}}
    result = results.compute_results(survey, tallies, 200).question("ai_use")
    assert result.error is None and result.pooled and result.n == 200
    assert_allclose(result.options[0].estimate_raw, 25 / 52, rtol=1e-12)


def test_a_select_one_result_plans_every_option_share_with_its_current_design_answers(survey):
    """The matrix (k-option t = 1/2 as a matrix) needs 1537 answers for 5 points (analysis.option_shares_sample_size);
    with its 100 current-design answers the widest margin is z * 2 / (2 * 10) = 0.196. Pooled with an older
    version, only the current design's 100 answers count. The k-option question plans the same way."""
    matrix = make_survey(MATRIX_YAML)
    counts = {"never": 40, "once": 30, "sometimes": 20, "often": 10}
    older = old_design_key(matrix, "ai_use", analysis.MultipleChoiceDesign(4, "3/4"))
    tallies = {"ai_use": {key(matrix, "ai_use"): counts, older: counts}}
    result = results.compute_results(matrix, tallies, 200).question("ai_use")
    plan = result.plan(0.05, 0.95)
    assert (plan.needed_n, plan.response_count) == (1537, 100)
    assert_allclose(plan.half_width_now, 1.959963984540054 / 10, rtol=1e-12)
    k_option = results.compute_results(survey, {"ai_use": {key(survey, "ai_use"): counts}}, 100).question("ai_use")
    assert k_option.plan(0.05, 0.95) == dataclasses.replace(plan, question=survey.question("ai_use"))
    empty = results.compute_results(survey, {}, 0).question("ai_use").plan(0.1, 0.95)
    assert (empty.needed_n, empty.response_count, empty.half_width_now) == (385, 0, None)
    with pytest.raises(ValueError, match="'cheated' is not a randomized select_one"):
        results.plan_choice(survey.question("cheated"), 0.05, 0.95, 10)
    assert k_option.plan(0, 0.95) is None  # a bad margin leaves the planning row out, never fails the page


# --------------------------------------------------------------------------
# Two-group designs: several versions pooled, planning.

OLD_SLD = analysis.StochasticLieDetectorDesign("1/4", "3/4")


def versioned_tallies(survey, current: dict, old: dict, old_design=OLD_SLD) -> dict:
    """``evaded``'s tallies under its current design and an older one, ``{arm: (yes, no)}`` each."""
    tallies = two_group_tallies(survey, {"evaded": current})
    question = dataclasses.replace(survey.question("evaded"), design=old_design)
    for arm, (yes, no) in old.items():
        tallies["evaded"][question_design_key(question, arm)] = {"yes": yes, "no": no}
    return tallies


def test_two_versions_of_a_lie_detector_are_estimated_apart_and_their_prevalences_pooled(two_group_survey):
    """Current SLD (1/3, 2/3) with 60/100 and 40/100 yes: pi = 0.4; older SLD (1/4, 3/4) with 70/200 and 50/200:
    pi = 0.8; pooled by their worst-case inverse variances (200/9 and 100): 8/11 (tests/test_two_group.py)."""
    tallies = versioned_tallies(two_group_survey, {"1": (60, 40), "2": (40, 60)}, {"1": (70, 130), "2": (50, 150)})
    result = results.compute_results(two_group_survey, tallies, 600).question("evaded")
    assert result.pooled and results.FLAG_SEVERAL_DESIGNS in result.flags and results.FLAG_IGNORED not in result.flags
    assert (result.n, result.yes_count, result.design_label) == (600, 220, "pooled over 2 designs")
    assert_allclose(result.estimate, 8 / 11, rtol=1e-12)
    expected = analysis.pool_two_group([v.estimate for v in result.two_group_versions])
    assert result.pooled_estimate == expected and result.std_err == expected.std_err
    assert result.ci == expected.confidence_interval(0.95)
    assert [v.estimate.design for v in result.two_group_versions] == [
        two_group_survey.question("evaded").design,
        OLD_SLD,
    ]
    assert result.two_group is result.two_group_versions[0] and result.two_group.value == pytest.approx(0.5)
    each = [
        analysis.two_group_sequence(v.estimate.yes, v.estimate.n, v.estimate.design, 0.975)
        for v in result.two_group_versions
    ]
    low, high = max(s.low for s in each), min(s.high for s in each)
    assert low <= high and (result.sequence.low, result.sequence.high, result.sequence.designs) == (low, high, 2)


def test_only_an_older_version_with_answers_is_reported_as_it_is(two_group_survey):
    tallies = versioned_tallies(two_group_survey, {}, {"1": (70, 130), "2": (50, 150)})
    result = results.compute_results(two_group_survey, tallies, 400).question("evaded")
    assert not result.pooled and result.design_label == OLD_SLD.label()
    assert_allclose(result.estimate, 0.8, rtol=1e-12)
    assert result.two_group.estimate.design == OLD_SLD and len(result.two_group_versions) == 1


def test_a_cheater_detection_version_is_not_pooled_with_a_lie_detector(two_group_survey):
    """The two models' pi are different quantities (honest carriers against carriers): the other kind's answers
    are ignored and flagged, not pooled."""
    cdm = analysis.CheaterDetectionDesign("1/3", "2/3")
    tallies = versioned_tallies(two_group_survey, {"1": (60, 40), "2": (40, 60)}, {"1": (50, 50), "2": (50, 50)}, cdm)
    result = results.compute_results(two_group_survey, tallies, 400).question("evaded")
    assert not result.pooled and result.n == 200 and results.FLAG_IGNORED in result.flags
    assert_allclose(result.estimate, 0.4, rtol=1e-12)


def test_a_running_point_of_a_pooled_two_group_question_is_what_the_results_show(two_group_survey):
    tallies = versioned_tallies(two_group_survey, {"1": (60, 40), "2": (40, 60)}, {"1": (70, 130), "2": (50, 150)})
    result = results.compute_results(two_group_survey, tallies, 600).question("evaded")
    point = results.running_point(two_group_survey.question("evaded"), tallies["evaded"], 0.95)
    assert point == (result.n, result.estimate, result.sequence)
    assert results.running_point(two_group_survey.question("evaded"), {}, 0.95) is None


def test_a_two_group_question_is_planned_in_its_worst_case_at_the_survey_group_share():
    survey = make_survey(TWO_GROUP_YAML, group_1_share="1/3")
    design = survey.question("evaded").design
    worst = analysis.two_group_worst_case(design)
    planning = results.plan(survey, 0, 0.05, 0.95, question="evaded", group_sizes={"evaded": (100, 80)})
    expected = analysis.two_group_sample_size(design, 0.05, *worst, 0.95, 1 / 3)
    assert (planning.needed_n, planning.needed_groups, planning.group_share) == (
        expected.n,
        (expected.n1, expected.n2),
        pytest.approx(1 / 3),
    )
    assert planning.half_width_now == analysis.two_group_half_width(design, 100, 80, *worst)
    assert (planning.response_count, planning.group_sizes) == (180, (100, 80))
    assert planning.needed_n_sequence == analysis.two_group_sample_size_for_sequence(design, 0.05, 0.95, 1 / 3)
    unanswered = results.plan(survey, 0, 0.05, 0.95, question="evaded")
    assert unanswered.half_width_now is None and unanswered.needed_n == expected.n


def test_without_a_chosen_question_the_two_group_question_needing_most_answers_is_planned():
    survey = make_survey(TWO_GROUP_YAML)
    needs = {
        name: analysis.two_group_sample_size(
            survey.question(name).design, 0.05, *analysis.two_group_worst_case(survey.question(name).design)
        ).n
        for name in ("evaded", "doped")
    }
    planning = results.plan(survey, 0)
    assert planning is not None and planning.needed_n == max(needs.values())
    assert planning.question.name == max(needs, key=needs.get)


def test_planning_group_sizes_are_the_current_design_groups(two_group_survey):
    tallies = versioned_tallies(two_group_survey, {"1": (60, 40), "2": (40, 50)}, {"1": (70, 130), "2": (50, 150)})
    computed = results.compute_results(two_group_survey, tallies, 600)
    assert results.planning_group_sizes(computed) == {"evaded": (100, 90)}


# --------------------------------------------------------------------------
# A finite population of known size (the survey's population_size).


def rrtcs_tallies(survey, yes: int = 328, no: int = 382) -> dict:
    return {"copied": {key(survey, "copied"): {"yes": yes, "no": no}}}


def test_population_size_adds_the_finite_population_figures_of_a_one_design_question():
    """RRTCS's 328 yes of 710 from 10,777 students: the figures are analysis.estimate_finite_population's own,
    beside the usual (infinite-population) standard error, which they do not replace."""
    survey = make_survey(RRTCS_SURVEY_YAML)
    result = results.compute_results(survey, rrtcs_tallies(survey), 710).question("copied")
    design = survey.question("copied").design
    expected = analysis.estimate_finite_population(design.trait_count(328, 710), 710, 10_777, *design.exact(), 0.95)
    assert result.finite_population == expected
    assert result.std_err == analysis.estimate_proportion(328, 710, *design.exact()).std_err != expected.std_err
    assert_allclose(expected.variance, 0.001389716, atol=5e-10)  # as RRTCS prints it
    assert "simple random sample without replacement of the 10,777 people" in result.finite_population_note
    assert f"{expected.std_err * 100:.2f}%" in result.finite_population_note


@pytest.mark.parametrize("level", [0.9, 0.99])
def test_the_finite_population_interval_is_at_the_results_level(level):
    survey = make_survey(RRTCS_SURVEY_YAML)
    result = results.compute_results(survey, rrtcs_tallies(survey), 710, level).question("copied")
    assert result.finite_population.confidence_level == level
    assert result.finite_population.high - result.finite_population.low == pytest.approx(
        2 * norm.ppf((1 + level) / 2) * result.finite_population.std_err
    )


def test_without_population_size_there_are_no_finite_population_figures():
    survey = make_survey(RRTCS_SURVEY_YAML, population_size=None)
    result = results.compute_results(survey, rrtcs_tallies(survey), 710).question("copied")
    assert result.finite_population is None and result.finite_population_note == ""


def test_answers_beyond_the_population_size_are_said_not_a_crash():
    survey = make_survey(RRTCS_SURVEY_YAML, population_size=700)
    result = results.compute_results(survey, rrtcs_tallies(survey), 710).question("copied")
    assert result.finite_population is None and result.estimate is not None
    assert "710 answers outnumber the survey's population_size of 700" in result.finite_population_note


def test_a_pooled_or_two_group_question_gets_no_finite_population_figures_and_says_why(survey):
    survey = dataclasses.replace(survey, population_size=10_000)
    current, old = key(survey, "cheated"), old_design_key(survey, "cheated", DIE)
    tallies = {"cheated": {current: {"yes": 60, "no": 90}, old: {"yes": 30, "no": 70}}}
    pooled = results.compute_results(survey, tallies, 250).question("cheated")
    assert pooled.finite_population is None and "pooled over several designs" in pooled.finite_population_note
    two_group = make_survey(TWO_GROUP_YAML, population_size=10_000)
    counts = two_group_tallies(two_group, {"evaded": {"1": (60, 40), "2": (40, 60)}})
    evaded = results.compute_results(two_group, counts, 200).question("evaded")
    assert evaded.finite_population is None and "two-group design" in evaded.finite_population_note


# --------------------------------------------------------------------------
# Issue 23: never a certainty the data cannot give.

DEGENERATE_YAML = """\
id: degenerate
title: Degenerate data
version: 1
questions:
  - name: pick
    type: select_one
    label: Pick one
    choices: [a, b, c]
    design: {t: 1/2}
  - name: pick_matrix
    type: select_one
    label: Pick one, as a matrix
    choices: [a, b, c]
    design:
      matrix: [[2/3, 1/6, 1/6], [1/6, 2/3, 1/6], [1/6, 1/6, 2/3]]
  - name: skewed
    type: select_one
    label: Skewed matrix
    choices: [a, b, c]
    design:
      matrix: [[7/10, 1/10, 1/5], [1/5, 3/5, 1/10], [1/10, 3/10, 7/10]]
  - name: capped
    type: select_one
    label: Capped option
    choices: [a, b, c]
    design:
      matrix: [[3/5, 3/10, 1/5], [3/10, 3/10, 2/5], [1/10, 2/5, 2/5]]
  - name: cheated
    type: yes_no
    label: Cheated?
"""


def _degenerate(question, counts, response_count=None):
    survey = make_survey(DEGENERATE_YAML)
    q = survey.question(question)
    tallies = {question: {question_design_key(q): dict(zip(q.choice_names, counts))}}
    return results.compute_results(survey, tallies, response_count or sum(counts)).question(question)


def _never_certain(option_or_result):
    """Neither the interval nor the sequence has width 0; the estimate shown lies inside its interval."""
    item = option_or_result
    assert item.ci.high - item.ci.low > 0.005, item.ci
    assert item.sequence.high - item.sequence.low > 0.005, item.sequence
    estimate = item.estimate
    assert item.ci.low <= estimate <= item.ci.high


def test_a_matrix_with_every_answer_on_one_option_is_never_certain():
    """Issue 23, case 1: the k-option design written as a matrix with counts (0, 0, 100) gave standard errors
    (0, 0, 0), intervals [0, 0], [0, 0], [1, 1] and a sequence "100.0% - 100.0%". Now the figures are the
    k-option path's (standard errors 0.075-0.094), one-sided where the answers sit outside the design, flagged."""
    matrix, k_option = _degenerate("pick_matrix", (0, 0, 100)), _degenerate("pick", (0, 0, 100))
    assert [o.std_err for o in matrix.options] == [o.std_err for o in k_option.options]
    assert min(o.std_err for o in matrix.options) > 0.07
    assert [o.ci.side for o in matrix.options] == ["upper", "upper", "lower"]
    assert [o.sequence.side for o in matrix.options] == ["upper", "upper", "lower"]
    for option in matrix.options:
        _never_certain(option)
    assert results.FLAG_BELOW_FLOOR in matrix.flags and results.FLAG_ABOVE_CEILING in matrix.flags
    assert "(100% to 100%)" not in matrix.sentence and "at least" in matrix.sentence


def test_a_matrix_without_marginals_flags_an_option_beyond_its_rows_range():
    """Issue 23, case 1: all 200 answers on an option the design caps below 1/2 (row c of "capped" is at most
    2/5) were never flagged. Now: "above the design's ceiling", one-sided bounds where the maximum-likelihood
    share sits at 0 or 1, no interval or sequence of width 0, no standard error of 0."""
    result = _degenerate("capped", (0, 0, 200))
    assert results.FLAG_ABOVE_CEILING in result.flags
    assert any(o.ci.one_sided for o in result.options)
    for option in result.options:
        assert option.ci.method == "profile likelihood" and option.std_err > 0
        _never_certain(option)


def test_select_one_summary_and_exports_at_the_floor_say_a_bound_not_zero_to_zero():
    """Issue 23, case 2: k = 3, t = 1/2, 22 of 200 on option c (11% < 1/6): the table said "<= 5.8%" but the
    sentence "c 0% (0% to 0%)" and the estimates ci_low = ci_high = 0."""
    result = _degenerate("pick", (100, 78, 22))
    c = result.options[2]
    assert c.outside.side == "below" and c.ci.side == "upper" and c.ci.high == c.outside.bound
    assert "c 0% (0% to 0%)" not in result.sentence
    assert f"c at most {results.percent(c.ci.high)} (one-sided)" in result.sentence


def test_a_yes_no_question_at_the_floor_has_no_sliver_of_an_interval():
    """Issue 23, case 2: 38 of 200 under two coins gave the interval [0, 2.5e-5] beside its one-sided bound."""
    result = _degenerate("cheated", (38, 162))
    assert result.ci.side == "upper" and result.ci.high == result.outside.bound > 0.05
    _never_certain(result)


def test_sequences_at_the_floor_are_one_sided_not_zero_to_zero():
    """Issue 23, case 3: 647 yes of 2,933 under two coins, and an option with 0 of 200 answers, showed the
    anytime-valid sequence as "0.0% - 0.0%"."""
    yes_no = _degenerate("cheated", (647, 2933 - 647))
    assert yes_no.sequence.side == "upper" and yes_no.sequence.low == 0.0 and yes_no.sequence.high > 0.005
    option = _degenerate("pick", (0, 120, 80)).options[0]
    assert option.sequence.side == "upper" and option.sequence.high > 0.005
    point = results.running_point(
        make_survey(DEGENERATE_YAML).question("cheated"),
        {question_design_key(make_survey(DEGENERATE_YAML).question("cheated")): {"yes": 647, "no": 2286}},
        0.95,
    )
    assert point[2].side == "upper" and point[2].high > 0.005


def test_the_estimate_shown_lies_inside_the_interval_beside_it():
    """Issue 23, case 4: the projected share was shown with an interval centred on the unprojected estimate
    ("b 35% (34% to 54%)"). With (120, 80, 0) of 200 the projected share of b (30%) lies outside b's interval;
    the estimate beside it is b's own (47%), inside. The projected shares are kept apart and sum to 1."""
    result = _degenerate("pick", (120, 80, 0))
    b = result.options[1]
    assert not b.ci.low <= b.estimate_projected <= b.ci.high
    assert b.ci.low <= b.estimate <= b.ci.high
    assert f"b {results.percent(b.estimate)} ({results.percent(b.ci.low)} to" in result.sentence
    assert sum(o.estimate_projected for o in result.options) == pytest.approx(1.0)
    for counts in ((120, 80, 0), (1, 1, 198), (60, 70, 70), (3, 0, 0)):
        for name in ("pick", "pick_matrix", "skewed"):
            for option in _degenerate(name, counts).options:
                _never_certain(option)


def test_a_single_matrix_version_is_not_labelled_pooled():
    """Issue 23, case 5: one version's interval was labelled "Wald (pooled)"."""
    for name in ("pick_matrix", "skewed"):
        result = _degenerate(name, (30, 20, 10))
        assert not result.pooled
        assert {o.ci.method for o in result.options} <= {"clopper-pearson", "profile likelihood"}
