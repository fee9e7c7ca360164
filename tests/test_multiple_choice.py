"""Exact values of estimate_multiple_choice and project_to_simplex."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose

from analysis import (
    MultipleChoiceDesign,
    confidence_interval,
    estimate_multiple_choice,
    estimate_proportion,
    project_to_simplex,
)


def test_four_options_by_hand():
    # k=4, t=1/2, counts (10, 20, 30, 40), n=100: (1-t)/k = 1/8, so
    # pi_raw = (lambda - 1/8)/(1/2) = 2 lambda - 1/4 = (-.05, .15, .35, .55).
    # SE_j = sqrt(lam_c (1 - lam_c)/(100 * 1/4)), lam_c = 1/8 + clip(pi_raw_j, 0, 1)/2:
    # option 0 is clipped, lam_c = 1/8: sqrt(.109375/25) = .0661438 (the observed .1 would give .06);
    # sqrt(.16/25)=.08, sqrt(.21/25)=.0916515, sqrt(.24/25)=.0979796.
    e = estimate_multiple_choice([10, 20, 30, 40], 0.5)
    assert (e.n, e.k, e.t, e.counts) == (100, 4, 0.5, (10, 20, 30, 40))
    assert_allclose(e.observed, [0.1, 0.2, 0.3, 0.4])
    assert_allclose(e.estimate_raw, [-0.05, 0.15, 0.35, 0.55], atol=1e-15)
    assert_allclose(sum(e.estimate_raw), 1.0)
    assert_allclose(e.std_err, [0.0661437828, 0.08, 0.0916515139, 0.0979795897], rtol=1e-9)
    # Projection: sorted u = (.55, .35, .15, -.05); cumsum - 1 = (-.45, -.1, .05, 0);
    # u_j - (cumsum_j - 1)/j = (1, .4, .1333, -.05) -> rho = 3, theta = .05/3,
    # w = (0, .15 - 1/60, .35 - 1/60, .55 - 1/60) = (0, .1333333, .3333333, .5333333).
    assert_allclose(e.estimate_projected, [0, 2 / 15, 1 / 3, 8 / 15], atol=1e-15)
    # epsilon = ln((1/2 + 1/8)/(1/8)) = ln 5.
    assert_allclose(e.epsilon, math.log(5))


def test_covariance_by_hand():
    # Cov = (diag(lambda) - lambda lambda^T)/(n t^2) = (...)/25:
    # Cov[0, 1] = -.1*.2/25 = -.0008, Cov[2, 2] = .3*.7/25 = .0084.
    e = estimate_multiple_choice([10, 20, 30, 40], 0.5)
    cov = e.covariance()
    assert cov.shape == (4, 4)
    assert_allclose(cov[0, 1], -0.0008)
    assert_allclose(cov[2, 2], 0.0084)
    assert_allclose(cov, cov.T)
    # The standard errors are its diagonal except where the share was clamped (option 0).
    assert_allclose(np.sqrt(np.diag(cov))[1:], e.std_err[1:])
    assert_allclose(np.sqrt(cov[0, 0]), 0.06)
    # The raw estimates sum to 1 exactly, so every row of Cov sums to 0.
    assert_allclose(cov.sum(axis=1), 0, atol=1e-17)


def test_intervals_are_the_binary_intervals_for_each_option():
    # Option j: forced-response design with t=1/2, a=1/8, b=3/8.
    e = estimate_multiple_choice([10, 20, 30, 40], 0.5)
    for method in ("wilson", "clopper-pearson", "wald"):
        cis = e.confidence_intervals(0.9, method)
        assert len(cis) == 4
        for count, ci in zip(e.counts, cis):
            assert ci == confidence_interval(count, 100, 0.5, 0.125, 0.375, 0.9, method)
    assert e.confidence_intervals()[1].method == "wilson"
    assert e.confidence_intervals()[0].method == "clopper-pearson-cls"  # 10% < a = 12.5%: the one-sided bound


def test_two_options_with_half_truthful_is_two_coins():
    # k=2, t=1/2: (1-t)/k = 1/4 = a = b, the two-coin design.
    e = estimate_multiple_choice([30, 70], 0.5)
    binary = estimate_proportion(30, 100)
    assert_allclose(e.estimate_raw[0], binary.estimate_raw)
    assert_allclose(e.std_err[0], binary.std_err_population)
    assert e.confidence_intervals()[0] == binary.confidence_interval()
    assert_allclose(e.epsilon, math.log(3))


def test_die_like_three_options_fraction_t():
    # k=3, t=2/3: (1-t)/k = 1/9; counts (20, 30, 40), n=90:
    # pi_raw = (lambda - 1/9)*3/2 = ((2/9 - 1/9)*1.5, (1/3-1/9)*1.5, (4/9-1/9)*1.5)
    # = (1/6, 1/3, 1/2); epsilon = ln((2/3+1/9)/(1/9)) = ln 7.
    e = estimate_multiple_choice([20, 30, 40], 2 / 3)
    assert_allclose(e.estimate_raw, [1 / 6, 1 / 3, 1 / 2])
    assert_allclose(e.estimate_projected, [1 / 6, 1 / 3, 1 / 2])
    assert_allclose(e.epsilon, math.log(7))
    assert e.epsilon == pytest.approx(MultipleChoiceDesign(3, "2/3").epsilon)
    assert all(0 <= ci.low <= ci.high <= 1 for ci in e.confidence_intervals())


def test_zero_count_option():
    # counts (0, 50, 50), t=1/2, k=3: pi_raw_0 = (0 - 1/6)*2 = -1/3. The observed lambda=0
    # would give SE 0; clamped as for yes/no, lam_c = 1/6: SE = sqrt((1/6)(5/6)/(100/4)) = .0745356.
    # Its interval (design a=1/6, b=1/3) has width too.
    e = estimate_multiple_choice([0, 50, 50], 0.5)
    assert_allclose(e.estimate_raw, [-1 / 3, 2 / 3, 2 / 3])
    assert_allclose(e.std_err[0], 0.0745355992, rtol=1e-9)
    assert_allclose(e.estimate_projected, [0, 0.5, 0.5])
    assert e.confidence_intervals(method="wald")[0].high > 0


def test_a_single_answer_is_enough():
    # counts (1, 0), t=1/2, k=2: lambda=(1, 0), raw = 2*lambda - 1/2 = (1.5, -.5),
    # projected (1, 0); clamped lam_c = (.75, .25), so both SE = sqrt(.1875/(1 * 1/4)) = .8660254
    # (the observed lambda (1 - lambda) = 0 would give 0).
    e = estimate_multiple_choice([1, 0], 0.5)
    assert (e.n, e.estimate_raw, e.estimate_projected) == (1, (1.5, -0.5), (1.0, 0.0))
    assert_allclose(e.std_err, [math.sqrt(0.75), math.sqrt(0.75)])


def test_default_is_half_truthful():
    assert estimate_multiple_choice([10, 20, 30, 40]) == estimate_multiple_choice([10, 20, 30, 40], 0.5)


def test_result_is_hashable():
    e = estimate_multiple_choice([10, 20, 30, 40], 0.5)
    assert hash(e) == hash(estimate_multiple_choice((10, 20, 30, 40), 0.5))
    assert all(isinstance(x, float) for x in e.estimate_projected)


@pytest.mark.parametrize(
    ("counts", "t", "shown"),
    [
        ([5], 0.5, "counts=(5,)"),
        ([], 0.5, "counts=()"),
        ([0, 0], 0.5, "counts=(0, 0)"),
        ([-1, 3], 0.5, "counts[0]=-1"),
        ([1, 2.5], 0.5, "counts[1]=2.5"),
        ([True, 2], 0.5, "counts[0]=True"),
        (7, 0.5, "counts=7"),
        ([1, 2], 0.0, "t=0.0"),
        ([1, 2], 1.5, "t=1.5"),
        ([1, 2], math.nan, "t=nan"),
        ([1, 2], "x", "t='x'"),
    ],
)
def test_bad_arguments(counts, t, shown):
    with pytest.raises(ValueError, match=re.escape(shown)):
        estimate_multiple_choice(counts, t)


# --------------------------------------------------------------------------
# Projection onto the simplex


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([0.2, 0.3, 0.5], [0.2, 0.3, 0.5]),  # already on the simplex
        ([0.5, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]),  # theta = (1.5 - 1)/3
        ([-0.1, 0.5, 0.7], [0.0, 0.4, 0.6]),  # rho = 2, theta = (1.2 - 1)/2 = .1
        ([2.0, 0.0], [1.0, 0.0]),  # rho = 1, theta = 1
        ([-1.0, -2.0], [1.0, 0.0]),  # u - (cumsum - 1)/j = (1, 0): rho = 1, theta = -2
        ([0.3], [1.0]),
    ],
)
def test_projection_by_hand(values, expected):
    assert_allclose(project_to_simplex(values), expected, atol=1e-15)


def test_projection_takes_exact_fractions():
    # Design shares are Fractions; (1/2, 3/2): rho = 1, theta = 1/2, w = (0, 1).
    w = project_to_simplex([Fraction(1, 2), Fraction(3, 2)])
    assert w.dtype == float
    assert_allclose(w, [0.0, 1.0])


def test_projection_is_the_closest_simplex_point():
    # Against 2000 random points of the simplex, the projection is never farther.
    rng = np.random.default_rng(1234)
    for _ in range(20):
        v = rng.normal(0.25, 0.4, size=5)
        w = project_to_simplex(v)
        assert np.all(w >= 0) and math.isclose(w.sum(), 1.0)
        candidates = rng.dirichlet(np.ones(5), size=100)
        assert np.all(np.linalg.norm(candidates - v, axis=1) >= np.linalg.norm(w - v) - 1e-12)


@pytest.mark.parametrize("values", [[], [[0.1, 0.9]], [0.5, math.nan], [math.inf, 0.0]])
def test_projection_bad_input(values):
    with pytest.raises(ValueError, match=re.escape(repr(values))):
        project_to_simplex(values)


def test_a_t_whose_forced_share_needs_a_larger_denominator_is_estimated():
    # t = 0.654321, k = 3: (1 - t)/3 = 345679/3000000, a denominator above 10^6 (issue 10:
    # "t + a + b must equal 1" took every results page down). The marginal stays exact.
    design = MultipleChoiceDesign(3, "0.654321")
    marginal = design.option_marginal()
    assert marginal.exact() == (Fraction(654321, 10**6), Fraction(345679, 3 * 10**6), Fraction(345679, 15 * 10**5))
    e = estimate_multiple_choice([10, 20, 30], design.t)
    cis = e.confidence_intervals()
    assert all(0 <= ci.low <= ci.high <= 1 for ci in cis)
    assert cis[0] == confidence_interval(10, 60, *marginal.exact())
    assert estimate_proportion(10, 60, *marginal.exact()).confidence_interval() == cis[0]
