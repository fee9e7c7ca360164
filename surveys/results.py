"""A survey's results: estimates per question from the stored tallies.

Pure: takes a :class:`~surveys.definition.Survey` and the plain dictionaries
of :func:`storage.queries.tallies` and returns frozen dataclasses. Every
estimate, interval and planning figure comes from :mod:`analysis`; this
module only chooses which function applies (one design or several, yes/no or
several options) and labels the outcome. The same per-question results split
by a plain answer are :mod:`surveys.breakdowns`; their sentences come from
:mod:`surveys.wording`.

Answers are tallied per question *and* per design key
(:func:`surveys.design_contract.question_design_key`), so answers collected under
an old design are debiased with that design, never with the current one.
When one question has answers under several designs, each design is
estimated on its own and the estimates are pooled
(:func:`analysis.pool_estimates`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from analysis import (
    INTERVAL_METHODS,
    LOWER,
    TWO_SIDED,
    UPPER,
    BinaryDesign,
    ConfidenceInterval,
    FinitePopulationEstimate,
    MultipleChoiceDesign,
    MultipleChoiceEstimate,
    OutsideDesign,
    PooledEstimate,
    ProportionEstimate,
    SurveyEpsilon,
    confidence_sequence,
    estimate_finite_population,
    estimate_multiple_choice,
    estimate_proportion,
    half_width_for_n,
    matrix_option_sequences,
    option_shares_half_width,
    option_shares_sample_size,
    outside_design,
    pool_estimates,
    project_to_simplex,
    sample_size_for_half_width,
    sample_size_for_sequence_half_width,
    survey_epsilon,
    two_group_half_width,
    two_group_sample_size,
    two_group_sample_size_for_sequence,
    two_group_sequence,
    two_group_worst_case,
)
from analysis.control_arm import ControlArmComparison, compare_with_direct
from analysis.misclassification import (
    MisclassificationDesign,
    MisclassificationEstimate,
    estimate_misclassification,
    pool_misclassification,
)
from analysis.two_group import TwoGroupDesign, TwoGroupEstimate, estimate_two_group, pool_two_group
from surveys.arms import DEFAULT_GROUP_1_SHARE, DIRECT, GROUPS, is_two_group
from surveys.definition import YES_NO, Choice, Question, Survey
from surveys.design_contract import compatible_tallies as _compatible
from surveys.design_contract import key_arm, parse_design_key
from surveys.wording import choice_sentence, percent, yes_no_sentence

#: Below this many answers a result is flagged "small n": the normal
#: approximation behind the Wald interval, the pooled interval and the
#: standard error is poor there (Brown, Cai and DasGupta 2001), and with
#: randomized response each answer carries even less information than a
#: direct one. Wilson and Clopper-Pearson intervals stay valid; read them.
SMALL_N = 30

FLAG_NO_RESPONSES = "no responses"
FLAG_SMALL_N = "small n"
FLAG_CLIPPED = "clipped"
FLAG_SEVERAL_DESIGNS = "several designs"
#: Some tallied answers could not be used: recorded under a design of another
#: type (the question changed type under the same name) or outside the options.
FLAG_IGNORED = "some answers ignored"
#: The reported-yes rate lies below what the design's forced yeses alone give
#: (or above what its forced noes allow): see :func:`analysis.outside_design`.
FLAG_BELOW_FLOOR = "below the design's floor"
FLAG_ABOVE_CEILING = "above the design's ceiling"
#: The result could not be computed; its ``error`` says why.
FLAG_NOT_COMPUTED = "not computed"

#: ``{question: {design key: {answer: count}}}``, as :func:`storage.queries.tallies` returns.
Tallies = Mapping[str, Mapping[str, Mapping[str, int]]]


# --------------------------------------------------------------------------
# Result objects.


@dataclass(frozen=True)
class SequenceBounds:
    """An anytime-valid confidence sequence at the counts kept now (:mod:`analysis.sequences`).

    Valid however often it is looked at and whenever collection stops, and
    wider than the fixed-sample interval beside it.

    Attributes
    ----------
    low, high : float
        Bounds for the true share (for a difference, within ``[-1, 1]``).
    confidence_level : float
        ``1 - alpha`` over every look at once.
    designs : int
        How many designs' sequences were combined by a union bound (1: one
        design, the sequence as it is).
    side : {"two-sided", "upper", "lower"}
        As :attr:`analysis.ConfidenceInterval.side`: ``"upper"`` ("at most
        ``high``") or ``"lower"`` where the answers sit outside what the design
        can produce.
    """

    low: float
    high: float
    confidence_level: float
    designs: int = 1
    side: str = TWO_SIDED

    @property
    def one_sided(self) -> bool:
        """Whether only one end is a bound (the answers sit outside what the design can produce)."""
        return self.side != TWO_SIDED


@dataclass(frozen=True)
class DesignEstimate:
    """A yes/no question's answers under one design, estimated on their own.

    Attributes
    ----------
    design_key : str
        The canonical JSON the answers are tallied under.
    design : BinaryDesign
    n, yes_count : int
        ``yes_count`` counts the design's :attr:`~analysis.BinaryDesign.trait_answer`
        (a stored "no" for crosswise with ``q < 1/2``): what the estimator reads.
    estimate : ProportionEstimate
        :func:`analysis.estimate_proportion` of these answers.
    ci : ConfidenceInterval
        ``estimate.confidence_interval(level, method)``.
    """

    design_key: str
    design: BinaryDesign
    n: int
    yes_count: int
    estimate: ProportionEstimate
    ci: ConfidenceInterval


@dataclass(frozen=True)
class YesNoResult:
    """The estimated share of true yeses to one randomized yes/no question.

    With no answers (``n == 0``) every estimate field is ``None`` and
    ``flags == ("no responses",)``.

    Attributes
    ----------
    question : Question
    n, yes_count : int
        Noisy answers and stored "yes" answers, over all designs.
    observed_rate : float or None
        ``yes_count / n``: the noisy rate, before debiasing.
    estimate_raw : float or None
        Unbiased estimate, possibly outside ``[0, 1]``.
    estimate : float or None
        ``estimate_raw`` clipped to ``[0, 1]``: the number to report.
    clipped : bool
    std_err : float or None
        Population standard error (pooled when several designs).
    ci : ConfidenceInterval or None
        One design: ``estimate.confidence_interval(level, method)``. Several:
        the pooled Wald interval (``ci.method == "wald"``).
    epsilon : float
        Per-answer epsilon; with several designs the largest.
    design_label : str
    per_design : tuple of DesignEstimate
    pooled : bool
        Whether answers came under more than one design.
    pooled_estimate : PooledEstimate or None
        :func:`analysis.pool_estimates` of ``per_design`` when ``pooled``.
    flags : tuple of str
        Among ``"no responses"``, ``"small n"``, ``"clipped"``,
        ``"several designs"``, ``"some answers ignored"``, ``"below the
        design's floor"``, ``"above the design's ceiling"``, ``"not computed"``.
    sentence : str
        The result in one plain-language sentence.
    outside : OutsideDesign or None
        One design only: :func:`analysis.outside_design`, the one-sided
        bound when the reported-yes rate lies outside what the design allows
        (then ``ci`` is clipped to a bound of 0 or 1 and must not be read as
        certainty).
    error : str or None
        Why the result could not be computed (every estimate field is then
        ``None``); ``None`` when it was.
    sequence : SequenceBounds or None
        :func:`sequence_bounds` of ``per_design``: the anytime-valid
        confidence sequence (over several designs, a union bound); ``None``
        with no answers.
    two_group : TwoGroupFigures or None
        A two-group design's second parameter: of its one version with
        answers, or when several versions are pooled, of the current design
        (``None`` if it has too few answers yet).
    control : ControlArmComparison or None
        The comparison with the direct-question control arm.
    two_group_versions : tuple of TwoGroupFigures
        A two-group design: each version's fit (current design first) whose
        prevalences ``estimate`` pools (:func:`analysis.pool_two_group`).
    finite_population : FinitePopulationEstimate or None
        With the survey's ``population_size``: the unbiased variance, standard
        error and Wald interval of a simple random sample without replacement
        of that many people (:func:`with_finite_population`); ``None`` without
        the setting, or when it does not apply (``finite_population_note`` says why).
    finite_population_note : str
        With ``population_size``: the assumption and the figures in one sentence,
        or why they were not computed; ``""`` without the setting or answers.
    """

    question: Question
    n: int
    yes_count: int
    observed_rate: float | None
    estimate_raw: float | None
    estimate: float | None
    clipped: bool
    std_err: float | None
    ci: ConfidenceInterval | None
    epsilon: float
    design_label: str
    per_design: tuple[DesignEstimate, ...]
    pooled: bool
    pooled_estimate: PooledEstimate | None
    flags: tuple[str, ...]
    sentence: str
    outside: OutsideDesign | None = None
    error: str | None = None
    sequence: SequenceBounds | None = None
    two_group: TwoGroupFigures | None = None
    control: ControlArmComparison | None = None
    two_group_versions: tuple[TwoGroupFigures, ...] = ()
    finite_population: FinitePopulationEstimate | None = None
    finite_population_note: str = ""


@dataclass(frozen=True)
class TwoGroupFigures:
    """The second parameter of a two-group design, beside the prevalence a :class:`YesNoResult` reports.

    Attributes
    ----------
    estimate : TwoGroupEstimate
        :func:`analysis.estimate_two_group` of the two groups' kept tallies.
    parameter : str
        ``"gamma"`` (cheater detection: the share of respondents who say "no" whatever the randomizer says)
        or ``"t"`` (stochastic lie detector: the share of carriers who answer honestly).
    label : str
        The parameter in words, for the page and the exports.
    value, std_err : float
        The estimate (the moment estimate inside the parameter space, the constrained maximum-likelihood one
        on its boundary) and its standard error (NaN where the observed information is singular).
    ci : ConfidenceInterval
        Profile-likelihood interval (``method == "profile likelihood"``).
    """

    estimate: TwoGroupEstimate
    parameter: str
    label: str
    value: float
    std_err: float
    ci: ConfidenceInterval


#: What the second parameter of each two-group design is, in words.
SECOND_PARAMETER_LABELS = {
    "gamma": "share of cheaters (γ: say “no” whatever the randomizer says)",
    "t": "honesty of carriers (t: share of carriers who answer “yes”)",
}


@dataclass(frozen=True)
class ChoiceDesignEstimate:
    """A multiple-choice question's answers under one design.

    ``choices`` are the option names of that design, in its order; ``counts``
    and ``estimate`` follow that order.
    """

    design_key: str
    design: MultipleChoiceDesign
    choices: tuple[str, ...]
    n: int
    counts: tuple[int, ...]
    estimate: MultipleChoiceEstimate
    cis: tuple[ConfidenceInterval, ...]


@dataclass(frozen=True)
class OptionResult:
    """One option of a randomized multiple-choice question.

    The estimate fields are ``None`` when no answers were collected under a
    design offering this option.

    Attributes
    ----------
    choice : Choice
    count : int
        Noisy answers naming this option.
    observed : float or None
        Its noisy share.
    estimate_raw : float or None
        Unbiased estimate of its true share, possibly outside ``[0, 1]``.
    estimate_projected : float or None
        The raw estimates projected onto the probability simplex
        (:func:`analysis.project_to_simplex`): the share to report. The
        projected shares of a question sum to 1.
    std_err : float or None
        Of the raw estimate (population, the share clamped to the design's
        range before it is plugged in).
    ci : ConfidenceInterval or None
        Not simultaneous across options.
    outside : OutsideDesign or None
        One design only: the one-sided bound when the option's reported share
        lies outside what the design allows (:func:`analysis.outside_design`
        on the option's marginal design).
    sequence : SequenceBounds or None
        :func:`sequence_bounds` of the option's marginal in each design
        offering it; not simultaneous across options (as ``ci``).
    estimate : float or None
        The figure shown beside ``ci``, always inside it: the option's own
        maximum-likelihood estimate (``estimate_raw`` clipped to ``[0, 1]``;
        under a matrix without a marginal, the joint maximum-likelihood share).
        ``estimate_projected`` (the shares summing to 1) can lie outside ``ci``.
    """

    choice: Choice
    count: int
    observed: float | None
    estimate_raw: float | None
    estimate_projected: float | None
    std_err: float | None
    ci: ConfidenceInterval | None
    outside: OutsideDesign | None = None
    sequence: SequenceBounds | None = None
    estimate: float | None = None


@dataclass(frozen=True)
class ChoiceResult:
    """The estimated shares of the options of a randomized ``select_one``.

    Attributes
    ----------
    question : Question
    n : int
    options : tuple of OptionResult
        In the question's order.
    epsilon : float
        Per-answer epsilon; with several designs the largest.
    design_label : str
    per_design : tuple of ChoiceDesignEstimate
    pooled : bool
        Whether answers came under more than one design; then each option's
        marginal (a forced-response design with ``t``, ``a = (1 - t)/k``,
        ``b = 1 - t - a``) is estimated per design and pooled, and the
        pooled vector is projected onto the simplex.
    flags : tuple of str
    sentence : str
        The result in one plain-language sentence (:func:`surveys.wording.choice_sentence`).
    error : str or None
        Why the result could not be computed; ``None`` when it was.
    matrix_versions : tuple of MisclassificationEstimate
        A question read through misclassification matrices: each design version's estimate, current design
        first (several are pooled by :func:`analysis.pool_misclassification`); ``()`` otherwise.
    """

    question: Question
    n: int
    options: tuple[OptionResult, ...]
    epsilon: float
    design_label: str
    per_design: tuple[ChoiceDesignEstimate, ...]
    pooled: bool
    flags: tuple[str, ...]
    sentence: str = ""
    error: str | None = None
    matrix_versions: tuple[MisclassificationEstimate, ...] = ()

    @property
    def current_design_count(self) -> int:
        """Answers under the question's current design (the first version, when it is the current one)."""
        if self.matrix_versions:
            first = self.matrix_versions[0]
            current = self.question.design
            if isinstance(current, MultipleChoiceDesign):
                current = MisclassificationDesign.from_multiple_choice(current.k, current.t)
            return first.n if first.design == current else 0
        if self.per_design and self.per_design[0].design == self.question.design:
            return self.per_design[0].n
        return 0

    def plan(self, half_width: float, confidence_level: float) -> ChoicePlan | None:
        """:func:`plan_choice` of this question, with its answers under the current design; ``None`` if it
        cannot be computed (the page then leaves the planning row out rather than fail)."""
        try:
            return plan_choice(self.question, half_width, confidence_level, self.current_design_count)
        except (ValueError, ArithmeticError, np.linalg.LinAlgError):
            return None


@dataclass(frozen=True)
class ChoicePlan:
    """Answers a randomized ``select_one`` needs for a margin of error on every option share.

    Attributes
    ----------
    question : Question
    half_width, confidence_level : float
    needed_n : int
        :func:`analysis.option_shares_sample_size` of the current design: worst case over every true share and
        every option (each option's interval alone, not simultaneous).
    response_count : int
        Answers under the current design.
    half_width_now : float or None
        :func:`analysis.option_shares_half_width` at ``response_count``; ``None`` with no answers.
    """

    question: Question
    half_width: float
    confidence_level: float
    needed_n: int
    response_count: int
    half_width_now: float | None


def plan_choice(question: Question, half_width: float, confidence_level: float, response_count: int) -> ChoicePlan:
    """The answers ``question`` (a k-option or misclassification-matrix ``select_one``) needs for ``half_width``
    on every option share, and the worst-case half-width with ``response_count`` answers."""
    design = question.design
    if question.type == YES_NO or not isinstance(design, MultipleChoiceDesign | MisclassificationDesign):
        raise ValueError(f"question={question.name!r} is not a randomized select_one")
    now = option_shares_half_width(design, response_count, confidence_level) if response_count > 0 else None
    return ChoicePlan(
        question=question,
        half_width=float(half_width),
        confidence_level=float(confidence_level),
        needed_n=option_shares_sample_size(design, half_width, confidence_level),
        response_count=response_count,
        half_width_now=now,
    )


@dataclass(frozen=True)
class PlainResult:
    """Counts of a question asked without randomization (stored as given).

    ``counts`` and ``shares`` follow ``question.choices`` (zeros included);
    ``shares`` is ``None`` when ``n == 0``.
    """

    question: Question
    n: int
    counts: tuple[int, ...]
    shares: tuple[float, ...] | None
    flags: tuple[str, ...]
    error: str | None = None


QuestionResult = YesNoResult | ChoiceResult | PlainResult


@dataclass(frozen=True)
class PlanningResult:
    """How many answers a target margin of error needs, and where we stand.

    Attributes
    ----------
    question : Question
        The randomized yes/no question whose current design needs the most
        answers (normally the one with the smallest ``t``).
    design : BinaryDesign or TwoGroupDesign
    half_width : float
        The wanted margin of error, for example 0.05 (five points).
    confidence_level : float
    needed_n : int
        :func:`analysis.sample_size_for_half_width`, worst case over ``pi``.
    response_count : int
    half_width_now : float or None
        :func:`analysis.half_width_for_n` at ``response_count`` (worst case);
        ``None`` with no responses.
    needed_n_sequence : int or None
        :func:`analysis.sample_size_for_sequence_half_width`, worst case over
        ``pi``: the answers after which the confidence sequence, looked at as
        often as anyone likes, is expected to be that narrow.
    group_share : float or None
        A two-group question: the share of respondents in group 1 the plan
        assumes (the survey's ``group_1_share``); ``None`` otherwise. Its
        figures are for the worst case, both groups' reported-yes rates at 1/2.
    needed_groups : tuple of int or None
        A two-group question: ``needed_n`` split into group 1 and group 2.
    group_sizes : tuple of int or None
        A two-group question: the answers per group now (current design).
    """

    question: Question
    design: BinaryDesign | TwoGroupDesign
    half_width: float
    confidence_level: float
    needed_n: int
    response_count: int
    half_width_now: float | None
    needed_n_sequence: int | None = None
    group_share: float | None = None
    needed_groups: tuple[int, int] | None = None
    group_sizes: tuple[int, int] | None = None


@dataclass(frozen=True)
class Exclusion:
    """Days an admin left out of the estimates, and the responses stored on them.

    Attributes
    ----------
    days : tuple of str
        ``YYYY-MM-DD`` (UTC), in order; empty when nothing is excluded.
    response_count : int
        Responses stored on those days: stored, exported, but not estimated.
    set_aside_days : tuple of str
        Other days whose answers marked during a burst an admin set aside
        (:mod:`surveys.floods`), in order.
    set_aside_count : int
        Those marked answers: stored, exported, but not estimated.
    """

    days: tuple[str, ...] = ()
    response_count: int = 0
    set_aside_days: tuple[str, ...] = ()
    set_aside_count: int = 0


#: Nothing excluded.
NO_EXCLUSION = Exclusion()


@dataclass(frozen=True)
class SurveyResults:
    """Every question's result, in survey order.

    Attributes
    ----------
    survey : Survey
    response_count : int
        Responses the estimates use (the stored ones minus ``excluded``).
    confidence_level : float
    method : str
        The interval method asked for (a pooled result uses Wald; see its ``ci.method``).
    questions : tuple of YesNoResult, ChoiceResult or PlainResult
    epsilon : SurveyEpsilon
        ``survey.epsilon``: the per-respondent cost of the current design.
    excluded : Exclusion
        The days left out, and their responses.
    answered_epsilon : SurveyEpsilon or None
        :func:`answered_epsilon`: a bound on the per-respondent cost over
        every design that has answers (older designs included); ``None``
        with no answers.
    """

    survey: Survey
    response_count: int
    confidence_level: float
    method: str
    questions: tuple[QuestionResult, ...]
    epsilon: SurveyEpsilon
    excluded: Exclusion = NO_EXCLUSION
    answered_epsilon: SurveyEpsilon | None = None

    def question(self, name: str) -> QuestionResult:
        """The result of the question called ``name``; ``KeyError`` if none."""
        for result in self.questions:
            if result.question.name == name:
                return result
        raise KeyError(name)


# --------------------------------------------------------------------------
# Reading the tallies.


def check_options(confidence_level: float, method: str) -> None:
    """``ValueError`` naming an unknown interval ``method`` or a level outside ``(0, 1)``."""
    if method not in INTERVAL_METHODS:
        raise ValueError(f"method must be one of {INTERVAL_METHODS}, got method={method!r}")
    if (
        isinstance(confidence_level, bool)
        or not isinstance(confidence_level, (int, float))
        or not (0 < confidence_level < 1)
    ):
        raise ValueError(f"confidence_level must be in (0, 1), got confidence_level={confidence_level!r}")


def _size_flags(n: int, clipped: bool, pooled: bool, ignored: bool) -> tuple[str, ...]:
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


def _empty_flags(ignored: bool) -> tuple[str, ...]:
    return (FLAG_NO_RESPONSES, FLAG_IGNORED) if ignored else (FLAG_NO_RESPONSES,)


# --------------------------------------------------------------------------
# One function per kind of question.


def _yes_no_estimates(question: Question, by_design) -> tuple[list[tuple[object, ProportionEstimate]], bool]:
    """``[(tally, estimate)]`` for each compatible design with answers, and whether any answers were ignored."""
    tallies, ignored = _compatible(question, by_design)
    out = []
    for tally in tallies:
        stored_yes = int(tally.counts.get("yes", 0))
        n = stored_yes + int(tally.counts.get("no", 0))
        if n:
            trait_count = tally.design.trait_count(stored_yes, n)
            out.append((tally, estimate_proportion(trait_count, n, *tally.design.exact())))
    return out, ignored


def _stored_yes_count(part: DesignEstimate) -> int:
    """The stored "yes" answers of one design's part (its ``yes_count`` is the trait answer's count)."""
    return part.design.trait_count(part.yes_count, part.n)


def _yes_no_without_figures(
    question: Question, flags: tuple[str, ...], sentence: str, error: str | None = None
) -> YesNoResult:
    """A yes/no result whose figures are all ``None``: no answers yet, or (with ``error``) not computed."""
    return YesNoResult(
        question=question,
        n=0,
        yes_count=0,
        observed_rate=None,
        estimate_raw=None,
        estimate=None,
        clipped=False,
        std_err=None,
        ci=None,
        epsilon=question.design.epsilon,
        design_label=question.design.label(),
        per_design=(),
        pooled=False,
        pooled_estimate=None,
        flags=flags,
        sentence=sentence,
        error=error,
    )


def group_counts(question: Question, by_design) -> tuple[tuple[int, int], tuple[int, int], bool]:
    """``(yes per group, answers per group, ignored)`` of a two-group question's current design from its tallies.

    ``ignored`` says whether any tally that no version of the question can read (answers with no group, or a
    design of another kind) held answers; :func:`two_group_version_counts` gives every version's counts.
    """
    versions, ignored = two_group_version_counts(question, by_design)
    yes, n = versions.get(question.design, ((0, 0), (0, 0)))
    return yes, n, ignored


def two_group_version_counts(question: Question, by_design) -> tuple[dict, bool]:
    """``({design: (yes per group, answers per group)}, ignored)`` for each version of a two-group question.

    A version is a two-group design of the same kind as the question's current one (cheater detection or
    stochastic lie detector: the two estimate different prevalences, so they are not pooled), with the
    same ``p1, p2`` (its group is in the tally's key, :func:`surveys.design_contract.key_arm`). The current
    design comes first (with zero counts when it has no answers yet), the others in the order of their keys.
    ``ignored`` says whether any other tally (another kind of design, or answers with no group) held
    answers. The direct arm's answers are read by the control-arm comparison.
    """
    counts: dict = {question.design: ([0, 0], [0, 0])}
    ignored = False
    for key in sorted(by_design):
        arm, tally = key_arm(key), by_design[key]
        if arm == DIRECT:
            continue
        parsed = parse_design_key(key)
        design = None if parsed is None or parsed[0] != question.type else parsed[2]
        if arm not in GROUPS or type(design) is not type(question.design):
            ignored = ignored or sum(tally.values()) > 0
            continue
        yes, n = counts.setdefault(design, ([0, 0], [0, 0]))
        index = GROUPS.index(arm)
        yes[index] += int(tally.get("yes", 0))
        n[index] += int(tally.get("yes", 0)) + int(tally.get("no", 0))
    return {design: (tuple(yes), tuple(n)) for design, (yes, n) in counts.items()}, ignored


def _two_group_figures(fit: TwoGroupEstimate, level: float) -> TwoGroupFigures:
    """The second parameter of one version's fit, with its profile-likelihood interval."""
    second = fit.second_parameter
    return TwoGroupFigures(
        estimate=fit,
        parameter=second,
        label=SECOND_PARAMETER_LABELS[second],
        value=fit.second,
        std_err=fit.second_std_err,
        ci=fit.confidence_interval(second, level),
    )


def _two_group_fits(question: Question, by_design) -> tuple[list[TwoGroupEstimate], tuple[int, int], int, bool]:
    """``(fits, answers per group, yes count, ignored)``: :func:`analysis.estimate_two_group` of each version whose
    groups both have 2 answers (current design first); the answers per group are summed over every version."""
    versions, ignored = two_group_version_counts(question, by_design)
    fits = [estimate_two_group(yes, n, design) for design, (yes, n) in versions.items() if min(n) >= 2]
    n = tuple(sum(counts[1][i] for counts in versions.values()) for i in range(2))
    yes_count = sum(sum(counts[0]) for counts in versions.values())
    return fits, n, yes_count, ignored  # type: ignore[return-value]


def two_group_sequence_bounds(fits: Sequence[TwoGroupEstimate], confidence_level: float) -> SequenceBounds:
    """The anytime-valid sequence for a two-group prevalence measured under one or more versions of its design.

    Each version's :func:`analysis.two_group_sequence` at ``1 - alpha/m`` (``m`` versions), intersected (their
    hull if they do not meet), as :func:`sequence_bounds` does for one-group designs.
    """
    if not fits:
        raise ValueError("fits must hold at least one version's answers, got none")
    each = 1 - (1 - confidence_level) / len(fits)
    parts = [two_group_sequence(fit.yes, fit.n, fit.design, each) for fit in fits]
    low, high = max(p.low for p in parts), min(p.high for p in parts)
    if low > high:
        low, high = min(p.low for p in parts), max(p.high for p in parts)
    return SequenceBounds(low, high, float(confidence_level), len(parts))


def _two_group_result(question: Question, by_design, level: float) -> YesNoResult:
    """Prevalence (``estimate``, ``std_err``, ``ci``) and the second parameter (``two_group``) of a cheater detection
    or stochastic lie detector question, from the kept per-group tallies; both intervals by profile likelihood.

    Each group needs 2 answers before a version is estimated (:func:`analysis.estimate_two_group`). Answers
    under several versions of the design (other ``p1, p2``) are estimated version by version and their
    prevalences pooled by :func:`analysis.pool_two_group` (``pooled``, ``two_group_versions``)."""
    fits, n, yes_count, ignored = _two_group_fits(question, by_design)
    if not fits:
        flags = _empty_flags(ignored) if sum(n) == 0 else (FLAG_SMALL_N,) + ((FLAG_IGNORED,) if ignored else ())
        sentence = yes_no_sentence(question, None, None, level)
        if sum(n):
            sentence = f"Each group needs at least 2 answers before anything is estimated (so far {n[0]} and {n[1]})."
        return replace(_yes_no_without_figures(question, flags, sentence), n=sum(n), yes_count=yes_count)
    versions = tuple(_two_group_figures(fit, level) for fit in fits)
    current = versions[0] if len(fits) == 1 or fits[0].design == question.design else None
    mapped = two_group_sequence_bounds(fits, level)
    common = {
        "question": question,
        "n": sum(n),
        "yes_count": yes_count,
        "observed_rate": yes_count / sum(n),
        "epsilon": question.design.epsilon,
        "per_design": (),
        "sequence": mapped,
        "two_group": current,
        "two_group_versions": versions,
    }
    if len(fits) == 1:
        fit = fits[0]
        ci = fit.confidence_interval("pi", level)
        common["sequence"] = covering(mapped, ci)
        return YesNoResult(
            estimate_raw=fit.pi_moment,
            estimate=fit.pi,
            clipped=fit.on_boundary,
            std_err=fit.pi_std_err,
            ci=ci,
            design_label=fit.design.label(),
            pooled=False,
            pooled_estimate=None,
            flags=_size_flags(sum(n), fit.on_boundary, False, ignored),
            sentence=yes_no_sentence(question, fit.pi, ci, level),
            **common,
        )
    pooled = pool_two_group(fits)
    ci = pooled.confidence_interval(level)
    common["sequence"] = covering(mapped, ci)
    return YesNoResult(
        estimate_raw=pooled.estimate_raw,
        estimate=pooled.estimate,
        clipped=pooled.clipped,
        std_err=pooled.std_err,
        ci=ci,
        design_label=f"pooled over {len(fits)} designs",
        pooled=True,
        pooled_estimate=pooled,
        flags=_size_flags(sum(n), pooled.clipped, True, ignored),
        sentence=yes_no_sentence(question, pooled.estimate, ci, level),
        **common,
    )


def direct_counts(by_design) -> tuple[int, int]:
    """``(yes, answers)`` of the direct-question control arm in a question's tallies."""
    counts = [c for key, c in by_design.items() if key_arm(key) == DIRECT]
    yes = sum(int(c.get("yes", 0)) for c in counts)
    return yes, yes + sum(int(c.get("no", 0)) for c in counts)


def with_control_arm(result: YesNoResult, by_design, level: float) -> YesNoResult:
    """``result`` with its comparison against the direct-question control arm (``control``), when both arms
    have answers and the randomized-response estimate has a finite standard error.

    The raw estimate (unclipped; the moment estimate of a two-group design) is compared, as
    :func:`analysis.compare_with_direct` asks, so that the difference stays unbiased.
    """
    yes, n = direct_counts(by_design)
    raw, std_err = result.estimate_raw, result.std_err
    if n == 0 or raw is None or std_err is None or not math.isfinite(std_err) or not math.isfinite(raw):
        return result
    return replace(result, control=compare_with_direct(raw, std_err, yes, n, level))


def _yes_no_result(question: Question, by_design, level: float, method: str) -> YesNoResult:
    return with_control_arm(_one_arm_result(question, by_design, level, method), by_design, level)


def _one_arm_result(question: Question, by_design, level: float, method: str) -> YesNoResult:
    """The randomized-response estimate of a yes/no question (one design, several pooled, or two groups)."""
    if is_two_group(question.design):
        return _two_group_result(question, by_design, level)
    estimates, ignored = _yes_no_estimates(question, by_design)
    parts = [
        DesignEstimate(tally.key, tally.design, e.n, e.yes_count, e, e.confidence_interval(level, method))
        for tally, e in estimates
    ]
    if not parts:
        return _yes_no_without_figures(question, _empty_flags(ignored), yes_no_sentence(question, None, None, level))
    n = sum(part.n for part in parts)
    yes_count = sum(_stored_yes_count(part) for part in parts)
    pooled = len(parts) > 1
    if pooled:
        combined = pool_estimates([part.estimate for part in parts])
        ci = combined.confidence_interval(level)
        label = f"pooled over {len(parts)} designs"
        outside = None
    else:
        combined, ci, label = parts[0].estimate, parts[0].ci, parts[0].design.label()
        outside = outside_design(parts[0].yes_count, n, *parts[0].design.exact(), confidence_level=level)
    return YesNoResult(
        question=question,
        n=n,
        yes_count=yes_count,
        observed_rate=yes_count / n,
        estimate_raw=combined.estimate_raw,
        estimate=combined.estimate,
        clipped=combined.clipped,
        std_err=shown_std_err(combined.std_err),
        ci=ci,
        epsilon=max(part.design.epsilon for part in parts),
        design_label=label,
        per_design=tuple(parts),
        pooled=pooled,
        pooled_estimate=combined if pooled else None,
        flags=_size_flags(n, combined.clipped, pooled, ignored) + _outside_flags(outside),
        sentence=yes_no_sentence(question, combined.estimate, ci, level, outside),
        outside=outside,
        sequence=covering(sequence_bounds([part.estimate for part in parts], level), ci),
    )


def with_finite_population(result: QuestionResult, population_size: int | None, level: float) -> QuestionResult:
    """``result`` with its finite-population figures when the survey gives ``population_size`` (``N``).

    Only a one-parameter yes/no question whose answers came under one design gets them
    (:func:`analysis.estimate_finite_population`: the unbiased variance under simple random sampling without
    replacement of ``n`` of ``N`` people, Chaudhuri 2011); a pooled, two-group or multiple-choice question does
    not, and ``finite_population_note`` says why, as it does when the answers outnumber ``N``.
    """
    if population_size is None or not isinstance(result, YesNoResult) or result.n == 0 or result.error:
        return result
    reason = _finite_population_reason(result, population_size)
    if reason:
        return replace(result, finite_population_note=reason)
    part = result.per_design[0]
    try:
        figures = estimate_finite_population(part.yes_count, part.n, population_size, *part.design.exact(), level)
    except ValueError as error:
        return replace(result, finite_population_note=f"No finite-population figures: {error}.")
    return replace(
        result, finite_population=figures, finite_population_note=finite_population_sentence(result, figures)
    )


def _finite_population_reason(result: YesNoResult, population_size: int) -> str:
    """Why a yes/no result gets no finite-population figures (``""``: it does)."""
    if is_two_group(result.question.design) or result.two_group_versions:
        return "No finite-population figures for a two-group design (its two random groups are not one sample)."
    if result.pooled:
        return "No finite-population figures for answers pooled over several designs: only for one design."
    if result.n > population_size:
        return (
            f"No finite-population figures: the {result.n:,} answers outnumber the survey's population_size of "
            f"{population_size:,}, so they cannot be a sample of it without replacement; check population_size."
        )
    if result.n < 2:
        return "No finite-population figures until there are at least 2 answers."
    return ""


def finite_population_sentence(result: YesNoResult, figures: FinitePopulationEstimate) -> str:
    """The assumption behind the finite-population figures, and the figures, in one sentence."""
    level = percent(figures.confidence_level, 1, trim=True)
    return (
        f"If the {result.n:,} answers were a simple random sample without replacement of the "
        f"{figures.population_size:,} people (population_size), the standard error of the raw estimate is "
        f"{percent(figures.std_err, 2)} instead of {percent(result.std_err, 2)} and its {level} Wald interval "
        f"{percent(figures.low, 1)} – {percent(figures.high, 1)} (Chaudhuri 2011, as RRTCS computes it)."
    )


def running_point(question: Question, by_design, confidence_level: float) -> tuple[int, float, SequenceBounds] | None:
    """``(n, estimate, confidence sequence)`` of a yes/no question: only what the time chart draws.

    The same figures as :func:`question_result`'s ``n``, ``estimate`` and
    ``sequence`` (the same estimates, pooled the same way), without the
    interval, the floor check and the sentence the time chart does not show.
    None when the question has no answers (a two-group question: until a
    version has 2 answers in each group).
    """
    if is_two_group(question.design):
        return _two_group_running_point(question, by_design, confidence_level)
    estimates = [estimate for _, estimate in _yes_no_estimates(question, by_design)[0]]
    if not estimates:
        return None
    combined = pool_estimates(estimates) if len(estimates) > 1 else estimates[0]
    return sum(e.n for e in estimates), combined.estimate, sequence_bounds(estimates, confidence_level)


def _two_group_running_point(question: Question, by_design, level: float) -> tuple[int, float, SequenceBounds] | None:
    """:func:`running_point` of a two-group question: the prevalence and sequence :func:`_two_group_result`
    reports, without its profile-likelihood intervals."""
    fits, n, _, _ = _two_group_fits(question, by_design)
    if not fits:
        return None
    estimate = fits[0].pi if len(fits) == 1 else pool_two_group(fits).estimate
    return sum(n), estimate, two_group_sequence_bounds(fits, level)


def sequence_bounds(estimates: Sequence[ProportionEstimate], confidence_level: float) -> SequenceBounds:
    """The anytime-valid confidence sequence for one true share measured under one or more designs.

    Each design's answers ``(n, S)`` give :func:`analysis.confidence_sequence`
    at level ``1 - alpha/m`` (``m`` designs; one design: the sequence as it
    is). By a union bound all ``m`` cover the share at every look at once
    with probability at least ``1 - alpha``, and then the share lies in their
    intersection, which is returned. If the intersection is empty, the designs'
    answers disagree beyond what chance allows (all ``m`` cannot cover one
    share); their hull is returned instead, which still holds the share
    whenever any of them covers it.

    The guarantee is over the looks made while the set of designs with
    answers stays the same: a design added later lowers each design's share
    of ``alpha``, and a design looked at with ``alpha/m`` before and
    ``alpha/(m + 1)`` after has spent ``alpha/m``, so across such a change
    the error is at most the sum over designs of the largest share each
    was given.

    Raises ``ValueError`` with no estimates.
    """
    if not estimates:
        raise ValueError("estimates must hold at least one design's answers, got none")
    each = 1 - (1 - confidence_level) / len(estimates)
    parts = [confidence_sequence(e.yes_count, e.n, e.t, e.a, e.b, each) for e in estimates]
    low, high = max(p.low for p in parts), min(p.high for p in parts)
    if low > high:
        low, high = min(p.low for p in parts), max(p.high for p in parts)
    return SequenceBounds(low, high, float(confidence_level), len(parts), _combined_side(low, high, parts))


def _combined_side(low: float, high: float, parts) -> str:
    """A combined bound is one-sided where it ends at 0 (1) and a part was one-sided there."""
    if low == 0.0 and any(p.side == UPPER for p in parts):
        return UPPER
    if high == 1.0 and any(p.side == LOWER for p in parts):
        return LOWER
    return TWO_SIDED


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


def shown_std_err(std_err: float | None) -> float | None:
    """A standard error as shown: ``None`` (no number) when it is 0 or not finite.

    A plug-in standard error of 0 (every answer at an edge the design does not force) would read as
    certainty; the interval beside it (a one-sided bound there) says what the data give.
    """
    if std_err is None or not math.isfinite(std_err) or std_err <= 0:
        return None
    return std_err


def difference_bounds(
    first: Sequence[ProportionEstimate], second: Sequence[ProportionEstimate], confidence_level: float
) -> SequenceBounds:
    """The anytime-valid sequence for ``pi_first - pi_second``: each group at ``1 - alpha/2``, then subtracted.

    ``[L_1 - U_2, U_1 - L_2]`` of the two groups' :func:`sequence_bounds` (a
    union bound, as :func:`analysis.difference_sequence`, which this equals
    when each group has one design); ``designs`` counts both groups' designs.
    """
    each = 1 - (1 - confidence_level) / 2
    one, two = sequence_bounds(first, each), sequence_bounds(second, each)
    return SequenceBounds(one.low - two.high, one.high - two.low, float(confidence_level), one.designs + two.designs)


def _outside_flags(*outsides: OutsideDesign | None) -> tuple[str, ...]:
    return _side_flags({outside.side for outside in outsides if outside is not None})


def _side_flags(sides: set[str]) -> tuple[str, ...]:
    """The floor and ceiling flags for the sides (``"below"``, ``"above"``) some reported share lies on."""
    return tuple(flag for side, flag in (("below", FLAG_BELOW_FLOOR), ("above", FLAG_ABOVE_CEILING)) if side in sides)


def _option_marginal(part: ChoiceDesignEstimate, index: int) -> ProportionEstimate:
    """Option ``index`` of one design, read as a forced-response yes/no.

    "Is it this option?" is answered truthfully with ``t``, forced to yes with
    ``a = (1 - t)/k`` (the uniform draw lands on it) and to no with
    ``b = 1 - t - a`` (:meth:`analysis.MultipleChoiceDesign.option_marginal`).
    """
    return estimate_proportion(part.counts[index], part.n, *part.design.option_marginal().exact())


def _choice_result(question: Question, by_design, level: float, method: str) -> ChoiceResult:
    tallies, ignored = _compatible(question, by_design)
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
        options = tuple(OptionResult(c, 0, None, None, None, None, None) for c in question.choices)
        return ChoiceResult(
            n=0,
            options=options,
            design_label=question.design.label(),
            flags=_empty_flags(ignored),
            sentence=choice_sentence(question, [], level),
            **common,
        )
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
                estimate=_clip(e.estimate_raw[j]),
            )
            for j, choice in enumerate(question.choices)
        )
        label = part.design.label()
    else:
        options = _pooled_options(question, parts, level, method)
        label = f"pooled over {len(parts)} designs" if pooled else parts[0].design.label()
    clipped = any(o.estimate_raw is not None and not 0 <= o.estimate_raw <= 1 for o in options)
    flags = _size_flags(n, clipped, pooled, ignored) + _outside_flags(*(o.outside for o in options))
    sentence = choice_sentence(question, [(o.choice.label, o.estimate, o.ci) for o in options], level)
    return ChoiceResult(n=n, options=options, design_label=label, flags=flags, sentence=sentence, **common)


