"""Planning under non-compliance (a share who always answer "no"): exact bias, answers needed, power.

References: rr's printed power (tests/testthat/test-power.R of cran/rr: 0.9868872), statsmodels'
``normal_power_het``, ``normal_sample_size_one_tail`` and ``samplesize_confint_proportion``, and seeded
simulations of RRreg's ``RRgen`` data-generating process (``complyRates``, ``sysBias = c(0, 0)``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats
from statsmodels.stats.power import normal_power_het, normal_sample_size_one_tail
from statsmodels.stats.proportion import samplesize_confint_proportion

from analysis import (
    NoncompliancePlan,
    bias_range,
    naive_bias,
    noncompliance_plan,
    noncompliant_difference_power,
    noncompliant_half_width,
    noncompliant_power,
    noncompliant_sample_size,
    noncompliant_sample_size_for_power,
    observed_yes_rate,
    power_one_sided,
    sample_size_for_half_width,
)

#: ``(theta1, theta0)``: two coins, rr's die (truth 2/3, 1/6 forced each way), asked directly, crosswise q = 1/4.
TWO_COINS = (0.75, 0.25)
DIE = (5 / 6, 1 / 6)
DIRECT = (1.0, 0.0)
CROSSWISE = (0.25, 0.75)


def test_the_observed_rate_is_the_compliers_rate_shrunk_towards_no():
    assert_allclose(observed_yes_rate(0.2, *TWO_COINS, 0.1), 0.9 * (0.25 + 0.5 * 0.2))
    assert_allclose(observed_yes_rate(0.2, *TWO_COINS, 0.1, noncompliant_yes=0.5), 0.9 * 0.35 + 0.05)


def test_the_bias_is_the_closed_form():
    # -c (pi + theta0 / d): two coins, c = 0.1, pi = 0.2 -> -0.1 * 0.7
    assert_allclose(naive_bias(0.2, *TWO_COINS, 0.1), -0.07)
    assert_allclose(naive_bias(0.3, *DIRECT, 0.2), -0.06)
    # crosswise with q < 1/2: "no" (different) points to the trait, the estimate is pushed up
    assert_allclose(naive_bias(0.2, *CROSSWISE, 0.1), 0.1 * (1.5 - 0.2))
    assert naive_bias(0.4, *TWO_COINS, 0.0) == 0.0


def test_the_bias_lies_between_its_values_at_no_one_and_everyone():
    low, high = bias_range(*DIE, 0.15)
    assert_allclose((low, high), (-0.15 * 0.25, -0.15 * 1.25))
    for pi in np.linspace(0, 1, 11):
        assert min(low, high) - 1e-12 <= naive_bias(pi, *DIE, 0.15) <= max(low, high) + 1e-12


@pytest.mark.parametrize("design", [TWO_COINS, DIE, CROSSWISE, DIRECT])
def test_the_bias_matches_a_simulation_of_rrgen(design):
    """Respondent by respondent as RRreg's RRgen draws them: the trait, compliance (complyRates = (1-c, 1-c)),
    then the design's answer or a "no" (sysBias = (0, 0)); the mean estimate within 4 simulation errors."""
    rng = np.random.default_rng(20261126)
    pi, c, n, reps = 0.3, 0.2, 500, 4000
    theta1, theta0 = design
    trait = rng.random((reps, n)) < pi
    complies = rng.random((reps, n)) >= c
    yes = rng.random((reps, n)) < np.where(trait, theta1, theta0)
    stored = yes & complies
    estimates = (stored.mean(axis=1) - theta0) / (theta1 - theta0)
    error = estimates.std(ddof=1) / math.sqrt(reps)
    assert abs(estimates.mean() - pi - naive_bias(pi, *design, c)) < 4 * error
    assert abs(naive_bias(pi, *design, c)) > 10 * error  # the bias is real, not within the noise


