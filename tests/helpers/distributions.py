"""The exact distributions of the number and check-all-that-apply samplers, and the chi-square test of draws
against them (tests/test_numeric_protocol.py for ``secrets``, tests/test_browser_samplers.py for the browser).

The level of every test is fixed before the run: :data:`ALPHA` = 10^-4 for the server's samplers, whose words come
from a seeded stream in the tests (the same sample, so the same verdict, on every run), and :data:`LIVE_ALPHA` =
10^-6 for the browser's, which draw a new sample from ``crypto.getRandomValues`` each run: the browser's 15 such
checks together then fail a correct sampler at most once in about 65,000 runs. Cells are the sampler's outcomes in
order; the cells at either end whose expected count is below 5 are pooled into one tail cell each (Cochran's rule),
so the chi-square approximation holds.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from itertools import product

from scipy.stats import chisquare

from analysis.numeric_design import BoundedDesign, DiscreteLaplaceDesign, UnaryDesign

#: The level of each distribution test of a seeded sample, fixed before any draw.
ALPHA = 1e-4
#: The level of each distribution test of a sample that is new on every run (the browser's samplers).
LIVE_ALPHA = 1e-6
#: The smallest expected count of a cell; smaller cells at the ends are pooled.
MIN_EXPECTED = 5


def discrete_laplace_pmf(scale: Fraction, window: int) -> dict[int, float]:
    """``P(Z = z) = (1 - r) / (1 + r) r^|z|``, ``r = exp(-1 / scale)``, for ``|z| < window``, with the two tails
    ``P(Z <= -window) = P(Z >= window) = r^window / (1 + r)`` at ``-window`` and ``window`` (draws are clipped to
    the window to match: :func:`clipped`)."""
    r = math.exp(-1 / float(Fraction(scale)))
    pmf = {z: (1 - r) / (1 + r) * r ** abs(z) for z in range(-window + 1, window)}
    pmf[-window] = pmf[window] = r**window / (1 + r)
    return pmf


def laplace_window(scale: Fraction) -> int:
    """A window past which the discrete Laplace's tail is below 10^-12: every draw beyond it is in a tail cell."""
    return math.ceil(28 * float(Fraction(scale))) + 1


def clipped(draws, window: int) -> Counter:
    """Counts of ``draws`` clipped to ``[-window, window]``."""
    return Counter(min(max(z, -window), window) for z in draws)


def laplace_output_pmf(design: DiscreteLaplaceDesign, index: int) -> dict[int, float]:
    """``P(Y = y | k)`` of the clamped output ``Y = min(max(k + Z, -C), K + C)``: the discrete Laplace inside,
    the tails ``r^(C + k) / (1 + r)`` and ``r^(K + C - k) / (1 + r)`` at the clamp's ends."""
    low, high = design.output_range
    r = math.exp(-1 / float(design.scale))
    pmf = {y: (1 - r) / (1 + r) * r ** abs(y - index) for y in range(low + 1, high)}
    pmf[low] = r ** (index - low) / (1 + r)
    pmf[high] = r ** (high - index) / (1 + r)
    return pmf


def bounded_pmf(design: BoundedDesign, index: int) -> dict[int, float]:
    one = float(design.one_probability(index))
    return {0: 1 - one, 1: one}


def unary_pmf(design: UnaryDesign, ticked: tuple[bool, ...]) -> dict[tuple[int, ...], float]:
    """Every pattern of sent bits: a product of independent bits, 1 with ``p`` if ticked, ``q`` if not."""
    pmf = {}
    for bits in product((0, 1), repeat=design.options):
        chance = 1.0
        for bit, tick in zip(bits, ticked, strict=True):
            one = float(design.p if tick else design.q)
            chance *= one if bit else 1 - one
        pmf[bits] = chance
    return pmf


def pooled_cells(counts: Counter, pmf: dict, n: int) -> tuple[list[int], list[float]]:
    """Observed and expected counts over ``pmf``'s outcomes in order, the small cells at each end pooled."""
    keys = sorted(pmf)
    observed = [counts.get(key, 0) for key in keys]
    expected = [n * pmf[key] for key in keys]
    for _ in range(2):  # the low end, then (reversed) the high end
        while len(expected) > 1 and min(expected[:2]) < MIN_EXPECTED:  # until the tail and its neighbour hold 5
            low_expected, low_observed = expected.pop(0), observed.pop(0)
            expected[0] += low_expected
            observed[0] += low_observed
        expected.reverse()
        observed.reverse()
    if min(expected) < MIN_EXPECTED:
        raise ValueError(f"a cell inside the range expects {min(expected):.2f} < {MIN_EXPECTED}: too few draws")
    return observed, expected


def chi_square_pvalue(counts: Counter, pmf: dict, n: int) -> float:
    """The chi-square test's p-value of ``counts`` (``n`` draws) against ``pmf``; 0 when an outcome of
    probability 0 was drawn (or the counts do not sum to ``n``)."""
    if set(counts) - set(pmf) or sum(counts.values()) != n:
        return 0.0
    observed, expected = pooled_cells(counts, pmf, n)
    total = sum(expected)
    expected = [e * n / total for e in expected]  # the float pmf sums to 1 within rounding
    return float(chisquare(observed, expected).pvalue)
