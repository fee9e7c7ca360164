"""The live randomizers of numbers and check-all-that-apply answers, from ``secrets``, in exact integers.

The designs are :mod:`analysis.numeric_design`'s; the browser's twins are in ``static/randomize.js``
(``window.RRSamplers``). The rules of :mod:`surveys.protocol` hold here too:

* Every draw comes from :mod:`secrets`, always as ``secrets.randbelow(n)`` with an integer ``n``;
  every probability is an exact :class:`~fractions.Fraction` compared with an integer draw, so no
  floating point is on the sampling path and there is no rounding bias.
* The draws do not depend on the true answer: a value is put on the grid by a draw made whatever the
  value (:func:`grid_index`); the noise of a number is drawn before the true index is added
  (:func:`laplace_output`); the one-bit and unary randomizers draw first and compare every threshold
  before the truth picks one. So the random numbers consumed, and the work done, are the same whatever
  the answer (tests/test_numeric_protocol.py::test_the_draws_do_not_depend_on_the_true_answer).

The discrete Laplace noise is drawn exactly by Canonne, Kamath and Steinke's Algorithms 1 and 2.

References
----------
C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020,
arXiv:2004.00010, Algorithm 1 (Bernoulli(exp(-gamma))) and Algorithm 2 (discrete Laplace).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from fractions import Fraction
from math import gcd, lcm

from analysis.numeric_design import BoundedDesign, DiscreteLaplaceDesign, UnaryDesign

#: A value as typed: an optional minus sign, ASCII digits, and at most this many decimals.
MAX_DECIMALS = 6
_DECIMAL = re.compile(rf"-?[0-9]+(\.[0-9]{{1,{MAX_DECIMALS}}})?")


def rounding_denominator(minimum: Fraction, step: Fraction) -> int:
    """``D``: the bound of the one draw of :func:`grid_index`, fixed by the question (never by the value).

    A value ``v`` has at most :data:`MAX_DECIMALS` decimals, so ``pos = (v - min) / step`` is a multiple of
    ``1 / (step.numerator * lcm(10^6, min.denominator))``: that product is ``D``, and ``(pos - floor(pos)) D``
    is an integer for every value. (``step.denominator * 10^6``, as first written in the contract, is such a
    multiple only when the step's numerator is 1: a step of 0.3 would make ``1/3`` of a step a fraction of
    ``D``.) For an integer question (``min`` an integer, step 1) it is ``10^6``.
    """
    return Fraction(step).numerator * lcm(10**MAX_DECIMALS, Fraction(minimum).denominator)


def parse_decimal(value: str) -> int:
    """A decimal string (``"12"``, ``"-0.25"``, at most six decimals, ASCII digits) in millionths:
    ``"-0.25"`` is ``-250000``."""
    if not isinstance(value, str) or not _DECIMAL.fullmatch(value):
        raise ValueError(f"a number must be written with digits and at most {MAX_DECIMALS} decimals, got {value!r}")
    whole, _, decimals = value.lstrip("-").partition(".")
    millionths = int(whole + decimals.ljust(MAX_DECIMALS, "0"))
    return -millionths if value.startswith("-") else millionths


def grid_index(value: str, minimum: Fraction, step: Fraction, steps: int) -> int:
    """The grid index of a true value, by unbiased stochastic rounding.

    ``pos = (v - min) / step`` exactly; the index is ``floor(pos) + 1`` with probability
    ``pos - floor(pos)``, else ``floor(pos)``, so its expectation is ``pos`` (the value's mean survives).
    One ``u = secrets.randbelow(D)`` (:func:`rounding_denominator`) is drawn before the value is read, and
    the index goes up when ``u < (pos - floor(pos)) D``. A value on the grid (every integer of an integer
    question) goes nowhere, the draw still made. Integers only: with ``v = A / 10^6``, ``min = m / d`` and
    ``step = s / e``, ``pos = top / bottom`` with ``top = (A d - m 10^6) e`` and ``bottom = 10^6 d s``, and
    ``(pos - floor(pos)) D = (top mod bottom) / gcd(10^6, d)``, an integer.

    Raises
    ------
    ValueError
        naming the value, when it is not a decimal string of at most six decimals within
        ``[min, min + steps * step]``.
    """
    minimum, step = Fraction(minimum), Fraction(step)
    denominator = rounding_denominator(minimum, step)
    u = secrets.randbelow(denominator)
    millionths = parse_decimal(value)
    scale = 10**MAX_DECIMALS
    top = (millionths * minimum.denominator - minimum.numerator * scale) * step.denominator
    bottom = scale * minimum.denominator * step.numerator
    if not 0 <= top <= steps * bottom:
        maximum = minimum + steps * step
        raise ValueError(f"the number must be between {_plain(minimum)} and {_plain(maximum)}, got {value!r}")
    below, remainder = divmod(top, bottom)
    threshold = remainder // gcd(scale, minimum.denominator)  # exact: see rounding_denominator
    return below + int(u < threshold)


def _plain(number: Fraction) -> str:
    """A range end as the survey file wrote it (``2.5``, ``30``)."""
    if number.denominator == 1:
        return str(number.numerator)
    return f"{float(number):.6f}".rstrip("0")


def bernoulli_exp(gamma: Fraction, *, randbelow: Callable[[int], int] | None = None) -> int:
    """1 with probability ``exp(-gamma)``, exactly, for a rational ``gamma >= 0``.

    Canonne, Kamath and Steinke 2020, Algorithm 1. For ``gamma`` in ``[0, 1]``: draw ``A_k`` from
    Bernoulli(``gamma / k``) for ``k = 1, 2, ...`` until one is 0; return 1 when that ``k`` is odd
    (``P(K > k) = gamma^k / k!``, so ``P(K odd) = sum_k (-gamma)^k / k! = exp(-gamma)``). For ``gamma > 1``:
    ``floor(gamma)`` draws of Bernoulli(``exp(-1)``) and one of Bernoulli(``exp(-(gamma - floor(gamma)))``),
    stopping at the first 0; 1 only when all are 1. Each Bernoulli(``n / d``) is one
    ``secrets.randbelow(d) < n``.

    ``randbelow`` is for :class:`surveys.central_noise.ExactSampler` (the tests' seeded sampler, never a
    live draw): the same algorithm over a seeded source; ``None`` (the default) is ``secrets.randbelow``.
    """
    gamma = Fraction(gamma)
    if gamma < 0:
        raise ValueError(f"gamma must be at least 0, got {gamma}")
    return _bernoulli_exp(gamma.numerator, gamma.denominator, randbelow or secrets.randbelow)


def _bernoulli_exp(numerator: int, denominator: int, draw: Callable[[int], int]) -> int:
    """:func:`bernoulli_exp` of ``numerator / denominator`` (not necessarily in lowest terms), integers only."""
    while numerator > denominator:
        if not _bernoulli_exp_unit(1, 1, draw):
            return 0
        numerator -= denominator
    return _bernoulli_exp_unit(numerator, denominator, draw)


def _bernoulli_exp_unit(numerator: int, denominator: int, draw: Callable[[int], int]) -> int:
    """Algorithm 1 for ``gamma = numerator / denominator`` in ``[0, 1]``: Bernoulli(``gamma / k``) is
    ``randbelow(denominator * k) < numerator``."""
    k = 1
    while draw(denominator * k) < numerator:
        k += 1
    return k % 2


def _magnitude(s: int, t: int, draw: Callable[[int], int]) -> int:
    """Algorithm 2's magnitude: ``floor((U + t V) / s)``, geometric with ratio ``exp(-s / t)``.

    ``U`` uniform below ``t``, kept with probability ``exp(-U / t)`` (else drawn again), and ``V`` the
    number of 1s of Bernoulli(``exp(-1)``) before the first 0: ``X = U + t V`` is geometric with ratio
    ``exp(-1 / t)``, and ``floor(X / s)`` with ratio ``exp(-s / t)``.
    """
    while True:
        u = draw(t)
        if _bernoulli_exp_unit(u, t, draw):
            break
    v = 0
    while _bernoulli_exp_unit(1, 1, draw):
        v += 1
    return (u + t * v) // s


def discrete_laplace(scale: Fraction, *, randbelow: Callable[[int], int] | None = None) -> int:
    """An integer ``Z`` with ``P(Z = z) = (1 - r) / (1 + r) r^|z|``, ``r = exp(-1 / scale)``, exactly.

    Canonne, Kamath and Steinke 2020, Algorithm 2, with ``scale = t / s`` in lowest terms: a magnitude
    ``Y = floor((U + t V) / s)`` (geometric with ratio ``exp(-s / t)``) and a fair sign ``B``; a negative
    zero (``B = 1, Y = 0``) is rejected and everything drawn again. Integers only. ``randbelow`` as in
    :func:`bernoulli_exp` (tests and simulations only).
    """
    scale = Fraction(scale)
    if scale <= 0:
        raise ValueError(f"scale must be positive, got {scale}")
    draw = randbelow or secrets.randbelow
    while True:
        negative = draw(2)
        magnitude = _magnitude(scale.denominator, scale.numerator, draw)
        if negative and magnitude == 0:
            continue
        return -magnitude if negative else magnitude


def _check_index(index: object, steps: int) -> int:
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index <= steps:
        raise ValueError(f"a grid index must be an integer in [0, {steps}], got {index!r}")
    return index


def laplace_output(index: int, design: DiscreteLaplaceDesign) -> int:
    """``index + Z`` (``Z`` from :func:`discrete_laplace` at the design's scale), clamped to
    ``design.output_range``. The noise is drawn whatever the index; adding it is the only use of the truth."""
    index = _check_index(index, design.steps)
    noise = discrete_laplace(design.scale)
    low, high = design.output_range
    return min(max(index + noise, low), high)


def bounded_output(index: int, design: BoundedDesign) -> int:
    """One bit, 1 with ``(low K + (high - low) k) / ((high + low) K)``: ``u = randbelow((high + low) K)``,
    1 when ``u < low K + (high - low) k``."""
    index = _check_index(index, design.steps)
    u = secrets.randbelow((design.high + design.low) * design.steps)
    return int(u < design.low * design.steps + (design.high - design.low) * index)


def unary_bits(ticked: tuple[bool, ...], design: UnaryDesign) -> tuple[int, ...]:
    """One bit per option: 1 with ``p`` if ticked, ``q`` if not. One ``u = randbelow(D)`` per option
    (``D`` the common denominator of ``p`` and ``q``), every draw made and both thresholds compared before
    the ticks pick one."""
    if len(ticked) != design.options or any(not isinstance(t, bool) for t in ticked):
        raise ValueError(f"a check-all-that-apply answer must be {design.options} booleans, got {ticked!r}")
    denominator = lcm(design.p.denominator, design.q.denominator)
    p_threshold = design.p.numerator * (denominator // design.p.denominator)
    q_threshold = design.q.numerator * (denominator // design.q.denominator)
    draws = [secrets.randbelow(denominator) for _ in ticked]
    if_ticked = [int(u < p_threshold) for u in draws]
    if_not = [int(u < q_threshold) for u in draws]
    return tuple(one if tick else other for tick, one, other in zip(ticked, if_ticked, if_not, strict=True))
