"""The cursors the exports stream the stored responses from: ready CSV lines (SQLite joins them; PostgreSQL's
``COPY ... TO STDOUT``) and the other rows, in batches.

Takes a :class:`sqlite_utils.Database`; knows nothing of Flask. Read inside
:func:`storage.connection.read_snapshot` for one consistent copy.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import sqlite_utils

from storage import postgres
from storage.connection import dialect, is_postgres, streaming_cursor
from surveys.design_contract import check_question_name

#: One ready CSV line per response, from its stored fields and answer line.
_READY_LINE = (
    "id || ',' || survey_version || ',' || design_id || ',' || randomized_on || ',' || arm || ',' || day"
    " || ',' || answer_line"
)
#: Responses whose stored ``answer_line`` is in the order of the given columns.
_LINE_READY = "answer_line IS NOT NULL AND design_id IN (SELECT id FROM designs WHERE survey_id = ? AND columns = ?)"


def response_line_chunks(
    db: sqlite_utils.Database, survey_id: str, question_names: list[str], batch_rows: int
) -> Iterator[str]:
    """Ready CSV text, ``batch_rows`` lines a chunk, for the responses stored
    with exactly these question columns.

    SQLite joins each row's stored fields and answer line, and the lines of a
    whole batch, so Python handles one string per batch, not per row. Batches
    follow the (survey_id, id) index by keyset (``id > last``); within a
    batch the order is SQLite's. Run it inside :func:`storage.connection.read_snapshot` for one
    consistent copy.
    """
    if is_postgres(db):
        yield from _copied_line_chunks(db, survey_id, question_names, batch_rows)
        return
    spelling = dialect(db)
    sql = (
        f"SELECT {spelling.join_lines}, max(id) FROM ("
        f" SELECT id, {_READY_LINE} AS line FROM responses"
        + spelling.indexed_by.format(index="responses_survey")  # (survey_id, id)
        + " WHERE survey_id = ? AND id > ? AND "
        + _LINE_READY
        + " ORDER BY id LIMIT ?) AS batch"
    )
    order, last = json.dumps(list(question_names)), ""
    while True:
        text, last = db.execute(sql, [survey_id, last, survey_id, order, batch_rows]).fetchone()
        if text is None:
            return
        yield text + "\r\n"


#: The backslash escapes of PostgreSQL's COPY text format (https://www.postgresql.org/docs/15/sql-copy.html).
_COPY_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}
_COPY_ESCAPE = re.compile(r"\\([bfnrtv\\])")


def _copied_line_chunks(db, survey_id: str, question_names: list[str], batch_rows: int) -> Iterator[str]:
    """:func:`response_line_chunks` on PostgreSQL: the lines streamed by ``COPY (SELECT ...) TO STDOUT``
    (one query, the server sending rows as fast as it reads them; no keyset round trip per batch), joined
    ``batch_rows`` lines a chunk. Inside the caller's read snapshot."""
    sql = (
        f"COPY (SELECT {_READY_LINE} FROM responses WHERE survey_id = %s AND "
        + postgres.placeholders(_LINE_READY)
        + " ORDER BY id) TO STDOUT"
    )
    lines: list[bytes] = []
    with db.conn.cursor() as cursor, cursor.copy(sql, [survey_id, survey_id, json.dumps(list(question_names))]) as copy:
        for row in copy:  # one row a block: its text, escaped, ending in a newline
            lines.append(bytes(row))
            if len(lines) == batch_rows:
                yield _copy_text(lines)
                lines = []
    if lines:
        yield _copy_text(lines)


def _copy_text(rows: list[bytes]) -> str:
    """Rows of COPY's text format as CSV lines: escapes undone, each line ended by CRLF."""
    text = b"".join(rows).decode()
    if "\\" in text:
        text = _COPY_ESCAPE.sub(lambda match: _COPY_ESCAPES[match.group(1)], text)
    return text.replace("\n", "\r\n")


def response_rows(db: sqlite_utils.Database, survey_id: str, question_names: list[str]):
    """A cursor over the other responses (older designs, or stored before
    answer lines existed), ordered by id, for streaming out.

    Columns: id, survey_version, design_id, randomized_on, arm, day, then the
    answer to each of ``question_names`` (NULL if unanswered), extracted by
    SQLite so that the caller parses no JSON. Fetch from it in batches; on
    PostgreSQL it is a server-side cursor, read inside
    :func:`storage.connection.read_snapshot`.
    """
    spelling = dialect(db)
    columns = "".join(f", {spelling.json_field.format(column='answers')}" for _ in question_names)
    params = [check_question_name(name) for name in question_names]
    select = f"SELECT id, survey_version, design_id, randomized_on, arm, day{columns} FROM responses"  # placeholders
    others = f"SELECT id FROM designs WHERE survey_id = ? AND columns {spelling.is_not} ?"
    order = json.dumps(list(question_names))
    # Two indexed parts (other designs; rows without a line), so the many
    # ready rows are never scanned here.
    return streaming_cursor(
        db,
        f"{select} WHERE survey_id = ? AND design_id IN ({others})"
        f" UNION ALL {select} WHERE survey_id = ? AND answer_line IS NULL AND design_id NOT IN ({others})"
        " ORDER BY id",
        [*params, survey_id, survey_id, order, *params, survey_id, survey_id, order],
    )


def response_row_batches(
    db: sqlite_utils.Database, survey_id: str, question_names: list[str], batch_rows: int
) -> Iterator[list[tuple]]:
    """The rows of :func:`response_rows`, ``batch_rows`` at a time; the cursor
    is closed when they run out or the caller stops early."""
    cursor = response_rows(db, survey_id, question_names)
    try:
        while rows := cursor.fetchmany(batch_rows):
            yield rows
    finally:
        cursor.close()
