"""XLSForm in: an XLSForm workbook turned into a survey file.

Researchers coming from KoboToolbox, ODK or SurveyCTO write forms as XLSForm
workbooks (https://xlsform.org). :func:`import_workbook` reads one and
returns the survey file's mapping (and its YAML text), checked by the same
rules as a survey file (:func:`surveys.schema.parse_survey`). Every problem
is reported at once, each with its sheet, row and column (:class:`CellProblem`).

The sheets and columns read (any other column is reported, not ignored):

``survey``
    ``type``: ``yes_no``, ``integer``, ``decimal``, ``select_one LIST`` or
    ``select_multiple LIST`` with LIST a list of the choices sheet (a
    select_one list whose names are exactly ``yes`` and ``no`` makes a
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
    models; the innocuous statement in several languages is one
    ``design::innocuous::LANGUAGE`` column per language). A misclassification
    matrix is one ``design::matrix`` cell, rows separated by ``;`` and entries
    by ``,`` (:func:`surveys.xlsform_rows.matrix_rows`). Write probabilities as
    decimals or as text fractions: Excel turns a typed ``1/4`` into a date,
    which is reported. ``begin group`` ... ``end group`` rows (or
    ``begin_group`` ... ``end_group``) make pages (:mod:`surveys.xlsform_rows`).
    A number's and a check-all-that-apply question's keys in columns of their
    names: ``min``, ``max``, ``step``, ``bins``, ``epsilon``, ``mechanism``,
    ``encoding``; or its range as XLSForm's ``constraint``, ``. >= MIN and
    . <= MAX`` (:mod:`surveys.xlsform_numbers`). An anchor question's
    ``known_prevalence`` in a column of that name, a probability.
``choices``
    ``list_name``, ``name``, ``label`` (or ``label::LANGUAGE`` columns).
``settings`` (optional)
    ``form_id`` (the survey's ``id``), ``form_title`` (its ``title``),
    ``default_language``, ``version``, and any other survey-level key of a
    survey file by its own name; the respondent's texts in several languages
    as ``KEY::LANGUAGE`` columns (:mod:`surveys.xlsform_settings`); the
    ``releases`` mapping as ``releases::KEY`` columns and ``population_counts``
    as one ``population_counts::QUESTION::ANSWER`` column per answer.
``targets`` (optional)
    one row per target: ``question``, ``margin``, ``confidence_level``,
    ``by``, ``groups`` (two answers separated by a comma).

XLSForm types and columns that do something this app does not do are
refused, each saying what it would do (:mod:`surveys.xlsform_rows`): metadata
(``start``, ``end``, ``today``, ``deviceid``...) would store a time, a device
or a person next to the answers; ``text``, ``range``, notes, repeats... are
not asked by this app.

A workbook is read within the limits of :mod:`surveys.limits`: its size on
disk and uncompressed, and its number of parts, checked in its zip directory
before it is opened; its sheets streamed (openpyxl's read-only mode) up to a
row and a column limit and a deadline. One past a limit is one problem naming it.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from time import monotonic
from xml.etree.ElementTree import ParseError

import yaml

from surveys import limits
from surveys.definition import Survey
from surveys.schema import SurveyFileError, parse_survey
from surveys.xlsform_cells import (
    CellProblem,
    Refused,
    Report,
    Sheet,
    XLSFormError,
    cell_text,
    language_code,
    read_sheet,
    unknown_columns,
)
from surveys.xlsform_numbers import NUMBER_COLUMNS
from surveys.xlsform_rows import BEGIN_GROUP, END_GROUP, Layout, choice_lists, question, row_kind, text_columns
from surveys.xlsform_settings import POPULATION_PREFIX, SETTINGS_RENAMED, settings, targets

__all__ = ["CellProblem", "ImportedSurvey", "XLSFormError", "import_workbook", "read_sheet"]

SURVEY_COLUMNS = (
    "type",
    "name",
    "label",
    "hint",
    "required",
    "randomize",
    "relevant",
    "appearance",
    "known_prevalence",
    *NUMBER_COLUMNS,
)
#: Survey columns written ``BASE::...``: a text in a language, or a key of the design.
PREFIXED_COLUMNS = ("label", "hint", "design")
CHOICE_COLUMNS = ("list_name", "name", "label")
#: XLSForm's survey and choices columns that this app does not read, each with what it would do.
OTHER_COLUMNS = {
    "constraint_message": "a number is chosen from a list of its range's values, so no answer breaks its constraint",
    "required_message": "the form says which answer is missing in its own words",
    "appearance": "it changes how a question is drawn, and this app draws every question alike",
    "default": "it fills in an answer, and a question here starts unanswered",
    "calculation": "it computes a value that is not asked",
    "choice_filter": "it narrows the choices by an earlier answer; every respondent sees the same choices here",
    "read_only": "every question here is answered",
    "repeat_count": "this app has no repeats",
    "media": "this app shows text only",
    "image": "this app shows text only",
    "audio": "this app shows text only",
    "video": "this app shows text only",
    "guidance_hint": "this app shows the hint column only",
    "trigger": "it recomputes a value that is not asked",
    "parameters": "this app's questions take no parameters",
}


@dataclass(frozen=True)
class ImportedSurvey:
    """A workbook read and checked: the survey file's mapping, its YAML text and the survey it defines."""

    mapping: dict
    survey: Survey

    def yaml_text(self) -> str:
        return mapping_yaml(self.mapping)


