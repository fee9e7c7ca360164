"""Analysis options typed by a person (query strings, CLI flags), checked before any statistic runs.

Each parser takes the text as given and returns a float, or raises
``ValueError`` with a message that names the text. The admin pages turn the
message into a 400, the CLI into a usage error: one rule for both.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from analysis import INTERVAL_METHODS

#: Highest confidence level offered (z = 4.89). At 1 - 2**-53 the normal quantile
#: is infinite and sample sizes overflow; every level up to this one stays finite.
MAX_CONFIDENCE_LEVEL = 0.999999
MIN_CONFIDENCE_LEVEL = 0.5
#: Smallest planned half-width (0.1 point): a tinier one needs more respondents than exist,
#: and below about 1e-154 its square underflows to 0.
MIN_HALF_WIDTH = 0.001
MAX_HALF_WIDTH = 0.5


@dataclass(frozen=True)
class ResultsOptions:
    """What the results page's query string asks for, checked.

    ``by``: the plain question to break the results down by, or None;
    ``first``/``second``: the groups to compare (both or neither, else the first two).
    """

    method: str = "wilson"
    level: float = 0.95
    half_width: float = 0.05
    by: str | None = None
    first: str | None = None
    second: str | None = None


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
        raise ValueError(
            f"The confidence level must be from {MIN_CONFIDENCE_LEVEL} to {MAX_CONFIDENCE_LEVEL}, got “{text[:40]}”."
        )
    return value


def half_width(text: str) -> float:
    """A planned half-width from :data:`MIN_HALF_WIDTH` up to (not including) 0.5."""
    value = _number(text, "half-width", "0.05")
    if not MIN_HALF_WIDTH <= value < MAX_HALF_WIDTH:
        raise ValueError(
            f"The half-width must be at least {MIN_HALF_WIDTH} and below {MAX_HALF_WIDTH}, got “{text[:40]}”."
        )
    return value


def interval_method(text: str) -> str:
    """One of :data:`analysis.INTERVAL_METHODS`."""
    if text not in INTERVAL_METHODS:
        raise ValueError(f"Unknown interval method “{text[:40]}”; choose one of {', '.join(INTERVAL_METHODS)}.")
    return text


def breakdown_by(text: str, plain_questions: Collection[str]) -> str:
    """The name of a question that is not randomized (only those can split the respondents)."""
    if text not in plain_questions:
        raise ValueError(
            f"“{text[:40]}” is not a non-randomized question of this survey; "
            f"break-downs are by one of: {', '.join(sorted(plain_questions)) or 'none'}."
        )
    return text


def estimate_options(args: Mapping[str, str]) -> tuple[str, float]:
    """Interval method and confidence level (``method``, ``level``), as the estimates exports take them."""
    return interval_method(args.get("method", "wilson")), confidence_level(args.get("level", "0.95"))


def results_options(args: Mapping[str, str], plain_questions: Collection[str]) -> ResultsOptions:
    """Everything the results page's query string chooses, each checked in the order shown on the page."""
    method, level = estimate_options(args)
    by = args.get("by") or None
    if by is not None:
        breakdown_by(by, plain_questions)
    return ResultsOptions(
        method=method,
        level=level,
        half_width=half_width(args.get("half_width", "0.05")),
        by=by,
        first=args.get("first") or None,
        second=args.get("second") or None,
    )
