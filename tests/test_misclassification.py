"""select_one with a general misclassification matrix (van den Hout and van der Heijden 2002)."""

from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import optimize, stats

from analysis import (
    MisclassificationDesign,
    MultipleChoiceDesign,
    estimate_misclassification,
    estimate_multiple_choice,
    multiple_choice_epsilon,
    outside_design,
    pool_misclassification,
    producible_worst_case_variances,
    worst_case_variances,
)
from analysis.design import DesignError
from analysis.misclassification import _log_likelihood, maximum_likelihood, profile_likelihood_interval

# Rows: reported option, columns: true option. Not symmetric, not of the k-option form.
SKEWED = MisclassificationDesign(
    [
        ["7/10", "1/10", "1/5"],
        ["1/5", "3/5", "1/10"],
        ["1/10", "3/10", "7/10"],
    ]
)


@pytest.mark.parametrize(
    ("matrix", "field", "message"),
    [
        ([["1/2", "1/2"], ["1/2", "1/2"]], None, "must be invertible"),
        (
            [["3/5", "1/2"], ["1/2", "1/2"]],
            "matrix[*][0]",
            "column 0 (true option 0) must sum to 1 over the reported options, got 11/10",
        ),
        ([["3/2", "0"], ["-1/2", "1"]], "matrix[0][0]", "matrix[0][0]=3/2"),
        ([["1", "0", "0"], ["0", "1", "0"]], "matrix", "square"),
        ([["x", "0"], ["1", "1"]], "matrix[0][0]", "'x'"),
        ([[1]], "matrix", "at least 2"),
        (5, "matrix", "matrix must be a list of rows, got matrix=5"),
    ],
)
def test_bad_matrices_are_refused_naming_the_fault(matrix, field, message):
    with pytest.raises(DesignError) as caught:
        MisclassificationDesign(matrix)
    assert message in str(caught.value)
    assert caught.value.field == field


def test_the_matrix_is_kept_exact_and_round_trips_through_its_record():
    assert SKEWED.matrix[0] == (Fraction(7, 10), Fraction(1, 10), Fraction(1, 5))
    record = SKEWED.to_dict()
    assert record["kind"] == "misclassification" and record["matrix"][2] == ["1/10", "3/10", "7/10"]
    assert MisclassificationDesign(record["matrix"]) == SKEWED
    assert SKEWED.rrreg() == {"model": "custom", "p": record["matrix"]}
    assert SKEWED.k == 3 and SKEWED.label() == "misclassification matrix (3 options)"


def test_warner_as_a_two_by_two_matrix_by_hand():
    # P = [[.7, .3], [.3, .7]] (Warner 1965 with p = .7), 60 of 100 report option 0:
    # pi_0 = (.6 - .3)/(.7 - .3) = .75; Var = lambda (1 - lambda) / (n (2p - 1)^2) = .24/(100 * .16) = .015.
    e = estimate_misclassification([60, 40], MisclassificationDesign([[0.7, 0.3], [0.3, 0.7]]))
    assert_allclose(e.estimate_raw, [0.75, 0.25], atol=1e-14)
    assert_allclose(e.std_err, [math.sqrt(0.015)] * 2, rtol=1e-12)
    assert_allclose(e.covariance(), [[0.015, -0.015], [-0.015, 0.015]], atol=1e-15)


def test_the_k_option_design_gives_the_k_option_estimates():
    design = MisclassificationDesign.from_multiple_choice(4, "1/2")
    counts = [30, 50, 15, 5]
    general, special = estimate_misclassification(counts, design), estimate_multiple_choice(counts, 0.5)
    assert_allclose(general.estimate_raw, special.estimate_raw, atol=1e-14)
    assert_allclose(general.estimate_projected, special.estimate_projected, atol=1e-14)
    assert_allclose(general.covariance(), special.covariance(), atol=1e-15)
    assert design.epsilon == pytest.approx(multiple_choice_epsilon(4, 0.5)) == pytest.approx(math.log(5))


def test_rrreg_forced_response_matrix():
    # RRreg's "FR" with p = (.1, .2, .1): truthful with .6, else option j with p_j: P = .6 I + p 1'.
    design = MisclassificationDesign.forced_response(["1/10", "1/5", "1/10"])
    assert design.matrix == (
        (Fraction(7, 10), Fraction(1, 10), Fraction(1, 10)),
        (Fraction(1, 5), Fraction(4, 5), Fraction(1, 5)),
        (Fraction(1, 10), Fraction(1, 10), Fraction(7, 10)),
    )
    # Row 0: max/min = .7/.1 = 7; row 1: .8/.2 = 4; row 2: 7. epsilon = ln 7.
    assert design.epsilon == pytest.approx(math.log(7), rel=1e-15)
    with pytest.raises(DesignError, match="sum\\(prompted\\) must be below 1, got 1"):
        MisclassificationDesign.forced_response(["1/2", "1/2"])


