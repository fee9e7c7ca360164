"""analysis/fit.py: Pearson and deviance statistics against scipy.stats.power_divergence on the same cells, their
chi-square calibration by seeded simulation, and the two-group designs' compliance test."""

import math
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import optimize, stats

from analysis.fit import binomial_cells_fit, logistic_fit_test, two_group_fit
from analysis.regression import fit_logistic
from analysis.two_group import CheaterDetectionDesign, StochasticLieDetectorDesign, estimate_two_group

TWO_COINS = (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4))


def _scipy_cells(yes, n, expected, parameters, lambda_):
    """scipy's statistic over the 2 x cells counts (counted, other), df = cells - parameters through ddof."""
    yes, n, expected = map(np.asarray, (yes, n, expected))
    observed = np.ravel(np.column_stack([yes, n - yes]))
    wanted = np.ravel(np.column_stack([n * expected, n * (1 - expected)]))
    return stats.power_divergence(observed, wanted, ddof=len(yes) - 1 + parameters, lambda_=lambda_)


def test_pearson_and_deviance_match_scipy_power_divergence_on_the_same_cells():
    yes, n, expected = [12, 30, 7, 44], [40, 70, 35, 90], [0.35, 0.4, 0.25, 0.45]
    fit = binomial_cells_fit(yes, n, expected, parameters=2)
    pearson = _scipy_cells(yes, n, expected, 2, "pearson")
    deviance = _scipy_cells(yes, n, expected, 2, "log-likelihood")
    assert fit.pearson.df == fit.deviance.df == 2
    assert_allclose([fit.pearson.statistic, fit.pearson.p_value], [pearson.statistic, pearson.pvalue], rtol=1e-12)
    assert_allclose([fit.deviance.statistic, fit.deviance.p_value], [deviance.statistic, deviance.pvalue], rtol=1e-12)


def test_a_cell_with_no_counted_answer_adds_its_zero_log_term():
    fit = binomial_cells_fit([0, 5], [10, 10], [0.2, 0.5], parameters=1)
    assert_allclose(fit.deviance.statistic, 2 * 10 * math.log(1 / 0.8), rtol=1e-12)
    assert fit.smallest_expected == pytest.approx(2.0)


def test_a_model_with_as_many_parameters_as_cells_is_saturated():
    fit = binomial_cells_fit([3, 4], [10, 10], [0.3, 0.4], parameters=2)
    assert fit.saturated and fit.pearson.df == 0
    assert math.isnan(fit.pearson.p_value) and math.isnan(fit.deviance.p_value)


@pytest.mark.parametrize(
    ("yes", "n", "expected", "parameters", "named"),
    [
        ([1, 2], [10], [0.5, 0.5], 1, "yes="),
        ([11], [10], [0.5], 0, "yes="),
        ([1], [10], [1.0], 0, "expected="),
        ([1], [10], [0.5], -1, "parameters="),
    ],
)
def test_bad_cells_are_refused_naming_the_value(yes, n, expected, parameters, named):
    with pytest.raises(ValueError, match=named):
        binomial_cells_fit(yes, n, expected, parameters)


def _logistic_data(rng, beta, interaction=0.0, per_cell=400):
    """Two categorical predictors (2 and 3 levels), main-effect indicators; answers through two coins."""
    rows, yes, no = [], [], []
    for sex in range(2):
        for year in range(3):
            x = [sex, year == 1, year == 2]
            eta = beta[0] + beta[1] * x[0] + beta[2] * x[1] + beta[3] * x[2] + interaction * sex * (year == 2)
            chance = 0.25 + 0.5 / (1 + math.exp(-eta))
            y = int(rng.binomial(per_cell, chance))
            rows.append(x)
            yes.append(y)
            no.append(per_cell - y)
    return np.array(rows, dtype=float), np.array(yes), np.array(no)


def test_logistic_fit_statistics_equal_scipy_over_the_fitted_cells():
    x, yes, no = _logistic_data(np.random.default_rng(29), [-1.0, 0.5, 0.3, 0.8])
    fit = fit_logistic(x, yes, no, TWO_COINS)
    result = logistic_fit_test(fit, x, yes, no, TWO_COINS)
    beta = np.array([c.estimate for c in fit.coefficients])
    expected = 0.25 + 0.5 / (1 + np.exp(-(np.column_stack([np.ones(6), x]) @ beta)))
    reference = _scipy_cells(yes, yes + no, expected, 4, "pearson")
    assert (result.cells, result.parameters, result.pearson.df) == (6, 4, 2)
    assert_allclose([result.pearson.statistic, result.pearson.p_value], [reference.statistic, reference.pvalue])


