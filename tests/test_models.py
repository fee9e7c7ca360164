"""Tests of surveys.models: pattern counts to the arrays of fit_logistic, readable terms, honest messages."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from numpy.testing import assert_allclose

from analysis.design import CrosswiseDesign
from analysis.regression import fit_logistic
from surveys.design_contract import canonical_json, question_design_key
from surveys.models import ModelChoice, answer_pattern, cells_of, check_choice, collapse_patterns, fit_model
from tests.helpers.sample_surveys import make_survey, model_survey

#: Stored (yes, no) per department for "cheated", all within what its design allows.
DEPT_COUNTS = {"arts": (60, 140), "science": (110, 90), "law": (80, 120)}


@pytest.fixture
def survey():
    return make_survey()


def dept_tallies(survey, counts=DEPT_COUNTS, unanswered=(5, 7)) -> dict:
    key = question_design_key(survey.question("cheated"))
    by_pattern = {answer_pattern({"dept": dept}, ["dept"]): {"yes": y, "no": n} for dept, (y, n) in counts.items()}
    by_pattern[answer_pattern({}, ["dept"])] = {"yes": unanswered[0], "no": unanswered[1]}
    return {key: by_pattern}


def test_the_fit_equals_fit_logistic_on_the_hand_coded_counts(survey):
    result = fit_model(survey, ModelChoice("cheated", ("dept",), {}), dept_tallies(survey))
    design = survey.question("cheated").design
    expected = fit_logistic([[0, 0], [1, 0], [0, 1]], [60, 110, 80], [140, 90, 120], design, names=["s", "l"])
    assert result.message is None
    assert result.fit.names == ("intercept", "Department: Science vs Arts", "Department: Law vs Arts")
    assert_allclose([c.estimate for c in result.fit.coefficients], [c.estimate for c in expected.coefficients])
    assert_allclose([c.std_err for c in result.fit.coefficients], [c.std_err for c in expected.coefficients])
    assert result.fit.n == 600
    assert result.left_out == 12  # the respondents who left the department unanswered
    assert [t.name for t in result.fit.term_tests] == ["Department"]
    assert result.fit.term_tests[0].df == 2


def test_predicted_prevalence_per_group_in_choice_order_with_labels(survey):
    result = fit_model(survey, ModelChoice("cheated", ("dept",), {}), dept_tallies(survey))
    assert [g.levels for g in result.groups] == [
        (("Department", "Arts"),),
        (("Department", "Science"),),
        (("Department", "Law"),),
    ]
    design = survey.question("cheated").design
    for group, dept in zip(result.groups, ["arts", "science", "law"]):
        yes, no = DEPT_COUNTS[dept]
        # a saturated model: each group's prevalence is its own debiased share
        assert_allclose(group.prevalence.estimate, (yes / (yes + no) - float(design.a)) / float(design.t), atol=1e-7)


def test_the_reference_level_can_be_chosen(survey):
    by_arts = fit_model(survey, ModelChoice("cheated", ("dept",), {}), dept_tallies(survey)).fit
    by_science = fit_model(survey, ModelChoice("cheated", ("dept",), {"dept": "science"}), dept_tallies(survey)).fit
    assert by_science.names[1:] == ("Department: Arts vs Science", "Department: Law vs Science")
    assert_allclose(
        by_science.coefficient("Department: Arts vs Science").estimate,
        -by_arts.coefficient("Department: Science vs Arts").estimate,
    )


def test_patterns_are_collapsed_over_the_predictors_not_chosen():
    survey = model_survey()
    key = question_design_key(survey.question("cheated"))
    tallies = {
        key: {
            canonical_json({"p0": "c0", "p1": "c0"}): {"yes": 3, "no": 4},
            canonical_json({"p0": "c0", "p1": "c1"}): {"yes": 5, "no": 6},
            canonical_json({"p0": "c1", "p1": ""}): {"yes": 1, "no": 2},
            canonical_json({"p0": "", "p1": "c1"}): {"yes": 9},
        }
    }
    cells, left_out = collapse_patterns(tallies, [survey.question("p0")])
    assert cells == {(key, ("c0",)): [8, 10], (key, ("c1",)): [1, 2]}
    assert left_out == 9


def test_cells_follow_the_levels_order_then_the_design_keys_whatever_the_patterns_order():
    """Patterns in scrambled order under two design keys, collapsed over p1 then over p0 and p1 (each choice of
    predictors remembers its own cells): each row's counts are the sum over its patterns, the rows sorted by
    the levels' positions among the choices, then by design key in the order the tallies list them."""
    survey = model_survey()
    p0, p1 = survey.question("p0"), survey.question("p1")
    two_coins = question_design_key(survey.question("cheated"))
    lied = question_design_key(survey.question("lied"))
    rng = np.random.default_rng(11)  # test data only
    levels = [(a, b) for a in ("c2", "", "c0", "c1") for b in ("c1", "c0", "", "c2")]
    tallies = {
        key: {
            answer_pattern({"p0": a, "p1": b}, ["p0", "p1"]): {
                "yes": int(rng.integers(0, 9)),
                "no": int(rng.integers(0, 9)),
            }
            for a, b in rng.permutation(levels).tolist()
        }
        for key in (lied, two_coins)
    }
    total = sum(sum(by_answer.values()) for by_pattern in tallies.values() for by_answer in by_pattern.values())
    for predictors in ([p1], [p0, p1], [p1]):
        names = [q.name for q in predictors]
        expected: dict = {}
        for index, key in enumerate((lied, two_coins)):
            for pattern, by_answer in tallies[key].items():
                chosen = [json.loads(pattern)[name] for name in names]
                if all(chosen):  # "" is unanswered: left out
                    cell = expected.setdefault((tuple(int(level[1]) for level in chosen), index), [0, 0])
                    cell[0] += by_answer["yes"]
                    cell[1] += by_answer["no"]
        cells = cells_of(tallies, predictors)
        assert cells.keys == (lied, two_coins)
        rows = list(zip(map(tuple, cells.levels.tolist()), cells.design.tolist()))
        assert rows == sorted(expected)
        assert cells.counts.tolist() == [expected[row] for row in rows]
        assert cells.left_out == total - sum(sum(counts) for counts in expected.values()) > 0


