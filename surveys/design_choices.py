"""The designs a new question can take, side by side: what each costs in privacy and in answers.

The guided editor ("Add a question") offers, for a question kind, the designs of :data:`DESIGN_OPTIONS`
and shows for each its epsilon (:mod:`analysis.privacy`, through the design's ``epsilon``), what a
respondent reads (:func:`surveys.design_sentences.design_sentence` and
:func:`surveys.design_sentences.privacy_sentence`) and
the answers it needs for the survey's target margin (:mod:`analysis.planning`), so the privacy/precision
trade-off is chosen knowingly. A number (``integer``, ``decimal``) is compared mechanism by mechanism (the exact
discrete Laplace mechanism, the one-bit bounded design, the one :func:`analysis.numeric_design.numeric_design`
picks for the smaller variance, or asked directly) for a margin on its mean in its units
(:func:`analysis.numeric.numeric_needed_n`); a check-all-that-apply question encoding by encoding for a margin on
every option's share. Each option is a survey file's question entry: its figures are those of the
question the validator (:func:`surveys.schema.parse_survey`) builds from that entry, so the table shows what
the survey will do once the question is added.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from surveys.arms import DEFAULT_GROUP_1_SHARE
from surveys.definition import DECIMAL, INTEGER, NUMBER_TYPES, SELECT_MULTIPLE, SELECT_ONE, YES_NO, Question, Survey
from surveys.design_sentences import design_sentence, privacy_sentence
from surveys.kinds import kind_of
from surveys.numbers import NUMBER_PATTERN, format_value
from surveys.schema import parse_survey

#: The margin and confidence level planned for when the survey sets no target for a share.
DEFAULT_MARGIN = 0.05
DEFAULT_LEVEL = 0.95
#: The second statement a paired design (crosswise, triangular) is shown with until one is written: about a
#: quarter of people were born in January to March, the design's ``q``.
EXAMPLE_INNOCUOUS = "I was born in January, February or March."
#: The design family of ``integer`` and ``decimal`` questions: the same designs are offered for both.
NUMBER = "number"


@dataclass(frozen=True)
class DesignOption:
    """One design the guided editor offers: ``design`` is the survey file's ``design`` mapping (``None``: the
    kind's default, two coins or ``t: 1/2``); ``randomize`` False asks the question directly; ``paired``
    designs show a second statement (``design.innocuous``); ``keys`` are the entry's other keys (a number's
    ``mechanism``, a check-all question's ``encoding``). ``kind`` is :data:`NUMBER` for both number types."""

    key: str
    kind: str
    title: str
    design: Mapping | None = None
    randomize: bool = True
    paired: bool = False
    keys: tuple[tuple[str, str], ...] = ()


DESIGN_OPTIONS: tuple[DesignOption, ...] = (
    DesignOption("two_coins", YES_NO, "Forced response, two coins (the default)"),
    DesignOption("forced_two_thirds", YES_NO, "Forced response, truth 2/3", {"t": "2/3", "a": "1/6", "b": "1/6"}),
    DesignOption("warner", YES_NO, "Warner (the statement or its opposite)", {"model": "warner", "p": "3/4"}),
    DesignOption(
        "unrelated_question", YES_NO, "Unrelated question", {"model": "unrelated_question", "p": "2/3", "q": "1/2"}
    ),
    DesignOption("mangat", YES_NO, "Mangat (a yes is always stored as yes)", {"model": "mangat", "p": "3/4"}),
    DesignOption("kuk", YES_NO, "Kuk (two decks of cards)", {"model": "kuk", "k1": "4/5", "k2": "1/5"}),
    DesignOption("crosswise", YES_NO, "Crosswise (same or different)", {"model": "crosswise", "q": "1/4"}, paired=True),
    DesignOption(
        "triangular", YES_NO, "Triangular (no to both, or not)", {"model": "triangular", "q": "1/4"}, paired=True
    ),
    DesignOption(
        "cheater_detection",
        YES_NO,
        "Cheater detection (two groups)",
        {"model": "cheater_detection", "p1": "1/3", "p2": "2/3"},
    ),
    DesignOption(
        "stochastic_lie_detector",
        YES_NO,
        "Stochastic lie detector (two groups)",
        {"model": "stochastic_lie_detector", "p1": "1/3", "p2": "2/3"},
    ),
    DesignOption("direct_yes_no", YES_NO, "Asked directly (not randomized)", randomize=False),
    DesignOption("options_half", SELECT_ONE, "Truth 1/2, else a random option (the default)"),
    DesignOption("options_two_thirds", SELECT_ONE, "Truth 2/3, else a random option", {"t": "2/3"}),
    DesignOption("direct_choice", SELECT_ONE, "Asked directly (not randomized)", randomize=False),
    DesignOption("number_default", NUMBER, "Chosen for the smaller variance at this ε (the default)"),
    DesignOption("laplace", NUMBER, "Laplace noise added to the number", keys=(("mechanism", "laplace"),)),
    DesignOption("bounded", NUMBER, "One random digit, 1 or 0 (bounded)", keys=(("mechanism", "bounded"),)),
    DesignOption("direct_number", NUMBER, "Asked directly (not randomized)", randomize=False),
    DesignOption("ticks_default", SELECT_MULTIPLE, "One randomized bit per option (the default encoding)"),
    DesignOption(
        "optimized_unary", SELECT_MULTIPLE, "Optimized unary encoding", keys=(("encoding", "optimized_unary"),)
    ),
    DesignOption(
        "symmetric_unary", SELECT_MULTIPLE, "Symmetric unary encoding", keys=(("encoding", "symmetric_unary"),)
    ),
    DesignOption("direct_ticks", SELECT_MULTIPLE, "Asked directly (not randomized)", randomize=False),
)

