"""The schema, as versioned migrations (``sqlite_utils.Migrations``), and applying them.

The migrations are kept by era: m001 to m009 in :mod:`storage.migrations_001_009`, m010 to m017 in
:mod:`storage.migrations_010_017` (imported first below, so that they register in order), the newest here. A new
migration goes at the end of this module, its tables through ``_ddl(db, ...)``.

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
:func:`storage.migration_steps.ddl`, ``_ddl`` here (PostgreSQL has no ``WITHOUT ROWID``, and its ``REAL`` is single
precision, so ``DOUBLE PRECISION``), and the SQL that reads JSON is spelled
by the backend's :class:`storage.connection.Dialect`. On PostgreSQL the
applied names are kept in ``_migrations`` and every pending migration runs
in one transaction under an advisory lock (:func:`_migrate_postgres`).
"""

from __future__ import annotations

import json

import sqlite_utils

from storage import migrations_010_017  # noqa: F401 (registers m001 to m017, in order, before these)
from storage.connection import dialect, executemany, immediate_transaction, is_postgres
from storage.migration_steps import MIGRATIONS, ddl, migration, migrations
from storage.migrations_001_009 import M005_QUESTION_NAME

#: The name a migration of this module passes its tables through (:func:`storage.migration_steps.ddl`).
_ddl = ddl


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
        if not M005_QUESTION_NAME.fullmatch(name):
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