def mapping_yaml(mapping: dict) -> str:
    """The survey file's text of a workbook's ``mapping``."""
    return yaml.safe_dump(mapping, sort_keys=False, allow_unicode=True, width=100)


def _default_language(setting: object, languages: list[str]) -> str:
    """The settings' ``default_language`` (``French (fr)`` or ``fr``) if one of ``languages``, else the first."""
    code = language_code(cell_text(setting))
    return code if code in languages else languages[0]


def _design_columns(sheet: Sheet) -> str:
    """``G-I (design::t .. design::b)``: where a whole design is written."""
    columns = [c for c in sheet.columns if c.startswith("design::")]
    if not columns:
        return "design::"
    if len(columns) == 1:
        return sheet.where(columns[0])
    return f"{sheet.columns[columns[0]]}-{sheet.columns[columns[-1]]} ({columns[0]} .. {columns[-1]})"


def _column(sheet: Sheet | None, column: str, language: str = "") -> str:
    """Where ``column`` is in ``sheet``: its own letter, else its column in ``language`` (``label::French (fr)``
    for ``label`` in ``fr``), else its first language column's, else its name."""
    if sheet is None:
        return column
    if column in sheet.columns:
        return sheet.where(column)
    translated = [c for c in sheet.columns if c.startswith(column + "::")]
    chosen = [c for c in translated if language_code(c.removeprefix(column + "::").strip()) == language]
    return sheet.where((chosen or translated)[0]) if translated else column


#: A problem of the survey in one of its other languages: ``in fr: ...`` (:func:`surveys.schema.parse_survey`).
_IN_LANGUAGE = re.compile(r"in ([a-z]{2,3}(?:-[A-Z]{2})?): ")


def _language(problem) -> str:
    found = _IN_LANGUAGE.match(problem.message)
    return found.group(1) if found else ""


@dataclass(frozen=True)
class _Places:
    """Where each part of the survey file came from: the rows of each question (by name and by ``#position``),
    the sheets, and the row of each target."""

    rows_by_question: Mapping[str, list[int]]
    survey: Sheet
    settings: Sheet | None
    targets: Sheet | None
    target_rows: list[int]


_LISTED = re.compile(r"(questions|targets)\[(\d+)\]\.?(.*)")
#: A problem of one margin of ``population_counts`` (``population_counts[2].counts.arts``).
_MARGIN = re.compile(r"population_counts\[(\d+)\](?:\.counts\.(.+))?.*")


def _margin_column(settings: Sheet | None, field: str) -> str | None:
    """The settings column of a ``population_counts`` problem: the answer's own column
    (``population_counts::BY::ANSWER``), else the margin's first; None when it is not one."""
    found = _MARGIN.fullmatch(field)
    if settings is None or found is None:
        return None
    columns = [c for c in settings.columns if c.startswith(POPULATION_PREFIX + "::") and c.count("::") == 2]
    margins = list(dict.fromkeys(c.split("::")[1].strip() for c in columns))
    number = int(found.group(1))
    if not 0 < number <= len(margins):
        return None
    own = [c for c in columns if c.split("::")[1].strip() == margins[number - 1]]
    answer = [c for c in own if found.group(2) and c.split("::")[2].strip() == found.group(2)]
    return settings.where((answer or own)[0])


