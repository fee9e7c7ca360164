"""The number kind: an ``integer`` or ``decimal`` question, randomized on the device (the exact discrete
Laplace mechanism or the one-bit bounded design of :mod:`analysis.numeric_design`) or asked plainly.

Its kept tallies per design are the buckets of the outputs (a plain number's bins) with the sum and the sum of
squares of the outputs in grid steps (:data:`surveys.design_contract.SUM_KEYS`): the mean, its interval and its
confidence sequence come from those three numbers (:mod:`analysis.numeric`), the distribution over the bins
from the buckets (:mod:`analysis.deconvolution`), whatever the number of answers. Figures are turned from grid
steps into the question's units here (``min + k * step``).

Answers under another design of the question (another epsilon, mechanism or range) are flagged as ignored,
not pooled: a pooled mean across mechanisms is not written yet.
"""

from __future__ import annotations

import math
from dataclasses import replace

from analysis import ConfidenceInterval, sample_size_for_half_width
from analysis.deconvolution import deconvolve
from analysis.numeric import (
    numeric_difference,
    numeric_mean,
    numeric_needed_n,
    numeric_sequence,
    numeric_sequence_needed_n,
)
from analysis.numeric_design import BoundedDesign, DiscreteLaplaceDesign
from surveys import numeric_protocol
from surveys.definition import Question, TargetScale
from surveys.design_contract import SQUARES_KEY, SUM_KEY, SUM_KEYS, compatible_tallies
from surveys.export_columns import number_rows
from surveys.kinds.common import (
    empty_flags,
    no_chart_items,
    no_design_columns,
    no_estimate_pairs,
    no_group_sizes,
    no_margin_plan,
    no_option_plan,
    size_flags,
)
from surveys.result_types import BinShare, NumberDifference, NumberResult, SequenceBounds

LAPLACE, BOUNDED, PLAIN = "laplace", "bounded", ""

single_share = False
#: A randomized number's kept rows (bucket, sum, sum of squares) are kept per pattern of plain answers: the
#: linear model's cells (:func:`surveys.models.fit_linear_model`).
keeps_patterns = True
plan_options = no_option_plan
plan_margin = no_margin_plan
current_group_sizes = no_group_sizes
design_columns = no_design_columns
#: Its rows of :func:`surveys.export.estimate_rows` (:func:`surveys.export_columns.number_rows`).
estimate_rows = number_rows
#: Its rows of :func:`surveys.export.breakdown_rows` in each group: the same, from the group's kept sums and buckets.
breakdown_rows = number_rows
estimate_pairs = no_estimate_pairs
chart_items = no_chart_items
#: The results page's partial (``templates/admin/_number.html``).
results_table = "number"
#: Difference targets by a plain number's bins are not written yet; break-downs and the model's predictors by them
#: are (:func:`groups`, :func:`surveys.models.predictor_questions`).
splits_results = False


def mechanism_of(question: Question) -> str:
    if isinstance(question.design, DiscreteLaplaceDesign):
        return LAPLACE
    return BOUNDED if isinstance(question.design, BoundedDesign) else PLAIN


# --------------------------------------------------------------------------
# Answers in, kept rows out.


def true_index(question: Question, truth: str) -> int:
    """The grid index a true answer names: the form posts the index (digits, at most the grid's width)."""
    if not isinstance(truth, str) or not truth.isascii() or not truth.isdigit() or len(truth) > 4:
        raise ValueError(f"a number's answer must be a grid position, got {str(truth)[:20]!r}")
    index = int(truth)
    if not 0 <= index <= question.number.steps:
        raise ValueError(f"a number's answer must be a grid position in [0, {question.number.steps}], got {index}")
    return index


def randomize(question: Question, truth: str, arm: str) -> str:
    """The stored output of a true answer, drawn with :mod:`secrets` (JavaScript off): the grid index plus
    exact discrete Laplace noise, or the one bit; a plain number's index as given."""
    index = true_index(question, truth)
    if isinstance(question.design, DiscreteLaplaceDesign):
        return str(numeric_protocol.laplace_output(index, question.design))
    if isinstance(question.design, BoundedDesign):
        return str(numeric_protocol.bounded_output(index, question.design))
    return truth  # a plain number: its grid position as posted


def device_answer(question: Question, wire: str) -> str:
    """The stored output of what the device sent (its fixed-width wire value); ValueError if it is not one. A
    plain number is stored as its grid position as posted (zero-padded to the grid's width)."""
    if question.design is None:
        true_index(question, wire)
        return wire
    return str(question.design.parse_wire(wire))


