"""Weighted (pseudo-) maximum likelihood for the logistic model of a randomized answer, with a sandwich covariance.

The model is :mod:`analysis.regression`'s: the true answer ``z`` follows
``P(z = 1 | x) = expit(x' beta)`` and the stored answer is yes with
probability ``p(x) = a + t expit(x' beta)`` under the pattern's
forced-response design. Here each pattern ``k`` also carries a weight
``w_k`` (a post-stratification weight ``N_h / n_h`` of its cell, a raked cell
weight, or a design weight ``1 / pi``), the same for every answer of the
pattern, and the coefficients are those of the *population*: the ones a fit
to every member of the population would give.

Notes
-----
With ``y_k`` stored yeses out of ``N_k`` answers in pattern ``k``, the
pseudo-log-likelihood is

    l_w(beta) = sum_k w_k [y_k log p_k + (N_k - y_k) log(1 - p_k)]

(Binder 1983; Skinner, Holt and Smith 1989, ch. 3): :func:`fit_logistic`'s
likelihood with the counts ``w_k y_k`` and ``w_k (N_k - y_k)``, so it is
maximized by the same EM and Newton steps. Its maximum solves the weighted
score equations ``sum_i w_i u_i(beta) = 0``, the estimator of the census
score equations, so it is consistent for the population coefficients even
when the sample over-represents some cells and the model leaves out what
the sampling depends on (where the unweighted fit is not).

The weights are not counts: ``-d^2 l_w`` is not an information, and its
inverse is not the estimator's variance. The sandwich (linearisation,
Huber-White) covariance is

    V = A^-1 B A^-1,   A = -d^2 l_w / d beta d beta',
    B = sum_i w_i^2 u_i u_i' = sum_k w_k^2 [y_k (h_k / p_k)^2 + (N_k - y_k) (h_k / (1 - p_k))^2] x_k x_k'

with ``u_i`` one answer's score (``h = t g (1 - g)``, ``g = expit(x' beta)``:
``h / p x`` for a stored yes, ``-h / (1 - p) x`` for a stored no), summed per
pattern since every answer of a pattern has one of two scores. ``B`` is
HC0's meat (White 1980), what statsmodels' ``GLM(..., var_weights=w)`` with
``cov_type="HC0"`` computes on the answers one by one; R's ``svyglm`` on a
one-stage design with weights and no strata or clusters multiplies it by
``n / (n - 1)``. The weights are taken as fixed: the variance that
calibrating them to known totals removes (post-stratification, raking:
Lumley 2010, section 7.4) is not subtracted, which leaves the interval a
little wider than it needs to be, never narrower on that account.

Wald intervals ``beta_j +- z sqrt(V_jj)``, and a Wald test of all the
predictors ``beta_d' V_dd^-1 beta_d`` (chi-squared with as many degrees of
freedom), as ``survey::regTermTest`` does by default; no likelihood-ratio
test (under weights its statistic is not chi-squared: Rao and Scott 1984).
The fit is invariant to a common scale of the weights (they are rescaled to
average 1 per answer before fitting).

References
----------
Binder, D. A. (1983). On the variances of asymptotically normal estimators
from complex surveys. International Statistical Review 51(3), 279-292.
Skinner, C. J., Holt, D. and Smith, T. M. F. (1989). Analysis of Complex
Surveys. Wiley.
Lumley, T. (2010). Complex Surveys: A Guide to Analysis Using R. Wiley
(R package survey, ``svyglm``).
White, H. (1980). A heteroskedasticity-consistent covariance matrix
estimator and a direct test for heteroskedasticity. Econometrica 48(4),
817-838.
Rao, J. N. K. and Scott, A. J. (1984). On chi-squared tests for multiway
contingency tables with cell proportions estimated from survey data.
Annals of Statistics 12(1), 46-60.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from analysis._checks import check_unit_open
from analysis.regression import (
    MAX_ETA,
    Coefficient,
    PatternData,
    check_count_vector,
    check_identified,
    check_matrix,
    coefficient_names,
    designs_per_pattern,
    em_step,
    maximize_likelihood,
    pattern_probabilities,
    wald_coefficient,
)

#: EM steps before the Newton steps (:func:`analysis.regression.fit_logistic` takes 20): Newton, halved until the
#: pseudo-likelihood rises, converges from there as well, and each EM step costs as much as a Newton step.
EM_START_STEPS = 5

#: The covariance's name, as the exports print it.
SANDWICH = "sandwich (HC0, weights fixed)"


@dataclass(frozen=True)
class WaldTest:
    """``statistic = beta_d' V_dd^-1 beta_d`` over the ``columns`` ``d``, chi-squared with ``df`` under the null."""

    name: str
    columns: tuple[str, ...]
    statistic: float
    df: int
    p_value: float


@dataclass(frozen=True)
class WeightedLogisticFit:
    """Pseudo-maximum-likelihood fit of :func:`fit_weighted_logistic`.

    Attributes
    ----------
    names : tuple of str
        Column names, :data:`~analysis.regression.INTERCEPT` first.
    coefficients : tuple of Coefficient
        In the order of ``names``; ``std_err`` is the sandwich one (``z``, ``p_value``, the interval and the
        odds ratio's from it).
    covariance : tuple of tuple of float
        The sandwich covariance ``A^-1 B A^-1``.
    model_test : WaldTest
        All predictors against none, on the sandwich covariance.
    n : int
        Answers with a weight.
    weighted_n : float
        ``sum_k w_k N_k`` with the weights as given (the population the weights stand for).
    covariance_method : str
        :data:`SANDWICH`.
    confidence_level : float
    """

    names: tuple[str, ...]
    coefficients: tuple[Coefficient, ...]
    covariance: tuple[tuple[float, ...], ...]
    model_test: WaldTest
    n: int
    weighted_n: float
    covariance_method: str
    confidence_level: float

    def coefficient(self, name: str) -> Coefficient:
        """The coefficient named ``name``; ``KeyError`` naming it if there is none."""
        for coefficient in self.coefficients:
            if coefficient.name == name:
                return coefficient
        raise KeyError(f"no coefficient named {name!r}; the names are {self.names}")


