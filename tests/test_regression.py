"""Logistic regression with a randomized outcome (analysis/regression.py).

Three layers: the direct design against statsmodels' ``Logit`` (a reference
no one here wrote), the formulas of the module's Notes against numerical
derivatives and hand computations, and seeded simulations of three designs.
"""

from __future__ import annotations

import csv
import dataclasses
import math
import os
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import statsmodels.api as sm
from numpy.testing import assert_allclose
from scipy import special, stats

import analysis.regression as regression
from analysis import ForcedResponseDesign, NotIdentified, fit_logistic, fit_logistic_rows
from analysis.regression import (
    PatternData,
    _is_positive_definite,
    _log_likelihood,
    _score_and_information,
    em_step,
    maximize_likelihood,
)
from tests.helpers import batched_logistic

DIRECT = (1, 0, 0)
TWO_COINS = (0.5, 0.25, 0.25)
ASYMMETRIC = (0.7, 0.2, 0.1)
Z95 = stats.norm.ppf(0.975)

# One binary predictor and one three-level predictor (two indicators): six patterns.
PATTERNS = np.array([[0, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 1, 0], [1, 0, 1]], dtype=float)
NAMES = ("female", "age=30-49", "age=50+")
TERMS = {"female": ["female"], "age": ["age=30-49", "age=50+"]}


