"""The rows of an XLSForm workbook's ``survey`` and ``choices`` sheets: each row's type (a question, a group, or a
type this app refuses, with the true reason), each question as a survey file's entry (a number's and a
check-all-that-apply question's own columns read by :mod:`surveys.xlsform_numbers`), and groups as pages.

A group (``begin group`` ... ``end group``, or ``begin_group`` ... ``end_group``) is a page: a survey file's
``{type: page_break}`` is put wherever a group begins or ends between two questions, so the questions before a
group, each group, and the questions after it are pages of their own. A group's ``relevant`` condition is added
to each of its questions' (``(group) and (question)``): the survey file has conditions on questions only.
"""

from __future__ import annotations

from collections.abc import Mapping

from surveys.definition import SELECT_ONE, YES_NO
from surveys.design_contract import DECIMAL, INTEGER, SELECT_MULTIPLE
from surveys.schema_pages import PAGE_BREAK
from surveys.xlsform_cells import (
    Report,
    Sheet,
    cell_text,
    flag,
    is_given,
    language_columns,
    probability_cell,
    text_in_languages,
)
from surveys.xlsform_numbers import number_cells

#: XLSForm's metadata types, each with what it would store next to the answers.
METADATA_TYPES = {
    "start": "the time the form was opened",
    "end": "the time the form was sent",
    "today": "the day of the answer",
    "deviceid": "an identifier of the respondent's device",
    "phonenumber": "the respondent's phone number",
    "username": "the respondent's user name",
    "email": "the respondent's e-mail address",
    "audit": "a log of when each question was answered",
    "simserial": "the identifier of the device's SIM card",
    "subscriberid": "the identifier of the respondent's phone subscription",
    "start-geopoint": "where the respondent was",
    "background-audio": "a recording of the sounds around the respondent",
}
_COLLECTS = {
    ("text", "string"): "collects free text",
    ("range",): "collects a number on a slider: write an integer or decimal question with min, max and step columns",
    ("select_all_that_apply",): "is written select_multiple LIST here",
    ("rank",): "collects an order of the choices",
    ("date", "time", "datetime"): "collects a date or a time",
    ("geopoint", "geotrace", "geoshape"): "collects a place",
    ("image", "audio", "video", "file", "barcode"): "collects a file, a picture or a recording",
    ("acknowledge",): "collects a confirmation, not an answer",
    ("calculate", "hidden"): "keeps a computed value that is not asked",
    ("select_one_from_file", "select_one_external"): "reads its choices from another file: list them in the "
    "choices sheet and use select_one LIST",
}
#: Question types this app does not ask, each with what it would do.
NOT_ASKED = {kind: what for kinds, what in _COLLECTS.items() for kind in kinds}
ASKED = (
    "this app asks only yes_no, select_one LIST, select_multiple LIST, integer and decimal questions, whose answers "
    "can be randomized"
)
#: The types whose row names a choice list, and those that take none (with why).
LISTED_TYPES = (SELECT_ONE, SELECT_MULTIPLE)
UNLISTED_TYPES = {
    YES_NO: "its answers are yes and no",
    INTEGER: "its range goes in the min and max columns",
    DECIMAL: "its range goes in the min, max and step columns",
}
#: An anchor question's known share of true "yes" (:mod:`surveys.schema_anchor`), read as a probability.
KNOWN_PREVALENCE = "known_prevalence"
#: A group row's own columns (besides ``label``, which must be empty, and ``appearance``: see :class:`Layout`).
GROUP_COLUMNS = ("type", "name", "relevant")
#: The one appearance read: a group shown on one page, which every group is here.
FIELD_LIST = "field-list"
BEGIN_GROUP, END_GROUP = "begin_group", "end_group"


def row_kind(cells: Mapping) -> str:
    """``begin_group``, ``end_group``, ``begin_repeat``, ``end_repeat``, or the type's first word, lower-cased."""
    words = cell_text(cells.get("type")).lower().split()
    if not words:
        return ""
    joined = "_".join(words[:2])
    return joined if joined in (BEGIN_GROUP, END_GROUP, "begin_repeat", "end_repeat") else words[0]


