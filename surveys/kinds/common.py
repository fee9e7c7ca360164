"""What every question kind's result shares: its flags, its shown figures and its confidence sequences.

The kinds (:mod:`surveys.kinds`) compute their results with these; each kind decides only what is its own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from analysis import ConfidenceInterval, Difference, OutsideDesign, ProportionEstimate, difference
from analysis.sequences import (
    UnionSequence,
    difference_union_sequence,
    two_group_union_sequence,
    union_sequence,
)
from analysis.two_group import TwoGroupEstimate
from surveys.definition import SHARE_TARGET, Question, TargetScale
from surveys.result_types import (
    FLAG_ABOVE_CEILING,
    FLAG_BELOW_FLOOR,
    FLAG_CLIPPED,
    FLAG_IGNORED,
    FLAG_NO_RESPONSES,
    FLAG_SEVERAL_DESIGNS,
    FLAG_SMALL_N,
    SMALL_N,
    OptionResult,
    SequenceBounds,
)

# --------------------------------------------------------------------------
# Answers in: what a kind keeps of one stored answer.


def as_given(question: Question, text: str) -> str:
    """An answer as it is: a choice name the form already checked (``device_answer``), or a stored answer
    exported as stored (``exported``)."""
    return text


def no_groups(question: Question) -> tuple[tuple[str, str], ...]:
    """A kind whose answers do not split the respondents into groups: none (a randomized answer would put them
    in the wrong group at random)."""
    return ()


def one_kept_row(question: Question, stored: str) -> tuple[tuple[str, int], ...]:
    """The kept rows of one stored answer of a choice: its own count +1."""
    return ((stored, 1),)


# --------------------------------------------------------------------------
# Flags and labels.


def size_flags(n: int, clipped: bool, pooled: bool, ignored: bool) -> tuple[str, ...]:
    """The flags of a result with answers: small n, clipped, several designs, some answers ignored."""
    flags = []
    if n < SMALL_N:
        flags.append(FLAG_SMALL_N)
    if clipped:
        flags.append(FLAG_CLIPPED)
    if pooled:
        flags.append(FLAG_SEVERAL_DESIGNS)
    if ignored:
        flags.append(FLAG_IGNORED)
    return tuple(flags)


def empty_flags(ignored: bool) -> tuple[str, ...]:
    """The flags of a result with no answers it can read."""
    return (FLAG_NO_RESPONSES, FLAG_IGNORED) if ignored else (FLAG_NO_RESPONSES,)


def outside_flags(*outsides: OutsideDesign | None) -> tuple[str, ...]:
    """The floor and ceiling flags of the one-sided bounds among ``outsides``."""
    return side_flags({outside.side for outside in outsides if outside is not None})


def side_flags(sides: set[str]) -> tuple[str, ...]:
    """The floor and ceiling flags for the sides (``"below"``, ``"above"``) some reported share lies on."""
    return tuple(flag for side, flag in (("below", FLAG_BELOW_FLOOR), ("above", FLAG_ABOVE_CEILING)) if side in sides)


def pooled_label(designs: int) -> str:
    """The design label of answers pooled over several designs."""
    return f"pooled over {designs} designs"


def unanswered_options(question: Question) -> tuple[OptionResult, ...]:
    """Every option of ``question`` with no figures (no answers, or the result not computed)."""
    return tuple(OptionResult(c, 0, None, None, None, None, None) for c in question.choices)


def clip(value: float) -> float:
    """``value`` clipped to ``[0, 1]``: a share's maximum-likelihood estimate from its unbiased one."""
    return min(max(value, 0.0), 1.0)


def shown_std_err(std_err: float | None) -> float | None:
    """A standard error as shown: ``None`` (no number) when it is 0 or not finite.

    A plug-in standard error of 0 (every answer at an edge the design does not force) would read as
    certainty; the interval beside it (a one-sided bound there) says what the data give.
    """
    if std_err is None or not math.isfinite(std_err) or std_err <= 0:
        return None
    return std_err


# --------------------------------------------------------------------------
# Confidence sequences.


def _bounds(union: UnionSequence) -> SequenceBounds:
    return SequenceBounds(union.low, union.high, union.confidence_level, union.designs, union.side)


def sequence_bounds(estimates: Sequence[ProportionEstimate], confidence_level: float) -> SequenceBounds:
    """The anytime-valid confidence sequence for one true share measured under one or more designs.

    :func:`analysis.sequences.union_sequence`: each design's sequence at ``1 - alpha/m``, intersected (their
    hull if they disagree). Raises ``ValueError`` with no estimates.
    """
    return _bounds(union_sequence(estimates, confidence_level))


def two_group_sequence_bounds(fits: Sequence[TwoGroupEstimate], confidence_level: float) -> SequenceBounds:
    """The anytime-valid sequence for a two-group prevalence measured under one or more versions of its design
    (:func:`analysis.sequences.two_group_union_sequence`)."""
    return _bounds(two_group_union_sequence(fits, confidence_level))