def test_with_everyone_complying_the_answers_needed_are_the_planners():
    for t, a, b in ((0.5, 0.25, 0.25), (2 / 3, 1 / 6, 1 / 6), (0.7, 0.2, 0.1)):
        for pi in (None, 0.1, 0.5):
            assert noncompliant_sample_size(0.05, a + t, a, 0.0, pi=pi) == sample_size_for_half_width(
                0.05, t=t, a=a, b=b, pi=pi
            )


def test_asked_directly_the_answers_needed_are_statsmodels():
    # the observed share is (1 - c) pi; statsmodels plans the plain binomial interval for it
    for c, pi in ((0.0, 0.3), (0.2, 0.3), (0.4, 0.8)):
        expected = math.ceil(samplesize_confint_proportion((1 - c) * pi, 0.03) - 1e-9)
        assert noncompliant_sample_size(0.03, *DIRECT, c, pi=pi) == expected


def test_non_compliance_can_lower_the_answers_needed_while_biasing():
    # two coins: lambda_c = 0.9 * [0.25, 0.75] still reaches 1/2, worst case unchanged
    assert noncompliant_sample_size(0.05, *TWO_COINS, 0.1) == 1537
    # direct, pi = 0.5: the observed share 0.4 spreads less than 0.5
    assert noncompliant_sample_size(0.05, *DIRECT, 0.2, pi=0.5) < noncompliant_sample_size(0.05, *DIRECT, 0.0, pi=0.5)


def test_the_half_width_is_the_inverse_of_the_sample_size():
    n = noncompliant_sample_size(0.04, *DIE, 0.1, pi=0.2)
    assert noncompliant_half_width(n, *DIE, 0.1, pi=0.2) <= 0.04 < noncompliant_half_width(n - 1, *DIE, 0.1, pi=0.2)


def test_rr_power_rr_test_printed_power():
    """cran/rr tests/testthat/test-power.R: forced-known p = 2/3, p1 = p0 = 1/6, n = 200, presp = .2,
    presp.null = 0, sig.level = .01, one-sided: power 0.9868872 (passed back to get n)."""
    assert_allclose(noncompliant_power(200, 0.0, 0.2, *DIE, 0.0, alpha=0.01), 0.9868872, atol=5e-8)
    assert noncompliant_sample_size_for_power(0.98688715, 0.0, 0.2, *DIE, 0.0, alpha=0.01) == 200


def test_without_non_compliance_the_power_is_the_planners():
    for pi0, pi1 in ((0.0, 0.2), (0.1, 0.3), (0.5, 0.35)):
        alternative = "larger" if pi1 > pi0 else "smaller"
        assert_allclose(
            noncompliant_power(300, pi0, pi1, *DIE, 0.0, alternative=alternative),
            power_one_sided(300, pi0, pi1, t=2 / 3, a=1 / 6, b=1 / 6),
        )


@pytest.mark.parametrize("design", [TWO_COINS, DIRECT, CROSSWISE])
@pytest.mark.parametrize("alternative", ["larger", "two-sided"])
def test_the_power_is_statsmodels_normal_power_het(design, alternative):
    pi0, pi1, c, n = 0.1, 0.3, 0.15, 400
    theta1, theta0 = design
    d = theta1 - theta0
    lam0 = theta0 + d * pi0
    lam_c = observed_yes_rate(pi1, *design, c)
    shift = pi1 + naive_bias(pi1, *design, c) - pi0
    expected = normal_power_het(
        shift,
        n,
        0.05,
        std_null=math.sqrt(lam0 * (1 - lam0)) / abs(d),
        std_alternative=math.sqrt(lam_c * (1 - lam_c)) / abs(d),
        alternative=alternative,
    )
    assert_allclose(noncompliant_power(n, pi0, pi1, *design, c, alternative=alternative), expected, rtol=1e-10)


