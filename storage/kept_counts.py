"""The kept pattern counts (the logistic model's) and pair counts (the correlation's): reads, the rescans of the
stored responses they must equal, and the repairs that recount them.

Takes a :class:`sqlite_utils.Database`; knows nothing of Flask. Read inside
:func:`storage.connection.read_snapshot` beside :mod:`storage.queries`' tallies for one consistent state.
:func:`rebuild_pattern_tallies` and :func:`rebuild_pair_tallies` are the only writes here.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict

import sqlite_utils

from storage import connection
from storage.connection import dialect, executemany, values_param
from storage.day_exclusions import check_day
from storage.queries import design_records
from surveys.correlation import PairTallies, stored_pairs
from surveys.design_contract import NUMBER_TYPES, SELECT_ONE, YES_NO, arm_key, canonical_json, check_question_name
from surveys.kinds import group_of_stored, groups_of_stored, keeps_patterns_of_stored, kept_rows_of_stored
from surveys.models import MAX_PATTERNS, answer_pattern, arm_keeps_patterns


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
    return _replace_with_recount(
        db,
        survey_id,
        lambda: {tuple(row[:4]): row[4] for row in scan_pattern_tallies(db, survey_id)},
        _kept_pattern_rows,
        "DELETE FROM pattern_tallies WHERE survey_id = ?",
        "INSERT INTO pattern_tallies (survey_id, outcome, design, pattern, answer, count) VALUES (?, ?, ?, ?, ?, ?)",
    )


def _replace_with_recount(db, survey_id: str, recount, kept_rows, delete: str, insert: str) -> int:
    """The repair of :func:`rebuild_pattern_tallies` and :func:`rebuild_pair_tallies`: ``recount()`` and
    ``kept_rows(db, survey_id)`` read in one snapshot, then in one short write the recount plus what the kept rows
    gained since, replacing the survey's rows (``delete``, then ``insert`` of each ``(survey_id, *key, count)``);
    the rows kept."""
    with connection.read_snapshot(db):
        recounted = recount()
        kept_then = kept_rows(db, survey_id)
    with connection.immediate_transaction(db):
        for key, count in kept_rows(db, survey_id).items():
            recounted[key] = recounted.get(key, 0) + count - kept_then.pop(key, 0)
        for key, count in kept_then.items():  # rows gone since the snapshot
            recounted[key] = recounted.get(key, 0) - count
        # A kept sum of a number's outputs can be negative (a Laplace output below the grid): only zeros are left
        # out, which every read takes as absent.
        rows = [(survey_id, *key, count) for key, count in recounted.items() if count != 0]
        db.execute(delete, [survey_id])
        executemany(db, insert, rows)
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
    return _replace_with_recount(
        db,
        survey_id,
        lambda: _scan_pair_tallies(db, survey_id),
        _kept_pair_rows,
        "DELETE FROM pair_tallies WHERE survey_id = ?",
        "INSERT INTO pair_tallies (survey_id, question_a, question_b, design_a, design_b,"
        " answer_a, answer_b, count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    )
