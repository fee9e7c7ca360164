"""The estimate over time: each yes/no question's running estimate and confidence sequence, day by day.

Pure, like :mod:`surveys.results`: takes the per-day tallies of
:func:`storage.queries.daily_tallies` and returns frozen dataclasses. The
tallies are summed day by day (cumulative sums), and each day's running
total is handed to :func:`surveys.results.running_point`, which gives the
estimate and the confidence sequence exactly as the results page would have
shown them at the end of that day (without the interval and the sentences,
which the chart does not draw).
The confidence sequence is the band to read: it is valid at every day at
once, so the chart may be looked at as often as anyone likes; the
fixed-sample interval is not drawn.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from surveys.definition import Question, Survey
from surveys.kinds import kind_of
from surveys.results import running_point

#: At most this many days are drawn per question (evenly spread, the last day
#: always among them): each point costs one estimate and one confidence
#: sequence, and the sequence is valid at every day, so leaving days out of
#: the drawing changes no guarantee.
MAX_POINTS = 20

#: ``[(day, {question: {design key: {answer: count}}})]`` in day order.
DailyTallies = Iterable[tuple[str, Mapping[str, Mapping[str, Mapping[str, int]]]]]


@dataclass(frozen=True)
class TimelinePoint:
    """A yes/no question's result with the answers up to the end of ``day`` (UTC, ``YYYY-MM-DD``)."""

    day: str
    n: int
    estimate: float
    sequence_low: float
    sequence_high: float
    sequence_side: str = "two-sided"


@dataclass(frozen=True)
class Timeline:
    """One yes/no question's running estimate by day, with its confidence sequence.

    ``points`` are in day order, days with no answers to the question
    skipped, at most :data:`MAX_POINTS` of them (the last day always kept).
    """

    question: Question
    confidence_level: float
    points: tuple[TimelinePoint, ...]


def _add(total: dict, by_design: Mapping[str, Mapping[str, int]]) -> None:
    for design, by_answer in by_design.items():
        target = total.setdefault(design, {})
        for answer, count in by_answer.items():
            target[answer] = target.get(answer, 0) + count


def _thinned(indices: list[int], limit: int) -> list[int]:
    """At most ``limit`` of ``indices``, evenly spread, the first and last kept."""
    if len(indices) <= limit:
        return indices
    step = (len(indices) - 1) / (limit - 1)
    return sorted({indices[round(i * step)] for i in range(limit)})


def running_totals(
    daily: DailyTallies, question: str, excluded_days: Iterable[str] = ()
) -> list[tuple[str, dict[str, dict[str, int]]]]:
    """``[(day, {design key: {answer: count}})]``: the question's tallies summed up to each day with answers to it.

    Days in ``excluded_days`` are left out of every sum, as on the results page.
    """
    excluded = set(excluded_days)
    total: dict = {}
    out = []
    for day, per_question in daily:
        if day in excluded or not per_question.get(question):
            continue
        _add(total, per_question[question])
        out.append((day, {design: dict(by_answer) for design, by_answer in total.items()}))
    return out


def question_timeline(
    question: Question, daily: DailyTallies, confidence_level: float = 0.95, excluded_days: Iterable[str] = ()
) -> Timeline:
    """The running estimate and confidence sequence of a randomized yes/no ``question`` by day."""
    if not kind_of(question).single_share:
        raise ValueError(f"question must be a randomized yes/no question, got question={question.name!r}")
    totals = running_totals(daily, question.name, excluded_days)
    points = []
    for index in _thinned(list(range(len(totals))), MAX_POINTS):
        day, by_design = totals[index]
        point = running_point(question, by_design, confidence_level)
        if point is not None:
            n, estimate, sequence = point
            points.append(TimelinePoint(day, n, estimate, sequence.low, sequence.high, sequence.side))
    return Timeline(question, float(confidence_level), tuple(points))


def survey_timelines(
    survey: Survey, daily: DailyTallies, confidence_level: float = 0.95, excluded_days: Iterable[str] = ()
) -> tuple[Timeline, ...]:
    """:func:`question_timeline` of each randomized yes/no question of ``survey``, in survey order."""
    daily = list(daily)
    return tuple(
        question_timeline(q, daily, confidence_level, excluded_days)
        for q in survey.randomized_questions
        if kind_of(q).single_share
    )
