"""Anytime-valid confidence sequences: exact values, and time-uniform coverage by simulation.

The exact layer checks the mixture against the integral that defines it and
against a direct evaluation of ``M_n`` on a fine grid; the simulation layer
checks that the sequence excludes the truth at some ``n`` in at most 5% of
surveys, where Wilson's interval looked at after every answer does so in most
of them.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import integrate, special, stats

from analysis import (
    MIXTURE_PRIOR,
    ConfidenceSequence,
    DifferenceSequence,
    MultipleChoiceDesign,
    confidence_sequence,
    difference_sequence,
    estimate_proportion,
    log_mixture_martingale,
    option_confidence_sequences,
    outside_design,
    wilson_interval,
)

TWO_COINS = (0.5, 0.25, 0.25)
DIE = (Fraction(2, 3), Fraction(1, 6), Fraction(1, 6))
ASYMMETRIC = (0.7, 0.2, 0.1)
DIRECT = (1.0, 0.0, 0.0)


def _log_m_by_lgamma(yes_count, n, lam, a0, b0):
    """``log M_n(lambda)`` written out with ``math.lgamma`` (independent of scipy's betaln)."""

    def log_beta(x, y):
        return math.lgamma(x) + math.lgamma(y) - math.lgamma(x + y)

    no = n - yes_count
    return (
        log_beta(a0 + yes_count, b0 + no)
        - log_beta(a0, b0)
        - yes_count * np.log(lam)
        - no * np.log1p(-np.asarray(lam, dtype=float))
    )


# --------------------------------------------------------------------------
# The martingale.


@pytest.mark.parametrize(
    "yes_count, n, lam, a0, b0",
    [(3, 10, 0.2, 1, 1), (7, 10, 0.5, 1, 1), (0, 5, 0.3, 0.5, 0.5), (20, 20, 0.9, 2, 3), (12, 40, 0.45, 1, 1)],
)
def test_the_mixture_is_the_integral_that_defines_it(yes_count, n, lam, a0, b0):
    """``M_n(lambda) = int prod_i (x/lambda)^Y_i ((1-x)/(1-lambda))^(1-Y_i) dBeta(x; a0, b0)``, by quadrature."""

    def integrand(x):
        return (x / lam) ** yes_count * ((1 - x) / (1 - lam)) ** (n - yes_count) * stats.beta.pdf(x, a0, b0)

    direct, _ = integrate.quad(integrand, 0, 1, epsabs=0, epsrel=1e-11, limit=200)
    assert_allclose(float(np.exp(log_mixture_martingale(yes_count, n, lam, a0, b0))), direct, rtol=1e-8)


def test_the_mixture_at_large_n_matches_lgamma():
    yes = np.array([0, 1, 2500, 5000, 9999, 10000])
    for lam in (0.01, 0.25, 0.5, 0.97):
        expected = [_log_m_by_lgamma(int(s), 10000, lam, 1.0, 1.0) for s in yes]
        assert_allclose(log_mixture_martingale(yes, 10000, lam), expected, rtol=1e-12, atol=1e-9)


def test_the_mixture_for_one_answer_by_hand():
    # Uniform prior: M_1 = (1/2) / lambda after a yes, (1/2) / (1 - lambda) after a no.
    assert_allclose(log_mixture_martingale(1, 1, 0.25), math.log(2.0))
    assert_allclose(log_mixture_martingale(0, 1, 0.25), math.log(2 / 3))
    assert_allclose(log_mixture_martingale(1, 1, Fraction(1, 4)), math.log(2.0))  # an exact fraction is a rate
    # Beta(2, 1) prior: E[x] = 2/3, so M_1 = (2/3) / lambda after a yes.
    assert_allclose(log_mixture_martingale(1, 1, 0.5, 2.0, 1.0), math.log(4 / 3))


def test_the_mixture_at_the_edges_of_the_unit_interval():
    assert log_mixture_martingale(0, 10, 0.0) == pytest.approx(-math.log(11))  # 0 log 0 = 0
    assert log_mixture_martingale(10, 10, 1.0) == pytest.approx(-math.log(11))
    assert log_mixture_martingale(1, 10, 0.0) == math.inf
    assert log_mixture_martingale(9, 10, 1.0) == math.inf


def test_the_mixture_broadcasts_running_counts():
    answers = np.array([1, 0, 0, 1, 1])
    running = log_mixture_martingale(np.cumsum(answers), np.arange(1, 6), 0.4)
    assert running.shape == (5,)
    assert_allclose(running, [_log_m_by_lgamma(int(s), k + 1, 0.4, 1, 1) for k, s in enumerate(np.cumsum(answers))])


def test_the_mixture_has_mean_one_under_the_tested_rate():
    """A martingale from ``M_0 = 1``: ``E[M_n(lambda)] = 1`` exactly, summed over the binomial law."""
    for n, lam, prior in ((12, 0.3, (1, 1)), (30, 0.75, (0.5, 2.0))):
        yes = np.arange(n + 1)
        mean = np.sum(stats.binom.pmf(yes, n, lam) * np.exp(log_mixture_martingale(yes, n, lam, *prior)))
        assert mean == pytest.approx(1.0, rel=1e-10)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"yes_count": 1.0, "n": 2, "rate": 0.5}, "must be integers"),
        ({"yes_count": 1, "n": 2.0, "rate": 0.5}, "must be integers"),
        ({"yes_count": 3, "n": 2, "rate": 0.5}, "yes_count=3"),
        ({"yes_count": -1, "n": 2, "rate": 0.5}, "yes_count=-1"),
        ({"yes_count": 1, "n": 2, "rate": 1.5}, "rate=1.5"),
        ({"yes_count": 1, "n": 2, "rate": -0.1}, "rate=-0.1"),
        ({"yes_count": 1, "n": 2, "rate": float("nan")}, "rate=nan"),
        ({"yes_count": 1, "n": 2, "rate": 0.5, "a0": 0}, "a0=0"),
        ({"yes_count": 1, "n": 2, "rate": 0.5, "b0": -1.0}, "b0=-1.0"),
        ({"yes_count": 1, "n": 2, "rate": 0.5, "a0": math.inf}, "a0=inf"),
    ],
)
def test_bad_mixture_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message.replace(".", r"\.")):
        log_mixture_martingale(**kwargs)