#: The question kinds the guided editor writes, with their names on the page.
KINDS = {
    YES_NO: "Yes or no",
    SELECT_ONE: "One of several options",
    INTEGER: "A whole number",
    DECIMAL: "A number with decimals",
    SELECT_MULTIPLE: "Tick all that apply",
}
#: The kinds whose options are written one a line.
WITH_CHOICES = (SELECT_ONE, SELECT_MULTIPLE)


def family(kind: str) -> str:
    """The design family of ``kind``: :data:`NUMBER` for ``integer`` and ``decimal``, else the kind."""
    return NUMBER if kind in NUMBER_TYPES else kind


def options_for(kind: str) -> tuple[DesignOption, ...]:
    """The designs offered for ``kind`` (a key of :data:`KINDS`)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got kind={kind!r}")
    return tuple(option for option in DESIGN_OPTIONS if option.kind == family(kind))


def option_named(key: str) -> DesignOption:
    """The option whose ``key`` is ``key``; ``ValueError`` naming it otherwise."""
    for option in DESIGN_OPTIONS:
        if option.key == key:
            return option
    raise ValueError(f"there is no design called {key!r}")


@dataclass(frozen=True)
class Settings:
    """A number's or a check-all question's settings as typed in the page (empty: not given).

    ``minimum``, ``maximum``, ``step`` and ``bins`` (cut points, separated by commas or spaces) are a number's;
    ``epsilon`` (empty: the validator's default, ln 3) a randomized one's, either kind; ``margin`` is no key of
    the survey file but the margin on the mean, in the question's units, the table plans for (empty: a
    twentieth of the range, as ±5 points is of a share)."""

    minimum: str = ""
    maximum: str = ""
    step: str = ""
    bins: str = ""
    epsilon: str = ""
    margin: str = ""

    @classmethod
    def of(cls, values: Mapping) -> Settings:
        """The settings in a form's ``values`` (keys ``min``, ``max``, ``step``, ``bins``, ``epsilon``,
        ``margin``), each at most 200 characters."""
        names = {"minimum": "min", "maximum": "max", "step": "step", "bins": "bins", "epsilon": "epsilon"}
        typed = {attribute: str(values.get(key, ""))[:200].strip() for attribute, key in names.items()}
        return cls(**typed, margin=str(values.get("margin", ""))[:200].strip())


#: A number's margin is at least its range over this (a margin of a ten-thousandth of the range already needs
#: about 10^8 answers asked directly).
MIN_MARGIN_DIVISOR = 10_000
#: The settings a number's table is shown with before any are typed.
EXAMPLE_SETTINGS = {INTEGER: Settings("0", "30"), DECIMAL: Settings("0", "10", "0.5")}


def yaml_number(text: str):
    """A typed number as the survey file writes it: an ``int``, a ``float`` that reads back as exactly the typed
    decimal, else the text itself (the validator reads a decimal written as text exactly, or names a typo)."""
    if not NUMBER_PATTERN.fullmatch(text):
        return text
    if "." not in text:
        return int(text)
    written = repr(float(text))  # YAML writes a float so; an exponent (1e-06) would not read back
    return float(text) if NUMBER_PATTERN.fullmatch(written) and Fraction(written) == Fraction(text) else text


def settings_keys(kind: str, randomize: bool, settings: Settings) -> dict:
    """The survey-file keys ``settings`` give a question of ``kind``: a number's range, step and bins; a
    randomized number's or check-all question's epsilon; nothing for the other kinds."""
    keys: dict = {}
    if kind in NUMBER_TYPES:
        keys["min"], keys["max"] = yaml_number(settings.minimum), yaml_number(settings.maximum)
        if settings.step:
            keys["step"] = yaml_number(settings.step)
        if settings.bins:
            keys["bins"] = [yaml_number(cut) for cut in settings.bins.replace(",", " ").split()]
    if randomize and settings.epsilon and kind in (*NUMBER_TYPES, SELECT_MULTIPLE):
        keys["epsilon"] = yaml_number(settings.epsilon)
    return keys


def question_entry(
    option: DesignOption,
    name: str,
    label: str,
    choices: Sequence[str] = (),
    innocuous: str = "",
    kind: str | None = None,
    settings: Settings = Settings(),
) -> dict:
    """The survey file's entry of a question of ``kind`` (default ``option``'s; ``integer`` or ``decimal`` for a
    number's design) asked with ``option``: ``choices`` are a ``select_one``'s or ``select_multiple``'s options,
    ``settings`` a number's range or a check-all question's epsilon. ``ValueError`` when ``option`` is not one
    of ``kind``'s designs."""
    kind = kind or option.kind
    if option not in options_for(kind):
        raise ValueError(f"the design {option.key!r} is not one for a {kind} question")
    entry: dict = {"name": name, "type": kind, "label": label}
    if kind in WITH_CHOICES:
        entry["choices"] = list(choices)
    entry.update(settings_keys(kind, option.randomize, settings))
    if not option.randomize:
        entry["randomize"] = False
    elif option.design is not None:
        entry["design"] = dict(option.design)
        if option.paired:
            entry["design"]["innocuous"] = innocuous or EXAMPLE_INNOCUOUS
    entry.update(dict(option.keys))
    return entry


