"""Designs in words, and the one place the app's wording is imported from.

The designs' sentences and the respondent's protection are written here; the
numbers are :mod:`surveys.text_format` and the results' sentences
:mod:`surveys.result_sentences`, whose names this module re-exports.

Pure text: the domain's sentences (:mod:`surveys.results`), the charts
(:mod:`web.charts`) and the templates (registered as filters and globals by
:func:`web.init_app`) all format through these functions, so a share reads
the same on every page.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from analysis import (
    TWO_COIN,
    CrosswiseDesign,
    ForcedResponseDesign,
    KukDesign,
    MangatDesign,
    MultipleChoiceDesign,
    TriangularDesign,
    UnrelatedQuestionDesign,
    WarnerDesign,
)
from analysis.misclassification import MisclassificationDesign
from analysis.numeric_design import BoundedDesign, DiscreteLaplaceDesign, UnaryDesign
from analysis.two_group import CheaterDetectionDesign, StochasticLieDetectorDesign
from surveys.arms import GROUPS, group_yes_probabilities, is_two_group
from surveys.definition import Question, attack_success_rate
from surveys.result_sentences import (
    METHOD_LABELS,
    bound_text,
    choice_sentence,
    estimate_with_interval,
    is_too_wide,
    level_text,
    linear_model_sentence,
    method_label,
    model_sentence,
    outside_design_sentence,
    p_value_text,
    range_text,
    ratio_text,
    yes_no_sentence,
)
from surveys.text_format import (
    MISSING,
    N_,
    SEQUENCE_NOTE,
    TABLE_DIGITS,
    TOO_WIDE,
    TOO_WIDE_RULE,
    Gettext,
    count_text,
    epsilon_bound_text,
    local_decimal,
    local_percent,
    margin_text,
    number_text,
    percent,
    short_percent,
    table_percent,
    untranslated,
)

#: Every name of this module and of the two it gathers (:mod:`surveys.text_format`, :mod:`surveys.result_sentences`).
__all__ = [
    "ANSWER_TRUTHFULLY",
    "DRAWN_ALL",
    "DRAWN_ALL_REVEALING",
    "DRAWN_ONE",
    "DRAWN_ONE_REVEALING",
    "DRAWN_SOME",
    "DRAWN_SOME_REVEALING",
    "FULLY_REVEALS",
    "Gettext",
    "METHOD_LABELS",
    "MISSING",
    "NO_EPSILON",
    "N_",
    "ON_DEVICE",
    "OPTION_PROOF",
    "OPTION_RULED_OUT",
    "PAGE_ALL_DRAWN",
    "PAGE_SOME_DRAWN",
    "PAIRED_EPSILON_CONDITION",
    "PAIRED_PROOFS",
    "Protection",
    "REVEALING_ITEM",
    "RULES_OUT",
    "SEQUENCE_NOTE",
    "TABLE_DIGITS",
    "TOO_WIDE",
    "TOO_WIDE_RULE",
    "YES_NO_PROOFS",
    "bound_text",
    "choice_sentence",
    "count_text",
    "design_sentence",
    "device_sentence",
    "drawn_sentence",
    "epsilon_bound_text",
    "epsilon_text",
    "estimate_with_interval",
    "is_drawn",
    "is_paired",
    "is_too_wide",
    "level_text",
    "local_decimal",
    "local_percent",
    "margin_text",
    "method_label",
    "check_all_mechanism_sentence",
    "number_interval_text",
    "number_mechanism_sentence",
    "number_text",
    "model_sentence",
    "linear_model_sentence",
    "odds_factor_text",
    "outside_design_sentence",
    "p_value_text",
    "page_note",
    "percent",
    "privacy_sentence",
    "protection",
    "randomizer",
    "range_text",
    "ratio_text",
    "revealing_answers",
    "revealing_items",
    "revealing_sentence",
    "reveals",
    "short_percent",
    "table_percent",
    "truthfully_sentence",
    "untranslated",
    "yes_no_sentence",
]

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


def epsilon_text(epsilon: float, locale: str | None = None) -> str:
    """``1.0986 -> "1.10"`` (``"1,10"`` in French); an infinite epsilon says that one answer can fully
    reveal (:data:`NO_EPSILON`)."""
    return f"∞ ({NO_EPSILON})" if math.isinf(epsilon) else local_decimal(epsilon, 2, locale)


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
    numeric = _numeric_design_sentence(question, gettext, locale)
    if numeric:
        return numeric
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


def _numeric_design_sentence(question: Question, gettext: Gettext = untranslated, locale: str | None = None) -> str:
    """:func:`design_sentence` of a randomized number or check-all-that-apply question; ``""`` for others.

    The Laplace mechanism's typical move is the mean absolute noise ``E|Z| = 2r / (1 - r^2)`` steps
    (``r = exp(-1 / scale)``), in the question's units; the one-bit design's chances of a 1 at the two ends of
    the range; the unary design's ``p`` and ``q``."""
    design = question.design
    if isinstance(design, DiscreteLaplaceDesign):
        r = design.ratio
        typical = 2 * r / (1 - r * r) * float(question.number.step)
        return gettext(
            "A random amount is added to your number before it is stored (the noise of the Laplace mechanism), "
            "up or down, on average %(typical)s: the stored number does not show yours."
        ) % {"typical": local_decimal(typical, question.number.decimals + 1, locale)}
    if isinstance(design, BoundedDesign):
        return gettext(
            "Only one random digit is stored for your number, 1 or 0: the higher your number, the likelier a 1 "
            "(%(low)s of the time for the smallest answer, %(high)s for the largest). One digit cannot show your "
            "number; the researchers learn only the average."
        ) % {
            "low": short_percent(float(design.one_probability(0)), locale),
            "high": short_percent(float(design.one_probability(design.steps)), locale),
        }
    if isinstance(design, UnaryDesign):
        return gettext(
            "For each option, a randomized yes or no is stored: a true yes is stored as yes %(p)s of the time, "
            "a true no as yes %(q)s of the time."
        ) % _shares(design, locale, "p", "q")
    return ""


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
    return local_decimal(factor, 0 if abs(factor - round(factor)) < 1e-9 else 2, locale)


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
    if question.number is not None or isinstance(design, UnaryDesign):
        which = (
            gettext("between any two numbers")
            if question.number is not None
            else gettext("between any two sets of ticked options")
        )
        return gettext(
            "Whatever anyone believed about you before, your stored answer changes their odds %(which)s by at "
            "most a factor of %(factor)s."
        ) % {"which": which, "factor": odds_factor_text(design.epsilon, locale)}
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
    if question.design is None or question.number is not None or isinstance(question.design, UnaryDesign):
        return ()  # every output has a positive chance under every true answer (analysis/numeric_design.py)
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
    numbers : tuple of Question
        The drawn numbers and check-all-that-apply questions: noise added or sent bit by bit, not a random
        answer stored instead of the true one.
    """

    questions: tuple[Question, ...]
    drawn: tuple[Question, ...]
    paired: tuple[Question, ...]
    plain: tuple[Question, ...]
    revealing: tuple[Question, ...]
    randomizer: str
    protecting: str
    numbers: tuple[Question, ...] = ()


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
        tuple(q for q in drawn if q.number is not None or _is_unary(q)),
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
#: The same when a drawn answer is a number or a check-all-that-apply question, whose answer is not replaced by a
#: random one but has noise added or is sent bit by bit: each question's own sentence says how.
DRAWN_HOW = {
    ("all", False): N_(
        "Your answers are randomized before they are stored (each question says how), so no stored answer "
        "proves what you said."
    ),
    ("all", True): N_("Your answers are randomized before they are stored (each question says how)."),
    ("one", False): N_(
        "One of your %(total)s answers is randomized before it is stored (the question says how), so no stored "
        "answer proves what you said."
    ),
    ("one", True): N_("One of your %(total)s answers is randomized before it is stored (the question says how)."),
    ("some", False): N_(
        "%(randomized)s of your %(total)s answers are randomized before they are stored (each question says "
        "how), so no stored answer proves what you said."
    ),
    ("some", True): N_(
        "%(randomized)s of your %(total)s answers are randomized before they are stored (each question says how)."
    ),
}
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
    if shown.numbers:
        how = "all" if count == total else "one" if count == 1 else "some"
        return gettext(DRAWN_HOW[(how, revealing)]) % {"randomized": count, "total": total}
    if count == total:
        return gettext(DRAWN_ALL_REVEALING if revealing else DRAWN_ALL)
    if count == 1:
        return gettext(DRAWN_ONE_REVEALING if revealing else DRAWN_ONE) % {"total": total}
    return gettext(DRAWN_SOME_REVEALING if revealing else DRAWN_SOME) % {"randomized": count, "total": total}


def _is_unary(question: Question) -> bool:
    return isinstance(question.design, UnaryDesign)


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


# --------------------------------------------------------------------------
# Numbers and check-all-that-apply, for the researcher (results page, codebook).

#: Where a number's or a check-all question's answer is randomized: true on both paths.
WHERE_RANDOMIZED = "on the respondent's device, or on the server when JavaScript was off"

#: What a number's interval is, by :attr:`analysis.numeric.MeanEstimate.method`.
NUMBER_INTERVAL_METHODS = {
    "t": "Student's t interval on the noisy answers (their spread includes the noise)",
    "wilson": "Wilson's interval for the share of ones, mapped through the debiasing",
}


def number_interval_text(low: float | None, high: float | None, side: str, decimals: int) -> str:
    """A number's interval in its units: ``"4.88 – 11.27"``, or the one-sided bound ``"≤ 11.27"`` / ``"≥ 4.88"``."""
    if low is None or high is None:
        return MISSING
    if side == "upper":
        return f"≤ {number_text(high, decimals)}"
    if side == "lower":
        return f"≥ {number_text(low, decimals)}"
    return f"{number_text(low, decimals)} – {number_text(high, decimals)}"


