"""Burst detection: the Poisson rule of analysis/bursts.py on seeded traffic."""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

import numpy as np
import pytest
from scipy import stats

from analysis.bursts import (
    BURST_ALPHA,
    MIN_BURST_COUNT,
    HourTest,
    burst_threshold,
    hour_threshold,
    judge_hour,
    usual_rate_of_others,
)


def hours(counts) -> list[tuple[str, int]]:
    """Labels ``h0000, h0001, ...`` for a sequence of counts."""
    return [(f"h{i:04d}", int(c)) for i, c in enumerate(counts)]


def find_bursts(labelled, **keywords) -> tuple:
    """Each labelled hour tested against the histogram of all the hours (itself included),
    as the app tests an hour against its survey's histogram: ``(label, HourTest)`` of the bursts."""
    histogram = sorted(Counter(count for _, count in labelled).items())
    tested = [(label, judge_hour(count, histogram, **keywords)) for label, count in labelled]
    return tuple(Burst(label, t.count, t.usual_rate, t.p_value) for label, t in tested if t.is_burst)


class Burst(NamedTuple):
    hour: str
    count: int
    usual_rate: float
    p_value: float


def poisson_traffic(rate: float, n_hours: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).poisson(rate, n_hours)


def test_a_flood_of_300_in_one_hour_on_3_an_hour_is_flagged():
    counts = poisson_traffic(3, 7 * 24, seed=1)
    counts[100] = 300
    bursts = find_bursts(hours(counts))
    assert [b.hour for b in bursts] == ["h0100"]
    assert bursts[0].count == 300 and bursts[0].usual_rate == 3.0
    assert bursts[0].p_value < 1e-100


def test_thirty_days_of_ordinary_traffic_are_not_flagged():
    """720 hours of Poisson(3) traffic. At lambda = 3 the smallest flagged count
    c* is the first c >= 10 with P(X >= c) < 1e-6; each hour reaches it with
    probability p = P(X >= c*), so the chance of any false alarm over the 720
    hours is 1 - (1 - p)^720, under 1e-3."""
    counts = poisson_traffic(3, 30 * 24, seed=20260304)
    active = counts[counts > 0]
    assert np.median(active) == 3  # the usual rate the rule sees
    threshold = next(c for c in range(MIN_BURST_COUNT, 100) if stats.poisson.sf(c - 1, 3) < BURST_ALPHA)
    per_hour = stats.poisson.sf(threshold - 1, 3)
    family_wise = 1 - (1 - per_hour) ** len(counts)
    assert threshold == 15 and family_wise < 1e-3  # 4.8e-4
    assert counts.max() < threshold
    assert find_bursts(hours(counts)) == ()


def test_the_threshold_at_3_an_hour_is_15():
    background = [3] * 100
    assert find_bursts(hours([*background, 14])) == ()
    assert [b.count for b in find_bursts(hours([*background, 15]))] == [15]


def test_many_bursts_cannot_raise_the_usual_rate_they_are_compared_with():
    """40% of hours at 30 on a background of 3: a mean (13.8) would hide them; the median does not."""
    counts = [30 if i % 5 in (0, 1) else 3 for i in range(200)]
    assert stats.poisson.sf(29, np.mean(counts)) > BURST_ALPHA
    assert len(find_bursts(hours(counts))) == 80


def test_quiet_nights_do_not_make_busy_hours_bursts():
    """30 an hour for 8 hours a day, nothing at night: the mean over the span
    (10 an hour) would flag every busy hour; the active hours' median does not."""
    day = [30] * 8 + [0] * 16
    assert stats.poisson.sf(29, np.mean(day)) < BURST_ALPHA
    assert find_bursts(hours(day * 30)) == ()


def test_a_survey_with_two_active_hours_still_flags_the_flood():
    assert [b.hour for b in find_bursts(hours([3, 300]))] == ["h0001"]


def test_one_active_hour_has_no_usual_rate():
    assert find_bursts(hours([0, 300, 0])) == ()


def test_fewer_than_min_count_is_never_a_burst():
    background = [1] * 50
    assert stats.poisson.sf(5, 1.0) < 1e-3  # six at once is rare at one an hour, but only six
    assert find_bursts(hours([*background, 6]), alpha=1e-3) == ()
    assert [b.count for b in find_bursts(hours([*background, 6]), min_count=5, alpha=1e-3)] == [6]
    assert find_bursts(hours([*background, 10])) == (Burst("h0050", 10, 1.0, stats.poisson.sf(9, 1.0)),)


