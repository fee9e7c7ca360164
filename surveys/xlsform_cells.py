"""The cells of an XLSForm workbook: its sheets read within :mod:`surveys.limits`, and one cell's value read as
text, a flag, a probability or a text in several languages; every problem placed at its sheet, row and column
(:class:`CellProblem`). The sheets themselves are read by :mod:`surveys.xlsform` and its parts."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date, datetime, time
from time import monotonic

from surveys import limits
from surveys.schema_languages import LANGUAGE_PATTERN

TRUE_WORDS = frozenset({"yes", "true", "true()", "1"})
FALSE_WORDS = frozenset({"no", "false", "false()", "0"})


@dataclass(frozen=True)
class CellProblem:
    """One mistake in a workbook: its sheet, row (1-based, as Excel shows it) and column (``None`` for a whole
    row or sheet), and what is wrong."""

    sheet: str
    row: int | None
    column: str | None
    message: str

    def __str__(self) -> str:
        where = self.sheet
        if self.row is not None:
            where += f", row {self.row}"
        if self.column is not None:
            where += f", column {self.column}"
        return f"{where}: {self.message}"


class XLSFormError(ValueError):
    """Every problem of a workbook, reported together. ``yaml_text``: the survey file the workbook reads as,
    when its cells were read and only the survey's own checks refused it (a design that does not add up, say),
    so that the text can be fixed where the problems are shown; None when the cells themselves were refused."""

    def __init__(self, source: str, problems: Iterable[CellProblem], yaml_text: str | None = None):
        self.problems = tuple(problems)
        self.yaml_text = yaml_text
        lines = "\n".join(f"  {problem}" for problem in self.problems)
        super().__init__(f"{source}: {len(self.problems)} problem(s)\n{lines}")


@dataclass(frozen=True)
class Sheet:
    """A sheet's header (lower-cased column name -> Excel letter) and its non-empty rows (row number, values)."""

    name: str
    columns: dict[str, str]
    rows: tuple[tuple[int, dict[str, object]], ...]

    def where(self, column: str) -> str:
        """``C (label)``: a column's letter and name."""
        return f"{self.columns[column]} ({column})" if column in self.columns else column


class Report:
    """The problems found so far, in the order found."""

    def __init__(self) -> None:
        self.problems: list[CellProblem] = []

    def add(self, sheet: str, row: int | None, column: str | None, message: str) -> None:
        self.problems.append(CellProblem(sheet, row, column, message))


