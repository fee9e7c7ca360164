"""The responses CSV's question columns: a number in its units, a check-all-that-apply question one 0/1 column
per option.

A number is stored in grid steps ``y`` (a plain answer's grid position, a Laplace output ``k + Z``); the CSV
gives ``min + y * step`` in the question's units, written exactly with the range's decimals (``5.5``, ``-1.5``):
a Laplace output may lie outside ``[min, max]``, which is the noise. The one-bit bounded design's answer is no
value of the range and stays its bit, ``0`` or ``1``. Each row is read with the grid of the design it was stored
under (its ``design_id``: a grid changed by a new version applies to that version's rows only). A
check-all-that-apply question's stored bits become one column per option, ``<question>_1`` ... ``<question>_m``
in the order of the choices (a trailing ``_`` added while the name is another column's).

Pure: plain rows in, plain rows out; the caches hold one entry per distinct stored value, not per row.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

from surveys.definition import NUMBER_TYPES, SELECT_MULTIPLE, Question, Survey
from surveys.numbers import NumberRange

#: The columns of the responses CSV before the questions' columns.
RESPONSE_COLUMNS = ("response_id", "survey_version", "design_id", "randomized_on", "arm", "day")
#: Where a row's design id is.
DESIGN_ID_INDEX = RESPONSE_COLUMNS.index("design_id")


@dataclass(frozen=True)
class QuestionColumns:
    """The CSV columns of one question: its name, or one per option of a check-all-that-apply question."""

    question: Question
    names: tuple[str, ...]


def question_columns(survey: Survey) -> tuple[QuestionColumns, ...]:
    """Each question's columns, in the survey's order."""
    taken = {*RESPONSE_COLUMNS, *(q.name for q in survey.questions)}
    columns = []
    for question in survey.questions:
        if question.type != SELECT_MULTIPLE:
            columns.append(QuestionColumns(question, (question.name,)))
            continue
        names = []
        for position in range(1, len(question.choices) + 1):
            name = f"{question.name}_{position}"
            while name in taken:
                name += "_"
            taken.add(name)
            names.append(name)
        columns.append(QuestionColumns(question, tuple(names)))
    return tuple(columns)


def responses_header(survey: Survey) -> list[str]:
    """The responses CSV's header: :data:`RESPONSE_COLUMNS`, then each question's columns."""
    return [*RESPONSE_COLUMNS, *(name for columns in question_columns(survey) for name in columns.names)]


def converts(survey: Survey) -> bool:
    """Whether a stored row needs turning into CSV cells: the survey has a number or a check-all question."""
    return any(q.type in (*NUMBER_TYPES, SELECT_MULTIPLE) for q in survey.questions)


def _stored_number(record: dict) -> tuple[NumberRange, bool] | None:
    """The grid a design record stored a number under, and whether its answer is the one-bit design's bit."""
    grid = record.get("number")
    if record.get("type") not in NUMBER_TYPES or not isinstance(grid, dict):
        return None
    number = NumberRange(
        Fraction(grid["min"]), Fraction(grid["max"]), Fraction(grid["step"]), tuple(map(Fraction, grid["bins"]))
    )
    return number, (record.get("design") or {}).get("kind") == "bounded"


class AnswerCells:
    """Stored rows (the fixed columns, then one stored answer per question) as the CSV's rows.

    ``design_records`` are the survey's ``(design id, version, {question: record})``
    (:func:`storage.queries.design_records`); a row whose design id has no record is read with the current
    questions."""

    def __init__(self, survey: Survey, design_records: Iterable[tuple[str, int, dict]]):
        self.columns = question_columns(survey)
        self.records = {design_id: questions for design_id, _, questions in design_records}
        self.cache: dict[tuple[str, str, str], tuple[str, ...]] = {}

    def row(self, row: Sequence) -> list:
        """One stored row as the CSV's row."""
        fixed, answers = list(row[: len(RESPONSE_COLUMNS)]), row[len(RESPONSE_COLUMNS) :]
        design_id = str(row[DESIGN_ID_INDEX] or "")
        for columns, stored in zip(self.columns, answers, strict=True):
            fixed.extend(self.cells(columns, design_id, stored or ""))
        return fixed

    def cells(self, columns: QuestionColumns, design_id: str, stored: str) -> tuple[str, ...]:
        """The CSV cells of one stored answer (empty cells for no answer)."""
        question = columns.question
        if question.type not in (*NUMBER_TYPES, SELECT_MULTIPLE):
            return (stored,)
        key = (question.name, design_id, stored)
        cells = self.cache.get(key)
        if cells is None:
            cells = self.cache[key] = self._cells(columns, design_id, stored)
        return cells

    def _cells(self, columns: QuestionColumns, design_id: str, stored: str) -> tuple[str, ...]:
        question = columns.question
        record = self.records.get(design_id, {}).get(question.name)
        if question.type == SELECT_MULTIPLE:  # an answer stored under another type or options: empty cells
            width = len(columns.names)
            same = record is None or (record.get("type") == SELECT_MULTIPLE and len(record.get("choices", ())) == width)
            bits = same and len(stored) == width and set(stored) <= {"0", "1"}
            return tuple(stored) if bits else ("",) * width
        if stored == "":
            return ("",)
        if record is None:
            record = {"type": question.type, "number": question.number.to_dict()}
            record["design"] = question.design.to_dict() if question.design is not None else None
        stored_number = _stored_number(record)
        if stored_number is None:  # stored under another type by an older version: as stored
            return (stored,)
        number, bit = stored_number
        return (stored,) if bit else (number.text(number.value_of(int(stored))),)


def converted_chunks(cells: AnswerCells, ready_chunks: Iterable[str]) -> Iterator[str]:
    """Ready CSV text (stored answer lines, :func:`storage.export_rows.response_line_chunks`) rewritten, chunk by
    chunk, with each row's cells (:class:`AnswerCells`)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for chunk in ready_chunks:
        writer.writerows(cells.row(row) for row in csv.reader(io.StringIO(chunk)))
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate(0)


def converted_rows(cells: AnswerCells, row_batches: Iterable[Sequence[Sequence]]) -> Iterator[list[list]]:
    """Batches of stored rows (:func:`storage.export_rows.response_row_batches`) with each row's cells."""
    for rows in row_batches:
        yield [cells.row(row) for row in rows]
