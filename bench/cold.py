"""Results without the running tallies: the SQL floor and a cold recompute.

Neither is product code. :func:`floor_scan` is the least any computation
that rescans the responses must do: one pass that extracts every question's
answer from its JSON (``SUM(json_extract(answers, '$.q') = 'yes')`` for each
question). :func:`cold_tallies` rebuilds the whole tallies mapping of
:func:`storage.queries.tallies` from ``responses`` alone, in one SQL scan:

* all the answers of a row are extracted by one multi-path ``json_extract``
  (one JSON parse per row, where the floor parses once per question);
* rows are counted per design and answer combination by an upsert into a
  small temporary table (``INSERT ... SELECT ... ON CONFLICT DO UPDATE SET
  n = n + 1``), SQLite's equivalent of a hash aggregate: a plain
  ``GROUP BY`` would sort every row first, which at 10 million rows spills
  to temporary files and costs about 1.6 times the scan;
* the few thousand combinations are then summed per question in Python.

Design keys come from the ``designs`` records, as
:func:`storage.queries.group_tallies` builds them.
"""

from __future__ import annotations

import json
from collections import defaultdict

import sqlite_utils

from storage import queries
from surveys.definition import Survey
from surveys.design_contract import record_design_keys
from surveys.kinds import kind_of


def floor_scan(db: sqlite_utils.Database, survey: Survey) -> list[int]:
    """For each question, how many stored answers equal its first option (one scan)."""
    sums = ", ".join("SUM(json_extract(answers, '$.' || ?) = ?)" for _ in survey.questions)
    params = [value for q in survey.questions for value in (q.name, q.choice_names[0])]
    sql = f"SELECT {sums} FROM responses WHERE survey_id = ?"  # built from placeholders only
    return [int(value or 0) for value in db.execute(sql, [*params, survey.id]).fetchone()]


COMBINATIONS_TABLE = (
    "CREATE TEMP TABLE bench_cold_combinations ("
    " design_id TEXT NOT NULL, answers_given TEXT NOT NULL, n INTEGER NOT NULL,"
    " PRIMARY KEY (design_id, answers_given))"
)


def _count_combinations_sql(count: int) -> str:
    """SQL counting rows per design and JSON array of ``count`` answers into the temporary table."""
    paths = ", ".join("'$.' || ?" for _ in range(count))
    combination = f"json_extract(answers, {paths})" if count > 1 else f"json_array(json_extract(answers, {paths}))"
    return (
        "INSERT INTO temp.bench_cold_combinations (design_id, answers_given, n)"
        f" SELECT design_id, {combination}, 1 FROM responses WHERE survey_id = ?"
        " ON CONFLICT DO UPDATE SET n = n + 1"
    )


def _combinations(db: sqlite_utils.Database, survey_id: str, names: list[str]) -> list[tuple[str, str, int]]:
    """``(design id, JSON array of the answers to names, responses)`` for every combination present."""
    conn = db.conn
    conn.execute(COMBINATIONS_TABLE)
    try:
        conn.execute(_count_combinations_sql(len(names)), [*names, survey_id])
        return conn.execute("SELECT design_id, answers_given, n FROM temp.bench_cold_combinations").fetchall()
    finally:
        conn.execute("DROP TABLE temp.bench_cold_combinations")
        conn.commit()  # the implicit transaction the INSERT opened (it wrote the temporary table only)


def cold_tallies(db: sqlite_utils.Database, survey_id: str) -> dict[str, dict[str, dict[str, int]]]:
    """``{question: {design key: {answer: count}}}`` recounted from ``responses`` in one scan."""
    records = queries.design_records(db, survey_id)
    names = sorted({name for _, _, questions in records for name in questions})
    if not names:
        return {}
    keys = record_design_keys(records)
    counts: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(int)))
    for design_id, answers_given, times in _combinations(db, survey_id, names):
        for name, answer in zip(names, json.loads(answers_given)):
            key = keys.get((design_id, name))
            if answer is not None and key is not None:
                counts[name][key][answer] += times
    return {name: {key: dict(by_answer) for key, by_answer in by_key.items()} for name, by_key in counts.items()}


def kept_tallies(survey: Survey, counted: dict[str, dict[str, dict[str, int]]]) -> dict[str, dict[str, dict[str, int]]]:
    """The running tallies the stored answers ``counted`` (per question, design key and answer, as
    :func:`cold_tallies` recounts them) make: each answer's kept rows (:func:`surveys.kinds.kind_of`'s
    ``kept_rows``: the answer itself for a choice; a number's bucket, sum and sum of squares) times its count."""
    kept: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(int)))
    for name, by_key in counted.items():
        question = survey.question(name)
        for key, by_answer in by_key.items():
            for answer, times in by_answer.items():
                for row, add in kind_of(question).kept_rows(question, answer):
                    kept[name][key][row] += times * add
    return {name: {key: dict(rows) for key, rows in by_key.items()} for name, by_key in kept.items()}
