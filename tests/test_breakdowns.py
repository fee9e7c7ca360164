"""Tests of surveys.breakdowns: each group's figures are analysis's own output.

As in tests/test_results.py, no estimator is implemented twice: each group's
result and each difference is compared with what the analysis function
returns for the same counts.
"""

from __future__ import annotations

import dataclasses
import math

import pytest
import yaml
from numpy.testing import assert_allclose

import analysis
from storage import queries, responses
from surveys import breakdowns, results
from surveys.design_contract import question_design_key
from surveys.schema import parse_survey
from surveys.submission import noisy_response
from tests.helpers.sample_surveys import DEPT_SURVEY_YAML as SURVEY_YAML
from tests.helpers.sample_surveys import TWO_GROUP_YAML, make_survey, two_group_tallies

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
# Break-downs, on a real database.


@pytest.fixture
def db(fresh_db):
    return fresh_db


def store(db, survey, answers, count, start=0):
    for i in range(count):
        response = noisy_response(survey, answers, "device")
        responses.store_response(db, response, f"key-{survey.version}-{start + i:06d}-{answers}", "2026-11-20")


def test_group_tallies_split_the_tallies_by_a_plain_answer(db, survey):
    store(db, survey, {"cheated": "yes", "ai_use": "never", "dept": "arts"}, 12)
    store(db, survey, {"cheated": "no", "ai_use": "once", "dept": "arts"}, 8)
    store(db, survey, {"cheated": "yes", "lied": "no", "ai_use": "never", "dept": "law"}, 5)
    store(db, survey, {"cheated": "no", "ai_use": "often"}, 3)  # dept unanswered
    grouped = queries.group_tallies(db, "quiz", "dept")
    k = key(survey, "cheated")
    assert grouped["arts"]["cheated"] == {k: {"yes": 12, "no": 8}}
    assert grouped["law"]["cheated"] == {k: {"yes": 5}}
    assert grouped["law"]["lied"] == {key(survey, "lied"): {"no": 5}}
    assert grouped[None]["ai_use"] == {key(survey, "ai_use"): {"often": 3}}
    # Summed over the groups, the break-down gives back the running tallies.
    total: dict = {}
    for per_question in grouped.values():
        for question, by_design in per_question.items():
            for design, counts in by_design.items():
                for answer, count in counts.items():
                    slot = total.setdefault(question, {}).setdefault(design, {})
                    slot[answer] = slot.get(answer, 0) + count
    assert total == queries.tallies(db, "quiz")


def test_group_tallies_keep_each_design_apart(db, survey):
    store(db, survey, {"cheated": "yes", "dept": "arts"}, 4)
    changed = yaml.safe_load(SURVEY_YAML)
    changed["version"] = 2
    changed["questions"][0]["design"] = {"t": "2/3", "a": "1/6", "b": "1/6"}
    survey2 = parse_survey(changed, "quiz.yaml")
    store(db, survey2, {"cheated": "no", "dept": "arts"}, 6)
    grouped = queries.group_tallies(db, "quiz", "dept")
    assert grouped["arts"]["cheated"] == {key(survey, "cheated"): {"yes": 4}, key(survey2, "cheated"): {"no": 6}}
    breakdown = breakdowns.compute_breakdown(survey2, "dept", grouped)
    assert breakdown.group("arts").question("cheated").pooled


@pytest.mark.parametrize("bad", ["Dept", "dept'", "a.b", "", "1x", "dept]"])
def test_group_tallies_refuse_a_name_that_is_not_a_question_name(db, bad):
    with pytest.raises(ValueError, match="question name"):
        queries.group_tallies(db, "quiz", bad)


def test_breakdown_and_comparison_are_analysis_output(db, survey):
    store(db, survey, {"cheated": "yes", "ai_use": "never", "dept": "arts"}, 30)
    store(db, survey, {"cheated": "no", "ai_use": "once", "dept": "arts"}, 20)
    store(db, survey, {"cheated": "yes", "ai_use": "never", "dept": "law"}, 10)
    store(db, survey, {"cheated": "no", "ai_use": "never", "dept": "law"}, 30)
    breakdown = breakdowns.compute_breakdown(survey, "dept", queries.group_tallies(db, "quiz", "dept"))
    assert breakdown.by == survey.question("dept")
    # Every option of dept, in order, empty ones included.
    groups = [(g.value, g.label) for g in breakdown.groups]
    assert groups == [("arts", "Arts"), ("science", "Science"), ("law", "Law")]
    assert [r.question.name for r in breakdown.group("arts").questions] == ["cheated", "lied", "ai_use"]
    arts = analysis.estimate_proportion(30, 50)
    law = analysis.estimate_proportion(10, 40)
    assert breakdown.group("arts").question("cheated").per_design[0].estimate == arts
    assert breakdown.group("science").question("cheated").n == 0
    difference = breakdowns.compare_groups(breakdown, "cheated", "arts", "law")
    assert difference == analysis.difference(arts, law, 0.95)
    # arts: (0.6 - 0.25)/0.5 = 0.7; law: (0.25 - 0.25)/0.5 = 0; difference 0.7.
    assert_allclose(difference.estimate, 0.7)


