"""Exports: the estimates, break-downs and model (CSV, JSON).

Pure: takes the results, the survey, and plain values or iterators that
the web layer and the CLI read from the database (:mod:`web.gather`). The
estimates come from :mod:`surveys.results`; nothing here computes a statistic.

The noisy answers (the streamed responses CSV, its codebook and the R recipe)
are :mod:`surveys.noisy_answers`; their names stay importable from here.
"""

from __future__ import annotations

from dataclasses import replace

from analysis import SurveyEpsilon
from surveys.breakdowns import Breakdown
from surveys.definition import Survey
from surveys.kinds import kind_of
from surveys.model_export import MODEL_COLUMNS, model_csv, model_json, model_rows
from surveys.noisy_answers import (
    CSV_BATCH_ROWS,
    EXCLUDED_DAY_NOTE,
    POPULATION_SIZE_NOTE,
    RESPONSE_COLUMN_NOTES,
    RESPONSE_COLUMNS,
    codebook,
    design_description,
    how_to_analyse,
    iter_responses_csv,
    responses_csv_name,
    responses_header,
)
from surveys.result_types import ChoiceResult, OptionResult, SurveyResults, YesNoResult
from surveys.tables import FORMULA_STARTS, finite, safe_csv, spreadsheet_safe

__all__ = [
    "BREAKDOWN_COLUMNS",
    "CSV_BATCH_ROWS",
    "ESTIMATE_COLUMNS",
    "EXCLUDED_DAY_NOTE",
    "FORMULA_STARTS",
    "MODEL_COLUMNS",
    "NO_ANSWER_GROUP",
    "POPULATION_SIZE_NOTE",
    "RESPONSE_COLUMNS",
    "RESPONSE_COLUMN_NOTES",
    "breakdown_csv",
    "breakdown_json",
    "breakdown_rows",
    "codebook",
    "design_description",
    "epsilon_json",
    "estimate_rows",
    "estimates_csv",
    "estimates_json",
    "how_to_analyse",
    "iter_responses_csv",
    "model_csv",
    "model_json",
    "model_rows",
    "responses_csv_name",
    "responses_header",
    "spreadsheet_safe",
]

#: Columns of :func:`estimate_rows`, in order (also the CSV header).
ESTIMATE_COLUMNS = (
    "question",
    "label",
    "option",
    "design",
    "t",
    "a",
    "b",
    "k",
    "counted_answer",
    "n",
    "yes_count",
    "observed_answer",
    "observed_rate",
    "counted_rate",
    "estimate_raw",
    "estimate_clipped",
    "estimate_projected",
    "std_err",
    "ci_low",
    "ci_high",
    "ci_method",
    "ci_side",
    "sequence_low",
    "sequence_high",
    "sequence_side",
    "confidence_level",
    "outside_design",
    "one_sided_bound",
    "outside_design_p_value",
    "epsilon",
    "flags",
    "error",
    "excluded_days",
    "excluded_responses",
    "group_n",
    "group_yes",
    "second_parameter",
    "second_estimate",
    "second_std_err",
    "second_ci_low",
    "second_ci_high",
    "direct_n",
    "direct_yes",
    "direct_estimate",
    "direct_std_err",
    "difference",
    "difference_std_err",
    "difference_ci_low",
    "difference_ci_high",
    "p_value_rr_higher",
    "population_size",
    "std_err_finite_population",
    "finite_population_low",
    "finite_population_high",
    "version_of_pooled",
)


# --------------------------------------------------------------------------
# Estimates.


def _design_columns(result: YesNoResult | ChoiceResult, option: str = "") -> dict:
    """``design, t, a, b, k, counted_answer`` for a row; the design parameters are empty when pooled.

    ``counted_answer`` names the stored answer whose count the triple ``t, a, b`` refers to: for a yes/no
    design the one that points to the trait (``"no"`` for crosswise with ``q < 1/2`` and Warner with ``p <
    1/2``: :attr:`analysis.BinaryDesign.trait_answer`), for an option the option itself. Each kind gives its
    own (``design_columns`` of :mod:`surveys.kinds`): none for two groups (see ``group_n`` and the codebook's
    ``p1, p2``) or a matrix option without a marginal (see the codebook).
    """
    return kind_of(result.question).design_columns(result, option)


def _with_counted_rate(row: dict) -> dict:
    """``row`` with ``counted_rate``: the share of ``counted_answer`` among the answers, ``observed_rate`` or
    ``1 -`` it when the triple refers to the stored "no" of a yes/no question (then ``estimate_raw =
    (counted_rate - a) / t``); empty without a triple."""
    rate, counted = row["observed_rate"], row["counted_answer"]
    if rate is None or counted is None:
        return row | {"counted_rate": None}
    return row | {"counted_rate": 1 - rate if counted == "no" and row["option"] == "" else rate}