def number_mechanism_sentence(design, number) -> str:
    """How a number question's answers were randomized and how the mean is debiased, per mechanism
    (``design.kind``: ``discrete_laplace`` or ``bounded``), with the question's grid ``number``
    (:class:`surveys.numbers.NumberRange`)."""
    grid = (
        f"The answers lie on a grid of {design.steps} steps of {number.text(number.step)} "
        f"from {number.text(number.minimum)} to {number.text(number.maximum)}."
    )
    if design.kind == "discrete_laplace":
        return (
            f"{grid} Noise of the discrete Laplace mechanism was added to each answer before it was stored "
            f"({WHERE_RANDOMIZED}): a whole number of grid steps z with chances proportional to "
            f"exp(−|z| / {float(design.scale):.4g}), the noisy position kept within {design.clamp} steps beyond "
            f"either end; ε = {design.steps} / {float(design.scale):.4g} = {epsilon_text(design.epsilon)}. "
            "The noise has mean zero, so the mean of the noisy answers estimates the true mean without bias; "
            "every figure here comes from the noisy answers."
        )
    bottom = float(design.one_probability(0))
    top = float(design.one_probability(design.steps))
    return (
        f"{grid} One bit per answer was stored ({WHERE_RANDOMIZED}): 1 with probability {bottom:.4g} for the "
        f"lowest value, {top:.4g} for the highest, and in proportion between (for grid position k of "
        f"K = {design.steps}: {bottom:.4g} + {top - bottom:.4g} k / K); "
        f"ε = ln({top:.4g} / {bottom:.4g}) = {epsilon_text(design.epsilon)}. "
        f"The mean position is debiased from the share of ones s: K (s − {bottom:.4g}) / {top - bottom:.4g}; "
        "one bit per answer tells the mean only, not the distribution. Every figure here comes from the noisy answers."
    )


def check_all_mechanism_sentence(design) -> str:
    """How a check-all-that-apply question's ticks were randomized (a :class:`analysis.numeric_design.UnaryDesign`)
    and how its shares and the number ticked are debiased."""
    p, q = float(design.p), float(design.q)
    return (
        f"Each option was stored as one bit ({WHERE_RANDOMIZED}): 1 with probability {p:.4g} if ticked and {q:.4g} "
        f"if not, drawn independently; ε = {design.options} options × {epsilon_text(design.bit_epsilon)} = "
        f"{epsilon_text(design.epsilon)} for the whole question. An option's share is debiased from its share of "
        f"ones s: (s − {q:.4g}) / {p - q:.4g}; the number ticked from the ones per answer S: "
        f"(S − {design.options} × {q:.4g}) / {p - q:.4g}. Every figure here comes from the noisy answers."
    )
