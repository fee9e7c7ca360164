"""How far a survey is from its targets: the confidence sequence's margin of error now against the one wanted.

Pure, like :mod:`surveys.results`: takes the kept tallies (the running
tallies, and the break-down tallies of each question a target groups by) and
returns frozen dataclasses. A target (:class:`surveys.definition.Target`) is
met when the half-width of the anytime-valid confidence sequence (the one
the results page shows beside the interval, :func:`surveys.results.running_point`)
is at most the target's margin. The sequence is valid however often it is
looked at, so checking the targets after every answer and stopping at the
first look that meets them keeps its guarantee; a fixed-sample interval
checked the same way would not.

A difference's sequence is each group's at ``1 - alpha/2``, subtracted
(:func:`surveys.results.difference_bounds`): its half-width is the sum of the
two groups' half-widths.

A randomized number's target is on its mean: its sequence is
:func:`analysis.numeric.numeric_sequence` on the kept count, sum and sum of
squares (:func:`surveys.kinds.number.running_point`, in the question's
units), and the target is met when that sequence's half-width is at most
the margin, in the question's units.

A two-group question (cheater detection, stochastic lie detector) is read
the same way: its sequence is the prevalence's
(:func:`surveys.results.two_group_sequence_bounds`: each group's reported-yes
rate at ``1 - alpha/2``, mapped through the moment estimator), and a target
on it is met when that sequence's half-width is at most the margin.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from surveys.arms import DEFAULT_GROUP_1_SHARE
from surveys.definition import SHARE_TARGET, Question, Survey, Target, TargetScale
from surveys.kinds import kind_of
from surveys.results import Tallies, running_point


@dataclass(frozen=True)
class TargetProgress:
    """One target with the margin of error reached so far.

    Attributes
    ----------
    target : Target
    n : int
        Answers counted (for a difference, both groups').
    half_width : float or None
        Half the width of the confidence sequence now; ``None`` while a
        share or either group has no answers.
    needed_n : int or None
        For a share: the answers a sequence needs for the target's margin
        at the share estimated now (:func:`analysis.sample_size_for_sequence_half_width`);
        for a number's mean, in the worst case (:func:`analysis.numeric.numeric_sequence_needed_n`);
        ``None`` for a difference or without answers.
    scale : TargetScale
        How the margin is read and shown (a share's, or a number's in its units).
    """

    target: Target
    n: int
    half_width: float | None
    needed_n: int | None = None
    scale: TargetScale = SHARE_TARGET

    @property
    def met(self) -> bool:
        return self.half_width is not None and self.half_width <= self.target.margin


def _share_progress(survey: Survey, target: Target, tallies: Tallies, plan: bool) -> TargetProgress:
    question = survey.question(target.question)
    scale = kind_of(question).target_scale(question) or SHARE_TARGET
    point = running_point(question, tallies.get(target.question, {}), target.confidence_level)
    if point is None:
        return TargetProgress(target, 0, None, scale=scale)
    n, estimate, sequence = point
    needed = _needed_n(survey, question, target, estimate, tallies.get(target.question, {})) if plan else None
    return TargetProgress(target, n, (sequence.high - sequence.low) / 2, needed, scale)


def _needed_n(survey: Survey, question: Question, target: Target, estimate: float, by_design) -> int:
    """Answers the question's sequence needs for the target's margin at what is estimated now.

    Its kind's ``target_needed_n``. One-group designs: :func:`analysis.sample_size_for_sequence_half_width` at
    the share estimated now. Two-group
    designs: :func:`analysis.two_group_sample_size_for_sequence` at the current design's reported-yes rates now
    (the worst case, both at 1/2, until each of its groups has an answer) with the survey's ``group_1_share``.
    """
    share = float(survey.group_1_share if survey.group_1_share is not None else DEFAULT_GROUP_1_SHARE)
    return kind_of(question).target_needed_n(
        question, target.margin, target.confidence_level, estimate, by_design, share
    )


def _difference_progress(survey: Survey, target: Target, groups: Mapping[str | None, Tallies]) -> TargetProgress:
    question = survey.question(target.question)
    each = 1 - (1 - target.confidence_level) / 2
    points = [running_point(question, groups.get(group, {}).get(target.question, {}), each) for group in target.groups]
    n = sum(point[0] for point in points if point is not None)
    if any(point is None for point in points):
        return TargetProgress(target, n, None)
    return TargetProgress(target, n, sum((point[2].high - point[2].low) / 2 for point in points))


def target_progress(
    survey: Survey, tallies: Tallies, grouped: Mapping[str, Mapping[str | None, Tallies]], plan: bool = True
) -> tuple[TargetProgress, ...]:
    """Each of ``survey.targets`` with its margin of error now, in the file's order.

    Parameters
    ----------
    survey : Survey
    tallies : mapping
        ``{question: {design key: {answer: count}}}``, the survey's running
        tallies (minus any excluded days).
    grouped : mapping
        ``{by: {group answer: tallies}}`` for each ``by`` of a difference
        target (:func:`storage.queries.group_tallies`' shape); a ``by``
        missing counts as no answers.
    plan : bool
        Fill in ``needed_n`` (a few milliseconds per target: the dashboard
        does, the check after each answer does not).
    """
    return tuple(
        _difference_progress(survey, target, grouped.get(target.by, {}))
        if target.is_difference
        else _share_progress(survey, target, tallies, plan)
        for target in survey.targets
    )


def every_target_met(progress: tuple[TargetProgress, ...]) -> bool:
    """True when there is at least one target and each is met."""
    return bool(progress) and all(item.met for item in progress)


def grouped_by(survey: Survey) -> tuple[str, ...]:
    """The plain questions the survey's difference targets group by, each once, in order."""
    return tuple(dict.fromkeys(target.by for target in survey.targets if target.is_difference))
