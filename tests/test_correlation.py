"""Correlation between two randomized yes/no answers (analysis/correlation.py).

Three layers: without randomization against scipy.stats.contingency and statsmodels' ``Table2x2`` (references no
one here wrote); the Notes' formulas against brute-force maxima and the Fox-Tracy correction RRreg's ``RRcor``
applies to individual rows; seeded simulations of recovery, interval coverage and the test's level.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import optimize, stats
from scipy.stats.contingency import association, chi2_contingency
from statsmodels.stats.contingency_tables import Table2x2

from analysis import ForcedResponseDesign, WarnerDesign
from analysis.correlation import MAXIMUM_LIKELIHOOD, MOMENT, correlate, joint_matrix

DIRECT = (1, 0)
DIE = ForcedResponseDesign(t=Fraction(2, 3), a=Fraction(1, 6), b=Fraction(1, 6))
WARNER = WarnerDesign(p=0.75)
#: Two coins as (theta1, theta0): a carrier answers yes with 3/4, anyone else with 1/4.
TWO_COINS = (0.75, 0.25)
TABLES = [[[30, 10], [15, 45]], [[12, 30], [41, 17]], [[3, 7], [9, 1]], [[200, 120], [80, 600]]]


@pytest.mark.parametrize("table", TABLES)
def test_without_randomization_phi_and_the_lr_test_are_scipys(table):
    result = correlate(table, DIRECT, DIRECT)
    g, p, _, _ = chi2_contingency(table, correction=False, lambda_="log-likelihood")
    assert_allclose(abs(result.phi), association(table, method="cramer"), rtol=1e-12)
    rows = [(i, j) for i in (0, 1) for j in (0, 1) for _ in range(table[i][j])]
    assert_allclose(result.phi, np.corrcoef(np.array(rows).T)[0, 1], rtol=1e-12)
    assert_allclose((result.lr_statistic, result.p_value), (g, p), rtol=1e-10)
    assert result.method == MOMENT


@pytest.mark.parametrize("table", TABLES)
def test_without_randomization_the_odds_ratio_and_its_interval_are_statsmodels(table):
    result = correlate(table, DIRECT, DIRECT, level=0.9)
    reference = Table2x2(np.array(table))
    assert_allclose(result.odds_ratio, reference.oddsratio, rtol=1e-12)
    assert_allclose(result.odds_ratio_ci, reference.oddsratio_confint(alpha=0.1), rtol=1e-10)


def test_the_joint_matrix_is_the_kronecker_product_of_the_two_designs():
    k = joint_matrix(DIE, WARNER)
    # P(stored yes, stored no | true yes, true no) = theta1(DIE) (1 - theta0(WARNER)) = 5/6 * 3/4.
    assert_allclose(k[1, 1], 5 / 6 * 3 / 4)
    assert_allclose(k.sum(axis=0), 1)
    assert_allclose(k[3, 0], (1 / 6) * (1 / 4))


def test_the_moment_estimate_inverts_the_kronecker_matrix_and_its_standard_errors_the_delta_method():
    table = [[188, 179], [238, 396]]
    result = correlate(table, DIE, WARNER)
    shares = np.array(table, dtype=float).ravel() / 1001
    k = joint_matrix(DIE, WARNER)
    pi = np.linalg.solve(k, shares)
    assert result.method == MOMENT
    assert_allclose([c.moment for c in result.cells], pi, rtol=1e-12)
    assert_allclose([c.estimate for c in result.cells], pi, rtol=1e-12)
    covariance = np.linalg.inv(k) @ (np.diag(shares) - np.outer(shares, shares)) @ np.linalg.inv(k).T / 1001
    assert_allclose([c.std_err for c in result.cells], np.sqrt(np.diag(covariance)), rtol=1e-10)
    assert_allclose((result.first_share, result.second_share), (pi[0] + pi[1], pi[0] + pi[2]))


def _phi_of(pi):
    p11, p10, p01, p00 = pi
    return (p11 * p00 - p10 * p01) / math.sqrt((p11 + p10) * (p01 + p00) * (p11 + p01) * (p10 + p00))


def test_phi_and_its_standard_error_match_a_numerical_delta_method():
    result = correlate([[188, 179], [238, 396]], DIE, WARNER)
    pi = np.array([c.estimate for c in result.cells])
    k = joint_matrix(DIE, WARNER)
    lam = k @ pi
    covariance = np.linalg.inv(k) @ (np.diag(lam) - np.outer(lam, lam)) @ np.linalg.inv(k).T / 1001
    step = 1e-6
    grad = np.array([(_phi_of(pi + step * e) - _phi_of(pi - step * e)) / (2 * step) for e in np.eye(4)])
    assert_allclose(result.phi, _phi_of(pi), rtol=1e-12)
    assert_allclose(result.phi_std_err, math.sqrt(grad @ covariance @ grad), rtol=1e-6)
    z = stats.norm.ppf(0.975)
    assert_allclose(result.phi_ci, (result.phi - z * result.phi_std_err, result.phi + z * result.phi_std_err))


def test_phi_is_the_fox_tracy_correction_of_rrcor_on_the_respondents_rows():
    """RRcor: r_obs sqrt((1 + q1)(1 + q2)), q = var(x_est) / (pi (1 - pi)) - 1, x_est = (y - theta0) / d."""
    table = [[188, 179], [238, 396]]
    rows = np.array([(1 - i, 1 - j) for i in (0, 1) for j in (0, 1) for _ in range(table[i][j])], dtype=float)
    corrected = []
    for column, design in ((0, DIE), (1, WARNER)):
        theta1, theta0 = (float(p) for p in design.yes_probabilities())
        x_est = (rows[:, column] - theta0) / (theta1 - theta0)
        pi = x_est.mean()
        corrected.append((x_est, x_est.var() / (pi * (1 - pi))))
    r_obs = np.corrcoef(corrected[0][0], corrected[1][0])[0, 1]
    fox_tracy = r_obs * math.sqrt(corrected[0][1] * corrected[1][1])
    assert_allclose(correlate(table, DIE, WARNER).phi, fox_tracy, rtol=1e-12)


def _log_likelihood(table, k, pi):
    counts = np.array(table, dtype=float).ravel()
    return float(np.sum(counts * np.log(k @ pi)))


def _brute_simplex_maximum(table, k):
    def minus(z):
        pi = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
        return -_log_likelihood(table, k, pi)

    best = min(
        (
            optimize.minimize(
                minus, start, method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20000}
            )
            for start in np.eye(4) * 3
        ),
        key=lambda r: r.fun,
    )
    return -best.fun


def test_outside_the_simplex_the_maximum_likelihood_estimate_differs_from_the_moment_and_beats_a_brute_search():
    table = [[5, 40], [40, 15]]
    result = correlate(table, DIE, WARNER)
    k = joint_matrix(DIE, WARNER)
    assert result.method == MAXIMUM_LIKELIHOOD
    assert min(c.moment for c in result.cells) < 0
    pi = np.array([c.estimate for c in result.cells])
    assert pi.min() >= 0 and math.isclose(pi.sum(), 1)
    assert _log_likelihood(table, k, pi) >= _brute_simplex_maximum(table, k) - 1e-7
    assert result.odds_ratio is None  # a cell on 0


def test_the_lr_statistic_is_twice_the_log_likelihood_gap_found_by_brute_search():
    table = [[188, 179], [238, 396]]
    k = joint_matrix(DIE, WARNER)

    def minus_independent(z):
        p1, p2 = 1 / (1 + np.exp(-z))
        return -_log_likelihood(table, k, np.kron([p1, 1 - p1], [p2, 1 - p2]))

    independent = -optimize.minimize(
        minus_independent, [0.0, 0.0], method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-12}
    ).fun
    full = _brute_simplex_maximum(table, k)
    result = correlate(table, DIE, WARNER)
    assert_allclose(result.lr_statistic, 2 * (full - independent), rtol=1e-6)
    assert_allclose(result.p_value, stats.chi2.sf(result.lr_statistic, 1))


@pytest.mark.parametrize(
    ("table", "first", "level", "message"),
    [
        ([[1, 2], [3]], DIRECT, 0.95, "2 x 2"),
        ([[1, -2], [3, 4]], DIRECT, 0.95, "integers >= 0"),
        ([[0, 0], [0, 0]], DIRECT, 0.95, "at least one"),
        ([[1, 2], [3, 4]], (0.5, 0.5), 0.95, "theta1 = theta0"),
        ([[1, 2], [3, 4]], (1.5, 0), 0.95, "theta1"),
        ([[1, 2], [3, 4]], "warner", 0.95, "first must be"),
        ([[1, 2], [3, 4]], DIRECT, 1.0, "level"),
    ],
)
def test_bad_arguments_raise_a_value_error_naming_them(table, first, level, message):
    with pytest.raises(ValueError, match=message):
        correlate(table, first, DIRECT, level=level)


def test_a_margin_of_zero_leaves_phi_undefined():
    result = correlate([[10, 5], [0, 0]], DIRECT, DIRECT)
    assert result.phi is None and result.phi_ci is None and result.odds_ratio is None


def _simulate(pi, first, second, n, surveys, seed):
    k = joint_matrix(first, second)
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(n, k @ np.array(pi), size=surveys)
    return [correlate([[int(d[0]), int(d[1])], [int(d[2]), int(d[3])]], first, second) for d in draws]


@pytest.mark.slow
def test_simulated_phi_is_recovered_and_its_interval_covers():
    pi = (0.2, 0.1, 0.15, 0.55)
    true_phi = _phi_of(pi)
    results = _simulate(pi, DIE, WARNER, n=3000, surveys=1000, seed=20261126)
    phis = np.array([r.phi for r in results])
    # The delta method is first order: the mean within 4 Monte Carlo standard errors of the truth.
    assert abs(phis.mean() - true_phi) < 4 * phis.std(ddof=1) / math.sqrt(len(phis))
    # The mean delta-method standard error within 10% of the simulated spread.
    assert_allclose(np.mean([r.phi_std_err for r in results]), phis.std(ddof=1), rtol=0.1)
    covered = np.mean([r.phi_ci[0] <= true_phi <= r.phi_ci[1] for r in results])
    assert abs(covered - 0.95) < 4 * math.sqrt(0.95 * 0.05 / len(results))
    cells = np.array([[c.moment for c in r.cells] for r in results])
    assert np.all(np.abs(cells.mean(axis=0) - pi) < 4 * cells.std(axis=0, ddof=1) / math.sqrt(len(results)))


@pytest.mark.slow
def test_simulated_lr_test_keeps_its_level_under_independence_and_has_power_otherwise():
    independent = tuple(np.kron([0.3, 0.7], [0.4, 0.6]))
    results = _simulate(independent, DIE, WARNER, n=2000, surveys=1000, seed=29)
    rejected = np.mean([r.p_value < 0.05 for r in results])
    assert abs(rejected - 0.05) < 4 * math.sqrt(0.05 * 0.95 / len(results))
    dependent = _simulate((0.2, 0.1, 0.15, 0.55), DIE, WARNER, n=2000, surveys=200, seed=30)
    assert np.mean([r.p_value < 0.05 for r in dependent]) > 0.9


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: correlate(5, TWO_COINS, TWO_COINS), "table must be 2 x 2 counts, got table=5"),
        (lambda: correlate([[1, 2, 3], [4, 5, 6]], TWO_COINS, TWO_COINS), "table must be 2 x 2 counts"),
        (lambda: correlate([[1.5, 2], [3, 4]], TWO_COINS, TWO_COINS), "table must hold integers >= 0"),
        (lambda: correlate([[0, 0], [0, 0]], TWO_COINS, TWO_COINS), "table must hold at least one answer"),
        (lambda: correlate([[1, 2], [3, 4]], (0.75, 1.5), TWO_COINS), r"^first theta0\b"),
        (lambda: correlate([[1, 2], [3, 4]], TWO_COINS, (0.75, -0.5)), r"^second theta0\b"),
        (lambda: correlate([[1, 2], [3, 4]], TWO_COINS, TWO_COINS, level=1.0), r"^level\b"),
        (lambda: joint_matrix((1.5, 0.25), TWO_COINS), r"^first theta1\b"),
        (lambda: joint_matrix(TWO_COINS, (0.75, 2.0)), r"^second theta0\b"),
    ],
)
def test_each_bad_argument_is_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_a_table_of_one_answer_is_taken_and_the_result_records_it():
    result = correlate([[0, 1], [0, 0]], TWO_COINS, TWO_COINS, level=0.9)
    assert (result.n, result.table, result.df, result.confidence_level) == (1, ((0, 1), (0, 0)), 1, 0.9)
    assert [(cell.first, cell.second) for cell in result.cells] == [
        (True, True),
        (True, False),
        (False, True),
        (False, False),
    ]
    assert correlate([[3, 1], [2, 7]], TWO_COINS, TWO_COINS).table == ((3, 1), (2, 7))


def test_a_cell_is_found_by_its_two_true_answers():
    result = correlate([[30, 10], [15, 45]], TWO_COINS, DIE)
    for index, (first, second) in enumerate([(True, True), (True, False), (False, True), (False, False)]):
        assert result.cell(first, second) is result.cells[index]
        assert result.cell(int(first), int(second)) is result.cells[index]


def test_a_moment_estimate_on_the_simplexs_face_is_the_maximum():
    """Asked directly, a table with an empty cell: the moment estimate is the shares themselves, 0 included, which
    is in the simplex, so it is the maximum (no EM), and the odds ratio is not defined."""
    result = correlate([[10, 0], [5, 5]], DIRECT, DIRECT)
    assert result.method == MOMENT
    assert [c.estimate for c in result.cells] == [0.5, 0.0, 0.25, 0.25]
    assert result.odds_ratio is None and result.odds_ratio_ci is None


def test_em_with_a_question_asked_directly_and_an_empty_row():
    """First asked directly, no stored first yes at all; the second's stored yes share among the rest, 0.02, is
    below what two coins can give (1/4): the maximum puts everything on (no, no). EM must leave the never-answered
    cells at 0 (their stored share is 0 and so is their probability) and stay finite."""
    table = [[0, 0], [2, 98]]
    result = correlate(table, DIRECT, TWO_COINS)
    k = joint_matrix(DIRECT, TWO_COINS)
    pi = np.array([c.estimate for c in result.cells])
    assert result.method == MAXIMUM_LIKELIHOOD
    assert np.all(np.isfinite(pi)) and math.isclose(pi.sum(), 1)
    assert_allclose(pi, [0, 0, 0, 1], atol=1e-9)
    assert _log_likelihood(table, k, np.clip(pi, 1e-300, None)) >= _brute_simplex_maximum(table, k) - 1e-7


def _independent_maximum_by_search(table, first, second):
    k = joint_matrix(first, second)

    def minus(p):
        return -_log_likelihood(table, k, np.kron([p[0], 1 - p[0]], [p[1], 1 - p[1]]))

    starts = [(0.5, 0.5), (0.01, 0.99), (0.99, 0.01), (0.01, 0.01), (0.99, 0.99)]
    return -min(
        optimize.minimize(minus, start, method="L-BFGS-B", bounds=[(0, 1), (0, 1)], options={"ftol": 1e-15}).fun
        for start in starts
    )


@pytest.mark.parametrize("table", [[[0, 12], [76, 12]], [[0, 16], [72, 12]], [[20, 22], [21, 19]]])
def test_the_lr_statistic_with_margins_beyond_what_the_designs_give(table):
    """Two coins give stored yes shares in [1/4, 3/4] only: first margins of 0.12 and 0.16 lie below, a second
    margin of 0.76 above, and the independent maximum puts each at the nearest end (statistics 1.17 and 4.94, where
    an unclipped margin would give 0 and 0.18). Against the two maxima found by bounded search (the full one as in
    test_the_lr_statistic_is_twice_the_log_likelihood_gap_found_by_brute_search); the last table is nearly
    independent (a statistic below 1)."""
    k = joint_matrix(TWO_COINS, TWO_COINS)
    full = _brute_simplex_maximum(table, k)
    independent = _independent_maximum_by_search(table, TWO_COINS, TWO_COINS)
    result = correlate(table, TWO_COINS, TWO_COINS)
    assert result.lr_statistic > 0.1
    assert_allclose(result.lr_statistic, max(2 * (full - independent), 0.0), rtol=1e-5, atol=1e-7)


def test_phis_interval_is_clipped_at_plus_and_minus_one():
    """Strong association through two coins on 60 answers: phi's Wald interval runs past 1 (and past -1 for the
    mirrored table), and is cut there."""
    for table, end in (([[25, 5], [5, 25]], 1), ([[5, 25], [25, 5]], 0)):
        result = correlate(table, TWO_COINS, TWO_COINS)
        z = stats.norm.ppf(0.975)
        if end:
            assert result.phi + z * result.phi_std_err > 1 and result.phi_ci[1] == 1.0
        else:
            assert result.phi - z * result.phi_std_err < -1 and result.phi_ci[0] == -1.0
