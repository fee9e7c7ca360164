"""The two-group yes/no kind: cheater detection and the stochastic lie detector.

Its answers are kept per group (:func:`surveys.design_contract.key_arm`); each version of the design (other
``p1, p2``) is estimated by :func:`analysis.estimate_two_group` and several versions' prevalences are pooled
(:func:`analysis.pool_two_group`). Its result is a :class:`~surveys.result_types.YesNoResult` whose
``two_group`` holds the second parameter.
"""

from __future__ import annotations

import math
from dataclasses import replace

from analysis import (
    ProportionEstimate,
    two_group_half_width,
    two_group_sample_size,
    two_group_sample_size_for_sequence,
    two_group_worst_case,
)
from analysis.two_group import TwoGroupEstimate, estimate_two_group, pool_two_group
from surveys.arms import DIRECT, GROUPS
from surveys.definition import Question
from surveys.design_contract import key_arm, parse_design_key
from surveys.export_columns import two_group_version_rows, yes_no_row
from surveys.kinds.common import (
    as_given,
    covering,
    design_row,
    empty_flags,
    no_groups,
    no_option_plan,
    one_kept_row,
    pooled_label,
    share_difference,
    share_target_scale,
    size_flags,
    two_group_sequence_bounds,
)
from surveys.kinds.yes_no import chart_items as yes_no_chart_items
from surveys.kinds.yes_no import estimate_pairs as yes_no_estimate_pairs
from surveys.kinds.yes_no import for_difference as one_arm_for_difference
from surveys.kinds.yes_no import randomize as yes_no_randomize
from surveys.kinds.yes_no import with_control_arm, without_figures
from surveys.plan_types import PlanningResult
from surveys.result_sentences import yes_no_sentence
from surveys.result_types import (
    FLAG_IGNORED,
    FLAG_SMALL_N,
    SECOND_PARAMETER_LABELS,
    SequenceBounds,
    TwoGroupFigures,
    YesNoResult,
)

__all__ = [
    "breakdown_rows",
    "chart_items",
    "comparable",
    "compute",
    "current_group_sizes",
    "design_columns",
    "design_needed",
    "difference_sequence",
    "estimate_pairs",
    "estimate_rows",
    "finite_population",
    "difference",
    "for_difference",
    "group_of",
    "groups",
    "group_counts",
    "keeps_patterns",
    "needed_n",
    "plan_margin",
    "plan_options",
    "randomize",
    "running_point",
    "single_share",
    "splits_results",
    "target_needed_n",
    "target_scale",
    "two_group_version_counts",
    "without_figures",
]


def compute(question: Question, by_design, level: float, method: str) -> YesNoResult:
    """The two-group result (``method`` is not used: both intervals are by profile likelihood), compared with
    its control arm."""
    return with_control_arm(_two_group_result(question, by_design, level), by_design, level)


def finite_population(result: YesNoResult, population_size: int | None, level: float) -> YesNoResult:
    """No finite-population figures: ``finite_population_note`` says why, when the survey gives
    ``population_size`` and the question has answers."""
    if population_size is None or result.n == 0 or result.error:
        return result
    note = "No finite-population figures for a two-group design (its two random groups are not one sample)."
    return replace(result, finite_population_note=note)


def running_point(question: Question, by_design, level: float) -> tuple[int, float, SequenceBounds] | None:
    """:func:`surveys.results.running_point` of a two-group question: the prevalence and sequence
    :func:`compute` reports, without its profile-likelihood intervals."""
    fits, n, _, _ = _two_group_fits(question, by_design)
    if not fits:
        return None
    estimate = fits[0].pi if len(fits) == 1 else pool_two_group(fits).estimate
    return sum(n), estimate, two_group_sequence_bounds(fits, level)


def group_counts(question: Question, by_design) -> tuple[tuple[int, int], tuple[int, int], bool]:
    """``(yes per group, answers per group, ignored)`` of a two-group question's current design from its tallies.

    ``ignored`` says whether any tally that no version of the question can read (answers with no group, or a
    design of another kind) held answers; :func:`two_group_version_counts` gives every version's counts.
    """
    versions, ignored = two_group_version_counts(question, by_design)
    yes, n = versions.get(question.design, ((0, 0), (0, 0)))
    return yes, n, ignored


