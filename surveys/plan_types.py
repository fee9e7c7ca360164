"""The planning figures' types and the option plan of a ``select_one``: what :mod:`surveys.planning` returns.

Apart from :mod:`surveys.planning` so that the result types (:class:`surveys.result_types.ChoiceResult`'s
``plan``) and the question kinds (:mod:`surveys.kinds`), which :mod:`surveys.planning` consults, import them
without a circle.
"""

from __future__ import annotations

from dataclasses import dataclass

from analysis import BinaryDesign, option_shares_half_width, option_shares_sample_size
from analysis.two_group import TwoGroupDesign
from surveys.definition import Question


@dataclass(frozen=True)
class ChoicePlan:
    """Answers a randomized ``select_one`` needs for a margin of error on every option share.

    Attributes
    ----------
    question : Question
    half_width, confidence_level : float
    needed_n : int
        :func:`analysis.option_shares_sample_size` of the current design: worst case over every true share and
        every option (each option's interval alone, not simultaneous).
    response_count : int
        Answers under the current design.
    half_width_now : float or None
        :func:`analysis.option_shares_half_width` at ``response_count``; ``None`` with no answers.
    """

    question: Question
    half_width: float
    confidence_level: float
    needed_n: int
    response_count: int
    half_width_now: float | None


def option_plan(question: Question, half_width: float, confidence_level: float, response_count: int) -> ChoicePlan:
    """The answers ``question`` (a k-option or misclassification-matrix ``select_one``: its kind has checked)
    needs for ``half_width`` on every option share, and the worst-case half-width with ``response_count`` answers."""
    design = question.design
    now = option_shares_half_width(design, response_count, confidence_level) if response_count > 0 else None
    return ChoicePlan(
        question=question,
        half_width=float(half_width),
        confidence_level=float(confidence_level),
        needed_n=option_shares_sample_size(design, half_width, confidence_level),
        response_count=response_count,
        half_width_now=now,
    )


@dataclass(frozen=True)
class PlanningResult:
    """How many answers a target margin of error needs, and where we stand.

    Attributes
    ----------
    question : Question
        The randomized yes/no question whose current design needs the most
        answers (normally the one with the smallest ``t``).
    design : BinaryDesign or TwoGroupDesign
    half_width : float
        The wanted margin of error, for example 0.05 (five points).
    confidence_level : float
    needed_n : int
        :func:`analysis.sample_size_for_half_width`, worst case over ``pi``.
    response_count : int
    half_width_now : float or None
        :func:`analysis.half_width_for_n` at ``response_count`` (worst case);
        ``None`` with no responses.
    needed_n_sequence : int or None
        :func:`analysis.sample_size_for_sequence_half_width`, worst case over
        ``pi``: the answers after which the confidence sequence, looked at as
        often as anyone likes, is expected to be that narrow.
    group_share : float or None
        A two-group question: the share of respondents in group 1 the plan
        assumes (the survey's ``group_1_share``); ``None`` otherwise. Its
        figures are for the worst case, both groups' reported-yes rates at 1/2.
    needed_groups : tuple of int or None
        A two-group question: ``needed_n`` split into group 1 and group 2.
    group_sizes : tuple of int or None
        A two-group question: the answers per group now (current design).
    """

    question: Question
    design: BinaryDesign | TwoGroupDesign
    half_width: float
    confidence_level: float
    needed_n: int
    response_count: int
    half_width_now: float | None
    needed_n_sequence: int | None = None
    group_share: float | None = None
    needed_groups: tuple[int, int] | None = None
    group_sizes: tuple[int, int] | None = None
