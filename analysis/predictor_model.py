"""A randomized yes/no answer as the predictor of a plainly asked categorical outcome.

The true answer ``z`` of a randomized yes/no question is never seen; only its
stored (noisy) answer ``r`` is. An outcome ``y`` with ``K >= 2`` categories
is asked plainly. The model (rr's ``rrreg.predictor`` and RRreg's ``RRlin``
with the randomized answer as the only predictor, here with a logistic or
multinomial logistic outcome) is

    P(z = 1)        = pi = expit(gamma)
    P(y = k | z)    = exp(alpha_k + beta_k z) / sum_j exp(alpha_j + beta_j z),   alpha_0 = beta_0 = 0
    P(r = yes | z)  = theta1 if z = 1, theta0 if z = 0                          (the design, known)

so ``exp(beta_k)`` is the odds ratio of outcome ``k`` against the reference
outcome (the first) between those with the trait and those without. The data
enter only through the ``2 x K`` cross-table ``n[r, k]`` of stored answers by
outcome, whose cell probabilities are

    P(r, k) = sum_z P(r | z) P(z) P(k | z).

Notes
-----
The model has ``2K - 1`` parameters, as many as the free cells of the
cross-table: it is saturated. The maximum of the multinomial likelihood
``l = sum n[r, k] log P(r, k)`` therefore sets every fitted cell to its
observed share whenever some parameters do, which they do exactly when the
design's inversion of each column,

    q(1, k) = (n[yes, k] - theta0 n[., k]) / (N (theta1 - theta0)),   q(0, k) = n[., k] / N - q(1, k),

is positive in every cell (``q(z, k)`` is the estimated share with true answer
``z`` and outcome ``k``). Then ``pi = sum_k q(1, k)``,
``alpha_k = log(q(0, k) / q(0, 0))`` and ``beta_k = log(q(1, k) / q(1, 0)) - alpha_k``.
A cell at or below 0 puts the maximum at infinity (an odds ratio of 0 or
infinity): :class:`~analysis.regression.NotIdentified` says so instead of
returning a number. A column with no answers has no intercept.

Standard errors come from the observed information at the maximum,
analytically: with ``D = dP/d(gamma, alpha, beta)`` (``2K x (2K - 1)``), the
Hessian of ``l`` is ``-sum n/P^2 DD' + sum (n/P) d2P``; at the saturated
maximum ``n = N P`` and ``sum d2P = d2(sum P) = 0``, so

    J = N D' diag(1/P) D,        Cov = J^-1,

with Wald tests and intervals, and ``exp`` of the interval for the odds ratio.
Without randomization (``theta1 = 1, theta0 = 0``) the likelihood factors
into ``pi`` and the outcome given ``z``, and the fit is ordinary (multinomial)
logistic regression of ``y`` on ``z`` (tests/test_predictor_model.py checks it
against statsmodels' ``Logit`` and ``MNLogit``).

References
----------
Blair, G., Imai, K. and Zhou, Y.-Y. (2015). Design and analysis of the
randomized response technique. JASA 110(511), 1304-1319 (R package rr,
``rrreg.predictor``).
Heck, D. W. and Moshagen, M. (2018). RRreg: an R package for correlation and
regression analyses of randomized response data. Journal of Statistical
Software 85(2), 1-29 (``RRlin``).
van den Hout, A. and van der Heijden, P. G. M. (2002). Randomized response,
statistical disclosure control and misclassification: a review.
International Statistical Review 70(2), 269-288.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy import special

from analysis._checks import check_integer, check_unit_closed, check_unit_open
from analysis.regression import Coefficient, NotIdentified, wald_coefficient


@dataclass(frozen=True)
class OutcomeEquation:
    """One non-reference outcome's equation: its ``intercept`` (``alpha``: log odds against the reference
    among those without the trait) and ``effect`` (``beta``: the log odds ratio of the trait), each with its
    Wald test and interval and ``exp`` (the odds and the odds ratio)."""

    outcome: str
    intercept: Coefficient
    effect: Coefficient


@dataclass(frozen=True)
class PredictorFit:
    """The maximum-likelihood fit of a plain outcome on a randomized yes/no answer.

    ``outcomes`` in the order of the counts (the first is the reference); ``equations`` one per other
    outcome; ``prevalence`` the share with the trait (``pi``) with its standard error and Wald interval
    (clipped to [0, 1]); ``parameters``, ``estimates`` and ``covariance`` the whole vector
    ``(gamma, alpha_1.., beta_1..)`` and its inverse observed information; ``cells`` the estimated
    shares ``q(z, k)``, true answer by outcome.
    """

    outcomes: tuple[str, ...]
    equations: tuple[OutcomeEquation, ...]
    prevalence: float
    prevalence_std_err: float
    prevalence_low: float
    prevalence_high: float
    log_likelihood: float
    n: int
    theta1: float
    theta0: float
    confidence_level: float
    parameters: tuple[str, ...]
    estimates: tuple[float, ...]
    covariance: tuple[tuple[float, ...], ...]
    cells: tuple[tuple[float, ...], tuple[float, ...]]

    @property
    def reference(self) -> str:
        """The outcome every odds is taken against."""
        return self.outcomes[0]


def _check_table(counts: object) -> tuple[tuple[str, ...], np.ndarray]:
    """Outcome labels and the ``2 x K`` table (row 0: stored yes, row 1: stored no) of ``counts``."""
    if not isinstance(counts, Mapping) or len(counts) < 2:
        raise ValueError(f"counts must map at least two outcomes to (stored yes, stored no), got counts={counts!r}")
    columns = []
    for outcome, pair in counts.items():
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            raise ValueError(f"counts[{outcome!r}] must be (stored yes, stored no), got {pair!r}")
        columns.append([check_integer(c, f"counts[{outcome!r}]", 0) for c in pair])
    return tuple(str(k) for k in counts), np.array(columns, dtype=float).T


def _check_design_pair(theta1: object, theta0: object) -> tuple[float, float]:
    one, zero = check_unit_closed(theta1, "theta1"), check_unit_closed(theta0, "theta0")
    if one == zero:
        raise ValueError(f"theta1 and theta0 must differ (else the answer says nothing), got theta1=theta0={one!r}")
    return one, zero


def _latent_cells(table: np.ndarray, theta1: float, theta0: float, outcomes: tuple[str, ...]) -> np.ndarray:
    """``q[z, k]``, z = 0 (no trait), 1 (trait): the design's inversion of each column, which must be positive."""
    n = table.sum()
    column = table.sum(axis=0) / n
    trait = (table[0] / n - theta0 * column) / (theta1 - theta0)
    cells = np.vstack([column - trait, trait])
    for k, outcome in enumerate(outcomes):
        if column[k] == 0:
            raise NotIdentified(f"no one answered {outcome!r}: its odds have no finite estimate")
        for z, who in ((1, "with"), (0, "without")):
            if cells[z, k] <= 0:
                raise NotIdentified(
                    f"the stored answers of those who answered {outcome!r} put no one {who} the trait among them: "
                    "the likelihood's maximum is at an odds ratio of 0 or infinity"
                )
    return cells