def _check_weights(weights: object, patterns: int) -> np.ndarray:
    """A float array of ``patterns`` finite weights ``>= 0``, or ``ValueError`` naming them."""
    try:
        array = np.asarray(weights, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"weights must be {patterns} numbers, got weights={weights!r}") from None
    if array.shape != (patterns,) or not np.all(np.isfinite(array)) or np.any(array < 0):
        raise ValueError(f"weights must be {patterns} finite numbers >= 0 (one per pattern), got weights={weights!r}")
    return array


def sandwich_covariance(data: PatternData, weights: np.ndarray, beta: np.ndarray, bread: np.ndarray) -> np.ndarray:
    """``A^-1 B A^-1`` (module Notes): ``bread`` is ``A^-1``, ``data`` the *unweighted* counts per pattern."""
    g, p = pattern_probabilities(data, beta)
    h = data.t * g * (1 - g)
    meat_weight = weights**2 * h**2 * (data.yes / p**2 + data.no / (1 - p) ** 2)
    meat = data.x.T @ (meat_weight[:, None] * data.x)
    return bread @ meat @ bread


def _em_start(data: PatternData) -> np.ndarray:
    """:data:`EM_START_STEPS` EM steps from 0 (fewer if a linear predictor passes the limit of a finite maximum)."""
    beta = np.zeros(data.x.shape[1])
    for _ in range(EM_START_STEPS):
        beta = em_step(data, beta)
        if np.max(np.abs(data.x @ beta)) > MAX_ETA:
            break
    return beta


def _wald_test(beta: np.ndarray, covariance: np.ndarray, columns: Sequence[int], names, label: str) -> WaldTest:
    columns = list(columns)
    b = beta[columns]
    statistic = float(b @ np.linalg.solve(covariance[np.ix_(columns, columns)], b)) if columns else 0.0
    df = len(columns)
    p_value = float(special.chdtrc(df, statistic)) if df else 1.0
    return WaldTest(label, tuple(names[index] for index in columns), statistic, df, p_value)


def fit_weighted_logistic(
    x: object,
    yes_counts: object,
    no_counts: object,
    designs: object,
    weights: object,
    names: Sequence[str] | None = None,
    confidence_level: float = 0.95,
) -> WeightedLogisticFit:
    """Fit ``P(stored yes | x) = a + t expit(x' beta)`` by weighted pseudo-maximum likelihood, sandwich SEs.

    Parameters
    ----------
    x, yes_counts, no_counts, designs, names
        As for :func:`analysis.regression.fit_logistic`.
    weights : array_like of float, shape (patterns,)
        Each pattern's weight (``>= 0``), the same for every answer of the pattern: a post-stratification or
        raked cell weight, or a design weight. Patterns of weight 0 are left out. Any common scale.
    confidence_level : float
        Of the Wald intervals.

    Returns
    -------
    WeightedLogisticFit

    Raises
    ------
    ValueError
        Bad arguments (naming them), no answer with a positive weight, or predictor columns linearly
        dependent over the patterns with weighted answers.
    NotIdentified
        The pseudo-likelihood has no finite unique maximum.

    Notes
    -----
    The pseudo-likelihood and the sandwich covariance are in the module's Notes.
    """
    level = check_unit_open(confidence_level, "confidence_level")
    matrix = check_matrix(x)
    patterns = matrix.shape[0]
    yes = check_count_vector(yes_counts, "yes_counts", patterns)
    no = check_count_vector(no_counts, "no_counts", patterns)
    w = _check_weights(weights, patterns)
    t, a = designs_per_pattern(designs, patterns)
    all_names = coefficient_names(names, matrix.shape[1])
    used = (yes + no > 0) & (w > 0)
    if not used.any():
        raise ValueError("no pattern has both answers and a positive weight")
    full_x = np.column_stack([np.ones(patterns), matrix])[used]
    if np.linalg.matrix_rank(full_x.T @ full_x) < full_x.shape[1]:  # the Gram matrix: the same rank, far smaller
        raise ValueError(
            f"the columns {all_names} are linearly dependent over the {int(used.sum())} weighted patterns: "
            "drop a column or a level (each categorical predictor needs a reference level)"
        )
    counts = PatternData(full_x, yes[used], no[used], t[used], a[used])
    answers = counts.yes + counts.no
    scale = answers.sum() / float(w[used] @ answers)  # weights averaging 1 per answer: the same fit
    w_used = w[used] * scale
    weighted = PatternData(full_x, w_used * counts.yes, w_used * counts.no, counts.t, counts.a)
    maximum = maximize_likelihood(weighted, _em_start(weighted))
    bread = check_identified(weighted, maximum, all_names)
    covariance = sandwich_covariance(counts, w_used, maximum.beta, bread)
    z_level = float(stats.norm.ppf(0.5 + level / 2))
    std_errs = np.sqrt(np.diag(covariance))
    return WeightedLogisticFit(
        names=all_names,
        coefficients=tuple(
            wald_coefficient(name, float(b), float(se), z_level)
            for name, b, se in zip(all_names, maximum.beta, std_errs)
        ),
        covariance=tuple(map(tuple, covariance.tolist())),
        model_test=_wald_test(maximum.beta, covariance, range(1, len(all_names)), all_names, "model"),
        n=int(answers.sum()),
        weighted_n=float(w[used] @ answers),
        covariance_method=SANDWICH,
        confidence_level=level,
    )
