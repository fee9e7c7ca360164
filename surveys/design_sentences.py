"""A question's design in words: how its answer is randomized, and what one stored answer gives away.

:func:`design_sentence` says what is stored (true on both paths: the device's randomizer and the server's);
:func:`privacy_sentence` the guarantee (odds change by at most ``e^epsilon``) and the guessing rate, or what a
revealing stored answer proves (:mod:`surveys.revealing`). Each sentence is translated whole before its
numbers go in, written in the locale's way when one is given.
"""

from __future__ import annotations

import math

from analysis import (
    TWO_COIN,
    CrosswiseDesign,
    ForcedResponseDesign,
    KukDesign,
    MangatDesign,
    TriangularDesign,
    UnrelatedQuestionDesign,
    WarnerDesign,
)
from analysis.misclassification import MisclassificationDesign
from analysis.numeric_design import BoundedDesign, DiscreteLaplaceDesign, UnaryDesign
from analysis.two_group import CheaterDetectionDesign, StochasticLieDetectorDesign
from surveys.definition import Question, attack_success_rate
from surveys.revealing import fully_reveals, revealing_sentence, reveals
from surveys.text_format import N_, Gettext, local_decimal, short_percent, untranslated

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
    if question.second_innocuous:  # the extended crosswise model: the respondent's group chose the statement
        return gettext(EXTENDED_CROSSWISE_SENTENCE) % {
            "first": question.innocuous,
            "second": question.second_innocuous,
            **_shares(design, locale, "q"),
            "q2": short_percent(float(1 - design.q), locale),
        }
    listed = _listed_design_sentence(design, question.innocuous, gettext, locale)
    if listed:
        return listed
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


#: The sentence of each yes/no design that :func:`design_sentence` reads from a table: the one-parameter designs
#: other than forced response and the two-group designs (cheater detection and the stochastic lie detector: each
#: respondent is in one of two random groups with different chances, which let the researchers estimate how many
#: people do not answer truthfully). Each with the design's probabilities its placeholders name; ``%(second)s`` is
#: the question's innocuous statement.
_LISTED_SENTENCES = (
    (
        CheaterDetectionDesign,
        N_(
            "You are put at random in one of two groups. In group 1, “yes” is stored "
            "%(p1)s of the time whatever you answer, and your true answer otherwise; "
            "in group 2, “yes” %(p2)s of the time. Comparing the groups shows the "
            "researchers how many people answer “no” whatever is true, so please answer truthfully."
        ),
        ("p1", "p2"),
    ),
    (
        StochasticLieDetectorDesign,
        N_(
            "You are put at random in one of two groups. If your true answer is yes, “yes” is stored. If it is "
            "no, “no” is stored %(p1)s of the time in group 1 and "
            "%(p2)s in group 2, and “yes” otherwise. Comparing the groups shows the "
            "researchers how many people answer “no” when the truth is yes, so please answer truthfully."
        ),
        ("p1", "p2"),
    ),
    (
        WarnerDesign,
        N_(
            "Your true answer is stored %(p)s of the time; otherwise its opposite "
            "is stored, as if you had answered the reversed statement (“it is not true that …”). Nobody learns "
            "which happened."
        ),
        ("p",),
    ),
    (
        UnrelatedQuestionDesign,
        N_(
            "Your true answer is stored %(p)s of the time; otherwise a random "
            "answer is stored instead: “yes” with chance %(q)s, as if you had "
            "answered an unrelated question."
        ),
        ("p", "q"),
    ),
    (
        KukDesign,
        N_(
            "A card is drawn at random from one of two decks: if your true answer is yes, from a deck with "
            "%(k1)s red cards; if no, from a deck with "
            "%(k2)s red cards. Only the card's colour is stored (red as “yes”)."
        ),
        ("k1", "k2"),
    ),
    (
        MangatDesign,
        N_(
            "If your true answer is yes, “yes” is stored. If it is no, your answer is stored "
            "%(p)s of the time and “yes” otherwise."
        ),
        ("p",),
    ),
    (
        CrosswiseDesign,
        N_(
            "Nothing is randomized: you do not say whether the statement is true for you, only whether your "
            "answers to it and to “%(second)s” are the same (both yes or both no) or differ. Nobody knows your "
            "answer to that second statement (true for about %(q)s of people)."
        ),
        ("q",),
    ),
    (
        TriangularDesign,
        N_(
            "Nothing is randomized: you say only whether your answer is “no” to both this statement and "
            "“%(second)s” (true for about %(q)s of people), or “yes” to at least one."
        ),
        ("q",),
    ),
)


#: An extended crosswise question (:mod:`surveys.schema_extended_crosswise`): which second statement a respondent
#: reads depends on the group drawn for them, so the sentence names both.
EXTENDED_CROSSWISE_SENTENCE = N_(
    "Nothing is randomized: you do not say whether the statement is true for you, only whether your answers to it "
    "and to a second statement are the same (both yes or both no) or differ. The second statement was drawn at "
    "random for you: “%(first)s” (true for about %(q)s of people) or “%(second)s” (true for about %(q2)s). "
    "Nobody knows your answer to it."
)


def _listed_design_sentence(design, innocuous: str, gettext: Gettext = untranslated, locale: str | None = None) -> str:
    """:func:`design_sentence` for the designs of :data:`_LISTED_SENTENCES`; ``""`` for others."""
    for kind, sentence, names in _LISTED_SENTENCES:
        if isinstance(design, kind):
            return gettext(sentence) % {**_shares(design, locale, *names), "second": innocuous}
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
        return gettext(FULLY_REVEALS if fully_reveals(question) else RULES_OUT) % {
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
