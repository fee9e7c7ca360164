"""Exact values and coverage of analysis.unary: check-all-that-apply shares and the number of options ticked.

Every expected number is derived by hand in the comment next to it; the simulations use fixed seeds and
tolerances from the binomial error of the simulation itself.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose

from analysis.intervals import UPPER
from analysis.numeric_design import UnaryDesign, unary_for_epsilon
from analysis.unary import PatternOnes, option_design, pattern_ones, ticked_count, unary_shares

Z95 = 1.959963984540054  # Phi^{-1}(0.975)
HALF_QUARTER = UnaryDesign(3, Fraction(1, 2), Fraction(1, 4))
SYMMETRIC = UnaryDesign(2, Fraction(3, 4), Fraction(1, 4))


def wilson(y: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's bounds for the rate, written out (Wilson 1927)."""
    centre = (y + z * z / 2) / (n + z * z)
    half = z / (n + z * z) * math.sqrt(y * (n - y) / n + z * z / 4)
    return centre - half, centre + half


def test_option_design_is_forced_response_p_minus_q_q_one_minus_p():
    # A ticked option is sent 1 with p = t + a, one not ticked with q = a: (t, a, b) = (1/4, 1/4, 1/2).
    assert option_design(HALF_QUARTER).exact() == (Fraction(1, 4), Fraction(1, 4), Fraction(1, 2))
    assert option_design(HALF_QUARTER).yes_probabilities() == (Fraction(1, 2), Fraction(1, 4))


def test_shares_by_hand():
    # p = 1/2, q = 1/4, n = 100, ones (30, 50, 20):
    # option 0: lambda .3, raw (.3 - .25)/.25 = .2, SE sqrt(.3 * .7/100)/.25 = .0458258/.25 = .1833030;
    # option 1: lambda .5 = p, raw 1, SE sqrt(.25/100)/.25 = .2;
    # option 2: lambda .2 < q, raw -.2, clipped to 0, SE at lambda = q: sqrt(.1875/100)/.25 = .1732051.
    shares = unary_shares(HALF_QUARTER, 100, (30, 50, 20))
    assert [s.option for s in shares] == [0, 1, 2]
    assert_allclose([s.observed_rate for s in shares], [0.3, 0.5, 0.2])
    assert_allclose([s.estimate_raw for s in shares], [0.2, 1.0, -0.2], atol=1e-15)
    assert_allclose([s.estimate for s in shares], [0.2, 1.0, 0.0], atol=1e-15)
    assert [s.clipped for s in shares] == [False, False, True]
    assert_allclose([s.std_err for s in shares], [0.1833030278, 0.2, 0.1732050808], rtol=1e-9)
    # Option 0's interval: Wilson's bounds for the rate (.2189, .3958) mapped through (lambda - 1/4)/(1/4):
    # (-.1242, .5834), the low end clipped to 0.
    low, high = wilson(30, 100)
    assert (low - 0.25) * 4 < 0
    assert_allclose([shares[0].interval.low, shares[0].interval.high], [0.0, (high - 0.25) * 4])
    assert shares[0].interval.method == "wilson"
    # Option 2's rate lies below q: a one-sided upper bound, never the collapsed [0, 0].
    assert shares[2].interval.side == UPPER
    assert shares[2].interval.low == 0 and shares[2].interval.high > 0


def test_pattern_ones_sums_each_option():
    # "110": 5, "011": 7, "000": 3 -> n 15, ones (5, 12, 7).
    assert pattern_ones({"110": 5, "011": 7, "000": 3}) == pattern_ones({"110": 5, "011": 7, "000": 3}, 3)
    totals = pattern_ones({"110": 5, "011": 7, "000": 3})
    assert (totals.n, totals.ones) == (15, (5, 12, 7))
    assert pattern_ones({}, 4).ones == (0, 0, 0, 0)


def test_ticked_count_by_hand():
    # p = 3/4, q = 1/4, m = 2; "00": 10, "01": 20, "10": 30, "11": 40 -> 1s sent: 0 x10, 1 x50, 2 x40.
    # S_bar = (50 + 80)/100 = 1.3; s2 = (10 * 1.69 + 50 * .09 + 40 * .49)/100 = .41 (floor 2 * 3/16 = .375);
    # raw = (1.3 - 2/4)/(1/2) = 1.6 = the shares' sum (70 -> .9, 60 -> .7);
    # SE = sqrt(.41/100)/.5 = .1280625; interval 1.6 +/- 1.959964 * .1280625 = [1.349002, 1.850998].
    counts = {"00": 10, "01": 20, "10": 30, "11": 40}
    count = ticked_count(SYMMETRIC, 100, counts)
    assert_allclose([count.mean_sent, count.estimate_raw, count.estimate], [1.3, 1.6, 1.6])
    assert_allclose(count.std_err, 0.1280624847, rtol=1e-9)
    assert_allclose([count.low, count.high], [1.6 - Z95 * 0.1280624847, 1.6 + Z95 * 0.1280624847], rtol=1e-9)
    assert not count.clipped and not count.interval_clipped
    totals = pattern_ones(counts)
    shares = unary_shares(SYMMETRIC, totals.n, totals.ones)
    assert_allclose(count.estimate_raw, sum(s.estimate_raw for s in shares))


