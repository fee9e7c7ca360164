"""Everything one admin page, export or CLI command shows, read from storage and handed to the domain.

Each public function here serves one page or export: it reads everything
that page needs from storage inside one read snapshot (so its figures agree
with each other), passes the plain values or iterators to the pure functions
of :mod:`surveys.results`, :mod:`surveys.breakdowns` and :mod:`surveys.export`,
and returns a frozen page-data object or the export's body: one trip down to
the database and back. A view parses its options (:mod:`web.options`), calls
one of these and renders (tests/test_gather.py checks that each admin view
makes exactly one call here and no other read). The CLI's exports call the
same functions.

The ``_read_*`` helpers run inside a snapshot the caller holds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, date, datetime

import sqlite_utils

from storage import burst_days, connection, day_exclusions, kept_counts, queries, survey_states
from surveys import correlation as pairs
from surveys import export
from surveys.breakdowns import Breakdown, GroupDifference, check_pair, compute_breakdown, group_differences
from surveys.definition import Question, Survey
from surveys.design_fit import DesignFit, design_fit, design_fit_record
from surveys.files import SurveyCatalog
from surveys.floods import FloodComparison, compare_estimates
from surveys.kinds import kind_of
from surveys.models import ModelChoice, ModelResult, PatternTallies, fit_model, kept_outcomes
from surveys.noncompliance_planning import NoncompliancePlanning, noncompliance_planning
from surveys.predictor_model import (
    PredictorChoice,
    PredictorModelResult,
    fit_predictor_model,
    predictor_csv,
    predictor_json,
)
from surveys.results import (
    Exclusion,
    PlanningResult,
    SurveyResults,
    Tallies,
    compute_results,
    plan,
    planning_group_sizes,
    subtract_tallies,
)
from surveys.sample_design import DesignWeighting, weights_csv, weights_json
from surveys.schema import Problem
from surveys.targets import TargetProgress, every_target_met, grouped_by, target_progress
from surveys.timeline import Timeline, survey_timelines
from surveys.weighted_model import (
    WeightedModelResult,
    fit_weighted_model,
    weighted_model_csv,
    weighted_model_json,
)
from surveys.weights import Weighting
from web.catalog import state_on
from web.correlation_data import PairPanel, pair_panel, pair_result
from web.options import ResultsOptions
from web.predictor_data import PredictorPanel, predictor_panel
from web.weights_data import read_weighting

# --------------------------------------------------------------------------
# Reads, inside the caller's snapshot.


def read_exclusion(db: sqlite_utils.Database, survey: Survey) -> Exclusion:
    """The excluded days, and the other days whose answers marked during a burst an admin set aside."""
    days = day_exclusions.excluded_days(db, survey.id)
    aside = [b for b in _marked_bursts(db, survey, {day for day, _ in days}) if b.set_aside]
    return Exclusion(
        tuple(day for day, _ in days),
        sum(count for _, count in days),
        tuple(b.day for b in aside),
        sum(b.marked for b in aside),
    )


def _marked_bursts(db: sqlite_utils.Database, survey: Survey, excluded_days: set[str]) -> list[burst_days.BurstDay]:
    """The survey's burst days with marked answers, but the excluded days (whose answers are all out)."""
    return [b for b in burst_days.bursts(db, survey.id) if b.marked and b.day not in excluded_days]


def read_tallies(db: sqlite_utils.Database, survey: Survey, excluded: Exclusion) -> tuple[Tallies, int]:
    """The running tallies and response count minus the excluded days' and the set-aside marked answers'.

    The excluded days' tallies are their kept per-day tallies (:func:`storage.queries.daily_tallies_on_days`:
    the rows kept as the answers arrived, a number's sums too; no response is read); with no day excluded nothing
    is read.
    The set-aside marked answers' tallies are kept apart as they arrive
    (:func:`storage.queries.burst_tallies_on_days`): nothing is counted.
    """
    tallies = queries.tallies(db, survey.id)
    if excluded.days:
        tallies = subtract_tallies(tallies, queries.daily_tallies_on_days(db, survey.id, list(excluded.days)))
    if excluded.set_aside_days:
        tallies = subtract_tallies(tallies, queries.burst_tallies_on_days(db, survey.id, list(excluded.set_aside_days)))
    return tallies, queries.response_count(db, survey.id) - excluded.response_count - excluded.set_aside_count