def _rows(seed: int, n: int, beta: np.ndarray, design: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows with two continuous and one binary predictor, true answers and answers stored under ``design``."""
    rng = np.random.default_rng(seed)
    x = np.column_stack([rng.normal(size=n), rng.integers(0, 2, n), rng.uniform(-1, 1, n)])
    truth = rng.random(n) < special.expit(beta[0] + x @ beta[1:])
    t, a, _ = design
    u = rng.random(n)
    stored = np.where(u < t, truth, u < t + a).astype(int)
    return x, truth.astype(int), stored


# --------------------------------------------------------------------------
# The direct design is ordinary logistic regression.


@pytest.mark.parametrize("seed", [1, 2])
def test_the_direct_design_equals_statsmodels_logit(seed):
    x, truth, _ = _rows(seed, 1500, np.array([-0.4, 0.7, -0.5, 0.3]), DIRECT)
    fit = fit_logistic_rows(x, truth, DIRECT)
    reference = sm.Logit(truth.astype(float), sm.add_constant(x)).fit(disp=0, tol=1e-12, maxiter=100)
    assert_allclose([c.estimate for c in fit.coefficients], reference.params, rtol=0, atol=1e-6)
    assert_allclose([c.std_err for c in fit.coefficients], reference.bse, rtol=0, atol=1e-6)
    assert_allclose([c.z for c in fit.coefficients], reference.tvalues, rtol=0, atol=1e-6)
    assert_allclose([c.p_value for c in fit.coefficients], reference.pvalues, rtol=0, atol=1e-6)
    assert_allclose(fit.covariance, reference.cov_params(), rtol=0, atol=1e-6)
    assert_allclose(fit.log_likelihood, reference.llf, rtol=0, atol=1e-6)
    ci = reference.conf_int(0.05)
    assert_allclose([[c.low, c.high] for c in fit.coefficients], ci, rtol=0, atol=1e-6)
    # The intercept-only maximum is logit(mean): its log-likelihood is n [m log m + (1-m) log(1-m)].
    m = truth.mean()
    null = truth.size * (m * math.log(m) + (1 - m) * math.log(1 - m))
    assert_allclose(fit.null_log_likelihood, null, rtol=0, atol=1e-9)
    assert_allclose(fit.model_test.statistic, 2 * (reference.llf - null), rtol=0, atol=1e-6)
    assert fit.n == truth.size


def test_the_direct_design_term_tests_equal_statsmodels_refits():
    x, truth, _ = _rows(3, 1500, np.array([-0.4, 0.7, -0.5, 0.3]), DIRECT)
    fit = fit_logistic_rows(x, truth, DIRECT, names=("u", "b", "v"), terms={"b": ["b"], "u and v": ["u", "v"]})
    full = sm.Logit(truth.astype(float), sm.add_constant(x)).fit(disp=0, tol=1e-12).llf
    without_b = sm.Logit(truth.astype(float), sm.add_constant(x[:, [0, 2]])).fit(disp=0, tol=1e-12).llf
    without_uv = sm.Logit(truth.astype(float), sm.add_constant(x[:, [1]])).fit(disp=0, tol=1e-12).llf
    b_test, uv_test = fit.term_tests
    assert (b_test.name, b_test.columns, b_test.df) == ("b", ("b",), 1)
    assert (uv_test.name, uv_test.columns, uv_test.df) == ("u and v", ("u", "v"), 2)
    assert_allclose(b_test.statistic, 2 * (full - without_b), atol=1e-6)
    assert_allclose(uv_test.statistic, 2 * (full - without_uv), atol=1e-6)
    assert_allclose(uv_test.p_value, stats.chi2.sf(uv_test.statistic, 2), rtol=1e-12)
    assert_allclose(b_test.p_value, stats.chi2.sf(b_test.statistic, 1), rtol=1e-12)


# --------------------------------------------------------------------------
# A worked example: rr's rrreg on its nigeria data.

#: rr's data is not ours to commit (GPL, and data from public repositories lives only in the team's
#: shared/ folder): the test reads it from there, or from RR_NIGERIA_CSV, and is skipped without it.
NIGERIA = Path(os.environ.get("RR_NIGERIA_CSV", Path(__file__).resolve().parents[2] / "shared" / "rr_nigeria.csv"))


@pytest.mark.skipif(not NIGERIA.exists(), reason=f"rr's nigeria data is not at {NIGERIA} (see the docstring)")
def test_the_rr_package_example_is_reproduced_to_its_printed_digits():
    """rr 1.4.2 (Blair, Zhou and Imai; github.com/SensitiveQuestions/rr), ``?rrreg`` example as rendered in
    docs/reference/rrreg.html: forced response p = 2/3, p1 = p0 = 1/6, rr.q1 on asset index, married,
    age/10, (age/10)^2, education, female; 2423 complete rows of data/nigeria.RData (six columns as CSV:
    rr.q1, cov.asset.index, cov.married, cov.age, cov.education, cov.female; Blair, Imai and Zhou 2015,
    Table 3). Passed on 2026-11-22 with the CSV beside the repository.

    rr prints 5 decimals; its EM stops at a log-likelihood change of 1e-8, so the estimates agree within
    one unit of the fifth decimal. rr's default standard errors are the outer product of the scores
    (rr.R: ``crossprod(score.rr)``), not the observed information this module reports: computed that way
    at our estimates they match the printed ones, and ours (observed information) differ from them by up to 5.2%.
    """
    with NIGERIA.open() as file:
        rows = [row for row in csv.DictReader(file) if "NA" not in row.values()]
    assert len(rows) == 2423
    answers = np.array([int(row["rr.q1"]) for row in rows])
    age = np.array([float(row["cov.age"]) for row in rows]) / 10
    column = {name: np.array([float(row[name]) for row in rows]) for name in rows[0]}
    x = np.column_stack(
        [column["cov.asset.index"], column["cov.married"], age, age**2, column["cov.education"], column["cov.female"]]
    )
    design = (Fraction(2, 3), Fraction(1, 6), Fraction(1, 6))
    fit = fit_logistic_rows(x, answers, design)
    printed = [-0.34017, 0.07896, -0.26743, -0.35283, 0.04099, -0.00691, -0.55439]
    printed_se = [0.50856, 0.04136, 0.25451, 0.26423, 0.02603, 0.04558, 0.16244]
    beta = np.array([c.estimate for c in fit.coefficients])
    assert_allclose(beta, printed, rtol=0, atol=1e-5)
    xs = np.column_stack([np.ones(len(rows)), x])
    g = special.expit(xs @ beta)
    p = 1 / 6 + 2 / 3 * g
    scores = xs * (2 / 3 * g * (1 - g) * (answers / p - (1 - answers) / (1 - p)))[:, None]
    assert_allclose(np.sqrt(np.diag(np.linalg.inv(scores.T @ scores))), printed_se, rtol=0, atol=5e-6)
    assert_allclose([c.std_err for c in fit.coefficients], printed_se, rtol=0.06)


# --------------------------------------------------------------------------
# The formulas.


def _numerical_gradient(function, beta: np.ndarray, step: float = 1e-5) -> np.ndarray:
    eye = np.eye(beta.size) * step
    return np.array([(function(beta + e) - function(beta - e)) / (2 * step) for e in eye])


def _count_data(design: tuple, seed: int = 4) -> PatternData:
    rng = np.random.default_rng(seed)
    t, a, _ = design
    x = np.column_stack([np.ones(6), PATTERNS])
    total = rng.integers(50, 150, 6)
    yes = rng.binomial(total, 0.4)
    return PatternData(x, yes.astype(float), (total - yes).astype(float), np.full(6, float(t)), np.full(6, float(a)))


@pytest.mark.parametrize("design", [TWO_COINS, ASYMMETRIC])
def test_score_and_observed_information_are_the_derivatives_of_the_log_likelihood(design):
    data = _count_data(design)
    beta = np.array([-0.3, 0.4, -0.2, 0.5])
    score, observed, expected = _score_and_information(data, beta)
    assert_allclose(score, _numerical_gradient(lambda b: _log_likelihood(data, b), beta), rtol=1e-6)

    def score_component(j):
        return lambda b: _score_and_information(data, b)[0][j]

    hessian = np.array([_numerical_gradient(score_component(j), beta) for j in range(4)])
    assert_allclose(observed, -hessian, rtol=1e-6)
    # Expected information at the counts' own rates: sum N h^2 / (p (1 - p)) x x' by hand.
    t, a, _ = design
    g = special.expit(data.x @ beta)
    p = a + t * g
    weight = (data.yes + data.no) * (t * g * (1 - g)) ** 2 / (p * (1 - p))
    assert_allclose(expected, (data.x * weight[:, None]).T @ data.x, rtol=1e-12)


def test_the_log_likelihood_is_the_binomial_one_by_hand():
    data = _count_data(ASYMMETRIC)
    beta = np.array([0.1, -0.2, 0.3, 0.0])
    p = 0.2 + 0.7 * special.expit(data.x @ beta)
    assert_allclose(_log_likelihood(data, beta), np.sum(data.yes * np.log(p) + data.no * np.log(1 - p)), rtol=1e-13)


def test_one_em_step_by_hand():
    """Intercept only, two coins, 60 stored yeses of 100, from beta = 0 (g = 1/2, p = 1/4 + 1/2 g = 1/2).
    E-step: a stored yes is a true yes with probability (t + a) g / p = 3/4, a stored no with
    (1 - t - a) g / (1 - p) = 1/4, so 60 * 3/4 + 40 * 1/4 = 55 expected true yeses. M-step (one IRLS
    step): weight N g (1 - g) = 25, step (55 - N g) / 25 = (55 - 50) / 25 = 0.2."""
    data = PatternData(np.ones((1, 1)), np.array([60.0]), np.array([40.0]), np.array([0.5]), np.array([0.25]))
    assert_allclose(em_step(data, np.zeros(1)), [0.2], rtol=1e-14)


def test_the_maximum_is_a_fixed_point_of_the_em_step():
    """At the maximum the observed score is 0, and it equals the complete-data score at the E-step's
    expected true yeses: the EM step leaves the estimate where it is."""
    fit = fit_logistic(PATTERNS, [150, 140, 80, 170, 150, 95], [250, 160, 120, 230, 150, 105], ASYMMETRIC)
    beta = np.array([c.estimate for c in fit.coefficients])
    total = np.array([400, 300, 200, 400, 300, 200], dtype=float)
    yes = np.array([150, 140, 80, 170, 150, 95], dtype=float)
    data = PatternData(np.column_stack([np.ones(6), PATTERNS]), yes, total - yes, np.full(6, 0.7), np.full(6, 0.2))
    assert_allclose(em_step(data, beta), beta, rtol=0, atol=1e-9)
    assert not np.allclose(em_step(data, beta + 0.1), beta + 0.1, rtol=0, atol=1e-3)


@pytest.mark.parametrize(
    ("diagonal", "positive_definite"),
    [
        ([1.0, 1.0], True),
        ([0.5, 0.5], True),  # the smallest eigenvalue below 1 is fine
        ([1e-13, 1e-13], True),  # relative to the largest, not to 1: any positive multiple of I
        ([1e-12, 1.0], False),  # exactly at the 1e-12 ratio: flat
        ([1e-3, 1e10], False),  # ratio 1e-13: flat although both are well above 0
        ([1e-13, 1.0], False),
        ([0.0, 1.0], False),
        ([-1.0, 1.0], False),
    ],
)
def test_positive_definite_means_the_smallest_eigenvalue_is_above_1e_12_of_the_largest(diagonal, positive_definite):
    assert _is_positive_definite(np.diag(diagonal)) is positive_definite


def _two_coin_fit(**options):
    total = np.array([400, 300, 200, 400, 300, 200])
    yes = np.array([150, 140, 80, 170, 150, 95])
    return fit_logistic(PATTERNS, yes, total - yes, TWO_COINS, names=NAMES, terms=TERMS, **options)


def test_the_fit_is_a_maximum_of_the_likelihood_with_covariance_the_inverse_observed_information():
    fit = _two_coin_fit()
    total = np.array([400, 300, 200, 400, 300, 200])
    yes = np.array([150, 140, 80, 170, 150, 95])
    data = PatternData(
        np.column_stack([np.ones(6), PATTERNS]), yes * 1.0, (total - yes) * 1.0, np.full(6, 0.5), np.full(6, 0.25)
    )
    beta = np.array([c.estimate for c in fit.coefficients])
    score, observed, _ = _score_and_information(data, beta)
    assert_allclose(score, 0, atol=1e-8)
    assert_allclose(fit.covariance, np.linalg.inv(observed), rtol=1e-10)
    assert_allclose(fit.log_likelihood, _log_likelihood(data, beta), rtol=1e-14)
    for step in np.eye(4) * 1e-3:
        assert _log_likelihood(data, beta + step) < fit.log_likelihood
        assert _log_likelihood(data, beta - step) < fit.log_likelihood
    assert fit.names == ("intercept", *NAMES)
    assert fit.n == 1800


def test_wald_tests_intervals_and_odds_ratios_by_hand():
    fit = _two_coin_fit(confidence_level=0.9)
    z90 = stats.norm.ppf(0.95)
    for index, c in enumerate(fit.coefficients):
        se = math.sqrt(fit.covariance[index][index])
        assert_allclose(c.std_err, se, rtol=1e-14)
        assert_allclose(c.z, c.estimate / se, rtol=1e-14)
        assert_allclose(c.p_value, 2 * stats.norm.cdf(-abs(c.estimate) / se), rtol=1e-12)
        assert_allclose([c.low, c.high], [c.estimate - z90 * se, c.estimate + z90 * se], rtol=1e-14)
        assert_allclose(
            [c.odds_ratio, c.odds_ratio_low, c.odds_ratio_high], np.exp([c.estimate, c.low, c.high]), rtol=1e-14
        )
    assert fit.confidence_level == 0.9
    assert fit.coefficient("age=50+") is fit.coefficients[3]
    with pytest.raises(KeyError, match="'age=70'"):
        fit.coefficient("age=70")


def test_term_and_model_tests_refit_without_the_columns():
    fit = _two_coin_fit()
    total = np.array([400, 300, 200, 400, 300, 200])
    yes = np.array([150, 140, 80, 170, 150, 95])
    # Without age only "female" remains: its two groups pool their patterns.
    female = fit_logistic(PATTERNS[:, :1], yes, total - yes, TWO_COINS, names=("female",))
    without_female = fit_logistic(PATTERNS[:, 1:], yes, total - yes, TWO_COINS, names=NAMES[1:])
    female_test, age_test = fit.term_tests
    assert (age_test.name, age_test.columns, age_test.df) == ("age", ("age=30-49", "age=50+"), 2)
    assert_allclose(age_test.statistic, 2 * (fit.log_likelihood - female.log_likelihood), rtol=1e-9)
    assert_allclose(age_test.p_value, stats.chi2.sf(age_test.statistic, 2), rtol=1e-12)
    assert (female_test.name, female_test.columns, female_test.df) == ("female", ("female",), 1)
    assert_allclose(female_test.statistic, 2 * (fit.log_likelihood - without_female.log_likelihood), rtol=1e-9)
    # Intercept only: the prevalence is (yes / n - a) / t = (785 / 1800 - 1/4) * 2.
    prevalence = (785 / 1800 - 0.25) / 0.5
    null = 785 * math.log(0.25 + 0.5 * prevalence) + 1015 * math.log(0.75 - 0.5 * prevalence)
    assert_allclose(fit.null_log_likelihood, null, rtol=1e-12)
    assert (fit.model_test.name, fit.model_test.columns, fit.model_test.df) == ("model", NAMES, 3)
    assert_allclose(fit.model_test.statistic, 2 * (fit.log_likelihood - null), rtol=1e-9)
    assert_allclose(fit.model_test.p_value, stats.chi2.sf(fit.model_test.statistic, 3), rtol=1e-12)


def _six_patterns() -> PatternData:
    total = np.array([400.0, 300, 200, 400, 300, 200])
    yes = np.array([150.0, 140, 80, 170, 150, 95])
    return PatternData(np.column_stack([np.ones(6), PATTERNS]), yes, total - yes, np.full(6, 0.5), np.full(6, 0.25))


def test_a_refit_merges_the_patterns_its_columns_no_longer_tell_apart():
    """Without the two age columns the six patterns are two (female or not), each with its three patterns'
    counts added: the same likelihood at any coefficients, from a third of the rows. Patterns under different
    designs stay apart."""
    data = _six_patterns()
    merged = regression._reduced(data, [0, 1])
    assert merged.x.tolist() == [[1.0, 0.0], [1.0, 1.0]]
    assert merged.yes.tolist() == [370, 415] and merged.no.tolist() == [530, 485]
    rng = np.random.default_rng(8)  # test data only
    for beta in rng.normal(0, 0.5, (5, 2)):
        assert_allclose(_log_likelihood(merged, beta), _log_likelihood(regression._reduced(data, [0, 1]), beta))
        unmerged = PatternData(data.x[:, [0, 1]], data.yes, data.no, data.t, data.a)
        assert_allclose(_log_likelihood(merged, beta), _log_likelihood(unmerged, beta), rtol=1e-13)
    two_designs = dataclasses.replace(data, t=np.array([0.5, 0.5, 0.5, 0.7, 0.7, 0.7]))
    assert len(regression._reduced(two_designs, [0, 1]).x) == 2  # female and design agree: still two
    mixed = dataclasses.replace(data, t=np.array([0.5, 0.7, 0.5, 0.7, 0.5, 0.7]))
    assert len(regression._reduced(mixed, [0, 1]).x) == 4


def test_distinct_rows_are_found_in_order_of_first_appearance():
    rng = np.random.default_rng(3)  # test data only
    for _ in range(50):
        matrix = rng.integers(0, 3, size=(rng.integers(1, 40), rng.integers(1, 5))).astype(float)
        matrix[rng.random(matrix.shape) < 0.1] = -0.0  # -0.0 equals 0.0
        seen: dict = {}
        merged = [seen.setdefault(row, len(seen)) for row in map(tuple, (matrix + 0.0).tolist())]
        first = [merged.index(position) for position in range(len(seen))]
        found_first, found_merged = regression._distinct_rows(matrix)
        assert found_first.tolist() == first
        assert found_merged.tolist() == merged


def test_a_refit_starts_nearer_its_maximum_than_the_full_fit_coefficients():
    """The start ``beta_k - V_kd V_dd^-1 beta_d`` (the full fit's quadratic approximation) is closer to the
    reduced maximum than the full fit's own coefficients ``beta_k``, for each term of the six-pattern fit."""
    data = _six_patterns()
    full = maximize_likelihood(data)
    _, observed, _ = _score_and_information(data, full.beta)
    covariance = np.linalg.inv(observed)
    for drop in [(1,), (2, 3), (1, 2, 3)]:
        keep = [index for index in range(4) if index not in drop]
        reduced = maximize_likelihood(regression._reduced(data, keep)).beta
        start = regression._reduced_start(full.beta, covariance, keep, drop)
        assert np.max(np.abs(start - reduced)) < np.max(np.abs(full.beta[keep] - reduced)) / 3


def test_a_refit_stops_a_newton_step_earlier_at_the_same_log_likelihood():
    """After a whole Newton step below _REFIT_STEP_TOLERANCE the refit stops: one step fewer than the full
    fit's tolerance takes here, at a log-likelihood equal to the last digits."""
    data = _six_patterns()
    full = maximize_likelihood(data)
    covariance = np.linalg.inv(_score_and_information(data, full.beta)[1])
    for drop in [(1,), (2, 3), (1, 2, 3)]:
        keep = [index for index in range(4) if index not in drop]
        reduced = regression._reduced(data, keep)
        start = regression._reduced_start(full.beta, covariance, keep, drop)
        strict = maximize_likelihood(reduced, start)
        settled = maximize_likelihood(reduced, start, regression._REFIT_STEP_TOLERANCE)
        assert settled.converged and settled.iterations == strict.iterations - 1
        assert_allclose(settled.log_likelihood, strict.log_likelihood, rtol=1e-15)


def _count_calls(monkeypatch, name: str, results: list) -> None:
    function = getattr(regression, name)

    def counted(*args, **options):
        result = function(*args, **options)
        results.append(result)
        return result

    monkeypatch.setattr(regression, name, counted)


@pytest.mark.parametrize("case", ["two coins, six patterns", "first safeguard case"])
def test_the_expected_information_is_computed_only_for_a_step_that_needs_it(case, monkeypatch):
    """A Newton step computes the expected information only when the observed one is not positive definite
    (once per such verdict), not at every step; the first safeguard case needs it at least once."""
    expected, verdicts, steps = [], [], []
    _count_calls(monkeypatch, "_expected_information", expected)
    _count_calls(monkeypatch, "_is_positive_definite", verdicts)
    _count_calls(monkeypatch, "_score_and_information", steps)
    if case == "first safeguard case":
        design, yes = SAFEGUARD_CASES[0]
        fit_logistic([[0, 0], [1, 0], [0, 1], [1, 1]], yes, [100 - y for y in yes], design)
        assert len(expected) >= 1
    else:
        _two_coin_fit()
    assert len(expected) == verdicts.count(False)
    assert len(expected) < len(steps) / 2


def test_a_saturated_model_gives_each_pattern_its_own_debiased_rate():
    """Two patterns, one indicator: the prevalences are (yes/n - a)/t of each, with the delta-method interval."""
    fit = fit_logistic([[0], [1]], [300, 210], [500, 390], ASYMMETRIC, names=("group",))
    rates = np.array([300 / 800, 210 / 600])
    expected = (rates - 0.2) / 0.7
    assert_allclose([p.estimate for p in fit.prevalences], expected, rtol=1e-9)
    assert [p.x for p in fit.prevalences] == [(1.0, 0.0), (1.0, 1.0)]
    # The one-group standard error: sqrt(lambda (1 - lambda) / n) / t, and the logit-scale interval.
    se = np.sqrt(rates * (1 - rates) / np.array([800, 600])) / 0.7
    assert_allclose([p.std_err for p in fit.prevalences], se, rtol=1e-7)
    eta_se = se / (expected * (1 - expected))
    logit = special.logit(expected)
    assert_allclose([p.low for p in fit.prevalences], special.expit(logit - Z95 * eta_se), rtol=1e-7)
    assert_allclose([p.high for p in fit.prevalences], special.expit(logit + Z95 * eta_se), rtol=1e-7)
    assert_allclose(
        fit.coefficient("group").odds_ratio, expected[1] / (1 - expected[1]) / (expected[0] / (1 - expected[0]))
    )


def test_prevalences_are_one_per_distinct_predictor_pattern_in_order_of_appearance():
    x = [[1], [0], [1], [0]]
    designs = [TWO_COINS, TWO_COINS, ASYMMETRIC, ASYMMETRIC]
    fit = fit_logistic(x, [120, 90, 130, 100], [180, 210, 170, 200], designs)
    assert [p.x for p in fit.prevalences] == [(1.0, 1.0), (1.0, 0.0)]
    # Six distinct patterns over four columns: one prevalence per row (not per distinct column).
    six = _two_coin_fit()
    assert [p.x for p in six.prevalences] == [(1.0, *row) for row in PATTERNS.tolist()]


def test_a_term_without_effect_has_a_likelihood_ratio_statistic_of_zero():
    """Both groups answer yes 150 times of 400: the reduced model fits as well as the full one, so the
    statistic is 0 (not floored at any positive value) and its p-value 1."""
    fit = fit_logistic([[0], [1]], [150, 150], [250, 250], TWO_COINS, names=("group",))
    (test,) = fit.term_tests
    assert test.statistic == pytest.approx(0, abs=1e-12)
    assert test.p_value == pytest.approx(1, abs=1e-6)
    assert fit.model_test.statistic == pytest.approx(0, abs=1e-12)
    assert fit.null_log_likelihood == pytest.approx(fit.log_likelihood, rel=1e-15)


def test_the_fit_from_rows_equals_the_fit_from_their_counts():
    rng = np.random.default_rng(5)
    pattern = rng.integers(0, 6, 3000)
    group = rng.integers(0, 2, 3000)
    stored = rng.integers(0, 2, 3000)
    designs = [TWO_COINS, ASYMMETRIC]
    rows = fit_logistic_rows(PATTERNS[pattern], stored, [designs[g] for g in group], names=NAMES, terms=TERMS)
    x, yes, no, per_pattern = [], [], [], []
    for p in range(6):
        for g in range(2):
            chosen = (pattern == p) & (group == g)
            x.append(PATTERNS[p])
            yes.append(int(stored[chosen].sum()))
            no.append(int((1 - stored[chosen]).sum()))
            per_pattern.append(ForcedResponseDesign(*designs[g]))
    counts = fit_logistic(x, yes, no, per_pattern, names=NAMES, terms=TERMS)
    assert_allclose([c.estimate for c in rows.coefficients], [c.estimate for c in counts.coefficients], rtol=1e-9)
    assert_allclose(rows.covariance, counts.covariance, rtol=1e-8)
    assert_allclose(rows.log_likelihood, counts.log_likelihood, rtol=1e-12)
    assert_allclose([t.statistic for t in rows.term_tests], [t.statistic for t in counts.term_tests], rtol=1e-8)


def test_the_fit_from_rows_carries_the_confidence_level():
    x, _, stored = _rows(6, 800, np.array([-0.4, 0.7, -0.5, 0.3]), ASYMMETRIC)
    rows = fit_logistic_rows(x, stored, ASYMMETRIC, confidence_level=0.8)
    z80 = stats.norm.ppf(0.9)
    assert rows.confidence_level == 0.8
    for c in rows.coefficients:
        assert_allclose([c.low, c.high], [c.estimate - z80 * c.std_err, c.estimate + z80 * c.std_err], rtol=1e-12)


def test_patterns_without_answers_are_left_out():
    fit = _two_coin_fit()
    x = np.vstack([PATTERNS, [[1, 1, 0]]])
    total = np.array([400, 300, 200, 400, 300, 200, 0])
    yes = np.array([150, 140, 80, 170, 150, 95, 0])
    with_empty = fit_logistic(x, yes, total - yes, TWO_COINS, names=NAMES, terms=TERMS)
    assert_allclose([c.estimate for c in with_empty.coefficients], [c.estimate for c in fit.coefficients], rtol=1e-12)


def test_the_result_is_frozen():
    fit = _two_coin_fit()
    with pytest.raises(dataclasses.FrozenInstanceError):
        fit.log_likelihood = 0.0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        fit.coefficients[0].estimate = 0.0  # type: ignore[misc]
    assert isinstance(fit.covariance, tuple) and isinstance(fit.covariance[0], tuple)


# --------------------------------------------------------------------------
# Honest failure.


def test_a_yes_rate_below_the_forced_yes_share_is_not_identified():
    # Group 1: 40 yes of 200 under two coins, below a = 1/4: its prevalence's maximum is 0, beta -> -infinity.
    with pytest.raises(NotIdentified, match="outside what its design allows") as caught:
        fit_logistic([[0], [1]], [100, 40], [100, 160], TWO_COINS, names=("group",))
    assert "'group'" in caught.value.reason
    assert isinstance(caught.value, ValueError)


def test_separation_in_the_direct_design_is_not_identified():
    with pytest.raises(NotIdentified, match="separate the answers"):
        fit_logistic([[0], [1]], [30, 0], [70, 50], DIRECT)


def test_dependent_columns_are_refused_naming_them():
    with pytest.raises(ValueError, match="linearly dependent over the 2 patterns"):
        fit_logistic([[0, 1], [1, 0]], [100, 90], [100, 110], TWO_COINS)
    # Dependent only over the patterns with answers: the third pattern has none.
    with pytest.raises(ValueError, match="linearly dependent over the 2 patterns"):
        fit_logistic([[0, 0], [1, 1], [1, 0]], [100, 90, 0], [100, 110, 0], TWO_COINS)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"x": [[0], [1]], "yes_counts": [1, -1], "no_counts": [1, 1]}, r"yes_counts must be 2 integers >= 0"),
        ({"x": [[0], [1]], "yes_counts": [1.5, 1], "no_counts": [1, 1]}, r"yes_counts must be 2 integers"),
        ({"x": [[0], [1]], "yes_counts": [1, 1], "no_counts": [1, 1, 1]}, r"no_counts must be 2 integers"),
        ({"x": [[0], [np.nan]], "yes_counts": [1, 1], "no_counts": [1, 1]}, r"x must hold finite numbers"),
        ({"x": [[0], [1]], "yes_counts": [1, 1], "no_counts": [1, 1], "designs": (0.5, 0.3, 0.3)}, r"t \+ a \+ b must"),
        (
            {"x": [[0], [1]], "yes_counts": [1, 1], "no_counts": [1, 1], "designs": [TWO_COINS]},
            r"one per pattern \(2\)",
        ),
        ({"x": [[0], [1]], "yes_counts": [1, 1], "no_counts": [1, 1], "designs": [TWO_COINS, (1, 2)]}, r"designs\[1\]"),
        (
            {"x": [[0], [1]], "yes_counts": [1, 1], "no_counts": [1, 1], "names": ("intercept",)},
            r"names must be 1 distinct",
        ),
        ({"x": [[0], [1]], "yes_counts": [1, 1], "no_counts": [1, 1], "terms": {"age": ["x9"]}}, r"terms\['age'\]"),
        ({"x": [[0], [1]], "yes_counts": [1, 1], "no_counts": [1, 1], "confidence_level": 1.0}, r"confidence_level"),
    ],
)
def test_bad_arguments_are_refused_naming_them(arguments, message):
    arguments = {"designs": TWO_COINS, **arguments}
    with pytest.raises(ValueError, match=message):
        fit_logistic(**arguments)


