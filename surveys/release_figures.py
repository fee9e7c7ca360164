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
from fractions import Fraction

from analysis.central import TotalCost, count_interval, count_scale, mode_shortfall, nonnegative_counts
from surveys.definition import Question
from surveys.design_contract import compatible_tallies
from surveys.kinds import kind_of, kind_of_result
from surveys.kinds.number import kept_sums
from surveys.release_noise import NONNEGATIVE_WORDS, CountNoise, count_noise, split_noise, z_value
from surveys.release_plans import LAPLACE, MEAN, PLAIN_NUMBERS
from surveys.release_words import Number, Words, say, words
from surveys.result_types import Tallies
from surveys.results import question_result
from surveys.text_format import MISSING, N_, number_text, percent


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
    title_words: Words | None = None  # ``title`` as the catalogues' message (:mod:`surveys.release_words`)
    note_words: Words | None = None  # ``note`` likewise; None in releases stored before them

    @classmethod
    def of(cls, key: str, title: Words, rows: tuple[PublishedRow, ...], note: Words, epsilon: float):
        """The figure whose English ``title`` and ``note`` are ``title`` and ``note`` written out."""
        return cls(key, say(title), rows, say(note), epsilon, title, note)


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
    protection_words: tuple[Words, ...] = ()  # ``protection`` as the catalogues' messages


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
    note = words(
        N_(
            "%(noise)s. Then %(how)s. Each share is a count over their sum; its %(level)s interval adds the noise's "
            "variance to the sampling variance (delta method). The number in brackets is the count of answers, with "
            "noise."
        ),
        noise=noise.describe(level),
        how=NONNEGATIVE_WORDS,
        level=Number(level, "level"),
    )
    if key.startswith(PLAIN_NUMBERS):
        title = words(N_("Answers by range: %(question)s"), question=question.label)
    else:
        title = words(N_("Answers: %(question)s"), question=question.label)
    return PublishedFigure.of(key, title, rows, note, float(plan.epsilon_each[key]))


#: The share of a ``mode:`` figure's epsilon spent on the noisy number of answers its interval needs; the rest
#: pays for the choice (sequential composition: the figure costs what the plan charged).
MODE_TOTAL_SHARE = Fraction(1, 4)
#: The labels of a ``mode:`` figure's rows (the catalogues translate them where they are shown).
MODE_ROWS = (
    N_("Most common answer"),
    N_("Its share is at most this many percentage points below the largest share, with 95 percent confidence"),
    N_("Answers to the question (with noise)"),
)
#: The shortfall row's label at a level other than 95% (the note says which).
MODE_SHORTFALL_ANY_LEVEL = N_(
    "Its share is at most this many percentage points below the largest share, at the level the note gives"
)