def read_group_tallies(db: sqlite_utils.Database, survey: Survey, by: str, excluded: Exclusion) -> dict:
    """The running group tallies by the answer to ``by``, minus the excluded days' and the set-aside marked
    answers' (counted from those responses by index; empty groups dropped)."""
    grouped = queries.group_tallies(db, survey.id, by)
    removals = []
    if excluded.days:
        removals.append(queries.group_tallies_on_days(db, survey.id, by, list(excluded.days)))
    if excluded.set_aside_days:
        removals.append(
            queries.group_tallies_on_days(db, survey.id, by, list(excluded.set_aside_days), marked_only=True)
        )
    for removed in removals:
        grouped = {
            group: subtract_tallies(per_question, removed.get(group, {})) for group, per_question in grouped.items()
        }
        grouped = {group: per_question for group, per_question in grouped.items() if per_question}
    return grouped


def _read_pattern_tallies(db: sqlite_utils.Database, survey: Survey, outcome: str, excluded: Exclusion) -> dict:
    """The kept pattern counts of ``outcome``, minus the excluded days' and the set-aside marked answers'
    (counted from those responses by index)."""
    kept = kept_counts.pattern_tallies(db, survey.id, outcome)
    if excluded.days:
        kept = _subtract_patterns(
            kept, kept_counts.pattern_tallies_on_days(db, survey.id, outcome, list(excluded.days))
        )
    if excluded.set_aside_days:
        aside = list(excluded.set_aside_days)
        kept = _subtract_patterns(
            kept, kept_counts.pattern_tallies_on_days(db, survey.id, outcome, aside, marked_only=True)
        )
    return kept


def _subtract_patterns(kept: PatternTallies, removed: PatternTallies) -> dict:
    return {
        key: {
            pattern: {
                answer: count - removed.get(key, {}).get(pattern, {}).get(answer, 0) for answer, count in a.items()
            }
            for pattern, a in by_pattern.items()
        }
        for key, by_pattern in kept.items()
    }


def _read_target_tallies(db: sqlite_utils.Database, survey: Survey, excluded: Exclusion) -> tuple[Tallies, dict]:
    """What the targets read: the running tallies minus the excluded days' kept per-day tallies (no response
    read), and the break-down tallies of each question a difference target groups by (minus the excluded
    days' too; those are counted from the days' responses by index, as on the results page)."""
    tallies = queries.tallies(db, survey.id)
    if excluded.days:
        tallies = subtract_tallies(tallies, queries.daily_tallies_on_days(db, survey.id, list(excluded.days)))
    if excluded.set_aside_days:
        tallies = subtract_tallies(tallies, queries.burst_tallies_on_days(db, survey.id, list(excluded.set_aside_days)))
    return tallies, {by: read_group_tallies(db, survey, by, excluded) for by in grouped_by(survey)}


def _read_daily_tallies(db: sqlite_utils.Database, survey: Survey, excluded: Exclusion) -> list:
    """The kept per-day tallies, each set-aside day's minus its marked answers' (the excluded days are left
    out by the timeline itself)."""
    daily = queries.daily_tallies(db, survey.id)
    aside = set(excluded.set_aside_days)
    return [
        (
            day,
            subtract_tallies(tallies, queries.burst_tallies_on_days(db, survey.id, [day])) if day in aside else tallies,
        )
        for day, tallies in daily
    ]


def _read_flood_comparison(
    db: sqlite_utils.Database, survey: Survey, excluded: Exclusion, level: float, method: str
) -> FloodComparison | None:
    """The estimates with every marked answer (of the days not excluded) and without any; None when no
    answer is marked on those days."""
    marked = _marked_bursts(db, survey, set(excluded.days))
    if not marked:
        return None
    kept = replace(excluded, set_aside_days=(), set_aside_count=0)
    left = replace(excluded, set_aside_days=tuple(b.day for b in marked), set_aside_count=sum(b.marked for b in marked))
    with_marked, without_marked = (
        compute_results(
            survey, *read_tallies(db, survey, exclusion), confidence_level=level, method=method, excluded=exclusion
        )
        for exclusion in (kept, left)
    )
    return compare_estimates(with_marked, without_marked)


