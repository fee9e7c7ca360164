"""Numbers and designs in words: the one home of every percentage, level and epsilon shown.

Pure text: the domain's sentences (:mod:`surveys.results`), the charts
(:mod:`web.charts`) and the templates (registered as filters and globals by
:func:`web.init_app`) all format through these functions, so a share reads
the same on every page.

One formatter, :func:`percent`, with the number of decimals chosen by the
context:

* sentences and chart labels: whole percents, ``"23%"`` (``percent(x)``);
* admin tables: one decimal, ``"23.4%"`` (:func:`table_percent`, the ``pct`` filter);
* design probabilities, attack rates and confidence levels: at most one
  decimal, trailing zeros dropped, ``"25%"``, ``"16.7%"``, ``"99.5%"``
  (:func:`short_percent`).

The respondent's pages pass their ``locale`` (``"fr"``, ``"es"``...): the numbers
are then written by Babel (:func:`babel.numbers.format_percent`,
:func:`babel.numbers.format_decimal`) with that locale's own pattern,
``"16,7 %"`` in French; without a locale (the admin pages, the CLI) they are
written as above.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from babel import Locale
from babel.numbers import format_decimal, format_percent

from analysis import (
    TWO_COIN,
    ConfidenceInterval,
    CrosswiseDesign,
    ForcedResponseDesign,
    KukDesign,
    MangatDesign,
    MultipleChoiceDesign,
    OutsideDesign,
    SurveyEpsilon,
    TriangularDesign,
    UnrelatedQuestionDesign,
    WarnerDesign,
)
from analysis.misclassification import MisclassificationDesign
from analysis.two_group import CheaterDetectionDesign, StochasticLieDetectorDesign
from surveys.arms import GROUPS, group_yes_probabilities, is_two_group
from surveys.definition import Question, attack_success_rate

#: Translates a sentence (its msgid) before its numbers are put in; the web layer passes Flask-Babel's.
Gettext = Callable[[str], str]


def N_(text: str) -> str:
    """Marks a constant for the catalogues (``pybabel extract``); it is translated where it is used."""
    return text


#: Shown for a share that does not exist (no answers).
MISSING = "–"
#: Decimals of a share in an admin table.
TABLE_DIGITS = 1
#: An interval wider than this (half-width above 25 points) says too little to report an
#: estimate: the sentence says "too few answers to tell" instead. Half the range a share can take.
TOO_WIDE = 0.5
#: The rule as the results page states it.
TOO_WIDE_RULE = "an interval wider than 50 percentage points (± 25)"
#: Shown instead of a number where one stored answer can prove the true one (epsilon infinite).
NO_EPSILON = N_("no epsilon guarantee: one answer fully reveals")
#: :func:`privacy_sentence` of a design with a stored answer that leaves one true answer, or rules some out.
FULLY_REVEALS = N_("This design has no epsilon guarantee: one answer fully reveals: %(which)s")
RULES_OUT = N_("This design has no epsilon guarantee: some stored answers rule out a true answer: %(which)s")
#: Crosswise and triangular: whose view the epsilon is about.
PAIRED_EPSILON_CONDITION = N_(
    "This holds only for a reader who does not know your answer to the second statement; "
    "it assumes that statement has nothing to do with the first."
)
#: What the confidence sequence beside each interval is, and which to read when (results page).
SEQUENCE_NOTE = (
    "Anytime-valid sequence: valid however often you look and whenever you stop collecting, so it is wider; "
    "the interval is valid only if this is the only look, at a sample size you fixed in advance."
)


def untranslated(text: str) -> str:
    """The default :data:`Gettext`: English, the catalogues' msgids."""
    return text


def percent(value: float | None, digits: int = 0, *, trim: bool = False, locale: str | None = None) -> str:
    """``value`` (a share in ``[0, 1]``) as a percentage with ``digits`` decimals.

    ``percent(0.2345) == "23%"``, ``percent(0.2345, 1) == "23.4%"``; with
    ``trim`` the trailing zeros of the decimals go: ``percent(0.25, 1,
    trim=True) == "25%"``. ``None`` gives :data:`MISSING`. With ``locale``, in
    that locale's way: ``percent(1/6, 1, trim=True, locale="fr") == "16,7\u00a0%"``.
    """
    if value is None:
        return MISSING
    if locale is not None:
        return _local_percent(value, digits, trim, locale)
    text = f"{value * 100:.{digits}f}"
    if trim and "." in text:
        text = text.rstrip("0").rstrip(".")
    return f"{text}%"


