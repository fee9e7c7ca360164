"""Exact values and invariants of the three interval methods."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats

from analysis import (
    INTERVAL_METHODS,
    clopper_pearson_interval,
    confidence_interval,
    wald_interval,
    wilson_interval,
)

TWO_COINS = (0.5, 0.25, 0.25)
DIE = (2 / 3, 1 / 6, 1 / 6)
ASYMMETRIC = (0.7, 0.2, 0.1)
DESIGNS = [TWO_COINS, DIE, ASYMMETRIC, (1.0, 0.0, 0.0), (0.8, 0.0, 0.2)]
Z95 = 1.959963984540054  # Phi^{-1}(0.975); z^2 = 3.8414588


def _reference(yes_count, n, t, a, method):
    """Binomial interval for lambda from scipy.stats.binomtest, mapped to pi."""
    ci = stats.binomtest(yes_count, n).proportion_ci(0.95, method=method)
    return [min(max((ci.low - a) / t, 0), 1), min(max((ci.high - a) / t, 0), 1)]


def test_methods_and_default():
    assert INTERVAL_METHODS == ("wilson", "clopper-pearson", "wald")
    assert confidence_interval(60, 100) == wilson_interval(60, 100)
    assert confidence_interval(60, 100).method == "wilson"


def test_wilson_two_coins_by_hand():
    # y=60, n=100, z^2=3.8414588:
    # centre = (60 + 1.9207294)/103.8414588 = 0.5963007
    # half = 1.959964/103.8414588 * sqrt(60*40/100 + 0.9603647) = 0.0942981
    # lambda in [0.5020026, 0.6905987] -> pi = (lambda - 1/4)/(1/2)
    # = [0.5040052, 0.8811974].
    ci = wilson_interval(60, 100, *TWO_COINS)
    z2 = Z95**2
    centre = (60 + z2 / 2) / (100 + z2)
    half = Z95 / (100 + z2) * math.sqrt(60 * 40 / 100 + z2 / 4)
    assert_allclose([ci.low, ci.high], [2 * (centre - half) - 0.5, 2 * (centre + half) - 0.5])
    assert_allclose([ci.low, ci.high], [0.5040052, 0.8811974], rtol=1e-6)
    assert (ci.method, ci.confidence_level) == ("wilson", 0.95)


@pytest.mark.parametrize(
    ("yes_count", "n", "design"),
    [(60, 100, TWO_COINS), (50, 150, DIE), (41, 100, ASYMMETRIC), (5, 20, ASYMMETRIC)],
)
def test_wilson_matches_scipy_after_mapping(yes_count, n, design):
    ci = wilson_interval(yes_count, n, *design)
    assert_allclose([ci.low, ci.high], _reference(yes_count, n, design[0], design[1], "wilson"))


@pytest.mark.parametrize(
    ("yes_count", "n", "design", "expected"),
    [
        # scipy.stats.binomtest(60, 100).proportion_ci(.95, 'exact') =
        # [0.4972092, 0.6967052]; pi = 2*lambda - .5 = [0.4944183, 0.8934105].
        (60, 100, TWO_COINS, [0.4944183, 0.8934105]),
        # binomtest(41, 100): [0.3126200, 0.5128558]; (lambda - .2)/.7.
        (41, 100, ASYMMETRIC, [0.1608857, 0.4469369]),
        # binomtest(50, 150): lambda bounds mapped by (lambda - 1/6)*3/2.
        (50, 150, DIE, [0.1378345, 0.3722645]),
    ],
)
def test_clopper_pearson_by_independent_reference(yes_count, n, design, expected):
    ci = clopper_pearson_interval(yes_count, n, *design)
    assert_allclose([ci.low, ci.high], expected, rtol=1e-6)
    assert_allclose([ci.low, ci.high], _reference(yes_count, n, design[0], design[1], "exact"))
    assert ci.method == "clopper-pearson"


def test_wald_by_hand():
    # y=60, n=100, two coins: pi=.7, lam_c=.6, SE=sqrt(.24/25)=.0979796,
    # .7 +/- 1.959964*.0979796 = .7 +/- .1920365 = [.5079635, .8920365].
    ci = wald_interval(60, 100, *TWO_COINS)
    assert_allclose([ci.low, ci.high], [0.5079635, 0.8920365], rtol=1e-6)
    assert ci.method == "wald"


def test_wald_on_the_floor_uses_clamped_standard_error():
    # y=25, n=100: the rate sits on the floor a = .25 (inside the design), pi_hat=0, lam_c=.25,
    # SE=sqrt(.0075)=.0866025, [0, 1.959964*.0866025] = [0, .1697379].
    ci = wald_interval(25, 100)
    assert_allclose([ci.low, ci.high], [0.0, 0.1697379], rtol=1e-6, atol=0)
    assert ci.side == "two-sided"


def test_direct_question_is_the_plain_binomial_interval():
    # t=1, a=b=0: no coins, the intervals are the binomial ones for pi itself.
    for method, reference in (("wilson", "wilson"), ("clopper-pearson", "exact")):
        ci = confidence_interval(7, 40, 1, 0, 0, 0.95, method)
        expected = stats.binomtest(7, 40).proportion_ci(0.95, method=reference)
        assert_allclose([ci.low, ci.high], [expected.low, expected.high])


def test_an_interval_wholly_below_zero_is_the_one_sided_bound_not_zero_to_zero():
    # y=0, n=100, two coins: Wilson upper bound for lambda is 2*(1.9207294/103.8414588) = 0.0369937 < a = .25,
    # so the mapped interval would be [0, 0]. Every method gives the one-sided CLs bound instead (issue 23).
    from analysis import outside_design

    bound = outside_design(0, 100).bound
    for method in INTERVAL_METHODS:
        ci = confidence_interval(0, 100, method=method)
        assert (ci.low, ci.high, ci.side, ci.method) == (0.0, bound, "upper", "clopper-pearson-cls")
        assert ci.one_sided and ci.high > 0.01


def test_wilson_for_38_of_200_under_two_coins_is_a_one_sided_bound_not_a_sliver():
    """Issue 23, case 2: the analysis API's Wilson interval for 38/200 was [0, 2.5e-5], read as certainty.
    By hand: Wilson's upper limit for lambda is 0.2500125 (z = 1.959964), mapped (L - 1/4) / (1/2) = 2.5e-5."""
    z = stats.norm.ppf(0.975)
    upper = (38 + z * z / 2) / (200 + z * z) + z / (200 + z * z) * math.sqrt(38 * 162 / 200 + z * z / 4)
    assert 0 < (upper - 0.25) / 0.5 < 1e-4  # the sliver the two-sided interval would show
    ci = wilson_interval(38, 200)
    assert ci.side == "upper" and ci.low == 0.0 and ci.high > 0.05