def test_ticked_count_floor_and_clip():
    # Every answer sends "00": S = 0 always, s2 = 0 -> the floor 2 * 3/16 = .375: SE = sqrt(.375/20)/.5 = .2738613;
    # raw = (0 - .5)/.5 = -1, clipped to 0, interval [0, max(0, -1 + 1.959964 * .2738613)] = [0, 0].
    count = ticked_count(SYMMETRIC, 20, {"00": 20})
    assert_allclose(count.std_err, 0.2738612788, rtol=1e-9)
    assert (count.estimate_raw, count.estimate, count.clipped) == (-1.0, 0.0, True)
    assert (count.low, count.high, count.interval_clipped) == (0.0, 0.0, True)


def test_one_option_count_is_the_share():
    # m = 1: the number ticked is the one option's share, with the same SE (divisor n) inside [q, p].
    design = UnaryDesign(1, Fraction(1, 2), Fraction(1, 4))
    count = ticked_count(design, 80, {"1": 30, "0": 50})
    (share,) = unary_shares(design, 80, (30,))
    assert_allclose([count.estimate_raw, count.std_err], [share.estimate_raw, share.std_err], rtol=1e-12)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: unary_shares(HALF_QUARTER, 0, (0, 0, 0)), "n=0"),
        (lambda: unary_shares(HALF_QUARTER, 10, (1, 2)), "one count per option"),
        (lambda: unary_shares(HALF_QUARTER, 10, (1, 11, 2)), r"ones_per_option\[1\]=11"),
        (lambda: unary_shares(HALF_QUARTER, 10, (1, 2, 3), level=1.0), "level"),
        (lambda: unary_shares((3, 0.5, 0.25), 10, (1, 2, 3)), "UnaryDesign"),
        (lambda: pattern_ones({"012": 1}), "'012'"),
        (lambda: pattern_ones({"01": 1, "011": 2}), "same length"),
        (lambda: pattern_ones({"01": -1}), r"pattern_counts\['01'\]=-1"),
        (lambda: pattern_ones({}), "^pattern_counts is empty: pass options to say how many options there are$"),
        (lambda: pattern_ones({}, 0), r"^options must be an integer >= 1, got options=0$"),
        (lambda: pattern_ones({}, 11), r"^options must be an integer in \[1, 10\], got options=11$"),
        (lambda: pattern_ones({"101": 2}, 4), "must be 4 characters 0 or 1, got pattern '101'"),
        (lambda: ticked_count(SYMMETRIC, 5, {"01": 4}), "n must equal the sum"),
        (lambda: ticked_count(SYMMETRIC, 4, {"011": 4}), "'011'"),
    ],
)
def test_bad_arguments_are_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_ticked_count_takes_one_answer_and_names_a_bad_count_or_level():
    one = ticked_count(SYMMETRIC, 1, {"01": 1}, level=0.9)
    assert (one.n, one.options, one.confidence_level) == (1, 2, 0.9)
    with pytest.raises(ValueError, match=r"^n must be an integer >= 1, got n=0$"):
        ticked_count(SYMMETRIC, 0, {})
    with pytest.raises(ValueError, match=r"^level must be in \(0, 1\), got level=1.0$"):
        ticked_count(SYMMETRIC, 1, {"01": 1}, level=1.0)


def test_ticked_count_floors_the_spread_at_the_least_bit_variance_of_the_design():
    """Every answer sends one 1: no spread, so the standard error rests on the floor m min(p (1 - p), q (1 - q)),
    here 2 x 0.09 for p = 9/10 (q = 1/2 gives 0.25): SE = sqrt(0.18 / 4) / (p - q)."""
    design = UnaryDesign(2, Fraction(9, 10), Fraction(1, 2))
    assert_allclose(ticked_count(design, 4, {"10": 4}).std_err, math.sqrt(0.18 / 4) / 0.4, rtol=1e-12)


