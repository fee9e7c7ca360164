"""Argument checks shared by every module of :mod:`analysis`.

One home for each check, so that a bad count, probability or design is
reported the same way everywhere: a ``ValueError`` whose message names the
argument and shows the value as it was given (``n=0``, ``a=-0.1``,
``epsilons[1]=nan``).

This module imports nothing from the rest of the package, so every other
module (including :mod:`analysis.privacy`, which :mod:`analysis.design`
imports) can use it.
"""

from __future__ import annotations

import math
from fractions import Fraction
from numbers import Integral, Rational, Real

#: Largest denominator accepted for a design probability. Keeps the live
#: randomizer's integer draw small and rejects floats such as 0.1 + 0.2 that
#: only approximate a fraction.
MAX_DENOMINATOR = 10**6

#: Largest distance between a float probability and the fraction it is read
#: as (see :func:`as_exact`), and between a sum of float probabilities and 1.
#: Float arithmetic on numbers in [0, 1] errs by about 1e-16, so 1e-12 only
#: absorbs rounding, never a real difference.
_FRACTION_TOLERANCE = 1e-12


def check_integer(value: object, name: str, minimum: int) -> int:
    """An integer (not a bool) ``>= minimum``, such as a count of answers."""
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {name}={value!r}")
    return int(value)


def check_counts(yes_count: object, n: object) -> tuple[int, int]:
    """Return ``(yes_count, n)`` as ints, or raise ``ValueError`` naming the bad one."""
    n = check_integer(n, "n", 1)
    if isinstance(yes_count, bool) or not isinstance(yes_count, Integral) or not 0 <= yes_count <= n:
        raise ValueError(f"yes_count must be an integer in [0, n={n}], got yes_count={yes_count!r}")
    return int(yes_count), n


def check_real(value: object, name: str) -> float:
    """A finite real number (not a bool, not a string)."""
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {name}={value!r}")
    return float(value)


def check_unit_open(value: object, name: str) -> float:
    """A number strictly between 0 and 1, such as a confidence level."""
    x = check_real(value, name)
    if not 0 < x < 1:
        raise ValueError(f"{name} must be in (0, 1), got {name}={value!r}")
    return x


def check_unit_closed(value: object, name: str) -> float:
    """A proportion in [0, 1]."""
    x = check_real(value, name)
    if not 0 <= x <= 1:
        raise ValueError(f"{name} must be in [0, 1], got {name}={value!r}")
    return x


def check_probabilities_sum_to_one(**probabilities: object) -> tuple[float, ...]:
    """Probabilities in [0, 1] (floats allowed) whose sum is 1 up to rounding.

    Returns them as floats in the order given; the message names the first
    bad one, or shows the sum.
    """
    values = tuple(check_unit_closed(value, name) for name, value in probabilities.items())
    if abs(math.fsum(values) - 1) > _FRACTION_TOLERANCE:
        shown = " + ".join(f"{name}={value!r}" for name, value in probabilities.items())
        raise ValueError(f"{' + '.join(probabilities)} must equal 1, got {shown} = {math.fsum(values)!r}")
    return values


def check_epsilons(epsilons: object) -> tuple[float, ...]:
    """Per-answer epsilons: numbers ``>= 0``, infinity allowed (no privacy), NaN not."""
    try:
        items = tuple(epsilons)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(f"epsilons must be a sequence of numbers, got epsilons={epsilons!r}") from None
    for index, value in enumerate(items):
        if isinstance(value, bool) or not isinstance(value, Real) or math.isnan(value) or value < 0:
            raise ValueError(f"epsilons must be numbers >= 0 (inf allowed), got epsilons[{index}]={value!r}")
    return tuple(float(value) for value in items)


# --------------------------------------------------------------------------
# Design probabilities as exact fractions.


