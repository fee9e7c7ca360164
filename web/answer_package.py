"""The noisy-answer package read from storage: the responses CSV streamed in one read snapshot, the SPSS and
Stata files made from it, and the codebook with the stored design records (:mod:`surveys.noisy_answers`,
:mod:`surveys.stats_files`). One function per export, as :mod:`web.gather` has for the estimates."""

from __future__ import annotations

from collections.abc import Iterator

import sqlite_utils

from storage import connection, day_exclusions, export_rows, queries
from surveys import export, stats_files
from surveys.definition import Survey


def responses_csv(db: sqlite_utils.Database, survey: Survey, batch_rows: int = export.CSV_BATCH_ROWS) -> Iterator[str]:
    """Every stored response of ``survey`` as CSV chunks (:func:`surveys.export.iter_responses_csv`).

    Both parts are read lazily, ``batch_rows`` rows at a time, inside one
    read snapshot, so the file is one consistent copy however long the
    download takes and memory stays constant.
    """
    names = [q.name for q in survey.questions]
    with connection.read_snapshot(db):
        yield from export.iter_responses_csv(
            survey,
            export_rows.response_line_chunks(db, survey.id, names, batch_rows),
            export_rows.response_row_batches(db, survey.id, names, batch_rows),
            queries.design_records(db, survey.id),
        )


def statistics_file(db: sqlite_utils.Database, survey: Survey, fmt: str) -> bytes:
    """The responses as a labelled SPSS (``"sav"``) or Stata (``"dta"``) file (:mod:`surveys.stats_files`)."""
    return stats_files.write_statistics_file(survey, responses_csv(db, survey), fmt)


def codebook(db: sqlite_utils.Database, survey: Survey) -> dict:
    """:func:`surveys.export.codebook` with the survey's stored design records and excluded days."""
    with connection.read_snapshot(db):
        records = queries.design_records(db, survey.id)
        excluded = day_exclusions.excluded_days(db, survey.id)
    return export.codebook(survey, records, excluded)
