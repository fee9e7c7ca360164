"""Where in a survey file's text each problem is: the line of the key or list entry a
:class:`~surveys.schema_checks.Problem` names, so the browser's editor shows it beside that line.

A problem names its place by ``question`` (a question's ``name``, or ``"#3"`` for the third entry of
``questions``) and ``field`` (keys joined by dots, list positions counted from 1 in brackets:
``design.t``, ``targets[2].margin``, ``questions[1].label``). :func:`place_problems` walks PyYAML's node
tree of the same text (:func:`surveys.files.compose_survey_text`), whose nodes carry their line, down that
path as far as it goes: a key that is missing (a required one) points at the mapping that lacks it. A
problem without a place (the whole file) goes at the top (``line`` None); a YAML syntax error at the line
PyYAML stopped at.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import yaml

from surveys.files import compose_survey_text
from surveys.schema_checks import Problem

_SEGMENT = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


@dataclass(frozen=True)
class PlacedProblem:
    """A problem and the line (1-based) of the text it is about; ``line`` None: the whole file."""

    line: int | None
    question: str | None
    field: str | None
    message: str

    @property
    def where(self) -> str:
        """``question 'cheated', field 'design.t'``: the place as words (empty for the whole file)."""
        parts = []
        if self.question is not None:
            parts.append(f"question {self.question if self.question.startswith('#') else repr(self.question)}")
        if self.field is not None:
            parts.append(f"field {self.field!r}")
        return ", ".join(parts)


def field_path(field: str | None) -> tuple[str | int, ...]:
    """``"targets[2].margin"`` as ``("targets", 1, "margin")``: keys, and list positions from 0."""
    if not field:
        return ()
    return tuple(key if key else int(index) - 1 for key, index in _SEGMENT.findall(field))


def _value_of(node, key: str):
    """The key node and value node of ``key`` in a mapping node, or ``(None, None)``."""
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
                return key_node, value_node
    return None, None


def _walk(node, path: Iterable[str | int]) -> int:
    """The 0-based line of the deepest node of ``path`` that exists under ``node``."""
    line = node.start_mark.line
    for step in path:
        if isinstance(step, int):
            if not isinstance(node, yaml.SequenceNode) or not 0 <= step < len(node.value):
                break
            node = node.value[step]
            line = node.start_mark.line
        else:
            key_node, value = _value_of(node, step)
            if key_node is None:
                break
            node, line = value, key_node.start_mark.line
    return line


def _question_node(questions, question: str, field: str | None):
    """The entry of the ``questions`` list node that ``question`` names: ``#3`` the third; a name the entry
    with that ``name`` (the last of several for a ``name`` problem: the repeated one is reported)."""
    if not isinstance(questions, yaml.SequenceNode):
        return None
    if question.startswith("#") and question[1:].isdigit():
        position = int(question[1:]) - 1
        return questions.value[position] if 0 <= position < len(questions.value) else None
    named = [entry for entry in questions.value if getattr(_value_of(entry, "name")[1], "value", None) == question]
    if not named:
        return None
    return named[-1] if field == "name" else named[0]


def problem_line(root, problem: Problem) -> int | None:
    """The 1-based line of ``problem`` in the text whose node tree is ``root``; None for the whole file."""
    if root is None or (problem.question is None and problem.field is None):
        return None
    start = root
    if problem.question is not None:
        start = _question_node(_value_of(root, "questions")[1], problem.question, problem.field)
        if start is None:
            return None
    return _walk(start, field_path(problem.field)) + 1


def place_problems(text: str, problems: Iterable[Problem]) -> tuple[PlacedProblem, ...]:
    """Each problem of ``text`` with its line, in line order (the whole file's first)."""
    syntax_line = None
    try:
        root = compose_survey_text(text)
    except yaml.YAMLError as error:
        root = None
        mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
        syntax_line = mark.line + 1 if mark is not None else None
    except ValueError:
        root = None
    placed = [
        PlacedProblem(
            problem_line(root, problem) if root is not None else syntax_line,
            problem.question,
            problem.field,
            problem.message,
        )
        for problem in problems
    ]
    return tuple(sorted(placed, key=lambda p: -1 if p.line is None else p.line))


def problems_by_line(placed: Iterable[PlacedProblem]) -> dict[int | None, list[PlacedProblem]]:
    """The placed problems grouped by line (``None``: the whole file's), for a numbered listing."""
    grouped: dict[int | None, list[PlacedProblem]] = {}
    for problem in placed:
        grouped.setdefault(problem.line, []).append(problem)
    return grouped


def append_question(text: str, entry: Mapping) -> str:
    """``text`` with the question ``entry`` added at the end of its ``questions`` list, written as the
    list's other entries are (block style, at their indentation); the rest of the text, comments
    included, is kept as written. ``ValueError`` when the text has no block list of questions to add to."""
    root = compose_survey_text(text)
    _, questions = _value_of(root, "questions")
    if not isinstance(questions, yaml.SequenceNode) or not questions.value or questions.flow_style:
        raise ValueError("the survey has no list of questions written one per line (- name: ...) to add to")
    indent = " " * questions.start_mark.column
    written = yaml.safe_dump(dict(entry), sort_keys=False, allow_unicode=True, width=100, default_flow_style=False)
    lines = written.splitlines()
    block = [f"{indent}- {lines[0]}", *(f"{indent}  {line}" for line in lines[1:])]
    end = questions.value[-1].end_mark
    cut = end.line if end.column == 0 else end.line + 1
    kept = text.splitlines(keepends=True)
    if kept and not kept[-1].endswith("\n"):
        kept[-1] += "\n"
    return "".join([*kept[:cut], *(line + "\n" for line in block), *kept[cut:]])
