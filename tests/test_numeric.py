"""The mean of a randomized number (analysis/numeric.py): exact values, references, and coverage by simulation.

Three layers:

* exact values by hand for small sums, and against statsmodels where it computes the same estimator
  (``DescrStatsW`` for the Laplace outputs' mean, standard error and t interval; ``CompareMeans`` for Welch's
  difference; ``proportion_confint`` for the bit's Wilson interval);
* seeded simulations (numpy's generator, simulations only: the live randomizer uses ``secrets``) of the interval's
  coverage and of the sequence's time-uniform miscoverage for each mechanism at epsilon 0.5, 1, ln 3 and 3. The
  discrete Laplace noise is drawn as ``Z = G1 - G2`` with ``G ~ Geometric(1 - r) - 1`` (numpy's geometric counts
  trials, so ``G`` counts failures: ``P(G = g) = (1 - r) r^g``); the difference of two independent such variables
  has ``P(Z = z) = (1 - r) / (1 + r) r^|z|``, exactly the discrete Laplace of the design. Tolerances are the
  simulation's own binomial error: a coverage estimated from ``R`` surveys has standard error
  ``sqrt(p (1 - p) / R)``, and the tests allow 4 of them around 0.95 (the chance that a correct interval fails
  is below 1e-4 per setting) and 3 above ``alpha`` for a sequence's miscoverage (a sequence's true miscoverage is
  at most ``alpha``, usually far below);
* a reference no one here wrote: ``nprr`` (Waudby-Smith, Wu and Ramdas 2023, "Nonparametric extensions of
  randomized response for private confidence sets", ICML 2023; github WannabeSmith/nprr at commit 36edeca, version
  0.1.4). Its code was run unchanged on this module's reference data (:func:`reference_bits`,
  :func:`reference_laplace`), with the compiled ``confseq`` package it imports at the top replaced by empty
  stand-ins (the functions run need none of it) and numpy 2's removed ``np.float_`` aliased to ``float64``; its
  figures are transcribed below (``NPRR_*``), as printed with ``repr``. What coincides: the bounded design is NPRR
  with ``G = 1`` and ``r = (high - low) / (high + low)`` (same output probabilities, same epsilon, same debiased
  mean); the discrete Laplace noise is dominated by the continuous Laplace whose cumulant generating function
  nprr's Laplace-Hoeffding sequence uses, so that sequence is valid on our data and both sequences can be set
  side by side. What could not be compared: nprr's sequences built on confseq (the conjugate beta-binomial
  mixture, the betting and empirical-Bernstein sequences), since confseq is compiled and not installed here; NPRR
  with ``G > 1`` (a grid randomized response that is not our mechanism); and equality of sequences: nprr's
  Hoeffding sequences weigh answers by a predictable ``lambda_t`` and so depend on the answers' order, ours on the
  kept sums alone, so they are compared as two valid sets (both hold the truth; widths reported).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats
from statsmodels.stats.proportion import proportion_confint
from statsmodels.stats.weightstats import CompareMeans, DescrStatsW

from analysis import confidence_sequence, log_mixture_martingale, sample_size_for_half_width
from analysis.numeric import (
    MeanSequence,
    bounded_as_forced_response,
    discrete_laplace_log_mgf,
    laplace_sequence_half_width,
    laplace_variance_proxy,
    numeric_difference,
    numeric_mean,
    numeric_needed_n,
    numeric_sequence,
    numeric_sequence_needed_n,
    stitching_boundary,
)
from analysis.numeric_design import BoundedDesign, DiscreteLaplaceDesign, bounded_for_epsilon, laplace_for_epsilon

EPSILONS = (0.5, 1.0, math.log(3), 3.0)
STEPS = 10
#: The true indices of the simulations: Binomial(10, 0.3) (mean 3, skewed towards 0).
TRUE_SHARE = 0.3
TRUE_MEAN = STEPS * TRUE_SHARE


# --------------------------------------------------------------------------
# Simulated answers (numpy's generator: simulations only).


def laplace_noise(rng: np.random.Generator, design: DiscreteLaplaceDesign, size) -> np.ndarray:
    """Discrete Laplace noise, exactly: the difference of two independent Geometric(1 - r) - 1 draws."""
    r = design.ratio
    return (rng.geometric(1 - r, size) - 1) - (rng.geometric(1 - r, size) - 1)


def laplace_outputs(rng: np.random.Generator, design: DiscreteLaplaceDesign, true: np.ndarray) -> np.ndarray:
    low, high = design.output_range
    return np.clip(true + laplace_noise(rng, design, true.shape), low, high)


def bounded_outputs(rng: np.random.Generator, design: BoundedDesign, true: np.ndarray) -> np.ndarray:
    t, a, _ = bounded_as_forced_response(design)
    chance = float(a) + float(t) * true / design.steps
    return (rng.random(true.shape) < chance).astype(np.int64)


def true_indices(rng: np.random.Generator, size) -> np.ndarray:
    return rng.binomial(STEPS, TRUE_SHARE, size)


def sums(outputs: np.ndarray) -> tuple[int, int, int]:
    values = [int(v) for v in outputs]
    return len(values), sum(values), sum(v * v for v in values)


def reference_bits():
    """5,000 answers of the bounded design at epsilon 1 on 10 steps (the data nprr was run on)."""
    rng = np.random.default_rng(20261126)
    design = bounded_for_epsilon(STEPS, 1.0)
    true = true_indices(rng, 5000)
    return design, true, bounded_outputs(rng, design, true)


def reference_laplace():
    """5,000 answers of the discrete Laplace design at epsilon 1 on 10 steps (the data nprr was run on)."""
    rng = np.random.default_rng(20261127)
    design = laplace_for_epsilon(STEPS, 1.0)
    true = true_indices(rng, 5000)
    return design, true, laplace_outputs(rng, design, true)


# --------------------------------------------------------------------------
# Exact values.

SMALL = DiscreteLaplaceDesign(10, Fraction(1, 2))  # r = e^-2: noise variance 2 r / (1 - r)^2 = 0.3622


def test_the_laplace_mean_of_four_answers_by_hand():
    # Outputs 3, -1, 7, 5: T = 14, Q = 84; s^2 = (4 * 84 - 14^2) / (4 * 3) = 140 / 12.
    estimate = numeric_mean(SMALL, 4, 14, 84)
    s2 = 140 / 12
    noise = 2 * math.exp(-2) / (1 - math.exp(-2)) ** 2
    assert estimate.mean == 3.5
    assert_allclose(estimate.noise_variance, noise, rtol=1e-15)
    assert_allclose(estimate.true_variance, s2 - noise, rtol=1e-15)
    assert_allclose(estimate.std_err, math.sqrt(s2 / 4), rtol=1e-15)
    half = 3.182446305284263 * math.sqrt(s2 / 4)  # t_3 at 0.975
    assert_allclose(estimate.ci_high, 3.5 + half, rtol=1e-12)
    assert estimate.ci_low == 0.0 and estimate.clipped  # 3.5 - 5.44 < 0: cut at the grid's end
    assert estimate.method == "t" and estimate.side == "two-sided"


def test_the_laplace_mean_equals_statsmodels_descrstatsw():
    rng = np.random.default_rng(1)
    design = laplace_for_epsilon(STEPS, 1.0)
    outputs = laplace_outputs(rng, design, true_indices(rng, 300))
    estimate = numeric_mean(design, *sums(outputs), level=0.9)
    reference = DescrStatsW(outputs.astype(float))
    assert design.noise_variance < reference.var * 300 / 299 < design.worst_variance  # no floor, no cap
    assert_allclose(estimate.mean, reference.mean, rtol=1e-14)
    assert_allclose(estimate.std_err, reference.std_mean, rtol=1e-12)
    assert_allclose((estimate.ci_low, estimate.ci_high), reference.tconfint_mean(alpha=0.1), rtol=1e-12)


def test_the_true_values_variance_is_floored_at_zero_and_capped_at_a_quarter_of_k_squared():
    design = laplace_for_epsilon(STEPS, 1.0)
    noise = design.noise_variance
    # Four equal outputs: s^2 = 0 < noise, so the true values' part is 0 and the standard error the noise's.
    flat = numeric_mean(design, 4, 20, 100)
    assert flat.true_variance == 0.0
    assert_allclose(flat.std_err, math.sqrt(noise / 4), rtol=1e-15)
    # Outputs -40 and 50 (s^2 = 4050, above noise + 25): capped at K^2 / 4 = 25.
    wide = numeric_mean(design, 2, 10, 1600 + 2500)
    assert wide.true_variance == 25.0
    assert_allclose(wide.std_err, math.sqrt((noise + 25) / 2), rtol=1e-15)


def test_one_answer_uses_the_widest_variance_and_the_normal_quantile():
    design = laplace_for_epsilon(STEPS, 1.0)
    one = numeric_mean(design, 1, 4, 16)
    assert one.true_variance == 25.0
    assert_allclose(one.std_err, math.sqrt(design.worst_variance), rtol=1e-15)
    assert_allclose(one.ci_high, min(4 + stats.norm.ppf(0.975) * one.std_err, 10), rtol=1e-15)


def test_the_finite_population_correction_shrinks_only_the_true_values_part():
    n, total, total_squares = 4, 14, 84
    s2, noise = 140 / 12, SMALL.noise_variance
    for size in (4, 8, 40, 10**9):
        estimate = numeric_mean(SMALL, n, total, total_squares, population_size=size)
        f = n / size
        assert estimate.sampling_fraction == f and estimate.population_size == size
        assert_allclose(estimate.std_err, math.sqrt(((1 - f) * (s2 - noise) + noise) / n), rtol=1e-14)
    whole = numeric_mean(SMALL, n, total, total_squares, population_size=4)
    assert_allclose(whole.std_err, math.sqrt(noise / 4), rtol=1e-14)  # everyone asked: the noise alone is left


def test_the_bounded_mean_of_eight_bits_by_hand():
    design = BoundedDesign(10, 3, 1)  # t = 1/2, a = b = 1/4: epsilon ln 3
    assert bounded_as_forced_response(design) == (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4))
    estimate = numeric_mean(design, 8, 5, 5)
    assert_allclose(estimate.mean, 10 * (4 * 5 / 8 - 1) / 2, rtol=1e-15)  # K ((a + b) ybar - b) / (a - b) = 7.5
    assert_allclose(estimate.std_err, 10 * math.sqrt(5 / 8 * 3 / 8 / 8) / 0.5, rtol=1e-14)
    low, high = proportion_confint(5, 8, alpha=0.05, method="wilson")
    assert_allclose(estimate.ci_low, 10 * (low - 0.25) / 0.5, rtol=1e-12)
    assert estimate.ci_high == 10.0 and estimate.clipped  # the rate's upper bound lies above a + t = 3/4
    assert estimate.method == "wilson" and estimate.true_variance is None


def test_the_bounded_noise_variance_is_the_binomial_variance_when_the_true_values_do_not_vary():
    # K^2 high low / (high - low)^2 + m (K - m) = K^2 lam (1 - lam) / t^2, lam = a + t m / K.
    for design in (BoundedDesign(10, 3, 1), bounded_for_epsilon(7, 0.5), bounded_for_epsilon(1000, 3.0)):
        t, a, _ = (float(x) for x in bounded_as_forced_response(design))
        for ones in (0, 13, 50, 100):
            estimate = numeric_mean(design, 100, ones, ones)
            lam = a + t * estimate.clipped_mean / design.steps
            assert_allclose(estimate.noise_variance, design.steps**2 * lam * (1 - lam) / t**2, rtol=1e-12)
            assert_allclose(estimate.std_err, math.sqrt(estimate.noise_variance / 100), rtol=1e-12)


def test_the_bounded_standard_error_has_no_finite_population_correction():
    design = BoundedDesign(10, 3, 1)
    assert numeric_mean(design, 50, 20, 20, population_size=50).std_err == numeric_mean(design, 50, 20, 20).std_err


def test_a_bit_rate_below_the_floor_gives_a_one_sided_bound():
    estimate = numeric_mean(BoundedDesign(10, 3, 1), 200, 38, 38)  # 19% ones, below a = 1/4
    assert estimate.side == "upper" and estimate.ci_low == 0.0 and estimate.ci_high > 0.0 and estimate.clipped


@pytest.mark.parametrize(
    ("design", "args", "message"),
    [
        ("design", (4, 14, 84), "design must be a DiscreteLaplaceDesign or a BoundedDesign"),
        (SMALL, (0, 0, 0), "n must be an integer >= 1"),
        (SMALL, (2, 1.5, 3), "total must be an integer"),
        (SMALL, (2, 3, True), "total_squares must be an integer"),
        (SMALL, (2, 100, 5000), "total must lie in [-40, 60]"),
        (SMALL, (2, 4, 7), "total_squares=7 is impossible"),  # 2 * 7 < 4^2
        (SMALL, (2, 4, 1801), "total_squares=1801 is impossible"),  # above 2 * 30^2
        (BoundedDesign(10, 3, 1), (4, 5, 5), "total must be a count of 1 bits in [0, n=4]"),
        (BoundedDesign(10, 3, 1), (4, 2, 3), "total_squares must equal total for bits"),
    ],
)
def test_impossible_sums_are_refused_with_the_value_named(design, args, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        numeric_mean(design, *args)


def test_a_bad_level_or_population_is_refused():
    with pytest.raises(ValueError, match="level must be in"):
        numeric_mean(SMALL, 4, 14, 84, level=1.0)
    with pytest.raises(ValueError, match="population_size must be an integer >= 4"):
        numeric_mean(SMALL, 4, 14, 84, population_size=3)


def test_the_difference_equals_statsmodels_welch():
    rng = np.random.default_rng(4)
    design = laplace_for_epsilon(STEPS, 3.0)
    one = laplace_outputs(rng, design, rng.integers(0, STEPS + 1, 150))
    two = laplace_outputs(rng, design, rng.binomial(STEPS, 0.5, 90))
    for group in (one, two):  # within [noise, noise + K^2 / 4]: no floor, no cap
        assert design.noise_variance < group.var(ddof=1) < design.worst_variance
    result = numeric_difference(design, sums(one), sums(two), level=0.9)
    reference = CompareMeans(DescrStatsW(one.astype(float)), DescrStatsW(two.astype(float)))
    assert result.method == "welch"
    assert_allclose(result.estimate, one.mean() - two.mean(), rtol=1e-12)
    assert_allclose(result.std_err, reference.std_meandiff_separatevar, rtol=1e-12)
    assert_allclose((result.low, result.high), reference.tconfint_diff(alpha=0.1, usevar="unequal"), rtol=1e-12)


def test_the_bounded_difference_is_normal_on_the_binomial_standard_errors():
    design = BoundedDesign(10, 3, 1)
    result = numeric_difference(design, (100, 60, 60), (80, 30, 30))
    one, two = numeric_mean(design, 100, 60, 60), numeric_mean(design, 80, 30, 30)
    se = math.hypot(one.std_err, two.std_err)
    assert result.method == "normal"
    assert_allclose(result.estimate, one.mean - two.mean, rtol=1e-15)
    assert_allclose(
        (result.low, result.high),
        (result.estimate - 1.959963984540054 * se, min(result.estimate + 1.959963984540054 * se, 10)),
        rtol=1e-12,
    )
    with pytest.raises(ValueError, match=r"second must be \(n, total, total_squares\)"):
        numeric_difference(design, (100, 60, 60), (80, 30))


def test_a_group_of_one_answer_is_compared_on_the_normal_quantile():
    design = laplace_for_epsilon(STEPS, 3.0)
    result = numeric_difference(design, (1, 4, 16), (50, 150, 2000))
    one, two = numeric_mean(design, 1, 4, 16), numeric_mean(design, 50, 150, 2000)
    assert result.method == "normal"
    half = stats.norm.ppf(0.975) * math.hypot(one.std_err, two.std_err)
    assert_allclose((result.low, result.high), (max(1 - half, -10), min(1 + half, 10)), rtol=1e-12)


def test_welch_needs_two_answers_in_each_group():
    """The Welch-Satterthwaite degrees of freedom divide by n - 1 in each group: two answers each suffice; one in
    either group falls back to the normal quantile."""
    design = laplace_for_epsilon(STEPS, 3.0)
    two, one = (2, 8, 34), (1, 4, 16)
    assert numeric_difference(design, two, two).method == "welch"
    assert numeric_difference(design, one, two).method == "normal"
    assert numeric_difference(design, two, one).method == "normal"


@pytest.mark.parametrize(("first", "second", "named"), [(5, (2, 8, 34), "first=5"), ((2, 8, 34), None, "second=None")])
def test_a_group_that_is_not_three_sums_is_refused_naming_it(first, second, named):
    group = named.split("=")[0]
    with pytest.raises(ValueError, match=rf"^{group} must be \(n, total, total_squares\), got {named}$"):
        numeric_difference(laplace_for_epsilon(STEPS, 3.0), first, second)


def test_the_clipped_mean_is_the_mean_within_the_range():
    design = BoundedDesign(10, 3, 1)
    assert numeric_mean(design, 10, 0, 0).mean == -5.0 and numeric_mean(design, 10, 0, 0).clipped_mean == 0.0
    assert numeric_mean(design, 10, 10, 10).clipped_mean == 10.0


def test_the_sequence_refuses_what_the_mean_refuses():
    with pytest.raises(ValueError, match="total must be a count of 1 bits"):
        numeric_sequence(BoundedDesign(10, 3, 1), 4, 5, 5)
    with pytest.raises(ValueError, match="design must be a DiscreteLaplaceDesign, got"):
        laplace_sequence_half_width(BoundedDesign(10, 3, 1), 5)
    with pytest.raises(ValueError, match="n must be integers >= 1"):
        laplace_sequence_half_width(SMALL, [3, 0])


# --------------------------------------------------------------------------
# The sequence's pieces.


@pytest.mark.parametrize("scale", [0.5, 2.0, 10.0, 30.0])
def test_the_discrete_laplace_moment_generating_function_is_the_sum_of_its_series(scale):
    r = math.exp(-1 / scale)
    z = np.arange(-round(600 * scale) - 100, round(600 * scale) + 101)
    log_pmf = math.log((1 - r) / (1 + r)) - np.abs(z) / scale
    for lam in (0.05 / scale, 0.5 / scale, 0.9 / scale):
        direct = math.log(math.fsum(np.exp(log_pmf + lam * z)))
        assert_allclose(discrete_laplace_log_mgf(scale, lam), direct, rtol=1e-9)
    assert discrete_laplace_log_mgf(scale, 1 / scale) == np.inf


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_one_answer_is_sub_gamma_with_the_stated_proxy(epsilon):
    """Hoeffding's K^2 lam^2 / 8 plus the noise's exact log MGF stays below sigma^2 lam^2 / (2 (1 - b lam))."""
    design = laplace_for_epsilon(STEPS, epsilon)
    b, proxy = float(design.scale), laplace_variance_proxy(design)
    lam = np.linspace(1e-4, 1 - 1e-6, 2000) / b
    psi = STEPS**2 * lam**2 / 8 + discrete_laplace_log_mgf(b, lam)
    assert np.all(psi <= proxy * lam**2 / (2 * (1 - b * lam)))
    assert proxy == STEPS**2 / 4 + 2 * b * b


def test_the_stitched_boundary_by_hand_and_held_below_m():
    # s = 1.4, eta = 2: k1 = (2^(1/4) + 2^(-1/4)) / sqrt(2), k2 = (sqrt(2) + 1) / 2, zeta(1.4) = 3.1055472...
    v, alpha, m, c = 400.0, 0.025, 100.0, 3.0
    ell = 1.4 * math.log(math.log(2 * v / m)) + math.log(3.1055472779775963 / math.log(2) ** 1.4 / alpha)
    k1, k2 = (2**0.25 + 2**-0.25) / math.sqrt(2), (math.sqrt(2) + 1) / 2
    expected = math.sqrt(k1 * k1 * v * ell + (k2 * c * ell) ** 2) + k2 * c * ell
    assert_allclose(stitching_boundary(v, alpha, m, c), expected, rtol=1e-12)
    assert stitching_boundary(50.0, alpha, m, c) == stitching_boundary(m, alpha, m, c)


def test_the_laplace_sequence_is_the_mean_plus_or_minus_the_boundary():
    design = laplace_for_epsilon(STEPS, 1.0)
    proxy = laplace_variance_proxy(design)
    low, high = numeric_sequence(design, 1000, 3200, 250_000)
    half = stitching_boundary(1000 * proxy, 0.025, proxy, float(design.scale)) / 1000
    assert_allclose((low, high), (3.2 - half, 3.2 + half), rtol=1e-12)
    sequence = numeric_sequence(design, 1000, 3200, 250_000)
    assert isinstance(sequence, MeanSequence) and sequence.method == "polynomial stitching"
    assert not sequence.clipped
    assert numeric_sequence(design, 1, 3, 9) == MeanSequence(0.0, 10.0, 1, 0.95, "polynomial stitching", clipped=True)
    beyond = numeric_sequence(design, 1000, 30_000, 1_000_000)  # a mean of 30 steps on a grid of 10
    assert (beyond.low, beyond.high, beyond.clipped) == (10.0, 10.0, True)


def test_the_bounded_sequence_is_the_share_sequence_times_k():
    design = bounded_for_epsilon(STEPS, math.log(3))
    share = confidence_sequence(620, 1000, *bounded_as_forced_response(design), 0.9)
    result = numeric_sequence(design, 1000, 620, 620, level=0.9)
    assert_allclose((result.low, result.high), (10 * share.low, 10 * share.high), rtol=1e-15)
    assert result.method == "beta-binomial mixture" and not result.clipped
    assert numeric_sequence(design, 10, 10, 10).clipped


# --------------------------------------------------------------------------
# Planning.


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_the_answers_needed_for_a_margin_are_the_worst_case_formula(epsilon):
    laplace, bounded = laplace_for_epsilon(STEPS, epsilon), bounded_for_epsilon(STEPS, epsilon)
    z2 = stats.norm.ppf(0.975) ** 2
    noise = 2 * laplace.ratio / (1 - laplace.ratio) ** 2
    assert numeric_needed_n(laplace, 0.5) == math.ceil(z2 * (noise + 25) / 0.25)
    t = float(bounded_as_forced_response(bounded)[0])
    assert numeric_needed_n(bounded, 0.5) == math.ceil(z2 * 100 / (4 * t * t) / 0.25)
    assert numeric_needed_n(bounded, 0.5) == sample_size_for_half_width(
        0.05, 0.95, *bounded_as_forced_response(bounded)
    )


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_the_sequence_plan_is_the_first_n_narrow_enough(epsilon):
    laplace, bounded = laplace_for_epsilon(STEPS, epsilon), bounded_for_epsilon(STEPS, epsilon)
    n = numeric_sequence_needed_n(laplace, 0.5)
    assert laplace_sequence_half_width(laplace, n) <= 0.5 < laplace_sequence_half_width(laplace, n - 1)
    assert n > numeric_needed_n(laplace, 0.5)
    # The bounded design's exact fractions have denominators past 10^6 (2718281/1000000 at epsilon 1): planned
    # all the same (the planning search used to pass them on as floats and refuse them).
    m = numeric_sequence_needed_n(bounded, 0.5)
    t, a, b = bounded_as_forced_response(bounded)
    widths = [
        (
            confidence_sequence(size // 2, size, t, a, b).rate_high
            - confidence_sequence(size // 2, size, t, a, b).rate_low
        )
        for size in (m,)
    ]
    assert m > numeric_needed_n(bounded, 0.5) and widths[0] * 10 / (2 * float(t)) <= 0.5


def test_a_margin_past_the_range_needs_one_answer():
    assert numeric_needed_n(BoundedDesign(10, 3, 1), 10) == 1
    assert numeric_sequence_needed_n(BoundedDesign(10, 3, 1), 12) == 1
    assert numeric_sequence_needed_n(laplace_for_epsilon(10, 3.0), 1000) == 1
    with pytest.raises(ValueError, match="half_width must be > 0"):
        numeric_needed_n(SMALL, 0)


# --------------------------------------------------------------------------
# Simulations.

SURVEYS = 2000
ANSWERS = 200


@pytest.mark.parametrize("mechanism", ["laplace", "bounded"])
@pytest.mark.parametrize("epsilon", EPSILONS)
def test_the_interval_covers_the_mean_95_percent_of_the_time(mechanism, epsilon):
    rng = np.random.default_rng(round(1000 * epsilon) + (mechanism == "bounded"))
    true = true_indices(rng, (SURVEYS, ANSWERS))
    if mechanism == "laplace":
        design = laplace_for_epsilon(STEPS, epsilon)
        outputs = laplace_outputs(rng, design, true)
    else:
        design = bounded_for_epsilon(STEPS, epsilon)
        outputs = bounded_outputs(rng, design, true)
    totals, squares = outputs.sum(axis=1), (outputs * outputs).sum(axis=1)
    covered = 0
    for total, total_squares in zip(totals.tolist(), squares.tolist()):
        estimate = numeric_mean(design, ANSWERS, total, total_squares)
        covered += estimate.ci_low <= TRUE_MEAN <= estimate.ci_high
    coverage = covered / SURVEYS
    assert abs(coverage - 0.95) <= 4 * math.sqrt(0.95 * 0.05 / SURVEYS), coverage
    assert abs(totals.mean() / ANSWERS - (TRUE_MEAN if mechanism == "laplace" else 0)) < 10  # the data is there


def test_the_finite_population_interval_covers_the_population_mean():
    """200 of 300 people drawn without replacement (f = 2/3), epsilon 3: with N the interval covers the population's
    mean about 95% of the time, and its squared standard error matches the spread of the means; without N it
    over-covers (the true values' variance counted in full)."""
    rng = np.random.default_rng(11)
    size, n = 300, 200
    population = rng.integers(0, STEPS + 1, size)
    design = laplace_for_epsilon(STEPS, 3.0)
    drawn = np.argsort(rng.random((SURVEYS, size)), axis=1)[:, :n]
    outputs = laplace_outputs(rng, design, population[drawn])
    covered = covered_infinite = 0
    variances, means = [], []
    for total, total_squares in zip(outputs.sum(axis=1).tolist(), (outputs * outputs).sum(axis=1).tolist()):
        finite = numeric_mean(design, n, total, total_squares, population_size=size)
        infinite = numeric_mean(design, n, total, total_squares)
        covered += finite.ci_low <= population.mean() <= finite.ci_high
        covered_infinite += infinite.ci_low <= population.mean() <= infinite.ci_high
        variances.append(finite.std_err**2)
        means.append(finite.mean)
    error = math.sqrt(0.95 * 0.05 / SURVEYS)
    assert abs(covered / SURVEYS - 0.95) <= 4 * error, covered / SURVEYS
    assert covered_infinite / SURVEYS > 0.95 + 3 * error, covered_infinite / SURVEYS
    assert np.mean(variances) / np.var(means) == pytest.approx(1, abs=4 * math.sqrt(2 / SURVEYS))


LOOKS = 2000
SEQUENCE_SURVEYS = 1000
ALPHA = 0.05


def _excluded_at_some_n(mechanism: str, epsilon: float, seed: int) -> tuple[float, float]:
    """``(the sequence's miscoverage, the t interval's when looked at after every answer)`` over seeded surveys."""
    rng = np.random.default_rng(seed)
    true = true_indices(rng, (SEQUENCE_SURVEYS, LOOKS))
    n = np.arange(1, LOOKS + 1)
    if mechanism == "laplace":
        design = laplace_for_epsilon(STEPS, epsilon)
        running = np.cumsum(laplace_outputs(rng, design, true), axis=1)
        error = np.abs(running / n - TRUE_MEAN)
        sequence = np.any(error >= laplace_sequence_half_width(design, n), axis=1)
        naive = np.any(error[:, 9:] >= 1.96 * math.sqrt(design.noise_variance + 2.1) / np.sqrt(n[9:]), axis=1)
    else:
        design = bounded_for_epsilon(STEPS, epsilon)
        t, a, _ = bounded_as_forced_response(design)
        rate = float(a) + float(t) * TRUE_SHARE
        running = np.cumsum(bounded_outputs(rng, design, true), axis=1)
        sequence = np.any(log_mixture_martingale(running, n, rate) >= math.log(1 / ALPHA), axis=1)
        error = np.abs(running / n - rate)
        naive = np.any(error[:, 9:] >= 1.96 * np.sqrt(rate * (1 - rate) / n[9:]), axis=1)
    return float(sequence.mean()), float(naive.mean())


@pytest.mark.parametrize("mechanism", ["laplace", "bounded"])
@pytest.mark.parametrize("epsilon", EPSILONS)
def test_the_sequence_excludes_the_mean_at_some_n_in_at_most_5_percent_of_surveys(mechanism, epsilon):
    sequence, naive = _excluded_at_some_n(mechanism, epsilon, round(100 * epsilon) + 7 * (mechanism == "bounded"))
    error = 3 * math.sqrt(ALPHA * (1 - ALPHA) / SEQUENCE_SURVEYS)
    assert sequence <= ALPHA + error, sequence
    assert naive > ALPHA + error, naive  # the check can fail: a fixed-n interval looked at every time does


def test_the_sequence_functions_agree_with_the_vectorised_exclusion():
    design = laplace_for_epsilon(STEPS, 1.0)
    rng = np.random.default_rng(5)
    outputs = laplace_outputs(rng, design, true_indices(rng, 500))
    for n in (1, 17, 500):
        low, high = numeric_sequence(design, *sums(outputs[:n]))
        half = float(laplace_sequence_half_width(design, n))
        assert (low <= TRUE_MEAN <= high) == (abs(outputs[:n].sum() / n - TRUE_MEAN) < half)


# --------------------------------------------------------------------------
# The nprr reference (Waudby-Smith, Wu and Ramdas 2023), its printed figures on reference_bits and
# reference_laplace; see the module docstring for how they were produced.

#: ``mechanisms.r_from_G_eps(1, design.epsilon)`` and ``mechanisms.G_from_r_eps(t, design.epsilon)`` for the
#: bounded design at epsilon 1 (high 2718281, low 1000000), and ``dpcs.zeta(mu, t)`` (NPRR's chance of sending 1
#: when the mean of ``x = k / K`` is ``mu``).
NPRR_R = 0.46211703741594573
NPRR_G = 1.0000000000000004
NPRR_ZETA = {0.0: 0.26894148129202716, 0.3: 0.4075765925168109, 1.0: 0.7310585187079728}
#: ``n -> (S, dpcs.mu_hat_t(bits, t)[n - 1], dpcs.nprr_hoeffding_ci(bits[:n], t, alpha=0.05,
#: running_intersection=False), dpcs.nprr_hoeffding_cs(bits[:n], t, alpha=0.05) at n)`` on :func:`reference_bits`,
#: on the share scale ``k / K``.
NPRR_BITS = {
    10: (4, 0.2836046025068076, (0.0, 1.0), (0.0, 1.0)),
    100: (36, 0.19704644350953063, (0.0, 0.4909333608443286), (0.0, 0.5437168653555771)),
    1000: (
        410,
        0.3052441422561206,
        (0.21230893892576608, 0.3981793455864807),
        (0.15645378584862493, 0.4210458940080697),
    ),
    5000: (
        2079,
        0.3177950753107545,
        (0.2762331888808626, 0.35935696174064385),
        (0.2299438592984991, 0.37037651692462886),
    ),
}
#: ``cgf.psi_L(x / b, scale=b)`` (the continuous Laplace's cumulant generating function) at ``b lam = x``, ``b = 10``.
NPRR_PSI_L = {0.1: 0.01005033585350145, 0.5: 0.2876820724517809, 0.9: 1.6607312068216507}
#: ``n -> (T, dpcs.laplace_hoeffding_cs(Y[:n] / K, scale=b / K, alpha=0.05) at n, dpcs.laplace_hoeffding_ci(same))``
#: on :func:`reference_laplace` (K = 10, b = 10), share scale.
NPRR_LAPLACE = {
    10: (33, (0.0, 1.0), (0.0, 1.0)),
    100: (502, (0.017482898046123685, 0.9929949503674451), (0.03190503166145048, 0.9674356266273331)),
    1000: (3151, (0.1871412036225872, 0.48596452885016106), (0.19895772997426844, 0.44222345514282113)),
    5000: (15333, (0.2406316132389847, 0.3926101922468786), (0.2553988112589691, 0.3609127855597549)),
}


def test_the_bounded_design_is_nprr_with_one_grid_step():
    """NPRR with G = 1 and r = (high - low) / (high + low): same r for the epsilon, same chance of a 1, same epsilon."""
    design = bounded_for_epsilon(STEPS, 1.0)
    t, a, _ = bounded_as_forced_response(design)
    assert_allclose(float(t), NPRR_R, rtol=1e-14)
    assert_allclose(NPRR_G, 1.0, rtol=1e-14)  # the grid NPRR's epsilon for our r is our epsilon at G = 1
    for mu, chance in NPRR_ZETA.items():
        assert_allclose(float(design.one_probability(round(mu * STEPS))), chance, rtol=1e-15)


def test_the_bounded_mean_and_intervals_beside_nprrs():
    """The debiased mean equals NPRR's to rounding; our Wilson interval is narrower than its Hoeffding interval and
    our mixture sequence no wider than its Hoeffding sequence, all holding the true share 0.3."""
    design, true, bits = reference_bits()
    assert true.mean() == pytest.approx(TRUE_MEAN, abs=0.05)
    for n, (ones, mean, interval, sequence) in NPRR_BITS.items():
        assert int(bits[:n].sum()) == ones  # the same data nprr was run on
        ours = numeric_mean(design, n, ones, ones)
        assert_allclose(ours.mean / STEPS, mean, rtol=1e-13)
        ours_sequence = numeric_sequence(design, n, ones, ones)
        for low, high in (interval, sequence, (ours.ci_low / STEPS, ours.ci_high / STEPS)):
            assert low <= TRUE_SHARE <= high
        assert ours_sequence.low / STEPS <= TRUE_SHARE <= ours_sequence.high / STEPS
        if n >= 100:
            assert (ours.ci_high - ours.ci_low) / STEPS < interval[1] - interval[0]
            assert (ours_sequence.high - ours_sequence.low) / STEPS <= sequence[1] - sequence[0]


def test_the_laplace_sequence_beside_nprrs_laplace_hoeffding_sequence():
    """nprr's Laplace-Hoeffding sequence assumes continuous Laplace noise, whose CGF bounds the discrete one's (so
    it is valid on our data); both sequences hold the true share. Ours depends on (n, T) alone and is at most 40%
    wider (at n = 1,000: 0.41 against 0.30; at 5,000: 0.18 against 0.15), and our t interval is narrower than its
    fixed-n Laplace-Hoeffding interval."""
    design, true, outputs = reference_laplace()
    b = float(design.scale)
    for x, psi in NPRR_PSI_L.items():
        assert discrete_laplace_log_mgf(b, x / b) < psi
    for n, (total, sequence, interval) in NPRR_LAPLACE.items():
        assert int(outputs[:n].sum()) == total
        ours = numeric_sequence(design, *sums(outputs[:n]))
        fixed = numeric_mean(design, *sums(outputs[:n]))
        for low, high in (sequence, interval, (ours.low / STEPS, ours.high / STEPS)):
            assert low <= TRUE_SHARE <= high
        if n >= 100:
            assert (ours.high - ours.low) / STEPS <= 1.4 * (sequence[1] - sequence[0])
            assert (fixed.ci_high - fixed.ci_low) / STEPS < interval[1] - interval[0]


# --------------------------------------------------------------------------
# Every field of the results, the ends of the accepted sums and the search's edge cases.


def test_sums_at_the_ends_of_the_output_range_are_accepted():
    """Every output at the clamp's low end (-20 for SMALL: output range [-20, 30]) or at its high end: T = n low or
    n high and n Q = T^2 = n^2 high^2 are possible, so both are accepted (the checks are inclusive)."""
    low, high = SMALL.output_range
    assert (low, high) == (-20, 30)
    assert numeric_mean(SMALL, 2, 2 * low, 2 * low * low).mean == -20.0
    at_high = numeric_mean(SMALL, 2, 2 * high, 2 * high * high)
    assert at_high.mean == 30.0 and at_high.true_variance == 0.0  # s^2 = 0: floored
    assert (at_high.ci_low, at_high.ci_high) == (10.0, 10.0)


def test_a_bad_half_width_or_scale_is_refused_under_its_own_name():
    with pytest.raises(ValueError, match=r"^half_width must be a finite number, got half_width='wide'$"):
        numeric_needed_n(SMALL, "wide")
    with pytest.raises(ValueError, match=r"^scale must be a finite number, got scale='b'$"):
        discrete_laplace_log_mgf("b", 0.1)
    for scale in (0, 0.0, -1.5):
        with pytest.raises(ValueError, match=rf"^scale must be > 0, got scale={scale!r}$"):
            discrete_laplace_log_mgf(scale, 0.1)


def test_exact_fractions_are_read_as_floats_by_the_mgf_and_the_boundary():
    """``lam`` and the intrinsic time are any real numbers, alone or in a sequence: exact Fractions give what their
    floats give (an array of Fractions would be an object array, which numpy's sinh and log refuse)."""
    assert discrete_laplace_log_mgf(2.0, Fraction(1, 4)) == discrete_laplace_log_mgf(2.0, 0.25)
    assert_array_equal(
        discrete_laplace_log_mgf(2.0, [Fraction(1, 4), Fraction(-1, 8)]), discrete_laplace_log_mgf(2.0, [0.25, -0.125])
    )
    assert stitching_boundary(Fraction(400), 0.025, 100.0, 3.0) == stitching_boundary(400.0, 0.025, 100.0, 3.0)
    assert_array_equal(
        stitching_boundary([Fraction(400), Fraction(50)], 0.025, 100.0, 3.0),
        stitching_boundary([400.0, 50.0], 0.025, 100.0, 3.0),
    )


def test_the_bounded_mean_keeps_every_field():
    """BoundedDesign(10, 3, 1), 5 ones of 8, N = 40 at 90%: the fields passed through are those given."""
    design = BoundedDesign(10, 3, 1)
    estimate = numeric_mean(design, 8, 5, 5, level=0.9, population_size=40)
    assert (estimate.n, estimate.steps, estimate.confidence_level) == (8, 10, 0.9)
    assert (estimate.population_size, estimate.sampling_fraction) == (40, 0.2)
    assert estimate.side == "two-sided" and estimate.method == "wilson"
    low, _ = proportion_confint(5, 8, alpha=0.1, method="wilson")
    assert_allclose(estimate.ci_low, 10 * (low - 0.25) / 0.5, rtol=1e-12)


def test_the_laplace_mean_keeps_every_field_and_is_clipped_only_at_an_end():
    """Epsilon 3 on 10 steps; 10,000 answers with T = 10,000 and s^2 about 25 + noise (Q = s^2 (n - 1) + T^2 / n,
    rounded): mean 1, standard error about sqrt((25 + 22) / 10,000) = 0.07, so the 90% interval is about
    [0.89, 1.11]: off both ends, its low end inside (0, 1]."""
    design = laplace_for_epsilon(STEPS, 3.0)
    n, total = 10_000, 10_000
    total_squares = round((25 + design.noise_variance) * (n - 1) + total * total / n)
    estimate = numeric_mean(design, n, total, total_squares, level=0.9)
    assert (estimate.n, estimate.steps, estimate.confidence_level) == (n, 10, 0.9)
    assert estimate.clipped_mean == 1.0
    assert 0.8 < estimate.ci_low < 1.0 < estimate.ci_high < 1.2 and not estimate.clipped
    # Outputs all at the low clamp -134: the whole interval lies below 0 and is 0 alone.
    below = numeric_mean(design, 4, -4 * 134, 4 * 134 * 134)
    assert (below.ci_low, below.ci_high, below.clipped, below.clipped_mean) == (0.0, 0.0, True, 0.0)


def test_the_bounded_sequence_keeps_every_field_and_says_when_it_reaches_zero():
    design = BoundedDesign(10, 3, 1)
    t, a, b = bounded_as_forced_response(design)
    share = confidence_sequence(2, 20, t, a, b, 0.9)  # 10% ones, below a = 1/4: a one-sided (upper) sequence
    result = numeric_sequence(design, 20, 2, 2, level=0.9)
    assert result == MeanSequence(share.low * 10, share.high * 10, 20, 0.9, "beta-binomial mixture", "upper", True)
    assert result.low == 0.0 and 0.0 < result.high < 10.0


def test_the_laplace_sequence_at_another_level_and_off_both_ends():
    """Epsilon 3, 10,000 answers of mean 1.2, at 90%: the half-width is the boundary at alpha / 2 = 0.05 and the
    sequence, about [0.9, 1.5], reaches neither end; outputs all at the low clamp give the end 0 alone."""
    design = laplace_for_epsilon(STEPS, 3.0)
    proxy = laplace_variance_proxy(design)
    sequence = numeric_sequence(design, 10_000, 12_000, 40_000, level=0.9)
    half = float(stitching_boundary(10_000 * proxy, 0.05, proxy, float(design.scale))) / 10_000
    assert_allclose((sequence.low, sequence.high), (1.2 - half, 1.2 + half), rtol=1e-12)
    assert sequence.confidence_level == 0.9 and sequence.low > 0.0 and not sequence.clipped
    below = numeric_sequence(design, 100, -100 * 134, 100 * 134 * 134)
    assert (below.low, below.high, below.clipped) == (0.0, 0.0, True)


def test_the_difference_keeps_its_level_and_both_groups_estimates():
    design = BoundedDesign(10, 3, 1)
    result = numeric_difference(design, (100, 60, 60), (80, 30, 30), level=0.9)
    assert result.confidence_level == 0.9
    assert result.first == numeric_mean(design, 100, 60, 60, level=0.9)
    assert result.second == numeric_mean(design, 80, 30, 30, level=0.9)


def test_the_sequence_plan_at_the_widths_of_one_and_two_answers():
    """h equal to the half-width after one answer needs one answer; h equal to it after two answers needs two; a
    bounded margin of exactly K needs one answer (the share h / K = 1 is not passed on to the share planner)."""
    design = laplace_for_epsilon(STEPS, 3.0)
    one, two = (float(laplace_sequence_half_width(design, n)) for n in (1, 2))
    assert numeric_sequence_needed_n(design, one) == 1
    assert numeric_sequence_needed_n(design, two) == 2
    assert numeric_sequence_needed_n(BoundedDesign(10, 3, 1), 10) == 1


def test_the_sequence_plan_at_another_level():
    design = laplace_for_epsilon(STEPS, 1.0)
    n = numeric_sequence_needed_n(design, 0.5, level=0.8)
    assert laplace_sequence_half_width(design, n, 0.8) <= 0.5 < laplace_sequence_half_width(design, n - 1, 0.8)
    assert n < numeric_sequence_needed_n(design, 0.5)