def _read_state(db: sqlite_utils.Database, survey: Survey, day: date) -> str:
    return state_on(survey, survey_states.closed_override(db, survey.id), day)


# --------------------------------------------------------------------------
# Results and break-downs (the results page, the estimates exports, the CLI, tests).


def stored_results(
    db: sqlite_utils.Database, survey: Survey, confidence_level: float = 0.95, method: str = "wilson"
) -> SurveyResults:
    """:func:`~surveys.results.compute_results` over the survey's running tallies in ``db``, minus the excluded days."""
    with connection.read_snapshot(db):
        excluded = read_exclusion(db, survey)
        tallies, response_count = read_tallies(db, survey, excluded)
    return compute_results(
        survey,
        tallies,
        response_count,
        confidence_level=confidence_level,
        method=method,
        excluded=excluded,
    )


def stored_breakdown(
    db: sqlite_utils.Database, survey: Survey, by: str, confidence_level: float = 0.95, method: str = "wilson"
) -> Breakdown:
    """:func:`~surveys.breakdowns.compute_breakdown` over the running group tallies, minus the excluded days."""
    with connection.read_snapshot(db):
        excluded = read_exclusion(db, survey)
        grouped = read_group_tallies(db, survey, by, excluded)
    return compute_breakdown(survey, by, grouped, confidence_level=confidence_level, method=method, excluded=excluded)


# --------------------------------------------------------------------------
# Pages.


@dataclass(frozen=True)
class DashboardRow:
    """One survey's line on the dashboard."""

    survey: Survey
    state: str
    responses: int
    daily_counts: tuple[tuple[str, int], ...]
    bursts: tuple[burst_days.BurstDay, ...]
    excluded_days: frozenset[str]
    targets: tuple[TargetProgress, ...] = ()

    @property
    def targets_met(self) -> bool:
        """Every target of the survey is met by its confidence sequence (False without targets)."""
        return every_target_met(self.targets)


@dataclass(frozen=True)
class DashboardPage:
    """Every survey of the catalog with its counts, and the files that did not load."""

    rows: tuple[DashboardRow, ...]
    problems: tuple[Problem, ...]


def dashboard(db: sqlite_utils.Database, catalog: SurveyCatalog, day: date) -> DashboardPage:
    """The dashboard on ``day``: each survey's state, responses, daily counts, bursts and excluded days."""
    with connection.read_snapshot(db):
        rows = tuple(
            DashboardRow(
                survey=survey,
                state=_read_state(db, survey, day),
                responses=queries.response_count(db, survey.id),
                daily_counts=tuple(queries.daily_counts(db, survey.id)),
                bursts=tuple(burst_days.bursts(db, survey.id)),
                excluded_days=frozenset(excluded for excluded, _ in day_exclusions.excluded_days(db, survey.id)),
                targets=target_progress(survey, *_read_target_tallies(db, survey, read_exclusion(db, survey)))
                if survey.targets
                else (),
            )
            for survey in catalog.surveys.values()
        )
    return DashboardPage(rows=rows, problems=tuple(catalog.problems))


# --------------------------------------------------------------------------
# Closing a survey on its targets (after a stored answer; not an admin page).


def close_if_targets_met(db: sqlite_utils.Database, survey: Survey) -> bool:
    """Close ``survey`` if its file says ``close_when_targets_met`` and every target is met now; True if it closed.

    Called after an answer is stored, in its own short transactions: one read
    snapshot of the kept counts (a few rows per target, whatever the number of
    responses), the sequences computed outside it, then one ``BEGIN
    IMMEDIATE`` write if every target is met. A survey opened or closed by
    hand keeps that choice (:func:`storage.survey_states.close_on_targets`), so an
    admin can reopen a survey that closed itself.
    """
    if not survey.close_when_targets_met:
        return False
    with connection.read_snapshot(db):
        if survey_states.closed_override(db, survey.id) is not None:
            return False
        tallies, grouped = _read_target_tallies(db, survey, read_exclusion(db, survey))
    if not every_target_met(target_progress(survey, tallies, grouped, plan=False)):
        return False
    return survey_states.close_on_targets(db, survey.id)


