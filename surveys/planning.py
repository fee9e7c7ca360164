"""Planning a survey: how many answers a wanted margin of error needs, and where the answers stand.

Pure: takes a :class:`~surveys.definition.Survey` (or one question) and answer counts and returns frozen
dataclasses; every figure comes from :mod:`analysis`'s planning functions. The results page shows them
beside the estimates (:mod:`surveys.results`).
"""

from __future__ import annotations

from collections.abc import Mapping

from surveys.arms import DEFAULT_GROUP_1_SHARE
from surveys.definition import Question, Survey
from surveys.kinds import kind_of
from surveys.plan_types import ChoicePlan, PlanningResult

__all__ = ["ChoicePlan", "PlanningResult", "plan", "plan_choice", "planning_group_sizes"]


def plan_choice(question: Question, half_width: float, confidence_level: float, response_count: int) -> ChoicePlan:
    """The answers ``question`` (a k-option or misclassification-matrix ``select_one``) needs for ``half_width``
    on every option share, and the worst-case half-width with ``response_count`` answers (its kind's
    ``plan_options``: :func:`surveys.plan_types.option_plan`; a ValueError for any other kind)."""
    return kind_of(question).plan_options(question, half_width, confidence_level, response_count)


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
    candidates = [q for q in survey.randomized_questions if kind_of(q).single_share]
    if question is not None:
        candidates = [q for q in candidates if q.name == question]
        if not candidates:
            raise ValueError(f"question={question!r} is not a randomized yes/no question of {survey.id!r}")
    if not candidates:
        return None
    share = float(survey.group_1_share if survey.group_1_share is not None else DEFAULT_GROUP_1_SHARE)
    needs = [
        (kind_of(q).needed_n(q, half_width, confidence_level, share), -index, q) for index, q in enumerate(candidates)
    ]
    needed_n, _, question = max(needs, key=lambda item: item[:2])
    if answered is not None:
        response_count = answered.get(question.name, 0)
    sizes = (group_sizes or {}).get(question.name)
    return kind_of(question).plan_margin(question, needed_n, half_width, confidence_level, share, response_count, sizes)


def planning_group_sizes(results) -> dict[str, tuple[int, int]]:
    """Answers per group under the current design of each two-group question with a fit, for :func:`plan`.

    ``results`` is a :class:`surveys.result_types.SurveyResults`; each question's kind says what its groups
    are (``current_group_sizes``: ``None`` for a kind without groups).
    """
    sizes = {r.question.name: kind_of(r.question).current_group_sizes(r) for r in results.questions}
    return {name: pair for name, pair in sizes.items() if pair is not None}
