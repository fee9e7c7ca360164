"""Weighted results: each randomized share post-stratified to the survey file's ``population_counts``.

Pure: takes a :class:`~surveys.definition.Survey`, its tallies and the group tallies by the first margin's
plain question (:func:`storage.queries.group_tallies`), and returns frozen dataclasses. Each group's
estimate is the one its kind computes (:func:`surveys.breakdowns.compute_breakdown`), with the
finite-population variance of ``n_h`` of ``N_h`` where its kind gives it (one-design yes/no); they are
combined by :func:`analysis.post_stratify`. With two or more margins each yes/no question whose pattern
counts are kept is also raked to every margin (:func:`rake_patterns`, :func:`analysis.raked_share`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from analysis import POST_STRATIFIED, RAKED, WeightedEstimate, post_stratify, rake, raked_share
from surveys.breakdowns import compute_breakdown
from surveys.definition import PopulationMargin, Question, Survey
from surveys.design_contract import parse_design_key
from surveys.export_columns import ESTIMATE_COLUMNS
from surveys.kinds import kind_of
from surveys.models import PatternTallies, cells_of, kept_outcomes, level_names
from surveys.results import Tallies, question_result
from surveys.tables import safe_csv

#: The columns the estimates CSV gains with ``population_counts`` (empty where a share is not weighted).
WEIGHTED_COLUMNS = (
    "weighted_by",
    "weighted_estimate_raw",
    "weighted_estimate",
    "weighted_std_err",
    "weighted_ci_low",
    "weighted_ci_high",
    "design_effect",
    "weighted_finite_population",
)


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
    option: str = ""


@dataclass(frozen=True)
class Weighting:
    """The weighted shares of a survey with ``population_counts``.

    ``raked``: with two or more margins, each yes/no question whose pattern counts are kept raked to every
    margin (:func:`rake_patterns`); ``n`` there is the answers in the cells, ``note`` what was left out.

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
    raked: tuple[WeightedShare, ...] = ()


def _parts(result) -> list[tuple[str, object]]:
    """``[(label, part)]``: the result itself for a single share, else each option (which has a raw share)."""
    if kind_of(result.question).single_share:
        return [("", result)]
    return [(option.choice.label, option) for option in getattr(result, "options", ())]


def _option(part) -> str:
    """The option's name (the export's ``option`` column); ``""`` for a yes/no share."""
    choice = getattr(part, "choice", None)
    return "" if choice is None else choice.name


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
            return WeightedShare(question, label, n, None, note, _option(_parts(overall)[index][1]))
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
    return WeightedShare(question, label, n, estimate, option=_option(whole))


#: Why a question asked only of some respondents is not weighted: the population counts are of everyone.
SKIPPED_NOTE = "Not weighted: asked only of some respondents (skip logic), and the population counts are of everyone."


def asked_of_everyone(question: Question) -> bool:
    """Whether ``question`` is asked of every respondent (no ``relevant:`` condition). A question asked only
    of some is not post-stratified, raked or modelled with weights: the population counts describe everyone,
    not the subgroup it was asked of, so weighting to them would estimate a share of no defined population."""
    return question.relevant is None


