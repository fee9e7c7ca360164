"""Bursts: hours with far more responses than a survey usually gets.

One client that clears its cookie can send many responses, and with
randomization on the device it chooses the noisy values it sends. Such a
flood shows as an hour whose count is far above the survey's usual rate;
:func:`find_bursts` names those hours so an admin can look at them (and
exclude their days from the estimates). It takes plain counts per hour and
returns frozen results: no time of day ever sits next to an answer here.

The rule
--------
For an hour with ``c`` responses, the survey's usual rate ``lambda`` is the
median count of its *other* active hours (hours with at least one
response). The hour is a burst when

    c >= min_count   and   P(X >= c | X ~ Poisson(lambda)) < alpha

with ``min_count = 10`` and ``alpha = 1e-6`` by default.

Why these choices:

* Active hours only, so nights and weekends without traffic do not drag
  the usual rate down (which would flag every busy hour of the day). Leaving
  zero hours out can only raise ``lambda``: the test errs towards silence.
* The median, so that a burst (or several) cannot raise the usual rate it
  is compared with, as it would raise a mean.
* The hour itself is left out of its own median, so that a survey with two
  active hours (3 then 300) still flags the 300.
* ``min_count`` keeps a survey that gets one response an hour from flagging
  a handful of friends answering together.
* Under Poisson arrivals at rate ``lambda`` each hour is flagged with
  probability below ``alpha``; over ``H`` hours the chance of any false
  alarm is at most ``H * alpha`` (Bonferroni): 7.2e-4 for 30 days of hours.
  Real traffic is burstier than Poisson (a class told to answer together,
  a newsletter), so a warning asks for a look, not a verdict.

References
----------
Kulldorff, M. (2001). Prospective time periodic geographical disease
surveillance using a scan statistic. JRSS A 164(1), 61-72 (Poisson
counts against an expected rate).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from scipy import stats

#: An hour with fewer responses is never a burst.
MIN_BURST_COUNT = 10
#: The largest Poisson upper-tail probability of a burst hour.
BURST_ALPHA = 1e-6


@dataclass(frozen=True)
class Burst:
    """One hour with far more responses than usual.

    Attributes
    ----------
    hour : str
        The hour's label as given (for example ``"2026-03-04T14"``, UTC).
    count : int
        Responses in that hour.
    usual_rate : float
        ``lambda``: the median count of the survey's other active hours.
    p_value : float
        ``P(X >= count)`` for ``X ~ Poisson(usual_rate)``.
    """

    hour: str
    count: int
    usual_rate: float
    p_value: float


def find_bursts(
    hourly_counts: Iterable[tuple[str, int]], min_count: int = MIN_BURST_COUNT, alpha: float = BURST_ALPHA
) -> tuple[Burst, ...]:
    """The hours whose count is far above the usual rate (see the module's rule).

    Parameters
    ----------
    hourly_counts : iterable of (str, int)
        ``(hour label, responses)`` per hour; hours with no response may be
        left out (zeros are ignored anyway). Labels must be distinct.
    min_count : int
        Smallest count that can be a burst (>= 1).
    alpha : float
        Largest upper-tail probability of a burst, in ``(0, 1)``.

    Returns
    -------
    tuple of Burst
        In the order of ``hourly_counts``. Empty when there are fewer than
        two active hours (no other hour to learn the usual rate from).

    Raises
    ------
    ValueError
        For a negative or non-integer count, a repeated label, or
        ``min_count`` or ``alpha`` out of range.
    """
    if isinstance(min_count, bool) or not isinstance(min_count, int) or min_count < 1:
        raise ValueError(f"min_count must be an integer >= 1, got min_count={min_count!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got alpha={alpha!r}")
    active = [(hour, count) for hour, count in _checked(hourly_counts) if count > 0]
    if len(active) < 2:
        return ()
    ordered = np.sort(np.array([count for _, count in active], dtype=np.int64))
    bursts = []
    for hour, count in active:
        if count < min_count:
            continue
        usual = _median_without_one(ordered, count)
        p_value = float(stats.poisson.sf(count - 1, usual))  # P(X >= count)
        if p_value < alpha:
            bursts.append(Burst(hour, count, usual, p_value))
    return tuple(bursts)


def _checked(hourly_counts: Iterable[tuple[str, int]]) -> list[tuple[str, int]]:
    pairs, seen = [], set()
    for hour, count in hourly_counts:
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
            raise ValueError(f"an hourly count must be an integer >= 0, got {count!r} for hour {hour!r}")
        if hour in seen:
            raise ValueError(f"hour {hour!r} is given twice")
        seen.add(hour)
        pairs.append((hour, int(count)))
    return pairs


def _median_without_one(ordered: np.ndarray, value: int) -> float:
    """The median of the sorted ``ordered`` with one copy of ``value`` removed, in O(log n)."""
    removed = int(np.searchsorted(ordered, value))
    size = len(ordered) - 1

    def at(index: int) -> int:
        return int(ordered[index if index < removed else index + 1])

    if size % 2:
        return float(at(size // 2))
    return (at(size // 2 - 1) + at(size // 2)) / 2
