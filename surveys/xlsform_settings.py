"""The ``settings`` and ``targets`` sheets of an XLSForm workbook, read as a survey file's survey-level keys.

``settings`` has one row of values: ``form_id`` (the survey's ``id``), ``form_title`` (its ``title``),
``default_language``, and every other survey-level key of a survey file by its own name; the texts shown to a
respondent (``form_title``, ``intro``, ``organizer``, ``contact``, ``ethics_approval``, ``closing``) may have one
``KEY::Language (code)`` column per language. The ``releases`` mapping is four columns
(:data:`RELEASE_COLUMNS`: ``releases::epsilon``, ``releases::delta``, ``releases::rows_per_person``,
``releases::min_new_answers``). The ``population_counts`` margins are one column per answer,
``population_counts::BY::ANSWER`` (:data:`POPULATION_PREFIX`), holding its population count: the margins in the
order their first column comes. ``targets`` has one row per target, in the survey file's keys
(``question``, ``margin``, ``confidence_level``, ``by``, ``groups``: two answers separated by a comma).
"""

from __future__ import annotations

from datetime import datetime

from surveys.schema import SURVEY_KEYS, TARGET_KEYS
from surveys.xlsform_cells import (
    Report,
    Sheet,
    cell_text,
    flag,
    is_given,
    language_columns,
    probability_cell,
    text_in_languages,
    unknown_columns,
)

#: Settings columns renamed to the survey file's keys.
SETTINGS_RENAMED = {"form_id": "id", "form_title": "title"}
SETTINGS_KEYS = (
    frozenset(SURVEY_KEYS) - {"questions", "id", "title", "languages", "targets", "releases", "population_counts"}
) | {"default_language"}
#: The ``releases`` mapping's columns, each with its place in the mapping (a cell holds one value, not a mapping).
RELEASE_COLUMNS = {
    "releases::epsilon": ("budget", "epsilon"),
    "releases::delta": ("budget", "delta"),
    "releases::rows_per_person": ("rows_per_person",),
    "releases::min_new_answers": ("min_new_answers",),
}
#: The base of the ``population_counts`` columns: ``population_counts::faculty::arts`` holds the population count of
#: the answer ``arts`` to the plain question ``faculty`` (a plain number's answers are its bins' keys).
POPULATION_PREFIX = "population_counts"
#: Settings that may be written in several languages (``intro::French (fr)``).
TEXT_SETTINGS = ("form_title", "intro", "organizer", "contact", "ethics_approval", "closing")
#: Settings that are probabilities (read as the design columns are: a date Excel made of ``1/5`` is reported).
SHARE_SETTINGS = frozenset({"group_1_share", "direct_share"})
FLAG_SETTINGS = frozenset({"closed", "invitation_only", "close_when_targets_met"})
WHOLE_NUMBER_SETTINGS = frozenset(
    {"version", "max_responses_per_address_per_hour", "burst_ceiling_per_hour", "population_size"}
)
#: XLSForm settings this app does not read, each with what it would do.
OTHER_SETTINGS = {
    "instance_name": "it names each response after its answers, and this app never labels a response",
    "submission_url": "it sends the answers to an ODK server; answers are sent to this app",
    "public_key": "it encrypts answers for an ODK server; randomized answers are stored here",
    "style": "it sets Enketo's layout; this app draws its own pages",
    "allow_choice_duplicates": "choice names are unique in this app",
}


def _value(report: Report, sheet: Sheet, number: int, column: str, key: str, value: object) -> object:
    """One setting's value as the survey file writes it; ``None`` when it is empty or reported."""
    if key in SHARE_SETTINGS:
        return probability_cell(report, sheet, number, column, value)
    if key in FLAG_SETTINGS:
        return flag(report, sheet, number, column, value)
    text = cell_text(value)
    if key in WHOLE_NUMBER_SETTINGS:
        return int(text) if text.isdigit() else value
    if isinstance(value, datetime):
        return value.date()
    return text if isinstance(value, str) else value


