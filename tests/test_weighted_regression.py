"""Weighted pseudo-maximum likelihood with a sandwich covariance (analysis/weighted_regression.py).

Three layers: the truthful design against statsmodels' GLM on the answers one by one (a reference no one here
wrote), the formulas of the module's Notes against numerical derivatives, and a seeded simulation with real
randomization (two coins) and unequal weights.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import statsmodels.api as sm
from numpy.testing import assert_allclose
from scipy import special, stats

from analysis import NotIdentified, fit_logistic
from analysis.regression import PatternData, _log_likelihood
from analysis.weighted_regression import SANDWICH, fit_weighted_logistic

DIRECT = (1, 0, 0)
TWO_COINS = (0.5, 0.25, 0.25)

# Two binary predictors and six patterns (two repeated with other weights: two cells of a margin).
X = np.array([[0, 0], [1, 0], [0, 1], [1, 1], [0, 0], [1, 1]], dtype=float)
YES = np.array([40, 50, 30, 60, 20, 25])
NO = np.array([60, 35, 45, 25, 30, 15])
WEIGHTS = np.array([1.0, 1.0, 2.5, 2.5, 4.0, 0.7])


def _answers(x, yes, no, weights):
    """One row per answer: the predictors with the constant, the stored answer and its pattern's weight."""
    rows, answers, row_weights = [], [], []
    for k in range(len(x)):
        for value, count in ((1, yes[k]), (0, no[k])):
            rows += [x[k]] * int(count)
            answers += [value] * int(count)
            row_weights += [weights[k]] * int(count)
    return sm.add_constant(np.array(rows)), np.array(answers), np.array(row_weights)


def test_the_truthful_design_equals_statsmodels_glm_with_var_weights_and_hc0():
    """With t = 1 (no randomization) the likelihood is the plain logistic one, so the weighted fit is statsmodels'
    ``GLM(Binomial(), var_weights=w).fit(cov_type="HC0")`` on the answers one by one.

    Why ``var_weights`` and not ``freq_weights``: both multiply each answer's log-likelihood term by its weight,
    so the coefficients are the same, but ``freq_weights`` says each row stands for ``w`` independent identical
    answers, and its HC0 meat is ``sum w_i u_i u_i'`` (what the expanded rows would give), while a survey weight
    stands for ``w`` people of whom one answered: the meat is ``sum (w_i u_i)(w_i u_i)'`` (Binder 1983), which is
    what ``var_weights`` with HC0 computes (statsmodels' score observations are ``w_i u_i``). The test shows the
    two differ here, so it can tell them apart."""
    fit = fit_weighted_logistic(X, YES, NO, DIRECT, WEIGHTS, names=("a", "b"))
    rows, answers, row_weights = _answers(X, YES, NO, WEIGHTS)
    glm = sm.GLM(answers, rows, family=sm.families.Binomial(), var_weights=row_weights).fit(cov_type="HC0")
    assert_allclose([c.estimate for c in fit.coefficients], glm.params, rtol=1e-8)
    assert_allclose([c.std_err for c in fit.coefficients], glm.bse, rtol=1e-7)
    assert_allclose(np.array(fit.covariance), glm.cov_params(), rtol=1e-7, atol=1e-12)
    assert_allclose([c.p_value for c in fit.coefficients], glm.pvalues, rtol=1e-6)
    frequency = sm.GLM(answers, rows, family=sm.families.Binomial(), freq_weights=row_weights).fit(cov_type="HC0")
    assert_allclose(frequency.params, glm.params, rtol=1e-8)
    assert np.all(np.abs(frequency.bse / glm.bse - 1) > 0.1)  # another estimator: refused as the reference
    wald = glm.wald_test(np.eye(3)[1:], scalar=True)
    assert_allclose(fit.model_test.statistic, wald.statistic, rtol=1e-7)
    assert fit.model_test.df == 2 and fit.covariance_method == SANDWICH
    assert fit.n == YES.sum() + NO.sum() and fit.weighted_n == pytest.approx(row_weights.sum())


def test_equal_weights_give_the_unweighted_coefficients_with_hc0_errors_under_randomization():
    """Weights all equal: the coefficients of :func:`fit_logistic` (two coins), the bread its covariance."""
    fit = fit_weighted_logistic(X, YES, NO, TWO_COINS, np.full(6, 3.0))
    plain = fit_logistic(X, YES, NO, TWO_COINS)
    assert_allclose([c.estimate for c in fit.coefficients], [c.estimate for c in plain.coefficients], rtol=1e-7)
    # HC0 differs from the model-based error by the misfit only: within 20% on these counts, never equal.
    ratio = np.array([c.std_err for c in fit.coefficients]) / [c.std_err for c in plain.coefficients]
    assert np.all(np.abs(ratio - 1) < 0.2) and not np.allclose(ratio, 1, rtol=1e-6)


