"""analysis.linear_model: least squares from kept cell sums, by hand and against statsmodels on the answers."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import statsmodels.api as sm
from numpy.testing import assert_allclose

from analysis.linear_model import affine_cells, debiased_cells, linear_model_from_cells
from analysis.numeric_design import BoundedDesign, laplace_for_epsilon
from analysis.regression import INTERCEPT


def test_two_cells_by_hand():
    # x = 0: answers 1, 3 (n 2, S 4, Q 10); x = 1: answers 2, 4, 6 (n 3, S 12, Q 56).
    # beta = (mean 2, difference 4 - 2 = 2); RSS = (10 - 16/2) + (56 - 144/3) = 2 + 8 = 10, sigma^2 = 10/3.
    # (X'X)^-1 = [[1/2, -1/2], [-1/2, 5/6]]: classical variances 5/3 and 25/9;
    # HC0 of a dummy model: e_0 / n_0^2 = 2/4 and e_0/n_0^2 + e_1/n_1^2 = 1/2 + 8/9.
    # TSS = 66 - 16^2/5 = 14.8, R^2 = 1 - 10/14.8.
    fit = linear_model_from_cells([((0,), 2, 4, 10), ((1,), 3, 12, 56)], names=["treated"])
    assert fit.names == (INTERCEPT, "treated") and (fit.n, fit.cells, fit.df_resid) == (5, 2, 3)
    assert_allclose([c.estimate for c in fit.coefficients], [2, 2], atol=1e-14)
    assert_allclose(fit.residual_variance, 10 / 3)
    assert_allclose([c.classical_std_err for c in fit.coefficients], [math.sqrt(5 / 3), 5 / 3])
    assert_allclose([c.std_err for c in fit.coefficients], [math.sqrt(0.5), math.sqrt(0.5 + 8 / 9)])
    assert_allclose(fit.r_squared, 1 - 10 / 14.8)
    treated = fit.coefficient("treated")
    z = 1.959963984540054
    assert_allclose([treated.low, treated.high], [2 - z * math.sqrt(0.5 + 8 / 9), 2 + z * math.sqrt(0.5 + 8 / 9)])
    with pytest.raises(KeyError, match=r"no coefficient named 'dose'; the names are \('intercept', 'treated'\)"):
        fit.coefficient("dose")


def expanded(rng, n: int, design=None):
    """Answers one by one: a 3-level and a 2-level predictor (dummies against the first level) and an
    outcome 3 + 2 [b] - 1 [c] + 4 [yes] with noise whose spread depends on the cell, sent through the Laplace
    design (``design`` None) or as the one-bit design's bit."""
    level = rng.integers(0, 3, n)
    yes = rng.integers(0, 2, n)
    x = np.column_stack([level == 1, level == 2, yes]).astype(float)
    if design is None:
        true = np.clip(np.rint(3 + 2 * x[:, 0] - x[:, 1] + 4 * x[:, 2] + rng.normal(0, 1 + 2 * yes, n)), 0, 10)
        r = laplace_for_epsilon(10, 2.0).ratio
        return x, true + rng.geometric(1 - r, n) - rng.geometric(1 - r, n)
    true = rng.integers(0, 4, n) + 3 * x[:, 2] + 2 * x[:, 0]
    chance = (design.low * design.steps + (design.high - design.low) * true) / (
        (design.high + design.low) * design.steps
    )
    return x, (rng.random(n) < chance).astype(float)


def cells_of(x: np.ndarray, y: np.ndarray) -> list:
    """Kept cell sums: count, sum and sum of squares per distinct row of ``x``."""
    rows, inverse = np.unique(x, axis=0, return_inverse=True)
    return [
        (tuple(row), int((inverse == i).sum()), float(y[inverse == i].sum()), float((y[inverse == i] ** 2).sum()))
        for i, row in enumerate(rows.tolist())
    ]


