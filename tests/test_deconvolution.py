"""analysis.deconvolution: exact transition probabilities, the maximum likelihood, its band and its coverage.

The transition probabilities are checked against the noise's probability function summed bucket by bucket
through the design's own ``bucket``; the estimate against an independent optimizer; the standard errors
against a finite-difference Hessian; recovery and coverage on simulated respondents and counts with fixed
seeds, with tolerances from the band and from the binomial error of the simulation.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import optimize

from analysis import deconvolution
from analysis.deconvolution import (
    BOUNDED_REASON,
    COUNTED,
    EM_TOLERANCE,
    OBSERVED_INFORMATION,
    SINGULAR_INFORMATION,
    BinShare,
    Distribution,
    bins_from_cuts,
    bucket_probabilities,
    deconvolve,
    optimality_gap,
)
from analysis.intervals import wilson_interval
from analysis.numeric_design import BoundedDesign, DiscreteLaplaceDesign, laplace_for_epsilon

CUTS = (6, 12, 18, 24)


@pytest.fixture(autouse=True)
def _fresh_bucket_probabilities():
    """Each test computes the transition matrices itself: the module keeps them per design (an lru_cache), and
    mutmut runs each mutant in a process forked after the clean run filled that cache, where a mutant of the
    functions behind it would otherwise never run."""
    deconvolution._bucket_probabilities.cache_clear()


TRUTH = np.array([0.4, 0.3, 0.2, 0.05, 0.05])


def _bin_columns(matrix: np.ndarray, bins) -> np.ndarray:
    """Each bucket's chance given each bin, a uniform truth within the bin: the mean of the bin's columns."""
    return np.column_stack([matrix[:, low : high + 1].mean(axis=1) for low, high in bins])


def brute_force(design: DiscreteLaplaceDesign, k: int) -> dict[str, float]:
    """``P(bucket | k)``: ``P(Z = z) = (1 - r)/(1 + r) r^|z|`` summed over every clamped output, the tails
    beyond the clamp (``r^(t + 1)/(1 + r)`` each, ``t`` the distance to the end) added at the ends."""
    low, high = design.output_range
    r = design.ratio
    chances: dict[str, float] = {}
    for y in range(low, high + 1):
        p = (1 - r) / (1 + r) * r ** abs(y - k)
        if y == low:
            p += r ** (k - low + 1) / (1 + r)
        if y == high:
            p += r ** (high - k + 1) / (1 + r)
        chances[design.bucket(y)] = chances.get(design.bucket(y), 0.0) + p
    return chances


@pytest.mark.parametrize(
    "design",
    [
        laplace_for_epsilon(30, 3.0),  # buckets one output wide
        DiscreteLaplaceDesign(10, Fraction(1, 10)),  # the clamp (4) just beyond the first edge (-1)
        DiscreteLaplaceDesign(200, Fraction(25, 2)),  # buckets 4 outputs wide
    ],
)
def test_bucket_probabilities_are_the_noise_summed_by_bucket(design):
    labels, matrix = bucket_probabilities(design)
    assert labels[0] == "b00" and len(labels) == len(design.bucket_edges()) + 2
    for k in (0, 1, design.steps // 3, design.steps):
        expected = brute_force(design, k)
        assert_allclose(matrix[:, k], [expected.get(label, 0.0) for label in labels], atol=1e-15)
    assert_allclose(matrix.sum(axis=0), 1.0, atol=1e-14)


@pytest.mark.parametrize(
    "design",
    [
        DiscreteLaplaceDesign(30, Fraction(1, 25)),  # epsilon 750
        DiscreteLaplaceDesign(1000, Fraction(1, 1)),  # epsilon 1000
        DiscreteLaplaceDesign(30, Fraction(3, 100_000)),  # epsilon 10^6: r = exp(-33,333) is 0 in floats
    ],
)
def test_bucket_probabilities_are_exact_far_above_the_largest_epsilon(design):
    """Surveys cap epsilon at 10, but a design of any scale gets exact chances, without a warning (the tests
    turn warnings into errors): beyond epsilon 700 the forms of the noise's distribution function not used for
    a bucket overflowed (``r^(-x)``, ``x / scale`` above 709) and their difference warned "invalid value"."""
    labels, matrix = bucket_probabilities(design)
    for k in (0, 1, design.steps // 3, design.steps):
        expected = brute_force(design, k)
        assert_allclose(matrix[:, k], [expected.get(label, 0.0) for label in labels], atol=1e-15)
    assert_allclose(matrix.sum(axis=0), 1.0, atol=1e-14)


@pytest.mark.parametrize("scale", [Fraction(1, 25), Fraction(1, 10)])
def test_a_narrow_noise_keeps_each_chance_to_its_relative_precision(scale):
    """At a small scale ``r = exp(-1 / scale)`` is tiny (1.4e-11 at 1/25), and a bucket that starts at ``k + 1``
    has the chance ``(r - r^(hi + 1 - k)) / (1 + r)``, about ``r``: written as ``1 - (1 + ...) / (1 + r)`` it
    would keep only its absolute precision (1e-16, a relative 1e-5). The brute-force sum adds terms of one sign,
    each to a relative 1e-16, so every chance agrees to a relative 1e-12 (chances below 1e-300 are subnormal or
    0 in both)."""
    design = DiscreteLaplaceDesign(30, scale)
    labels, matrix = bucket_probabilities(design)
    for k in range(design.steps + 1):
        expected = brute_force(design, k)
        assert_allclose(matrix[:, k], [expected.get(label, 0.0) for label in labels], rtol=1e-12, atol=1e-300)


def test_bins_from_cuts():
    # K = 30, cuts (6, 12, 18, 24): [0, 6) [6, 12) [12, 18) [18, 24) [24, 30].
    assert bins_from_cuts(CUTS, 30) == ((0, 5), (6, 11), (12, 17), (18, 23), (24, 30))
    assert bins_from_cuts((), 30) == ((0, 30),)
    assert bins_from_cuts((30,), 30) == ((0, 29), (30, 30))


def mixture(design: DiscreteLaplaceDesign, cuts, weights) -> tuple[tuple[str, ...], np.ndarray]:
    """Bucket labels and the bucket chances of true values spread evenly within bins of ``weights``."""
    labels, matrix = bucket_probabilities(design)
    bins = bins_from_cuts(cuts, design.steps)
    columns = _bin_columns(matrix, bins)
    return labels, columns @ np.asarray(weights)


def test_counts_at_their_expectation_give_back_the_shares():
    # Counts n A w rounded at n = 10^10 are the expected counts to a relative 1e-10: the maximum is w itself.
    design = laplace_for_epsilon(30, 3.0)
    labels, chances = mixture(design, CUTS, TRUTH)
    counts = dict(zip(labels, np.rint(chances * 1e10).astype(int).tolist()))
    result = deconvolve(design, counts, CUTS)
    assert result.identified and result.converged and result.band_method == OBSERVED_INFORMATION
    assert_allclose([share.share for share in result.shares], TRUTH, atol=1e-6)


def log_likelihood(chances_by_bin: np.ndarray, counts: np.ndarray, weights: np.ndarray) -> float:
    return float(counts @ np.log(chances_by_bin @ weights))


def test_the_maximum_matches_an_independent_optimizer():
    # SLSQP on the simplex, from the truth, reaches no higher log-likelihood than the EM's.
    design = laplace_for_epsilon(30, 1.0)
    labels, matrix = bucket_probabilities(design)
    bins = bins_from_cuts(CUTS, 30)
    by_bin = _bin_columns(matrix, bins)
    counts = np.random.default_rng(11).multinomial(3000, by_bin @ TRUTH)
    result = deconvolve(design, dict(zip(labels, counts.tolist())), CUTS)
    reference = optimize.minimize(
        lambda w: -log_likelihood(by_bin, counts, w),
        TRUTH,
        method="SLSQP",
        bounds=[(0, 1)] * 5,
        constraints={"type": "eq", "fun": lambda w: w.sum() - 1},
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    best = np.maximum(reference.x, 0) / np.maximum(reference.x, 0).sum()
    assert result.converged
    assert result.log_likelihood >= log_likelihood(by_bin, counts, best) - 1e-9
    # The certificate: l(w) + optimality_gap bounds every l on the simplex, so the reference's too.
    estimate = np.array([s.share for s in result.shares])
    gap = optimality_gap(by_bin, counts.astype(float), estimate)
    assert 0 <= gap < EM_TOLERANCE
    assert log_likelihood(by_bin, counts, best) <= result.log_likelihood + gap + 1e-9
    assert_allclose(result.log_likelihood, log_likelihood(by_bin, counts, np.array([s.share for s in result.shares])))


def test_a_maximum_from_few_answers_matches_an_independent_optimizer():
    """150 answers, most buckets holding 0, 1 or 2: SLSQP on the simplex reaches no higher log-likelihood (the
    test's own, over every bucket with an answer) than the fit's, which reports that log-likelihood."""
    design = laplace_for_epsilon(30, 3.0)
    labels, matrix = bucket_probabilities(design)
    bins = bins_from_cuts(CUTS, 30)
    by_bin = _bin_columns(matrix, bins)
    counts = np.rint(by_bin @ np.array([0.3, 0.25, 0.2, 0.15, 0.1]) * 150).astype(int)
    assert np.count_nonzero(counts == 1) >= 10
    result = deconvolve(design, dict(zip(labels, counts.tolist())), CUTS)
    reference = optimize.minimize(
        lambda w: -log_likelihood(by_bin, counts, w),
        np.full(5, 0.2),
        method="SLSQP",
        bounds=[(0, 1)] * 5,
        constraints={"type": "eq", "fun": lambda w: w.sum() - 1},
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    best = np.maximum(reference.x, 0) / np.maximum(reference.x, 0).sum()
    estimate = np.array([s.share for s in result.shares])
    assert result.converged
    assert result.log_likelihood == pytest.approx(log_likelihood(by_bin, counts, estimate), rel=1e-12)
    assert result.log_likelihood >= log_likelihood(by_bin, counts, best) - 1e-9
    assert_allclose(estimate, best, atol=1e-4)


@pytest.mark.parametrize("total", [5000, 150])
def test_standard_errors_are_the_inverse_of_minus_the_hessian(total):
    # At an interior maximum, the SE of each share is the root of the diagonal of G H^-1 G' with H minus the
    # Hessian of the log-likelihood in the four free shares (the fifth 1 - their sum), by central differences.
    # At 150 answers many buckets hold exactly one, and every bucket with an answer counts.
    design = laplace_for_epsilon(30, 3.0)
    labels, matrix = bucket_probabilities(design)
    bins = bins_from_cuts(CUTS, 30)
    by_bin = _bin_columns(matrix, bins)
    weights = np.array([0.3, 0.25, 0.2, 0.15, 0.1])
    counts = np.rint(by_bin @ weights * total).astype(int)
    result = deconvolve(design, dict(zip(labels, counts.tolist())), CUTS)
    estimate = np.array([share.share for share in result.shares])
    assert estimate.min() > 0.05

    def free(x):
        return log_likelihood(by_bin, counts, np.append(x, 1 - x.sum()))

    h, x0 = 1e-4, estimate[:-1]
    hessian = np.zeros((4, 4))
    for i in range(4):
        for j in range(4):
            ei, ej = np.eye(4)[i] * h, np.eye(4)[j] * h
            hessian[i, j] = (free(x0 + ei + ej) - free(x0 + ei - ej) - free(x0 - ei + ej) + free(x0 - ei - ej)) / (
                4 * h * h
            )
    lift = np.vstack([np.eye(4), -np.ones(4)])
    expected = np.sqrt(np.diag(lift @ np.linalg.inv(-hessian) @ lift.T))
    assert_allclose([share.std_err for share in result.shares], expected, rtol=1e-4)
    z = 1.959963984540054
    assert_allclose(
        [(s.band_low, s.band_high) for s in result.shares],
        [(max(0.0, w - z * se), min(1.0, w + z * se)) for w, se in zip(estimate, expected)],
        rtol=1e-4,
    )


def simulate_outputs(design: DiscreteLaplaceDesign, cuts, weights, n: int, rng) -> dict[str, int]:
    """``n`` respondents: a bin by ``weights``, a grid index evenly within it, then ``Y = clamp(k + Z)`` with
    ``Z`` the difference of two geometric counts of failures of chance ``1 - r`` (two-sided geometric), kept as
    ``design.bucket(Y)``."""
    bins = bins_from_cuts(cuts, design.steps)
    chosen = rng.choice(len(bins), size=n, p=weights)
    lows = np.array([low for low, _ in bins])[chosen]
    widths = np.array([high - low + 1 for low, high in bins])[chosen]
    k = lows + np.floor(rng.random(n) * widths).astype(int)
    r = design.ratio
    z = rng.geometric(1 - r, n) - rng.geometric(1 - r, n)
    low, high = design.output_range
    values, counts = np.unique(np.clip(k + z, low, high), return_counts=True)
    kept: dict[str, int] = {}
    for value, count in zip(values.tolist(), counts.tolist()):
        kept[design.bucket(value)] = kept.get(design.bucket(value), 0) + count
    return kept


@pytest.mark.parametrize(("steps", "epsilon", "cuts"), [(30, 3.0, CUTS), (100, 2.0, (20, 40, 60, 80))])
def test_recovers_a_known_distribution_from_simulated_respondents(steps, epsilon, cuts):
    # 5,000 respondents; the truth lies in each bin's 99.9% band (chance of a miss per bin below .001 if the
    # band is right; it is conservative at the boundary).
    design = laplace_for_epsilon(steps, epsilon)
    counts = simulate_outputs(design, cuts, TRUTH, 5000, np.random.default_rng(steps))
    result = deconvolve(design, counts | {"=sum": 123, "=sumsq": 4567}, cuts, level=0.999)
    assert result.identified and result.converged and result.n == 5000
    for share, truth in zip(result.shares, TRUTH):
        assert share.band_low <= truth <= share.band_high, (share, truth)
    assert_allclose(sum(share.share for share in result.shares), 1.0)


@pytest.mark.parametrize(("epsilon", "truth"), [(3.0, TRUTH), (1.0, np.array([0.0, 0.1, 0.5, 0.3, 0.1]))])
def test_band_coverage_over_seeds(epsilon, truth):
    # 200 samples of 2,000 answers drawn from the exact bucket chances: each bin's 95% band covers its share
    # in at least 95% of them, up to 3 binomial standard errors of the simulation (sqrt(.95 * .05/200) = .0154).
    # (The band is conservative where estimates reach 0, so coverage is often above nominal.)
    design = laplace_for_epsilon(30, epsilon)
    labels, chances = mixture(design, CUTS, truth)
    rng = np.random.default_rng(int(epsilon * 10))
    replications = 200
    covered = np.zeros(len(truth))
    for _ in range(replications):
        result = deconvolve(design, dict(zip(labels, rng.multinomial(2000, chances).tolist())), CUTS)
        covered += [share.band_low <= w <= share.band_high for share, w in zip(result.shares, truth)]
    assert np.all(covered / replications >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / replications)), covered


def test_one_bit_design_is_not_identified():
    result = deconvolve(BoundedDesign(30, 3, 1), {"b00": 40, "b01": 60, "=sum": 60}, CUTS)
    assert not result.identified and result.reason == BOUNDED_REASON and result.shares == ()
    assert result.n == 100 and len(result.bins) == 5


def test_plain_number_is_counted():
    # 10, 30, 60 answers in bins [0, 5) [5, 10) [10, 20]: shares .1, .3, .6 with Wilson's intervals,
    # SE sqrt(.1 * .9/100) = .03.
    result = deconvolve(None, {"b00": 10, "b01": 30, "b02": 60}, (5, 10), steps=20)
    assert result.band_method == COUNTED and result.bins == ((0, 4), (5, 9), (10, 20))
    assert_allclose([s.share for s in result.shares], [0.1, 0.3, 0.6])
    assert_allclose(result.shares[0].std_err, 0.03)
    interval = wilson_interval(30, 100, 1, 0, 0)
    assert (result.shares[1].band_low, result.shares[1].band_high) == (interval.low, interval.high)


def test_a_plain_number_is_counted_whole_at_the_level_asked():
    """Every field of the counted distribution: each bin's ends, share, standard error and Wilson interval at
    the level asked (90% here, not the default); one answer is a distribution already, none is not."""
    bins = ((0, 4), (5, 9), (10, 20))
    result = deconvolve(None, {"b00": 10, "b01": 30, "b02": 60}, (5, 10), steps=20, level=0.9)
    shares = []
    for (low, high), count in zip(bins, (10, 30, 60)):
        interval = wilson_interval(count, 100, 1, 0, 0, 0.9)
        share = count / 100
        shares.append(BinShare(low, high, share, math.sqrt(share * (1 - share) / 100), interval.low, interval.high))
    assert result == Distribution(True, "", bins, tuple(shares), 100, COUNTED, 0.9)
    assert result.shares[1].band_low != wilson_interval(30, 100, 1, 0, 0).low
    one = deconvolve(None, {"b02": 1}, (5, 10), steps=20)
    assert one.identified and one.n == 1 and [s.share for s in one.shares] == [0.0, 0.0, 1.0]
    none = deconvolve(None, {}, (5, 10), steps=20, level=0.8)
    assert none == Distribution(False, "no answers yet", bins, (), 0, "", 0.8)


def test_no_answers_and_one_bin():
    design = laplace_for_epsilon(30, 3.0)
    empty = deconvolve(design, {}, CUTS)
    assert not empty.identified and empty.reason == "no answers yet" and empty.n == 0
    assert empty == Distribution(False, "no answers yet", bins_from_cuts(CUTS, 30), (), 0, "", 0.95)
    whole = deconvolve(design, {"b10": 5}, ())
    assert [(s.share, s.band_low, s.band_high) for s in whole.shares] == [(1.0, 1.0, 1.0)]
    one = (BinShare(0, 30, 1.0, 0.0, 1.0, 1.0),)
    assert whole == Distribution(True, "", ((0, 30),), one, 5, OBSERVED_INFORMATION, 0.95, 0, True, 0.0)
    assert deconvolve(design, {"b10": 5}, (), level=0.9).confidence_level == 0.9


def test_singular_information_gives_the_whole_range():
    # Every answer in one bucket: the information has rank 1, so three bins are not told apart.
    result = deconvolve(laplace_for_epsilon(30, 3.0), {"b20": 50}, (10, 20))
    assert result.band_method == SINGULAR_INFORMATION
    assert all((s.band_low, s.band_high, s.std_err) == (0.0, 1.0, math.inf) for s in result.shares)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: deconvolve(laplace_for_epsilon(30, 3.0), {"b99": 1}, CUTS), "unknown bucket 'b99'"),
        (lambda: deconvolve(laplace_for_epsilon(30, 3.0), {"b01": -1}, CUTS), r"bucket_counts\['b01'\]=-1"),
        (lambda: deconvolve(laplace_for_epsilon(30, 3.0), {"b01": 1}, (6, 6)), r"cuts\[1\]=6"),
        (lambda: deconvolve(laplace_for_epsilon(30, 3.0), {"b01": 1}, (0,)), r"cuts\[0\]=0"),
        (lambda: deconvolve(laplace_for_epsilon(30, 3.0), {"b01": 1}, (31,)), r"cuts\[0\]=31"),
        (lambda: deconvolve(laplace_for_epsilon(30, 3.0), {"b01": 1}, CUTS, steps=20), "steps=20"),
        (lambda: deconvolve(laplace_for_epsilon(30, 3.0), {"b01": 1}, CUTS, level=0), "level"),
        (lambda: deconvolve(None, {"b00": 1}, CUTS), "steps is required"),
        (lambda: deconvolve("laplace", {"b00": 1}, CUTS, steps=30), "design must be"),
        (lambda: deconvolve(None, {"b05": 1}, (10,), steps=30), "unknown bucket 'b05'"),
        # Scale 1/40: the clamp is 1 step, the first edge -1, so "b00" (outputs below -1) cannot occur.
        (lambda: deconvolve(DiscreteLaplaceDesign(10, Fraction(1, 40)), {"b00": 1}, (5,)), "b00 cannot hold"),
    ],
)
def test_bad_arguments_are_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize(("steps", "epsilon"), [(1000, 0.1), (1000, 10.0), (1, 0.1), (5, 10.0)])
def test_the_fit_converges_at_the_extremes_of_the_grid_and_epsilon(steps, epsilon):
    # 20 bins (or one per grid index when fewer), 10,000 answers from an uneven truth with empty bins: the fit
    # stops on its certificate (converged), every share in [0, 1], summing to 1.
    design = laplace_for_epsilon(steps, epsilon)
    cuts = tuple(range(max(1, steps // 20), steps + 1, max(1, steps // 20)))[:19]
    bins = len(cuts) + 1
    truth = np.array([(i % 3 == 0) * (i + 1.0) for i in range(bins)])
    labels, chances = mixture(design, cuts, truth / truth.sum())
    counts = np.random.default_rng(steps).multinomial(10_000, chances)
    result = deconvolve(design, dict(zip(labels, counts.tolist())), cuts)
    shares = [share.share for share in result.shares]
    assert result.converged and len(shares) == bins
    assert min(shares) >= 0 and max(shares) <= 1
    assert abs(math.fsum(shares) - 1) <= 1e-14  # each step divides by its sum


@pytest.mark.parametrize("limit", [1, 2])
def test_a_fit_stopped_at_the_step_limit_says_it_did_not_converge(monkeypatch, limit):
    """With the step limit cut to 1 or 2, the fit of 3,000 answers stops there: its iterations are the limit, and
    converged is false, as the certificate at its estimate says (a gap above the tolerance)."""
    monkeypatch.setattr(deconvolution, "EM_MAX_STEPS", limit)
    design = laplace_for_epsilon(30, 1.0)
    labels, matrix = bucket_probabilities(design)
    by_bin = _bin_columns(matrix, bins_from_cuts(CUTS, 30))
    counts = np.random.default_rng(11).multinomial(3000, by_bin @ TRUTH)
    result = deconvolve(design, dict(zip(labels, counts.tolist())), CUTS)
    estimate = np.array([s.share for s in result.shares])
    assert (result.iterations, result.converged) == (limit, False)
    assert optimality_gap(by_bin, counts.astype(float), estimate) >= EM_TOLERANCE
    if limit == 1:  # one accelerated EM step from even shares (test_an_accelerated_em_step_follows_squarem_s3)
        assert_allclose(estimate, squarem_s3(by_bin, counts.astype(float), np.full(5, 0.2))[0], rtol=1e-9)


def test_a_small_information_still_gives_its_standard_error():
    """At epsilon 0.1 two bins are hard to tell apart: 8 answers give an information J of about 0.02 (below 1),
    still invertible, so the standard error is 1 / sqrt(J) (one free share, J = sum c_j D_j^2 / lambda_j^2)."""
    design = laplace_for_epsilon(30, 0.1)
    labels, matrix = bucket_probabilities(design)
    by_bin = _bin_columns(matrix, bins_from_cuts((15,), 30))
    answers = {labels[2]: 4, labels[-3]: 4}
    result = deconvolve(design, answers, (15,))
    counts = np.array([answers.get(label, 0) for label in labels], dtype=float)
    chances = by_bin @ np.array([s.share for s in result.shares])
    information = float((counts * (by_bin[:, 0] - by_bin[:, 1]) ** 2 / chances**2).sum())
    assert 0 < information < 1 and result.band_method == OBSERVED_INFORMATION
    assert_allclose([s.std_err for s in result.shares], [1 / math.sqrt(information)] * 2, rtol=1e-9)


def extremes_cuts_and_truth(steps: int) -> tuple[tuple[int, ...], np.ndarray]:
    """The cuts and true shares of test_the_fit_converges_at_the_extremes_of_the_grid_and_epsilon: 20 bins (or
    one per grid index when fewer), a third of them empty, the others growing."""
    cuts = tuple(range(max(1, steps // 20), steps + 1, max(1, steps // 20)))[:19]
    truth = np.array([(i % 3 == 0) * (i + 1.0) for i in range(len(cuts) + 1)])
    return cuts, truth / truth.sum()


@pytest.mark.parametrize(
    ("steps", "epsilon", "cuts", "truth", "total", "seed"),
    [
        (30, 10.0, CUTS, np.array([0.0, 0.0, 1.0, 0.0, 0.0]), 5000, 7),
        (200, 5.0, *extremes_cuts_and_truth(200), 10_000, 200),
    ],
)
def test_the_fit_converges_where_the_maximum_has_empty_bins(steps, epsilon, cuts, truth, total, seed):
    """Two samples whose maximum has shares at exactly 0, where the finish used to stall at a gap of 1.7e-8 and
    4.9e-8 for 2,000 steps: there the log-likelihood (-14,474 and -36,000) is kept to 2e-12 and 7e-12, far
    above what the Newton step gains (about gap^2 / information: 1e-21 and 4e-18), so comparing
    log-likelihoods rejected every step.

    The estimate is checked by the Karush-Kuhn-Tucker conditions of the maximum of the concave l on the
    simplex, in this test's own arithmetic: with r_i = sum_j A_ji c_j / lambda_j, r_i <= n for every bin and
    r_i = n where w_i > 0. Tolerances: r_i sums at most 64 terms of size at most n, so it rounds by at most
    64 n 2.2e-16 < 1e-10 (n <= 10^4); the fit stops at a gap max_i r_i - n below EM_TOLERANCE (1e-8); and
    since sum_i w_i r_i = n (an identity: sum_j c_j), w_i (n - r_i) = sum_(k != i) w_k (r_k - n) <= gap, so
    r_i >= n - (gap + 1e-10) / w_i on the support.
    """
    design = laplace_for_epsilon(steps, epsilon)
    labels, matrix = bucket_probabilities(design)
    by_bin = _bin_columns(matrix, bins_from_cuts(cuts, steps))
    counts = np.random.default_rng(seed).multinomial(total, by_bin @ truth)
    result = deconvolve(design, dict(zip(labels, counts.tolist())), cuts)
    estimate = np.array([share.share for share in result.shares])
    assert result.converged and result.iterations < deconvolution.EM_MAX_STEPS
    assert np.any(estimate == 0)  # the maximum is on the simplex's edge
    rounding = 1e-10
    assert 0 <= optimality_gap(by_bin, counts.astype(float), estimate) < EM_TOLERANCE
    seen = counts > 0
    ratios = by_bin[seen].T @ (counts[seen] / (by_bin[seen] @ estimate))
    assert abs(estimate @ ratios - total) <= rounding
    assert np.all(ratios <= total + EM_TOLERANCE + rounding)
    support = estimate > 0
    assert np.all(ratios[support] >= total - (EM_TOLERANCE + rounding) / estimate[support])
    assert np.all(estimate >= 0) and sum(estimate) == pytest.approx(1.0, abs=1e-12)


# The finish's parts on a small problem: three bins, four buckets, the last no output reaches (a row of 0,
# as a bucket beyond the clamp), one bucket holding a single answer, one none.
SMALL = np.array([[0.6, 0.2, 0.1], [0.3, 0.5, 0.3], [0.1, 0.3, 0.6], [0.0, 0.0, 0.0]])
SMALL_COUNTS = np.array([30.0, 1.0, 20.0, 0.0])


def slope_and_curvature(matrix, counts, weights, direction, t=0.0) -> tuple[float, float]:
    """``phi'(t) = sum_j c_j (A d)_j / lambda_j`` and ``-phi''(t) = sum_j c_j (A d)_j^2 / lambda_j^2`` of
    ``phi(t) = l(w + t d)``, bucket by bucket (``lambda = A (w + t d)``, buckets without answers left out)."""
    slope, curvature = [], []
    for row, count in zip(matrix.tolist(), counts.tolist()):
        if count > 0:
            moved = math.fsum(a * x for a, x in zip(row, direction))
            chance = math.fsum(a * (w + t * x) for a, w, x in zip(row, weights, direction))
            slope.append(count * moved / chance)
            curvature.append(count * moved * moved / chance**2)
    return math.fsum(slope), math.fsum(curvature)


def test_the_limits_are_how_far_each_falling_share_may_go():
    # w_i / -d_i where d_i < 0 (0.5 / 0.25 = 2, 0 / 0.5 = 0); a share that rises or stays has no limit.
    weights = np.array([0.5, 0.3, 0.2, 0.0, 0.0])
    limits = deconvolution._limits(weights, np.array([-0.25, 0.5, 0.0, -0.5, 0.25]))
    assert limits.tolist() == [2.0, math.inf, math.inf, 0.0, math.inf]


def test_the_vertex_step_heads_for_the_bin_of_largest_slope():
    # Slopes sum_j A_ji c_j / lambda_j at w = (.7, .2, .1): 49.7, 45.8, 70.4, so towards bin 3: e_3 - w, length 1.
    weights = np.array([0.7, 0.2, 0.1])
    slopes = [slope_and_curvature(SMALL, SMALL_COUNTS, weights, np.eye(3)[i] - weights)[0] for i in range(3)]
    assert int(np.argmax(slopes)) == 2
    direction, end = deconvolution._vertex_step(SMALL, SMALL_COUNTS, weights)
    assert direction.tolist() == [-0.7, -0.2, 0.9] and end == 1.0


@pytest.mark.parametrize(
    ("counts", "weights", "end"),
    [
        (SMALL_COUNTS, (0.5, 0.3, 0.2), 1.0),  # the maximum of the expansion within the step: a / b = 0.27
        (SMALL_COUNTS, (0.5, 0.3, 0.2), 0.05),  # beyond it: t = end
        (np.array([1.0, 1.0, 0.0, 0.0]), (0.4, 0.3, 0.3), 1.0),  # a curvature b of 0.70, below 1; a / b = 0.93
    ],
)
def test_the_rise_is_the_second_order_gain_along_the_step(counts, weights, end):
    """``a t - b t^2 / 2`` at ``t = min(end, a / b)``, with ``a`` and ``b`` summed bucket by bucket here."""
    weights = np.array(weights)
    direction = np.eye(3)[0] - weights
    a, b = slope_and_curvature(SMALL, counts, weights, direction)
    t = min(end, a / b)
    assert 0 < t <= end
    assert deconvolution._rise(SMALL, counts, weights, direction, end) == pytest.approx(
        a * t - b * t * t / 2, rel=1e-12
    )


# Two bins whose middle is the mean of the outer two: along (1/2, -1, 1/2) the chances do not move at all (every
# number here is dyadic, so A d is exactly 0).
FLAT = np.array([[0.5, 0.375, 0.25], [0.25, 0.25, 0.25], [0.25, 0.375, 0.5]])


def test_along_a_direction_that_moves_no_chance_the_rise_is_0_and_the_line_goes_to_its_end():
    weights, direction = np.array([0.25, 0.5, 0.25]), np.array([0.5, -1.0, 0.5])
    counts = np.array([3.0, 2.0, 1.0])
    assert (FLAT @ direction).tolist() == [0.0, 0.0, 0.0]
    assert deconvolution._rise(FLAT, counts, weights, direction, 0.5) == 0.0
    assert deconvolution._line_maximum(FLAT, counts, weights, direction, 0.5) == 0.5


def test_the_line_maximum_is_the_root_of_the_slope_to_2_to_the_minus_40():
    """Towards bin 1 from (.5, .3, .2) the slope of ``l`` falls to 0 at t = 0.2746 (scipy's brentq on this test's
    own slope): the bisection of [0, 1] halves the bracket until its width is at most 2^-40 of its upper end,
    here 2^-42 (the root is in [1/4, 1/2)), and returns its lower end: the multiple of 2^-42 just below the root.
    Where the slope is still positive at the end of a shorter step (0.05), the step goes to its end."""
    weights = np.array([0.5, 0.3, 0.2])
    direction = np.eye(3)[0] - weights
    root = optimize.brentq(
        lambda t: slope_and_curvature(SMALL, SMALL_COUNTS, weights, direction, t)[0], 0, 1, xtol=1e-16, rtol=1e-15
    )
    assert 0.25 <= root < 0.5
    grid = math.floor(root * 2.0**42)
    assert 1e-3 < root * 2.0**42 - grid < 1 - 1e-3  # not within 1e-16 of a multiple of 2^-42
    assert deconvolution._line_maximum(SMALL, SMALL_COUNTS, weights, direction, 1.0) == grid * 2.0**-42
    assert slope_and_curvature(SMALL, SMALL_COUNTS, weights, direction, 0.05)[0] > 0
    assert deconvolution._line_maximum(SMALL, SMALL_COUNTS, weights, direction, 0.05) == 0.05


@pytest.mark.parametrize(
    ("matrix", "counts", "expected"),
    [
        # lambda_1(t) = 1/4 + t/2 and the slope c_1 (1/2) / lambda_1 - c_2 (1/2) / lambda_2 is 0 where
        # lambda_1 = c_1 / n = 2^42 / (2^43 + 1) = 1/2 - eta, eta = 1 / (2 (2^43 + 1)): at t = 1/2 - 2 eta, just
        # above 1/2 - 2^-42. Halving [0, 1] keeps 1/2 as the upper end; at [1/2 - 2^-41, 1/2] the bracket is
        # exactly 2^-40 of that end, so the bisection stops there (a halving more would give 1/2 - 2^-42).
        ([[0.75, 0.25], [0.25, 0.75]], [2.0**42, 2.0**42 + 1], 0.5 - 2.0**-41),
        # lambda_1(t) = 3/8 - t/4, counts (1, 3): at t = 1/2, the first middle, lambda = (1/4, 3/4), the ratios
        # c / lambda are (4, 4) and the slope (A' (4, 4))' d = 4 - 4 is 0 exactly, not > 0, so 1/2 is the
        # bracket's upper end from then on, as above.
        ([[0.125, 0.375], [0.875, 0.625]], [1.0, 3.0], 0.5 - 2.0**-41),
    ],
)
def test_the_line_maximum_stops_at_a_bracket_of_2_to_the_minus_40_below_a_slope_not_above_0(matrix, counts, expected):
    """From (0, 1) towards bin 1 (direction (1, -1)), two buckets whose chances are dyadic along the way, so
    every bracket end is exact: the returned t is the bracket's lower end, where the slope is > 0."""
    weights, direction = np.array([0.0, 1.0]), np.array([1.0, -1.0])
    assert deconvolution._line_maximum(np.array(matrix), np.array(counts), weights, direction, 1.0) == expected


def test_the_fit_takes_ten_accelerated_em_steps_then_finishes(monkeypatch):
    """The 3,000 answers of test_the_maximum_matches_an_independent_optimizer take 15 steps: the first
    EM_START_STEPS (10) are SQUAREM's, every later one the finish's (Newton or Frank-Wolfe)."""
    steps = []
    squarem, finish = deconvolution._squarem_step, deconvolution._finish_step
    monkeypatch.setattr(deconvolution, "_squarem_step", lambda *args: steps.append("em") or squarem(*args))
    monkeypatch.setattr(deconvolution, "_finish_step", lambda *args: steps.append("finish") or finish(*args))
    design = laplace_for_epsilon(30, 1.0)
    labels, matrix = bucket_probabilities(design)
    by_bin = _bin_columns(matrix, bins_from_cuts(CUTS, 30))
    counts = np.random.default_rng(11).multinomial(3000, by_bin @ TRUTH)
    result = deconvolve(design, dict(zip(labels, counts.tolist())), CUTS)
    assert result.converged and result.iterations > deconvolution.EM_START_STEPS == 10
    assert steps == ["em"] * 10 + ["finish"] * (result.iterations - 10)


def newton_direction(matrix, counts, weights) -> np.ndarray:
    """The Newton direction of ``l`` on the whole simplex, in this test's own arithmetic: the last share
    ``1 - sum`` of the others, ``D_j = A_j,free - A_j,last``, score ``g = sum_j c_j D_j / lambda_j``,
    information ``J = sum_j c_j D_j D_j' / lambda_j^2``, step ``J^-1 g`` (the last share moving by minus its
    sum)."""
    chances = matrix @ weights
    seen = counts > 0
    differences = matrix[seen, :-1] - matrix[seen, -1:]
    score = sum(c * row / p for c, row, p in zip(counts[seen], differences, chances[seen]))
    information = sum(c * np.outer(row, row) / p**2 for c, row, p in zip(counts[seen], differences, chances[seen]))
    step = np.linalg.solve(information, score)
    return np.append(step, -step.sum())


def test_a_newton_step_cut_where_a_share_reaches_0_sets_it_to_0_exactly():
    """From (.1, .35, .55) the Newton direction lowers the second share to 0 at t = w_2 / -d_2 = 0.126, where
    the slope of ``l`` is still positive: the step goes there and the share is 0 exactly (a drop step), where
    w_2 + t d_2 in the fit's own rounding leaves 5.6e-17."""
    weights = np.array([0.1, 0.35, 0.55])
    direction = newton_direction(SMALL, SMALL_COUNTS, weights)
    reach = weights[1] / -direction[1]
    assert direction[1] < 0 and 0 < reach < 1 and np.all(weights + reach * direction >= -1e-12)
    assert slope_and_curvature(SMALL, SMALL_COUNTS, weights, direction, reach)[0] > 0
    step = deconvolution._finish_step(SMALL, SMALL_COUNTS, weights)
    assert step[1] == 0.0
    expected = weights + reach * direction
    assert_allclose(step, [expected[0], 0.0, expected[2]] / (expected[0] + expected[2]), rtol=1e-12)


def em_map(matrix, counts, weights) -> np.ndarray:
    """``w_i sum_j c_j A_ji / lambda_j / n``, bucket by bucket: each bin's posterior share."""
    chances = matrix @ weights
    seen = [j for j in range(len(counts)) if counts[j] > 0]
    n = math.fsum(counts)
    return np.array(
        [w * math.fsum(counts[j] * matrix[j, i] / chances[j] for j in seen) / n for i, w in enumerate(weights)]
    )


def squarem_s3(matrix, counts, weights) -> tuple[np.ndarray, str]:
    """Varadhan and Roland's (2008) scheme S3 as the docstring of ``_squarem_step`` states it, in this test's
    arithmetic, and which way it went."""
    first = em_map(matrix, counts, weights)
    second = em_map(matrix, counts, first)
    r, v = first - weights, second - first - (first - weights)
    if not np.any(v):
        return second, "fixed point"
    alpha = min(-math.sqrt(math.fsum(r * r)) / math.sqrt(math.fsum(v * v)), -1.0)
    jump, halvings = weights - 2 * alpha * r + alpha**2 * v, 0
    while np.any(jump < 0) and alpha < -1:
        alpha, halvings = min((alpha - 1) / 2, -1.0), halvings + 1
        jump = weights - 2 * alpha * r + alpha**2 * v
    if np.any(jump < 0):  # at alpha -1 the point is w2 itself, negative only by rounding
        return second, "jump negative at alpha -1"
    jump = em_map(matrix, counts, jump / math.fsum(jump))
    if log_likelihood(matrix[counts > 0], counts[counts > 0], jump) < log_likelihood(
        matrix[counts > 0], counts[counts > 0], second
    ):
        return second, "jump worse"
    return jump, f"jump, alpha halved {halvings} times"


def three_thousand_answers():
    """The bins and counts of test_the_maximum_matches_an_independent_optimizer (epsilon 1, 3,000 answers)."""
    labels, matrix = bucket_probabilities(laplace_for_epsilon(30, 1.0))
    by_bin = _bin_columns(matrix, bins_from_cuts(CUTS, 30))
    return by_bin, np.random.default_rng(11).multinomial(3000, by_bin @ TRUTH).astype(float)


@pytest.mark.parametrize(
    ("problem", "weights", "way"),
    [
        ("small", (0.2, 0.6, 0.2), "jump, alpha halved 4 times"),  # alpha -24.4, then -12.7, -6.9, -3.9, -2.5
        ("small", (0.6, 0.0, 0.4), "jump, alpha halved 0 times"),  # a share at 0 stays there (alpha -2.0)
        ("small", (0.05, 0.9, 0.05), "jump, alpha halved 0 times"),  # alpha -1.91, between -2 and -1
        ("3000", (0.2,) * 5, "jump, alpha halved 0 times"),  # the fit's first step (alpha -13.8)
        ("3000", (0.4213, 0.2784, 0.1457, 0.0842, 0.0704), "jump worse"),  # near its third (alpha -279)
        ("identity", (0.25, 0.25, 0.5), "fixed point"),  # counts (1, 1, 2): F(w) = w exactly, v = 0
        ("two buckets", (0.046831532029544314, 0.9531684679704557), "jump, alpha halved 3 times"),  # -2.2 to -1.15
        ("three buckets", (0.0007761778669211535, 0.9992238221330788), "jump, alpha halved 0 times"),  # |r|<|v|: -1
    ],
)
def test_an_accelerated_em_step_follows_squarem_s3(problem, weights, way):
    matrix, counts = {
        "small": (SMALL, SMALL_COUNTS),
        "3000": three_thousand_answers(),
        "identity": (np.eye(3), np.array([1.0, 1.0, 2.0])),
        "two buckets": (
            np.array([[0.0050818863634183725, 8.063154259193404e-05], [0.9949181136365817, 0.9999193684574081]]),
            np.array([29.0, 8.0]),
        ),
        "three buckets": (
            np.array(
                [
                    [0.01567305817452012, 0.0029353080833147437],
                    [0.9545044448583331, 0.330428057964003],
                    [0.02982249696714679, 0.6666366339526824],
                ]
            ),
            np.array([15.0, 20.0, 26.0]),
        ),
    }[problem]
    weights = np.array(weights)
    expected, went = squarem_s3(matrix, counts, weights)
    assert went == way
    assert_allclose(deconvolution._squarem_step(matrix, counts, weights), expected, rtol=1e-9, atol=1e-15)


def test_buckets_no_output_reaches_are_left_out_of_the_fit_and_every_field_is_filled():
    """Scale 1/40: outputs are clamped to [-1, 11], so "b00" (below -1) has a chance of exactly 0 and "b13",
    "b14" too; they hold no answer and take no part in the log-likelihood or the information (a log of 0 or a
    division by 0 would warn, and the tests turn warnings into errors). Two bins, so the information J is one
    number, sum_j c_j D_j^2 / lambda_j^2, and each standard error is 1 / sqrt(J); the log-likelihood is
    sum_j c_j log lambda_j over the buckets with answers."""
    design = DiscreteLaplaceDesign(10, Fraction(1, 40))
    labels, matrix = bucket_probabilities(design)
    by_bin = _bin_columns(matrix, bins_from_cuts((5,), 10))
    assert by_bin[labels.index("b00")].tolist() == [0.0, 0.0]
    answers = {"b03": 3, "b05": 4, "b09": 2, "b10": 1}
    result = deconvolve(design, answers, (5,))
    counts = np.array([answers.get(label, 0) for label in labels], dtype=float)
    seen = counts > 0
    estimate = np.array([s.share for s in result.shares])
    chances = by_bin[seen] @ estimate
    information = float((counts[seen] * (by_bin[seen, 0] - by_bin[seen, 1]) ** 2 / chances**2).sum())
    std_err = 1 / math.sqrt(information)
    z = 1.959963984540054
    assert (result.identified, result.reason, result.bins, result.n) == (True, "", ((0, 4), (5, 10)), 10)
    assert (result.band_method, result.confidence_level, result.converged) == (OBSERVED_INFORMATION, 0.95, True)
    assert [(s.low, s.high) for s in result.shares] == [(0, 4), (5, 10)]
    assert_allclose([s.std_err for s in result.shares], [std_err] * 2, rtol=1e-9)
    assert_allclose(
        [(s.band_low, s.band_high) for s in result.shares],
        [(max(0.0, w - z * std_err), min(1.0, w + z * std_err)) for w in estimate],
        rtol=1e-9,
    )
    assert result.log_likelihood == pytest.approx(float(counts[seen] @ np.log(chances)), rel=1e-12)
    assert 0 < estimate[1] < estimate[0] < 1


def face_newton_direction(matrix, counts, weights, free) -> np.ndarray:
    """:func:`newton_direction` on the face of the shares ``free`` (the others 0, not moving)."""
    direction = np.zeros(len(weights))
    direction[list(free)] = newton_direction(matrix[:, list(free)], counts, weights[list(free)])
    return direction


@pytest.mark.parametrize(
    ("weights", "face", "growing"),
    [
        # Bin 1 at 0 has a slope above n (it should grow), and the Newton direction on the whole simplex raises
        # it: that direction, up to where bin 2 reaches 0.
        ((0.0, 0.01, 0.99), (0, 1, 2), 0),
        # Bin 2 at 0 should grow too, but the Newton direction on the whole simplex would lower it: the direction
        # on the face of the positive shares instead (bin 2 stays at 0), of length 1 (its reach is 5.5).
        ((0.01, 0.0, 0.99), (0, 2), 1),
        # Bin 2 at 0 with a slope below n stays out: the face of bins 1 and 3.
        ((0.6, 0.0, 0.4), (0, 2), None),
    ],
)
def test_the_newton_step_is_on_the_face_of_the_positive_shares_and_those_that_should_grow(weights, face, growing):
    weights = np.array(weights)
    n = SMALL_COUNTS.sum()
    slopes = [slope_and_curvature(SMALL, SMALL_COUNTS, weights, np.eye(3)[i] - weights)[0] + n for i in range(3)]
    zero = int(np.argmin(weights))
    assert (slopes[zero] > n) == (growing is not None)
    direction, end = deconvolution._newton_step(SMALL, SMALL_COUNTS, weights)
    expected = face_newton_direction(SMALL, SMALL_COUNTS, weights, face)
    assert_allclose(direction, expected, rtol=1e-9, atol=1e-15)
    falling = expected < 0
    assert end == pytest.approx(min(1.0, float(np.min(weights[falling] / -expected[falling]))), rel=1e-9)
    if growing is not None:
        full = face_newton_direction(SMALL, SMALL_COUNTS, weights, (0, 1, 2))
        assert (full[growing] > 0) == (face == (0, 1, 2))


def test_no_newton_step_at_an_exact_maximum_and_a_slope_of_exactly_n_does_not_grow():
    """One bucket per bin (A = I), counts (1, 1, 2): at w = (1/4, 1/4, 1/2) every ratio c_j / lambda_j is 4, the
    score 0, the direction 0 exactly, along which l does not rise: no step. With the middle bin the mean of the
    outer two (FLAT), at w = (1/2, 0, 1/2) the middle bin's slope sum_j c_j A_j2 / lambda_j is sum_j c_j = n
    exactly (A_j2 = lambda_j): not above n, so it stays out of the face, whose Newton step is taken (up to where
    an outer bin reaches 0)."""
    assert deconvolution._newton_step(np.eye(3), np.array([1.0, 1.0, 2.0]), np.array([0.25, 0.25, 0.5])) is None
    counts, weights = np.array([3.0, 2.0, 1.0]), np.array([0.5, 0.0, 0.5])
    assert float(FLAT.T[1] @ (counts / (FLAT @ weights))) == counts.sum()
    direction, end = deconvolution._newton_step(FLAT, counts, weights)
    expected = face_newton_direction(FLAT, counts, weights, (0, 2))
    assert_allclose(direction, expected, rtol=1e-9)
    assert direction[1] == 0 and end == pytest.approx(0.5 / -expected.min(), rel=1e-9)  # bin 1 or 3 reaches 0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: bins_from_cuts((), 0), "steps must be an integer >= 1, got steps=0"),
        (lambda: bins_from_cuts((), 1001), "steps must be at most 1000, got steps=1001"),
        (lambda: bins_from_cuts(5, 30), "cuts must be a sequence of grid indices, got cuts=5"),
        (
            lambda: bins_from_cuts((True,), 30),
            "cuts must be increasing grid indices in [1, 30], got cuts[0]=True after 0",
        ),
        (
            lambda: bins_from_cuts((2.0,), 30),
            "cuts must be increasing grid indices in [1, 30], got cuts[0]=2.0 after 0",
        ),
        (lambda: bucket_probabilities(None), "design must be a DiscreteLaplaceDesign, got design=None"),
        (lambda: deconvolution.check_counts([("b00", 1)], ("b00",)), "bucket_counts must map bucket labels to"),
        (
            lambda: deconvolution.check_counts({"b99": 1}, ("b00", "b01", "b02")),
            "unknown bucket 'b99': the buckets are b00 .. b02",
        ),
        (
            lambda: deconvolution.check_counts({"b01": True}, ("b00", "b01")),
            "a bucket count must be an integer >= 0, got bucket_counts['b01']=True",
        ),
        (
            lambda: deconvolution.check_counts({"b01": 1.0}, ("b00", "b01")),
            "a bucket count must be an integer >= 0, got bucket_counts['b01']=1.0",
        ),
        (lambda: deconvolve(None, {"b00": 1}, CUTS), "steps is required for a plain number (design None)"),
        (lambda: deconvolve(None, {"b00": 1}, CUTS, steps=30, level=1), "level must be in (0, 1), got level=1"),
    ],
)
def test_each_bad_argument_has_its_whole_message(call, message):
    with pytest.raises(ValueError) as raised:
        call()
    assert str(raised.value).startswith(message)


