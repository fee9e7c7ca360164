"""The first migrations, m001 to m009: responses, designs and tallies, admin accounts and sessions, export indexes,
the group, pattern and daily tallies, bursts and excluded days (each with its own frozen copy of the code it fills
its table with). Registered in order by :func:`storage.migration_steps.migration`; applied by
:mod:`storage.migrations`.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict

import sqlite_utils

from storage.connection import dialect, executemany, is_postgres
from storage.migration_steps import ddl, migration

_M001_DESIGNS = """
        CREATE TABLE designs (
            id TEXT PRIMARY KEY,
            survey_id TEXT NOT NULL,
            survey_version INTEGER NOT NULL,
            questions TEXT NOT NULL
        )
        """


@migration
def m001_initial(db: sqlite_utils.Database) -> None:
    if is_postgres(db):  # PostgreSQL checks a reference where it is declared: designs before responses
        db.execute(_M001_DESIGNS)
    db.execute(
        ddl(
            db,
            """
        CREATE TABLE responses (
            id TEXT PRIMARY KEY,
            survey_id TEXT NOT NULL,
            survey_version INTEGER NOT NULL,
            design_id TEXT NOT NULL REFERENCES designs(id),
            randomized_on TEXT NOT NULL CHECK (randomized_on IN ('device', 'server')),
            day TEXT NOT NULL,
            answers TEXT NOT NULL
        ) WITHOUT ROWID
        """,
        )
    )
    db.execute("CREATE INDEX responses_survey ON responses (survey_id)")
    if not is_postgres(db):
        db.execute(_M001_DESIGNS)
    db.execute(
        ddl(
            db,
            """
        CREATE TABLE tallies (
            survey_id TEXT NOT NULL,
            question TEXT NOT NULL,
            design TEXT NOT NULL,
            answer TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (survey_id, question, design, answer)
        ) WITHOUT ROWID
        """,
        )
    )
    db.execute(
        ddl(
            db,
            """
        CREATE TABLE daily_counts (
            survey_id TEXT NOT NULL,
            day TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (survey_id, day)
        ) WITHOUT ROWID
        """,
        )
    )
    db.execute(ddl(db, "CREATE TABLE submission_keys (key TEXT PRIMARY KEY, survey_id TEXT NOT NULL) WITHOUT ROWID"))
    db.execute(
        ddl(
            db,
            """
        CREATE TABLE invitation_codes (
            survey_id TEXT NOT NULL,
            code_hash TEXT NOT NULL,
            used INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (survey_id, code_hash)
        ) WITHOUT ROWID
        """,
        )
    )
    db.execute("CREATE TABLE survey_states (survey_id TEXT PRIMARY KEY, closed INTEGER NOT NULL)")


@migration
def m002_admins(db: sqlite_utils.Database) -> None:
    db.execute(
        ddl(
            db,
            """
        CREATE TABLE admins (
            name TEXT PRIMARY KEY,
            password_hash TEXT NOT NULL,
            failed_logins INTEGER NOT NULL DEFAULT 0,
            locked_until REAL NOT NULL DEFAULT 0
        )
        """,
        )
    )


@migration
def m003_answer_lines(db: sqlite_utils.Database) -> None:
    """Each response's answers also as a ready CSV fragment, in the order of
    its design's ``columns``, so the export streams without parsing JSON."""
    db.execute("ALTER TABLE designs ADD COLUMN columns TEXT")
    db.execute("ALTER TABLE responses ADD COLUMN answer_line TEXT")


@migration
def m004_export_indexes(db: sqlite_utils.Database) -> None:
    """Let the export find the few rows without a ready answer line by index."""
    db.execute("CREATE INDEX responses_design ON responses (survey_id, design_id)")
    db.execute("CREATE INDEX responses_without_line ON responses (survey_id) WHERE answer_line IS NULL")


@migration
def m005_group_tallies(db: sqlite_utils.Database) -> None:
    """Running tallies per group of each non-randomized question, so that
    break-downs are read, not recounted; filled from the stored responses."""
    db.execute(
        ddl(
            db,
            """
        CREATE TABLE group_tallies (
            survey_id TEXT NOT NULL,
            by_question TEXT NOT NULL,
            by_answer TEXT NOT NULL,
            question TEXT NOT NULL,
            design TEXT NOT NULL,
            answer TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (survey_id, by_question, by_answer, question, design, answer)
        ) WITHOUT ROWID
        """,
        )
    )
    _m005_fill_group_tallies(db)


# m005's own copy of the group-tally recount as it stood when m005 was
# written (the live repair is storage.queries.rebuild_group_tallies): a
# change there must not change what this migration does to an old database.

