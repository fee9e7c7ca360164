"""Public result releases: which figures a release may hold, what it costs, and the figures with their noise.

Pure domain (no Flask, no database): the web layer reads the kept tallies (:mod:`web.gather`), asks
:func:`plan_release` and :func:`check_release`, and hands the tallies to :func:`make_release` with the secure
sampler of :mod:`surveys.central_noise`; storage keeps the JSON of :func:`release_to_json`.

What a release may hold (:func:`figure_choices`), by key:

``estimate:<q>`` and ``mean:<q>``
    A randomized question's estimate (a randomized number's mean and distribution). Each stored answer was
    randomized on the respondent's device, so a figure computed from the stored answers alone is
    post-processing: it costs nothing from the release budget (Dwork and Roth 2014, Proposition 2.1).
``counts:<q>`` and ``plain_numbers:<q>``
    The answers to a plain question by option (a plain number's by its declared bins). A person changes the
    table by at most ``rows_per_person`` answers, so each count gets discrete Laplace noise of scale
    ``rows_per_person / epsilon`` (discrete Gaussian noise with ``sigma^2 = rows_per_person^2 / (2 rho)`` when
    the budget has ``delta > 0``); the cells are disjoint, so the table costs one epsilon (parallel composition).
``breakdown:<randomized q>:<plain q>``
    A randomized question's estimate per answer to a plain one. Each cell (plain answer x stored noisy answer,
    under the question's current design) is noised once; the cells are disjoint (parallel composition); each
    group's estimate is the question's own estimator applied to the noisy cells, and its interval adds the
    noise's variance to the sampling variance by the delta method (Casella and Berger 2002, section 5.5.4: the
    noise is independent of the sample, so the variances add). The estimator is affine in the observed shares
    for every design a break-down takes; its map is read once per question from the kind's own ``compute``
    (:func:`_affine_estimator`), so a group costs a few array operations, not an estimate.
``mode:<plain q>``
    The most common answer to a plain question, chosen by the exponential mechanism with utility the option's
    count, sensitivity ``rows_per_person`` (McSherry and Talwar 2007).

Neighbouring data sets differ by one PERSON, who may contribute up to ``rows_per_person`` answers: every
sensitivity is multiplied by it (group privacy, Dwork and Roth 2014, section 2.3). A release's epsilon is
split equally over its figures that cost budget (sequential composition); with ``delta > 0`` the release's
epsilon is read as the zero-concentrated budget ``rho`` that converts to it at the survey's delta
(:func:`analysis.central.rho_for`), and that ``rho`` is split. Releases add up by
:func:`analysis.central.total_cost`, the tightest accounting that applies.

Counts are shown whole and non-negative by :func:`analysis.central.nonnegative_counts` (see
:data:`NONNEGATIVE_HOW`); shares and estimates are computed from the counts as shown.

References
----------
C. Dwork and A. Roth, "The Algorithmic Foundations of Differential Privacy", 2014.
F. McSherry and K. Talwar, "Mechanism Design via Differential Privacy", FOCS 2007.
M. Bun and T. Steinke, "Concentrated Differential Privacy", TCC 2016.
C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020.
G. Casella and R. L. Berger, "Statistical Inference", 2nd ed., 2002, section 5.5.4 (the delta method).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date
from fractions import Fraction
from functools import lru_cache
from statistics import NormalDist

import numpy as np

from analysis.central import (
    PrivacyCost,
    TotalCost,
    count_scale,
    discrete_gaussian_pmf,
    discrete_gaussian_variance,
    discrete_laplace_quantile,
    discrete_laplace_variance,
    gaussian_sigma2,
    nonnegative_counts,
    rho_for,
    total_cost,
    zcdp_epsilon,
)
from surveys.central_noise import CentralSampler
from surveys.definition import NUMBER_TYPES, Question, Survey
from surveys.design_contract import compatible_tallies, question_design_key
from surveys.kinds import breakdown_questions, kind_of, kind_of_result
from surveys.result_types import Tallies
from surveys.results import question_result
from surveys.schema_releases import ReleasePolicy
from surveys.tables import safe_csv
from surveys.text_format import MISSING, count_text, number_text, percent

__all__ = [
    "ESTIMATE",
    "MEAN",
    "COUNTS",
    "PLAIN_NUMBERS",
    "BREAKDOWN",
    "MODE",
    "LAPLACE",
    "GAUSSIAN",
    "CSV_COLUMNS",
    "NONNEGATIVE_HOW",
    "FigureChoice",
    "PublishedFigure",
    "PublishedRow",
    "Release",
    "ReleaseInputs",
    "ReleasePlan",
    "ReleasePolicy",
    "ReleaseRefused",
    "budget_left",
    "check_release",
    "figure_choices",
    "make_release",
    "plan_release",
    "release_cost",
    "release_csv",
    "release_from_json",
    "release_to_json",
]

ESTIMATE, MEAN, COUNTS, PLAIN_NUMBERS, BREAKDOWN, MODE = (
    "estimate",
    "mean",
    "counts",
    "plain_numbers",
    "breakdown",
    "mode",
)
#: The figures that cost budget (from plain answers); ``estimate`` and ``mean`` are post-processing.
COSTING = frozenset({COUNTS, PLAIN_NUMBERS, BREAKDOWN, MODE})
LAPLACE = "discrete Laplace"
GAUSSIAN = "discrete Gaussian"
#: The results tables whose answers are one count per person under one design: what a break-down can noise.
_CELL_TABLES = ("yes_no", "choice")
#: Grid of the exact rho and epsilon a Gaussian release splits (rounded down on it: never more privacy loss).
_GRID = 10**12
#: How :func:`analysis.central.nonnegative_counts` makes counts whole and non-negative, for the notes.
NONNEGATIVE_HOW = (
    "the noisy counts were replaced by the nearest whole, non-negative counts with the same total (each lowered "
    "by one common amount, any below it set to 0, then rounded keeping the total; all 0 when the noisy total is "
    "0 or below), so the expected total is the true one"
)
CSV_COLUMNS = ("figure", "title", "label", "value", "low", "high", "number")


class ReleaseRefused(ValueError):
    """A release that cannot be made; the message says why in plain words."""


# --------------------------------------------------------------------------
# What a release may hold.


@dataclass(frozen=True)
class FigureChoice:
    """One figure a release may include: its ``key``, what the researcher reads, whether it costs budget."""

    key: str
    label: str
    costs_budget: bool


def _breakdown_ready(question: Question) -> bool:
    """Whether a randomized question's answers are one count per person under its current design (a yes/no or
    ``select_one`` not split into two random groups): the cells a break-down noises."""
    if kind_of(question).results_table not in _CELL_TABLES:
        return False
    return question_design_key(question, "1") == question_design_key(question)


def figure_choices(survey: Survey) -> tuple[FigureChoice, ...]:
    """Every figure a release of ``survey`` may include, in the survey's order: the randomized questions'
    estimates (free), then each plain question's counts and most common answer, then the break-downs."""
    choices = []
    for q in survey.randomized_questions:
        if kind_of(q).results_table == "number":
            choices.append(FigureChoice(f"{MEAN}:{q.name}", f"Mean of “{q.label}” (randomized answers)", False))
        else:
            choices.append(FigureChoice(f"{ESTIMATE}:{q.name}", f"Estimate of “{q.label}” (randomized answers)", False))
    plain = breakdown_questions(survey)
    for q in plain:
        if q.type in NUMBER_TYPES:
            choices.append(FigureChoice(f"{PLAIN_NUMBERS}:{q.name}", f"Answers to “{q.label}” by range", True))
        else:
            choices.append(FigureChoice(f"{COUNTS}:{q.name}", f"Answers to “{q.label}”: counts and shares", True))
        choices.append(FigureChoice(f"{MODE}:{q.name}", f"Most common answer to “{q.label}”", True))
    for q in survey.randomized_questions:
        if _breakdown_ready(q):
            for by in plain:
                choices.append(FigureChoice(f"{BREAKDOWN}:{q.name}:{by.name}", f"“{q.label}” by “{by.label}”", True))
    return tuple(choices)