@pytest.mark.parametrize(
    "count, histogram, keywords, message",
    [
        (-1, [], {}, "count must be an integer >= 0, got count=-1"),
        (1.5, [], {}, "got count=1.5"),
        (3, [(1, -2)], {}, "a number of hours must be an integer >= 0"),
        (3, [(1, 2), (1, 3)], {}, "gives the count 1 twice"),
        (3, [], {"min_count": 0}, "min_count=0"),
        (3, [], {"alpha": 1.0}, "alpha=1.0"),
    ],
)
def test_bad_arguments_are_refused_by_name(count, histogram, keywords, message):
    with pytest.raises(ValueError, match=message):
        judge_hour(count, histogram, **keywords)


def test_an_hour_is_tested_against_the_others_in_the_histogram():
    """The hour's own count is left out once: 300 against [3, 3, 300] compares with 3."""
    result = judge_hour(300, [(3, 2), (300, 1)])
    assert result == HourTest(300, 3.0, float(stats.poisson.sf(299, 3.0)), True)
    assert judge_hour(300, [(300, 1)]) == HourTest(300, None, None, False)  # no other hour
    assert judge_hour(4, [(3, 2), (4, 1)]).is_burst is False


def test_a_bad_histogram_count_is_named():
    with pytest.raises(ValueError, match="^a histogram count must be an integer >= 0, got a histogram count=-1$"):
        judge_hour(3, [(-1, 2)])


@pytest.mark.parametrize(
    "keywords, message",
    [
        ({"min_count": True}, "min_count=True"),
        ({"min_count": 2.5}, "min_count=2.5"),
        ({"alpha": 0}, "alpha=0"),
        ({"alpha": 0.0}, "alpha=0.0"),
    ],
)
def test_limits_at_and_past_their_edges_are_refused(keywords, message):
    with pytest.raises(ValueError, match=message):
        judge_hour(3, [(3, 2)], **keywords)


def test_min_count_of_one_is_accepted():
    # 5 against a usual rate of 1: P(X >= 5) = 0.00366 < 0.01, and 5 >= min_count = 1.
    result = judge_hour(5, [(1, 9)], min_count=1, alpha=0.01)
    assert result == HourTest(5, 1.0, float(stats.poisson.sf(4, 1.0)), True)


def test_a_p_value_equal_to_alpha_is_not_a_burst():
    """The rule is p < alpha, strictly: at p == alpha the hour is not flagged, just below it is."""
    p_value = float(stats.poisson.sf(19, 3.0))  # 20 responses against a usual rate of 3
    assert not judge_hour(20, [(3, 5)], alpha=p_value).is_burst
    assert judge_hour(20, [(3, 5)], alpha=float(np.nextafter(p_value, 1))).is_burst


@pytest.mark.parametrize(
    "histogram, leave_out, median",
    [
        # odd totals: the middle count
        ([(1, 1), (2, 1), (4, 1)], 0, 2.0),
        ([(1, 1), (2, 1), (4, 1), (8, 1), (16, 1)], 0, 4.0),
        ([(1, 2), (7, 1), (9, 2)], 0, 7.0),
        # even totals: the mean of the two middle counts
        ([(1, 1), (2, 1)], 0, 1.5),
        ([(1, 1), (2, 1), (4, 1), (8, 1)], 0, 3.0),
        ([(1, 3), (5, 1), (9, 2)], 0, 3.0),
        # leave one out: the tested count in the histogram loses one hour, not all of them
        ([(1, 1), (5, 2)], 5, 3.0),
        ([(1, 1), (2, 1), (5, 1)], 5, 1.5),
        ([(1, 1), (2, 1), (5, 3)], 5, 3.5),
        # the tested count is not in the histogram: nothing is left out
        ([(1, 1), (2, 1), (5, 1)], 4, 2.0),
        # hours with no response, or counts with no hour, are not active hours
        ([(0, 40), (2, 1), (4, 0), (6, 1)], 0, 4.0),
        ([(0, 40), (2, 1), (4, 0), (6, 1)], 4, 4.0),
    ],
)
def test_the_usual_rate_is_the_median_of_the_other_active_hours(histogram, leave_out, median):
    # usual_rate is reported whatever the verdict; a count of 0 stands for "not in the histogram".
    assert judge_hour(leave_out, histogram).usual_rate == median


def test_the_median_is_exact_for_any_number_of_hours():
    """Integer arithmetic throughout: 10^400 hours (beyond any float) still give the exact middle."""
    many = 10**400
    assert judge_hour(0, [(3, many), (4, many + 1)]).usual_rate == 4.0
    assert judge_hour(0, [(3, many), (4, many)]).usual_rate == 3.5