def _clip(value: float) -> float:
    """``value`` clipped to ``[0, 1]``: a share's maximum-likelihood estimate from its unbiased one."""
    return min(max(value, 0.0), 1.0)


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


def _plain_result(question: Question, by_design) -> PlainResult:
    tallies, ignored = _compatible(question, by_design)
    counts = tuple(sum(int(tally.counts.get(name, 0)) for tally in tallies) for name in question.choice_names)
    n = sum(counts)
    shares = tuple(c / n for c in counts) if n else None
    flags = _empty_flags(ignored) if n == 0 else ((FLAG_IGNORED,) if ignored else ())
    return PlainResult(question=question, n=n, counts=counts, shares=shares, flags=flags)


def _computed_result(question: Question, by_design, confidence_level: float, method: str) -> QuestionResult:
    if not question.is_randomized:
        return _plain_result(question, by_design)
    if question.type == YES_NO:
        return _yes_no_result(question, by_design, confidence_level, method)
    if _reads_as_matrix(question, by_design):
        return _misclassification_result(question, by_design, confidence_level)
    return _choice_result(question, by_design, confidence_level, method)


def _reads_as_matrix(question: Question, by_design) -> bool:
    """Whether a ``select_one`` is estimated through matrices: its design is one, or a version with answers was."""
    if isinstance(question.design, MisclassificationDesign):
        return True
    tallies, _ = _compatible(question, by_design)
    return any(isinstance(t.design, MisclassificationDesign) and sum(t.counts.values()) for t in tallies)