# --------------------------------------------------------------------------
# Plans and costs.


@dataclass(frozen=True)
class ReleasePlan:
    """What one release will hold and cost, before anything is drawn.

    Attributes
    ----------
    survey_id : str
    keys : tuple of str
        The figures, in the order asked.
    epsilon_each : dict of str to Fraction
        Each figure's own epsilon: 0 for a free figure; the release's epsilon over the costing figures (discrete
        Laplace, exponential mechanism); with ``delta > 0`` the epsilon its share of ``rho`` converts to at the
        survey's delta (a Gaussian count) or ``sqrt(2 rho)`` (the exponential mechanism, pure).
    cost : TotalCost
        The release's cost (:func:`analysis.central.total_cost` of the figures' costs).
    mechanism : str
        :data:`LAPLACE` or :data:`GAUSSIAN`: the noise on counts.
    rho_each : dict of str to Fraction
        With ``delta > 0``: each costing figure's share of the release's zero-concentrated budget; else empty.
    figure_costs : tuple of PrivacyCost
        Each costing figure's cost, in the order of ``keys``.
    """

    survey_id: str
    keys: tuple[str, ...]
    epsilon_each: dict[str, Fraction]
    cost: TotalCost
    mechanism: str
    rho_each: dict[str, Fraction] = field(default_factory=dict)
    figure_costs: tuple[PrivacyCost, ...] = ()

    @property
    def costing_keys(self) -> tuple[str, ...]:
        return tuple(key for key in self.keys if key.split(":", 1)[0] in COSTING)