def two_group_version_counts(question: Question, by_design) -> tuple[dict, bool]:
    """``({design: (yes per group, answers per group)}, ignored)`` for each version of a two-group question.

    A version is a two-group design of the same kind as the question's current one (cheater detection or
    stochastic lie detector: the two estimate different prevalences, so they are not pooled), with the
    same ``p1, p2`` (its group is in the tally's key, :func:`surveys.design_contract.key_arm`). The current
    design comes first (with zero counts when it has no answers yet), the others in the order of their keys.
    ``ignored`` says whether any other tally (another kind of design, or answers with no group) held
    answers. The direct arm's answers are read by the control-arm comparison.
    """
    counts: dict = {question.design: ([0, 0], [0, 0])}
    ignored = False
    for key in sorted(by_design):
        arm, tally = key_arm(key), by_design[key]
        if arm == DIRECT:
            continue
        parsed = parse_design_key(key)
        design = None if parsed is None or parsed[0] != question.type else parsed[2]
        if arm not in GROUPS or type(design) is not type(question.design):
            ignored = ignored or sum(tally.values()) > 0
            continue
        yes, n = counts.setdefault(design, ([0, 0], [0, 0]))
        index = GROUPS.index(arm)
        yes[index] += int(tally.get("yes", 0))
        n[index] += int(tally.get("yes", 0)) + int(tally.get("no", 0))
    return {design: (tuple(yes), tuple(n)) for design, (yes, n) in counts.items()}, ignored


def _two_group_figures(fit: TwoGroupEstimate, level: float) -> TwoGroupFigures:
    """The second parameter of one version's fit, with its profile-likelihood interval."""
    second = fit.second_parameter
    return TwoGroupFigures(
        estimate=fit,
        parameter=second,
        label=SECOND_PARAMETER_LABELS[second],
        value=fit.second,
        std_err=fit.second_std_err,
        ci=fit.confidence_interval(second, level),
    )


def _two_group_fits(question: Question, by_design) -> tuple[list[TwoGroupEstimate], tuple[int, int], int, bool]:
    """``(fits, answers per group, yes count, ignored)``: :func:`analysis.estimate_two_group` of each version whose
    groups both have 2 answers (current design first); the answers per group are summed over every version."""
    versions, ignored = two_group_version_counts(question, by_design)
    fits = [estimate_two_group(yes, n, design) for design, (yes, n) in versions.items() if min(n) >= 2]
    n = tuple(sum(counts[1][i] for counts in versions.values()) for i in range(2))
    yes_count = sum(sum(counts[0]) for counts in versions.values())
    return fits, n, yes_count, ignored  # type: ignore[return-value]


def _two_group_result(question: Question, by_design, level: float) -> YesNoResult:
    """Prevalence (``estimate``, ``std_err``, ``ci``) and the second parameter (``two_group``) of a cheater detection
    or stochastic lie detector question, from the kept per-group tallies; both intervals by profile likelihood.

    Each group needs 2 answers before a version is estimated (:func:`analysis.estimate_two_group`). Answers
    under several versions of the design (other ``p1, p2``) are estimated version by version and their
    prevalences pooled by :func:`analysis.pool_two_group` (``pooled``, ``two_group_versions``)."""
    fits, n, yes_count, ignored = _two_group_fits(question, by_design)
    if not fits:
        flags = empty_flags(ignored) if sum(n) == 0 else (FLAG_SMALL_N,) + ((FLAG_IGNORED,) if ignored else ())
        sentence = yes_no_sentence(question, None, None, level)
        if sum(n):
            sentence = f"Each group needs at least 2 answers before anything is estimated (so far {n[0]} and {n[1]})."
        return replace(without_figures(question, flags, sentence), n=sum(n), yes_count=yes_count)
    versions = tuple(_two_group_figures(fit, level) for fit in fits)
    current = versions[0] if len(fits) == 1 or fits[0].design == question.design else None
    mapped = two_group_sequence_bounds(fits, level)
    common = {
        "question": question,
        "n": sum(n),
        "yes_count": yes_count,
        "observed_rate": yes_count / sum(n),
        "epsilon": question.design.epsilon,
        "per_design": (),
        "sequence": mapped,
        "two_group": current,
        "two_group_versions": versions,
    }
    if len(fits) == 1:
        fit = fits[0]
        ci = fit.confidence_interval("pi", level)
        common["sequence"] = covering(mapped, ci)
        return YesNoResult(
            estimate_raw=fit.pi_moment,
            estimate=fit.pi,
            clipped=fit.on_boundary,
            std_err=fit.pi_std_err,
            ci=ci,
            design_label=fit.design.label(),
            pooled=False,
            pooled_estimate=None,
            flags=size_flags(sum(n), fit.on_boundary, False, ignored),
            sentence=yes_no_sentence(question, fit.pi, ci, level),
            **common,
        )
    pooled = pool_two_group(fits)
    ci = pooled.confidence_interval(level)
    common["sequence"] = covering(mapped, ci)
    return YesNoResult(
        estimate_raw=pooled.estimate_raw,
        estimate=pooled.estimate,
        clipped=pooled.clipped,
        std_err=pooled.std_err,
        ci=ci,
        design_label=pooled_label(len(fits)),
        pooled=True,
        pooled_estimate=pooled,
        flags=size_flags(sum(n), pooled.clipped, True, ignored),
        sentence=yes_no_sentence(question, pooled.estimate, ci, level),
        **common,
    )


