"""Tests of analysis/finite_population.py: a share of a finite population sampled without replacement."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from analysis import UnrelatedQuestionDesign, estimate_finite_population, estimate_proportion

# RRTCS 0.0.4 (Cobo, Rueda and Arcos 2021), vignette "RRTCS package. Application of Horvitz model to a real
# survey" (inst/doc/my-vignette.pdf, pages 3-4): 710 of 10,777 students sampled without replacement, the
# unrelated-question (Horvitz) model with p = 1/2 and each question's innocuous "yes" share alpha, the "mean"
# estimator with N given. Columns: question, alpha, stored "yes" answers out of 710 (the column sums of the
# package's data set HorvitzDataRealSurvey), then Estimation, Variance, Lower bound, Upper bound as printed.
RRTCS_HORVITZ_REAL_SURVEY = [
    ("copied", Fraction(1, 12), 328, 0.8406103, 0.001389716, 0.767545, 0.9136756),
    ("fought", Fraction(1, 10), 180, 0.4070423, 0.001045196, 0.3436776, 0.4704069),
    ("bullied", Fraction(20, 30), 280, 0.1220657, 0.001337415, 0.05038851, 0.1937429),
    ("bullying", Fraction(1, 10), 81, 0.128169, 0.0005597858, 0.08179667, 0.1745414),
    ("drug", Fraction(10, 30), 164, 0.1286385, 0.000991658, 0.06691805, 0.1903589),
    ("sex", Fraction(1, 12), 53, 0.06596244, 0.000383954, 0.02755745, 0.1043674),
]


def _printed(value: float) -> float:
    """Half a unit in the last of the seven significant digits R prints by default."""
    return 0.5 * 10 ** (math.floor(math.log10(abs(value))) - 6)


@pytest.mark.parametrize(("question", "alpha", "yes", "estimate", "variance", "low", "high"), RRTCS_HORVITZ_REAL_SURVEY)
def test_the_rrtcs_real_survey_of_710_students_is_reproduced_to_its_printed_digits(
    question, alpha, yes, estimate, variance, low, high
):
    design = UnrelatedQuestionDesign(p=Fraction(1, 2), q=alpha)
    t, a, b = design.exact()
    result = estimate_finite_population(design.trait_count(yes, 710), 710, 10_777, t, a, b, 0.95)
    assert result.estimate.estimate_raw == pytest.approx(estimate, abs=_printed(estimate))
    assert result.variance == pytest.approx(variance, abs=_printed(variance))
    assert result.low == pytest.approx(low, abs=_printed(low))
    assert result.high == pytest.approx(high, abs=_printed(high))


def test_a_vanishing_sampling_fraction_gives_the_infinite_population_variance_with_divisor_n_minus_1():
    infinite = estimate_proportion(300, 1000, 0.5, 0.25, 0.25)
    finite = estimate_finite_population(300, 1000, 10**15, 0.5, 0.25, 0.25)
    assert finite.variance == pytest.approx(infinite.std_err**2 * 1000 / 999, rel=1e-9)


def test_a_census_leaves_only_the_randomization_noise():
    # f = 1: the variance is the mean of the unbiased per-answer randomization variances r (r - 1), over n.
    finite = estimate_finite_population(300, 1000, 1000, 0.5, 0.25, 0.25)
    r_yes, r_no = 1.5, -0.5
    assert finite.variance == pytest.approx((300 * r_yes * (r_yes - 1) + 700 * r_no * (r_no - 1)) / 1000**2)


def test_the_variance_is_unbiased_under_sampling_without_replacement_and_randomization():
    # A fixed population of 2,000 with 600 carriers; 20,000 seeded surveys of 500 drawn without replacement,
    # each answer randomized by two coins (a carrier
    # stores "yes" with 3/4, anyone else with 1/4). The mean of V_hat must equal the variance of the estimates: both
    # are averages of 20,000 draws, so they agree within a few of their Monte Carlo standard errors
    # (relative s.e. of a sample variance ~ sqrt(2 / 20,000) = 1%; 5% is five of them).
    rng = np.random.default_rng(20261122)
    carriers = rng.hypergeometric(600, 1400, 500, size=20_000)
    stored_yes = rng.binomial(carriers, 0.75) + rng.binomial(500 - carriers, 0.25)
    results = [estimate_finite_population(int(y), 500, 2000) for y in stored_yes]
    estimates = [result.estimate.estimate_raw for result in results]
    variances = [result.variance for result in results]
    assert np.mean(estimates) == pytest.approx(0.3, abs=4 * np.std(estimates) / math.sqrt(20_000))
    assert np.mean(variances) == pytest.approx(np.var(estimates, ddof=1), rel=0.05)


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ((10, 100, 99), "population_size"),
        ((10, 100, 100.5), "population_size"),
        ((10, 100, True), "population_size"),
        ((1, 1, 100), "n must be at least 2"),
        ((101, 100, 1000), "yes_count"),
    ],
)
def test_a_bad_argument_is_refused_naming_it(arguments, named):
    with pytest.raises(ValueError, match=named):
        estimate_finite_population(*arguments)


def test_two_answers_are_enough_for_a_sample_variance():
    result = estimate_finite_population(1, 2, 10)
    assert result.population_size == 10 and result.sampling_fraction == 0.2


def test_the_result_carries_its_population_fraction_error_and_level():
    result = estimate_finite_population(30, 100, 400, confidence_level=0.9)
    assert (result.population_size, result.sampling_fraction, result.confidence_level) == (400, 0.25, 0.9)
    assert result.std_err == pytest.approx(math.sqrt(result.variance))
    assert result.high - result.low == pytest.approx(2 * 1.6448536269514722 * result.std_err)


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"population_size": 99}, "population_size must be an integer >= 100, got population_size=99"),
        (
            {"population_size": 400, "confidence_level": 1.0},
            "confidence_level must be in (0, 1), got confidence_level=1.0",
        ),
    ],
)
def test_bad_arguments_are_named_exactly(keywords, message):
    import re

    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        estimate_finite_population(10, 100, **keywords)
