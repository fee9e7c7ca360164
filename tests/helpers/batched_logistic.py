"""Many logistic fits with a randomized outcome at once, for the seeded simulations of tests/test_regression.py.

``P(stored yes | x) = a + t expit(x' beta)`` fitted by maximum likelihood to each of ``R`` surveys on the same
patterns, all in one array: Newton steps on the observed information (Fisher scoring on the expected one where
the observed one is not positive definite), halved per survey until its likelihood rises; Wald intervals from
the inverse observed information; the likelihood-ratio test of some columns by refitting without them. The
formulas are those of analysis/regression.py's Notes, written again here over a leading axis of surveys: one
``fit_logistic`` call costs about 8 ms of Python overhead on a few small arrays, so 4,000 surveys took 10 s of a
core where this takes a fraction of a second. tests/test_regression.py checks that its numbers are
``fit_logistic``'s on the first surveys of each simulation, so the simulation's verdict is about that function."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special, stats


@dataclass(frozen=True)
class BatchedFits:
    """Per survey (rows): coefficients, their standard errors, and the maximized log-likelihood."""

    beta: np.ndarray
    std_err: np.ndarray
    log_likelihood: np.ndarray


def _terms(x, yes, no, t, a, beta):
    """Probabilities and the per-pattern pieces of the score and informations, each (surveys, patterns)."""
    g = special.expit(beta @ x.T)
    p = a + t * g
    h = t * g * (1 - g)
    r = yes / p - no / (1 - p)
    observed = h**2 * (yes / p**2 + no / (1 - p) ** 2) - h * (1 - 2 * g) * r
    expected = (yes + no) * h**2 / (p * (1 - p))
    return p, h * r, observed, expected


def _log_likelihood(x, yes, no, t, a, beta) -> np.ndarray:
    p = a + t * special.expit(beta @ x.T)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.sum(special.xlogy(yes, p) + special.xlogy(no, 1 - p), axis=1)
    return np.where(np.isfinite(value), value, -np.inf)


def _information(x, weight) -> np.ndarray:
    return np.einsum("rp,pk,pl->rkl", weight, x, x)


def fit_batch(x, yes, no, t, a, max_steps: int = 100, tolerance: float = 1e-10) -> BatchedFits:
    """Fit every row of ``yes`` / ``no`` (surveys x patterns) on the patterns ``x`` (patterns x columns, the
    intercept included) with per-pattern designs ``t``, ``a``. Fails if a survey's search does not settle."""
    surveys = yes.shape[0]
    beta = np.zeros((surveys, x.shape[1]))
    value = _log_likelihood(x, yes, no, t, a, beta)
    for _ in range(max_steps):
        _, score_terms, observed_weight, expected_weight = _terms(x, yes, no, t, a, beta)
        score = score_terms @ x
        observed = _information(x, observed_weight)
        newton = np.linalg.eigvalsh(observed)[:, 0] > 0
        information = np.where(newton[:, None, None], observed, _information(x, expected_weight))
        step = np.linalg.solve(information, score[..., None])[..., 0]
        candidate = beta + step
        candidate_value = _log_likelihood(x, yes, no, t, a, candidate)
        for _ in range(60):
            falls = candidate_value < value - 1e-12 * np.abs(value)
            if not falls.any():
                break
            step[falls] /= 2
            candidate[falls] = beta[falls] + step[falls]
            candidate_value[falls] = _log_likelihood(x, yes[falls], no[falls], t, a, candidate[falls])
        beta, value = candidate, candidate_value
        if np.all(np.max(np.abs(step), axis=1) < tolerance * (1 + np.max(np.abs(beta), axis=1))):
            break
    else:
        raise AssertionError(f"the batched fit did not settle in {max_steps} steps")
    _, _, observed_weight, _ = _terms(x, yes, no, t, a, beta)
    covariance = np.linalg.inv(_information(x, observed_weight))
    return BatchedFits(beta, np.sqrt(np.diagonal(covariance, axis1=1, axis2=2)), value)


def likelihood_ratio_p_values(x, yes, no, t, a, full: BatchedFits, drop: list[int]) -> np.ndarray:
    """The p-value of each survey's likelihood-ratio test that the ``drop`` columns' coefficients are 0."""
    keep = [column for column in range(x.shape[1]) if column not in drop]
    reduced = fit_batch(x[:, keep], yes, no, t, a)
    statistic = np.maximum(2 * (full.log_likelihood - reduced.log_likelihood), 0.0)
    return stats.chi2.sf(statistic, len(drop))
