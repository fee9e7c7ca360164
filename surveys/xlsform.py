"""XLSForm in: an XLSForm workbook turned into a survey file.

Researchers coming from KoboToolbox, ODK or SurveyCTO write forms as XLSForm
workbooks (https://xlsform.org). :func:`import_workbook` reads one and
returns the survey file's mapping (and its YAML text), checked by the same
rules as a survey file (:func:`surveys.schema.parse_survey`). Every problem
is reported at once, each with its sheet, row and column (:class:`CellProblem`).

The sheets and columns read (any other column is reported, not ignored):

``survey``
    ``type``: ``yes_no``, or ``select_one LIST`` with LIST a list of the
    choices sheet (a list whose names are exactly ``yes`` and ``no`` makes a
    ``yes_no`` question); ``name``; ``label``, or one ``label::LANGUAGE``
    column per language (``label::French (fr)``: several make a survey in
    several languages, the settings' ``default_language`` or else the first
    column's first); ``hint`` (or ``hint::LANGUAGE``); ``relevant`` (skip
    logic, :mod:`surveys.conditions`); ``required`` and
    ``randomize`` (``yes``/``no``, ``true``/``false``, ``TRUE()``/
    ``FALSE()``; empty means the survey file's default: both on); and the
    randomized-response design, one column per key of the survey file's
    ``design`` mapping, named ``design::KEY`` (``design::t``,
    ``design::a``, ``design::b`` for forced response; ``design::t`` for a
    choice; ``design::model`` with ``design::p``, ``design::q``,
    ``design::innocuous``, ``design::p1``, ``design::p2``... for the other
    models). A misclassification matrix is one ``design::matrix`` cell,
    rows separated by ``;`` and entries by ``,`` (:func:`matrix_rows`).
    Write probabilities as decimals or as text fractions: Excel turns a
    typed ``1/4`` into a date, which is reported.
``choices``
    ``list_name``, ``name``, ``label`` (or ``label::LANGUAGE`` columns).
``settings`` (optional)
    ``form_id`` (the survey's ``id``), ``form_title`` (its ``title``),
    ``version``, and any other survey-level key of a survey file by its own
    name (``intro``, ``organizer``, ``epsilon_budget``, and the arms'
    ``group_1_share`` and ``direct_share``, read as probabilities).

XLSForm types that collect something else are refused with the reason:
metadata (``start``, ``end``, ``today``, ``deviceid``...) would put a time
or a device next to the answers; other question types (``text``,
``integer``, ``select_multiple``, groups, notes...) are not asked by this
app.

A workbook is read within the limits of :mod:`surveys.limits`: its size on
disk and uncompressed, and its number of parts, checked in its zip directory
before it is opened; its sheets streamed (openpyxl's read-only mode) up to a
row and a column limit and a deadline. One past a limit is one problem naming it.
"""

from __future__ import annotations

import math
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path
from time import monotonic
from xml.etree.ElementTree import ParseError

import openpyxl
import yaml
from openpyxl.utils import get_column_letter

from surveys import limits
from surveys.definition import SELECT_ONE, YES_NO, Survey
from surveys.schema import LANGUAGE_PATTERN, SURVEY_KEYS, SurveyFileError, parse_survey

#: XLSForm metadata types: each records a time, a device or a person.
METADATA_TYPES = frozenset(
    {
        "start",
        "end",
        "today",
        "deviceid",
        "phonenumber",
        "username",
        "email",
        "audit",
        "simserial",
        "subscriberid",
        "start-geopoint",
        "background-audio",
    }
)
SURVEY_COLUMNS = ("type", "name", "label", "hint", "required", "randomize", "relevant")
CHOICE_COLUMNS = ("list_name", "name", "label")
#: Settings columns renamed to the survey file's keys.
SETTINGS_RENAMED = {"form_id": "id", "form_title": "title"}
SETTINGS_KEYS = (frozenset(SURVEY_KEYS) - {"questions", "id", "title", "languages"}) | {"default_language"}
#: Settings that are probabilities (read as the design columns are: a date Excel made of ``1/5`` is reported).
SHARE_SETTINGS = frozenset({"group_1_share", "direct_share"})
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
    """Every problem of a workbook, reported together."""

    def __init__(self, source: str, problems: Iterable[CellProblem]):
        self.problems = tuple(problems)
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