def cell_text(value: object) -> str:
    """A cell as text: empty for an empty cell, ``3`` for the number 3.0."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


class Refused(Exception):
    """A workbook beyond one of :mod:`surveys.limits`: its one problem, naming the limit."""

    def __init__(self, problem: CellProblem):
        super().__init__(str(problem))
        self.problem = problem


def _check_deadline(sheet: str, row: int | None, deadline: float) -> None:
    if monotonic() > deadline:
        message = f"took more than {limits.MAX_WORKBOOK_SECONDS:g} s to read; " + limits.limit_text(
            "MAX_WORKBOOK_SECONDS", limits.MAX_WORKBOOK_SECONDS, " s"
        )
        raise Refused(CellProblem(sheet, row, None, message))


def read_sheet(book, name: str, deadline: float = math.inf) -> Sheet | None:
    """The sheet ``name`` (case-insensitive) with its header, or ``None`` when the workbook has none.

    Read row by row (``book`` is opened read-only, streaming): a sheet with a row past
    :data:`~surveys.limits.MAX_SHEET_ROWS` or a header past :data:`~surveys.limits.MAX_SHEET_COLUMNS`
    is refused when that row or column is reached, and no row is read after ``deadline``
    (``time.monotonic()``), so a sheet of millions of rows is never read to its end.
    """
    by_name = {sheet.lower(): sheet for sheet in book.sheetnames}
    if name not in by_name:
        return None
    title = by_name[name]
    rows = book[title].iter_rows(
        max_row=limits.MAX_SHEET_ROWS + 1, max_col=limits.MAX_SHEET_COLUMNS + 1, values_only=True
    )
    try:
        return _sheet(title, rows, deadline)
    finally:
        rows.close()  # a sheet refused halfway leaves no part of the workbook open


def _sheet(title: str, rows: Iterator[tuple], deadline: float) -> Sheet:
    from openpyxl.utils import get_column_letter  # imported with the workbook (surveys.xlsform._open_workbook)

    header = next(rows, ())
    if len(header) > limits.MAX_SHEET_COLUMNS and cell_text(header[limits.MAX_SHEET_COLUMNS]):
        message = f"more than {limits.MAX_SHEET_COLUMNS:,} columns; " + limits.limit_text(
            "MAX_SHEET_COLUMNS", limits.MAX_SHEET_COLUMNS
        )
        raise Refused(CellProblem(title, 1, get_column_letter(limits.MAX_SHEET_COLUMNS + 1), message))
    columns = {}
    for index, text in enumerate(header, start=1):
        text = cell_text(text).lower()
        if text:
            columns[text] = get_column_letter(index)
    kept = []
    names = list(columns)
    positions = [index for index, text in enumerate(header) if cell_text(text)]
    for number, values in enumerate(rows, start=2):
        if number > limits.MAX_SHEET_ROWS:
            message = f"more than {limits.MAX_SHEET_ROWS:,} rows; " + limits.limit_text(
                "MAX_SHEET_ROWS", limits.MAX_SHEET_ROWS
            )
            raise Refused(CellProblem(title, number, None, message))
        _check_deadline(title, number, deadline)
        cells = {names[i]: values[p] if p < len(values) else None for i, p in enumerate(positions)}
        if any(cell_text(v) for v in cells.values()):
            kept.append((number, cells))
    return Sheet(title, columns, tuple(kept))


def language_code(text: str) -> str:
    """``fr`` of ``French (fr)``: the code in parentheses, else the text itself."""
    return text[text.rfind("(") + 1 : -1].strip() if text.endswith(")") else text


def language_columns(report: Report, sheet: Sheet, base: str) -> dict[str, str]:
    """``{language code: column}`` of the ``base::LANGUAGE`` columns (``{"": base}`` for a plain ``base``).

    XLSForm names a language ``label::French (fr)``: the code is the one in parentheses, else the
    name itself when it is a code (``label::fr``). A language without a usable code is a problem.
    """
    found: dict[str, str] = {}
    for column in sheet.columns:
        if column == base:
            found[""] = column
        elif column.startswith(base + "::"):
            code = language_code(column.removeprefix(base + "::").strip())
            if not LANGUAGE_PATTERN.fullmatch(code):
                message = f"name the language with its code, such as {base}::French (fr), not {column!r}"
                report.add(sheet.name, 1, sheet.where(column), message)
                continue
            found[code] = column
    if "" in found and len(found) > 1:
        message = f"a plain {base} column beside {base}::LANGUAGE columns; give every language its own column"
        report.add(sheet.name, 1, sheet.where(found[""]), message)
    return found


def text_in_languages(cells: Mapping, columns: dict[str, str]) -> object:
    """One cell's text, or ``{code: text}`` over the language columns (a survey file's translated text)."""
    if len(columns) <= 1:
        return cell_text(cells.get(next(iter(columns.values())))) if columns else ""
    return {code: cell_text(cells.get(column)) for code, column in columns.items()}


def is_given(text: object) -> bool:
    """Whether a text of :func:`text_in_languages` is written, in one language at least."""
    return bool(text) and (not isinstance(text, dict) or any(text.values()))


def unknown_columns(
    report: Report, sheet: Sheet, known: Iterable[str], prefixed: Iterable[str], reasons: Mapping[str, str]
) -> None:
    """A problem for each column of ``sheet`` that is neither in ``known`` nor ``BASE::...`` with a base in
    ``prefixed``: XLSForm's own columns that this app does not read say why (``reasons``), any other lists the
    columns the sheet takes."""
    known, prefixed = tuple(known), tuple(prefixed)
    for column in sheet.columns:
        base = column.split("::")[0]
        if column in known or ("::" in column and base in prefixed):
            continue
        if base in reasons:
            message = f"column {column!r} is not read by this app: {reasons[base]}; remove the column"
        else:
            takes = ", ".join((*known, *(f"{base}::..." for base in prefixed)))
            message = f"unknown column {column!r}; the {sheet.name} sheet's columns are {takes}"
        report.add(sheet.name, 1, sheet.where(column), message)


def flag(report: Report, sheet: Sheet, number: int, column: str, value: object) -> bool | None:
    """A yes/no cell (``yes``, ``true``, ``TRUE()``, ``1``...); ``None`` when empty or not a flag (reported)."""
    if isinstance(value, bool):
        return value
    text = cell_text(value).lower()
    if not text:
        return None
    if text in TRUE_WORDS:
        return True
    if text in FALSE_WORDS:
        return False
    report.add(sheet.name, number, sheet.where(column), f"must be yes or no (or true/false), got {text!r}")
    return None


def probability_cell(report: Report, sheet: Sheet, number: int, column: str, value: object) -> object:
    """A probability as written (a number, or text such as ``1/4`` for the survey file's check); a date Excel
    made of ``1/4``, or a flag, is reported."""
    if isinstance(value, datetime | date | time):
        message = "Excel read this probability as a date; format the column as text, or write a decimal such as 0.25"
        report.add(sheet.name, number, sheet.where(column), message)
        return None
    if isinstance(value, bool):
        report.add(sheet.name, number, sheet.where(column), f"must be a probability, got {value}")
        return None
    if isinstance(value, int | float):
        return value
    return cell_text(value) or None
