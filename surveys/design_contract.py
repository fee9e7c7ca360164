"""The design contract: how a question's design is written down, stored and read back.

Answers are tallied per question *and* per design key, so that answers
collected under an old design are debiased with that design. The key is
shared by the submission (which writes it next to every tally), storage
(which rebuilds it from the stored design records when it recounts) and
results (which parses it back and decides which tallies a question can
read). A drift between two copies of it would silently split the tallies,
so each piece lives here once:

* :func:`canonical_json`: the one JSON spelling (sorted keys, no spaces)
  of keys and fingerprints;
* :func:`question_design_key`: a question's key (type, choices, design);
* :func:`design_record` and :func:`record_design_keys`: the record stored
  once per survey design, and the keys rebuilt from stored records;
* :func:`parse_design_key` and :func:`compatible_tallies`: a key read back,
  and which tallies fit a question;
* :data:`QUESTION_NAME_PATTERN` and :func:`check_question_name`: the names
  a question may have (the loader accepts no other; storage checks them
  again before a name goes into a JSON path).

Pure: imports :mod:`analysis` only, so that :mod:`surveys.definition` can
build on it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from analysis.design import BinaryDesign, CrosswiseDesign, MultipleChoiceDesign, design_from_dict
from analysis.misclassification import MisclassificationDesign
from analysis.numeric_design import (
    NUMERIC_DESIGN_KINDS,
    BoundedDesign,
    DiscreteLaplaceDesign,
    UnaryDesign,
    numeric_design_from_dict,
)
from analysis.two_group import CheaterDetectionDesign, StochasticLieDetectorDesign, two_group_design_from_dict


class DesignedQuestion(Protocol):
    """What the contract reads of a question (:class:`surveys.definition.Question` has it all): written as a
    protocol so that this module needs nothing of :mod:`surveys.definition`, which builds on it."""

    @property
    def name(self) -> str: ...

    @property
    def type(self) -> str: ...

    @property
    def design(self) -> object: ...

    @property
    def choice_names(self) -> tuple[str, ...]: ...

    @property
    def second_innocuous(self) -> str: ...

    @property
    def is_randomized(self) -> bool: ...

    @property
    def number(self) -> object: ...


class DesignedSurvey(Protocol):
    """What :func:`design_record` reads of a survey (:class:`surveys.definition.Survey`): its questions."""

    @property
    def questions(self) -> tuple[DesignedQuestion, ...]: ...


YES_NO = "yes_no"
SELECT_ONE = "select_one"
INTEGER = "integer"
DECIMAL = "decimal"
SELECT_MULTIPLE = "select_multiple"
#: The question types whose answer is a number on a grid (:mod:`surveys.numbers`).
NUMBER_TYPES = (INTEGER, DECIMAL)

#: The design class a randomized question of each type carries (a yes/no question: any
#: one-parameter binary design, forced response, Warner, crosswise...).
DESIGN_CLASSES = {
    YES_NO: BinaryDesign,
    SELECT_ONE: (MultipleChoiceDesign, MisclassificationDesign),
    INTEGER: (DiscreteLaplaceDesign, BoundedDesign),
    DECIMAL: (DiscreteLaplaceDesign, BoundedDesign),
    SELECT_MULTIPLE: UnaryDesign,
}

#: The kept rows a numeric answer adds beside its bucket's count: the sum of the outputs and of their squares
#: (grid units). Neither can be an answer (answers are bucket labels ``b00``.., choice names or bit strings).
SUM_KEY = "=sum"
SQUARES_KEY = "=sumsq"
#: Both, in the order they are kept.
SUM_KEYS = (SUM_KEY, SQUARES_KEY)


def answer_counts(counts: Mapping[str, int]) -> dict[str, int]:
    """The counts of answers of a tally, without the kept sums of a numeric question."""
    return {answer: count for answer, count in counts.items() if answer not in SUM_KEYS}


#: The ``kind`` of the two-group designs, whose keys carry the respondent's group.
TWO_GROUP_KINDS = (CheaterDetectionDesign.kind, StochasticLieDetectorDesign.kind)

#: A question name: a lower-case letter, then up to 62 of a-z, 0-9 and _.
QUESTION_NAME_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,62}")


def canonical_json(value: object) -> str:
    """``value`` as JSON with sorted keys and no spaces: equal values give equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def check_question_name(name: str) -> str:
    """``name`` if it matches :data:`QUESTION_NAME_PATTERN`; otherwise ValueError naming it."""
    if not isinstance(name, str) or not QUESTION_NAME_PATTERN.fullmatch(name):
        raise ValueError(f"question name must be a lower-case letter then a-z, 0-9 or _, got {name!r}")
    return name