def test_logistic_fit_rejects_at_its_level_when_the_model_holds():
    """Under the model the p-value is near uniform: the 5% rejections of 300 seeded surveys within 3 SE."""
    rng = np.random.default_rng(2029)
    rejected = 0
    runs = 300
    for _ in range(runs):
        x, yes, no = _logistic_data(rng, [-1.0, 0.5, 0.3, 0.8])
        fit = fit_logistic(x, yes, no, TWO_COINS)
        rejected += logistic_fit_test(fit, x, yes, no, TWO_COINS).deviance.p_value < 0.05
    assert abs(rejected / runs - 0.05) < 3 * math.sqrt(0.05 * 0.95 / runs)


def test_logistic_fit_finds_a_missing_interaction():
    x, yes, no = _logistic_data(np.random.default_rng(7), [-1.0, 0.5, 0.3, 0.8], interaction=-2.0, per_cell=2000)
    fit = fit_logistic(x, yes, no, TWO_COINS)
    assert logistic_fit_test(fit, x, yes, no, TWO_COINS).pearson.p_value < 1e-6


def test_a_logistic_model_with_one_predictor_is_saturated():
    x = np.array([[0.0], [1.0]])
    fit = fit_logistic(x, [60, 80], [140, 120], TWO_COINS)
    assert logistic_fit_test(fit, x, [60, 80], [140, 120], TWO_COINS).saturated


def _restricted_log_likelihood(design, yes, n, fixed):
    """Independent reference: the compliant model's maximum by scipy's bounded search on the binomial likelihood."""

    def minus(pi):
        rates = design.rates(pi, fixed)
        return -sum(stats.binom.logpmf(y, size, r) for y, size, r in zip(yes, n, rates))

    found = optimize.minimize_scalar(minus, bounds=(1e-9, 1 - 1e-9), method="bounded", options={"xatol": 1e-10})
    return found.x, -found.fun


@pytest.mark.parametrize(
    ("design", "fixed", "yes"),
    [
        (CheaterDetectionDesign("1/3", "2/3"), 0.0, (130, 190)),
        (StochasticLieDetectorDesign("0.2", "0.8"), 1.0, (300, 140)),
    ],
)
def test_two_group_compliance_test_matches_scipy(design, fixed, yes):
    n = (400, 380)
    estimate = estimate_two_group(yes, n, design)
    result = two_group_fit(estimate)
    assert result.model.saturated and result.model.pearson.statistic == pytest.approx(0.0, abs=1e-9)
    pi0, restricted = _restricted_log_likelihood(design, yes, n, fixed)
    full = sum(stats.binom.logpmf(y, size, y / size) for y, size in zip(yes, n))
    assert_allclose(result.restricted_pi, pi0, atol=1e-6)
    assert_allclose(result.compliance.statistic, 2 * (full - restricted), rtol=1e-6)
    assert_allclose(result.compliance.p_value, 0.5 * stats.chi2.sf(2 * (full - restricted), 1), rtol=1e-5)
    reference = _scipy_cells(yes, n, design.rates(pi0, fixed), 1, "pearson")
    assert_allclose(result.compliance_pearson.statistic, reference.statistic, rtol=1e-5)
    assert result.compliance_pearson.df == 1


@pytest.mark.parametrize(
    ("design", "yes"),
    [
        (CheaterDetectionDesign("1/3", "2/3"), (130, 355)),
        (CheaterDetectionDesign("1/3", "2/3"), (205, 290)),
        (StochasticLieDetectorDesign("0.2", "0.8"), (400, 330)),
    ],
)
def test_an_estimate_on_the_restriction_has_no_likelihood_ratio_and_p_value_one(design, yes):
    """Counts whose estimate lies on the compliant boundary (gamma = 0, or t = 1): the restricted maximum is the
    full one (scipy's bounded search agrees to 1e-9), so G^2 = 0 and the chi-bar-square p-value is 1 (its chi2_0
    half), not the 0.5 that a rounding error of 1e-13 in G^2 gave."""
    n = (400, 380)
    estimate = estimate_two_group(yes, n, design)
    fixed = {"gamma": 0.0, "t": 1.0}[estimate.second_parameter]
    assert estimate.second == fixed
    _, restricted = _restricted_log_likelihood(design, yes, n, fixed)
    rates = design.rates(estimate.pi, estimate.second)
    full = sum(stats.binom.logpmf(y, size, rate) for y, size, rate in zip(yes, n, rates))
    assert full - restricted == pytest.approx(0.0, abs=1e-9)
    result = two_group_fit(estimate)
    assert result.compliance.statistic == 0.0 and result.compliance.p_value == 1.0