# --------------------------------------------------------------------------
# The bounds.


def _grid_bounds(yes_count, n, level, a0, b0, points=2_000_001):
    """The smallest and largest grid rate with ``M_n < 1/alpha``, and the grid's spacing."""
    grid = np.linspace(0.0, 1.0, points)[1:-1]  # the open interval: lambda^0 at 0 is 1, not 0 * inf
    inside = _log_m_by_lgamma(yes_count, n, grid, a0, b0) < -math.log(1 - level)
    kept = grid[inside]
    return kept[0], kept[-1], grid[1] - grid[0]


@pytest.mark.parametrize(
    "yes_count, n, design, level, prior",
    [
        (30, 100, TWO_COINS, 0.95, MIXTURE_PRIOR),
        (0, 50, TWO_COINS, 0.95, MIXTURE_PRIOR),
        (50, 50, DIE, 0.95, MIXTURE_PRIOR),
        (250, 1000, DIE, 0.9, MIXTURE_PRIOR),
        (7, 20, ASYMMETRIC, 0.99, (0.5, 0.5)),
        (4321, 10000, ASYMMETRIC, 0.8, (2.0, 5.0)),
        (1, 3, DIRECT, 0.95, MIXTURE_PRIOR),
    ],
)
def test_the_bounds_are_those_of_a_fine_grid(yes_count, n, design, level, prior):
    t, a, b = design
    low, high, step = _grid_bounds(yes_count, n, level, *prior)
    cs = confidence_sequence(yes_count, n, t, a, b, level, *prior)
    assert cs.rate_low == pytest.approx(low, abs=2 * step)
    assert cs.rate_high == pytest.approx(high, abs=2 * step)
    t, a = float(t), float(a)
    mapped_low, mapped_high = (min(max((bound - a) / t, 0), 1) for bound in (low, high))
    outside = outside_design(yes_count, n, *design, confidence_level=level)
    if outside is None:
        assert cs.side == "two-sided"
        assert cs.low == pytest.approx(mapped_low, abs=2 * step / t)
        assert cs.high == pytest.approx(mapped_high, abs=2 * step / t)
    elif outside.side == "below":  # one-sided: never narrower than the mapped set or the fixed-sample bound
        assert (cs.side, cs.low) == ("upper", 0.0)
        assert cs.high == pytest.approx(max(mapped_high, outside.bound), abs=2 * step / t)
    else:
        assert (cs.side, cs.high) == ("lower", 1.0)
        assert cs.low == pytest.approx(min(mapped_low, outside.bound), abs=2 * step / t)
    assert (cs.n, cs.yes_count, cs.confidence_level, cs.prior) == (n, yes_count, level, tuple(prior))
    assert cs.method == "beta-binomial mixture"


def test_the_bounds_sit_on_the_boundary():
    """At each end ``M_n`` equals ``1/alpha``: the root was found, not merely bracketed."""
    for yes_count, n, level in ((30, 100, 0.95), (600, 1000, 0.9), (1, 10000, 0.99), (500_000, 10**6, 0.95)):
        cs = confidence_sequence(yes_count, n, confidence_level=level)
        ends = log_mixture_martingale(yes_count, n, [cs.rate_low, cs.rate_high])
        assert_allclose(ends, -math.log(1 - level), rtol=1e-11)