def _no_policy(survey: Survey) -> ReleaseRefused:
    return ReleaseRefused(
        f"The survey “{survey.title}” has no `releases:` key in its survey file, so no release can be made. "
        "Add one with a budget, such as releases: {budget: {epsilon: 1}}."
    )


def _exact(epsilon) -> Fraction:
    """``epsilon`` as an exact Fraction (a float as the decimal it prints as); ReleaseRefused if not a number."""
    if isinstance(epsilon, bool):
        raise ReleaseRefused(f"The epsilon of a release must be a number, got {epsilon!r}.")
    try:
        value = Fraction(repr(epsilon)) if isinstance(epsilon, float) else Fraction(epsilon)
    except (TypeError, ValueError, ZeroDivisionError):
        message = f"The epsilon of a release must be a number such as 0.5, got {str(epsilon)[:20]!r}."
        raise ReleaseRefused(message) from None
    return value


def _floor(value: float) -> Fraction:
    """``value`` rounded down on a grid of 10^-12, exactly: what a figure may spend never exceeds its share."""
    return Fraction(math.floor(value * _GRID), _GRID)


def plan_release(survey: Survey, keys: Sequence[str], epsilon: Fraction) -> ReleasePlan:
    """The plan of a release of ``survey`` holding ``keys``, spending ``epsilon`` over its costing figures.

    Raises
    ------
    ReleaseRefused
        (a ``ValueError``) naming what is wrong: the survey has no ``releases:`` key, no figure is chosen, a key
        is unknown or repeated, or ``epsilon`` is not above 0 while a figure costs budget.
    """
    policy = survey.release_policy
    if policy is None:
        raise _no_policy(survey)
    keys = tuple(keys)
    if not keys:
        raise ReleaseRefused("Choose at least one figure to publish.")
    known = {choice.key: choice for choice in figure_choices(survey)}
    for key in keys:
        if key not in known:
            shown = str(key)[:80]
            raise ReleaseRefused(
                f"There is no figure “{shown}” in the survey “{survey.title}”; "
                f"the figures are: {', '.join(known) or 'none'}."
            )
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise ReleaseRefused(f"Each figure can be in a release once; “{repeated[0]}” is chosen twice.")
    epsilon = _exact(epsilon)
    costing = [key for key in keys if known[key].costs_budget]
    if costing and epsilon <= 0:
        raise ReleaseRefused(f"The epsilon of a release must be above 0, got {float(epsilon):g}.")
    each = dict.fromkeys(keys, Fraction(0))
    rho_each: dict[str, Fraction] = {}
    costs = []
    if policy.delta == 0:
        mechanism = LAPLACE
        for key in costing:
            each[key] = epsilon / len(costing)
            costs.append(PrivacyCost(float(each[key])))
    else:
        mechanism = GAUSSIAN
        share = _floor(rho_for(float(epsilon), policy.delta) / len(costing)) if costing else Fraction(0)
        for key in costing:
            rho_each[key] = share
            if key.startswith(MODE + ":"):
                each[key] = _floor(math.sqrt(2 * share))
                costs.append(PrivacyCost(float(each[key]), 0.0, float(share)))
            else:
                each[key] = _floor(zcdp_epsilon(float(share), policy.delta))
                costs.append(PrivacyCost(float(each[key]), policy.delta, float(share)))
    return ReleasePlan(
        survey_id=survey.id,
        keys=keys,
        epsilon_each=each,
        cost=total_cost(costs, policy.delta),
        mechanism=mechanism,
        rho_each=rho_each,
        figure_costs=tuple(costs),
    )


