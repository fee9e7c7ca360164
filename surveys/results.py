"""A survey's results: estimates per question from the stored tallies.

Pure: takes a :class:`~surveys.definition.Survey` and the plain dictionaries
of :func:`storage.queries.tallies` and returns frozen dataclasses. Every
estimate, interval and planning figure comes from :mod:`analysis`; this
module only chooses which function applies (one design or several, yes/no or
several options) and labels the outcome. The same per-question results split
by a plain answer are :mod:`surveys.breakdowns`; their sentences come from
:mod:`surveys.wording`.

Answers are tallied per question *and* per design key
(:func:`surveys.design_contract.question_design_key`), so answers collected under
an old design are debiased with that design, never with the current one.
When one question has answers under several designs, each design is
estimated on its own and the estimates are pooled
(:func:`analysis.pool_estimates`).

The result types are :mod:`surveys.result_types`; how each kind of question
is estimated is its module in :mod:`surveys.kinds`, chosen once per question
by :func:`surveys.kinds.kind_of`; planning is :mod:`surveys.planning`. The
names of those modules that callers read from here stay importable here.
"""

from __future__ import annotations

from collections.abc import Mapping

from analysis import (
    INTERVAL_METHODS,
    SurveyEpsilon,
    survey_epsilon,
)
from surveys.definition import Question, Survey
from surveys.design_contract import parse_design_key
from surveys.kinds import kind_of
from surveys.kinds.common import covering, difference_bounds, sequence_bounds, shown_std_err, two_group_sequence_bounds
from surveys.kinds.matrix import matrix_versions
from surveys.kinds.two_group import group_counts, two_group_version_counts
from surveys.kinds.yes_no import direct_counts, with_control_arm
from surveys.planning import ChoicePlan, PlanningResult, plan, plan_choice, planning_group_sizes
from surveys.result_types import (
    FLAG_ABOVE_CEILING,
    FLAG_BELOW_FLOOR,
    FLAG_CLIPPED,
    FLAG_IGNORED,
    FLAG_NO_RESPONSES,
    FLAG_NOT_COMPUTED,
    FLAG_SEVERAL_DESIGNS,
    FLAG_SMALL_N,
    NO_EXCLUSION,
    SECOND_PARAMETER_LABELS,
    SMALL_N,
    ChoiceDesignEstimate,
    ChoiceResult,
    DesignEstimate,
    Exclusion,
    OptionResult,
    PlainResult,
    QuestionResult,
    SequenceBounds,
    SurveyResults,
    Tallies,
    TwoGroupFigures,
    YesNoResult,
)
from surveys.text_format import percent

__all__ = [
    "FLAG_ABOVE_CEILING",
    "FLAG_BELOW_FLOOR",
    "FLAG_CLIPPED",
    "FLAG_IGNORED",
    "FLAG_NOT_COMPUTED",
    "FLAG_NO_RESPONSES",
    "FLAG_SEVERAL_DESIGNS",
    "FLAG_SMALL_N",
    "NO_EXCLUSION",
    "SECOND_PARAMETER_LABELS",
    "SMALL_N",
    "ChoiceDesignEstimate",
    "ChoicePlan",
    "ChoiceResult",
    "DesignEstimate",
    "Exclusion",
    "OptionResult",
    "PlainResult",
    "PlanningResult",
    "QuestionResult",
    "SequenceBounds",
    "SurveyResults",
    "Tallies",
    "TwoGroupFigures",
    "YesNoResult",
    "answered_epsilon",
    "check_options",
    "compute_results",
    "covering",
    "difference_bounds",
    "direct_counts",
    "failed_result",
    "group_counts",
    "matrix_versions",
    "percent",
    "plan",
    "plan_choice",
    "planning_group_sizes",
    "question_result",
    "running_point",
    "sequence_bounds",
    "shown_std_err",
    "subtract_tallies",
    "two_group_sequence_bounds",
    "two_group_version_counts",
    "with_control_arm",
    "with_finite_population",
]


def check_options(confidence_level: float, method: str) -> None:
    """``ValueError`` naming an unknown interval ``method`` or a level outside ``(0, 1)``."""
    if method not in INTERVAL_METHODS:
        raise ValueError(f"method must be one of {INTERVAL_METHODS}, got method={method!r}")
    if (
        isinstance(confidence_level, bool)
        or not isinstance(confidence_level, (int, float))
        or not (0 < confidence_level < 1)
    ):
        raise ValueError(f"confidence_level must be in (0, 1), got confidence_level={confidence_level!r}")


def running_point(question: Question, by_design, confidence_level: float) -> tuple[int, float, SequenceBounds] | None:
    """``(n, estimate, confidence sequence)`` of a yes/no question: only what the time chart draws.

    The same figures as :func:`question_result`'s ``n``, ``estimate`` and
    ``sequence`` (the same estimates, pooled the same way), without the
    interval, the floor check and the sentence the time chart does not show.
    None when the question has no answers (a two-group question: until a
    version has 2 answers in each group).
    """
    return kind_of(question, by_design).running_point(question, by_design, confidence_level)


def with_finite_population(result: QuestionResult, population_size: int | None, level: float) -> QuestionResult:
    """``result`` with its finite-population figures when the survey gives ``population_size`` (``N``).

    Only a one-parameter yes/no question whose answers came under one design gets them
    (:func:`surveys.kinds.yes_no.finite_population`: the unbiased variance under simple random sampling
    without replacement of ``n`` of ``N`` people, Chaudhuri 2011); a pooled or two-group question does not,
    and ``finite_population_note`` says why, as it does when the answers outnumber ``N``; a multiple-choice
    or plain question is left as it is. :func:`compute_results` asks the question's kind directly.
    """
    return kind_of(result.question).finite_population(result, population_size, level)