def test_compare_groups_with_pooled_designs(survey):
    current, old = key(survey, "cheated"), old_design_key(survey, "cheated", DIE)
    grouped = {
        "arts": {"cheated": {current: {"yes": 40, "no": 60}, old: {"yes": 50, "no": 50}}},
        "law": {"cheated": {current: {"yes": 30, "no": 70}, old: {"yes": 20, "no": 80}}},
    }
    breakdown = breakdowns.compute_breakdown(survey, "dept", grouped, 0.9)
    first = breakdown.group("arts").question("cheated").pooled_estimate
    second = breakdown.group("law").question("cheated").pooled_estimate
    difference = breakdowns.compare_groups(breakdown, "cheated", "arts", "law", 0.9)
    # analysis.difference: raw estimates subtracted, standard errors in quadrature.
    assert difference.estimate == first.estimate_raw - second.estimate_raw
    assert difference.std_err == math.hypot(first.std_err, second.std_err)
    assert difference.ci.confidence_level == 0.9


def test_compare_groups_refuses_what_it_cannot_compare(survey):
    grouped = {
        "arts": {"cheated": {key(survey, "cheated"): {"yes": 3}}, "ai_use": {key(survey, "ai_use"): {"once": 3}}}
    }
    breakdown = breakdowns.compute_breakdown(survey, "dept", grouped)
    with pytest.raises(ValueError, match="not a randomized yes/no"):
        breakdowns.compare_groups(breakdown, "ai_use", "arts", "law")
    with pytest.raises(ValueError, match="no answers"):
        breakdowns.compare_groups(breakdown, "cheated", "arts", "law")
    with pytest.raises(ValueError, match="no group"):
        breakdowns.compare_groups(breakdown, "cheated", "arts", "nowhere")


def test_breakdown_by_a_randomized_question_is_refused(survey):
    with pytest.raises(ValueError, match="not randomized"):
        breakdowns.compute_breakdown(survey, "cheated", {})


def test_breakdown_lists_unknown_values_and_no_answer_last(survey):
    grouped = {None: {}, "history": {}, "law": {}}
    breakdown = breakdowns.compute_breakdown(survey, survey.question("dept"), grouped)
    assert [g.value for g in breakdown.groups] == ["arts", "science", "law", "history", None]
    assert breakdown.group(None).label == "No answer"


# --------------------------------------------------------------------------
# Which groups the results page compares.


def cheated_and_lied(survey, cheated=None, lied=None, ai_use=None) -> dict:
    """One group's tallies: ``(yes, no)`` counts for the yes/no questions, ``{option: count}`` for ai_use."""
    out = {}
    for name, counts in (("cheated", cheated), ("lied", lied)):
        if counts:
            out[name] = {key(survey, name): {"yes": counts[0], "no": counts[1]}}
    if ai_use:
        out["ai_use"] = {key(survey, "ai_use"): ai_use}
    return out


@pytest.fixture
def grouped(survey):
    """Arts and law answered cheated, only arts answered lied; science is empty; "No answer" has answers."""
    return {
        None: cheated_and_lied(survey, cheated=(9, 1), lied=(9, 1)),
        "law": cheated_and_lied(survey, cheated=(10, 30), ai_use={"once": 4}),
        "arts": cheated_and_lied(survey, cheated=(30, 20), lied=(5, 5), ai_use={"never": 4}),
    }


def test_group_differences_compare_the_first_two_groups_with_answers(survey, grouped):
    breakdown = breakdowns.compute_breakdown(survey, "dept", grouped, 0.9)
    differences = breakdowns.group_differences(breakdown, 0.9)
    # cheated: arts and law (science has no answers; "No answer" is never a group to compare).
    # lied: only arts has answers besides "No answer", so no pair. ai_use is not yes/no.
    assert [(d.question.name, d.first.value, d.second.value) for d in differences] == [("cheated", "arts", "law")]
    assert differences[0].difference == breakdowns.compare_groups(breakdown, "cheated", "arts", "law", 0.9)
    assert differences[0].first is breakdown.group("arts")


