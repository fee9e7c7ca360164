"""Weighted shares: post-stratification and raking of randomized answers to known population counts.

A sample that over-represents one group (a web panel where science students
answer twice as often as arts students) gives a biased unweighted share when
the groups differ. When the population's counts of a plain (not randomized)
answer are known, each group's debiased share is weighted by its population
share (post-stratification); when only the margins of two or more plain
answers are known, the cells of their cross-table are weighted so that the
weighted sample reproduces every margin (raking, iterative proportional
fitting). Everything here runs on kept counts per group or per cell: the cost
does not grow with the number of answers.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from analysis._checks import check_design, check_unit_open
from analysis.estimate import estimate_proportion
from analysis.finite_population import estimate_finite_population
from analysis.intervals import z_quantile

POST_STRATIFIED = "post-stratified"
RAKED = "raked"


@dataclass(frozen=True)
class WeightedEstimate:
    """A weighted share with its linearisation standard error, beside the unweighted one.

    Attributes
    ----------
    estimate_raw : float
        The weighted estimate, possibly outside ``[0, 1]``.
    estimate : float
        ``estimate_raw`` clipped to ``[0, 1]``: the number to report.
    variance, std_err : float
        The linearisation variance of ``estimate_raw`` (Notes of each function) and its root.
    low, high : float
        The Wald interval ``estimate_raw +/- z std_err``, clipped to ``[0, 1]``.
    confidence_level : float
    unweighted_estimate, unweighted_std_err : float or None
        The same answers unweighted, as given (``None``: not given).
    design_effect : float or None
        ``variance / unweighted_std_err**2`` (Kish's deff of the weighting): above 1 the weights cost
        precision; ``None`` without an unweighted variance or when it is 0.
    method : str
        ``"post-stratified"`` or ``"raked"``.
    population_size : float
        The population count the weights add up to.
    finite_population : bool
        Whether the variance includes the finite-population correction.
    """

    estimate_raw: float
    estimate: float
    variance: float
    std_err: float
    low: float
    high: float
    confidence_level: float
    unweighted_estimate: float | None
    unweighted_std_err: float | None
    design_effect: float | None
    method: str
    population_size: float
    finite_population: bool = False


@dataclass(frozen=True)
class Raking:
    """The raked cell counts: ``fitted`` has the sample table's shape and every margin's totals.

    ``weights`` is ``fitted / sample`` (0 where the sample cell is empty); ``iterations`` the sweeps run;
    ``converged`` whether every margin is met to ``tol``.
    """

    fitted: np.ndarray
    weights: np.ndarray
    iterations: int
    converged: bool


def _counts(values: object, name: str) -> np.ndarray:
    """A float array of non-negative finite counts, or ``ValueError`` naming ``name``."""
    array = np.asarray(values, dtype=float)
    if array.size == 0 or not np.all(np.isfinite(array)) or np.any(array < 0):
        raise ValueError(f"{name} must be non-negative finite counts, got {name}={values!r}")
    return array


@functools.lru_cache(maxsize=16)
def _z_cached(level: float) -> float:
    """:func:`analysis.intervals.z_quantile`, once per confidence level (a normal quantile costs more than a share)."""
    return z_quantile(level)


def weighted_estimate(
    raw: float,
    variance: float,
    level: float,
    unweighted: tuple[float | None, float | None],
    method: str,
    population_size: float,
    finite_population: bool,
) -> WeightedEstimate:
    """The result, with its clipped Wald interval and the design effect against ``unweighted``: the one home
    of a weighted share's result (post-stratified, raked, or design-weighted by :mod:`analysis.survey_design`)."""
    std_err = math.sqrt(max(variance, 0.0))
    half = _z_cached(level) * std_err
    unweighted_estimate, unweighted_std_err = unweighted
    deff = None
    if unweighted_std_err is not None and unweighted_std_err > 0:
        deff = variance / unweighted_std_err**2
    return WeightedEstimate(
        estimate_raw=raw,
        estimate=min(max(raw, 0.0), 1.0),
        variance=variance,
        std_err=std_err,
        low=min(max(raw - half, 0.0), 1.0),
        high=min(max(raw + half, 0.0), 1.0),
        confidence_level=level,
        unweighted_estimate=unweighted_estimate,
        unweighted_std_err=unweighted_std_err,
        design_effect=deff,
        method=method,
        population_size=population_size,
        finite_population=finite_population,
    )


def post_stratify(
    estimates: Sequence[float],
    variances: Sequence[float],
    population_counts: Sequence[float],
    confidence_level: float = 0.95,
    unweighted_estimate: float | None = None,
    unweighted_std_err: float | None = None,
    finite_population: bool = False,
) -> WeightedEstimate:
    """The post-stratified share ``sum_h W_h p_h`` from each group's debiased estimate and its variance.

    Parameters
    ----------
    estimates : sequence of float
        ``p_h``: each group's unbiased (raw, unclipped) estimate.
    variances : sequence of float
        ``Var(p_h)``: each group's variance (with the finite-population correction if the caller applied it).
    population_counts : sequence of float
        ``N_h`` (positive): the population's count in each group, in the same order.
    confidence_level : float
    unweighted_estimate, unweighted_std_err : float, optional
        The same answers unweighted, for the design effect.
    finite_population : bool
        Only recorded: whether ``variances`` include the correction.

    Returns
    -------
    WeightedEstimate

    Raises
    ------
    ValueError
        If the lengths differ, a count is not positive or a variance is negative; the message names it.

    Notes
    -----
    With ``W_h = N_h / N``::

        p_ps   = sum_h W_h p_h
        Var    = sum_h W_h^2 Var(p_h)

    the stratified estimator conditional on the group sizes (Cochran 1977, section 5A.9; Holt and Smith
    1979). Each ``p_h`` is unbiased for the group's share over the randomization and the sampling within
    the group, so ``p_ps`` is unbiased for the population share whatever the groups' sampling rates.
    """
    level = check_unit_open(confidence_level, "confidence_level")
    p = np.asarray(estimates, dtype=float)
    v = np.asarray(variances, dtype=float)
    counts = np.asarray(population_counts, dtype=float)
    if not (p.shape == v.shape == counts.shape) or p.ndim != 1 or p.size == 0:
        raise ValueError(
            f"estimates, variances and population_counts must be equally long, got {len(p)}, {len(v)}, {len(counts)}"
        )
    if not np.all(np.isfinite(counts)) or np.any(counts <= 0):
        raise ValueError(f"population_counts must all be positive, got population_counts={list(population_counts)!r}")
    if not np.all(np.isfinite(v)) or np.any(v < 0) or not np.all(np.isfinite(p)):
        raise ValueError(f"variances must be finite and non-negative, got variances={list(variances)!r}")
    shares = counts / counts.sum()
    raw = float(shares @ p)
    variance = float(shares**2 @ v)
    return weighted_estimate(
        raw,
        variance,
        level,
        (unweighted_estimate, unweighted_std_err),
        POST_STRATIFIED,
        float(counts.sum()),
        finite_population,
    )


def post_stratified_share(
    yes_counts: Sequence[int],
    ns: Sequence[int],
    population_counts: Sequence[int],
    t: float = 0.5,
    a: float = 0.25,
    b: float = 0.25,
    confidence_level: float = 0.95,
    finite_population: bool = False,
) -> WeightedEstimate:
    """Post-stratify a yes/no question's kept group tallies (one forced-response design ``t, a, b``).

    Parameters
    ----------
    yes_counts, ns : sequence of int
        Per group, the stored answers that point to the trait and all answers (``n_h >= 1``; ``>= 2`` with
        ``finite_population``).
    population_counts : sequence of int
        ``N_h`` per group (``>= n_h`` with ``finite_population``).
    t, a, b : float or Fraction
    confidence_level : float
    finite_population : bool
        Use within each group the unbiased variance of sampling ``n_h`` of ``N_h`` without replacement
        (:func:`analysis.estimate_finite_population`); else the population variance
        ``lambda_h (1 - lambda_h) / (n_h t^2)`` of :func:`analysis.estimate_proportion`.

    Returns
    -------
    WeightedEstimate
        With the unweighted estimate of all the answers pooled (finite-population with ``N = sum N_h``
        when asked) and the design effect.

    Notes
    -----
    :func:`post_stratify` of ``p_h = (y_h / n_h - a) / t``; see there. With one group it is the unweighted
    estimate, and with ``finite_population`` the estimate and variance RRTCS prints.
    """
    ys, counts_n, big = (np.asarray(x) for x in (yes_counts, ns, population_counts))
    if not (ys.shape == counts_n.shape == big.shape) or ys.ndim != 1:
        raise ValueError(f"yes_counts, ns and population_counts must be equally long, got {len(ys)}, {len(counts_n)}")
    if np.any(counts_n < 1):
        raise ValueError(f"every group needs answers to be post-stratified, got ns={list(ns)!r}")
    estimates, variances = [], []
    for y, n, size in zip(ys.tolist(), counts_n.tolist(), big.tolist()):
        if finite_population:
            figures = estimate_finite_population(y, n, size, t, a, b, confidence_level)
            estimates.append(figures.estimate.estimate_raw)
            variances.append(figures.variance)
        else:
            point = estimate_proportion(y, n, t, a, b)
            estimates.append(point.estimate_raw)
            variances.append(point.std_err**2)
    total_y, total_n = int(ys.sum()), int(counts_n.sum())
    if finite_population:
        pooled = estimate_finite_population(total_y, total_n, int(big.sum()), t, a, b, confidence_level)
        unweighted = (pooled.estimate.estimate_raw, pooled.std_err)
    else:
        point = estimate_proportion(total_y, total_n, t, a, b)
        unweighted = (point.estimate_raw, point.std_err)
    return post_stratify(estimates, variances, big, confidence_level, *unweighted, finite_population)


def rake(sample: object, margins: Sequence[object], tol: float = 1e-10, max_iter: int = 1000) -> Raking:
    """Rake a table of sample counts to known margins by iterative proportional fitting.

    Parameters
    ----------
    sample : array_like
        Sample counts with one axis per plain question (``sample[i, j]``: answers at level ``i`` of the first
        and ``j`` of the second).
    margins : sequence of array_like
        One per axis: the population's count at each level (positive, each margin with the same total).
    tol : float
        Stop when every margin is met to ``tol`` times the total.
    max_iter : int
        Sweeps at most.

    Returns
    -------
    Raking

    Raises
    ------
    ValueError
        If a margin does not match its axis, the totals differ, or a level with a positive population count
        has no answers.

    Notes
    -----
    Each sweep scales the table along each axis in turn so that its sums along that axis equal the margin
    (Deming and Stephan 1940). The fitted table is the raking-ratio calibration of the sample (Deville and
    Särndal 1992), what R's ``survey::rake`` and ``calibrate(calfun="raking")`` give with equal design
    weights.
    """
    table = _counts(sample, "sample")
    if len(margins) != table.ndim:
        raise ValueError(f"margins must give one margin per axis ({table.ndim}), got {len(margins)}")
    wanted = [_counts(margin, f"margins[{axis}]") for axis, margin in enumerate(margins)]
    total = wanted[0].sum()
    for axis, margin in enumerate(wanted):
        if margin.shape != (table.shape[axis],):
            raise ValueError(f"margins[{axis}] must have {table.shape[axis]} counts, got {margin.shape[0]}")
        if not math.isclose(margin.sum(), total, rel_tol=1e-9):
            raise ValueError(f"every margin must add up to the same total, got {margin.sum()} and {total}")
        present = _axis_sums(table, axis)
        empty = np.flatnonzero((present == 0) & (margin > 0))
        if empty.size:
            raise ValueError(f"level {int(empty[0])} of margin {axis} has population but no answers")
    fitted = table.copy()
    iterations, converged = 0, False
    while iterations < max_iter and not converged:
        iterations += 1
        for axis, margin in enumerate(wanted):
            sums = _axis_sums(fitted, axis)
            factor = np.divide(margin, sums, out=np.zeros_like(margin), where=sums > 0)
            fitted = fitted * _along(factor, axis, fitted.ndim)
        converged = all(
            np.max(np.abs(_axis_sums(fitted, axis) - margin)) <= tol * total for axis, margin in enumerate(wanted)
        )
    weights = np.divide(fitted, table, out=np.zeros_like(fitted), where=table > 0)
    return Raking(fitted=fitted, weights=weights, iterations=iterations, converged=converged)


def _axis_sums(table: np.ndarray, axis: int) -> np.ndarray:
    """The table summed over every axis but ``axis``."""
    return table.sum(axis=tuple(i for i in range(table.ndim) if i != axis))


def _along(factor: np.ndarray, axis: int, ndim: int) -> np.ndarray:
    """``factor`` shaped to broadcast along ``axis`` of an ``ndim`` table."""
    shape = [1] * ndim
    shape[axis] = factor.size
    return factor.reshape(shape)


def _indicators(shape: tuple[int, ...]) -> np.ndarray:
    """One row per cell (C order), one column per level of each axis: the margins' indicator variables."""
    grids = np.indices(shape).reshape(len(shape), -1)
    blocks = [np.eye(size)[grids[axis]] for axis, size in enumerate(shape)]
    return np.hstack(blocks)


def raked_share(
    yes_counts: object,
    ns: object,
    margins: Sequence[object],
    t: float = 0.5,
    a: float = 0.25,
    b: float = 0.25,
    confidence_level: float = 0.95,
    tol: float = 1e-10,
) -> WeightedEstimate:
    """A yes/no question's share raked to the margins of two or more plain questions, from per-cell counts.

    Parameters
    ----------
    yes_counts, ns : array_like
        Per cell of the plain questions' cross-table (one axis per question): the stored answers that point
        to the trait, and all answers.
    margins : sequence of array_like
        The population's count at each level of each plain question (see :func:`rake`).
    t, a, b : float or Fraction
        The forced-response design on the count.
    confidence_level, tol : float

    Returns
    -------
    WeightedEstimate
        With the unweighted estimate of all the answers and the design effect.

    Notes
    -----
    Each answer ``z_i`` is turned into ``r_i = (z_i - a) / t`` (unbiased for the true answer). With the
    raked weight ``w_c`` of its cell (:func:`rake`) and ``N = sum_c w_c n_c``::

        p_rake = sum_i w_i r_i / N

    Its linearisation variance is that of a calibration estimator (Deville and Särndal 1992; Lumley 2010,
    section 7.4, as R's ``survey`` package computes it for a one-stage design): the residuals ``e_i`` of the
    weighted least-squares fit of ``r_i`` on the margins' indicators, ``z_i = w_i e_i / N``, and::

        Var = n / (n - 1) sum_i (z_i - z_bar)^2

    all from per-cell sums, since ``r_i`` takes two values per cell. The unweighted variance for the design
    effect is ``s_r^2 / n`` (divisor ``n - 1``), as the package's ``deff`` compares with.
    """
    level = check_unit_open(confidence_level, "confidence_level")
    t_, a_, _ = check_design(t, a, b)
    ys, counts = _counts(yes_counts, "yes_counts"), _counts(ns, "ns")
    if ys.shape != counts.shape or np.any(ys > counts):
        raise ValueError(f"yes_counts must be at most ns cell by cell, got shapes {ys.shape} and {counts.shape}")
    n = counts.sum()
    if n < 2:
        raise ValueError(f"raking needs at least 2 answers, got n={n:g}")
    raking = rake(counts, margins, tol=tol)
    r_yes, r_no = (1 - a_) / t_, -a_ / t_
    w, y, m = raking.weights.ravel(), ys.ravel(), counts.ravel()
    sums = y * r_yes + (m - y) * r_no
    population = float(raking.fitted.sum())
    raw = float(w @ sums / population)
    x = _indicators(counts.shape)
    gram = (x * (w * m)[:, None]).T @ x
    coef = np.linalg.lstsq(gram, x.T @ (w * sums), rcond=None)[0]
    fit = x @ coef
    squares = y * (r_yes - fit) ** 2 + (m - y) * (r_no - fit) ** 2
    residual_sum = sums - m * fit
    z_total = float(w @ residual_sum) / population
    variance = n / (n - 1) * (float(w**2 @ squares) / population**2 - z_total**2 / n)
    rate = ys.sum() / n
    unweighted_variance = rate * (1 - rate) / (t_ * t_) / (n - 1)
    unweighted = ((rate - a_) / t_, math.sqrt(unweighted_variance))
    return weighted_estimate(raw, variance, level, unweighted, RAKED, population, False)
