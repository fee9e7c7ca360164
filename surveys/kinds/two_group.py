"""The two-group yes/no kind: cheater detection and the stochastic lie detector.

Its answers are kept per group (:func:`surveys.design_contract.key_arm`); each version of the design (other
``p1, p2``) is estimated by :func:`analysis.estimate_two_group` and several versions' prevalences are pooled
(:func:`analysis.pool_two_group`). Its result is a :class:`~surveys.result_types.YesNoResult` whose
``two_group`` holds the second parameter.
"""

from __future__ import annotations

from dataclasses import replace

from analysis.two_group import TwoGroupEstimate, estimate_two_group, pool_two_group
from surveys.arms import DIRECT, GROUPS
from surveys.definition import Question
from surveys.design_contract import key_arm, parse_design_key
from surveys.kinds.common import covering, empty_flags, pooled_label, size_flags, two_group_sequence_bounds
from surveys.kinds.yes_no import with_control_arm, without_figures
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
    "compute",
    "finite_population",
    "group_counts",
    "running_point",
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