def met_targets(db: sqlite_utils.Database, survey: Survey) -> tuple[TargetProgress, ...]:
    """The targets of ``survey`` met now (one read snapshot of the kept counts, as :func:`close_if_targets_met`)."""
    if not survey.targets:
        return ()
    with connection.read_snapshot(db):
        tallies, grouped = _read_target_tallies(db, survey, read_exclusion(db, survey))
    return tuple(item for item in target_progress(survey, tallies, grouped, plan=False) if item.met)


@dataclass(frozen=True)
class ResultsPage:
    """What the results page shows: the estimates, the break-down and its differences, the planning.

    ``problems``: ``(field, message)`` for each option refused (those of
    :attr:`ResultsOptions.problems`, and ``groups`` for a pair of groups the
    break-down does not have); the page shows them beside their fields.
    """

    survey: Survey
    state: str
    results: SurveyResults
    breakdown: Breakdown | None
    differences: tuple[GroupDifference, ...]
    planning: PlanningResult | None
    problems: tuple[tuple[str, str], ...] = ()
    model: ModelResult | None = None
    model_available: bool = False
    timelines: tuple[Timeline, ...] = ()
    bursts: tuple[burst_days.BurstDay, ...] = ()
    flood_comparison: FloodComparison | None = None
    weighting: Weighting | DesignWeighting | None = None
    predictor_panel: PredictorPanel | None = None
    design_fit: DesignFit | None = None
    correlation: PairPanel | None = None
    noncompliance_planning: NoncompliancePlanning | None = None
    weighted_model: WeightedModelResult | None = None


def results_page(db: sqlite_utils.Database, survey: Survey, chosen: ResultsOptions, day: date) -> ResultsPage:
    """The results page of ``survey`` on ``day`` with the options ``chosen``, from one read snapshot."""
    with connection.read_snapshot(db):
        state = _read_state(db, survey, day)
        excluded = read_exclusion(db, survey)
        tallies, response_count = read_tallies(db, survey, excluded)
        grouped = read_group_tallies(db, survey, chosen.by, excluded) if chosen.by else None
        kept = _read_pattern_tallies(db, survey, chosen.model.outcome, excluded) if chosen.model else None
        daily = _read_daily_tallies(db, survey, excluded)
        bursts = tuple(burst_days.bursts(db, survey.id))
        flood_comparison = _read_flood_comparison(db, survey, excluded, chosen.level, chosen.method)
        weighting = read_weighting(
            db, survey, tallies, excluded, chosen.level, chosen.method, read_group_tallies, _read_pattern_tallies
        )
        predictors = predictor_panel(
            survey, chosen.predictor_choice, chosen.level, lambda by: read_group_tallies(db, survey, by, excluded)
        )
        correlation = pair_panel(db, survey, chosen.pair, chosen.level, excluded)
    results = compute_results(
        survey,
        tallies,
        response_count,
        confidence_level=chosen.level,
        method=chosen.method,
        excluded=excluded,
    )
    breakdown = (
        None
        if grouped is None
        else compute_breakdown(
            survey,
            chosen.by,
            grouped,
            confidence_level=chosen.level,
            method=chosen.method,
            excluded=excluded,
        )
    )
    problems = list(chosen.problems) + ([("pair", correlation.problem)] if correlation.problem else [])
    pair = (chosen.first, chosen.second)
    if breakdown is not None:
        try:
            check_pair(breakdown, *pair)
        except ValueError as error:
            problems.append(("groups", str(error)))
            pair = (None, None)
    answered = {r.question.name: r.n for r in results.questions if kind_of(r.question).single_share}
    model = None if kept is None else fit_model(survey, chosen.model, kept, chosen.level)
    return ResultsPage(
        survey=survey,
        state=state,
        results=results,
        breakdown=breakdown,
        differences=group_differences(breakdown, chosen.level, *pair) if breakdown else (),
        planning=plan(
            survey,
            response_count,
            half_width=chosen.half_width,
            confidence_level=chosen.level,
            question=chosen.plan,
            answered=answered,
            group_sizes=planning_group_sizes(results),
        ),
        problems=tuple(problems),
        model=model,
        model_available=bool(kept_outcomes(survey)),
        timelines=survey_timelines(survey, daily, chosen.level, excluded.days),
        bursts=bursts,
        flood_comparison=flood_comparison,
        weighting=weighting,
        predictor_panel=predictors,
        design_fit=design_fit(survey, results, model, kept),
        correlation=correlation,
        noncompliance_planning=noncompliance_planning(survey, chosen.noncompliance, chosen.half_width, chosen.level),
        weighted_model=None if kept is None else fit_weighted_model(survey, chosen.model, kept, chosen.level),
    )


