"""Randomized response for ``select_one`` with any misclassification matrix.

The design is a ``k x k`` matrix ``P`` with ``P[j, i] = P(report option j |
true option i)``: columns are true options, rows reported options, and each
column sums to 1. The reported shares are ``lambda = P pi``; if ``P`` is
invertible the true shares are ``pi = P^-1 lambda``. The ``k``-option design
of :mod:`analysis.multiple_choice` is the special case ``P = t I + (1 - t)/k
1 1'`` (:meth:`MisclassificationDesign.from_multiple_choice`), and RRreg's
forced-response model ``"FR"`` with ``m`` categories is ``P = (1 - sum p) I +
p 1'`` (:meth:`MisclassificationDesign.forced_response`).

References
----------
van den Hout, A. and van der Heijden, P. G. M. (2002). Randomized response,
statistical disclosure control and misclassification: a review.
International Statistical Review 70(2), 269-288.
Chaudhuri, A. and Mukerjee, R. (1988). Randomized Response: Theory and
Techniques. Marcel Dekker.
Heck, D. W. and Moshagen, M. (2018). RRreg. Journal of Statistical Software 85(2).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np
from scipy import optimize, stats

from analysis._checks import MAX_DENOMINATOR, DesignError, as_probability, check_estimates, check_unit_open
from analysis.design import ForcedResponseDesign
from analysis.intervals import (
    LOWER,
    TWO_SIDED,
    UPPER,
    ConfidenceInterval,
    OutsideDesign,
    confidence_interval,
    normal_interval,
    outside_design,
    population_std_err,
)
from analysis.multiple_choice import check_option_counts, project_to_simplex

#: The interval of a matrix option read through its own marginal (:meth:`MisclassificationDesign.option_marginal`):
#: exact, so its coverage is never below the level (Wilson's dips to 0.9275 at n = 31 under a 2 x 2 matrix with
#: 0.9 on the diagonal; analysis/README.md, "Misclassification matrices").
MARGINAL_METHOD = "clopper-pearson"
#: The interval of any other matrix option.
PROFILE_METHOD = "profile likelihood"


def _exact_determinant(matrix: tuple[tuple[Fraction, ...], ...]) -> Fraction:
    """Determinant by Gaussian elimination on exact fractions (no rounding: a singular matrix gives exactly 0)."""
    rows = [list(row) for row in matrix]
    size = len(rows)
    determinant = Fraction(1)
    for column in range(size):
        pivot = next((r for r in range(column, size) if rows[r][column] != 0), None)
        if pivot is None:
            return Fraction(0)
        if pivot != column:
            rows[column], rows[pivot] = rows[pivot], rows[column]
            determinant = -determinant
        determinant *= rows[column][column]
        for r in range(column + 1, size):
            factor = rows[r][column] / rows[column][column]
            for c in range(column, size):
                rows[r][c] -= factor * rows[column][c]
    return determinant


def _denominator_limit(value: object) -> int | None:
    """A written entry's denominator is limited (:data:`analysis._checks.MAX_DENOMINATOR`); a ``Fraction`` is exact
    already, derived from a valid design (such as a k-option design's ``(1 - t)/k`` with a six-decimal ``t``)."""
    return None if isinstance(value, Fraction) else MAX_DENOMINATOR


def _check_matrix(matrix: object) -> tuple[tuple[Fraction, ...], ...]:
    """A square ``k x k`` (``k >= 2``) matrix of exact probabilities whose columns sum to 1 and that is invertible."""
    try:
        rows = [tuple(row) for row in matrix]  # type: ignore[union-attr]
    except TypeError:
        raise DesignError(f"matrix must be a list of rows, got matrix={matrix!r}", "matrix") from None
    k = len(rows)
    if k < 2 or any(len(row) != k for row in rows):
        raise DesignError(f"matrix must be square with at least 2 rows, got matrix={matrix!r}", "matrix")
    exact = tuple(
        tuple(as_probability(value, f"matrix[{j}][{i}]", _denominator_limit(value)) for i, value in enumerate(row))
        for j, row in enumerate(rows)
    )
    for j, row in enumerate(exact):
        for i, value in enumerate(row):
            if not 0 <= value <= 1:
                raise DesignError(
                    f"matrix[{j}][{i}] must be in [0, 1], got matrix[{j}][{i}]={value}", f"matrix[{j}][{i}]"
                )
    for i in range(k):
        total = sum(row[i] for row in exact)
        if total != 1:
            raise DesignError(
                f"column {i} (true option {i}) must sum to 1 over the reported options, got {total}", f"matrix[*][{i}]"
            )
    if _exact_determinant(exact) == 0:
        raise DesignError(f"matrix must be invertible (the true shares are then identified), got matrix={rows!r}")
    return exact


@dataclass(frozen=True)
class MisclassificationDesign:
    """A ``select_one`` question randomized through a misclassification matrix.

    Attributes
    ----------
    matrix : tuple of tuple of Fraction
        ``matrix[j][i] = P(report option j | true option i)``, exact; every
        column sums to 1 and the matrix is invertible. Given as numbers,
        fractions or strings such as ``"1/6"``.

    Notes
    -----
    ``lambda = P pi`` (van den Hout and van der Heijden 2002, section 2).
    """

    matrix: tuple[tuple[Fraction, ...], ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "matrix", _check_matrix(self.matrix))

    kind = "misclassification"
    rrreg_model = "custom"

    @classmethod
    def from_multiple_choice(cls, k: int, t: object) -> MisclassificationDesign:
        """``P = t I + (1 - t)/k 1 1'``: the design of :class:`analysis.design.MultipleChoiceDesign`."""
        t = as_probability(t, "t")
        share = (1 - t) / k
        return cls(tuple(tuple(share + (t if i == j else 0) for i in range(k)) for j in range(k)))

    @classmethod
    def forced_response(cls, prompted: Sequence[object]) -> MisclassificationDesign:
        """RRreg's ``"FR"`` model: option ``j`` forced with ``prompted[j]``, truthful with ``1 - sum(prompted)``."""
        shares = [as_probability(value, f"prompted[{j}]") for j, value in enumerate(prompted)]
        truthful = 1 - sum(shares)
        if truthful <= 0:
            raise DesignError(f"sum(prompted) must be below 1, got {sum(shares)}", "prompted")
        k = len(shares)
        return cls(tuple(tuple(shares[j] + (truthful if i == j else 0) for i in range(k)) for j in range(k)))

    @property
    def k(self) -> int:
        return len(self.matrix)

    def option_marginal(self, j: int) -> ForcedResponseDesign | None:
        """Option ``j``'s reported share as a forced-response yes/no, when the matrix allows it; else ``None``.

        When row ``j`` holds one value ``c`` off the diagonal and ``d > c`` on it, ``lambda_j = c + (d - c)
        pi_j`` whatever the other shares: "is it option ``j``?" is answered truthfully with ``t = d - c``,
        forced to yes with ``a = c`` and to no with ``b = 1 - d``, and every yes/no interval maps exactly.
        Every row of a 2 x 2 matrix, of the k-option design and of RRreg's forced response is of this form.
        """
        row = self.matrix[j]
        others = {value for i, value in enumerate(row) if i != j}
        if len(others) != 1:
            return None
        (c,) = others
        d = row[j]
        if d <= c:
            return None
        return ForcedResponseDesign(d - c, c, 1 - d, max_denominator=None)

    @property
    def separable(self) -> bool:
        """Whether every option has its own marginal (:meth:`option_marginal`)."""
        return all(self.option_marginal(j) is not None for j in range(self.k))

    def floats(self) -> np.ndarray:
        """The matrix as a float array (rows: reported option, columns: true option)."""
        return np.array([[float(value) for value in row] for row in self.matrix])

    @property
    def epsilon(self) -> float:
        """``max_j ln(max_i P[j, i] / min_i P[j, i])``; ``math.inf`` when a row has a 0 beside a positive entry.

        One report ``j`` changes the odds between any two true options by at
        most the ratio of the largest to the smallest entry of row ``j``
        (van den Hout and van der Heijden 2002; Wang, Blocki, Li and Jha 2017).
        """
        worst = 0.0
        for row in self.matrix:
            low, high = min(row), max(row)
            if high == 0:
                continue
            if low == 0:
                return math.inf
            worst = max(worst, math.log(high / low))
        return worst

    def to_dict(self) -> dict:
        return {"kind": self.kind, "matrix": [[str(value) for value in row] for row in self.matrix]}

    def label(self) -> str:
        return f"misclassification matrix ({self.k} options)"

    def rrreg(self) -> dict:
        """RRreg's ``model = "custom"`` with ``p`` the matrix (rows: response, columns: true state)."""
        return {"model": self.rrreg_model, "p": [[str(value) for value in row] for row in self.matrix]}


@dataclass(frozen=True)
class MisclassificationEstimate:
    """Estimated shares of a ``select_one`` question with a misclassification design.

    Attributes
    ----------
    design : MisclassificationDesign
    n : int
        Number of answers.
    counts : tuple of int
        Reported count of each option.
    observed : tuple of float
        ``lambda_hat_j = c_j / n``.
    estimate_raw : tuple of float
        ``P^-1 lambda_hat``: unbiased, sums to 1, entries may leave ``[0, 1]``.
    estimate_projected : tuple of float
        ``estimate_raw`` projected onto the probability simplex: shares that sum to 1.
    std_err : tuple of float
        Of each option's raw estimate, with the reported shares the design can produce plugged in (never the
        observed shares alone, whose plug-in is 0 when every answer names one option): an option read
        through its marginal (:meth:`MisclassificationDesign.option_marginal`) gets the yes/no population
        standard error with its share clamped to ``[a, a + t]``; any other option ``sqrt(diag(P^-1 (diag(l) -
        l l') P^-T) / n)`` at the fitted shares ``l = P pi_mle``.
    estimate : tuple of float
        The figure beside each option's interval, inside it: ``clip(estimate_raw_j, 0, 1)`` (the marginal's
        maximum-likelihood estimate) for an option read through its marginal, else the joint
        maximum-likelihood estimate's share (:func:`maximum_likelihood`).
    mle : tuple of float
        The maximum-likelihood shares over the simplex (:func:`maximum_likelihood`).
    """

    design: MisclassificationDesign
    n: int
    counts: tuple[int, ...]
    observed: tuple[float, ...]
    estimate_raw: tuple[float, ...]
    estimate_projected: tuple[float, ...]
    std_err: tuple[float, ...]
    estimate: tuple[float, ...]
    mle: tuple[float, ...]

    @property
    def epsilon(self) -> float:
        return self.design.epsilon

    def covariance(self) -> np.ndarray:
        """``P^-1 (diag(lambda) - lambda lambda') P^-T / n`` with the observed shares.

        (van den Hout and van der Heijden 2002.) The plug-in of the observed shares: 0 on the diagonal when
        every answer names one option; :attr:`std_err` plugs in shares the design can produce instead.
        """
        return _covariance(self.design, np.asarray(self.observed), self.n)

    def confidence_intervals(self, confidence_level: float = 0.95) -> tuple[ConfidenceInterval, ...]:
        """One interval per option (not simultaneous), never of width 0, each holding :attr:`estimate`.

        An option with its own marginal (:meth:`MisclassificationDesign.option_marginal`): the exact
        (Clopper-Pearson) interval of its reported share mapped through ``(lambda - a) / t``, or, when that
        share lies outside ``[a, a + t]``, the one-sided bound of :func:`analysis.outside_design`
        (:data:`MARGINAL_METHOD`). Any other option: the profile-likelihood interval of
        :func:`profile_likelihood_interval`.
        """
        level = check_unit_open(confidence_level, "confidence_level")
        return tuple(self._interval(j, level) for j in range(self.design.k))

    def _interval(self, j: int, level: float) -> ConfidenceInterval:
        marginal = self.design.option_marginal(j)
        if marginal is not None:
            return confidence_interval(self.counts[j], self.n, *marginal.exact(), level, MARGINAL_METHOD)
        return profile_likelihood_interval(self.counts, self.design, j, level, np.asarray(self.mle))

    def outside(self, confidence_level: float = 0.95) -> tuple[OutsideDesign | None, ...]:
        """Per option, :func:`analysis.outside_design` of its marginal (``None`` inside it, or without one)."""
        out = []
        for j in range(self.design.k):
            marginal = self.design.option_marginal(j)
            found = None
            if marginal is not None:
                found = outside_design(self.counts[j], self.n, *marginal.exact(), confidence_level=confidence_level)
            out.append(found)
        return tuple(out)

    def outside_rows(self) -> tuple[str | None, ...]:
        """Per option: ``"below"`` when its observed share is under the least the design can produce (the
        smallest entry of its row), ``"above"`` over the largest, else ``None``."""
        sides = []
        for observed, row in zip(self.observed, self.design.floats()):
            sides.append("below" if observed < row.min() else "above" if observed > row.max() else None)
        return tuple(sides)


def _covariance(design: MisclassificationDesign, lam: np.ndarray, n: int) -> np.ndarray:
    inverse = np.linalg.inv(design.floats())
    return inverse @ (np.diag(lam) - np.outer(lam, lam)) @ inverse.T / n


def _log_likelihood(counts: np.ndarray, matrix: np.ndarray, pi: np.ndarray) -> float:
    """``sum_j c_j log((P pi)_j)`` over the options reported at least once."""
    lam = matrix @ pi
    seen = counts > 0
    if np.any(lam[seen] <= 0):
        return -math.inf
    return float(counts[seen] @ np.log(lam[seen]))


def _gradient(counts: np.ndarray, matrix: np.ndarray, pi: np.ndarray) -> np.ndarray:
    lam = np.maximum(matrix @ pi, 1e-300)
    return matrix.T @ (counts / lam)


def maximum_likelihood(counts: Sequence[int], design: MisclassificationDesign) -> np.ndarray:
    """The shares ``pi`` on the probability simplex that maximise the multinomial likelihood of ``counts``.

    Notes
    -----
    ``log L(pi) = sum_j c_j log((P pi)_j)`` is concave in ``pi``. When ``P^-1 lambda_hat`` lies on the simplex
    it is the maximum (the observed shares are then ones the design can produce). Otherwise the maximum lies
    on the simplex's boundary and is found by sequential least squares (SLSQP) from the projection of ``P^-1
    lambda_hat``, then checked against the EM fixed point ``pi_i <- pi_i sum_j c_j P_ji / (n (P pi)_j)``
    (van den Hout and van der Heijden 2002, section 3: the EM algorithm for misclassified categories).
    """
    c = np.asarray(check_option_counts(counts), dtype=float)
    matrix = design.floats()
    raw = np.linalg.solve(matrix, c / c.sum())
    if np.all(raw >= 0):
        return raw / raw.sum()
    start = 0.9 * project_to_simplex(raw) + 0.1 / design.k
    found = _maximise(c, matrix, start, lambda pi: -_log_likelihood(c, matrix, pi) / c.sum(), None)
    return _em_polish(c, matrix, found)


def _em_polish(c: np.ndarray, matrix: np.ndarray, pi: np.ndarray, steps: int = 200) -> np.ndarray:
    """A few EM steps from ``pi``: each never lowers the likelihood and keeps ``pi`` on the simplex."""
    n = c.sum()
    for _ in range(steps):
        lam = np.maximum(matrix @ pi, 1e-300)
        pi = pi * (matrix.T @ (c / lam)) / n
        pi = np.maximum(pi, 0.0)
        pi = pi / pi.sum()
    return pi


def _maximise(c, matrix, start, objective, extra, gradient=None) -> np.ndarray:
    """SLSQP over the simplex (bounds ``[0, 1]``, shares summing to 1), with ``extra`` constraints; ``gradient``
    is the objective's, or None to let SLSQP estimate it by finite differences."""
    constraints = [{"type": "eq", "fun": lambda pi: pi.sum() - 1.0, "jac": lambda pi: np.ones_like(pi)}]
    if extra is not None:
        constraints.append(extra)
    result = optimize.minimize(
        objective,
        start,
        jac=gradient,
        method="SLSQP",
        bounds=[(0.0, 1.0)] * len(start),
        constraints=constraints,
        options={"ftol": 1e-13, "maxiter": 500},
    )
    pi = np.clip(result.x, 0.0, 1.0)
    return pi / pi.sum()


def profile_likelihood_interval(
    counts: Sequence[int],
    design: MisclassificationDesign,
    j: int,
    confidence_level: float = 0.95,
    mle: np.ndarray | None = None,
) -> ConfidenceInterval:
    """The profile-likelihood interval for option ``j``'s true share, or a one-sided bound at the boundary.

    Parameters
    ----------
    counts : sequence of int
        Reported count of each option.
    design : MisclassificationDesign
    j : int
        The option.
    confidence_level : float
        In ``(0, 1)``.
    mle : array, optional
        :func:`maximum_likelihood` of ``counts``, if already known.

    Returns
    -------
    ConfidenceInterval
        ``method="profile likelihood"``; two-sided, or ``side="upper"`` (``"lower"``) when the
        maximum-likelihood share is 0 (1).

    Notes
    -----
    The set ``{pi_j : max over the simplex with that pi_j of log L >= log L(pi_mle) - c/2}`` (Venzon and
    Moolgavkar 1988) is the projection on ``pi_j`` of the convex region ``{pi : log L(pi) >= log L_max - c/2}``
    (``log L`` is concave), so its ends are the least and largest ``pi_j`` over that region, each one convex
    programme (SLSQP), with ``c = chi2_1(level)``. When the maximum lies at ``pi_j = 0`` (or 1) only the other end
    is a bound: the result is that one-sided bound, with the same ``c`` (its one-sided coverage is then at least
    the level; the smaller cut ``z_level^2`` lowered the exact coverage at n = 30 to 0.897). The interval always
    holds ``pi_mle_j`` and has a positive width for an invertible ``P``. Exact coverage under the 3 x 3 matrix of
    tests/test_misclassification.py at n = 30, over a grid of true shares: at least 0.934 for every option
    (analysis/README.md, "Misclassification matrices").

    References
    ----------
    Venzon, D. J. and Moolgavkar, S. H. (1988). A method for computing profile-likelihood-based confidence
    intervals. Applied Statistics 37(1), 87-94.
    van den Hout, A. and van der Heijden, P. G. M. (2002). International Statistical Review 70(2), 269-288.
    """
    level = check_unit_open(confidence_level, "confidence_level")
    c = np.asarray(check_option_counts(counts), dtype=float)
    matrix = design.floats()
    pi_hat = maximum_likelihood(counts, design) if mle is None else np.asarray(mle, dtype=float)
    top = _log_likelihood(c, matrix, pi_hat)
    at_zero, at_one = pi_hat[j] <= 1e-9, pi_hat[j] >= 1 - 1e-9
    side = UPPER if at_zero else LOWER if at_one else TWO_SIDED
    floor = top - stats.chi2.ppf(level, 1) / 2
    n = c.sum()
    region = {
        "type": "ineq",
        "fun": lambda pi: (_log_likelihood(c, matrix, np.maximum(pi, 0.0)) - floor) / n,
        "jac": lambda pi: _gradient(c, matrix, np.maximum(pi, 1e-300)) / n,
    }

    def end(sign: float) -> float:
        direction = sign * np.eye(len(c))[j]  # the objective's gradient: no finite differences of a linear function
        found = _maximise(c, matrix, pi_hat, lambda pi: sign * pi[j], region, lambda pi: direction)
        return float(found[j])

    low = 0.0 if side == UPPER else min(end(1.0), float(pi_hat[j]))
    high = 1.0 if side == LOWER else max(end(-1.0), float(pi_hat[j]))
    return ConfidenceInterval(low, high, PROFILE_METHOD, level, side)


def estimate_misclassification(counts: Sequence[int], design: MisclassificationDesign) -> MisclassificationEstimate:
    """Estimate the true shares from reported counts under a misclassification matrix.

    Parameters
    ----------
    counts : sequence of int
        Reported count of each option, one per row of the matrix.
    design : MisclassificationDesign

    Returns
    -------
    MisclassificationEstimate

    Raises
    ------
    ValueError
        If a count is invalid or their number is not ``design.k``; the message names the value.

    Notes
    -----
    With ``lambda_hat = counts / n`` (van den Hout and van der Heijden 2002)::

        pi_hat = P^-1 lambda_hat
        Cov(pi_hat) = P^-1 (diag(lambda) - lambda lambda') P^-T / n

    ``pi_hat`` is unbiased; ``estimate_projected`` is its Euclidean
    projection onto the simplex (:func:`analysis.multiple_choice.project_to_simplex`).
    For ``P = t I + (1 - t)/k 1 1'`` ``estimate_raw`` and ``std_err`` equal
    :func:`analysis.multiple_choice.estimate_multiple_choice`'s. The standard
    errors plug in shares the design can produce (:class:`MisclassificationEstimate`),
    so an option nobody or everybody named still has a positive one.

    References
    ----------
    van den Hout, A. and van der Heijden, P. G. M. (2002). International Statistical Review 70(2), 269-288.
    """
    if not isinstance(design, MisclassificationDesign):
        raise ValueError(f"design must be a MisclassificationDesign, got design={design!r}")
    counts = check_option_counts(counts)
    if len(counts) != design.k:
        raise ValueError(f"counts must have one entry per option (k={design.k}), got {len(counts)}: counts={counts!r}")
    n = sum(counts)
    lam = np.asarray(counts, dtype=float) / n
    raw = np.linalg.solve(design.floats(), lam)
    mle = maximum_likelihood(counts, design)
    fitted = np.diag(_covariance(design, design.floats() @ mle, n))
    estimate, std_err = [], []
    for j in range(design.k):
        marginal = design.option_marginal(j)
        if marginal is None:
            estimate.append(float(mle[j]))
            std_err.append(math.sqrt(max(float(fitted[j]), 0.0)))
        else:
            t, a, _ = marginal.floats()
            estimate.append(min(max(float(raw[j]), 0.0), 1.0))
            std_err.append(population_std_err(counts[j], n, t, a))
    return MisclassificationEstimate(
        design=design,
        n=n,
        counts=counts,
        observed=tuple(float(x) for x in lam),
        estimate_raw=tuple(float(x) for x in raw),
        estimate_projected=tuple(float(x) for x in project_to_simplex(raw)),
        std_err=tuple(std_err),
        estimate=tuple(estimate),
        mle=tuple(float(x) for x in mle),
    )


def worst_case_variances(design: MisclassificationDesign, n: int) -> tuple[float, ...]:
    """The largest variance of each option's raw estimate over every true share, with ``n`` answers.

    ``Var(pi_hat_j) = (sum_k A_jk^2 lambda_k - (sum_k A_jk lambda_k)^2) / n`` with ``A = P^-1`` is the
    variance of a variable taking the value ``A_jk`` with probability ``lambda_k``, divided by ``n``; over
    every ``lambda`` it is largest, ``(max_k A_jk - min_k A_jk)^2 / (4 n)``, with half the mass on each end
    (Popoviciu's inequality). That bound depends on the design and ``n`` only.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a whole number of at least 1, got n={n!r}")
    inverse = np.linalg.inv(design.floats())
    return tuple(float((row.max() - row.min()) ** 2 / (4 * n)) for row in inverse)


def producible_worst_case_variances(design: MisclassificationDesign, n: int) -> tuple[float, ...]:
    """The largest variance of each option's raw estimate over the true shares, with ``n`` answers.

    Notes
    -----
    :func:`worst_case_variances` bounds ``Var(pi_hat_j)`` over every reported ``lambda``; the design can only
    produce ``lambda = P pi``. With ``A = P^-1``, ``sum_k A_jk lambda_k = pi_j`` and ``sum_k A_jk^2 lambda_k =
    w . pi`` with ``w_i = sum_k A_jk^2 P_ki``, so ``n Var(pi_hat_j) = w . pi - pi_j^2``: a concave quadratic on
    the simplex. With ``pi_j = x`` fixed it is largest with the rest ``1 - x`` on the option ``i != j`` of
    largest ``w_i = W``: ``f(x) = w_j x + W (1 - x) - x^2``, largest at ``x = clip((w_j - W) / 2, 0, 1)``. Never
    above :func:`worst_case_variances`; equal to it when a reported share of 1/2 between the two extreme
    entries can be produced (every k-option design whose ``t + (1 - t)/k >= 1/2``).
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a whole number of at least 1, got n={n!r}")
    matrix = design.floats()
    inverse = np.linalg.inv(matrix)
    out = []
    for j, row in enumerate(inverse):
        w = (row**2) @ matrix
        largest_other = max(w[i] for i in range(design.k) if i != j)
        x = min(max((w[j] - largest_other) / 2, 0.0), 1.0)
        out.append(float(w[j] * x + largest_other * (1 - x) - x * x) / n)
    return tuple(out)


@dataclass(frozen=True)
class PooledMisclassification:
    """The option shares of one ``select_one`` question pooled over versions of its misclassification matrix.

    Attributes
    ----------
    n : int
        Answers over every version.
    estimate_raw : tuple of float
        Per option, the weighted mean of the versions' unbiased ``P_v^-1 lambda_hat_v``: unbiased; the
        shares need not sum to 1 exactly (each option has its own weights).
    estimate_projected : tuple of float
        ``estimate_raw`` projected onto the probability simplex: the shares to report.
    std_err : tuple of float
        ``sqrt(sum_v w_vj^2 SE_vj^2) / sum_v w_vj`` per option, with each version's
        :attr:`MisclassificationEstimate.std_err`.
    weights : tuple of tuple of float
        ``weights[v][j]``: version ``v``'s normalised weight for option ``j`` (each option's sum to 1).
    """

    n: int
    estimate_raw: tuple[float, ...]
    estimate_projected: tuple[float, ...]
    std_err: tuple[float, ...]
    weights: tuple[tuple[float, ...], ...]

    @property
    def estimate(self) -> tuple[float, ...]:
        """``clip(estimate_raw_j, 0, 1)``: the figure beside each option's interval, inside it."""
        return tuple(min(max(raw, 0.0), 1.0) for raw in self.estimate_raw)

    def confidence_intervals(self, confidence_level: float = 0.95) -> tuple[ConfidenceInterval, ...]:
        """One Wald interval per option, ``estimate_j +/- z std_err_j`` clipped to ``[0, 1]`` (not simultaneous).

        Centred on the clipped estimate (as :meth:`analysis.PooledEstimate.confidence_interval` centres on the
        pooled maximum-likelihood estimate), so the estimate shown lies inside it and it never collapses to
        ``[0, 0]``; an option whose raw estimate left ``[0, 1]`` gets a one-sided bound (side ``"upper"`` below
        0, ``"lower"`` above 1).
        """
        out = []
        for raw, centre, se in zip(self.estimate_raw, self.estimate, self.std_err):
            interval = normal_interval(centre, se, confidence_level)
            side = UPPER if raw < 0 else LOWER if raw > 1 else TWO_SIDED
            out.append(replace(interval, side=side))
        return tuple(out)


def pool_misclassification(estimates: Sequence[MisclassificationEstimate]) -> PooledMisclassification:
    """Pool the option shares of one question estimated apart under several misclassification matrices.

    Parameters
    ----------
    estimates : sequence of MisclassificationEstimate
        Independent estimates of the same true shares (answers kept apart by design version), all with
        the same options in the same order.

    Returns
    -------
    PooledMisclassification

    Raises
    ------
    ValueError
        With no estimates, something other than a :class:`MisclassificationEstimate`, or estimates with
        different numbers of options.

    Notes
    -----
    Version ``v``'s ``pi_hat_v = P_v^-1 lambda_hat_v`` is unbiased. Option ``j`` is pooled with the inverse
    of its worst-case variance (:func:`worst_case_variances`), which depends on the matrix and ``n_v`` only::

        w_vj = 4 n_v / (max_k A_v,jk - min_k A_v,jk)^2,    pi_pool_j = sum_v w_vj pi_hat_vj / sum_v w_vj
        SE_pool_j = sqrt(sum_v w_vj^2 Var_vj_hat) / sum_v w_vj

    with ``Var_vj_hat`` the square of :attr:`MisclassificationEstimate.std_err` (shares the design can
    produce plugged in, so never 0 because every answer of a version named one option). As in
    :func:`analysis.pool_two_group`, weights that do not depend on the answers keep the pool exactly
    unbiased; each version's own estimated variance would favour a version whose noise shrank it
    (:func:`analysis.pool_estimates`). Assumed: every version measures the same true shares.

    References
    ----------
    Cochran, W. G. (1954). The combination of estimates from different experiments. Biometrics 10(1), 101-129.
    van den Hout, A. and van der Heijden, P. G. M. (2002). International Statistical Review 70(2), 269-288.
    """
    items = check_estimates(estimates, MisclassificationEstimate)
    sizes = {item.design.k for item in items}
    if len(sizes) > 1:
        raise ValueError(f"estimates must share one number of options, got k in {sorted(sizes)}")
    weights = np.array([[1 / v for v in worst_case_variances(item.design, item.n)] for item in items])
    totals = weights.sum(axis=0)
    raw = (weights * np.array([item.estimate_raw for item in items])).sum(axis=0) / totals
    variances = np.array([item.std_err for item in items]) ** 2
    std_err = np.sqrt(np.maximum((weights**2 * variances).sum(axis=0), 0.0)) / totals
    return PooledMisclassification(
        n=sum(item.n for item in items),
        estimate_raw=tuple(float(x) for x in raw),
        estimate_projected=tuple(float(x) for x in project_to_simplex(raw)),
        std_err=tuple(float(x) for x in std_err),
        weights=tuple(tuple(float(w) for w in row) for row in weights / totals),
    )