def test_bad_rows_are_refused_naming_them():
    with pytest.raises(ValueError, match=r"answers must be 2 values 0 or 1"):
        fit_logistic_rows([[0], [1]], [1, 2], TWO_COINS)
    with pytest.raises(ValueError, match=r"answers must be 2 values"):
        fit_logistic_rows([[0], [1]], [1, 0, 1], TWO_COINS)


def test_a_predictor_table_is_checked_against_the_number_of_patterns_it_must_have():
    """check_matrix(x, patterns): one row per pattern, whatever the number of columns. Three columns and two
    rows tell rows from columns apart: asked for three patterns the table is refused naming its two rows (not
    its three columns), asked for two it is returned as it is."""
    table = [[0.0, 1.0, 2.0], [1.0, 0.0, 3.0]]
    assert regression.check_matrix(table, patterns=2).tolist() == table
    with pytest.raises(ValueError, match="^" + re.escape("x has 2 rows but there are 3 patterns") + "$"):
        regression.check_matrix(table, patterns=3)


KEEPS_RISING = (
    "the likelihood keeps rising as the coefficients grow without bound (largest: {!r}): some pattern's stored yes "
    "rate lies outside what its design allows (below a or above t + a), or the predictors separate the answers; "
    "merge or drop the sparse levels"
)