def kept_rows(question: Question, stored: str) -> tuple[tuple[str, int], ...]:
    """The kept rows of one stored answer: its bucket (a plain number's bin) +1, the sum +y, the squares +y^2."""
    output = int(stored)
    bucket = question.number.bin_key(output) if question.design is None else question.design.bucket(output)
    return ((bucket, 1), (SUM_KEY, output), (SQUARES_KEY, output * output))


def group_of(question: Question, stored: str) -> str:
    """What a plain number's answer is grouped by in break-downs: its bin's key (``"b00"``..)."""
    return question.number.bin_key(int(stored))


def groups(question: Question) -> tuple[tuple[str, str], ...]:
    """The groups a plain number's answers split the respondents into: its declared bins, ``(bin key, label)``
    (:meth:`surveys.numbers.NumberRange.bin_labels`); none for a randomized number (its noisy output would put
    respondents in the wrong bin at random)."""
    if question.design is not None:
        return ()
    return tuple((f"b{i:02d}", label) for i, label in enumerate(question.number.bin_labels()))


def exported(question: Question, stored: str) -> str:
    """A stored output in the question's units (``min + y * step``), as the responses CSV gives it; the one-bit
    design's bit as it is (it is no value of the range)."""
    if isinstance(question.design, BoundedDesign):
        return stored
    return question.number.text(question.number.value_of(int(stored)))


# --------------------------------------------------------------------------
# Results.


def _sums(counts) -> tuple[int, int, int]:
    n = sum(int(c) for answer, c in counts.items() if answer not in SUM_KEYS)
    return n, int(counts.get(SUM_KEY, 0)), int(counts.get(SQUARES_KEY, 0))


def kept_sums(question: Question, by_design) -> tuple[tuple[int, int, int], dict[str, int], bool]:
    """``((n, sum, squares), bucket counts, ignored)`` over the tallies of the question's current design."""
    tallies, ignored = compatible_tallies(question, by_design)
    n = total = squares = 0
    buckets: dict[str, int] = {}
    for tally in tallies:
        if tally.design != question.design:
            ignored = ignored or _sums(tally.counts)[0] > 0
            continue
        part = _sums(tally.counts)
        n, total, squares = n + part[0], total + part[1], squares + part[2]
        for answer, count in tally.counts.items():
            if answer not in SUM_KEYS:
                buckets[answer] = buckets.get(answer, 0) + int(count)
    return (n, total, squares), buckets, ignored


def without_figures(question: Question, flags: tuple[str, ...], sentence: str, error: str | None = None):
    return NumberResult(
        question=question,
        n=0,
        mean=None,
        std_err=None,
        ci_low=None,
        ci_high=None,
        confidence_level=0.95,
        epsilon=question.design.epsilon if question.design else 0.0,
        mechanism=mechanism_of(question),
        design_label=question.design.label() if question.design else "asked directly",
        noise_variance=0.0,
        bins=tuple(BinShare(label, None, None, None) for label in question.number.bin_labels()),
        bins_note="",
        flags=flags,
        sentence=sentence,
        error=error,
    )


def compute(question: Question, by_design, level: float, method: str) -> NumberResult:
    """The mean with its interval and confidence sequence, and the distribution over the bins."""
    (n, total, squares), buckets, ignored = kept_sums(question, by_design)
    if n == 0:
        return without_figures(question, empty_flags(ignored), "")
    number = question.number
    if question.design is None:
        return _plain(question, n, total, squares, buckets, level, ignored)
    estimate = numeric_mean(question.design, n, total, squares, level)
    sequence = numeric_sequence(question.design, n, total, squares, level)
    bins, note = _distribution(question, buckets, level)
    step = float(number.step)
    return NumberResult(
        question=question,
        n=n,
        mean=float(number.value_of(min(max(estimate.mean, 0.0), float(number.steps)))),
        std_err=estimate.std_err * step,
        ci_low=float(number.value_of(float(estimate.ci_low))),
        ci_high=float(number.value_of(float(estimate.ci_high))),
        confidence_level=level,
        epsilon=question.design.epsilon,
        mechanism=mechanism_of(question),
        design_label=question.design.label(),
        noise_variance=estimate.noise_variance * step * step,
        bins=bins,
        bins_note=note,
        flags=size_flags(n, estimate.clipped, False, ignored),
        sequence=SequenceBounds(
            float(number.value_of(float(sequence.low))),
            float(number.value_of(float(sequence.high))),
            level,
            1,
            sequence.side,
        ),
        sums=(n, total, squares),
        mean_raw=float(number.value_of(float(estimate.mean))),
        ci_method=estimate.method,
        ci_side=estimate.side,
    )