def test_two_group_compliance_test_holds_its_level_and_finds_cheaters():
    """Compliant answers (gamma = 0): rejections at 5% within 3 SE of 5% over 400 seeded surveys; with a fifth
    cheating the test rejects nearly always."""
    design = CheaterDetectionDesign("0.3", "0.7")
    rng = np.random.default_rng(1998)
    runs, n = 400, (600, 600)
    counts = {0.0: 0, 0.2: 0}
    for gamma in counts:
        rates = design.rates(0.3, gamma)
        for _ in range(runs):
            yes = tuple(int(rng.binomial(size, rate)) for size, rate in zip(n, rates))
            counts[gamma] += two_group_fit(estimate_two_group(yes, n, design)).compliance.p_value < 0.05
    assert abs(counts[0.0] / runs - 0.05) < 3 * math.sqrt(0.05 * 0.95 / runs)
    assert counts[0.2] / runs > 0.95


def test_two_group_fit_refuses_another_estimate():
    with pytest.raises(ValueError, match="estimate="):
        two_group_fit(object())


@pytest.mark.parametrize(
    ("yes", "n", "expected", "parameters", "message"),
    [
        ([], [], [], 0, "non-empty 1-d sequences of one length, got yes=\\[\\]"),
        ([[1]], [[2]], [[0.5]], 0, "non-empty 1-d"),
        ([1], [10], [0.5, 0.5], 0, "non-empty 1-d"),
        ([1], [0], [0.5], 0, "whole counts 0 <= yes <= n and n >= 1"),
        ([-1], [10], [0.5], 0, "whole counts"),
        ([1.5], [10], [0.5], 0, "whole counts"),
        ([1], [10.5], [0.5], 0, "whole counts"),
        ([1], [10], [math.nan], 0, "strictly between 0 and 1, got expected="),
        ([1], [10], [0.0], 0, "strictly between 0 and 1"),
        ([1], [10], [0.5], True, "parameters must be an integer >= 0, got parameters=True"),
        ([1], [10], [0.5], 1.0, "parameters must be an integer"),
    ],
)
def test_each_bad_cell_is_refused_with_what_it_must_be(yes, n, expected, parameters, message):
    with pytest.raises(ValueError, match=message):
        binomial_cells_fit(yes, n, expected, parameters)


def test_cells_of_one_answer_all_or_none_yes_are_taken_and_the_statistics_named():
    fit = binomial_cells_fit([1, 0, 3], [1, 1, 3], [0.5, 0.25, 0.75], parameters=1)
    assert (fit.pearson.method, fit.deviance.method) == ("pearson", "deviance")
    assert fit.pearson.df == fit.deviance.df == 2 and fit.cells == 3 and fit.parameters == 1
    assert fit.pearson.p_value == pytest.approx(stats.chi2.sf(fit.pearson.statistic, 2))
    assert fit.deviance.p_value == pytest.approx(stats.chi2.sf(fit.deviance.statistic, 2))
    assert fit.smallest_expected == pytest.approx(min(0.5, 0.25, 2.25, 0.5, 0.75, 0.75))
    one_df = binomial_cells_fit([1, 0], [1, 1], [0.5, 0.25], parameters=1)
    assert one_df.pearson.p_value == pytest.approx(stats.chi2.sf(one_df.pearson.statistic, 1))
    exact = binomial_cells_fit([5], [10], [0.5], parameters=0)
    assert exact.deviance.statistic == 0.0 and exact.deviance.p_value == 1.0


def test_the_smallest_expected_count_is_of_either_answer():
    fit = binomial_cells_fit([10, 50], [100, 100], [0.1, 0.6], parameters=0)
    assert fit.smallest_expected == pytest.approx(10.0)
    fit = binomial_cells_fit([90, 50], [100, 100], [0.9, 0.6], parameters=0)
    assert fit.smallest_expected == pytest.approx(10.0)


