"""Exports: the estimates (CSV, JSON), the noisy answers (streamed CSV), a codebook.

Pure: takes the results, the survey, and plain values or iterators that
the web layer and the CLI read from the database (:mod:`web.gather`). The
estimates come from :mod:`surveys.results`; nothing here computes a statistic.

The noisy answers are what is stored: a respondent's true answers exist
nowhere. The codebook gives every design the answers were randomized with,
so an analyst can debias them with other software (R's RRreg, or the
one-line estimator given for each column).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from fractions import Fraction

from analysis import BinaryDesign, ForcedResponseDesign, MultipleChoiceDesign, SurveyEpsilon
from analysis.misclassification import MisclassificationDesign
from surveys.arms import GROUPS, group_yes_probabilities, is_two_group
from surveys.breakdowns import Breakdown
from surveys.definition import Survey
from surveys.design_contract import design_from_record
from surveys.models import ModelResult
from surveys.results import ChoiceResult, OptionResult, SurveyResults, YesNoResult

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

#: The columns of the responses CSV before one column per question.
RESPONSE_COLUMNS = ("response_id", "survey_version", "design_id", "randomized_on", "arm", "day")

RESPONSE_COLUMN_NOTES = {
    "response_id": "Random id of the response; carries no order or time.",
    "survey_version": "Version of the survey file the response was given to.",
    "design_id": "Id of the design record the answers were randomized with (see designs).",
    "randomized_on": "device (randomized in the browser) or server (JavaScript off).",
    "arm": (
        "The respondent's random arm, drawn before and independently of any answer: 1 or 2, the group of a "
        "two-group design (cheater detection, stochastic lie detector: the group's p1 or p2 applies; RRreg's "
        "group = 1 or 2), direct (the direct-question control arm: asked directly, nothing randomized), or empty "
        "(the survey has neither)."
    ),
    "day": "Day the response was stored, YYYY-MM-DD.",
}

#: What an excluded day means for the responses CSV (codebook).
EXCLUDED_DAY_NOTE = (
    "Excluded by an admin from the estimates on the results page and in the estimates exports; "
    "the responses of this day are still rows of the responses CSV (column day)."
)

#: What the survey file's ``population_size`` setting means (codebook).
POPULATION_SIZE_NOTE = (
    "The survey file's population_size: the number of people the respondents were drawn from (null: not given). "
    "With it, each yes/no question answered under one design (not pooled, not two-group) has, in the estimates "
    "exports, std_err_finite_population and finite_population_low/high: the unbiased variance of a simple random "
    "sample without replacement of n of these N people (Chaudhuri 2011; RRTCS's estimator with N given), "
    "(1 - n/N) s_r^2 / n + sum_i r_i (r_i - 1) / (N n) with r_i = (z_i - a) / t, and its Wald interval."
)

#: First characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

#: Rows fetched from SQLite, and written, per chunk of :func:`iter_responses_csv`
#: (the batch size :mod:`web.gather` reads with).
CSV_BATCH_ROWS = 1000


# --------------------------------------------------------------------------
# Estimates.


def _design_columns(result: YesNoResult | ChoiceResult, option: str = "") -> dict:
    """``design, t, a, b, k, counted_answer`` for a row; the design parameters are empty when pooled.

    ``counted_answer`` names the stored answer whose count the triple ``t, a, b`` refers to: for a yes/no
    design the one that points to the trait (``"no"`` for crosswise with ``q < 1/2`` and Warner with ``p <
    1/2``: :attr:`analysis.BinaryDesign.trait_answer`), for an option the option itself.
    """
    row = {"design": result.design_label, "t": None, "a": None, "b": None, "k": None, "counted_answer": None}
    if result.pooled:
        return row
    design = result.per_design[0].design if result.per_design else result.question.design
    if is_two_group(design):
        return row  # two groups, two sets of probabilities: see group_n and the codebook's p1, p2
    if isinstance(design, MisclassificationDesign):
        marginal = design.option_marginal(result.question.choice_names.index(option)) if option else None
        if marginal is None:
            return row | {"k": design.k}  # a whole matrix: see the codebook
        row.update(zip(("t", "a", "b"), marginal.floats()), k=design.k, counted_answer=option)
    elif isinstance(design, BinaryDesign):
        # Another yes/no design: its equivalent forced-response design on the count of its trait answer.
        row.update(zip(("t", "a", "b"), design.floats()), counted_answer=design.trait_answer)
    else:
        # Each option alone is a forced-response design: a = (1 - t)/k, b = 1 - t - a.
        row.update(zip(("t", "a", "b"), design.option_marginal().floats()), k=design.k, counted_answer=option)
    return row


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


def _finite(value: object) -> object:
    """JSON has no infinity: an unbounded epsilon (a design with a = 0) becomes ``None``."""
    return None if isinstance(value, float) and not math.isfinite(value) else value


def epsilon_json(epsilon: SurveyEpsilon) -> dict:
    """Both composition bounds, the tighter one (``best``) and which it is (``best_bound``)."""
    best_bound = "basic" if epsilon.best == epsilon.basic else "advanced"
    return {
        "basic": _finite(epsilon.basic),
        "advanced": _finite(epsilon.advanced),
        "delta": epsilon.delta,
        "best": _finite(epsilon.best),
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
        "rows": [{k: _finite(v) for k, v in row.items()} for row in estimate_rows(results)],
    }


def spreadsheet_safe(value: object) -> object:
    """A text cell that a spreadsheet would run as a formula, prefixed with ``'``.

    Only text is changed: numbers (``-0.05``) stay numbers. The quote makes
    Excel, LibreOffice and Google Sheets show the cell as text (OWASP's advice
    on CSV injection).
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def estimates_csv(results: SurveyResults) -> str:
    """:func:`estimate_rows` as CSV text with the header :data:`ESTIMATE_COLUMNS`.

    Text cells (labels, from the survey file) go through :func:`spreadsheet_safe`.
    """
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=ESTIMATE_COLUMNS)
    writer.writeheader()
    writer.writerows({k: spreadsheet_safe(v) for k, v in row.items()} for row in estimate_rows(results))
    return buffer.getvalue()


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
        "rows": [{k: _finite(v) for k, v in row.items()} for row in breakdown_rows(breakdown)],
    }