def _probabilities(params: np.ndarray, k: int) -> tuple[float, np.ndarray]:
    """``pi`` and the ``2 x K`` outcome probabilities ``s[z, k]`` of a parameter vector."""
    pi = float(special.expit(params[0]))
    alpha = np.concatenate([[0.0], params[1:k]])
    beta = np.concatenate([[0.0], params[k:]])
    s = np.vstack([special.softmax(alpha), special.softmax(alpha + beta)])
    return pi, s


def _weights(theta1: float, theta0: float) -> np.ndarray:
    """``w[r, z] = P(stored r | z)``, r = 0 (yes), 1 (no)."""
    return np.array([[theta0, theta1], [1 - theta0, 1 - theta1]])


def cell_probabilities(params: object, k: int, theta1: float, theta0: float) -> np.ndarray:
    """``P(r, k)`` (row 0: stored yes, row 1: stored no) for ``params = (gamma, alpha_1.., beta_1..)``."""
    pi, s = _probabilities(np.asarray(params, dtype=float), k)
    prior = np.array([1 - pi, pi])
    return _weights(theta1, theta0) @ (prior[:, None] * s)


def predictor_log_likelihood(params: object, counts: Mapping, theta1: float, theta0: float) -> float:
    """The multinomial log-likelihood ``sum n[r, k] log P(r, k)`` of the cross-table ``counts``."""
    outcomes, table = _check_table(counts)
    p = cell_probabilities(params, len(outcomes), theta1, theta0)
    mask = table > 0
    return float(np.sum(table[mask] * np.log(p[mask])))