def test_the_reason_names_the_predictor_whose_coefficient_runs_away():
    # Direct design: v = 1 only in patterns with no yes at all, so beta_v -> -infinity; u stays finite.
    with pytest.raises(NotIdentified) as caught:
        fit_logistic([[0, 0], [1, 0], [0, 1], [1, 1]], [50, 50, 0, 0], [50, 50, 50, 50], DIRECT, names=("u", "v"))
    assert caught.value.reason == KEEPS_RISING.format("v")
    assert str(caught.value) == caught.value.reason


def test_a_converged_maximum_beyond_the_linear_predictor_limit_is_not_identified():
    """1 yes in 10^12 direct answers: the maximum is finite (logit(1e-12) = -27.6) and Newton converges to it,
    but a prevalence within 1e-11 of 0 is treated as one at infinity."""
    data = PatternData(np.ones((1, 1)), np.array([1.0]), np.array([1e12]), np.array([1.0]), np.array([0.0]))
    maximum = maximize_likelihood(data)
    assert maximum.converged is True
    assert_allclose(maximum.beta, [special.logit(1e-12)], rtol=1e-6)
    with pytest.raises(NotIdentified) as caught:
        fit_logistic(np.zeros((1, 0)), [1], [10**12], DIRECT)
    assert caught.value.reason == KEEPS_RISING.format("intercept")


