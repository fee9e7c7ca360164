"""Bursts: clock hours with far more responses than a survey usually gets.

One client that clears its cookie can send many responses, and with
randomization on the device it chooses the noisy values it sends. Such a
flood shows as an hour whose count is far above the survey's usual rate.
:func:`judge_hour` tests one hour's count against the survey's *histogram of
hourly counts* (how many past hours had 1, 2, 3, ... responses), which holds
no time at all: the app never stores at what hour a response came, only the
day, so no time of day ever sits next to an answer.

The rule
--------
For an hour with ``c`` responses, the survey's usual rate ``lambda`` is the
median count of its *other* active hours (hours with at least one
response). The hour is a burst when

    c >= min_count   and   P(X >= c | X ~ Poisson(lambda)) < alpha

with ``min_count = 10`` and ``alpha = 1e-6`` by default; or, whatever the
other hours, when

    c >= ceiling

the survey's ceiling per hour (``burst_ceiling_per_hour`` in its file). The
ceiling is what flags a flood in a survey's first active hour, when there is
no other hour to learn a usual rate from, and a flood in its second hour,
whose usual rate would be the first flood itself.

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
class HourTest:
    """One clock hour's count tested against the survey's usual rate.

    Attributes
    ----------
    count : int
        Responses in the hour so far.
    usual_rate : float or None
        ``lambda``: the median count of the survey's other active hours; None
        when there is no other active hour to learn it from.
    p_value : float or None
        ``P(X >= count)`` for ``X ~ Poisson(usual_rate)``; None without a usual rate.
    is_burst : bool
        ``count >= min_count`` and ``p_value < alpha``, or ``count >= ceiling``.
    ceiling : int or None
        The ceiling the hour was judged with (None: none).
    """

    count: int
    usual_rate: float | None
    p_value: float | None
    is_burst: bool
    ceiling: int | None = None


def judge_hour(
    count: int,
    histogram: Iterable[tuple[int, int]],
    min_count: int = MIN_BURST_COUNT,
    alpha: float = BURST_ALPHA,
    *,
    ceiling: int | None = None,
) -> HourTest:
    """Is an hour with ``count`` responses a burst? (see the module's rule)

    Parameters
    ----------
    count : int
        Responses in the hour tested (>= 0).
    histogram : iterable of (int, int)
        ``(responses in an hour, number of such hours)`` over the survey's
        active hours, the tested hour included (at ``count``) when it is one
        of them; counts of 0 are ignored. Each count appears once.
    min_count : int
        Smallest count that can be a burst (>= 1).
    alpha : float
        Largest upper-tail probability of a burst, in ``(0, 1)``.
    ceiling : int or None
        A count that is a burst whatever the other hours (>= 1); None: none.

    Returns
    -------
    HourTest

    Raises
    ------
    ValueError
        For a negative or non-integer count, a repeated count in the
        histogram, or ``min_count``, ``alpha`` or ``ceiling`` out of range.
    """
    if isinstance(min_count, bool) or not isinstance(min_count, int) or min_count < 1:
        raise ValueError(f"min_count must be an integer >= 1, got min_count={min_count!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got alpha={alpha!r}")
    ceiling = _checked_ceiling(ceiling)
    count = _checked_count(count, "count")
    over = ceiling is not None and count >= ceiling
    usual = _median_of_others(_checked_histogram(histogram), count)
    if usual is None:
        return HourTest(count, None, None, over, ceiling)
    p_value = float(stats.poisson.sf(count - 1, usual))  # P(X >= count)
    return HourTest(count, usual, p_value, over or (count >= min_count and p_value < alpha), ceiling)


def hour_threshold(
    usual_rate: float | None, ceiling: int | None, min_count: int = MIN_BURST_COUNT, alpha: float = BURST_ALPHA
) -> int | None:
    """The least count of an hour that is a burst: the smaller of :func:`burst_threshold` at
    ``usual_rate`` (None: no usual rate, no such threshold) and ``ceiling`` (None: none); None
    when neither applies. The verdict of :func:`judge_hour` with the same ceiling, as one number
    a server compares each answer's count with."""
    ceiling = _checked_ceiling(ceiling)
    poisson = None if usual_rate is None else burst_threshold(usual_rate, min_count, alpha)
    thresholds = [value for value in (poisson, ceiling) if value is not None]
    return min(thresholds) if thresholds else None


def usual_rate_of_others(histogram: Iterable[tuple[int, int]], leave_out: int) -> float | None:
    """``lambda`` of the module's rule: the median count of the histogram's active hours with one hour
    of ``leave_out`` responses removed (the hour being judged, when the histogram holds it), or None
    when no other active hour is left. ``histogram`` as for :func:`judge_hour`."""
    return _median_of_others(_checked_histogram(histogram), _checked_count(leave_out, "leave_out"))


def burst_threshold(usual_rate: float, min_count: int = MIN_BURST_COUNT, alpha: float = BURST_ALPHA) -> int:
    """The smallest count that is a burst at ``usual_rate``: the least ``c >= min_count`` with
    ``P(X >= c) < alpha`` for ``X ~ Poisson(usual_rate)``.

    The tail ``P(X >= c)`` falls as ``c`` grows, so an hour is a burst exactly when its count
    reaches this threshold (the same verdict as :func:`judge_hour`, whose usual rate does not
    change within an hour: the other hours are over). A server works it out once an hour and
    then judges each answer with one comparison. Starts from scipy's inverse survival function
    and steps to the exact boundary, so the result does not rest on its rounding.
    """
    if not (isinstance(usual_rate, (int, float, np.floating)) and np.isfinite(usual_rate) and usual_rate > 0):
        raise ValueError(f"usual_rate must be a finite number > 0, got usual_rate={usual_rate!r}")
    if isinstance(min_count, bool) or not isinstance(min_count, int) or min_count < 1:
        raise ValueError(f"min_count must be an integer >= 1, got min_count={min_count!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got alpha={alpha!r}")

    def is_burst(count: int) -> bool:
        return float(stats.poisson.sf(count - 1, usual_rate)) < alpha

    count = max(min_count, int(stats.poisson.isf(alpha, usual_rate)))
    while count > min_count and is_burst(count - 1):
        count -= 1
    while not is_burst(count):
        count += 1
    return count


def _checked_ceiling(ceiling) -> int | None:
    if ceiling is None:
        return None
    if isinstance(ceiling, bool) or not isinstance(ceiling, (int, np.integer)) or ceiling < 1:
        raise ValueError(f"ceiling must be an integer >= 1 or None, got ceiling={ceiling!r}")
    return int(ceiling)


def _checked_count(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be an integer >= 0, got {name}={value!r}")
    return int(value)


def _checked_histogram(histogram: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """The active part of the histogram, sorted by count."""
    pairs, seen = [], set()
    for count, hours in histogram:
        count, hours = _checked_count(count, "a histogram count"), _checked_count(hours, "a number of hours")
        if count in seen:
            raise ValueError(f"the histogram gives the count {count} twice")
        seen.add(count)
        if count > 0 and hours > 0:
            pairs.append((count, hours))
    return sorted(pairs)


def _median_of_others(pairs: list[tuple[int, int]], leave_out: int) -> float | None:
    """The median count of the histogram's hours with one hour of ``leave_out`` removed
    (if it has one), or None when no hour is left."""
    pairs = [(c, h - 1 if c == leave_out else h) for c, h in pairs]
    pairs = [(c, h) for c, h in pairs if h > 0]
    total = sum(h for _, h in pairs)
    if total == 0:
        return None

    def at(index: int) -> int:  # the index-th smallest count (0-based)
        seen = 0
        for c, h in pairs:
            seen += h
            if index < seen:
                return c
        raise AssertionError(index)  # pragma: no cover - index < total

    if total % 2:
        return float(at(total // 2))
    return (at(total // 2 - 1) + at(total // 2)) / 2