def breakdown_csv(breakdown: Breakdown) -> str:
    """:func:`breakdown_rows` as CSV text with the header :data:`BREAKDOWN_COLUMNS` (text cells made safe)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=BREAKDOWN_COLUMNS)
    writer.writeheader()
    writer.writerows({k: spreadsheet_safe(v) for k, v in row.items()} for row in breakdown_rows(breakdown))
    return buffer.getvalue()


# --------------------------------------------------------------------------
# The noisy answers.


def responses_csv_name(survey: Survey) -> str:
    """The responses CSV's file name, as downloaded and as the R script reads it."""
    return f"{survey.id}-responses.csv"


def responses_header(survey: Survey) -> list[str]:
    return [*RESPONSE_COLUMNS, *(q.name for q in survey.questions)]


def iter_responses_csv(
    survey: Survey, ready_chunks: Iterable[str], other_row_batches: Iterable[Sequence[Sequence]]
) -> Iterator[str]:
    """Every stored response of ``survey`` as CSV, in chunks of rows.

    The header is :data:`RESPONSE_COLUMNS` then one column per question of
    the current definition (empty where a response has no answer, for
    example one given to an older version). ``ready_chunks`` are the
    responses stored with exactly these columns, as CSV text SQLite joined
    from the stored answer lines (choice names never need CSV quoting;
    :func:`storage.queries.response_line_chunks`); they pass through as they
    are. ``other_row_batches`` are lists of rows of the rest (older designs:
    the :data:`RESPONSE_COLUMNS` then the answers, extracted from JSON by
    SQLite; :func:`storage.queries.response_row_batches`), written by
    :mod:`csv` one chunk per batch. Both are consumed lazily, so memory stays
    constant however many responses there are; storage orders each part by
    the random response id, so the order reveals nothing about when a
    response came in.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(responses_header(survey))
    yield buffer.getvalue()
    yield from ready_chunks
    yield from _written_rows(other_row_batches)


def _written_rows(row_batches: Iterable[Sequence[Sequence]]) -> Iterator[str]:
    """Chunks of rows written by :mod:`csv` (older designs: answers from JSON), one per batch."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for rows in row_batches:
        writer.writerows(rows)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate(0)