_M005_NO_ANSWER = ""
M005_QUESTION_NAME = re.compile(r"[a-z][a-z0-9_]*")


def _m005_fill_group_tallies(db: sqlite_utils.Database) -> None:
    """Count ``group_tallies`` from the stored responses: a question is a
    break-down group where a stored design record has it non-randomized."""
    for (survey_id,) in db.execute("SELECT DISTINCT survey_id FROM designs").fetchall():
        records = [
            (design_id, json.loads(questions))
            for design_id, questions in db.execute(
                "SELECT id, questions FROM designs WHERE survey_id = ? ORDER BY survey_version, id", [survey_id]
            ).fetchall()
        ]
        keys = {
            (design_id, name): json.dumps(record, sort_keys=True, separators=(",", ":"))
            for design_id, questions in records
            for name, record in questions.items()
        }
        plain = sorted(
            {name for _, questions in records for name, record in questions.items() if record.get("design") is None}
        )
        for by in plain:
            executemany(
                db, "INSERT INTO group_tallies VALUES (?, ?, ?, ?, ?, ?, ?)", _m005_group_rows(db, survey_id, by, keys)
            )


def _m005_group_rows(
    db: sqlite_utils.Database, survey_id: str, by: str, keys: dict[tuple[str, str], str]
) -> list[tuple[str, str, str, str, str, str, int]]:
    """The ``group_tallies`` rows of one break-down question, counted by SQL over ``responses``."""
    if not M005_QUESTION_NAME.fullmatch(by):
        raise ValueError(f"question name must be a lower-case letter then a-z, 0-9 or _, got {by!r}")
    counts: dict = defaultdict(int)
    spelling = dialect(db)
    for group, design_id, question, answer, count in db.execute(
        f"SELECT {spelling.json_field.format(column='r.answers')} AS grp, r.design_id, a.key, a.value, COUNT(*)"
        f" FROM responses AS r, {spelling.json_pairs.format(column='r.answers')} AS a WHERE r.survey_id = ?"
        " GROUP BY grp, r.design_id, a.key, a.value",
        [by, survey_id],
    ).fetchall():
        key = keys.get((design_id, question))
        if key is not None:
            counts[_M005_NO_ANSWER if group is None else group, question, key, answer] += count
    return [(survey_id, by, *group_question_key_answer, count) for group_question_key_answer, count in counts.items()]


@migration
def m006_admin_sessions(db: sqlite_utils.Database) -> None:
    """Server-side admin sessions (only the token's hash is stored), so that
    signing out or a new password ends a session at once. Failed sign-ins are
    counted per account and address in the rate-limit file now, so the
    per-account columns go."""
    db.execute(
        ddl(
            db,
            """
        CREATE TABLE admin_sessions (
            token_hash TEXT PRIMARY KEY,
            name TEXT NOT NULL REFERENCES admins(name) ON DELETE CASCADE,
            expires REAL NOT NULL
        ) WITHOUT ROWID
        """,
        )
    )
    db.execute("CREATE INDEX admin_sessions_name ON admin_sessions (name)")
    db.execute("ALTER TABLE admins DROP COLUMN failed_logins")
    db.execute("ALTER TABLE admins DROP COLUMN locked_until")


@migration
def m007_bursts_and_excluded_days(db: sqlite_utils.Database) -> None:
    """The histogram of responses per clock hour (no time in it), the days
    with a burst, the days an admin excluded from the estimates, and an index
    to count those days' responses without scanning the others."""
    db.execute(
        ddl(
            db,
            """
        CREATE TABLE hour_histograms (
            survey_id TEXT NOT NULL,
            responses INTEGER NOT NULL,
            hours INTEGER NOT NULL,
            PRIMARY KEY (survey_id, responses)
        ) WITHOUT ROWID
        """,
        )
    )
    db.execute(
        ddl(
            db,
            """
        CREATE TABLE bursts (
            survey_id TEXT NOT NULL,
            day TEXT NOT NULL,
            peak INTEGER NOT NULL,
            usual_rate REAL NOT NULL,
            PRIMARY KEY (survey_id, day)
        ) WITHOUT ROWID
        """,
        )
    )
    db.execute(
        ddl(
            db,
            "CREATE TABLE excluded_days (survey_id TEXT NOT NULL, day TEXT NOT NULL, PRIMARY KEY (survey_id, day))"
            " WITHOUT ROWID",
        )
    )
    db.execute("CREATE INDEX responses_day ON responses (survey_id, day)")


