"""The respondent's summary of how a survey (or one page) protects them, worked out from the designs.

:func:`protection` sorts the questions (drawn by a randomizer, paired, plain, revealing) and names the
randomizer; the sentences built from it say which answers are randomized, where (on the device with
JavaScript on), and "please answer truthfully" naming what protects them. Every sentence is true of the
designs: "no stored answer proves what you said" only when none can (:mod:`surveys.revealing`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from analysis import TWO_COIN, KukDesign
from analysis.numeric_design import UnaryDesign
from surveys.definition import Question
from surveys.revealing import is_drawn, is_paired, revealing_sentence, reveals
from surveys.text_format import N_, Gettext, untranslated

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

    @property
    def paired_not_revealing(self) -> tuple[Question, ...]:
        """The paired questions none of whose stored answers proves anything (crosswise): the summary's line on
        comparing two statements names these; a revealing one (triangular) is named once, on its warning line
        (:data:`PAIRED_REVEALING`)."""
        return tuple(q for q in self.paired if q not in self.revealing)


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
REVEALING_ITEM = N_("For %(questions)s, %(which)s")
#: A revealing paired question's warning (triangular): what the respondent does, then what a stored answer proves.
PAIRED_REVEALING = N_(
    "your answer is not randomized, only compared with your answer to a second statement, and %(which)s"
)
#: One question's label as the summary names it, in the language's quotation marks.
QUOTED_LABEL = N_("“%(label)s”")
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


def english_list(items: Sequence[str]) -> str:
    """``"A"``, ``"A and B"``, ``"A, B and C"``: the default of :func:`revealing_items`' ``join``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def revealing_items(
    shown: Protection, gettext: Gettext = untranslated, join: Callable[[Sequence[str]], str] = english_list
) -> list[str]:
    """One line per distinct proof, naming every revealing question whose stored answers prove just that, in
    the order the questions come: "For “Q1” and “Q2”, a stored “no” proves that your true answer is no.".
    ``join`` writes a list of quoted labels in the respondent's language (Babel's ``format_list`` on the
    respondent's pages). Questions that prove the same thing share a line, so a form with several such designs
    does not repeat one sentence (and push its first question down a phone's screen). A paired question's line
    also says that nothing is randomized for it (:data:`PAIRED_REVEALING`): the summary names it once."""
    questions_by_proof: dict[str, list[Question]] = {}
    for question in shown.revealing:
        questions_by_proof.setdefault(_warning(question, gettext), []).append(question)
    item = gettext(REVEALING_ITEM)
    return [
        item % {"questions": quoted_labels(questions, gettext, join), "which": which}
        for which, questions in questions_by_proof.items()
    ]


def quoted_labels(
    questions: Sequence[Question], gettext: Gettext = untranslated, join: Callable[[Sequence[str]], str] = english_list
) -> str:
    """The labels of ``questions``, each in its language's quotation marks (:data:`QUOTED_LABEL`), as one list
    (``join``: "“A” and “B”"; ``""`` for none), as every line of the summary names its questions."""
    return join([gettext(QUOTED_LABEL) % {"label": question.label} for question in questions]) if questions else ""


def _warning(question: Question, gettext: Gettext) -> str:
    """What a revealing question's stored answers prove; for a paired one, what the respondent does first."""
    which = revealing_sentence(question, gettext)
    return gettext(PAIRED_REVEALING) % {"which": which} if is_paired(question) else which


def page_note(shown: Protection, gettext: Gettext = untranslated) -> str:
    """The note under a page's questions with JavaScript on: which of them are randomized on the device
    (``""`` when none is)."""
    if not shown.drawn:
        return ""
    return gettext(PAGE_ALL_DRAWN if len(shown.drawn) == len(shown.questions) else PAGE_SOME_DRAWN)