def test_the_sample_size_for_power_is_statsmodels_and_the_smallest():
    pi0, pi1, c = 0.0, 0.2, 0.1
    lam0, lam_c = 0.25, observed_yes_rate(pi1, *TWO_COINS, c)
    shift = pi1 + naive_bias(pi1, *TWO_COINS, c)
    exact = normal_sample_size_one_tail(
        shift, 0.8, 0.05, 2 * math.sqrt(lam0 * 0.75), 2 * math.sqrt(lam_c * (1 - lam_c))
    )
    n = noncompliant_sample_size_for_power(0.8, pi0, pi1, *TWO_COINS, c)
    assert n == math.ceil(exact)
    assert noncompliant_power(n, pi0, pi1, *TWO_COINS, c) >= 0.8 > noncompliant_power(n - 1, pi0, pi1, *TWO_COINS, c)
    two = noncompliant_sample_size_for_power(0.8, pi0, pi1, *TWO_COINS, c, alternative="two-sided")
    assert noncompliant_power(two, pi0, pi1, *TWO_COINS, c, alternative="two-sided") >= 0.8
    assert noncompliant_power(two - 1, pi0, pi1, *TWO_COINS, c, alternative="two-sided") < 0.8


def test_no_number_of_answers_detects_a_share_the_non_compliance_hides():
    # two coins, c = 0.5: E[pi_hat] = 0.5 * 0.2 - 0.5 * 0.5 < 0, the test of pi > 0 loses power with n
    assert noncompliant_sample_size_for_power(0.8, 0.0, 0.2, *TWO_COINS, 0.5) is None
    # docs/researchers.md's worked example: 80% power for 20% against 0 as the share grows
    needed = [noncompliant_sample_size_for_power(0.8, 0.0, 0.2, *TWO_COINS, c) for c in (0.0, 0.1, 0.2, 0.3)]
    assert needed == [125, 289, 1321, None]
    assert noncompliant_power(10_000, 0.0, 0.2, *TWO_COINS, 0.5) < noncompliant_power(100, 0.0, 0.2, *TWO_COINS, 0.5)


def test_the_power_matches_a_seeded_simulation():
    """The test as an analyst runs it (threshold from the null's spread), on RRgen-style data with 10% "no"
    sayers; the rejection rate within 4 binomial errors of the simulation (plus 0.005 for the normal
    approximation at n = 1500)."""
    rng = np.random.default_rng(7)
    pi0, pi1, c, n, reps = 0.0, 0.06, 0.1, 1500, 4000
    theta1, theta0 = DIE
    d = theta1 - theta0
    trait = rng.random((reps, n)) < pi1
    stored = (rng.random((reps, n)) < np.where(trait, theta1, theta0)) & (rng.random((reps, n)) >= c)
    estimates = (stored.mean(axis=1) - theta0) / d
    threshold = pi0 + stats.norm.ppf(0.95) * math.sqrt(theta0 * (1 - theta0) / n) / d
    rate = float(np.mean(estimates > threshold))
    power = noncompliant_power(n, pi0, pi1, *DIE, c)
    assert 0.3 < power < 0.9
    assert abs(rate - power) < 4 * math.sqrt(power * (1 - power) / reps) + 0.005
    assert abs(noncompliant_power(n, pi0, pi1, *DIE, 0.0) - power) > 8 * math.sqrt(power * (1 - power) / reps)


def test_a_difference_loses_the_share_that_does_not_comply():
    # same c in both groups: expected difference (1 - c) * 0.1, theta0 cancels
    pi_c, pi_t, c, n = 0.1, 0.2, 0.2, 800
    lam = [observed_yes_rate(pi, *TWO_COINS, c) for pi in (pi_t, pi_c)]
    spread1 = 2 * math.sqrt(sum(x * (1 - x) for x in lam))
    lam0 = observed_yes_rate(pi_c, *TWO_COINS, 0.0)
    spread0 = 2 * math.sqrt(2 * lam0 * (1 - lam0))
    expected = normal_power_het(0.8 * 0.1, n, 0.05, spread0, spread1, alternative="larger")
    assert_allclose(noncompliant_difference_power(n, pi_c, pi_t, *TWO_COINS, c), expected, rtol=1e-10)
    assert noncompliant_difference_power(n, pi_c, pi_t, *TWO_COINS, c) < noncompliant_difference_power(
        n, pi_c, pi_t, *TWO_COINS, 0.0
    )