@dataclass(frozen=True)
class ImportedSurvey:
    """A workbook read and checked: the survey file's mapping, its YAML text and the survey it defines."""

    mapping: dict
    survey: Survey

    def yaml_text(self) -> str:
        return yaml.safe_dump(self.mapping, sort_keys=False, allow_unicode=True, width=100)


class _Report:
    def __init__(self) -> None:
        self.problems: list[CellProblem] = []

    def add(self, sheet: str, row: int | None, column: str | None, message: str) -> None:
        self.problems.append(CellProblem(sheet, row, column, message))


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


class _Refused(Exception):
    """A workbook beyond one of :mod:`surveys.limits`: its one problem, naming the limit."""

    def __init__(self, problem: CellProblem):
        super().__init__(str(problem))
        self.problem = problem


def _check_deadline(sheet: str, row: int | None, deadline: float) -> None:
    if monotonic() > deadline:
        message = f"took more than {limits.MAX_WORKBOOK_SECONDS:g} s to read; " + limits.limit_text(
            "MAX_WORKBOOK_SECONDS", limits.MAX_WORKBOOK_SECONDS, " s"
        )
        raise _Refused(CellProblem(sheet, row, None, message))


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
    header = next(rows, ())
    if len(header) > limits.MAX_SHEET_COLUMNS and _cell_text(header[limits.MAX_SHEET_COLUMNS]):
        message = f"more than {limits.MAX_SHEET_COLUMNS:,} columns; " + limits.limit_text(
            "MAX_SHEET_COLUMNS", limits.MAX_SHEET_COLUMNS
        )
        raise _Refused(CellProblem(title, 1, get_column_letter(limits.MAX_SHEET_COLUMNS + 1), message))
    columns = {}
    for index, text in enumerate(header, start=1):
        text = _cell_text(text).lower()
        if text:
            columns[text] = get_column_letter(index)
    kept = []
    names = list(columns)
    positions = [index for index, text in enumerate(header) if _cell_text(text)]
    for number, values in enumerate(rows, start=2):
        if number > limits.MAX_SHEET_ROWS:
            message = f"more than {limits.MAX_SHEET_ROWS:,} rows; " + limits.limit_text(
                "MAX_SHEET_ROWS", limits.MAX_SHEET_ROWS
            )
            raise _Refused(CellProblem(title, number, None, message))
        _check_deadline(title, number, deadline)
        cells = {names[i]: values[p] if p < len(values) else None for i, p in enumerate(positions)}
        if any(_cell_text(v) for v in cells.values()):
            kept.append((number, cells))
    return Sheet(title, columns, tuple(kept))


def _language_columns(report: _Report, sheet: Sheet, base: str) -> dict[str, str]:
    """``{language code: column}`` of the ``base::LANGUAGE`` columns (``{"": base}`` for a plain ``base``).

    XLSForm names a language ``label::French (fr)``: the code is the one in parentheses, else the
    name itself when it is a code (``label::fr``). A language without a usable code is a problem.
    """
    found: dict[str, str] = {}
    for column in sheet.columns:
        if column == base:
            found[""] = column
        elif column.startswith(base + "::"):
            language = column.removeprefix(base + "::").strip()
            code = language[language.rfind("(") + 1 : -1].strip() if language.endswith(")") else language
            if not LANGUAGE_PATTERN.fullmatch(code):
                message = f"name the language with its code, such as {base}::French (fr), not {column!r}"
                report.add(sheet.name, 1, sheet.where(column), message)
                continue
            found[code] = column
    if "" in found and len(found) > 1:
        message = f"a plain {base} column beside {base}::LANGUAGE columns; give every language its own column"
        report.add(sheet.name, 1, sheet.where(found[""]), message)
    return found


def _text_in_languages(cells: Mapping, columns: dict[str, str]) -> object:
    """One cell's text, or ``{code: text}`` over the language columns (a survey file's translated text)."""
    if len(columns) <= 1:
        return _cell_text(cells.get(next(iter(columns.values())))) if columns else ""
    return {code: _cell_text(cells.get(column)) for code, column in columns.items()}


def _unknown_columns(report: _Report, sheet: Sheet, known: Iterable[str]) -> None:
    known = set(known)
    for column in sheet.columns:
        if column not in known:
            report.add(sheet.name, 1, sheet.where(column), f"unknown column {column!r}; see the column reference")