def difference_bounds(
    first: Sequence[ProportionEstimate], second: Sequence[ProportionEstimate], confidence_level: float
) -> SequenceBounds:
    """The anytime-valid sequence for ``pi_first - pi_second``: each group at ``1 - alpha/2``, then subtracted
    (:func:`analysis.sequences.difference_union_sequence`); ``designs`` counts both groups' designs."""
    return _bounds(difference_union_sequence(first, second, confidence_level))


def covering(sequence: SequenceBounds | None, ci: ConfidenceInterval | None) -> SequenceBounds | None:
    """``sequence`` widened to hold the fixed-sample interval ``ci`` shown beside it, where the answers sit at the
    design's edge (``ci`` one-sided) or the sequence has shrunk to width 0.

    There a sequence mapped through the design (or through a matrix's rates box, or a two-group moment map)
    can be ``[0, 0]``. The union with ``ci`` is a superset of the sequence, so it keeps its anytime coverage,
    and it is one-sided where ``ci`` is. Elsewhere the sequence is left as it is (an intersection over
    several designs may be narrower than a pooled Wald interval). One rule for every kind of question.
    """
    if sequence is None or ci is None or not (ci.one_sided or sequence.high <= sequence.low):
        return sequence
    side = ci.side if ci.one_sided else sequence.side
    return replace(sequence, low=min(sequence.low, ci.low), high=max(sequence.high, ci.high), side=side)


def share_target_scale(question: Question) -> TargetScale:
    """A target on this question is a margin on its share (:data:`surveys.definition.SHARE_TARGET`)."""
    return SHARE_TARGET


def no_target_scale(question: Question) -> None:
    """No target can be set on this question."""
    return None


def no_running_point(question: Question, by_design, confidence_level: float) -> None:
    """A kind with no running share to chart over time (only yes/no questions have one)."""
    return None


def no_finite_population(result, population_size: int | None, level: float):
    """A kind with no finite-population figures and nothing to say about them: ``result`` as it is."""
    return result


# --------------------------------------------------------------------------
# Defaults for what a kind does not have: planning, export columns, group differences.


def no_needed_n(question: Question, *args) -> int:
    """A kind that is not planned by the margin of one share: a ValueError naming the question."""
    raise ValueError(f"question={question.name!r} is not a randomized yes/no question")


def no_margin_plan(question: Question, needed_n: int, half_width: float, level: float, share: float, *counts):
    """A kind that is not planned by the margin of one share: a ValueError naming the question."""
    raise ValueError(f"question={question.name!r} is not a randomized yes/no question")


def no_option_plan(question: Question, half_width: float, level: float, response_count: int):
    """A kind that is not planned option by option: a ValueError naming the question."""
    raise ValueError(f"question={question.name!r} is not a randomized select_one")


def no_group_sizes(result) -> None:
    """A kind whose respondents are not split into two groups: no answers per group."""
    return None


def design_row(result) -> dict:
    """``design, t, a, b, k, counted_answer`` of an export row with only the design's label (pooled, two groups
    or a whole matrix: no triple)."""
    return {"design": result.design_label, "t": None, "a": None, "b": None, "k": None, "counted_answer": None}


def no_design_columns(result, option: str = "") -> dict:
    """A kind with no estimate row (a plain question): a ValueError naming the question."""
    raise ValueError(f"question={result.question.name!r} has no estimate row")


def no_rows(result, level: float) -> list[dict]:
    """A kind with no estimate: no rows in the estimate and break-down tables."""
    return []


def no_chart_items(result) -> list[tuple]:
    """A kind with no estimate: nothing on the results chart."""
    return []


def no_estimate_pairs(kept, left) -> list[tuple]:
    """A kind with no estimate: nothing to compare between two results."""
    return []


def no_difference(result):
    """A kind whose results are not compared between groups: a ValueError naming the question."""
    raise ValueError(
        f"question {result.question.name!r} is not a randomized yes/no question or number: only those are compared "
        "between groups"
    )


def share_difference(first: ProportionEstimate, second: ProportionEstimate, confidence_level: float) -> Difference:
    """The difference of two groups' shares from their ``for_difference`` estimates (:func:`analysis.difference`:
    raw estimates subtracted, standard errors added in quadrature, Wald interval within ``[-1, 1]``)."""
    return difference(first, second, confidence_level)


def no_group_difference(first, second, confidence_level: float):
    """A kind whose results are not compared between groups (its ``for_difference`` refuses them first)."""
    raise ValueError("only randomized yes/no questions and numbers are compared between groups")


def never_comparable(results) -> bool:
    """A kind whose estimate is not one share: never compared between groups."""
    return False


def no_difference_sequence(results, confidence_level: float) -> None:
    """A kind whose estimate is not one share: no confidence sequence for a difference between groups."""
    return None