def test_wald_with_no_forced_yes_and_no_yes_is_a_one_sided_bound():
    # t = 1/2, a = 0, b = 1/2 and 0 yes of 10: the clamped rate is 0, so Wald's plug-in standard error is 0 and
    # pi_hat +/- z SE would be [0, 0]. The one-sided Clopper-Pearson bound: 1 - 0.05^(1/10) for lambda, over t.
    ci = wald_interval(0, 10, 0.5, 0, 0.5)
    assert ci.side == "upper" and ci.low == 0.0
    assert_allclose(ci.high, (1 - 0.05 ** (1 / 10)) / 0.5, rtol=1e-8)
    mirrored = wald_interval(10, 10, 0.5, 0.5, 0)
    assert mirrored.side == "lower" and mirrored.high == 1.0
    assert_allclose(mirrored.low, 1 - ci.high, rtol=1e-8)


def test_wald_s_one_sided_fallback_names_its_method_and_level():
    """The fallback of the test above at 90%: 1 - 0.1^(1/10) for lambda, over t; its method and level shown."""
    ci = wald_interval(0, 10, 0.5, 0, 0.5, 0.9)
    assert (ci.low, ci.method, ci.confidence_level, ci.side) == (0.0, "clopper-pearson-cls", 0.9, "upper")
    assert_allclose(ci.high, (1 - 0.1 ** (1 / 10)) / 0.5, rtol=1e-8)
    mirrored = wald_interval(10, 10, 0.5, 0.5, 0, 0.9)
    assert (mirrored.high, mirrored.method, mirrored.confidence_level, mirrored.side) == (
        1.0,
        "clopper-pearson-cls",
        0.9,
        "lower",
    )
    assert_allclose(mirrored.low, 1 - ci.high, rtol=1e-8)


