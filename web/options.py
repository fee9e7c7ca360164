"""Analysis options typed by a person (query strings, CLI flags), checked before any statistic runs.

Each parser takes the text as given and returns a float, or raises
``ValueError`` with a message that names the text. The admin pages turn the
message into a 400, the CLI into a usage error: one rule for both.
"""

from __future__ import annotations

import math

#: Highest confidence level offered (z = 4.89). At 1 - 2**-53 the normal quantile
#: is infinite and sample sizes overflow; every level up to this one stays finite.
MAX_CONFIDENCE_LEVEL = 0.999999
MIN_CONFIDENCE_LEVEL = 0.5
#: Smallest planned half-width (0.1 point): a tinier one needs more respondents than exist,
#: and below about 1e-154 its square underflows to 0.
MIN_HALF_WIDTH = 0.001
MAX_HALF_WIDTH = 0.5


def _number(text: str, what: str, example: str) -> float:
    """``text`` as a finite float, or a ValueError naming it."""
    shown = f"“{text[:40]}”"
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"The {what} must be a number such as {example}, got {shown}.") from None
    if not math.isfinite(value):
        raise ValueError(f"The {what} must be a finite number such as {example}, got {shown}.")
    return value


def confidence_level(text: str) -> float:
    """A confidence level from 0.5 to :data:`MAX_CONFIDENCE_LEVEL`."""
    value = _number(text, "confidence level", "0.95")
    if not MIN_CONFIDENCE_LEVEL <= value <= MAX_CONFIDENCE_LEVEL:
        raise ValueError(f"The confidence level must be from {MIN_CONFIDENCE_LEVEL} to {MAX_CONFIDENCE_LEVEL}, "
                         f"got “{text[:40]}”.")
    return value


def half_width(text: str) -> float:
    """A planned half-width from :data:`MIN_HALF_WIDTH` up to (not including) 0.5."""
    value = _number(text, "half-width", "0.05")
    if not MIN_HALF_WIDTH <= value < MAX_HALF_WIDTH:
        raise ValueError(f"The half-width must be at least {MIN_HALF_WIDTH} and below {MAX_HALF_WIDTH}, "
                         f"got “{text[:40]}”.")
    return value
