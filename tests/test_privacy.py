"""Epsilon per answer, attack success, and composition over a survey."""

from __future__ import annotations

import math
import re

import pytest
from numpy.testing import assert_allclose

from analysis import (
    SurveyEpsilon,
    advanced_composition,
    basic_composition,
    binary_epsilon,
    forced_response_attack_success,
    forced_response_epsilon,
    multiple_choice_attack_success,
    multiple_choice_epsilon,
    survey_epsilon,
)

LN3 = math.log(3)


@pytest.mark.parametrize(
    ("t", "a", "b", "expected"),
    [
        (0.5, 0.25, 0.25, LN3),  # .75/.25 = 3
        (2 / 3, 1 / 6, 1 / 6, math.log(5)),  # (5/6)/(1/6) = 5
        (0.7, 0.2, 0.1, math.log(8)),  # max(.9/.2 = 4.5, .8/.1 = 8)
        # a < b: the first ratio is the larger, max(.8/.1 = 8, .9/.2 = 4.5).
        (0.7, 0.1, 0.2, math.log(8)),
        (0.6, 0.1, 0.3, math.log(7)),  # max(.7/.1 = 7, .9/.3 = 3)
        (0.8, 0.0, 0.2, math.inf),  # a=0: a yes report reveals a true yes
        (0.8, 0.2, 0.0, math.inf),  # b=0: a no report reveals a true no
        (0.0, 0.5, 0.5, 0.0),  # answer ignored: perfect privacy
    ],
)
def test_forced_response_epsilon(t, a, b, expected):
    assert_allclose(forced_response_epsilon(t, a, b), expected)


@pytest.mark.parametrize(
    ("k", "t", "expected"),
    [
        (4, 0.5, math.log(5)),  # (1/2 + 1/8)/(1/8) = 5
        (2, 0.5, LN3),  # (1/2 + 1/4)/(1/4) = 3
        (3, 2 / 3, math.log(7)),  # (2/3 + 1/9)/(1/9) = 7
        (5, 1.0, math.inf),  # no randomization
    ],
)
def test_multiple_choice_epsilon(k, t, expected):
    assert_allclose(multiple_choice_epsilon(k, t), expected)


def test_attack_success():
    # (1 + t)/2: 3/4 for two coins, 5/6 for the die design.
    assert_allclose(forced_response_attack_success(0.5, 0.25, 0.25), 0.75)
    assert_allclose(forced_response_attack_success(2 / 3, 1 / 6, 1 / 6), 5 / 6)
    # t + (1 - t)/k: 1/2 + 1/8 = 5/8.
    assert_allclose(multiple_choice_attack_success(4, 0.5), 0.625)
    # a < b: (1 + .7)/2 = .85 whichever of a, b is larger.
    assert_allclose(forced_response_attack_success(0.7, 0.1, 0.2), 0.85)
    # t + (1 - t)/k with t = 2/3, k = 3: 2/3 + 1/9 = 7/9.
    assert_allclose(multiple_choice_attack_success(3, 2 / 3), 7 / 9)


def test_attack_success_equals_bayes_guess_by_enumeration():
    # Enumerate: prior 1/2 on yes/no; for each report guess the likelier truth.
    t, a, b = 0.7, 0.2, 0.1
    p_report = {("yes", "yes"): t + a, ("yes", "no"): a, ("no", "yes"): b, ("no", "no"): t + b}
    success = sum(0.5 * max(p_report[(report, "yes")], p_report[(report, "no")]) for report in ("yes", "no"))
    assert_allclose(forced_response_attack_success(t, a, b), success)


def test_basic_composition_is_k_ln3():
    for k in (1, 5, 20):
        assert_allclose(basic_composition([LN3] * k), k * LN3)
    assert basic_composition([]) == 0.0


def test_advanced_composition_by_hand():
    # k=10, eps=ln 3, delta=1e-6:
    # sqrt(2*10*ln(1e6))*ln3 + 10*ln3*(3 - 1) = sqrt(276.310211)*1.0986123 + 21.972246
    # = 16.622581*1.0986123 + 21.972246 = 40.234 -- worse than basic 10.986.
    expected = math.sqrt(2 * 10 * math.log(1e6)) * LN3 + 10 * LN3 * 2
    assert_allclose(advanced_composition([LN3] * 10, 1e-6), expected)
    assert_allclose(expected, 40.2342, rtol=1e-5)
    # 100 answers of eps=.1: sqrt(200*13.815511)*.1 + 100*.1*(e^.1 - 1)
    # = 5.256522 + 1.051709 = 6.308231 < basic 10.
    small = advanced_composition([0.1] * 100, 1e-6)
    assert_allclose(small, math.sqrt(200 * math.log(1e6)) * 0.1 + 10 * math.expm1(0.1))
    assert_allclose(small, 6.308231, rtol=1e-6)


def test_advanced_composition_heterogeneous():
    eps = [LN3, math.log(5), 0.5]
    expected = math.sqrt(2 * math.log(1e5) * sum(e * e for e in eps)) + sum(e * (math.exp(e) - 1) for e in eps)
    assert_allclose(advanced_composition(eps, 1e-5), expected)
    assert advanced_composition([LN3, math.inf], 1e-5) == math.inf