def question_design_key(question: DesignedQuestion, arm: str = "") -> str:
    """Canonical JSON of what the estimators need: type, options and design.

    Answers to one question are tallied per key, so answers collected under
    different designs are never pooled as if they were one. ``arm`` is the
    respondent's arm (:mod:`surveys.arms`): a two-group design's record gains
    the respondent's ``group`` (``"1"`` or ``"2"``), so that each group is
    tallied apart; in the direct-question control arm a randomized
    question's design is :data:`DIRECT_DESIGN` (asked directly, nothing
    randomized). Without an arm the key is the one every survey had before.
    """
    record = {
        "type": question.type,
        "choices": list(question.choice_names),
        "design": question.design.to_dict() if question.design else None,
    }
    if question.number is not None:
        record["number"] = question.number.to_dict()  # the grid and bins give the kept answers their meaning
    if question.second_innocuous:
        record[EXTENDED_MARK] = True
    return canonical_json(arm_record(record, arm))


#: Designs whose answer is stored as given in every arm (the respondent combines two statements).
STORED_AS_GIVEN_KINDS = ("crosswise", "triangular")

#: The mark on the key of an extended crosswise question (a crosswise design with a second group,
#: :mod:`surveys.schema_extended_crosswise`). Group 2 reads an innocuous statement true with ``1 - q``: its
#: answers are a crosswise tally with ``q`` read as ``1 - q``, so its key's design says so
#: (:func:`arm_record`), and the two groups' tallies are two crosswise designs whose pooled maximum-likelihood
#: estimate is the extended crosswise model's (:func:`analysis.estimate_extended_crosswise`).
EXTENDED_MARK = "extended"

#: The design record of a randomized question asked directly (the control arm).
DIRECT_DESIGN = {"kind": "direct"}

#: The question types randomized in every arm, the direct-question arm too: that arm asks the yes/no and
#: choice questions directly, to compare with their randomized estimates; a number's or a check-all question's
#: answers keep their design there, mean the same in every arm and are estimated from all of them.
RANDOMIZED_IN_EVERY_ARM = (*NUMBER_TYPES, SELECT_MULTIPLE)


def randomized_in_every_arm(survey: DesignedSurvey) -> tuple:
    """The randomized questions of ``survey`` that stay randomized in the direct-question arm
    (:data:`RANDOMIZED_IN_EVERY_ARM`): the form and the results page say so where the survey has that arm."""
    return tuple(q for q in survey.questions if q.design is not None and q.type in RANDOMIZED_IN_EVERY_ARM)


def arm_record(record: dict, arm: str) -> dict:
    """A question's key record for a respondent in ``arm``: with the group of a two-group design,
    :data:`DIRECT_DESIGN` for a randomized question in the direct arm, an extended crosswise question's
    group 2 with ``q`` read as ``1 - q`` (:data:`EXTENDED_MARK`), else unchanged."""
    design = record.get("design")
    if record.get(EXTENDED_MARK) and design is not None and arm == "2":
        return record | {"design": CrosswiseDesign(1 - design_from_dict(design).q).to_dict()}
    if design is None or arm == "" or design.get("kind") in STORED_AS_GIVEN_KINDS:
        return record  # crosswise and triangular answers mean the same in every arm: nothing was randomized
    if record.get("type") in RANDOMIZED_IN_EVERY_ARM:
        return record  # randomized with its design in every arm, the direct one too
    if arm == "direct":
        return record | {"design": DIRECT_DESIGN}
    if design.get("kind") in TWO_GROUP_KINDS:
        return record | {"design": design | {"group": arm}}
    return record


def arm_key(key: str, arm: str) -> str:
    """:func:`arm_record` of a stored key (a recount rebuilds keys from design records, then adds the arm)."""
    return key if not arm else canonical_json(arm_record(json.loads(key), arm))


def key_arm(key: str) -> str:
    """The arm a design key was written for: ``"1"``/``"2"``, ``"direct"`` or ``""``."""
    parsed = _key_design(key)
    if parsed is None:
        return ""
    if parsed == DIRECT_DESIGN:
        return "direct"
    return str(parsed.get("group", ""))