def test_a_predictor_given_as_one_column_or_none_at_all():
    """x as a flat list is one predictor (the same as its column); an empty x is the intercept-only model, whose
    cells all share one chance 1/4 + 1/2 expit(b0) (two coins), checked against scipy over the three cells."""
    x, yes, no = np.array([0.0, 1.0, 2.0]), [30, 45, 70], [70, 55, 30]
    fit = fit_logistic(x.reshape(-1, 1), yes, no, TWO_COINS)
    assert logistic_fit_test(fit, x, yes, no, TWO_COINS) == logistic_fit_test(fit, x.reshape(-1, 1), yes, no, TWO_COINS)
    assert logistic_fit_test(fit, list(x), yes, no, TWO_COINS).parameters == 2
    intercept = fit_logistic(np.empty((3, 0)), yes, no, TWO_COINS)
    result = logistic_fit_test(intercept, [], yes, no, TWO_COINS)
    chance = 0.25 + 0.5 / (1 + math.exp(-intercept.coefficients[0].estimate))
    reference = _scipy_cells(np.array(yes), np.array(yes) + np.array(no), np.full(3, chance), 1, "pearson")
    assert (result.cells, result.parameters, result.pearson.df) == (3, 1, 2)
    assert_allclose(result.pearson.statistic, reference.statistic, rtol=1e-10)


def test_the_two_group_checks_are_named_and_counted():
    result = two_group_fit(estimate_two_group((212, 290), (400, 380), CheaterDetectionDesign("1/3", "2/3")))
    assert (result.compliance.method, result.compliance.df, result.restriction) == ("likelihood ratio", 1, "gamma = 0")
    assert (result.model.parameters, result.model.pearson.df, result.model.cells) == (2, 0, 2)
    lie = two_group_fit(estimate_two_group((300, 140), (400, 380), StochasticLieDetectorDesign("0.2", "0.8")))
    assert lie.restriction == "t = 1"


def test_a_small_compliance_statistic_takes_half_the_chi_square_tail():
    """Counts close to compliance (statistic 0.005, below 1): the statistic is 2 (l_full - l_restricted), with both
    maxima found by scipy as in test_two_group_compliance_test_matches_scipy, and p = chi2_1.sf / 2."""
    design, yes, n = CheaterDetectionDesign("1/3", "2/3"), (212, 290), (400, 380)
    result = two_group_fit(estimate_two_group(yes, n, design))
    _, restricted = _restricted_log_likelihood(design, yes, n, 0.0)
    full = sum(stats.binom.logpmf(y, size, y / size) for y, size in zip(yes, n))
    assert 0 < result.compliance.statistic < 1
    assert_allclose(result.compliance.statistic, 2 * (full - restricted), rtol=1e-4)
    assert_allclose(result.compliance.p_value, 0.5 * stats.chi2.sf(result.compliance.statistic, 1), rtol=1e-12)


def test_everyone_yes_fits_the_compliant_model_exactly():
    """All answers yes under cheater detection: pi = 1 with no cheaters, the rates are 1 (kept inside (0, 1) for the
    statistics); the restriction loses nothing, so the statistic is 0 and the p-value 1."""
    result = two_group_fit(estimate_two_group((50, 60), (50, 60), CheaterDetectionDesign("1/3", "2/3")))
    assert result.restricted_pi == 1.0
    assert (result.compliance.statistic, result.compliance.p_value) == (0.0, 1.0)
    assert result.model.deviance.statistic == pytest.approx(0.0, abs=1e-9)


def test_no_one_yes_is_fitted_on_the_boundary_and_far_from_compliance():
    """All answers no under cheater detection: pi = 0 and everyone cheats (gamma = 1), the rates 0 (kept inside
    (0, 1)); complying, the best is pi = 0 with rates p_i, so the statistic is -2 sum n_i ln(1 - p_i)."""
    result = two_group_fit(estimate_two_group((0, 0), (50, 60), CheaterDetectionDesign("1/3", "2/3")))
    assert result.restricted_pi == 0.0
    assert_allclose(result.compliance.statistic, -2 * (50 * math.log(2 / 3) + 60 * math.log(1 / 3)), rtol=1e-12)
    assert result.model.deviance.statistic == pytest.approx(0.0, abs=1e-9)