def test_survey_epsilon():
    s = survey_epsilon([LN3] * 3)
    assert isinstance(s, SurveyEpsilon)
    assert s.per_question == (LN3,) * 3
    assert_allclose(s.basic, 3 * LN3)
    assert s.delta == 1e-6
    assert s.best == s.basic  # few questions: the basic sum is tighter
    many = survey_epsilon([0.1] * 100)
    assert many.best == many.advanced < many.basic
    empty = survey_epsilon([])
    assert (empty.basic, empty.advanced, empty.best) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("delta", [0, 1, -0.1, 1.5])
def test_bad_delta(delta):
    with pytest.raises(ValueError, match=re.escape(f"delta={delta!r}")):
        advanced_composition([LN3], delta)


def test_negative_epsilon_rejected():
    with pytest.raises(ValueError, match=re.escape("epsilons[1]=-0.5")):
        survey_epsilon([LN3, -0.5])


def test_zero_and_infinite_epsilons_are_accepted():
    # epsilon 0 (an ignored answer) and inf (a = 0 or b = 0) are both real costs.
    s = survey_epsilon([0.0, LN3])
    assert s.per_question == (0.0, LN3)
    assert_allclose(s.basic, LN3)
    assert survey_epsilon([math.inf, LN3]).basic == math.inf
    assert survey_epsilon([math.inf]).advanced == math.inf


def test_empty_survey_checks_its_delta():
    with pytest.raises(ValueError, match=re.escape("delta=5")):
        survey_epsilon([], delta=5)


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        ((0.5, -0.1, 0.6), "a must be in [0, 1], got a=-0.1"),  # once returned ln((.5 + .6)/.6) = 0.606
        ((1.5, -0.25, -0.25), "t=1.5"),
        ((0.5, 0.25, 1.25), "b=1.25"),
        ((0.5, 0.25, 0.3), "t + a + b must equal 1, got t=0.5 + a=0.25 + b=0.3 = 1.05"),
        ((math.nan, 0.5, 0.5), "t=nan"),
        ((0.5, "0.25", 0.25), "a='0.25'"),
        ((0.5, 0.25, True), "b=True"),
    ],
)
@pytest.mark.parametrize("function", [forced_response_epsilon, forced_response_attack_success])
def test_forced_response_arguments_are_checked(function, args, shown):
    with pytest.raises(ValueError, match=re.escape(shown)):
        function(*args)


@pytest.mark.parametrize(
    ("k", "t", "shown"),
    [
        (1, 0.5, "k=1"),
        (2.0, 0.5, "k=2.0"),
        (True, 0.5, "k=True"),
        (3, 1.5, "t=1.5"),
        (3, -0.1, "t=-0.1"),
        (3, math.nan, "t=nan"),
    ],
)
@pytest.mark.parametrize("function", [multiple_choice_epsilon, multiple_choice_attack_success])
def test_multiple_choice_arguments_are_checked(function, k, t, shown):
    with pytest.raises(ValueError, match=re.escape(shown)):
        function(k, t)


@pytest.mark.parametrize(
    ("epsilons", "shown"),
    [
        ([math.nan], "epsilons[0]=nan"),
        ([LN3, -1], "epsilons[1]=-1"),
        ([LN3, "1"], "epsilons[1]='1'"),
        ([True], "epsilons[0]=True"),
        (3.0, "epsilons=3.0"),
    ],
)
@pytest.mark.parametrize(
    "function",
    [basic_composition, survey_epsilon, lambda e: advanced_composition(e, 1e-6)],
    ids=["basic", "survey", "advanced"],
)
def test_epsilons_are_checked(function, epsilons, shown):
    with pytest.raises(ValueError, match=re.escape(shown)):
        function(epsilons)


@pytest.mark.parametrize("delta", [math.nan, "0.1", None])
def test_delta_must_be_a_number(delta):
    with pytest.raises(ValueError, match=re.escape(f"delta={delta!r}")):
        survey_epsilon([LN3], delta)


@pytest.mark.parametrize(
    ("theta1", "theta0", "expected"),
    [
        (0.75, 0.25, LN3),  # Warner p = 3/4: ln(p / (1 - p))
        (0.25, 0.75, LN3),  # crosswise q = 1/4: |ln(q / (1 - q))|
        (0.75, 7 / 12, math.log((5 / 12) / 0.25)),  # the "no" ratio (5/12) / (1/4) beats (3/4) / (7/12)
        (0.7, 0.3, math.log(0.7 / 0.3)),  # Kuk k1 = 7/10, k2 = 3/10
        (1.0, 0.25, math.inf),  # triangular / Mangat: a stored "no" proves no trait
        (0.0, 0.5, math.inf),
        (0.5, 0.0, math.inf),  # a stored "yes" proves the trait
        (0.4, 0.4, 0.0),  # the answer does not depend on the truth
    ],
)
def test_binary_epsilon(theta1, theta0, expected):
    assert_allclose(binary_epsilon(theta1, theta0), expected)


def test_binary_epsilon_is_forced_response_epsilon_of_the_same_probabilities():
    """Forced response is theta1 = t + a, theta0 = a: both functions agree."""
    for t, a, b in ((0.5, 0.25, 0.25), (0.7, 0.1, 0.2), (2 / 3, 1 / 6, 1 / 6)):
        assert_allclose(binary_epsilon(t + a, a), forced_response_epsilon(t, a, b))


@pytest.mark.parametrize(("theta1", "theta0", "shown"), [(1.5, 0.5, "theta1"), (0.5, -0.1, "theta0")])
def test_binary_epsilon_names_a_bad_probability(theta1, theta0, shown):
    with pytest.raises(ValueError, match=rf"^{shown} must be in \[0, 1\], got {shown}="):
        binary_epsilon(theta1, theta0)