def release_cost(plan: ReleasePlan) -> PrivacyCost:
    """What the ledger keeps for a release: its epsilon and delta (:attr:`ReleasePlan.cost`) and the sum of its
    figures' ``rho`` (0 for a pure release), so that releases add up by :func:`analysis.central.total_cost`."""
    rho = math.fsum(cost.rho for cost in plan.figure_costs)
    return PrivacyCost(plan.cost.epsilon, plan.cost.delta, rho)


def budget_left(policy: ReleasePolicy, spent: Sequence[PrivacyCost]) -> TotalCost:
    """What is left of ``policy``'s budget after the releases ``spent``, by the accounting that spends it.

    Pure budget: ``epsilon - spent`` (sequential composition). With ``delta > 0``: the budget's ``rho``
    (:func:`analysis.central.rho_for`) minus the ``rho`` spent, read back as the epsilon the next release may ask
    for (:func:`analysis.central.zcdp_epsilon` at the budget's delta), ``method == "zCDP"``, or, when every release
    so far was pure and that is more, the budget minus their sum (``"sequential"``: the next release's delta is then
    the only one); ``sequential_epsilon`` is the budget minus the epsilons spent, for comparison. Never below 0.
    """
    sequential = max(float(policy.epsilon) - math.fsum(cost.epsilon for cost in spent), 0.0)
    if policy.delta == 0:
        used = total_cost(list(spent), 0.0).epsilon if spent else 0.0
        left = max(float(policy.epsilon) - used, 0.0)
        return TotalCost(epsilon=left, delta=0.0, method="sequential", sequential_epsilon=sequential)
    rho_left = rho_for(float(policy.epsilon), policy.delta) - math.fsum(_rho_of(cost) for cost in spent)
    left = min(zcdp_epsilon(rho_left, policy.delta) if rho_left > 0 else 0.0, float(policy.epsilon))
    if all(cost.delta == 0 for cost in spent) and sequential > left:  # only pure releases so far: their sum
        return TotalCost(epsilon=sequential, delta=policy.delta, method="sequential", sequential_epsilon=sequential)
    return TotalCost(epsilon=left, delta=policy.delta, method="zCDP", sequential_epsilon=sequential)


def _rho_of(cost: PrivacyCost) -> float:
    """A cost's zero-concentrated ``rho``: its own, or ``epsilon^2 / 2`` for a pure one (Bun and Steinke 2016,
    Proposition 1.4)."""
    return cost.rho if cost.rho > 0 else (cost.epsilon**2 / 2 if cost.delta == 0 else math.inf)