# --------------------------------------------------------------------------
# Codebook.


def _r_vector(values) -> str:
    return "c(" + ", ".join(f"{float(v):.10g}" for v in values) + ")"


#: RRreg's ``model`` for each one-parameter yes/no design, and its ``p`` vector from the design
#: (RRreg's documentation of ``RRuni``: Warner p; UQTknown c(p, q); Kuk c(k1, k2); Mangat p; Crosswise and
#: Triangular q, with 1 = "same" and 1 = "yes to at least one", our stored "yes").
RRREG_MODELS = {
    "warner": ("Warner", lambda d: (d.p,)),
    "unrelated_question": ("UQTknown", lambda d: (d.p, d.q)),
    "kuk": ("Kuk", lambda d: (d.k1, d.k2)),
    "mangat": ("Mangat", lambda d: (d.p,)),
    "crosswise": ("Crosswise", lambda d: (d.q,)),
    "triangular": ("Triangular", lambda d: (d.q,)),
}


def _rrreg_p(design: BinaryDesign) -> str:
    """RRreg's ``p`` for ``design``: one number or ``c(...)``."""
    values = RRREG_MODELS[design.kind][1](design)
    return f"{float(values[0]):.10g}" if len(values) == 1 else _r_vector(values)


def _binary_description(design: BinaryDesign) -> dict:
    """:func:`design_description` of a one-parameter yes/no design other than forced response."""
    theta1, theta0 = design.yes_probabilities()
    parameters = {k: v for k, v in design.to_dict().items() if k not in ("kind", "theta1", "theta0")}
    return {
        "kind": design.kind,
        "label": design.label(),
        **parameters,
        **{f"{k}_float": float(Fraction(v)) for k, v in parameters.items()},
        "theta1": str(theta1),
        "theta0": str(theta0),
        "trait_answer": design.trait_answer,
        "randomized_by_software": design.randomized_by_software,
        "rrreg_model": RRREG_MODELS[design.kind][0],
        "rrreg_p": _rrreg_p(design),
    }


def _two_group_description(design) -> dict:
    """:func:`design_description` of a two-group design: p1, p2, each group's yes probabilities, RRreg's call."""
    rrreg = design.rrreg()
    groups = {}
    for group in GROUPS:
        theta1, theta0 = group_yes_probabilities(design, group)
        groups[group] = {"theta1": str(theta1), "theta0": str(theta0)}
    return {
        "kind": design.kind,
        "label": design.label(),
        "p1": str(design.p1),
        "p2": str(design.p2),
        "p1_float": float(design.p1),
        "p2_float": float(design.p2),
        "groups": groups,
        "second_parameter": design.second_parameter,
        "randomized_by_software": True,
        "rrreg_model": rrreg["model"],
        "rrreg_p": _r_vector(Fraction(p) for p in rrreg["p"]),
    }


