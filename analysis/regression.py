"""Logistic regression of a sensitive yes/no answer observed through a randomized-response design.

Each respondent's true answer ``z`` follows a logistic model on predictors
``x``, ``P(z = 1 | x) = expit(x' beta)``, but only the randomized answer
``y`` is stored. Under the forced-response design ``(t, a, b)`` of the
respondent (one design per pattern, so two-group designs and a
direct-question arm with ``t = 1, a = 0`` fit in one model),

    p(x) = P(stored yes | x) = a + t * expit(x' beta)

(theta0 = a, theta1 = t + a in the notation of ``RR-DESIGNS.md``). The data
enter only through the counts of stored yes and no answers per pattern of
predictor values and design, so :func:`fit_logistic` takes those counts and
costs the same at ten thousand responses or ten million;
:func:`fit_logistic_rows` counts rows first.

Notes
-----
Write ``g = expit(eta)``, ``eta = x' beta``, ``h = dp/deta = t g (1 - g)``,
and for a pattern with ``y`` stored yeses out of ``N``:

log-likelihood
    ``l(beta) = sum y log p + (N - y) log(1 - p)``
score
    ``U(beta) = sum h r x``, with ``r = y / p - (N - y) / (1 - p)``
observed information (minus the Hessian)
    ``J(beta) = sum [h^2 (y / p^2 + (N - y) / (1 - p)^2) - h (1 - 2g) r] x x'``
expected information
    ``I(beta) = sum N h^2 / (p (1 - p)) x x'``

With the direct design (``t = 1, a = 0``) ``h = g (1 - g)``, ``J = I`` and
the model is ordinary logistic regression.

Fitting: EM steps treat the true answer as missing (Magder and Hughes 1997,
as in rr's ``rrreg`` and RRreg's ``RRlog``): the E-step weight is
``w = P(z = 1 | y, x)``, ``t_yes g / p`` for a stored yes
(``t_yes = t + a``) and ``(1 - t - a) g / (1 - p)`` for a stored no; the
M-step is a weighted ordinary logistic regression. From the EM values,
Newton steps on the full likelihood (Fisher scoring where the observed
information is not positive definite, each step halved until the
likelihood rises) converge quadratically. Standard errors come from the
observed information at the maximum, Wald tests and intervals from them,
likelihood-ratio tests from refitting without a term's columns (patterns the
remaining columns and designs no longer tell apart merged, their counts
added, which leaves the likelihood unchanged; Newton steps only, from
``beta_k - V_kd V_dd^-1 beta_d``: where the full fit's quadratic
approximation, ``V`` its covariance, puts the maximum with the dropped
coefficients ``d`` at 0, and stopped after a whole Newton step below 1e-5,
which leaves the log-likelihood within order 1e-20 of its maximum). The
expected information is computed only for a step where the observed one is
not positive definite.

A maximum at infinity (a pattern whose stored yes rate is below ``a`` or
above ``t + a``, predictors that separate the outcome) or a flat likelihood
(too few patterns for the coefficients) has no estimate:
:class:`NotIdentified` names the reason instead of returning a number.

References
----------
Magder, L. S. and Hughes, J. P. (1997). Logistic regression when the outcome
is measured with uncertainty. American Journal of Epidemiology 146(2),
195-203.
van den Hout, A., van der Heijden, P. G. M. and Gilchrist, R. (2007). The
logistic regression model with response variables subject to randomized
response. Computational Statistics & Data Analysis 51(12), 6060-6069.
Blair, G., Imai, K. and Zhou, Y.-Y. (2015). Design and analysis of the
randomized response technique. JASA 110(511), 1304-1319 (R package rr,
``rrreg``).
Heck, D. W. and Moshagen, M. (2018). RRreg: an R package for correlation
and regression analyses of randomized response data. Journal of
Statistical Software 85(2), 1-29 (``RRlog``).
Jann, B. (2008). rrlogit: Stata module to estimate logistic regression for
randomized response data. Statistical Software Components S456203.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Real

import numpy as np
from scipy import special, stats

from analysis._checks import check_design, check_unit_open

#: Name of the intercept column that :func:`fit_logistic` adds first.
INTERCEPT = "intercept"

_EM_STEPS = 20
_MAX_NEWTON_STEPS = 100
_STEP_TOLERANCE = 1e-10
#: A likelihood-ratio refit may stop after a whole Newton step this small (relative): its log-likelihood is
#: then within about (1e-5)^4 (relative) of the maximum's.
_REFIT_STEP_TOLERANCE = 1e-5
#: A linear predictor beyond this at an observed pattern claims a prevalence
#: within 1e-11 of 0 or 1: a maximum at infinity, not an estimate.
MAX_ETA = 25.0
#: Smallest eigenvalue of the observed information, relative to the largest,
#: below which the likelihood is flat along some direction.
_MIN_RELATIVE_EIGENVALUE = 1e-12


class NotIdentified(ValueError):
    """The likelihood has no finite, unique maximum; ``reason`` says why in plain words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Coefficient:
    """One coefficient with its Wald test and interval, and the odds ratio ``exp(estimate)``."""

    name: str
    estimate: float
    std_err: float
    z: float
    p_value: float
    low: float
    high: float
    odds_ratio: float
    odds_ratio_low: float
    odds_ratio_high: float


