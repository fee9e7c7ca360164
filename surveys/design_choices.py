"""The designs a new question can take, side by side: what each costs in privacy and in answers.

The guided editor ("Add a question") offers, for a question kind, the designs of :data:`DESIGN_OPTIONS`
and shows for each its epsilon (:mod:`analysis.privacy`, through the design's ``epsilon``), what a
respondent reads (:func:`surveys.design_sentences.design_sentence` and
:func:`surveys.design_sentences.privacy_sentence`) and
the answers it needs for the survey's target margin (:mod:`analysis.planning`), so the privacy/precision
trade-off is chosen knowingly. Each option is a survey file's question entry: its figures are those of the
question the validator (:func:`surveys.schema.parse_survey`) builds from that entry, so the table shows what
the survey will do once the question is added.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from surveys.arms import DEFAULT_GROUP_1_SHARE
from surveys.definition import SELECT_ONE, YES_NO, Question, Survey
from surveys.design_sentences import design_sentence, privacy_sentence
from surveys.kinds import kind_of
from surveys.schema import parse_survey

#: The margin and confidence level planned for when the survey sets no target for a share.
DEFAULT_MARGIN = 0.05
DEFAULT_LEVEL = 0.95
#: The second statement a paired design (crosswise, triangular) is shown with until one is written: about a
#: quarter of people were born in January to March, the design's ``q``.
EXAMPLE_INNOCUOUS = "I was born in January, February or March."


@dataclass(frozen=True)
class DesignOption:
    """One design the guided editor offers: ``design`` is the survey file's ``design`` mapping (``None``: the
    kind's default, two coins or ``t: 1/2``); ``randomize`` False asks the question directly; ``paired``
    designs show a second statement (``design.innocuous``)."""

    key: str
    kind: str
    title: str
    design: Mapping | None = None
    randomize: bool = True
    paired: bool = False


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
)

#: The question kinds the guided editor writes, with their names on the page.
KINDS = {YES_NO: "Yes or no", SELECT_ONE: "One of several options"}


def options_for(kind: str) -> tuple[DesignOption, ...]:
    """The designs offered for ``kind`` (``yes_no`` or ``select_one``)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got kind={kind!r}")
    return tuple(option for option in DESIGN_OPTIONS if option.kind == kind)


def option_named(key: str) -> DesignOption:
    """The option whose ``key`` is ``key``; ``ValueError`` naming it otherwise."""
    for option in DESIGN_OPTIONS:
        if option.key == key:
            return option
    raise ValueError(f"there is no design called {key!r}")


def question_entry(
    option: DesignOption, name: str, label: str, choices: Sequence[str] = (), innocuous: str = ""
) -> dict:
    """The survey file's entry of a question asked with ``option`` (``choices``: a ``select_one``'s options)."""
    entry: dict = {"name": name, "type": option.kind, "label": label}
    if option.kind == SELECT_ONE:
        entry["choices"] = list(choices)
    if not option.randomize:
        entry["randomize"] = False
    elif option.design is not None:
        entry["design"] = dict(option.design)
        if option.paired:
            entry["design"]["innocuous"] = innocuous or EXAMPLE_INNOCUOUS
    return entry


@dataclass(frozen=True)
class Plan:
    """The margin planned for: the survey's first target for a share, else :data:`DEFAULT_MARGIN`."""

    margin: float
    confidence_level: float
    from_target: bool


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
        every option for a ``select_one``; :mod:`analysis.planning`); asked directly, the plain binomial
        case (forced response with ``t = 1``).
    needed_n_sequence : int or None
        Yes/no only: answers for the margin with the anytime-valid confidence sequence that the survey's
        targets use (looked at as often as anyone likes).
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


def design_choice(option: DesignOption, plan: Plan, choices: Sequence[str] = (), innocuous: str = "", share=None):
    """The :class:`DesignChoice` of ``option`` for a question with ``choices`` (a ``select_one``'s)."""
    question = built_question(question_entry(option, "new_question", "The question", choices, innocuous))
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


def design_choices(
    survey: Survey | None, kind: str, choices: Sequence[str] = (), innocuous: str = ""
) -> tuple[Plan, tuple[DesignChoice, ...]]:
    """Every design offered for ``kind``, side by side, planned for ``survey``'s target margin; ``choices``
    (a ``select_one``'s options, 2 at least) set ``k``."""
    plan = survey_plan(survey)
    share = survey.group_1_share if survey is not None else None
    rows = tuple(design_choice(option, plan, choices, innocuous, share) for option in options_for(kind))
    return plan, rows


def epsilon_shown(epsilon: float | None) -> str:
    """An epsilon as the table shows it: two decimals, ``∞`` when one answer can reveal, ``-`` asked directly."""
    if epsilon is None:
        return "-"
    return "∞" if math.isinf(epsilon) else f"{epsilon:.2f}"