def test_epsilon_is_the_largest_row_ratio_and_infinite_with_a_zero():
    # Rows of SKEWED: 7/10 / 1/10 = 7, 3/5 / 1/10 = 6, 7/10 / 1/10 = 7 -> ln 7.
    assert SKEWED.epsilon == pytest.approx(math.log(7), rel=1e-15)
    assert MisclassificationDesign([["1", "1/4"], ["0", "3/4"]]).epsilon == math.inf


def test_bad_counts_are_named():
    with pytest.raises(ValueError, match=r"one entry per option \(k=3\), got 2"):
        estimate_misclassification([3, 4], SKEWED)
    with pytest.raises(ValueError, match=r"counts\[1\]=-1"):
        estimate_misclassification([3, -1, 2], SKEWED)
    with pytest.raises(ValueError, match="design must be a MisclassificationDesign"):
        estimate_misclassification([3, 4], "custom")


@pytest.mark.slow
def test_simulated_estimates_are_unbiased_and_intervals_cover():
    """R = 4000 surveys of n = 800 under SKEWED with pi = (.5, .3, .2). The mean raw estimate is within
    4 Monte Carlo standard errors (sd / sqrt(R)) of the truth for each option and the standard error matches the
    simulated spread within 10% (its own error is about 2%). The profile-likelihood intervals of the first 600
    surveys cover each option within 3 binomial standard errors of 0.95 (sqrt(.95 * .05 / 600) = 0.0089); their
    exact coverage at small n is checked by enumeration below."""
    rng = np.random.default_rng(20261122)
    pi = np.array([0.5, 0.3, 0.2])
    lam = SKEWED.floats() @ pi
    replications, n, with_intervals = 4000, 800, 600
    counts = rng.multinomial(n, lam, size=replications)
    raw, covered, std_err = [], np.zeros(3), []
    for index, row in enumerate(counts):
        e = estimate_misclassification([int(c) for c in row], SKEWED)
        raw.append(e.estimate_raw)
        std_err.append(e.std_err)
        if index < with_intervals:
            covered += [ci.low <= p <= ci.high for ci, p in zip(e.confidence_intervals(0.95), pi)]
    raw = np.array(raw)
    spread = raw.std(axis=0, ddof=1)
    assert np.all(np.abs(raw.mean(axis=0) - pi) <= 4 * spread / math.sqrt(replications))
    assert_allclose(np.mean(std_err, axis=0), spread, rtol=0.1)
    assert np.all(np.abs(covered / with_intervals - 0.95) <= 3 * math.sqrt(0.95 * 0.05 / with_intervals))


# --------------------------------------------------------------------------
# Several versions of the matrix, pooled.

HALF = MisclassificationDesign.from_multiple_choice(3, "1/2")  # P^-1 = 2 (I - J/6): rows (5/3, -1/3, -1/3)...
THREE_QUARTERS = MisclassificationDesign.from_multiple_choice(3, "3/4")  # P^-1 = 4/3 (I - J/12): (11/9, -1/9, -1/9)


def test_worst_case_variances_are_the_squared_range_of_each_inverse_row_over_4n():
    """P^-1 rows of HALF span 5/3 - (-1/3) = 2: 2^2 / (4 * 60) = 1/60; of THREE_QUARTERS 4/3: (16/9) / 480."""
    assert_allclose(worst_case_variances(HALF, 60), [1 / 60] * 3, rtol=1e-12)
    assert_allclose(worst_case_variances(THREE_QUARTERS, 120), [16 / 9 / 480] * 3, rtol=1e-12)
    # SKEWED's own inverse: each row's range, by numpy, squared over 4n; no lambda gives a larger variance
    inverse = np.linalg.inv(SKEWED.floats())
    assert_allclose(worst_case_variances(SKEWED, 10), np.ptp(inverse, axis=1) ** 2 / 40, rtol=1e-12)
    for counts in ([10, 0, 0], [5, 0, 5], [3, 3, 4], [0, 5, 5]):
        assert np.all(np.array(estimate_misclassification(counts, SKEWED).std_err) ** 2 <= np.ptp(inverse, 1) ** 2 / 40)
    with pytest.raises(ValueError, match="n=0"):
        worst_case_variances(SKEWED, 0)


def test_two_matrix_versions_pool_by_hand():
    """HALF with (30, 20, 10) of 60: pi = 2 (lambda - 1/6) = (2/3, 1/3, 0); THREE_QUARTERS with (60, 40, 20) of 120:
    pi = 4/3 (lambda - 1/12) = (5/9, 1/3, 1/9). Weights 4n / range^2: 60 and 270, normalised 2/11 and 9/11, so
    pi_pool = (19/33, 1/3, 1/11). Option 0's variances (sum A^2 lambda - pi^2) / n: 1/60 and (4/9)/120 = 1/270,
    so SE^2 = (2/11)^2/60 + (9/11)^2/270 = 1/330."""
    first = estimate_misclassification([30, 20, 10], HALF)
    second = estimate_misclassification([60, 40, 20], THREE_QUARTERS)
    pooled = pool_misclassification([first, second])
    assert pooled.n == 180
    assert_allclose(pooled.estimate_raw, [19 / 33, 1 / 3, 1 / 11], rtol=1e-12)
    assert_allclose(pooled.weights, [[2 / 11] * 3, [9 / 11] * 3], rtol=1e-12)
    assert_allclose(pooled.std_err[0], math.sqrt(1 / 330), rtol=1e-12)
    assert_allclose(pooled.estimate_projected, pooled.estimate_raw, atol=1e-12)  # inside the simplex already
    ci = pooled.confidence_intervals(0.95)[0]
    assert_allclose(
        [ci.low, ci.high], [19 / 33 - 1.959964 * math.sqrt(1 / 330), 19 / 33 + 1.959964 * math.sqrt(1 / 330)]
    )