def _key_design(key: str) -> dict | None:
    try:
        design = json.loads(key).get("design")
    except (ValueError, AttributeError):
        return None
    return design if isinstance(design, dict) else None


def design_record(survey: DesignedSurvey) -> str:
    """Every question's design key, as stored once per survey design (``designs.questions``).

    The record's text keeps the spelling it has had since the first
    migration (sorted keys, default spaces); it is never compared as text:
    readers parse it and rebuild the keys with :func:`record_design_keys`.
    """
    return json.dumps({q.name: json.loads(question_design_key(q)) for q in survey.questions}, sort_keys=True)


def record_design_keys(records: Iterable[tuple[str, int, Mapping[str, dict]]]) -> dict[tuple[str, str], str]:
    """``{(design id, question): design key}`` from stored records ``(design id, version, {question: record})``."""
    return {
        (design_id, name): canonical_json(record)
        for design_id, _, questions in records
        for name, record in questions.items()
    }


@dataclass(frozen=True)
class StoredTally:
    """The counts of one design key a question can read, with the key read back."""

    key: str
    choices: tuple[str, ...]
    design: BinaryDesign | MultipleChoiceDesign | None
    counts: Mapping[str, int]


def parse_design_key(key: str) -> tuple[str, tuple[str, ...], object] | None:
    """``(type, choices, design)`` from a design key; ``None`` if unreadable."""
    try:
        record = json.loads(key)
        design = record["design"]
        return str(record["type"]), tuple(record["choices"]), (None if design is None else design_from_record(design))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def design_from_record(design: dict) -> object:
    """A one-group design (:func:`analysis.design.design_from_dict`) or a two-group one (its group dropped);
    ValueError for the direct arm's record, which is no design."""
    if design.get("kind") in TWO_GROUP_KINDS:
        return two_group_design_from_dict(design)
    if design.get("kind") == MisclassificationDesign.kind:
        return MisclassificationDesign(design["matrix"])
    if design.get("kind") in NUMERIC_DESIGN_KINDS:
        return numeric_design_from_dict(design)
    return design_from_dict(design)


#: A kept answer of a number: its bucket or bin (``b00``..), or one of :data:`SUM_KEYS`.
NUMBER_ANSWER_PATTERN = re.compile(r"b[0-9]{2}")


def _answer_fits(qtype: str, choices: tuple[str, ...], answer: str) -> bool:
    """Whether ``answer`` can be a kept answer of a question of ``qtype`` with ``choices``."""
    if qtype in NUMBER_TYPES:
        return answer in SUM_KEYS or bool(NUMBER_ANSWER_PATTERN.fullmatch(answer))
    if qtype == SELECT_MULTIPLE:
        return len(answer) == len(choices) and not set(answer) - {"0", "1"}
    return answer in choices


def _key_number(key: str) -> dict | None:
    try:
        number = json.loads(key).get("number")
    except (ValueError, AttributeError):
        return None
    return number if isinstance(number, dict) else None


def compatible_tallies(
    question: DesignedQuestion, by_design: Mapping[str, Mapping[str, int]]
) -> tuple[list[StoredTally], bool]:
    """The tallies that can be read with ``question``'s type, and whether any were not.

    Ordered with the question's current design first, then by key, so that
    results do not depend on dictionary order.
    """
    current = question_design_key(question)
    kind = DESIGN_CLASSES[question.type]
    usable, ignored = [], False
    for key in sorted(by_design, key=lambda k: (k != current, k)):
        counts = by_design[key]
        if key_arm(key):
            continue  # a group or the control arm: read by the results of their own (surveys.results)
        parsed = parse_design_key(key)
        if parsed is None:
            ignored = ignored or sum(answer_counts(counts).values()) > 0
            continue
        qtype, choices, design = parsed
        fits = qtype == question.type and (design is None if not question.is_randomized else isinstance(design, kind))
        if isinstance(design, MultipleChoiceDesign | MisclassificationDesign) and design.k != len(choices):
            fits = False
        if question.number is not None and _key_number(key) != question.number.to_dict():
            fits = False  # another grid or other bins: its indices and buckets mean other values
        if not fits or any(not _answer_fits(qtype, choices, answer) for answer, c in counts.items() if c):
            ignored = ignored or sum(answer_counts(counts).values()) > 0
        if fits:
            usable.append(StoredTally(key, choices, design, counts))
    return usable, ignored
