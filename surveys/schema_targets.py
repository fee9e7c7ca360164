"""The ``targets`` of a survey file (margins of error to reach: on a share, overall or between two groups, or on
a randomized number's mean) and ``close_when_targets_met``."""

from __future__ import annotations

import math
from collections.abc import Mapping

from surveys.definition import DEFAULT_TARGET_LEVEL, Question, Target, TargetScale
from surveys.kinds import kind_of
from surveys.schema_checks import INVALID, check_flag, check_keys, check_number, describe

TARGET_KEYS = ("question", "margin", "confidence_level", "by", "groups")
_TARGET_EXAMPLE = (
    "{question: cheated, margin: 0.05}, {question: cheated, by: year, groups: [first, fourth], margin: 0.1} "
    "or {question: drinks, margin: 1.5}"
)


#: The margin's check when the question is not one a target can be on (reported already): positive, no more.
_ANY_TARGET = TargetScale(None, "a positive number: the wanted half-width of the confidence sequence")


def written_question_names(mapping: Mapping) -> list[str]:
    """Every question name written in the file, in order, valid or not."""
    entries = mapping.get("questions")
    if not isinstance(entries, list):
        return []
    return [entry["name"] for entry in entries if isinstance(entry, Mapping) and isinstance(entry.get("name"), str)]


def raw_question_names(mapping: Mapping) -> set[str]:
    """Every question name written in the file, valid or not (a broken question is reported once, by itself)."""
    entries = mapping.get("questions")
    if not isinstance(entries, list):
        return set()
    return {entry.get("name") for entry in entries if isinstance(entry, Mapping) and isinstance(entry.get("name"), str)}


def parse_targets(report, value, questions, written: set[str]):
    """The tuple of :class:`~surveys.definition.Target`; ``()`` when the key is absent."""
    if value is None:
        return ()
    if not isinstance(value, list) or not value:
        return report.add(
            None, "targets", f"must be a list of targets such as [{_TARGET_EXAMPLE}], got {describe(value)}"
        )
    known = {q.name: q for q in questions} if isinstance(questions, tuple) else None
    targets, seen = [], {}
    for position, entry in enumerate(value, start=1):
        target = _target(report, f"targets[{position}]", entry, known, written)
        if target is INVALID:
            continue
        key = (target.question, target.by, target.groups)
        if key in seen:
            message = f"targets {seen[key]} and {position} are both for {target.label()}; keep one"
            report.add(None, f"targets[{position}]", message)
            continue
        seen[key] = position
        targets.append(target)
    return tuple(targets) if len(targets) == len(value) else INVALID


def _target(report, where: str, entry, known, written: set[str]):
    if not isinstance(entry, Mapping):
        return report.add(None, where, f"must be a mapping such as {_TARGET_EXAMPLE}, got {describe(entry)}")
    before = len(report.problems)
    check_keys(report, None, f"{where}.", entry, TARGET_KEYS)
    question = _target_question(report, where, entry.get("question"), known, written)
    scale = kind_of(known[question]).target_scale(known[question]) if question is not INVALID else _ANY_TARGET
    margin = entry.get("margin")
    margin = report.add(None, f"{where}.margin", "is required: " + scale.rule) if margin is None else margin
    if margin is not INVALID:
        high = math.inf if scale.upper is None else scale.upper
        margin = check_number(report, None, f"{where}.margin", margin, low=0, high=high, rule=scale.rule)
    level = entry.get("confidence_level")
    if level is not None:
        level = check_number(
            report,
            None,
            f"{where}.confidence_level",
            level,
            low=0,
            high=1,
            rule="a number between 0 and 1 (exclusive), such as 0.95",
        )
    by, groups = _target_groups(report, where, entry.get("by"), entry.get("groups"), known, written)
    if by is not None and by is not INVALID and not scale.differences:
        message = f"a target on {question!r} is on its mean; a target for a difference is for a yes_no question"
        by = report.add(None, f"{where}.by", message)
    if len(report.problems) > before or any(part is INVALID for part in (question, margin, level, by, groups)):
        return INVALID
    return Target(question, margin, DEFAULT_TARGET_LEVEL if level is None else level, by, groups)


def _target_question(report, where: str, name, known, written: set[str]):
    """The name of a randomized yes/no question or number of the survey (its kind has a ``target_scale``)."""
    if name is None:
        return report.add(None, f"{where}.question", "is required: the name of a randomized yes_no question or number")
    if not isinstance(name, str):
        return report.add(None, f"{where}.question", f"must be a question's name, got {describe(name)}")
    if known is None or (name not in known and name in written):
        return INVALID  # the question itself is broken and reported already
    if name not in known:
        return report.add(None, f"{where}.question", f"there is no question called {name!r}")
    question = known[name]
    if kind_of(question).target_scale(question) is None:
        message = (
            f"{name!r} is not a randomized yes_no question or number; a target is a margin of error for such a "
            "question's share or mean"
        )
        return report.add(None, f"{where}.question", message)
    return name


def _target_groups(report, where: str, by, groups, known, written: set[str]):
    """``(by, (first, second))`` for a difference, ``(None, ())`` for a share."""
    if by is None and groups is None:
        return None, ()
    if by is None or groups is None:
        missing = "by" if by is None else "groups"
        message = "a target for a difference needs both by (a question that is not randomized) and groups (two answers)"
        return report.add(None, f"{where}.{missing}", message), ()
    if not isinstance(by, str):
        return report.add(None, f"{where}.by", f"must be a question's name, got {describe(by)}"), ()
    if known is None or (by not in known and by in written):
        return INVALID, ()  # the question itself is broken and reported already
    if by not in known:
        return report.add(None, f"{where}.by", f"there is no question called {by!r}"), ()
    question = known[by]
    if not kind_of(question).splits_results:
        message = f"{by!r} is randomized; groups are formed by the answers to a question with randomize: false"
        return report.add(None, f"{where}.by", message), ()
    return by, _target_pair(report, where, groups, question)


def _target_pair(report, where: str, groups, question: Question):
    """Two different answers to the plain ``question`` (numbers read as their text, as choices are)."""
    names = groups if isinstance(groups, list) else []
    names = [str(g) if isinstance(g, int) and not isinstance(g, bool) else g for g in names]
    if len(names) != 2 or names[0] == names[1]:
        example = ", ".join(question.choice_names[:2])
        message = (
            f"must be a list of two different answers to {question.name!r}, such as [{example}], got {describe(groups)}"
        )
        return report.add(None, f"{where}.groups", message)
    unknown = [g for g in names if g not in question.choice_names]
    if unknown:
        message = (
            f"{unknown[0]!r} is not an answer to {question.name!r}; its answers are {', '.join(question.choice_names)}"
        )
        return report.add(None, f"{where}.groups", message)
    return tuple(names)


def parse_close_when_targets_met(report, value, targets) -> bool:
    close = check_flag(report, None, "close_when_targets_met", value, default=False)
    if close is True and targets == ():
        return report.add(None, "close_when_targets_met", "is true but there are no targets; add targets or remove it")
    return close
