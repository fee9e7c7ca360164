"""Exact values of the planning functions: sample size, half-width, power."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats

from analysis import (
    CheaterDetectionDesign,
    MisclassificationDesign,
    MultipleChoiceDesign,
    StochasticLieDetectorDesign,
    confidence_sequence,
    estimate_misclassification,
    half_width_for_n,
    option_shares_half_width,
    option_shares_power,
    option_shares_sample_size,
    power_one_sided,
    sample_size_for_half_width,
    sample_size_for_sequence_half_width,
    sequence_half_width_for_n,
    two_group_half_width,
    two_group_power,
    two_group_sample_size,
    two_group_sample_size_for_sequence,
    two_group_sequence,
    two_group_sequence_half_width_for_n,
    two_group_worst_case,
)
from analysis.planning import TwoGroupPlan, _group_sizes, first_n_within, whole_n

TWO_COINS = (0.5, 0.25, 0.25)
DIE = (2 / 3, 1 / 6, 1 / 6)
ASYMMETRIC = (0.7, 0.2, 0.1)
Z2 = 3.8414588206941254  # Phi^{-1}(0.975)^2


@pytest.mark.parametrize(
    ("design", "pi", "expected"),
    [
        # Worst case lambda = 1/2: 3.8414588*.25/(.25*.05^2) = 1536.58 -> 1537
        # (four times the 384.15 -> 385 of a direct question).
        (TWO_COINS, None, 1537),
        # pi=.1: lambda=.3, 3.8414588*.21/(.25*.0025) = 1290.73 -> 1291.
        (TWO_COINS, 0.1, 1291),
        # Die: lambda in [1/6, 5/6], worst 1/2: .9603647/((4/9)*.0025) = 864.33 -> 865.
        (DIE, None, 865),
        # Asymmetric: lambda in [.2, .9], worst 1/2: .9603647/(.49*.0025) = 783.97 -> 784.
        (ASYMMETRIC, None, 784),
        # t=.2, a=.6: lambda in [.6, .8], worst .6: 3.8414588*.24/(.04*.0025) = 9219.50 -> 9220.
        ((0.2, 0.6, 0.2), None, 9220),
        # t=.2, a=.1: lambda in [.1, .3], worst .3: 3.8414588*.21/(.04*.0025) = 8067.06 -> 8068.
        ((0.2, 0.1, 0.7), None, 8068),
        # Direct question (t=1): the textbook 385.
        ((1.0, 0.0, 0.0), None, 385),
    ],
)
def test_sample_size_by_hand(design, pi, expected):
    assert sample_size_for_half_width(0.05, 0.95, *design, pi=pi) == expected


def test_worst_case_is_the_maximum_over_pi():
    for design in (TWO_COINS, DIE, ASYMMETRIC, (0.2, 0.6, 0.2)):
        worst = sample_size_for_half_width(0.03, 0.9, *design)
        grid = [sample_size_for_half_width(0.03, 0.9, *design, pi=p / 100) for p in range(101)]
        assert worst == max(grid)


def test_a_wide_margin_needs_a_single_answer():
    # Direct question, h=.99: 3.8414588*.25/.9801 = 0.98 -> 1.
    assert sample_size_for_half_width(0.99, 0.95, 1, 0, 0) == 1


@pytest.mark.parametrize(
    ("exact", "expected"),
    [
        (1 + 0.5e-9, 1),  # within 1e-9 of 1: float noise, taken as 1
        (1 + 1.5e-9, 2),  # the tolerance is 1e-9 * max(1, n): 1.5e-9 is a real excess
        (400 * (1 + 0.5e-9), 400),  # relative: 2e-7 from 400 is within 400e-9
        (400 * (1 + 2e-9), 401),  # 8e-7 from 400 is not
    ],
)
def test_sample_size_rounding_tolerance_is_relative(exact, expected):
    # Direct question at pi=1/2: n = z^2 / 4 / h^2, so h = sqrt(z^2 / 4 / exact) asks for `exact`.
    h = math.sqrt(Z2 * 0.25 / exact)
    assert sample_size_for_half_width(h, 0.95, 1, 0, 0) == expected


def test_a_single_answer_is_enough_to_plan_with():
    # n=1, two coins, worst case: 1.959964*sqrt(.25)/.5 = 1.959964.
    assert_allclose(half_width_for_n(1), 1.959963984540054, rtol=1e-12)
    # n=1, pi0=.2, pi1=.8: lambda0=.35, I0=.25/(.35*.65)=1.0989011; lambda1=.65, I1 the same;
    # Phi((.6 - 1.6448536/1.0482848) * 1.0482848) = Phi(-1.0159827) = 0.1548426.
    assert_allclose(power_one_sided(1, 0.2, 0.8), 0.1548426181, rtol=1e-8)


def test_half_width_by_hand():
    # n=1000, two coins, worst case: 1.959964*sqrt(.25/1000)/.5 = 0.0619795.
    assert_allclose(half_width_for_n(1000), 0.0619795032, rtol=1e-9)
    # Asymmetric, pi=.3: lambda=.41, 1.959964*sqrt(.41*.59/400)/.7 = 0.0688554.
    assert_allclose(
        half_width_for_n(400, 0.95, *ASYMMETRIC, pi=0.3),
        math.sqrt(Z2 * 0.41 * 0.59 / 400) / 0.7,
    )


@pytest.mark.parametrize("design", [TWO_COINS, DIE, ASYMMETRIC])
@pytest.mark.parametrize("half_width", [0.01, 0.03, 0.05, 0.1, 0.2])
def test_sample_size_is_the_smallest_n_reaching_the_half_width(design, half_width):
    n = sample_size_for_half_width(half_width, 0.95, *design)
    assert half_width_for_n(n, 0.95, *design) <= half_width
    if n > 1:
        assert half_width_for_n(n - 1, 0.95, *design) > half_width


def test_sample_size_round_trips_without_float_noise():
    # The half-width of n=400 must ask for 400, not 401 from rounding error.
    for n in (37, 400, 2500):
        h = half_width_for_n(n, 0.95, *DIE, pi=0.2)
        assert sample_size_for_half_width(h, 0.95, *DIE, pi=0.2) == n


def test_power_by_hand():
    # Two coins, n=400, pi0=.5, pi1=.6, alpha=.05:
    # lambda0=.5, I0 = .25*(2+2) = 1; lambda1=.55, I1 = .25/(.55*.45) = 1.010101.
    # shift = .1 - 1.6448536/sqrt(400) = .0177573; * sqrt(404.0404) = .3569355;
    # Phi(.3569355) = 0.6394300.
    assert_allclose(power_one_sided(400, 0.5, 0.6), 0.6394299667, rtol=1e-9)
    # Mirror: pi1=.4 gives lambda1=.45 and the same information, the same power.
    assert_allclose(power_one_sided(400, 0.5, 0.4), 0.6394299667, rtol=1e-9)


def test_power_asymmetric_by_hand():
    # t=.7, a=.2, n=500, pi0=.2, pi1=.3: lambda0=.34, I0 = .49/(.34*.66) = 2.1836007;
    # lambda1=.41, I1 = .49/(.41*.59) = 2.0256304;
    # (.1 - 1.6448536/sqrt(1091.8004)) * sqrt(1012.8152) = 1.5982366; Phi = 0.9450048.
    assert_allclose(power_one_sided(500, 0.2, 0.3, *ASYMMETRIC), 0.9450048354, rtol=1e-9)


def test_power_at_the_null_is_alpha():
    for alpha in (0.01, 0.05, 0.2):
        assert_allclose(power_one_sided(300, 0.3, 0.3, *DIE, alpha=alpha), alpha)


def test_power_grows_with_n():
    powers = [power_one_sided(n, 0.1, 0.2) for n in (100, 400, 1600, 6400)]
    assert powers == sorted(powers)
    assert powers[-1] > 0.999


def test_randomization_costs_power():
    # The same n with a direct question (t=1) has more power than with two coins.
    assert power_one_sided(400, 0.5, 0.6, 1, 0, 0) > power_one_sided(400, 0.5, 0.6)


@pytest.mark.parametrize(
    ("call", "shown"),
    [
        (lambda: sample_size_for_half_width(0), "half_width=0"),
        (lambda: sample_size_for_half_width(1), "half_width=1"),
        (lambda: sample_size_for_half_width(-0.05), "half_width=-0.05"),
        (lambda: sample_size_for_half_width(math.nan), "half_width=nan"),
        (lambda: sample_size_for_half_width("0.05"), "half_width='0.05'"),
        (lambda: sample_size_for_half_width(0.05, 1.2), "confidence_level=1.2"),
        (lambda: sample_size_for_half_width(0.05, pi=1.1), "pi=1.1"),
        (lambda: sample_size_for_half_width(0.05, pi=-0.1), "pi=-0.1"),
        (lambda: sample_size_for_half_width(0.05, pi=math.nan), "pi must be a finite number, got pi=nan"),
        (lambda: power_one_sided(100, "0.1", 0.2), "pi0 must be a finite number, got pi0='0.1'"),
        (lambda: sample_size_for_half_width(0.05, 0.95, 0.5, 0.3, 0.3), "b=0.3"),
        (lambda: half_width_for_n(0), "n must be an integer >= 1, got n=0"),
        (lambda: half_width_for_n(10.5), "n=10.5"),
        (lambda: half_width_for_n(True), "n=True"),
        (lambda: half_width_for_n(100, 0), "confidence_level=0"),
        (lambda: half_width_for_n(100, pi=2), "pi=2"),
        (lambda: half_width_for_n(100, 0.95, 0, 0.5, 0.5), "t=0"),
        (lambda: power_one_sided(0, 0.1, 0.2), "n must be an integer >= 1, got n=0"),
        (lambda: power_one_sided(100, -0.1, 0.2), "pi0=-0.1"),
        (lambda: power_one_sided(100, 0.1, 1.2), "pi1=1.2"),
        (lambda: power_one_sided(100, 0.1, 0.2, alpha=0), "alpha=0"),
        (lambda: power_one_sided(100, 0.1, 0.2, alpha=1.0), "alpha=1.0"),
        (lambda: power_one_sided(100, 0.1, 0.2, 0.5, 0.25, 0.2), "b=0.2"),
        # a=0, pi0=0: every answer is "no" under the null; the test is undefined.
        (lambda: power_one_sided(100, 0.0, 0.2, 0.8, 0.0, 0.2), "pi0=0.0"),
        (lambda: power_one_sided(100, 0.5, 1.0, 1.0, 0.0, 0.0), "pi1=1.0"),
    ],
)
def test_bad_arguments(call, shown):
    with pytest.raises(ValueError, match=re.escape(shown)):
        call()


# --------------------------------------------------------------------------
# Two-group designs (cheater detection, stochastic lie detector). Kept as one block.


def _lie_detector():
    from fractions import Fraction

    from analysis import StochasticLieDetectorDesign

    return StochasticLieDetectorDesign(Fraction(1, 6), Fraction(5, 6))


def test_two_group_half_width_by_hand():
    from analysis import two_group_half_width

    # SLD p = (1/6, 5/6), pi = .3, t = .8: lambda = (.24 + .7 * 5/6, .24 + .7 * 1/6) = (.823333, .356667).
    # Var(pi_hat) = [l1(1 - l1)/n1 + l2(1 - l2)/n2] / (2/3)^2: A = 2.25 l (1 - l) = (.327275, .516275).
    # n1 = n2 = 1000: 1.959964 * sqrt(.84355 / 1000) = .0569251.
    assert_allclose(two_group_half_width(_lie_detector(), 1000, 1000, 0.3, 0.8), 0.0569251, rtol=1e-6)


def test_two_group_sample_size_by_hand_and_the_best_share():
    from analysis import two_group_half_width, two_group_sample_size

    design = _lie_detector()
    # Best share r = sqrt(A1)/(sqrt(A1) + sqrt(A2)) = .572079/1.290602 = .443266;
    # n = 3.8414588 * 1.290602^2 / .05^2 = 2559.4 -> 2560, n1 = round(.443266 * 2560) = 1135.
    plan = two_group_sample_size(design, 0.05, 0.3, 0.8)
    assert (plan.n1, plan.n2, plan.n) == (1135, 1425, 2560)
    assert plan.group_share == pytest.approx(0.443266, abs=1e-6)
    assert plan.half_width <= 0.05 < two_group_half_width(design, 1135, 1424, 0.3, 0.8)
    # Equal groups: n = 3.8414588 * 2 * (.327275 + .516275) / .0025 = 2592.3 -> 2593, more than the best share needs.
    equal = two_group_sample_size(design, 0.05, 0.3, 0.8, group_share=0.5)
    assert (equal.n1, equal.n2, equal.n) == (1296, 1297, 2593)


def test_two_group_power_keeps_its_level_and_matches_a_simulation():
    """At pi1 = pi0 the power is alpha. At pi0 = .2, pi1 = .3 (t = .8, 1000 + 1000 answers) the formula's
    power is compared with R = 4000 simulated surveys rejecting when pi_hat > .2 + z_.95 SE(pi0): within
    3 binomial standard errors of the simulation plus .01 for the normal approximation."""
    import numpy as np

    from analysis import two_group_half_width, two_group_power

    design = _lie_detector()
    assert two_group_power(design, 1000, 1000, 0.3, 0.3, 0.8, alpha=0.05) == pytest.approx(0.05, abs=1e-12)
    power = two_group_power(design, 1000, 1000, 0.2, 0.3, 0.8)
    rng = np.random.default_rng(20261122)
    yes = rng.binomial((1000, 1000), design.rates(0.3, 0.8), size=(4000, 2)) / 1000
    pi_hat = 1 - (yes[:, 0] - yes[:, 1]) / (2 / 3)
    threshold = 0.2 + two_group_half_width(design, 1000, 1000, 0.2, 0.8, confidence_level=0.9)
    simulated = float(np.mean(pi_hat > threshold))
    assert abs(power - simulated) <= 3 * math.sqrt(power * (1 - power) / 4000) + 0.01
    with pytest.raises(ValueError, match=r"pi0: pi must be in \[0, 1\], got pi=1.5"):
        two_group_power(design, 10, 10, 1.5, 0.3, 0.8)


def test_two_group_planning_refuses_a_point_outside_the_parameter_space():
    from fractions import Fraction

    from analysis import CheaterDetectionDesign, two_group_sample_size

    with pytest.raises(ValueError, match="pi=0.7 and gamma=0.5 lie outside the parameter space"):
        two_group_sample_size(CheaterDetectionDesign(Fraction(3, 10), Fraction(7, 10)), 0.05, 0.7, 0.5)
    with pytest.raises(ValueError, match="design must be a two-group design"):
        two_group_sample_size("SLD", 0.05, 0.3, 0.8)


# -- planning under the confidence sequence -----------------------------------


@pytest.mark.parametrize(
    ("design", "pi", "half_width"),
    [(TWO_COINS, None, 0.05), (TWO_COINS, 0.1, 0.03), (DIE, None, 0.02), (ASYMMETRIC, 0.8, 0.05)],
)
def test_sequence_sample_size_is_the_first_n_whose_sequence_is_narrow_enough(design, pi, half_width):
    n = sample_size_for_sequence_half_width(half_width, 0.95, *design, pi=pi)
    assert sequence_half_width_for_n(n, 0.95, *design, pi=pi) <= half_width
    assert sequence_half_width_for_n(n - 1, 0.95, *design, pi=pi) > half_width


def test_sequence_half_width_is_the_confidence_sequence_at_the_expected_counts():
    # 1,000 answers at lambda = 1/2 (two coins, worst case): S = 500, exactly a count the sequence takes.
    sequence = confidence_sequence(500, 1000, *TWO_COINS)
    assert_allclose(sequence_half_width_for_n(1000), (sequence.high - sequence.low) / 2, rtol=1e-9)
    assert_allclose(sequence_half_width_for_n(1000), 0.1112293, rtol=1e-6)


@pytest.mark.parametrize("half_width", [0.1, 0.05, 0.02, 0.01])
def test_the_sequence_needs_more_answers_than_the_fixed_sample_interval_and_more_so_for_smaller_margins(half_width):
    fixed = sample_size_for_half_width(half_width)
    sequence = sample_size_for_sequence_half_width(half_width)
    # The squared width ratio [2 log(1/alpha) + log(n / (2 pi v))] / z^2 at v = 1/4 (Notes), within 1%.
    approximate = (2 * math.log(20) + math.log(sequence / (2 * math.pi * 0.25))) / Z2
    assert_allclose(sequence / fixed, approximate, rtol=0.01)
    assert 3 < sequence / fixed < 5


def test_sequence_sample_size_by_hand():
    # Two coins, 95%, worst case, h = 0.05: the root of n = 400 [2 log 20 + log(n / (pi/2))] is 5,672;
    # the exact boundary gives 5,666 (Notes of sample_size_for_sequence_half_width).
    assert sample_size_for_sequence_half_width(0.05) == 5666


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: sample_size_for_sequence_half_width(0), "half_width"),
        (lambda: sample_size_for_sequence_half_width(0.05, 1.0), "confidence_level"),
        (lambda: sample_size_for_sequence_half_width(0.05, pi=1.5), "pi"),
        (lambda: sequence_half_width_for_n(0), "n"),
        (lambda: sequence_half_width_for_n(10, 0.95, 0.5, 0.5, 0.5), "t"),
    ],
)
def test_sequence_planning_refuses_bad_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --------------------------------------------------------------------------
# Two-group designs: the worst case and the confidence sequence's sample size.


TWO_GROUP_DESIGNS = [CheaterDetectionDesign("3/10", "7/10"), StochasticLieDetectorDesign("1/3", "2/3")]


@pytest.mark.parametrize("design", TWO_GROUP_DESIGNS, ids=["cdm", "sld"])
def test_the_two_group_worst_case_puts_both_rates_at_one_half_and_bounds_every_half_width(design):
    worst = two_group_worst_case(design)
    assert design.in_space(*worst) and design.rates(*worst) == pytest.approx((0.5, 0.5), abs=1e-15)
    widest = two_group_half_width(design, 300, 200, *worst)
    grid = [(pi, s) for pi in np.linspace(0, 1, 21) for s in np.linspace(0, 1, 21) if design.in_space(pi, s)]
    assert len(grid) > 200
    assert max(two_group_half_width(design, 300, 200, pi, s) for pi, s in grid) <= widest * (1 + 1e-12)


def test_the_two_group_sequence_half_width_is_half_the_width_of_the_mapped_sequence():
    """SLD p = (1/3, 2/3), 540 of 900 and 360 of 900 yes: pi = 1 - 0.2 * 3 = 0.4; the box of the two rates'
    sequences at 97.5% mapped by (-3, 3) is 3 (h1 + h2) wide on each side, inside [0, 1] (no clipping)."""
    design = TWO_GROUP_DESIGNS[1]
    sequence = two_group_sequence((540, 360), (900, 900), design, 0.95)
    assert 0 < sequence.low < 0.4 < sequence.high < 1
    planned = two_group_sequence_half_width_for_n(design, 900, 900, 0.95, rates=(0.6, 0.4))
    assert_allclose(planned, (sequence.high - sequence.low) / 2, rtol=1e-12)
    rate = [(high - low) / 2 for low, high in sequence.rates]
    assert_allclose(planned, 3 * sum(rate), rtol=1e-12)


@pytest.mark.parametrize("design", TWO_GROUP_DESIGNS, ids=["cdm", "sld"])
@pytest.mark.parametrize("share", [0.5, 0.3])
def test_the_two_group_sequence_sample_size_is_the_first_n_narrow_enough(design, share):
    n = two_group_sample_size_for_sequence(design, 0.1, 0.95, share)
    assert two_group_sequence_half_width_for_n(design, *_group_sizes(n, share)) <= 0.1
    assert two_group_sequence_half_width_for_n(design, *_group_sizes(n - 1, share)) > 0.1
    fixed = two_group_sample_size(design, 0.1, *two_group_worst_case(design), group_share=share).n
    assert n > 2 * fixed  # both rates at 97.5%, over every look


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"half_width": 0}, "half_width"),
        ({"group_share": 1}, "group_share"),
        ({"rates": (0.5,)}, "rates must be a pair"),
        ({"rates": (0.5, 1.5)}, "rates[1]"),
    ],
)
def test_bad_two_group_sequence_plans_name_the_value(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        two_group_sample_size_for_sequence(TWO_GROUP_DESIGNS[0], **({"half_width": 0.1} | kwargs))


# --------------------------------------------------------------------------
# select_one: every option share.

Z95 = 1.959963984540054
#: Lower triangular, columns summing to 1: P^-1 has rows (2, 0, 0), (-1/2, 1, 0), (-1/2, 0, 1), ranges 2, 3/2, 3/2.
TRIANGULAR = MisclassificationDesign([["1/2", "0", "0"], ["1/4", "1", "0"], ["1/4", "0", "1"]])


def test_a_k_option_design_plans_like_the_yes_no_worst_case():
    """P^-1 = (I - (1 - t)/k J) / t spans 1/t in every row: n = ceil(z^2 / (4 t^2 h^2)); t = 1/2, h = 0.05, 95%:
    ceil(3.8415 / 0.0025) = 1537, the two coins' worst case."""
    design = MultipleChoiceDesign(4, "1/2")
    assert option_shares_sample_size(design, 0.05) == 1537 == sample_size_for_half_width(0.05)
    assert option_shares_sample_size(MultipleChoiceDesign(3, "3/4"), 0.05) == math.ceil(Z95**2 / (4 * 0.5625 * 0.0025))
    assert option_shares_sample_size(MisclassificationDesign.from_multiple_choice(4, "1/2"), 0.05) == 1537


