"""select_one with a general misclassification matrix (van den Hout and van der Heijden 2002)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose

from analysis import (
    MisclassificationDesign,
    estimate_misclassification,
    estimate_multiple_choice,
    multiple_choice_epsilon,
    pool_misclassification,
    worst_case_variances,
)
from analysis._checks import DesignError

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


def test_simulated_estimates_are_unbiased_and_intervals_cover():
    """R = 4000 surveys of n = 800 under SKEWED with pi = (.5, .3, .2). The mean raw estimate is within
    4 Monte Carlo standard errors (sd / sqrt(R)) of the truth for each option, the covariance formula
    matches the simulated covariance within 10% on the diagonal (its own error is about 2%), and each
    option's Wald interval covers within 3 binomial standard errors of 0.95 (sqrt(.95 * .05 / 4000) = 0.0034)."""
    rng = np.random.default_rng(20261122)
    pi = np.array([0.5, 0.3, 0.2])
    lam = SKEWED.floats() @ pi
    replications, n = 4000, 800
    counts = rng.multinomial(n, lam, size=replications)
    raw, covered, std_err = [], np.zeros(3), []
    for row in counts:
        e = estimate_misclassification([int(c) for c in row], SKEWED)
        raw.append(e.estimate_raw)
        std_err.append(e.std_err)
        covered += [ci.low <= p <= ci.high for ci, p in zip(e.confidence_intervals(0.95), pi)]
    raw = np.array(raw)
    spread = raw.std(axis=0, ddof=1)
    assert np.all(np.abs(raw.mean(axis=0) - pi) <= 4 * spread / math.sqrt(replications))
    assert_allclose(np.mean(std_err, axis=0), spread, rtol=0.1)
    assert np.all(np.abs(covered / replications - 0.95) <= 3 * math.sqrt(0.95 * 0.05 / replications))


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


def test_a_pool_of_answers_without_sampling_variance_has_a_standard_error_of_zero():
    """One answer each under a nearly uninformative matrix (inverse rows span 5, so the worst-case variance
    is 25/4 and the weights are small): every option's estimated variance is 0, and so is the pooled one."""
    blurred = MisclassificationDesign([["3/5", "2/5"], ["2/5", "3/5"]])
    pooled = pool_misclassification([estimate_misclassification([1, 0], blurred)] * 2)
    assert pooled.std_err == (0.0, 0.0)


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