def test_pooling_weights_do_not_depend_on_the_answers():
    """The same matrices and answer counts give the same weights whatever the answers were; with SKEWED the
    options get different weights (their inverse rows span different ranges)."""
    one = pool_misclassification(
        [estimate_misclassification([50, 30, 20], SKEWED), estimate_misclassification([10, 10, 20], HALF)]
    )
    other = pool_misclassification(
        [estimate_misclassification([0, 100, 0], SKEWED), estimate_misclassification([40, 0, 0], HALF)]
    )
    assert one.weights == other.weights
    assert len({round(w, 12) for w in one.weights[0]}) > 1


def test_pooling_refuses_what_it_cannot_pool():
    with pytest.raises(ValueError, match="at least one"):
        pool_misclassification([])
    with pytest.raises(ValueError, match=r"estimates\[0\]='x'"):
        pool_misclassification(["x"])
    four = MisclassificationDesign.from_multiple_choice(4, "1/2")
    with pytest.raises(ValueError, match=r"k in \[3, 4\]"):
        pool_misclassification(
            [estimate_misclassification([1, 2, 3], HALF), estimate_misclassification([1, 2, 3, 4], four)]
        )


def test_pooled_versions_are_unbiased_and_cover():
    """R = 3000 pairs of surveys (SKEWED with n = 300, HALF with n = 200) at pi = (.6, .3, .1): the pooled raw
    mean is within 4 Monte Carlo standard errors of the truth and each option's interval covers within
    3 binomial standard errors of 0.95."""
    rng = np.random.default_rng(20261123)
    pi = np.array([0.6, 0.3, 0.1])
    replications = 3000
    first = rng.multinomial(300, SKEWED.floats() @ pi, size=replications)
    second = rng.multinomial(200, HALF.floats() @ pi, size=replications)
    raw, covered = [], np.zeros(3)
    for a, b in zip(first, second):
        pooled = pool_misclassification(
            [
                estimate_misclassification([int(c) for c in a], SKEWED),
                estimate_misclassification([int(c) for c in b], HALF),
            ]
        )
        raw.append(pooled.estimate_raw)
        covered += [ci.low <= p <= ci.high for ci, p in zip(pooled.confidence_intervals(0.95), pi)]
    raw = np.array(raw)
    assert np.all(np.abs(raw.mean(axis=0) - pi) <= 4 * raw.std(axis=0, ddof=1) / math.sqrt(replications))
    assert np.all(np.abs(covered / replications - 0.95) <= 3 * math.sqrt(0.95 * 0.05 / replications))


def test_a_k_option_design_with_a_six_decimal_t_becomes_a_matrix():
    """t = 0.654321, k = 4: the forced share (1 - t)/4 = 345679/4000000 has a denominator above the limit on
    written entries, but is exact; the matrix is built (and planned, pooled) rather than refused."""
    design = MisclassificationDesign.from_multiple_choice(4, "0.654321")
    assert design.matrix[1][0] == Fraction(345679, 4000000)
    assert design.matrix[0][0] == Fraction(654321, 1000000) + Fraction(345679, 4000000)
    with pytest.raises(DesignError, match="denominator above"):
        MisclassificationDesign([["2962963/4000000", "1037037/4000000"], ["1037037/4000000", "2962963/4000000"]])


def test_a_matrix_whose_first_column_starts_with_zero_is_invertible():
    """A permutation matrix (every answer reported as the other option) is invertible: the exact determinant
    swaps rows to find a pivot (-1, not 0) rather than dividing by the zero in the corner."""
    swapped = MisclassificationDesign([["0", "1"], ["1", "0"]])
    assert swapped.k == 2
    assert_allclose(estimate_misclassification([30, 10], swapped).estimate_raw, [0.25, 0.75])


def test_an_estimate_keeps_its_counts_and_its_intervals_are_at_95_percent_unless_told():
    estimate = estimate_misclassification([30, 20, 10], HALF)
    assert tuple(estimate.counts) == (30, 20, 10)
    assert estimate.confidence_intervals() == estimate.confidence_intervals(0.95)
    pooled = pool_misclassification([estimate, estimate_misclassification([60, 40, 20], THREE_QUARTERS)])
    assert pooled.confidence_intervals() == pooled.confidence_intervals(0.95)