def test_a_matrix_design_plans_for_its_widest_inverse_row():
    """TRIANGULAR's widest row spans 2: n = ceil(z^2 * 2^2 / (4 h^2)) = ceil(3.8415 / 0.01) = 385 at h = 0.1;
    with 100 answers the widest half-width is z * 2 / (2 * 10) = 0.196."""
    assert option_shares_sample_size(TRIANGULAR, 0.1) == 385 == math.ceil(Z95**2 / 0.01)
    assert_allclose(option_shares_half_width(TRIANGULAR, 100), Z95 / 10, rtol=1e-12)
    assert_allclose(option_shares_half_width(TRIANGULAR, 100, 0.9), 1.6448536269514722 / 10, rtol=1e-12)


@pytest.mark.parametrize("design", [TRIANGULAR, MultipleChoiceDesign(5, "2/3")])
@pytest.mark.parametrize("half_width", [0.02, 0.05, 0.13])
def test_the_option_shares_sample_size_is_the_first_n_narrow_enough(design, half_width):
    n = option_shares_sample_size(design, half_width)
    assert option_shares_half_width(design, n) <= half_width < option_shares_half_width(design, n - 1)


def test_no_answers_give_a_wider_option_interval_than_the_worst_case():
    """Every count vector of 12 answers over TRIANGULAR's 3 options: each option's standard error times z is
    at most the planned worst-case half-width (the bound is reached with half the answers on each end)."""
    bound = option_shares_half_width(TRIANGULAR, 12)
    widest = 0.0
    for first in range(13):
        for second in range(13 - first):
            e = estimate_misclassification([first, second, 12 - first - second], TRIANGULAR)
            widest = max(widest, Z95 * max(e.std_err))
    assert widest <= bound + 1e-12
    assert_allclose(widest, bound, rtol=1e-12)  # (6, 0, 6) or (6, 6, 0) reach it on option 0