def design_description(design: BinaryDesign | MultipleChoiceDesign | None) -> dict | None:
    """A design's probabilities as exact fractions (strings) and as floats; RRreg's model and ``p`` for the
    one-parameter yes/no designs other than forced response and the two-group designs."""
    if design is None:
        return None
    if is_two_group(design):
        return _two_group_description(design)
    if isinstance(design, MisclassificationDesign):
        return {
            "kind": design.kind,
            "label": design.label(),
            "k": design.k,
            "matrix": [[str(p) for p in row] for row in design.matrix],
            "matrix_float": design.floats().tolist(),
            "rrreg_model": design.rrreg_model,
            "rrreg_p": "matrix("
            + _r_vector(p for row in design.matrix for p in row)
            + f", nrow = {design.k}, byrow = TRUE)",
        }
    if isinstance(design, BinaryDesign) and not isinstance(design, ForcedResponseDesign):
        return _binary_description(design)
    if isinstance(design, ForcedResponseDesign):
        return {
            "kind": design.kind,
            "label": design.label(),
            "t": str(design.t),
            "a": str(design.a),
            "b": str(design.b),
            "t_float": float(design.t),
            "a_float": float(design.a),
            "b_float": float(design.b),
        }
    share = design.uniform_share
    return {
        "kind": design.kind,
        "label": design.label(),
        "k": design.k,
        "t": str(design.t),
        "t_float": float(design.t),
        "forced_share": str(share),
        "forced_share_float": float(share),
    }


def how_to_analyse(question, design) -> str:
    """How to debias the column of ``question`` stored under ``design`` (codebook, statistics-file notes)."""
    name = question.name
    if design is None:
        return "Not randomized: stored as given; tabulate it directly. It has no privacy protection."
    if isinstance(design, ForcedResponseDesign):
        t, a, b = design.floats()
        return (
            f"Forced response: truthful with t={design.t}, forced yes with a={design.a}, forced no "
            f"with b={design.b}. Code y = 1 for yes, 0 for no, and drop empty cells. The share of "
            f"true yeses is pi_hat = (mean(y) - a) / t = (mean(y) - {a:.10g}) / {t:.10g} "
            f"(clip to [0, 1] to report). In R: RRreg::RRuni(response = {name}01, data = d, "
            f'model = "FR", p = {_r_vector((b, a))}) with d${name}01 <- as.integer(d${name} == "yes"); '
            "RRreg's p lists the probability of being forced to answer category 0, 1, ... (here "
            "0 = no, 1 = yes), so p = c(b, a), and the yes share is the row pi1. "
            "Rows with another design_id may have other t, a, b (see designs): estimate each "
            "design separately and pool."
        )
    if isinstance(design, BinaryDesign):
        return _how_to_analyse_binary(name, design)
    if is_two_group(design):
        return _how_to_analyse_two_group(name, design)
    if isinstance(design, MisclassificationDesign):
        p = "matrix(" + _r_vector(v for row in design.matrix for v in row) + f", nrow = {design.k}, byrow = TRUE)"
        return (
            "Misclassification matrix: the report j is drawn with P[j, i] for the true option i (rows: reported "
            "option, columns: true option, in the order of the choices; see design.matrix). With lambda_hat the "
            "observed shares, pi_hat = P^-1 lambda_hat and Cov(pi_hat) = P^-1 (diag(lambda) - lambda lambda') P^-T / n "
            "(van den Hout and van der Heijden 2002). In R: code the options 0..k-1 in order and call "
            f'RRreg::RRuni(response = {name}_code, data = d, model = "custom", p = {p}).'
        )
    k, share = design.k, design.uniform_share
    return (
        f"Randomized choice: the true option with t={design.t}, otherwise one of the k={k} options "
        f"uniformly, so each option is forced with (1 - t)/k = {share}. The share of option j is "
        f"pi_hat_j = (share_j - {float(share):.10g}) / {float(design.t):.10g}. In R: code the options "
        f"0..{k - 1} in the order listed and call RRreg::RRuni(response = {name}_code, data = d, "
        f'model = "FR", p = {_r_vector([share] * k)}); the rows pi0..pi{k - 1} are the shares. '
        "Rows with another design_id may have another t or other options (see designs)."
    )