def test_rr_two_sample_null_at_zero_without_non_compliance():
    """rr's two-sample test (prespT = .2, prespC = .1, both nulls 0): se.null = sqrt(2) se(0), se = the
    alternatives' spreads added (rr's code in R/power.R, no printed digits)."""
    se0 = math.sqrt(2 * (1 / 6) * (5 / 6)) / (2 / 3)
    se1 = math.sqrt(sum(x * (1 - x) for x in (1 / 6 + 2 / 3 * 0.2, 1 / 6 + 2 / 3 * 0.1))) / (2 / 3)
    expected = stats.norm.sf((stats.norm.ppf(0.99) * se0 - 0.1 * math.sqrt(200)) / se1)
    got = noncompliant_difference_power(200, 0.1, 0.2, *DIE, 0.0, alpha=0.01, null=(0.0, 0.0))
    assert_allclose(got, expected, rtol=1e-12)


def test_the_plan_gathers_one_designs_figures():
    plan = noncompliance_plan(*DIRECT, 0.1, 0.05)
    assert isinstance(plan, NoncompliancePlan)
    assert_allclose((plan.bias_low, plan.bias_high, plan.largest_bias), (0.0, -0.1, -0.1), atol=1e-15)
    assert plan.needed_n == 385
    assert noncompliance_plan(*TWO_COINS, 0.0, 0.05).needed_n == 1537


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: naive_bias(0.2, *TWO_COINS, 1.0), "noncompliance=1.0"),
        (lambda: naive_bias(0.2, *TWO_COINS, -0.1), "noncompliance=-0.1"),
        (lambda: naive_bias(0.2, *TWO_COINS, float("nan")), "noncompliance=nan"),
        (lambda: naive_bias(1.2, *TWO_COINS, 0.1), "pi=1.2"),
        (lambda: naive_bias(0.2, 0.5, 0.5, 0.1), "theta1=0.5"),
        (lambda: noncompliant_power(0, 0.0, 0.2, *TWO_COINS, 0.1), "n=0"),
        (lambda: noncompliant_power(10, 0.0, 0.2, *TWO_COINS, 0.1, alternative="bigger"), "alternative='bigger'"),
        (lambda: noncompliant_sample_size(0.0, *TWO_COINS, 0.1), "half_width=0.0"),
        (lambda: noncompliant_sample_size_for_power(1.0, 0.0, 0.2, *TWO_COINS, 0.1), "power=1.0"),
        (lambda: noncompliant_difference_power(10, 0.1, 0.2, *TWO_COINS, 0.1, null=(2, 0)), "null[0]=2"),
    ],
)
def test_bad_arguments_name_themselves(call, name):
    with pytest.raises(ValueError, match=name.replace("[", r"\[").replace("(", r"\(")):
        call()


@pytest.mark.parametrize(
    ("pi0", "pi1", "alternative", "noncompliance", "noncompliant_yes"),
    [
        (0.2, 0.35, "larger", 0.0, 0.0),
        (0.2, 0.35, "larger", 0.1, 0.3),
        (0.4, 0.25, "smaller", 0.0, 0.0),
        (0.4, 0.25, "smaller", 0.1, 0.0),
        (0.2, 0.35, "two-sided", 0.0, 0.0),
        (0.4, 0.25, "two-sided", 0.15, 0.2),
    ],
)
def test_the_sample_size_for_power_is_the_smallest_n_that_reaches_it(
    pi0, pi1, alternative, noncompliance, noncompliant_yes
):
    """Whatever the route to it (the normal approximation's start, then a search up or down), the n returned reaches
    the power and n - 1 does not: checked against noncompliant_power itself."""
    args = (pi0, pi1, *TWO_COINS, noncompliance, 0.05, alternative, noncompliant_yes)
    n = noncompliant_sample_size_for_power(0.8, *args)
    assert noncompliant_power(n, *args) >= 0.8 > noncompliant_power(n - 1, *args)


