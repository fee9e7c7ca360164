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
