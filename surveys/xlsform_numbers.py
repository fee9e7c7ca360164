"""The number and check-all-that-apply columns of an XLSForm survey sheet, read into a survey file's keys.

An ``integer`` or ``decimal`` row takes ``min``, ``max``, ``step``, ``bins`` (cut points separated by commas,
semicolons or spaces: ``1, 5, 10``), ``epsilon`` and ``mechanism``; a ``select_multiple LIST`` row takes
``epsilon`` and ``encoding`` (or ``design::p`` and ``design::q``, read with the other ``design::`` columns).
Each cell becomes the survey file's key of the same name (:mod:`surveys.schema_numbers`), so the one check of
a survey file checks both, and a key on a question of another type is refused there, naming its column.

XLSForm's own ``constraint`` gives a number's range when its ``min`` and ``max`` cells are empty, in one form
only: ``. >= MIN and . <= MAX`` (either order). Anything else in a constraint, a constraint on a question that
is not a number, and a constraint that says another range than the ``min`` and ``max`` cells of its row are
each a problem at the constraint's cell.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime, time
from fractions import Fraction

from surveys.design_contract import NUMBER_TYPES
from surveys.xlsform_cells import Report, Sheet, cell_text

#: The survey sheet's columns read into a survey file's key of the same name: numbers, then words.
NUMBER_CELLS = ("min", "max", "step", "epsilon")
WORD_CELLS = ("mechanism", "encoding")
#: Every survey-sheet column of this module.
NUMBER_COLUMNS = (*NUMBER_CELLS, "bins", *WORD_CELLS, "constraint")

_NUMBER = r"-?[0-9]+(?:\.[0-9]+)?"
_BOUND = rf"\.\s*(>=|<=)\s*({_NUMBER})"
#: The one constraint read: ``. >= MIN and . <= MAX``, in either order.
CONSTRAINT_PATTERN = re.compile(rf"\s*{_BOUND}\s+and\s+{_BOUND}\s*")
CONSTRAINT_FORM = ". >= MIN and . <= MAX"
_BIN_SEPARATORS = re.compile(r"[,;\s]+")
_INTEGER_TEXT = re.compile(r"-?[0-9]+")
_DECIMAL_TEXT = re.compile(rf"{_NUMBER}")


def number_of(text: str) -> object:
    """A number written as text, as a survey file's YAML would read it: ``3`` an int, ``0.5`` a float (when the
    float is exactly that decimal, else the text); anything else the text itself, for the survey file's check
    to name."""
    text = text.strip()
    if _INTEGER_TEXT.fullmatch(text):
        return int(text)
    if _DECIMAL_TEXT.fullmatch(text) and Fraction(repr(float(text))) == Fraction(text):
        return float(text)
    return text


def _number_cell(value: object) -> object:
    """A cell as a survey file's number: an Excel number as it is (a whole float as an int), text read by
    :func:`number_of`."""
    if isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int | float):
        return value
    return number_of(cell_text(value))


def bins_of(value: object) -> list | str:
    """A ``bins`` cell as the survey file's list of cut points (``1, 5, 10``, ``1 5 10``, or one number)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return [_number_cell(value)]
    text = cell_text(value)
    cuts = [number_of(part) for part in _BIN_SEPARATORS.split(text) if part]
    return cuts or text  # separators alone: the text, which the survey file's check names


def constraint_range(text: str) -> tuple[object, object]:
    """``(min, max)`` of a constraint ``. >= MIN and . <= MAX`` (either order); ValueError naming it otherwise."""
    found = CONSTRAINT_PATTERN.fullmatch(text)
    if not found or found.group(1) == found.group(3):
        raise ValueError(
            f"this app reads a constraint only as {CONSTRAINT_FORM} (the number's range), got {text!r}; "
            "write the range so, or in the min and max columns"
        )
    bounds = {found.group(1): found.group(2), found.group(3): found.group(4)}
    return number_of(bounds[">="]), number_of(bounds["<="])


def _problem_if_date(report: Report, sheet: Sheet, number: int, column: str, value: object) -> bool:
    if isinstance(value, datetime | date | time):
        message = "Excel read this number as a date; format the column as text, or write a plain number"
        report.add(sheet.name, number, sheet.where(column), message)
        return True
    return False


def number_cells(report: Report, sheet: Sheet, number: int, cells: Mapping, qtype: str | None) -> dict:
    """The survey file's number and check-all-that-apply keys of a question row (those whose cell is written)."""
    keys: dict = {}
    for column in (*NUMBER_CELLS, "bins", *WORD_CELLS):
        value = cells.get(column)
        if not cell_text(value) or _problem_if_date(report, sheet, number, column, value):
            continue
        if column == "bins":
            keys[column] = bins_of(value)
        else:
            keys[column] = cell_text(value) if column in WORD_CELLS else _number_cell(value)
    constraint = cell_text(cells.get("constraint"))
    if constraint and qtype is not None:
        _read_constraint(report, sheet, number, constraint, qtype, keys)
    return keys


def _read_constraint(report: Report, sheet: Sheet, number: int, text: str, qtype: str, keys: dict) -> None:
    """The range of a constraint put in ``keys`` (min and max empty), or its problem at the constraint's cell."""
    where = sheet.where("constraint")
    if qtype not in NUMBER_TYPES:
        message = (
            f"a constraint is read only on an integer or decimal question, as {CONSTRAINT_FORM}; a {qtype} "
            "answer is always among its choices"
        )
        report.add(sheet.name, number, where, message)
        return
    try:
        low, high = constraint_range(text)
    except ValueError as error:
        report.add(sheet.name, number, where, str(error))
        return
    given = {key: keys[key] for key in ("min", "max") if key in keys}
    if not given:
        keys["min"], keys["max"] = low, high
        return
    said = {"min": low, "max": high}
    if any(_differs(value, said[key]) for key, value in given.items()):
        written = ", ".join(f"{key} {value}" for key, value in given.items())
        message = f"the constraint says the range is {low} to {high}, but the row says {written}; keep one of them"
        report.add(sheet.name, number, where, message)
    else:
        keys["min"], keys["max"] = given.get("min", low), given.get("max", high)


def _differs(cell: object, bound: object) -> bool:
    """Whether a min or max cell is not the constraint's bound (a cell that is no number is left to the survey
    file's check, which names its column)."""
    try:
        return Fraction(str(cell)) != Fraction(str(bound))
    except (ValueError, ZeroDivisionError):
        return False