def _refusal(kind: str, words: list[str]) -> str:
    """Why a row of type ``words`` is not a question of this app, in words that are true of that type."""
    if kind in METADATA_TYPES:
        return (
            f"metadata type {kind!r} is refused: it would store {METADATA_TYPES[kind]} next to the answers, "
            "which could tell who answered; this app never stores it"
        )
    if kind in ("begin_repeat", "end_repeat"):
        return "a repeat asks its questions several times; this app asks each question once (use a group for a page)"
    if kind == "note":
        return "a note shows text without asking anything; put its text in a question's hint or in the intro setting"
    if kind in LISTED_TYPES and len(words) > 2 and words[2].lower() == "or_other":
        return "or_other adds a free-text answer, which cannot be randomized: remove or_other and list every choice"
    if kind in LISTED_TYPES:
        return f"{kind} takes one choice list, written {kind} LIST, got {' '.join(words)!r}"
    if kind in UNLISTED_TYPES:
        return f"{kind} takes no choice list ({UNLISTED_TYPES[kind]}), got {' '.join(words)!r}"
    if kind in NOT_ASKED:
        return f"type {kind!r} {NOT_ASKED[kind]}; {ASKED}"
    return f"unknown type {kind!r}; {ASKED}"


def question_type(report: Report, sheet: Sheet, number: int, cells, lists) -> tuple[str | None, str | None]:
    """``(survey-file type, choice list name)`` of a question row's ``type`` cell."""
    words = cell_text(cells.get("type")).split()
    where = sheet.where("type")
    if not words:
        message = "every question needs a type: yes_no, select_one LIST, select_multiple LIST, integer or decimal"
        report.add(sheet.name, number, where, message)
        return None, None
    kind = row_kind(cells)
    if kind in UNLISTED_TYPES and len(words) == 1:
        return kind, None
    if kind in LISTED_TYPES and len(words) == 2:
        if words[1] not in lists:
            report.add(sheet.name, number, where, f"choice list {words[1]!r} is not in the choices sheet")
            return None, None
        return kind, words[1]
    report.add(sheet.name, number, where, _refusal(kind, words))
    return None, None


def matrix_rows(value: object) -> object:
    """A ``design::matrix`` cell as the survey file's list of rows: rows separated by ``;``, entries by ``,``
    (``3/4, 1/3; 1/4, 2/3`` is ``[[3/4, 1/3], [1/4, 2/3]]``). A cell that is not text is left to the survey
    file's check, which names it."""
    if not isinstance(value, str):
        return value
    return [[entry.strip() for entry in row.split(",")] for row in value.split(";")]


def choice_lists(report: Report, sheet: Sheet | None) -> dict[str, list[tuple[int, dict]]]:
    """``{list name: [(row, {name, label}), ...]}`` of the choices sheet (an empty label: the name)."""
    if sheet is None:
        return {}
    label = language_columns(report, sheet, "label")
    lists: dict[str, list[tuple[int, dict]]] = {}
    for number, cells in sheet.rows:
        list_name = cell_text(cells.get("list_name"))
        name = cell_text(cells.get("name"))
        if not list_name:
            report.add(sheet.name, number, sheet.where("list_name"), "every choice needs a list_name")
            continue
        if not name:
            report.add(sheet.name, number, sheet.where("name"), "every choice needs a name")
            continue
        text = text_in_languages(cells, label)
        if isinstance(text, dict):
            text = {code: value or name for code, value in text.items()}
        lists.setdefault(list_name, []).append((number, {"name": name, "label": text or name}))
    return lists


#: The column of an extended crosswise question's group 2 statement (``design.extended.innocuous`` in a file).
EXTENDED_INNOCUOUS = "design::extended::innocuous"


def text_columns(report: Report, sheet: Sheet) -> dict[str, dict[str, str]]:
    """The language columns of each text of a question: ``label``, ``hint``, ``design::innocuous`` and an extended
    crosswise question's group 2 statement ``design::extended::innocuous``."""
    bases = ("label", "hint", "design::innocuous", EXTENDED_INNOCUOUS)
    return {base: language_columns(report, sheet, base) for base in bases}


def _design(report: Report, sheet: Sheet, number: int, cells, texts) -> dict:
    design = {}
    for column in sheet.columns:
        if not column.startswith("design::") or column.startswith(("design::innocuous", EXTENDED_INNOCUOUS)):
            continue
        value = probability_cell(report, sheet, number, column, cells.get(column))
        if value is not None:
            key = column.removeprefix("design::")
            design[key] = matrix_rows(value) if key == "matrix" else value
    innocuous = text_in_languages(cells, texts["design::innocuous"])
    if is_given(innocuous):
        design["innocuous"] = innocuous
    second = text_in_languages(cells, texts[EXTENDED_INNOCUOUS])
    if is_given(second):
        design["extended"] = {"innocuous": second}  # surveys/schema_extended_crosswise.py
    return design


