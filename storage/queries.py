"""The read queries: counts, tallies and group tallies, design records. The kept pattern and pair counts are
:mod:`storage.kept_counts`; the cursors the exports stream from, :mod:`storage.export_rows`.

Takes a :class:`sqlite_utils.Database`; knows nothing of Flask. Read several of them inside
:func:`storage.connection.read_snapshot` for one consistent state. :func:`rebuild_group_tallies` is the only write
here: the repair that recounts the kept group tallies with the same scan the reads use.
"""

from __future__ import annotations

import json
from collections import defaultdict

import sqlite_utils

from storage.connection import dialect, executemany, values_param
from storage.day_exclusions import check_day
from storage.responses import NO_ANSWER
from surveys.design_contract import (
    arm_key,
    canonical_json,
    check_question_name,
    record_design_keys,
)
from surveys.kinds import (
    group_of_stored,
    is_breakdown_of_stored,
    kept_rows_of_stored,
)


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