def test_kept_sums_are_skipped_wherever_they_come_and_the_one_bit_design_says_why_it_shows_no_shares():
    assert deconvolution.check_counts({"=sum": 7, "b01": 3, "=sumsq": 9, "b00": 2}, ("b00", "b01")).tolist() == [2, 3]
    result = deconvolve(BoundedDesign(30, 3, 1), {"b00": 40, "b01": 60}, CUTS, level=0.9)
    assert result == Distribution(False, BOUNDED_REASON, bins_from_cuts(CUTS, 30), (), 100, "", 0.9)


def test_a_tiny_information_is_still_inverted_when_it_is_one_number():
    """Two bins almost alike, A = [[.5, .5001], [.5, .4999]], one answer in each bucket, at w = (1/2, 1/2):
    D = A_1 - A_2 = (-1e-4, 1e-4), lambda = (.50005, .49995), so J = sum_j c_j D_j^2 / lambda_j^2 = 8.0e-8. One
    free share: J is its own largest and smallest eigenvalue, never below 1e-12 times itself, so it is
    inverted however small: the covariance of the two shares is [[1, -1], [-1, 1]] / J."""
    matrix, counts, weights = np.array([[0.5, 0.5001], [0.5, 0.4999]]), np.array([1.0, 1.0]), np.array([0.5, 0.5])
    information = (1e-4 / 0.50005) ** 2 + (1e-4 / 0.49995) ** 2
    assert information < 1e-7
    covariance = deconvolution._covariance(matrix, counts, weights)
    assert_allclose(covariance, np.array([[1.0, -1.0], [-1.0, 1.0]]) / information, rtol=1e-9)


