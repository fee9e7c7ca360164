"""How well a fitted randomized-response model reproduces the kept counts: Pearson and deviance statistics.

Every model here predicts, for each *cell* (a group of answers sharing one
predicted chance), the chance ``e_j`` of the counted answer; the cell holds
``y_j`` counted answers out of ``n_j``. The two classical statistics are::

    X^2 = sum_j n_j (y_j/n_j - e_j)^2 / (e_j (1 - e_j))                 (Pearson)
    G^2 = 2 sum_j [y_j ln(y_j / (n_j e_j)) + (n_j - y_j) ln((n_j - y_j) / (n_j (1 - e_j)))]   (deviance)

(``0 ln 0 = 0``), both approximately chi-square with ``df = cells -
parameters`` when the model holds and every cell is large. A model with as
many parameters as cells is *saturated*: it reproduces any counts and no
test is possible (``df <= 0``: the p-value is NaN).

* :func:`binomial_cells_fit`: the statistics over any cells and predicted
  chances; :func:`logistic_fit_test` applies it to a logistic model of a
  randomized answer (:func:`analysis.regression.fit_logistic`), one cell per
  combination of predictor values and design, as GLMMRR's ``RRglmGOF``
  does over the unique combinations of the covariates (Fox, Veen and
  Klotzke 2018).
* :func:`two_group_fit`: the cheater detection model and the stochastic lie
  detector have two parameters for two groups' yes rates: saturated, so no
  test of the model itself; what can be tested is the model *without*
  non-compliance (``gamma = 0``, or ``t = 1``), one parameter for two
  rates: a one-degree-of-freedom likelihood-ratio test of "everyone followed
  the instructions", as RRreg's likelihood-ratio comparisons of nested
  models (Heck and Moshagen 2018).

The extended crosswise model's one-degree-of-freedom check (Heck, Hoffmann
and Moshagen 2018), two groups answering the crosswise question with ``p``
and ``1 - p``, is in :mod:`analysis.extended_crosswise`.

References
----------
Agresti, A. (2013). Categorical Data Analysis, 3rd ed., section 1.5 and 5.2.
Fox, J.-P., Veen, D. and Klotzke, K. (2018). Generalized linear mixed models
for randomized responses. Methodology 15(1), 1-18 (R package GLMMRR,
``RRglmGOF``).
Heck, D. W. and Moshagen, M. (2018). RRreg: an R package for correlation and
regression analyses of randomized response data. Journal of Statistical
Software 85(2), 1-29.
Self, S. G. and Liang, K.-Y. (1987). Asymptotic properties of maximum
likelihood estimators and likelihood ratio tests under nonstandard
conditions. Journal of the American Statistical Association 82(398), 605-610.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from analysis.regression import LogisticFit, designs_per_pattern
from analysis.two_group import TwoGroupEstimate, maximize_slice

#: Below this expected count in a cell the chi-square approximation is doubtful (Cochran's rule of five).
SMALL_EXPECTED = 5.0


@dataclass(frozen=True)
class FitStatistic:
    """One goodness-of-fit statistic and its chi-square p-value.

    Attributes
    ----------
    method : str
        ``"pearson"``, ``"deviance"`` or ``"likelihood ratio"``.
    statistic : float
    df : int
        Cells minus parameters (``<= 0``: saturated).
    p_value : float
        ``P(chi2_df >= statistic)``; NaN when ``df <= 0``.
    """

    method: str
    statistic: float
    df: int
    p_value: float

    @property
    def saturated(self) -> bool:
        """True when the model has as many parameters as cells: no test possible."""
        return self.df <= 0


@dataclass(frozen=True)
class CellsFit:
    """Pearson and deviance statistics of a model over its cells (:func:`binomial_cells_fit`).

    Attributes
    ----------
    pearson, deviance : FitStatistic
    cells, parameters : int
    smallest_expected : float
        The smallest expected count ``n_j e_j`` or ``n_j (1 - e_j)``: below
        :data:`SMALL_EXPECTED` the chi-square p-values are approximate at best.
    """

    pearson: FitStatistic
    deviance: FitStatistic
    cells: int
    parameters: int
    smallest_expected: float

    @property
    def saturated(self) -> bool:
        return self.pearson.saturated


def _chi2_p(statistic: float, df: int) -> float:
    return float(stats.chi2.sf(statistic, df)) if df > 0 else math.nan


def _check_cells(yes: object, n: object, expected: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y = np.asarray(yes, dtype=float)
    size = np.asarray(n, dtype=float)
    e = np.asarray(expected, dtype=float)
    if y.ndim != 1 or y.shape != size.shape or y.shape != e.shape or y.size == 0:
        raise ValueError(f"yes, n and expected must be non-empty 1-d sequences of one length, got yes={yes!r}")
    if (
        np.any(size < 1)
        or np.any(y < 0)
        or np.any(y > size)
        or np.any(y != np.round(y))
        or np.any(size != np.round(size))
    ):
        raise ValueError(f"each cell needs whole counts 0 <= yes <= n and n >= 1, got yes={yes!r}, n={n!r}")
    if np.any(~np.isfinite(e)) or np.any(e <= 0) or np.any(e >= 1):
        raise ValueError(f"expected chances must lie strictly between 0 and 1, got expected={expected!r}")
    return y, size, e


def binomial_cells_fit(yes: object, n: object, expected: object, parameters: int) -> CellsFit:
    """Pearson ``X^2`` and deviance ``G^2`` of predicted chances against counted answers per cell.

    Parameters
    ----------
    yes, n : sequence of int
        Counted answers and answers per cell (``n_j >= 1``).
    expected : sequence of float
        The model's chance of the counted answer per cell, in ``(0, 1)``.
    parameters : int
        Free parameters the model fitted to these cells (``>= 0``).

    Returns
    -------
    CellsFit
        ``df = cells - parameters``; p-values NaN when ``df <= 0``.

    Notes
    -----
    The formulas are in the module docstring; they are the Pearson and
    likelihood-ratio statistics over the ``2 x cells`` counts (counted and
    other) with the product-binomial sampling of fixed ``n_j``
    (Agresti 2013, 1.5.2), so ``scipy.stats.power_divergence`` over those
    counts with ``ddof = cells - 1 + parameters`` gives the same numbers.
    """
    if isinstance(parameters, bool) or not isinstance(parameters, int) or parameters < 0:
        raise ValueError(f"parameters must be an integer >= 0, got parameters={parameters!r}")
    y, size, e = _check_cells(yes, n, expected)
    observed = y / size
    pearson = float(np.sum(size * (observed - e) ** 2 / (e * (1 - e))))
    other = size - y
    deviance = 2 * float(np.sum(special.xlogy(y, y / (size * e)) + special.xlogy(other, other / (size * (1 - e)))))
    df = y.size - parameters
    return CellsFit(
        pearson=FitStatistic("pearson", pearson, df, _chi2_p(pearson, df)),
        deviance=FitStatistic("deviance", max(deviance, 0.0), df, _chi2_p(max(deviance, 0.0), df)),
        cells=int(y.size),
        parameters=parameters,
        smallest_expected=float(min(np.min(size * e), np.min(size * (1 - e)))),
    )


def logistic_fit_test(fit: LogisticFit, x: object, yes_counts: object, no_counts: object, designs: object) -> CellsFit:
    """Goodness of fit of a logistic model of a randomized answer, over the cells it was fitted from.

    Parameters
    ----------
    fit : LogisticFit
        :func:`analysis.regression.fit_logistic` of these counts.
    x, yes_counts, no_counts, designs
        What ``fit_logistic`` was given (one row per combination of predictor
        values and design); rows with no answers are left out.

    Returns
    -------
    CellsFit
        Over the rows with answers, ``parameters = len(fit.coefficients)``.

    Notes
    -----
    Each row's chance of a counted answer is ``a_j + t_j expit(x_j' beta)``
    (its design's forced-yes share ``a_j`` and truthful share ``t_j``).
    GLMMRR's ``RRglmGOF`` computes the same ``X^2`` and ``G^2`` with ``df =
    groups - parameters`` over the unique combinations of the covariates;
    with one design they are these rows. With several designs (versions, or
    the direct-question arm) each design is a row of its own here.
    """
    matrix = np.asarray(x, dtype=float)
    if matrix.ndim == 1:
        matrix = matrix.reshape(-1, 1) if matrix.size else matrix.reshape(len(np.atleast_1d(yes_counts)), 0)
    yes = np.asarray(yes_counts, dtype=float)
    no = np.asarray(no_counts, dtype=float)
    if matrix.shape[0] != yes.size or yes.shape != no.shape:
        raise ValueError(f"x, yes_counts and no_counts must have one row per cell, got x of shape {matrix.shape}")
    if matrix.shape[1] + 1 != len(fit.coefficients):
        raise ValueError(f"x has {matrix.shape[1]} columns but the fit has {len(fit.coefficients)} coefficients")
    t, a = designs_per_pattern(designs, yes.size)
    beta = np.array([c.estimate for c in fit.coefficients])
    chance = a + t * special.expit(np.column_stack([np.ones(yes.size), matrix]) @ beta)
    answered = yes + no > 0
    return binomial_cells_fit(yes[answered], (yes + no)[answered], chance[answered], len(fit.coefficients))


@dataclass(frozen=True)
class TwoGroupFit:
    """The fit checks a two-group design allows (:func:`two_group_fit`).

    Attributes
    ----------
    model : CellsFit
        The two-parameter model over the two groups: saturated (``df = 0``),
        so no test; its statistics are 0 inside the parameter space and
        measure how far a boundary estimate is from the observed rates.
    compliance : FitStatistic
        Likelihood ratio ``G^2 = 2 (l_model - l_restricted)`` of the model
        without non-compliance (``gamma = 0`` or ``t = 1``) against the
        model, ``df = 1``; ``p_value`` from the chi-bar-square mixture
        ``0.5 chi2_0 + 0.5 chi2_1`` (the restriction is on the boundary:
        Self and Liang 1987), i.e. half the ``chi2_1`` tail.
    compliance_pearson : FitStatistic
        Pearson ``X^2`` of the restricted model over the two groups (``df = 1``,
        plain ``chi2_1`` p-value).
    restricted_pi : float
        The prevalence under the restriction (everyone compliant).
    restriction : str
        ``"gamma = 0"`` or ``"t = 1"``.
    """

    model: CellsFit
    compliance: FitStatistic
    compliance_pearson: FitStatistic
    restricted_pi: float
    restriction: str


#: The value of each two-group design's second parameter when everyone follows the instructions.
_COMPLIANT = {"gamma": 0.0, "t": 1.0}
#: Two maxima of a log-likelihood closer than this share of its size are the same maximum, found by two
#: computations: their rounding (about 1e-16 per term; 1e-13 seen at 780 answers) is far below it.
_SAME_MAXIMUM = 1e-9


def _clip_open(values: Sequence[float]) -> np.ndarray:
    """Chances nudged inside ``(0, 1)`` by a rounding error (a rate of exactly 0 or 1 with no such count)."""
    return np.clip(np.asarray(values, dtype=float), 1e-300, 1 - 1e-16)


def _likelihood_ratio(full: float, restricted: float) -> float:
    """``G^2 = 2 (full - restricted)`` of two maximized log-likelihoods, 0 when they differ by rounding only
    (:data:`_SAME_MAXIMUM`): an estimate on the restriction is its own restricted maximum, whose ``G^2`` is 0
    and whose chi-bar-square p-value is 1, not the half of a ``chi2_1`` tail that 1e-13 would give."""
    if full - restricted <= _SAME_MAXIMUM * abs(full):
        return 0.0
    return 2 * (full - restricted)


def two_group_fit(estimate: TwoGroupEstimate) -> TwoGroupFit:
    """Fit checks of a cheater detection or stochastic lie detector estimate.

    Parameters
    ----------
    estimate : TwoGroupEstimate
        :func:`analysis.estimate_two_group` of the two groups' yes counts.

    Returns
    -------
    TwoGroupFit

    Notes
    -----
    The counts are two independent binomials (``y_i`` of ``n_i``), so four
    cells with two totals fixed: two free rates. The design's model has two
    parameters (saturated, ``df = 0``). The compliant model fixes the second
    parameter (``gamma = 0`` for cheater detection, Clark and Desharnais 1998;
    ``t = 1`` for the lie detector, Moshagen et al. 2012), leaving ``pi``,
    fitted by maximum likelihood over ``[0, 1]`` (a concave slice); ``df = 2 - 1 = 1``.
    """
    if not isinstance(estimate, TwoGroupEstimate):
        raise ValueError(f"estimate must be a TwoGroupEstimate, got estimate={estimate!r}")
    design, yes, n = estimate.design, estimate.yes, estimate.n
    second = 0.0 if math.isnan(estimate.second) else estimate.second
    model = binomial_cells_fit(yes, n, _clip_open(design.rates(estimate.pi, second)), 2)
    fixed = _COMPLIANT[estimate.second_parameter]
    line = design.slice_at_second(fixed)
    pi0, restricted = maximize_slice(line, yes, n)
    statistic = _likelihood_ratio(estimate.log_likelihood, restricted)
    p = 0.5 * float(stats.chi2.sf(statistic, 1)) if statistic > 0 else 1.0
    pearson = binomial_cells_fit(yes, n, _clip_open(design.rates(pi0, fixed)), 1).pearson
    return TwoGroupFit(
        model=model,
        compliance=FitStatistic("likelihood ratio", statistic, 1, p),
        compliance_pearson=pearson,
        restricted_pi=float(pi0),
        restriction=f"{estimate.second_parameter} = {fixed:g}",
    )
