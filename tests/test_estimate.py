"""Exact values of estimate_proportion, pool_estimates and difference.

Every expected number is derived by hand in the comment next to it.
"""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import optimize, stats

from analysis import (
    ConfidenceInterval,
    ProportionEstimate,
    confidence_interval,
    difference,
    estimate_proportion,
    pool_estimates,
)

TWO_COINS = (0.5, 0.25, 0.25)
DIE = (2 / 3, 1 / 6, 1 / 6)
ASYMMETRIC = (0.7, 0.2, 0.1)
Z95 = 1.959963984540054  # Phi^{-1}(0.975)


def test_two_coins_by_hand():
    # y=30, n=100, two coins: lambda=.3, pi=(.3-.25)/.5=.1,
    # SE_pop = sqrt(.3*.7/(100*.25)) = sqrt(.0084) = 0.0916515,
    # SE_cond = sqrt(3/(4*100)) = 0.0866025 (both terms .75*.25 = .25*.75 = 3/16).
    e = estimate_proportion(30, 100)
    assert (e.n, e.yes_count, e.t, e.a, e.b) == (100, 30, 0.5, 0.25, 0.25)
    assert_allclose(e.observed_rate, 0.3)
    assert_allclose([e.estimate_raw, e.estimate], [0.1, 0.1])
    assert not e.clipped
    assert_allclose(e.std_err_population, 0.0916515139, rtol=1e-9)
    assert_allclose(e.std_err_conditional, 0.0866025404, rtol=1e-9)
    assert e.std_err == e.std_err_population


def test_die_design_by_hand():
    # Die: truthful on 1-4 (t=2/3), yes on 5, no on 6 (a=b=1/6).
    # y=50, n=150: lambda=1/3, pi=(1/3-1/6)/(2/3)=0.25,
    # SE_pop = sqrt((1/3)(2/3)/(150*4/9)) = sqrt(1/300) = 0.0577350,
    # SE_cond: (t+a)(1-t-a) = (5/6)(1/6) = a(1-a) = 5/36, so
    # sqrt((5/36)/(150*4/9)) = sqrt(1/480) = 0.0456435.
    e = estimate_proportion(50, 150, *DIE)
    assert_allclose(e.estimate, 0.25, rtol=1e-12)
    assert_allclose(e.std_err_population, 0.0577350269, rtol=1e-9)
    assert_allclose(e.std_err_conditional, 0.0456435465, rtol=1e-9)
    assert_allclose(e.epsilon, math.log(5))  # (2/3+1/6)/(1/6) = 5


def test_asymmetric_design_by_hand():
    # t=.7, a=.2, b=.1; y=41, n=100: lambda=.41, pi=(.41-.2)/.7=.3,
    # SE_pop = sqrt(.41*.59/(100*.49)) = sqrt(.2419/49) = 0.0702619,
    # SE_cond: p=.3: .3*(.9*.1) + .7*(.2*.8) = .027+.112 = .139,
    # sqrt(.139/49) = 0.0532610.
    e = estimate_proportion(41, 100, *ASYMMETRIC)
    assert_allclose(e.estimate, 0.3, rtol=1e-12)
    assert_allclose(e.std_err_population, 0.0702619007, rtol=1e-9)
    assert_allclose(e.std_err_conditional, 0.0532610054, rtol=1e-9)
    assert_allclose(e.epsilon, math.log(8))  # max(.9/.2, .8/.1) = 8


@pytest.mark.parametrize(
    ("yes_count", "raw", "estimate", "clipped"),
    [
        (0, -0.5, 0.0, True),  # (0 - .25)/.5
        (10, -0.3, 0.0, True),  # (.1 - .25)/.5
        (25, 0.0, 0.0, False),  # exactly the forced-yes rate
        (75, 1.0, 1.0, False),  # (.75 - .25)/.5
        (100, 1.5, 1.0, True),  # (1 - .25)/.5
    ],
)
def test_clipping(yes_count, raw, estimate, clipped):
    e = estimate_proportion(yes_count, 100)
    assert_allclose([e.estimate_raw, e.estimate], [raw, estimate], atol=1e-15)
    assert e.clipped is clipped