def test_hours_without_responses_are_not_in_the_active_histogram():
    from analysis.bursts import _checked_histogram

    assert _checked_histogram([(5, 1), (0, 7), (3, 0), (2, 4)]) == [(2, 4), (5, 1)]


@pytest.mark.parametrize("usual_rate", [1.0, 1.5, 2.0, 3.0, 7.5, 20.0, 150.0, 4000.0])
def test_the_burst_threshold_is_the_least_count_judge_hour_calls_a_burst(usual_rate):
    """Checked against judge_hour itself over every count up to 30 past the threshold, the other hours
    having ``usual_rate`` as their median (three hours at it, or two around a half-integer rate)."""
    threshold = burst_threshold(usual_rate)
    low = int(usual_rate)
    others = {low: 3} if usual_rate == low else {low: 1, low + 1: 1}
    verdicts = []
    for count in range(1, threshold + 30):
        histogram = dict(others)
        histogram[count] = histogram.get(count, 0) + 1
        test = judge_hour(count, histogram.items())
        assert test.usual_rate == usual_rate
        verdicts.append(test.is_burst)
    assert verdicts == [count >= threshold for count in range(1, threshold + 30)]
    assert threshold >= MIN_BURST_COUNT


def test_the_burst_threshold_respects_min_count_and_alpha():
    assert burst_threshold(0.5) == MIN_BURST_COUNT  # P(X >= 10) at 0.5 is far below 1e-6
    # P(X >= 2) = 0.090 and P(X >= 3) = 0.014 at 0.5: with alpha 0.05 the tail decides from 3 on
    assert burst_threshold(0.5, min_count=1, alpha=0.05) == 3
    assert burst_threshold(0.5, min_count=5, alpha=0.05) == 5


@pytest.mark.parametrize(
    ("keywords", "named"),
    [
        ({"usual_rate": 0}, "usual_rate"),
        ({"usual_rate": -1.0}, "usual_rate"),
        ({"usual_rate": float("nan")}, "usual_rate"),
        ({"usual_rate": 1.0, "alpha": 1}, "alpha"),
        ({"usual_rate": 1.0, "alpha": 0}, "alpha"),
        ({"usual_rate": 1.0, "min_count": 0}, "min_count"),
        ({"usual_rate": 1.0, "min_count": True}, "min_count"),
        ({"usual_rate": 1.0, "min_count": "3"}, "min_count"),
    ],
)
def test_a_bad_burst_threshold_argument_is_refused_by_name(keywords, named):
    with pytest.raises(ValueError, match=named):
        burst_threshold(**keywords)


@pytest.mark.parametrize("shift", [-7, 7, 40])
@pytest.mark.parametrize("usual_rate", [0.5, 3.0, 150.0])
def test_the_burst_threshold_steps_to_the_exact_boundary_from_any_first_guess(monkeypatch, usual_rate, shift):
    """The threshold does not rest on scipy's inverse survival function: with its answer moved by ``shift``
    (too low or too high), the result is still the least count c >= 1 with P(X >= c) < 0.01, found here by
    walking up from 1."""
    isf = stats.poisson.isf
    monkeypatch.setattr(stats.poisson, "isf", lambda alpha, rate: max(0, isf(alpha, rate) + shift))
    least = 1
    while not stats.poisson.sf(least - 1, usual_rate) < 0.01:
        least += 1
    assert burst_threshold(usual_rate, min_count=1, alpha=0.01) == least


def test_a_count_whose_tail_equals_alpha_exactly_is_not_yet_a_burst():
    """``P(X >= c) < alpha``, strictly: with alpha set to the tail of 6 at rate 2, the threshold is 7."""
    alpha = float(stats.poisson.sf(5, 2.0))
    assert burst_threshold(2.0, min_count=1, alpha=alpha) == 7


def test_a_bad_leave_out_is_refused_by_name():
    with pytest.raises(ValueError, match=r"^leave_out must be an integer >= 0, got leave_out=-1$"):
        usual_rate_of_others([(3, 2)], leave_out=-1)


def test_the_usual_rate_of_others_leaves_the_judged_hour_out():
    assert usual_rate_of_others([(3, 2), (300, 1)], leave_out=300) == 3.0
    assert usual_rate_of_others([(3, 2), (300, 1)], leave_out=3) == 151.5
    assert usual_rate_of_others([(300, 1)], leave_out=300) is None


# --------------------------------------------------------------------------
# The ceiling per hour: a flood in the survey's first active hour.