def _survey_level_cell(problem, places: _Places) -> tuple[str, int | None, str | None]:
    """Where a problem of a survey-level key lives: a target's row, a question's row (a text in a language
    the survey does not have), or the settings row."""
    field = problem.field or ""
    listed = _LISTED.fullmatch(field)
    if listed and listed.group(1) == "targets":
        rows = places.target_rows
        number = int(listed.group(2))
        row = rows[number - 1] if 0 < number <= len(rows) else None
        return "targets", row, _column(places.targets, listed.group(3).split(".")[0]) or None
    if listed:
        rows = places.rows_by_question.get(f"#{listed.group(2)}", [None])
        column = listed.group(3).split(".")[0].split("[")[0]
        return places.survey.name, rows[0], _column(places.survey, column, _language(problem))
    margin = _margin_column(places.settings, field)
    if margin is not None:
        return "settings", 2, margin
    if field in ("targets", "languages", "questions"):
        sheet = {"targets": "targets", "languages": places.survey.name, "questions": places.survey.name}[field]
        return sheet, None, None
    column = next((c for c, key in SETTINGS_RENAMED.items() if key == field), field)
    return "settings", 2, _column(places.settings, column, _language(problem)) if field else None


def _design_example(found: re.Match) -> str:
    keys = [pair.split(":")[0].strip() for pair in found.group(2).split(",")]
    return f"design::model {found.group(1)} with " + ", ".join(f"design::{key}" for key in keys)


#: The survey file's examples in a problem's message, in a workbook's words (its columns and cells).
_WORKBOOK_WORDS = (
    (re.compile(r"\{model: (\w+), ([^{}]*)\}"), _design_example),
    (re.compile(r"\{t: 1/2, a: 1/4, b: 1/4\}"), "design::t, design::a and design::b (such as 1/2, 1/4, 1/4)"),
    (re.compile(r"\{t: 1/2\}"), "design::t (such as 1/2)"),
    (
        re.compile(r"\{matrix: \[\[2/3, 1/6, 1/6\], \[1/6, 2/3, 1/6\], \[1/6, 1/6, 2/3\]\]\}"),
        "one design::matrix cell such as 2/3, 1/6, 1/6; 1/6, 2/3, 1/6; 1/6, 1/6, 2/3",
    ),
    (re.compile(r"must be a list of cut points such as \[1, 5, 10\]"), "must be cut points such as 1, 5, 10"),
    (
        re.compile(r"; for a longer label write \{name: a_few_times, label: A few times\}"),
        "; a longer text goes in the label column",
    ),
)


def _in_workbook_words(message: str) -> str:
    """``message`` with each survey-file example (``{model: warner, p: ...}``) written as the workbook's columns."""
    for pattern, words in _WORKBOOK_WORDS:
        message = pattern.sub(words, message)
    return message


def _cell_of(problem, places: _Places) -> tuple[str, int | None, str | None]:
    """Where a survey-file problem (question, field) lives in the workbook.

    A name used twice is reported by the survey-file rules under that name:
    its problem is placed at the name's last row (the repeat)."""
    if problem.question is None:
        return _survey_level_cell(problem, places)
    sheet = places.survey
    rows = places.rows_by_question.get(problem.question, [None])
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
    if column in ("min", "max"):
        return sheet.name, rows[0], _range_column(sheet, rows[0], column)
    return sheet.name, rows[0], _column(sheet, column, _language(problem))


def _range_column(sheet: Sheet, row: int | None, column: str) -> str:
    """Where a number's ``min`` or ``max`` was written: its own column, or the row's ``constraint`` when that cell
    is empty and the range came from the constraint (:mod:`surveys.xlsform_numbers`)."""
    cells = dict(sheet.rows).get(row, {})
    if not cell_text(cells.get(column)) and cell_text(cells.get("constraint")):
        return sheet.where("constraint")
    return _column(sheet, column)


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
    import openpyxl  # here, not at the top: 0.07 s of a core that every worker and command paid at start

    try:
        return openpyxl.load_workbook(handle, read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, OSError, ValueError, ParseError) as error:
        raise _not_a_workbook(path, error) from None


@dataclass(frozen=True)
class _Sheets:
    """A workbook's sheets as read: the survey sheet, the choice lists, the settings and targets (each mapping
    and sheet), and the report of every problem found in reading them."""

    report: Report
    survey: Sheet
    lists: dict
    settings: dict
    settings_sheet: Sheet | None
    targets: list[dict]
    targets_sheet: Sheet | None
    target_rows: list[int]