def _local_percent(value: float, digits: int, trim: bool, locale: str) -> str:
    """:func:`percent` through Babel: the locale's own percent pattern with ``digits`` decimals
    (``#``, dropped when zero, with ``trim``; ``0``, always shown, without)."""
    pattern = Locale.parse(locale).percent_formats[None].pattern
    if digits:
        pattern = pattern.replace("0", "0." + ("#" if trim else "0") * digits, 1)
    return format_percent(value, pattern, locale=locale)


def _local_decimal(value: float, digits: int, locale: str | None) -> str:
    """``value`` with exactly ``digits`` decimals, in ``locale``'s way when given (``"2,72"`` in French)."""
    if locale is None:
        return f"{value:.{digits}f}"
    return format_decimal(value, "#,##0." + "0" * digits if digits else "#,##0", locale=locale)


def table_percent(value: float | None, digits: int = TABLE_DIGITS) -> str:
    """A share in an admin table, ``"23.4%"``: the ``pct`` template filter."""
    return percent(value, digits)


def margin_text(half_width: float) -> str:
    """A margin of error in words: ``0.05 -> "plus or minus 5 percentage points"`` (at most one decimal)."""
    return f"plus or minus {percent(half_width, 1, trim=True).removesuffix('%')} percentage points"


def short_percent(value: float, locale: str | None = None) -> str:
    """At most one decimal: ``0.25 -> "25%"``, ``1/6 -> "16.7%"``, ``0.995 -> "99.5%"`` (``"16,7 %"`` in French).

    For probabilities of a design, attack success rates and confidence levels.
    """
    return percent(value, 1, trim=True, locale=locale)


def epsilon_text(epsilon: float, locale: str | None = None) -> str:
    """``1.0986 -> "1.10"`` (``"1,10"`` in French); an infinite epsilon says that one answer can fully
    reveal (:data:`NO_EPSILON`)."""
    return f"∞ ({NO_EPSILON})" if math.isinf(epsilon) else _local_decimal(epsilon, 2, locale)


def epsilon_bound_text(epsilon: SurveyEpsilon) -> str:
    """Which composition bound :attr:`analysis.SurveyEpsilon.best` is, in words.

    Both bounds are valid; the page shows the tighter one and names it.
    """
    if epsilon.best == epsilon.basic:
        return "sequential composition, pure ε-differential privacy: the tighter of the two valid bounds"
    return f"advanced composition with δ = {epsilon.delta:g}: the tighter of the two valid bounds"


