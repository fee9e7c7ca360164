"""The yes/no kind with one arm: a randomized yes/no question under a one-group design (forced response,
Warner, unrelated question, crosswise...), its answers under one design or several pooled.

Also home of what every yes/no kind shares: a result without figures and the direct-question control arm.
"""

from __future__ import annotations

import math
from dataclasses import replace

from analysis import (
    FinitePopulationEstimate,
    ProportionEstimate,
    estimate_finite_population,
    estimate_proportion,
    half_width_for_n,
    outside_design,
    pool_estimates,
    sample_size_for_half_width,
    sample_size_for_sequence_half_width,
)
from analysis.control_arm import compare_with_direct
from surveys import protocol
from surveys.arms import DIRECT
from surveys.definition import Question
from surveys.design_contract import compatible_tallies, key_arm
from surveys.export_columns import yes_no_row
from surveys.extended_crosswise import groups_label, groups_sentence, pooled_groups
from surveys.kinds.common import (
    as_given,
    covering,
    design_row,
    difference_bounds,
    empty_flags,
    no_group_sizes,
    no_groups,
    no_option_plan,
    one_kept_row,
    outside_flags,
    pooled_label,
    sequence_bounds,
    share_difference,
    share_target_scale,
    shown_std_err,
    size_flags,
)
from surveys.plan_types import PlanningResult
from surveys.result_sentences import yes_no_sentence
from surveys.result_types import DesignEstimate, SequenceBounds, YesNoResult
from surveys.text_format import percent


def compute(question: Question, by_design, level: float, method: str) -> YesNoResult:
    """The randomized-response estimate of a one-arm yes/no question, compared with its control arm."""
    return with_control_arm(_one_arm_result(question, by_design, level, method), by_design, level)


def running_point(question: Question, by_design, confidence_level: float) -> tuple[int, float, SequenceBounds] | None:
    """``(n, estimate, confidence sequence)``: what the time chart draws (:func:`surveys.results.running_point`)."""
    estimates = [estimate for _, estimate in _estimates(question, by_design)[0]]
    if not estimates:
        return None
    combined = pool_estimates(estimates) if len(estimates) > 1 else estimates[0]
    return sum(e.n for e in estimates), combined.estimate, sequence_bounds(estimates, confidence_level)


def finite_population(result: YesNoResult, population_size: int | None, level: float) -> YesNoResult:
    """``result`` with its finite-population figures when the survey gives ``population_size`` (``N``) and its
    answers came under one design (:func:`analysis.estimate_finite_population`: the unbiased variance under
    simple random sampling without replacement of ``n`` of ``N`` people, Chaudhuri 2011); otherwise
    ``finite_population_note`` says why (pooled, more answers than ``N``, fewer than 2)."""
    if population_size is None or result.n == 0 or result.error:
        return result
    reason = _finite_population_reason(result, population_size)
    if reason:
        return replace(result, finite_population_note=reason)
    part = result.per_design[0]
    try:
        figures = estimate_finite_population(part.yes_count, part.n, population_size, *part.design.exact(), level)
    except ValueError as error:
        return replace(result, finite_population_note=f"No finite-population figures: {error}.")
    return replace(
        result, finite_population=figures, finite_population_note=finite_population_sentence(result, figures)
    )


def _finite_population_reason(result: YesNoResult, population_size: int) -> str:
    """Why a one-arm yes/no result gets no finite-population figures (``""``: it does)."""
    if result.pooled and result.extended_groups:
        return (
            "No finite-population figures for an extended crosswise question's two groups pooled: only for one design."
        )
    if result.pooled:
        return "No finite-population figures for answers pooled over several designs: only for one design."
    if result.n > population_size:
        return (
            f"No finite-population figures: the {result.n:,} answers outnumber the survey's population_size of "
            f"{population_size:,}, so they cannot be a sample of it without replacement; check population_size."
        )
    if result.n < 2:
        return "No finite-population figures until there are at least 2 answers."
    return ""


def finite_population_sentence(result: YesNoResult, figures: FinitePopulationEstimate) -> str:
    """The assumption behind the finite-population figures, and the figures, in one sentence."""
    level = percent(figures.confidence_level, 1, trim=True)
    return (
        f"If the {result.n:,} answers were a simple random sample without replacement of the "
        f"{figures.population_size:,} people (population_size), the standard error of the raw estimate is "
        f"{percent(figures.std_err, 2)} instead of {percent(result.std_err, 2)} and its {level} Wald interval "
        f"{percent(figures.low, 1)} – {percent(figures.high, 1)} (Chaudhuri 2011, as RRTCS computes it)."
    )


def _estimates(question: Question, by_design) -> tuple[list[tuple[object, ProportionEstimate]], bool]:
    """``[(tally, estimate)]`` for each compatible design with answers, and whether any answers were ignored."""
    tallies, ignored = compatible_tallies(question, by_design)
    out = []
    for tally in tallies:
        stored_yes = int(tally.counts.get("yes", 0))
        n = stored_yes + int(tally.counts.get("no", 0))
        if n:
            trait_count = tally.design.trait_count(stored_yes, n)
            out.append((tally, estimate_proportion(trait_count, n, *tally.design.exact())))
    return out, ignored


