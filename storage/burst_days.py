"""The read side of a survey's arrivals: its hour histogram (how many clock hours had 1, 2, 3, ... responses,
kept by the write path :mod:`storage.responses`) as a burst rule reads it, and the days with a flagged burst,
with the admin's choice to set a burst's answers aside. Knows nothing of Flask.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlite_utils

from storage.connection import immediate_transaction
from storage.day_exclusions import check_day
from storage.responses import Arrivals, counted_in

#: The survey's active hours, in order of their counts.
ACTIVE_HOURS = " FROM hour_histograms WHERE survey_id = ? AND hours > 0 ORDER BY responses"


def hour_histogram(db: sqlite_utils.Database, survey_id: str) -> list[tuple[int, int]]:
    """``(responses in a clock hour, number of such hours)`` for the survey's active hours."""
    return [
        (responses, hours)
        for responses, hours in db.execute(
            "SELECT responses, hours" + ACTIVE_HOURS,
            [survey_id],
        ).fetchall()
    ]


#: The survey's active hours and, read in the same statement, the hour's committed count (PostgreSQL).
HISTOGRAM_AND_HOUR = (
    'SELECT responses, hours, (SELECT count FROM window_hits WHERE bucket = ? AND "window" = ?)' + ACTIVE_HOURS
)


def judged_hour_histogram(
    db: sqlite_utils.Database, survey_id: str, arrivals: Arrivals | int | None, hour_count: int
) -> tuple[list[tuple[int, int]], int]:
    """:func:`hour_histogram`, and the count at which it holds the hour being judged (an answer arriving at
    ``hour_count``, before the store moves its hour up), so that a burst rule can leave that hour out.

    Where the arrivals are counted in this database (PostgreSQL: ``arrivals.conn is db``), that count is
    the hour's arrivals committed so far, read in the same statement as the histogram: the answer's own
    count was read at the start of its transaction without a lock, and answers committed since then have
    moved the hour's entry past ``hour_count - 1``. Elsewhere it is ``hour_count - 1``: on SQLite the
    transaction holds the write lock from the count to the store, so no other answer moves the hour."""
    if not counted_in(db, arrivals):
        return hour_histogram(db, survey_id), hour_count - 1
    rows = db.execute(HISTOGRAM_AND_HOUR, [arrivals.bucket, arrivals.hour, survey_id]).fetchall()
    committed = rows[0][2] if rows and rows[0][2] is not None else 0
    return [(responses, hours) for responses, hours, _ in rows], committed


@dataclass(frozen=True)
class BurstDay:
    """A day with a flagged burst: ``peak``, the most responses in one of its hours; ``usual_rate``, the
    rate it was judged against (None: flagged by the survey's ceiling with no other hour to learn one
    from); ``marked``, the answers that arrived while it was flagged; ``set_aside``, whether an admin
    left those out of the estimates."""

    day: str
    peak: int
    usual_rate: float | None
    marked: int
    set_aside: bool


def bursts(db: sqlite_utils.Database, survey_id: str) -> list[BurstDay]:
    """Each day of the survey with a burst, in order."""
    return [
        BurstDay(day, peak, usual, marked, bool(set_aside))
        for day, peak, usual, marked, set_aside in db.execute(
            "SELECT day, peak, usual_rate, marked, set_aside FROM bursts WHERE survey_id = ? ORDER BY day", [survey_id]
        ).fetchall()
    ]


def set_burst_aside(db: sqlite_utils.Database, survey_id: str, day: str, aside: bool) -> bool:
    """Leave the answers marked during ``day``'s burst out of the estimates (``aside``) or count them
    again; False if the day has no burst or was so already. The answers stay stored and exported."""
    with immediate_transaction(db):
        cursor = db.execute(
            "UPDATE bursts SET set_aside = ? WHERE survey_id = ? AND day = ? AND set_aside <> ? AND marked > 0",
            [int(aside), survey_id, check_day(day), int(aside)],
        )
    return cursor.rowcount == 1