def test_option_share_planning_refuses_bad_arguments():
    with pytest.raises(ValueError, match="design must be a MultipleChoiceDesign or MisclassificationDesign"):
        option_shares_sample_size("k", 0.05)
    with pytest.raises(ValueError, match="half_width"):
        option_shares_sample_size(TRIANGULAR, 0)
    with pytest.raises(ValueError, match="n=0"):
        option_shares_half_width(TRIANGULAR, 0)


def test_a_k_option_design_with_a_six_decimal_t_is_planned():
    """t = 0.654321: n = ceil(z^2 / (4 t^2 h^2)) at h = 0.05, the yes/no worst case of its option marginal."""
    design = MultipleChoiceDesign(4, "0.654321")
    assert option_shares_sample_size(design, 0.05) == math.ceil(Z95**2 / (4 * 0.654321**2 * 0.0025))


@pytest.mark.parametrize(
    "design",
    [
        MultipleChoiceDesign(k=4, t=0.5),
        MisclassificationDesign(((0.7, 0.1, 0.1), (0.2, 0.8, 0.2), (0.1, 0.1, 0.7))),
    ],
)
def test_option_share_power_is_alpha_at_no_difference_and_meets_the_worst_case_sample_size(design):
    # With n = option_shares_sample_size(h) at confidence 1 - 2 alpha, z_{1-alpha} se <= h, so a difference of
    # 2h is detected with power Phi(2h/se - z) >= Phi(z) = 1 - alpha: the two plans agree.
    assert option_shares_power(design, 500, 0.0, alpha=0.05) == pytest.approx(0.05)
    n = option_shares_sample_size(design, 0.05, confidence_level=0.90)
    assert option_shares_power(design, n, 0.10, alpha=0.05) >= 0.95
    assert option_shares_power(design, n - 1, 0.10, alpha=0.05) < option_shares_power(design, n, 0.10, alpha=0.05)


