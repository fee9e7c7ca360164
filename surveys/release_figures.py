"""What a release publishes (its frozen types) and the figures of one plain or randomized question.

Part of :mod:`surveys.releases`. A figure builder takes ``(survey, plan, policy, key, inputs, sampler, level)``
and returns a :class:`PublishedFigure`: :func:`estimate_figure` (``estimate:``/``mean:``, free),
:func:`counts_figure` (``counts:``/``plain_numbers:``), :func:`plain_mean_figure` (``plain_mean:``) and
:func:`mode_figure` (``mode:``); the break-down's is
:func:`surveys.release_breakdowns.breakdown_figure`.

References
----------
C. Dwork and A. Roth, "The Algorithmic Foundations of Differential Privacy", 2014 (Theorem 3.11).
F. McSherry and K. Talwar, "Mechanism Design via Differential Privacy", FOCS 2007.
G. Casella and R. L. Berger, "Statistical Inference", 2nd ed., 2002, section 5.5.4 (the delta method).
R. Bhatia and C. Davis, "A Better Bound on the Variance", American Mathematical Monthly 107(4), 2000.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from analysis.central import TotalCost, nonnegative_counts
from surveys.definition import Question
from surveys.design_contract import compatible_tallies
from surveys.kinds import kind_of, kind_of_result
from surveys.kinds.number import kept_sums
from surveys.release_noise import NONNEGATIVE_HOW, count_noise, split_noise, z_value
from surveys.release_plans import MEAN, PLAIN_NUMBERS
from surveys.result_types import Tallies
from surveys.results import question_result
from surveys.text_format import MISSING, number_text, percent


@dataclass(frozen=True)
class ReleaseInputs:
    """The kept tallies a release is made from.

    ``tallies`` as :func:`web.gather.read_tallies` gives them (exclusions applied); ``group_tallies``: plain
    question name to what :func:`web.gather.read_group_tallies` gives for it (only those the plan's break-downs
    need); ``answers``: the answers the release counts (published as they are).
    """

    tallies: Tallies
    group_tallies: Mapping[str, Mapping]
    answers: int


@dataclass(frozen=True)
class PublishedRow:
    """One published line: texts for the page, and ``number`` (a share, a mean, a count) for charts and the CSV."""

    label: str
    value: str
    low: str
    high: str
    number: float | None


@dataclass(frozen=True)
class PublishedFigure:
    """One published figure; ``note`` says which noise was added (or none, and why) and how to read it."""

    key: str
    title: str
    rows: tuple[PublishedRow, ...]
    note: str
    epsilon: float


@dataclass(frozen=True)
class Release:
    """A dated snapshot of figures; ``protection`` says in plain sentences what protects the respondents."""

    survey_id: str
    survey_title: str
    made_on: str
    answers: int
    figures: tuple[PublishedFigure, ...]
    cost: TotalCost
    protection: tuple[str, ...]


def _group_counts(question: Question, by_design) -> list[int]:
    """The answers to a plain question in each of its groups (:func:`surveys.kinds.kind_of`'s ``groups``: its
    options, a plain number's bins), over every stored design its type can read."""
    tallies, _ = compatible_tallies(question, by_design)
    return [sum(int(t.counts.get(value, 0)) for t in tallies) for value, _ in kind_of(question).groups(question)]


def _share_rows(
    labels: Sequence[str], counts: Sequence[int], variance: float, level: float
) -> tuple[PublishedRow, ...]:
    """Each group's share of ``counts`` (as shown), with a Wald interval whose variance is the multinomial
    sampling variance ``p (1 - p) / C`` plus the noise's, by the delta method: ``p_i = c_i / C`` moves by
    ``(delta_ij - p_i) / C`` per unit of ``c_j``, so the noise adds ``V ((1 - p_i)^2 + (k - 1) p_i^2) / C^2``."""
    total, k, z = sum(counts), len(counts), z_value(level)
    rows = []
    for label, count in zip(labels, counts):
        if total == 0:
            rows.append(PublishedRow(label, f"{MISSING} (0)", MISSING, MISSING, None))
            continue
        p = count / total
        var = p * (1 - p) / total + variance * ((1 - p) ** 2 + (k - 1) * p * p) / total**2
        half = z * math.sqrt(var)
        low, high = max(p - half, 0.0), min(p + half, 1.0)
        rows.append(PublishedRow(label, f"{percent(p, 1)} ({count})", percent(low, 1), percent(high, 1), p))
    return tuple(rows)


def counts_figure(survey, plan, policy, key, inputs, sampler, level) -> PublishedFigure:
    question = survey.question(key.split(":", 1)[1])
    groups = kind_of(question).groups(question)
    noise = count_noise(plan, policy, key)
    true = _group_counts(question, inputs.tallies.get(question.name, {}))
    shown = nonnegative_counts([c + noise.draw(sampler) for c in true])
    rows = _share_rows([label for _, label in groups], shown, noise.variance, level)
    note = (
        f"{noise.describe(level)}. Then {NONNEGATIVE_HOW}. Each share is a count over their sum; its "
        f"{percent(level, 1, trim=True)} interval adds the noise's variance to the sampling variance (delta method). "
        "The number in brackets is the count of answers, with noise."
    )
    title = f"{'Answers by range' if key.startswith(PLAIN_NUMBERS) else 'Answers'}: {question.label}"
    return PublishedFigure(key, title, rows, note, float(plan.epsilon_each[key]))


def mode_figure(survey, plan, policy, key, inputs, sampler, level) -> PublishedFigure:
    question = survey.question(key.split(":", 1)[1])
    groups = kind_of(question).groups(question)
    true = _group_counts(question, inputs.tallies.get(question.name, {}))
    epsilon, sensitivity = plan.epsilon_each[key], policy.rows_per_person
    index = sampler.exponential_choice(true, epsilon, sensitivity)
    gap = 2 * sensitivity / float(epsilon) * (math.log(len(groups)) + math.log(1 / (1 - level)))
    note = (
        f"Chosen by the exponential mechanism (McSherry and Talwar 2007): each answer with probability proportional "
        f"to exp(epsilon × its count / (2 × {sensitivity})), epsilon {float(epsilon):.3g}. With probability "
        f"{percent(level, 1, trim=True)} the answer chosen has at most {gap:.0f} answers fewer than the most common "
        "one (Dwork and Roth 2014, Theorem 3.11); no count is published."
    )
    row = PublishedRow("Most common answer", groups[index][1], "", "", None)
    return PublishedFigure(key, f"Most common answer: {question.label}", (row,), note, float(epsilon))


def _row_label(question: Question, row: dict) -> str:
    """What one estimate row is called: the option's label (a bin's label), the question's, or the statistic."""
    option, statistic = row.get("option") or "", row.get("statistic")
    if statistic == "mean":
        return "Mean"
    if statistic == "ticked_count":
        return "Options ticked (mean)"
    labels = {choice.name: choice.label for choice in question.choices}
    return labels.get(option, option) or question.label


def _row_text(question: Question, row: dict, value: float | None) -> str:
    if row.get("statistic") in ("mean",):
        return number_text(value, question.number.decimals)
    if row.get("statistic") == "ticked_count":
        return number_text(value, 0)
    return percent(value, 1)


def estimate_figure(survey, plan, policy, key, inputs, sampler, level) -> PublishedFigure:
    question = survey.question(key.split(":", 1)[1])
    result = question_result(question, inputs.tallies.get(question.name, {}), level, "wilson")
    rows = []
    for row in kind_of_result(result).estimate_rows(result, level):
        if row.get("version_of_pooled"):
            continue
        value = row.get("estimate_clipped")
        low, high = row.get("ci_low"), row.get("ci_high")
        rows.append(
            PublishedRow(
                _row_label(question, row),
                _row_text(question, row, value),
                _row_text(question, row, low),
                _row_text(question, row, high),
                None if value is None else float(value),
            )
        )
    note = (
        "No noise added: computed from the randomized answers alone (post-processing of answers randomized before "
        "they were stored, on the respondent's device or, without JavaScript, on the server), so it costs nothing "
        f"from the release budget. The interval is the results page's {percent(level, 1, trim=True)} interval, "
        "which includes both the sampling error and the randomization's."
    )
    title = f"{'Mean' if key.startswith(MEAN) else 'Estimate'}: {question.label}"
    return PublishedFigure(key, title, tuple(rows), note, 0.0)


@dataclass(frozen=True)
class NoisyMean:
    """A plain number's mean from a noisy sum and a noisy count, in grid steps (0 to ``steps``).

    ``mean`` is ``sum / count`` kept within ``[0, steps]`` (None when the noisy count is below 1); ``variance``
    the sampling variance (the Bhatia-Davis bound ``(steps - mean) mean / count``) plus the noise's by the
    delta method (``(V_sum + mean^2 V_count) / count^2``)."""

    mean: float | None
    variance: float


def noisy_mean(noisy_sum: int, noisy_count: int, steps: int, sum_variance: float, count_variance: float) -> NoisyMean:
    """The mean and its variance from the noisy sum and count of answers in ``[0, steps]`` (see
    :class:`NoisyMean`)."""
    if noisy_count < 1:
        return NoisyMean(None, math.inf)
    mean = min(max(noisy_sum / noisy_count, 0.0), float(steps))
    sampling = (steps - mean) * mean / noisy_count
    noise = (sum_variance + mean * mean * count_variance) / noisy_count**2
    return NoisyMean(mean, sampling + noise)


def plain_mean_figure(survey, plan, policy, key, inputs, sampler, level) -> PublishedFigure:
    """The mean of a plain number: noisy sum over noisy count, both from the kept tallies.

    Bounded-range approach (Dwork and Roth 2014, section 3.3, the Laplace mechanism; its discrete form here):
    each answer is kept as its grid position ``y = (x - min) / step`` in ``[0, steps]`` (an answer outside the
    declared ``[min, max]`` is refused when sent, so every kept value is within it), and the kept sum of ``y``
    and count of answers are each noised once. One person changes the sum by at most
    ``rows_per_person * steps`` (that is ``rows_per_person * (max - min)`` in the question's units) and the
    count by at most ``rows_per_person``; the figure's epsilon (or ``rho``) is split equally between the two
    (:func:`surveys.release_noise.split_noise`), so it costs what a count figure costs. The mean
    ``min + step * sum / count`` is post-processing. Its interval adds the sampling variance, bounded by
    Bhatia and Davis (2000) as ``(max - mean)(mean - min) / count`` since no spread is kept without noise, to
    the noise's variance (delta method): conservative for the sampling part."""
    question = survey.question(key.split(":", 1)[1])
    number = question.number
    (count, total, _), _, _ = kept_sums(question, inputs.tallies.get(question.name, {}))
    on_sum, on_count = split_noise(plan, policy, key, (policy.rows_per_person * number.steps, policy.rows_per_person))
    figure = noisy_mean(
        total + on_sum.draw(sampler), count + on_count.draw(sampler), number.steps, on_sum.variance, on_count.variance
    )
    step, low_end = float(number.step), float(number.minimum)
    if figure.mean is None:
        row = PublishedRow("Mean", MISSING, MISSING, MISSING, None)
    else:
        half = z_value(level) * math.sqrt(figure.variance)
        ends = [min(max(figure.mean + sign * half, 0.0), float(number.steps)) for sign in (-1, 1)]
        mean, low, high = (low_end + step * y for y in (figure.mean, *ends))
        decimals = number.decimals
        row = PublishedRow(
            "Mean", number_text(mean, decimals), number_text(low, decimals), number_text(high, decimals), mean
        )
    note = (
        f"The sum of the answers (each within the declared range) and their number were each given noise once. "
        f"On the sum, counted in steps of {number.text(number.step)} above {number.text(number.minimum)}: "
        f"{on_sum.describe(level, 'the sum')}. "
        f"On the number of answers: {on_count.describe(level, 'the number')}. "
        "The mean is the noisy sum over the noisy number. "
        f"Its {percent(level, 1, trim=True)} interval adds the noise's variance to the largest sampling variance "
        "answers within the range can have around this mean (Bhatia and Davis 2000), so it is wide rather than narrow."
    )
    return PublishedFigure(key, f"Mean: {question.label}", (row,), note, float(plan.epsilon_each[key]))