@pytest.mark.parametrize(
    ("first", "second", "pairs"),
    [
        ("law", "arts", [("cheated", "law", "arts")]),
        ("arts", "science", []),  # science has no answers
        ("arts", "history", []),  # not a group
        ("law", None, [("cheated", "arts", "law")]),  # both or neither: the default pair
    ],
)
def test_group_differences_compare_the_two_groups_named(survey, grouped, first, second, pairs):
    breakdown = breakdowns.compute_breakdown(survey, "dept", grouped)
    differences = breakdowns.group_differences(breakdown, 0.95, first, second)
    assert [(d.question.name, d.first.value, d.second.value) for d in differences] == pairs


def test_each_group_and_the_difference_carry_their_confidence_sequences(survey, grouped):
    breakdown = breakdowns.compute_breakdown(survey, "dept", grouped, 0.9)
    arts = breakdown.group("arts").question("cheated")
    assert (arts.sequence.low, arts.sequence.high) == (
        analysis.confidence_sequence(30, 50, confidence_level=0.9).low,
        analysis.confidence_sequence(30, 50, confidence_level=0.9).high,
    )
    (difference,) = breakdowns.group_differences(breakdown, 0.9)
    expected = analysis.difference_sequence(
        analysis.estimate_proportion(30, 50), analysis.estimate_proportion(10, 40), 0.9
    )
    assert (difference.sequence.low, difference.sequence.high) == (expected.low, expected.high)
    assert difference.sequence.low < difference.difference.ci.low < difference.difference.ci.high
    assert difference.difference.ci.high <= difference.sequence.high


def test_the_difference_of_pooled_groups_spends_alpha_over_two_per_group_and_m_per_design(survey):
    current, old = key(survey, "cheated"), old_design_key(survey, "cheated", DIE)
    grouped = {
        "arts": {"cheated": {current: {"yes": 40, "no": 60}, old: {"yes": 50, "no": 50}}},
        "law": {"cheated": {current: {"yes": 30, "no": 70}}},
    }
    breakdown = breakdowns.compute_breakdown(survey, "dept", grouped, 0.9)
    (difference,) = breakdowns.group_differences(breakdown, 0.9)
    # arts: two designs at 1 - 0.1/4 each; law: one design at 1 - 0.1/2.
    arts = [
        analysis.confidence_sequence(40, 100, 0.5, 0.25, 0.25, 0.975),
        analysis.confidence_sequence(50, 100, "2/3", "1/6", "1/6", 0.975),
    ]
    law = analysis.confidence_sequence(30, 100, 0.5, 0.25, 0.25, 0.95)
    assert difference.sequence.low == max(s.low for s in arts) - law.high
    assert difference.sequence.high == min(s.high for s in arts) - law.low
    assert difference.sequence.designs == 3


# --------------------------------------------------------------------------
# Two-group designs (cheater detection, stochastic lie detector) in a break-down.


@pytest.fixture
def two_group_survey():
    return parse_survey(yaml.safe_load(TWO_GROUP_YAML), "twogroup.yaml")


def two_group_grouped(survey, south_evaded=((45, 55), (40, 60))) -> dict:
    """Per region, ``{arm: (yes, no)}`` of both two-group questions: north's lie detector at pi = 0.7."""
    north = {"evaded": {"1": (60, 40), "2": (50, 50)}, "doped": {"1": (40, 60), "2": (60, 40)}}
    south = {"evaded": dict(zip("12", south_evaded)), "doped": {"1": (30, 70), "2": (55, 45)}}
    return {"north": two_group_tallies(survey, north), "south": two_group_tallies(survey, south)}


def test_each_group_of_a_plain_question_gets_the_two_group_estimate_of_its_arm_tallies(two_group_survey):
    breakdown = breakdowns.compute_breakdown(two_group_survey, "region", two_group_grouped(two_group_survey))
    evaded = two_group_survey.question("evaded").design
    north = breakdown.group("north").question("evaded").two_group.estimate
    assert north == analysis.estimate_two_group((60, 50), (100, 100), evaded)
    assert north.pi == pytest.approx(0.7)  # 1 - 3 (0.6 - 0.5)
    south = breakdown.group("south").question("doped").two_group.estimate
    assert south == analysis.estimate_two_group((30, 55), (100, 100), two_group_survey.question("doped").design)