def test_one_answer_by_hand():
    """``n = 1``: after a no, ``M_1 = 1 / (2 (1 - lambda)) >= 1/alpha`` iff ``lambda >= 1 - alpha/2``."""
    after_no = confidence_sequence(0, 1, *DIRECT, confidence_level=0.95)
    assert (after_no.low, after_no.rate_low) == (0.0, 0.0)
    assert after_no.high == pytest.approx(0.975, abs=1e-10)
    after_yes = confidence_sequence(1, 1, *DIRECT, confidence_level=0.9)
    assert after_yes.low == pytest.approx(0.05, abs=1e-10)
    assert (after_yes.high, after_yes.rate_high) == (1.0, 1.0)


def test_yes_and_no_mirror_each_other():
    """``M_n(lambda; S, a0, b0) = M_n(1 - lambda; n - S, b0, a0)``."""
    one = confidence_sequence(70, 200, *DIRECT, a0=0.5, b0=3.0)
    other = confidence_sequence(130, 200, *DIRECT, a0=3.0, b0=0.5)
    assert one.rate_low == pytest.approx(1 - other.rate_high, abs=1e-11)
    assert one.rate_high == pytest.approx(1 - other.rate_low, abs=1e-11)
    assert one.rate_high - one.rate_low > 0.1


def test_the_prior_moves_the_bounds():
    flat = confidence_sequence(300, 1000)
    tilted = confidence_sequence(300, 1000, a0=1.0, b0=50.0)  # mass near 0, far from 0.3: less evidence, wider
    assert tilted.rate_low < flat.rate_low - 0.02 and tilted.rate_high > flat.rate_high + 0.02
    assert tilted.prior == (1.0, 50.0) and flat.prior == (1.0, 1.0)


def test_the_design_maps_the_bounds_like_the_intervals():
    for t, a, b in (TWO_COINS, DIE, ASYMMETRIC):
        cs = confidence_sequence(480, 1000, t, a, b)
        assert cs.low == pytest.approx((cs.rate_low - float(a)) / float(t), abs=1e-15)
        assert cs.high == pytest.approx((cs.rate_high - float(a)) / float(t), abs=1e-15)
    # Issue 23, case 3: below the floor the mapped set is [0, 0]; the sequence is then the one-sided bound,
    # never narrower than the fixed-sample one (a superset, so still anytime-valid).
    below = confidence_sequence(150, 1000, *TWO_COINS)  # lambda at most 0.2 < a
    assert (below.low, below.side) == (0.0, "upper")
    assert below.high == outside_design(150, 1000).bound > 0.001
    above = confidence_sequence(850, 1000, *TWO_COINS)
    assert (above.high, above.side) == (1.0, "lower")
    assert above.low == outside_design(850, 1000).bound < 0.999


def test_a_true_share_of_zero_never_shows_zero_to_zero():
    """Issue 23, case 3: 647 yes of 2,933 under two coins (a true share of 0 gives such surveys about 0.65% of
    the time at some look): the mixture sequence for lambda ends at 0.24999 < 1/4, which mapped is [0, 0]."""
    cs = confidence_sequence(647, 2933)
    assert cs.rate_high < 0.25
    assert cs.side == "upper" and cs.low == 0.0 and cs.high >= 0.005


def test_a_higher_level_gives_a_wider_sequence_containing_the_interval():
    narrow = confidence_sequence(400, 1000, confidence_level=0.8)
    wide = confidence_sequence(400, 1000, confidence_level=0.99)
    assert wide.rate_low < narrow.rate_low < narrow.rate_high < wide.rate_high
    interval = wilson_interval(400, 1000, *DIRECT)
    assert narrow.rate_low < interval.low and interval.high < narrow.rate_high


def test_a_root_below_the_smallest_float_is_zero():
    """One yes in 10^160 answers: the lower end lies below every positive float (and brentq has no bracket)."""
    from analysis.sequences import lower_rate_bound

    assert lower_rate_bound(1, 10**160, 1.0, 1.0, math.log(20)) == 0.0
    assert lower_rate_bound(1, 10**150, 1.0, 1.0, math.log(20)) == pytest.approx(5e-302, rel=1e-9, abs=0)
    # log M at the smallest float is 0.81 above log 20 here: the root is just above it.
    assert lower_rate_bound(1, 10**153, 1.0, 1.0, math.log(20)) == pytest.approx(5e-308, rel=1e-9, abs=0)


#: The width of the 95% sequence over the width of the 95% Wilson interval (both for
#: lambda, two coins, lambda_hat = 1/2 and 1/4), reported in analysis/README.md.
WIDTH_RATIOS = {(100, 0.5): 1.62, (1000, 0.5): 1.80, (10000, 0.5): 1.96, (100000, 0.5): 2.11, (1000, 0.25): 1.82}