@migration
def m008_pattern_tallies(db: sqlite_utils.Database) -> None:
    """Running counts per randomized yes/no question (the outcome), design
    key, pattern of the plain answers and stored answer, so that a logistic
    model is fitted from counts, not rows; filled from the stored responses.

    A pattern is canonical JSON ``{plain question: answer or ""}`` over the
    plain questions of the response's design record; a design record whose
    plain questions allow more than 10,000 patterns (the product of each
    one's choices plus one) keeps none.
    """
    db.execute(
        ddl(
            db,
            """
        CREATE TABLE pattern_tallies (
            survey_id TEXT NOT NULL,
            outcome TEXT NOT NULL,
            design TEXT NOT NULL,
            pattern TEXT NOT NULL,
            answer TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (survey_id, outcome, design, pattern, answer)
        ) WITHOUT ROWID
        """,
        )
    )
    for design_id, survey_id, questions in db.execute("SELECT id, survey_id, questions FROM designs").fetchall():
        executemany(
            db,
            "INSERT INTO pattern_tallies VALUES (?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (survey_id, outcome, design, pattern, answer)"
            " DO UPDATE SET count = pattern_tallies.count + excluded.count",
            _m008_pattern_rows(db, design_id, survey_id, json.loads(questions)),
        )


# m008's own copy of the pattern spelling and limit (the live ones are in
# surveys/models.py), as they stood when m008 was written.

_M008_MAX_PATTERNS = 10_000


def _m008_key(record: dict) -> str:
    return json.dumps(record, sort_keys=True, separators=(",", ":"))


def _m008_pattern_rows(db: sqlite_utils.Database, design_id: str, survey_id: str, questions: dict) -> list[tuple]:
    """The ``pattern_tallies`` rows of the responses stored with one design record, counted by SQL."""
    plain = sorted(name for name, record in questions.items() if record.get("design") is None)
    outcomes = sorted(
        name
        for name, record in questions.items()
        if record.get("type") == "yes_no" and record.get("design") is not None
    )
    patterns = 1
    for name in plain:
        patterns *= len(questions[name].get("choices", ())) + 1
    if patterns > _M008_MAX_PATTERNS or not outcomes:
        return []
    for name in plain + outcomes:
        if not M005_QUESTION_NAME.fullmatch(name):
            raise ValueError(f"question name must be a lower-case letter then a-z, 0-9 or _, got {name!r}")
    rows = []
    for outcome in outcomes:
        columns = ", ".join([dialect(db).json_field.format(column="answers")] * (len(plain) + 1))
        positions = ", ".join(str(i + 1) for i in range(len(plain) + 1))
        for *values, answer, count in db.execute(
            f"SELECT {columns}, COUNT(*) FROM responses WHERE survey_id = ? AND design_id = ? GROUP BY {positions}",
            [*plain, outcome, survey_id, design_id],
        ).fetchall():
            if answer is not None:
                pattern = _m008_key({name: "" if value is None else value for name, value in zip(plain, values)})
                rows.append((survey_id, outcome, _m008_key(questions[outcome]), pattern, answer, count))
    return rows


@migration
def m009_daily_tallies(db: sqlite_utils.Database) -> None:
    """Running tallies per day (the estimate over time is read, not recounted); filled from the stored responses."""
    db.execute(
        ddl(
            db,
            """
        CREATE TABLE daily_tallies (
            survey_id TEXT NOT NULL,
            day TEXT NOT NULL,
            question TEXT NOT NULL,
            design TEXT NOT NULL,
            answer TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (survey_id, day, question, design, answer)
        ) WITHOUT ROWID
        """,
        )
    )
    _m009_fill_daily_tallies(db)


# m009's own copy of the per-day recount as it stood when m009 was written:
# a change to the live code must not change what this migration does.


def _m009_fill_daily_tallies(db: sqlite_utils.Database) -> None:
    """Count ``daily_tallies`` from the stored responses, the design keys rebuilt from the design records."""
    keys = {
        (design_id, name): json.dumps(record, sort_keys=True, separators=(",", ":"))
        for design_id, questions in db.execute("SELECT id, questions FROM designs").fetchall()
        for name, record in json.loads(questions).items()
    }
    counts: dict = defaultdict(int)
    for survey_id, day, design_id, question, answer, count in db.execute(
        "SELECT r.survey_id, r.day, r.design_id, a.key, a.value, COUNT(*)"
        f" FROM responses AS r, {dialect(db).json_pairs.format(column='r.answers')} AS a"
        " GROUP BY r.survey_id, r.day, r.design_id, a.key, a.value"
    ).fetchall():
        key = keys.get((design_id, question))
        if key is not None:
            counts[survey_id, day, question, key, answer] += count
    executemany(
        db, "INSERT INTO daily_tallies VALUES (?, ?, ?, ?, ?, ?)", [(*row, count) for row, count in counts.items()]
    )
