"""Exports: the estimates, break-downs and model (CSV, JSON).

Pure: takes the results, the survey, and plain values or iterators that
the web layer and the CLI read from the database (:mod:`web.gather`). The
estimates come from :mod:`surveys.results`; nothing here computes a statistic.

The noisy answers (the streamed responses CSV, its codebook and the R recipe)
are :mod:`surveys.noisy_answers`; their names stay importable from here.
"""

from __future__ import annotations

from collections.abc import Sequence

from analysis import SurveyEpsilon
from surveys.breakdowns import Breakdown, GroupDifference
from surveys.definition import Survey
from surveys.export_columns import ESTIMATE_COLUMNS
from surveys.kinds import kind_of_result
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
from surveys.result_types import SurveyResults
from surveys.tables import FORMULA_STARTS, finite, safe_csv, spreadsheet_safe

__all__ = [
    "BREAKDOWN_COLUMNS",
    "DIFFERENCE_COLUMNS",
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
    "difference_rows",
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

# --------------------------------------------------------------------------
# Estimates.


def estimate_rows(results: SurveyResults) -> list[dict]:
    """One row per randomized yes/no question and per option of a randomized ``select_one``; a randomized
    number's mean and estimated bin shares and a check-all-that-apply question's options and mean number
    ticked (``statistic`` and ``mechanism``: :func:`surveys.export_columns.number_rows`,
    :func:`surveys.export_columns.multiple_rows`).

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
    rows = [row for result in results.questions for row in kind_of_result(result).estimate_rows(result, level)]
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
            rows.extend({**identity, **row} for row in kind_of_result(result).breakdown_rows(result, level))
    return [{column: {**row, **excluded}[column] for column in BREAKDOWN_COLUMNS} for row in rows]


#: Keys of :func:`difference_rows`: the two groups, their raw estimates, the difference and its interval and sequence.
DIFFERENCE_COLUMNS = (
    *("question", "label", "first", "first_label", "second", "second_label", "first_estimate", "second_estimate"),
    *("difference", "std_err", "ci_low", "ci_high", "ci_method", "sequence_low", "sequence_high", "confidence_level"),
)


def difference_rows(differences: Sequence[GroupDifference]) -> list[dict]:
    """One row per compared question (:func:`surveys.breakdowns.group_differences`), keys :data:`DIFFERENCE_COLUMNS`.

    ``first_estimate`` and ``second_estimate`` are the raw (unclipped) estimates subtracted: a yes/no question's
    shares, a randomized number's means in its units; ``difference`` is their difference with its standard error,
    interval (``ci_method`` ``wald`` for shares; ``welch`` or ``normal`` for means, as
    :func:`analysis.numeric.numeric_difference` says) and anytime-valid sequence.
    """
    return [
        {
            "question": d.question.name,
            "label": d.question.label,
            "first": d.first.value,
            "first_label": d.first.label,
            "second": d.second.value,
            "second_label": d.second.label,
            "first_estimate": d.difference.first_raw,
            "second_estimate": d.difference.second_raw,
            "difference": d.difference.estimate,
            "std_err": d.difference.std_err,
            "ci_low": d.difference.ci.low,
            "ci_high": d.difference.ci.high,
            "ci_method": d.difference.ci.method,
            "sequence_low": None if d.sequence is None else d.sequence.low,
            "sequence_high": None if d.sequence is None else d.sequence.high,
            "confidence_level": d.difference.ci.confidence_level,
        }
        for d in differences
    ]


def breakdown_json(
    breakdown: Breakdown, survey: Survey, exported_at: str, differences: Sequence[GroupDifference] = ()
) -> dict:
    """The break-down with the survey's identity, ready for ``json.dumps`` (infinite values are ``null``), and
    the ``differences`` between two of its groups (:func:`difference_rows`)."""
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
        "differences": [{k: finite(v) for k, v in row.items()} for row in difference_rows(differences)],
    }


def breakdown_csv(breakdown: Breakdown) -> str:
    """:func:`breakdown_rows` as CSV text with the header :data:`BREAKDOWN_COLUMNS` (text cells made safe)."""
    return safe_csv(BREAKDOWN_COLUMNS, breakdown_rows(breakdown))