@dataclass(frozen=True)
class Plan:
    """The margin planned for: the survey's first target for a share, else :data:`DEFAULT_MARGIN`."""

    margin: float
    confidence_level: float
    from_target: bool
    #: A number's margin in its units (on the mean); otherwise ``None`` and the margin is on a share.
    units: str | None = None


def survey_plan(survey: Survey | None) -> Plan:
    """The margin and level the table plans for: the survey's first share target's, else the defaults."""
    shares = [
        target
        for target in (survey.targets if survey else ())
        if target.by is None and kind_of(survey.question(target.question)).single_share
    ]
    if shares:
        return Plan(float(shares[0].margin), float(shares[0].confidence_level), True)
    return Plan(DEFAULT_MARGIN, DEFAULT_LEVEL, False)


@dataclass(frozen=True)
class DesignChoice:
    """One row of the comparison: a design, the question it makes, and its figures.

    Attributes
    ----------
    option : DesignOption
    question : Question
        The question as the validator builds it from :func:`question_entry`.
    epsilon : float or None
        The local differential privacy of one answer (``inf``: an answer can reveal); ``None`` asked directly.
    reads : str
        What a respondent reads of the randomization (:func:`surveys.design_sentences.design_sentence`).
    protection : str
        What one stored answer gives away (:func:`surveys.design_sentences.privacy_sentence`).
    needed_n : int or None
        Answers for the margin at the level with an interval computed once (worst case over the true share,
        every option for a ``select_one`` or ``select_multiple``; :mod:`analysis.planning`); asked directly, the
        plain binomial case (forced response with ``t = 1``). A number: worst case over the true values of the
        margin on the mean (:func:`analysis.numeric.numeric_needed_n`).
    needed_n_sequence : int or None
        Answers for the margin with the anytime-valid confidence sequence that the survey's targets use
        (looked at as often as anyone likes); ``None`` where the kind has none (a choice, a plain number).
    """

    option: DesignOption
    question: Question
    epsilon: float | None
    reads: str
    protection: str
    needed_n: int | None
    needed_n_sequence: int | None


