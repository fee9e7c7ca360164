"""The results page's planning figures when a share of respondents always answers "no".

For each randomized yes/no question of a survey, at the share typed in the results page's planning options,
the bias range of the estimate that assumes everyone complies and the answers needed for the planned margin
at that share (:func:`surveys.noncompliance.question_plan`, from
:func:`analysis.noncompliance.noncompliance_plan`, as the editor's "Add a question" shows them per design),
beside the answers the planner asks for when everyone complies (the question kind's ``needed_n``). A
two-group design models such respondents itself and gets no figures at the share.
"""

from __future__ import annotations

from dataclasses import dataclass

from analysis.noncompliance import NoncompliancePlan
from surveys.arms import DEFAULT_GROUP_1_SHARE
from surveys.definition import Question, Survey
from surveys.kinds import kind_of
from surveys.noncompliance import bias_text, question_plan


@dataclass(frozen=True)
class QuestionNoncompliance:
    """One randomized yes/no question's planning figures: ``compliant_n`` answers if everyone complies,
    ``plan`` at the share (``None`` for a two-group design)."""

    question: Question
    compliant_n: int
    plan: NoncompliancePlan | None

    @property
    def bias_text(self) -> str | None:
        """The bias range in points as the editor shows it (:func:`surveys.noncompliance.bias_text`), or
        ``None`` without a plan."""
        return None if self.plan is None else bias_text(self.plan)


@dataclass(frozen=True)
class NoncompliancePlanning:
    """The share assumed (a fraction) and each question's figures at it, for ``margin`` at ``confidence_level``."""

    share: float
    margin: float
    confidence_level: float
    questions: tuple[QuestionNoncompliance, ...]


def noncompliance_planning(
    survey: Survey, share: float, margin: float, confidence_level: float
) -> NoncompliancePlanning | None:
    """Each randomized yes/no question's figures at ``share`` (0 to below 1), planned for ``margin`` at
    ``confidence_level``; ``None`` for a share of 0 or a survey with no randomized yes/no question."""
    if not share:
        return None
    group_share = float(survey.group_1_share if survey.group_1_share is not None else DEFAULT_GROUP_1_SHARE)
    found = []
    for question in survey.randomized_questions:
        kind = kind_of(question)
        if not kind.single_share:
            continue
        plan = question_plan(question, share, margin, confidence_level)
        found.append(
            QuestionNoncompliance(question, kind.needed_n(question, margin, confidence_level, group_share), plan)
        )
    if not found:
        return None
    return NoncompliancePlanning(float(share), float(margin), float(confidence_level), tuple(found))