@dataclass(frozen=True)
class LikelihoodRatioTest:
    """``statistic = 2 (l_full - l_reduced)``, chi-squared with ``df`` degrees of freedom under the null.

    ``columns`` are the columns dropped from the full model.
    """

    name: str
    columns: tuple[str, ...]
    statistic: float
    df: int
    p_value: float


@dataclass(frozen=True)
class PredictedPrevalence:
    """``expit(x' beta)`` for one pattern of predictor values ``x`` (intercept included).

    ``std_err`` is the delta-method ``g (1 - g) sqrt(x' V x)``; the interval
    is ``expit(x' beta +- z sqrt(x' V x))``, the delta-method interval on the
    logit scale mapped back, so it stays in ``[0, 1]``.
    """

    x: tuple[float, ...]
    estimate: float
    std_err: float
    low: float
    high: float


@dataclass(frozen=True)
class LogisticFit:
    """Maximum-likelihood fit of :func:`fit_logistic`.

    Attributes
    ----------
    names : tuple of str
        Column names, :data:`INTERCEPT` first.
    coefficients : tuple of Coefficient
        In the order of ``names``.
    covariance : tuple of tuple of float
        Inverse of the observed information at the maximum.
    log_likelihood, null_log_likelihood : float
        At the maximum, and for the intercept-only model.
    model_test : LikelihoodRatioTest
        All predictors against the intercept-only model.
    term_tests : tuple of LikelihoodRatioTest
        One per term (a predictor's columns), dropping its columns.
    prevalences : tuple of PredictedPrevalence
        One per distinct pattern of predictor values, in order of first appearance.
    n : int
        Number of answers.
    iterations : int
        Newton steps taken after the EM steps.
    confidence_level : float
    """

    names: tuple[str, ...]
    coefficients: tuple[Coefficient, ...]
    covariance: tuple[tuple[float, ...], ...]
    log_likelihood: float
    null_log_likelihood: float
    model_test: LikelihoodRatioTest
    term_tests: tuple[LikelihoodRatioTest, ...]
    prevalences: tuple[PredictedPrevalence, ...]
    n: int
    iterations: int
    confidence_level: float

    def coefficient(self, name: str) -> Coefficient:
        """The coefficient named ``name``; ``KeyError`` naming it if there is none."""
        for coefficient in self.coefficients:
            if coefficient.name == name:
                return coefficient
        raise KeyError(f"no coefficient named {name!r}; the names are {self.names}")


