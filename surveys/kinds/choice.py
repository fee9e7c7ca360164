"""The choice kind: a randomized ``select_one`` under the k-option design (each answer the true option with
probability ``t``, else a uniform draw among the ``k`` options).

One design: :func:`analysis.estimate_multiple_choice` with each option's exact interval. Several designs (or
a design whose options differ from the question's): each option's marginal, a forced-response yes/no, is
estimated per design and pooled, then the shares are projected onto the simplex.
"""

from __future__ import annotations

from analysis import (
    ProportionEstimate,
    estimate_multiple_choice,
    estimate_proportion,
    option_shares_sample_size,
    outside_design,
    pool_estimates,
    project_to_simplex,
)
from surveys import protocol
from surveys.definition import Question
from surveys.design_contract import compatible_tallies
from surveys.export_columns import option_row
from surveys.kinds.common import (
    as_given,
    clip,
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
    outside_flags,
    pooled_label,
    sequence_bounds,
    shown_std_err,
    size_flags,
    unanswered_options,
)
from surveys.plan_types import ChoicePlan, option_plan
from surveys.result_sentences import choice_sentence
from surveys.result_types import ChoiceDesignEstimate, ChoiceResult, OptionResult

#: A select_one's share is not charted over time.
running_point = no_running_point
#: No target is set on this kind.
target_scale = no_target_scale
#: Finite-population figures are for a one-arm yes/no question only.
finite_population = no_finite_population


def without_figures(
    question: Question, flags: tuple[str, ...], sentence: str, error: str | None = None
) -> ChoiceResult:
    """A choice result whose figures are all ``None``: no answers yet, or (with ``error``) not computed."""
    return ChoiceResult(
        question=question,
        n=0,
        options=unanswered_options(question),
        epsilon=question.design.epsilon,
        design_label=question.design.label(),
        per_design=(),
        pooled=False,
        flags=flags,
        sentence=sentence,
        error=error,
    )


def _option_marginal(part: ChoiceDesignEstimate, index: int) -> ProportionEstimate:
    """Option ``index`` of one design, read as a forced-response yes/no.

    "Is it this option?" is answered truthfully with ``t``, forced to yes with
    ``a = (1 - t)/k`` (the uniform draw lands on it) and to no with
    ``b = 1 - t - a`` (:meth:`analysis.MultipleChoiceDesign.option_marginal`).
    """
    return estimate_proportion(part.counts[index], part.n, *part.design.option_marginal().exact())


def compute(question: Question, by_design, level: float, method: str) -> ChoiceResult:
    """The option shares of a ``select_one`` under k-option designs."""
    tallies, ignored = compatible_tallies(question, by_design)
    parts = []
    for tally in tallies:
        counts = tuple(int(tally.counts.get(name, 0)) for name in tally.choices)
        if sum(counts) == 0:
            continue
        estimate = estimate_multiple_choice(counts, tally.design.t)
        parts.append(
            ChoiceDesignEstimate(
                tally.key,
                tally.design,
                tally.choices,
                sum(counts),
                counts,
                estimate,
                estimate.confidence_intervals(level, method),
            )
        )
    pooled = len(parts) > 1
    common = {"question": question, "epsilon": question.design.epsilon, "per_design": tuple(parts), "pooled": pooled}
    if not parts:
        return without_figures(question, empty_flags(ignored), choice_sentence(question, [], level))
    common["epsilon"] = max(part.design.epsilon for part in parts)
    n = sum(part.n for part in parts)
    if not pooled and parts[0].choices == question.choice_names:
        part = parts[0]
        e = part.estimate
        marginal = part.design.option_marginal().exact()
        options = tuple(
            OptionResult(
                choice,
                e.counts[j],
                e.observed[j],
                e.estimate_raw[j],
                e.estimate_projected[j],
                shown_std_err(e.std_err[j]),
                part.cis[j],
                outside_design(e.counts[j], e.n, *marginal, confidence_level=level),
                covering(sequence_bounds([_option_marginal(part, j)], level), part.cis[j]),
                estimate=clip(e.estimate_raw[j]),
            )
            for j, choice in enumerate(question.choices)
        )
        label = part.design.label()
    else:
        options = _pooled_options(question, parts, level, method)
        label = pooled_label(len(parts)) if pooled else parts[0].design.label()
    clipped = any(o.estimate_raw is not None and not 0 <= o.estimate_raw <= 1 for o in options)
    flags = size_flags(n, clipped, pooled, ignored) + outside_flags(*(o.outside for o in options))
    sentence = choice_sentence(question, [(o.choice.label, o.estimate, o.ci) for o in options], level)
    return ChoiceResult(n=n, options=options, design_label=label, flags=flags, sentence=sentence, **common)