def test_two_group_questions_are_compared_between_groups_by_their_moment_estimates(two_group_survey):
    breakdown = breakdowns.compute_breakdown(two_group_survey, "region", two_group_grouped(two_group_survey), 0.9)
    differences = breakdowns.group_differences(breakdown, 0.9)
    assert [(d.question.name, d.first.value, d.second.value) for d in differences] == [
        ("evaded", "north", "south"),
        ("doped", "north", "south"),
    ]
    for found in differences:
        first, second = (g.question(found.question.name).two_group.estimate for g in (found.first, found.second))
        assert found.difference.estimate == pytest.approx(first.pi_moment - second.pi_moment)
        assert found.difference.std_err == pytest.approx(math.hypot(first.pi_std_err, second.pi_std_err))
        # each group's two-group sequence at 1 - alpha/2, subtracted (a union bound)
        one, two = (analysis.two_group_sequence(fit.yes, fit.n, fit.design, 0.95) for fit in (first, second))
        assert (found.sequence.low, found.sequence.high) == pytest.approx((one.low - two.high, one.high - two.low))
        assert found.sequence.low <= found.difference.estimate <= found.sequence.high
    assert differences[0].difference.estimate == pytest.approx(0.7 - 0.85)  # south: 1 - 3 (0.45 - 0.4)
    assert differences[0].difference == breakdowns.compare_groups(breakdown, "evaded", "north", "south", 0.9)


def test_a_two_group_estimate_on_the_boundary_is_not_compared(two_group_survey):
    """South's group 1 says yes less often than group 2: the lie detector's moment estimate is 1.3."""
    grouped = two_group_grouped(two_group_survey, south_evaded=((40, 60), (50, 50)))
    breakdown = breakdowns.compute_breakdown(two_group_survey, "region", grouped)
    assert breakdown.group("south").question("evaded").two_group.estimate.on_boundary
    assert [d.question.name for d in breakdowns.group_differences(breakdown)] == ["doped"]
    with pytest.raises(ValueError, match="'evaded'.*left the parameter space"):
        breakdowns.compare_groups(breakdown, "evaded", "north", "south")


def test_a_two_group_question_pooled_over_versions_in_each_group_is_compared_by_its_pooled_estimates(
    two_group_survey,
):
    """Each region has answers under the current lie detector and an older one (p = 1/4, 3/4): each group's
    prevalence is pooled (analysis.pool_two_group) and the difference subtracts the pooled raw estimates; its
    sequence is each group's union over its two versions at 1 - alpha/2, subtracted."""
    old = dataclasses.replace(
        two_group_survey.question("evaded"), design=analysis.StochasticLieDetectorDesign("1/4", "3/4")
    )
    grouped = two_group_grouped(two_group_survey)
    for region, counts in (("north", {"1": (70, 130), "2": (50, 150)}), ("south", {"1": (60, 140), "2": (60, 140)})):
        for arm, (yes, no) in counts.items():
            grouped[region]["evaded"][question_design_key(old, arm)] = {"yes": yes, "no": no}
    breakdown = breakdowns.compute_breakdown(two_group_survey, "region", grouped)
    north, south = (breakdown.group(g).question("evaded") for g in ("north", "south"))
    assert north.pooled and south.pooled
    (found,) = [d for d in breakdowns.group_differences(breakdown) if d.question.name == "evaded"]
    assert found.difference.estimate == pytest.approx(north.estimate_raw - south.estimate_raw)
    assert found.difference.std_err == pytest.approx(math.hypot(north.std_err, south.std_err))
    one, two = (
        results.two_group_sequence_bounds([v.estimate for v in r.two_group_versions], 0.975) for r in (north, south)
    )
    assert (found.sequence.low, found.sequence.high) == pytest.approx((one.low - two.high, one.high - two.low))
    assert found.sequence.designs == 4


# --------------------------------------------------------------------------
# select_one with a misclassification matrix, by a plain question.

MATRIX_YAML = SURVEY_YAML.replace(
    "    design: {t: 1/2}\n",
    "    design:\n      matrix: [[1/2, 1/6, 1/6, 1/6], [1/6, 1/2, 1/6, 1/6],"
    " [1/6, 1/6, 1/2, 1/6], [1/6, 1/6, 1/6, 1/2]]\n",
)