def question(report: Report, sheet: Sheet, number: int, cells, lists, texts) -> dict | None:
    """A question row as a survey file's question entry; ``None`` when its type is refused (reported)."""
    qtype, list_name = question_type(report, sheet, number, cells, lists)
    entry: dict = {"name": cell_text(cells.get("name")), "type": qtype}
    entry["label"] = text_in_languages(cells, texts["label"])
    hint = text_in_languages(cells, texts["hint"])
    if is_given(hint):
        entry["hint"] = hint
    relevant = cell_text(cells.get("relevant"))
    if relevant:
        entry["relevant"] = relevant
    if cell_text(cells.get("appearance")):
        message = (
            f"a question's appearance is not read: this app draws every question alike; leave it empty "
            f"(on a group, {FIELD_LIST} is read)"
        )
        report.add(sheet.name, number, sheet.where("appearance"), message)
    for column in ("required", "randomize"):
        value = flag(report, sheet, number, column, cells.get(column))
        if value is not None:
            entry[column] = value
    if list_name is not None:
        choices = [choice for _, choice in lists[list_name]]
        if qtype != SELECT_MULTIPLE and sorted(c["name"] for c in choices) == ["no", "yes"]:
            entry["type"] = YES_NO
        else:
            entry["choices"] = choices
    entry |= number_cells(report, sheet, number, cells, qtype)
    known = probability_cell(report, sheet, number, KNOWN_PREVALENCE, cells.get(KNOWN_PREVALENCE))
    if known is not None:
        entry[KNOWN_PREVALENCE] = known
    design = _design(report, sheet, number, cells, texts)
    if design:
        entry["design"] = design
    return entry if qtype is not None else None


class Layout:
    """The survey file's ``questions`` list built row by row: questions, and a page break wherever a group
    begins or ends between two questions (groups do not nest: a page is one level)."""

    def __init__(self, report: Report, sheet: Sheet):
        self.report, self.sheet = report, sheet
        self.entries: list[dict] = []
        self.on_page = 0  # questions on the current page
        self.group: tuple[int, str] | None = None  # the open group's row and condition
        self.in_group = 0  # rows of any kind inside the open group
        self.pending = False  # a page break is due before the next question

    def group_row(self, number: int, cells: Mapping, kind: str) -> None:
        """A ``begin group`` or ``end group`` row."""
        self._check_group_cells(number, cells)
        where = self.sheet.where("type")
        if kind == BEGIN_GROUP:
            if self.group is not None:
                message = "a group inside a group: pages do not nest; end the first group before this one begins"
                self.report.add(self.sheet.name, number, where, message)
            self.group, self.in_group = (number, cell_text(cells.get("relevant"))), 0
        elif self.group is None:
            self.report.add(self.sheet.name, number, where, "an end group with no begin group above it")
        else:
            if self.in_group == 0:
                message = "this group has no question, and a page needs one: put questions in it or remove it"
                self.report.add(self.sheet.name, self.group[0], where, message)
            self.group = None
        self.pending = self.pending or self.on_page > 0

    def _check_group_cells(self, number: int, cells: Mapping) -> None:
        for column, value in cells.items():
            if column in GROUP_COLUMNS or not cell_text(value):
                continue
            if column == "appearance":
                if cell_text(value).lower() != FIELD_LIST:
                    message = f"a group's appearance can only be {FIELD_LIST} (every group is one page here)"
                    self.report.add(self.sheet.name, number, self.sheet.where(column), message)
                continue
            if column.split("::")[0] == "label":
                message = (
                    "a group's label is not shown: this app's pages have no title; leave it empty "
                    "(what it says can go in the hint of the group's first question)"
                )
            else:
                message = f"a group row takes only a type, a name and a relevant condition, not {column}"
            self.report.add(self.sheet.name, number, self.sheet.where(column), message)

    def other_row(self) -> None:
        """A row of the open group that is not a question (refused, and reported by itself)."""
        self.in_group += 1

    def add(self, entry: dict) -> int:
        """Append a question (after a page break if one is due); its position in ``questions``, from 1."""
        self.in_group += 1
        if self.pending:
            self.entries.append({"type": PAGE_BREAK})
            self.pending, self.on_page = False, 0
        if self.group is not None and self.group[1]:
            own = entry.get("relevant")
            entry["relevant"] = f"({self.group[1]}) and ({own})" if own else self.group[1]
        self.entries.append(entry)
        self.on_page += 1
        return len(self.entries)

    def finish(self) -> list[dict]:
        """The questions list; a group still open at the end is reported at its ``begin group`` row."""
        if self.group is not None:
            message = "this group is never ended: add an end group row after its last question"
            self.report.add(self.sheet.name, self.group[0], self.sheet.where("type"), message)
        return self.entries