def stored_model(
    db: sqlite_utils.Database, survey: Survey, choice: ModelChoice, confidence_level: float
) -> ModelResult:
    """:func:`~surveys.models.fit_model` over the kept pattern counts of the outcome, minus the excluded days."""
    with connection.read_snapshot(db):
        kept = _read_pattern_tallies(db, survey, choice.outcome, read_exclusion(db, survey))
    return fit_model(survey, choice, kept, confidence_level)


def stored_models(
    db: sqlite_utils.Database, survey: Survey, choice: ModelChoice, confidence_level: float
) -> tuple[ModelResult, WeightedModelResult | None]:
    """:func:`stored_model` and, from the same kept counts, :func:`~surveys.weighted_model.fit_weighted_model`."""
    with connection.read_snapshot(db):
        kept = _read_pattern_tallies(db, survey, choice.outcome, read_exclusion(db, survey))
    return fit_model(survey, choice, kept, confidence_level), fit_weighted_model(survey, choice, kept, confidence_level)


def stored_predictor_model(
    db: sqlite_utils.Database, survey: Survey, choice: PredictorChoice, confidence_level: float
) -> PredictorModelResult:
    """:func:`~surveys.predictor_model.fit_predictor_model` over the kept group tallies by the outcome, minus the
    excluded days and the set-aside marked answers (as on the results page)."""
    with connection.read_snapshot(db):
        grouped = read_group_tallies(db, survey, choice.outcome, read_exclusion(db, survey))
    return fit_predictor_model(survey, choice, grouped, confidence_level)


def stored_correlation(
    db: sqlite_utils.Database, survey: Survey, pair: tuple[Question, Question], confidence_level: float
) -> pairs.PairCorrelation:
    """The correlation panel's figures of ``pair`` (:func:`web.correlation_data.pair_result`), minus the excluded
    days and the set-aside marked answers, from one read snapshot."""
    with connection.read_snapshot(db):
        return pair_result(db, survey, *pair, confidence_level, read_exclusion(db, survey))


# --------------------------------------------------------------------------
# Exports.


