"""analysis.weighting: post-stratification and raking of randomized shares to known population counts."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from analysis import UnrelatedQuestionDesign, post_stratified_share, post_stratify, rake, raked_share

# R's survey package, tests/kalton.R and its printed output tests/kalton.Rout.save (Kalton and Flores-Cervantes
# 2003's example): a 4 x 3 table of sample counts and of population counts, expand.grid order (a fastest).
KALTON_SAMPLE = np.array([20, 50, 100, 30, 40, 140, 50, 100, 40, 310, 50, 70]).reshape(3, 4).T
KALTON_POPULATION = np.array([80, 60, 170, 55, 40, 150, 60, 165, 55, 340, 200, 125]).reshape(3, 4).T
# "table B": round(svytable(~a+b, drake) / xtabs(~a+b, kaltonsample), 2), the raked weights.
KALTON_TABLE_B = np.array(
    [[1.81, 1.45, 2.02], [1.08, 0.87, 1.21], [2.20, 1.76, 2.45], [1.83, 1.47, 2.04]],
)
# "table A": the post-stratified weights, N_c / n_c.
KALTON_TABLE_A = np.array(
    [[4.00, 1.00, 1.38], [1.20, 1.07, 1.10], [1.70, 1.20, 4.00], [1.83, 1.65, 1.79]],
)


def test_raking_reproduces_the_survey_packages_kalton_weights_to_its_printed_digits():
    raking = rake(KALTON_SAMPLE, [KALTON_POPULATION.sum(axis=1), KALTON_POPULATION.sum(axis=0)])
    assert raking.converged
    np.testing.assert_allclose(raking.weights, KALTON_TABLE_B, atol=0.005 + 1e-12)
    np.testing.assert_allclose(raking.fitted.sum(axis=1), KALTON_POPULATION.sum(axis=1))
    np.testing.assert_allclose(raking.fitted.sum(axis=0), KALTON_POPULATION.sum(axis=0))
    # Post-stratifying on the joint cells (table A) is raking to the full table.
    np.testing.assert_allclose(KALTON_POPULATION / KALTON_SAMPLE, KALTON_TABLE_A, atol=0.005 + 1e-12)


# RRTCS 0.0.4 vignette (see tests/test_finite_population.py): "copied", 328 stored yeses of 710 students drawn
# from 10,777, Horvitz model p = 1/2, alpha = 1/12; printed Estimation 0.8406103, Variance 0.001389716.
def test_one_post_stratum_with_the_population_count_is_the_rrtcs_printed_estimate_and_variance():
    design = UnrelatedQuestionDesign(p=Fraction(1, 2), q=Fraction(1, 12))
    t, a, b = design.exact()
    result = post_stratified_share([design.trait_count(328, 710)], [710], [10_777], t, a, b, finite_population=True)
    assert result.estimate_raw == pytest.approx(0.8406103, abs=5e-8)
    assert result.variance == pytest.approx(0.001389716, abs=5e-10)
    assert result.design_effect == pytest.approx(1.0)


def test_post_stratification_by_hand():
    # Two coins; arts 70 of 200 stored yes (p = 0.2), science 240 of 400 (p = 0.7); N = 1200, 800.
    result = post_stratified_share([70, 240], [200, 400], [1200, 800])
    assert result.estimate_raw == pytest.approx(0.6 * 0.2 + 0.4 * 0.7)
    var_arts = 0.35 * 0.65 / (200 * 0.25)
    var_science = 0.6 * 0.4 / (400 * 0.25)
    assert result.variance == pytest.approx(0.36 * var_arts + 0.16 * var_science)
    rate = 310 / 600
    unweighted = rate * (1 - rate) / (600 * 0.25)
    assert result.unweighted_estimate == pytest.approx((rate - 0.25) / 0.5)
    assert result.design_effect == pytest.approx(result.variance / unweighted)
    assert result.method == "post-stratified"


def test_raking_to_one_margin_is_post_stratification():
    ps = post_stratified_share([60, 240, 90], [200, 400, 300], [1200, 800, 1000])
    raked = raked_share([60, 240, 90], [200, 400, 300], [[1200, 800, 1000]])
    assert raked.estimate_raw == pytest.approx(ps.estimate_raw, rel=1e-12)
    # The package's linearisation has the factor n / (n - 1) that the stratified formula has not.
    assert raked.variance == pytest.approx(ps.variance * 900 / 899, rel=1e-9)


def test_the_raked_variance_from_cell_sums_equals_the_answer_by_answer_linearisation():
    rng = np.random.default_rng(7)
    ns = rng.integers(20, 80, size=(3, 2))
    ys = rng.binomial(ns, 0.4)
    margins = [np.array([500.0, 300.0, 200.0]), np.array([450.0, 550.0])]
    result = raked_share(ys, ns, margins)
    weights = rake(ns, margins).weights
    # One row per answer: its cell's weight and indicators, r = (z - 1/4) / (1/2).
    rows, w, r = [], [], []
    for (i, j), n in np.ndenumerate(ns):
        for z in [1] * ys[i, j] + [0] * (n - ys[i, j]):
            rows.append([i == 0, i == 1, i == 2, j == 0, j == 1])
            w.append(weights[i, j])
            r.append((z - 0.25) / 0.5)
    x, w, r = np.array(rows, dtype=float), np.array(w), np.array(r)
    total = w.sum()
    beta = np.linalg.lstsq(x * np.sqrt(w)[:, None], r * np.sqrt(w), rcond=None)[0]
    z = w * (r - x @ beta) / total
    n = len(r)
    assert result.estimate_raw == pytest.approx(w @ r / total, rel=1e-12)
    assert result.variance == pytest.approx(n / (n - 1) * np.sum((z - z.mean()) ** 2), rel=1e-9)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"estimates": [0.1], "variances": [0.01, 0.02], "population_counts": [5]}, "equally long"),
        ({"estimates": [0.1], "variances": [0.01], "population_counts": [0]}, "population_counts"),
        ({"estimates": [0.1], "variances": [-1.0], "population_counts": [5]}, "variances"),
    ],
)
def test_post_stratify_names_the_bad_value(kwargs, message):
    with pytest.raises(ValueError, match=message):
        post_stratify(**kwargs)


def test_rake_refuses_a_level_without_answers_and_unequal_totals():
    with pytest.raises(ValueError, match="level 1 of margin 0"):
        rake([[5, 5], [0, 0]], [[10, 10], [10, 10]])
    with pytest.raises(ValueError, match="same total"):
        rake([[5, 5], [5, 5]], [[10, 10], [10, 11]])


def _two_coins(rng, truth):
    """Stored answers under two coins: a carrier stores yes with 3/4, anyone else with 1/4."""
    return rng.random(truth.shape) < np.where(truth, 0.75, 0.25)


def test_post_stratified_interval_covers_and_the_unweighted_share_is_biased_by_simulation():
    # Arts (60% of the population, prevalence 0.2) answer at a third of science's rate (40%, prevalence 0.6):
    # the unweighted share is biased towards science; the post-stratified one is not. 2,000 seeded surveys of
    # 600 answers; the 95% coverage must be within 4 binomial standard errors of the simulation.
    rng = np.random.default_rng(29)
    reps, n = 2000, 600
    shares, prevalence = np.array([0.6, 0.4]), np.array([0.2, 0.6])
    answer_share = shares * np.array([1, 3]) / (shares * np.array([1, 3])).sum()
    truth_share = float(shares @ prevalence)
    covered, estimates, unweighted = 0, [], []
    for _ in range(reps):
        group = rng.random(n) < answer_share[1]
        truth = rng.random(n) < prevalence[group.astype(int)]
        stored = _two_coins(rng, truth)
        ys = [int(stored[~group].sum()), int(stored[group].sum())]
        ns = [int((~group).sum()), int(group.sum())]
        result = post_stratified_share(ys, ns, [6000, 4000])
        covered += (
            result.estimate_raw - 1.96 * result.std_err <= truth_share <= result.estimate_raw + 1.96 * result.std_err
        )
        estimates.append(result.estimate_raw)
        unweighted.append(result.unweighted_estimate)
    coverage = covered / reps
    assert abs(coverage - 0.95) <= 4 * math.sqrt(0.95 * 0.05 / reps)
    mc_se = np.std(estimates) / math.sqrt(reps)
    assert abs(np.mean(estimates) - truth_share) <= 4 * mc_se
    assert np.mean(unweighted) - truth_share > 10 * mc_se


def test_raked_interval_covers_by_simulation():
    # Two plain questions, 2 x 3 cells; the population's margins only are known; the answering rate and the
    # prevalence both follow the margins' main effects (raking's model). 1,500 seeded surveys of 900 answers.
    rng = np.random.default_rng(2029)
    reps, n = 1500, 900
    population = np.array([[3000.0, 2000.0, 1000.0], [1000.0, 2000.0, 1000.0]])
    prevalence = np.array([[0.1, 0.3, 0.5], [0.3, 0.5, 0.7]])
    rate = np.outer([1.0, 2.5], [1.0, 0.5, 2.0])
    probabilities = (population * rate / (population * rate).sum()).ravel()
    truth_share = float((population * prevalence).sum() / population.sum())
    margins = [population.sum(axis=1), population.sum(axis=0)]
    covered, estimates = 0, []
    for _ in range(reps):
        ns = rng.multinomial(n, probabilities).reshape(2, 3)
        truths = rng.binomial(ns, prevalence)
        ys = rng.binomial(truths, 0.75) + rng.binomial(ns - truths, 0.25)
        result = raked_share(ys, ns, margins)
        covered += abs(result.estimate_raw - truth_share) <= 1.96 * result.std_err
        estimates.append(result.estimate_raw)
    coverage = covered / reps
    assert abs(coverage - 0.95) <= 4 * math.sqrt(0.95 * 0.05 / reps)
    assert abs(np.mean(estimates) - truth_share) <= 4 * np.std(estimates) / math.sqrt(reps)


# What a weighted share records, and where its interval is clipped: weighted_estimate, the one home of the result.
def test_the_result_records_its_level_its_unweighted_figures_and_its_population():
    result = post_stratify([0.2, 0.7], [0.004, 0.002], [1200, 800], 0.9, 0.41, 0.05)
    assert result.confidence_level == 0.9
    assert (result.unweighted_estimate, result.unweighted_std_err) == (0.41, 0.05)
    assert result.design_effect == pytest.approx(result.variance / 0.05**2)
    assert result.population_size == 2000.0
    assert result.finite_population is False
    assert post_stratify([0.2], [0.004], [10], finite_population=True).finite_population is True
    half = 1.6448536269514722 * math.sqrt(result.variance)  # the normal quantile at 0.95, one-sided
    assert (result.low, result.high) == pytest.approx((result.estimate_raw - half, result.estimate_raw + half))


@pytest.mark.parametrize("unweighted_std_err", [None, 0.0])
def test_there_is_no_design_effect_without_a_positive_unweighted_standard_error(unweighted_std_err):
    result = post_stratify([0.3], [0.01], [50], unweighted_estimate=0.3, unweighted_std_err=unweighted_std_err)
    assert result.design_effect is None


@pytest.mark.parametrize(
    ("raw", "estimate", "low", "high"),
    [(-0.1, 0.0, 0.0, None), (1.1, 1.0, None, 1.0), (-0.9, 0.0, 0.0, 0.0), (1.9, 1.0, 1.0, 1.0)],
)
def test_the_estimate_and_its_interval_are_clipped_to_the_unit_interval(raw, estimate, low, high):
    result = post_stratify([raw], [0.01], [50])
    assert result.estimate_raw == raw
    assert result.estimate == estimate
    half = 1.959963984540054 * 0.1
    assert result.low == (low if low is not None else pytest.approx(raw - half))
    assert result.high == (high if high is not None else pytest.approx(raw + half))


def test_fractions_a_count_of_one_and_a_variance_of_zero_are_taken():
    as_floats = post_stratify([0.25, 0.5], [0.0, 0.01], [1, 3])
    as_fractions = post_stratify(
        [Fraction(1, 4), Fraction(1, 2)], [Fraction(0), Fraction(1, 100)], [Fraction(1), Fraction(3)]
    )
    assert as_floats.estimate_raw == pytest.approx(0.25 / 4 + 0.5 * 3 / 4)
    assert as_floats.variance == pytest.approx(0.01 * 9 / 16)
    assert (as_fractions.estimate_raw, as_fractions.variance) == pytest.approx(
        (as_floats.estimate_raw, as_floats.variance)
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"estimates": [], "variances": [], "population_counts": []}, "equally long, got 0, 0, 0"),
        ({"estimates": [[0.1]], "variances": [[0.01]], "population_counts": [[5]]}, "equally long"),
        ({"estimates": [0.1], "variances": [0.01], "population_counts": [math.inf]}, "population_counts=\\[inf\\]"),
        ({"estimates": [0.1], "variances": [math.nan], "population_counts": [5]}, "variances=\\[nan\\]"),
        ({"estimates": [math.nan], "variances": [0.01], "population_counts": [5]}, "variances"),
        (
            {"estimates": [0.1], "variances": [0.01], "population_counts": [5], "confidence_level": 1.5},
            r"\bconfidence_level\b",
        ),
    ],
)
def test_post_stratify_names_each_bad_value(kwargs, message):
    with pytest.raises(ValueError, match=message):
        post_stratify(**kwargs)


def test_a_one_cell_table_is_raked_to_its_count():
    raking = rake([5], [[10]])
    assert raking.converged and raking.iterations == 1
    np.testing.assert_allclose(raking.weights, [2.0])


@pytest.mark.parametrize(
    ("sample", "margins", "message"),
    [
        ([], [[]], "sample must be non-negative finite counts, got sample=\\[\\]"),
        ([math.nan, 1], [[1, 1]], "sample must be non-negative finite counts"),
        ([-1, 2], [[1, 1]], "sample must be non-negative finite counts"),
        ([1, 2], [[1, math.inf]], "margins\\[0\\] must be non-negative finite counts, got margins\\[0\\]="),
        ([[1, 2], [3, 4]], [[5, 5], [-5, 15]], "margins\\[1\\] must be non-negative"),
    ],
)
def test_rake_names_each_bad_count(sample, margins, message):
    with pytest.raises(ValueError, match=message):
        rake(sample, margins)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"yes_counts": [-1, 2], "ns": [4, 4]}, "yes_counts must be non-negative finite counts, got yes_counts="),
        ({"yes_counts": [1, 2], "ns": [4, math.nan]}, "ns must be non-negative finite counts, got ns="),
        ({"yes_counts": [1, 2], "ns": [4, 4], "confidence_level": 0.0}, r"\bconfidence_level\b"),
    ],
)
def test_raked_share_names_each_bad_value(kwargs, message):
    with pytest.raises(ValueError, match=message):
        raked_share(**{"margins": [[10, 10]], **kwargs})


def test_the_raked_share_records_its_unweighted_figures_by_hand():
    # Two coins; 30 of 60 and 10 of 40 stored yes: rate 0.4, unweighted (0.4 - 1/4) / (1/2) = 0.3 with variance
    # 0.4 * 0.6 / (1/4) / (n - 1), the package's n - 1.
    result = raked_share([30, 10], [60, 40], [[500, 500]])
    assert result.method == "raked"
    assert result.population_size == 1000.0 and result.finite_population is False
    assert result.unweighted_estimate == pytest.approx(0.3)
    assert result.unweighted_std_err == pytest.approx(math.sqrt(0.4 * 0.6 / 0.25 / 99))
    assert result.design_effect == pytest.approx(result.variance / result.unweighted_std_err**2)
    assert result.estimate_raw == pytest.approx(0.5 * (0.5 - 0.25) / 0.5 + 0.5 * (0.25 - 0.25) / 0.5)


def test_the_raked_share_takes_yes_at_ns_and_two_answers_and_refuses_more_yes_or_fewer_answers():
    assert raked_share([4, 1], [4, 1], [[5, 5]]).estimate_raw == pytest.approx(1.5)
    assert raked_share([1, 0], [1, 1], [[5, 5]]).estimate_raw == pytest.approx(0.5 * 1.5 + 0.5 * -0.5)  # n = 2
    with pytest.raises(ValueError, match="yes_counts must be at most ns cell by cell, got shapes"):
        raked_share([5, 1], [4, 1], [[5, 5]])
    with pytest.raises(ValueError, match="at most ns cell by cell"):
        raked_share([1, 1, 1], [4, 1], [[5, 5]])
    with pytest.raises(ValueError, match="raking needs at least 2 answers, got n=1"):
        raked_share([1], [1], [[5]])


def test_the_post_stratified_share_uses_the_design_and_takes_one_answer_a_group():
    # t = 2/3, a = b = 1/6: p_h = (y_h / n_h - 1/6) / (2/3).
    result = post_stratified_share([1, 3], [1, 6], [100, 300], 2 / 3, 1 / 6, 1 / 6)
    p = [(1 - 1 / 6) / (2 / 3), (0.5 - 1 / 6) / (2 / 3)]
    assert result.estimate_raw == pytest.approx(0.25 * p[0] + 0.75 * p[1])
    assert result.unweighted_estimate == pytest.approx((4 / 7 - 1 / 6) / (2 / 3))
    assert post_stratified_share([1, 3], [2, 6], [100, 300], finite_population=True).finite_population is True
    with pytest.raises(ValueError, match="every group needs answers to be post-stratified, got ns=\\[0, 6\\]"):
        post_stratified_share([0, 3], [0, 6], [100, 300])
    with pytest.raises(ValueError, match="yes_counts, ns and population_counts must be equally long, got 2, 1"):
        post_stratified_share([0, 3], [6], [100, 300])
    with pytest.raises(ValueError, match="equally long"):
        post_stratified_share([[1, 3]], [[4, 6]], [[100, 300]])


def test_rake_names_a_margin_of_the_wrong_count_or_length():
    with pytest.raises(ValueError, match="margins must give one margin per axis \\(2\\), got 1"):
        rake([[1, 2], [3, 4]], [[5, 5]])
    with pytest.raises(ValueError, match="margins\\[1\\] must have 2 counts, got 3"):
        rake([[1, 2], [3, 4]], [[5, 5], [3, 3, 4]])


def test_rake_leaves_an_empty_level_without_population_at_zero_and_weights_a_cell_of_one():
    raking = rake([[5, 5], [0, 0]], [[10, 0], [5, 5]])
    np.testing.assert_array_equal(raking.fitted[1], [0.0, 0.0])
    np.testing.assert_array_equal(raking.weights[1], [0.0, 0.0])
    with pytest.raises(ValueError, match="level 1 of margin 0 has population but no answers"):
        rake([[5, 5], [0, 0]], [[9, 1], [5, 5]])
    np.testing.assert_allclose(rake([1, 3], [[2, 6]]).weights, [2.0, 2.0])
    two_way = rake([[1, 0], [3, 4]], [[2, 14], [6, 10]])
    assert two_way.weights[0, 1] == 0.0 and np.all(np.isfinite(two_way.weights))
    np.testing.assert_allclose(two_way.fitted.sum(axis=0), [6, 10])


def test_rake_counts_its_sweeps_and_stops_at_max_iter():
    margins = [KALTON_POPULATION.sum(axis=1), KALTON_POPULATION.sum(axis=0)]
    assert rake(KALTON_SAMPLE, margins).iterations > 2
    stopped = rake(KALTON_SAMPLE, margins, max_iter=2)
    assert stopped.iterations == 2 and not stopped.converged


def test_a_large_table_s_empty_cells_get_weight_zero():
    """``weights`` is 0 where the sample cell is empty (Raking's docstring), also for a table of more than 128
    cells: numpy recycles its own freed buffers only up to 1024 bytes, so a fresh larger buffer comes from malloc,
    whose bookkeeping sits in its first bytes; a weight left unset there would not read as 0. A 20 x 15 table with
    every seventh cell empty, raked to twice its own margins (so every other weight is 2)."""
    table = (np.arange(300) % 7).reshape(20, 15).astype(float)
    raking = rake(table, [2 * table.sum(axis=1), 2 * table.sum(axis=0)])
    assert raking.converged
    np.testing.assert_array_equal(raking.weights[table == 0], 0.0)
    np.testing.assert_allclose(raking.weights[table > 0], 2.0)