def _stored_yes_count(part: DesignEstimate) -> int:
    """The stored "yes" answers of one design's part (its ``yes_count`` is the trait answer's count)."""
    return part.design.trait_count(part.yes_count, part.n)


def without_figures(question: Question, flags: tuple[str, ...], sentence: str, error: str | None = None) -> YesNoResult:
    """A yes/no result whose figures are all ``None``: no answers yet, or (with ``error``) not computed."""
    return YesNoResult(
        question=question,
        n=0,
        yes_count=0,
        observed_rate=None,
        estimate_raw=None,
        estimate=None,
        clipped=False,
        std_err=None,
        ci=None,
        epsilon=question.design.epsilon,
        design_label=question.design.label(),
        per_design=(),
        pooled=False,
        pooled_estimate=None,
        flags=flags,
        sentence=sentence,
        error=error,
    )


def direct_counts(by_design) -> tuple[int, int]:
    """``(yes, answers)`` of the direct-question control arm in a question's tallies."""
    counts = [c for key, c in by_design.items() if key_arm(key) == DIRECT]
    yes = sum(int(c.get("yes", 0)) for c in counts)
    return yes, yes + sum(int(c.get("no", 0)) for c in counts)


def with_control_arm(result: YesNoResult, by_design, level: float) -> YesNoResult:
    """``result`` with its comparison against the direct-question control arm (``control``), when both arms
    have answers and the randomized-response estimate has a finite standard error.

    The raw estimate (unclipped; the moment estimate of a two-group design) is compared, as
    :func:`analysis.compare_with_direct` asks, so that the difference stays unbiased.
    """
    yes, n = direct_counts(by_design)
    raw, std_err = result.estimate_raw, result.std_err
    if n == 0 or raw is None or std_err is None or not math.isfinite(std_err) or not math.isfinite(raw):
        return result
    return replace(result, control=compare_with_direct(raw, std_err, yes, n, level))


def _one_arm_result(question: Question, by_design, level: float, method: str) -> YesNoResult:
    """The randomized-response estimate of a one-arm yes/no question (one design, or several pooled)."""
    estimates, ignored = _estimates(question, by_design)
    parts = [
        DesignEstimate(tally.key, tally.design, e.n, e.yes_count, e, e.confidence_interval(level, method))
        for tally, e in estimates
    ]
    if not parts:
        return without_figures(question, empty_flags(ignored), yes_no_sentence(question, None, None, level))
    n = sum(part.n for part in parts)
    yes_count = sum(_stored_yes_count(part) for part in parts)
    pooled = len(parts) > 1
    groups = pooled_groups(question, parts)
    if pooled:
        combined = pool_estimates([part.estimate for part in parts])
        ci = combined.confidence_interval(level)
        label = pooled_label(len(parts))
        outside = None
    else:
        combined, ci, label = parts[0].estimate, parts[0].ci, parts[0].design.label()
        outside = outside_design(parts[0].yes_count, n, *parts[0].design.exact(), confidence_level=level)
    sentence = yes_no_sentence(question, combined.estimate, ci, level, outside)
    if groups is not None:  # an extended crosswise question's groups: one design, not several
        label, sentence = groups_label(question, groups), f"{sentence} {groups_sentence(question, groups)}"
    return YesNoResult(
        question=question,
        n=n,
        yes_count=yes_count,
        observed_rate=yes_count / n,
        estimate_raw=combined.estimate_raw,
        estimate=combined.estimate,
        clipped=combined.clipped,
        std_err=shown_std_err(combined.std_err),
        ci=ci,
        epsilon=max(part.design.epsilon for part in parts),
        design_label=label,
        per_design=tuple(parts),
        pooled=pooled,
        pooled_estimate=combined if pooled else None,
        flags=size_flags(n, combined.clipped, pooled and groups is None, ignored) + outside_flags(outside),
        sentence=sentence,
        outside=outside,
        sequence=covering(sequence_bounds([part.estimate for part in parts], level), ci),
        extended_groups=groups or (),
    )


# --------------------------------------------------------------------------
# What the callers outside results ask of the kind: planning, export columns, group differences.

#: One share (a prevalence): planned by its margin, charted over time, compared between groups.
single_share = True
#: Its answers are randomized: results are not split by them.
splits_results = False
#: A select_one's option planning is not for a yes/no question.
plan_options = no_option_plan
#: One group of respondents.
current_group_sizes = no_group_sizes


def needed_n(question: Question, half_width: float, level: float, share: float) -> int:
    """Answers a fixed-sample interval needs for ``half_width`` in the worst case over ``pi``
    (:func:`analysis.sample_size_for_half_width`; ``share`` is for two-group designs)."""
    return sample_size_for_half_width(half_width, level, *question.design.exact())