def test_a_flat_likelihood_is_not_identified_with_its_reason(monkeypatch):
    monkeypatch.setattr(regression, "_is_positive_definite", lambda matrix: False)
    with pytest.raises(NotIdentified) as caught:
        fit_logistic([[0], [1]], [100, 90], [100, 110], TWO_COINS)
    assert (
        caught.value.reason == "the likelihood is flat in some direction: the data cannot tell the coefficients apart"
    )


def test_newton_steps_are_counted_and_capped(monkeypatch):
    """iterations is the number of Newton steps (one score and information each); 30 yeses of 1000 under two
    coins lie below a = 1/4, so the likelihood keeps rising and the search stops after _MAX_NEWTON_STEPS."""
    calls = []

    def counted(*args, **options):
        calls.append(1)
        return _score_and_information(*args, **options)

    monkeypatch.setattr(regression, "_score_and_information", counted)
    six = PatternData(
        np.column_stack([np.ones(6), PATTERNS]),
        np.array([150.0, 140, 80, 170, 150, 95]),
        np.array([250.0, 160, 120, 230, 150, 105]),
        np.full(6, 0.7),
        np.full(6, 0.2),
    )
    converged = maximize_likelihood(six)
    assert converged.converged is True
    assert converged.iterations == len(calls) >= 1
    calls.clear()
    below = PatternData(np.ones((1, 1)), np.array([30.0]), np.array([970.0]), np.array([0.5]), np.array([0.25]))
    capped = maximize_likelihood(below)
    assert capped.converged is False
    assert capped.iterations == len(calls) == regression._MAX_NEWTON_STEPS
    assert capped.log_likelihood == _log_likelihood(below, capped.beta) > -math.inf
    calls.clear()
    fit = fit_logistic(PATTERNS, [150, 140, 80, 170, 150, 95], [250, 160, 120, 230, 150, 105], ASYMMETRIC)
    assert fit.iterations == converged.iterations


