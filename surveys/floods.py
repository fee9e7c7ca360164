"""Answers marked during a flagged burst: the estimates with them and without them, side by side.

While a survey's clock hour is flagged as a burst (:mod:`analysis.bursts`),
each answer that arrives is marked, and its tallies are kept apart per day
(:func:`storage.responses.store_response`): a mark, not a time. An admin can
set a day's marked answers aside or keep them; either way the results page
shows every estimate with the marked answers and without them
(:func:`compare_estimates`), from two :class:`surveys.results.SurveyResults`
computed from the same tallies, the second minus the marked answers' tallies
(:func:`surveys.results.subtract_tallies`).
"""

from __future__ import annotations

from dataclasses import dataclass

from analysis.intervals import ConfidenceInterval
from surveys.kinds import kind_of_result
from surveys.results import SurveyResults


@dataclass(frozen=True)
class ComparedEstimate:
    """One estimate (a yes/no question's share, or one option's of a randomized choice question) with the
    marked answers (``with_marked``, ``with_ci``) and without them (``without_marked``, ``without_ci``);
    None where there is no estimate (no answers, or an error the results table explains)."""

    question: str
    option: str
    with_marked: float | None
    with_ci: ConfidenceInterval | None
    without_marked: float | None
    without_ci: ConfidenceInterval | None


@dataclass(frozen=True)
class FloodComparison:
    """The estimates with and without the answers marked during bursts.

    Attributes
    ----------
    marked : int
        Marked answers on the days not excluded (excluded days are out of both columns).
    with_count, without_count : int
        Responses in the estimates with the marked answers, and without them.
    estimates : tuple of ComparedEstimate
        In survey order; plain (not randomized) questions are left out.
    """

    marked: int
    with_count: int
    without_count: int
    estimates: tuple[ComparedEstimate, ...]


def compare_estimates(with_marked: SurveyResults, without_marked: SurveyResults) -> FloodComparison:
    """Pair the estimates of two results of one survey: with the marked answers, and without them.

    Raises
    ------
    ValueError
        If the two results are not of the same questions in the same order.
    """
    names = [r.question.name for r in with_marked.questions]
    if names != [r.question.name for r in without_marked.questions]:
        raise ValueError(f"the two results must be of the same questions, got {names!r} and another list")
    estimates = [
        estimate
        for kept, left in zip(with_marked.questions, without_marked.questions)
        for estimate in _compared(kept, left)
    ]
    return FloodComparison(
        marked=with_marked.response_count - without_marked.response_count,
        with_count=with_marked.response_count,
        without_count=without_marked.response_count,
        estimates=tuple(estimates),
    )


def _compared(kept, left) -> list[ComparedEstimate]:
    """The estimates of one question's two results, as its kind pairs them (``estimate_pairs``: none for a plain
    question)."""
    label = kept.question.label
    return [ComparedEstimate(label, *pair) for pair in kind_of_result(kept).estimate_pairs(kept, left)]