def built_question(entry: Mapping) -> Question:
    """The question the validator builds from ``entry``, alone in a survey; ``SurveyFileError`` if it has
    a mistake."""
    mapping = {"id": "design-choices", "title": "Design choices", "version": 1, "questions": [dict(entry)]}
    return parse_survey(mapping, "design choices").questions[0]


def _needed(question: Question, plan: Plan, share: float) -> tuple[int | None, int | None]:
    """Answers for the plan's margin with a fixed-sample interval and with the confidence sequence (``None``
    where the kind has none): the question's kind's ``design_needed``."""
    return kind_of(question).design_needed(question, plan.margin, plan.confidence_level, share)


def design_choice(
    option: DesignOption,
    plan: Plan,
    choices: Sequence[str] = (),
    innocuous: str = "",
    share=None,
    kind: str | None = None,
    settings: Settings = Settings(),
):
    """The :class:`DesignChoice` of ``option`` for a question of ``kind`` with ``choices`` and ``settings``."""
    entry = question_entry(option, "new_question", "The question", choices, innocuous, kind, settings)
    question = built_question(entry)
    needed, sequence = _needed(question, plan, float(share if share is not None else DEFAULT_GROUP_1_SHARE))
    epsilon = question.design.epsilon if question.design is not None else None
    return DesignChoice(
        option=option,
        question=question,
        epsilon=epsilon,
        reads=design_sentence(question),
        protection=privacy_sentence(question),
        needed_n=needed,
        needed_n_sequence=sequence,
    )


def number_plan(kind: str, settings: Settings, level: float) -> Plan:
    """A number's plan: the typed margin on the mean, else a twentieth of the range (a range as the validator
    reads it: :func:`built_question`, so a mistake in it is a ``SurveyFileError`` naming the key); ValueError
    for a margin that is no positive number."""
    number = built_question(question_entry(option_named("direct_number"), "new_question", "Q", (), "", kind, settings))
    number = number.number
    width = number.maximum - number.minimum
    if not settings.margin:
        margin = width / 20
    elif NUMBER_PATTERN.fullmatch(settings.margin) and Fraction(settings.margin) >= width / MIN_MARGIN_DIVISOR:
        margin = Fraction(settings.margin)
    else:
        smallest = format_value(width / MIN_MARGIN_DIVISOR, 6).rstrip("0").rstrip(".")
        raise ValueError(
            f"the margin must be a number in the question's units of at least {smallest} (a "
            f"{MIN_MARGIN_DIVISOR:,}th of the range), got {settings.margin[:20]!r}"
        )
    return Plan(float(margin), level, False, units=format_value(margin, 6).rstrip("0").rstrip("."))


def design_choices(
    survey: Survey | None,
    kind: str,
    choices: Sequence[str] = (),
    innocuous: str = "",
    settings: Settings | None = None,
) -> tuple[Plan, tuple[DesignChoice, ...]]:
    """Every design offered for ``kind``, side by side, planned for ``survey``'s target margin; ``choices``
    (a ``select_one``'s options, 2 at least; a ``select_multiple``'s) set ``k``. A number is planned for the
    margin of ``settings`` on its mean (default :data:`EXAMPLE_SETTINGS`); a mistake in ``settings`` is a
    ``SurveyFileError`` (the range) or a ``ValueError`` (the margin)."""
    plan = survey_plan(survey)
    settings = settings if settings is not None else EXAMPLE_SETTINGS.get(kind, Settings())
    if kind in NUMBER_TYPES:
        plan = number_plan(kind, settings, plan.confidence_level)
    share = survey.group_1_share if survey is not None else None
    rows = tuple(design_choice(option, plan, choices, innocuous, share, kind, settings) for option in options_for(kind))
    return plan, rows


def epsilon_shown(epsilon: float | None) -> str:
    """An epsilon as the table shows it: two decimals, ``∞`` when one answer can reveal, ``-`` asked directly."""
    if epsilon is None:
        return "-"
    return "∞" if math.isinf(epsilon) else f"{epsilon:.2f}"