@pytest.mark.parametrize("method", INTERVAL_METHODS)
@pytest.mark.parametrize("design", DESIGNS, ids=["two-coins", "die", "asym", "direct", "a0"])
def test_no_interval_has_width_zero_and_every_one_holds_the_clipped_estimate(method, design):
    n = 30
    for y in range(n + 1):
        ci = confidence_interval(y, n, *design, 0.95, method)
        assert ci.high - ci.low > 1e-3, (y, ci)
        estimate = min(max((y / n - design[1]) / design[0], 0.0), 1.0)
        assert ci.low <= estimate <= ci.high, (y, ci)


@pytest.mark.parametrize("method", INTERVAL_METHODS)
@pytest.mark.parametrize("design", DESIGNS, ids=["two-coins", "die", "asym", "direct", "a0"])
def test_every_interval_is_ordered_and_in_unit_interval(method, design):
    n = 30
    for y in range(n + 1):
        ci = confidence_interval(y, n, *design, 0.95, method)
        assert 0 <= ci.low <= ci.high <= 1


def _wilson_by_hand(y, n, t, a, level):
    z = stats.norm.ppf(0.5 + level / 2)
    centre = (y + z * z / 2) / (n + z * z)
    half = z / (n + z * z) * math.sqrt(y * (n - y) / n + z * z / 4)
    return [min(max((lam - a) / t, 0), 1) for lam in (centre - half, centre + half)]


def _clopper_pearson_by_hand(y, n, t, a, level):
    alpha = 1 - level
    low = 0.0 if y == 0 else stats.beta.ppf(alpha / 2, y, n - y + 1)
    high = 1.0 if y == n else stats.beta.ppf(1 - alpha / 2, y + 1, n - y)
    return [min(max((lam - a) / t, 0), 1) for lam in (low, high)]


def _wald_by_hand(y, n, t, a, level):
    z = stats.norm.ppf(0.5 + level / 2)
    pi = min(max((y / n - a) / t, 0), 1)
    lam = a + t * pi
    half = z * math.sqrt(lam * (1 - lam) / n) / t
    return [min(max(pi - half, 0), 1), min(max(pi + half, 0), 1)]


BY_HAND = {"wilson": _wilson_by_hand, "clopper-pearson": _clopper_pearson_by_hand, "wald": _wald_by_hand}
FUNCTIONS = {"wilson": wilson_interval, "clopper-pearson": clopper_pearson_interval, "wald": wald_interval}


@pytest.mark.parametrize("level", [0.5, 0.8, 0.9, 0.99])
@pytest.mark.parametrize("method", INTERVAL_METHODS)
def test_the_requested_level_is_the_level_computed(method, level):
    """Each method, called directly or by name, gives the interval of the level
    asked for (the textbook formula with z or the beta quantiles at that level)
    and labels it with that level."""
    for y, n, design in ((41, 100, ASYMMETRIC), (60, 100, TWO_COINS), (4, 20, DIE), (18, 20, ASYMMETRIC)):
        expected = BY_HAND[method](y, n, design[0], design[1], level)
        for ci in (FUNCTIONS[method](y, n, *design, level), confidence_interval(y, n, *design, level, method)):
            assert_allclose([ci.low, ci.high], expected, rtol=1e-12, atol=1e-15)
            assert (ci.method, ci.confidence_level) == (method, level)


@pytest.mark.parametrize("method", INTERVAL_METHODS)
def test_levels_give_different_intervals(method):
    # A 99% interval is strictly wider than the 80% one where neither is clipped.
    narrow = confidence_interval(41, 100, *ASYMMETRIC, 0.8, method)
    wide = confidence_interval(41, 100, *ASYMMETRIC, 0.99, method)
    assert wide.low < narrow.low and narrow.high < wide.high


