"""Where the responses CSV's time goes: reading, JSON extraction and CSV writing, apart.

Each line reads the same rows in the same order (``WHERE survey_id = ?
ORDER BY id``) with plain SQL, independent of how the export is currently
written, and discards them:

* the stored columns and the raw answers JSON, no extraction (the floor of
  any read);
* one ``json_extract`` per question (answers taken from the JSON by SQLite);
* one multi-path ``json_extract`` per row (one JSON parse per row);
* ``csv.writer`` alone, over rows already fetched and extracted;
* each line joined by SQLite from stored text and joined into chunks in
  Python: from the stored ``answer_line`` when the schema has one, otherwise
  from the raw JSON as a stand-in for such a column (a prototype).
"""

from __future__ import annotations

import csv
import io
import time
from pathlib import Path

from storage import connection
from surveys.definition import Survey

FETCH = 1000
CSV_SAMPLE_ROWS = 200_000
STORED_FIELDS = "id, survey_version, design_id, randomized_on, day"
JOINED_FIELDS = "id || ',' || survey_version || ',' || design_id || ',' || randomized_on || ',' || day"


def _drain(cursor, per_batch=None) -> int:
    rows = 0
    while batch := cursor.fetchmany(FETCH):
        if per_batch is not None:
            per_batch(batch)
        rows += len(batch)
    return rows


def _rate(function) -> float:
    start = time.perf_counter()
    rows = function()
    return rows / (time.perf_counter() - start)


def _csv_only(rows: list[tuple]) -> int:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for start in range(0, len(rows), FETCH):
        writer.writerows(rows[start : start + FETCH])
        buffer.getvalue()
        buffer.seek(0)
        buffer.truncate(0)
    return len(rows)


def _join_lines(batch) -> str:
    return "\r\n".join([row[0] for row in batch])


def breakdown(database: Path, survey: Survey) -> list[tuple[str, float]]:
    """``(what, rows per second)`` for each piece."""
    names = [q.name for q in survey.questions]
    db = connection.connect(database)
    conn, where = db.conn, " FROM responses WHERE survey_id = ? ORDER BY id"
    one_each = "".join(", json_extract(answers, '$.' || ?)" for _ in names)
    multi = f", json_extract(answers, {', '.join('?' for _ in names)})"
    paths = [f"$.{name}" for name in names]
    has_line = "answer_line" in {row[1] for row in conn.execute("PRAGMA table_info(responses)")}
    line_source, line_label = ("answer_line", "stored answer_line") if has_line else ("answers", "raw JSON, prototype")

    def query(sql: str, params: list):
        return lambda: conn.execute(sql, params)

    extract_each = query(f"SELECT {STORED_FIELDS}{one_each}" + where, [*names, survey.id])
    try:
        sample = extract_each().fetchmany(CSV_SAMPLE_ROWS)
        return [
            (
                "stored columns + raw answers JSON, fetched, no extraction",
                _rate(lambda: _drain(conn.execute(f"SELECT {STORED_FIELDS}, answers" + where, [survey.id]))),
            ),
            ("json_extract per question, fetched, no CSV", _rate(lambda: _drain(extract_each()))),
            (
                "one multi-path json_extract per row, fetched",
                _rate(lambda: _drain(conn.execute(f"SELECT {STORED_FIELDS}{multi}" + where, [*paths, survey.id]))),
            ),
            (f"csv.writer alone ({len(sample):,} rows already fetched)", _rate(lambda: _csv_only(sample))),
            (
                f"lines joined by SQLite ({line_label}), chunks joined in Python",
                _rate(
                    lambda: _drain(
                        conn.execute(f"SELECT {JOINED_FIELDS} || ',' || {line_source}" + where, [survey.id]),
                        _join_lines,
                    )
                ),
            ),
        ]
    finally:
        db.close()
