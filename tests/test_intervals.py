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
    ConfidenceInterval,
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
    [(60, 100, TWO_COINS), (50, 150, DIE), (41, 100, ASYMMETRIC), (3, 20, ASYMMETRIC)],
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


def test_wald_at_zero_uses_clamped_standard_error():
    # y=0, n=100: pi_hat=0, lam_c=.25, SE=sqrt(.0075)=.0866025,
    # [0, 1.959964*.0866025] = [0, .1697379].
    ci = wald_interval(0, 100)
    assert_allclose([ci.low, ci.high], [0.0, 0.1697379], rtol=1e-6, atol=0)


def test_direct_question_is_the_plain_binomial_interval():
    # t=1, a=b=0: no coins, the intervals are the binomial ones for pi itself.
    for method, reference in (("wilson", "wilson"), ("clopper-pearson", "exact")):
        ci = confidence_interval(7, 40, 1, 0, 0, 0.95, method)
        expected = stats.binomtest(7, 40).proportion_ci(0.95, method=reference)
        assert_allclose([ci.low, ci.high], [expected.low, expected.high])


def test_interval_wholly_below_zero_degenerates_to_zero():
    # y=0, n=100, two coins: Wilson upper bound for lambda is
    # 2*(1.9207294/103.8414588) = 0.0369937 < a = .25, so the mapped interval
    # lies below 0 and is clipped to [0, 0].
    assert wilson_interval(0, 100) == ConfidenceInterval(0.0, 0.0, "wilson", 0.95)


@pytest.mark.parametrize("method", INTERVAL_METHODS)
@pytest.mark.parametrize("design", DESIGNS, ids=["two-coins", "die", "asym", "direct", "a0"])
def test_every_interval_is_ordered_and_in_unit_interval(method, design):
    n = 30
    for y in range(n + 1):
        ci = confidence_interval(y, n, *design, 0.95, method)
        assert 0 <= ci.low <= ci.high <= 1


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
        ((1, 0, *TWO_COINS), "n=0"),
        ((1, 100, 0.5, 0.25, 0.5), "b=0.5"),
        ((1, 100, -0.5, 0.75, 0.75), "t=-0.5"),
    ],
)
def test_bad_counts_and_designs(function, args, shown):
    with pytest.raises(ValueError, match=re.escape(shown)):
        function(*args)


def test_numpy_integers_are_accepted():
    assert wilson_interval(np.int64(60), np.int64(100)) == wilson_interval(60, 100)