def test_a_flood_in_the_surveys_first_active_hour_is_flagged_by_the_ceiling():
    """320 in the first hour: no other hour, so no usual rate, yet the ceiling flags it; below it, nothing."""
    test = judge_hour(320, [(320, 1)], ceiling=100)
    assert (test.usual_rate, test.p_value, test.is_burst, test.ceiling) == (None, None, True, 100)
    assert not judge_hour(99, [(99, 1)], ceiling=100).is_burst
    assert judge_hour(100, [(100, 1)], ceiling=100).is_burst
    assert not judge_hour(320, [(320, 1)]).is_burst  # without a ceiling, as before


def test_the_ceiling_flags_a_second_hour_whose_usual_rate_is_the_first_flood():
    """A second flood of 300 after a first of 320: the usual rate is 320, so only the ceiling flags it."""
    test = judge_hour(300, [(300, 1), (320, 1)], ceiling=100)
    assert test.usual_rate == 320 and test.p_value > BURST_ALPHA and test.is_burst
    assert not judge_hour(300, [(300, 1), (320, 1)]).is_burst


def test_an_hour_under_the_ceiling_is_still_judged_by_the_poisson_rule():
    assert judge_hour(300, [(3, 5), (300, 1)], ceiling=1000).is_burst
    assert not judge_hour(4, [(3, 5), (4, 1)], ceiling=1000).is_burst


@pytest.mark.parametrize(
    ("usual_rate", "ceiling", "expected"),
    [(None, None, None), (None, 100, 100), (3.0, None, 15), (3.0, 100, 15), (3.0, 12, 12), (3.0, 15, 15)],
)
def test_the_hour_threshold_is_the_smaller_of_the_poisson_threshold_and_the_ceiling(usual_rate, ceiling, expected):
    assert hour_threshold(usual_rate, ceiling) == expected


@pytest.mark.parametrize("ceiling", [None, 1, 12, 40])
@pytest.mark.parametrize("others", [{}, {3: 3}, {2: 1, 3: 1}])
def test_the_hour_threshold_is_the_least_count_judge_hour_calls_a_burst_with_a_ceiling(others, ceiling):
    usual = usual_rate_of_others(others.items(), leave_out=0) if others else None
    threshold = hour_threshold(usual, ceiling)
    verdicts = []
    for count in range(1, 60):
        histogram = dict(others)
        histogram[count] = histogram.get(count, 0) + 1
        verdicts.append(judge_hour(count, histogram.items(), ceiling=ceiling).is_burst)
    assert verdicts == [threshold is not None and count >= threshold for count in range(1, 60)]


@pytest.mark.parametrize("ceiling", [0, -5, 2.5, True, "100"])
def test_a_bad_ceiling_is_refused_by_name(ceiling):
    with pytest.raises(ValueError, match=r"^ceiling must be an integer >= 1 or None, got ceiling="):
        judge_hour(5, [(5, 1)], ceiling=ceiling)
    with pytest.raises(ValueError, match=r"^ceiling must be an integer >= 1 or None, got ceiling="):
        hour_threshold(3.0, ceiling)


def test_a_numpy_integer_ceiling_is_taken_as_a_plain_int():
    test = judge_hour(12, [(12, 1)], ceiling=np.int64(12))
    assert test.is_burst and test.ceiling == 12 and type(test.ceiling) is int
    assert type(hour_threshold(None, np.int64(12))) is int


def test_an_hour_with_a_usual_rate_keeps_the_ceiling_it_was_judged_with():
    """The ceiling is reported whether or not the other hours give a usual rate."""
    assert judge_hour(300, [(3, 5), (300, 1)], ceiling=1000).ceiling == 1000
    assert judge_hour(4, [(3, 5), (4, 1)], ceiling=100).ceiling == 100
    assert judge_hour(4, [(3, 5), (4, 1)]).ceiling is None


def test_the_hour_threshold_uses_the_given_min_count_and_alpha():
    """At rate 3 with min_count 1 and alpha 0.01, the least c with P(X >= c) < 0.01 (a scan of scipy's tail:
    P(X >= 8) = 0.0119, P(X >= 9) = 0.0038), not the default alpha's 15."""
    expected = next(c for c in range(1, 100) if stats.poisson.sf(c - 1, 3.0) < 0.01)
    assert expected == 9
    assert hour_threshold(3.0, None, min_count=1, alpha=0.01) == 9
    assert hour_threshold(3.0, 12, min_count=1, alpha=0.01) == 9
    assert hour_threshold(3.0, None, min_count=12, alpha=0.01) == 12