#: Two binary predictors, four patterns of 100 answers (no interaction term): data whose Newton search needs
#: its safeguards. The first passes through a point where the observed information is not positive definite
#: (a Newton step there would stop at a false maximum after one step); the other two need a step halved.
SAFEGUARD_CASES = [
    ((0.6, 0.3, 0.1), [62, 37, 37, 87]),
    (TWO_COINS, [61, 30, 29, 46]),
    ((0.7, 0.1, 0.2), [38, 25, 11, 79]),
]


@pytest.mark.parametrize(("design", "yes"), SAFEGUARD_CASES)
def test_newton_falls_back_to_fisher_scoring_and_halves_steps_and_still_converges_fast(design, yes, monkeypatch):
    events = {"newton steps": 0, "likelihoods": 0, "not positive definite": 0}

    def counting(function, key, test=lambda result: True):
        def counted(*args, **options):
            result = function(*args, **options)
            events[key] += bool(test(result))
            return result

        return counted

    monkeypatch.setattr(regression, "_score_and_information", counting(_score_and_information, "newton steps"))
    monkeypatch.setattr(regression, "_log_likelihood", counting(_log_likelihood, "likelihoods"))
    monkeypatch.setattr(
        regression, "_is_positive_definite", counting(_is_positive_definite, "not positive definite", lambda r: not r)
    )
    x = [[0, 0], [1, 0], [0, 1], [1, 1]]
    fit = fit_logistic(x, yes, [100 - y for y in yes], design, terms={})
    monkeypatch.undo()
    data = PatternData(
        np.column_stack([np.ones(4), x]),
        np.array(yes, float),
        100.0 - np.array(yes),
        np.full(4, design[0]),
        np.full(4, design[1]),
    )
    beta = np.array([c.estimate for c in fit.coefficients])
    score, _, _ = _score_and_information(data, beta)
    assert_allclose(score, 0, atol=1e-7)
    # Newton's quadratic convergence: 7-8 steps after the EM start on these data (Fisher scoring throughout
    # takes 17-48; accepting any step that does not halve the log-likelihood takes 10 on the third).
    assert fit.iterations <= 9
    if design == (0.6, 0.3, 0.1):
        assert events["not positive definite"] >= 1
    else:  # a halved step costs a log-likelihood beyond the one per Newton step (and the EM start's)
        assert events["likelihoods"] > events["newton steps"] + 1


