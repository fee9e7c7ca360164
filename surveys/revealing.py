"""What a stored answer can prove about the true one: the designs whose epsilon is infinite, in words.

A design's chances ``P(stored | true)`` (one table per random group) say which stored answers rule out a true
answer (:func:`revealing_answers`); :func:`revealing_sentence` says what each proves, in words a respondent
follows. :func:`is_drawn` and :func:`is_paired` tell a software randomizer from a respondent comparing two
statements. The respondent's summary (:mod:`surveys.protection`) and the privacy sentence
(:mod:`surveys.design_sentences`) build on these.
"""

from __future__ import annotations

from fractions import Fraction

from analysis import MultipleChoiceDesign
from analysis.misclassification import MisclassificationDesign
from analysis.numeric_design import UnaryDesign
from surveys.arms import GROUPS, group_yes_probabilities, is_two_group
from surveys.definition import Question
from surveys.text_format import N_, Gettext, untranslated

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


def fully_reveals(question: Question) -> bool:
    """Whether some stored answer leaves exactly one true answer."""
    return any(len(left) == 1 for _, left in revealing_answers(question))