def check_release(
    policy: ReleasePolicy | None,
    plan: ReleasePlan,
    spent: Sequence[PrivacyCost],
    answers_now: int,
    answers_at_last: int | None,
) -> None:
    """Refuse (``ReleaseRefused``) a release the survey's rules do not allow: no ``releases:`` key, fewer than
    ``min_new_answers`` answers beyond the previous release's (the first: beyond none), or a cost that takes
    the releases together over the budget."""
    if policy is None:
        raise ReleaseRefused(
            "This survey has no `releases:` key in its survey file, so no release can be made. "
            "Add one with a budget, such as releases: {budget: {epsilon: 1}}."
        )
    before = answers_at_last or 0
    fresh = answers_now - before
    if fresh < policy.min_new_answers:
        since = "since the last release" if answers_at_last is not None else "so far"
        raise ReleaseRefused(
            f"There are only {count_text(max(fresh, 0), 'new answer')} {since}; a release needs at least "
            f"{policy.min_new_answers} (min_new_answers), so that no figure changes with one person's answer."
        )
    if not plan.costing_keys:
        return
    used = total_cost(list(spent), policy.delta).epsilon if spent else 0.0
    after = total_cost([*spent, release_cost(plan)], policy.delta)
    budget = float(policy.epsilon)
    if after.epsilon > budget * (1 + 1e-9):
        left = budget_left(policy, spent).epsilon
        raise ReleaseRefused(
            f"This release would go over the survey's budget: it asks for epsilon {plan.cost.epsilon:.4g}, "
            f"{used:.4g} of the budget {budget:.4g} is spent and {left:.4g} is left "
            f"(over by {after.epsilon - budget:.4g}). Choose fewer figures or a smaller epsilon."
        )


# --------------------------------------------------------------------------
# The figures.


@dataclass(frozen=True)
class ReleaseInputs:
    """The kept tallies a release is made from.

    ``tallies`` as :func:`web.gather._read_tallies` gives them (exclusions applied); ``group_tallies``: plain
    question name to what :func:`web.gather._read_group_tallies` gives for it (only those the plan's break-downs
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


@dataclass(frozen=True)
class _Noise:
    """The noise added to each count of one figure."""

    mechanism: str
    scale: Fraction  # discrete Laplace: t = sensitivity / epsilon; discrete Gaussian: sigma^2
    sensitivity: int
    epsilon: Fraction

    def draw(self, sampler: CentralSampler) -> int:
        if self.mechanism == LAPLACE:
            return int(sampler.discrete_laplace(self.scale))
        return int(sampler.discrete_gaussian(self.scale))

    @property
    def variance(self) -> float:
        if self.mechanism == LAPLACE:
            return float(discrete_laplace_variance(self.scale))
        return float(discrete_gaussian_variance(self.scale))

    def half_width(self, level: float) -> int:
        """The least ``m`` with ``P(|noise| <= m) >= level``, exactly: the discrete Laplace's quantile
        (:func:`analysis.central.discrete_laplace_quantile`), the discrete Gaussian's summed from its pmf."""
        if self.mechanism == LAPLACE:
            return int(discrete_laplace_quantile(level, self.scale))
        centre = discrete_gaussian_pmf(0, self.scale)
        sigma2, m, inside = float(self.scale), 0, centre
        while inside < level:
            m += 1
            inside += 2 * centre * math.exp(-(m * m) / (2 * sigma2))
        return m

    def describe(self, level: float) -> str:
        if self.mechanism == LAPLACE:
            size = f"scale {float(self.scale):.3g} = {self.sensitivity} / epsilon {float(self.epsilon):.3g}"
        else:
            size = (
                f"variance sigma² = {float(self.scale):.3g}, sensitivity {self.sensitivity}, "
                f"epsilon {float(self.epsilon):.3g}"
            )
        return (
            f"{self.mechanism} noise ({size}) was added once to each count; each count is within "
            f"±{self.half_width(level)} of the count before noise with probability {percent(level, 1, trim=True)}"
        )


def _z(level: float) -> float:
    return NormalDist().inv_cdf(0.5 + level / 2)


def _noise(plan: ReleasePlan, policy: ReleasePolicy, key: str) -> _Noise:
    sensitivity = policy.rows_per_person
    epsilon = plan.epsilon_each[key]
    if plan.mechanism == LAPLACE:
        return _Noise(LAPLACE, count_scale(epsilon, sensitivity), sensitivity, epsilon)
    return _Noise(GAUSSIAN, gaussian_sigma2(plan.rho_each[key], sensitivity), sensitivity, epsilon)


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
    total, k, z = sum(counts), len(counts), _z(level)
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


def _counts_figure(survey, plan, policy, key, inputs, sampler, level) -> PublishedFigure:
    question = survey.question(key.split(":", 1)[1])
    groups = kind_of(question).groups(question)
    noise = _noise(plan, policy, key)
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


def _mode_figure(survey, plan, policy, key, inputs, sampler, level) -> PublishedFigure:
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