@pytest.mark.parametrize("factor", [12_345.0, 1e250, 1e-250])
def test_the_fit_does_not_depend_on_the_weights_scale(factor):
    """Any common scale, however far from 1 (the weights are rescaled to average 1 per answer first: weights of
    1e250 or 1e-250 times their size would otherwise overflow or underflow the weighted counts)."""
    one = fit_weighted_logistic(X, YES, NO, TWO_COINS, WEIGHTS)
    other = fit_weighted_logistic(X, YES, NO, TWO_COINS, WEIGHTS * factor)
    assert_allclose(np.array(other.covariance), np.array(one.covariance), rtol=1e-8)
    assert_allclose([c.estimate for c in other.coefficients], [c.estimate for c in one.coefficients], rtol=1e-9)
    assert other.weighted_n == pytest.approx(one.weighted_n * factor)


def test_the_sandwich_is_built_from_numerical_derivatives_of_the_pseudo_likelihood():
    """Under two coins: the bread is minus the inverse of the finite-difference Hessian of ``l_w``, the meat the sum
    over answers of ``w^2 u u'`` with each answer's score ``u`` a finite-difference gradient of its own term."""
    fit = fit_weighted_logistic(X, YES, NO, TWO_COINS, WEIGHTS)
    beta = np.array([c.estimate for c in fit.coefficients])
    full = np.column_stack([np.ones(6), X])
    scale = (YES + NO).sum() / float(WEIGHTS @ (YES + NO))
    w = WEIGHTS * scale
    t, a = np.full(6, 0.5), np.full(6, 0.25)

    def pseudo(b):
        return _log_likelihood(PatternData(full, w * YES, w * NO, t, a), b)

    step, eye = 1e-4, np.eye(3)
    hessian = np.array(
        [
            [
                (pseudo(beta + step * (eye[i] + eye[j])) - pseudo(beta + step * (eye[i] - eye[j]))
                 - pseudo(beta - step * (eye[i] - eye[j])) + pseudo(beta - step * (eye[i] + eye[j]))) / (4 * step**2)
                for j in range(3)
            ]
            for i in range(3)
        ]
    )  # fmt: skip
    meat = np.zeros((3, 3))
    for k in range(6):
        for stored, count in ((1, YES[k]), (0, NO[k])):

            def term(b, k=k, stored=stored):
                p = 0.25 + 0.5 * special.expit(full[k] @ b)
                return np.log(p if stored else 1 - p)

            u = np.array([(term(beta + step * e) - term(beta - step * e)) / (2 * step) for e in eye])
            meat += count * w[k] ** 2 * np.outer(u, u)
    bread = np.linalg.inv(-hessian)
    assert_allclose(np.array(fit.covariance), bread @ meat @ bread, rtol=1e-5)


# --------------------------------------------------------------------------
# A seeded simulation: the weighted fit recovers the population coefficient, the unweighted one does not.

# Population: stratum s (share 0.8, 0.2), x | s, and the true answer z | x, s on the logit scale; the model is
# z ~ x (s left out, as a model with the outcome's predictors only leaves out the sampling variable).
STRATUM_SHARE = np.array([0.8, 0.2])
X_GIVEN_S = np.array([0.3, 0.6])
LOGIT = (-1.5, 0.8, 1.2)  # intercept, x, s
PER_STRATUM = 1000  # equal allocation: the stratum s = 1 sampled 2.5 times its share
REPLICATES = 1000
SEED = 20261127


def _truth(x: int, s: int) -> float:
    return float(special.expit(LOGIT[0] + LOGIT[1] * x + LOGIT[2] * s))


def _population_coefficients() -> np.ndarray:
    """The census logistic regression of z on x: with x binary it is saturated, logit P(z | x) per level."""
    rates = []
    for x in (0, 1):
        joint = [STRATUM_SHARE[s] * (X_GIVEN_S[s] if x else 1 - X_GIVEN_S[s]) for s in (0, 1)]
        rates.append(sum(j * _truth(x, s) for j, s in zip(joint, (0, 1))) / sum(joint))
    logits = special.logit(rates)
    return np.array([logits[0], logits[1] - logits[0]])


