"""Break-downs: the randomized questions' results per answer to a plain question.

Pure like :mod:`surveys.results`, whose per-question estimates each group
reuses: takes a :class:`~surveys.definition.Survey` and the plain
dictionaries of :func:`storage.queries.group_tallies` and returns frozen
dataclasses. Only a question that is *not* randomized can split the
respondents: grouping by a noisy answer would put them in the wrong group at
random. Two groups' estimates are compared by their kind (``for_difference``
and ``difference``): yes/no estimates with :func:`analysis.difference`, a
randomized number's means with :func:`analysis.numeric.numeric_difference`.
A two-group design's question gets, in each group, the two-group estimate
from that group's per-arm tallies, and two groups are compared by their
moment estimates (:func:`compare_groups`). A plain number splits the
respondents by its declared bins (its answers are kept by bin key).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from analysis import Difference
from surveys.definition import Question, Survey
from surveys.kinds import kind_of
from surveys.result_types import MultipleResult, NumberDifference, NumberResult
from surveys.results import (
    NO_EXCLUSION,
    ChoiceResult,
    Exclusion,
    SequenceBounds,
    Tallies,
    YesNoResult,
    check_options,
    question_result,
)


@dataclass(frozen=True)
class GroupResults:
    """The randomized questions' results among respondents with one answer to ``by``.

    ``value`` is the stored answer, or a plain number's bin key (``"b00"``..;
    ``None``: ``by`` left unanswered); ``label`` is the option's or the bin's label.
    """

    value: str | None
    label: str
    questions: tuple[YesNoResult | ChoiceResult | NumberResult | MultipleResult, ...]

    def question(self, name: str) -> YesNoResult | ChoiceResult | NumberResult | MultipleResult:
        for result in self.questions:
            if result.question.name == name:
                return result
        raise KeyError(name)


@dataclass(frozen=True)
class Breakdown:
    """Results split by the answer to a plain (not randomized) question.

    ``excluded``: the days left out of every group, as in :class:`SurveyResults`.
    """

    by: Question
    confidence_level: float
    method: str
    groups: tuple[GroupResults, ...]
    excluded: Exclusion = NO_EXCLUSION

    def group(self, value: str | None) -> GroupResults:
        for group in self.groups:
            if group.value == value:
                return group
        raise KeyError(value)


def compute_breakdown(
    survey: Survey,
    by: str | Question,
    group_tallies: Mapping[str | None, Tallies],
    confidence_level: float = 0.95,
    method: str = "wilson",
    excluded: Exclusion = NO_EXCLUSION,
) -> Breakdown:
    """The randomized questions' results per answer to a plain question.

    Parameters
    ----------
    survey : Survey
    by : str or Question
        A question of ``survey`` that is *not* randomized, one of
        :func:`surveys.kinds.breakdown_questions` (a one-choice question, or a
        number by its declared bins): grouping by a noisy answer would put
        respondents in the wrong group at random.
    group_tallies : mapping
        ``{answer to by: {question: {design key: {answer: count}}}}`` from
        :func:`storage.queries.group_tallies`; the key ``None`` holds the
        respondents who left ``by`` unanswered.
    confidence_level, method, excluded
        As for :func:`compute_results`.

    Returns
    -------
    Breakdown
        One group per option (or bin) of ``by`` (in its order, empty ones
        included), then any other stored value, then "No answer" if present.
    """
    check_options(confidence_level, method)
    question = survey.question(by if isinstance(by, str) else by.name)
    offered = kind_of(question).groups(question)
    if not offered:
        raise ValueError(f"by must name a question that is not randomized, got by={question.name!r}")
    labels: dict[str | None, str] = dict(offered)
    extra = sorted(value for value in group_tallies if value is not None and value not in labels)
    labels.update({value: value for value in extra})
    if None in group_tallies:
        labels[None] = "No answer"
    groups = tuple(
        GroupResults(
            value=value,
            label=label,
            questions=tuple(
                question_result(q, group_tallies.get(value, {}).get(q.name, {}), confidence_level, method)
                for q in survey.randomized_questions
            ),
        )
        for value, label in labels.items()
    )
    return Breakdown(
        by=question, confidence_level=float(confidence_level), method=method, groups=groups, excluded=excluded
    )


def compare_groups(
    breakdown: Breakdown,
    question_name: str,
    first: str | None,
    second: str | None,
    confidence_level: float = 0.95,
) -> Difference | NumberDifference:
    """``pi_first - pi_second`` for a yes/no question, or the difference of means of a randomized number,
    between two groups.

    Parameters
    ----------
    breakdown : Breakdown
    question_name : str
        A randomized yes/no question or number.
    first, second : str or None
        Group values (answers to ``breakdown.by``; ``None`` for "No answer").
    confidence_level : float

    Returns
    -------
    analysis.Difference or NumberDifference
        The kind's ``difference`` of the two groups' ``for_difference``: for
        yes/no, :func:`analysis.difference` (raw estimates subtracted,
        standard errors added in quadrature, Wald interval clipped to
        ``[-1, 1]``); for a number, :func:`analysis.numeric.numeric_difference`
        in the question's units (Welch's interval for the Laplace mechanism).

    Raises
    ------
    ValueError
        If the question is not a randomized yes/no question or number, a group has no
        answers to it, or (a two-group design) a group's moment estimate left
        the parameter space.

    Notes
    -----
    A two-group design (cheater detection, stochastic lie detector) compares
    the groups' moment estimates of the prevalence, each from that group's
    per-arm tallies, with their delta-method standard errors.
    """
    estimates = []
    for name, value in (("first", first), ("second", second)):
        try:
            result = breakdown.group(value).question(question_name)
        except KeyError:
            raise ValueError(f"no group {name}={value!r} with question {question_name!r}") from None
        if result.n == 0:
            raise ValueError(f"group {name}={value!r} has no answers to {question_name!r}")
        kind = kind_of(result.question)
        estimates.append(kind.for_difference(result))  # a ValueError for a kind not compared between groups
    return kind.difference(estimates[0], estimates[1], confidence_level)


@dataclass(frozen=True)
class GroupDifference:
    """One yes/no question's estimate (or a randomized number's mean) in group ``first`` minus that in group
    ``second``.

    ``sequence``: the anytime-valid confidence sequence for the difference
    (the kind's ``difference_sequence``: each group's sequence at ``1 - alpha/2``, subtracted).
    """

    question: Question
    first: GroupResults
    second: GroupResults
    difference: Difference | NumberDifference
    sequence: SequenceBounds | None = None


def _answered_groups(breakdown: Breakdown, question_name: str) -> list[GroupResults]:
    """The groups with a stored answer to ``breakdown.by`` (not "No answer") and answers to the question."""
    return [g for g in breakdown.groups if g.value is not None and g.question(question_name).n > 0]


def check_pair(breakdown: Breakdown, first: str | None, second: str | None) -> None:
    """Raise ValueError, naming the value, unless ``first`` and ``second`` are two different groups.

    ``None`` for both (compare the first two groups) is accepted; the groups
    are the answers to ``breakdown.by`` ("No answer" cannot be compared).
    """
    if first is None and second is None:
        return
    known = {group.value: group.label for group in breakdown.groups if group.value is not None}
    listed = ", ".join(f"{label} ({value})" if label != value else value for value, label in known.items())
    if first is None or second is None:
        raise ValueError(f"Choose two groups to compare, one of: {listed or 'none'}.")
    for value in (first, second):
        if value not in known:
            raise ValueError(
                f"There is no group “{value[:40]}” in the break-down by {breakdown.by.label}; "
                f"the groups are: {listed or 'none'}."
            )
    if first == second:
        raise ValueError(f"Choose two different groups to compare, got “{first[:40]}” twice.")


def group_differences(
    breakdown: Breakdown, confidence_level: float = 0.95, first: str | None = None, second: str | None = None
) -> tuple[GroupDifference, ...]:
    """For each randomized yes/no question and number, one group's estimate minus another's.

    The two groups are ``first`` and ``second`` when both are given, else the
    first two groups (in the order of :attr:`Breakdown.groups`) that answered
    ``by`` and the question. A question where the pair is not found (fewer
    than two such groups, or a named group without answers) is left out.
    """
    out = []
    for result in breakdown.groups[0].questions if breakdown.groups else ():
        kind = kind_of(result.question)
        name = result.question.name
        answered = _answered_groups(breakdown, name)
        if first and second:
            pair = [g for value in (first, second) for g in answered if g.value == value]
        else:
            pair = answered[:2]
        if len(pair) != 2:
            continue
        results = [g.question(name) for g in pair]
        if not kind.comparable(results):
            continue  # not compared (a choice), or a two-group moment estimate on the boundary (see each group)
        compared = compare_groups(breakdown, name, pair[0].value, pair[1].value, confidence_level)
        sequence = kind.difference_sequence(results, confidence_level)
        out.append(GroupDifference(result.question, pair[0], pair[1], compared, sequence))
    return tuple(out)