def test_a_pool_of_answers_on_one_option_has_a_positive_standard_error():
    """One answer each under a nearly uninformative matrix: the observed shares' plug-in variance is 0 (the
    old standard error). The standard errors plug in shares the design can produce: each version's option 0
    is read through its marginal (t = 1/5, a = 2/5, clamped rate 3/5: sqrt(.24 / 1) / .2 = sqrt(6)); pooled
    with equal weights, sqrt(2 * 6 / 4) = sqrt(3)."""
    blurred = MisclassificationDesign([["3/5", "2/5"], ["2/5", "3/5"]])
    one = estimate_misclassification([1, 0], blurred)
    assert_allclose(np.diag(one.covariance()), [0.0, 0.0], atol=1e-15)
    assert_allclose(one.std_err, [math.sqrt(6)] * 2, rtol=1e-12)
    pooled = pool_misclassification([one] * 2)
    assert_allclose(pooled.std_err, [math.sqrt(3)] * 2, rtol=1e-12)


# --------------------------------------------------------------------------
# Intervals: never of width 0, the estimate inside, coverage at least 0.93 (issue 23).


def test_the_k_option_design_as_a_matrix_with_every_answer_on_one_option_is_not_certain():
    """Issue 23, case 1: 3 options, t = 1/2, counts (0, 0, 100) gave standard errors (0, 0, 0) and intervals
    [0, 0], [0, 0], [1, 1]. Now the standard errors are the k-option path's (0.0745, 0.0745, 0.0943) and the
    intervals the one-sided bounds of each option's marginal (a = 1/6: 0 of 100 is below it, 100 above 2/3)."""
    matrix = estimate_misclassification([0, 0, 100], HALF)
    k_option = estimate_multiple_choice([0, 0, 100], 0.5)
    assert_allclose(matrix.std_err, k_option.std_err, rtol=1e-12)
    assert min(matrix.std_err) > 0.07
    cis = matrix.confidence_intervals()
    assert [ci.side for ci in cis] == ["upper", "upper", "lower"]
    marginal = MultipleChoiceDesign(3, Fraction(1, 2)).option_marginal().exact()
    assert cis[0].high == outside_design(0, 100, *marginal).bound > 0.01
    assert cis[2].low == outside_design(100, 100, *marginal).bound < 0.99
    assert all(ci.high - ci.low > 0.01 for ci in cis)
    assert [side.side for side in matrix.outside()] == ["below", "below", "above"]


def test_a_separable_matrix_option_is_its_marginal_and_others_are_not():
    assert HALF.separable and MisclassificationDesign([["9/10", "1/10"], ["1/10", "9/10"]]).separable
    assert HALF.option_marginal(0).exact() == (Fraction(1, 2), Fraction(1, 6), Fraction(1, 3))
    assert not SKEWED.separable and SKEWED.option_marginal(0) is None
    forced = MisclassificationDesign.forced_response(["1/10", "1/5", "1/10"])
    assert forced.option_marginal(1).exact() == (Fraction(3, 5), Fraction(1, 5), Fraction(1, 5))


def _profile_on_a_grid(counts, design, j, level, step=0.0025):
    """The profile-likelihood interval by brute force: every point of a grid on the simplex whose log-likelihood
    is within chi2_1(level)/2 of the grid's best; the least and largest pi_j among them."""
    ticks = np.arange(0.0, 1.0 + step / 2, step)
    first, second = np.meshgrid(ticks, ticks, indexing="ij")
    keep = first + second <= 1 + 1e-12
    pi = np.stack([first[keep], second[keep], np.clip(1 - first[keep] - second[keep], 0, 1)])
    lam = design.floats() @ pi
    counts = np.asarray(counts, dtype=float)[:, None]
    with np.errstate(divide="ignore"):
        loglik = np.where(counts > 0, counts * np.log(lam), 0.0).sum(axis=0)
    inside = loglik >= loglik.max() - stats.chi2.ppf(level, 1) / 2
    return pi[j, inside].min(), pi[j, inside].max()


@pytest.mark.parametrize("counts", [[30, 20, 10], [50, 3, 47], [10, 0, 0], [12, 40, 8]])
def test_profile_likelihood_intervals_are_those_of_a_fine_grid(counts):
    """SKEWED has no option with its own marginal: each interval is the projection of the likelihood-ratio region,
    checked against a brute-force grid of step 0.0025 (its bounds are within a step or two of the exact ones)."""
    estimate = estimate_misclassification(counts, SKEWED)
    for j, ci in enumerate(estimate.confidence_intervals(0.95)):
        low, high = _profile_on_a_grid(counts, SKEWED, j, 0.95)
        assert ci.method == "profile likelihood"
        assert ci.low == pytest.approx(low, abs=0.006) and ci.high == pytest.approx(high, abs=0.006)
        assert ci.low <= estimate.estimate[j] <= ci.high and ci.high - ci.low > 0.01
        assert ci.side == (
            "upper" if estimate.mle[j] < 1e-9 else "lower" if estimate.mle[j] > 1 - 1e-9 else "two-sided"
        )