def _interval_columns(ci, confidence_level: float) -> dict:
    """The interval's bounds, method and side: ``two-sided``, or ``upper`` (``ci_high`` is an upper bound,
    ``ci_low`` the least share, 0) and ``lower`` (``ci_low`` a lower bound) for a one-sided bound."""
    return {
        "ci_low": None if ci is None else ci.low,
        "ci_high": None if ci is None else ci.high,
        "ci_method": None if ci is None else ci.method,
        "ci_side": None if ci is None else ci.side,
        "confidence_level": confidence_level,
    }


def _sequence_columns(sequence) -> dict:
    """The anytime-valid confidence sequence's bounds and side (:class:`surveys.results.SequenceBounds`), empty
    when none."""
    return {
        "sequence_low": None if sequence is None else sequence.low,
        "sequence_high": None if sequence is None else sequence.high,
        "sequence_side": None if sequence is None else sequence.side,
    }


def _outside_columns(outside) -> dict:
    """The one-sided bound when the answers lie outside what the design allows (:func:`analysis.outside_design`)."""
    return {
        "outside_design": "" if outside is None else outside.side,
        "one_sided_bound": None if outside is None else outside.bound,
        "outside_design_p_value": None if outside is None else outside.p_value,
    }


def _two_group_columns(result: YesNoResult) -> dict:
    """The two groups' answers and the second parameter (γ or t) of a two-group design; empty otherwise.

    ``group_n`` and ``group_yes`` are ``"n1;n2"`` and ``"yes1;yes2"``; the interval is by profile likelihood.
    """
    figures = result.two_group
    if figures is None:
        return dict.fromkeys(_TWO_GROUP_COLUMNS)
    fit = figures.estimate
    return {
        "group_n": f"{fit.n[0]};{fit.n[1]}",
        "group_yes": f"{fit.yes[0]};{fit.yes[1]}",
        "second_parameter": figures.parameter,
        "second_estimate": figures.value,
        "second_std_err": figures.std_err,
        "second_ci_low": figures.ci.low,
        "second_ci_high": figures.ci.high,
    }


_TWO_GROUP_COLUMNS = ESTIMATE_COLUMNS[ESTIMATE_COLUMNS.index("group_n") : ESTIMATE_COLUMNS.index("direct_n")]
_CONTROL_COLUMNS = ESTIMATE_COLUMNS[ESTIMATE_COLUMNS.index("direct_n") : ESTIMATE_COLUMNS.index("population_size")]


def _control_columns(result: YesNoResult) -> dict:
    """The comparison with the direct-question control arm (:func:`analysis.compare_with_direct`); empty without."""
    control = result.control
    if control is None:
        return dict.fromkeys(_CONTROL_COLUMNS)
    return {
        "direct_n": control.direct_n,
        "direct_yes": control.direct_yes,
        "direct_estimate": control.direct_estimate,
        "direct_std_err": control.direct_std_err,
        "difference": control.difference,
        "difference_std_err": control.std_err,
        "difference_ci_low": control.ci.low,
        "difference_ci_high": control.ci.high,
        "p_value_rr_higher": control.p_value_rr_higher,
    }


def _finite_population_columns(result: YesNoResult) -> dict:
    """The finite-population standard error and Wald interval (:func:`surveys.results.with_finite_population`)."""
    figures = result.finite_population
    return {
        "std_err_finite_population": None if figures is None else figures.std_err,
        "finite_population_low": None if figures is None else figures.low,
        "finite_population_high": None if figures is None else figures.high,
    }


def _yes_no_row(result: YesNoResult, level: float) -> dict:
    return _with_counted_rate(
        {
            **_two_group_columns(result),
            **_control_columns(result),
            **_finite_population_columns(result),
            "version_of_pooled": None,
            "question": result.question.name,
            "label": result.question.label,
            "option": "",
            **_design_columns(result),
            "n": result.n,
            "yes_count": result.yes_count,
            "observed_answer": "yes",
            "observed_rate": result.observed_rate,
            "estimate_raw": result.estimate_raw,
            "estimate_clipped": result.estimate,
            "estimate_projected": None,
            "std_err": result.std_err,
            **_interval_columns(result.ci, level),
            **_sequence_columns(result.sequence),
            **_outside_columns(result.outside),
            "epsilon": result.epsilon,
            "flags": "; ".join(result.flags),
            "error": result.error or "",
        }
    )