def test_no_sample_size_reaches_a_power_the_shift_cannot_give():
    # Noncompliant "no" answers pull the yes share down: a true rise from 0.2 to 0.22 reads as a fall.
    assert noncompliant_sample_size_for_power(0.8, 0.2, 0.22, *TWO_COINS, 0.3) is None
    assert noncompliant_sample_size_for_power(0.8, 0.2, 0.2, *TWO_COINS, 0.0) is None  # no shift at all


@pytest.mark.parametrize("target", [0.01, 0.02, 0.045, 0.05])
@pytest.mark.parametrize(
    ("pi0", "pi1", "alternative", "noncompliance"),
    [
        (0.2, 0.35, "larger", 0.0),
        (0.4, 0.25, "smaller", 0.1),
        (0.2, 0.35, "two-sided", 0.0),
        (0.2, 0.22, "larger", 0.3),  # non-compliance pulls the estimate to the null's side
        (0.2, 0.2, "two-sided", 0.0),  # no shift at all
    ],
)
def test_a_power_at_or_below_the_level_needs_the_smallest_n_that_reaches_it(
    pi0, pi1, alternative, noncompliance, target
):
    """A target at or below the test's level (one-sided alpha, or alpha / 2 on each side) is reached by the
    first n whose power reaches it, often one answer: the function said None there ("no n reaches it"),
    though one answer did (two-sided, 0.02: power 0.061 at n = 1). Checked against a scan of n = 1..3000
    with noncompliant_power itself (None: no n of the scan reaches it)."""
    args = (pi0, pi1, *TWO_COINS, noncompliance, 0.05, alternative, 0.0)
    scanned = next((n for n in range(1, 3001) if noncompliant_power(n, *args) >= target), None)
    assert noncompliant_sample_size_for_power(target, *args) == scanned


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: noncompliant_half_width(0, *TWO_COINS, 0.1), "n"),
        (lambda: noncompliant_half_width(10, 1.5, 0.25, 0.1), "theta1"),
        (lambda: noncompliant_half_width(10, 0.75, -0.25, 0.1), "theta0"),
        (lambda: noncompliant_half_width(10, *TWO_COINS, 0.1, noncompliant_yes=2.0), "noncompliant_yes"),
        (lambda: noncompliant_power(10, 1.2, 0.3, *TWO_COINS, 0.1), "pi0"),
        (lambda: noncompliant_power(10, 0.2, -0.3, *TWO_COINS, 0.1), "pi1"),
        (lambda: noncompliant_power(10, 0.2, 0.3, *TWO_COINS, 0.1, alpha=1.0), "alpha"),
        (lambda: noncompliant_difference_power(0, 0.2, 0.3, *TWO_COINS, 0.1), "n"),
        (lambda: noncompliant_difference_power(10, 1.2, 0.3, *TWO_COINS, 0.1), "pi_control"),
        (lambda: noncompliant_difference_power(10, 0.2, 1.3, *TWO_COINS, 0.1), "pi_treated"),
        (lambda: noncompliant_difference_power(10, 0.2, 0.3, *TWO_COINS, 0.1, alpha=0.0), "alpha"),
        (lambda: noncompliant_difference_power(10, 0.2, 0.3, *TWO_COINS, 0.1, null=(0.0, 1.5)), r"null\[1\]"),
    ],
)
def test_each_bad_argument_is_named_exactly(call, name):
    with pytest.raises(ValueError, match=rf"^{name} must"):
        call()


def test_one_answer_is_a_sample_size():
    assert noncompliant_half_width(1, *TWO_COINS, 0.1) > 0
    assert 0 <= noncompliant_difference_power(1, 0.2, 0.3, *TWO_COINS, 0.1) <= 1