def plan_margin(
    question: Question,
    needed_n: int,
    half_width: float,
    level: float,
    share: float,
    response_count: int,
    group_sizes: tuple[int, int] | None = None,
) -> PlanningResult:
    """:func:`surveys.planning.plan` of a one-arm question: ``needed_n`` answers, the worst-case half-width at
    ``response_count`` answers and the answers its confidence sequence needs."""
    design = question.design
    now = half_width_for_n(response_count, level, *design.exact()) if response_count > 0 else None
    return PlanningResult(
        question=question,
        design=design,
        half_width=float(half_width),
        confidence_level=float(level),
        needed_n=needed_n,
        response_count=response_count,
        half_width_now=now,
        needed_n_sequence=sample_size_for_sequence_half_width(half_width, level, *design.exact()),
    )


def design_columns(result: YesNoResult, option: str = "") -> dict:
    """``design, t, a, b, k, counted_answer`` of its export row: the equivalent forced-response design on the
    count of its trait answer (:attr:`analysis.BinaryDesign.trait_answer`); no triple when pooled."""
    row = design_row(result)
    if result.pooled:
        return row
    design = result.per_design[0].design if result.per_design else result.question.design
    return row | dict(zip(("t", "a", "b"), design.floats())) | {"counted_answer": design.trait_answer}


def for_difference(result: YesNoResult) -> ProportionEstimate:
    """The estimate :func:`analysis.difference` takes, for one group's result.

    One design: its :class:`~analysis.ProportionEstimate` as it is. Several:
    :func:`analysis.difference` uses only ``estimate_raw`` and
    ``std_err_population``, so the pooled estimate is handed over as a
    direct-question estimate (``t = 1, a = b = 0``, for which the observed
    rate *is* the estimate) carrying the pooled raw estimate and standard
    error. No figure is computed here; the conditional standard error,
    which has no pooled counterpart, is NaN.
    """
    if not result.pooled:
        return result.per_design[0].estimate
    pooled = result.pooled_estimate
    return ProportionEstimate(
        n=pooled.n,
        yes_count=result.yes_count,
        t=1.0,
        a=0.0,
        b=0.0,
        observed_rate=pooled.estimate_raw,
        estimate_raw=pooled.estimate_raw,
        estimate=pooled.estimate,
        clipped=pooled.clipped,
        std_err_population=pooled.std_err,
        std_err_conditional=math.nan,
    )


#: Two groups' shares as :func:`for_difference` hands them over, subtracted by :func:`analysis.difference`.
difference = share_difference


def comparable(results) -> bool:
    """Two groups' results of a one-arm question can always be compared."""
    return True


def difference_sequence(results, confidence_level: float) -> SequenceBounds:
    """The anytime-valid sequence for the difference of two groups' shares
    (:func:`surveys.kinds.common.difference_bounds` of their answers per design)."""
    first_parts, second_parts = ([p.estimate for p in r.per_design] for r in results)
    return difference_bounds(first_parts, second_parts, confidence_level)


def estimate_rows(result: YesNoResult, level: float) -> list[dict]:
    """Its rows of :func:`surveys.export.estimate_rows`: one."""
    return [yes_no_row(result, level, design_columns)]


#: Its rows of :func:`surveys.export.breakdown_rows` in each group: the same.
breakdown_rows = estimate_rows


#: A target on this question is a margin on its share.
target_scale = share_target_scale


def target_needed_n(question: Question, margin: float, level: float, estimate: float, by_design, share: float) -> int:
    """Answers the confidence sequence needs for a target's ``margin`` at the share estimated now
    (:func:`analysis.sample_size_for_sequence_half_width`; ``by_design`` and ``share`` are for two groups)."""
    return sample_size_for_sequence_half_width(margin, level, *question.design.exact(), pi=estimate)


def randomize(question: Question, truth: str, arm: str) -> str:
    """The noisy answer to ``question`` for ``truth`` (:func:`surveys.protocol.randomize_yes_no`, ``secrets``)."""
    return protocol.randomize_yes_no(truth, question.design, arm)


#: The respondent's answers of one outcome and the plain predictors are kept as pattern counts for the model.
keeps_patterns = True


def design_needed(question: Question, margin: float, level: float, share: float) -> tuple[int, int]:
    """A design choice's answers for ``margin``: with a fixed-sample interval (:func:`needed_n`) and with the
    confidence sequence (:func:`analysis.sample_size_for_sequence_half_width`), worst case over ``pi``."""
    exact = question.design.exact()
    return needed_n(question, margin, level, share), sample_size_for_sequence_half_width(margin, level, *exact)


def estimate_pairs(kept: YesNoResult, left: YesNoResult) -> list[tuple]:
    """``(option, kept estimate, its interval, other estimate, its interval)`` of one question's two results
    (:func:`surveys.floods.compare_floods`): its one share, ``option`` empty."""
    return [("", kept.estimate, kept.ci, left.estimate, left.ci)]


def chart_items(result: YesNoResult) -> list[tuple[str | None, YesNoResult]]:
    """What the results chart draws for it (:mod:`web.charts`): one bar, the result itself, under its label."""
    return [(None, result)]


#: The results page's table (template partial) it is shown in (:func:`web.templating.result_kind`).
results_table = "yes_no"

#: The form checks a choice's wire value; it is stored, kept and exported as it is.
device_answer = exported = group_of = as_given
#: Its answers are randomized: they split no one into groups.
groups = no_groups
kept_rows = one_kept_row