def test_the_maximum_likelihood_shares_are_those_of_the_em_fixed_point():
    """Outside the simplex the maximum is found numerically: it must be a fixed point of the EM update
    pi_i <- pi_i sum_j c_j P_ji / (n (P pi)_j), and no grid point may have a higher likelihood."""
    counts = np.array([50.0, 3.0, 47.0])
    pi = np.array(estimate_misclassification([50, 3, 47], SKEWED).mle)
    matrix = SKEWED.floats()
    assert estimate_misclassification([50, 3, 47], SKEWED).estimate_raw[1] < 0  # the raw estimate left the simplex
    assert_allclose(pi * (matrix.T @ (counts / (matrix @ pi))) / counts.sum(), pi, atol=1e-6)
    ticks = np.linspace(0, 1, 201)
    best = max(counts @ np.log(matrix @ np.array([x, y, 1 - x - y])) for x in ticks for y in ticks if x + y <= 1 - 1e-9)
    assert counts @ np.log(matrix @ pi) >= best - 1e-9


def _exact_coverage(design, n, truths):
    """Exact coverage of every option's interval at each truth: every outcome's intervals, weighted by its
    multinomial probability."""
    k = design.k
    outcomes = [c for c in itertools.product(range(n + 1), repeat=k - 1) if sum(c) <= n]
    outcomes = np.array([(*c, n - sum(c)) for c in outcomes])
    intervals = [estimate_misclassification([int(x) for x in c], design).confidence_intervals(0.95) for c in outcomes]
    low = np.array([[ci.low for ci in row] for row in intervals])
    high = np.array([[ci.high for ci in row] for row in intervals])
    worst = np.ones(k)
    for truth in truths:
        pmf = stats.multinomial.pmf(outcomes, n, design.floats() @ truth)
        covered = (low <= truth + 1e-9) & (truth - 1e-9 <= high)
        worst = np.minimum(worst, pmf @ covered)
    return worst


@pytest.mark.parametrize("n", [30, 47, 100])
def test_a_two_by_two_matrix_covers_at_least_95_percent_at_every_truth(n):
    """Issue 23, case 1: under 0.9 on the diagonal at n = 30 the old Wald intervals covered (0.02, 0.98) 0.872 of
    the time. Every 2 x 2 matrix is separable: exact (Clopper-Pearson) intervals of the reported share, mapped, or
    the one-sided bound outside the design. Exact coverage over 1,001 truths: at least the level itself."""
    design = MisclassificationDesign([["9/10", "1/10"], ["1/10", "9/10"]])
    truths = [np.array([p, 1 - p]) for p in np.linspace(0, 1, 1001)]
    worst = _exact_coverage(design, n, truths)
    assert worst.min() >= 0.95 - 1e-9
    assert _exact_coverage(design, 30, [np.array([0.02, 0.98])]).min() >= 0.95


@pytest.mark.slow
def test_a_three_by_three_matrix_covers_at_least_93_percent_at_every_truth():
    """Profile-likelihood intervals under SKEWED at n = 30, by exact enumeration of its 496 outcomes, at every
    truth of a grid of step 1/40 on the simplex (861 truths, the edges included): at least 0.93 for each option
    (0.934 measured; the issue's floor). The one-sided cut z^2 at the boundary would give 0.897 here."""
    ticks = np.linspace(0, 1, 41)
    truths = [np.array([x, y, max(1 - x - y, 0.0)]) for x in ticks for y in ticks if x + y <= 1 + 1e-9]
    worst = _exact_coverage(SKEWED, 30, truths)
    assert worst.min() >= 0.93


def test_the_estimate_shown_lies_inside_every_interval():
    rng = np.random.default_rng(20261126)
    for design in (SKEWED, HALF):
        for _ in range(40):
            counts = [int(c) for c in rng.multinomial(int(rng.integers(5, 200)), rng.dirichlet([0.3] * 3))]
            estimate = estimate_misclassification(counts, design)
            for value, ci in zip(estimate.estimate, estimate.confidence_intervals()):
                assert ci.low <= value <= ci.high and ci.high - ci.low > 0
    pooled = pool_misclassification([estimate_misclassification([0, 0, 30], HALF)] * 2)
    for value, ci in zip(pooled.estimate, pooled.confidence_intervals()):
        assert ci.low <= value <= ci.high and ci.high - ci.low > 0
    assert [ci.side for ci in pooled.confidence_intervals()] == ["upper", "upper", "lower"]