def _two_group_version_rows(result: YesNoResult, level: float) -> list[dict]:
    """One row per version of a pooled two-group question: each version's own fit, which the pooled row combines.

    ``version_of_pooled`` numbers them as :attr:`surveys.results.YesNoResult.two_group_versions` orders them
    (the current design first when it has answers); ``design`` names the version's ``p1, p2``; the prevalence
    (``estimate_raw`` the moment estimate, ``estimate_clipped`` the reported one, its profile-likelihood
    interval), the groups' answers and the second parameter are that version's alone.
    """
    if not result.pooled or not result.two_group_versions:
        return []
    rows = []
    for index, figures in enumerate(result.two_group_versions, start=1):
        fit = figures.estimate
        version = replace(result, two_group=figures, control=None, finite_population=None)
        rows.append(
            _yes_no_row(version, level)
            | {
                "design": fit.design.label(),
                "n": sum(fit.n),
                "yes_count": sum(fit.yes),
                "observed_rate": sum(fit.yes) / sum(fit.n),
                "estimate_raw": fit.pi_moment,
                "estimate_clipped": fit.pi,
                "std_err": fit.pi_std_err,
                **_interval_columns(fit.confidence_interval("pi", level), level),
                **_sequence_columns(None),
                "flags": "",
                "version_of_pooled": index,
            }
        )
    return rows


def _yes_no_rows(result: YesNoResult, level: float) -> list[dict]:
    """A yes/no question's row, then (a pooled two-group question) one row per version."""
    return [_yes_no_row(result, level), *_two_group_version_rows(result, level)]


def _option_row(result: ChoiceResult, option: OptionResult, level: float) -> dict:
    return _with_counted_rate(
        {
            "question": result.question.name,
            "label": result.question.label,
            "option": option.choice.name,
            **_design_columns(result, option.choice.name),
            "n": result.n,
            "yes_count": option.count,
            "observed_answer": option.choice.name,
            "observed_rate": option.observed,
            "estimate_raw": option.estimate_raw,
            "estimate_clipped": option.estimate,
            "estimate_projected": option.estimate_projected,
            "std_err": option.std_err,
            **_interval_columns(option.ci, level),
            **_sequence_columns(option.sequence),
            **_outside_columns(option.outside),
            **dict.fromkeys(ESTIMATE_COLUMNS[ESTIMATE_COLUMNS.index("group_n") :]),  # yes/no only
            "epsilon": result.epsilon,
            "flags": "; ".join(result.flags),
            "error": result.error or "",
        }
    )


def _matrix_version_rows(result: ChoiceResult, level: float) -> list[dict]:
    """One row per version and option of a ``select_one`` pooled over several misclassification matrices:
    each version's own estimate, which the pooled rows combine.

    ``version_of_pooled`` numbers the versions as :attr:`surveys.results.ChoiceResult.matrix_versions` orders
    them (the current design first when it has answers); ``design`` names the version's matrix; ``yes_count`` is
    the option's count under it, ``estimate_raw`` its ``P^-1 lambda_hat``, ``estimate_clipped`` the projected
    share, with its standard error and Wald interval (:meth:`analysis.MisclassificationEstimate.confidence_intervals`).
    """
    if not result.pooled or len(result.matrix_versions) < 2:
        return []
    rows = []
    for index, version in enumerate(result.matrix_versions, start=1):
        intervals = version.confidence_intervals(level)
        for j, option in enumerate(result.options):
            rows.append(
                _option_row(result, option, level)
                | {
                    "design": version.design.label(),
                    "k": version.design.k,
                    "n": version.n,
                    "yes_count": version.counts[j],
                    "observed_rate": version.observed[j],
                    "estimate_raw": version.estimate_raw[j],
                    "estimate_clipped": version.estimate[j],
                    "estimate_projected": version.estimate_projected[j],
                    "std_err": version.std_err[j],
                    **_interval_columns(intervals[j], level),
                    **_sequence_columns(None),
                    **_outside_columns(None),
                    "flags": "",
                    "version_of_pooled": index,
                }
            )
    return rows


def _choice_rows(result: ChoiceResult, level: float) -> list[dict]:
    """A ``select_one``'s row per option, then (pooled over several matrices) one row per version and option."""
    return [*(_option_row(result, option, level) for option in result.options), *_matrix_version_rows(result, level)]