@pytest.mark.parametrize("yes_count", [0, 10, 100])
def test_standard_error_uses_clamped_rate(yes_count):
    # Clipped to 0 or 1, lam_c = .25 or .75: SE = sqrt(.25*.75/(100*.25)) =
    # sqrt(.0075) = 0.0866025, not sqrt(.1*.9/25) = .06 for y=10, nor 0 for y=0.
    e = estimate_proportion(yes_count, 100)
    assert_allclose(e.std_err_population, 0.0866025404, rtol=1e-9)


def test_zero_forced_yes_gives_zero_standard_error_at_zero():
    # a=0: a reported yes is a true yes; y=0 means lambda=0 and SE 0.
    e = estimate_proportion(0, 50, 0.8, 0.0, 0.2)
    assert e.std_err_population == 0.0
    assert e.epsilon == math.inf  # a=0: a yes reveals the true answer


def test_confidence_interval_method_delegates():
    e = estimate_proportion(41, 100, *ASYMMETRIC)
    for method in ("wilson", "clopper-pearson", "wald"):
        assert e.confidence_interval(0.9, method) == confidence_interval(41, 100, *ASYMMETRIC, 0.9, method)
    default = e.confidence_interval()
    assert isinstance(default, ConfidenceInterval)
    assert (default.method, default.confidence_level) == ("wilson", 0.95)


def test_estimate_is_frozen():
    e = estimate_proportion(30, 100)
    with pytest.raises(dataclasses.FrozenInstanceError):
        e.estimate = 0.5  # type: ignore[misc]


def test_float_design_from_fractions_and_exact_equivalent():
    # 2/3 as a float is read as the fraction 2/3; the design module's strings work too.
    assert estimate_proportion(50, 150, 2 / 3, 1 / 6, 1 / 6) == estimate_proportion(50, 150, "2/3", "1/6", "1/6")


@pytest.mark.parametrize(
    ("kwargs", "shown"),
    [
        ({"yes_count": -1, "n": 10}, "yes_count=-1"),
        ({"yes_count": 11, "n": 10}, "yes_count=11"),
        ({"yes_count": 2.0, "n": 10}, "yes_count=2.0"),
        ({"yes_count": True, "n": 10}, "yes_count=True"),
        ({"yes_count": 0, "n": 0}, "n must be an integer >= 1, got n=0"),
        ({"yes_count": 0, "n": -1}, "n must be an integer >= 1, got n=-1"),
        ({"yes_count": 1, "n": 10.0}, "n=10.0"),
        ({"yes_count": 1, "n": "10"}, "n='10'"),
        ({"yes_count": 1, "n": 10, "t": 0.0, "a": 0.5, "b": 0.5}, "t=0.0"),
        ({"yes_count": 1, "n": 10, "t": 0.5, "a": -0.25, "b": 0.75}, "a=-0.25"),
        ({"yes_count": 1, "n": 10, "t": 0.5, "a": 0.25, "b": 0.3}, "b=0.3"),
        ({"yes_count": 1, "n": 10, "t": math.nan, "a": 0.25, "b": 0.25}, "t=nan"),
        ({"yes_count": 1, "n": 10, "t": 0.1234567, "a": 0.5, "b": 0.3765433}, "t=0.1234567"),
    ],
)
def test_bad_arguments_raise_naming_the_value(kwargs, shown):
    with pytest.raises(ValueError, match=re.escape(shown)):
        estimate_proportion(**kwargs)


# --------------------------------------------------------------------------
# Pooling


def _joint_mle(parts):
    """The maximiser of the joint binomial log-likelihood, found by scipy (independent of pool_estimates)."""

    def minus_log_likelihood(pi):
        return -sum(stats.binom.logpmf(y, n, a + t * pi) for y, n, t, a in parts)

    found = optimize.minimize_scalar(minus_log_likelihood, bounds=(0, 1), method="bounded", options={"xatol": 1e-12})
    return found.x


