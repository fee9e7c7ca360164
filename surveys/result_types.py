"""The result types of a survey's estimates: frozen dataclasses, one per kind of figure.

Pure data: :mod:`surveys.results` and the question kinds (:mod:`surveys.kinds`) fill them from the kept
tallies; the pages, exports, break-downs and models read them. Nothing here computes a statistic.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from analysis import (
    TWO_SIDED,
    BinaryDesign,
    ConfidenceInterval,
    FinitePopulationEstimate,
    MultipleChoiceDesign,
    MultipleChoiceEstimate,
    OutsideDesign,
    PooledEstimate,
    ProportionEstimate,
    SurveyEpsilon,
)
from analysis.control_arm import ControlArmComparison
from analysis.misclassification import MisclassificationDesign, MisclassificationEstimate
from analysis.numeric import numeric_needed_n, numeric_sequence_needed_n
from analysis.numeric_design import MAX_NUMERIC_EPSILON, MIN_NUMERIC_EPSILON, NUMERIC_MECHANISMS, numeric_design
from analysis.two_group import TwoGroupEstimate
from surveys.definition import Choice, Question, Survey
from surveys.plan_types import ChoicePlan, option_plan

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
    extended_groups : tuple of int
        An extended crosswise question's answers: the group (0 or 1) of each
        of ``per_design`` (:func:`surveys.extended_crosswise.pooled_groups`);
        ``()`` for any other question.
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
    extended_groups: tuple[int, ...] = ()


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
        """:func:`surveys.planning.plan_choice` of this question (:func:`surveys.plan_types.option_plan`: a
        choice result is a randomized ``select_one``'s), with its answers under the current design; ``None`` if
        it cannot be computed (the page then leaves the planning row out rather than fail)."""
        try:
            return option_plan(self.question, half_width, confidence_level, self.current_design_count)
        except (ValueError, ArithmeticError, np.linalg.LinAlgError):
            return None


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


@dataclass(frozen=True)
class BinShare:
    """One bin of a number's distribution: its label, its share, and the band around it (``None`` where the
    distribution is not estimated)."""

    label: str
    share: float | None
    low: float | None
    high: float | None


@dataclass(frozen=True)
class MechanismPlan:
    """The answers one mechanism needs for a margin on a number's mean at the question's epsilon: for the
    interval (``interval_n``) and for the anytime-valid sequence (``sequence_n``), worst case over the true
    values; ``current`` for the question's own mechanism. ``None`` where it cannot be worked out."""

    mechanism: str
    epsilon: float
    interval_n: int | None
    sequence_n: int | None
    current: bool


@dataclass(frozen=True)
class NumberResult:
    """The mean of a number, randomized on the device (or asked plainly), in the question's units.

    ``mean``, ``std_err``, ``ci_low``, ``ci_high`` and the sequence's ends are in the question's units (grid
    estimates times ``step`` plus ``min``); ``noise_variance`` is one answer's added variance (question units
    squared; 0 for a plain number). ``bins`` is the distribution over the declared bins: counted for a plain
    number, estimated by deconvolution for the Laplace mechanism, absent for the one-bit design (a bit
    identifies the mean only): ``bins_note`` says which. ``mechanism`` is ``"laplace"``, ``"bounded"`` or
    ``""`` (plain). ``mean_raw`` is the unbiased mean before it is kept within ``[min, max]`` (the one to average
    or compare); ``ci_method`` is ``"t"`` (Laplace: Student's t on the noisy answers) or ``"wilson"`` (bounded:
    Wilson's interval for the share of ones, mapped), ``ci_side`` ``"two-sided"``, or ``"upper"``/``"lower"`` for
    the one-bit design's one-sided bound (its share of ones outside what the design produces).
    """

    question: Question
    n: int
    mean: float | None
    std_err: float | None
    ci_low: float | None
    ci_high: float | None
    confidence_level: float
    epsilon: float
    mechanism: str
    design_label: str
    noise_variance: float
    bins: tuple[BinShare, ...]
    bins_note: str
    flags: tuple[str, ...]
    sentence: str = ""
    error: str | None = None
    sequence: SequenceBounds | None = None
    sums: tuple[int, int, int] = (0, 0, 0)

    def mechanism_plans(self, share_of_range: float, confidence_level: float) -> tuple[MechanismPlan, ...]:
        """For a margin of ``share_of_range`` of the question's range (0.05: plus or minus 5% of max - min), the
        answers each mechanism would need at this question's epsilon (:func:`analysis.numeric_needed_n`,
        :func:`analysis.numeric_sequence_needed_n`), so that the researcher sees the cost of each choice; ``()``
        for a plain number."""
        if self.question.design is None:
            return ()
        steps = self.question.number.steps
        epsilon = min(max(self.question.design.epsilon, MIN_NUMERIC_EPSILON), MAX_NUMERIC_EPSILON)
        plans = []
        for mechanism in NUMERIC_MECHANISMS:
            design = numeric_design(steps, epsilon, mechanism)
            try:
                interval = numeric_needed_n(design, share_of_range * steps, confidence_level)
                sequence = numeric_sequence_needed_n(design, share_of_range * steps, confidence_level)
            except (ValueError, ArithmeticError):
                interval = sequence = None
            plans.append(
                MechanismPlan(mechanism, design.epsilon, interval, sequence, design.kind == self.question.design.kind)
            )
        return tuple(plans)

    mean_raw: float | None = None
    ci_method: str = ""
    ci_side: str = "two-sided"
    #: With the survey's ``population_size`` ``N``: the sentence giving the finite-population standard error and
    #: interval of the mean and the total ``N x mean`` with its own (``""`` otherwise, or why there are none).
    finite_population_note: str = ""


@dataclass(frozen=True)
class NumberDifference:
    """The difference of two groups' means of a randomized number (first minus second), in the question's units.

    Named as :class:`analysis.Difference` names a difference of shares, so a page or an export reads either:
    ``estimate`` the unbiased means subtracted (``first_raw - second_raw``, neither kept within the range),
    ``std_err`` ``sqrt(SE_1^2 + SE_2^2)``, ``ci`` the interval of :func:`analysis.numeric.numeric_difference`
    (``method`` ``"welch"``: Welch-Satterthwaite's t for the Laplace mechanism; ``"normal"``: the one-bit design,
    or a group of one answer), in ``[-(max - min), max - min]``.
    """

    estimate: float
    std_err: float
    ci: ConfidenceInterval
    first_raw: float
    second_raw: float


@dataclass(frozen=True)
class MultipleResult:
    """A check-all-that-apply question: each option's debiased share of respondents who would tick it, and
    the mean number of options ticked (``ticked_*``, on ``0 .. options``)."""

    question: Question
    n: int
    options: tuple[OptionResult, ...]
    ticked_mean: float | None
    ticked_std_err: float | None
    ticked_low: float | None
    ticked_high: float | None
    epsilon: float
    design_label: str
    flags: tuple[str, ...]
    sentence: str = ""
    error: str | None = None


QuestionResult = YesNoResult | ChoiceResult | PlainResult | NumberResult | MultipleResult


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