def test_producible_worst_case_variances_are_the_largest_over_a_grid_of_true_shares():
    """n Var(pi_hat_j) = sum_k A_jk^2 (P pi)_k - pi_j^2 maximised over a grid of the simplex by brute force equals
    the closed form, and is below Popoviciu's bound over every reported share (SKEWED cannot put half its reported
    answers on both extreme options); for the k-option design both are 1/(4 t^2)."""
    inverse = np.linalg.inv(SKEWED.floats())
    ticks = np.linspace(0, 1, 401)
    grid = np.array([[x, y, 1 - x - y] for x in ticks for y in ticks if x + y <= 1 + 1e-12]).T
    lam = SKEWED.floats() @ grid
    brute = ((inverse**2) @ lam - (inverse @ lam) ** 2).max(axis=1)
    closed = producible_worst_case_variances(SKEWED, 1)
    assert_allclose(closed, brute, rtol=1e-4)
    assert all(c < w for c, w in zip(closed, worst_case_variances(SKEWED, 1)))
    assert_allclose(producible_worst_case_variances(HALF, 1), [1.0] * 3, rtol=1e-12)


@pytest.mark.parametrize(
    ("make", "field", "message"),
    [
        (lambda: worst_case_variances(SKEWED, True), None, "n=True"),
        (lambda: MisclassificationDesign.forced_response(["1/2", "1/2"]), "prompted", "sum(prompted) must be below 1"),
        (lambda: MisclassificationDesign.forced_response(["1/4", "x"]), "prompted[1]", "prompted[1]"),
        (lambda: MisclassificationDesign.from_multiple_choice(3, "x"), "t", "t"),
    ],
)
def test_bad_design_arguments_are_named(make, field, message):
    with pytest.raises(ValueError) as caught:
        make()
    assert message in str(caught.value)
    if field is not None:
        assert caught.value.field == field


def test_each_option_whose_observed_share_no_true_shares_could_give_is_named_with_its_side():
    """SKEWED's rows: option 0 is reported with 1/10 .. 7/10, option 1 with 1/10 .. 3/5, option 2 with 1/10 .. 7/10
    whatever the true shares; a share at either end is still producible."""
    beyond = estimate_misclassification([5, 70, 25], SKEWED)
    assert beyond.outside_rows() == ("below", "above", None)
    at_the_ends = estimate_misclassification([10, 60, 30], SKEWED)
    assert at_the_ends.outside_rows() == (None, None, None)
    assert estimate_misclassification([75, 5, 20], SKEWED).outside_rows() == ("above", "below", None)


def test_outside_is_each_options_own_marginal_at_the_level_asked():
    """``outside()`` is :func:`outside_design` of each option's marginal (HALF: t 1/2, a 1/6, b 1/3) at the
    level asked. 20 of 100 lies inside [1/6, 2/3] (though outside the default design's [1/4, 3/4]), 0 of 100 is
    below 1/6, and at 90% the bound is not the 95% one. An option without a marginal (every row of SKEWED)
    gets None."""
    marginal = HALF.option_marginal(0).exact()
    below, inside, above = estimate_misclassification([0, 20, 80], HALF).outside(confidence_level=0.9)
    assert inside is None
    assert below == outside_design(0, 100, *marginal, confidence_level=0.9) != outside_design(0, 100, *marginal)
    assert below.side == "below" and above.side == "above"
    assert estimate_misclassification([30, 30, 40], SKEWED).outside() == (None, None, None)


def test_producible_worst_case_variances_clamp_the_share_at_one_and_divide_by_n():
    """A 2 x 2 matrix, columns (0.95, 0.05) and (0.6, 0.4): option 1's variance grows up to a true share of 1
    (the unclamped maximiser (w_1 - w_0) / 2 = 1.29 lies beyond it). n Var = sum_k A_1k^2 (P pi)_k - pi_1^2 over
    a grid of pi_1 by brute force gives the closed form; at n = 4 every variance is a quarter."""
    design = MisclassificationDesign([["19/20", "3/5"], ["1/20", "2/5"]])
    inverse = np.linalg.inv(design.floats())
    share = np.linspace(0, 1, 2001)
    lam = design.floats() @ np.array([1 - share, share])
    brute = ((inverse**2) @ lam - (inverse @ lam) ** 2).max(axis=1)
    assert_allclose(producible_worst_case_variances(design, 1), brute, rtol=1e-9)
    assert_allclose(producible_worst_case_variances(design, 4), brute / 4, rtol=1e-9)


@pytest.mark.parametrize("n", [0, True, 1.5])
def test_producible_worst_case_variances_refuse_a_bad_n_naming_it(n):
    with pytest.raises(ValueError, match=f"^n must be a whole number of at least 1, got n={n!r}$"):
        producible_worst_case_variances(HALF, n)


def test_a_profile_likelihood_interval_on_its_own_finds_the_maximum_and_keeps_the_level():
    """Called without the maximum it computes it (the same interval as with it), at 95% by default, and the
    interval records the level asked; a bad level is refused naming it."""
    counts = [30, 20, 10]
    mle = maximum_likelihood(counts, SKEWED)
    alone = profile_likelihood_interval(counts, SKEWED, 1)
    assert alone == profile_likelihood_interval(counts, SKEWED, 1, 0.95, mle)
    assert alone.confidence_level == 0.95 and alone.method == "profile likelihood"
    assert profile_likelihood_interval(counts, SKEWED, 1, 0.9, mle).confidence_level == 0.9
    with pytest.raises(ValueError, match=r"^confidence_level must be in \(0, 1\), got confidence_level=1.0$"):
        profile_likelihood_interval(counts, SKEWED, 1, 1.0)