def failed_result(question: Question, error: Exception) -> QuestionResult:
    """A result with no figures that says why they could not be computed.

    Every estimate field is ``None`` (as with no answers), ``flags`` is
    ``("not computed",)`` and ``error`` names the error, so that one question
    whose figures fail never takes the page, the other questions or an
    export down.
    """
    message = f"{type(error).__name__}: {error}"
    sentence = f"The result of \u201c{question.label}\u201d could not be computed ({message})."
    flags = (FLAG_NOT_COMPUTED,)
    return kind_of(question).without_figures(question, flags, sentence, error=message)


def question_result(
    question: Question,
    by_design: Mapping[str, Mapping[str, int]],
    confidence_level: float = 0.95,
    method: str = "wilson",
    population_size: int | None = None,
) -> QuestionResult:
    """The result of one question from its tallies ``{design key: {answer: count}}``.

    Its kind (:func:`surveys.kinds.kind_of`, asked once) computes it and, with the survey's
    ``population_size``, adds its finite-population figures (:func:`with_finite_population`).

    Raises ``ValueError`` for an unknown ``method`` or level. Any error in
    computing the question's own figures gives :func:`failed_result` instead
    of an exception: one question never takes the others down.
    """
    check_options(confidence_level, method)
    try:
        kind = kind_of(question, by_design)
        result = kind.compute(question, by_design, confidence_level, method)
    except Exception as error:  # noqa: BLE001 - any failure stays within its question's row
        return failed_result(question, error)
    return kind.finite_population(result, population_size, confidence_level)


# --------------------------------------------------------------------------
# Public entry points.


def compute_results(
    survey: Survey,
    tallies: Tallies,
    response_count: int,
    confidence_level: float = 0.95,
    method: str = "wilson",
    excluded: Exclusion = NO_EXCLUSION,
) -> SurveyResults:
    """Estimate every question of ``survey`` from its tallies.

    Parameters
    ----------
    survey : Survey
        The current definition; its questions fix the order and the labels.
    tallies : mapping
        ``{question: {design key: {answer: count}}}`` from
        :func:`storage.queries.tallies`. Questions no longer in the survey
        are ignored.
    response_count : int
        Number of stored responses (for display).
    confidence_level : float
        In ``(0, 1)``; default 0.95.
    method : {"wilson", "clopper-pearson", "wald"}
        Interval method for single-design estimates.
    excluded : Exclusion
        The days already taken out of ``tallies`` and ``response_count``
        (:func:`subtract_tallies`), recorded in the result for display.

    Returns
    -------
    SurveyResults

    Raises
    ------
    ValueError
        For an unknown ``method``, a level outside ``(0, 1)`` or a negative
        ``response_count``.
    """
    check_options(confidence_level, method)
    if isinstance(response_count, bool) or not isinstance(response_count, int) or response_count < 0:
        raise ValueError(f"response_count must be an integer >= 0, got response_count={response_count!r}")
    questions = tuple(
        question_result(q, tallies.get(q.name, {}), confidence_level, method, survey.population_size)
        for q in survey.questions
    )
    return SurveyResults(
        answered_epsilon=answered_epsilon(tallies, survey.delta),
        survey=survey,
        response_count=response_count,
        confidence_level=float(confidence_level),
        method=method,
        questions=questions,
        epsilon=survey.epsilon,
        excluded=excluded,
    )


def answered_epsilon(tallies: Tallies, delta: float) -> SurveyEpsilon | None:
    """A bound on any respondent's epsilon over every design that has answers; ``None`` with none.

    ``survey.epsilon`` counts the current designs only, but answers collected
    under an older design (a smaller ``t``, a question since removed) cost
    their respondents that design's epsilon. Each respondent answered each
    question under one design, so summing, over every question with answers
    (in the survey or no longer), the largest per-answer epsilon among the
    designs that hold its answers bounds every respondent's epsilon from
    above (sequential composition; the advanced bound likewise, with
    ``delta``). It equals the largest per-version epsilon when the designs
    changed question by question across versions; otherwise it can be
    larger, never smaller.
    """
    largest: dict[str, float] = {}
    for name, by_design in tallies.items():
        for key, counts in by_design.items():
            parsed = parse_design_key(key)
            if parsed is None or parsed[2] is None or not any(counts.values()):
                continue
            largest[name] = max(largest.get(name, 0.0), parsed[2].epsilon)
    if not largest:
        return None
    return survey_epsilon([largest[name] for name in sorted(largest)], delta)


def subtract_tallies(total: Tallies, removed: Tallies) -> dict[str, dict[str, dict[str, int]]]:
    """``total - removed`` count by count, dropping what falls to zero.

    Estimates without some days are the running tallies minus those days'
    tallies; both have the shape of :func:`storage.queries.tallies`.

    Raises
    ------
    ValueError
        If ``removed`` holds more of some answer than ``total`` (they were
        not read from one snapshot).
    """
    result: dict = {}
    for question, by_design in total.items():
        for design, by_answer in by_design.items():
            for answer, count in by_answer.items():
                left = count - removed.get(question, {}).get(design, {}).get(answer, 0)
                if left < 0:
                    raise ValueError(f"cannot remove more answers {answer!r} to {question!r} than {count} tallied")
                if left:
                    result.setdefault(question, {}).setdefault(design, {})[answer] = left
    extra = [
        (q, d, a)
        for q, by_d in removed.items()
        for d, by_a in by_d.items()
        for a, c in by_a.items()
        if c and a not in total.get(q, {}).get(d, {})
    ]
    if extra:
        raise ValueError(f"cannot remove answers that were never tallied: {extra[:3]!r}")
    return result
