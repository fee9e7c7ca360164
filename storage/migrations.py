"""The schema, as versioned migrations (``sqlite_utils.Migrations``), and applying them.

Takes a :class:`sqlite_utils.Database`; knows nothing of Flask.

What is stored, and what is not:

* ``responses`` holds one row per respondent: a random id (the table is
  ``WITHOUT ROWID``, so there is no sequential rowid; rows are kept in the
  order of their random ids), the survey id and version, the noisy answers
  as JSON, the id of the design record they were randomized with, where they
  were randomized (``device`` or ``server``) and the day. No address, user
  agent, time of day, referrer or true answer exists anywhere in the schema.
* ``designs`` records every question's design and choices for a survey
  version, keyed by the survey's design fingerprint, so a later change of
  design never corrupts old data.
* ``tallies`` keeps, per question, design and noisy answer, a running
  count, updated in the same transaction as the row it counts: results are
  read from it without scanning every response.
* ``submission_keys`` and ``invitation_codes`` (hashes only) are kept apart from the
  answers, with no column that links them to a response.
* ``hour_histograms`` keeps, per survey, how many clock hours had 1, 2, 3,
  ... responses: no hour, no day, no link to a response, only the shape of
  the traffic the burst warning compares an hour with. The hour a response
  came in is counted only in the rate-limit file, for that hour alone.
* ``bursts`` records the days with an hour far above a survey's usual rate
  (the day, the most responses in one hour, the usual rate): a day is
  already stored with each response, so no time is added.
* ``excluded_days`` lists the days an admin left out of the estimates; the
  responses of those days stay stored (and exported).
* ``daily_tallies`` keeps the ``tallies`` split by the day a response was
  stored (the day each response row already carries; nothing new is
  recorded), for the estimate over time.
* ``responses.burst`` marks (1) a response that arrived while its survey's
  clock hour was flagged as a burst; ``burst_tallies`` keeps the ``tallies``
  of those responses apart, per day, and ``bursts.marked`` and
  ``bursts.set_aside`` count them and say whether an admin set them aside.
  A mark, not a time: the day is the one the row already carries.
* ``responses.arm`` is the respondent's random group of a two-group design
  (``1``, ``2``) or the direct-question control arm (``direct``), drawn
  independently of every answer; the design keys of the tallies carry it.

Migrations are self-contained: each holds the SQL it needs as it stood when
it was written, and calls no code outside this module that a later change
could alter (``m005_group_tallies`` fills its table with its own copy of the
recount). sqlite-utils records applied migrations by name, so a name never
changes once released.

The same migrations build the PostgreSQL schema. Each one is the single home
of its change on both backends: its table definitions pass through
:func:`_ddl` (PostgreSQL has no ``WITHOUT ROWID``, and its ``REAL`` is single
precision, so ``DOUBLE PRECISION``), and the SQL that reads JSON is spelled
by the backend's :class:`storage.connection.Dialect`. On PostgreSQL the
applied names are kept in ``_migrations`` and every pending migration runs
in one transaction under an advisory lock (:func:`_migrate_postgres`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict

import sqlite_utils
from sqlite_utils import Migrations

from storage.connection import dialect, executemany, immediate_transaction, is_postgres

migrations = Migrations("rr-survey")
#: Every migration in order, as registered (the PostgreSQL runner applies these).
MIGRATIONS: list = []


def migration(function):
    """Register ``function`` as the next migration, under its name, for both backends."""
    MIGRATIONS.append(function)
    return migrations()(function)


def _ddl(db, sql: str) -> str:
    """A table definition as the backend spells it: on PostgreSQL no ``WITHOUT ROWID``, ``REAL`` as a double."""
    if not is_postgres(db):
        return sql
    return re.sub(r"\bREAL\b", "DOUBLE PRECISION", sql.replace("WITHOUT ROWID", ""))


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
        _ddl(
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
        _ddl(
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
        _ddl(
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
    db.execute(_ddl(db, "CREATE TABLE submission_keys (key TEXT PRIMARY KEY, survey_id TEXT NOT NULL) WITHOUT ROWID"))
    db.execute(
        _ddl(
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
        _ddl(
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
        _ddl(
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
_M005_QUESTION_NAME = re.compile(r"[a-z][a-z0-9_]*")


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
    if not _M005_QUESTION_NAME.fullmatch(by):
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
        _ddl(
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
        _ddl(
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
        _ddl(
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
        _ddl(
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
        _ddl(
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
        if not _M005_QUESTION_NAME.fullmatch(name):
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
        _ddl(
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


@migration
def m010_response_arms(db: sqlite_utils.Database) -> None:
    """The arm each respondent was drawn into (group ``1``/``2`` of a two-group design, ``direct`` for the
    control arm, ``''`` for neither), stored with the answers; every older response was in no arm.

    The tallies need no change: the arm is part of each answer's design key, so the running counts per
    group are kept by the existing ``tallies``, ``group_tallies`` and ``daily_tallies`` as answers arrive.
    """
    db.execute("ALTER TABLE responses ADD COLUMN arm TEXT NOT NULL DEFAULT '' CHECK (arm IN ('', '1', '2', 'direct'))")


@migration
def m011_burst_marks(db: sqlite_utils.Database) -> None:
    """A mark on each response that arrives during a flagged burst (``responses.burst``, with a partial
    index on the marked ones), their tallies kept apart per day (``burst_tallies``), and, per burst day,
    how many were marked and whether an admin set them aside; a burst flagged by the survey's ceiling in
    its first hour has no usual rate (``bursts.usual_rate`` may be NULL). Older responses are unmarked."""
    db.execute("ALTER TABLE responses ADD COLUMN burst INTEGER NOT NULL DEFAULT 0 CHECK (burst IN (0, 1))")
    db.execute("CREATE INDEX responses_burst ON responses (survey_id, day) WHERE burst = 1")
    if is_postgres(db):
        db.execute("ALTER TABLE bursts ALTER COLUMN usual_rate DROP NOT NULL")
        db.execute("ALTER TABLE bursts ADD COLUMN marked INTEGER NOT NULL DEFAULT 0")
        db.execute("ALTER TABLE bursts ADD COLUMN set_aside INTEGER NOT NULL DEFAULT 0 CHECK (set_aside IN (0, 1))")
    else:  # SQLite cannot drop a NOT NULL: the table is rebuilt, its rows kept
        db.execute(
            """
        CREATE TABLE bursts_m011 (
            survey_id TEXT NOT NULL,
            day TEXT NOT NULL,
            peak INTEGER NOT NULL,
            usual_rate REAL,
            marked INTEGER NOT NULL DEFAULT 0,
            set_aside INTEGER NOT NULL DEFAULT 0 CHECK (set_aside IN (0, 1)),
            PRIMARY KEY (survey_id, day)
        ) WITHOUT ROWID
        """
        )
        db.execute(
            "INSERT INTO bursts_m011 (survey_id, day, peak, usual_rate)"
            " SELECT survey_id, day, peak, usual_rate FROM bursts"
        )
        db.execute("DROP TABLE bursts")
        db.execute("ALTER TABLE bursts_m011 RENAME TO bursts")
    db.execute(
        _ddl(
            db,
            """
        CREATE TABLE burst_tallies (
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


@migration
def m012_people_and_audit(db: sqlite_utils.Database) -> None:
    """Accounts become people with roles (issue 26): ``admins.site_admin`` (1 for the accounts made
    before, which saw every survey; an account made by an invitation starts at 0), ``admins.disabled``;
    ``survey_roles`` gives an account a role on one survey (``owner``, ``analyst``, ``viewer``); and
    ``audit_log`` records who did what and when: an account name, an action, a survey id and a short
    detail, never an answer and never a respondent's address."""
    db.execute("ALTER TABLE admins ADD COLUMN site_admin INTEGER NOT NULL DEFAULT 1 CHECK (site_admin IN (0, 1))")
    db.execute("ALTER TABLE admins ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1))")
    db.execute(
        _ddl(
            db,
            """
        CREATE TABLE survey_roles (
            survey_id TEXT NOT NULL,
            account TEXT NOT NULL REFERENCES admins(name) ON DELETE CASCADE,
            role TEXT NOT NULL CHECK (role IN ('owner', 'analyst', 'viewer')),
            PRIMARY KEY (survey_id, account)
        ) WITHOUT ROWID
        """,
        )
    )
    db.execute("CREATE INDEX survey_roles_account ON survey_roles (account)")
    db.execute(
        _ddl(
            db,
            """
        CREATE TABLE audit_log (
            id TEXT PRIMARY KEY,
            at REAL NOT NULL,
            actor TEXT,
            action TEXT NOT NULL,
            survey_id TEXT,
            detail TEXT NOT NULL DEFAULT ''
        ) WITHOUT ROWID
        """,
        )
    )
    db.execute("CREATE INDEX audit_log_at ON audit_log (at)")
    db.execute("CREATE INDEX audit_log_survey ON audit_log (survey_id, at)")


@migration
def m013_surveys_in_database(db: sqlite_utils.Database) -> None:
    """Surveys live in the database (issue 26), every version kept. ``surveys`` holds each survey's stage
    (``draft``: no public link; ``live``: open or closed by its dates and ``survey_states``; ``archived``),
    whether the start page lists it, the survey file that manages it (None: made in the browser), its
    current version and when it was first opened (answers
    given before that are test answers, which its owner may clear); ``survey_versions`` the YAML text of every version.
    ``catalog_changes`` logs, under an increasing generation number, each survey whose definition or
    stage changed, so every app process reloads just those; ``catalog_generation`` (one row) hands out the
    numbers, its row lock making writers of the catalogue take them in commit order."""
    db.execute(
        _ddl(
            db,
            """
        CREATE TABLE surveys (
            id TEXT PRIMARY KEY,
            stage TEXT NOT NULL CHECK (stage IN ('draft', 'live', 'archived')),
            listed INTEGER NOT NULL DEFAULT 1 CHECK (listed IN (0, 1)),
            managed_by TEXT,
            current_version INTEGER NOT NULL,
            opened_at REAL
        ) WITHOUT ROWID
        """,
        )
    )
    db.execute(
        _ddl(
            db,
            """
        CREATE TABLE survey_versions (
            survey_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            source TEXT NOT NULL,
            source_name TEXT NOT NULL,
            saved_by TEXT,
            saved_at REAL NOT NULL,
            PRIMARY KEY (survey_id, version)
        ) WITHOUT ROWID
        """,
        )
    )
    db.execute(
        _ddl(
            db,
            "CREATE TABLE catalog_changes (generation INTEGER PRIMARY KEY, survey_id TEXT NOT NULL, at REAL NOT NULL)",
        )
    )
    db.execute("CREATE TABLE catalog_generation (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL)")


@migration
def m014_account_links_and_second_factor(db: sqlite_utils.Database) -> None:
    """One-time links (issue 26): an invitation or a password reset names an account and an expiry; only the
    SHA-256 hash of the link's token is kept, and a used link stays marked used. A second factor per account:
    ``admins.totp_secret`` (the TOTP secret, set while enrolling), ``admins.totp_enabled`` (1 once a code
    confirmed it) and ``admins.totp_last_step`` (the time step of the last code accepted: a code is used once)."""
    db.execute(
        _ddl(
            db,
            """
        CREATE TABLE account_links (
            token_hash TEXT PRIMARY KEY,
            account TEXT NOT NULL REFERENCES admins(name) ON DELETE CASCADE,
            purpose TEXT NOT NULL CHECK (purpose IN ('invitation', 'reset')),
            expires REAL NOT NULL,
            used INTEGER NOT NULL DEFAULT 0 CHECK (used IN (0, 1))
        ) WITHOUT ROWID
        """,
        )
    )
    db.execute("CREATE INDEX account_links_account ON account_links (account)")
    db.execute("ALTER TABLE admins ADD COLUMN totp_secret TEXT")
    db.execute("ALTER TABLE admins ADD COLUMN totp_enabled INTEGER NOT NULL DEFAULT 0 CHECK (totp_enabled IN (0, 1))")
    db.execute("ALTER TABLE admins ADD COLUMN totp_last_step INTEGER NOT NULL DEFAULT 0")


@migration
def m015_events_and_tokens(db: sqlite_utils.Database) -> None:
    """Notifications, API tokens and e-mail (issue 26): ``events`` lists what happened to a survey that its
    people are told of (a target met, a survey that closed itself, a burst, an export of responses), each
    once (``key``), dated by its day (UTC) only, as the answers are, with ``mailed`` set once it was sent;
    ``api_tokens`` keeps the hash of each read-only token of a survey, its label, who made
    it and on which day, the last day it was used and whether it was revoked; ``admins.email`` is an
    account's optional address for those e-mails. Never an answer."""
    db.execute("ALTER TABLE admins ADD COLUMN email TEXT")
    db.execute(
        _ddl(
            db,
            """
        CREATE TABLE events (
            survey_id TEXT NOT NULL,
            key TEXT NOT NULL,
            day TEXT NOT NULL,
            kind TEXT NOT NULL,
            detail TEXT NOT NULL DEFAULT '',
            mailed INTEGER NOT NULL DEFAULT 0 CHECK (mailed IN (0, 1)),
            PRIMARY KEY (survey_id, key)
        ) WITHOUT ROWID
        """,
        )
    )
    db.execute("CREATE INDEX events_day ON events (day)")
    db.execute(
        _ddl(
            db,
            """
        CREATE TABLE api_tokens (
            id TEXT PRIMARY KEY,
            token_hash TEXT NOT NULL UNIQUE,
            survey_id TEXT NOT NULL,
            label TEXT NOT NULL,
            made_on TEXT NOT NULL,
            made_by TEXT,
            last_used TEXT,
            revoked INTEGER NOT NULL DEFAULT 0 CHECK (revoked IN (0, 1))
        ) WITHOUT ROWID
        """,
        )
    )
    db.execute("CREATE INDEX api_tokens_survey ON api_tokens (survey_id)")


@migration
def m016_survey_scoped_design_ids(db: sqlite_utils.Database) -> None:
    """Design records of their own for each survey (issue 26): a design's id was the digest of its questions
    alone, so a survey with the same questions as another (a copy under a new id) shared the other's ``designs``
    row, kept under the other survey, and its responses were missing from its export. Every id becomes the
    digest of ``"<survey id>\\0<old id>"`` (:meth:`surveys.definition.Survey.design_fingerprint`), one row per
    survey that has responses under it or recorded it, the responses following; the old rows go."""
    rows = db.execute("SELECT id, survey_id, survey_version, questions, columns FROM designs").fetchall()
    by_id = {row[0]: row for row in rows}
    users = {(survey_id, old) for old, survey_id, *_ in rows}
    users |= set(db.execute("SELECT DISTINCT survey_id, design_id FROM responses").fetchall())
    for survey_id, old in sorted(users):
        _id, _owner, version, questions, columns = by_id[old]
        new = hashlib.sha256(f"{survey_id}\0{old}".encode()).hexdigest()[:16]
        db.execute(
            "INSERT INTO designs (id, survey_id, survey_version, questions, columns) VALUES (?, ?, ?, ?, ?)",
            [new, survey_id, version, questions, columns],
        )
        db.execute("UPDATE responses SET design_id = ? WHERE survey_id = ? AND design_id = ?", [new, survey_id, old])
    for old in by_id:
        db.execute("DELETE FROM designs WHERE id = ?", [old])


@migration
def m017_releases(db: sqlite_utils.Database) -> None:
    """Published releases (issue 28): one row per release of a survey, its ``token`` (the random part of its
    unlisted public address), the day it was made, who made it, its cost (``epsilon``, ``delta``, ``rho``: what
    the survey's release budget is charged), the answers it counted, whether it is listed, and ``body``: the
    release itself as published (the JSON of :class:`surveys.releases.Release`, a snapshot: never recomputed).
    ``number`` counts a survey's releases from 1; two publishers of the same survey cannot both take the same
    number. Never an answer: only the published figures, already noised."""
    db.execute(
        _ddl(
            db,
            """
        CREATE TABLE releases (
            token TEXT PRIMARY KEY,
            survey_id TEXT NOT NULL,
            number INTEGER NOT NULL,
            made_on TEXT NOT NULL,
            made_by TEXT,
            epsilon REAL NOT NULL CHECK (epsilon >= 0),
            delta REAL NOT NULL CHECK (delta >= 0),
            rho REAL NOT NULL CHECK (rho >= 0),
            answers INTEGER NOT NULL CHECK (answers >= 0),
            listed INTEGER NOT NULL DEFAULT 0 CHECK (listed IN (0, 1)),
            body TEXT NOT NULL,
            UNIQUE (survey_id, number)
        ) WITHOUT ROWID
        """,
        )
    )


@migration
def m018_pair_tallies(db: sqlite_utils.Database) -> None:
    """Running counts of the pairs of answers to two randomized yes/no questions (issue 29, their correlation:
    :mod:`surveys.correlation`): per survey, pair of questions (the first before the second in the survey), the
    two answers' design keys (with the respondent's arm) and the two stored answers. Kept for every pair of the
    first 10 one-design yes/no questions of a response's version; filled from the stored responses with this
    migration's own copy of that rule."""
    db.execute(
        _ddl(
            db,
            """
        CREATE TABLE pair_tallies (
            survey_id TEXT NOT NULL,
            question_a TEXT NOT NULL,
            question_b TEXT NOT NULL,
            design_a TEXT NOT NULL,
            design_b TEXT NOT NULL,
            answer_a TEXT NOT NULL,
            answer_b TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (survey_id, question_a, question_b, design_a, design_b,
                         answer_a, answer_b)
        ) WITHOUT ROWID
        """,
        )
    )
    for design_id, survey_id, questions, columns in db.execute(
        "SELECT id, survey_id, questions, columns FROM designs"
    ).fetchall():
        executemany(
            db,
            "INSERT INTO pair_tallies VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (survey_id, question_a, question_b, design_a, design_b, answer_a,"
            " answer_b) DO UPDATE SET count = pair_tallies.count + excluded.count",
            _m018_pair_rows(db, design_id, survey_id, json.loads(questions), json.loads(columns or "null")),
        )


# m018's own copy of the rule (the live one is surveys.correlation.stored_pairs and design_contract.arm_record),
# as it stood when m018 was written.

_M018_MAX_QUESTIONS = 10
_M018_TWO_GROUP_KINDS = ("cheater_detection", "stochastic_lie_detector")
_M018_STORED_AS_GIVEN_KINDS = ("crosswise", "triangular")


def _m018_one_design_yes_no(record: dict) -> bool:
    design = record.get("design")
    return (
        record.get("type") == "yes_no"
        and isinstance(design, dict)
        and design.get("kind") not in (*_M018_TWO_GROUP_KINDS, "direct")
    )


def _m018_key(record: dict, arm: str) -> str:
    """The design key the write path used for a one-design yes/no answer in ``arm``."""
    if arm == "direct" and record["design"].get("kind") not in _M018_STORED_AS_GIVEN_KINDS:
        record = record | {"design": {"kind": "direct"}}
    return json.dumps(record, sort_keys=True, separators=(",", ":"))


def _m018_pair_rows(db, design_id: str, survey_id: str, questions: dict, columns: list | None) -> list[tuple]:
    """The ``pair_tallies`` rows of the responses stored with one design record, counted by SQL."""
    order = columns if columns else list(questions)
    names = [name for name in order if name in questions and _m018_one_design_yes_no(questions[name])]
    names = names[:_M018_MAX_QUESTIONS]
    for name in names:
        if not _M005_QUESTION_NAME.fullmatch(name):
            raise ValueError(f"question name must be a lower-case letter then a-z, 0-9 or _, got {name!r}")
    field = dialect(db).json_field.format(column="answers")
    rows = []
    for index, first in enumerate(names):
        for second in names[index + 1 :]:
            for arm, answer_a, answer_b, count in db.execute(
                f"SELECT arm, {field}, {field}, COUNT(*) FROM responses WHERE survey_id = ? AND design_id = ?"
                f" AND {field} IS NOT NULL AND {field} IS NOT NULL GROUP BY 1, 2, 3",
                [first, second, survey_id, design_id, first, second],
            ).fetchall():
                first_key, second_key = _m018_key(questions[first], arm), _m018_key(questions[second], arm)
                rows.append((survey_id, first, second, first_key, second_key, answer_a, answer_b, count))
    return rows


def migrate(db: sqlite_utils.Database) -> list[str]:
    """Apply pending migrations; return the names applied."""
    if is_postgres(db):
        return _migrate_postgres(db)
    with immediate_transaction(db):  # one worker at a time; the others then find nothing pending
        pending = [m.name for m in migrations.pending(db)]
        migrations.apply(db)
    return pending


def needs_migration(db: sqlite_utils.Database) -> bool:
    return bool(pending_names(db))


def applied_names(db) -> list[str]:
    """The names of the applied migrations, in the order they were applied, on either backend."""
    if not is_postgres(db):
        return [m.name for m in migrations.applied(db)]
    if db.execute("SELECT to_regclass('_migrations')").fetchone()[0] is None:
        return []
    rows = db.execute("SELECT name FROM _migrations WHERE migration_set = ? ORDER BY position", [migrations.name])
    return [name for (name,) in rows.fetchall()]


def pending_names(db) -> list[str]:
    applied = set(applied_names(db))
    return [function.__name__ for function in MIGRATIONS if function.__name__ not in applied]


#: ``pg_advisory_xact_lock`` key: one migrating process at a time (any fixed number no other code uses).
_POSTGRES_MIGRATION_LOCK = 7_351_001


def _migrate_postgres(db, stop_before: str | None = None) -> list[str]:
    """Apply the pending migrations on PostgreSQL in one transaction (DDL is transactional there),
    under an advisory lock, so that concurrent app servers apply each exactly once."""
    applied = []
    with immediate_transaction(db):
        db.execute("SELECT pg_advisory_xact_lock(?)", [_POSTGRES_MIGRATION_LOCK])
        db.execute(
            "CREATE TABLE IF NOT EXISTS _migrations (migration_set TEXT NOT NULL, name TEXT NOT NULL,"
            " position INTEGER NOT NULL, PRIMARY KEY (migration_set, name))"
        )
        done = set(applied_names(db))
        for position, function in enumerate(MIGRATIONS):
            if function.__name__ == stop_before:
                break
            if function.__name__ not in done:
                function(db)
                db.execute(
                    "INSERT INTO _migrations (migration_set, name, position) VALUES (?, ?, ?)",
                    [migrations.name, function.__name__, position],
                )
                applied.append(function.__name__)
    return applied


def apply_up_to(db, stop_before: str | None) -> None:
    """Apply the pending migrations before ``stop_before`` (all with None), on either backend (tests
    of old databases)."""
    if is_postgres(db):
        _migrate_postgres(db, stop_before)
    else:
        migrations.apply(db, stop_before=stop_before)
