"""Planning a survey: how many answers a wanted margin of error needs, and where the answers stand.

Pure: takes a :class:`~surveys.definition.Survey` (or one question) and answer counts and returns frozen
dataclasses; every figure comes from :mod:`analysis`'s planning functions. The results page shows them
beside the estimates (:mod:`surveys.results`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from analysis import (
    BinaryDesign,
    MultipleChoiceDesign,
    half_width_for_n,
    option_shares_half_width,
    option_shares_sample_size,
    sample_size_for_half_width,
    sample_size_for_sequence_half_width,
    two_group_half_width,
    two_group_sample_size,
    two_group_sample_size_for_sequence,
    two_group_worst_case,
)
from analysis.misclassification import MisclassificationDesign
from analysis.two_group import TwoGroupDesign
from surveys.arms import DEFAULT_GROUP_1_SHARE, is_two_group
from surveys.definition import YES_NO, Question, Survey


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


def plan_choice(question: Question, half_width: float, confidence_level: float, response_count: int) -> ChoicePlan:
    """The answers ``question`` (a k-option or misclassification-matrix ``select_one``) needs for ``half_width``
    on every option share, and the worst-case half-width with ``response_count`` answers."""
    design = question.design
    if question.type == YES_NO or not isinstance(design, MultipleChoiceDesign | MisclassificationDesign):
        raise ValueError(f"question={question.name!r} is not a randomized select_one")
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


def plan(
    survey: Survey,
    response_count: int,
    half_width: float = 0.05,
    confidence_level: float = 0.95,
    question: str | None = None,
    answered: Mapping[str, int] | None = None,
    group_sizes: Mapping[str, tuple[int, int]] | None = None,
) -> PlanningResult | None:
    """Answers needed for a margin of error of ``half_width``, for ``question`` or the worst yes/no design.

    With ``question`` (a randomized yes/no question's name), its current
    design; else, among the survey's randomized yes/no questions, the current
    design that needs the most answers for ``half_width`` in the worst case
    over the true share (:func:`analysis.sample_size_for_half_width` with
    ``pi=None``); that is the one with the smallest ``t`` unless a very
    lopsided ``a, b`` keeps its reported rate away from 1/2. The half-width
    now is for ``answered[name]`` answers when ``answered`` (answers per
    question) is given, else for ``response_count``. Returns ``None`` when
    the survey has no randomized yes/no question.

    A two-group question (cheater detection, stochastic lie detector) is
    planned in its worst case, both groups' reported-yes rates at 1/2
    (:func:`analysis.two_group_worst_case`, a bound over every prevalence
    and non-compliance), with the survey's ``group_1_share`` of respondents
    in group 1 (:func:`analysis.two_group_sample_size`,
    :func:`analysis.two_group_sample_size_for_sequence`); its half-width now
    is for the answers per group of its current design in ``group_sizes``
    (:func:`planning_group_sizes`), ``None`` until each group has one.
    """
    candidates = [q for q in survey.randomized_questions if q.type == YES_NO]
    if question is not None:
        candidates = [q for q in candidates if q.name == question]
        if not candidates:
            raise ValueError(f"question={question!r} is not a randomized yes/no question of {survey.id!r}")
    if not candidates:
        return None
    share = float(survey.group_1_share if survey.group_1_share is not None else DEFAULT_GROUP_1_SHARE)
    needs = [
        (_needed_n(q.design, half_width, confidence_level, share), -index, q) for index, q in enumerate(candidates)
    ]
    needed_n, _, question = max(needs, key=lambda item: item[:2])
    if is_two_group(question.design):
        return _two_group_plan(question, half_width, confidence_level, share, (group_sizes or {}).get(question.name))
    if answered is not None:
        response_count = answered.get(question.name, 0)
    now = half_width_for_n(response_count, confidence_level, *question.design.exact()) if response_count > 0 else None
    return PlanningResult(
        question=question,
        design=question.design,
        half_width=float(half_width),
        confidence_level=float(confidence_level),
        needed_n=needed_n,
        response_count=response_count,
        half_width_now=now,
        needed_n_sequence=sample_size_for_sequence_half_width(half_width, confidence_level, *question.design.exact()),
    )


def _needed_n(design, half_width: float, level: float, share: float) -> int:
    """Answers a fixed-sample interval needs for ``half_width`` in the design's worst case."""
    if is_two_group(design):
        return two_group_sample_size(design, half_width, *two_group_worst_case(design), level, share).n
    return sample_size_for_half_width(half_width, level, *design.exact())


def _two_group_plan(
    question: Question, half_width: float, level: float, share: float, sizes: tuple[int, int] | None
) -> PlanningResult:
    """:func:`plan` of a two-group question: its worst case, ``share`` of the respondents in group 1."""
    worst = two_group_worst_case(question.design)
    sizes = sizes or (0, 0)
    planned = two_group_sample_size(question.design, half_width, *worst, level, share)
    now = two_group_half_width(question.design, *sizes, *worst, level) if min(sizes) > 0 else None
    return PlanningResult(
        question=question,
        design=question.design,
        half_width=float(half_width),
        confidence_level=float(level),
        needed_n=planned.n,
        response_count=sum(sizes),
        half_width_now=now,
        needed_n_sequence=two_group_sample_size_for_sequence(question.design, half_width, level, share),
        group_share=share,
        needed_groups=(planned.n1, planned.n2),
        group_sizes=sizes,
    )


def planning_group_sizes(results) -> dict[str, tuple[int, int]]:
    """Answers per group under the current design of each two-group question with a fit, for :func:`plan`.

    ``results`` is a :class:`surveys.result_types.SurveyResults`; only a yes/no result has a ``two_group`` fit
    (the result types import this module for :func:`plan_choice`, so it names none of them).
    """
    return {
        r.question.name: r.two_group.estimate.n
        for r in results.questions
        if getattr(r, "two_group", None) is not None and r.two_group.estimate.design == r.question.design
    }
