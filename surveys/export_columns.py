"""The estimate table's columns and the row builders the question kinds export their results with.

Each kind module (:mod:`surveys.kinds`) has ``estimate_rows`` and ``breakdown_rows`` made of these and of its own
``design_columns``; :mod:`surveys.export` asks each result's kind for its rows and adds the survey's columns
(excluded days, population size). Nothing here decides a question's kind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from surveys.result_types import ChoiceResult, MultipleResult, NumberResult, OptionResult, YesNoResult

#: Columns of :func:`surveys.export.estimate_rows`, in order (also the CSV header).
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
    "statistic",
    "mechanism",
)

#: The columns only the rows of numbers and check-all-that-apply questions fill (:func:`number_rows`,
#: :func:`multiple_rows`): which figure the row holds, and the number's mechanism.
NUMBER_COLUMNS = ("statistic", "mechanism")


#: A kind's ``design_columns(result, option)``: ``design, t, a, b, k, counted_answer`` of one row.
DesignColumns = Callable[[YesNoResult | ChoiceResult, str], dict]


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


def yes_no_row(result: YesNoResult, level: float, design_columns: DesignColumns) -> dict:
    """A yes/no question's estimate row (keys :data:`ESTIMATE_COLUMNS` but the excluded days), its design
    columns from its kind's ``design_columns``."""
    return _with_counted_rate(
        {
            **_two_group_columns(result),
            **_control_columns(result),
            **_finite_population_columns(result),
            "version_of_pooled": None,
            **dict.fromkeys(NUMBER_COLUMNS),
            "question": result.question.name,
            "label": result.question.label,
            "option": "",
            **design_columns(result, ""),
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


def two_group_version_rows(result: YesNoResult, level: float, design_columns: DesignColumns) -> list[dict]:
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
            yes_no_row(version, level, design_columns)
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


def option_row(result: ChoiceResult, option: OptionResult, level: float, design_columns: DesignColumns) -> dict:
    """One option's estimate row (keys :data:`ESTIMATE_COLUMNS` but the excluded days), its design columns from
    its kind's ``design_columns``."""
    return _with_counted_rate(
        {
            "question": result.question.name,
            "label": result.question.label,
            "option": option.choice.name,
            **design_columns(result, option.choice.name),
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


def matrix_version_rows(result: ChoiceResult, level: float, design_columns: DesignColumns) -> list[dict]:
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
                option_row(result, option, level, design_columns)
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


# --------------------------------------------------------------------------
# Numbers and check-all-that-apply.

#: The columns a number's or a check-all option's row leaves empty (yes/no and choice figures).
_EMPTY_FOR_NUMBERS = (
    *("design", "t", "a", "b", "k", "counted_answer", "yes_count", "observed_answer", "observed_rate"),
    *("estimate_projected", "outside_design", "one_sided_bound", "outside_design_p_value"),
    *ESTIMATE_COLUMNS[ESTIMATE_COLUMNS.index("group_n") :],
)


def _number_row(result: NumberResult | MultipleResult, statistic: str, option: str, level: float) -> dict:
    """The columns every row of a number or a check-all question shares, the figures left empty."""
    return {
        **dict.fromkeys(_EMPTY_FOR_NUMBERS),
        **_interval_columns(None, level),
        **_sequence_columns(None),
        "outside_design": "",
        "question": result.question.name,
        "label": result.question.label,
        "option": option,
        "design": result.design_label,
        "n": result.n,
        "counted_rate": None,
        "estimate_raw": None,
        "estimate_clipped": None,
        "std_err": None,
        "epsilon": result.epsilon,
        "flags": "; ".join(result.flags),
        "error": result.error or "",
        "statistic": statistic,
    }


def number_rows(result: NumberResult, level: float) -> list[dict]:
    """A randomized number's rows (keys :data:`ESTIMATE_COLUMNS` but the excluded days), in the question's units.

    ``statistic = mean``: ``estimate_raw`` the unbiased mean, ``estimate_clipped`` it kept within the range,
    ``std_err``, the interval (``ci_method`` ``t`` or ``wilson``) and the anytime-valid sequence; for the one-bit
    design ``yes_count`` and ``observed_rate`` are the ones sent and their share (``observed_answer = 1``).
    Then ``statistic = bin_share``, one row per bin (``option`` its label) where the distribution is estimated:
    the share and its band in ``ci_low, ci_high`` (``ci_method = band``). ``mechanism`` is ``laplace`` or
    ``bounded``. A plain number has no rows, as every plain question.
    """
    if result.question.design is None:
        return []
    mean = {
        **_number_row(result, "mean", "", level),
        "mechanism": result.mechanism,
        "estimate_raw": result.mean_raw,
        "estimate_clipped": result.mean,
        "std_err": result.std_err,
        "ci_low": result.ci_low,
        "ci_high": result.ci_high,
        "ci_method": result.ci_method or None,
        "ci_side": result.ci_side if result.ci_low is not None else None,
        **_sequence_columns(result.sequence),
    }
    if result.mechanism == "bounded" and result.n:
        ones = result.sums[1]
        mean |= {"yes_count": ones, "observed_answer": "1", "observed_rate": ones / result.n}
    bins = [
        {
            **_number_row(result, "bin_share", share.label, level),
            "mechanism": result.mechanism,
            "estimate_clipped": share.share,
            "ci_low": share.low,
            "ci_high": share.high,
            "ci_method": "band",
            "ci_side": "two-sided",
        }
        for share in result.bins
        if share.share is not None
    ]
    return [mean, *bins]


def multiple_rows(result: MultipleResult, level: float) -> list[dict]:
    """A randomized check-all-that-apply question's rows (keys :data:`ESTIMATE_COLUMNS` but the excluded days).

    ``statistic = option_share``, one row per option: its bit is a forced-response design with ``t = p - q``,
    ``a = q``, ``b = 1 - p`` on the count of ``counted_answer = 1``, so ``estimate_raw = (counted_rate - a) / t``
    as on every row with a triple; ``estimate_clipped`` within ``[0, 1]``, ``std_err`` and the Wilson interval.
    Then ``statistic = ticked_count``: the mean number of options ticked (``option`` empty), from ``0`` to the
    number of options, with its standard error and Wald interval. A plain question has no rows.
    """
    design = result.question.design
    if design is None:
        return []
    triple = {"t": float(design.p - design.q), "a": float(design.q), "b": float(1 - design.p)}
    rows = [
        {
            **_number_row(result, "option_share", option.choice.name, level),
            **triple,
            "counted_answer": "1",
            "yes_count": option.count if result.n else None,
            "observed_answer": "1",
            "observed_rate": option.observed,
            "counted_rate": option.observed,
            "estimate_raw": option.estimate_raw,
            "estimate_clipped": option.estimate,
            "std_err": option.std_err,
            **_interval_columns(option.ci, level),
        }
        for option in result.options
    ]
    ticked = {
        **_number_row(result, "ticked_count", "", level),
        "estimate_clipped": result.ticked_mean,
        "std_err": result.ticked_std_err,
        "ci_low": result.ticked_low,
        "ci_high": result.ticked_high,
        "ci_method": "wald" if result.ticked_low is not None else None,
        "ci_side": "two-sided" if result.ticked_low is not None else None,
    }
    return [*rows, ticked]