def _plain(question: Question, n: int, total: int, squares: int, buckets: dict[str, int], level: float, ignored):
    """A plain number: the mean of the answers as given, its standard error and the counts of its bins."""
    number = question.number
    mean = total / n
    variance = max(squares - n * mean * mean, 0.0) / (n - 1) if n > 1 else 0.0
    std_err = math.sqrt(variance / n) * float(number.step)
    bins = tuple(
        BinShare(label, buckets.get(f"b{i:02d}", 0) / n, None, None) for i, label in enumerate(number.bin_labels())
    )
    return NumberResult(
        question=question,
        n=n,
        mean=float(number.value_of(float(mean))),
        std_err=std_err,
        ci_low=None,
        ci_high=None,
        confidence_level=level,
        epsilon=0.0,
        mechanism=PLAIN,
        design_label="asked directly",
        noise_variance=0.0,
        bins=bins,
        bins_note="counted from the answers as given",
        flags=size_flags(n, False, False, ignored),
        sums=(n, total, squares),
        mean_raw=float(number.value_of(float(mean))),
    )


def _distribution(question: Question, buckets: dict[str, int], level: float) -> tuple[tuple[BinShare, ...], str]:
    labels = question.number.bin_labels()
    if isinstance(question.design, BoundedDesign):
        note = "not estimated: one bit per answer identifies the mean only"
        return tuple(BinShare(label, None, None, None) for label in labels), note
    try:
        fit = deconvolve(question.design, buckets, question.number.index_cuts(), question.number.steps, level=level)
    except (ValueError, ArithmeticError) as error:
        return tuple(BinShare(label, None, None, None) for label in labels), f"not estimated: {error}"
    if not fit.identified:
        return tuple(BinShare(label, None, None, None) for label in labels), f"not estimated: {fit.reason}"
    return (
        tuple(BinShare(label, b.share, b.band_low, b.band_high) for label, b in zip(labels, fit.shares)),
        "estimated by deconvolution, assuming the true values are spread evenly within each bin: where they are"
        " not (most answers at one end of a wide bin), the shares and their bands are off, so narrower bins"
        f" (bins: in the survey file) make the estimate safer ({fit.band_method})",
    )


def finite_population(result: NumberResult, population_size: int | None, level: float) -> NumberResult:
    """``result`` with the finite-population figures of its mean, and the total ``N x mean``, when the survey gives
    ``population_size`` (:func:`analysis.numeric.numeric_mean` with ``N``: only the true values' part of the
    variance shrinks by ``1 - n/N``; the noise's does not), in the question's units; the reason when there are
    none (a plain number, more answers than ``N``, fewer than 2)."""
    if population_size is None or result.n == 0 or result.error or result.question.design is None:
        return result
    if result.n > population_size or result.n < 2:
        reason = (
            f"No finite-population figures: the {result.n:,} answers outnumber the survey's population_size of "
            f"{population_size:,}; check population_size."
            if result.n > population_size
            else "No finite-population figures until there are at least 2 answers."
        )
        return replace(result, finite_population_note=reason)
    number = result.question.number
    figures = numeric_mean(result.question.design, *result.sums, level, population_size)
    step, decimals = float(number.step), number.decimals + 2
    mean = float(number.value_of(float(figures.mean)))

    def text(value: float) -> str:
        return f"{value:,.{decimals}f}"

    note = (
        f"If the {result.n:,} answers were a simple random sample without replacement of the {population_size:,} "
        f"people (population_size), the mean's standard error is {text(figures.std_err * step)} and its "
        f"{level:.0%} interval {text(float(number.value_of(float(figures.ci_low))))} – "
        f"{text(float(number.value_of(float(figures.ci_high))))}; the total over the {population_size:,} people is "
        f"{text(population_size * mean)} (standard error {text(population_size * figures.std_err * step)})."
    )
    return replace(result, finite_population_note=note)


# --------------------------------------------------------------------------
# Planning and group differences.


def needed_n(question: Question, half_width: float, level: float, share: float) -> int | None:
    """Answers needed for a margin of ``half_width`` (question units) on the mean."""
    if question.design is None:
        return None
    return numeric_needed_n(question.design, half_width / float(question.number.step), level)