def test_too_few_answers_gives_a_message(survey):
    result = fit_model(survey, ModelChoice("cheated", ("dept",), {}), dept_tallies(survey, {"arts": (3, 4)}))
    assert result.fit is None
    assert "Too few answers" in result.message


def test_a_rate_outside_the_design_gives_a_message_not_a_number(survey):
    counts = {"arts": (60, 140), "science": (0, 200), "law": (80, 120)}  # no stored yes: below the forced-yes share
    result = fit_model(survey, ModelChoice("cheated", ("dept",), {}), dept_tallies(survey, counts))
    assert result.fit is None
    assert result.message.startswith("The model has no estimate")


def test_a_reference_level_without_answers_gives_a_message(survey):
    counts = {"science": (110, 90), "law": (80, 120)}
    result = fit_model(survey, ModelChoice("cheated", ("dept",), {}), dept_tallies(survey, counts))
    assert result.fit is None
    assert "reference level" in result.message


@pytest.mark.parametrize(
    "choice, shown",
    [
        (ModelChoice("ai_use", ("dept",), {}), "ai_use"),
        (ModelChoice("cheated", ("lied",), {}), "lied"),
        (ModelChoice("cheated", (), {}), "at least one predictor"),
        (ModelChoice("cheated", ("dept",), {"dept": "medicine"}), "medicine"),
        (ModelChoice("cheated", ("dept", "dept"), {}), "once"),
    ],
)
def test_a_bad_choice_is_refused_naming_it(survey, choice, shown):
    with pytest.raises(ValueError, match=shown):
        check_choice(survey, choice)


