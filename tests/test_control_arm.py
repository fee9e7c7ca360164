"""The direct-question control arm: randomized response minus asking directly."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose

from analysis import StochasticLieDetectorDesign, compare_with_direct, estimate_two_group

Z95 = 1.959963984540054


def test_difference_by_hand():
    # RR .30 (SE .04); direct 20 of 100: .20, SE sqrt(.2 * .8 / 100) = .04.
    # Difference .10, SE sqrt(.04^2 + .04^2) = .0565685; 95%: .10 -/+ 1.959964 * .0565685 = (-.010872, .210872).
    c = compare_with_direct(0.30, 0.04, 20, 100)
    assert_allclose(
        [c.direct_estimate, c.direct_std_err, c.difference, c.std_err], [0.2, 0.04, 0.1, 0.0565685], rtol=1e-6
    )
    assert_allclose([c.ci.low, c.ci.high], [-0.0108723, 0.2108723], atol=1e-7)
    assert c.ci.method == "wald" and c.ci.confidence_level == 0.95
    # One-sided p-value of "RR higher": 1 - Phi(.1 / .0565685) = 1 - Phi(1.76777) = .038550.
    assert c.p_value_rr_higher == pytest.approx(0.038550, abs=1e-6)


def test_the_interval_is_clipped_to_minus_one_one():
    c = compare_with_direct(1.2, 0.5, 0, 10)
    assert (c.ci.low, c.ci.high) == (pytest.approx(1.2 - Z95 * 0.5), 1.0)


def test_the_minarets_comparison_of_heck_and_moshagen_2018():
    """Heck and Moshagen (2018), JSS 85(2), section 4.1: the SLD estimate 0.87 (SE 0.04) against the
    direct question's 0.43 ("As expected, the RR format yielded a higher prevalence estimate"). The direct
    arm of RRreg's minarets data (RRdesign == -1) has 158 yes of 365."""
    rr = estimate_two_group((373, 398), (564, 692), StochasticLieDetectorDesign(Fraction(2, 12), Fraction(10, 12)))
    c = compare_with_direct(rr.pi, rr.pi_std_err_rrreg, 158, 365)
    assert round(c.direct_estimate, 2) == 0.43 and round(c.rr_estimate, 2) == 0.87
    # .870695 - 158/365 = .437819; SE sqrt(.041118^2 + .025934^2) = .048614.
    assert_allclose([c.difference, c.std_err], [0.437819, 0.048614], atol=1e-6)
    assert c.ci.low > 0.3 and c.p_value_rr_higher < 1e-15


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((float("nan"), 0.1, 1, 10), "rr_estimate=nan"),
        ((0.3, -0.1, 1, 10), "rr_std_err=-0.1"),
        ((0.3, 0.1, 11, 10), "direct arm: yes_count must be an integer in \\[0, n=10\\], got yes_count=11"),
        ((0.3, 0.1, 1, 0), "direct arm: n must be an integer >= 1, got n=0"),
        ((0.3, 0.1, 1, 10, 1.0), "confidence_level=1.0"),
    ],
)
def test_bad_arguments_are_named(args, message):
    with pytest.raises(ValueError, match=message):
        compare_with_direct(*args)


def test_simulated_difference_is_unbiased_and_its_interval_covers():
    """R = 3000 surveys: an SLD arm (p = 1/6, 5/6; 300 + 300 answers; pi = .3, t = .7) and a direct arm of
    200 where carriers admit with .7 as well, so the true difference is .3 - .21 = .09. The mean difference is
    within 4 Monte Carlo standard errors of .09; the 95% interval covers within 3 binomial standard errors
    (sqrt(.95 * .05 / 3000) = 0.004)."""
    rng = np.random.default_rng(20261122)
    design = StochasticLieDetectorDesign(Fraction(1, 6), Fraction(5, 6))
    replications, truth = 3000, 0.3 - 0.3 * 0.7
    rr_yes = rng.binomial((300, 300), design.rates(0.3, 0.7), size=(replications, 2))
    direct_yes = rng.binomial(200, 0.21, size=replications)
    differences, covered = [], 0
    for (y1, y2), y in zip(rr_yes, direct_yes):
        rr = estimate_two_group((int(y1), int(y2)), (300, 300), design)
        c = compare_with_direct(rr.pi_moment, rr.pi_std_err, int(y), 200)
        differences.append(c.difference)
        covered += c.ci.low <= truth <= c.ci.high
    differences = np.array(differences)
    assert abs(differences.mean() - truth) <= 4 * differences.std(ddof=1) / math.sqrt(replications)
    assert abs(covered / replications - 0.95) <= 3 * math.sqrt(0.95 * 0.05 / replications)


def test_the_comparison_carries_its_inputs():
    c = compare_with_direct(0.30, 0.04, 20, 100)
    assert (c.rr_estimate, c.rr_std_err, c.direct_yes, c.direct_n) == (0.30, 0.04, 20, 100)


@pytest.mark.parametrize(
    ("rr_estimate", "direct_yes", "p_value"),
    [
        (0.5, 0, 0.0),  # RR above a direct arm of all no, both without noise: surely higher
        (0.0, 0, 1.0),  # equal: no evidence
        (-0.2, 0, 1.0),  # an unclipped RR estimate below zero
        (0.5, 10, 1.0),  # below a direct arm of all yes
    ],
)
def test_without_any_standard_error_the_p_value_is_zero_or_one(rr_estimate, direct_yes, p_value):
    """A standard error of 0 for the RR estimate is allowed, and a direct arm of all yes or all no has none:
    the difference is then known exactly, and the one-sided p-value of "RR higher" is 0 or 1."""
    c = compare_with_direct(rr_estimate, 0.0, direct_yes, 10)
    assert c.std_err == 0.0 and c.p_value_rr_higher == p_value


def test_the_interval_is_clipped_at_minus_one_too():
    c = compare_with_direct(-1.2, 0.5, 10, 10)  # difference -2.2 (an unclipped RR estimate far below 0)
    assert c.ci.low == -1.0


def test_a_bad_rr_standard_error_is_named_exactly():
    with pytest.raises(ValueError, match=r"^rr_std_err must be a finite number, got rr_std_err=nan$"):
        compare_with_direct(0.3, float("nan"), 1, 10)