def test_a_bucket_without_answers_takes_no_part_in_the_newton_direction():
    """Bucket 2 (chances .3, .5, .3) holds no answer here: the direction is this test's own, from the buckets
    with answers alone."""
    counts, weights = np.array([30.0, 0.0, 20.0, 0.0]), np.array([0.5, 0.3, 0.2])
    direction = deconvolution._newton_direction(SMALL, counts, weights, np.arange(3))
    assert_allclose(direction, newton_direction(SMALL, counts, weights), rtol=1e-9)


def test_an_accelerated_em_step_whose_point_is_negative_by_rounding_alone_is_two_em_steps():
    """The second bin hardly explains an answer (chances 3.5e-15 and 4.3e-18 of the buckets with answers): in
    the fit's arithmetic alpha starts at -1 - 2e-15 and is halved to -1, where w - 2 alpha r + alpha^2 v is w2
    = (1, 1e-30) up to rounding, yet its second share is -5.6e-17: the step is w2, two EM steps (this test's
    own), no share negative."""
    matrix = np.array(
        [
            [0.7460058302230561, 3.5402943652773877e-15],
            [0.19930572326460277, 4.2608038157249715e-18],
            [0.05468844651234101, 0.9999999999999964],
        ]
    )
    counts, weights = np.array([5.0, 18.0, 0.0]), np.array([0.5216763404698838, 0.47832365953011635])
    step = deconvolution._squarem_step(matrix, counts, weights)
    assert_allclose(step, em_map(matrix, counts, em_map(matrix, counts, weights)), rtol=1e-9, atol=1e-15)
    assert np.all(step >= 0)