def mode_figure(survey, plan, policy, key, inputs, sampler, level) -> PublishedFigure:
    """The most common answer, chosen by the exponential mechanism, with how far it may fall short.

    The figure's epsilon is split (:data:`MODE_TOTAL_SHARE`): a quarter noises the number of answers to the
    question (discrete Laplace, published), three quarters pay for the choice (McSherry and Talwar 2007). Pure
    parts composed sequentially, so a budget with ``delta > 0`` charges the figure ``rho = epsilon^2 / 2`` as
    before. The interval is :func:`analysis.central.mode_shortfall`'s, computed from the published noisy
    number alone: the chosen answer's share is at most ``d`` below the largest share, with probability
    ``level`` over the sample and the noise."""
    question = survey.question(key.split(":", 1)[1])
    groups = kind_of(question).groups(question)
    true = _group_counts(question, inputs.tallies.get(question.name, {}))
    epsilon, sensitivity = plan.epsilon_each[key], policy.rows_per_person
    on_total = epsilon * MODE_TOTAL_SHARE
    total_noise = CountNoise(LAPLACE, count_scale(on_total, sensitivity), sensitivity, on_total)
    noisy_total = sum(true) + total_noise.draw(sampler)
    choice_epsilon = epsilon - on_total
    index = sampler.exponential_choice(true, choice_epsilon, sensitivity)
    shown_total = max(noisy_total, 0)
    bound = mode_shortfall(shown_total, len(groups), float(choice_epsilon), sensitivity, total_noise.scale, level)
    low, high = count_interval(noisy_total, total_noise.scale, level)
    answer = groups[index][1]
    points = f"{bound.shortfall * 100:.1f}"
    rows = (
        PublishedRow(MODE_ROWS[0], answer, "", "", None),
        PublishedRow(
            MODE_ROWS[1] if level == 0.95 else MODE_SHORTFALL_ANY_LEVEL, points, "0.0", points, bound.shortfall
        ),
        PublishedRow(MODE_ROWS[2], str(shown_total), str(low), str(high), float(shown_total)),
    )
    chosen = words(
        N_(
            "Chosen by the exponential mechanism (McSherry and Talwar 2007): each answer with probability "
            "proportional to exp(epsilon × its count / (2 × %(sensitivity)s)), epsilon %(epsilon)s (three quarters "
            "of this figure's epsilon). The other quarter paid for the number of answers: %(total)s."
        ),
        sensitivity=Number(sensitivity, "whole"),
        epsilon=Number(float(choice_epsilon), "g3"),
        total=total_noise.describe(level, "the number of answers"),
    )
    if bound.answers_low < 1:
        claim = words(
            N_(
                "Too few answers for a useful bound: the share of “%(answer)s” may be anywhere from 0 to 100 "
                "percentage points below the largest share. No count of any answer is published."
            ),
            answer=answer,
        )
    else:
        claim = words(
            N_(
                "With probability at least %(level)s (over who answered and the noise), “%(answer)s” is at most "
                "%(shortfall)s percentage points less common than the most common answer among the people the "
                "respondents are a random sample of (0 when it is the most common): at most %(choice)s points "
                "because the choice is random (Dwork and Roth 2014, Theorem 3.11) and %(sampling)s points of "
                "sampling error (Hoeffding's inequality for each of the other answers), taking the number of "
                "answers as at least %(low)s. No count of any answer is published."
            ),
            level=Number(level, "level"),
            answer=answer,
            shortfall=Number(bound.shortfall, "points"),
            choice=Number(bound.choice, "points"),
            sampling=Number(bound.sampling, "points"),
            low=Number(bound.answers_low, "whole"),
        )
    note = words(N_("%(chosen)s %(claim)s"), chosen=chosen, claim=claim)
    title = words(N_("Most common answer: %(question)s"), question=question.label)
    return PublishedFigure.of(key, title, rows, note, float(epsilon))


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
    note = words(
        N_(
            "No noise added: computed from the randomized answers alone (post-processing of answers randomized "
            "before they were stored, on the respondent's device or, without JavaScript, on the server), so it costs "
            "nothing from the release budget. The interval is the results page's %(level)s interval, which includes "
            "both the sampling error and the randomization's."
        ),
        level=Number(level, "level"),
    )
    if key.startswith(MEAN):
        title = words(N_("Mean: %(question)s"), question=question.label)
    else:
        title = words(N_("Estimate: %(question)s"), question=question.label)
    return PublishedFigure.of(key, title, tuple(rows), note, 0.0)


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
        row = PublishedRow(N_("Mean"), MISSING, MISSING, MISSING, None)
    else:
        half = z_value(level) * math.sqrt(figure.variance)
        ends = [min(max(figure.mean + sign * half, 0.0), float(number.steps)) for sign in (-1, 1)]
        mean, low, high = (low_end + step * y for y in (figure.mean, *ends))
        decimals = number.decimals
        row = PublishedRow(
            N_("Mean"), number_text(mean, decimals), number_text(low, decimals), number_text(high, decimals), mean
        )
    note = words(
        N_(
            "The sum of the answers (each within the declared range) and their number were each given noise once. "
            "On the sum, counted in steps of %(step)s above %(minimum)s: %(on_sum)s. On the number of answers: "
            "%(on_count)s. The mean is the noisy sum over the noisy number. Its %(level)s interval adds the noise's "
            "variance to the largest sampling variance answers within the range can have around this mean (Bhatia "
            "and Davis 2000), so it is wide rather than narrow."
        ),
        step=number.text(number.step),
        minimum=number.text(number.minimum),
        on_sum=on_sum.describe(level, "the sum"),
        on_count=on_count.describe(level, "the number"),
        level=Number(level, "level"),
    )
    title = words(N_("Mean: %(question)s"), question=question.label)
    return PublishedFigure.of(key, title, (row,), note, float(plan.epsilon_each[key]))
