"""The ``questions`` of a survey file: each entry's keys, name, type, label, choices and design, built into a
:class:`~surveys.definition.Question`.

A question's ``design`` is :mod:`surveys.schema_designs` (yes/no and choice questions) or
:mod:`surveys.schema_numbers` (numbers and check-all-that-apply); its ``relevant:`` condition
:mod:`surveys.schema_conditions`; the page breaks between the entries :mod:`surveys.schema_pages`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from surveys.definition import (
    PAIRED_STATEMENT_CHOICES,
    QUESTION_TYPES,
    SELECT_ONE,
    YES_NO,
    YES_NO_CHOICES,
    Choice,
    Question,
)
from surveys.design_contract import NUMBER_TYPES, QUESTION_NAME_PATTERN
from surveys.form_fields import CONTROL_FIELDS
from surveys.schema_anchor import ANCHOR_KEYS
from surveys.schema_checks import (
    INVALID,
    YAML_BOOLEAN_HINT,
    check_flag,
    check_keys,
    check_pattern,
    check_text,
    describe,
)
from surveys.schema_conditions import parse_relevant
from surveys.schema_designs import parse_design
from surveys.schema_numbers import (
    EPSILON_KEY,
    MULTIPLE_KEYS,
    NUMBER_KEYS,
    check_multiple_choices,
    misplaced_keys,
    parse_number_design,
    parse_range,
)
from surveys.schema_pages import is_page_break

CHOICE_NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")
QUESTION_KEYS = (
    "name",
    "type",
    "label",
    "hint",
    "required",
    "randomize",
    "choices",
    "design",
    "relevant",
    *NUMBER_KEYS,
    EPSILON_KEY,
    *MULTIPLE_KEYS,
    *ANCHOR_KEYS,
)
CHOICE_KEYS = ("name", "label")


def parse_questions(report, value):
    """The tuple of questions; ``INVALID`` entries are dropped after reporting."""
    if value is None:
        return report.add(None, "questions", "is required: a list of questions")
    if not isinstance(value, list):
        return report.add(None, "questions", f"must be a list of questions, got {describe(value)}")
    if not value:
        return report.add(None, "questions", "the list is empty; a survey needs at least one question")
    questions = []
    first_position: dict[str, int] = {}
    for position, entry in enumerate(value, start=1):
        if is_page_break(entry):
            continue
        question = _question(report, position, entry)
        name = entry.get("name") if isinstance(entry, Mapping) else None
        if isinstance(name, str) and QUESTION_NAME_PATTERN.fullmatch(name):
            if name in first_position:
                message = (
                    f"question #{position} has the same name as question #{first_position[name]}; names must be unique"
                )
                report.add(name, "name", message)
                continue
            first_position[name] = position
        if isinstance(question, Question):
            questions.append(question)
    return tuple(questions)


def _question(report, position: int, entry):
    if not isinstance(entry, Mapping):
        message = f"each question must be a mapping with name, type and label, got {describe(entry)}"
        return report.add(f"#{position}", None, message)
    raw_name = entry.get("name")
    where = raw_name if isinstance(raw_name, str) and raw_name else f"#{position}"
    check_keys(report, where, "", entry, QUESTION_KEYS)
    rule = "a lower-case letter then lower-case letters, digits or _, such as cheated_once"
    name = check_pattern(report, where, "name", raw_name, QUESTION_NAME_PATTERN, rule)
    if isinstance(name, str) and name in CONTROL_FIELDS:
        name = report.add(where, "name", f"{name!r} is used by the form itself; choose another name")
    qtype = entry.get("type")
    if qtype is None:
        qtype = report.add(where, "type", f"is required: one of {', '.join(QUESTION_TYPES)}")
    elif qtype not in QUESTION_TYPES:
        message = f"unknown type {qtype!r}; use one of {', '.join(QUESTION_TYPES)}"
        qtype = report.add(where, "type", message)
    label = check_text(report, where, "label", entry.get("label"), required=True)
    hint = check_text(report, where, "hint", entry.get("hint"), required=False)
    required = check_flag(report, where, "required", entry.get("required"), default=True)
    randomize = check_flag(report, where, "randomize", entry.get("randomize"), default=True)
    choices = check_multiple_choices(report, where, qtype, _choices(report, where, qtype, entry.get("choices")))
    misplaced_keys(report, where, qtype, entry)
    number = parse_range(report, where, qtype, entry)
    if qtype in (YES_NO, SELECT_ONE):
        design = parse_design(report, where, qtype, randomize, entry.get("design"), choices)
    else:
        design = parse_number_design(report, where, qtype, randomize, entry, number, choices)
    innocuous = _innocuous(report, where, design, entry.get("design"))
    relevant = parse_relevant(report, where, entry.get("relevant"))
    parts = (name, qtype, label, hint, required, randomize, choices, design, innocuous, relevant, number)
    if any(part is INVALID for part in parts):
        return INVALID
    choices = PAIRED_STATEMENT_CHOICES.get(getattr(design, "kind", None), choices)
    return Question(name, qtype, label, hint, required, randomize, choices, design, innocuous, relevant, number)


def _innocuous(report, where, design, value):
    """The innocuous statement of a crosswise or triangular design (required there, refused elsewhere)."""
    if design is INVALID or not isinstance(value, Mapping):
        return ""
    kind = getattr(design, "kind", None)
    if kind not in PAIRED_STATEMENT_CHOICES:
        return ""
    if value.get("innocuous") is None:
        message = (
            f"is required for a {kind} design: the innocuous statement shown beside the question, whose "
            f"“yes” share is q, such as “My mother's birthday is in January, February or March.” (q: 1/4)"
        )
        return report.add(where, "design.innocuous", message)
    return check_text(report, where, "design.innocuous", value.get("innocuous"), required=True)


def _choices(report, where, qtype, value):
    if qtype is INVALID:
        return INVALID
    if qtype == YES_NO:
        if value is not None:
            message = "a yes_no question has the choices yes and no already; remove choices or use type select_one"
            return report.add(where, "choices", message)
        return YES_NO_CHOICES
    if qtype in NUMBER_TYPES:
        if value is not None:
            return report.add(where, "choices", f"an {qtype} question has no choices; give min and max")
        return ()
    if value is None:
        message = f"a {qtype} question needs choices: a list of at least 2 options"
        return report.add(where, "choices", message)
    if not isinstance(value, list):
        return report.add(where, "choices", f"must be a list of options, got {describe(value)}")
    if len(value) < 2:
        return report.add(where, "choices", f"needs at least 2 options, got {len(value)}")
    choices = []
    first_position: dict[str, int] = {}
    for position, entry in enumerate(value, start=1):
        choice = _choice(report, where, position, entry)
        if choice is INVALID:
            continue
        if choice.name in first_position:
            message = (
                f"choice {position} has the name {choice.name!r} of choice "
                f"{first_position[choice.name]}; names must be unique"
            )
            report.add(where, "choices", message)
            continue
        first_position[choice.name] = position
        choices.append(choice)
    return tuple(choices) if len(choices) == len(value) else INVALID


def _choice(report, where, position: int, entry):
    rule = (
        "a letter or digit, then letters, digits, _ . or - (at most 63), such as "
        "a_few_times; for a longer label write {name: a_few_times, label: A few times}"
    )
    if isinstance(entry, int) and not isinstance(entry, bool):
        entry = str(entry)
    if isinstance(entry, str):
        if not CHOICE_NAME_PATTERN.fullmatch(entry):
            return report.add(where, "choices", f"choice {position} {entry!r}: a name must be {rule}")
        return Choice(entry, entry)
    if isinstance(entry, Mapping):
        before = len(report.problems)
        check_keys(report, where, "choices.", entry, CHOICE_KEYS)
        name = entry.get("name")
        if name is None or not isinstance(name, str) or not CHOICE_NAME_PATTERN.fullmatch(name):
            report.add(where, "choices", f"choice {position}: name must be {rule}, got {describe(name)}")
        label = entry.get("label")
        if not isinstance(label, str) or not label.strip():
            message = f"choice {position}: label must be non-empty text, got {describe(label)}"
            report.add(where, "choices", message)
        if len(report.problems) > before:
            return INVALID
        return Choice(name, label.strip())
    hint = f"; {YAML_BOOLEAN_HINT}" if isinstance(entry, bool) else ""
    message = f"choice {position} must be text or a mapping {{name:, label:}}, got {describe(entry)}{hint}"
    return report.add(where, "choices", message)