def running_point(question: Question, by_design, confidence_level: float) -> tuple[int, float, SequenceBounds] | None:
    """``(n, mean, confidence sequence)`` of a randomized number in the question's units, from its kept sums under
    its current design (:func:`analysis.numeric.numeric_sequence`); None for a plain number or no answers. A
    target on the number reads it (:mod:`surveys.targets`); the time chart charts single shares only."""
    if question.design is None:
        return None
    (n, total, squares), _, _ = kept_sums(question, by_design)
    if n == 0:
        return None
    number = question.number
    sequence = numeric_sequence(question.design, n, total, squares, confidence_level)
    bounds = SequenceBounds(
        float(number.value_of(float(sequence.low))),
        float(number.value_of(float(sequence.high))),
        confidence_level,
        1,
        sequence.side,
    )
    mean = numeric_mean(question.design, n, total, squares, confidence_level).mean
    return n, float(number.value_of(min(max(mean, 0.0), float(number.steps)))), bounds


def target_scale(question: Question) -> TargetScale | None:
    """A target on a randomized number is a half-width of its mean's sequence in the question's units; none on a
    plain number."""
    if question.design is None:
        return None
    return TargetScale(
        None,
        "a positive number: the wanted half-width of the mean's confidence sequence in the question's units, "
        "such as 1.5",
        decimals=max(2, question.number.decimals + 1),
    )


def target_needed_n(question, margin, level, estimate, by_design, share):
    """Answers the mean's confidence sequence needs, in the worst case, for a half-width of ``margin`` (question
    units): :func:`analysis.numeric.numeric_sequence_needed_n`."""
    if question.design is None:
        return None
    return numeric_sequence_needed_n(question.design, margin / float(question.number.step), level)


def design_needed(question: Question, margin: float, level: float, share: float) -> tuple[int, int | None]:
    """Answers for a margin of ``margin`` (question units) on the mean, whatever the true values (the guided
    editor's table): with one interval at the end and with the confidence sequence of a target; asked directly,
    a value of the range has variance at most ``K^2 / 4`` (Popoviciu), the binomial worst case on ``margin / range``,
    and no sequence (a plain number has none on the results page)."""
    steps = margin / float(question.number.step)
    if question.design is None:
        share_margin = steps / question.number.steps
        return (1 if share_margin >= 1 else sample_size_for_half_width(share_margin, level, 1, 0, 0)), None
    return numeric_needed_n(question.design, steps, level), numeric_sequence_needed_n(question.design, steps, level)


def for_difference(result: NumberResult) -> NumberResult:
    """One group's result as :func:`difference` takes it (its kept sums and design); a plain number's mean is
    not compared (a ValueError naming it)."""
    if result.question.design is None:
        raise ValueError(f"question {result.question.name!r} is not randomized: only randomized numbers are compared")
    return result


def comparable(results) -> bool:
    """Whether two groups' means can be compared: both have answers under the question's current design."""
    return all(
        r.n and r.question.design is not None and r.question.design == results[0].question.design for r in results
    )


def difference(first: NumberResult, second: NumberResult, level: float) -> NumberDifference:
    """The difference of two groups' means in the question's units (:func:`analysis.numeric.numeric_difference`
    on their kept sums, grid steps times ``step``)."""
    fit = numeric_difference(first.question.design, first.sums, second.sums, level)
    number = first.question.number
    step = float(number.step)
    return NumberDifference(
        estimate=fit.estimate * step,
        std_err=fit.std_err * step,
        ci=ConfidenceInterval(fit.low * step, fit.high * step, fit.method, level),
        first_raw=float(number.value_of(float(fit.first.mean))),
        second_raw=float(number.value_of(float(fit.second.mean))),
    )


def difference_sequence(results, confidence_level: float) -> SequenceBounds:
    """The anytime-valid sequence for the difference of two groups' means: each group's
    :func:`analysis.numeric.numeric_sequence` at ``1 - alpha/2`` (a union bound), then ``[L_1 - U_2, U_1 - L_2]``
    in the question's units, as :func:`analysis.sequences.difference_union_sequence` does for shares."""
    each = 1 - (1 - confidence_level) / 2
    one, two = (numeric_sequence(r.question.design, *r.sums, each) for r in results)
    step = float(results[0].question.number.step)
    return SequenceBounds((one.low - two.high) * step, (one.high - two.low) * step, confidence_level, 2)