@pytest.mark.parametrize("method", INTERVAL_METHODS)
def test_default_design_is_two_coins(method):
    assert FUNCTIONS[method](60, 100) == FUNCTIONS[method](60, 100, 0.5, 0.25, 0.25, 0.95)
    assert confidence_interval(60, 100, method=method) == FUNCTIONS[method](60, 100)


@pytest.mark.parametrize("method", INTERVAL_METHODS)
def test_a_single_answer_gives_an_interval(method):
    for y in (0, 1):
        ci = confidence_interval(y, 1, *TWO_COINS, 0.95, method)
        assert_allclose([ci.low, ci.high], BY_HAND[method](y, 1, 0.5, 0.25, 0.95), atol=1e-15)


@pytest.mark.parametrize("method", INTERVAL_METHODS)
def test_higher_level_gives_wider_interval(method):
    for y in (5, 20, 41, 70):
        narrow = confidence_interval(y, 100, *ASYMMETRIC, 0.8, method)
        wide = confidence_interval(y, 100, *ASYMMETRIC, 0.99, method)
        assert wide.low <= narrow.low and narrow.high <= wide.high


@pytest.mark.parametrize("method", ["Wilson", "exact", "", None, ["wald"]])
def test_unknown_method(method):
    with pytest.raises(ValueError, match=re.escape(repr(method))):
        confidence_interval(30, 100, method=method)


@pytest.mark.parametrize("function", [wald_interval, wilson_interval, clopper_pearson_interval])
@pytest.mark.parametrize("level", [0, 1, 0.0, 1.0, 95, -0.5, math.nan, math.inf, "0.95", True])
def test_bad_confidence_level(function, level):
    with pytest.raises(ValueError, match=re.escape(f"confidence_level={level!r}")):
        function(30, 100, *TWO_COINS, level)


@pytest.mark.parametrize("function", [wald_interval, wilson_interval, clopper_pearson_interval])
@pytest.mark.parametrize(
    ("args", "shown"),
    [
        ((101, 100, *TWO_COINS), "yes_count=101"),
        ((-1, 100, *TWO_COINS), "yes_count=-1"),
        ((np.float64(3.0), 100, *TWO_COINS), "yes_count=np.float64(3.0)"),
        ((1, 0, *TWO_COINS), "n must be an integer >= 1, got n=0"),
        ((0, 0, *TWO_COINS), "n must be an integer >= 1, got n=0"),
        ((1, 100, 0.5, 0.25, 0.5), "b=0.5"),
        ((1, 100, -0.5, 0.75, 0.75), "t=-0.5"),
    ],
)
def test_bad_counts_and_designs(function, args, shown):
    with pytest.raises(ValueError, match=re.escape(shown)):
        function(*args)


def test_numpy_integers_are_accepted():
    assert wilson_interval(np.int64(60), np.int64(100)) == wilson_interval(60, 100)


def test_below_the_floor_gives_a_positive_one_sided_bound():
    # Two coins, n = 200, 38 yes (19% < a = 25%): the mapped 90% intervals would collapse to [0, 0],
    # and even P(Y <= 38 | lambda = 1/4) = 0.0276 < 0.05, so a one-sided Clopper-Pearson bound
    # has no pi left. The CLs bound solves P(Y <= 38 | 1/4 + pi/2) / P(Y <= 38 | 1/4) = 0.05.
    from analysis import outside_design

    found = outside_design(38, 200, confidence_level=0.95)
    for method in INTERVAL_METHODS:
        ci = confidence_interval(38, 200, confidence_level=0.95, method=method)
        assert (ci.low, ci.high, ci.side) == (0.0, found.bound, "upper")
    at_floor = stats.binom.cdf(38, 200, 0.25)
    assert_allclose(at_floor, 0.0275758, rtol=1e-5)
    assert (found.side, found.limit, found.observed_rate) == ("below", 0.25, 0.19)
    assert_allclose(found.p_value, at_floor, rtol=1e-12)
    assert 0 < found.bound < 1
    assert_allclose(stats.binom.cdf(38, 200, 0.25 + 0.5 * found.bound) / at_floor, 0.05, rtol=1e-8)
    assert (found.confidence_level, found.method) == (0.95, "clopper-pearson-cls")


