"""The read queries: counts, tallies and group tallies, design records, and the
cursors the exports stream from.

Takes a :class:`sqlite_utils.Database`; knows nothing of Flask. Read
several of them inside :func:`storage.connection.read_snapshot` for one
consistent state. :func:`rebuild_group_tallies`, :func:`rebuild_pattern_tallies` and
:func:`rebuild_pair_tallies` are the only writes here: the repairs that recount the kept group, pattern and pair tallies
with the same scans the reads use.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from collections.abc import Iterator

import sqlite_utils

from storage import connection, postgres
from storage.connection import dialect, executemany, is_postgres, streaming_cursor, values_param
from storage.responses import NO_ANSWER, check_day
from surveys.correlation import PairTallies, stored_pairs
from surveys.design_contract import (
    NUMBER_TYPES,
    SELECT_ONE,
    YES_NO,
    arm_key,
    canonical_json,
    check_question_name,
    record_design_keys,
)
from surveys.kinds import (
    group_of_stored,
    groups_of_stored,
    is_breakdown_of_stored,
    keeps_patterns_of_stored,
    kept_rows_of_stored,
)
from surveys.models import MAX_PATTERNS, answer_pattern, arm_keeps_patterns


def response_count(db: sqlite_utils.Database, survey_id: str) -> int:
    row = db.execute("SELECT COALESCE(SUM(count), 0) FROM daily_counts WHERE survey_id = ?", [survey_id]).fetchone()
    return int(row[0])


def daily_counts(db: sqlite_utils.Database, survey_id: str) -> list[tuple[str, int]]:
    return [
        (day, count)
        for day, count in db.execute(
            "SELECT day, count FROM daily_counts WHERE survey_id = ? ORDER BY day", [survey_id]
        ).fetchall()
    ]


def tallies(db: sqlite_utils.Database, survey_id: str) -> dict[str, dict[str, dict[str, int]]]:
    """``{question: {design key: {answer: count}}}`` from the running tallies."""
    result: dict = defaultdict(lambda: defaultdict(dict))
    for question, design, answer, count in db.execute(
        "SELECT question, design, answer, count FROM tallies WHERE survey_id = ?", [survey_id]
    ).fetchall():
        result[question][design][answer] = count
    return {q: dict(by_design) for q, by_design in result.items()}


def daily_tallies(db: sqlite_utils.Database, survey_id: str) -> list[tuple[str, dict[str, dict[str, dict[str, int]]]]]:
    """``[(day, {question: {design key: {answer: count}}})]`` in day order: the running tallies per day.

    Kept as answers arrive (:func:`storage.responses.store_response`), so
    the estimate over time is read, not recounted.
    """
    result: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    for day, question, design, answer, count in db.execute(
        "SELECT day, question, design, answer, count FROM daily_tallies WHERE survey_id = ? ORDER BY day", [survey_id]
    ).fetchall():
        result[day][question][design][answer] = count
    return [
        (day, {q: {k: dict(v) for k, v in by_design.items()} for q, by_design in per_question.items()})
        for day, per_question in sorted(result.items())
    ]


def daily_tallies_on_days(
    db: sqlite_utils.Database, survey_id: str, days: list[str]
) -> dict[str, dict[str, dict[str, int]]]:
    """The shape of :func:`tallies`, summed over the kept per-day tallies of ``days`` (no response is read)."""
    return _kept_tallies_on_days(db, "daily_tallies", survey_id, days)


def burst_tallies_on_days(
    db: sqlite_utils.Database, survey_id: str, days: list[str]
) -> dict[str, dict[str, dict[str, int]]]:
    """The shape of :func:`tallies`, summed over the answers marked during the bursts of ``days``: their kept
    tallies (``burst_tallies``, counted as they arrived; no response is read)."""
    return _kept_tallies_on_days(db, "burst_tallies", survey_id, days)


def _kept_tallies_on_days(db, table: str, survey_id: str, days: list[str]) -> dict[str, dict[str, dict[str, int]]]:
    """The kept per-day tallies of ``table`` (``daily_tallies`` or ``burst_tallies``) of ``days``, summed."""
    result: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(int)))
    for question, design, answer, count in db.execute(
        f"SELECT question, design, answer, count FROM {table} WHERE survey_id = ? AND day {dialect(db).in_values}",
        [survey_id, values_param(db, [check_day(day) for day in days])],
    ).fetchall():
        result[question][design][answer] += count
    return {q: {k: dict(v) for k, v in by_design.items()} for q, by_design in result.items()}


def responses_on_day(db: sqlite_utils.Database, survey_id: str, day: str) -> int:
    row = db.execute(
        "SELECT count FROM daily_counts WHERE survey_id = ? AND day = ?", [survey_id, check_day(day)]
    ).fetchone()
    return 0 if row is None else int(row[0])


def tallies_on_days(db: sqlite_utils.Database, survey_id: str, days: list[str]) -> dict[str, dict[str, dict[str, int]]]:
    """The shape of :func:`tallies`, counted over the responses of ``days`` only.

    Read through the ``(survey_id, day)`` index: the cost grows with those
    days' responses, not with the survey's. The design keys and kept rows (a
    number's bucket, sum and sum of squares) are rebuilt from the ``designs``
    records as in :func:`rebuild_group_tallies`.
    """
    spelling = dialect(db)
    rows = db.execute(
        f"SELECT r.design_id, r.arm, a.key, a.value, COUNT(*) FROM responses AS r"
        f"{spelling.indexed_by.format(index='responses_day')}, {spelling.json_pairs.format(column='r.answers')} AS a"
        f" WHERE r.survey_id = ? AND r.day {spelling.in_values} GROUP BY r.design_id, r.arm, a.key, a.value",
        [survey_id, values_param(db, [check_day(day) for day in days])],
    ).fetchall()
    keys = _design_keys(db, survey_id)
    result: dict = defaultdict(lambda: defaultdict(dict))
    for design_id, arm, question, answer, count in rows:
        key = keys.get((design_id, question))
        if key is not None:
            by_answer = result[question][arm_key(key, arm)]
            for kept, add in kept_rows_of_stored(key, answer):
                by_answer[kept] = by_answer.get(kept, 0) + add * count
    return {q: {k: dict(v) for k, v in by_design.items()} for q, by_design in result.items()}


def group_tallies_on_days(
    db: sqlite_utils.Database, survey_id: str, by: str, days: list[str], marked_only: bool = False
) -> dict[str | None, dict[str, dict[str, dict[str, int]]]]:
    """The shape of :func:`group_tallies`, counted over the responses of ``days`` only (by index); with
    ``marked_only``, over those marked during a burst only (``responses.burst``)."""
    return scan_group_tallies(db, survey_id, by, days=days, marked_only=marked_only)


def design_records(db: sqlite_utils.Database, survey_id: str) -> list[tuple[str, int, dict]]:
    """Every stored design record of a survey: ``(design id, survey version, {question: record})``.

    Each record is ``{"type", "choices", "design"}`` as in the design key;
    ordered by version, then id.
    """
    return [
        (design_id, version, json.loads(questions))
        for design_id, version, questions in db.execute(
            "SELECT id, survey_version, questions FROM designs WHERE survey_id = ? ORDER BY survey_version, id",
            [survey_id],
        ).fetchall()
    ]


def group_tallies(
    db: sqlite_utils.Database, survey_id: str, by: str
) -> dict[str | None, dict[str, dict[str, dict[str, int]]]]:
    """Tallies split by the answer to the non-randomized question ``by``.

    Returns ``{answer to by: {question: {design key: {answer: count}}}}``,
    the shape of :func:`tallies` per group; respondents who left ``by``
    unanswered are under ``None``. Read from the running ``group_tallies``,
    kept in the same transaction as each response, so it costs the same at
    ten responses or ten million.
    """
    result: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    for group, question, design, answer, count in db.execute(
        "SELECT by_answer, question, design, answer, count FROM group_tallies WHERE survey_id = ? AND by_question = ?",
        [survey_id, check_question_name(by)],
    ).fetchall():
        result[None if group == NO_ANSWER else group][question][design][answer] = count
    return {
        group: {q: {k: dict(v) for k, v in by_design.items()} for q, by_design in per_question.items()}
        for group, per_question in result.items()
    }


def rebuild_group_tallies(db: sqlite_utils.Database) -> None:
    """Recount ``group_tallies`` from the stored responses (a repair; migration
    ``m005_group_tallies`` keeps its own copy of the recount). A question is a
    break-down group where a stored design record has it as one results can be broken down by
    (:func:`surveys.kinds.is_breakdown_of_stored`: a plain choice or number, not a plain check-all question),
    as the write path keeps them (:func:`surveys.kinds.breakdown_questions`)."""
    db.execute("DELETE FROM group_tallies")
    for (survey_id,) in db.execute("SELECT DISTINCT survey_id FROM designs").fetchall():
        plain = sorted(
            {
                name
                for _, _, questions in design_records(db, survey_id)
                for name, record in questions.items()
                if is_breakdown_of_stored(canonical_json(record))
            }
        )
        for by in plain:
            rows = [
                (survey_id, by, NO_ANSWER if group is None else group, question, design, answer, count)
                for group, per_question in scan_group_tallies(db, survey_id, by).items()
                for question, by_design in per_question.items()
                for design, by_answer in by_design.items()
                for answer, count in by_answer.items()
            ]
            executemany(db, "INSERT INTO group_tallies VALUES (?, ?, ?, ?, ?, ?, ?)", rows)


def scan_group_tallies(
    db: sqlite_utils.Database, survey_id: str, by: str, days: list[str] | None = None, marked_only: bool = False
) -> dict[str | None, dict[str, dict[str, dict[str, int]]]]:
    """Tallies split by the stored answer to question ``by``, counted afresh.

    Returns ``{answer to by: {question: {design key: {answer: count}}}}``,
    the shape of :func:`tallies` per group; respondents who left ``by``
    unanswered are under ``None``. Counted by SQL over ``responses``; the
    design keys are rebuilt, canonically, from the ``designs`` records the
    responses point to (one JSON parse per design record, none per response);
    a plain number ``by`` groups by its bin key, as the write path keeps it
    (:func:`surveys.kinds.group_of_stored`).
    With ``days``, only the responses of those days are counted, by index;
    with ``marked_only``, only those marked during a burst.
    """
    check_question_name(by)
    spelling = dialect(db)
    params = [by, survey_id]
    on_days = ""
    if days is not None:
        on_days = f" AND r.day {spelling.in_values}"
        params.append(values_param(db, [check_day(day) for day in days]))
    if marked_only:
        on_days += " AND r.burst = 1"
    rows = db.execute(
        f"SELECT {spelling.json_field.format(column='r.answers')} AS grp, r.design_id, r.arm, a.key, a.value, COUNT(*)"
        f" FROM responses AS r, {spelling.json_pairs.format(column='r.answers')} AS a WHERE r.survey_id = ?"
        + on_days
        + " GROUP BY grp, r.design_id, r.arm, a.key, a.value",
        params,
    ).fetchall()
    keys = _design_keys(db, survey_id)
    result: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    for group, design_id, arm, question, answer, count in rows:
        key = keys.get((design_id, question))
        if key is not None:
            grouped = None if group is None else group_of_stored(keys.get((design_id, by), ""), group)
            by_answer = result[grouped][question][arm_key(key, arm)]
            for kept, add in kept_rows_of_stored(key, answer):
                by_answer[kept] = by_answer.get(kept, 0) + add * count
    return {
        group: {q: {k: dict(v) for k, v in by_design.items()} for q, by_design in per_question.items()}
        for group, per_question in result.items()
    }


def _design_keys(db: sqlite_utils.Database, survey_id: str) -> dict[tuple[str, str], str]:
    """``{(design id, question): design key}`` for every stored design record of the survey."""
    return record_design_keys(design_records(db, survey_id))


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


# --------------------------------------------------------------------------
# Pattern tallies (the model's counts).


def pattern_tallies(db: sqlite_utils.Database, survey_id: str, outcome: str) -> dict[str, dict[str, dict[str, int]]]:
    """``{design key: {pattern: {answer: count}}}`` of the yes/no question ``outcome``, from the kept counts.

    Kept in the transaction of each response (``pattern_tallies``, migration
    ``m008_pattern_tallies``): the read costs the number of patterns, not of responses.
    """
    result: dict = {}
    # Row by row, not fetchall: each row's tuple is freed at once, so the few thousand rows do not set off the
    # garbage collector (a list of them did, several times a read: bench/model_bench.py).
    for design, pattern, answer, count in db.execute(
        "SELECT design, pattern, answer, count FROM pattern_tallies WHERE survey_id = ? AND outcome = ?",
        [survey_id, check_question_name(outcome)],
    ):
        by_pattern = result.get(design)
        if by_pattern is None:
            by_pattern = result[design] = {}
        by_answer = by_pattern.get(pattern)
        if by_answer is None:
            by_pattern[pattern] = {answer: count}
        else:
            by_answer[answer] = count
    return result


def pattern_tallies_on_days(
    db: sqlite_utils.Database, survey_id: str, outcome: str, days: list[str], marked_only: bool = False
) -> dict[str, dict[str, dict[str, int]]]:
    """The shape of :func:`pattern_tallies`, counted over the responses of ``days`` only (by index); with
    ``marked_only``, over those marked during a burst only."""
    check_question_name(outcome)
    result: dict = defaultdict(lambda: defaultdict(dict))
    for counted, design, pattern, answer, count in scan_pattern_tallies(db, survey_id, days, marked_only):
        if counted == outcome:
            result[design][pattern][answer] = count
    return {design: {p: dict(a) for p, a in by_pattern.items()} for design, by_pattern in result.items()}


#: The types of the plain questions a pattern spells (:func:`surveys.models.predictor_questions`: one choice or a
#: number, asked plainly; a plain check-all-that-apply or text question is in no pattern).
PATTERN_TYPES = (YES_NO, SELECT_ONE, *NUMBER_TYPES)


def scan_pattern_tallies(
    db: sqlite_utils.Database, survey_id: str, days: list[str] | None = None, marked_only: bool = False
) -> list[tuple[str, str, str, str, int]]:
    """``(outcome, design key, pattern, answer, count)`` rows of a survey, counted afresh from its responses.

    Counted with the live pattern spelling and limit
    (:func:`surveys.models.answer_pattern`, :data:`surveys.models.MAX_PATTERNS`)
    from each response's design record, as the write path keeps them (each
    predictor's stored answer put in its group by :func:`surveys.kinds.group_of_stored`:
    a plain number's bin key, not its grid position): one
    ``GROUP BY`` per design record and outcome, so Python sees patterns, not
    rows. Only what the write path keeps (:func:`surveys.submission.noisy_response`): the outcomes whose kind
    keeps patterns (:func:`surveys.kinds.keeps_patterns_of_stored`, no two-group question), in the arms whose
    answers are counted (:func:`surveys.models.arm_keeps_patterns`: not what the direct-question arm asks
    directly), each under its arm's design key (:func:`surveys.design_contract.arm_key`). With ``days``, only
    the responses of those days (by index); with ``marked_only``, only those marked during a burst.
    """
    on_days, day_params = "", []
    if days is not None:
        on_days = f" AND day {dialect(db).in_values}"
        day_params = [values_param(db, [check_day(day) for day in days])]
    if marked_only:
        on_days += " AND burst = 1"
    counts: dict = defaultdict(int)
    for design_id, _, questions in design_records(db, survey_id):
        # The pattern's questions as the write path has them (surveys.models.predictor_questions: one choice or a
        # number, asked plainly, each by its groups); a text or check-all question is in no pattern.
        plain = sorted(
            name
            for name, record in questions.items()
            if record.get("design") is None and record.get("type") in PATTERN_TYPES
        )
        plain_keys = {name: canonical_json(questions[name]) for name in plain}
        if math.prod(len(groups_of_stored(plain_keys[name])) + 1 for name in plain) > MAX_PATTERNS:
            continue
        # The outcomes whose pattern counts the write path keeps (surveys.models.kept_outcomes: its kind's
        # keeps_patterns, so no two-group question).
        outcomes = [name for name, record in questions.items() if keeps_patterns_of_stored(canonical_json(record))]
        field = dialect(db).json_field.format(column="answers")
        extract = "".join(f", {field}" for _ in plain)
        for outcome in outcomes:
            name = check_question_name(outcome)
            key = canonical_json(questions[outcome])
            for arm, answer, *values, count in db.execute(
                f"SELECT arm, {field}{extract}, COUNT(*) FROM responses"  # placeholders
                f" WHERE survey_id = ? AND design_id = ?{on_days} AND {field} IS NOT NULL"
                f" GROUP BY {', '.join(str(i + 1) for i in range(len(plain) + 2))}",
                [name, *map(check_question_name, plain), survey_id, design_id, *day_params, name],
            ).fetchall():
                if not arm_keeps_patterns(arm, questions[outcome].get("type")):
                    continue  # what the direct arm asks directly is in no pattern count
                levels = {
                    name: group_of_stored(plain_keys[name], value)
                    for name, value in zip(plain, values)
                    if value is not None
                }
                pattern = answer_pattern(levels, plain)
                for kept, add in kept_rows_of_stored(key, answer):  # a number's bucket and sums, as kept
                    counts[(outcome, arm_key(key, arm), pattern, kept)] += add * count
    return [(*key, count) for key, count in counts.items()]


def rebuild_pattern_tallies(db: sqlite_utils.Database, survey_id: str) -> int:
    """Recount the kept pattern counts of one survey from its stored responses (a repair); returns the rows kept.

    The scan (:func:`scan_pattern_tallies`) runs in a read snapshot, which
    blocks no submission (WAL), together with a read of the kept counts at
    that snapshot. The write is one short ``BEGIN IMMEDIATE`` transaction:
    the recount plus what the kept counts gained since the snapshot (exactly
    the responses stored during the scan, which the write path counted in
    their own transactions), replacing the survey's rows. On any error
    nothing changes.
    """
    with connection.read_snapshot(db):
        recounted = {tuple(row[:4]): row[4] for row in scan_pattern_tallies(db, survey_id)}
        kept_then = _kept_pattern_rows(db, survey_id)
    with connection.immediate_transaction(db):
        for key, count in _kept_pattern_rows(db, survey_id).items():
            recounted[key] = recounted.get(key, 0) + count - kept_then.pop(key, 0)
        for key, count in kept_then.items():  # rows gone since the snapshot
            recounted[key] = recounted.get(key, 0) - count
        # A kept sum of a number's outputs can be negative (a Laplace output below the grid): only zeros are left
        # out, which every read takes as absent.
        rows = [(survey_id, *key, count) for key, count in recounted.items() if count != 0]
        db.execute("DELETE FROM pattern_tallies WHERE survey_id = ?", [survey_id])
        executemany(
            db,
            "INSERT INTO pattern_tallies (survey_id, outcome, design, pattern, answer, count)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )
    return len(rows)


def _kept_pattern_rows(db: sqlite_utils.Database, survey_id: str) -> dict[tuple[str, str, str, str], int]:
    """``{(outcome, design key, pattern, answer): count}`` of the survey's kept pattern counts."""
    return {
        (outcome, design, pattern, answer): count
        for outcome, design, pattern, answer, count in db.execute(
            "SELECT outcome, design, pattern, answer, count FROM pattern_tallies WHERE survey_id = ?", [survey_id]
        ).fetchall()
    }


def pair_tallies(db: sqlite_utils.Database, survey_id: str, first: str, second: str) -> PairTallies:
    """``{(first design key, second design key): {(first answer, second answer): count}}`` of the pair of
    yes/no questions ``first`` and ``second`` (the first before the second in the survey), from the kept counts.

    Kept in the transaction of each response (``pair_tallies``, migration ``m018_pair_tallies``): the read costs
    the number of design keys and answers (at most 4 rows a pair of keys), not of responses.
    """
    result: dict = defaultdict(dict)
    for design_a, design_b, answer_a, answer_b, count in db.execute(
        "SELECT design_a, design_b, answer_a, answer_b, count FROM pair_tallies"
        " WHERE survey_id = ? AND question_a = ? AND question_b = ?",
        [survey_id, check_question_name(first), check_question_name(second)],
    ):
        result[(design_a, design_b)][(answer_a, answer_b)] = count
    return dict(result)


def pair_tallies_on_days(
    db: sqlite_utils.Database, survey_id: str, first: str, second: str, days: list[str], marked_only: bool = False
) -> PairTallies:
    """The shape of :func:`pair_tallies`, counted over the responses of ``days`` only (by index); with
    ``marked_only``, over those marked during a burst only."""
    pair = (check_question_name(first), check_question_name(second))
    result: dict = defaultdict(dict)
    for (a, b, design_a, design_b, answer_a, answer_b), count in _scan_pair_tallies(
        db, survey_id, days, marked_only
    ).items():
        if (a, b) == pair:
            result[(design_a, design_b)][(answer_a, answer_b)] = count
    return dict(result)


def _scan_pair_tallies(
    db: sqlite_utils.Database, survey_id: str, days: list[str] | None = None, marked_only: bool = False
) -> dict[tuple[str, ...], int]:
    """``{(first, second, first design, second design, first answer, second answer): count}`` of a survey,
    counted afresh from its responses: for each design record the pairs the write path keeps
    (:func:`surveys.correlation.stored_pairs`), each answer under its arm's design key
    (:func:`surveys.design_contract.arm_key`), one ``GROUP BY`` per design record and pair. With ``days``, only
    the responses of those days (by index); with ``marked_only``, only those marked during a burst."""
    on_days, day_params = "", []
    if days is not None:
        on_days = f" AND day {dialect(db).in_values}"
        day_params = [values_param(db, [check_day(day) for day in days])]
    if marked_only:
        on_days += " AND burst = 1"
    field = dialect(db).json_field.format(column="answers")
    counts: dict = defaultdict(int)
    columns_of = dict(db.execute("SELECT id, columns FROM designs WHERE survey_id = ?", [survey_id]).fetchall())
    for design_id, _, questions in design_records(db, survey_id):
        columns = json.loads(columns_of.get(design_id) or "null") or list(questions)
        for first, second in stored_pairs(columns, questions):
            keys = canonical_json(questions[first]), canonical_json(questions[second])
            names = [check_question_name(first), check_question_name(second)]
            for arm, answer_a, answer_b, count in db.execute(
                f"SELECT arm, {field}, {field}, COUNT(*) FROM responses WHERE survey_id = ? AND design_id = ?"
                f"{on_days} AND {field} IS NOT NULL AND {field} IS NOT NULL GROUP BY 1, 2, 3",
                [*names, survey_id, design_id, *day_params, *names],
            ).fetchall():
                key = (first, second, arm_key(keys[0], arm), arm_key(keys[1], arm), answer_a, answer_b)
                counts[key] += count
    return dict(counts)


def _kept_pair_rows(db: sqlite_utils.Database, survey_id: str) -> dict[tuple[str, ...], int]:
    """The survey's kept pair counts, keyed as :func:`_scan_pair_tallies`."""
    return {
        tuple(row[:6]): row[6]
        for row in db.execute(
            "SELECT question_a, question_b, design_a, design_b, answer_a, answer_b,"
            " count FROM pair_tallies WHERE survey_id = ?",
            [survey_id],
        ).fetchall()
    }


def rebuild_pair_tallies(db: sqlite_utils.Database, survey_id: str) -> int:
    """Recount the kept pair counts of one survey from its stored responses (a repair); returns the rows kept.

    As :func:`rebuild_pattern_tallies`: the scan in a read snapshot with the kept counts at that snapshot,
    then one short write adding what the kept counts gained since; on any error nothing changes.
    """
    with connection.read_snapshot(db):
        recounted = _scan_pair_tallies(db, survey_id)
        kept_then = _kept_pair_rows(db, survey_id)
    with connection.immediate_transaction(db):
        for key, count in _kept_pair_rows(db, survey_id).items():
            recounted[key] = recounted.get(key, 0) + count - kept_then.pop(key, 0)
        for key, count in kept_then.items():
            recounted[key] = recounted.get(key, 0) - count
        rows = [(survey_id, *key, count) for key, count in recounted.items() if count != 0]
        db.execute("DELETE FROM pair_tallies WHERE survey_id = ?", [survey_id])
        executemany(
            db,
            "INSERT INTO pair_tallies (survey_id, question_a, question_b, design_a, design_b,"
            " answer_a, answer_b, count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
    return len(rows)