def _read_sheets(path: Path) -> _Sheets:
    """The workbook's sheets, read within :mod:`surveys.limits`.

    The file is opened and closed here, whatever openpyxl leaves open (a sheet whose XML fails to
    parse keeps its part, and so the file, open)."""
    _check_workbook_size(path)
    deadline = monotonic() + limits.MAX_WORKBOOK_SECONDS
    report = Report()
    with path.open("rb") as handle:
        book = _open_workbook(path, handle)
        try:
            survey_sheet = read_sheet(book, "survey", deadline)
            if survey_sheet is None:
                raise XLSFormError(str(path), [CellProblem("survey", None, None, "the workbook has no survey sheet")])
            choices_sheet = read_sheet(book, "choices", deadline)
            settings_sheet = read_sheet(book, "settings", deadline)
            targets_sheet = read_sheet(book, "targets", deadline)
        except Refused as refused:
            raise XLSFormError(str(path), [refused.problem]) from None
        except ParseError as error:  # XML that is malformed, or whose entities expand past expat's own limit
            raise _not_a_workbook(path, error) from None
        finally:
            book.close()
    if choices_sheet is not None:
        unknown_columns(report, choices_sheet, CHOICE_COLUMNS, ("label",), OTHER_COLUMNS)
    lists = choice_lists(report, choices_sheet)
    found_targets, target_rows = targets(report, targets_sheet)
    found_settings = settings(report, settings_sheet)
    return _Sheets(
        report, survey_sheet, lists, found_settings, settings_sheet, found_targets, targets_sheet, target_rows
    )


def _questions(report: Report, sheet: Sheet, lists: dict) -> tuple[list[dict], dict[str, list[int]], list[str]]:
    """The survey file's ``questions`` (pages from groups), the rows of each question by name and by
    ``#position``, and the languages of the label columns."""
    texts = text_columns(report, sheet)
    unknown_columns(report, sheet, SURVEY_COLUMNS, PREFIXED_COLUMNS, OTHER_COLUMNS)
    layout = Layout(report, sheet)
    rows_by_question: dict[str, list[int]] = {}
    for number, cells in sheet.rows:
        kind = row_kind(cells)
        if kind in (BEGIN_GROUP, END_GROUP):
            layout.group_row(number, cells, kind)
            continue
        entry = question(report, sheet, number, cells, lists, texts)
        if entry is None:
            layout.other_row()
            continue
        position = layout.add(entry)
        rows_by_question.setdefault(entry["name"] or f"#{position}", []).append(number)
        rows_by_question.setdefault(f"#{position}", []).append(number)
    return layout.finish(), rows_by_question, [code for code in texts["label"] if code]


def import_workbook(path: str | Path) -> ImportedSurvey:
    """Read an XLSForm workbook and check it as a survey file; :class:`XLSFormError` lists every problem."""
    path = Path(path)
    read = _read_sheets(path)
    report, survey_settings = read.report, dict(read.settings)
    questions, rows_by_question, languages = _questions(report, read.survey, read.lists)
    if not survey_settings.get("id"):
        report.add("settings", 2, "form_id", "the survey needs an id: a form_id in the settings sheet")
    default = survey_settings.pop("default_language", "")
    if len(languages) > 1:
        default = _default_language(default, languages)
        survey_settings["languages"] = [default, *(code for code in languages if code != default)]
    mapping = {**survey_settings, **({"targets": read.targets} if read.targets else {}), "questions": questions}
    if report.problems:
        raise XLSFormError(str(path), report.problems)
    try:
        survey = parse_survey(mapping, path.name)
    except SurveyFileError as error:
        places = _Places(rows_by_question, read.survey, read.settings_sheet, read.targets_sheet, read.target_rows)
        problems = [
            CellProblem(*_cell_of(problem, places), _in_workbook_words(problem.message)) for problem in error.problems
        ]
        raise XLSFormError(str(path), problems, yaml_text=mapping_yaml(mapping)) from None
    imported = ImportedSurvey(mapping, survey)
    size = len(imported.yaml_text().encode("utf-8"))
    if size > limits.MAX_SURVEY_FILE_BYTES:
        message = f"the survey file would be {size:,} bytes; " + limits.limit_text(
            "MAX_SURVEY_FILE_BYTES", limits.MAX_SURVEY_FILE_BYTES, " bytes"
        )
        raise XLSFormError(str(path), [CellProblem(path.name, None, None, message)])
    return imported