def estimate_rows(results: SurveyResults) -> list[dict]:
    """One row per randomized yes/no question and per option of a randomized ``select_one``.

    Keys are :data:`ESTIMATE_COLUMNS`, in that order. Values that do not
    apply are ``None`` (empty in CSV): ``option`` for yes/no is ``""``,
    ``k`` is set for options only, and with several designs ``t, a, b, k``
    are empty and ``design`` reads "pooled over N designs". ``t, a, b``
    refer to the count of ``counted_answer``: a yes/no design's trait
    answer (``"no"`` for crosswise with ``q < 1/2`` or Warner with ``p <
    1/2``) or the option itself, so ``estimate_raw = (counted_rate - a) / t``
    on every row with a triple. ``yes_count`` and ``observed_rate`` count
    ``observed_answer``: the stored "yes" of a yes/no question (for crosswise
    the stored "both the same"; never randomized there), the option of an
    option row. For an option, ``a`` and ``b`` are its marginal's forced-yes
    and forced-no probabilities (a matrix option without a marginal has none),
    ``estimate_clipped`` the option's own estimate, the one its interval
    holds, and ``estimate_projected`` the shares projected to sum to 1.
    Plain questions have no estimate and no row.
    Every row names the days an admin excluded from the estimates
    (``excluded_days``, ``;``-separated) and the responses they held.
    ``std_err`` is the standard error of the raw (unclipped) estimate;
    ``ci_low, ci_high`` the interval of ``ci_method`` (Wald for a pooled
    row, whatever the method asked for), ``ci_side`` ``two-sided``, or
    ``upper`` / ``lower`` for a one-sided bound (``ci_high`` an upper bound
    with ``ci_low`` 0, or ``ci_low`` a lower bound with ``ci_high`` 1: never a
    two-sided interval of width 0); ``sequence_low, sequence_high`` (and ``sequence_side``)
    the anytime-valid confidence sequence at the same level, valid however
    often the estimates are looked at (over several designs a union bound at
    ``1 - alpha/m`` each; :func:`surveys.results.sequence_bounds`). When the noisy rate lies outside
    what the design allows, ``outside_design`` is ``below`` or ``above``,
    ``one_sided_bound`` the one-sided bound (also in ``ci_low``/``ci_high``
    with ``ci_side``) and ``outside_design_p_value`` its chance
    (:func:`analysis.outside_design`). ``error`` says why a row's figures
    could not be computed (they are then empty). A two-group design (cheater
    detection, stochastic lie detector) has no single ``t, a, b``; its row
    gives each group's answers (``group_n``, ``group_yes``: ``"group 1;group 2"``)
    and the second parameter (``second_parameter`` ``gamma`` or ``t``, its
    estimate, standard error and profile-likelihood interval). With a
    direct-question control arm, ``direct_*`` are its answers and share and
    ``difference`` the randomized-response raw estimate minus it, with its
    standard error, Wald interval and the one-sided p-value that randomized
    response gives the higher share (:func:`analysis.compare_with_direct`).
    ``population_size`` is the survey's setting (empty without it); with it, a
    yes/no question under one design (not pooled, not two-group) has
    ``std_err_finite_population`` and the Wald interval
    ``finite_population_low, finite_population_high`` of a simple random
    sample without replacement of that many people
    (:func:`analysis.estimate_finite_population`), empty when the answers
    outnumber it. A two-group question pooled over several versions of its
    design is followed by one row per version (``version_of_pooled`` 1, 2, ...;
    empty on every other row): that version's prevalence, groups and second
    parameter, which the pooled row's ``group_*`` and ``second_*`` give for the
    current design only; likewise a ``select_one`` pooled over several
    misclassification matrices is followed by one row per version and option.
    """
    level = results.confidence_level
    excluded = {
        "excluded_days": ";".join(results.excluded.days),
        "excluded_responses": results.excluded.response_count,
        "population_size": results.survey.population_size,
    }
    rows = []
    for result in results.questions:
        if isinstance(result, YesNoResult):
            rows.extend(_yes_no_rows(result, level))
        elif isinstance(result, ChoiceResult):
            rows.extend(_choice_rows(result, level))
    return [{column: {**row, **excluded}[column] for column in ESTIMATE_COLUMNS} for row in rows]


def epsilon_json(epsilon: SurveyEpsilon) -> dict:
    """Both composition bounds, the tighter one (``best``) and which it is (``best_bound``)."""
    best_bound = "basic" if epsilon.best == epsilon.basic else "advanced"
    return {
        "basic": finite(epsilon.basic),
        "advanced": finite(epsilon.advanced),
        "delta": epsilon.delta,
        "best": finite(epsilon.best),
        "best_bound": best_bound,
    }