def test_pool_two_designs_is_the_joint_maximum_likelihood():
    # Two coins y=30, n=100 (raw .1) and die y=50, n=150 (raw .25). The pooled estimate is the
    # pi maximising sum log Binom(y_i; n_i, a_i + t_i pi): the weighted mean of the raw estimates
    # with weights n t^2 / (lam (1 - lam)) taken at that pi. Own-variance weights
    # (119.047619 and 300) would give 0.2073864 instead.
    pooled = pool_estimates([estimate_proportion(30, 100), estimate_proportion(50, 150, *DIE)])
    mle = _joint_mle([(30, 100, 0.5, 0.25), (50, 150, 2 / 3, 1 / 6)])
    assert pooled.n == 250
    assert_allclose(pooled.estimate_raw, mle, atol=1e-9)
    assert_allclose(pooled.estimate_raw, 0.2112374, atol=1e-7)
    lam1, lam2 = 0.25 + 0.5 * mle, 1 / 6 + 2 / 3 * mle
    w1, w2 = 100 * 0.25 / (lam1 * (1 - lam1)), 150 * (4 / 9) / (lam2 * (1 - lam2))
    assert_allclose(pooled.estimate_raw, (w1 * 0.1 + w2 * 0.25) / (w1 + w2), atol=1e-9)
    assert_allclose(pooled.std_err, math.sqrt(1 / (w1 + w2)), rtol=1e-7)
    assert_allclose(pooled.weights, [w1 / (w1 + w2), w2 / (w1 + w2)], rtol=1e-7)
    assert_allclose(pooled.estimate, pooled.estimate_raw)
    assert not pooled.clipped
    ci = pooled.confidence_interval()
    assert_allclose([ci.low, ci.high], [mle - Z95 * pooled.std_err, mle + Z95 * pooled.std_err], rtol=1e-7)
    assert (ci.method, ci.confidence_level) == ("wald", 0.95)


def test_pool_of_one_is_the_estimate():
    e = estimate_proportion(41, 100, *ASYMMETRIC)
    pooled = pool_estimates([e])
    assert_allclose([pooled.estimate, pooled.std_err], [e.estimate, e.std_err])
    assert pooled.weights == (1.0,)


def test_pool_averages_raw_not_clipped_estimates():
    # Two coins, y=20 and y=24 of 100: raw -.1 and -.02, both clipped to 0. Same design and n,
    # so equal weights at any common pi: pooled raw -.06, reported 0.
    pooled = pool_estimates([estimate_proportion(20, 100), estimate_proportion(24, 100)])
    assert_allclose(pooled.estimate_raw, -0.06, rtol=1e-9)
    assert pooled.estimate == 0.0
    assert pooled.clipped


def _score_root(raws, variance):
    """The root of sum_i (raw_i - pi) / variance(i, pi), by scipy's brentq."""
    return optimize.brentq(
        lambda pi: sum((raw - pi) / variance(i, pi) for i, raw in enumerate(raws)), min(raws), max(raws), xtol=1e-15
    )


def test_pool_zero_standard_error_falls_back():
    # a=0, y=0, n=50, t=.8: raw 0, SE 0; two coins y=30, n=100: raw .1. The a=0 part's
    # lam = .8 pi is kept >= 1/(2n) = .01 so that its weight stays finite; the pooled estimate is
    # the root of sum (raw_i - pi) / var_i(pi): 3232.32 pi = w2(pi) (.1 - pi), pi ~ .0039.
    zero = estimate_proportion(0, 50, 0.8, 0.0, 0.2)
    pooled = pool_estimates([zero, estimate_proportion(30, 100)])

    def variance(i, pi):
        lam = max(0.8 * pi, 0.01) if i == 0 else 0.25 + 0.5 * pi
        return lam * (1 - lam) / ((50, 100)[i] * (0.64, 0.25)[i])

    root = _score_root([0.0, 0.1], variance)
    assert_allclose(root, 0.0039, atol=1e-4)
    assert_allclose(pooled.estimate_raw, root, atol=1e-12)
    assert_allclose(pooled.std_err, math.sqrt(1 / (1 / variance(0, root) + 1 / variance(1, root))), rtol=1e-9)