def test_the_cls_bound_is_never_below_the_clopper_pearson_bound():
    # 45 of 200 (22.5%): P(Y <= 45 | 1/4) = .233 >= .05, so the one-sided Clopper-Pearson bound exists:
    # lambda_U = Beta(0.95; 46, 155), mapped (lambda_U - 1/4) / (1/2). Dividing by .233 can only widen it.
    from analysis import outside_design

    found = outside_design(45, 200, confidence_level=0.95)
    one_sided_cp = (stats.beta.ppf(0.95, 46, 155) - 0.25) / 0.5
    assert found.bound > one_sided_cp > 0


def test_above_the_ceiling_mirrors_below_the_floor():
    # 162 of 200 yes under two coins is 38 noes: the mirror image of 38 yeses.
    from analysis import outside_design

    below, above = outside_design(38, 200), outside_design(162, 200)
    assert above.side == "above" and above.limit == 0.75
    assert_allclose([above.bound, above.p_value], [1 - below.bound, below.p_value], rtol=1e-12)


@pytest.mark.parametrize("yes_count", [50, 100, 150])
def test_inside_the_design_there_is_no_one_sided_bound(yes_count):
    from analysis import outside_design

    assert outside_design(yes_count, 200) is None  # 25%, 50%, 75%: on the floor, inside, on the ceiling


def test_an_exact_marginal_beyond_the_denominator_limit_is_compared_exactly():
    # a = 345679/3000000 (t = 0.654321, k = 3): 1 of 10 is below the floor (0.1 < 0.1152).
    from fractions import Fraction

    from analysis import outside_design

    t, a = Fraction(654321, 10**6), Fraction(345679, 3 * 10**6)
    assert outside_design(1, 10, t, a, 1 - t - a).side == "below"
    assert outside_design(2, 10, t, a, 1 - t - a) is None


def _root_by_float_bisection(decreasing, low=0.0, high=1.0):
    """The root of a decreasing function, halving until the float bracket closes (no tolerance)."""
    while (middle := (low + high) / 2) not in (low, high):
        low, high = (middle, high) if decreasing(middle) > 0 else (low, middle)
    return middle


def test_above_the_ceiling_reports_the_rate_and_level():
    # 190 of 200 yes under two coins: 95% > a + t = 75%; 10 noes mirror 10 yeses below the floor.
    from analysis import OutsideDesign, outside_design

    above, below = outside_design(190, 200, confidence_level=0.8), outside_design(10, 200, confidence_level=0.8)
    assert above == OutsideDesign("above", 0.75, 0.95, 1 - below.bound, below.p_value, 0.8)
    assert_allclose(above.p_value, stats.binom.cdf(10, 200, 0.25), rtol=1e-12)


def test_one_answer_below_the_floor_bounds_pi_at_one():
    # n = 1, y = 0 (0 < a = 1/4): CLs(1) = P(Y = 0 | 3/4) / P(Y = 0 | 1/4) = (1/4) / (3/4) = 1/3 >= .05,
    # so no pi in [0, 1] is excluded: the bound is 1. Above the ceiling, y = n = 1 bounds pi below at 0.
    from analysis import outside_design

    below = outside_design(0, 1)
    assert (below.side, below.bound) == ("below", 1.0)
    assert_allclose(below.p_value, 0.75, rtol=1e-12)
    above = outside_design(1, 1)
    assert (above.side, above.bound) == ("above", 0.0)


def test_the_cls_bound_is_its_root_to_float_precision():
    """69 of 500 under two coins, 90%: the bound is the root of CLs(pi) - alpha within 1e-13 (brentq with
    xtol=1e-12 lands 1e-17 from it here; with scipy's default xtol, 2e-12, 5e-13 away)."""
    from analysis import outside_design

    at_floor = stats.binom.cdf(69, 500, 0.25)
    root = _root_by_float_bisection(lambda pi: stats.binom.cdf(69, 500, 0.25 + 0.5 * pi) / at_floor - 0.1)
    found = outside_design(69, 500, confidence_level=0.9)
    assert_allclose(found.bound, root, rtol=0, atol=1e-13)