def _flag(report: _Report, sheet: Sheet, number: int, column: str, value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    text = _cell_text(value).lower()
    if not text:
        return None
    if text in TRUE_WORDS:
        return True
    if text in FALSE_WORDS:
        return False
    report.add(sheet.name, number, sheet.where(column), f"must be yes or no (or true/false), got {text!r}")
    return None


def _probability_cell(report: _Report, sheet: Sheet, number: int, column: str, value: object) -> object:
    if isinstance(value, datetime | date | time):
        message = "Excel read this probability as a date; format the column as text, or write a decimal such as 0.25"
        report.add(sheet.name, number, sheet.where(column), message)
        return None
    if isinstance(value, bool):
        report.add(sheet.name, number, sheet.where(column), f"must be a probability, got {value}")
        return None
    if isinstance(value, int | float):
        return value
    return _cell_text(value) or None


def matrix_rows(value: object) -> object:
    """A ``design::matrix`` cell as the survey file's list of rows: rows separated by ``;``, entries by ``,``
    (``3/4, 1/3; 1/4, 2/3`` is ``[[3/4, 1/3], [1/4, 2/3]]``). A cell that is not text is left to the survey
    file's check, which names it."""
    if not isinstance(value, str):
        return value
    return [[entry.strip() for entry in row.split(",")] for row in value.split(";")]


def _choice_lists(report: _Report, sheet: Sheet | None) -> dict[str, list[tuple[int, dict]]]:
    if sheet is None:
        return {}
    label = _language_columns(report, sheet, "label")
    _unknown_columns(report, sheet, (*CHOICE_COLUMNS, *(c for c in sheet.columns if c.startswith("label::"))))
    lists: dict[str, list[tuple[int, dict]]] = {}
    for number, cells in sheet.rows:
        list_name = _cell_text(cells.get("list_name"))
        name = _cell_text(cells.get("name"))
        if not list_name:
            report.add(sheet.name, number, sheet.where("list_name"), "every choice needs a list_name")
            continue
        if not name:
            report.add(sheet.name, number, sheet.where("name"), "every choice needs a name")
            continue
        text = _text_in_languages(cells, label)
        if isinstance(text, dict):
            text = {code: value or name for code, value in text.items()}
        lists.setdefault(list_name, []).append((number, {"name": name, "label": text or name}))
    return lists


def _question_type(report, sheet, number, cells, lists) -> tuple[str | None, str | None]:
    """``(survey-file type, choice list name)`` of a row's ``type`` cell."""
    words = _cell_text(cells.get("type")).split()
    where = sheet.where("type")
    if not words:
        report.add(sheet.name, number, where, "every question needs a type: yes_no or select_one LIST")
        return None, None
    kind = words[0].lower()
    if kind == YES_NO and len(words) == 1:
        return YES_NO, None
    if kind == SELECT_ONE and len(words) == 2:
        if words[1] not in lists:
            report.add(sheet.name, number, where, f"choice list {words[1]!r} is not in the choices sheet")
            return None, None
        return SELECT_ONE, words[1]
    if kind in METADATA_TYPES:
        message = (
            f"metadata type {kind!r} is refused: it would store a time, a device or a person next to the "
            "answers, which this app never does"
        )
    elif kind == SELECT_ONE:
        message = "select_one needs exactly one choice list: select_one LIST"
    else:
        message = f"type {kind!r} is not asked by this app: use yes_no or select_one LIST"
    report.add(sheet.name, number, where, message)
    return None, None


def _question(report, sheet, number, cells, lists, label_column, hint_column) -> dict | None:
    qtype, list_name = _question_type(report, sheet, number, cells, lists)
    entry: dict = {"name": _cell_text(cells.get("name")), "type": qtype}
    entry["label"] = _text_in_languages(cells, label_column)
    hint = _text_in_languages(cells, hint_column)
    if hint and (not isinstance(hint, dict) or any(hint.values())):
        entry["hint"] = hint
    relevant = _cell_text(cells.get("relevant"))
    if relevant:
        entry["relevant"] = relevant
    for column in ("required", "randomize"):
        flag = _flag(report, sheet, number, column, cells.get(column))
        if flag is not None:
            entry[column] = flag
    if list_name is not None:
        choices = [choice for _, choice in lists[list_name]]
        if sorted(c["name"] for c in choices) == ["no", "yes"]:
            entry["type"] = YES_NO
        else:
            entry["choices"] = choices
    design = {}
    for column in sheet.columns:
        if column.startswith("design::"):
            value = _probability_cell(report, sheet, number, column, cells.get(column))
            if value is not None:
                key = column.removeprefix("design::")
                design[key] = matrix_rows(value) if key == "matrix" else value
    if design:
        entry["design"] = design
    return entry if qtype is not None else None


def _settings(report: _Report, sheet: Sheet | None) -> dict:
    if sheet is None:
        return {}
    _unknown_columns(report, sheet, (*SETTINGS_RENAMED, *SETTINGS_KEYS))
    if len(sheet.rows) > 1:
        report.add(sheet.name, sheet.rows[1][0], None, "the settings sheet has one row of values")
    if not sheet.rows:
        return {}
    settings = {}
    number, cells = sheet.rows[0]
    for column, value in cells.items():
        if value is None or _cell_text(value) == "":
            continue
        key = SETTINGS_RENAMED.get(column, column)
        if key in SHARE_SETTINGS:
            value = _probability_cell(report, sheet, number, column, value)
            if value is None:
                continue
        elif key == "version":
            text = _cell_text(value)
            value = int(text) if text.isdigit() else text
        elif isinstance(value, datetime):
            value = value.date()
        elif isinstance(value, str):
            value = value.strip()
        settings[key] = value
    return settings


def _default_language(setting: object, languages: list[str]) -> str:
    """The settings' ``default_language`` (``French (fr)`` or ``fr``) if one of ``languages``, else the first."""
    text = _cell_text(setting)
    code = text[text.rfind("(") + 1 : -1].strip() if text.endswith(")") else text
    return code if code in languages else languages[0]


def _design_columns(sheet: Sheet) -> str:
    """``G-I (design::t .. design::b)``: where a whole design is written."""
    columns = [c for c in sheet.columns if c.startswith("design::")]
    if not columns:
        return "design::"
    if len(columns) == 1:
        return sheet.where(columns[0])
    return f"{sheet.columns[columns[0]]}-{sheet.columns[columns[-1]]} ({columns[0]} .. {columns[-1]})"


def _cell_of(problem, rows_by_question: Mapping[str, list[int]], sheet: Sheet) -> tuple[str, int | None, str | None]:
    """Where a survey-file problem (question, field) lives in the workbook.

    A name used twice is reported by the survey-file rules under that name:
    its problem is placed at the name's last row (the repeat)."""
    if problem.question is None:
        column = next((c for c, key in SETTINGS_RENAMED.items() if key == problem.field), problem.field)
        return "settings", 2, column
    rows = rows_by_question.get(problem.question, [None])
    field = problem.field
    if field is None:
        return sheet.name, rows[0], None
    if field == "name":
        return sheet.name, rows[-1], sheet.where("name")
    if field == "design":
        return sheet.name, rows[0], _design_columns(sheet)
    column = field.replace("design.", "design::") if field.startswith("design.") else field.split(".")[0]
    if column == "choices":
        return sheet.name, rows[0], sheet.where("type")
    return sheet.name, rows[0], sheet.where(column) if column in sheet.columns else column


def _not_a_workbook(path: Path, error: Exception) -> XLSFormError:
    return XLSFormError(str(path), [CellProblem(path.name, None, None, f"not an .xlsx workbook: {error}")])


def _too_large(path: Path, size: int, what: str = "") -> XLSFormError:
    message = f"the workbook is {size:,} bytes{what}; " + limits.limit_text(
        "MAX_WORKBOOK_BYTES", limits.MAX_WORKBOOK_BYTES, " bytes"
    )
    return XLSFormError(str(path), [CellProblem(path.name, None, None, message)])


def _check_workbook_size(path: Path) -> None:
    """Refuse, before it is opened, a workbook past :data:`~surveys.limits.MAX_WORKBOOK_BYTES` on disk or once
    its parts are uncompressed (the sizes its zip directory declares, which :mod:`zipfile` never reads past),
    or with more than :data:`~surveys.limits.MAX_WORKBOOK_PARTS` parts: a cell of 400 MB compresses to 400 KB."""
    size = path.stat().st_size
    if size > limits.MAX_WORKBOOK_BYTES:
        raise _too_large(path, size)
    try:
        with zipfile.ZipFile(path) as archive:
            parts = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise _not_a_workbook(path, error) from None
    if len(parts) > limits.MAX_WORKBOOK_PARTS:
        message = f"more than {limits.MAX_WORKBOOK_PARTS:,} parts; " + limits.limit_text(
            "MAX_WORKBOOK_PARTS", limits.MAX_WORKBOOK_PARTS
        )
        raise XLSFormError(str(path), [CellProblem(path.name, None, None, message)])
    total = sum(part.file_size for part in parts)
    if total > limits.MAX_WORKBOOK_BYTES:
        largest = max(parts, key=lambda part: part.file_size)
        raise _too_large(path, total, f" uncompressed ({largest.filename} alone is {largest.file_size:,})")


def _open_workbook(path: Path, handle):
    """The workbook in the open file ``handle``, read-only (its sheets streamed row by row)."""
    try:
        return openpyxl.load_workbook(handle, read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, OSError, ValueError, ParseError) as error:
        raise _not_a_workbook(path, error) from None


def _read_sheets(path: Path) -> tuple[_Report, Sheet, dict, dict]:
    """A new report, the survey sheet, the choice lists and the settings, read within :mod:`surveys.limits`.

    The file is opened and closed here, whatever openpyxl leaves open (a sheet whose XML fails to
    parse keeps its part, and so the file, open)."""
    _check_workbook_size(path)
    deadline = monotonic() + limits.MAX_WORKBOOK_SECONDS
    report = _Report()
    with path.open("rb") as handle:
        book = _open_workbook(path, handle)
        try:
            survey_sheet = read_sheet(book, "survey", deadline)
            if survey_sheet is None:
                raise XLSFormError(str(path), [CellProblem("survey", None, None, "the workbook has no survey sheet")])
            lists = _choice_lists(report, read_sheet(book, "choices", deadline))
            settings = _settings(report, read_sheet(book, "settings", deadline))
        except _Refused as refused:
            raise XLSFormError(str(path), [refused.problem]) from None
        except ParseError as error:  # XML that is malformed, or whose entities expand past expat's own limit
            raise _not_a_workbook(path, error) from None
        finally:
            book.close()
    return report, survey_sheet, lists, settings


def import_workbook(path: str | Path) -> ImportedSurvey:
    """Read an XLSForm workbook and check it as a survey file; :class:`XLSFormError` lists every problem."""
    path = Path(path)
    report, survey_sheet, lists, settings = _read_sheets(path)
    label_column = _language_columns(report, survey_sheet, "label")
    hint_column = _language_columns(report, survey_sheet, "hint")
    languages = (c for c in survey_sheet.columns if c.startswith(("label::", "hint::", "design::")))
    _unknown_columns(report, survey_sheet, (*SURVEY_COLUMNS, *languages))
    questions, rows_by_question = [], {}
    for number, cells in survey_sheet.rows:
        entry = _question(report, survey_sheet, number, cells, lists, label_column, hint_column)
        if entry is not None:
            questions.append(entry)
            rows_by_question.setdefault(entry["name"] or f"#{len(questions)}", []).append(number)
            rows_by_question.setdefault(f"#{len(questions)}", []).append(number)
    if not settings.get("id"):
        report.add("settings", 2, "form_id", "the survey needs an id: a form_id in the settings sheet")
    languages = [code for code in label_column if code]
    if len(languages) > 1:
        default = _default_language(settings.pop("default_language", ""), languages)
        settings["languages"] = [default, *(code for code in languages if code != default)]
    mapping = {**settings, "questions": questions}
    if report.problems:
        raise XLSFormError(str(path), report.problems)
    try:
        survey = parse_survey(mapping, path.name)
    except SurveyFileError as error:
        problems = [
            CellProblem(*_cell_of(problem, rows_by_question, survey_sheet), problem.message)
            for problem in error.problems
        ]
        raise XLSFormError(str(path), problems) from None
    imported = ImportedSurvey(mapping, survey)
    size = len(imported.yaml_text().encode("utf-8"))
    if size > limits.MAX_SURVEY_FILE_BYTES:
        message = f"the survey file would be {size:,} bytes; " + limits.limit_text(
            "MAX_SURVEY_FILE_BYTES", limits.MAX_SURVEY_FILE_BYTES, " bytes"
        )
        raise XLSFormError(str(path), [CellProblem(path.name, None, None, message)])
    return imported