def test_the_bias_range_counts_the_noncompliers_yes():
    """-c (pi + (theta0 - s)/d) at pi = 0 and 1: two coins (d = 1/2), c = 0.2, s = 1/2 -> (0.1, -0.1)."""
    assert_allclose(
        bias_range(*TWO_COINS, 0.2, 0.5), (-0.2 * (0 + (0.25 - 0.5) / 0.5), -0.2 * (1 + (0.25 - 0.5) / 0.5))
    )
    assert_allclose(bias_range(*TWO_COINS, 0.2, 0.5), (0.1, -0.1))


@pytest.mark.parametrize(
    ("design", "c", "s"),
    [((0.9, 0.6), 0.2, 1.0), (TWO_COINS, 0.4, 1.0), (TWO_COINS, 0.1, 0.0), ((0.3, 0.05), 0.3, 0.2), (DIRECT, 0.5, 0.9)],
)
def test_the_worst_case_half_width_is_the_largest_over_every_share(design, c, s):
    """pi = None plans for the share whose stored-yes rate is closest to 1/2: the largest half-width over pi in [0, 1],
    found here on a grid of 2,001 shares (ends included; the rate is linear in pi, so the grid misses the top by
    under 1e-6 of it). With non-compliers saying yes (s > 0) the rates at both ends can lie above 1/2."""
    grid = [noncompliant_half_width(100, *design, c, pi=pi, noncompliant_yes=s) for pi in np.linspace(0, 1, 2001)]
    worst = noncompliant_half_width(100, *design, c, noncompliant_yes=s)
    assert max(grid) <= worst * (1 + 1e-12)
    assert worst <= max(grid) * (1 + 1e-6)


def test_a_difference_is_tested_against_the_nulls_difference():
    """null = (0.2, 0.1): the shift is (1 - c)(treated - control) - 0.1, the null's spread that of 0.2 and 0.1 with
    everyone complying (statsmodels' normal_power_het with those two spreads)."""
    n, c = 900, 0.1
    lam = [observed_yes_rate(pi, *TWO_COINS, c) for pi in (0.4, 0.1)]
    lam0 = [observed_yes_rate(pi, *TWO_COINS) for pi in (0.2, 0.1)]
    spread1 = 2 * math.sqrt(sum(x * (1 - x) for x in lam))
    spread0 = 2 * math.sqrt(sum(x * (1 - x) for x in lam0))
    expected = normal_power_het(0.9 * 0.3 - 0.1, n, 0.05, spread0, spread1, alternative="larger")
    got = noncompliant_difference_power(n, 0.1, 0.4, *TWO_COINS, c, null=(0.2, 0.1))
    assert_allclose(got, expected, rtol=1e-10)


def test_the_plan_records_what_it_was_asked_for():
    plan = noncompliance_plan(*DIRECT, 0.1, 0.05, 0.9)
    assert (plan.noncompliance, plan.margin, plan.confidence_level) == (0.1, 0.05, 0.9)
    # worst case asked directly with 10% saying no: lambda_c = 0.9 pi reaches 1/2, so z_0.95^2 / (4 h^2)
    assert plan.needed_n == math.ceil(stats.norm.ppf(0.95) ** 2 / (4 * 0.05**2))
    assert plan.needed_n == noncompliant_sample_size(0.05, *DIRECT, 0.1, 0.9)