def _pooled_options(question, parts, level, method) -> tuple[OptionResult, ...]:
    """Per option: the marginal of each design offering it, pooled; then projected.

    An option offered by one design only keeps that design's interval
    (``method``); pooled options get the pooled Wald interval.
    """
    rows = []
    for choice in question.choices:
        holders = [p for p in parts if choice.name in p.choices]
        count = sum(p.counts[p.choices.index(choice.name)] for p in holders)
        if not holders:
            rows.append([choice, count, None, None, None, None, None, None])
            continue
        marginals = [_option_marginal(p, p.choices.index(choice.name)) for p in holders]
        observed = count / sum(p.n for p in holders)
        if len(marginals) == 1:
            one = marginals[0]
            ci = one.confidence_interval(level, method)
        else:
            one = pool_estimates(marginals)
            ci = one.confidence_interval(level)
        sequence = covering(sequence_bounds(marginals, level), ci)
        rows.append([choice, count, observed, one.estimate_raw, shown_std_err(one.std_err), ci, sequence, one.estimate])
    known = [row for row in rows if row[3] is not None]
    projected = iter(project_to_simplex([row[3] for row in known]) if known else ())
    return tuple(
        OptionResult(
            choice,
            count,
            observed,
            raw,
            None if raw is None else float(next(projected)),
            se,
            ci,
            sequence=sequence,
            estimate=estimate,
        )
        for choice, count, observed, raw, se, ci, sequence, estimate in rows
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
#: One group of respondents.
current_group_sizes = no_group_sizes
#: Not compared between groups.
for_difference = no_difference
difference = no_group_difference
comparable = never_comparable
difference_sequence = no_difference_sequence


def plan_options(question: Question, half_width: float, level: float, response_count: int) -> ChoicePlan:
    """:func:`surveys.planning.plan_choice`: the answers for ``half_width`` on every option share
    (:func:`surveys.plan_types.option_plan`)."""
    return option_plan(question, half_width, level, response_count)


def design_columns(result: ChoiceResult, option: str = "") -> dict:
    """``design, t, a, b, k, counted_answer`` of an option's export row: each option alone is a forced-response
    design, ``a = (1 - t)/k``, ``b = 1 - t - a`` (:meth:`analysis.MultipleChoiceDesign.option_marginal`); no
    triple when pooled."""
    row = design_row(result)
    if result.pooled:
        return row
    design = result.per_design[0].design if result.per_design else result.question.design
    marginal = dict(zip(("t", "a", "b"), design.option_marginal().floats()))
    return row | marginal | {"k": design.k, "counted_answer": option}


def estimate_rows(result: ChoiceResult, level: float) -> list[dict]:
    """Its rows of :func:`surveys.export.estimate_rows`: one per option."""
    return [option_row(result, option, level, design_columns) for option in result.options]


#: Its rows of :func:`surveys.export.breakdown_rows` in each group: the same.
breakdown_rows = estimate_rows


#: Not a target's question (targets are for one share).
target_needed_n = no_needed_n
#: Not the model's outcome.
keeps_patterns = False


def randomize(question: Question, truth: str, arm: str) -> str:
    """The noisy option for ``truth`` (:func:`surveys.protocol.randomize_choice`, ``secrets``); ``arm`` is not
    used (a ``select_one`` has no groups)."""
    return protocol.randomize_choice(truth, question.choice_names, question.design)


def design_needed(question: Question, margin: float, level: float, share: float) -> tuple[int, None]:
    """A design choice's answers for ``margin`` on every option share (:func:`analysis.option_shares_sample_size`);
    no confidence-sequence figure."""
    return option_shares_sample_size(question.design, margin, level), None


def estimate_pairs(kept: ChoiceResult, left: ChoiceResult) -> list[tuple]:
    """``(option, kept estimate, its interval, other estimate, its interval)`` per option of one question's two
    results (:func:`surveys.floods.compare_floods`): the projected shares."""
    return [
        (a.choice.label, a.estimate_projected, a.ci, b.estimate_projected, b.ci)
        for a, b in zip(kept.options, left.options)
    ]


def chart_items(result: ChoiceResult) -> list[tuple[str, OptionResult]]:
    """What the results chart draws for it (:mod:`web.charts`): one bar per option, under the option's label."""
    return [(option.choice.label, option) for option in result.options]


#: The results page's table (template partial) it is shown in (:func:`web.templating.result_kind`).
results_table = "choice"

#: The form checks a choice's wire value; it is stored, kept and exported as it is.
device_answer = exported = group_of = as_given
#: Its answers are randomized: they split no one into groups.
groups = no_groups
kept_rows = one_kept_row
