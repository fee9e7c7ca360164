"""Days left out of the estimates by an admin (the responses stay stored): the ``excluded_days`` table, and the
check of a day as responses are stored with it (``YYYY-MM-DD``)."""

from __future__ import annotations

import re
from datetime import date

import sqlite_utils

from storage.connection import immediate_transaction


def check_day(day: str) -> str:
    """``day`` if it is an ISO date ``YYYY-MM-DD``, the form responses are stored with."""
    try:
        if isinstance(day, str) and _ISO_DAY.fullmatch(day):
            date.fromisoformat(day)  # ValueError for 2026-02-30
            return day
    except ValueError:
        pass
    raise ValueError(f"day must be a date written YYYY-MM-DD, got {day!r}")


_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def exclude_day(db: sqlite_utils.Database, survey_id: str, day: str) -> bool:
    """Leave ``day``'s responses out of the estimates; False if it was excluded already."""
    with immediate_transaction(db):
        cursor = db.execute(
            "INSERT INTO excluded_days (survey_id, day) VALUES (?, ?) ON CONFLICT (survey_id, day) DO NOTHING",
            [survey_id, check_day(day)],
        )
    return cursor.rowcount == 1


def include_day(db: sqlite_utils.Database, survey_id: str, day: str) -> bool:
    """Count ``day``'s responses in the estimates again; False if it was not excluded."""
    with immediate_transaction(db):
        cursor = db.execute("DELETE FROM excluded_days WHERE survey_id = ? AND day = ?", [survey_id, check_day(day)])
    return cursor.rowcount == 1


def excluded_days(db: sqlite_utils.Database, survey_id: str) -> list[tuple[str, int]]:
    """``(day, responses stored that day)`` for every excluded day of the survey, in order."""
    return [
        (day, count)
        for day, count in db.execute(
            "SELECT e.day, COALESCE(d.count, 0) FROM excluded_days AS e"
            " LEFT JOIN daily_counts AS d ON d.survey_id = e.survey_id AND d.day = e.day"
            " WHERE e.survey_id = ? ORDER BY e.day",
            [survey_id],
        ).fetchall()
    ]