def test_a_bad_level_for_the_intervals_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"^confidence_level must be in \(0, 1\), got confidence_level=0$"):
        estimate_misclassification([30, 20, 10], SKEWED).confidence_intervals(0)


def test_pooled_intervals_inside_the_simplex_are_two_sided():
    """HALF, counts (30, 30, 40) twice: raw shares 2 lambda - 1/3 = (.267, .267, .467), all inside (0, 1)."""
    one = estimate_misclassification([30, 30, 40], HALF)
    pooled = pool_misclassification([one, one])
    assert [ci.side for ci in pooled.confidence_intervals()] == ["two-sided"] * 3


# --------------------------------------------------------------------------
# The maximum and the profile-likelihood ends against independent references (mutation testing).


def _face_maximum(counts, design, zero):
    """The maximum of log L on the face pi_zero = 0 of a 3-option simplex: the root of the score along the face
    (pi_a = x, pi_b = 1 - x), by bisection to rounding; log L is concave, so the root is the face's maximum."""
    c = np.asarray(counts, dtype=float)
    matrix = design.floats()
    a, b = [i for i in range(3) if i != zero]

    def score(x):
        pi = np.zeros(3)
        pi[a], pi[b] = x, 1 - x
        return c @ ((matrix[:, a] - matrix[:, b]) / (matrix @ pi))

    x = optimize.brentq(score, 1e-12, 1 - 1e-12, xtol=1e-17, rtol=8.9e-16)
    pi = np.zeros(3)
    pi[a], pi[b] = x, 1 - x
    return pi


@pytest.mark.parametrize("counts", [[50, 1, 49], [20, 1, 9], [50, 3, 47]])
def test_the_maximum_outside_the_raw_estimate_is_the_one_on_its_face_to_rounding(counts):
    """Option 1's raw estimate is negative for each count set, and the maximum lies on the face pi_1 = 0: the
    score along the face has a root there (found by bisection), and there the derivative towards option 1,
    sum_j c_j P_j1 / lambda_j, is below the multiplier n of the constraint sum pi = 1 (KKT: leaving the face
    lowers log L). Both are the maximum of a strictly concave function, computed to rounding, so they agree to
    1e-12 (the score's root is well conditioned: its slope is of the order of n). The counts of 1 are kept in
    the likelihood (dropping the count of 1 moves the maximum by 0.004 to 0.01)."""
    mle = maximum_likelihood(counts, SKEWED)
    assert estimate_misclassification(counts, SKEWED).estimate_raw[1] < 0
    reference = _face_maximum(counts, SKEWED, 1)
    c = np.asarray(counts, dtype=float)
    lam = SKEWED.floats() @ reference
    assert (SKEWED.floats()[:, 1] @ (c / lam)) < c.sum()
    assert_allclose(mle, reference, rtol=0, atol=1e-12)


def _profile(counts, design, j, x):
    """max log L over the 3-option simplex with pi_j = x: the split y of 1 - x between the other two options at
    the root of the score (log L is concave in y), or at an end of [0, 1 - x] when the score keeps one sign."""
    c = np.asarray(counts, dtype=float)
    matrix = design.floats()
    a, b = [i for i in range(3) if i != j]

    def at(y):
        pi = np.zeros(3)
        pi[j], pi[a], pi[b] = x, y, 1 - x - y
        return pi

    def score(y):
        return c @ ((matrix[:, a] - matrix[:, b]) / (matrix @ at(y)))

    top = 1 - x
    if score(0.0) <= 0:
        y = 0.0
    elif score(top) >= 0:
        y = top
    else:
        y = optimize.brentq(score, 0.0, top, xtol=1e-17, rtol=8.9e-16)
    seen = c > 0
    return float(c[seen] @ np.log((matrix @ at(y))[seen]))


def _profile_ends(counts, design, j, level):
    """The profile-likelihood interval by root finding: where the profile falls to log L_max - chi2_1(level)/2 on
    each side of the maximum (or the end 0 or 1 when it never does)."""
    mle = maximum_likelihood(counts, design)
    c = np.asarray(counts, dtype=float)
    floor = float(c @ np.log(design.floats() @ mle)) - stats.chi2.ppf(level, 1) / 2

    def excess(x):
        return _profile(counts, design, j, x) - floor

    low = 0.0 if excess(0.0) >= 0 else optimize.brentq(excess, 0.0, mle[j], xtol=1e-15, rtol=8.9e-16)
    high = 1.0 if excess(1.0) >= 0 else optimize.brentq(excess, mle[j], 1.0, xtol=1e-15, rtol=8.9e-16)
    return low, high