def _sample(rng) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One stratified sample's pattern counts (x, s), answers stored under two coins: one multinomial draw per
    stratum over (x, stored answer), which is the distribution of the counts of respondents drawn one by one."""
    x, yes, no, weights = [], [], [], []
    for s in (0, 1):
        cells = []
        for level in (0, 1):
            share = X_GIVEN_S[s] if level else 1 - X_GIVEN_S[s]
            stored_yes = 0.25 + 0.5 * _truth(level, s)
            cells += [share * stored_yes, share * (1 - stored_yes)]
        counts = rng.multinomial(PER_STRATUM, cells)
        for level in (0, 1):
            x.append([level])
            yes.append(counts[2 * level])
            no.append(counts[2 * level + 1])
            weights.append(STRATUM_SHARE[s] / PER_STRATUM)  # N_s / n_s up to the population's size
    return np.array(x, float), np.array(yes), np.array(no), np.array(weights)


def test_the_weighted_fit_is_unbiased_and_its_sandwich_intervals_cover_where_the_unweighted_fit_is_biased():
    """1,000 stratified samples of 2 x 1,000 answers under two coins, weights 0.8/1000 and 0.2/1000.

    Tolerances from the simulation's own error: the mean slope within 4 Monte Carlo standard errors
    (``sd / sqrt(R)``) of the population's; the 95% sandwich interval's coverage within 4 binomial standard errors
    ``sqrt(0.95 * 0.05 / R)`` (0.028) of 0.95; the mean sandwich SE within 4 standard errors of a sample SD
    (relative ``1 / sqrt(2 (R - 1))``, 0.09) of the slopes' SD. The unweighted fit's mean slope is more than 10
    Monte Carlo standard errors from the population's: the bias the weights remove."""
    rng = np.random.default_rng(SEED)
    target = _population_coefficients()
    weighted, unweighted, std_errs, covered = [], [], [], 0
    for _ in range(REPLICATES):
        x, yes, no, weights = _sample(rng)
        fit = fit_weighted_logistic(x, yes, no, TWO_COINS, weights).coefficients[1]
        weighted.append(fit.estimate)
        std_errs.append(fit.std_err)
        covered += fit.low <= target[1] <= fit.high
        unweighted.append(fit_logistic(x, yes, no, TWO_COINS).coefficients[1].estimate)
    weighted, unweighted = np.array(weighted), np.array(unweighted)
    mc_se = weighted.std(ddof=1) / np.sqrt(REPLICATES)
    assert abs(weighted.mean() - target[1]) < 4 * mc_se
    assert abs(unweighted.mean() - target[1]) > 10 * unweighted.std(ddof=1) / np.sqrt(REPLICATES)
    assert abs(covered / REPLICATES - 0.95) < 4 * np.sqrt(0.95 * 0.05 / REPLICATES)
    assert abs(np.mean(std_errs) / weighted.std(ddof=1) - 1) < 4 / np.sqrt(2 * (REPLICATES - 1))


# --------------------------------------------------------------------------
# Arguments and edges.


def test_patterns_of_weight_zero_are_left_out():
    kept = fit_weighted_logistic(X[:4], YES[:4], NO[:4], TWO_COINS, WEIGHTS[:4])
    zero = fit_weighted_logistic(X, YES, NO, TWO_COINS, np.array([*WEIGHTS[:4], 0.0, 0.0]))
    assert_allclose(np.array(zero.covariance), np.array(kept.covariance), rtol=1e-9)
    assert zero.n == kept.n


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        (np.ones(5), "weights must be 6"),
        (np.array([1, 1, 1, 1, 1, -1.0]), "weights must be 6"),
        (np.array([1, 1, 1, 1, 1, np.nan]), "weights must be 6"),
        ("heavy", "weights must be 6"),
        (np.zeros(6), "no pattern has both answers and a positive weight"),
    ],
)
def test_bad_weights_are_refused_naming_them(weights, message):
    with pytest.raises(ValueError, match=message):
        fit_weighted_logistic(X, YES, NO, TWO_COINS, weights)