# --------------------------------------------------------------------------
# What the callers outside results ask of the kind: planning, export columns, group differences.

#: One share (the prevalence): planned by its margin, charted over time, compared between groups.
single_share = True
#: Its answers are randomized: results are not split by them.
splits_results = False
#: A select_one's option planning is not for a yes/no question.
plan_options = no_option_plan


def needed_n(question: Question, half_width: float, level: float, share: float) -> int:
    """Answers a fixed-sample interval needs for ``half_width`` in the design's worst case, both groups'
    reported-yes rates at 1/2 (:func:`analysis.two_group_worst_case`), ``share`` of them in group 1."""
    design = question.design
    return two_group_sample_size(design, half_width, *two_group_worst_case(design), level, share).n


def plan_margin(
    question: Question,
    needed_n: int,
    half_width: float,
    level: float,
    share: float,
    response_count: int,
    group_sizes: tuple[int, int] | None = None,
) -> PlanningResult:
    """:func:`surveys.planning.plan` of a two-group question: its worst case, ``share`` of the respondents in
    group 1, the half-width now for ``group_sizes`` (answers per group of its current design; ``None`` until
    each group has one). ``response_count`` is not used: the groups' answers are."""
    worst = two_group_worst_case(question.design)
    sizes = group_sizes or (0, 0)
    planned = two_group_sample_size(question.design, half_width, *worst, level, share)
    now = two_group_half_width(question.design, *sizes, *worst, level) if min(sizes) > 0 else None
    return PlanningResult(
        question=question,
        design=question.design,
        half_width=float(half_width),
        confidence_level=float(level),
        needed_n=planned.n,
        response_count=sum(sizes),
        half_width_now=now,
        needed_n_sequence=two_group_sample_size_for_sequence(question.design, half_width, level, share),
        group_share=share,
        needed_groups=(planned.n1, planned.n2),
        group_sizes=sizes,
    )


def current_group_sizes(result: YesNoResult) -> tuple[int, int] | None:
    """Answers per group under the current design, when the result has a fit of it (for planning)."""
    if result.two_group is not None and result.two_group.estimate.design == result.question.design:
        return result.two_group.estimate.n
    return None


def design_columns(result: YesNoResult, option: str = "") -> dict:
    """Only the design's label: two groups, two sets of probabilities (see ``group_n`` and the codebook's
    ``p1, p2``)."""
    return design_row(result)


