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
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from analysis._checks import MAX_DENOMINATOR, DesignError, _check_estimates, as_probability
from analysis.intervals import ConfidenceInterval, _normal_interval
from analysis.multiple_choice import _check_option_counts, project_to_simplex


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
        ``estimate_raw`` projected onto the probability simplex: the shares to report.
    std_err : tuple of float
        Square roots of the diagonal of :meth:`covariance`.
    """

    design: MisclassificationDesign
    n: int
    counts: tuple[int, ...]
    observed: tuple[float, ...]
    estimate_raw: tuple[float, ...]
    estimate_projected: tuple[float, ...]
    std_err: tuple[float, ...]

    @property
    def epsilon(self) -> float:
        return self.design.epsilon

    def covariance(self) -> np.ndarray:
        """``P^-1 (diag(lambda) - lambda lambda') P^-T / n`` with the observed shares.

        (van den Hout and van der Heijden 2002.)
        """
        return _covariance(self.design, np.asarray(self.observed), self.n)

    def confidence_intervals(self, confidence_level: float = 0.95) -> tuple[ConfidenceInterval, ...]:
        """One Wald interval per option, ``estimate_raw_j +/- z std_err_j`` clipped to ``[0, 1]`` (not simultaneous)."""
        return tuple(
            _normal_interval(centre, se, confidence_level) for centre, se in zip(self.estimate_raw, self.std_err)
        )


def _covariance(design: MisclassificationDesign, lam: np.ndarray, n: int) -> np.ndarray:
    inverse = np.linalg.inv(design.floats())
    return inverse @ (np.diag(lam) - np.outer(lam, lam)) @ inverse.T / n


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
    For ``P = t I + (1 - t)/k 1 1'`` both equal
    :func:`analysis.multiple_choice.estimate_multiple_choice`'s ``estimate_raw`` and covariance.

    References
    ----------
    van den Hout, A. and van der Heijden, P. G. M. (2002). International Statistical Review 70(2), 269-288.
    """
    if not isinstance(design, MisclassificationDesign):
        raise ValueError(f"design must be a MisclassificationDesign, got design={design!r}")
    counts = _check_option_counts(counts)
    if len(counts) != design.k:
        raise ValueError(f"counts must have one entry per option (k={design.k}), got {len(counts)}: counts={counts!r}")
    n = sum(counts)
    lam = np.asarray(counts, dtype=float) / n
    raw = np.linalg.solve(design.floats(), lam)
    variance = np.diag(_covariance(design, lam, n))
    return MisclassificationEstimate(
        design=design,
        n=n,
        counts=counts,
        observed=tuple(float(x) for x in lam),
        estimate_raw=tuple(float(x) for x in raw),
        estimate_projected=tuple(float(x) for x in project_to_simplex(raw)),
        std_err=tuple(float(x) for x in np.sqrt(np.maximum(variance, 0.0))),
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
        ``sqrt(sum_v w_vj^2 Var_vj_hat) / sum_v w_vj`` per option.
    weights : tuple of tuple of float
        ``weights[v][j]``: version ``v``'s normalised weight for option ``j`` (each option's sum to 1).
    """

    n: int
    estimate_raw: tuple[float, ...]
    estimate_projected: tuple[float, ...]
    std_err: tuple[float, ...]
    weights: tuple[tuple[float, ...], ...]

    def confidence_intervals(self, confidence_level: float = 0.95) -> tuple[ConfidenceInterval, ...]:
        """One Wald interval per option around ``estimate_raw``, clipped to ``[0, 1]`` (not simultaneous)."""
        return tuple(
            _normal_interval(centre, se, confidence_level) for centre, se in zip(self.estimate_raw, self.std_err)
        )


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

    with ``Var_vj_hat`` the diagonal of :meth:`MisclassificationEstimate.covariance`. As in
    :func:`analysis.pool_two_group`, weights that do not depend on the answers keep the pool exactly
    unbiased; each version's own estimated variance would favour a version whose noise shrank it
    (:func:`analysis.pool_estimates`). Assumed: every version measures the same true shares.

    References
    ----------
    Cochran, W. G. (1954). The combination of estimates from different experiments. Biometrics 10(1), 101-129.
    van den Hout, A. and van der Heijden, P. G. M. (2002). International Statistical Review 70(2), 269-288.
    """
    items = _check_estimates(estimates, MisclassificationEstimate)
    sizes = {item.design.k for item in items}
    if len(sizes) > 1:
        raise ValueError(f"estimates must share one number of options, got k in {sorted(sizes)}")
    weights = np.array([[1 / v for v in worst_case_variances(item.design, item.n)] for item in items])
    totals = weights.sum(axis=0)
    raw = (weights * np.array([item.estimate_raw for item in items])).sum(axis=0) / totals
    variances = np.array([np.diag(item.covariance()) for item in items])
    std_err = np.sqrt(np.maximum((weights**2 * variances).sum(axis=0), 0.0)) / totals
    return PooledMisclassification(
        n=sum(item.n for item in items),
        estimate_raw=tuple(float(x) for x in raw),
        estimate_projected=tuple(float(x) for x in project_to_simplex(raw)),
        std_err=tuple(float(x) for x in std_err),
        weights=tuple(tuple(float(w) for w in row) for row in weights / totals),
    )
