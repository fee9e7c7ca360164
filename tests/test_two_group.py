"""The two-group designs: cheater detection (Clark and Desharnais 1998) and the stochastic lie detector
(Moshagen, Musch and Erdfelder 2012)."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats
from scipy.special import xlogy

from analysis import (
    NO_EPSILON_LABEL,
    CheaterDetectionDesign,
    StochasticLieDetectorDesign,
    estimate_two_group,
    pool_two_group,
    two_group_design_from_dict,
)
from analysis.design import DesignError
from analysis.two_group import _log_likelihood, _maximum_likelihood, _Slice, _slice_score, maximize_slice

CDM = CheaterDetectionDesign(Fraction(3, 10), Fraction(7, 10))
SLD = StochasticLieDetectorDesign(Fraction(1, 6), Fraction(5, 6))
CHI2_95 = float(stats.chi2.ppf(0.95, 1))  # 3.8414588


# --------------------------------------------------------------------------
# Designs.


@pytest.mark.parametrize("cls", [CheaterDetectionDesign, StochasticLieDetectorDesign])
@pytest.mark.parametrize(
    ("p1", "p2", "field", "shown"),
    [
        ("1/3", "1/3", "p2", "p1 = p2 = 1/3"),
        (-0.1, 0.5, "p1", "p1=-1/10"),
        (0.2, 1.5, "p2", "p2=3/2"),
        ("coin", 0.5, "p1", "'coin'"),
        (0.2, 0.1 + 0.2, "p2", "0.30000000000000004"),
    ],
)
def test_bad_probabilities_are_refused_naming_the_value(cls, p1, p2, field, shown):
    with pytest.raises(DesignError, match=re.escape(shown)) as caught:
        cls(p1, p2)
    assert caught.value.field == field


def test_designs_keep_exact_fractions_and_round_trip_through_their_record():
    for design in (CheaterDetectionDesign("0.3", 0.7), StochasticLieDetectorDesign("2/12", "10/12")):
        assert isinstance(design.p1, Fraction) and isinstance(design.p2, Fraction)
        assert two_group_design_from_dict(design.to_dict()) == design
    assert SLD.to_dict() == {"kind": "stochastic_lie_detector", "p1": "1/6", "p2": "5/6"}
    assert SLD.rrreg() == {"model": "SLD", "p": ["1/6", "5/6"]}
    assert CDM.rrreg() == {"model": "CDM", "p": ["3/10", "7/10"]}
    assert CDM.label() == "cheater detection (prompted yes p1=3/10, p2=7/10)"
    with pytest.raises(DesignError, match="unknown two-group design kind 'warner'"):
        two_group_design_from_dict({"kind": "warner", "p1": "1/2", "p2": "1/3"})
    with pytest.raises(DesignError, match=r"lacks \['p2'\]"):
        two_group_design_from_dict({"kind": "cheater_detection", "p1": "1/2"})


def test_neither_design_has_a_finite_epsilon():
    # A cheater's "no" is not randomized: the likelihood ratio of a "no" is unbounded.
    for design in (CDM, SLD):
        assert design.epsilon == math.inf
        assert design.epsilon_label == NO_EPSILON_LABEL == "no epsilon guarantee: one answer fully reveals"
        assert estimate_two_group((50, 90), (200, 200), design).epsilon == math.inf


# --------------------------------------------------------------------------
# Exact values from the formulas (Clark and Desharnais 1998; Moshagen et al. 2012).


def test_cheater_detection_by_hand():
    # p = (.3, .7), lambda = (50/200, 90/200) = (.25, .45).
    # pi = (.7*.25 - .3*.45)/.4 = .1; beta = (.45 - .25)/.4 = .5; gamma = 1 - .1 - .5 = .4.
    # Var(pi) = (.49*.1875/200 + .09*.2475/200)/.16 = .003567188 -> SE .05972594
    # Var(gamma) = (.09*.1875/200 + .49*.2475/200)/.16 = .004317188 -> SE .06570531
    # RRreg divides by n - 1 = 199: SE(pi) = sqrt(.00057075*200/199/.16) = .05987581.
    e = estimate_two_group((50, 90), (200, 200), CDM)
    assert_allclose([e.pi, e.second], [0.1, 0.4], atol=1e-15)
    assert e.second_parameter == "gamma" and not e.on_boundary
    assert_allclose([e.pi_std_err, e.second_std_err], [0.05972594, 0.06570531], rtol=1e-6)
    assert_allclose(e.pi_std_err_rrreg, 0.05987581, rtol=1e-6)


def test_stochastic_lie_detector_by_hand():
    # p = (1/6, 5/6), lambda = (.75, .5). pi = 1 - (.75 - .5)/(2/3) = .625;
    # t = (.75 - .375*5/6)/.625 = .4375/.625 = .7.
    # Var(pi) = (.1875/200 + .25/200)*(9/4) = .004921875 -> SE .07015607.
    e = estimate_two_group((150, 100), (200, 200), SLD)
    assert_allclose([e.pi, e.second], [0.625, 0.7], atol=1e-15)
    assert e.second_parameter == "t"
    assert_allclose(e.pi_std_err, math.sqrt(0.004921875), rtol=1e-12)


def test_the_rrreg_minarets_example_is_reproduced_to_its_printed_digits():
    """Heck and Moshagen (2018), RRreg, Journal of Statistical Software 85(2), section 4.1 (also
    RRreg's vignettes/Heck_Moshagen_2018_JSS.pdf): ``RRuni(rrt, data = minarets_RR, model = "SLD",
    p = c(2/12, 10/12), group = condition)`` prints sample sizes 564 and 692 and

        pi 0.870695 (StdErr 0.041118),   t 0.635806 (StdErr 0.017344)

    The yes counts, 373 of 564 and 398 of 692, are those of RRreg's ``minarets`` data set
    (Radukic and Musch 2014) with ``RRdesign == 1``, by condition (read from data/minarets.RData).
    RRreg's standard errors divide by n_i - 1.
    """
    e = estimate_two_group((373, 398), (564, 692), StochasticLieDetectorDesign("2/12", "10/12"))
    assert not e.on_boundary
    assert (round(e.pi, 6), round(e.pi_std_err_rrreg, 6)) == (0.870695, 0.041118)
    assert (round(e.second, 6), round(e.second_std_err_rrreg, 6)) == (0.635806, 0.017344)
    # The paper's text rounds to two digits: pi = 0.87 (SE 0.04), t = 0.64.
    assert (round(e.pi, 2), round(e.pi_std_err, 2), round(e.second, 2)) == (0.87, 0.04, 0.64)


@pytest.mark.parametrize(
    ("design", "yes", "n"),
    [
        (CDM, (50, 90), (200, 200)),
        (CDM, (123, 301), (400, 550)),
        (CheaterDetectionDesign(0, "1/2"), (30, 110), (200, 200)),  # group 1 asked directly
        (SLD, (150, 100), (200, 200)),
        (SLD, (373, 398), (564, 692)),
        (StochasticLieDetectorDesign(1, "1/4"), (40, 300), (400, 550)),
    ],
)
def test_published_standard_errors_equal_the_observed_information(design, yes, n):
    """Inside the parameter space the delta-method formulas (with n_i) are the inverse observed information."""
    e = estimate_two_group(yes, n, design)
    assert not e.on_boundary
    covariance = e.covariance()
    assert_allclose([e.pi_std_err, e.second_std_err], np.sqrt(np.diag(covariance)), rtol=1e-9)


# --------------------------------------------------------------------------
# Maximum likelihood: inside the space it is the moment estimate; outside, the boundary.


def _grid_log_likelihood(design, pi, second, yes, n):
    """The binomial log-likelihood on arrays of parameter values (written here, apart from the module's);
    ``-inf`` outside the parameter space."""
    total = np.zeros(np.broadcast(pi, second).shape)
    for lam, y, size in zip(design.rates(pi, second), yes, n):
        lam = np.clip(lam, 0, 1)
        with np.errstate(divide="ignore"):
            total = total + xlogy(y, lam) + xlogy(size - y, 1 - lam)
    inside = (pi + second <= 1) if design.kind == "cheater_detection" else np.ones_like(total, dtype=bool)
    return np.where(inside, total, -np.inf)


def _grid_maximum(design, yes, n, steps=1000):
    """Brute-force maximum of the log-likelihood over a grid of the parameter space."""
    axis = np.linspace(0, 1, steps + 1)
    pi, second = np.meshgrid(axis, axis, indexing="ij")
    return float(np.max(_grid_log_likelihood(design, pi, second, yes, n)))


@pytest.mark.parametrize("design", [CDM, SLD])
def test_maximum_likelihood_inside_the_space_is_the_moment_estimate(design):
    for yes, n in [((50, 90), (200, 200)), ((150, 100), (200, 200)), ((373, 398), (564, 692))]:
        e = estimate_two_group(yes, n, design)
        if e.on_boundary:
            continue
        assert_allclose(_maximum_likelihood(design, yes, n), (e.pi, e.second), atol=1e-7)


@pytest.mark.parametrize(
    ("design", "yes", "where"),
    [
        (CDM, (20, 150), "pi < 0 and gamma < 0"),  # lambda2/lambda1 beyond p2/p1
        (CDM, (100, 180), "gamma < 0"),  # lambda = (.5, .9): pi = .2, beta = 1, gamma = -.2
        (CDM, (110, 100), "beta < 0"),  # lambda1 > lambda2
        (SLD, (120, 150), "pi > 1"),  # lambda1 < lambda2
        (SLD, (195, 101), "t > 1"),  # about pi = .3, t = 1.3
        (SLD, (105, 11), "t < 0"),  # about pi = .3, t = -.2
    ],
)
def test_outside_the_space_the_estimate_is_the_constrained_maximum(design, yes, where):
    n = (200, 200)
    e = estimate_two_group(yes, n, design)
    assert e.on_boundary, where
    assert not design.in_space(e.pi_moment, e.second_moment)
    assert design.in_space(e.pi, e.second)
    assert e.log_likelihood >= _grid_maximum(design, yes, n) - 1e-9
    # The reported log-likelihood is that of the reported estimate.
    assert_allclose(e.log_likelihood, _log_likelihood(design.rates(e.pi, e.second), yes, n), rtol=1e-12)


def test_the_lie_detector_at_pi_zero_leaves_t_undefined_and_its_interval_whole():
    # lambda = (250/300, 50/300) = (5/6, 1/6) = (1 - p1, 1 - p2): exactly what non-carriers give, pi = 0,
    # and t (the honesty of carriers) is not identified.
    e = estimate_two_group((250, 50), (300, 300), SLD)
    assert e.pi == 0.0 and math.isnan(e.second)
    ci = e.confidence_interval("t")
    assert (ci.low, ci.high) == (0.0, 1.0)
    assert e.confidence_interval("pi").low == 0.0


# --------------------------------------------------------------------------
# Profile-likelihood intervals.


def _profile_by_grid(design, parameter, value, yes, n, steps=200_000):
    """Profile log-likelihood by brute force over the other parameter (independent of the module's root finding)."""
    others = np.linspace(0, 1, steps + 1)
    if parameter == "pi":
        return float(np.max(_grid_log_likelihood(design, np.full_like(others, value), others, yes, n)))
    return float(np.max(_grid_log_likelihood(design, others, np.full_like(others, value), yes, n)))


@pytest.mark.parametrize(
    ("design", "yes", "n"),
    [(CDM, (50, 90), (200, 200)), (SLD, (150, 100), (200, 200)), (SLD, (373, 398), (564, 692))],
)
def test_profile_interval_ends_are_where_the_likelihood_ratio_reaches_the_chi2_quantile(design, yes, n):
    e = estimate_two_group(yes, n, design)
    for parameter in ("pi", e.second_parameter):
        ci = e.confidence_interval(parameter, 0.95)
        assert ci.method == "profile likelihood" and ci.confidence_level == 0.95
        centre = e.pi if parameter == "pi" else e.second
        assert ci.low < centre < ci.high
        for end in (ci.low, ci.high):
            if end in (0.0, 1.0):
                assert 2 * (e.log_likelihood - _profile_by_grid(design, parameter, end, yes, n)) <= CHI2_95
            else:
                statistic = 2 * (e.log_likelihood - _profile_by_grid(design, parameter, end, yes, n))
                assert statistic == pytest.approx(CHI2_95, abs=2e-3)


def test_a_wider_level_gives_a_wider_interval_and_bad_arguments_are_named():
    e = estimate_two_group((150, 100), (200, 200), SLD)
    narrow, wide = e.confidence_interval("pi", 0.8), e.confidence_interval("pi", 0.99)
    assert wide.low < narrow.low < narrow.high < wide.high
    with pytest.raises(ValueError, match="parameter must be 'pi' or 't', got parameter='gamma'"):
        e.confidence_interval("gamma")
    with pytest.raises(ValueError, match="confidence_level=1.5"):
        e.confidence_interval("pi", 1.5)


@pytest.mark.parametrize(
    ("yes", "n", "message"),
    [
        ((10, 20), (30,), "n must be a pair"),
        ((10, 40), (30, 30), r"yes\[1\]=40"),
        ((10, 5), (1, 30), r"n\[0\]=1"),
        ((True, 5), (30, 30), r"yes\[0\]=True"),
        (7, (30, 30), "yes=7"),
    ],
)
def test_bad_counts_are_refused_naming_the_value(yes, n, message):
    with pytest.raises(ValueError, match=message):
        estimate_two_group(yes, n, SLD)


def test_a_one_group_design_is_refused():
    with pytest.raises(ValueError, match="design must be a two-group design"):
        estimate_two_group((1, 2), (10, 10), "CDM")


# --------------------------------------------------------------------------
# Seeded Monte Carlo: unbiasedness of the moment estimates and 95% coverage of the profile intervals.


@pytest.mark.parametrize(
    ("design", "pi", "second", "n"),
    [
        (CDM, 0.2, 0.15, (500, 500)),  # 20% honest carriers, 15% cheaters
        (SLD, 0.3, 0.8, (400, 600)),  # 30% carriers, 80% of them honest
    ],
)
def test_simulated_estimates_are_unbiased_and_profile_intervals_cover(design, pi, second, n):
    """R = 800 surveys. Tolerances from the simulation itself: the mean of the moment estimate is within
    4 Monte Carlo standard errors (sd / sqrt(R)) of the truth, and each interval's coverage within
    3 binomial standard errors of 0.95, sqrt(.95 * .05 / 800) = 0.0077, i.e. 0.927 to 0.973 (a correct
    method fails either check with probability about 0.3%). The published standard error is checked
    against the simulated spread of the estimates (within 10%, the spread's own error is about 2.5%)."""
    rng = np.random.default_rng(20261122)
    replications = 800
    rates = design.rates(pi, second)
    yes = rng.binomial(n, rates, size=(replications, 2))
    estimates, std_errs, covered = [], [], {"pi": 0, design.second_parameter: 0}
    for row in yes:
        e = estimate_two_group((int(row[0]), int(row[1])), n, design)
        estimates.append((e.pi_moment, e.second_moment))
        std_errs.append(e.pi_std_err)
        for parameter, truth in (("pi", pi), (design.second_parameter, second)):
            ci = e.confidence_interval(parameter, 0.95)
            covered[parameter] += ci.low <= truth <= ci.high
    estimates = np.array(estimates)
    spread = estimates.std(axis=0, ddof=1)
    assert np.all(np.abs(estimates.mean(axis=0) - (pi, second)) <= 4 * spread / math.sqrt(replications))
    assert np.mean(std_errs) == pytest.approx(spread[0], rel=0.1)
    tolerance = 3 * math.sqrt(0.95 * 0.05 / replications)
    for parameter, count in covered.items():
        assert abs(count / replications - 0.95) <= tolerance, (parameter, count / replications)


# --------------------------------------------------------------------------
# Pooling the prevalence over versions of a design.


def test_pooling_two_versions_weights_each_by_its_worst_case_inverse_variance():
    """Version 1: SLD p = (1/3, 2/3), yes 60/100 and 40/100: pi = 1 - 0.2 * 3 = 0.4, gradient (-3, 3), worst-case
    variance 9/400 + 9/400 = 0.045 (w = 200/9), variance at the observed rates 9 (0.24 + 0.24)/100 = 0.0432.
    Version 2: SLD p = (1/4, 3/4), yes 70/200 and 50/200: pi = 1 - 0.1 * 2 = 0.8, gradient (-2, 2), worst case
    4/800 + 4/800 = 0.01 (w = 100), observed 4 (0.2275 + 0.1875)/200 = 0.0083.
    Pooled: (200/9 * 0.4 + 100 * 0.8) / (1100/9) = 8/11, SE = sqrt((200/9)^2 0.0432 + 100^2 0.0083) / (1100/9)."""
    first = estimate_two_group((60, 40), (100, 100), StochasticLieDetectorDesign("1/3", "2/3"))
    second = estimate_two_group((70, 50), (200, 200), StochasticLieDetectorDesign("1/4", "3/4"))
    pooled = pool_two_group([first, second])
    assert_allclose([first.pi_moment, second.pi_moment], [0.4, 0.8], rtol=1e-12)
    assert_allclose(pooled.estimate_raw, 8 / 11, rtol=1e-12)
    assert_allclose(pooled.weights, (2 / 11, 9 / 11), rtol=1e-12)
    expected_se = math.sqrt((200 / 9) ** 2 * 0.0432 + 100**2 * 0.0083) / (1100 / 9)
    assert_allclose(pooled.std_err, expected_se, rtol=1e-12)
    assert pooled.n == 600 and pooled.estimate == pooled.estimate_raw and not pooled.clipped
    ci = pooled.confidence_interval(0.95)
    assert ci.method == "wald"
    assert_allclose([ci.low, ci.high], [8 / 11 - 1.959964 * expected_se, 8 / 11 + 1.959964 * expected_se], atol=1e-6)


def test_pooled_weights_do_not_depend_on_the_answers_so_the_pool_is_unbiased():
    """The weights come from the design and the group sizes only: the pool is a fixed linear combination of
    unbiased moment estimates. Weights from each version's own estimated variance would move with the counts."""
    low = estimate_two_group((10, 5), (100, 100), CDM)
    high = estimate_two_group((90, 60), (100, 100), CDM)
    other = estimate_two_group((50, 50), (300, 100), CheaterDetectionDesign("1/10", "9/10"))
    assert pool_two_group([low, other]).weights == pool_two_group([high, other]).weights
    own = [1 / e.pi_std_err**2 for e in (low, high)]
    assert own[0] != pytest.approx(own[1], rel=0.1)  # what Cochran's own-variance weights would have used


def test_pooling_clips_the_reported_prevalence_and_keeps_the_raw_one():
    fit = estimate_two_group((10, 40), (100, 100), SLD)  # lambda1 < lambda2: pi moment 1 + 0.3 * 1.5 = 1.45
    pooled = pool_two_group([fit, fit])
    assert_allclose(pooled.estimate_raw, fit.pi_moment)
    assert pooled.estimate == 1.0 and pooled.clipped is True


@pytest.mark.parametrize(
    ("estimates", "message"),
    [
        ([], "at least one"),
        (["0.4"], "estimates[0]"),
        (
            [estimate_two_group((60, 40), (100, 100), SLD), estimate_two_group((60, 40), (100, 100), CDM)],
            "one kind of design",
        ),
    ],
)
def test_pooling_refuses_what_it_cannot_pool(estimates, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        pool_two_group(estimates)


# --------------------------------------------------------------------------
# Boundaries, exact messages and the pieces behind the estimates.


@pytest.mark.parametrize(
    ("cls", "meaning"),
    [
        (CheaterDetectionDesign, "probability of a prompted yes"),
        (StochasticLieDetectorDesign, "probability that a non-carrier answers no"),
    ],
)
def test_each_design_says_what_its_probabilities_mean(cls, meaning):
    with pytest.raises(DesignError, match=rf"^p1 \({meaning}\) must be in \[0, 1\], got p1=-1/10$"):
        cls(-0.1, 0.5)
    with pytest.raises(
        DesignError, match=r"^p1 and p2 must differ \(the two groups identify the model\), got p1 = p2 = 1/3$"
    ):
        cls("1/3", "2/6")


@pytest.mark.parametrize("cls", [CheaterDetectionDesign, StochasticLieDetectorDesign])
def test_probabilities_zero_and_one_are_allowed(cls):
    design = cls(0, 1)
    assert (design.p1, design.p2) == (0, 1)
    assert cls(1, 0).p1 == 1


@pytest.mark.parametrize(
    ("yes", "n", "message"),
    [
        ((0, 5), (1, 30), r"^n\[0\] must be an integer >= 2, got n\[0\]=1$"),
        ((1, 5), (30.0, 30), r"^n\[0\] must be an integer >= 2, got n\[0\]=30\.0$"),
        ((3, 5), (2, 30), r"^yes\[0\] must be an integer in \[0, n\[0\]=2\], got yes\[0\]=3$"),
    ],
)
def test_bad_counts_get_their_exact_message(yes, n, message):
    with pytest.raises(ValueError, match=message):
        estimate_two_group(yes, n, SLD)


@pytest.mark.parametrize("yes", [(0, 2), (2, 0), (1, 1), (2, 2), (0, 0)])
def test_groups_of_two_and_counts_at_zero_and_n_are_accepted(yes):
    e = estimate_two_group(yes, (2, 2), CDM)
    assert e.yes == yes and e.n == (2, 2)
    assert e.observed == (yes[0] / 2, yes[1] / 2)


def test_the_lie_detector_space_includes_pi_zero_and_its_ends():
    assert SLD.in_space(0.0, 0.5) and SLD.in_space(1.0, 1.0) and SLD.in_space(0.0, 0.0)
    assert not SLD.in_space(-1e-9, 0.5) and not SLD.in_space(0.5, 1.0 + 1e-9)


def _numeric_gradients(design, lam, h=1e-6):
    """Central differences of ``design.moment`` in each rate: rows pi and the second parameter."""
    columns = []
    for i in range(2):
        up, down = list(lam), list(lam)
        up[i] += h
        down[i] -= h
        columns.append((np.array(design.moment(*up)) - np.array(design.moment(*down))) / (2 * h))
    return np.array(columns).T


@pytest.mark.parametrize(("design", "lam"), [(CDM, (0.25, 0.45)), (SLD, (0.75, 0.5)), (SLD, (0.6, 0.3))])
def test_moment_gradients_are_the_derivatives_of_the_moment_estimates_with_their_signs(design, lam):
    assert_allclose(np.array(design.moment_gradients(*lam)), _numeric_gradients(design, lam), rtol=1e-6)


def test_lie_detector_gradients_at_pi_zero_keep_pi_and_leave_t_undefined():
    # p = (1/4, 3/4), lambda = (3/4, 1/4) = (1 - p1, 1 - p2): pi = 0 exactly, dpi/dl = (-1/d, 1/d) = (-2, 2).
    g_pi, g_t = StochasticLieDetectorDesign("1/4", "3/4").moment_gradients(0.75, 0.25)
    assert g_pi == (-2.0, 2.0)
    assert math.isnan(g_t[0]) and math.isnan(g_t[1])


def _numeric_information(design, pi, second, yes, n, h=1e-5):
    """Minus the Hessian of the log-likelihood by central differences (the rates continued past the space)."""

    def log_likelihood(a, b):
        return sum(xlogy(y, lam) + xlogy(size - y, 1 - lam) for lam, y, size in zip(design.rates(a, b), yes, n))

    steps = (np.array([h, 0.0]), np.array([0.0, h]))
    hessian = np.empty((2, 2))
    for i, j in np.ndindex(2, 2):
        point = np.array([pi, second])
        corners = [point + si * steps[i] + sj * steps[j] for si in (1, -1) for sj in (1, -1)]
        values = [log_likelihood(*c) for c in corners]
        hessian[i, j] = (values[0] - values[1] - values[2] + values[3]) / (4 * h * h)
    return -hessian


@pytest.mark.parametrize(
    ("design", "yes"),
    [(CDM, (50, 90)), (CDM, (100, 180)), (SLD, (150, 100)), (SLD, (195, 101)), (SLD, (105, 11))],
)
def test_covariance_is_the_inverse_observed_information_off_the_diagonal_too(design, yes):
    """Inside and on the boundary (where the score is not zero and the lie detector's rates bend)."""
    n = (200, 200)
    e = estimate_two_group(yes, n, design)
    expected = np.linalg.inv(_numeric_information(design, e.pi, e.second, yes, n))
    assert_allclose(e.covariance(), expected, rtol=1e-4)


@pytest.mark.parametrize(
    ("design", "yes", "n"),
    [
        (CheaterDetectionDesign(0, "1/2"), (0, 50), (100, 100)),  # rate 0 with no yes: 0/0 in the information
        (SLD, (16, 0), (20, 20)),  # the boundary maximum where the observed information is not positive definite
    ],
)
def test_covariance_is_a_two_by_two_of_nans_where_the_information_fails(design, yes, n):
    covariance = estimate_two_group(yes, n, design).covariance()
    assert covariance.shape == (2, 2) and np.all(np.isnan(covariance))


def test_a_boundary_maximum_with_indefinite_information_has_no_standard_errors():
    e = estimate_two_group((16, 0), (20, 20), SLD)
    assert e.on_boundary and math.isnan(e.pi_std_err) and math.isnan(e.second_std_err)


def test_the_log_likelihood_clips_rates_to_the_unit_interval():
    # 1.5 is read as 1 (three yes: 3 ln 1 = 0) and -0.5 as 0 (two no: 2 ln 1 = 0).
    assert _log_likelihood((1.5, -0.5), (3, 0), (3, 2)) == 0.0
    assert _log_likelihood((1.5, 0.5), (2, 1), (3, 2)) == -math.inf


@pytest.mark.parametrize(
    ("line", "yes", "no", "expected"),
    [
        (_Slice((0.0, 0.5), (-1.0, 0.0), 0.0, 1.0), (1, 0), (0, 0), -math.inf),  # a yes where the rate is 0
        (_Slice((0.0, 0.5), (2.0, 0.0), 0.0, 1.0), (1, 0), (0, 0), math.inf),
        (_Slice((1.0, 0.5), (-1.0, 0.0), 0.0, 1.0), (0, 0), (1, 0), math.inf),  # a no where the rate is 1
        (_Slice((1.0, 0.5), (2.0, 0.0), 0.0, 1.0), (0, 0), (1, 0), -math.inf),
    ],
)
def test_the_slice_score_is_infinite_with_the_slope_sign_at_an_impossible_rate(line, yes, no, expected):
    assert _slice_score(0.0, line, yes, no) == expected


def test_a_slice_maximum_near_its_low_end_with_a_small_score_is_found():
    # Group 1 is flat (beta 0) and listed first; group 2: lambda = 0.45 + 0.1 u, one yes and one no, so the
    # maximum is at lambda = 1/2, u = 1/2. The score at u = 0 is 0.1 (1/0.45 - 1/0.55) = 0.040, below 1.
    line = _Slice((0.5, 0.45), (0.0, 0.1), 0.0, 1.0)
    u, value = maximize_slice(line, (1, 1), (2, 2))
    assert u == pytest.approx(0.5, abs=1e-12)
    assert value == pytest.approx(4 * math.log(0.5), abs=1e-12)


@pytest.mark.parametrize(
    ("design", "yes"),
    [(CDM, (110, 100)), (CDM, (100, 180)), (SLD, (120, 150)), (SLD, (195, 101)), (CDM, (66, 120))],
)
def test_profile_interval_ends_on_the_boundary_and_near_zero_are_where_the_ratio_reaches_chi2(design, yes):
    """Boundary estimates (the profile of the second parameter may peak on an edge of the space) and an
    estimate whose profile at pi = 0 exceeds the cut by less than 1 (CDM (66, 120): pi = 0.1275)."""
    n = (200, 200)
    e = estimate_two_group(yes, n, design)
    for parameter in ("pi", e.second_parameter):
        ci = e.confidence_interval(parameter)
        for end in (ci.low, ci.high):
            statistic = 2 * (e.log_likelihood - _profile_by_grid(design, parameter, end, yes, n))
            if end in (0.0, 1.0):
                assert statistic <= CHI2_95 + 1e-6
            else:
                assert statistic == pytest.approx(CHI2_95, abs=2e-3)


def test_the_default_interval_is_the_95_percent_one_for_pi():
    e = estimate_two_group((150, 100), (200, 200), SLD)
    assert e.confidence_interval() == e.confidence_interval("pi", 0.95)


def test_an_interval_reaching_one_ends_exactly_at_one():
    e = estimate_two_group((120, 150), (200, 200), SLD)  # pi = 1 on the boundary
    assert e.pi == 1.0 and e.confidence_interval("pi").high == 1.0


def test_the_undefined_t_interval_is_still_labelled_with_its_method_and_level():
    e = estimate_two_group((250, 50), (300, 300), SLD)
    ci = e.confidence_interval("t", 0.9)
    assert (ci.low, ci.high, ci.method, ci.confidence_level) == (0.0, 1.0, "profile likelihood", 0.9)


@pytest.mark.parametrize(("alpha", "expected"), [(0.5 + 1e8 * 5e-14, 0.0), (0.5 - 1e8 * (1 + 5e-14), 1.0)])
def test_a_sharp_maximum_just_outside_a_slice_is_reported_at_its_end(alpha, expected):
    """lambda = alpha + 1e8 u with one yes and one no peaks at lambda = 1/2, 5e-14 outside [0, 1]. Its log-likelihood
    falls by about 1e-10 (curvature 8e16) over that gap, far beyond the tie tolerance: the end is the constrained
    maximum, not a root found past it."""
    u, _ = maximize_slice(_Slice((alpha, 0.5), (1e8, 0.0), 0.0, 1.0), (1, 0), (2, 0))
    assert u == expected


def test_a_sharp_maximum_inside_a_very_narrow_slice_is_found():
    """Width 1e-8, lambda = 1/2 - 5e-5 + 1e4 u: the peak lambda = 1/2 sits at u = 5e-9, the middle, and its
    log-likelihood exceeds the ends' by 1e-8 (so it is not a tie with an end)."""
    u, value = maximize_slice(_Slice((0.5 - 5e-5, 0.5), (1e4, 0.0), 0.0, 1e-8), (1, 0), (2, 0))
    assert u == pytest.approx(5e-9, rel=1e-6)
    assert value == pytest.approx(2 * math.log(0.5), abs=1e-14)


def test_counts_beyond_64_bit_integers_still_give_a_covariance():
    """Counts are any Python integers; the observed information turns them into floats."""
    e = estimate_two_group((3 * 10**19, 2 * 10**19), (10**20, 10**20), CDM)  # lambda1 > lambda2: boundary
    assert e.on_boundary
    assert np.all(np.isfinite(e.covariance()))


def test_a_sharp_maximum_in_a_slice_that_does_not_start_at_zero_is_found():
    """u in [0.5, 1]; lambda = 1/2 + 1e8 (u - 0.5 - 1e-13) peaks 1e-13 above the low end, which is 2e-13 of the
    width: the probe just inside the low end sits below the peak (the score there is positive), and the peak's
    log-likelihood exceeds the end's by about 4e-10, beyond the tie tolerance."""
    u, _ = maximize_slice(_Slice((0.5 - 1e8 * (0.5 + 1e-13), 0.5), (1e8, 0.0), 0.5, 1.0), (1, 0), (2, 0))
    assert u - 0.5 == pytest.approx(1e-13, abs=1e-14)


def test_the_covariance_at_rates_whose_squares_underflow_is_nan_without_a_warning():
    # lambda = (1e-200, 2e-200): lambda^2 underflows to 0, so y / lambda^2 divides by zero (pytest turns warnings
    # into errors): the information is not finite and the covariance is NaN.
    e = estimate_two_group((1, 2), (10**200, 10**200), CDM)
    assert np.all(np.isnan(e.covariance()))


def test_the_lie_detector_at_pi_one_gives_t_the_pooled_yes_rate_to_the_last_digits():
    """lambda1 < lambda2 puts the maximum at pi = 1, where both rates are t: the maximum-likelihood t is the pooled
    yes rate 8/400 = 0.02 exactly. The root of the slice score is found to 1e-15, not merely to brentq's default."""
    e = estimate_two_group((3, 5), (200, 200), SLD)
    assert e.on_boundary and e.pi == 1.0
    assert e.second == pytest.approx(0.02, abs=1e-15)