def test_the_default_reference_is_the_first_choice(survey):
    assert check_choice(survey, ModelChoice("cheated", ("dept",), {})).references == {"dept": "arts"}


def test_answers_under_two_designs_each_get_their_own(survey):
    """Answers kept under an old design are fitted with it: two rows per group, one per design."""
    old = make_survey(version=2)
    tallies = dept_tallies(survey)
    assert question_design_key(old.question("cheated")) in tallies  # same design, same key
    direct = canonical_json(
        {
            "choices": ["yes", "no"],
            "design": {"a": "0", "b": "0", "kind": "forced_response", "t": "1"},
            "type": "yes_no",
        }
    )
    tallies[direct] = {answer_pattern({"dept": "arts"}, ["dept"]): {"yes": 20, "no": 80}}
    result = fit_model(survey, ModelChoice("cheated", ("dept",), {}), tallies)
    design = survey.question("cheated").design
    expected = fit_logistic(
        [[0, 0], [1, 0], [0, 1], [0, 0]],
        [60, 110, 80, 20],
        [140, 90, 120, 80],
        [design, design, design, (1, 0, 0)],
        names=["s", "l"],
    )
    assert_allclose([c.estimate for c in result.fit.coefficients], [c.estimate for c in expected.coefficients])
    assert result.fit.n == 700
    assert np.isfinite(result.fit.log_likelihood)


def test_a_crosswise_outcome_is_read_through_the_answer_that_points_to_the_trait():
    """Crosswise with q = 1/4 counts stored noes ("exactly one yes") under its equivalent design (1/2, 1/4, 1/4):
    the cells list [no, yes], the counts fit_logistic reads with that design."""
    survey = model_survey()
    crosswise = CrosswiseDesign("1/4")
    question = dataclasses.replace(survey.question("cheated"), design=crosswise)
    key = question_design_key(question)
    tallies = {
        key: {
            canonical_json({"p0": "c0", "p1": "c0"}): {"yes": 3, "no": 4},
            canonical_json({"p0": "c1", "p1": "c0"}): {"yes": 1, "no": 2},
        }
    }
    cells, left_out = collapse_patterns(tallies, [survey.question("p0")])
    assert cells == {(key, ("c0",)): [4, 3], (key, ("c1",)): [2, 1]}
    assert left_out == 0


def test_each_group_of_two_predictors_under_two_designs_gets_its_own_predicted_prevalence():
    """With patterns in no particular order and a second design, each group's predicted share is
    expit of the intercept plus its own levels' coefficients, and its levels are named in choice order."""
    from scipy.special import expit

    survey = model_survey()
    two_coins = question_design_key(survey.question("cheated"))
    direct = canonical_json(
        {
            "choices": ["yes", "no"],
            "design": {"a": "0", "b": "0", "kind": "forced_response", "t": "1"},
            "type": "yes_no",
        }
    )
    rng = np.random.default_rng(5)  # test data only
    cells = [(p0, p1) for p0 in ("c2", "c0", "c1") for p1 in ("c1", "c2", "c0")]
    tallies: dict = {two_coins: {}, direct: {}}
    for key in (direct, two_coins):
        for p0, p1 in cells[::-1] if key == direct else cells:
            yes = int(rng.integers(30, 70))
            tallies[key][answer_pattern({"p0": p0, "p1": p1}, ["p0", "p1"])] = {"yes": yes, "no": 100 - yes}
    result = fit_model(survey, ModelChoice("cheated", ("p0", "p1"), {}), tallies)
    assert result.fit is not None and len(result.groups) == 9
    assert [g.levels for g in result.groups] == [
        (("P0", f"c{i}"), ("P1", f"c{j}")) for i in range(3) for j in range(3)
    ]  # labels are the choice names here
    fit = result.fit
    for group in result.groups:
        (_, level0), (_, level1) = group.levels
        eta = fit.coefficient("intercept").estimate
        for question, level in (("P0", level0), ("P1", level1)):
            if level != "c0":
                eta += fit.coefficient(f"{question}: {level} vs c0").estimate
        assert_allclose(group.prevalence.estimate, expit(eta), rtol=1e-12)
        assert group.prevalence.low < group.prevalence.estimate < group.prevalence.high


