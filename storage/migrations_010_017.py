"""The migrations m010 to m017: response arms, burst marks, people and the audit log, surveys kept in the database,
account links and the second factor, events and tokens, survey-scoped design ids, releases. Registered in order by
:func:`storage.migration_steps.migration`; applied by :mod:`storage.migrations`.
"""

from __future__ import annotations

import hashlib

import sqlite_utils

from storage import migrations_001_009  # noqa: F401 (registers m001 to m009 before these)
from storage.connection import is_postgres
from storage.migration_steps import ddl, migration


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
        ddl(
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
        ddl(
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
        ddl(
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
        ddl(
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
        ddl(
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
        ddl(
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
        ddl(
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
        ddl(
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
        ddl(
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
        ddl(
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
