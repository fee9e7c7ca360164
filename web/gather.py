"""What the results pages, the exports and the CLI read from storage, handed to the domain.

Each function reads everything one page or export needs from storage (the
results and the responses CSV in one read snapshot, so their figures agree
with each other) and passes the
plain values or iterators to the pure functions of :mod:`surveys.results`
and :mod:`surveys.export`: one trip down to the database and back. The
admin views and the CLI commands call the same functions.
"""

from __future__ import annotations

from collections.abc import Iterator

import sqlite_utils

from storage import connection, queries, responses
from surveys import export
from surveys.breakdowns import Breakdown, compute_breakdown
from surveys.definition import Survey
from surveys.results import Exclusion, SurveyResults, compute_results, subtract_tallies


def _exclusion(db: sqlite_utils.Database, survey: Survey) -> Exclusion:
    days = responses.excluded_days(db, survey.id)
    return Exclusion(tuple(day for day, _ in days), sum(count for _, count in days))


def stored_results(
    db: sqlite_utils.Database, survey: Survey, confidence_level: float = 0.95, method: str = "wilson"
) -> SurveyResults:
    """:func:`~surveys.results.compute_results` over the survey's running tallies in ``db``, minus the excluded days.

    The excluded days' tallies are counted from their own responses by index
    (:func:`storage.queries.tallies_on_days`), in one snapshot with the
    running tallies; with no day excluded nothing is counted.
    """
    with connection.read_snapshot(db):
        excluded = _exclusion(db, survey)
        tallies = queries.tallies(db, survey.id)
        if excluded.days:
            tallies = subtract_tallies(tallies, queries.tallies_on_days(db, survey.id, list(excluded.days)))
        response_count = queries.response_count(db, survey.id) - excluded.response_count
    return compute_results(
        survey, tallies, response_count, confidence_level=confidence_level, method=method, excluded=excluded,
    )


def stored_breakdown(
    db: sqlite_utils.Database, survey: Survey, by: str, confidence_level: float = 0.95, method: str = "wilson"
) -> Breakdown:
    """:func:`~surveys.breakdowns.compute_breakdown` over the running group tallies in ``db``, minus the excluded days."""
    with connection.read_snapshot(db):
        excluded = _exclusion(db, survey)
        grouped = queries.group_tallies(db, survey.id, by)
        if excluded.days:
            removed = queries.group_tallies_on_days(db, survey.id, by, list(excluded.days))
            grouped = {group: subtract_tallies(per_question, removed.get(group, {}))
                       for group, per_question in grouped.items()}
            grouped = {group: per_question for group, per_question in grouped.items() if per_question}
    return compute_breakdown(survey, by, grouped, confidence_level=confidence_level, method=method, excluded=excluded)


def responses_csv(
    db: sqlite_utils.Database, survey: Survey, batch_rows: int = export.CSV_BATCH_ROWS
) -> Iterator[str]:
    """Every stored response of ``survey`` as CSV chunks (:func:`surveys.export.iter_responses_csv`).

    Both parts are read lazily, ``batch_rows`` rows at a time, inside one
    read snapshot, so the file is one consistent copy however long the
    download takes and memory stays constant.
    """
    names = [q.name for q in survey.questions]
    with connection.read_snapshot(db):
        yield from export.iter_responses_csv(
            survey,
            queries.response_line_chunks(db, survey.id, names, batch_rows),
            queries.response_row_batches(db, survey.id, names, batch_rows),
        )


def codebook(db: sqlite_utils.Database, survey: Survey) -> dict:
    """:func:`surveys.export.codebook` with the survey's stored design records and excluded days."""
    return export.codebook(survey, queries.design_records(db, survey.id), responses.excluded_days(db, survey.id))
