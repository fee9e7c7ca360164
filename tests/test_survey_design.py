"""analysis.survey_design: design weights, strata and clusters (Hajek, Horvitz-Thompson, linearisation, jackknife)."""

from __future__ import annotations

import csv
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from analysis import (
    UnrelatedQuestionDesign,
    design_estimate,
    design_share,
    estimate_finite_population,
    estimate_proportion,
)

# R's survey package's API samples (its inst/api.db): apiclus1 (15 districts of 757, every school of each, pw,
# fpc = 757) and apistrat (200 schools stratified by type, pw, fpc = the type's schools). The columns used.
API = list(csv.DictReader((Path(__file__).parent / "helpers" / "r_survey_api.csv").read_text().splitlines()))


def _sample(name):
    return [row for row in API if row["sample"] == name]


def _clusters(rows, variable):
    """Per district: (sum pw * variable, sum pw)."""
    totals = {}
    for row in rows:
        y, x = totals.get(row["dnum"], (0.0, 0.0))
        totals[row["dnum"]] = (y + float(row["pw"]) * float(row[variable]), x + float(row["pw"]))
    return [y for y, _ in totals.values()], [x for _, x in totals.values()]


def _units(rows, variable):
    return [float(r["pw"]) * float(r[variable]) for r in rows], [float(r["pw"]) for r in rows]


# The printed outputs. dclus1 <- svydesign(id=~dnum, weights=~pw, data=apiclus1, fpc=~fpc):
# svymean(~api00, dclus1) 644.17 SE 23.542 (the package's vignette, survey.pdf); without fpc 23.779 and
# svytotal(~enroll) 3404940 SE 941611 (as printed in tutorials of the package); rclus1 <- as.svrepdesign(dclus1)
# (JK1): svymean(~api00, rclus1) 644.17 SE 26.329.
@pytest.mark.parametrize(
    ("method", "with_fpc", "se"),
    [("linearization", True, 23.542), ("linearization", False, 23.779), ("jackknife", True, 26.329)],
)
def test_a_cluster_sample_gives_the_survey_packages_printed_mean_and_se(method, with_fpc, se):
    y, x = _clusters(_sample("apiclus1"), "api00")
    result = design_estimate(y, x, fpc=[757] * len(y) if with_fpc else None, method=method)
    assert round(result.ratio, 2) == 644.17
    assert result.ratio_variance**0.5 == pytest.approx(se, abs=0.0005)
    assert result.psus == 15 and result.strata == 1


def test_a_cluster_samples_total_is_the_printed_horvitz_thompson_total():
    y, x = _clusters(_sample("apiclus1"), "enroll")
    result = design_estimate(y, x, population_size=6194)
    assert round(result.total) == 3404940
    assert result.total_variance**0.5 == pytest.approx(941611, abs=0.5)
    assert result.ht_mean == pytest.approx(result.total / 6194)
    assert result.ht_variance == pytest.approx(result.total_variance / 6194**2)


# dstrat <- svydesign(id=~1, strata=~stype, weights=~pw, data=apistrat, fpc=~fpc): svymean(~api00) 662.29 SE 9.4089,
# svymean(~api99) SE 9.9639, svytotal(~enroll) 3687178 SE 114642; without fpc, as.svrepdesign(type="JKn"):
# api00 SE 9.5361, api99 SE 10.0970.
@pytest.mark.parametrize(
    ("variable", "method", "with_fpc", "se"),
    [
        ("api00", "linearization", True, 9.4089),
        ("api99", "linearization", True, 9.9639),
        ("api99", "jackknife", True, 9.9639),
        ("api00", "jackknife", False, 9.5361),
        ("api99", "jackknife", False, 10.0970),
    ],
)
def test_a_stratified_sample_gives_the_survey_packages_printed_se(variable, method, with_fpc, se):
    rows = _sample("apistrat")
    y, x = _units(rows, variable)
    fpc = [float(r["fpc"]) for r in rows] if with_fpc else None
    result = design_estimate(y, x, [r["stype"] for r in rows], fpc=fpc, method=method)
    assert result.ratio_variance**0.5 == pytest.approx(se, abs=0.00005 if se < 10 else 0.0005)
    assert result.strata == 3 and result.psus == 200