def _estimate_figure(survey, plan, policy, key, inputs, sampler, level) -> PublishedFigure:
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
        "No noise added: computed from the randomized answers alone (post-processing of answers randomized on "
        "the respondents' devices), so it costs nothing from the release budget. The interval is the results "
        f"page's {percent(level, 1, trim=True)} interval, which includes the randomization's error."
    )
    title = f"{'Mean' if key.startswith(MEAN) else 'Estimate'}: {question.label}"
    return PublishedFigure(key, title, tuple(rows), note, 0.0)


#: Answers per cell at the points where a question's estimator is read (:func:`_affine_estimator`).
_PROBE = 1000


def _raw_estimates(question: Question, counts: Sequence[int]) -> list[tuple[str, float | None]]:
    """``[(option, estimate_raw)]`` of the question's own estimator (its kind's ``compute``) on ``counts`` of its
    answers under its current design."""
    kind = kind_of(question)
    by_design = {question_design_key(question): dict(zip(question.choice_names, counts))}
    result = kind.compute(question, by_design, 0.95, "wald")
    return [
        (row.get("option") or "", row.get("estimate_raw"))
        for row in kind.estimate_rows(result, 0.95)
        if not row.get("version_of_pooled")
    ]


@lru_cache(maxsize=256)
def _affine_estimator(question: Question) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """``(options, base, G)``: the question's unbiased estimator as an affine map of its observed shares
    ``lambda``, ``estimate = base + G lambda``, read from its kind's own ``compute``.

    Every design a break-down takes (yes/no, ``select_one``, a misclassification matrix; one design, one arm)
    estimates ``P^-1 (lambda - offset)``: affine in ``lambda``. With ``u`` the uniform shares, ``estimate(u)``
    and column ``j`` of ``G`` is ``(estimate((u + e_j) / 2) - estimate(u)) / (1/2) = A (e_j - u)``, so that
    ``estimate(u) + A (lambda - u) = estimate(u) + G lambda`` for every ``lambda`` on the simplex: ``base`` is
    ``estimate(u)``. Read once per question (k + 1 estimates) and kept.
    """
    k = len(question.choice_names)
    base_rows = _raw_estimates(question, [_PROBE] * k)
    options = tuple(option for option, _ in base_rows)
    base = np.array([np.nan if raw is None else raw for _, raw in base_rows], dtype=float)
    columns = []
    for j in range(k):
        counts = [_PROBE] * k
        counts[j] += k * _PROBE
        moved = np.array([np.nan if raw is None else raw for _, raw in _raw_estimates(question, counts)], dtype=float)
        columns.append((moved - base) * 2)
    return options, base, np.column_stack(columns)


def _group_estimates(question: Question, counts: Sequence[int], variance: float):
    """``[(option, estimate, total variance)]`` of one group from its noisy cells ``counts``.

    ``estimate = base + G lambda`` (:func:`_affine_estimator`) with ``lambda = counts / n``. Its variance is the
    multinomial sampling variance ``[G (diag(lambda) - lambda lambda^T) G^T]_ii / n`` plus the noise's by the
    delta method: ``lambda`` moves by ``(e_l - lambda) / n`` per unit of cell ``l``, each cell's noise has
    variance ``V``, so the noise adds ``V / n^2 sum_l (G_il - (G lambda)_i)^2`` (Casella and Berger 2002,
    section 5.5.4; the noise is independent of the sample).
    """
    options, base, g = _affine_estimator(question)
    n = sum(counts)
    shares = np.asarray(counts, dtype=float) / n
    moved = g @ shares
    sampling = np.einsum("ij,j,ij->i", g, shares, g) - moved**2
    noise = ((g - moved[:, None]) ** 2).sum(axis=1) * variance / n
    return list(zip(options, (base + moved).tolist(), ((sampling + noise) / n).tolist()))


def _unit(value: float) -> float:
    """``value`` kept within ``[0, 1]`` (a share)."""
    return min(max(value, 0.0), 1.0)