def test_pool_zero_standard_error_at_one_falls_back():
    # b=0, every answer yes: t=1/4, a=3/4, y=n=40, raw 1, SE 0; two coins y=30, n=100, raw .1.
    # Weights stay finite (lam = .75 + .25 pi reaches 1 only at pi = 1, where it is moved to 79/80),
    # and the pooled estimate is the joint maximum-likelihood estimate.
    all_yes = estimate_proportion(40, 40, 0.25, 0.75, 0.0)
    assert all_yes.std_err_population == 0.0
    pooled = pool_estimates([all_yes, estimate_proportion(30, 100)])
    assert_allclose(pooled.estimate_raw, _joint_mle([(40, 40, 0.25, 0.75), (30, 100, 0.5, 0.25)]), atol=1e-6)
    assert math.isfinite(pooled.std_err) and pooled.std_err > 0
    assert 0.1 < pooled.estimate_raw < 1


def test_pool_of_an_all_yes_answer_set_with_b_zero_keeps_half_an_answer():
    # b=0, t=1/4, a=3/4, y=n=40: raw 1, lam 1 at pi = 1, moved to 1 - 1/(2n) = 79/80:
    # var = (79/80)(1/80) / (40/16) = .0049375.
    pooled = pool_estimates([estimate_proportion(40, 40, 0.25, 0.75, 0.0)])
    assert pooled.estimate_raw == 1.0
    assert_allclose(pooled.std_err**2, (79 / 80) * (1 / 80) / (40 / 16), rtol=1e-12)


def test_pool_leaves_lam_alone_when_b_is_small_but_not_zero():
    # b=1/10^6 < 1/(2n) = .05: lam at pi = 1 is a + t = 1 - 10^-6, used as is (only b = 0 is moved):
    # var = (1 - 1e-6) 1e-6 / (10 t^2), t = 1/2 - 1e-6.
    t = 0.5 - 1e-6
    pooled = pool_estimates([estimate_proportion(10, 10, t, 0.5, 1e-6)])
    assert_allclose(pooled.std_err**2, (1 - 1e-6) * 1e-6 / (10 * t * t), rtol=1e-9)


def test_pool_returns_an_exact_root_as_it_is():
    """Two coins y=3 and y=1 of 8 (raw .25 and -.25, equal weights for every pi <= 0) and the a=0 design
    (t .8, b .2) with y=0 of 50 (raw 0, lam kept at 1/(2n)): the score is exactly 0 at pi = 0, the first
    midpoint. It is returned as it is: not a tiny negative number flagged as clipped."""
    pooled = pool_estimates(
        [estimate_proportion(3, 8), estimate_proportion(1, 8), estimate_proportion(0, 50, 0.8, 0, 0.2)]
    )
    assert pooled.estimate_raw == 0.0
    assert pooled.estimate == 0.0 and pooled.clipped is False
    # Two coins, y = 20 and 30 of 100 (raw -0.1 and 0.1 to the same float, equal weights at pi = 0):
    # the first midpoint 0.0 is an exact root; bisecting on past it would end near -7e-18.
    symmetric = pool_estimates([estimate_proportion(20, 100), estimate_proportion(30, 100)])
    assert symmetric.estimate_raw == 0.0


def test_pool_keeps_a_positive_standard_error_below_half_an_answer():
    # t=.5, a=.001, y=0, n=100: raw -.002, clipped 0, lam_c = .001 < 1/(2n) = .005 but not 0,
    # so it is used as is: var = .001*.999/(100*.25) = 3.996e-5, not .005*.995/25 = 1.99e-4.
    e = estimate_proportion(0, 100, 0.5, 0.001, 0.499)
    pooled = pool_estimates([e])
    assert_allclose(pooled.std_err**2, 3.996e-5, rtol=1e-12)
    assert_allclose(pooled.estimate_raw, -0.002, rtol=1e-12)


def test_pool_is_clipped_above_one():
    # Two coins, y=100 and y=90 of 100: raw 1.5 and 1.3, both clamped to lam_c = .75,
    # equal weights: pooled raw 1.4, reported 1.
    pooled = pool_estimates([estimate_proportion(100, 100), estimate_proportion(90, 100)])
    assert_allclose(pooled.estimate_raw, 1.4)
    # Weights at pi clipped to 1 (lam .75, var .1875/25 = .0075 each), not at 1.4 (lam .95):
    # SE = sqrt(.0075 / 2).
    assert_allclose(pooled.std_err, math.sqrt(0.00375), rtol=1e-12)
    assert pooled.estimate == 1.0
    assert pooled.clipped
    assert pooled.confidence_interval().high == 1.0