def _jacobian(params: np.ndarray, k: int, theta1: float, theta0: float) -> np.ndarray:
    """``dP(r, k)/d params`` flattened row-major over (r, k): ``2K x (2K - 1)``, analytic."""
    pi, s = _probabilities(params, k)
    w = _weights(theta1, theta0)
    prior = np.array([1 - pi, pi])
    jac = np.zeros((2, k, 2 * k - 1))
    jac[:, :, 0] = pi * (1 - pi) * (np.outer(w[:, 1], s[1]) - np.outer(w[:, 0], s[0]))
    for j in range(1, k):
        for z in (0, 1):
            ds = s[z] * ((np.arange(k) == j) - s[z, j])  # d s[z, :] / d (alpha_j or beta_j)
            part = np.outer(w[:, z], prior[z] * ds)
            jac[:, :, j] += part
            if z == 1:
                jac[:, :, k - 1 + j] += part
    return jac.reshape(2 * k, 2 * k - 1)


def fit_predictor(counts: Mapping, theta1: float, theta0: float, confidence_level: float = 0.95) -> PredictorFit:
    """Fit ``P(y = k | z)`` by maximum likelihood over the latent true answer ``z``.

    Parameters
    ----------
    counts : mapping of str to (int, int)
        Each outcome's ``(stored yes, stored no)`` counts of the randomized question, in order; the first
        outcome is the reference.
    theta1, theta0 : float
        ``P(stored yes | trait)`` and ``P(stored yes | no trait)`` of the randomized question's design
        (forced response ``(t, a, b)``: ``t + a`` and ``a``; no randomization: 1 and 0).
    confidence_level : float
        Of the Wald intervals.

    Returns
    -------
    PredictorFit

    Raises
    ------
    ValueError
        Bad counts, a design with ``theta1 = theta0``, a bad level.
    NotIdentified
        An outcome no one gave, or a cell of the inverted table at or below 0 (the maximum at infinity).

    Notes
    -----
    See the module: the saturated maximum, from the design's inversion of each column; the covariance is
    the inverse of the analytic observed information ``N D' diag(1/P) D``.
    """
    outcomes, table = _check_table(counts)
    theta1, theta0 = _check_design_pair(theta1, theta0)
    level = check_unit_open(confidence_level, "confidence_level")
    n = int(table.sum())
    if n == 0:
        raise NotIdentified("no answers yet")
    k = len(outcomes)
    cells = _latent_cells(table, theta1, theta0, outcomes)
    pi = float(cells[1].sum())
    alpha = np.log(cells[0, 1:] / cells[0, 0])
    beta = np.log(cells[1, 1:] / cells[1, 0]) - alpha
    params = np.concatenate([[math.log(pi / (1 - pi))], alpha, beta])
    p = cell_probabilities(params, k, theta1, theta0).ravel()
    jac = _jacobian(params, k, theta1, theta0)
    information = n * jac.T @ (jac / p[:, None])
    covariance = np.linalg.inv(information)
    se = np.sqrt(np.diag(covariance))
    z_level = float(special.ndtri(0.5 + level / 2))
    equations = tuple(
        OutcomeEquation(
            outcome,
            wald_coefficient(f"{outcome}: intercept", float(params[j]), float(se[j]), z_level),
            wald_coefficient(f"{outcome}: trait", float(params[k - 1 + j]), float(se[k - 1 + j]), z_level),
        )
        for j, outcome in enumerate(outcomes[1:], start=1)
    )
    pi_se = pi * (1 - pi) * float(se[0])
    mask = table.ravel() > 0
    return PredictorFit(
        outcomes=outcomes,
        equations=equations,
        prevalence=pi,
        prevalence_std_err=pi_se,
        prevalence_low=max(0.0, pi - z_level * pi_se),
        prevalence_high=min(1.0, pi + z_level * pi_se),
        log_likelihood=float(np.sum(table.ravel()[mask] * np.log(p[mask]))),
        n=n,
        theta1=theta1,
        theta0=theta0,
        confidence_level=level,
        parameters=("gamma", *(f"alpha[{o}]" for o in outcomes[1:]), *(f"beta[{o}]" for o in outcomes[1:])),
        estimates=tuple(float(v) for v in params),
        covariance=tuple(tuple(float(v) for v in row) for row in covariance),
        cells=(tuple(float(v) for v in cells[0]), tuple(float(v) for v in cells[1])),
    )