def assert_matches_statsmodels(fit, x: np.ndarray, y: np.ndarray) -> None:
    exog = sm.add_constant(x, has_constant="add")
    classical, robust = sm.OLS(y, exog).fit(), sm.OLS(y, exog).fit(cov_type="HC0")
    coefficients = fit.coefficients
    assert_allclose([c.estimate for c in coefficients], classical.params, rtol=1e-10, atol=1e-12)
    assert_allclose([c.classical_std_err for c in coefficients], classical.bse, rtol=1e-9)
    assert_allclose([c.std_err for c in coefficients], robust.bse, rtol=1e-9)
    assert_allclose([[c.classical_low, c.classical_high] for c in coefficients], classical.conf_int(), rtol=1e-9)
    assert_allclose([[c.low, c.high] for c in coefficients], robust.conf_int(), rtol=1e-9)
    assert_allclose([c.classical_p_value for c in coefficients], classical.pvalues, rtol=1e-7, atol=1e-300)
    assert_allclose([c.p_value for c in coefficients], robust.pvalues, rtol=1e-7, atol=1e-300)
    assert_allclose(np.array(fit.covariance), robust.cov_params(), rtol=1e-9, atol=1e-15)
    assert_allclose(fit.r_squared, classical.rsquared, rtol=1e-9)
    assert_allclose(fit.residual_variance, classical.scale, rtol=1e-9)
    assert fit.df_resid == classical.df_resid


def test_laplace_outcome_matches_statsmodels_on_the_answers():
    rng = np.random.default_rng(27)
    x, y = expanded(rng, 3000)
    fit = linear_model_from_cells(cells_of(x, y), names=["b", "c", "yes"])
    assert fit.cells == 6 and fit.n == 3000
    assert_matches_statsmodels(fit, x, y)


def test_bounded_outcome_debiased_matches_statsmodels_and_is_the_affine_map():
    # u = K ((high + low) bit - low)/(high - low) = 10 (4 bit - 1)/2 = 20 bit - 5 for K 10, high 3, low 1.
    design = BoundedDesign(10, 3, 1)
    rng = np.random.default_rng(28)
    x, bits = expanded(rng, 4000, design)
    u = 20 * bits - 5
    debiased = linear_model_from_cells(debiased_cells(design, cells_of(x, bits)), names=["b", "c", "yes"])
    assert_matches_statsmodels(debiased, x, u)
    on_bits = linear_model_from_cells(cells_of(x, bits), names=["b", "c", "yes"])
    estimates = [c.estimate for c in on_bits.coefficients]
    assert_allclose(
        [c.estimate for c in debiased.coefficients], [20 * estimates[0] - 5, *(20 * b for b in estimates[1:])]
    )
    assert_allclose([c.std_err for c in debiased.coefficients], [20 * c.std_err for c in on_bits.coefficients])
    # The Laplace design's outcome is unbiased as sent: its cells are unchanged.
    assert debiased_cells(laplace_for_epsilon(10, 1.0), [((1,), 2, 3, 5)]) == [((1,), 2, 3, 5)]


def test_affine_cells_by_hand():
    # Answers 1, 3 -> u = 2y + 1 = 3, 7: n 2, sum 10, squares 58 = 4 * 10 + 2 * 2 * 1 * 4 + 1 * 2.
    assert affine_cells([((0,), 2, 4, 10)], 2, 1) == [((0,), 2, 10, 58)]


def test_debiased_slope_interval_covers_by_simulation():
    # One-bit design, a dummy that adds 3 steps to the true value: 400 samples of 400 answers; the HC0 95%
    # interval of the slope covers 3 in 95% of them up to 4 binomial standard errors plus .01 for the normal
    # approximation (sqrt(.95 * .05/400) = .011).
    design = BoundedDesign(10, 3, 1)
    rng = np.random.default_rng(2018)
    replications, covered = 400, 0
    for _ in range(replications):
        yes = rng.integers(0, 2, 400)
        true = rng.integers(0, 5, 400) + 3 * yes
        chance = (design.low * 10 + (design.high - design.low) * true) / ((design.high + design.low) * 10)
        bits = (rng.random(400) < chance).astype(float)
        cells = [
            ((v,), int((yes == v).sum()), float(bits[yes == v].sum()), float(bits[yes == v].sum())) for v in (0, 1)
        ]
        slope = linear_model_from_cells(debiased_cells(design, cells)).coefficients[1]
        covered += slope.low <= 3 <= slope.high
    assert abs(covered / replications - 0.95) < 4 * math.sqrt(0.95 * 0.05 / replications) + 0.01, covered