def test_k_option_power_is_the_forced_response_worst_case():
    # k = 4, t = 1/2: R_j = 1/t = 2, power = Phi(2 t sqrt(n) d - z_0.95) = Phi(2 * 0.5 * 20 * 0.1 - 1.6448536)
    assert option_shares_power(MultipleChoiceDesign(k=4, t=0.5), 400, 0.1) == pytest.approx(0.6387, abs=1e-4)


@pytest.mark.parametrize(
    ("arguments", "named"), [((0, 0.1), "n"), ((100, 1.5), "difference"), ((100, 0.1, 0.0), "alpha")]
)
def test_option_share_power_refuses_bad_arguments(arguments, named):
    with pytest.raises(ValueError, match=named):
        option_shares_power(MultipleChoiceDesign(k=4, t=0.5), *arguments)


# --------------------------------------------------------------------------
# Exact messages, the smallest counts, and the edges of the searches (each case kills a mutant of planning.py).

SLD = StochasticLieDetectorDesign("1/3", "2/3")
CDM = CheaterDetectionDesign("3/10", "7/10")
K4 = MultipleChoiceDesign(k=4, t=0.5)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: two_group_half_width(SLD, 0, 10, 0.3, 0.8), "n1 must be an integer >= 1, got n1=0"),
        (lambda: two_group_half_width(SLD, 10, 0, 0.3, 0.8), "n2 must be an integer >= 1, got n2=0"),
        (lambda: two_group_half_width(CDM, 10, 10, 0.2, 1.5), "gamma must be in [0, 1], got gamma=1.5"),
        (lambda: two_group_power(SLD, 0, 10, 0.2, 0.3, 0.8), "n1 must be an integer >= 1, got n1=0"),
        (lambda: two_group_power(SLD, 10, 0, 0.2, 0.3, 0.8), "n2 must be an integer >= 1, got n2=0"),
        (lambda: two_group_power(SLD, 10, 10, 0.2, 0.3, 0.8, alpha=0), "alpha must be in (0, 1), got alpha=0"),
        (lambda: two_group_power(SLD, 10, 10, 0.2, 1.5, 0.8), "pi1: pi must be in [0, 1], got pi=1.5"),
        # t = 1 and pi = 1: every carrier says yes, both rates are 1, the standard error under that pi is 0.
        (
            lambda: two_group_power(SLD, 10, 10, 1.0, 0.5, 1.0),
            "pi0=1.0 or pi1=0.5 makes every answer the same under this design; the test is undefined",
        ),
        (
            lambda: two_group_power(SLD, 10, 10, 0.5, 1.0, 1.0),
            "pi0=0.5 or pi1=1.0 makes every answer the same under this design; the test is undefined",
        ),
        (lambda: two_group_sample_size(SLD, 0, 0.3, 0.8), "half_width must be in (0, 1), got half_width=0"),
        (
            lambda: two_group_sample_size(SLD, 0.05, 0.3, 0.8, group_share=1),
            "group_share must be in (0, 1), got group_share=1",
        ),
        (lambda: two_group_sample_size_for_sequence(CDM, 0), "half_width must be in (0, 1), got half_width=0"),
        (
            lambda: two_group_sample_size_for_sequence(CDM, 0.1, 1),
            "confidence_level must be in (0, 1), got confidence_level=1",
        ),
        (
            lambda: two_group_sample_size_for_sequence(CDM, 0.1, 0.95, 0),
            "group_share must be in (0, 1), got group_share=0",
        ),
        (lambda: two_group_sequence_half_width_for_n(CDM, 0, 10), "n1 must be an integer >= 1, got n1=0"),
        (lambda: two_group_sequence_half_width_for_n(CDM, 10, 0), "n2 must be an integer >= 1, got n2=0"),
        (
            lambda: two_group_sequence_half_width_for_n(CDM, 10, 10, 0),
            "confidence_level must be in (0, 1), got confidence_level=0",
        ),
        (
            lambda: two_group_sequence_half_width_for_n(CDM, 10, 10, rates=(1.5, 0.5)),
            "rates[0] must be in [0, 1], got rates[0]=1.5",
        ),
        (
            lambda: two_group_sequence_half_width_for_n(CDM, 10, 10, rates=(0.5, 1.5)),
            "rates[1] must be in [0, 1], got rates[1]=1.5",
        ),
        (
            lambda: two_group_sequence_half_width_for_n(CDM, 10, 10, rates=5),
            "rates must be a pair of reported-yes rates (group 1, group 2), got rates=5",
        ),
        (lambda: two_group_worst_case("SLD"), "design must be a two-group design, got design='SLD'"),
        (lambda: sequence_half_width_for_n(0), "n must be an integer >= 1, got n=0"),
        (lambda: sequence_half_width_for_n(10, 1.0), "confidence_level must be in (0, 1), got confidence_level=1.0"),
        (lambda: sample_size_for_sequence_half_width(0), "half_width must be in (0, 1), got half_width=0"),
        (
            lambda: sample_size_for_sequence_half_width(0.05, 1.0),
            "confidence_level must be in (0, 1), got confidence_level=1.0",
        ),
        (lambda: option_shares_sample_size(TRIANGULAR, 0), "half_width must be in (0, 1), got half_width=0"),
        (lambda: option_shares_half_width(TRIANGULAR, 0), "n must be an integer >= 1, got n=0"),
        (lambda: option_shares_power(K4, 0, 0.1), "n must be an integer >= 1, got n=0"),
        (lambda: option_shares_power(K4, 100, 1.5), "difference must be in [0, 1], got difference=1.5"),
        (lambda: option_shares_power(K4, 100, 0.1, 0.0), "alpha must be in (0, 1), got alpha=0.0"),
    ],
)
def test_planning_messages_are_exact(call, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        call()


def test_a_single_answer_is_enough_to_plan_every_design():
    """n = 1 (and n1 = n2 = 1) is accepted everywhere: the half-width scales as 1/sqrt(n), so one answer in each
    group is sqrt(1000) times as wide as 1000 (the lie detector's .0569251 above); TRIANGULAR's widest row spans 2,
    so one answer gives z * 2 / 2; k = 4, t = 1/2, d = 1/2: Phi(2 t d - z_.95) = Phi(-1.1448536)."""
    assert_allclose(two_group_half_width(_lie_detector(), 1, 1, 0.3, 0.8), 0.0569251 * math.sqrt(1000), rtol=1e-6)
    assert_allclose(option_shares_half_width(TRIANGULAR, 1), Z95, rtol=1e-12)
    assert_allclose(option_shares_power(K4, 1, 0.5), 0.1261349, rtol=1e-6)
    assert sequence_half_width_for_n(1) > sequence_half_width_for_n(2)
    one = two_group_sequence_half_width_for_n(CDM, 1, 1)
    assert one > two_group_sequence_half_width_for_n(CDM, 2, 1) and one > two_group_sequence_half_width_for_n(CDM, 1, 2)


@pytest.mark.parametrize(("n1", "n2"), [(1000, 1000), (1, 1), (300, 40)])
def test_two_group_power_is_the_formula_with_each_hypothesis_standard_error(n1, n2):
    """Phi((|pi1 - pi0| - z_.95 SE(pi0)) / SE(pi1)), SE(pi) = two_group_half_width at 90% / z_.95; SE(.2) and
    SE(.3) differ, so the two cannot be swapped."""
    design = _lie_detector()
    z = 1.6448536269514722
    se0 = two_group_half_width(design, n1, n2, 0.2, 0.8, confidence_level=0.9) / z
    se1 = two_group_half_width(design, n1, n2, 0.3, 0.8, confidence_level=0.9) / z
    assert abs(se0 - se1) > 1e-3 * se0
    expected = 0.5 * math.erfc(-((0.1 - z * se0) / se1) / math.sqrt(2))
    assert_allclose(two_group_power(design, n1, n2, 0.2, 0.3, 0.8), expected, rtol=1e-12)


@pytest.mark.parametrize(
    ("n", "share", "expected"),
    [(3, 0.1, (1, 2)), (3, 0.9, (2, 1)), (10, 0.3, (3, 7)), (2, 0.5, (1, 1))],
)
def test_group_sizes_keep_one_answer_in_each_group(n, share, expected):
    assert _group_sizes(n, share) == expected


def test_a_degenerate_two_group_plan_needs_one_answer_per_group():
    """Lie detector at pi = 1, t = 1: both rates are 1, A_1 = A_2 = 0, any sizes give width 0; the best share is
    then 1/2 and the plan the smallest, one answer in each group (with any share)."""
    assert two_group_sample_size(SLD, 0.05, 1.0, 1.0) == TwoGroupPlan(1, 1, 2, 0.5, 0.0, 0.95)
    assert two_group_sample_size(SLD, 0.05, 1.0, 1.0, group_share=0.9) == TwoGroupPlan(1, 1, 2, 0.9, 0.0, 0.95)


def test_a_two_group_plan_round_trips_and_keeps_one_answer_in_the_small_group():
    """h = the half-width of 300 + 700 asks for exactly 1000 at share .3 (the width equals h there); at share .1
    and a wide margin round(.1 * 5) = 0, raised to 1."""
    h = two_group_half_width(SLD, 300, 700, 0.3, 0.8)
    plan = two_group_sample_size(SLD, h, 0.3, 0.8, group_share=0.3)
    assert (plan.n1, plan.n2, plan.n, plan.half_width, plan.confidence_level) == (300, 700, 1000, h, 0.95)
    small = two_group_sample_size(SLD, 0.3, 1.0, 0.999, group_share=0.1)
    assert (small.n1, small.n2, small.n) == (1, 4, 5)


@pytest.mark.parametrize(("half_width", "expected"), [(0.05, (3250, 29248, 32498)), (0.17, (282, 2533, 2815))])
def test_a_two_group_plan_starts_at_the_continuous_n_and_counts_up_one_by_one(half_width, expected):
    """Share .1 (far from Neyman's share): n starts at ceil(z^2 (A_1/r + A_2/(1 - r)) / h^2) and grows by 1 until the
    rounded split meets h. At h = .05 a smaller n (32,495) would also meet h by rounding n1 towards Neyman's
    share, but the plan starts at the continuous 32,498; at h = .17 it starts at 2,812 and needs 2,815."""
    plan = two_group_sample_size(SLD, half_width, 0.3, 0.8, group_share=0.1)
    assert (plan.n1, plan.n2, plan.n) == expected


@pytest.mark.parametrize("n", [20, 37, 1000, 5666])
def test_the_sequence_sample_size_round_trips_the_sequence_half_width(n):
    """h = h_seq(n) asks for exactly n: the search takes a width equal to h as narrow enough, whether n is reached
    by doubling (20 = 2 * (fixed n 11 - 1)) or by bisection."""
    assert sample_size_for_sequence_half_width(sequence_half_width_for_n(n)) == n


def test_the_sequence_sample_size_for_a_rare_trait_and_for_a_wide_margin():
    """Direct question, pi = .01, h = .02: the fixed-sample n for pi = .01 is 96, for the worst case 2,401; the
    sequence needs 432, fewer than the worst case's fixed n. At 50% a margin of .42 needs 2 answers
    (h_seq(1) = .4598 > .42 >= h_seq(2) = .4082), one more than the fixed n of 1."""
    assert sample_size_for_half_width(0.02, 0.95, 1, 0, 0, pi=0.01) == 96
    assert sample_size_for_sequence_half_width(0.02, 0.95, 1, 0, 0, pi=0.01) == 432
    assert sample_size_for_half_width(0.42, 0.5, 1, 0, 0) == 1
    assert sample_size_for_sequence_half_width(0.42, 0.5, 1, 0, 0) == 2


def test_the_two_group_sequence_sample_size_at_its_smallest():
    """Cheater detection, 1% confidence, both rates 0: the widths at n = 2, 3, 4 are .9406, .8018, .7422, all
    below 1, so a margin equal to one of them asks for exactly that n, and .95 for the smallest plan, 2."""

    def plan(h):
        return two_group_sample_size_for_sequence(CDM, h, 0.01, 0.5, rates=(0.0, 0.0))

    widths = [
        two_group_sequence_half_width_for_n(CDM, *_group_sizes(n, 0.5), 0.01, rates=(0.0, 0.0)) for n in (2, 3, 4)
    ]
    assert_allclose(widths, [0.9406, 0.8018, 0.7422], atol=1e-4)
    assert [plan(width) for width in widths] == [2, 3, 4]
    assert plan(0.95) == 2


@pytest.mark.parametrize(
    ("exact", "expected"),
    [(1 + 0.5e-9, 1), (1 + 1.5e-9, 2), (400 * (1 + 0.5e-9), 400), (400 * (1 + 2e-9), 401)],
)
def test_option_shares_sample_size_rounding_tolerance_is_relative(exact, expected):
    """As for yes/no: n within 1e-9 * max(1, n) of an integer is that integer. TRIANGULAR's one-answer half-width
    is z * 2 / 2, so h = that / sqrt(exact) asks for `exact` answers (at 50%, z = .674, so that h < 1)."""
    h = option_shares_half_width(TRIANGULAR, 1, 0.5) / math.sqrt(exact)
    assert option_shares_sample_size(TRIANGULAR, h, 0.5) == expected


@pytest.mark.parametrize(("design", "pi"), [(TWO_COINS, None), ((1.0, 0.0, 0.0), 0.01), (DIE, 0.9)])
@pytest.mark.parametrize("level", [0.2, 0.95, 0.999])
def test_the_sequence_half_width_shrinks_with_every_answer(design, pi, level):
    """h_seq(n) decreases in n: the search of sample_size_for_sequence_half_width finds the first n narrow enough
    from any bracket low < n <= high with h_seq(low) > h >= h_seq(high)."""
    ns = [*range(1, 200), *range(200, 20000, 97)]
    widths = [sequence_half_width_for_n(n, level, *design, pi=pi) for n in ns]
    assert all(later < earlier for earlier, later in zip(widths, widths[1:]))


@pytest.mark.parametrize(
    ("half_width", "level", "design", "expected"),
    [(0.99, 0.95, TWO_COINS, 2), (0.95, 0.95, TWO_COINS, 4), (0.4, 0.2, (1.0, 0.0, 0.0), 1)],
)
def test_a_margin_near_one_over_t_is_planned_from_the_first_answer(half_width, level, design, expected):
    """The sequence's rate bounds stay in [0, 1], so its half-width never exceeds 1/(2t) (two coins: h_seq(1) =
    .9992, h_seq(2) = .9832, h_seq(3) = .9511, h_seq(4) = .9147), while the Wald interval's does (1.96 at n = 1):
    for h = .99 the fixed-sample n is 4, yet 2 answers are enough. A search that started at the fixed-sample n
    returned 4 (and 5 for h = .95; 2 for a direct question at 20% where h_seq(1) = .389 <= .4)."""
    n = sample_size_for_sequence_half_width(half_width, level, *design)
    assert n == expected
    assert sequence_half_width_for_n(n, level, *design) <= half_width
    if n > 1:
        assert sequence_half_width_for_n(n - 1, level, *design) > half_width


def test_a_margin_equal_to_the_first_answers_half_width_needs_one_answer():
    """Direct question at 20%: h = h_seq(1) = .389 asks for 1 answer, the fixed-sample n (z = .253): a width
    equal to h is narrow enough, so the search cannot start at 1 as a count known to be too few."""
    h = sequence_half_width_for_n(1, 0.2, 1, 0, 0)
    assert sample_size_for_half_width(h, 0.2, 1, 0, 0) == 1
    assert sample_size_for_sequence_half_width(h, 0.2, 1, 0, 0) == 1


@pytest.mark.parametrize("design", TWO_GROUP_DESIGNS, ids=["cdm", "sld"])
@pytest.mark.parametrize(("share", "rates"), [(0.5, None), (0.3, (0.1, 0.8)), (0.9, (0.0, 1.0))])
def test_the_two_group_sequence_half_width_never_grows_with_another_answer(design, share, rates):
    """Each further answer goes to one group (round(r n) grows by 0 or 1) and narrows that rate's sequence, so
    width(n) never grows: two_group_sample_size_for_sequence may bracket by any factor."""
    widths = [two_group_sequence_half_width_for_n(design, *_group_sizes(n, share), 0.95, rates) for n in range(2, 1200)]
    assert all(later <= earlier for earlier, later in zip(widths, widths[1:]))


def test_matrix_planning_takes_its_worst_case_over_shares_the_design_can_produce():
    """Issue 23, case 5: the plan took its worst case over reported shares the matrix cannot produce. For the
    3 x 3 matrix below (rows: reported option) the largest variance of any option's estimate, by brute force over
    a grid of true shares (step 1/400), is V; the plan is ceil(z^2 V / h^2), fewer answers than Popoviciu's bound
    over every reported share gives (z^2 max_j R_j^2 / (4 h^2): 51,144 at h = 0.01 against 44,984)."""
    design = MisclassificationDesign([["7/10", "1/10", "1/5"], ["1/5", "3/5", "1/10"], ["1/10", "3/10", "7/10"]])
    inverse = np.linalg.inv(design.floats())
    ticks = np.linspace(0, 1, 401)
    grid = np.array([[x, y, 1 - x - y] for x in ticks for y in ticks if x + y <= 1 + 1e-12]).T
    lam = design.floats() @ grid
    worst = ((inverse**2) @ lam - (inverse @ lam) ** 2).max()
    z = stats.norm.ppf(0.975)
    assert option_shares_sample_size(design, 0.01) == pytest.approx(math.ceil(z * z * worst / 1e-4), abs=2)
    popoviciu = math.ceil(z * z * (np.ptp(inverse, axis=1) ** 2 / 4).max() / 1e-4)
    assert (option_shares_sample_size(design, 0.01), popoviciu) == (44984, 51144)


def test_an_excess_equal_to_the_rounding_tolerance_is_taken_as_the_integer():
    """whole_n takes a value within 1e-9 * max(1, exact) of an integer as that integer, the bound included: at
    exact = 1e-9 the tolerance is 1e-9 * max(1, 1e-9) = 1e-9 (the same float), so with least = 0 it is 0 answers;
    2e-9 is past the bound and rounds up to 1."""
    assert whole_n(1e-9, least=0) == 0
    assert whole_n(2e-9, least=0) == 1


def test_first_n_within_doubles_from_low_then_bisects_whole_counts():
    """width(n) = 100 / n, h = 100 / 37: the first n > 5 with width(n) <= h is 37, where width equals h. As the
    docstring says, doubling from low = 5 evaluates 10, 20, 40 (the first at most h), then bisection of (20, 40]
    evaluates 30, 35, 37 (at most h: the new high) and 36: seven evaluations, none past 2 * 37."""
    seen = []

    def width(n):
        seen.append(n)
        return 100 / n

    assert first_n_within(width, 100 / 37, 5) == 37
    assert seen == [10, 20, 40, 30, 35, 37, 36]