@pytest.mark.parametrize(
    ("pattern_counts", "message"),
    [
        ([1], "pattern_counts must map bit strings to counts, got pattern_counts=[1]"),
        ({"012": 1}, "a pattern must be 1 to 10 characters 0 or 1, got pattern '012'"),
        ({5: 1}, "a pattern must be 1 to 10 characters 0 or 1, got pattern 5"),
        ({"0" * 11: 1}, "a pattern must be 1 to 10 characters 0 or 1, got pattern '00000000000'"),
        ({"01": True}, "a pattern's count must be an integer >= 0, got pattern_counts['01']=True"),
    ],
)
def test_a_bad_pattern_or_count_is_refused_with_its_exact_message(pattern_counts, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        pattern_ones(pattern_counts)


def test_a_pattern_kept_with_no_answers_counts_nothing():
    assert pattern_ones({"01": 0, "10": 2}) == PatternOnes(2, (2, 0))


def test_pattern_ones_takes_one_to_ten_options():
    assert pattern_ones({"1": 3, "0": 2}, 1) == PatternOnes(5, (3,))
    assert pattern_ones({}, 10) == PatternOnes(0, (0,) * 10)
    assert pattern_ones({"1" * 10: 4}, 10) == PatternOnes(4, (4,) * 10)


def simulate(design: UnaryDesign, ticks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Bits sent for true ticks (replications x respondents x options): 1 with p if ticked, q if not."""
    chance = np.where(ticks, float(design.p), float(design.q))
    return (rng.random(ticks.shape) < chance).astype(int)


def true_ticks(replications: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Correlated ticks of 3 options: option 0 with chance .1, option 1 .4, option 2 .8 if option 1 else .6."""
    u = rng.random((replications, n, 3))
    first, second = u[..., 0] < 0.1, u[..., 1] < 0.4
    third = u[..., 2] < np.where(second, 0.8, 0.6)
    return np.stack([first, second, third], axis=-1)


@pytest.mark.parametrize("epsilon", [1.0, 3.0])
def test_share_intervals_cover_by_simulation(epsilon):
    # 1,000 samples of 300 respondents; each option's 95% interval should cover its true share
    # (.1, .4, .4 * .8 + .6 * .6 = .68) in about 95% of them: the simulation's own error is
    # sqrt(.95 * .05 / 1000) = .0069, and Wilson's interval is within about .01 of nominal here: allow 4 sigma + .01.
    design = unary_for_epsilon(3, epsilon)
    rng = np.random.default_rng(27 + int(epsilon))
    replications, n = 1000, 300
    bits = simulate(design, true_ticks(replications, n, rng), rng)
    ones = bits.sum(axis=1)
    truth = (0.1, 0.4, 0.68)
    covered = np.zeros(3)
    raw_means = np.zeros(3)
    for row in ones:
        for share in unary_shares(design, n, tuple(int(c) for c in row)):
            covered[share.option] += share.interval.low <= truth[share.option] <= share.interval.high
            raw_means[share.option] += share.estimate_raw / replications
    tolerance = 4 * math.sqrt(0.95 * 0.05 / replications) + 0.01
    assert np.all(np.abs(covered / replications - 0.95) < tolerance), covered / replications
    # Unbiased: the raw estimates' mean within 4 standard errors of the simulation of the truth.
    se = np.array([math.sqrt(design.share_variance(pi) / n / replications) for pi in truth])
    assert np.all(np.abs(raw_means - truth) < 4 * se), (raw_means, truth)


def test_ticked_count_interval_covers_by_simulation():
    # The mean number ticked is .1 + .4 + .68 = 1.18; the 95% Wald interval at n = 300 should cover it in
    # about 95% of 1,000 samples (normal approximation of a mean of 300 bounded values: allow 4 sigma + .01).
    design = unary_for_epsilon(3, 2.0)
    rng = np.random.default_rng(2027)
    replications, n = 1000, 300
    bits = simulate(design, true_ticks(replications, n, rng), rng)
    covered = 0
    for sample in bits:
        patterns, counts = np.unique(["".join(map(str, row)) for row in sample], return_counts=True)
        count = ticked_count(design, n, dict(zip(patterns.tolist(), counts.tolist())))
        covered += count.low <= 1.18 <= count.high
    tolerance = 4 * math.sqrt(0.95 * 0.05 / replications) + 0.01
    assert abs(covered / replications - 0.95) < tolerance, covered / replications


def test_one_answer_and_counts_at_both_ends_are_taken_and_reported():
    """n = 1 and counts of 0 and n are valid; each share reports its n and its count of ones."""
    shares = unary_shares(HALF_QUARTER, 1, (0, 1, 1))
    assert [(s.option, s.n, s.ones) for s in shares] == [(0, 1, 0), (1, 1, 1), (2, 1, 1)]
    shares = unary_shares(HALF_QUARTER, 100, (0, 100, 30))
    assert [(s.n, s.ones) for s in shares] == [(100, 0), (100, 100), (100, 30)]


@pytest.mark.parametrize(
    ("ones", "message"),
    [
        (5, r"^ones_per_option must be a sequence of counts, got 5$"),
        ((True, 2, 3), r"^ones_per_option must be integers in \[0, n=10\], got ones_per_option\[0\]=True$"),
        ((1, 2.0, 3), r"^ones_per_option must be integers in \[0, n=10\], got ones_per_option\[1\]=2.0$"),
    ],
)
def test_counts_that_are_not_whole_numbers_are_refused_with_their_exact_message(ones, message):
    with pytest.raises(ValueError, match=message):
        unary_shares(HALF_QUARTER, 10, ones)


def test_a_bad_level_is_named_level():
    with pytest.raises(ValueError, match=r"^level must"):
        unary_shares(HALF_QUARTER, 10, (1, 2, 3), level=1.0)


def test_an_option_design_keeps_a_difference_with_a_large_denominator():
    """q = 1/999983 (a prime below 10^6) and p = 3/4: t = p - q has denominator 3,999,932, beyond the usual
    limit of 10^6, and is kept exact."""
    q = Fraction(1, 999983)
    assert option_design(UnaryDesign(2, Fraction(3, 4), q)).exact() == (Fraction(3, 4) - q, q, Fraction(1, 4))