def test_the_em_start_stops_once_a_linear_predictor_passes_the_limit(monkeypatch):
    """With the limit at 2, the EM steps on separated data pass it within a few steps: the search goes on from
    there (to the same verdict), not from nothing."""
    monkeypatch.setattr(regression, "MAX_ETA", 2.0)
    with pytest.raises(NotIdentified, match="keeps rising"):
        fit_logistic([[0, 0], [1, 0], [0, 1], [1, 1]], [50, 50, 0, 0], [50, 50, 50, 50], DIRECT, names=("u", "v"))


def _counted_maximum(data: PatternData, monkeypatch) -> tuple:
    calls = []

    def counted(*args, **options):
        calls.append(1)
        return _score_and_information(*args, **options)

    monkeypatch.setattr(regression, "_score_and_information", counted)
    maximum = maximize_likelihood(data)
    monkeypatch.undo()
    return maximum, len(calls)


def test_a_singular_information_ends_the_search_unconverged(monkeypatch):
    # 10 yeses of 10 with t = 0.8, a = 0: above the ceiling a + t, so beta runs off until the information is 0.
    data = PatternData(np.ones((1, 1)), np.array([10.0]), np.array([0.0]), np.array([0.8]), np.array([0.0]))
    maximum, steps = _counted_maximum(data, monkeypatch)
    assert maximum.converged is False
    assert maximum.iterations == steps < regression._MAX_NEWTON_STEPS
    assert maximum.log_likelihood == _log_likelihood(data, maximum.beta) == pytest.approx(10 * math.log(0.8))


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_a_step_that_never_raises_the_likelihood_ends_the_search_unconverged(monkeypatch):
    # 10 yeses of 10 with t = 0.8, a = 0.2 (b = 0): the supremum 0 is reached only at infinity, where p = 1
    # and the score is 0/0; no halving of a step that is not a number raises the likelihood.
    data = PatternData(np.ones((1, 1)), np.array([10.0]), np.array([0.0]), np.array([0.8]), np.array([0.2]))
    maximum, steps = _counted_maximum(data, monkeypatch)
    assert maximum.converged is False
    assert maximum.iterations == steps < regression._MAX_NEWTON_STEPS
    assert maximum.log_likelihood == _log_likelihood(data, maximum.beta) == 0.0


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize(("yes", "no"), [([10, 10, 10, 1], [0, 0, 0, 9]), ([16, 33, 50, 50], [34, 17, 0, 0])])
def test_a_pattern_answering_all_yes_without_forced_noes_is_not_identified(yes, no):
    """b = 0: a pattern with every answer yes has p -> 1, where the observed information is 0/0. That is
    NotIdentified, not numpy's LinAlgError from the eigenvalues of a matrix of NaN (as it was)."""
    with pytest.raises(NotIdentified, match="keeps rising"):
        fit_logistic([[0, 0], [1, 0], [0, 1], [1, 1]], yes, no, (0.8, 0.2, 0))
    assert _is_positive_definite(np.array([[1.0, np.nan], [np.nan, 1.0]])) is False


def test_a_log_likelihood_that_is_not_a_finite_number_is_minus_infinity():
    data = PatternData(np.ones((1, 1)), np.array([3.0]), np.array([2.0]), np.array([1.0]), np.array([0.0]))
    assert _log_likelihood(data, np.array([-1000.0])) == -math.inf  # p = 0 with 3 yeses
    assert _log_likelihood(data, np.array([1000.0])) == -math.inf  # p = 1 with 2 noes
    assert _log_likelihood(data, np.array([np.nan])) == -math.inf


def test_an_intercept_only_model_from_x_without_columns():
    """One pattern, no predictor: the intercept is logit of the debiased rate, (60/100 - 1/4) / (1/2) = 0.7."""
    fit = fit_logistic(np.zeros((1, 0)), [60], [40], TWO_COINS)
    assert fit.names == ("intercept",)
    assert_allclose(fit.coefficients[0].estimate, special.logit(0.7), rtol=1e-12)
    assert fit.term_tests == ()


def test_one_design_object_is_used_for_every_pattern():
    as_object = fit_logistic([[0], [1]], [300, 210], [500, 390], ForcedResponseDesign(0.7, 0.2, 0.1))
    as_triple = fit_logistic([[0], [1]], [300, 210], [500, 390], ASYMMETRIC)
    assert_allclose(as_object.covariance, as_triple.covariance, rtol=1e-12)