def _breakdown_figure(survey, plan, policy, key, inputs, sampler, level) -> PublishedFigure:
    _, name, by_name = key.split(":", 2)
    question, by = survey.question(name), survey.question(by_name)
    noise = _noise(plan, policy, key)
    design_key = question_design_key(question)
    answers = question.choice_names
    labels = {choice.name: choice.label for choice in question.choices}
    groups = list(kind_of(by).groups(by))
    if not by.required or by.relevant is not None:
        groups.append((None, "No answer"))
    grouped = inputs.group_tallies.get(by.name, {})
    z, rows = _z(level), []
    for value, group_label in groups:
        cells = grouped.get(value, {}).get(question.name, {}).get(design_key, {})
        shown = list(nonnegative_counts([int(cells.get(a, 0)) + noise.draw(sampler) for a in answers]))
        if sum(shown) == 0:
            rows.append(PublishedRow(f"{group_label}", f"{MISSING} (0)", MISSING, MISSING, None))
            continue
        for option, raw, total in _group_estimates(question, shown, noise.variance):
            label = group_label if not option else f"{group_label}: {labels.get(option, option)}"
            if not (math.isfinite(raw) and math.isfinite(total)):
                rows.append(PublishedRow(label, MISSING, MISSING, MISSING, None))
                continue
            half = z * math.sqrt(max(total, 0.0))
            low, shown_value, high = (_unit(raw - half), _unit(raw), _unit(raw + half))
            text = f"{percent(shown_value, 1)} ({sum(shown)})"
            rows.append(PublishedRow(label, text, percent(low, 1), percent(high, 1), shown_value))
    note = (
        f"{noise.describe(level)}; a cell is the answers of one group with one stored (randomized) answer, so the "
        f"cells are disjoint and the table costs one epsilon. Then {NONNEGATIVE_HOW}, group by group. Each estimate "
        "applies the question's own estimator to the noisy cells; its interval adds the noise's variance to the "
        "sampling variance (delta method). The number in brackets is the group's answers (the sum of its noisy "
        "cells). Only answers under the question's current design are counted."
    )
    return PublishedFigure(key, f"{question.label} by {by.label}", tuple(rows), note, float(plan.epsilon_each[key]))


_BUILDERS = {
    ESTIMATE: _estimate_figure,
    MEAN: _estimate_figure,
    COUNTS: _counts_figure,
    PLAIN_NUMBERS: _counts_figure,
    BREAKDOWN: _breakdown_figure,
    MODE: _mode_figure,
}


# --------------------------------------------------------------------------
# What protects the respondents.


def protection(survey: Survey, plan: ReleasePlan) -> tuple[str, ...]:
    """Plain sentences, true for ``survey``'s designs and ``plan``'s figures, on what protects the respondents
    and what an observer of the release can and cannot learn."""
    policy = survey.release_policy
    sentences = []
    randomized = survey.randomized_questions
    if randomized:
        names = ", ".join(f"“{q.label}”" for q in randomized)
        sentences.append(
            f"Answers to {names} were randomized before they were stored, on the respondent's device (or at once "
            "on the server when the browser ran no JavaScript): the stored answer does not say what the person "
            "answered, and every figure from those answers is computed from the randomized answers only."
        )
        if survey.direct_share:
            sentences.append(
                f"A share of {percent(float(survey.direct_share), 1, trim=True)} of the respondents, drawn at "
                "random, were asked these questions directly as a control group; their answers to them are in no "
                "figure of this release."
            )
    if plan.costing_keys:
        used = {name for key in plan.costing_keys for name in key.split(":")[1:]}
        names = ", ".join(f"“{q.label}”" for q in breakdown_questions(survey) if q.name in used)
        sentences.append(
            f"Answers to {names} are stored as given. Every figure here that uses them had random noise added "
            f"({plan.mechanism}) before it was published, so that adding or removing one person changes the chance "
            f"of any published result only a little (this release: epsilon {plan.cost.epsilon:.3g}"
            + (f", delta {plan.cost.delta:g})." if plan.cost.delta else ").")
        )
    sentences.append(
        "What anyone can learn from this page: that the survey ran, how many answers it counted (published as it "
        "is, without noise), and the figures with their intervals. Randomized answers do not hide whether someone "
        "took part or how many people answered."
    )
    sentences.append(
        "What no one can learn from it: any one person's true answer, beyond what the randomization and the noise "
        "allow; comparing this release with another does not undo the noise, because each release is a snapshot "
        f"at least {policy.min_new_answers if policy else 0} answers after the last and every release is paid "
        "from the survey's one budget"
        + (
            f" (epsilon {float(policy.epsilon):g} in all" + (f", delta {policy.delta:g})." if policy.delta else ").")
            if policy
            else "."
        )
    )
    if policy is not None:
        rows = count_text(policy.rows_per_person, "answer")
        if survey.invitation_only:
            sentences.append(
                f"The noise assumes that one person gives at most {rows}; answers come only with single-use "
                "invitation codes, so this holds as long as each person receives at most that many codes."
            )
        else:
            sentences.append(
                f"The noise assumes that one person gives at most {rows}. This survey takes answers without "
                "invitation codes, so this is an assumption: a person who answered more often is less protected."
            )
    return tuple(sentences)