def test_each_group_of_a_matrix_question_gets_its_own_matrix_estimate_and_its_export_rows():
    """Arts: (20, 10, 6, 4) of 40 under the matrix P = 1/3 I + 1/6 J (P^-1 = 3 (I - J/6), so
    pi_j = 3 (lambda_j - 1/6)): (1, 0.25, -0.05, -0.2); law has its answers under the current matrix and an older
    k-option version, pooled within the group (analysis.pool_misclassification). The break-down export carries
    one row per group and option with those figures."""
    from surveys.export import breakdown_rows

    survey = make_survey(MATRIX_YAML)
    current = key(survey, "ai_use")
    older = old_design_key(survey, "ai_use", analysis.MultipleChoiceDesign(4, "3/4"))
    arts = {"never": 20, "once": 10, "sometimes": 6, "often": 4}
    law = {"never": 5, "once": 5, "sometimes": 5, "often": 5}
    grouped = {"arts": {"ai_use": {current: arts}}, "law": {"ai_use": {current: law, older: arts}}}
    breakdown = breakdowns.compute_breakdown(survey, "dept", grouped)
    in_arts = breakdown.group("arts").question("ai_use")
    expected = analysis.estimate_misclassification([20, 10, 6, 4], survey.question("ai_use").design)
    assert [o.estimate_raw for o in in_arts.options] == list(expected.estimate_raw)
    assert [o.std_err for o in in_arts.options] == list(expected.std_err)
    assert_allclose(expected.estimate_raw, [1, 0.25, -0.05, -0.2], atol=1e-12)
    in_law = breakdown.group("law").question("ai_use")
    assert in_law.pooled and in_law.n == 60
    pooled = analysis.pool_misclassification(in_law.matrix_versions)
    assert [o.estimate_raw for o in in_law.options] == list(pooled.estimate_raw)
    assert breakdown.group("science").question("ai_use").n == 0
    rows = [r for r in breakdown_rows(breakdown) if r["question"] == "ai_use"]
    assert [(r["group"], r["option"]) for r in rows][:5] == [
        ("arts", "never"),
        ("arts", "once"),
        ("arts", "sometimes"),
        ("arts", "often"),
        ("science", "never"),
    ]
    arts_rows = rows[:4]
    assert [r["estimate_raw"] for r in arts_rows] == list(expected.estimate_raw)
    assert [r["estimate_clipped"] for r in arts_rows] == list(expected.estimate)
    assert [r["estimate_projected"] for r in arts_rows] == list(expected.estimate_projected)
    assert [r["k"] for r in arts_rows] == [4] * 4
    law_rows = [r for r in rows if r["group"] == "law"]
    assert [r["estimate_raw"] for r in law_rows] == list(pooled.estimate_raw)
    assert {r["design"] for r in law_rows} == {"pooled over 2 designs"}


# --------------------------------------------------------------------------
# A plain number's bins as the groups, on either backend.

AGE_YAML = """\
id: ages
title: Ages
version: 1
questions:
  - name: age
    type: integer
    label: Age
    randomize: false
    min: 16
    max: 99
    bins: [20, 30]
  - name: hours
    type: integer
    label: Hours?
    min: 0
    max: 20
    mechanism: laplace
    epsilon: 2
"""


def test_group_tallies_by_a_plain_number_hold_its_bin_keys_and_a_recount_agrees(db):
    survey = parse_survey(yaml.safe_load(AGE_YAML), "ages.yaml")
    for i, age in enumerate(["00", "03", "04", "13", "14", "83"]):
        responses.store_response(
            db, noisy_response(survey, {"age": age, "hours": str(i)}, "device"), f"k{i:015d}", "2026-11-20"
        )
    responses.store_response(db, noisy_response(survey, {"hours": "7"}, "device"), "k" * 16, "2026-11-20")
    kept = queries.group_tallies(db, "ages", "age")
    assert set(kept) == {"b00", "b01", "b02", None}  # None: the respondent who left age unanswered
    hours = question_design_key(survey.question("hours"))
    # The stored positions 0 and 3 (ages 16 and 19) are in the first bin, 4 and 13 (20, 29) the second.
    assert {
        group: counts["hours"][hours]["=sum"] for group, counts in kept.items() if "=sum" in counts["hours"][hours]
    } == {
        "b00": 0 + 1,
        "b01": 2 + 3,
        "b02": 4 + 5,
        None: 7,
    }
    queries.rebuild_group_tallies(db)
    assert queries.group_tallies(db, "ages", "age") == kept