def count_text(count: int, word: str) -> str:
    """``"1 response"``, ``"3 responses"``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def design_sentence(question: Question, gettext: Gettext = untranslated, locale: str | None = None) -> str:
    """How one question's answer is randomized, in words a respondent follows.

    True on both paths: it says what is stored, not where the coins are
    flipped (on the device with JavaScript, on the server without). ``gettext`` translates
    each sentence before its numbers go in (Flask-Babel's on the respondent pages), written
    in ``locale``'s way when given.
    """
    design = question.design
    if design is None:
        return gettext("Not randomized: stored exactly as you answer.")
    if design == TWO_COIN:
        return gettext(
            "Two coins are flipped in secret. First coin tails: your true answer is stored. "
            "First coin heads: the second coin decides, heads stores “yes”, tails stores “no”."
        )
    if isinstance(design, ForcedResponseDesign):
        return gettext(
            "Your true answer is stored %(t)s of the time; otherwise “yes” is "
            "stored (%(a)s of the time) or “no” (%(b)s)."
        ) % _shares(design, locale, "t", "a", "b")
    binary = _binary_design_sentence(design, question.innocuous, gettext, locale) or _two_group_sentence(
        design, gettext, locale
    )
    if binary:
        return binary
    if isinstance(design, MisclassificationDesign):
        kept = [short_percent(float(design.matrix[i][i]), locale) for i in range(design.k)]
        return gettext(
            "Your true answer is stored with a chance that depends on it (%(kept)s for the options in "
            "order); otherwise another option is stored, drawn with chances the researchers set in advance."
        ) % {"kept": ", ".join(kept)}
    return gettext(
        "Your true answer is stored %(t)s of the time; otherwise one of the %(k)s options is picked at random."
    ) % {**_shares(design, locale, "t"), "k": design.k}


def _shares(design, locale: str | None, *names: str) -> dict[str, str]:
    """The design's probabilities ``names`` as short percentages, for a sentence's placeholders."""
    return {name: short_percent(float(getattr(design, name)), locale) for name in names}


def _two_group_sentence(design, gettext: Gettext = untranslated, locale: str | None = None) -> str:
    """:func:`design_sentence` for the cheater detection model and the stochastic lie detector; ``""`` for others.

    Each respondent is in one of two random groups with different chances; the groups let the researchers
    estimate how many people do not answer truthfully, beside how common the behaviour is.
    """
    if isinstance(design, CheaterDetectionDesign):
        return gettext(
            "You are put at random in one of two groups. In group 1, “yes” is stored "
            "%(p1)s of the time whatever you answer, and your true answer otherwise; "
            "in group 2, “yes” %(p2)s of the time. Comparing the groups shows the "
            "researchers how many people answer “no” whatever is true, so please answer truthfully."
        ) % _shares(design, locale, "p1", "p2")
    if isinstance(design, StochasticLieDetectorDesign):
        return gettext(
            "You are put at random in one of two groups. If your true answer is yes, “yes” is stored. If it is "
            "no, “no” is stored %(p1)s of the time in group 1 and "
            "%(p2)s in group 2, and “yes” otherwise. Comparing the groups shows the "
            "researchers how many people answer “no” when the truth is yes, so please answer truthfully."
        ) % _shares(design, locale, "p1", "p2")
    return ""


def _binary_design_sentence(design, innocuous: str, gettext: Gettext = untranslated, locale: str | None = None) -> str:
    """:func:`design_sentence` for the one-parameter yes/no designs other than forced response; ``""`` for others."""
    if isinstance(design, WarnerDesign):
        return gettext(
            "Your true answer is stored %(p)s of the time; otherwise its opposite "
            "is stored, as if you had answered the reversed statement (“it is not true that …”). Nobody learns "
            "which happened."
        ) % _shares(design, locale, "p")
    if isinstance(design, UnrelatedQuestionDesign):
        return gettext(
            "Your true answer is stored %(p)s of the time; otherwise a random "
            "answer is stored instead: “yes” with chance %(q)s, as if you had "
            "answered an unrelated question."
        ) % _shares(design, locale, "p", "q")
    if isinstance(design, KukDesign):
        return gettext(
            "A card is drawn at random from one of two decks: if your true answer is yes, from a deck with "
            "%(k1)s red cards; if no, from a deck with "
            "%(k2)s red cards. Only the card's colour is stored (red as “yes”)."
        ) % _shares(design, locale, "k1", "k2")
    if isinstance(design, MangatDesign):
        return gettext(
            "If your true answer is yes, “yes” is stored. If it is no, your answer is stored "
            "%(p)s of the time and “yes” otherwise."
        ) % _shares(design, locale, "p")
    if isinstance(design, CrosswiseDesign):
        return gettext(
            "Nothing is randomized: you do not say whether the statement is true for you, only whether your "
            "answers to it and to “%(second)s” are the same (both yes or both no) or differ. Nobody knows your "
            "answer to that second statement (true for about %(q)s of people)."
        ) % {**_shares(design, locale, "q"), "second": innocuous}
    if isinstance(design, TriangularDesign):
        return gettext(
            "Nothing is randomized: you say only whether your answer is “no” to both this statement and "
            "“%(second)s” (true for about %(q)s of people), or “yes” to at least one."
        ) % {**_shares(design, locale, "q"), "second": innocuous}
    return ""


def odds_factor_text(epsilon: float, locale: str | None = None) -> str:
    """``e^epsilon``, the most one answer can change anyone's odds: ``ln 3 -> "3"``, ``1 -> "2.72"``
    (``"2,72"`` in French)."""
    if math.isinf(epsilon):
        return "∞"
    factor = math.exp(epsilon)
    return _local_decimal(factor, 0 if abs(factor - round(factor)) < 1e-9 else 2, locale)


def privacy_sentence(question: Question, gettext: Gettext = untranslated, locale: str | None = None) -> str:
    """What one randomized answer gives away: the guarantee that holds whatever anyone believed
    before (odds change by at most ``e^epsilon``), then the guessing rate with its prior spelled out;
    its numbers in ``locale``'s way when given."""
    design = question.design
    if design is None:
        return gettext("Not protected: anyone who sees the stored answer sees yours.")
    if reveals(question):
        return gettext(FULLY_REVEALS if _fully_reveals(question) else RULES_OUT) % {
            "which": revealing_sentence(question, gettext)
        }
    numbers = {
        "factor": odds_factor_text(design.epsilon, locale),
        "rate": short_percent(attack_success_rate(design), locale),
        "blind": short_percent(1 / len(question.choices), locale),
        "k": len(question.choices),
    }
    if question.type == "yes_no":
        sentence = gettext(
            "Whatever anyone believed about you before, your stored answer changes their odds of yes against no "
            "by at most a factor of %(factor)s. If they thought yes and no equally likely for you, a guess from "
            "your stored answer is right at most %(rate)s of the time (a blind guess: %(blind)s)."
        )
    else:
        sentence = gettext(
            "Whatever anyone believed about you before, your stored answer changes their odds of one option "
            "against another by at most a factor of %(factor)s. If they thought all %(k)s options equally likely "
            "for you, a guess from your stored answer is right at most %(rate)s of the time (a blind guess: "
            "%(blind)s)."
        )
    condition = " " + gettext(PAIRED_EPSILON_CONDITION) if question.innocuous else ""
    return sentence % numbers + condition


#: What a stored yes/no answer that rules out one true answer proves, by (stored, true answer).
YES_NO_PROOFS = {
    ("no", "no"): N_("a stored “no” proves that your true answer is no."),
    ("yes", "yes"): N_("a stored “yes” proves that your true answer is yes."),
    ("yes", "no"): N_("a stored “yes” proves that your true answer is no."),
    ("no", "yes"): N_("a stored “no” proves that your true answer is yes."),
}
#: The same for a crosswise or triangular question, whose stored answer is one of its own options.
PAIRED_PROOFS = {
    "no": N_("the answer %(stored)s proves that your true answer to the first statement is no."),
    "yes": N_("the answer %(stored)s proves that your true answer to the first statement is yes."),
}
#: The same for a question with options: the stored option leaves one true option, or rules some out.
OPTION_PROOF = N_("a stored “%(stored)s” proves that your true answer is “%(truth)s”.")
OPTION_RULED_OUT = N_("a stored “%(stored)s” proves that your true answer is not %(ruled_out)s.")


def is_drawn(question: Question) -> bool:
    """Whether a randomizer (software, on the device or the server) draws the stored answer of ``question``.

    Not for a plain question, nor for crosswise and triangular, whose respondent combines two answers in
    their head (:attr:`analysis.BinaryDesign.randomized_by_software`)."""
    return question.design is not None and getattr(question.design, "randomized_by_software", True)


def is_paired(question: Question) -> bool:
    """Whether ``question`` is answered by comparing it with a second statement (crosswise, triangular)."""
    return question.design is not None and not is_drawn(question)


#: The randomizers the respondent's pages name: two coins, two decks of cards, any other random draw.
COINS, CARDS, DRAWS = "coins", "cards", "draws"


def randomizer(question: Question) -> str:
    """What draws ``question``'s stored answer, in the words its design sentence uses: :data:`COINS` (the
    two-coin design), :data:`CARDS` (Kuk's decks), :data:`DRAWS` (any other); ``""``: nothing is drawn."""
    if not is_drawn(question):
        return ""
    if question.design == TWO_COIN:
        return COINS
    return CARDS if isinstance(question.design, KukDesign) else DRAWS


def _channels(design) -> tuple[tuple[tuple[Fraction, ...], ...], ...]:
    """The design's chances ``P(stored j | true i)`` as matrices (rows: stored, columns: true answer; yes/no
    in the order yes, no), one per group for a two-group design (honest respondents), else one."""
    if isinstance(design, MisclassificationDesign):
        return (design.matrix,)
    if isinstance(design, MultipleChoiceDesign):
        return (MisclassificationDesign.from_multiple_choice(design.k, design.t).matrix,)
    pairs = (
        [group_yes_probabilities(design, g) for g in GROUPS] if is_two_group(design) else [design.yes_probabilities()]
    )
    return tuple(((theta1, theta0), (1 - theta1, 1 - theta0)) for theta1, theta0 in pairs)


def revealing_answers(question: Question) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each stored answer that rules out some true answer (its likelihood ratio between two true answers is
    infinite), with the true answers it leaves: ``(stored choice name, (true choice names, ...))``.

    Empty exactly when the design's epsilon is finite. A yes/no question's true answers are ``"yes"`` and
    ``"no"`` (for crosswise and triangular, the answer to the first statement); a stored answer that no true
    answer can give is not listed.
    """
    if question.design is None:
        return ()
    truths = ("yes", "no") if question.type == "yes_no" else question.choice_names
    found: dict[tuple[str, tuple[str, ...]], None] = {}
    for matrix in _channels(question.design):
        for stored, row in zip(question.choice_names, matrix):
            left = tuple(truth for truth, chance in zip(truths, row) if chance > 0)
            if left and len(left) < len(truths):
                found[(stored, left)] = None
    return tuple(found)


def reveals(question: Question) -> bool:
    """Whether some stored answer of ``question`` can prove something about the true one (epsilon infinite)."""
    return bool(revealing_answers(question))


def revealing_sentence(question: Question, gettext: Gettext = untranslated) -> str:
    """What each revealing stored answer of ``question`` proves (:func:`revealing_answers`), in words, joined
    by semicolons; ``""`` when none does."""
    proofs = [_proof(question, stored, left, gettext) for stored, left in revealing_answers(question)]
    return "; ".join([proof.rstrip(".") for proof in proofs[:-1]] + proofs[-1:])


def _proof(question: Question, stored: str, left: tuple[str, ...], gettext: Gettext) -> str:
    """One stored answer's proof: the true answer it leaves, or those it rules out."""
    if question.type == "yes_no" and is_paired(question):
        label = question.choices[question.choice_names.index(stored)].label
        return gettext(PAIRED_PROOFS[left[0]]) % {"stored": gettext(label)}
    if question.type == "yes_no":
        return gettext(YES_NO_PROOFS[(stored, left[0])])
    labels = dict(zip(question.choice_names, (choice.label for choice in question.choices)))
    if len(left) == 1:
        return gettext(OPTION_PROOF) % {"stored": labels[stored], "truth": labels[left[0]]}
    ruled_out = ", ".join(f"“{labels[name]}”" for name in question.choice_names if name not in left)
    return gettext(OPTION_RULED_OUT) % {"stored": labels[stored], "ruled_out": ruled_out}


def _fully_reveals(question: Question) -> bool:
    """Whether some stored answer leaves exactly one true answer."""
    return any(len(left) == 1 for _, left in revealing_answers(question))


@dataclass(frozen=True)
class Protection:
    """What the designs of some questions (a survey's, or one page's) do, as the respondent's wording needs it.

    Attributes
    ----------
    questions : tuple of Question
    drawn : tuple of Question
        Those whose stored answer a randomizer draws (:func:`is_drawn`).
    paired : tuple of Question
        Crosswise and triangular: nothing drawn, the respondent compares two statements.
    plain : tuple of Question
        Stored as answered.
    revealing : tuple of Question
        Those with a stored answer that proves something about the true one (:func:`reveals`).
    randomizer : str
        What draws the drawn answers: :data:`COINS` or :data:`CARDS` when all use it, else :data:`DRAWS`;
        ``""`` when none is drawn.
    protecting : str
        The same over the drawn questions none of whose stored answers reveals anything.
    """

    questions: tuple[Question, ...]
    drawn: tuple[Question, ...]
    paired: tuple[Question, ...]
    plain: tuple[Question, ...]
    revealing: tuple[Question, ...]
    randomizer: str
    protecting: str


def _common_randomizer(questions: Sequence[Question]) -> str:
    names = {randomizer(q) for q in questions}
    return "" if not names else names.pop() if len(names) == 1 else DRAWS


def protection(questions: Sequence[Question]) -> Protection:
    """:class:`Protection` of ``questions``, worked out from their designs."""
    questions = tuple(questions)
    drawn = tuple(q for q in questions if is_drawn(q))
    revealing = tuple(q for q in questions if reveals(q))
    return Protection(
        questions,
        drawn,
        tuple(q for q in questions if is_paired(q)),
        tuple(q for q in questions if q.design is None),
        revealing,
        _common_randomizer(drawn),
        _common_randomizer([q for q in drawn if q not in revealing]),
    )


#: The summary's first line: how many answers are drawn, and whether a stored answer can prove anything.
DRAWN_SOME = N_(
    "%(randomized)s of your %(total)s answers are randomized before they are stored: sometimes a random answer "
    "is stored instead of yours, so no stored answer proves what you said."
)
DRAWN_ALL = N_(
    "Your answers are randomized before they are stored: sometimes a random answer is stored instead of yours, "
    "so no stored answer proves what you said."
)
DRAWN_SOME_REVEALING = N_(
    "%(randomized)s of your %(total)s answers are randomized before they are stored: sometimes a random answer "
    "is stored instead of yours."
)
DRAWN_ONE = N_(
    "One of your %(total)s answers is randomized before it is stored: sometimes a random answer is stored "
    "instead of yours, so no stored answer proves what you said."
)
DRAWN_ONE_REVEALING = N_(
    "One of your %(total)s answers is randomized before it is stored: sometimes a random answer is stored "
    "instead of yours."
)
DRAWN_ALL_REVEALING = N_(
    "Your answers are randomized before they are stored: sometimes a random answer is stored instead of yours."
)
#: Where the drawing happens with JavaScript on, by randomizer.
ON_DEVICE = {
    COINS: N_("The coins are flipped on your device: your true answers to the randomized questions never leave it."),
    CARDS: N_("The cards are drawn on your device: your true answers to the randomized questions never leave it."),
    DRAWS: N_(
        "The random draws are made on your device: your true answers to the randomized questions never leave it."
    ),
}
#: The last line of the summary, by the randomizer of the answers it protects.
ANSWER_TRUTHFULLY = {
    COINS: N_("Please answer truthfully: the coins protect you."),
    CARDS: N_("Please answer truthfully: the cards protect you."),
    DRAWS: N_("Please answer truthfully: the random draws protect you."),
}
#: A revealing question named in the summary.
REVEALING_ITEM = N_("For “%(question)s”, %(which)s")
#: Under a page (JavaScript on) whose every question is drawn, or some of them.
PAGE_ALL_DRAWN = N_("Your answers will be randomized on this device before they are sent.")
PAGE_SOME_DRAWN = N_(
    "Your answers to the randomized questions on this page will be randomized on this device before they are "
    "sent; the others are sent as you give them."
)


def drawn_sentence(shown: Protection, gettext: Gettext = untranslated) -> str:
    """The summary's first line (``""`` when nothing is drawn): which answers are randomized, and "no stored
    answer proves what you said" only when no question has a stored answer that proves anything."""
    if not shown.drawn:
        return ""
    count, total = len(shown.drawn), len(shown.questions)
    revealing = bool(shown.revealing)
    if count == total:
        return gettext(DRAWN_ALL_REVEALING if revealing else DRAWN_ALL)
    if count == 1:
        return gettext(DRAWN_ONE_REVEALING if revealing else DRAWN_ONE) % {"total": total}
    return gettext(DRAWN_SOME_REVEALING if revealing else DRAWN_SOME) % {"randomized": count, "total": total}


def device_sentence(shown: Protection, gettext: Gettext = untranslated) -> str:
    """Where the drawing happens with JavaScript on, naming the randomizer; ``""`` when nothing is drawn."""
    return gettext(ON_DEVICE[shown.randomizer]) if shown.randomizer else ""


def truthfully_sentence(shown: Protection, gettext: Gettext = untranslated) -> str:
    """ "Please answer truthfully: the coins protect you." naming the randomizer of the drawn answers that
    reveal nothing; ``""`` when there are none."""
    return gettext(ANSWER_TRUTHFULLY[shown.protecting]) if shown.protecting else ""


def revealing_items(shown: Protection, gettext: Gettext = untranslated) -> list[str]:
    """One line per revealing question: "For “Q”, a stored “no” proves that your true answer is no."."""
    return [
        gettext(REVEALING_ITEM) % {"question": q.label, "which": revealing_sentence(q, gettext)}
        for q in shown.revealing
    ]


def page_note(shown: Protection, gettext: Gettext = untranslated) -> str:
    """The note under a page's questions with JavaScript on: which of them are randomized on the device
    (``""`` when none is)."""
    if not shown.drawn:
        return ""
    return gettext(PAGE_ALL_DRAWN if len(shown.drawn) == len(shown.questions) else PAGE_SOME_DRAWN)


def is_too_wide(ci: ConfidenceInterval | None) -> bool:
    """Whether ``ci`` is wider than :data:`TOO_WIDE`: too few answers to tell anything useful."""
    return ci is not None and ci.high - ci.low > TOO_WIDE


def level_text(confidence_level: float) -> str:
    """``0.95 -> "95%"``."""
    return short_percent(confidence_level)


def outside_design_sentence(outside: OutsideDesign, subject: str) -> str:
    """What a rate below the design's floor (above its ceiling) means, with the one-sided bound.

    ``subject`` names what is estimated: ``"yes answers to “Q”"``.
    """
    level = level_text(outside.confidence_level)
    chance = percent(outside.p_value, 1, trim=True) if outside.p_value >= 0.001 else "under 0.1%"
    if outside.side == "below":
        return (
            f"Fewer {subject} ({percent(outside.observed_rate)}) than the design alone produces "
            f"({percent(outside.limit)}): the share of true ones is at most {percent(outside.bound)} "
            f"(one-sided {level} bound). If nobody's true answer were yes, so few would come by chance "
            f"{chance} of the time; otherwise respondents did not follow the instructions."
        )
    return (
        f"More {subject} ({percent(outside.observed_rate)}) than the design allows "
        f"({percent(outside.limit)}): the share of true ones is at least {percent(outside.bound)} "
        f"(one-sided {level} bound). If everybody's true answer were yes, so many would come by chance "
        f"{chance} of the time; otherwise respondents did not follow the instructions."
    )


def yes_no_sentence(
    question: Question,
    estimate: float | None,
    ci: ConfidenceInterval | None,
    confidence_level: float,
    outside: OutsideDesign | None = None,
) -> str:
    """A yes/no result in one plain sentence: the estimate and its interval for the true yes share.

    "Estimated share of true yes answers to “Q” in the population sampled: 23%
    (95% confidence interval 15% to 31%)." With an interval wider than
    :data:`TOO_WIDE`: "Too few answers to tell ...". With a rate outside what
    the design allows: :func:`outside_design_sentence`.
    """
    quoted = f"\u201c{question.label}\u201d"
    if ci is None or estimate is None:
        return f"No answers to {quoted} yet."
    if outside is not None:
        return outside_design_sentence(outside, f"yes answers to {quoted}")
    level = level_text(confidence_level)
    if ci.one_sided:  # a pooled or two-group estimate at an edge: the bound, never a width-0 interval
        return (
            f"Share of true yes answers to {quoted} in the population sampled: {bound_text(ci)} "
            f"(one-sided {level} bound)."
        )
    if is_too_wide(ci):
        return (
            f"Too few answers to tell: the share of true yes answers to {quoted} in the population "
            f"sampled could be anywhere from {percent(ci.low)} to {percent(ci.high)} ({level} confidence)."
        )
    return (
        f"Estimated share of true yes answers to {quoted} in the population sampled: {percent(estimate)} "
        f"({level} confidence interval {percent(ci.low)} to {percent(ci.high)})."
    )


#: How each interval method is named beside an interval computed otherwise than the page's chosen method.
METHOD_LABELS = {
    "wald": "Wald",
    "wilson": "Wilson",
    "clopper-pearson": "exact (Clopper-Pearson)",
    "profile likelihood": "profile likelihood",
    "clopper-pearson-cls": "one-sided (CLs)",
}


def method_label(method: str, pooled: bool = False) -> str:
    """``"Wald (pooled)"`` for a pooled Wald interval, else the method's name (:data:`METHOD_LABELS`)."""
    label = METHOD_LABELS.get(method, method)
    return f"{label} (pooled)" if pooled and method == "wald" else label


def bound_text(ci: ConfidenceInterval, digits: int = 0) -> str:
    """A one-sided bound in words: ``"at most 6%"`` (side ``"upper"``) or ``"at least 94%"`` (``"lower"``)."""
    if ci.side == "upper":
        return f"at most {percent(ci.high, digits)}"
    return f"at least {percent(ci.low, digits)}"


def range_text(low: float, high: float, side: str = "two-sided", format_share=None) -> str:
    """``"21% to 48%"``, or ``"at most 6%"`` / ``"at least 94%"`` for a one-sided bound (``side``)."""
    format_share = format_share or short_percent
    if side == "upper":
        return f"at most {format_share(high)}"
    if side == "lower":
        return f"at least {format_share(low)}"
    return f"{format_share(low)} to {format_share(high)}"


def estimate_with_interval(estimate: float, ci: ConfidenceInterval, digits: int = 0) -> str:
    """``"35% (21% to 48%)"``, or the one-sided bound alone (``"at most 6% (one-sided)"``): never a two-sided
    interval of width 0, and the estimate only beside the interval that holds it."""
    if ci.one_sided:
        return f"{bound_text(ci, digits)} (one-sided)"
    return f"{percent(estimate, digits)} ({percent(ci.low, digits)} to {percent(ci.high, digits)})"


def choice_sentence(
    question: Question,
    options: Sequence[tuple[str, float | None, ConfidenceInterval | None]],
    confidence_level: float,
) -> str:
    """A multiple-choice result in one sentence: each option's estimated true share and interval.

    ``options`` are ``(label, estimate, interval)`` in the question's order, each estimate inside its
    interval (:attr:`surveys.results.OptionResult.estimate`). An option whose answers sit outside what the
    design can produce gets its one-sided bound ("c at most 6% (one-sided)"). When an option's interval is
    wider than :data:`TOO_WIDE`: "Too few answers to tell ...".
    """
    quoted = f"\u201c{question.label}\u201d"
    known = [(label, estimate, ci) for label, estimate, ci in options if estimate is not None and ci is not None]
    if not known:
        return f"No answers to {quoted} yet."
    level = level_text(confidence_level)
    if any(is_too_wide(ci) for _, _, ci in known):
        widest = max(ci.high - ci.low for _, _, ci in known)
        return (
            f"Too few answers to tell the true shares of the answers to {quoted} in the population sampled: "
            f"the {level} confidence intervals are up to {widest * 100:.0f} percentage points wide."
        )
    parts = "; ".join(f"{label} {estimate_with_interval(estimate, ci)}" for label, estimate, ci in known)
    one_sided = " or one-sided bounds" if any(ci.one_sided for _, _, ci in known) else ""
    return (
        f"Estimated shares of true answers to {quoted} in the population sampled: {parts} "
        f"({level} confidence intervals{one_sided}, one per option)."
    )


def p_value_text(p: float) -> str:
    """A p-value for a table or sentence: ``"< 0.001"`` below 0.001, else three decimals."""
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def ratio_text(value: float) -> str:
    """An odds ratio: two decimals, ``"2.35"``."""
    return f"{value:.2f}"


def model_sentence(result) -> str:
    """A fitted model (:class:`surveys.models.ModelResult`) in plain words, or its message.

    "From 600 answers, the predictors together (Department) are associated with a true yes to “Q”
    (likelihood-ratio test p < 0.001). The largest difference: Department: Science vs Arts, odds of a
    true yes 3.02 times as high (95% interval 1.6 to 5.7)."
    """
    if result.fit is None:
        return result.message
    fit = result.fit
    quoted = f"\u201c{result.outcome.label}\u201d"
    names = ", ".join(term.question.label for term in result.terms)
    test = fit.model_test
    found = "are associated" if test.p_value < 1 - fit.confidence_level else "are not clearly associated"
    sentence = (
        f"From {count_text(fit.n, 'answer')}, the predictors together ({names}) {found} with a true yes to {quoted} "
        f"(likelihood-ratio test p {'' if test.p_value < 0.001 else '= '}{p_value_text(test.p_value)})."
    )
    slopes = fit.coefficients[1:]
    if not slopes:
        return sentence
    top = min(slopes, key=lambda c: c.p_value)
    return (
        f"{sentence} The clearest difference: {top.name}, odds of a true yes {ratio_text(top.odds_ratio)} times "
        f"as high ({level_text(fit.confidence_level)} interval {ratio_text(top.odds_ratio_low)} to "
        f"{ratio_text(top.odds_ratio_high)}), the other predictors held fixed."
    )
