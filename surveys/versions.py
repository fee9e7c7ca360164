"""Versions of a survey: when a change needs a new version, and what it means for the estimates.

Once a version has answers, its questions and designs are locked: the answers were randomized with
them and are analysed with them. A change of a question's name, type, options or design (what
:meth:`surveys.definition.Survey.design_fingerprint` covers) or of the two-group and control-arm
shares then makes the next version; a change of wording alone does not. Pure: the caller says
whether the old version has answers.

How the results read several versions (:mod:`surveys.results`): the kept tallies are keyed by each
answer's design, so every design's answers are estimated with that design; the estimates of one
question under several designs of the same type and options are pooled (inverse-variance weights,
:func:`analysis.estimate.pool_estimates`); answers whose type or options no longer fit the question
are left out of its estimate (and flagged) but stay in the exports; and the epsilon answered
(:func:`surveys.results.answered_epsilon`) takes, per question, the largest epsilon among the designs
that hold answers.
"""

from __future__ import annotations

from dataclasses import dataclass

from surveys.definition import NUMBER_TYPES, SELECT_MULTIPLE, Question, Survey
from surveys.design_sentences import epsilon_text


@dataclass(frozen=True)
class VersionChange:
    """What saving ``new`` over ``old`` does.

    Attributes
    ----------
    old_version : int
    new_version : int
        The version the saved definition gets: ``old_version + 1`` when :attr:`locked`, else
        ``old_version`` (changed in place).
    locked : bool
        The old version has answers and its questions or designs differ from the new ones.
    questions_changed : bool
        Some question's name, type, options or design, or a group share, differs.
    added, removed, redesigned : tuple of str
        Question names new in ``new``, gone from it, and kept with another type, options or design.
    sentences : tuple of str
        What this means for the estimates, in plain words, for the page that saves it.
    """

    old_version: int
    new_version: int
    locked: bool
    questions_changed: bool
    added: tuple[str, ...]
    removed: tuple[str, ...]
    redesigned: tuple[str, ...]
    sentences: tuple[str, ...]


def question_record(question: Question) -> tuple:
    """What of a question its answers depend on: name, type, options, design and a number's grid."""
    design = question.design.to_dict() if question.design else None
    return (question.type, question.choice_names, design, question.number.to_dict() if question.number else None)


def questions_differ(old: Survey, new: Survey) -> bool:
    """Whether ``new`` asks other questions, or the same ones otherwise randomized, than ``old``."""
    return (
        old.design_fingerprint() != new.design_fingerprint()
        or old.group_1_share != new.group_1_share
        or old.direct_share != new.direct_share
    )


def describe_change(old: Survey, new: Survey, old_has_answers: bool) -> VersionChange:
    """The :class:`VersionChange` of saving ``new`` over ``old`` (the current version, which has answers
    when ``old_has_answers``)."""
    if old.id != new.id:
        raise ValueError(f"a new version keeps the survey's id: {new.id!r} is not {old.id!r}")
    old_questions = {q.name: q for q in old.questions}
    new_questions = {q.name: q for q in new.questions}
    added = tuple(name for name in new_questions if name not in old_questions)
    removed = tuple(name for name in old_questions if name not in new_questions)
    redesigned = tuple(
        name
        for name, question in new_questions.items()
        if name in old_questions and question_record(question) != question_record(old_questions[name])
    )
    changed = questions_differ(old, new)
    locked = changed and old_has_answers
    version = old.version + 1 if locked else old.version
    sentences = _sentences(old, new, changed, locked, added, removed, redesigned, old_questions)
    return VersionChange(old.version, version, locked, changed, added, removed, redesigned, sentences)


def _sentences(old, new, changed, locked, added, removed, redesigned, old_questions) -> tuple[str, ...]:
    n = old.version
    if not changed:
        return (
            f"The questions and designs are unchanged: only texts change, in version {n}, and every answer so far "
            "is analysed as before.",
        )
    if not locked:
        return (f"Version {n} has no answers yet: it is changed in place.",)
    said = [
        f"Version {n} has answers, so its questions and designs stay as they are: saving makes version {n + 1}. "
        f"The answers of version {n} stay analysed with the designs they were randomized with."
    ]
    for name in redesigned:
        said.append(_redesigned_sentence(old_questions[name], new.question(name), n))
    said.extend(f"“{name}” is new: it is estimated from the answers of version {n + 1} on." for name in added)
    said.extend(
        f"“{name}” is no longer asked: its answers so far stay in the exports and in the epsilon answered, "
        "with no estimate on the results page."
        for name in removed
    )
    if old.group_1_share != new.group_1_share or old.direct_share != new.direct_share:
        said.append("The random groups' shares change: each version's groups are estimated with its own shares.")
    said.append(_epsilon_sentence(old, new))
    return tuple(said)


def _redesigned_sentence(before: Question, after: Question, n: int) -> str:
    if before.type != after.type or before.choice_names != after.choice_names:
        return (
            f"“{after.name}” changes its type or options: the answers of version {n} cannot be pooled with the new "
            "ones; they stay in the exports, and the results estimate it from the answers that fit."
        )
    if before.number != after.number and before.design == after.design:
        return (
            f"“{after.name}” changes its range, step or bins: the answers of version {n} are on the old grid, so "
            "they are not pooled with the new ones; they stay in the exports, each row in the grid of its version."
        )
    if before.design is None or after.design is None:
        return (
            f"“{after.name}” changes between randomized and asked plainly: its answers of each kind are estimated "
            "on their own and not pooled."
        )
    change = (
        f"“{after.name}” changes its design (epsilon {epsilon_text(before.design.epsilon)} before, "
        f"{epsilon_text(after.design.epsilon)} after): "
    )
    if after.type in (*NUMBER_TYPES, SELECT_MULTIPLE):
        return change + (
            "the results estimate it from the answers under the new design only (answers under another design "
            "are flagged as left out, not pooled); the earlier answers stay in the exports."
        )
    return change + "each design's answers are estimated with it and the estimates pooled, weighted by their precision."


def _epsilon_sentence(old: Survey, new: Survey) -> str:
    before, after = old.epsilon.basic, new.epsilon.basic
    return (
        f"Epsilon per respondent: each respondent answers one version, {epsilon_text(before)} under version "
        f"{old.version} and {epsilon_text(after)} under the new one; the results page reports, per question, the "
        "largest epsilon among the designs that hold answers."
    )