# 20,000 answers at epsilon 1 on a grid of 10 steps, one bin per grid index, and a point of their fit where the
# face of the positive shares is close to its own maximum while two shares at 0 (bins 7 and 8) have slopes above
# n = 20,000 (20,000.84 and 20,000.76), and the Newton direction that takes them in lowers one of them.
NEAR_FACE_MAXIMUM_COUNTS = {
    "b00": 323, "b01": 76, "b02": 90, "b03": 105, "b04": 148, "b05": 139, "b06": 182, "b07": 219, "b08": 273,
    "b09": 356, "b10": 417, "b11": 505, "b12": 632, "b13": 745, "b14": 942, "b15": 1206, "b16": 1377,
    "b17": 1689, "b18": 1660, "b19": 1478, "b20": 1283, "b21": 1115, "b22": 864, "b23": 733, "b24": 680,
    "b25": 520, "b26": 427, "b27": 317, "b28": 276, "b29": 236, "b30": 178, "b31": 151, "b32": 123, "b33": 102,
    "b34": 63, "b35": 78, "b36": 50, "b37": 242,
}  # fmt: skip
NEAR_FACE_MAXIMUM_WEIGHTS = (
    0.03364280221928097, 0.0, 0.0, 0.6083597169727883, 0.0, 0.20758289359057025, 0.0, 0.0, 0.025605043925490012,
    0.0, 0.12480954329187051,
)  # fmt: skip