def _stamp_now() -> str:
    """The stamp of a JSON export: now, in UTC, to the second (the one home of the export stamp)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def _weighted_results(
    db: sqlite_utils.Database, survey: Survey, confidence_level: float, method: str
) -> tuple[SurveyResults, Weighting | DesignWeighting | None]:
    """:func:`stored_results` and the weighted shares (:mod:`surveys.weights`) from one read snapshot."""
    with connection.read_snapshot(db):
        excluded = read_exclusion(db, survey)
        tallies, response_count = read_tallies(db, survey, excluded)
        weighting = read_weighting(
            db, survey, tallies, excluded, confidence_level, method, read_group_tallies, _read_pattern_tallies
        )
    results = compute_results(
        survey, tallies, response_count, confidence_level=confidence_level, method=method, excluded=excluded
    )
    return results, weighting


def estimates_json(
    db: sqlite_utils.Database, survey: Survey, method: str, confidence_level: float, exported_at: str | None = None
) -> dict:
    """:func:`surveys.export.estimates_json` of :func:`stored_results`, stamped ``exported_at`` (default: now),
    with ``weighted`` (:func:`surveys.sample_design.weights_json`) when the survey gives ``population_counts``
    or ``sample_design``."""
    results, weighting = _weighted_results(db, survey, confidence_level, method)
    return export.estimates_json(results, exported_at or _stamp_now()) | weights_json(weighting)


def design_fit_json(db: sqlite_utils.Database, survey: Survey, method: str, confidence_level: float) -> dict:
    """:func:`surveys.design_fit.design_fit_record` of :func:`stored_results` (the two-group checks and the careless
    correction; the model's fit is on the results page beside the model)."""
    results = stored_results(db, survey, confidence_level, method)
    return design_fit_record(design_fit(survey, results, None, None))


def estimates_csv(db: sqlite_utils.Database, survey: Survey, method: str, confidence_level: float) -> str:
    """:func:`surveys.export.estimates_csv` of :func:`stored_results`; with ``population_counts``, the
    weighted columns after (:func:`surveys.sample_design.weights_csv`), or with ``sample_design`` the design's."""
    results, weighting = _weighted_results(db, survey, confidence_level, method)
    if weighting is None:
        return export.estimates_csv(results)
    return weights_csv(export.estimate_rows(results), weighting)


def breakdown_json(
    db: sqlite_utils.Database,
    survey: Survey,
    by: str,
    method: str,
    confidence_level: float,
    exported_at: str | None = None,
    pair: tuple[str | None, str | None] = (None, None),
) -> dict:
    """:func:`surveys.export.breakdown_json` of :func:`stored_breakdown`, stamped ``exported_at`` (default: now),
    with the differences between the groups ``pair`` (both ``None``: the first two with answers, as on the results
    page); a ValueError naming a group that is not one (:func:`surveys.breakdowns.check_pair`)."""
    breakdown = stored_breakdown(db, survey, by, confidence_level, method)
    check_pair(breakdown, *pair)
    differences = group_differences(breakdown, confidence_level, *pair)
    return export.breakdown_json(breakdown, survey, exported_at or _stamp_now(), differences)


def breakdown_csv(db: sqlite_utils.Database, survey: Survey, by: str, method: str, confidence_level: float) -> str:
    """:func:`surveys.export.breakdown_csv` of :func:`stored_breakdown`."""
    return export.breakdown_csv(stored_breakdown(db, survey, by, confidence_level, method))


def model_json(
    db: sqlite_utils.Database,
    survey: Survey,
    choice: ModelChoice,
    confidence_level: float,
    exported_at: str | None = None,
) -> dict:
    """:func:`surveys.export.model_json` of :func:`stored_models`' model, stamped ``exported_at`` (default: now),
    with the weighted fit's ``weighted`` (:func:`surveys.weighted_model.weighted_model_json`) when the survey has
    ``population_counts``."""
    model, weighted = stored_models(db, survey, choice, confidence_level)
    return export.model_json(model, survey, exported_at or _stamp_now()) | weighted_model_json(weighted)


def model_csv(db: sqlite_utils.Database, survey: Survey, choice: ModelChoice, confidence_level: float) -> str:
    """:func:`surveys.export.model_rows` of :func:`stored_models`' model as CSV, with the weighted fit's columns
    (:func:`surveys.weighted_model.weighted_model_csv`) when the survey has ``population_counts``."""
    model, weighted = stored_models(db, survey, choice, confidence_level)
    return weighted_model_csv(export.MODEL_COLUMNS, export.model_rows(model), weighted)


def stored_predictor_json(
    db: sqlite_utils.Database,
    survey: Survey,
    choice: PredictorChoice,
    confidence_level: float,
    exported_at: str | None = None,
) -> dict:
    """:func:`surveys.predictor_model.predictor_json` of :func:`stored_predictor_model`, stamped ``exported_at``
    (default: now)."""
    result = stored_predictor_model(db, survey, choice, confidence_level)
    return predictor_json(result, survey, exported_at or _stamp_now())


def stored_predictor_csv(
    db: sqlite_utils.Database, survey: Survey, choice: PredictorChoice, confidence_level: float
) -> str:
    """:func:`surveys.predictor_model.predictor_csv` of :func:`stored_predictor_model`."""
    return predictor_csv(stored_predictor_model(db, survey, choice, confidence_level))


def correlation_json(
    db: sqlite_utils.Database,
    survey: Survey,
    pair: tuple[Question, Question],
    level: float,
    exported_at: str | None = None,
) -> dict:
    """:func:`surveys.correlation.correlation_json` of :func:`stored_correlation`, stamped ``exported_at`` (now)."""
    return pairs.correlation_json(stored_correlation(db, survey, pair, level), survey, exported_at or _stamp_now())


def correlation_csv(db: sqlite_utils.Database, survey: Survey, pair: tuple[Question, Question], level: float) -> str:
    """:func:`surveys.correlation.correlation_csv` of :func:`stored_correlation`."""
    return pairs.correlation_csv(stored_correlation(db, survey, pair, level))
