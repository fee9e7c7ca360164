"""Correlation between two randomized yes/no answers from the cross-table of their stored answers.

Each question has its own known one-parameter design, ``theta1 = P(stored yes | trait)`` and ``theta0 =
P(stored yes | no trait)`` (:meth:`analysis.BinaryDesign.yes_probabilities`); the two draws are independent.
The stored pair's probabilities are then the true pair's through the Kronecker product of the two
misclassification matrices, and the true pair's joint distribution, its phi correlation, its odds ratio and a
likelihood-ratio test of independence follow from the 2 x 2 table of stored answers alone.

RRreg's ``RRcor`` (Fox and Tracy 1984) corrects the Pearson correlation of the noisy answers by the variance
the randomization adds; for two yes/no answers that corrected correlation is the phi of the moment estimate
below (``cov(Y1, Y2) = d1 d2 cov(X1, X2)`` with ``d = theta1 - theta0``, since the two draws are independent
of each other and of the true answers).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Integral

import numpy as np
from scipy import stats

from analysis._checks import check_unit_closed, check_unit_open

#: The order of the four cells, first answer major: (yes, yes), (yes, no), (no, yes), (no, no).
CELLS: tuple[tuple[bool, bool], ...] = ((True, True), (True, False), (False, True), (False, False))

#: The estimators of the joint cells: the inverse of the Kronecker matrix, and the maximum of the likelihood
#: over the simplex (the same when the inverse has no negative cell).
MOMENT = "moment"
MAXIMUM_LIKELIHOOD = "maximum likelihood on the simplex"

_EM_TOLERANCE = 1e-12
_EM_STEPS = 100_000
#: A joint cell at or below this share is taken as 0 (EM reaches the simplex's face only in the limit).
_ZERO_CELL = 1e-9


@dataclass(frozen=True)
class JointCell:
    """One cell of the true answers' joint distribution.

    ``moment`` is the row of ``K^-1 p_hat`` (may fall below 0); ``estimate`` the maximum-likelihood
    share on the simplex; ``std_err`` the delta-method standard error of the moment estimate.
    """

    first: bool
    second: bool
    moment: float
    estimate: float
    std_err: float


@dataclass(frozen=True)
class Correlation:
    """The joint distribution of two latent yes/no answers, their association and a test of independence.

    ``phi`` is the correlation of the two true answers (``None`` when a margin is 0 or 1, where it is not
    defined), with its delta-method standard error and Wald interval clipped to [-1, 1]; ``odds_ratio``
    with its interval from the delta method on the log scale (``None`` when a cell is 0). The test of
    independence is the likelihood ratio of ``pi_11 = pi_1. pi_.1`` against the full simplex, chi-square
    with 1 degree of freedom. ``method`` says which joint estimate the figures are read from
    (:data:`MOMENT` when the inverse lies in the simplex, else :data:`MAXIMUM_LIKELIHOOD`).
    """

    n: int
    table: tuple[tuple[int, int], tuple[int, int]]
    cells: tuple[JointCell, ...]
    method: str
    first_share: float
    second_share: float
    phi: float | None
    phi_std_err: float | None
    phi_ci: tuple[float, float] | None
    odds_ratio: float | None
    odds_ratio_ci: tuple[float, float] | None
    lr_statistic: float
    p_value: float
    df: int
    confidence_level: float

    def cell(self, first: bool, second: bool) -> JointCell:
        """The cell of true answers ``(first, second)``."""
        return self.cells[CELLS.index((bool(first), bool(second)))]


# --------------------------------------------------------------------------
# Arguments.


def _yes_probabilities(design: object, name: str) -> tuple[float, float]:
    """``(theta1, theta0)`` of a design object (``yes_probabilities()``) or a pair of numbers."""
    pair = design.yes_probabilities() if hasattr(design, "yes_probabilities") else design
    try:
        theta1, theta0 = pair  # type: ignore[misc]
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a yes/no design or a (theta1, theta0) pair, got {name}={design!r}") from None
    theta1 = check_unit_closed(theta1, f"{name} theta1")
    theta0 = check_unit_closed(theta0, f"{name} theta0")
    if theta1 == theta0:
        raise ValueError(f"{name} says nothing about the trait: theta1 = theta0 = {theta1!r}")
    return theta1, theta0


def _check_table(table: object) -> np.ndarray:
    """The 2 x 2 table of stored answers as a float array of 4 counts, first answer major."""
    try:
        rows = [list(row) for row in table]  # type: ignore[union-attr]
    except TypeError:
        raise ValueError(f"table must be 2 x 2 counts, got table={table!r}") from None
    if len(rows) != 2 or any(len(row) != 2 for row in rows):
        raise ValueError(f"table must be 2 x 2 counts, got table={table!r}")
    flat = [value for row in rows for value in row]
    if any(isinstance(v, bool) or not isinstance(v, Integral) or v < 0 for v in flat):
        raise ValueError(f"table must hold integers >= 0, got table={table!r}")
    if sum(flat) < 1:
        raise ValueError(f"table must hold at least one answer, got table={table!r}")
    return np.array(flat, dtype=float)


def misclassification_matrix(theta1: float, theta0: float) -> np.ndarray:
    """``M[s, x] = P(stored s | true x)``, rows and columns ordered (yes, no)."""
    return np.array([[theta1, theta0], [1 - theta1, 1 - theta0]])


def joint_matrix(first: object, second: object) -> np.ndarray:
    """The 4 x 4 matrix ``K = M1 (x) M2``: P(stored pair | true pair), cells in :data:`CELLS` order."""
    m1 = misclassification_matrix(*_yes_probabilities(first, "first"))
    m2 = misclassification_matrix(*_yes_probabilities(second, "second"))
    return np.kron(m1, m2)


# --------------------------------------------------------------------------
# Estimates.


def _log_likelihood(counts: np.ndarray, stored: np.ndarray) -> float:
    """``sum n_s log lambda_s`` over the cells with answers (0 log 0 = 0)."""
    seen = counts > 0
    return float(np.sum(counts[seen] * np.log(stored[seen])))


def _simplex_maximum(counts: np.ndarray, k: np.ndarray, moment: np.ndarray) -> np.ndarray:
    """The maximum-likelihood joint cells on the simplex: the moment estimate when it is in it, else EM.

    EM for a known misclassification (van den Hout and van der Heijden 2002):
    ``pi_x <- sum_s (n_s / n) K_sx pi_x / lambda_s``, started at the uniform table; it increases the
    likelihood at every step and stays in the simplex.
    """
    if np.all(moment >= 0):
        return moment
    shares = counts / counts.sum()
    pi = np.full(4, 0.25)
    for _ in range(_EM_STEPS):
        stored = k @ pi
        ratio = np.divide(shares, stored, out=np.zeros(4), where=shares > 0)
        new = pi * (k.T @ ratio)
        new /= new.sum()
        if np.max(np.abs(new - pi)) < _EM_TOLERANCE:
            return new
        pi = new
    return pi


def _independent_maximum(counts: np.ndarray, first: tuple[float, float], second: tuple[float, float]) -> float:
    """The log likelihood at its maximum under independence of the true answers.

    The stored answers are then independent too, with margins ``theta0 + (theta1 - theta0) pi``; the
    likelihood splits into the two margins', each maximized by its observed share clipped into the range
    the design can produce.
    """
    table = counts.reshape(2, 2)
    total = 0.0
    for margin, (theta1, theta0) in ((table.sum(axis=1), first), (table.sum(axis=0), second)):
        low, high = min(theta0, theta1), max(theta0, theta1)
        yes = float(np.clip(margin[0] / margin.sum(), low, high))
        total += _log_likelihood(margin, np.array([yes, 1 - yes]))
    return total


def _phi(pi: np.ndarray) -> tuple[float | None, np.ndarray | None]:
    """Phi of the joint cells and its gradient with respect to them; ``None`` when a margin is 0 or 1."""
    p11, p10, p01, p00 = pi
    r1, r0, c1, c0 = p11 + p10, p01 + p00, p11 + p01, p10 + p00
    product = r1 * r0 * c1 * c0
    if product <= 0:
        return None, None
    root = math.sqrt(product)
    numerator = p11 * p00 - p10 * p01
    phi = float(numerator / root)
    # d phi / d p_ij = d numerator / d p_ij / root - phi / 2 * d log(product) / d p_ij.
    grad = np.empty(4)
    for index, (row, col) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
        d_num = (p00, -p01, -p10, p11)[index]
        d_log_product = (1 / r1 if row == 0 else 1 / r0) + (1 / c1 if col == 0 else 1 / c0)
        grad[index] = d_num / root - phi / 2 * d_log_product
    return phi, grad


def _odds_ratio(pi: np.ndarray, covariance: np.ndarray, z: float) -> tuple[float | None, tuple[float, float] | None]:
    """The odds ratio ``pi11 pi00 / (pi10 pi01)`` and its interval from the delta method on the log scale."""
    if np.any(pi <= _ZERO_CELL):
        return None, None
    log_or = math.log(pi[0]) + math.log(pi[3]) - math.log(pi[1]) - math.log(pi[2])
    grad = np.array([1 / pi[0], -1 / pi[1], -1 / pi[2], 1 / pi[3]])
    se = math.sqrt(max(float(grad @ covariance @ grad), 0.0))
    return math.exp(log_or), (math.exp(log_or - z * se), math.exp(log_or + z * se))


def correlate(table: Sequence[Sequence[int]], first: object, second: object, level: float = 0.95) -> Correlation:
    """The joint distribution, phi, odds ratio and independence test of two randomized yes/no answers.

    Parameters
    ----------
    table : 2 x 2 counts
        ``table[i][j]``: respondents whose stored first answer is ``i`` and second ``j`` (0 = yes, 1 = no).
    first, second : design
        Each question's design: an object with ``yes_probabilities()`` (:class:`analysis.BinaryDesign`) or a
        ``(theta1, theta0)`` pair; ``(1, 0)`` is a question asked without randomization.
    level : float
        Confidence level of the intervals.

    Returns
    -------
    Correlation

    Notes
    -----
    With ``M = [[theta1, theta0], [1 - theta1, 1 - theta0]]`` (stored by true answer) for each question and
    the two draws independent, the stored pair's probabilities are ``lambda = K pi`` with ``K = M1 (x) M2``
    (Kronecker product; cells (yes, yes), (yes, no), (no, yes), (no, no)). The moment estimate is ``pi_raw
    = K^-1 p_hat`` with covariance ``K^-1 (diag(lambda) - lambda lambda') K^-T / n``; it is the unconstrained
    maximum of the multinomial likelihood, so when it has no negative cell it is also the maximum on the
    simplex. Otherwise the maximum on the simplex is found by EM (the two then differ, and the figures are
    read from the constrained one: ``method``).

    ``phi = (pi11 pi00 - pi10 pi01) / sqrt(pi1. pi0. pi.1 pi.0)`` with a delta-method standard error
    (gradient of phi times the covariance above) and a Wald interval clipped to [-1, 1]; the odds ratio's
    interval is the delta method on ``log OR``. The test of independence compares the maximum of the
    likelihood on the simplex with its maximum under ``pi = (p1, 1 - p1) (x) (p2, 1 - p2)``, which is the two
    margins' own maxima: ``G = 2 (l_full - l_indep)``, chi-square with 1 degree of freedom (Wilks). Without
    randomization (``theta1 = 1, theta0 = 0``) G is the log-likelihood-ratio (G) test of the 2 x 2 table and
    |phi| is Cramer's V.

    References
    ----------
    Fox, J. A. and Tracy, P. E. (1984). Measuring associations with randomized response. Social Science
    Research 13, 188-197 (RRreg's ``RRcor``). Kuha, J. and Skinner, C. (1997). Categorical data analysis and
    misclassification. In Survey Measurement and Process Quality, Wiley, 633-670. van den Hout, A. and van
    der Heijden, P. G. M. (2002). Randomized response, statistical disclosure control and misclassification:
    a review. International Statistical Review 70, 269-288.
    """
    counts = _check_table(table)
    level = check_unit_open(level, "level")
    design1, design2 = _yes_probabilities(first, "first"), _yes_probabilities(second, "second")
    k = np.kron(misclassification_matrix(*design1), misclassification_matrix(*design2))
    inverse = np.linalg.inv(k)
    n = float(counts.sum())
    moment = inverse @ (counts / n)
    estimate = _simplex_maximum(counts, k, moment)
    stored = k @ estimate
    covariance = inverse @ (np.diag(stored) - np.outer(stored, stored)) @ inverse.T / n
    std_errs = np.sqrt(np.clip(np.diag(covariance), 0, None))
    z = float(stats.norm.ppf(0.5 + level / 2))
    phi, grad = _phi(estimate)
    phi_se = phi_ci = None
    if phi is not None:
        phi_se = math.sqrt(max(float(grad @ covariance @ grad), 0.0))
        phi_ci = (float(max(-1.0, phi - z * phi_se)), float(min(1.0, phi + z * phi_se)))
    odds_ratio, odds_ratio_ci = _odds_ratio(estimate, covariance, z)
    statistic = max(2 * (_log_likelihood(counts, stored) - _independent_maximum(counts, design1, design2)), 0.0)
    return Correlation(
        n=int(n),
        table=((int(counts[0]), int(counts[1])), (int(counts[2]), int(counts[3]))),
        cells=tuple(
            JointCell(a, b, float(moment[i]), float(estimate[i]), float(std_errs[i])) for i, (a, b) in enumerate(CELLS)
        ),
        method=MOMENT if estimate is moment else MAXIMUM_LIKELIHOOD,
        first_share=float(estimate[0] + estimate[1]),
        second_share=float(estimate[0] + estimate[2]),
        phi=phi,
        phi_std_err=phi_se,
        phi_ci=phi_ci,
        odds_ratio=odds_ratio,
        odds_ratio_ci=odds_ratio_ci,
        lr_statistic=float(statistic),
        p_value=float(stats.chi2.sf(statistic, 1)),
        df=1,
        confidence_level=level,
    )
