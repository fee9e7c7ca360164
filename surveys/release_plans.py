"""What a release may hold and what it costs: the figure keys, the plan, the budget left, the refusals.

Part of :mod:`surveys.releases` (which re-exports the public names). Pure domain: no Flask, no database.

What a release may hold (:func:`figure_choices`), by key:

``estimate:<q>`` and ``mean:<q>``
    A randomized question's estimate (a randomized number's mean and distribution). Each stored answer was
    randomized on the respondent's device, so a figure computed from the stored answers alone is
    post-processing: it costs nothing from the release budget (Dwork and Roth 2014, Proposition 2.1).
``counts:<q>`` and ``plain_numbers:<q>``
    The answers to a plain question by option (a plain number's by its declared bins), each count noised
    (:mod:`surveys.release_noise`); the cells are disjoint, so the table costs one epsilon (parallel composition).
``plain_mean:<q>``
    A plain number's mean: its kept sum (within the declared range) and count each noised once, the figure's
    epsilon split between them (:func:`surveys.release_figures.plain_mean_figure`); it costs as a count figure.
``breakdown:<randomized q>:<plain q>``
    A randomized question's estimate per answer to a plain one (:mod:`surveys.release_breakdowns`); each cell is
    noised once and the cells are disjoint (parallel composition).
``mode:<plain q>``
    The most common answer to a plain question, chosen by the exponential mechanism with utility the option's
    count, sensitivity ``rows_per_person`` (McSherry and Talwar 2007).

Neighbouring data sets differ by one PERSON, who may contribute up to ``rows_per_person`` answers: every
sensitivity is multiplied by it (group privacy, Dwork and Roth 2014, section 2.3). A release's epsilon is
split equally over its figures that cost budget (sequential composition); with ``delta > 0`` the release's
epsilon is read as the zero-concentrated budget ``rho`` that converts to it at the survey's delta
(:func:`analysis.central.rho_for`), and that ``rho`` is split. Releases add up by
:func:`analysis.central.total_cost`, the tightest accounting that applies.

References
----------
C. Dwork and A. Roth, "The Algorithmic Foundations of Differential Privacy", 2014.
F. McSherry and K. Talwar, "Mechanism Design via Differential Privacy", FOCS 2007.
M. Bun and T. Steinke, "Concentrated Differential Privacy", TCC 2016.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from analysis.central import PrivacyCost, TotalCost, rho_for, total_cost, zcdp_epsilon
from surveys.definition import NUMBER_TYPES, Question, Survey
from surveys.design_contract import question_design_key
from surveys.kinds import breakdown_questions, kind_of
from surveys.schema_releases import ReleasePolicy
from surveys.text_format import count_text

ESTIMATE, MEAN, COUNTS, PLAIN_NUMBERS, PLAIN_MEAN, BREAKDOWN, MODE = (
    "estimate",
    "mean",
    "counts",
    "plain_numbers",
    "plain_mean",
    "breakdown",
    "mode",
)
#: The figures that cost budget (from plain answers); ``estimate`` and ``mean`` are post-processing.
COSTING = frozenset({COUNTS, PLAIN_NUMBERS, PLAIN_MEAN, BREAKDOWN, MODE})
LAPLACE = "discrete Laplace"
GAUSSIAN = "discrete Gaussian"
#: The results tables whose answers are one count per person under one design: what a break-down can noise.
_CELL_TABLES = ("yes_no", "choice")
#: Grid of the exact rho and epsilon a Gaussian release splits (rounded down on it: never more privacy loss).
_GRID = 10**12


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
    ``select_one`` not split into two random groups, an extended crosswise question's neither): the cells a
    break-down noises."""
    if kind_of(question).results_table not in _CELL_TABLES:
        return False
    return all(question_design_key(question, arm) == question_design_key(question) for arm in ("1", "2"))


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
            choices.append(FigureChoice(f"{PLAIN_MEAN}:{q.name}", f"Mean of “{q.label}” (answers as given)", True))
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


def no_policy(survey: Survey) -> ReleaseRefused:
    """The refusal of a release of ``survey``, whose file has no ``releases:`` key."""
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
        raise no_policy(survey)
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