def test_default_names_terms_and_predictor_shapes():
    fit = fit_logistic([[0, 0], [1, 0], [0, 1]], [100, 90, 80], [100, 110, 120], TWO_COINS)
    assert fit.names == ("intercept", "x1", "x2")
    assert [(t.name, t.columns) for t in fit.term_tests] == [("x1", ("x1",)), ("x2", ("x2",))]
    # A 1-d x is one column; a term may be given as one column name; exact fractions are numbers.
    one_column = fit_logistic([0, 1], [300, 210], [500, 390], ASYMMETRIC, terms={"g": "x1"})
    table = fit_logistic([[0], [1]], [300, 210], [500, 390], ASYMMETRIC, terms={"g": ["x1"]})
    assert_allclose(one_column.covariance, table.covariance, rtol=1e-12)
    assert [t.columns for t in one_column.term_tests] == [("x1",)]
    halves = fit_logistic([[Fraction(1, 2)], [Fraction(3, 2)], [0]], [30, 50, 20], [70, 50, 80], TWO_COINS)
    floats = fit_logistic([[0.5], [1.5], [0.0]], [30, 50, 20], [70, 50, 80], TWO_COINS)
    assert_allclose(halves.covariance, floats.covariance, rtol=1e-12)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"x": [["a"], ["b"]]}, "x must be a table of numbers, got x=[['a'], ['b']]"),
        ({"x": []}, "x must have one row per pattern and one column per predictor, got shape (0, 1)"),
        ({"x": [[[0]], [[1]]]}, "x must have one row per pattern and one column per predictor, got shape (2, 1, 1)"),
        ({"x": [[0], [np.inf]]}, "x must hold finite numbers; it holds NaN or infinity"),
        ({"names": ("a", "a")}, None),
        ({"designs": (0.5, 0.25)}, "designs[0] must be a ForcedResponseDesign or a (t, a, b) triple, got 0.5"),
        ({"confidence_level": 0}, "confidence_level must be in (0, 1), got confidence_level=0"),
        (
            {"x": [[0, 1], [0, 1]], "names": ("age", "female"), "terms": {"age": ["x1"]}},
            "terms['age'] must name predictor columns of ('age', 'female'), got ('x1',)",
        ),
    ],
)
def test_bad_arguments_get_their_whole_message(arguments, message):
    arguments = {"x": [[0], [1]], "yes_counts": [1, 1], "no_counts": [1, 1], "designs": TWO_COINS, **arguments}
    if message is None:  # two names for two columns, but the same twice
        message = (
            f"names must be 1 distinct names other than 'intercept', one per column of x, got names={('a', 'a')!r}"
        )
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        fit_logistic(**arguments)


def test_dependent_columns_get_their_whole_message():
    message = (
        "the columns ('intercept', 'x1', 'x2') are linearly dependent over the 2 patterns with answers: "
        "drop a column or a level (each categorical predictor needs a reference level)"
    )
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        fit_logistic([[0, 1], [1, 0]], [100, 90], [100, 110], TWO_COINS)


# --------------------------------------------------------------------------
# Seeded simulations.
#
# R = 4000 surveys of n = 3000 answers per design, counts per pattern drawn
# directly (binomial per pattern: the same distribution as counting rows).
# Tolerances from R: a 95% interval's coverage over R surveys has Monte Carlo
# standard error sqrt(0.95 * 0.05 / R) = 0.0034, and the test allows 3 of
# them (0.0103): 94%-96%. The mean estimate's Monte Carlo standard error is
# sd / sqrt(R) with sd the simulated spread; the test allows 4 of them (the
# maximum-likelihood bias is O(1/n), well inside at n = 3000). The
# likelihood-ratio test of the coefficient that is truly 0 rejects at 5%
# within 3 binomial standard errors sqrt(0.05 * 0.95 / R) = 0.0034.
#
# The R surveys are fitted at once (tests/helpers/batched_logistic.py: the
# same likelihood, maximized over an array of surveys), and the first
# CHECKED_SURVEYS of them by fit_logistic too, whose estimates, intervals and
# p-values must be the batched ones: so the simulation's verdict is about
# fit_logistic, at a tenth of a second of a core where 4,000 calls took 10 s.

R = 4000
CHECKED_SURVEYS = 60
TOTAL = np.array([600, 450, 450, 600, 450, 450])  # n = 3000
BETA = np.array([-1.0, 0.8, 0.0, 0.6])  # age=30-49 has no effect: its test keeps its level
TWO_GROUPS = [(0.6, 0.3, 0.1), (0.6, 0.1, 0.3)]
AGE_30_49 = {"age=30-49": ["age=30-49"]}


def _simulate(designs_of_groups: list[tuple], seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per survey: estimates, whether each 95% interval covers, and the p-value of the age=30-49 term."""
    rng = np.random.default_rng(seed)
    groups = len(designs_of_groups)
    x = np.repeat(PATTERNS, groups, axis=0)
    designs = designs_of_groups * len(PATTERNS)
    total = np.repeat(TOTAL, groups) // groups
    t = np.array([float(d[0]) for d in designs])
    a = np.array([float(d[1]) for d in designs])
    p = a + t * special.expit(BETA[0] + x @ BETA[1:])
    yes = np.array([rng.binomial(total, p) for _ in range(R)])
    with_intercept = np.column_stack([np.ones(len(x)), x])
    fits = batched_logistic.fit_batch(with_intercept, yes, total - yes, t, a)
    p_values = batched_logistic.likelihood_ratio_p_values(with_intercept, yes, total - yes, t, a, fits, [2])
    low, high = fits.beta - Z95 * fits.std_err, fits.beta + Z95 * fits.std_err
    for survey in range(CHECKED_SURVEYS):
        fit = fit_logistic(
            x, yes[survey], total - yes[survey], designs, names=NAMES, terms={"age=30-49": ["age=30-49"]}
        )
        assert_allclose([c.estimate for c in fit.coefficients], fits.beta[survey], rtol=1e-8, atol=1e-9)
        assert_allclose([c.low for c in fit.coefficients], low[survey], rtol=1e-8, atol=1e-9)
        assert_allclose([c.high for c in fit.coefficients], high[survey], rtol=1e-8, atol=1e-9)
        assert_allclose(fit.term_tests[0].p_value, p_values[survey], rtol=1e-6, atol=1e-9)
    return fits.beta, (low <= BETA) & (high >= BETA), p_values


@pytest.mark.slow
@pytest.mark.parametrize(
    ("designs", "seed"),
    [([TWO_COINS], 11), ([ASYMMETRIC], 12), (TWO_GROUPS, 13)],
    ids=["two coins", "asymmetric", "two groups"],
)
def test_simulated_estimates_are_unbiased_intervals_cover_and_the_lr_test_keeps_its_level(designs, seed):
    estimates, covers, p_values = _simulate(designs, seed)
    mc_se = estimates.std(axis=0, ddof=1) / math.sqrt(R)
    assert np.all(np.abs(estimates.mean(axis=0) - BETA) < 4 * mc_se), (estimates.mean(axis=0), mc_se)
    coverage_tolerance = 3 * math.sqrt(0.95 * 0.05 / R)
    assert np.all(np.abs(covers.mean(axis=0) - 0.95) < coverage_tolerance), covers.mean(axis=0)
    level_tolerance = 3 * math.sqrt(0.05 * 0.95 / R)
    assert abs(np.mean(p_values < 0.05) - 0.05) < level_tolerance, np.mean(p_values < 0.05)