# --------------------------------------------------------------------------
# Arguments.


def _as_design(design: object, where: str) -> tuple[float, float]:
    """``(t, a)`` of a forced-response design given as a design object or a ``(t, a, b)`` triple."""
    triple = design.exact() if hasattr(design, "exact") else design
    try:
        t, a, b = triple  # type: ignore[misc]
    except (TypeError, ValueError):
        raise ValueError(f"{where} must be a ForcedResponseDesign or a (t, a, b) triple, got {design!r}") from None
    t, a, _ = check_design(t, a, b)
    return t, a


def _is_one_design(designs: object) -> bool:
    """A design object, or a ``(t, a, b)`` triple of numbers (not a sequence of designs)."""
    if hasattr(designs, "exact"):
        return True
    return isinstance(designs, Sequence) and len(designs) == 3 and all(isinstance(p, (Real, str)) for p in designs)


def designs_per_pattern(designs: object, patterns: int) -> tuple[np.ndarray, np.ndarray]:
    """Arrays ``t, a`` of one design per pattern from one design or a sequence of ``patterns`` designs."""
    if _is_one_design(designs):
        t, a = _as_design(designs, "design")
        return np.full(patterns, t), np.full(patterns, a)
    if not isinstance(designs, Sequence) or len(designs) != patterns:
        raise ValueError(f"designs must be one design or one per pattern ({patterns}), got designs={designs!r}")
    checked: dict[int, tuple[float, float]] = {}  # a design given for many patterns is checked once
    pairs = []
    for index, design in enumerate(designs):
        if id(design) not in checked:
            checked[id(design)] = _as_design(design, f"designs[{index}]")
        pairs.append(checked[id(design)])
    return np.array([t for t, _ in pairs]), np.array([a for _, a in pairs])


def check_matrix(x: object, patterns: int | None = None) -> np.ndarray:
    """A finite 2-d float array of predictor values, one row per pattern (a 1-d array is one column)."""
    try:
        matrix = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"x must be a table of numbers, got x={x!r}") from None
    if matrix.ndim == 1:
        matrix = matrix[:, None]
    if matrix.ndim != 2 or matrix.shape[0] == 0:
        raise ValueError(f"x must have one row per pattern and one column per predictor, got shape {matrix.shape}")
    if not np.all(np.isfinite(matrix)):
        raise ValueError("x must hold finite numbers; it holds NaN or infinity")
    if patterns is not None and matrix.shape[0] != patterns:
        raise ValueError(f"x has {matrix.shape[0]} rows but there are {patterns} patterns")
    return matrix


def check_count_vector(values: object, name: str, patterns: int) -> np.ndarray:
    counts = np.asarray(values)
    if counts.shape != (patterns,) or counts.dtype.kind not in "iu" or np.any(counts < 0):
        raise ValueError(f"{name} must be {patterns} integers >= 0 (one per pattern), got {name}={values!r}")
    return counts.astype(float)


def coefficient_names(names: Sequence[str] | None, columns: int) -> tuple[str, ...]:
    names = tuple(f"x{index + 1}" for index in range(columns)) if names is None else tuple(names)
    if len(names) != columns or len(set(names)) != columns or INTERCEPT in names:
        raise ValueError(
            f"names must be {columns} distinct names other than {INTERCEPT!r}, one per column of x, got names={names!r}"
        )
    return (INTERCEPT, *names)


def _terms(terms: Mapping[str, Sequence[str]] | None, names: tuple[str, ...]) -> dict[str, tuple[int, ...]]:
    """Column indices of each term; by default every predictor column is a term of its own."""
    if terms is None:
        return {name: (index,) for index, name in enumerate(names) if index > 0}
    indices: dict[str, tuple[int, ...]] = {}
    for term, columns in terms.items():
        columns = (columns,) if isinstance(columns, str) else tuple(columns)
        unknown = [column for column in columns if column not in names[1:]]
        if not columns or unknown:
            raise ValueError(f"terms[{term!r}] must name predictor columns of {names[1:]}, got {columns!r}")
        indices[term] = tuple(names.index(column) for column in columns)
    return indices


