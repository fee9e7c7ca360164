"""analysis/extended_crosswise.py: the extended crosswise model's estimate against hand-computed values, a numerical
maximum of the two groups' likelihood and the one-group crosswise estimator; its one-df check against scipy's G-test
of homogeneity; and, by seeded simulation, the test's size at 0.05, its power against a careless share, its
blindness to answers at random, and the interval's coverage."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import optimize, stats

from analysis.estimate import estimate_proportion
from analysis.extended_crosswise import estimate_extended_crosswise, extended_crosswise_rates

#: Replicates of each simulation, and the binomial standard error of a rejection rate near 0.05 over them.
REPS = 4000
SE_SIZE = math.sqrt(0.05 * 0.95 / REPS)


def test_hand_computed_estimate_standard_error_and_a_perfect_fit():
    # p = 1/4, pi = 0.2: lambda_1 = 0.75 - 0.2 * 0.5 = 0.65, lambda_2 = 0.35; the counts sit exactly on them.
    e = estimate_extended_crosswise(130, 200, 70, 200, p=0.25)
    assert_allclose(e.estimate, 0.2, atol=1e-12)
    assert_allclose(e.std_err, math.sqrt(0.65 * 0.35 / 400) / 0.5, rtol=1e-12)
    assert_allclose([e.ci.low, e.ci.high], 0.2 + np.array([-1, 1]) * 1.959963984540054 * e.std_err, rtol=1e-9)
    assert e.fit.likelihood_ratio.statistic == pytest.approx(0.0, abs=1e-12)
    assert e.fit.likelihood_ratio.df == 1 and e.fit.likelihood_ratio.p_value == pytest.approx(1.0)
    assert_allclose(e.fit.expected, (0.65, 0.35), rtol=1e-12)


@pytest.mark.parametrize(("same_1", "n_1", "same_2", "n_2", "p"), [(150, 200, 90, 200, 0.25), (61, 150, 98, 170, 0.8)])
def test_the_check_is_the_g_test_of_homogeneity_of_same_1_and_different_2(same_1, n_1, same_2, n_2, p):
    e = estimate_extended_crosswise(same_1, n_1, same_2, n_2, p)
    assert 0 < e.estimate_raw < 1  # inside: the restricted fit is the pooled rate
    table = [[same_1, n_1 - same_1], [n_2 - same_2, same_2]]
    g2, g2_p, df, _ = stats.chi2_contingency(table, correction=False, lambda_="log-likelihood")
    x2, x2_p, _, _ = stats.chi2_contingency(table, correction=False)
    assert df == e.fit.likelihood_ratio.df == e.fit.pearson.df == 1
    assert_allclose([e.fit.likelihood_ratio.statistic, e.fit.likelihood_ratio.p_value], [g2, g2_p], rtol=1e-10)
    assert_allclose([e.fit.pearson.statistic, e.fit.pearson.p_value], [x2, x2_p], rtol=1e-10)


def _log_likelihood(pi, same, n, p):
    rates = extended_crosswise_rates(pi, p)
    return sum(y * math.log(r) + (m - y) * math.log(1 - r) for y, m, r in zip(same, n, rates))


@pytest.mark.parametrize(
    ("same", "n", "p"),
    [((150, 90), (200, 200), 0.25), ((61, 98), (150, 170), 0.8), ((40, 170), (200, 200), 0.25)],
)
def test_the_estimate_is_the_maximum_of_both_groups_likelihood_over_zero_one(same, n, p):
    e = estimate_extended_crosswise(same[0], n[0], same[1], n[1], p)
    found = optimize.minimize_scalar(
        lambda pi: -_log_likelihood(pi, same, n, p), bounds=(0, 1), method="bounded", options={"xatol": 1e-10}
    )
    assert_allclose(e.estimate, found.x, atol=1e-6)
    saturated = sum(y * math.log(y / m) + (m - y) * math.log(1 - y / m) for y, m in zip(same, n))
    assert_allclose(e.fit.likelihood_ratio.statistic, 2 * (saturated - _log_likelihood(e.estimate, same, n, p)))


def test_an_estimate_outside_zero_one_is_clipped_and_the_edge_counts_in_the_fit():
    # p = 1/4: the model's group 1 rate lies in [0.25, 0.75]; pooled lambda_1 = (40 + 30) / 400 = 0.175 is below.
    e = estimate_extended_crosswise(40, 200, 170, 200, p=0.25)
    assert e.estimate_raw == pytest.approx((0.175 - 0.75) / -0.5)
    assert e.estimate == 1.0 and e.fit.expected == pytest.approx((0.25, 0.75))
    g2, *_ = stats.chi2_contingency([[40, 160], [30, 170]], correction=False, lambda_="log-likelihood")
    assert e.fit.likelihood_ratio.statistic > g2


@pytest.mark.parametrize("p", [0.25, 0.8])
def test_no_efficiency_is_lost_against_a_one_group_crosswise_survey_of_all_respondents(p):
    # Group 2's "different" is group 1's "same": the pooled count is a one-group crosswise count with q = p.
    e = estimate_extended_crosswise(130, 220, 88, 180, p)
    pooled = 130 + (180 - 88)
    t, a = 2 * p - 1, 1 - p
    one_group = estimate_proportion(pooled if t > 0 else 400 - pooled, 400, abs(t), min(a, 1 - a), min(a, 1 - a))
    assert_allclose([e.estimate, e.std_err], [one_group.estimate, one_group.std_err], rtol=1e-9)


@pytest.mark.parametrize(
    ("args", "named"),
    [
        ((10, 20, 5, 20, 0.5), "p="),
        ((10, 20, 5, 20, 1.0), "p="),
        ((21, 20, 5, 20, 0.25), "same_1="),
        ((10, 20, 5, 0, 0.25), "n_2="),
        ((10, 20, -1, 20, 0.25), "same_2="),
        ((10, 20, 5, 20.0, 0.25), "n_2="),
    ],
)
def test_bad_arguments_are_refused_naming_the_value(args, named):
    with pytest.raises(ValueError, match=named):
        estimate_extended_crosswise(*args)


def test_rates_with_shares_ignoring_the_instructions():
    assert_allclose(extended_crosswise_rates(0.2, 0.25), (0.65, 0.35))
    assert_allclose(extended_crosswise_rates(0.2, 0.25, always_same=0.1), (0.1 + 0.9 * 0.65, 0.1 + 0.9 * 0.35))
    with pytest.raises(ValueError, match="always_same"):
        extended_crosswise_rates(0.2, 0.25, always_same=0.7, always_different=0.6)


def _simulate(rng, rates, n, p, reps=REPS):
    same_1 = rng.binomial(n, rates[0], size=reps)
    same_2 = rng.binomial(n, rates[1], size=reps)
    return [estimate_extended_crosswise(int(a), n, int(b), n, p) for a, b in zip(same_1, same_2)]


def _rejections(estimates) -> float:
    return float(np.mean([e.fit.likelihood_ratio.p_value < 0.05 for e in estimates]))


def test_size_of_the_check_at_005_when_everyone_follows_the_instructions():
    rng = np.random.default_rng(20261127)
    size = _rejections(_simulate(rng, extended_crosswise_rates(0.3, 0.25), 400, 0.25))
    assert abs(size - 0.05) < 3.5 * SE_SIZE, size


def test_power_against_a_careless_share_answering_same_matches_the_noncentral_chi_square():
    rng = np.random.default_rng(7)
    n, p, rates = 400, 0.25, extended_crosswise_rates(0.3, 0.25, always_same=0.12)
    power = _rejections(_simulate(rng, rates, n, p))
    # The asymptotic power: noncentral chi-square (1 df) with the G^2 of the expected counts as noncentrality.
    pooled = (rates[0] + 1 - rates[1]) / 2  # the model's fitted group 1 rate at the expected counts (inside)
    fitted = (pooled, 1 - pooled)
    noncentrality = (
        2 * n * sum(r * math.log(r / e) + (1 - r) * math.log((1 - r) / (1 - e)) for r, e in zip(rates, fitted))
    )
    expected = float(stats.ncx2.sf(stats.chi2.ppf(0.95, 1), 1, noncentrality))
    assert power > 0.8
    assert abs(power - expected) < 3.5 * math.sqrt(expected * (1 - expected) / REPS) + 0.02, (power, expected)


def test_answers_at_random_are_not_detected():
    rng = np.random.default_rng(11)
    follow = extended_crosswise_rates(0.3, 0.25)
    rates = tuple(0.2 * 0.5 + 0.8 * r for r in follow)  # a fifth say "same" with chance 1/2
    size = _rejections(_simulate(rng, rates, 400, 0.25))
    assert abs(size - 0.05) < 3.5 * SE_SIZE, size


def test_the_interval_covers_pi_at_its_level_and_the_estimate_is_unbiased():
    rng = np.random.default_rng(3)
    estimates = _simulate(rng, extended_crosswise_rates(0.3, 0.25), 400, 0.25)
    covered = np.mean([e.ci.low <= 0.3 <= e.ci.high for e in estimates])
    assert abs(covered - 0.95) < 3.5 * math.sqrt(0.95 * 0.05 / REPS) + 0.005, covered
    raw = np.array([e.estimate_raw for e in estimates])
    assert abs(raw.mean() - 0.3) < 3.5 * raw.std() / math.sqrt(REPS)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: extended_crosswise_rates(1.5, 0.25), "pi"),
        (lambda: extended_crosswise_rates(0.2, 0.25, always_same=-0.1), "always_same"),
        (lambda: extended_crosswise_rates(0.2, 0.25, always_different=2), "always_different"),
        (lambda: estimate_extended_crosswise(5, 0, 5, 10, 0.25), "n_1"),
        (lambda: estimate_extended_crosswise(5, 10, 5, 0, 0.25), "n_2"),
        (lambda: estimate_extended_crosswise(-1, 10, 5, 10, 0.25), "same_1"),
        (lambda: estimate_extended_crosswise(5, 10, -1, 10, 0.25), "same_2"),
        (lambda: estimate_extended_crosswise(5, 10, 5, 10, 0.25, confidence_level=1), "confidence_level"),
    ],
)
def test_each_bad_argument_is_refused_by_its_name(call, name):
    with pytest.raises(ValueError, match=rf"(^|\s){name}\b"):
        call()


def test_a_group_of_one_answer_no_same_or_all_same_is_taken_and_more_same_than_answers_refused():
    for same_1, same_2 in ((0, 0), (1, 1), (0, 1)):
        result = estimate_extended_crosswise(same_1, 1, same_2, 1, 0.25)
        assert (result.same, result.n, result.p) == ((same_1, same_2), (1, 1), 0.25)
    with pytest.raises(ValueError, match="same_1 must be at most n_1=3, got same_1=4"):
        estimate_extended_crosswise(4, 3, 1, 3, 0.25)
    with pytest.raises(ValueError, match="same_2 must be at most n_2=3, got same_2=4"):
        estimate_extended_crosswise(1, 3, 4, 3, 0.25)


def test_the_rates_with_careless_shares_by_hand_and_all_of_them_careless():
    # pi = 0.2, p = 1/4: lambda = 3/4 - 0.2 / 2 = 0.65; c_s = 0.1, c_d = 0.2 follow 0.7.
    rates = extended_crosswise_rates(0.2, 0.25, always_same=0.1, always_different=0.2)
    assert rates == pytest.approx((0.1 + 0.7 * 0.65, 0.1 + 0.7 * 0.35))
    assert extended_crosswise_rates(0.2, 0.25, always_same=0.4, always_different=0.6) == pytest.approx((0.4, 0.4))


def test_the_fit_names_its_two_statistics():
    fit = estimate_extended_crosswise(30, 100, 60, 100, 0.25).fit
    assert (fit.likelihood_ratio.method, fit.pearson.method) == ("likelihood ratio", "pearson")
    assert fit.likelihood_ratio.df == fit.pearson.df == 1
