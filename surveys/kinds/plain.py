"""The plain kind: a question asked without randomization, its answers stored as given and counted."""

from __future__ import annotations

from analysis import sample_size_for_half_width, sample_size_for_sequence_half_width
from surveys.definition import YES_NO, Question
from surveys.design_contract import compatible_tallies
from surveys.kinds.common import (
    as_given,
    empty_flags,
    never_comparable,
    no_chart_items,
    no_design_columns,
    no_difference,
    no_difference_sequence,
    no_estimate_pairs,
    no_finite_population,
    no_group_difference,
    no_group_sizes,
    no_margin_plan,
    no_needed_n,
    no_option_plan,
    no_rows,
    no_running_point,
    no_target_scale,
    one_kept_row,
)
from surveys.result_types import FLAG_IGNORED, PlainResult

#: A plain question is not charted over time.
running_point = no_running_point
#: No target is set on this kind.
target_scale = no_target_scale
#: Finite-population figures are for a one-arm yes/no question only.
finite_population = no_finite_population

#: Nothing is estimated: not planned, not charted over time, no estimate row, not compared between groups.
single_share = False
needed_n = no_needed_n
plan_margin = no_margin_plan
plan_options = no_option_plan
current_group_sizes = no_group_sizes
design_columns = no_design_columns
estimate_rows = breakdown_rows = no_rows
for_difference = no_difference
difference = no_group_difference
comparable = never_comparable
difference_sequence = no_difference_sequence
#: Its answers are stored as given: a difference target may group by them (break-downs ask :func:`groups`).
splits_results = True
estimate_pairs = no_estimate_pairs
chart_items = no_chart_items
target_needed_n = no_needed_n
keeps_patterns = False


def randomize(question: Question, truth: str, arm: str) -> str:
    """Nothing is randomized: the answer is stored as given."""
    return truth


def compute(question: Question, by_design, level: float, method: str) -> PlainResult:
    """Counts and shares of each option (``level`` and ``method`` are not used: nothing is estimated)."""
    tallies, ignored = compatible_tallies(question, by_design)
    counts = tuple(sum(int(tally.counts.get(name, 0)) for tally in tallies) for name in question.choice_names)
    n = sum(counts)
    shares = tuple(c / n for c in counts) if n else None
    flags = empty_flags(ignored) if n == 0 else ((FLAG_IGNORED,) if ignored else ())
    return PlainResult(question=question, n=n, counts=counts, shares=shares, flags=flags)


def without_figures(question: Question, flags: tuple[str, ...], sentence: str, error: str | None = None) -> PlainResult:
    """A plain result with no counts (the result could not be computed; ``sentence`` is not shown for it)."""
    return PlainResult(
        question=question, n=0, counts=tuple(0 for _ in question.choices), shares=None, flags=flags, error=error
    )


def design_needed(question: Question, margin: float, level: float, share: float) -> tuple[int, int | None]:
    """A design choice asked directly: each share read straight from the answers, the forced-response figures
    with ``t = 1``; the confidence-sequence figure for a yes/no question only."""
    exact = (1, 0, 0)
    sequence = sample_size_for_sequence_half_width(margin, level, *exact) if question.type == YES_NO else None
    return sample_size_for_half_width(margin, level, *exact), sequence


#: The results page's table (template partial) it is shown in (:func:`web.templating.result_kind`).
results_table = "plain"

#: The form checks a choice's wire value; it is stored, kept and exported as it is.
device_answer = exported = group_of = as_given


def groups(question: Question) -> tuple[tuple[str, str], ...]:
    """The groups its answers split the respondents into (:func:`surveys.breakdowns.compute_breakdown`): one per
    option, ``(choice name, label)``, in its order."""
    return tuple((c.name, c.label) for c in question.choices)


kept_rows = one_kept_row