@pytest.mark.parametrize("counts", [[30, 20, 10], [50, 3, 47]])
def test_profile_likelihood_ends_are_the_roots_of_the_profile(counts):
    """Each end of SKEWED's profile-likelihood intervals (found by SLSQP over the region) against the root of the
    profile log-likelihood minus the cut, the profile itself maximised along one line by bisection: equal to 1e-8
    (the reference is exact to 1e-15; SLSQP stops at a change of 1e-13 in the end and meets the region's
    constraint to its own tolerance, so 1e-8 leaves a wide margin yet is 10^5 times finer than the grid test's
    6e-3)."""
    for j in range(3):
        ci = profile_likelihood_interval(counts, SKEWED, j)
        assert_allclose([ci.low, ci.high], _profile_ends(counts, SKEWED, j, 0.95), rtol=0, atol=1e-8)


TRIANGULAR = MisclassificationDesign([["1", "1/4"], ["0", "3/4"]])  # option 1 is reported only by option 1


def test_the_log_likelihood_by_hand():
    """_log_likelihood sums c_j log lambda_j over the options reported, a count of 1 included, and is -inf,
    without a warning, where a reported option cannot be reported (lambda_j = 0). TRIANGULAR at pi = (1/2, 1/2):
    lambda = (5/8, 3/8); at pi = (1, 0): lambda = (1, 0), so (10, 0) gives 10 log 1 = 0 (the option nobody
    reported does not count) and (10, 2) gives -inf."""
    matrix = TRIANGULAR.floats()
    half = np.array([0.5, 0.5])
    assert _log_likelihood(np.array([1.0, 3.0]), matrix, half) == pytest.approx(
        math.log(5 / 8) + 3 * math.log(3 / 8), rel=1e-15
    )
    assert _log_likelihood(np.array([10.0, 0.0]), matrix, np.array([1.0, 0.0])) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _log_likelihood(np.array([10.0, 2.0]), matrix, np.array([1.0, 0.0])) == -math.inf


def test_a_profile_interval_where_an_option_nobody_reported_cannot_be_reported():
    """TRIANGULAR, 10 of 10 report option 0: the maximum is pi_0 = 1 (lambda = (1, 0)), and log L(pi_0 = x) =
    10 log(x + (1 - x)/4). The lower bound solves 10 log(1 - 3 (1 - x)/4) = -chi2_1(.95)/2 in closed form:
    x = 1 - 4 (1 - exp(-chi2/20)) / 3. The end is allowed 1e-8, as the profile ends above."""
    ci = profile_likelihood_interval([10, 0], TRIANGULAR, 0)
    assert ci.side == "lower" and ci.high == 1.0
    cut = stats.chi2.ppf(0.95, 1)
    assert ci.low == pytest.approx(1 - 4 * (1 - math.exp(-cut / 20)) / 3, abs=1e-8)


def test_a_six_decimal_k_option_design_has_exact_marginals():
    """t = 0.654321, k = 4: each option's marginal keeps the exact (1 - t)/4 = 345679/4000000 (a denominator above
    the limit on written entries), rather than refusing it."""
    design = MisclassificationDesign.from_multiple_choice(4, "0.654321")
    forced = Fraction(345679, 4000000)
    assert design.separable
    assert design.option_marginal(2).exact() == (
        Fraction(654321, 1000000),
        forced,
        1 - Fraction(654321, 1000000) - forced,
    )


@pytest.mark.parametrize("counts", [[1, 3], [3, 1]])
def test_pooled_shares_of_exactly_0_and_1_have_two_sided_intervals(counts):
    """P = [[3/4, 1/4], [1/4, 3/4]], 1 of 4 reports option 0: lambda_0 = 1/4 gives raw shares exactly (0, 1) (and
    3 of 4 exactly (1, 0)), pooled with itself unchanged: on the ends of [0, 1], not outside, so the intervals
    are two-sided (one-sided only for a raw share that left [0, 1])."""
    one = estimate_misclassification(counts, MisclassificationDesign([["3/4", "1/4"], ["1/4", "3/4"]]))
    pooled = pool_misclassification([one, one])
    assert sorted(pooled.estimate_raw) == [0.0, 1.0]
    assert [ci.side for ci in pooled.confidence_intervals()] == ["two-sided", "two-sided"]


def test_the_maximum_where_the_raw_estimate_is_on_the_simplex_is_the_raw_estimate():
    """SKEWED, counts (30, 20, 10): lambda_hat = (1/2, 1/3, 1/6) = P (2/3, 1/3, 0) by hand (.7 * 2/3 + .1/3 = 1/2,
    .2 * 2/3 + .6/3 = 1/3, .1 * 2/3 + .3/3 = 1/6), a point of the simplex's edge, so it is the maximum, returned to
    the rounding of one linear solve (1e-14). An iterative maximiser creeps towards such an edge point slowly (the
    likelihood is flat across the edge there: EM leaves 6e-8 after 200 steps)."""
    assert_allclose(maximum_likelihood([30, 20, 10], SKEWED), [2 / 3, 1 / 3, 0.0], rtol=0, atol=1e-14)
    assert_allclose(estimate_misclassification([30, 20, 10], SKEWED).mle, [2 / 3, 1 / 3, 0.0], rtol=0, atol=1e-14)
