"""The matrix kind: a randomized ``select_one`` read through a misclassification matrix (its design is a
matrix, or a version of it with answers was).

:func:`analysis.estimate_misclassification` per version of the matrix; a k-option version is read as its
matrix; several versions are pooled (:func:`analysis.pool_misclassification`).
"""

from __future__ import annotations

import numpy as np

from analysis import MultipleChoiceDesign, matrix_option_sequences
from analysis.misclassification import (
    MisclassificationDesign,
    MisclassificationEstimate,
    estimate_misclassification,
    pool_misclassification,
)
from surveys.definition import Question
from surveys.design_contract import compatible_tallies
from surveys.export_columns import matrix_version_rows, option_row
from surveys.kinds import choice
from surveys.kinds.choice import without_figures
from surveys.kinds.common import (
    as_given,
    covering,
    design_row,
    empty_flags,
    never_comparable,
    no_difference,
    no_difference_sequence,
    no_finite_population,
    no_group_difference,
    no_group_sizes,
    no_groups,
    no_margin_plan,
    no_needed_n,
    no_running_point,
    no_target_scale,
    one_kept_row,
    pooled_label,
    shown_std_err,
    side_flags,
    size_flags,
)
from surveys.result_sentences import choice_sentence
from surveys.result_types import ChoiceResult, OptionResult, SequenceBounds

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
    "difference",
    "for_difference",
    "group_of",
    "groups",
    "keeps_patterns",
    "matrix_versions",
    "needed_n",
    "plan_margin",
    "plan_options",
    "randomize",
    "reads_as_matrix",
    "running_point",
    "single_share",
    "splits_results",
    "target_needed_n",
    "target_scale",
    "without_figures",
]

#: A select_one's share is not charted over time.
running_point = no_running_point
#: No target is set on this kind.
target_scale = no_target_scale
#: Finite-population figures are for a one-arm yes/no question only.
finite_population = no_finite_population


def reads_as_matrix(question: Question, by_design) -> bool:
    """Whether a ``select_one`` is estimated through matrices: its design is one, or a version with answers was."""
    if isinstance(question.design, MisclassificationDesign):
        return True
    tallies, _ = compatible_tallies(question, by_design)
    return any(isinstance(t.design, MisclassificationDesign) and sum(t.counts.values()) for t in tallies)


def matrix_versions(question: Question, by_design) -> tuple[list[MisclassificationEstimate], bool]:
    """Each design version's :func:`analysis.estimate_misclassification` (current design first), and whether
    any answers were left out.

    A version is read when its options are the question's, in the same order; a k-option version is read as
    its matrix (:meth:`analysis.MisclassificationDesign.from_multiple_choice`). Any other tally is ignored.
    """
    tallies, ignored = compatible_tallies(question, by_design)
    versions = []
    for tally in tallies:
        counts = tuple(int(tally.counts.get(name, 0)) for name in tally.choices)
        if sum(counts) == 0:
            continue
        if tally.choices != question.choice_names:
            ignored = True
            continue
        design = tally.design
        if isinstance(design, MultipleChoiceDesign):
            design = MisclassificationDesign.from_multiple_choice(design.k, design.t)
        versions.append(estimate_misclassification(counts, design))
    return versions, ignored