def for_difference(result: YesNoResult) -> ProportionEstimate:
    """The estimate :func:`analysis.difference` takes, for one group's two-group result.

    One version: the closed-form moment estimate of the prevalence (unbiased, what RRreg prints) with its
    delta-method standard error (Clark and Desharnais 1998; Moshagen et al. 2012), handed over as a
    direct-question estimate (``t = 1, a = b = 0``) as :func:`surveys.kinds.yes_no.for_difference` hands over
    a pooled one (which it does for several versions). A moment estimate outside the parameter space has no
    such standard error (the reported figure is then the boundary maximum-likelihood estimate): a ValueError
    says so.
    """
    if result.two_group is None or result.pooled:
        return one_arm_for_difference(result)
    fit = result.two_group.estimate
    if fit.on_boundary or not math.isfinite(fit.pi_std_err):
        raise ValueError(
            f"question {result.question.name!r}: the two-group moment estimate left the parameter space in a "
            "group; compare the groups' profile-likelihood intervals instead"
        )
    return ProportionEstimate(
        n=sum(fit.n),
        yes_count=sum(fit.yes),
        t=1.0,
        a=0.0,
        b=0.0,
        observed_rate=fit.pi_moment,
        estimate_raw=fit.pi_moment,
        estimate=fit.pi,
        clipped=False,
        std_err_population=fit.pi_std_err,
        std_err_conditional=math.nan,
    )


#: Two groups' prevalences handed over as :func:`for_difference` gives them, subtracted by :func:`analysis.difference`.
difference = share_difference


def comparable(results) -> bool:
    """Whether two groups' results can be compared: not when one version's moment estimate is on the boundary
    (no moment standard error there; the profile intervals are shown per group)."""
    return not any(not r.pooled and r.two_group.estimate.on_boundary for r in results)


def difference_sequence(results, confidence_level: float) -> SequenceBounds:
    """The anytime-valid sequence for the difference of two groups' prevalences: each group's
    :func:`surveys.kinds.common.two_group_sequence_bounds` over its versions at ``1 - alpha/2`` (a union
    bound), then ``[L_1 - U_2, U_1 - L_2]``."""
    each = 1 - (1 - confidence_level) / 2
    one, two = (two_group_sequence_bounds([v.estimate for v in r.two_group_versions], each) for r in results)
    return SequenceBounds(one.low - two.high, one.high - two.low, confidence_level, one.designs + two.designs)


def estimate_rows(result: YesNoResult, level: float) -> list[dict]:
    """Its rows of :func:`surveys.export.estimate_rows`: its row, then (pooled over several versions of its
    design) one row per version (:func:`surveys.export_columns.two_group_version_rows`)."""
    return [yes_no_row(result, level, design_columns), *two_group_version_rows(result, level, design_columns)]


#: Its rows of :func:`surveys.export.breakdown_rows` in each group: the same.
breakdown_rows = estimate_rows


#: A target on this question is a margin on its share.
target_scale = share_target_scale


def target_needed_n(question: Question, margin: float, level: float, estimate: float, by_design, share: float) -> int:
    """Answers the confidence sequence needs for a target's ``margin``
    (:func:`analysis.two_group_sample_size_for_sequence`) at the current design's reported-yes rates now (the
    worst case, both at 1/2, until each of its groups has an answer), ``share`` of the respondents in group 1."""
    yes, n, _ = group_counts(question, by_design)
    rates = (yes[0] / n[0], yes[1] / n[1]) if min(n) > 0 else None
    return two_group_sample_size_for_sequence(question.design, margin, level, share, rates)


#: Randomized as a yes/no answer, in the respondent's group (:func:`surveys.protocol.randomize_yes_no`).
randomize = yes_no_randomize
#: Its answers are kept per group, not as the model's pattern counts.
keeps_patterns = False


def design_needed(question: Question, margin: float, level: float, share: float) -> tuple[int, int]:
    """A design choice's answers for ``margin``: with a fixed-sample interval (:func:`needed_n`) and with the
    confidence sequence (:func:`analysis.two_group_sample_size_for_sequence`), ``share`` in group 1."""
    sequence = two_group_sample_size_for_sequence(question.design, margin, level, share)
    return needed_n(question, margin, level, share), sequence


#: Its one share, as a one-arm question's (:func:`surveys.kinds.yes_no.estimate_pairs`).
estimate_pairs = yes_no_estimate_pairs
#: One bar, as a one-arm question's (:func:`surveys.kinds.yes_no.chart_items`).
chart_items = yes_no_chart_items

#: The results page's table (template partial) it is shown in (:func:`web.templating.result_kind`).
results_table = "yes_no"

#: The form checks a choice's wire value; it is stored, kept and exported as it is.
device_answer = exported = group_of = as_given
#: Its answers are randomized: they split no one into groups.
groups = no_groups
kept_rows = one_kept_row