def test_pooled_interval_carries_the_level():
    # Two coins y=30/100: SE .0916515; 80%: z = 1.2815516, .1 +/- .1174560.
    pooled = pool_estimates([estimate_proportion(30, 100)])
    ci = pooled.confidence_interval(0.8)
    z = stats.norm.ppf(0.9)
    assert_allclose([ci.low, ci.high], [0.0, 0.1 + z * math.sqrt(0.0084)])
    assert_allclose(ci.high, 0.2174560, rtol=1e-6)
    assert ci.confidence_level == 0.8


@pytest.mark.parametrize(
    ("estimates", "shown"),
    [
        ([], "estimates must hold at least one ProportionEstimate, got none"),
        ([0.3], "estimates must be ProportionEstimate objects, got estimates[0]=0.3"),
        (5, "estimates must be a sequence of ProportionEstimate, got 5"),
    ],
)
def test_pool_bad_arguments(estimates, shown):
    with pytest.raises(ValueError, match=f"^{re.escape(shown)}$"):
        pool_estimates(estimates)


# --------------------------------------------------------------------------
# Differences


def test_difference_by_hand():
    # Group 1: two coins y=60, n=100: lambda=.6, raw=.7, var=.24/25=.0096.
    # Group 2: two coins y=30, n=100: raw=.1, var=.0084.
    # d=.6, SE=sqrt(.018)=0.1341641, Wald: .6 +/- 1.959964*.1341641
    # = .6 +/- .2629568 = [.3370432, .8629568].
    d = difference(estimate_proportion(60, 100), estimate_proportion(30, 100))
    assert_allclose(d.estimate, 0.6, rtol=1e-12)
    assert_allclose(d.std_err, math.sqrt(0.018), rtol=1e-12)
    assert_allclose([d.ci.low, d.ci.high], [0.6 - Z95 * math.sqrt(0.018), 0.6 + Z95 * math.sqrt(0.018)])
    assert_allclose([d.ci.low, d.ci.high], [0.3370432, 0.8629568], rtol=1e-6)
    assert (d.ci.method, d.ci.confidence_level) == ("wald", 0.95)


def test_difference_keeps_both_raw_estimates():
    # Group 1: y=100/100 two coins, raw 1.5 (reported 1); group 2: die y=50/150, raw .25.
    first, second = estimate_proportion(100, 100), estimate_proportion(50, 150, *DIE)
    d = difference(first, second)
    assert (d.first_raw, d.second_raw) == (1.5, first.estimate_raw - d.estimate)
    assert_allclose(d.second_raw, 0.25, rtol=1e-12)


def test_difference_is_clipped_to_minus_one_one():
    # raw 1.5 - (-.5) = 2 for y=100 vs y=0: interval clipped to [-1, 1].
    d = difference(estimate_proportion(100, 100), estimate_proportion(0, 100))
    assert_allclose(d.estimate, 2.0)
    assert -1 <= d.ci.low <= d.ci.high <= 1
    assert d.ci.high == 1.0


def test_difference_is_clipped_below_minus_one():
    # raw -.5 - 1.5 = -2 for y=0 vs y=100; SE = sqrt(2 * .0075) = .1224745, so
    # -2 +/- .24 lies wholly below -1 and is clipped to [-1, -1].
    d = difference(estimate_proportion(0, 100), estimate_proportion(100, 100))
    assert_allclose(d.estimate, -2.0)
    assert (d.ci.low, d.ci.high) == (-1.0, -1.0)


def test_difference_across_designs_and_levels():
    # Two coins y=30/100 (raw .1, var .0084) minus die y=50/150 (raw .25, var 1/300):
    # d=-.15, SE=sqrt(.0084+.0033333)=0.1083205; 90%: z=1.6448536,
    # z*SE = .1781714: [-.3281714, .0281714].
    d = difference(estimate_proportion(30, 100), estimate_proportion(50, 150, *DIE), 0.9)
    assert_allclose([d.estimate, d.std_err], [-0.15, 0.1083205], rtol=1e-6)
    assert_allclose([d.ci.low, d.ci.high], [-0.3281714, 0.0281714], rtol=1e-5)