@pytest.mark.parametrize(
    ("level", "rule"),
    [(0, "be in (0, 1)"), (1, "be in (0, 1)"), (1.5, "be in (0, 1)"), (math.nan, "be a finite number")],
)
def test_outside_design_names_a_bad_level(level, rule):
    from analysis import outside_design

    with pytest.raises(
        ValueError, match=f"^{re.escape(f'confidence_level must {rule}, got confidence_level={level!r}')}$"
    ):
        outside_design(10, 200, confidence_level=level)


@pytest.mark.parametrize("method", INTERVAL_METHODS)
def test_a_one_sided_bound_outside_the_design_carries_its_method_and_level(method):
    """Below the floor and above the ceiling (two coins, 90%): outside_design's bound, method and level."""
    from analysis import outside_design

    below, above = outside_design(150, 1000, confidence_level=0.9), outside_design(850, 1000, confidence_level=0.9)
    low = confidence_interval(150, 1000, confidence_level=0.9, method=method)
    high = confidence_interval(850, 1000, confidence_level=0.9, method=method)
    assert (low.low, low.high, low.method, low.confidence_level, low.side) == (
        0.0,
        below.bound,
        "clopper-pearson-cls",
        0.9,
        "upper",
    )
    assert (high.low, high.high, high.method, high.confidence_level, high.side) == (
        above.bound,
        1.0,
        "clopper-pearson-cls",
        0.9,
        "lower",
    )


@pytest.mark.parametrize(
    ("yes_count", "n", "rate"),
    [(175000, 758333, 0.25), (1, 10000, 0.25), (50, 100000, 0.01), (0, 10000, 0.25)],
)
def test_the_log_binomial_cdf_where_scipy_underflows_is_the_sum_of_every_term(yes_count, n, rate):
    """Far below the mean scipy's logcdf is -inf; the log of the pmf summed over every j <= y (no terms left
    out) is the reference. The first case's terms fall slowly (ratio 0.9 at y), so leaving out too many shows."""
    from scipy import special

    from analysis.intervals import _log_binom_cdf

    assert stats.binom.logcdf(yes_count, n, rate) == -math.inf
    reference = special.logsumexp(stats.binom.logpmf(np.arange(yes_count + 1), n, rate))
    assert _log_binom_cdf(yes_count, n, rate) == pytest.approx(reference, rel=0, abs=1e-9)


def test_the_cls_bound_is_one_when_even_a_share_of_one_keeps_the_ratio_at_alpha():
    """Two coins, 0 yes of 2: CLs(1) = P(0 | 3/4) / P(0 | 1/4) = (1/16) / (9/16) = 1/9 >= 0.05, so the bound is 1
    (also at 90%: 1/9 >= 0.1); of 3, CLs(1) = 1/27 < 0.05, so the bound is below 1 and CLs(bound) = 0.05."""
    from analysis import outside_design

    assert outside_design(0, 2).bound == 1.0
    assert outside_design(0, 2, confidence_level=0.9).bound == 1.0
    bound = outside_design(0, 3).bound
    assert bound < 1.0
    assert (1 - (0.25 + 0.5 * bound)) ** 3 / (0.75**3) == pytest.approx(0.05, rel=1e-9)


def test_mapped_bounds_are_clipped_to_the_unit_interval():
    """(lambda - a) / t outside [0, 1] is clipped at both ends, for either bound."""
    from analysis.intervals import mapped_to_pi

    assert mapped_to_pi(0.9, 0.95, 0.5, 0.25) == (1.0, 1.0)
    assert mapped_to_pi(0.05, 0.1, 0.5, 0.25) == (0.0, 0.0)
    assert mapped_to_pi(0.3, 0.7, 0.5, 0.25) == pytest.approx((0.1, 0.9), abs=1e-15)