def _how_to_analyse_binary(name: str, design: BinaryDesign) -> str:
    """The codebook's note for a one-parameter yes/no design other than forced response."""
    theta1, theta0 = (float(p) for p in design.yes_probabilities())
    coding = {
        "crosswise": '"yes" means both answers the same (both yes or both no), "no" exactly one yes. ',
        "triangular": '"yes" means yes to at least one statement, "no" no to both. ',
    }.get(design.kind, "")
    stored = (
        "stored as given (the respondent combined the two answers)"
        if not design.randomized_by_software
        else ("randomized by software")
    )
    return (
        f"{design.label()[0].upper()}{design.label()[1:]}: {stored}. {coding}"
        f"P(yes | trait) = {theta1:.10g}, P(yes | no trait) = {theta0:.10g}. Code y = 1 for yes, 0 for no, "
        f"and drop empty cells. The share with the trait is pi_hat = (mean(y) - {theta0:.10g}) / "
        f"({theta1:.10g} - {theta0:.10g}) (clip to [0, 1] to report); its standard error "
        f"sqrt(lambda (1 - lambda) / n) / |{theta1:.10g} - {theta0:.10g}| (RRreg divides by n - 1). In R: "
        f'RRreg::RRuni(response = {name}01, data = d, model = "{RRREG_MODELS[design.kind][0]}", '
        f'p = {_rrreg_p(design)}) with d${name}01 <- as.integer(d${name} == "yes"). '
        "Rows with another design_id may have another design (see designs): estimate each separately and pool."
    )


def _how_to_analyse_two_group(name: str, design) -> str:
    """The codebook's note for the cheater detection model and the stochastic lie detector."""
    rrreg = design.rrreg()
    p = _r_vector(Fraction(v) for v in rrreg["p"])
    second = {
        "gamma": "the share of cheaters gamma (who say no whatever the randomizer says; pi is then the share of "
        "honest carriers, a lower bound for the prevalence)",
        "t": "the honesty rate t of carriers",
    }[design.second_parameter]
    return (
        f"{design.label()[0].upper()}{design.label()[1:]}: randomized by software in two random groups (column arm: "
        f"1 or 2; rows with arm direct are the control arm, asked directly). Code y = 1 for yes, 0 for no, drop "
        f"empty cells and the direct arm, and estimate the prevalence pi and {second} from the two groups' yes "
        f"rates (Clark and Desharnais 1998; Moshagen, Musch and Erdfelder 2012). In R: "
        f'RRreg::RRuni(response = {name}01, data = d, model = "{rrreg["model"]}", p = {p}, group = d$arm) '
        f'with d <- subset(d, arm %in% c("1", "2")), d$arm <- as.integer(d$arm) and '
        f'd${name}01 <- as.integer(d${name} == "yes").'
    )


def _stored_question_design(design_id: str, version: int, record: dict, current_id: str) -> dict:
    design = None if record.get("design") is None else design_from_record(record["design"])
    return {
        "design_id": design_id,
        "survey_version": version,
        "current": design_id == current_id,
        "type": record.get("type"),
        "choices": list(record.get("choices", [])),
        "design": design_description(design),
    }


def codebook(
    survey: Survey, design_records: Iterable[tuple[str, int, dict]], excluded_days: Iterable[tuple[str, int]]
) -> dict:
    """What each column of the responses CSV means, and how to debias it.

    ``design_records`` are the survey's stored design records
    ``(design id, survey version, {question: record})``
    (:func:`storage.queries.design_records`); ``excluded_days`` the days an
    admin excluded, with their responses, ``(day, responses)``
    (:func:`storage.responses.excluded_days`).

    Returns a JSON-able dict: the survey's id, title and version, the current
    design id, and ``columns``: one entry per CSV column. A question column
    has its label, type, choices, whether it is randomized, its current
    design and every stored design record for it (``stored_designs``, by
    ``design_id``, the value in the CSV's ``design_id`` column), so that rows
    collected under an old design can be debiased with that design.
    ``excluded_days`` lists the days an admin left out of the estimates,
    with their responses: the CSV keeps those rows (see its ``day`` column).
    ``population_size`` gives the survey file's setting and what it changes
    (:data:`POPULATION_SIZE_NOTE`).
    """
    current_id = survey.design_fingerprint()
    records = list(design_records)
    columns = [{"name": name, "label": RESPONSE_COLUMN_NOTES[name], "type": "text"} for name in RESPONSE_COLUMNS]
    for question in survey.questions:
        columns.append(
            {
                "name": question.name,
                "label": question.label,
                "type": question.type,
                "choices": [{"name": c.name, "label": c.label} for c in question.choices],
                "randomized": question.is_randomized,
                **({"innocuous": question.innocuous} if question.innocuous else {}),
                "design_id": current_id,
                "design": design_description(question.design),
                "stored_designs": [
                    _stored_question_design(design_id, version, questions[question.name], current_id)
                    for design_id, version, questions in records
                    if question.name in questions
                ],
                "how_to_analyse": how_to_analyse(question, question.design),
            }
        )
    return {
        "survey_id": survey.id,
        "title": survey.title,
        "version": survey.version,
        "current_design_id": current_id,
        "population_size": {"value": survey.population_size, "note": POPULATION_SIZE_NOTE},
        "columns": columns,
        "excluded_days": [{"day": day, "responses": count, "note": EXCLUDED_DAY_NOTE} for day, count in excluded_days],
    }