def test_no_carriers_under_the_lie_detector_leave_t_unknown():
    """Stochastic lie detector with each group's yes rate at its non-carriers' 1 - p_i: pi = 0, so t is not
    identified (NaN); the rates do not depend on it, and the compliant model (t = 1) fits as well."""
    estimate = estimate_two_group((80, 20), (100, 100), StochasticLieDetectorDesign("0.2", "0.8"))
    assert estimate.pi == 0.0 and math.isnan(estimate.second)
    result = two_group_fit(estimate)
    assert (result.compliance.statistic, result.compliance.p_value, result.restricted_pi) == (0.0, 1.0, 0.0)
    assert result.model.pearson.statistic == pytest.approx(0.0, abs=1e-9)


def test_rows_with_no_answers_are_left_out_and_rows_with_one_kept():
    """Four rows, the last with no answers: three cells; a row of a single answer is a cell (its expected counts
    below one show in smallest_expected), the statistics as scipy over those cells."""
    x, yes, no = np.array([[0.0], [1.0], [2.0], [3.0]]), [30, 45, 1, 0], [70, 55, 0, 0]
    fit = fit_logistic(x[:3], yes[:3], no[:3], TWO_COINS)
    result = logistic_fit_test(fit, x, yes, no, TWO_COINS)
    beta = np.array([c.estimate for c in fit.coefficients])
    chance = 0.25 + 0.5 / (1 + np.exp(-(beta[0] + beta[1] * x[:3, 0])))
    reference = _scipy_cells(np.array(yes[:3]), np.array([100, 100, 1]), chance, 2, "pearson")
    assert (result.cells, result.pearson.df) == (3, 1)
    assert_allclose(result.pearson.statistic, reference.statistic, rtol=1e-10)
    assert result.smallest_expected == pytest.approx(min(1 - chance[2], chance[2]))


@pytest.mark.parametrize(
    ("x", "yes", "no", "message"),
    [
        (
            [[0.0], [1.0]],
            [1, 2, 3],
            [3, 2, 1],
            "x, yes_counts and no_counts must have one row per cell, got x of shape (2, 1)",
        ),
        (
            [[0.0], [1.0], [2.0]],
            [1, 2, 3],
            [3, 2],
            "x, yes_counts and no_counts must have one row per cell, got x of shape (3, 1)",
        ),
        ([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]], [1, 2, 3], [3, 2, 1], "x has 2 columns but the fit has 2 coefficients"),
    ],
)
def test_a_fit_test_refuses_rows_or_columns_that_do_not_match(x, yes, no, message):
    fit = fit_logistic(np.array([[0.0], [1.0], [2.0]]), [40, 50, 60], [60, 50, 40], TWO_COINS)
    with pytest.raises(ValueError) as refused:
        logistic_fit_test(fit, x, yes, no, TWO_COINS)
    assert str(refused.value) == message


def test_predictor_values_as_fractions_are_read_as_numbers():
    """fit_logistic takes exact values such as Fraction(1, 2); the fit test reads the same x as floats."""
    x = [[Fraction(0)], [Fraction(1, 2)], [Fraction(1)]]
    fit = fit_logistic(x, [40, 50, 60], [60, 50, 40], TWO_COINS)
    as_floats = [[0.0], [0.5], [1.0]]
    assert logistic_fit_test(fit, x, [40, 50, 60], [60, 50, 40], TWO_COINS) == logistic_fit_test(
        fit, as_floats, [40, 50, 60], [60, 50, 40], TWO_COINS
    )


def test_cells_given_as_fractions_are_read_as_numbers():
    """Design rates are exact Fractions in this code base; counts may come as Fractions too."""
    exact = binomial_cells_fit(
        [Fraction(3), Fraction(4)], [Fraction(10), Fraction(10)], [Fraction(1, 3), Fraction(1, 2)], 1
    )
    assert exact == binomial_cells_fit([3, 4], [10, 10], [1 / 3, 1 / 2], 1)


def test_an_empty_cell_is_refused():
    with pytest.raises(ValueError) as refused:
        binomial_cells_fit([0, 3], [0, 10], [0.5, 0.5], 0)
    assert str(refused.value) == "each cell needs whole counts 0 <= yes <= n and n >= 1, got yes=[0, 3], n=[0, 10]"