def compute(question: Question, by_design, level: float, method: str) -> ChoiceResult:
    """The option shares of a ``select_one`` with a misclassification matrix (``method`` is not used: the
    intervals are exact, or by profile likelihood, as below).

    One version: each option with its own marginal (every 2 x 2 matrix, the k-option design, forced response)
    is read through it, as the k-option path reads its options (exact interval, one-sided bound and flag
    outside the marginal's range); any other option through the joint likelihood (profile-likelihood interval,
    one-sided where its maximum-likelihood share is 0 or 1, flagged when its reported share lies outside its
    row's range) (:meth:`analysis.MisclassificationEstimate.confidence_intervals`). Standard errors plug in
    shares the design can produce (van den Hout and van der Heijden 2002 for the covariance).

    Answers under several versions of the matrix (the survey file changed it) are estimated apart and pooled
    per option with weights that depend on each version's matrix and answer count only
    (:func:`analysis.pool_misclassification`; Wald intervals centred on the clipped pooled estimate); assumed:
    every version measures the same true shares.
    """
    versions, ignored = matrix_versions(question, by_design)
    pooled = len(versions) > 1
    common = {"question": question, "per_design": (), "pooled": pooled, "matrix_versions": tuple(versions)}
    if not versions:
        return without_figures(question, empty_flags(ignored), choice_sentence(question, [], level))
    k = len(question.choices)
    if pooled:
        e = pool_misclassification(versions)
        counts = tuple(sum(v.counts[j] for v in versions) for j in range(k))
        observed = tuple(c / e.n for c in counts)
        label = pooled_label(len(versions))
        sequences, outsides, row_sides = [None] * k, [None] * k, [None] * k
    else:
        e = versions[0]
        counts, observed, label = e.counts, e.observed, e.design.label()
        found = matrix_option_sequences(counts, np.linalg.inv(e.design.floats()), level)
        sequences = [SequenceBounds(s.low, s.high, level) for s in found]
        outsides, row_sides = e.outside(level), e.outside_rows()
    cis = e.confidence_intervals(level)
    options = tuple(
        OptionResult(
            choice,
            counts[j],
            observed[j],
            e.estimate_raw[j],
            e.estimate_projected[j],
            shown_std_err(e.std_err[j]),
            cis[j],
            outside=outsides[j],
            sequence=covering(sequences[j], cis[j]),
            estimate=e.estimate[j],
        )
        for j, choice in enumerate(question.choices)
    )
    clipped = any(not 0 <= raw <= 1 for raw in e.estimate_raw)
    sides = {side for side in row_sides if side} | {o.outside.side for o in options if o.outside}
    flags = size_flags(e.n, clipped, pooled, ignored) + side_flags(sides)
    sentence = choice_sentence(question, [(o.choice.label, o.estimate, o.ci) for o in options], level)
    epsilon = max(v.design.epsilon for v in versions)
    return ChoiceResult(
        n=e.n, options=options, epsilon=epsilon, design_label=label, flags=flags, sentence=sentence, **common
    )


# --------------------------------------------------------------------------
# What the callers outside results ask of the kind: planning, export columns, group differences.

#: Several shares (one per option): planned option by option, not charted over time nor compared between groups.
single_share = False
#: Its answers are randomized: results are not split by them.
splits_results = False
#: Not planned by the margin of one share.
needed_n = no_needed_n
plan_margin = no_margin_plan
#: Planned option by option, as a k-option question (:func:`surveys.plan_types.option_plan` takes a matrix).
plan_options = choice.plan_options
#: One group of respondents.
current_group_sizes = no_group_sizes
#: Not compared between groups.
for_difference = no_difference
difference = no_group_difference
comparable = never_comparable
difference_sequence = no_difference_sequence


def design_columns(result: ChoiceResult, option: str = "") -> dict:
    """``design, t, a, b, k, counted_answer`` of an option's export row: the option's marginal forced-response
    design when the matrix gives it one (:meth:`analysis.MisclassificationDesign.option_marginal`), else only
    ``k`` (a whole matrix: see the codebook); a current k-option design as :func:`surveys.kinds.choice.design_columns`;
    no triple when pooled."""
    design = result.question.design
    if result.pooled or not isinstance(design, MisclassificationDesign):
        return choice.design_columns(result, option)
    row = design_row(result)
    marginal = design.option_marginal(result.question.choice_names.index(option)) if option else None
    if marginal is None:
        return row | {"k": design.k}
    return row | dict(zip(("t", "a", "b"), marginal.floats())) | {"k": design.k, "counted_answer": option}


def breakdown_rows(result: ChoiceResult, level: float) -> list[dict]:
    """Its rows of :func:`surveys.export.breakdown_rows` in each group: one per option."""
    return [option_row(result, option, level, design_columns) for option in result.options]


def estimate_rows(result: ChoiceResult, level: float) -> list[dict]:
    """Its rows of :func:`surveys.export.estimate_rows`: one per option, then (pooled over several matrices)
    one per version and option (:func:`surveys.export_columns.matrix_version_rows`)."""
    return [*breakdown_rows(result, level), *matrix_version_rows(result, level, design_columns)]


#: Not a target's question (targets are for one share).
target_needed_n = no_needed_n
#: Not the model's outcome.
keeps_patterns = False
#: Randomized as a ``select_one`` (:func:`surveys.protocol.randomize_choice` draws from the matrix).
randomize = choice.randomize

#: A design choice's answers, as a k-option question's (:func:`analysis.option_shares_sample_size` takes a matrix).
design_needed = choice.design_needed

#: Per option, as a k-option question's (:func:`surveys.kinds.choice.estimate_pairs`).
estimate_pairs = choice.estimate_pairs
#: One bar per option, as a k-option question's (:func:`surveys.kinds.choice.chart_items`).
chart_items = choice.chart_items

#: The results page's table (template partial) it is shown in (:func:`web.templating.result_kind`).
results_table = "choice"

#: The form checks a choice's wire value; it is stored, kept and exported as it is.
device_answer = exported = group_of = as_given
#: Its answers are randomized: they split no one into groups.
groups = no_groups
kept_rows = one_kept_row