def test_noncompliers_saying_yes_enter_every_figure():
    """s = 1/2, c = 0.2, two coins (d = 1/2): lambda_c = 0.8 (0.25 + 0.5 pi) + 0.1 and the bias
    -c (pi + (theta0 - s)/d) = -0.2 (pi - 0.5), written out here; the half-width and the power take that rate."""
    c, s, pi = 0.2, 0.5, 0.3
    lam = 0.8 * (0.25 + 0.5 * pi) + 0.1
    assert_allclose(observed_yes_rate(pi, *TWO_COINS, c, s), lam)
    assert_allclose(naive_bias(pi, *TWO_COINS, c, s), -0.2 * (pi - 0.5))
    z = stats.norm.ppf(0.975)
    assert_allclose(
        noncompliant_half_width(400, *TWO_COINS, c, pi=pi, noncompliant_yes=s),
        z * math.sqrt(lam * (1 - lam) / 400) / 0.5,
    )
    lam0 = 0.25 + 0.5 * 0.1
    expected = normal_power_het(
        pi - 0.2 * (pi - 0.5) - 0.1,
        300,
        0.05,
        2 * math.sqrt(lam0 * (1 - lam0)),
        2 * math.sqrt(lam * (1 - lam)),
        alternative="larger",
    )
    assert_allclose(noncompliant_power(300, 0.1, pi, *TWO_COINS, c, noncompliant_yes=s), expected, rtol=1e-10)
    # non-compliers saying yes half the time push the estimate up: a rise from 0.2 to 0.22 is found (with
    # s = 0 it reads as a fall and no n finds it: test_no_sample_size_reaches_a_power_the_shift_cannot_give)
    assert noncompliant_sample_size_for_power(0.8, 0.2, 0.22, *TWO_COINS, 0.3, noncompliant_yes=0.5) is not None


def test_an_estimate_with_no_spread_is_rejected_or_not_for_certain():
    """Asked directly and everyone has the trait: every answer is yes, the estimate is exactly 1. The test of
    pi = 0.5 rejects when its threshold 0.5 + z_0.95 0.5/sqrt(n) is below 1 (n = 16: 0.71), never when above
    (n = 1: 1.32)."""
    assert noncompliant_power(1, 0.5, 1.0, *DIRECT, 0.0) == 0.0
    assert noncompliant_power(16, 0.5, 1.0, *DIRECT, 0.0) == 1.0


def test_an_unknown_alternative_lists_the_known_ones():
    with pytest.raises(ValueError) as refused:
        noncompliant_power(10, 0.0, 0.2, *TWO_COINS, 0.1, alternative="bigger")
    assert str(refused.value) == "alternative must be one of larger, smaller, two-sided, got alternative='bigger'"


def test_no_shift_at_all_asked_directly_needs_no_sample_size():
    # asked directly the bias at c = 0 is exactly 0, so the shift is exactly 0 (not a rounding error below it)
    assert naive_bias(0.3, *DIRECT, 0.0) == 0.0
    assert noncompliant_sample_size_for_power(0.8, 0.3, 0.3, *DIRECT, 0.0) is None


def _smallest_n_by_statsmodels(target, pi0, pi1, c, alternative, limit):
    """The first n from 1 up with statsmodels' normal_power_het at least ``target`` (two coins, alpha 0.05)."""
    lam0 = observed_yes_rate(pi0, *TWO_COINS)
    lam1 = observed_yes_rate(pi1, *TWO_COINS, c)
    shift = pi1 + naive_bias(pi1, *TWO_COINS, c) - pi0
    s0, s1 = 2 * math.sqrt(lam0 * (1 - lam0)), 2 * math.sqrt(lam1 * (1 - lam1))
    for n in range(1, limit):
        if normal_power_het(shift, n, 0.05, s0, s1, alternative=alternative) >= target:
            return n
    raise AssertionError("not reached")


@pytest.mark.parametrize(
    ("target", "pi0", "pi1"),
    [(0.06, 0.1, 0.2), (0.1, 0.1, 0.3), (0.2, 0.2, 0.25), (0.3, 0.3, 0.35), (0.045, 0.1, 0.12)],
)
def test_a_two_sided_sample_size_counts_the_far_tail(target, pi0, pi1):
    """The one-sided start at alpha/2 leaves out the far tail, which at low power lets fewer answers do (start 10,
    answer 1 for the first; 446 and 442 for the third); the answer is the first n at which statsmodels'
    normal_power_het reaches the target. A target below alpha (0.045) is reached at once: the test rejects a
    true share of 0.12 at least as often as a true 0.1."""
    expected = _smallest_n_by_statsmodels(target, pi0, pi1, 0.0, "two-sided", 2000)
    assert noncompliant_sample_size_for_power(target, pi0, pi1, *TWO_COINS, 0.0, alternative="two-sided") == expected