def estimates_json(results: SurveyResults, exported_at: str) -> dict:
    """The estimates with the survey's identity and privacy cost, ready for ``json.dumps``.

    ``exported_at`` is passed in (an ISO timestamp) so the function stays
    pure. Infinite epsilons are ``null``. ``response_count`` is the responses
    the estimates use; ``excluded`` names the days an admin left out (UTC)
    and how many stored responses that removed; ``set_aside`` the other
    days whose answers marked during a burst an admin set aside, and how
    many that removed (:mod:`surveys.floods`). ``epsilon_per_respondent``
    is the current design's cost (:func:`epsilon_json`);
    ``epsilon_per_respondent_answered`` the bound over every design that
    has answers (:func:`surveys.results.answered_epsilon`), ``null`` with none.
    """
    survey, epsilon = results.survey, results.epsilon
    return {
        "survey_id": survey.id,
        "title": survey.title,
        "version": survey.version,
        "response_count": results.response_count,
        "population_size": survey.population_size,
        "excluded": {"days": list(results.excluded.days), "response_count": results.excluded.response_count},
        "set_aside": {
            "days": list(results.excluded.set_aside_days),
            "response_count": results.excluded.set_aside_count,
        },
        "epsilon_per_respondent": epsilon_json(epsilon),
        "epsilon_per_respondent_answered": None
        if results.answered_epsilon is None
        else epsilon_json(results.answered_epsilon),
        "confidence_level": results.confidence_level,
        "method": results.method,
        "exported_at": exported_at,
        "rows": [{k: finite(v) for k, v in row.items()} for row in estimate_rows(results)],
    }


def estimates_csv(results: SurveyResults) -> str:
    """:func:`estimate_rows` as CSV text with the header :data:`ESTIMATE_COLUMNS`.

    Text cells (labels, from the survey file) go through :func:`spreadsheet_safe`.
    """
    return safe_csv(ESTIMATE_COLUMNS, estimate_rows(results))


# --------------------------------------------------------------------------
# Break-downs.

#: Columns of :func:`breakdown_rows`: the group (the answer to the plain question), then the estimate columns.
BREAKDOWN_COLUMNS = ("by", "group", "group_label", *ESTIMATE_COLUMNS)
#: The value of the ``group`` column for respondents who left the plain question unanswered.
NO_ANSWER_GROUP = ""


def breakdown_rows(breakdown: Breakdown) -> list[dict]:
    """One :func:`estimate_rows` row per group, randomized question and option, in the page's order.

    Keys are :data:`BREAKDOWN_COLUMNS`: ``by`` names the plain question,
    ``group`` is its stored answer (:data:`NO_ANSWER_GROUP` for "No
    answer") and ``group_label`` the option's label; the other columns mean
    what they mean in :func:`estimate_rows`, computed within the group.
    """
    level = breakdown.confidence_level
    excluded = {
        "excluded_days": ";".join(breakdown.excluded.days),
        "excluded_responses": breakdown.excluded.response_count,
        "population_size": None,  # the size of each group's population is not known
    }
    rows = []
    for group in breakdown.groups:
        identity = {
            "by": breakdown.by.name,
            "group": NO_ANSWER_GROUP if group.value is None else group.value,
            "group_label": group.label,
        }
        for result in group.questions:
            if isinstance(result, YesNoResult):
                rows.extend({**identity, **row} for row in _yes_no_rows(result, level))
            elif isinstance(result, ChoiceResult):
                rows.extend({**identity, **_option_row(result, option, level)} for option in result.options)
    return [{column: {**row, **excluded}[column] for column in BREAKDOWN_COLUMNS} for row in rows]


def breakdown_json(breakdown: Breakdown, survey: Survey, exported_at: str) -> dict:
    """The break-down with the survey's identity, ready for ``json.dumps`` (infinite values are ``null``)."""
    return {
        "survey_id": survey.id,
        "title": survey.title,
        "version": survey.version,
        "by": breakdown.by.name,
        "by_label": breakdown.by.label,
        "groups": [
            {"group": NO_ANSWER_GROUP if g.value is None else g.value, "label": g.label} for g in breakdown.groups
        ],
        "excluded": {"days": list(breakdown.excluded.days), "response_count": breakdown.excluded.response_count},
        "confidence_level": breakdown.confidence_level,
        "method": breakdown.method,
        "exported_at": exported_at,
        "rows": [{k: finite(v) for k, v in row.items()} for row in breakdown_rows(breakdown)],
    }


def breakdown_csv(breakdown: Breakdown) -> str:
    """:func:`breakdown_rows` as CSV text with the header :data:`BREAKDOWN_COLUMNS` (text cells made safe)."""
    return safe_csv(BREAKDOWN_COLUMNS, breakdown_rows(breakdown))