class DesignError(ValueError):
    """A design that cannot be built; ``field`` names the bad parameter.

    ``field`` is ``"t"``, ``"a"``, ``"b"`` or ``"k"`` (or the name given to
    :func:`as_probability`) when one parameter is wrong on its own, and
    ``None`` when the fault lies with the whole design (``t + a + b`` not 1,
    an unknown kind, a record lacking a key), so that a caller can point at
    the field without reading the message.
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def as_probability(value: object, name: str, max_denominator: int | None = MAX_DENOMINATOR) -> Fraction:
    """Return ``value`` as an exact fraction, or raise :class:`DesignError` naming it (``field`` = ``name``).

    Accepts ints, fractions, floats (read through their shortest decimal
    form, so ``0.7`` is 7/10) and strings such as ``"1/4"`` or ``"0.25"``.
    The denominator must be at most ``max_denominator``
    (:data:`MAX_DENOMINATOR` by default; ``None``: no limit, for exact
    fractions derived from a valid design, such as a multiple-choice
    option's forced share ``(1 - t)/k``).
    """
    if isinstance(value, bool) or not isinstance(value, (Real, str)):
        raise DesignError(f"{name} must be a number, got {value!r}", name)
    try:
        exact = value if isinstance(value, Rational) else Fraction(str(value).strip())
    except (ValueError, ZeroDivisionError):
        raise DesignError(f"{name} must be a number such as 0.25 or 1/4, got {value!r}", name) from None
    exact = Fraction(exact)
    if max_denominator is not None and exact.denominator > max_denominator:
        raise DesignError(
            f"{name}={value!r} needs a denominator above {max_denominator}; write it as a fraction such as 1/3",
            name,
        )
    return exact


def check_forced_response(
    t: object, a: object, b: object, max_denominator: int | None = MAX_DENOMINATOR
) -> tuple[Fraction, Fraction, Fraction]:
    """A forced-response design ``(t, a, b)`` as exact fractions.

    ``t > 0``, ``a, b >= 0`` and ``t + a + b = 1`` exactly; see
    :class:`analysis.design.ForcedResponseDesign`. ``max_denominator`` as
    for :func:`as_probability`.
    """
    t, a, b = (as_probability(value, name, max_denominator) for name, value in (("t", t), ("a", a), ("b", b)))
    if t <= 0:
        raise DesignError(f"t (probability of a truthful answer) must be > 0, got t={t}", "t")
    for name, value in (("a", a), ("b", b)):
        if value < 0:
            raise DesignError(f"{name} must be >= 0, got {name}={value}", name)
    total = t + a + b
    if total != 1:
        raise DesignError(f"t + a + b must equal 1, got {t} + {a} + {b} = {total}")
    return t, a, b


def as_exact(value: object) -> object:
    """Read a float that is a rounded fraction (such as ``2/3``) as that fraction.

    Designs keep exact fractions with denominators up to ``MAX_DENOMINATOR``
    and reject floats whose shortest decimal form is longer, such as
    ``2/3 = 0.6666666666666666``. The estimators take plain floats, so a float
    within ``_FRACTION_TOLERANCE`` of such a fraction is passed on as the
    fraction; anything else is passed on as is for the design to accept or
    reject.
    """
    if isinstance(value, float) and math.isfinite(value):
        fraction = Fraction(value).limit_denominator(MAX_DENOMINATOR)
        if abs(float(fraction) - value) <= _FRACTION_TOLERANCE:
            return fraction
    return value


def check_design_exact(t: object, a: object, b: object) -> tuple[Fraction, Fraction, Fraction]:
    """Validate a forced-response design given as floats or exact fractions; return it exact.

    Exact fractions (:class:`numbers.Rational`) are taken as they are,
    whatever their denominator: the estimators never draw from a design, and
    a valid design's derived probabilities (a ``k``-option question's forced
    share ``(1 - t)/k``) can need ``k`` times :data:`MAX_DENOMINATOR`.
    Floats and strings are read through :func:`as_exact` and
    :func:`as_probability`, with the usual limit. Raises ``ValueError``
    naming the values as they were given.
    """

    def read(value: object, name: str) -> object:
        return value if isinstance(value, Rational) else as_probability(as_exact(value), name)

    try:
        exact = check_forced_response(read(t, "t"), read(a, "a"), read(b, "b"), max_denominator=None)
    except ValueError as error:
        raise ValueError(f"invalid design t={t!r}, a={a!r}, b={b!r}: {error}") from None
    return exact


def check_design(t: object, a: object, b: object) -> tuple[float, float, float]:
    """:func:`check_design_exact`, returned as floats for the arithmetic."""
    return tuple(float(p) for p in check_design_exact(t, a, b))  # type: ignore[return-value]


def check_estimates(estimates: object, kind: type) -> list:
    """``estimates`` as a non-empty list of ``kind`` objects (the results a pooling function combines), or
    ``ValueError`` naming the bad one."""
    name = kind.__name__
    try:
        items = list(estimates)  # type: ignore[call-overload]
    except TypeError:
        raise ValueError(f"estimates must be a sequence of {name}, got {estimates!r}") from None
    if not items:
        raise ValueError(f"estimates must hold at least one {name}, got none")
    for index, item in enumerate(items):
        if not isinstance(item, kind):
            raise ValueError(f"estimates must be {name} objects, got estimates[{index}]={item!r}")
    return items