def test_a_stratified_samples_total_is_the_printed_total_and_se():
    rows = _sample("apistrat")
    y, x = _units(rows, "enroll")
    result = design_estimate(y, x, [r["stype"] for r in rows], fpc=[float(r["fpc"]) for r in rows])
    assert round(result.total) == 3687178
    assert result.total_variance**0.5 == pytest.approx(114642, abs=0.5)


# tests/lonely.psu.Rout.save: apiclus1 stratified by district, each school a PSU; district 413 has one school.
# survey.lonely.psu = "remove" or "certainty": svymean(~api00) SE 5.8058, and as.svrepdesign (JKn) the same;
# with fpc 1000 (1 for district 413: drawn whole) 5.7344.
@pytest.mark.parametrize("method", ["linearization", "jackknife"])
def test_a_stratum_with_one_psu_adds_nothing_as_the_survey_package_prints(method):
    rows = _sample("apiclus1")
    y, x = _units(rows, "api00")
    strata = [r["dnum"] for r in rows]
    lonely = design_estimate(y, x, strata, method=method)
    assert lonely.ratio_variance**0.5 == pytest.approx(5.8058, abs=0.00005)
    assert lonely.lonely_strata == ("413",)
    fpc = [1.0 if r["dnum"] == "413" else 1000.0 for r in rows]
    whole = design_estimate(y, x, strata, fpc=fpc, method=method)
    assert whole.ratio_variance**0.5 == pytest.approx(5.7344, abs=0.00005)
    assert whole.lonely_strata == ()


def test_rows_with_multiplicities_are_the_psus_one_by_one():
    rng = np.random.default_rng(5)
    values = rng.choice([-0.5, 1.5], size=40)
    weights = np.repeat([2.0, 5.0], 20)
    strata = np.repeat(["a", "b"], 20)
    for method in ("linearization", "jackknife"):
        one_by_one = design_estimate(values * weights, weights, strata, method=method, fpc=[60] * 20 + [90] * 20)
        rows = [(v * w, w, s) for v, w, s in zip(values, weights, strata)]
        distinct = sorted(set(rows))
        counts = [rows.count(r) for r in distinct]
        grouped = design_estimate(
            *zip(*distinct), multiplicities=counts, method=method, fpc=[60 if r[2] == "a" else 90 for r in distinct]
        )
        assert grouped.ratio == pytest.approx(one_by_one.ratio, rel=1e-12)
        assert grouped.ratio_variance == pytest.approx(one_by_one.ratio_variance, rel=1e-10)
        assert grouped.psus == 40


def test_the_jackknife_of_a_total_is_its_linearisation():
    # A total is linear in the PSU totals: the delete-one jackknife (JKn) equals the linearisation exactly.
    rng = np.random.default_rng(11)
    y, x = rng.gamma(2.0, 10.0, 12), rng.uniform(1, 3, 12)
    strata = list("aaaabbbbcccc")
    lin = design_estimate(y, x, strata, population_size=500.0)
    jack = design_estimate(y, x, strata, population_size=500.0, method="jackknife")
    assert jack.total_variance == pytest.approx(lin.total_variance, rel=1e-10)
    assert jack.ht_variance == pytest.approx(lin.ht_variance, rel=1e-10)
    assert jack.ratio_variance != pytest.approx(lin.ratio_variance, rel=1e-6)


# RRTCS 0.0.4's vignette (tests/test_finite_population.py): 328 stored yeses of 710 students drawn from 10,777,
# Horvitz model p = 1/2, alpha = 1/12: printed Estimation 0.8406103, Variance 0.001389716. As one stratum whose
# students are each a PSU with weight N / n and fpc N, both estimators give them.
@pytest.mark.parametrize("method", ["linearization", "jackknife"])
def test_one_stratum_without_replacement_is_rrtcs_printed_estimate_and_variance(method):
    design = UnrelatedQuestionDesign(p=Fraction(1, 2), q=Fraction(1, 12))
    t, a, b = design.exact()
    y = design.trait_count(328, 710)
    share = design_share([y], [710], [10_777 / 710], None, False, [10_777], 10_777, t, a, b, method)
    for estimate in (share.hajek, share.horvitz_thompson):
        assert estimate.estimate_raw == pytest.approx(0.8406103, abs=5e-8)
        assert estimate.variance == pytest.approx(0.001389716, abs=5e-10)
    assert share.hajek.variance == pytest.approx(estimate_finite_population(y, 710, 10_777, t, a, b).variance)