NUMBER_SURVEY = """\
id: nm
title: N
version: 1
questions:
  - {name: drinks, type: integer, label: Drinks, min: 2, max: 12, epsilon: 1, mechanism: laplace}
  - {name: dept, type: select_one, label: Department, choices: [arts, science], randomize: false}
"""


def number_tallies(survey, outputs: dict, other_design: int = 0) -> dict:
    """Kept pattern rows of ``drinks`` for outputs (grid steps) per department, as the write path adds them."""
    question = survey.question("drinks")
    by_pattern = {}
    for dept, ys in outputs.items():
        counts: dict[str, int] = {}
        for y in ys:
            for answer, add in (
                (question.design.bucket(y), 1),
                ("=sum", y),
                ("=sumsq", y * y),
            ):
                counts[answer] = counts.get(answer, 0) + add
        by_pattern[answer_pattern({"dept": dept} if dept else {}, ["dept"])] = counts
    tallies = {question_design_key(question): by_pattern}
    if other_design:
        tallies["another design"] = {answer_pattern({"dept": "arts"}, ["dept"]): {"b00": other_design, "=sum": 0}}
    return tallies


def test_a_number_outcome_is_fitted_by_least_squares_in_the_question_units():
    """Saturated on one predictor: the intercept is the reference group's mean output in units (min + step y),
    the slope the difference of means; unanswered predictors and another design are left out."""
    import yaml

    from surveys.schema import parse_survey

    survey = parse_survey(yaml.safe_load(NUMBER_SURVEY), "nm.yaml")
    outputs = {"arts": [0, 3, 5, 12, -2] * 5, "science": [7, 9, 10, 14, 4] * 5, "": [1, 2]}
    result = fit_model(survey, ModelChoice("drinks", ("dept",), {}), number_tallies(survey, outputs, other_design=3))
    assert result.method == "linear" and result.message is None and result.mechanism == "laplace"
    arts, science = np.mean(outputs["arts"]), np.mean(outputs["science"])
    assert result.fit.names == ("intercept", "Department: science vs arts")
    assert_allclose([c.estimate for c in result.fit.coefficients], [2 + arts, science - arts])
    assert result.n == 50 and result.left_out == 5
    few = fit_model(survey, ModelChoice("drinks", ("dept",), {}), number_tallies(survey, {"arts": [1] * 5}))
    assert few.fit is None and few.message.startswith("Too few answers to fit a model")


# --------------------------------------------------------------------------
# A plain number as a predictor, by its declared bins.

AGE_SURVEY = """\
id: ag
title: A
version: 1
questions:
  - {name: cheated, type: yes_no, label: Cheated}
  - {name: age, type: integer, label: Age, min: 16, max: 99, randomize: false, bins: [30, 45]}
  - {name: tools, type: select_multiple, label: Tools, choices: [a, b], randomize: false}
"""

#: Stored (yes, no) of "cheated" per age bin, within what its design allows.
AGE_COUNTS = {"b00": (60, 140), "b01": (110, 90), "b02": (80, 120)}