def test_a_frank_wolfe_step_is_taken_where_it_promises_more_than_a_whole_newton_step():
    """There the Newton step on the positive shares' face may go its whole length but gains little by the
    second-order expansion (3.8e-4), the step towards bin 7, the bin of largest slope, more (5.9e-4): the step
    is w + t (e_7 - w), t the root of the slope of l along it (brentq on this test's own slope); the Newton
    step would have moved a share by 0.004 more."""
    design = laplace_for_epsilon(10, 1.0)
    cuts = tuple(range(1, 11))
    labels, matrix = bucket_probabilities(design)
    by_bin = _bin_columns(matrix, bins_from_cuts(cuts, 10))
    counts = np.array([NEAR_FACE_MAXIMUM_COUNTS.get(label, 0) for label in labels], dtype=float)
    weights = np.array(NEAR_FACE_MAXIMUM_WEIGHTS)
    slopes = [slope_and_curvature(by_bin, counts, weights, np.eye(11)[i] - weights)[0] for i in range(11)]
    assert int(np.argmax(slopes)) == 6 and weights[6] == 0
    direction = np.eye(11)[6] - weights
    assert slope_and_curvature(by_bin, counts, weights, direction, 1.0)[0] < 0
    t = optimize.brentq(lambda t: slope_and_curvature(by_bin, counts, weights, direction, t)[0], 0, 1, xtol=1e-15)
    step = deconvolution._finish_step(by_bin, counts, weights)
    assert_allclose(step, weights + t * direction, rtol=1e-9, atol=1e-12)


def test_no_newton_direction_from_an_information_that_is_not_a_number():
    """Bucket 3 holds an answer but only bin 3, at 0 and not free, can give it: its chance is 0, its ratio
    c / lambda infinite, and its row of D (bins 1 and 2 alike there, 0 - 0) times that is not a number (numpy's
    warnings of it silenced here): the information is NaN, and the direction is None, not NaN."""
    matrix = np.array([[0.6, 0.2, 0.0], [0.4, 0.8, 0.0], [0.0, 0.0, 1.0]])
    counts, weights = np.array([5.0, 5.0, 1.0]), np.array([0.5, 0.5, 0.0])
    with np.errstate(divide="ignore", invalid="ignore"):
        assert deconvolution._newton_direction(matrix, counts, weights, np.array([0, 1])) is None