def test_equal_weights_without_clusters_give_the_plain_estimate_and_its_variance_times_n_over_n_minus_one():
    share = design_share([70, 240], [200, 400], [3.0, 3.0], clustered=False)
    pooled = estimate_proportion(310, 600)
    # Two strata of equal weights: the stratified variance of the two groups' estimates.
    assert share.hajek.estimate_raw == pytest.approx(pooled.estimate_raw)
    parts = [(70, 200), (240, 400)]
    expected = sum((n / 600) ** 2 * (y / n) * (1 - y / n) / (0.25 * (n - 1)) for y, n in parts)
    assert share.hajek.variance == pytest.approx(expected, rel=1e-12)
    assert share.hajek.design_effect == pytest.approx(expected / pooled.std_err**2)
    assert share.horvitz_thompson is None and share.hajek.method == "hajek"


def test_a_cluster_sample_of_randomized_answers_covers_by_simulation():
    # A population of 80 + 40 classes of 20 students in two faculties, each class with its own prevalence
    # (answers within a class are alike). Each run draws 16 and 12 classes without replacement; every student
    # answers under two coins. 1,000 seeded runs: the mean estimated variance must equal the estimates'
    # variance within 4 of its own standard errors (sqrt(2 / (runs - 1)) relative, for a sample variance),
    # the estimate unbiased within 4 Monte Carlo standard errors and the 95% Wald interval's coverage within
    # 4 binomial standard errors of 0.95 (sqrt(0.95 x 0.05 / runs)).
    rng = np.random.default_rng(2929)
    sizes, drawn, per_class, runs = (80, 40), (16, 12), 20, 1000
    truths = [rng.random((big, per_class)) < rng.beta(*ab, big)[:, None] for big, ab in zip(sizes, [(2, 6), (5, 4)])]
    truth = sum(t.sum() for t in truths) / (sum(sizes) * per_class)
    weights = [big / n for big, n in zip(sizes, drawn)] * 1
    estimates, variances, covered = [], [], {"hajek": 0, "ht": 0, "jackknife": 0}
    for _ in range(runs):
        ys = []
        for population, n in zip(truths, drawn):
            chosen = population[rng.choice(len(population), n, replace=False)]
            ys.extend((rng.random(chosen.shape) < np.where(chosen, 0.75, 0.25)).sum(axis=1))
        w = [weights[0]] * drawn[0] + [weights[1]] * drawn[1]
        strata = ["arts"] * drawn[0] + ["science"] * drawn[1]
        fpc = [sizes[0]] * drawn[0] + [sizes[1]] * drawn[1]
        share = design_share(ys, [per_class] * len(ys), w, strata, True, fpc, sum(sizes) * per_class)
        jack = design_share(ys, [per_class] * len(ys), w, strata, True, fpc, method="jackknife").hajek
        for name, e in (("hajek", share.hajek), ("ht", share.horvitz_thompson), ("jackknife", jack)):
            covered[name] += e.low <= truth <= e.high
        estimates.append(share.horvitz_thompson.estimate_raw)
        variances.append(share.horvitz_thompson.variance)
    estimates = np.array(estimates)
    assert abs(np.mean(variances) / estimates.var() - 1) <= 4 * math.sqrt(2 / (runs - 1))
    assert abs(estimates.mean() - truth) <= 4 * estimates.std() / math.sqrt(runs)
    for name, count in covered.items():
        assert abs(count / runs - 0.95) <= 4 * math.sqrt(0.95 * 0.05 / runs), name


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"totals": [1.0, 2.0], "weights": [1.0]}, "weights"),
        ({"totals": [1.0], "weights": [0.0]}, "weights must be positive"),
        ({"totals": [1.0, 2.0], "weights": [1.0, 1.0], "strata": ["a"]}, "strata"),
        ({"totals": [1.0, 2.0], "weights": [1.0, 1.0], "fpc": [1, 1]}, "fpc must be at least"),
        ({"totals": [1.0, 2.0], "weights": [1.0, 1.0], "method": "bootstrap"}, "method"),
        ({"totals": [1.0, 2.0], "weights": [1.0, 1.0], "population_size": 0}, "population_size"),
        ({"totals": [1.0, 2.0], "weights": [1.0, 1.0], "multiplicities": [1, -1]}, "multiplicities"),
    ],
)
def test_design_estimate_names_the_bad_value(kwargs, message):
    with pytest.raises(ValueError, match=message):
        design_estimate(**kwargs)