def test_empty_cells_are_left_out_and_intercept_only():
    # Intercept only: the mean (4 + 12)/5 = 3.2; the empty cell adds nothing.
    fit = linear_model_from_cells([((), 2, 4, 10), ((), 3, 12, 56), ((), 0, 0, 0)])
    assert fit.names == (INTERCEPT,) and fit.cells == 2
    assert_allclose(fit.coefficients[0].estimate, 3.2)


@pytest.mark.parametrize(
    ("cells", "names", "message"),
    [
        ([((0,), 2, 4, 10), ((0,), 3, 12, 56)], None, "linearly dependent"),
        ([((0,), 1, 4, 16), ((1,), 1, 12, 144)], None, "more than 2 answers"),
        ([((0,), 2, 4, 7), ((1,), 3, 12, 56)], None, r"cells\[0\] sum_y2=7"),
        ([((0,), -1, 4, 10)], None, r"cells\[0\] count .* n=-1"),
        ([((0,), 2, 4, 10), ((1, 2), 3, 12, 56)], None, r"cells\[1\] must have 1"),
        ([((0,), 2, float("nan"), 10)], None, r"cells\[0\] sum_y must be a finite number"),
        ([((0,), 0, 1, 1)], None, r"cells\[0\] has no answers"),
        ([(0, 2)], None, r"cells\[0\] must be"),
        ([], None, "at least one cell"),
        ([((0,), 2, 4, 10), ((1,), 3, 12, 56)], ["a", "b"], "names must be 1"),
    ],
)
def test_bad_cells_are_named(cells, names, message):
    with pytest.raises(ValueError, match=message):
        linear_model_from_cells(cells, names)


def test_bad_level_and_design():
    with pytest.raises(ValueError, match="level"):
        linear_model_from_cells([((0,), 2, 4, 10), ((1,), 3, 12, 56)], level=1.5)
    with pytest.raises(ValueError, match="design must be"):
        debiased_cells("bounded", [])
    with pytest.raises(ValueError, match="scale"):
        affine_cells([], float("inf"), 0)


def test_the_statistics_of_each_coefficient_and_the_fit_by_hand():
    """The cells of test_two_cells_by_hand at 90%: z = estimate / HC0 SE, t = estimate / classical SE, and the
    classical covariance sigma^2 (X'X)^-1 = 10/3 [[1/2, -1/2], [-1/2, 5/6]]."""
    fit = linear_model_from_cells([((0,), 2, 4, 10), ((1,), 3, 12, 56)], names=["treated"], level=0.9)
    assert fit.confidence_level == 0.9
    assert_allclose(fit.classical_covariance, [[5 / 3, -5 / 3], [-5 / 3, 25 / 9]], rtol=1e-12)
    assert_allclose([c.z for c in fit.coefficients], [2 / math.sqrt(0.5), 2 / math.sqrt(0.5 + 8 / 9)], rtol=1e-12)
    assert_allclose([c.classical_t for c in fit.coefficients], [2 / math.sqrt(5 / 3), 2 / (5 / 3)], rtol=1e-12)


def test_a_perfect_fit_has_infinite_statistics_and_a_zero_estimate_none():
    """Every answer equal within its cell and the cells on the line: no residual, so a coefficient's statistic is
    +/- infinity, or undefined (nan) when the coefficient is 0 too."""
    fit = linear_model_from_cells([((0,), 2, 4, 8), ((1,), 2, 8, 32)], names=["treated"])
    assert fit.residual_variance == 0
    assert [(c.std_err, c.z, c.classical_t) for c in fit.coefficients] == [(0.0, math.inf, math.inf)] * 2
    flat = linear_model_from_cells([((0,), 2, 4, 8), ((1,), 2, 4, 8)], names=["treated"])
    treated = flat.coefficient("treated")
    assert treated.estimate == 0 and math.isnan(treated.z) and math.isnan(treated.classical_t)
    assert math.isnan(flat.r_squared)  # every answer the same: no spread to explain
    small = linear_model_from_cells([((0,), 2, 0.0, 0.0), ((1,), 2, 1.0, 0.5)], names=["treated"])
    assert small.r_squared == 1.0  # a total sum of squares of 1/4, all explained


