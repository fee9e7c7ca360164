"""The check-all-that-apply kind: a ``select_multiple`` question, each option sent as one randomized bit
(:class:`analysis.numeric_design.UnaryDesign`), or its ticks stored as given when asked plainly.

Its kept tallies per design are the sent bit strings (at most ``2 ** 10`` patterns): each option's count of
ones and the histogram of ones per respondent come from them (:func:`analysis.unary.pattern_ones`), so the
shares and the mean number ticked cost the same whatever the number of answers. A plain question is read as
the design that sends every bit as it is (``p = 1``, ``q = 0``): its shares are the shares ticked.
"""

from __future__ import annotations

from analysis import sample_size_for_half_width, sample_size_for_sequence_half_width
from analysis.unary import option_design, pattern_ones, ticked_count, unary_shares
from surveys import numeric_protocol
from surveys.definition import Question
from surveys.design_contract import compatible_tallies
from surveys.export_columns import multiple_rows
from surveys.kinds.common import (
    as_given,
    empty_flags,
    never_comparable,
    no_design_columns,
    no_difference,
    no_difference_sequence,
    no_estimate_pairs,
    no_finite_population,
    no_group_difference,
    no_group_sizes,
    no_groups,
    no_margin_plan,
    no_needed_n,
    no_option_plan,
    no_running_point,
    no_target_scale,
    size_flags,
    unanswered_options,
)
from surveys.result_types import MultipleResult, OptionResult

running_point = no_running_point
#: No target is set on this kind.
target_scale = no_target_scale
finite_population = no_finite_population
single_share = False
splits_results = False
keeps_patterns = False
needed_n = target_needed_n = no_needed_n
plan_margin = no_margin_plan
plan_options = no_option_plan
current_group_sizes = no_group_sizes
design_columns = no_design_columns
#: Its rows of :func:`surveys.export.estimate_rows` (:func:`surveys.export_columns.multiple_rows`).
estimate_rows = multiple_rows
#: Its rows of :func:`surveys.export.breakdown_rows` in each group: the same, from the group's bit strings.
breakdown_rows = multiple_rows
estimate_pairs = no_estimate_pairs
for_difference = no_difference
difference = no_group_difference
comparable = never_comparable
difference_sequence = no_difference_sequence
#: The results page's partial (``templates/admin/_multiple.html``).
results_table = "multiple"


def chart_items(result: MultipleResult) -> list[tuple[str, OptionResult]]:
    """What the results chart draws for it (:mod:`web.charts`): one bar per option of a randomized question (its
    share, Wilson interval and share of ones sent); a plain question is not drawn, as no plain question is."""
    if result.question.design is None:
        return []
    return [(option.choice.label, option) for option in result.options]


def true_bits(question: Question, truth: str) -> tuple[bool, ...]:
    """The ticks a true answer names: one ``0``/``1`` per option, in the question's order."""
    if not isinstance(truth, str) or len(truth) != len(question.choices) or set(truth) - {"0", "1"}:
        raise ValueError(f"a check-all-that-apply answer must be {len(question.choices)} characters 0 or 1")
    return tuple(c == "1" for c in truth)


def randomize(question: Question, truth: str, arm: str) -> str:
    """The stored bits of a true answer, each drawn with :mod:`secrets` (JavaScript off); plain: as given."""
    ticked = true_bits(question, truth)
    if question.design is None:
        return truth
    return question.design.wire(numeric_protocol.unary_bits(ticked, question.design))


def device_answer(question: Question, wire: str) -> str:
    """The stored bits the device sent; ValueError unless they are one per option."""
    true_bits(question, wire)
    return wire


def kept_rows(question: Question, stored: str) -> tuple[tuple[str, int], ...]:
    """The kept row of one stored answer: its bit string +1."""
    return ((stored, 1),)


def exported(question: Question, stored: str) -> str:
    return stored


#: A plain check-all-that-apply question does not split the respondents into groups yet (a respondent may be in
#: several); a randomized one never does.
groups = no_groups
group_of = as_given


def without_figures(question: Question, flags: tuple[str, ...], sentence: str, error: str | None = None):
    return MultipleResult(
        question=question,
        n=0,
        options=unanswered_options(question),
        ticked_mean=None,
        ticked_std_err=None,
        ticked_low=None,
        ticked_high=None,
        epsilon=question.design.epsilon if question.design else 0.0,
        design_label=question.design.label() if question.design else "asked directly",
        flags=flags,
        sentence=sentence,
        error=error,
    )


def compute(question: Question, by_design, level: float, method: str) -> MultipleResult:
    """Each option's debiased share with its interval, and the mean number of options ticked."""
    tallies, ignored = compatible_tallies(question, by_design)
    patterns: dict[str, int] = {}
    for tally in tallies:
        if tally.design != question.design:
            ignored = ignored or sum(tally.counts.values()) > 0
            continue
        for pattern, count in tally.counts.items():
            patterns[pattern] = patterns.get(pattern, 0) + int(count)
    kept = pattern_ones(patterns, len(question.choices)) if patterns else None
    if kept is None or kept.n == 0:
        return without_figures(question, empty_flags(ignored), "")
    if question.design is None:
        return _plain(question, kept, patterns, level, ignored)
    shares = unary_shares(question.design, kept.n, kept.ones, level)
    ticked = ticked_count(question.design, kept.n, patterns, level)
    options = tuple(
        OptionResult(
            choice,
            ones,
            ones / kept.n,
            share.estimate_raw,
            share.estimate,
            share.std_err,
            share.interval,
            estimate=share.estimate,
        )
        for choice, ones, share in zip(question.choices, kept.ones, shares)
    )
    return MultipleResult(
        question=question,
        n=kept.n,
        options=options,
        ticked_mean=ticked.estimate,
        ticked_std_err=ticked.std_err,
        ticked_low=ticked.low,
        ticked_high=ticked.high,
        epsilon=question.design.epsilon,
        design_label=question.design.label(),
        flags=size_flags(kept.n, any(s.clipped for s in shares) or ticked.clipped, False, ignored),
    )


def _plain(question: Question, kept, patterns: dict[str, int], level: float, ignored: bool) -> MultipleResult:
    n = kept.n
    ticks = sum(pattern.count("1") * count for pattern, count in patterns.items())
    options = tuple(
        OptionResult(c, ones, ones / n, ones / n, ones / n, None, None, estimate=ones / n)
        for c, ones in zip(question.choices, kept.ones)
    )
    return MultipleResult(
        question=question,
        n=n,
        options=options,
        ticked_mean=ticks / n,
        ticked_std_err=None,
        ticked_low=None,
        ticked_high=None,
        epsilon=0.0,
        design_label="asked directly",
        flags=size_flags(n, False, False, ignored),
    )


def design_needed(question: Question, margin: float, level: float, share: float) -> tuple[int, int]:
    """Answers for a margin of ``margin`` on every option's share, whatever the shares (the guided editor's
    table): each option's bit is a forced-response yes/no (:func:`analysis.unary.option_design`); asked
    directly, ``t = 1``. With one interval at the end, and with the confidence sequence."""
    exact = (1, 0, 0) if question.design is None else option_design(question.design).exact()
    return sample_size_for_half_width(margin, level, *exact), sample_size_for_sequence_half_width(margin, level, *exact)