def test_design_share_refuses_a_group_without_answers():
    with pytest.raises(ValueError, match="1\\+ answers"):
        design_share([1, 0], [5, 0], [1.0, 1.0])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"weights": [1.0, 1.0, 1.0]}, r"^weights\b"),
        ({"weights": [1.0, 0.0]}, r"weights|1\+ answers"),
        ({"confidence_level": 1.0}, r"^confidence_level\b"),
        (
            {"yes_counts": [1, 2, 3], "weights": [1.0, 1.0, 1.0]},
            "^yes_counts and ns must be equally long, got 3 and 2$",
        ),
        ({"yes_counts": [[1, 2]], "ns": [[5, 5]], "weights": [[1.0, 1.0]]}, "equally long|weights"),
        ({"yes_counts": [-1, 2]}, r"1\+ answers"),
        ({"yes_counts": [6, 2]}, r"1\+ answers"),
    ],
)
def test_design_share_names_the_bad_value(kwargs, message):
    arguments = {"yes_counts": [1, 2], "ns": [5, 5], "weights": [2.0, 3.0], **kwargs}
    with pytest.raises(ValueError, match=message):
        design_share(**arguments)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"totals": [1.0, 2.0], "weights": [1.0, 1.0], "fpc": [1, math.nan]}, r"^fpc\b"),
        ({"totals": [1.0, 2.0], "weights": [1.0, 1.0], "fpc": [2]}, r"^fpc\b"),
        ({"totals": [math.nan, 2.0], "weights": [1.0, 1.0]}, r"^totals\b"),
        ({"totals": [1.0, 2.0], "weights": [1.0, math.inf]}, r"^weights\b"),
        ({"totals": [], "weights": []}, r"weights|totals"),
        ({"totals": [1.0, 2.0], "weights": [1.0, 1.0], "multiplicities": [1]}, r"^multiplicities\b"),
        ({"totals": [1.0, 2.0], "weights": [1.0, 1.0], "population_size": math.inf}, "population_size"),
        ({"totals": [1.0, 2.0], "weights": [1.0, 1.0], "within": [1.0]}, r"^within\b"),
        ({"totals": [1.0], "weights": [1.0], "within": [-1.0]}, r"^within\b"),
    ],
)
def test_design_estimate_names_each_bad_value_exactly(kwargs, message):
    with pytest.raises(ValueError, match=message):
        design_estimate(**kwargs)


def test_one_psu_a_census_stratum_and_one_answer_a_group_are_taken():
    single = design_estimate([3.0], [2.0])
    assert (single.ratio, single.weight_sum, single.psus) == (1.5, 2.0, 1)
    census = design_estimate([1.0, 2.0], [1.0, 1.0], fpc=[2, 2])  # every PSU of the stratum drawn
    assert census.ratio_variance == 0.0 and census.total_variance == 0.0
    share = design_share([1, 0], [1, 1], [2.0, 2.0])
    assert share.hajek.estimate_raw == pytest.approx(0.5 * 1.5 + 0.5 * -0.5)
    assert share.totals.weight_sum == 4.0 and share.hajek.population_size == 4.0