# --------------------------------------------------------------------------
# The likelihood.


@dataclass(frozen=True)
class PatternData:
    x: np.ndarray  # patterns x columns, intercept first
    yes: np.ndarray
    no: np.ndarray
    t: np.ndarray
    a: np.ndarray


def pattern_probabilities(data: PatternData, beta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    g = special.expit(data.x @ beta)
    return g, data.a + data.t * g


def _log_likelihood(data: PatternData, beta: np.ndarray) -> float:
    _, p = pattern_probabilities(data, beta)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = special.xlogy(data.yes, p) + special.xlogy(data.no, 1 - p)
    total = float(np.sum(terms))
    return total if math.isfinite(total) else -math.inf


def _score_and_information(
    data: PatternData, beta: np.ndarray, expected: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Score, observed and expected information (formulas in the module's Notes); the expected one is None
    unless ``expected`` (a Newton step needs it only where the observed one is not positive definite)."""
    g, p = pattern_probabilities(data, beta)
    h = data.t * g * (1 - g)
    r = data.yes / p - data.no / (1 - p)
    observed_weight = h**2 * (data.yes / p**2 + data.no / (1 - p) ** 2) - h * (1 - 2 * g) * r
    score = data.x.T @ (h * r)
    observed = data.x.T @ (observed_weight[:, None] * data.x)
    return score, observed, _expected_information(data, beta) if expected else None


def _expected_information(data: PatternData, beta: np.ndarray) -> np.ndarray:
    g, p = pattern_probabilities(data, beta)
    weight = (data.yes + data.no) * (data.t * g * (1 - g)) ** 2 / (p * (1 - p))
    return data.x.T @ (weight[:, None] * data.x)


def em_step(data: PatternData, beta: np.ndarray) -> np.ndarray:
    """One EM step: expected true yes counts, then one IRLS step of the weighted logistic regression."""
    g, p = pattern_probabilities(data, beta)
    total = data.yes + data.no
    true_yes = data.yes * (data.t + data.a) * g / p + data.no * (1 - data.t - data.a) * g / (1 - p)
    weight = total * g * (1 - g)
    information = data.x.T @ (weight[:, None] * data.x)
    return beta + np.linalg.solve(information, data.x.T @ (true_yes - total * g))


def _is_positive_definite(matrix: np.ndarray) -> bool:
    if not np.all(np.isfinite(matrix)):  # a probability of exactly 0 or 1 makes 0/0: not an information
        return False
    eigenvalues = np.linalg.eigvalsh(matrix)
    return bool(eigenvalues[0] > _MIN_RELATIVE_EIGENVALUE * max(eigenvalues[-1], 0.0) and eigenvalues[0] > 0)


@dataclass(frozen=True)
class _Maximum:
    beta: np.ndarray
    log_likelihood: float
    converged: bool
    iterations: int


def maximize_likelihood(
    data: PatternData, start: np.ndarray | None = None, settled: float = _STEP_TOLERANCE
) -> _Maximum:
    """EM starting values (or ``start``, a nearby fit's), then Newton steps halved until the likelihood rises.

    Converged after a step below :data:`_STEP_TOLERANCE` (relative), or below ``settled`` if it was a whole
    Newton step on the observed information: from there the search converges quadratically, so a step of
    ``d`` leaves an error of order ``d^2`` in the coefficients and ``d^4`` in the log-likelihood (what a
    likelihood-ratio refit needs, :data:`_REFIT_STEP_TOLERANCE`)."""
    if start is None:
        beta = np.zeros(data.x.shape[1])
        for _ in range(_EM_STEPS):
            beta = em_step(data, beta)
            if np.max(np.abs(data.x @ beta)) > MAX_ETA:
                break
    else:
        beta = np.array(start, dtype=float)
    value = _log_likelihood(data, beta)
    for iteration in range(1, _MAX_NEWTON_STEPS + 1):
        score, observed, _ = _score_and_information(data, beta, expected=False)
        newton = _is_positive_definite(observed)
        information = observed if newton else _expected_information(data, beta)
        try:
            step = np.linalg.solve(information, score)
        except np.linalg.LinAlgError:  # the information vanished: coefficients far out on a flat ridge
            return _Maximum(beta, value, False, iteration)
        whole = newton  # a whole Newton step on the observed information, not halved
        for _ in range(60):
            candidate = beta + step
            candidate_value = _log_likelihood(data, candidate)
            if candidate_value >= value - 1e-12 * abs(value):
                break
            step, whole = step / 2, False
        else:
            return _Maximum(beta, value, False, iteration)
        beta, value = candidate, candidate_value
        tolerance = settled if whole else _STEP_TOLERANCE
        if np.max(np.abs(step)) < max(tolerance, _STEP_TOLERANCE) * (1 + np.max(np.abs(beta))):
            return _Maximum(beta, value, True, iteration)
    return _Maximum(beta, value, False, _MAX_NEWTON_STEPS)


def check_identified(data: PatternData, maximum: _Maximum, names: tuple[str, ...]) -> np.ndarray:
    """The covariance (inverse observed information) at an identified maximum, or :class:`NotIdentified`."""
    eta = data.x @ maximum.beta
    if not maximum.converged or np.max(np.abs(eta)) > MAX_ETA:
        largest = names[int(np.argmax(np.abs(maximum.beta[1:]))) + 1] if len(names) > 1 else INTERCEPT
        raise NotIdentified(
            "the likelihood keeps rising as the coefficients grow without bound (largest: "
            f"{largest!r}): some pattern's stored yes rate lies outside what its design allows "
            "(below a or above t + a), or the predictors separate the answers; merge or drop the sparse levels"
        )
    _, observed, _ = _score_and_information(data, maximum.beta, expected=False)
    if not _is_positive_definite(observed):
        raise NotIdentified("the likelihood is flat in some direction: the data cannot tell the coefficients apart")
    return np.linalg.inv(observed)


# --------------------------------------------------------------------------
# Fits.


def _distinct_rows(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of each distinct row's first appearance (in order) and, per row, the position of its distinct row.

    A stable sort by all columns puts equal rows next to each other, each run led by its first appearance."""
    order = np.lexsort(matrix.T[::-1])
    ordered = matrix[order]
    starts = np.concatenate([[True], np.any(ordered[1:] != ordered[:-1], axis=1)])
    first = order[starts]
    by_appearance = np.argsort(first)
    position = np.empty_like(by_appearance)
    position[by_appearance] = np.arange(len(first))
    merged = np.empty(len(matrix), dtype=np.int64)
    merged[order] = position[np.cumsum(starts) - 1]
    return first[by_appearance], merged


def _reduced(data: PatternData, keep: Sequence[int]) -> PatternData:
    """The data with only the ``keep`` columns, patterns that no longer differ (same row, same design) merged:
    the same likelihood, since merged patterns share their probability and the counts add."""
    x = data.x[:, list(keep)]
    first, merged = _distinct_rows(np.column_stack([x, data.t, data.a]))
    if len(first) == len(x):
        return PatternData(x, data.yes, data.no, data.t, data.a)
    add = functools.partial(np.bincount, merged, minlength=len(first))
    return PatternData(x[first], add(weights=data.yes), add(weights=data.no), data.t[first], data.a[first])


def _reduced_start(beta: np.ndarray, covariance: np.ndarray, keep: list[int], drop: tuple[int, ...]) -> np.ndarray:
    """Where the full fit's quadratic approximation puts the maximum with the ``drop`` coefficients held at 0:
    ``beta_k - V_kd V_dd^-1 beta_d`` (``V`` the covariance), the start of a likelihood-ratio refit."""
    drop = list(drop)
    shift = covariance[np.ix_(keep, drop)] @ np.linalg.solve(covariance[np.ix_(drop, drop)], beta[drop])
    return beta[keep] - shift


def _likelihood_ratio_test(
    data: PatternData, full: _Maximum, covariance: np.ndarray, drop: tuple[int, ...], names, label: str
) -> LikelihoodRatioTest:
    """Refit without the ``drop`` columns (Newton steps only), from :func:`_reduced_start`. A reduced maximum at
    infinity still has a supremum, approached by the fit."""
    keep = [index for index in range(data.x.shape[1]) if index not in drop]
    start = _reduced_start(full.beta, covariance, keep, drop)
    reduced = maximize_likelihood(_reduced(data, keep), start, _REFIT_STEP_TOLERANCE).log_likelihood
    statistic = max(2 * (full.log_likelihood - reduced), 0.0)
    return LikelihoodRatioTest(
        label, tuple(names[index] for index in drop), statistic, len(drop), float(special.chdtrc(len(drop), statistic))
    )


def wald_coefficient(name: str, estimate: float, std_err: float, z_level: float) -> Coefficient:
    """A :class:`Coefficient` from its estimate and standard error: the Wald z, its two-sided p, the interval
    ``estimate +/- z_level std_err`` and the exponentials (odds ratios); :mod:`analysis.predictor_model`'s too."""
    z = estimate / std_err
    low, high = estimate - z_level * std_err, estimate + z_level * std_err
    return Coefficient(
        name,
        estimate,
        std_err,
        z,
        float(2 * special.ndtr(-abs(z))),
        low,
        high,
        math.exp(estimate),
        math.exp(low),
        math.exp(high),
    )


def _prevalences(x: np.ndarray, beta: np.ndarray, covariance: np.ndarray, z_level: float):
    rows = x[_distinct_rows(x)[0]]
    eta = rows @ beta
    eta_se = np.sqrt(np.einsum("ij,ij->i", rows @ covariance, rows))
    g = special.expit(eta)
    return tuple(
        map(
            PredictedPrevalence,
            map(tuple, rows.tolist()),
            g.tolist(),
            (g * (1 - g) * eta_se).tolist(),
            special.expit(eta - z_level * eta_se).tolist(),
            special.expit(eta + z_level * eta_se).tolist(),
        )
    )


def fit_logistic(
    x: object,
    yes_counts: object,
    no_counts: object,
    designs: object,
    names: Sequence[str] | None = None,
    terms: Mapping[str, Sequence[str]] | None = None,
    confidence_level: float = 0.95,
) -> LogisticFit:
    """Fit ``P(stored yes | x) = a + t expit(x' beta)`` by maximum likelihood from counts per pattern.

    Parameters
    ----------
    x : array_like, shape (patterns, predictors)
        Predictor values of each pattern, without the intercept (added as
        the first column, :data:`INTERCEPT`). A categorical predictor is
        coded as indicator columns against its reference level.
    yes_counts, no_counts : array_like of int, shape (patterns,)
        Stored yes and no answers of each pattern.
    designs : ForcedResponseDesign or (t, a, b), or a sequence of them, one per pattern
        The design each pattern's answers were randomized with; a pattern
        is a combination of predictor values *and* design, so a two-group
        design or a direct-question arm (``(1, 0, 0)``) gives each
        combination a row per design.
    names : sequence of str, optional
        Column names (default ``x1, x2, ...``).
    terms : mapping of str to sequence of str, optional
        Predictors as groups of columns, for the likelihood-ratio tests
        (a categorical predictor's indicators form one term). Default:
        every column is a term of its own.
    confidence_level : float
        Of the Wald intervals and the prevalence intervals.

    Returns
    -------
    LogisticFit

    Raises
    ------
    ValueError
        Bad arguments, or predictor columns that are linearly dependent
        over the patterns with answers.
    NotIdentified
        The likelihood has no finite unique maximum (see the module's Notes).

    Notes
    -----
    The likelihood, score and information are in the module docstring; the
    Wald interval is ``beta_j +- z sqrt(V_jj)`` with ``V`` the inverse of
    the observed information, the odds ratio ``exp(beta_j)`` with interval
    ``exp`` of the Wald bounds.
    """
    level = check_unit_open(confidence_level, "confidence_level")
    matrix = check_matrix(x)
    patterns = matrix.shape[0]
    yes = check_count_vector(yes_counts, "yes_counts", patterns)
    no = check_count_vector(no_counts, "no_counts", patterns)
    t, a = designs_per_pattern(designs, patterns)
    all_names = coefficient_names(names, matrix.shape[1])
    term_columns = _terms(terms, all_names)
    answered = yes + no > 0
    full_x = np.column_stack([np.ones(patterns), matrix])[answered]
    if np.linalg.matrix_rank(full_x) < full_x.shape[1]:
        raise ValueError(
            f"the columns {all_names} are linearly dependent over the {int(answered.sum())} patterns with answers: "
            "drop a column or a level (each categorical predictor needs a reference level)"
        )
    data = PatternData(full_x, yes[answered], no[answered], t[answered], a[answered])
    maximum = maximize_likelihood(data)
    covariance = check_identified(data, maximum, all_names)
    z_level = float(stats.norm.ppf(0.5 + level / 2))
    std_errs = np.sqrt(np.diag(covariance))
    coefficients = tuple(
        wald_coefficient(name, float(b), float(se), z_level) for name, b, se in zip(all_names, maximum.beta, std_errs)
    )
    predictors = tuple(range(1, len(all_names)))
    model_test = _likelihood_ratio_test(data, maximum, covariance, predictors, all_names, "model")
    return LogisticFit(
        names=all_names,
        coefficients=coefficients,
        covariance=tuple(tuple(float(v) for v in row) for row in covariance),
        log_likelihood=maximum.log_likelihood,
        null_log_likelihood=maximum.log_likelihood - model_test.statistic / 2,
        model_test=model_test,
        term_tests=tuple(
            _likelihood_ratio_test(data, maximum, covariance, columns, all_names, term)
            for term, columns in term_columns.items()
        ),
        prevalences=_prevalences(full_x, maximum.beta, covariance, z_level),
        n=int(yes.sum() + no.sum()),
        iterations=maximum.iterations,
        confidence_level=level,
    )


def fit_logistic_rows(
    x: object,
    answers: object,
    designs: object,
    names: Sequence[str] | None = None,
    terms: Mapping[str, Sequence[str]] | None = None,
    confidence_level: float = 0.95,
) -> LogisticFit:
    """:func:`fit_logistic` from one row per answer: counts per pattern first.

    ``x`` has one row per answer, ``answers`` holds the stored answers
    (1 yes, 0 no) and ``designs`` is one design for all rows or one per row.
    """
    matrix = check_matrix(x)
    rows = matrix.shape[0]
    stored = np.asarray(answers)
    if stored.shape != (rows,) or not np.all((stored == 0) | (stored == 1)):
        raise ValueError(f"answers must be {rows} values 0 or 1 (one per row of x), got answers={answers!r}")
    t, a = designs_per_pattern(designs, rows)
    keys = np.column_stack([matrix, t, a])
    unique, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    yes = np.bincount(inverse, weights=stored, minlength=len(unique)).astype(np.int64)
    total = np.bincount(inverse, minlength=len(unique)).astype(np.int64)
    pattern_designs = [(ti, ai, 1 - ti - ai) for ti, ai in unique[:, -2:]]
    return fit_logistic(unique[:, :-2], yes, total - yes, pattern_designs, names, terms, confidence_level)