def test_a_plain_number_is_a_predictor_by_its_bins_equal_to_fit_logistic_on_its_bin_dummies():
    """The patterns spell a plain number's bin key (NoisyResponse.pattern, from its grid position); the model
    codes its bins against the reference bin, labelled as the bins, and equals fit_logistic on the bins'
    dummies; a plain check-all-that-apply question is no predictor."""
    import yaml

    from surveys.models import pattern_count, predictor_questions
    from surveys.schema import parse_survey
    from surveys.submission import noisy_response

    survey = parse_survey(yaml.safe_load(AGE_SURVEY), "ag.yaml")
    assert [q.name for q in predictor_questions(survey)] == ["age"]
    assert pattern_count(survey) == 4  # three bins plus no answer
    response = noisy_response(survey, {"cheated": "yes", "age": "20", "tools": "10"}, "server")  # age 36: 30 to <45
    assert response.pattern() == answer_pattern({"age": "b01"}, ["age"]) == '{"age":"b01"}'
    key = question_design_key(survey.question("cheated"))
    by_pattern = {answer_pattern({"age": b}, ["age"]): {"yes": y, "no": n} for b, (y, n) in AGE_COUNTS.items()}
    by_pattern[answer_pattern({}, ["age"])] = {"yes": 4, "no": 6}
    result = fit_model(survey, ModelChoice("cheated", ("age",), {"age": "b01"}), {key: by_pattern})
    design = survey.question("cheated").design
    # rows b00, b01 (reference), b02; columns: b00 vs b01, b02 vs b01
    expected = fit_logistic([[1, 0], [0, 0], [0, 1]], [60, 110, 80], [140, 90, 120], design, names=["a", "b"])
    assert result.message is None and result.left_out == 10
    assert result.fit.names == ("intercept", "Age: 16 to under 30 vs 30 to under 45", "Age: 45 to 99 vs 30 to under 45")
    assert_allclose([c.estimate for c in result.fit.coefficients], [c.estimate for c in expected.coefficients])
    assert_allclose([c.std_err for c in result.fit.coefficients], [c.std_err for c in expected.coefficients])
    assert [g.levels for g in result.groups] == [
        (("Age", "16 to under 30"),),
        (("Age", "30 to under 45"),),
        (("Age", "45 to 99"),),
    ]
    assert check_choice(survey, ModelChoice("cheated", ("age",), {})).references == {"age": "b00"}
    with pytest.raises(ValueError, match="tools"):
        check_choice(survey, ModelChoice("cheated", ("tools",), {}))
    with pytest.raises(ValueError, match="b03"):
        check_choice(survey, ModelChoice("cheated", ("age",), {"age": "b03"}))


def test_a_stored_design_key_keeps_patterns_as_the_live_question_does():
    """Storage's recount asks :func:`surveys.kinds.keeps_patterns_of_stored` of the keys in the stored design
    records; it answers as :func:`surveys.models.kept_outcomes` does of the live survey (a one-group yes/no
    question or a number: yes; a two-group question, a randomized choice or check-all, a plain question: no),
    and only the direct-question arm's answers stay out of the pattern counts."""
    from surveys.arms import ARMS, DIRECT
    from surveys.kinds import keeps_patterns_of_stored
    from surveys.models import arm_keeps_patterns, kept_outcomes
    from tests.helpers.sample_surveys import TWO_GROUP_YAML

    mixed = make_survey(
        TWO_GROUP_YAML.replace("direct_share: 1/5\n", "")
        + "  - {name: cheated, type: yes_no, label: Cheated}\n"
        + "  - {name: drinks, type: integer, label: Drinks, min: 0, max: 30, epsilon: 1, mechanism: bounded}\n"
        + "  - {name: done, type: select_multiple, label: Done, choices: [a, b, c], epsilon: 2}\n"
        + "  - {name: ai_use, type: select_one, label: AI, choices: [never, once, often]}\n"
    )
    for survey in (mixed, model_survey()):
        kept = {q.name for q in survey.questions if keeps_patterns_of_stored(question_design_key(q))}
        assert kept == set(kept_outcomes(survey))
    assert set(kept_outcomes(mixed)) == {"cheated", "drinks"}
    assert keeps_patterns_of_stored("not a key") is False
    assert [arm for arm in ARMS if not arm_keeps_patterns(arm, "yes_no")] == [DIRECT]
    assert all(arm_keeps_patterns(arm, kind) for arm in ARMS for kind in ("integer", "decimal", "select_multiple"))