def test_a_share_records_whether_the_fpc_was_used_and_its_totals():
    without = design_share([70, 240], [200, 400], [3.0, 3.0], clustered=False, population_size=1800)
    with_fpc = design_share([70, 240], [200, 400], [3.0, 3.0], None, False, [600, 1200], 1800)
    assert without.hajek.finite_population is False and with_fpc.hajek.finite_population is True
    assert with_fpc.horvitz_thompson.finite_population is True
    assert with_fpc.horvitz_thompson.population_size == 1800 and with_fpc.hajek.population_size == 1800.0
    assert with_fpc.hajek.variance < without.hajek.variance  # a third of each stratum drawn: the fpc shrinks it
    assert without.totals.weight_sum == 1800.0 and without.horvitz_thompson.method == "horvitz-thompson"
    clustered = design_share([70, 240], [200, 400], [3.0, 3.0])  # the default: each group a cluster
    assert clustered.totals.psus == 2 and without.totals.psus == 600


def test_the_jackknife_by_hand_centred_on_the_replicates_or_on_the_estimate():
    """One stratum of three PSUs, y = (1, 2, 4), x = (1, 1, 2): R = 7/4; deleting PSU c leaves
    theta_c = (Y - y_c)/(X - x_c) = (2, 5/3, 3/2), and Var = (n - 1)/n sum (theta_c - centre)^2 with the centre
    their mean (R's default) or R itself (mse)."""
    thetas = np.array([2.0, 5 / 3, 1.5])
    plain = design_estimate([1.0, 2.0, 4.0], [1.0, 1.0, 2.0], method="jackknife")
    mse = design_estimate([1.0, 2.0, 4.0], [1.0, 1.0, 2.0], method="jackknife", mse=True)
    assert plain.ratio == mse.ratio == 1.75
    assert plain.ratio_variance == pytest.approx(2 / 3 * np.sum((thetas - thetas.mean()) ** 2), rel=1e-12)
    assert mse.ratio_variance == pytest.approx(2 / 3 * np.sum((thetas - 1.75) ** 2), rel=1e-12)
    assert mse.ratio_variance > plain.ratio_variance


def test_a_jackknife_of_lonely_strata_only_has_no_variance():
    lonely = design_estimate([1.0, 2.0], [1.0, 3.0], strata=["a", "b"], method="jackknife")
    assert (lonely.ratio_variance, lonely.total_variance, lonely.lonely_strata) == (0.0, 0.0, ("a", "b"))


@pytest.mark.parametrize(("t", "a", "b"), [(0.5, 0.25, 0.25), (Fraction(2, 3), Fraction(1, 6), Fraction(1, 6))])
def test_without_replacement_the_randomization_is_added_back_as_the_finite_population_estimator(t, a, b):
    """One stratum of 500 respondents drawn from 4,000 (weights 8): the Hajek variance is that of
    estimate_finite_population (RRTCS's, tests/test_finite_population.py), for two coins and for a die
    (t = 2/3, where the randomization's variance ... / t^2 is not ... / t * 2). Clusters of one respondent each are
    the same sample: the clustered rows add the randomization with the weight squared (64, not 16)."""
    y, n, big_n = 200, 500, 4000
    reference = estimate_finite_population(y, n, big_n, t, a, b)
    plain = design_share([y], [n], [big_n / n], None, False, [big_n], big_n, t, a, b)
    assert plain.hajek.estimate_raw == pytest.approx(reference.estimate.estimate_raw, rel=1e-12)
    assert plain.hajek.variance == pytest.approx(reference.variance, rel=1e-10)
    ones = [1] * y + [0] * (n - y)
    clusters = design_share(ones, [1] * n, [big_n / n] * n, None, True, [big_n] * n, big_n, t, a, b)
    assert clusters.hajek.variance == pytest.approx(reference.variance, rel=1e-10)