def test_a_power_reached_exactly_at_some_n_needs_that_n():
    for alternative, n in (("two-sided", 40), ("larger", 5000)):
        target = noncompliant_power(n, 0.2, 0.3, *TWO_COINS, 0.0, alternative=alternative)
        assert noncompliant_sample_size_for_power(target, 0.2, 0.3, *TWO_COINS, 0.0, alternative=alternative) == n


def test_a_start_rounded_down_onto_a_whole_number_is_searched_up():
    """A target that statsmodels reaches at n = 10000.000004: the closed form's 10000.000004 is taken as 10000
    (a rounding error, for whole_n), where the power falls just short, so the answer is 10001."""
    lam0, lam1 = observed_yes_rate(0.2, *TWO_COINS), observed_yes_rate(0.23, *TWO_COINS)
    s0, s1 = 2 * math.sqrt(lam0 * (1 - lam0)), 2 * math.sqrt(lam1 * (1 - lam1))
    target = float(normal_power_het(0.23 - 0.2, 10000 + 4e-6, 0.05, s0, s1, alternative="larger"))
    n = noncompliant_sample_size_for_power(target, 0.2, 0.23, *TWO_COINS, 0.0)
    assert n == 10001
    assert (
        noncompliant_power(10000, 0.2, 0.23, *TWO_COINS, 0.0)
        < target
        <= noncompliant_power(n, 0.2, 0.23, *TWO_COINS, 0.0)
    )


def test_sample_sizes_for_power_when_the_null_or_the_truth_is_certain():
    """Asked directly, everyone complying. Null 0: no answer is yes under it (spread 0), so any estimate above 0
    rejects; power Phi(0.1 sqrt(n) / 0.3) >= 0.8 needs sqrt(n) >= 3 z_0.8, n = 7. True share 1 against 0.5: the
    estimate is exactly 1, rejected once 0.5 + z_0.95 0.5 / sqrt(n) < 1, n > z_0.95^2 = 2.7, so n = 3."""
    assert noncompliant_sample_size_for_power(0.8, 0.0, 0.1, *DIRECT, 0.0) == math.ceil((3 * stats.norm.ppf(0.8)) ** 2)
    assert noncompliant_sample_size_for_power(0.8, 0.5, 1.0, *DIRECT, 0.0) == math.ceil(stats.norm.ppf(0.95) ** 2)


@pytest.mark.parametrize("needed", [2, 3, 40])
@pytest.mark.parametrize("alternative", ["larger", "two-sided"])
def test_a_target_between_the_powers_of_n_minus_one_and_n_needs_n(alternative, needed):
    """The bisection's ends: a target halfway between the power at ``needed - 1`` and at ``needed`` answers
    needs exactly ``needed`` (one answer does not reach it; two, three or forty do)."""
    args = (0.2, 0.35, *TWO_COINS, 0.0, 0.05, alternative, 0.0)
    target = (noncompliant_power(needed - 1, *args) + noncompliant_power(needed, *args)) / 2
    assert noncompliant_sample_size_for_power(target, *args) == needed


def test_a_target_equal_to_one_answers_power_on_the_nulls_side_needs_one_answer():
    """Non-compliance pulls the estimate to the null's side, so the power falls with n: a target equal to
    the power of one answer is reached by one answer (and by no more)."""
    args = (0.2, 0.22, *TWO_COINS, 0.3, 0.05, "larger", 0.0)
    assert noncompliant_sample_size_for_power(noncompliant_power(1, *args), *args) == 1
    assert noncompliant_sample_size_for_power(noncompliant_power(1, *args) * 1.000001, *args) is None