@pytest.mark.parametrize("level", [0, 1, 1.5, -0.1, math.nan])
def test_difference_bad_level(level):
    e = estimate_proportion(30, 100)
    with pytest.raises(ValueError, match=f"confidence_level={level!r}"):
        difference(e, e, level)


def test_difference_requires_estimates():
    with pytest.raises(ValueError, match="second must be a ProportionEstimate, got second=0.1"):
        difference(estimate_proportion(30, 100), 0.1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="first must be a ProportionEstimate, got first=0.1"):
        difference(0.1, estimate_proportion(30, 100))  # type: ignore[arg-type]


def test_a_single_answer_is_enough():
    # n=1, y=1: lambda=1, raw (1 - .25)/.5 = 1.5, clipped to 1; lam_c=.75,
    # SE = sqrt(.1875/.25) = .8660254.
    e = estimate_proportion(1, 1)
    assert (e.estimate_raw, e.estimate, e.clipped) == (1.5, 1.0, True)
    assert_allclose(e.std_err, math.sqrt(0.75))


def test_a_float_within_rounding_of_a_fraction_is_that_fraction():
    # a = 1e-12 is within the 1e-12 tolerance of 0, so (3/4, 1e-12, 1/4) is the
    # design (3/4, 0, 1/4); 1e-11 is not, and its decimal form needs 10^11.
    assert estimate_proportion(30, 100, 0.75, 1e-12, 0.25) == estimate_proportion(30, 100, 0.75, 0.0, 0.25)
    with pytest.raises(ValueError, match=re.escape("a=1e-11")):
        estimate_proportion(30, 100, 0.75, 1e-11, 0.25)


def test_result_types():
    assert isinstance(estimate_proportion(1, 2), ProportionEstimate)


def _own_variance_pool(estimates):
    """The old pooling, kept here to show its bias: each raw estimate weighted by its *own* variance."""
    weights = [1 / e.std_err_population**2 for e in estimates]
    return sum(w * e.estimate_raw for w, e in zip(weights, estimates, strict=True)) / sum(weights)


def test_pooling_is_unbiased_where_own_weights_are_not():
    """Seeded simulation: two coins and a die, 50 answers each, pi = .1 (issue 10).

    R = 20,000 surveys. The tolerance is 4 standard errors of the simulation itself,
    ``4 * sd(pooled) / sqrt(R)`` (about .002 here): a mean within it is consistent with no bias,
    one outside it is a bias the simulation has detected. Weights from each part's own
    variance are biased low by about .005 (10 such standard errors); weights at the common
    estimate are not (exact enumeration over all 51 x 51 outcomes gives -1e-5).
    """
    rng = np.random.default_rng(20241110)
    pi, n, repeats = 0.1, 50, 20_000
    designs = (TWO_COINS, DIE)
    counts = [rng.binomial(n, a + t * pi, size=repeats) for t, a, _ in designs]
    estimates = [[estimate_proportion(y, n, *design) for y in range(n + 1)] for design in designs]
    new, old = {}, {}
    for y1, y2 in set(zip(*counts, strict=True)):
        pair = [estimates[0][y1], estimates[1][y2]]
        new[y1, y2] = pool_estimates(pair).estimate_raw
        old[y1, y2] = _own_variance_pool(pair)
    for pooled, biased in ((new, False), (old, True)):
        values = np.array([pooled[y1, y2] for y1, y2 in zip(*counts, strict=True)])
        bias, sim_se = values.mean() - pi, values.std(ddof=1) / math.sqrt(repeats)
        assert bool(bias < -4 * sim_se) is biased, (bias, sim_se)
        assert abs(bias) < 4 * sim_se or biased


@pytest.mark.parametrize(
    ("design", "shown"),
    [
        (("x", "1/4", "1/4"), ": t must be a number such as 0.25 or 1/4, got 'x'"),
        (("1/2", "x", "1/4"), ": a must be a number such as 0.25 or 1/4, got 'x'"),
        (("1/2", "1/4", "x"), ": b must be a number such as 0.25 or 1/4, got 'x'"),
        ((0.5, 0.2500000001, 0.25), ": a=0.2500000001 needs a denominator above 1000000"),
    ],
)
def test_a_bad_design_parameter_is_named(design, shown):
    with pytest.raises(ValueError, match=re.escape(shown)):
        estimate_proportion(30, 100, *design)