def make_release(
    survey: Survey,
    plan: ReleasePlan,
    inputs: ReleaseInputs,
    sampler: CentralSampler,
    made_on: date,
    confidence_level: float = 0.95,
) -> Release:
    """The release of ``plan`` from ``inputs``: each figure's noise drawn once from ``sampler``.

    Raises
    ------
    ReleaseRefused
        When the survey has no ``releases:`` key or ``plan`` is for another survey.
    ValueError
        For a confidence level outside ``(0, 1)``, a negative ``inputs.answers``, or a break-down whose plain
        question's group tallies are not in ``inputs.group_tallies`` (its noise alone would be published).
    """
    policy = survey.release_policy
    if policy is None:
        raise _no_policy(survey)
    if plan.survey_id != survey.id:
        raise ReleaseRefused(f"The plan is for the survey {plan.survey_id!r}, not {survey.id!r}.")
    if not 0 < confidence_level < 1:
        raise ValueError(f"confidence_level must be in (0, 1), got confidence_level={confidence_level!r}")
    if inputs.answers < 0:
        raise ValueError(f"answers must be 0 or more, got answers={inputs.answers!r}")
    for key in plan.keys:
        by = key.split(":")[2] if key.startswith(BREAKDOWN + ":") else None
        if by is not None and by not in inputs.group_tallies:
            raise ValueError(f"inputs.group_tallies has no tallies by {by!r}, which {key!r} needs")
    figures = tuple(
        _BUILDERS[key.split(":", 1)[0]](survey, plan, policy, key, inputs, sampler, confidence_level)
        for key in plan.keys
    )
    return Release(
        survey_id=survey.id,
        survey_title=survey.title,
        made_on=made_on.isoformat(),
        answers=inputs.answers,
        figures=figures,
        cost=plan.cost,
        protection=protection(survey, plan),
    )


# --------------------------------------------------------------------------
# Kept and downloaded.


def release_to_json(release: Release) -> str:
    """``release`` as JSON text (what storage keeps; :func:`release_from_json` reads it back equal)."""
    return json.dumps(asdict(release), ensure_ascii=False, sort_keys=True)


def release_from_json(text: str) -> Release:
    """The :class:`Release` :func:`release_to_json` wrote."""
    data = json.loads(text)
    figures = tuple(
        PublishedFigure(
            key=f["key"],
            title=f["title"],
            rows=tuple(PublishedRow(**row) for row in f["rows"]),
            note=f["note"],
            epsilon=f["epsilon"],
        )
        for f in data["figures"]
    )
    return Release(
        survey_id=data["survey_id"],
        survey_title=data["survey_title"],
        made_on=data["made_on"],
        answers=data["answers"],
        figures=figures,
        cost=TotalCost(**data["cost"]),
        protection=tuple(data["protection"]),
    )


def release_csv(release: Release) -> str:
    """Exactly what was published, one CSV row per published row (:data:`CSV_COLUMNS`), spreadsheet-safe."""
    rows = (
        {
            "figure": figure.key,
            "title": figure.title,
            "label": row.label,
            "value": row.value,
            "low": row.low,
            "high": row.high,
            "number": "" if row.number is None else row.number,
        }
        for figure in release.figures
        for row in figure.rows
    )
    return safe_csv(CSV_COLUMNS, rows)