def _release_value(value: object) -> object:
    """A ``releases::`` cell as the survey file writes it: a whole number as an int, text stripped."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value.strip() if isinstance(value, str) else value


def _population_count(report: Report, sheet: Sheet, number: int, column: str, value: object) -> object:
    """A ``population_counts::BY::ANSWER`` cell: a whole number as an int (text of digits too), anything else as
    written, for the survey file's check to report; a column not of that form is reported here."""
    parts = column.split("::")
    if len(parts) != 3 or not parts[1].strip() or not parts[2].strip():
        message = f"a population count's column is population_counts::QUESTION::ANSWER, got {column!r}"
        report.add(sheet.name, 1, sheet.where(column), message)
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    text = cell_text(value)
    return int(text) if text.isdigit() else value


def _add_population_count(found: dict, column: str, count: object) -> None:
    """``count`` put in the margin of ``population_counts::BY::ANSWER`` (a margin per ``BY``, in column order)."""
    _, by, answer = (part.strip() for part in column.split("::"))
    margins = found.setdefault("population_counts", [])
    margin = next((m for m in margins if m["by"] == by), None)
    if margin is None:
        margin = {"by": by, "counts": {}}
        margins.append(margin)
    margin["counts"][answer] = count


def _put(mapping: dict, path: tuple[str, ...], value: object) -> None:
    """``value`` at ``path`` in ``mapping`` (``("budget", "epsilon")``: ``mapping["budget"]["epsilon"]``)."""
    for key in path[:-1]:
        mapping = mapping.setdefault(key, {})
    mapping[path[-1]] = value


def settings(report: Report, sheet: Sheet | None) -> dict:
    """The survey-level keys of the settings sheet's one row of values."""
    if sheet is None:
        return {}
    known = (*SETTINGS_RENAMED, *sorted(SETTINGS_KEYS), *RELEASE_COLUMNS)
    unknown_columns(report, sheet, known, (*TEXT_SETTINGS, POPULATION_PREFIX), OTHER_SETTINGS)
    texts = {base: language_columns(report, sheet, base) for base in TEXT_SETTINGS}
    if len(sheet.rows) > 1:
        report.add(sheet.name, sheet.rows[1][0], None, "the settings sheet has one row of values")
    if not sheet.rows:
        return {}
    found = {}
    number, cells = sheet.rows[0]
    for column, value in cells.items():
        base = column.split("::")[0]
        if base in TEXT_SETTINGS or not cell_text(value):
            continue
        if column in RELEASE_COLUMNS:
            _put(found.setdefault("releases", {}), RELEASE_COLUMNS[column], _release_value(value))
            continue
        if base == POPULATION_PREFIX:  # a bare population_counts column is reported as unknown
            count = _population_count(report, sheet, number, column, value) if "::" in column else None
            if count is not None:
                _add_population_count(found, column, count)
            continue
        key = SETTINGS_RENAMED.get(column, column)
        value = _value(report, sheet, number, column, key, value)
        if value is not None:
            found[key] = value
    for base, columns in texts.items():
        text = text_in_languages(cells, columns)
        if is_given(text):
            found[SETTINGS_RENAMED.get(base, base)] = text
    return found


def targets(report: Report, sheet: Sheet | None) -> tuple[list[dict], list[int]]:
    """The survey file's ``targets`` list of the targets sheet, and the row of each target."""
    if sheet is None:
        return [], []
    unknown_columns(report, sheet, TARGET_KEYS, (), {})
    found, rows = [], []
    for number, cells in sheet.rows:
        target = {}
        for column in TARGET_KEYS:
            value = cells.get(column)
            if not cell_text(value):
                continue
            if column == "groups":
                value = [part.strip() for part in cell_text(value).split(",")]
            elif isinstance(value, str):
                value = value.strip()
            target[column] = value
        found.append(target)
        rows.append(number)
    return found, rows