@pytest.mark.parametrize("n, share", sorted(WIDTH_RATIOS))
def test_width_against_the_wilson_interval(n, share):
    yes = round(share * n)
    cs = confidence_sequence(yes, n, *DIRECT)
    interval = wilson_interval(yes, n, *DIRECT)
    ratio = (cs.rate_high - cs.rate_low) / (interval.high - interval.low)
    assert round(ratio, 2) == WIDTH_RATIOS[(n, share)]


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((0, 0), {}, "n=0"),
        ((5, 4), {}, "yes_count=5"),
        ((1, 4, 0.5, 0.3, 0.3), {}, "t \\+ a \\+ b"),
        ((1, 4), {"confidence_level": 1.0}, "confidence_level=1.0"),
        ((1, 4), {"a0": 0.0}, "a0=0.0"),
        ((1, 4), {"b0": float("nan")}, "b0=nan"),
    ],
)
def test_bad_arguments_are_named(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        confidence_sequence(*args, **kwargs)


# --------------------------------------------------------------------------
# Multiple choice and differences.


def test_each_option_is_its_forced_response_marginal():
    counts = (120, 45, 35)
    t = Fraction(2, 3)
    marginal = MultipleChoiceDesign(3, t).option_marginal().exact()
    sequences = option_confidence_sequences(counts, t, confidence_level=0.9, a0=0.5, b0=0.5)
    assert sequences == tuple(confidence_sequence(c, 200, *marginal, 0.9, 0.5, 0.5) for c in counts)
    assert all(isinstance(s, ConfidenceSequence) for s in sequences)


def test_two_options_at_one_half_are_two_coins():
    yes, no = option_confidence_sequences([60, 40])  # t = 1/2 by default
    assert yes == confidence_sequence(60, 100, *TWO_COINS)
    assert no == confidence_sequence(40, 100, *TWO_COINS)


def test_a_t_whose_forced_share_needs_a_larger_denominator():
    sequences = option_confidence_sequences([500, 300, 200], 0.654321)
    t, a = Fraction(654321, 10**6), Fraction(345679, 3 * 10**6)
    assert sequences[0] == confidence_sequence(500, 1000, t, a, 1 - t - a)


def test_bad_option_counts_are_named():
    with pytest.raises(ValueError, match=r"counts\[1\]=-1"):
        option_confidence_sequences([3, -1])
    with pytest.raises(ValueError, match="t="):
        option_confidence_sequences([3, 1], t=0)


def test_the_difference_is_a_union_bound_over_the_two_groups():
    first = estimate_proportion(300, 1000, *TWO_COINS)
    second = estimate_proportion(200, 800, *DIE)
    diff = difference_sequence(first, second, confidence_level=0.9)
    one = confidence_sequence(300, 1000, *TWO_COINS, confidence_level=0.95)
    two = confidence_sequence(200, 800, *DIE, confidence_level=0.95)
    assert diff == DifferenceSequence(one.low - two.high, one.high - two.low, 0.9, one, two)
    assert diff.method == "union bound"
    assert diff.low < first.estimate_raw - second.estimate_raw < diff.high


def test_the_difference_passes_the_prior_on():
    first, second = estimate_proportion(30, 100), estimate_proportion(50, 100)
    diff = difference_sequence(first, second, a0=0.5, b0=4.0)
    assert diff.first == confidence_sequence(30, 100, confidence_level=0.975, a0=0.5, b0=4.0)
    assert diff.second == confidence_sequence(50, 100, confidence_level=0.975, a0=0.5, b0=4.0)
    assert diff.first.prior == (0.5, 4.0)


def test_the_difference_is_within_minus_one_and_one():
    diff = difference_sequence(estimate_proportion(1, 1), estimate_proportion(0, 1))
    assert (diff.low, diff.high) == (-1.0, 1.0)


def test_the_difference_takes_estimates_and_a_level():
    e = estimate_proportion(3, 10)
    with pytest.raises(ValueError, match="second="):
        difference_sequence(e, (3, 10))
    with pytest.raises(ValueError, match="first="):
        difference_sequence(None, e)
    with pytest.raises(ValueError, match="confidence_level=0"):
        difference_sequence(e, e, confidence_level=0)


# --------------------------------------------------------------------------
# Time-uniform coverage, by simulation.

#: Surveys per setting, answers per survey, the seed.
SURVEYS, ANSWERS, SEED = 1000, 10_000, 20261123
PREVALENCES = (0.05, 0.25, 0.5)
DESIGNS = {"two coins": TWO_COINS, "die": DIE, "asymmetric": ASYMMETRIC}
ALPHA = 0.05
#: One-sided tolerance: if a method's true rate of ever excluding the truth were exactly
#: alpha, the share over SURVEYS independent surveys would have standard error
#: sqrt(alpha (1 - alpha) / SURVEYS) = 0.0069; 3 of them leave a 0.13% chance per setting of
#: failing a correct method (the seed fixes the draw, so a pass is repeatable).
TOLERANCE = 3 * math.sqrt(ALPHA * (1 - ALPHA) / SURVEYS)
Z95 = float(stats.norm.ppf(1 - ALPHA / 2))


def _ever_excluded(lam: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """For each simulated survey, did the sequence / the Wilson interval exclude ``lambda`` at some ``n``?

    Checked at every ``n`` from 1 to ANSWERS. The sequence excludes ``lambda``
    iff ``log M_n(lambda) >= log(1/alpha)``, written here with a table of
    ``log Gamma`` for the uniform prior (``log B(1 + S, 1 + n - S) = lgamma(S + 1) +
    lgamma(n - S + 1) - lgamma(n + 2)``); the Wilson interval is the score test's
    acceptance region, so it excludes ``lambda`` iff ``(S - n lambda)^2 > z^2 n lambda (1 - lambda)``.
    """
    n = np.arange(1, ANSWERS + 1)
    log_gamma = special.gammaln(np.arange(ANSWERS + 3))
    sequence, interval = [], []
    for _ in range(SURVEYS // 250):
        yes = np.cumsum(rng.random((250, ANSWERS), dtype=np.float32) < lam, axis=1, dtype=np.int64)
        log_m = log_gamma[yes + 1] + log_gamma[n - yes + 1] - log_gamma[n + 2] - yes * math.log(lam)
        log_m -= (n - yes) * math.log1p(-lam)
        assert_allclose(log_m[0], log_mixture_martingale(yes[0], n, lam), rtol=1e-9, atol=1e-9)
        sequence.append((log_m >= -math.log(ALPHA)).any(axis=1))
        gap = yes - n * lam
        interval.append((gap * gap > Z95**2 * n * lam * (1 - lam)).any(axis=1))
        _check_against_the_bounds(yes[0], log_m[0], lam, rng)
    return np.concatenate(sequence), np.concatenate(interval)


def _check_against_the_bounds(yes: np.ndarray, log_m: np.ndarray, lam: float, rng: np.random.Generator) -> None:
    """At a few ``n`` of a survey, "excluded by the M check" agrees with the bounds of :func:`confidence_sequence`."""
    for index in rng.integers(0, ANSWERS, 5):
        cs = confidence_sequence(int(yes[index]), int(index + 1), *DIRECT)
        if abs(log_m[index] + math.log(ALPHA)) > 1e-6:
            assert (log_m[index] >= -math.log(ALPHA)) == (not cs.rate_low <= lam <= cs.rate_high)


@pytest.fixture(scope="module")
def coverage() -> dict[tuple[str, float], tuple[float, float]]:
    """``(design, prevalence) -> (share ever excluded by the sequence, by Wilson)``."""
    seeds = np.random.SeedSequence(SEED).spawn(len(DESIGNS) * len(PREVALENCES))
    out = {}
    for seed, (name, pi) in zip(seeds, [(d, p) for d in DESIGNS for p in PREVALENCES]):
        t, a, _ = DESIGNS[name]
        sequence, interval = _ever_excluded(float(a) + float(t) * pi, np.random.default_rng(seed))
        out[(name, pi)] = (sequence.mean(), interval.mean())
    return out


def test_the_sequence_excludes_the_truth_at_some_n_in_at_most_5_percent_of_surveys(coverage):
    for setting, (sequence, _) in coverage.items():
        assert sequence <= ALPHA + TOLERANCE, (setting, sequence)
    pooled = np.mean([sequence for sequence, _ in coverage.values()])
    assert pooled <= ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / (SURVEYS * len(coverage))), pooled


def test_the_wilson_interval_checked_at_every_answer_excludes_the_truth_far_more_often(coverage):
    for setting, (_, interval) in coverage.items():
        assert interval > ALPHA + TOLERANCE, (setting, interval)
    assert min(interval for _, interval in coverage.values()) > 0.5


def test_the_fast_wilson_check_is_the_wilson_interval():
    """``(S - n lambda)^2 > z^2 n lambda (1 - lambda)`` iff ``lambda`` is outside :func:`wilson_interval`."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(1, 500))
        yes = int(rng.integers(0, n + 1))
        lam = float(rng.uniform(0.01, 0.99))
        interval = wilson_interval(yes, n, *DIRECT)
        gap = yes - n * lam
        assert (gap * gap > Z95**2 * n * lam * (1 - lam)) == (not interval.low <= lam <= interval.high)


# --------------------------------------------------------------------------
# Two-group designs and a misclassification matrix: the rates' sequences mapped through the design.


def test_a_two_group_sequence_maps_each_groups_rate_sequence_through_the_moment_estimator():
    from analysis import StochasticLieDetectorDesign, two_group_sequence

    design = StochasticLieDetectorDesign(Fraction(2, 12), Fraction(10, 12))
    yes, n = (373, 398), (564, 692)  # Heck and Moshagen 2018's minarets counts (tests/test_two_group.py)
    mapped = two_group_sequence(yes, n, design, 0.95)
    half = [confidence_sequence(y, size, 1, 0, 0, 0.975) for y, size in zip(yes, n)]
    corners = [
        1 - (l1 - l2) / (Fraction(10, 12) - Fraction(2, 12))
        for l1 in (half[0].rate_low, half[0].rate_high)
        for l2 in (half[1].rate_low, half[1].rate_high)
    ]
    assert_allclose([mapped.low, mapped.high], [max(min(corners), 0.0), min(max(corners), 1.0)], rtol=1e-12)
    assert mapped.rates == tuple((h.rate_low, h.rate_high) for h in half)
    assert mapped.low < design.moment(373 / 564, 398 / 692)[0] <= mapped.high


def test_a_two_group_sequence_covers_the_prevalence_at_every_look():
    """Time-uniform coverage, seeded: R = 200 surveys of a cheater detection design (pi = 0.3, gamma =
    0.2), looked at after every 100 answers per group up to 2,000. The sequence must fail (ever exclude pi)
    in at most alpha + 3 binomial standard errors of R = 0.05 + 3 sqrt(0.05 * 0.95 / 200) = 0.096 of them;
    the union bound and the box make it conservative, so most runs never fail at all."""
    from analysis import CheaterDetectionDesign, two_group_sequence

    design = CheaterDetectionDesign(Fraction(1, 4), Fraction(3, 4))
    pi, gamma = 0.3, 0.2
    rates = design.rates(pi, gamma)
    rng = np.random.default_rng(20261122)  # simulation only
    failures = 0
    for _ in range(200):
        draws = [rng.random(2000) < rate for rate in rates]
        for n in range(100, 2001, 100):
            yes = (int(draws[0][:n].sum()), int(draws[1][:n].sum()))
            mapped = two_group_sequence(yes, (n, n), design, 0.95)
            if not mapped.low <= pi <= mapped.high:
                failures += 1
                break
    assert failures / 200 <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 200)


def test_matrix_option_sequences_map_the_rates_box_through_the_inverse():
    from analysis import matrix_option_sequences

    matrix = np.array([[0.75, 1 / 3], [0.25, 2 / 3]])
    inverse = np.linalg.inv(matrix)
    counts = [300, 200]
    sequences = matrix_option_sequences(counts, inverse, 0.95)
    box = [confidence_sequence(c, 500, 1, 0, 0, 0.975) for c in counts]
    for j, sequence in enumerate(sequences):
        ends = [
            inverse[j, 0] * a + inverse[j, 1] * b
            for a in (box[0].rate_low, box[0].rate_high)
            for b in (box[1].rate_low, box[1].rate_high)
        ]
        assert_allclose([sequence.low, sequence.high], [max(min(ends), 0), min(max(ends), 1)], rtol=1e-12)
        assert sequence.low <= (inverse @ np.array(counts) / 500)[j] <= sequence.high
    with pytest.raises(ValueError, match="2 x 2 matrix"):
        matrix_option_sequences(counts, np.eye(3))


def test_the_results_page_shows_a_sequence_for_a_two_group_question():
    from surveys import results
    from tests.helpers.sample_surveys import TWO_GROUP_YAML, make_survey, two_group_tallies

    survey = make_survey(TWO_GROUP_YAML)
    tallies = two_group_tallies(survey, {"evaded": {"1": (300, 200), "2": (150, 350)}})
    result = results.question_result(survey.question("evaded"), tallies["evaded"], 0.95)
    assert result.sequence is not None
    assert result.sequence.low <= result.estimate <= result.sequence.high
    assert result.sequence.high - result.sequence.low >= result.ci.high - result.ci.low


def test_a_two_group_sequence_is_at_95_percent_unless_told_and_names_a_bad_level():
    from analysis import StochasticLieDetectorDesign, two_group_sequence

    design = StochasticLieDetectorDesign(Fraction(2, 12), Fraction(10, 12))
    default = two_group_sequence((373, 398), (564, 692), design)
    assert default == two_group_sequence((373, 398), (564, 692), design, 0.95)
    assert default.confidence_level == 0.95
    with pytest.raises(ValueError, match=r"^confidence_level must be in \(0, 1\), got confidence_level=1\.5$"):
        two_group_sequence((373, 398), (564, 692), design, 1.5)


@pytest.mark.parametrize("yes", [(500, 500), (0, 0), (500, 0), (0, 500)])
@pytest.mark.parametrize("design_name", ["sld", "cdm"])
def test_a_two_group_sequence_stays_within_zero_and_one_at_the_extremes(yes, design_name):
    """Every answer yes (or no) in a group can put the unclipped ends past 0 or 1: the bounds are clipped."""
    from analysis import CheaterDetectionDesign, StochasticLieDetectorDesign, two_group_sequence

    design = {
        "sld": StochasticLieDetectorDesign(Fraction(2, 12), Fraction(10, 12)),
        "cdm": CheaterDetectionDesign(Fraction(1, 4), Fraction(3, 4)),
    }[design_name]
    mapped = two_group_sequence(yes, (500, 500), design, 0.95)
    assert 0.0 <= mapped.low <= mapped.high <= 1.0


def test_matrix_option_sequences_carry_their_rates_box_and_level_and_are_clipped_to_zero_and_one():
    from analysis import matrix_option_sequences

    matrix = np.array([[0.75, 1 / 3], [0.25, 2 / 3]])
    inverse = np.linalg.inv(matrix)
    counts = [500, 0]  # every answer the first option: its unclipped share is past 1 (inverse[0, 0] = 1.6)
    box = [confidence_sequence(c, 500, 1, 0, 0, 0.975) for c in counts]
    first, second = matrix_option_sequences(counts, inverse, 0.95)
    assert inverse[0, 0] * box[0].rate_low + inverse[0, 1] * box[1].rate_high > 1
    assert (first.low, first.high) == (1.0, 1.0) and (second.low, second.high) == (0.0, 0.0)
    for sequence in (first, second):
        assert sequence.rates == tuple((b.rate_low, b.rate_high) for b in box)
        assert sequence.confidence_level == 0.95
    with pytest.raises(ValueError, match=r"^confidence_level must be in \(0, 1\), got confidence_level=0$"):
        matrix_option_sequences(counts, inverse, 0)


# --------------------------------------------------------------------------
# Several designs' sequences combined by a union bound (analysis.sequences.union_sequence and kin).


def test_one_designs_union_sequence_is_its_sequence():
    from analysis.sequences import UnionSequence, union_sequence

    one = confidence_sequence(300, 1000, *TWO_COINS, confidence_level=0.9)
    assert union_sequence([estimate_proportion(300, 1000, *TWO_COINS)], 0.9) == UnionSequence(
        one.low, one.high, 0.9, 1, one.side
    )


def test_two_designs_each_get_half_of_alpha_and_are_intersected():
    from analysis.sequences import union_sequence

    first, second = estimate_proportion(300, 1000, *TWO_COINS), estimate_proportion(200, 800, *DIE)
    parts = [confidence_sequence(300, 1000, *TWO_COINS, 0.95), confidence_sequence(200, 800, *DIE, 0.95)]
    union = union_sequence([first, second], 0.9)
    assert (union.low, union.high) == (max(p.low for p in parts), min(p.high for p in parts))
    assert union.low < union.high and (union.designs, union.confidence_level, union.side) == (2, 0.9, "two-sided")
    assert type(union.confidence_level) is float and union_sequence([first], 1 - 0.5).confidence_level == 0.5


def test_designs_that_disagree_give_their_hull():
    from analysis.sequences import union_sequence

    estimates = [estimate_proportion(300, 1000, *TWO_COINS), estimate_proportion(800, 1000, *TWO_COINS)]
    parts = [confidence_sequence(e.yes_count, e.n, *TWO_COINS, 0.975) for e in estimates]
    assert parts[0].high < parts[1].low  # they do not meet
    union = union_sequence(estimates, 0.95)
    assert (union.low, union.high) == (parts[0].low, parts[1].high) == (0.0, 1.0)
    assert (parts[0].side, parts[1].side) == ("two-sided", "lower")
    assert union.side == "lower"  # the hull ends at 1 where the second part was one-sided


@pytest.mark.parametrize(
    ("counts", "side"),
    [((5, 100), "upper"), ((97, 100), "lower")],
)
def test_a_combined_bound_is_one_sided_where_a_part_was_at_that_end(counts, side):
    from analysis.sequences import union_sequence

    part = confidence_sequence(*counts, *TWO_COINS, 0.95)
    assert part.side == side
    assert union_sequence([estimate_proportion(*counts, *TWO_COINS)], 0.95).side == side


def test_a_union_needs_answers():
    from analysis.sequences import difference_union_sequence, two_group_union_sequence, union_sequence

    with pytest.raises(ValueError, match=r"^estimates must hold at least one design's answers, got none$"):
        union_sequence([], 0.95)
    with pytest.raises(ValueError, match=r"^fits must hold at least one version's answers, got none$"):
        two_group_union_sequence([], 0.95)
    with pytest.raises(ValueError, match="estimates must hold"):
        difference_union_sequence([], [estimate_proportion(3, 10)], 0.95)


def test_a_two_group_union_is_each_versions_sequence_at_its_share_of_alpha():
    from analysis import StochasticLieDetectorDesign, estimate_two_group, two_group_sequence
    from analysis.sequences import UnionSequence, two_group_union_sequence

    design = StochasticLieDetectorDesign(Fraction(2, 12), Fraction(10, 12))
    other = StochasticLieDetectorDesign(Fraction(3, 12), Fraction(9, 12))
    fits = [estimate_two_group((373, 398), (564, 692), design), estimate_two_group((300, 330), (500, 600), other)]
    one = two_group_sequence(fits[0].yes, fits[0].n, design, 0.9)
    assert two_group_union_sequence(fits[:1], 0.9) == UnionSequence(one.low, one.high, 0.9, 1)
    parts = [two_group_sequence(f.yes, f.n, f.design, 0.95) for f in fits]
    union = two_group_union_sequence(fits, 0.9)
    low, high = max(p.low for p in parts), min(p.high for p in parts)
    if low > high:
        low, high = min(p.low for p in parts), max(p.high for p in parts)
    assert (union.low, union.high, union.designs, union.side) == (low, high, 2, "two-sided")


def test_a_union_difference_is_the_difference_sequence_for_one_design_each():
    from analysis.sequences import difference_union_sequence

    first, second = estimate_proportion(300, 1000, *TWO_COINS), estimate_proportion(200, 800, *DIE)
    union = difference_union_sequence([first], [second], 0.9)
    diff = difference_sequence(first, second, confidence_level=0.9)
    assert (union.low, union.high, union.confidence_level, union.designs) == (diff.low, diff.high, 0.9, 2)
    more = difference_union_sequence([first, first], [second], 0.9)
    each = confidence_sequence(300, 1000, *TWO_COINS, confidence_level=1 - 0.05 / 2)  # alpha/2 split over 2 designs
    two = confidence_sequence(200, 800, *DIE, confidence_level=0.95)
    assert (more.low, more.high, more.designs) == (each.low - two.high, each.high - two.low, 3)


@pytest.mark.parametrize("level", [0.8, 0.99])
def test_the_one_sided_bound_outside_the_design_is_the_fixed_sample_one_at_the_same_level(level):
    """Below the floor (150 of 1,000 under two coins) and above the ceiling (850), the one-sided bound at
    levels other than 0.95 is :func:`outside_design`'s at that level, not at its default."""
    below = confidence_sequence(150, 1000, *TWO_COINS, confidence_level=level)
    assert (below.low, below.side) == (0.0, "upper")
    assert below.high == outside_design(150, 1000, *TWO_COINS, confidence_level=level).bound
    assert below.high != outside_design(150, 1000).bound
    above = confidence_sequence(850, 1000, *TWO_COINS, confidence_level=level)
    assert (above.high, above.side) == (1.0, "lower")
    assert above.low == outside_design(850, 1000, *TWO_COINS, confidence_level=level).bound
    assert above.low != outside_design(850, 1000).bound


def test_parts_that_meet_in_one_point_give_that_point_not_their_hull():
    """A version whose answers put the prevalence below 0 everywhere ([0, 0] once clipped) and one whose
    sequence starts at 0 meet only at 0: the union is [0, 0]."""
    from analysis import StochasticLieDetectorDesign, estimate_two_group, two_group_sequence
    from analysis.sequences import two_group_union_sequence

    design = StochasticLieDetectorDesign(Fraction(2, 12), Fraction(10, 12))
    fits = [estimate_two_group((1000, 0), (1000, 1000), design), estimate_two_group((80, 10), (100, 100), design)]
    parts = [two_group_sequence(f.yes, f.n, design, 0.975) for f in fits]
    assert (parts[0].low, parts[0].high) == (0.0, 0.0) and parts[1].low == 0.0 < parts[1].high
    union = two_group_union_sequence(fits, 0.95)
    assert (union.low, union.high) == (0.0, 0.0)


def test_a_bound_that_ends_at_one_without_a_one_sided_part_is_two_sided():
    """720 of 1,000 under two coins lies inside the design ([1/4, 3/4]) but its sequence is clipped at 1: the
    part is two-sided, and so is the union; a one-sided part whose end is cut off by another is two-sided too."""
    from analysis.sequences import union_sequence

    part = confidence_sequence(720, 1000, *TWO_COINS, 0.95)
    assert (part.high, part.side) == (1.0, "two-sided")
    assert union_sequence([estimate_proportion(720, 1000, *TWO_COINS)], 0.95).side == "two-sided"
    lower = confidence_sequence(97, 100, *TWO_COINS, 0.975)
    other = confidence_sequence(690, 1000, *TWO_COINS, 0.975)
    assert lower.side == "lower" and lower.low < other.high < 1.0
    union = union_sequence([estimate_proportion(97, 100, *TWO_COINS), estimate_proportion(690, 1000, *TWO_COINS)], 0.95)
    assert (union.low, union.high, union.side) == (lower.low, other.high, "two-sided")