def test_a_share_uses_the_variance_method_asked_for():
    jack = design_share([10, 20, 15], [40, 50, 45], [2.0, 3.0, 2.5], method="jackknife")
    assert jack.totals.method == "jackknife"
    assert design_share([10, 20, 15], [40, 50, 45], [2.0, 3.0, 2.5]).totals.method == "linearization"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"weights": [2.0, 0.0]}, "every group needs 1+ answers, 0 <= yes <= n and a positive weight, got ns=[5, 5]"),
        ({"weights": [2.0, -1.0]}, "every group needs 1+ answers, 0 <= yes <= n and a positive weight, got ns=[5, 5]"),
        ({"yes_counts": [], "ns": [], "weights": []}, "yes_counts and ns must be equally long, got 0 and 0"),
        ({"yes_counts": [[1]], "ns": [[5]], "weights": [2.0]}, "yes_counts and ns must be equally long, got 1 and 1"),
    ],
)
def test_design_share_refuses_with_its_whole_message(kwargs, message):
    arguments = {"yes_counts": [1, 2], "ns": [5, 5], "weights": [2.0, 3.0], **kwargs}
    with pytest.raises(ValueError) as refused:
        design_share(**arguments)
    assert str(refused.value) == message


def test_weights_of_one_or_below_one_are_taken():
    share = design_share([1, 2], [5, 5], [1.0, 0.5])
    assert share.totals.weight_sum == 7.5
    # debiased totals (1 - 0.25 x 5)/0.5 = -0.5 and (2 - 1.25)/0.5 = 1.5, weighted 1 and 0.5, over 7.5
    assert share.hajek.estimate_raw == pytest.approx((1.0 * -0.5 + 0.5 * 1.5) / 7.5)


def test_a_single_psu_without_strata_is_the_lonely_unnamed_stratum():
    assert design_estimate([3.0], [2.0]).lonely_strata == ("",)


def test_a_population_count_below_one_is_refused_as_such():
    with pytest.raises(ValueError) as refused:
        design_estimate([1.0, 2.0], [1.0, 1.0], fpc=[0.5, 0.5])
    assert str(refused.value) == "fpc must all be >= 1.0, got fpc=[0.5, 0.5]"


def test_the_jackknife_of_a_total_by_hand_with_mse():
    """The same three PSUs: deleting c gives 3/2 (Y - y_c) = (9, 7.5, 4.5), centred on Y = 7 (their mean too):
    Var = 2/3 (4 + 0.25 + 6.25) = 7."""
    mse = design_estimate([1.0, 2.0, 4.0], [1.0, 1.0, 2.0], method="jackknife", mse=True)
    assert mse.total_variance == pytest.approx(7.0, rel=1e-12)


def test_exact_values_are_read_as_numbers():
    exact = design_estimate([Fraction(1, 2), Fraction(3, 2), 4], [1, 1, Fraction(2)], fpc=[10, 10, 10])
    floats = design_estimate([0.5, 1.5, 4.0], [1.0, 1.0, 2.0], fpc=[10.0, 10.0, 10.0])
    assert exact == floats


def test_a_row_of_multiplicity_zero_is_no_psu():
    with_zero = design_estimate([1.0, 5.0, 2.0, 4.0], [1.0, 3.0, 1.0, 2.0], multiplicities=[1, 0, 1, 1])
    without = design_estimate([1.0, 2.0, 4.0], [1.0, 1.0, 2.0])
    assert with_zero.psus == 3
    assert (with_zero.ratio, with_zero.ratio_variance) == pytest.approx(
        (without.ratio, without.ratio_variance), rel=1e-12
    )


def test_a_population_below_one_is_taken_as_given():
    """population_size need only be positive: with N = 0.5 the mean Y / N is 2 Y = 6."""
    small = design_estimate([1.0, 2.0], [1.0, 1.0], population_size=0.5)
    assert small.ht_mean == 6.0


def test_a_within_variance_below_one_is_added_with_the_sampling_fraction():
    """Two PSUs of a stratum of 4 (f = 1/2), within variances 0.5 and 0.25: the ratio's variance grows by
    f (0.5 + 0.25) / X^2 with X = 2, and the total's by f (0.5 + 0.25)."""
    plain = design_estimate([1.0, 2.0], [1.0, 1.0], fpc=[4, 4])
    within = design_estimate([1.0, 2.0], [1.0, 1.0], fpc=[4, 4], within=[0.5, 0.25])
    assert within.ratio_variance - plain.ratio_variance == pytest.approx(0.5 * 0.75 / 4, rel=1e-12)
    assert within.total_variance - plain.total_variance == pytest.approx(0.5 * 0.75, rel=1e-12)
