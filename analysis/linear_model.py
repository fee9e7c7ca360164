"""Least squares of a randomized number on plain predictors, from kept cell sums.

Respondents fall into cells: one per combination of the plain predictors' answers, coded as dummy columns
``x`` (constant within a cell). A cell keeps only its count ``n_c``, the sum of its outcomes ``S_c`` and the
sum of their squares ``Q_c``. These are sufficient for ordinary least squares and for both its classical and
its heteroskedasticity-consistent (HC0) standard errors, because ``x`` does not vary within a cell:

    X'X = sum_c n_c x_c x_c'        X'y = sum_c S_c x_c        beta = (X'X)^-1 X'y
    e_c = sum_(i in c) (y_i - x_c' beta)^2 = Q_c - 2 yhat_c S_c + n_c yhat_c^2,     yhat_c = x_c' beta
    RSS = sum_c e_c        sigma^2 = RSS / (N - p)
    classical:  V = sigma^2 (X'X)^-1
    HC0:        V = (X'X)^-1 (sum_c e_c x_c x_c') (X'X)^-1          (White 1980)

so a fit costs the same at a thousand answers or ten million (:func:`linear_model_from_cells`).

**The outcome.** Under :class:`analysis.numeric_design.DiscreteLaplaceDesign` the sent value ``Y = k + Z``
has ``E[Y | x] = E[k | x]`` (the noise has mean 0 and is independent of everything), so least squares on ``Y``
estimates the true values' regression unbiased; the noise only adds ``2 r / (1 - r)^2`` to every residual's
variance. Under :class:`analysis.numeric_design.BoundedDesign` one bit is sent, with ``E[bit | k]`` affine in
``k``; the debiased answer ``u = K ((high + low) bit - low) / (high - low)`` has ``E[u | k] = k``, and since
``u`` is an affine map ``a bit + b`` of the bit, its cell sums are the same map of the bit's
(:func:`affine_cells`, :func:`debiased_cells`): least squares on ``u`` gives slopes ``a`` times the bit's
and the intercept ``a beta_0 + b``. Mapping the cells is the caller's choice; :func:`debiased_cells` does it
for either design. Either way the errors are heteroskedastic (the randomization's variance depends on the
true value for the one-bit design, and the true values' spread may differ between cells), which is why the
HC0 standard errors are the default (``std_err``), the classical ones given beside them.

References
----------
White, H. (1980). A heteroskedasticity-consistent covariance matrix estimator and a direct test for
heteroskedasticity. Econometrica 48(4), 817-838.
MacKinnon, J. G. and White, H. (1985). Some heteroskedasticity-consistent covariance matrix estimators with
improved finite sample properties. Journal of Econometrics 29(3), 305-325 (HC0 to HC3).
Seabold, S. and Perktold, J. (2010). statsmodels: econometric and statistical modeling with Python. SciPy
2010 (``OLS(...).fit(cov_type="HC0")``, the reference of the tests).
Duchi, J. C., Jordan, M. I. and Wainwright, M. J. (2018). Minimax optimal procedures for locally private
estimation. JASA 113(521), 182-201 (the one-bit design).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from scipy import special, stats

from analysis._checks import check_unit_open
from analysis.numeric_design import BoundedDesign, DiscreteLaplaceDesign
from analysis.regression import coefficient_names

#: A cell whose sum of squares falls below ``S^2 / n`` by more than this (relatively) cannot be the sums of
#: one set of numbers (rounding of float sums stays far below it).
_SQUARES_TOLERANCE = 1e-9

Cell = tuple[Sequence[float], int, float, float]


@dataclass(frozen=True)
class LinearCoefficient:
    """One coefficient with its HC0 (default) and classical standard errors, tests and intervals.

    Attributes
    ----------
    name : str
    estimate : float
    std_err, z, p_value, low, high : float
        HC0: ``sqrt(V_jj)``, ``estimate / std_err``, two-sided normal p-value, ``estimate +/- z std_err``
        (statsmodels' default for a robust covariance: the normal distribution).
    classical_std_err, classical_t, classical_p_value, classical_low, classical_high : float
        Classical ``sigma^2 (X'X)^-1``, with Student's t on ``N - p`` degrees of freedom.
    """

    name: str
    estimate: float
    std_err: float
    z: float
    p_value: float
    low: float
    high: float
    classical_std_err: float
    classical_t: float
    classical_p_value: float
    classical_low: float
    classical_high: float


@dataclass(frozen=True)
class LinearFit:
    """Least-squares fit of :func:`linear_model_from_cells`.

    Attributes
    ----------
    names : tuple of str
        :data:`~analysis.regression.INTERCEPT` then the predictor columns.
    coefficients : tuple of LinearCoefficient
        In the order of ``names``.
    covariance, classical_covariance : tuple of tuple of float
        HC0 and classical covariance matrices of the coefficients.
    n : int
        Answers ``N`` (cells with none are left out).
    cells : int
        Cells with answers.
    df_resid : int
        ``N - p``.
    residual_variance : float
        ``sigma^2 = RSS / (N - p)``.
    r_squared : float
        ``1 - RSS / TSS`` of the outcome as given (for a randomized outcome the noise's variance is in both,
        so it is smaller than the true values' R^2 would be).
    confidence_level : float
    """

    names: tuple[str, ...]
    coefficients: tuple[LinearCoefficient, ...]
    covariance: tuple[tuple[float, ...], ...]
    classical_covariance: tuple[tuple[float, ...], ...]
    n: int
    cells: int
    df_resid: int
    residual_variance: float
    r_squared: float
    confidence_level: float

    def coefficient(self, name: str) -> LinearCoefficient:
        """The coefficient named ``name``; ``KeyError`` naming it if there is none."""
        for coefficient in self.coefficients:
            if coefficient.name == name:
                return coefficient
        raise KeyError(f"no coefficient named {name!r}; the names are {self.names}")


def _check_cells(cells: object) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(x, n, S, Q)`` arrays of the cells with answers; ValueError naming a bad cell."""
    try:
        items = list(cells)  # type: ignore[call-overload]
    except TypeError:
        raise ValueError(f"cells must be a sequence of (x_row, n, sum_y, sum_y2), got cells={cells!r}") from None
    rows, counts, sums, squares = [], [], [], []
    width = None
    for index, cell in enumerate(items):
        try:
            x_row, n, total, total_squares = cell
            row = [float(v) for v in x_row]
        except (TypeError, ValueError):
            raise ValueError(f"cells[{index}] must be (x_row, n, sum_y, sum_y2), got {cell!r}") from None
        width = len(row) if width is None else width
        if len(row) != width or not all(math.isfinite(v) for v in row):
            raise ValueError(f"cells[{index}] must have {width} finite predictor values, got x_row={x_row!r}")
        if isinstance(n, bool) or not isinstance(n, Integral) or n < 0:
            raise ValueError(f"cells[{index}] count must be an integer >= 0, got n={n!r}")
        for name, value in (("sum_y", total), ("sum_y2", total_squares)):
            if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
                raise ValueError(f"cells[{index}] {name} must be a finite number, got {name}={value!r}")
        if n == 0:
            if total != 0 or total_squares != 0:
                raise ValueError(f"cells[{index}] has no answers but sums {total!r}, {total_squares!r}")
            continue
        if total_squares * n < total * total * (1 - _SQUARES_TOLERANCE) - _SQUARES_TOLERANCE:
            raise ValueError(
                f"cells[{index}] sum_y2={total_squares!r} is below sum_y^2 / n = {total * total / n!r}: "
                "not the sums of one set of numbers"
            )
        rows.append(row)
        counts.append(float(n))
        sums.append(float(total))
        squares.append(float(total_squares))
    if not rows:
        raise ValueError("cells must hold at least one cell with answers")
    return (
        np.array(rows, dtype=float).reshape(len(rows), width or 0),
        np.array(counts),
        np.array(sums),
        np.array(squares),
    )


def linear_model_from_cells(
    cells: Sequence[Cell], names: Sequence[str] | None = None, level: float = 0.95
) -> LinearFit:
    """Ordinary least squares of a numeric outcome on predictor columns from kept cell sums.

    Parameters
    ----------
    cells : sequence of (x_row, n, sum_y, sum_y2)
        One per cell: the predictor values (dummy columns, without the intercept, which is added first as
        :data:`~analysis.regression.INTERCEPT`), the number of answers, the sum of their outcomes and the sum
        of their squares. Cells with ``n = 0`` are left out; two cells with one ``x_row`` simply add up.
    names : sequence of str, optional
        Column names (default ``x1, x2, ...``).
    level : float
        Confidence level of the intervals, in ``(0, 1)``.

    Returns
    -------
    LinearFit

    Raises
    ------
    ValueError
        A bad cell (named by its index), linearly dependent columns over the cells with answers (each
        categorical predictor needs a reference level), or no more answers than coefficients.

    Notes
    -----
    The formulas are in the module docstring: the same estimates and standard errors as least squares on the
    answers one by one (statsmodels ``OLS(y, X).fit()`` and ``.fit(cov_type="HC0")``, checked in
    tests/test_linear_model.py). ``e_c`` is computed as ``(Q_c - S_c^2 / n_c) + n_c (S_c / n_c - yhat_c)^2``
    (within the cell plus between), the same number with less cancellation. Intervals: HC0 with the normal
    quantile, classical with Student's t on ``N - p`` degrees of freedom, as statsmodels does by default.
    The outcome is taken as given: for the one-bit design map the cells first (:func:`debiased_cells`).
    """
    level = check_unit_open(level, "level")
    x, n, total, squares = _check_cells(cells)
    design = np.column_stack([np.ones(len(n)), x])
    all_names = coefficient_names(names, x.shape[1])
    if np.linalg.matrix_rank(design) < design.shape[1]:
        raise ValueError(
            f"the columns {all_names} are linearly dependent over the {len(n)} cells with answers: "
            "drop a column or a level (each categorical predictor needs a reference level)"
        )
    answers, p = int(n.sum()), design.shape[1]
    if answers <= p:
        raise ValueError(f"a linear model of {p} coefficients needs more than {p} answers, got {answers}")
    weighted = design * n[:, None]
    bread = np.linalg.inv(weighted.T @ design)
    beta = bread @ (design.T @ total)
    fitted = design @ beta
    errors = np.maximum(squares - total * total / n, 0.0) + n * (total / n - fitted) ** 2
    rss = float(errors.sum())
    sigma2 = rss / (answers - p)
    classical = sigma2 * bread
    robust = bread @ ((design * errors[:, None]).T @ design) @ bread
    tss = float(squares.sum() - total.sum() ** 2 / answers)
    z = float(special.ndtri(0.5 + level / 2))
    t = float(stats.t.ppf(0.5 + level / 2, answers - p))
    coefficients = []
    for index, name in enumerate(all_names):
        estimate = float(beta[index])
        se, cse = math.sqrt(max(robust[index, index], 0.0)), math.sqrt(max(classical[index, index], 0.0))
        z_stat = estimate / se if se > 0 else math.copysign(math.inf, estimate) if estimate else math.nan
        t_stat = estimate / cse if cse > 0 else math.copysign(math.inf, estimate) if estimate else math.nan
        coefficients.append(
            LinearCoefficient(
                name=name,
                estimate=estimate,
                std_err=se,
                z=z_stat,
                p_value=float(2 * special.ndtr(-abs(z_stat))),
                low=estimate - z * se,
                high=estimate + z * se,
                classical_std_err=cse,
                classical_t=t_stat,
                classical_p_value=float(2 * stats.t.sf(abs(t_stat), answers - p)),
                classical_low=estimate - t * cse,
                classical_high=estimate + t * cse,
            )
        )
    return LinearFit(
        names=all_names,
        coefficients=tuple(coefficients),
        covariance=tuple(tuple(float(v) for v in row) for row in robust),
        classical_covariance=tuple(tuple(float(v) for v in row) for row in classical),
        n=answers,
        cells=len(n),
        df_resid=answers - p,
        residual_variance=sigma2,
        r_squared=1 - rss / tss if tss > 0 else math.nan,
        confidence_level=level,
    )


def affine_cells(cells: Sequence[Cell], scale: float, shift: float) -> list[Cell]:
    """The cells of the outcome ``u = scale * y + shift``, from those of ``y``.

    ``sum u = scale S + shift n`` and ``sum u^2 = scale^2 Q + 2 scale shift S + shift^2 n``. Least squares on
    ``u`` gives ``scale`` times the slopes of ``y`` and the intercept ``scale beta_0 + shift``; the standard
    errors are ``|scale|`` times ``y``'s.
    """
    for name, value in (("scale", scale), ("shift", shift)):
        if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
            raise ValueError(f"{name} must be a finite number, got {name}={value!r}")
    return [
        (tuple(x_row), n, scale * total + shift * n, scale * scale * squares + 2 * scale * shift * total + shift**2 * n)
        for x_row, n, total, squares in cells
    ]


def debiased_cells(design: DiscreteLaplaceDesign | BoundedDesign, cells: Sequence[Cell]) -> list[Cell]:
    """The cells of the debiased answer, in grid steps: the sent value itself under the Laplace design
    (unbiased already), ``K ((high + low) bit - low) / (high - low)`` under the one-bit design
    (:func:`affine_cells` with ``scale = K (high + low) / (high - low)``, ``shift = -K low / (high - low)``)."""
    if isinstance(design, DiscreteLaplaceDesign):
        return [(tuple(x_row), n, total, squares) for x_row, n, total, squares in cells]
    if isinstance(design, BoundedDesign):
        spread = design.high - design.low
        return affine_cells(
            cells, design.steps * (design.high + design.low) / spread, -design.steps * design.low / spread
        )
    raise ValueError(f"design must be a DiscreteLaplaceDesign or a BoundedDesign, got design={design!r}")