def matrix_versions(question: Question, by_design) -> tuple[list[MisclassificationEstimate], bool]:
    """Each design version's :func:`analysis.estimate_misclassification` (current design first), and whether
    any answers were left out.

    A version is read when its options are the question's, in the same order; a k-option version is read as
    its matrix (:meth:`analysis.MisclassificationDesign.from_multiple_choice`). Any other tally is ignored.
    """
    tallies, ignored = _compatible(question, by_design)
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


def _misclassification_result(question: Question, by_design, level: float) -> ChoiceResult:
    """The option shares of a ``select_one`` with a misclassification matrix.

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
        options = tuple(OptionResult(c, 0, None, None, None, None, None) for c in question.choices)
        sentence = choice_sentence(question, [], level)
        return ChoiceResult(
            n=0,
            options=options,
            epsilon=question.design.epsilon,
            design_label=question.design.label(),
            flags=_empty_flags(ignored),
            sentence=sentence,
            **common,
        )
    k = len(question.choices)
    if pooled:
        e = pool_misclassification(versions)
        counts = tuple(sum(v.counts[j] for v in versions) for j in range(k))
        observed = tuple(c / e.n for c in counts)
        label = f"pooled over {len(versions)} designs"
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
    flags = _size_flags(e.n, clipped, pooled, ignored) + _side_flags(sides)
    sentence = choice_sentence(question, [(o.choice.label, o.estimate, o.ci) for o in options], level)
    epsilon = max(v.design.epsilon for v in versions)
    return ChoiceResult(
        n=e.n, options=options, epsilon=epsilon, design_label=label, flags=flags, sentence=sentence, **common
    )


def failed_result(question: Question, error: Exception) -> QuestionResult:
    """A result with no figures that says why they could not be computed.

    Every estimate field is ``None`` (as with no answers), ``flags`` is
    ``("not computed",)`` and ``error`` names the error, so that one question
    whose figures fail never takes the page, the other questions or an
    export down.
    """
    message = f"{type(error).__name__}: {error}"
    sentence = f"The result of \u201c{question.label}\u201d could not be computed ({message})."
    flags = (FLAG_NOT_COMPUTED,)
    if not question.is_randomized:
        return PlainResult(
            question=question, n=0, counts=tuple(0 for _ in question.choices), shares=None, flags=flags, error=message
        )
    design_label = question.design.label()
    if question.type == YES_NO:
        return _yes_no_without_figures(question, flags, sentence, error=message)
    options = tuple(OptionResult(c, 0, None, None, None, None, None) for c in question.choices)
    return ChoiceResult(
        question=question,
        n=0,
        options=options,
        epsilon=question.design.epsilon,
        design_label=design_label,
        per_design=(),
        pooled=False,
        flags=flags,
        sentence=sentence,
        error=message,
    )


def question_result(
    question: Question,
    by_design: Mapping[str, Mapping[str, int]],
    confidence_level: float = 0.95,
    method: str = "wilson",
) -> QuestionResult:
    """The result of one question from its tallies ``{design key: {answer: count}}``.

    Raises ``ValueError`` for an unknown ``method`` or level. Any error in
    computing the question's own figures gives :func:`failed_result` instead
    of an exception: one question never takes the others down.
    """
    check_options(confidence_level, method)
    try:
        return _computed_result(question, by_design, confidence_level, method)
    except Exception as error:  # noqa: BLE001 - any failure stays within its question's row
        return failed_result(question, error)


# --------------------------------------------------------------------------
# Public entry points.


def compute_results(
    survey: Survey,
    tallies: Tallies,
    response_count: int,
    confidence_level: float = 0.95,
    method: str = "wilson",
    excluded: Exclusion = NO_EXCLUSION,
) -> SurveyResults:
    """Estimate every question of ``survey`` from its tallies.

    Parameters
    ----------
    survey : Survey
        The current definition; its questions fix the order and the labels.
    tallies : mapping
        ``{question: {design key: {answer: count}}}`` from
        :func:`storage.queries.tallies`. Questions no longer in the survey
        are ignored.
    response_count : int
        Number of stored responses (for display).
    confidence_level : float
        In ``(0, 1)``; default 0.95.
    method : {"wilson", "clopper-pearson", "wald"}
        Interval method for single-design estimates.
    excluded : Exclusion
        The days already taken out of ``tallies`` and ``response_count``
        (:func:`subtract_tallies`), recorded in the result for display.

    Returns
    -------
    SurveyResults

    Raises
    ------
    ValueError
        For an unknown ``method``, a level outside ``(0, 1)`` or a negative
        ``response_count``.
    """
    check_options(confidence_level, method)
    if isinstance(response_count, bool) or not isinstance(response_count, int) or response_count < 0:
        raise ValueError(f"response_count must be an integer >= 0, got response_count={response_count!r}")
    questions = tuple(
        with_finite_population(
            question_result(q, tallies.get(q.name, {}), confidence_level, method),
            survey.population_size,
            confidence_level,
        )
        for q in survey.questions
    )
    return SurveyResults(
        answered_epsilon=answered_epsilon(tallies, survey.delta),
        survey=survey,
        response_count=response_count,
        confidence_level=float(confidence_level),
        method=method,
        questions=questions,
        epsilon=survey.epsilon,
        excluded=excluded,
    )


def answered_epsilon(tallies: Tallies, delta: float) -> SurveyEpsilon | None:
    """A bound on any respondent's epsilon over every design that has answers; ``None`` with none.

    ``survey.epsilon`` counts the current designs only, but answers collected
    under an older design (a smaller ``t``, a question since removed) cost
    their respondents that design's epsilon. Each respondent answered each
    question under one design, so summing, over every question with answers
    (in the survey or no longer), the largest per-answer epsilon among the
    designs that hold its answers bounds every respondent's epsilon from
    above (sequential composition; the advanced bound likewise, with
    ``delta``). It equals the largest per-version epsilon when the designs
    changed question by question across versions; otherwise it can be
    larger, never smaller.
    """
    largest: dict[str, float] = {}
    for name, by_design in tallies.items():
        for key, counts in by_design.items():
            parsed = parse_design_key(key)
            if parsed is None or parsed[2] is None or not any(counts.values()):
                continue
            largest[name] = max(largest.get(name, 0.0), parsed[2].epsilon)
    if not largest:
        return None
    return survey_epsilon([largest[name] for name in sorted(largest)], delta)


def subtract_tallies(total: Tallies, removed: Tallies) -> dict[str, dict[str, dict[str, int]]]:
    """``total - removed`` count by count, dropping what falls to zero.

    Estimates without some days are the running tallies minus those days'
    tallies; both have the shape of :func:`storage.queries.tallies`.

    Raises
    ------
    ValueError
        If ``removed`` holds more of some answer than ``total`` (they were
        not read from one snapshot).
    """
    result: dict = {}
    for question, by_design in total.items():
        for design, by_answer in by_design.items():
            for answer, count in by_answer.items():
                left = count - removed.get(question, {}).get(design, {}).get(answer, 0)
                if left < 0:
                    raise ValueError(f"cannot remove more answers {answer!r} to {question!r} than {count} tallied")
                if left:
                    result.setdefault(question, {}).setdefault(design, {})[answer] = left
    extra = [
        (q, d, a)
        for q, by_d in removed.items()
        for d, by_a in by_d.items()
        for a, c in by_a.items()
        if c and a not in total.get(q, {}).get(d, {})
    ]
    if extra:
        raise ValueError(f"cannot remove answers that were never tallied: {extra[:3]!r}")
    return result


def plan(
    survey: Survey,
    response_count: int,
    half_width: float = 0.05,
    confidence_level: float = 0.95,
    question: str | None = None,
    answered: Mapping[str, int] | None = None,
    group_sizes: Mapping[str, tuple[int, int]] | None = None,
) -> PlanningResult | None:
    """Answers needed for a margin of error of ``half_width``, for ``question`` or the worst yes/no design.

    With ``question`` (a randomized yes/no question's name), its current
    design; else, among the survey's randomized yes/no questions, the current
    design that needs the most answers for ``half_width`` in the worst case
    over the true share (:func:`analysis.sample_size_for_half_width` with
    ``pi=None``); that is the one with the smallest ``t`` unless a very
    lopsided ``a, b`` keeps its reported rate away from 1/2. The half-width
    now is for ``answered[name]`` answers when ``answered`` (answers per
    question) is given, else for ``response_count``. Returns ``None`` when
    the survey has no randomized yes/no question.

    A two-group question (cheater detection, stochastic lie detector) is
    planned in its worst case, both groups' reported-yes rates at 1/2
    (:func:`analysis.two_group_worst_case`, a bound over every prevalence
    and non-compliance), with the survey's ``group_1_share`` of respondents
    in group 1 (:func:`analysis.two_group_sample_size`,
    :func:`analysis.two_group_sample_size_for_sequence`); its half-width now
    is for the answers per group of its current design in ``group_sizes``
    (:func:`planning_group_sizes`), ``None`` until each group has one.
    """
    candidates = [q for q in survey.randomized_questions if q.type == YES_NO]
    if question is not None:
        candidates = [q for q in candidates if q.name == question]
        if not candidates:
            raise ValueError(f"question={question!r} is not a randomized yes/no question of {survey.id!r}")
    if not candidates:
        return None
    share = float(survey.group_1_share if survey.group_1_share is not None else DEFAULT_GROUP_1_SHARE)
    needs = [
        (_needed_n(q.design, half_width, confidence_level, share), -index, q) for index, q in enumerate(candidates)
    ]
    needed_n, _, question = max(needs, key=lambda item: item[:2])
    if is_two_group(question.design):
        return _two_group_plan(question, half_width, confidence_level, share, (group_sizes or {}).get(question.name))
    if answered is not None:
        response_count = answered.get(question.name, 0)
    now = half_width_for_n(response_count, confidence_level, *question.design.exact()) if response_count > 0 else None
    return PlanningResult(
        question=question,
        design=question.design,
        half_width=float(half_width),
        confidence_level=float(confidence_level),
        needed_n=needed_n,
        response_count=response_count,
        half_width_now=now,
        needed_n_sequence=sample_size_for_sequence_half_width(half_width, confidence_level, *question.design.exact()),
    )


def _needed_n(design, half_width: float, level: float, share: float) -> int:
    """Answers a fixed-sample interval needs for ``half_width`` in the design's worst case."""
    if is_two_group(design):
        return two_group_sample_size(design, half_width, *two_group_worst_case(design), level, share).n
    return sample_size_for_half_width(half_width, level, *design.exact())


def _two_group_plan(
    question: Question, half_width: float, level: float, share: float, sizes: tuple[int, int] | None
) -> PlanningResult:
    """:func:`plan` of a two-group question: its worst case, ``share`` of the respondents in group 1."""
    worst = two_group_worst_case(question.design)
    sizes = sizes or (0, 0)
    planned = two_group_sample_size(question.design, half_width, *worst, level, share)
    now = two_group_half_width(question.design, *sizes, *worst, level) if min(sizes) > 0 else None
    return PlanningResult(
        question=question,
        design=question.design,
        half_width=float(half_width),
        confidence_level=float(level),
        needed_n=planned.n,
        response_count=sum(sizes),
        half_width_now=now,
        needed_n_sequence=two_group_sample_size_for_sequence(question.design, half_width, level, share),
        group_share=share,
        needed_groups=(planned.n1, planned.n2),
        group_sizes=sizes,
    )


def planning_group_sizes(results: SurveyResults) -> dict[str, tuple[int, int]]:
    """Answers per group under the current design of each two-group question with a fit, for :func:`plan`."""
    return {
        r.question.name: r.two_group.estimate.n
        for r in results.questions
        if isinstance(r, YesNoResult) and r.two_group is not None and r.two_group.estimate.design == r.question.design
    }