# --------------------------------------------------------------------------
# The model.

#: Columns of :func:`model_rows`: one row per coefficient, likelihood-ratio test and predicted prevalence.
MODEL_COLUMNS = (
    "kind",
    "name",
    "estimate",
    "std_err",
    "odds_ratio",
    "low",
    "high",
    "statistic",
    "df",
    "p_value",
    "confidence_level",
)


def model_rows(result: ModelResult) -> list[dict]:
    """The fit as rows: ``coefficient`` (``low``/``high`` bound the odds ratio), ``lr_test`` (one per
    predictor, then ``model``), ``prevalence`` (a group's predicted share of true yes, named by its levels)."""
    fit = result.fit
    if fit is None:
        return []
    level = fit.confidence_level
    rows = [
        {"kind": "coefficient", "name": c.name, "estimate": c.estimate, "std_err": c.std_err,
         "odds_ratio": c.odds_ratio, "low": c.odds_ratio_low, "high": c.odds_ratio_high, "p_value": c.p_value,
         "confidence_level": level}
        for c in fit.coefficients
    ]  # fmt: skip
    rows += [
        {"kind": "lr_test", "name": t.name, "statistic": t.statistic, "df": t.df, "p_value": t.p_value}
        for t in (*fit.term_tests, fit.model_test)
    ]
    rows += [
        {"kind": "prevalence", "name": "; ".join(f"{q}: {level_label}" for q, level_label in g.levels),
         "estimate": g.prevalence.estimate, "std_err": g.prevalence.std_err, "low": g.prevalence.low,
         "high": g.prevalence.high, "confidence_level": level}
        for g in result.groups
    ]  # fmt: skip
    return [{column: row.get(column, "") for column in MODEL_COLUMNS} for row in rows]


def model_json(result: ModelResult, survey: Survey, exported_at: str) -> dict:
    """The model with the survey's identity, its choice, ``n`` and ``left_out``; ``message`` (and no rows)
    when there is no fit."""
    return {
        "survey_id": survey.id,
        "version": survey.version,
        "outcome": result.outcome.name,
        "predictors": [
            {"question": t.question.name, "reference": t.reference, "levels": list(t.levels)} for t in result.terms
        ],
        "n": result.n,
        "left_out": result.left_out,
        "message": result.message,
        "log_likelihood": None if result.fit is None else result.fit.log_likelihood,
        "exported_at": exported_at,
        "rows": [{k: (None if v == "" else _finite(v)) for k, v in row.items()} for row in model_rows(result)],
    }


def model_csv(result: ModelResult) -> str:
    """:func:`model_rows` as CSV with the header :data:`MODEL_COLUMNS`; text cells made spreadsheet-safe."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=MODEL_COLUMNS)
    writer.writeheader()
    writer.writerows({k: spreadsheet_safe(v) for k, v in row.items()} for row in model_rows(result))
    return buffer.getvalue()
