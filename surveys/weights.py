"""Weighted results: each randomized share post-stratified to the survey file's ``population_counts``.

Pure: takes a :class:`~surveys.definition.Survey`, its tallies and the group tallies by the first margin's
plain question (:func:`storage.queries.group_tallies`), and returns frozen dataclasses. Each group's
estimate is the one its kind computes (:func:`surveys.breakdowns.compute_breakdown`), with the
finite-population variance of ``n_h`` of ``N_h`` where its kind gives it (one-design yes/no); they are
combined by :func:`analysis.post_stratify`. Raking to two or more margins is
:func:`analysis.raked_share`; the page post-stratifies to the first margin and says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from analysis import WeightedEstimate, post_stratify
from surveys.breakdowns import compute_breakdown
from surveys.definition import PopulationMargin, Question, Survey
from surveys.kinds import kind_of
from surveys.results import Tallies, question_result


@dataclass(frozen=True)
class WeightedShare:
    """One share (a yes/no question, or one option of a choice) weighted, beside the unweighted one.

    ``estimate`` is ``None`` when it cannot be weighted; ``note`` says why (``""`` otherwise). ``n`` is the
    answers in the margin's groups.
    """

    question: Question
    label: str
    n: int
    estimate: WeightedEstimate | None
    note: str = ""


@dataclass(frozen=True)
class Weighting:
    """The weighted shares of a survey with ``population_counts``.

    ``margin``: the margin post-stratified to; ``other_margins``: the plain questions of the other margins
    given (not used on the page); ``left_out``: the largest number of a question's answers outside the
    margin's groups (no answer to ``by``, or an answer without a population count).
    """

    margin: PopulationMargin
    by: Question
    shares: tuple[WeightedShare, ...]
    other_margins: tuple[str, ...]
    left_out: int
    confidence_level: float


def _parts(result) -> list[tuple[str, object]]:
    """``[(label, part)]``: the result itself for a single share, else each option (which has a raw share)."""
    if kind_of(result.question).single_share:
        return [("", result)]
    return [(option.choice.label, option) for option in getattr(result, "options", ())]


def _variance(result, part, size: int, level: float) -> tuple[float, float, bool]:
    """``(estimate, variance, finite)`` of one group's share, with the finite-population variance of ``n_h``
    of ``N_h`` when its kind gives one (a one-design yes/no question)."""
    if part is result:
        figures = getattr(kind_of(result.question).finite_population(result, size, level), "finite_population", None)
        if figures is not None:
            return figures.estimate.estimate_raw, figures.variance, True
    return part.estimate_raw, part.std_err**2, False


def _weighted(
    question: Question, index: int, label: str, groups, overall, counts, population: int, level: float
) -> WeightedShare:
    """The share ``index`` of ``question`` (its ``_parts``) post-stratified over ``groups``."""
    estimates, variances, finite, n = [], [], [], 0
    for group, size in zip(groups, counts):
        result = group.question(question.name)
        n += result.n
        parts = _parts(result)
        part = parts[index][1] if index < len(parts) else None
        if result.n == 0 or part is None or part.estimate_raw is None or part.std_err is None:
            note = f"No weighted estimate: no estimate among the answers “{group.label}” yet."
            return WeightedShare(question, label, n, None, note)
        estimate, variance, exact = _variance(result, part, size, level)
        estimates.append(estimate)
        variances.append(variance)
        finite.append(exact)
    whole = _parts(overall)[index][1]
    unweighted_se = whole.std_err
    if all(finite):
        figures = getattr(kind_of(question).finite_population(overall, population, level), "finite_population", None)
        unweighted_se = figures.std_err if figures is not None else unweighted_se
    estimate = post_stratify(estimates, variances, counts, level, whole.estimate_raw, unweighted_se, all(finite))
    return WeightedShare(question, label, n, estimate)


def weight_results(
    survey: Survey,
    tallies: Tallies,
    group_tallies: Mapping[str | None, Tallies],
    confidence_level: float = 0.95,
    method: str = "wilson",
) -> Weighting | None:
    """The randomized shares post-stratified to the first of ``survey.population_counts``; None without it.

    Parameters
    ----------
    survey : Survey
    tallies : mapping
        The survey's tallies (:func:`storage.queries.tallies`): the unweighted estimates.
    group_tallies : mapping
        The group tallies by the first margin's ``by`` (:func:`storage.queries.group_tallies`).
    confidence_level, method
        As for :func:`surveys.results.compute_results` (the unweighted estimates' method; the weighted
        interval is Wald's).

    Returns
    -------
    Weighting or None
    """
    if not survey.population_counts:
        return None
    margin = survey.population_counts[0]
    names = [name for name, _ in margin.counts]
    counts = [count for _, count in margin.counts]
    population = sum(counts)
    breakdown = compute_breakdown(survey, margin.by, group_tallies, confidence_level, method)
    groups = [breakdown.group(name) for name in names]
    shares, left_out = [], 0
    for question in survey.randomized_questions:
        overall = question_result(question, tallies.get(question.name, {}), confidence_level, method)
        parts = _parts(overall)
        in_groups = sum(group.question(question.name).n for group in groups)
        left_out = max(left_out, overall.n - in_groups)
        for index, (label, part) in enumerate(parts):
            if getattr(part, "estimate_raw", None) is None and overall.n:
                continue
            if overall.n == 0:
                shares.append(WeightedShare(question, label, 0, None, "No answers yet."))
                continue
            shares.append(_weighted(question, index, label, groups, overall, counts, population, confidence_level))
    return Weighting(
        margin=margin,
        by=survey.question(margin.by),
        shares=tuple(shares),
        other_margins=tuple(m.by for m in survey.population_counts[1:]),
        left_out=left_out,
        confidence_level=float(confidence_level),
    )