def weight_results(
    survey: Survey,
    tallies: Tallies,
    group_tallies: Mapping[str | None, Tallies],
    confidence_level: float = 0.95,
    method: str = "wilson",
    patterns: Mapping[str, PatternTallies] | None = None,
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
    patterns : mapping, optional
        With two or more margins: ``{question: kept pattern counts}`` (:func:`storage.kept_counts.pattern_tallies`)
        of the questions of :func:`raked_outcomes`, raked by :func:`rake_patterns`.

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
            if not asked_of_everyone(question):
                shares.append(WeightedShare(question, label, overall.n, None, SKIPPED_NOTE, _option(part)))
                continue
            if overall.n == 0:
                shares.append(WeightedShare(question, label, 0, None, "No answers yet.", _option(part)))
                continue
            shares.append(_weighted(question, index, label, groups, overall, counts, population, confidence_level))
    return Weighting(
        margin=margin,
        by=survey.question(margin.by),
        shares=tuple(shares),
        other_margins=tuple(m.by for m in survey.population_counts[1:]),
        left_out=left_out,
        confidence_level=float(confidence_level),
        raked=tuple(
            rake_patterns(survey, survey.question(name), kept, confidence_level)
            for name, kept in (patterns or {}).items()
        ),
    )


def raked_outcomes(survey: Survey) -> tuple[str, ...]:
    """The questions raked when the survey gives two or more margins: the kept outcomes (their pattern
    counts hold the margins' questions' answers together); ``()`` with fewer margins."""
    return kept_outcomes(survey) if len(survey.population_counts) >= 2 else ()


def rake_patterns(survey: Survey, question: Question, kept: PatternTallies, level: float) -> WeightedShare:
    """``question``'s share raked to every margin of ``survey.population_counts`` from its kept pattern counts
    (:func:`analysis.raked_share` over the cells of the margins' questions). No estimate, with a note, when
    the answers came under several designs or none, or a level with population has no answers."""
    by = [survey.question(margin.by) for margin in survey.population_counts]
    cells = cells_of(kept, by)
    n = int(cells.counts.sum())
    if not asked_of_everyone(question):
        return WeightedShare(question, "", n, None, SKIPPED_NOTE)
    if len(cells.keys) != 1:
        note = "No raked estimate: raking needs answers under exactly one yes/no design."
        return WeightedShare(question, "", n, None, note if n else "No answers yet.")
    shape = tuple(len(level_names(q)) for q in by)
    ys, ns = np.zeros(shape), np.zeros(shape)
    where = tuple(cells.levels.T)
    ys[where], ns[where] = cells.counts[:, 0], cells.counts.sum(axis=1)
    margins = [[dict(m.counts)[name] for name in level_names(q)] for m, q in zip(survey.population_counts, by)]
    t, a, b = parse_design_key(cells.keys[0])[2].exact()
    try:
        estimate = raked_share(ys, ns, margins, t, a, b, level)
    except ValueError as error:
        return WeightedShare(question, "", n, None, f"No raked estimate: {error}.")
    left = (
        f"{cells.left_out:,} answers without an answer to every margin's question are left out."
        if cells.left_out
        else ""
    )
    return WeightedShare(question, "", n, estimate, left)


def weighted_values(weighting: Weighting, share: WeightedShare) -> dict:
    """The :data:`WEIGHTED_COLUMNS` of one share (``None`` where it has no weighted estimate)."""
    e = share.estimate
    figures = (
        (None,) * 7
        if e is None
        else (e.estimate_raw, e.estimate, e.std_err, e.low, e.high, e.design_effect, e.finite_population)
    )
    return dict(zip(WEIGHTED_COLUMNS, (weighting.margin.by, *figures)))


def weighted_json(weighting: Weighting | None) -> dict:
    """``{"weighted": {...}}`` for the estimates JSON: the margin, the answers left out and one row per share
    (``question``, ``option`` as in the estimate rows, then :data:`WEIGHTED_COLUMNS`, ``note``); ``{}``
    without ``population_counts``."""
    if weighting is None:
        return {}
    rows = [
        {"question": s.question.name, "option": s.option, **weighted_values(weighting, s), "note": s.note}
        for s in weighting.shares
    ]
    return {
        "weighted": {
            "method": "post-stratified",
            "by": weighting.margin.by,
            "population_counts": dict(weighting.margin.counts),
            "other_margins_not_used": list(weighting.other_margins),
            "left_out_answers": weighting.left_out,
            "confidence_level": weighting.confidence_level,
            "rows": rows,
            "raked_by": [weighting.margin.by, *weighting.other_margins] if weighting.other_margins else [],
            "raked_rows": [
                {"question": s.question.name, **weighted_values(weighting, s), "note": s.note} for s in weighting.raked
            ],
        }
    }


def weighted_estimates_csv(rows: list[dict], weighting: Weighting) -> str:
    """The estimate ``rows`` (:func:`surveys.export.estimate_rows`) with :data:`WEIGHTED_COLUMNS`, matched by
    question and option, as CSV (a row with no weighted share, a number's say, leaves them empty)."""
    by_share = {(s.question.name, s.option): weighted_values(weighting, s) for s in weighting.shares}
    empty = dict.fromkeys(WEIGHTED_COLUMNS)
    merged = [row | by_share.get((row["question"], row["option"]), empty) for row in rows]
    return safe_csv((*ESTIMATE_COLUMNS, *WEIGHTED_COLUMNS), merged)


def margin_cell_weights(survey: Survey, levels: np.ndarray, answers: np.ndarray) -> tuple[np.ndarray, str]:
    """The weight of each cell of the margins' questions, and the method: with one margin
    :data:`analysis.POST_STRATIFIED`, ``N_h / n_h``; with two or more :data:`analysis.RAKED`, the raked cell
    weights (:func:`analysis.rake`). ``levels`` holds, per row of kept counts (:func:`surveys.models.cells_of`),
    each margin's question's position among its levels (one column per margin, in ``population_counts``' order),
    ``answers`` the row's answers; a row's weight is ``table[tuple(levels[row])]``. ``ValueError`` when a level with
    a population count has no answers."""
    margins = survey.population_counts
    by = [survey.question(margin.by) for margin in margins]
    sample = np.zeros(tuple(len(level_names(q)) for q in by))
    np.add.at(sample, tuple(np.asarray(levels).T), answers)
    wanted = [np.array([dict(m.counts)[name] for name in level_names(q)], float) for m, q in zip(margins, by)]
    if len(by) > 1:
        return rake(sample, wanted).weights, RAKED
    empty = [level_names(by[0])[i] for i in np.flatnonzero(sample == 0)]
    if empty:
        raise ValueError(f"no answers at {margins[0].by} = {empty[0]}, which has a population count")
    return wanted[0] / sample, POST_STRATIFIED