def test_a_cell_without_answers_is_skipped_wherever_it_stands():
    cells = [((1,), 3, 12, 56), ((0,), 2, 4, 10)]
    with_empty = linear_model_from_cells([((0,), 0, 0, 0), *cells, ((1,), 0, 0, 0)], names=["treated"])
    assert with_empty == linear_model_from_cells(cells, names=["treated"])


@pytest.mark.parametrize(
    ("cells", "message"),
    [
        (5, "cells must be a sequence of (x_row, n, sum_y, sum_y2), got cells=5"),
        ([((0,), True, 4, 8)], "cells[0] count must be an integer >= 0, got n=True"),
        ([((0,), 2, True, 8)], "cells[0] sum_y must be a finite number, got sum_y=True"),
        ([((0,), 2, 4, math.nan)], "cells[0] sum_y2 must be a finite number, got sum_y2=nan"),
        ([((0,), 0, 0, 5)], "cells[0] has no answers but sums 0, 5"),
        ([((0,), 0, 3, 0)], "cells[0] has no answers but sums 3, 0"),
        ([((0,), 2, 4, 1)], "cells[0] sum_y2=1 is below sum_y^2 / n = 8.0: not the sums of one set of numbers"),
        ([((0,), 0, 0, 0)], "cells must hold at least one cell with answers"),
        (
            [((0,), 2, 4, 8), ((0,), 2, 4, 8)],
            "the columns ('intercept', 'treated') are linearly dependent over the 2 cells with answers: drop a "
            "column or a level (each categorical predictor needs a reference level)",
        ),
    ],
)
def test_bad_cells_are_refused_naming_the_fault(cells, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        linear_model_from_cells(cells, names=None if cells == 5 else ["treated"])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: affine_cells([((0,), 2, 4, 10)], math.nan, 0), "scale must be a finite number, got scale=nan"),
        (lambda: affine_cells([((0,), 2, 4, 10)], True, 0), "scale must be a finite number, got scale=True"),
        (lambda: affine_cells([((0,), 2, 4, 10)], 1, math.inf), "shift must be a finite number, got shift=inf"),
        (lambda: linear_model_from_cells([((0,), 2, 4, 10)], level=1.5), "level must be in (0, 1), got level=1.5"),
    ],
)
def test_a_bad_scale_shift_or_level_is_refused_naming_it(call, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        call()


def test_the_one_bit_debiasing_uses_low_in_the_shift():
    """K 10, high 5, low 2: u = 10 (7 bit - 2) / 3, so 3 ones of 4 answers sum to (210 - 80) / 3."""
    [(x_row, n, total, squares)] = debiased_cells(BoundedDesign(10, 5, 2), [((1,), 4, 3, 3)])
    assert (x_row, n) == ((1,), 4)
    assert_allclose([total, squares], [130 / 3, 3 * (50 / 3) ** 2 + (20 / 3) ** 2], rtol=1e-12)


def test_sums_of_squares_below_the_spread_within_the_rounding_tolerance_are_accepted():
    """A kept sum of squares may undershoot sum_y^2 / n by float rounding: by at most 1e-9 (relative, then
    absolute) it is read as no spread; more is refused."""
    for squares in (-5e-10, -1e-9):
        assert linear_model_from_cells([((0,), 1, 0.0, squares), ((1,), 2, 2.0, 2.0)], names=["t"]).n == 3
    with pytest.raises(ValueError, match="is below sum_y"):
        linear_model_from_cells([((0,), 1, 0.0, -2e-9), ((1,), 2, 2.0, 2.0)], names=["t"])