def test_weights_that_are_not_numbers_are_refused_with_the_whole_message():
    """A string is not a number (not an array of the wrong shape); a missing weight is not a finite number."""
    with pytest.raises(ValueError, match=r"^weights must be 6 numbers, got weights='heavy'$"):
        fit_weighted_logistic(X, YES, NO, TWO_COINS, "heavy")
    missing = r"^weights must be 6 finite numbers >= 0 \(one per pattern\), got weights=\[1, None, 1, 1, 1, 1\]$"
    with pytest.raises(ValueError, match=missing):
        fit_weighted_logistic(X, YES, NO, TWO_COINS, [1, None, 1, 1, 1, 1])


def test_a_weighted_pattern_outside_the_design_is_not_identified():
    with pytest.raises(NotIdentified):
        fit_weighted_logistic([[0], [1]], [1, 30], [99, 70], TWO_COINS, [1.0, 2.0])


def test_the_result_is_frozen_and_names_its_coefficients():
    fit = fit_weighted_logistic(X, YES, NO, TWO_COINS, WEIGHTS, names=("a", "b"), confidence_level=0.9)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fit.n = 1  # type: ignore[misc]
    c = fit.coefficient("b")
    z = stats.norm.ppf(0.95)
    assert_allclose((c.low, c.high), (c.estimate - z * c.std_err, c.estimate + z * c.std_err))
    with pytest.raises(KeyError, match="'c'"):
        fit.coefficient("c")


def test_dependent_columns_over_the_weighted_patterns_are_refused_naming_them():
    """The second column equals the first over the patterns with a positive weight (the last pattern differs, but
    its weight is 0): the rank check reads only the weighted patterns."""
    x = np.column_stack([X[:, 0], np.append(X[:-1, 0], 0.0)])
    message = (
        r"^the columns \('intercept', 'a', 'b'\) are linearly dependent over the 5 weighted patterns: "
        r"drop a column or a level \(each categorical predictor needs a reference level\)$"
    )
    with pytest.raises(ValueError, match=message):
        fit_weighted_logistic(x, YES, NO, TWO_COINS, np.append(WEIGHTS[:-1], 0.0), names=("a", "b"))


def test_the_model_test_names_its_columns_and_its_p_value_is_the_chi_square_tail():
    fit = fit_weighted_logistic(X, YES, NO, DIRECT, WEIGHTS, names=("a", "b"), confidence_level=0.9)
    test = fit.model_test
    assert (test.name, test.columns, test.df) == ("model", ("a", "b"), 2)
    assert test.p_value == pytest.approx(stats.chi2.sf(test.statistic, 2), rel=1e-12)
    assert fit.names == ("intercept", "a", "b") and fit.confidence_level == 0.9
    intercept_only = fit_weighted_logistic(np.zeros((6, 0)), YES, NO, DIRECT, WEIGHTS)
    assert (intercept_only.model_test.columns, intercept_only.model_test.df) == ((), 0)
    assert (intercept_only.model_test.statistic, intercept_only.model_test.p_value) == (0.0, 1.0)


def test_integer_weights_and_a_pattern_of_one_answer_are_fitted_as_floats_are():
    yes, no = YES.copy(), NO.copy()
    yes[4], no[4] = 1, 0  # one answer in the fifth pattern
    as_floats = fit_weighted_logistic(X, yes, no, TWO_COINS, [1.0, 2.0, 1.0, 3.0, 1.0, 2.0])
    as_integers = fit_weighted_logistic(X, yes, no, TWO_COINS, [1, 2, 1, 3, 1, 2])
    assert_allclose([c.estimate for c in as_integers.coefficients], [c.estimate for c in as_floats.coefficients])
    assert as_floats.n == yes.sum() + no.sum()
    dropped = fit_weighted_logistic(
        X[[0, 1, 2, 3, 5]], yes[[0, 1, 2, 3, 5]], no[[0, 1, 2, 3, 5]], TWO_COINS, [1, 2, 1, 3, 2]
    )
    assert as_floats.n == dropped.n + 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"confidence_level": 1.5}, r"^confidence_level\b"),
        ({"yes_counts": [1, 2]}, r"^yes_counts\b"),
        ({"no_counts": [-1, 2, 3, 4, 5, 6]}, r"^no_counts\b"),
        ({"yes_counts": [0] * 6, "no_counts": [0] * 6}, "^no pattern has both answers and a positive weight$"),
    ],
)
def test_each_bad_argument_is_refused_by_its_name(kwargs, message):
    arguments = {"x": X, "yes_counts": YES, "no_counts": NO, "designs": DIRECT, "weights": WEIGHTS, **kwargs}
    with pytest.raises(ValueError, match=message):
        fit_weighted_logistic(**arguments)
