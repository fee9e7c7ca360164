"""XLSForm workbooks written by the tests (openpyxl): from rows, or from a survey file's mapping.

:func:`workbook_of_survey_file` writes the workbook a researcher would write for a survey file
(docs/survey-files.md, "From an XLSForm workbook"): its pages as groups, its texts in
``KEY::Language (code)`` columns, its designs in ``design::KEY`` columns, its settings and its targets;
so that a survey file and its workbook can be compared as the survey each defines.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import openpyxl

#: Language names for the ``label::French (fr)`` columns (any other code is written ``label::xx (xx)``).
LANGUAGE_NAMES = {"en": "English", "fr": "Français", "es": "Español"}
#: Survey-level texts that may be given per language, by their settings column.
TEXT_SETTINGS = {"title": "form_title", "intro": "intro", "organizer": "organizer", "contact": "contact"}
TEXT_SETTINGS |= {"ethics_approval": "ethics_approval", "closing": "closing"}


def workbook(path: Path, sheets: Mapping[str, list[list] | None]) -> Path:
    """A workbook with one sheet per entry of ``sheets`` (rows as lists, the header first; ``None``: no sheet)."""
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        if rows is None:
            continue
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(row)
    book.save(path)
    return path


def _language_column(base: str, code: str) -> str:
    return f"{base}::{LANGUAGE_NAMES.get(code, code)} ({code})"


def _texts(base: str, value: object, languages: list[str]) -> dict:
    """``{column: text}`` of one text: ``{base: text}`` in one language, else one column per language (a plain
    text, the same in every language, written in each)."""
    if not languages:
        return {base: value}
    return {
        _language_column(base, code): value.get(code, "") if isinstance(value, Mapping) else value for code in languages
    }


def _matrix_cell(rows: list[list]) -> str:
    return "; ".join(", ".join(str(entry) for entry in row) for row in rows)


def _design_cells(design: Mapping, languages: list[str]) -> dict:
    cells = {}
    for key, value in design.items():
        if key == "innocuous":
            cells |= _texts("design::innocuous", value, languages)
        elif key == "extended":
            cells |= _texts("design::extended::innocuous", value["innocuous"], languages)
        else:
            cells[f"design::{key}"] = _matrix_cell(value) if key == "matrix" else value
    return cells


def _flag(value: object) -> object:
    return {True: "yes", False: "no"}.get(value, value) if isinstance(value, bool) else value


#: A number's and a check-all-that-apply question's keys, each written in the column of its name.
NUMBER_KEYS = ("min", "max", "step", "epsilon", "mechanism", "encoding")


def _question_row(entry: Mapping, languages: list[str], choices: list[dict]) -> dict:
    """A question's survey row; a select_one's or select_multiple's choices are appended to ``choices`` (its list
    named after it); a number's keys in their columns, its bins in one cell (``1, 5, 10``)."""
    row = {"type": entry["type"], "name": entry["name"], **_texts("label", entry["label"], languages)}
    if "hint" in entry:
        row |= _texts("hint", entry["hint"], languages)
    row |= {key: entry[key] for key in NUMBER_KEYS if key in entry}
    if "bins" in entry:
        row["bins"] = ", ".join(str(cut) for cut in entry["bins"])
    if entry["type"] in ("select_one", "select_multiple"):
        row["type"] = f"{entry['type']} {entry['name']}"
        for choice in entry["choices"]:
            name, label = (choice["name"], choice["label"]) if isinstance(choice, Mapping) else (choice, choice)
            choices.append({"list_name": entry["name"], "name": str(name), **_texts("label", label, languages)})
    for key in ("relevant", "required", "randomize"):
        if key in entry:
            row[key] = _flag(entry[key])
    if "known_prevalence" in entry:
        row["known_prevalence"] = entry["known_prevalence"]
    return row | _design_cells(entry.get("design") or {}, languages)


def _survey_rows(mapping: Mapping, languages: list[str]) -> tuple[list[dict], list[dict]]:
    """The survey sheet's rows (each page of several a group) and the choices sheet's rows."""
    pages: list[list] = [[]]
    for entry in mapping["questions"]:
        if entry.get("type") == "page_break":
            pages.append([])
        else:
            pages[-1].append(entry)
    rows: list[dict] = []
    choices: list[dict] = []
    for number, page in enumerate(pages, start=1):
        grouped = len(pages) > 1
        if grouped:
            rows.append({"type": "begin group" if number % 2 else "begin_group", "name": f"page_{number}"})
        rows += [_question_row(entry, languages, choices) for entry in page]
        if grouped:
            rows.append({"type": "end group" if number % 2 else "end_group"})
    return rows, choices


def _settings_row(mapping: Mapping, languages: list[str]) -> dict:
    row: dict = {"form_id": mapping["id"]}
    if languages:
        row["default_language"] = _language_column("", languages[0]).removeprefix("::")
    for key, value in mapping.items():
        if key in ("id", "questions", "targets", "languages"):
            continue
        if key in TEXT_SETTINGS:
            row |= _texts(TEXT_SETTINGS[key], value, languages if isinstance(value, Mapping) else [])
        elif key == "releases":
            budget = value.get("budget") or {}
            row |= {f"releases::{name}": budget[name] for name in ("epsilon", "delta") if name in budget}
            row |= {
                f"releases::{name}": value[name] for name in ("rows_per_person", "min_new_answers") if name in value
            }
        elif key == "population_counts":
            margins = [value] if isinstance(value, Mapping) else value
            row |= {
                f"population_counts::{margin['by']}::{answer}": count
                for margin in margins
                for answer, count in margin["counts"].items()
            }
        else:
            row[key] = value
    return row


def _target_row(target: Mapping) -> dict:
    return {key: ", ".join(map(str, value)) if key == "groups" else value for key, value in target.items()}


def _table(rows: list[dict]) -> list[list]:
    """Rows of ``{column: value}`` as a header (every column, in order of appearance) and rows of values."""
    header = list(dict.fromkeys(column for row in rows for column in row))
    return [header, *([row.get(column) for column in header] for row in rows)]


def workbook_of_survey_file(mapping: Mapping, path: Path) -> Path:
    """The XLSForm workbook of a survey file's ``mapping``, written to ``path``."""
    languages = [str(code) for code in mapping.get("languages") or []]
    survey, choices = _survey_rows(mapping, languages)
    targets = [_target_row(target) for target in mapping.get("targets") or []]
    return workbook(
        path,
        {
            "survey": _table(survey),
            "choices": _table(choices) if choices else None,
            "settings": _table([_settings_row(mapping, languages)]),
            "targets": _table(targets) if targets else None,
        },
    )
