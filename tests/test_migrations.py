"""Tests of storage.migrations: applied once, by name, self-contained, and an old database ends like a fresh one."""

from __future__ import annotations

import hashlib
import json
import sqlite3

import psycopg
import pytest

from storage import connection, migrations, queries
from surveys import design_contract

NAMES = [
    "m001_initial",
    "m002_admins",
    "m003_answer_lines",
    "m004_export_indexes",
    "m005_group_tallies",
    "m006_admin_sessions",
    "m007_bursts_and_excluded_days",
    "m008_pattern_tallies",
    "m009_daily_tallies",
    "m010_response_arms",
    "m011_burst_marks",
    "m012_people_and_audit",
    "m013_surveys_in_database",
    "m014_account_links_and_second_factor",
    "m015_events_and_tokens",
    "m016_survey_scoped_design_ids",
    "m017_releases",
    "m018_pair_tallies",
]

#: Design keys as the submission wrote them (canonical JSON), spelled out by hand.
OLD_CHEATED = (
    '{"choices":["yes","no"],"design":{"a":"1/4","b":"1/4","kind":"forced_response","t":"1/2"},"type":"yes_no"}'
)
NEW_CHEATED = (
    '{"choices":["yes","no"],"design":{"a":"1/6","b":"1/6","kind":"forced_response","t":"2/3"},"type":"yes_no"}'
)
YEAR = '{"choices":["first","second"],"design":null,"type":"select_one"}'


def design_row(design_id: str, version: int, cheated: str) -> tuple:
    """A ``designs`` row as m001 stored it: the record of every question (sorted keys, default spaces)."""
    record = {"cheated": json.loads(cheated), "year": json.loads(YEAR)}
    return design_id, "quiz", version, json.dumps(record, sort_keys=True)


def scoped(survey_id: str, design_id: str) -> str:
    """The id a design record of ``survey_id`` has after m016 (each survey its own records)."""
    return hashlib.sha256(f"{survey_id}\0{design_id}".encode()).hexdigest()[:16]


def schema(db) -> list[tuple]:
    if connection.is_postgres(db):
        columns = db.execute(
            "SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns"
            " WHERE table_schema = current_schema() ORDER BY table_name, column_name"
        ).fetchall()
        indexes = db.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname"
        ).fetchall()
        return columns + indexes
    return db.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name"
    ).fetchall()


def apply_up_to(db, name: str) -> None:
    """Apply the pending migrations up to and including ``name``."""
    following = NAMES[NAMES.index(name) + 1 :]
    migrations.apply_up_to(db, following[0] if following else None)


def forget_migration(db, name: str) -> None:
    """Delete the record of an applied migration, as in a database from before it."""
    table = "_migrations" if connection.is_postgres(db) else "_sqlite_migrations"
    db.execute(f"DELETE FROM {table} WHERE name = ?", [name])  # one of two fixed names


def write(db, sql: str, rows: list[tuple] | None = None) -> None:
    """Run ``sql`` once (or once per row) in one transaction, by plain SQL on either backend."""
    with connection.immediate_transaction(db):
        if rows is None:
            db.execute(sql)
        else:
            connection.executemany(db, sql, rows)


@pytest.fixture
def backend_db(new_database):
    """A new database of each backend with every migration applied to it here (the suite's ``backend_db`` copies
    one migrated per session on PostgreSQL): this module tests the migrations themselves."""
    database = connection.connect(new_database("fresh"))
    migrations.migrate(database)
    yield database
    database.close()


@pytest.fixture
def old_db(new_database):
    """A database migrated one step at a time from m001, with rows written under each old schema by plain SQL."""
    db = connection.connect(new_database("old"))
    apply_up_to(db, "m001_initial")
    write(
        db,
        "INSERT INTO designs VALUES (?, ?, ?, ?)",
        [design_row("d-old", 1, OLD_CHEATED), design_row("d-new", 2, NEW_CHEATED)],
    )
    write(
        db,
        "INSERT INTO responses VALUES (?, 'quiz', ?, ?, 'device', '2026-11-20', ?)",
        [
            ("a1", 1, "d-old", '{"cheated": "yes", "year": "first"}'),
            ("a2", 1, "d-old", '{"cheated": "no", "year": "first"}'),
            ("a3", 2, "d-new", '{"cheated": "yes", "year": "first"}'),
            ("a4", 2, "d-new", '{"cheated": "yes", "year": "second"}'),
            ("a5", 2, "d-new", '{"cheated": "no"}'),
        ],
    )
    apply_up_to(db, "m002_admins")
    write(db, "INSERT INTO admins (name, password_hash, failed_logins, locked_until) VALUES ('ada', 'h', 2, 0)")
    for name in NAMES[2:]:
        apply_up_to(db, name)
    yield db
    db.close()


def test_migrations_apply_once(backend_db):
    assert migrations.migrate(backend_db) == []
    assert migrations.applied_names(backend_db) == NAMES


def test_migration_names_never_change(new_database):
    """Applied migrations are recorded by name: a renamed one would run again on every database."""
    empty = connection.connect(new_database("empty"))
    assert migrations.pending_names(empty) == NAMES
    empty.close()


def test_an_old_database_migrated_step_by_step_ends_with_the_tables_of_a_fresh_one(old_db, backend_db):
    assert migrations.applied_names(old_db) == NAMES
    assert schema(old_db) == schema(backend_db)
    assert old_db.execute("SELECT name, password_hash FROM admins").fetchall() == [("ada", "h")]
    assert old_db.execute("SELECT COUNT(*) FROM responses").fetchone() == (5,)


def test_m005_backfills_the_group_tallies_of_responses_stored_before_it(old_db):
    rows = old_db.execute(
        "SELECT by_question, by_answer, question, design, answer, count FROM group_tallies"
        " WHERE survey_id = 'quiz' ORDER BY by_answer, question, design, answer"
    ).fetchall()
    assert rows == [
        ("year", "", "cheated", NEW_CHEATED, "no", 1),  # a5 left year unanswered
        ("year", "first", "cheated", OLD_CHEATED, "no", 1),  # sorted by key: "1/4" before "1/6"
        ("year", "first", "cheated", OLD_CHEATED, "yes", 1),
        ("year", "first", "cheated", NEW_CHEATED, "yes", 1),
        ("year", "first", "year", YEAR, "first", 3),
        ("year", "second", "cheated", NEW_CHEATED, "yes", 1),
        ("year", "second", "year", YEAR, "second", 1),
    ]
    backfilled = queries.group_tallies(old_db, "quiz", "year")
    queries.rebuild_group_tallies(old_db)  # the live repair agrees with the migration's own copy
    assert queries.group_tallies(old_db, "quiz", "year") == backfilled


def test_m005_calls_no_live_code(new_database, monkeypatch):
    """A later change of the live recount or of the design contract cannot change what m005 does."""

    def changed(*args, **kwargs):
        raise AssertionError("m005 called live code")

    for module, name in [
        (queries, "rebuild_group_tallies"),
        (queries, "scan_group_tallies"),
        (queries, "design_records"),
        (design_contract, "canonical_json"),
    ]:
        monkeypatch.setattr(module, name, changed)
    db = connection.connect(new_database("m005"))
    apply_up_to(db, "m004_export_indexes")
    write(db, "INSERT INTO designs VALUES (?, ?, ?, ?, NULL)", [design_row("d-old", 1, OLD_CHEATED)])
    write(
        db,
        "INSERT INTO responses VALUES ('a1', 'quiz', 1, 'd-old', 'server', '2026-11-20',"
        ' \'{"cheated": "yes", "year": "first"}\', NULL)',
    )
    assert migrations.migrate(db) == NAMES[4:]
    assert db.execute("SELECT by_answer, question, count FROM group_tallies ORDER BY question").fetchall() == [
        ("first", "cheated", 1),
        ("first", "year", 1),
    ]
    db.close()


def test_migration_backfills_group_tallies_of_older_databases(backend_db):
    from storage import responses
    from surveys.schema import parse_survey
    from surveys.submission import noisy_response

    survey = parse_survey(
        {
            "id": "g",
            "title": "G",
            "version": 1,
            "questions": [
                {"name": "cheated", "type": "yes_no", "label": "Cheated?"},
                {
                    "name": "year",
                    "type": "select_one",
                    "label": "Year",
                    "choices": ["first", "second"],
                    "randomize": False,
                },
            ],
        },
        "g.yaml",
    )
    for i, noisy in enumerate([{"cheated": "yes", "year": "first"}, {"cheated": "no", "year": "second"}]):
        responses.store_response(backend_db, noisy_response(survey, noisy, "server"), f"old-key-{i:08d}", "2026-11-22")
    kept = queries.group_tallies(backend_db, "g", "year")
    backend_db.execute("DROP TABLE group_tallies")  # as a database from before m005
    forget_migration(backend_db, "m005_group_tallies")
    assert migrations.migrate(backend_db) == ["m005_group_tallies"]
    assert queries.group_tallies(backend_db, "g", "year") == kept


def test_m008_backfills_the_pattern_tallies_kept_at_submission(backend_db):
    """Drop the kept pattern counts and migrate again: the backfill, with its own SQL, counts the same."""
    from tests.helpers.records import store_model_answers
    from tests.helpers.sample_surveys import model_survey

    store_model_answers(backend_db, model_survey(), 200)
    kept = backend_db.execute("SELECT * FROM pattern_tallies ORDER BY 1, 2, 3, 4, 5").fetchall()
    assert len(kept) > 20
    backend_db.execute("DROP TABLE pattern_tallies")
    forget_migration(backend_db, "m008_pattern_tallies")
    assert migrations.migrate(backend_db) == ["m008_pattern_tallies"]
    assert backend_db.execute("SELECT * FROM pattern_tallies ORDER BY 1, 2, 3, 4, 5").fetchall() == kept


def test_m008_backfills_the_old_database(old_db):
    rows = old_db.execute(
        "SELECT outcome, design, pattern, answer, count FROM pattern_tallies ORDER BY 2, 3, 4"
    ).fetchall()
    assert rows == [
        ("cheated", OLD_CHEATED, '{"year":"first"}', "no", 1),
        ("cheated", OLD_CHEATED, '{"year":"first"}', "yes", 1),
        ("cheated", NEW_CHEATED, '{"year":""}', "no", 1),
        ("cheated", NEW_CHEATED, '{"year":"first"}', "yes", 1),
        ("cheated", NEW_CHEATED, '{"year":"second"}', "yes", 1),
    ]


def test_m009_backfills_the_daily_tallies_of_responses_stored_before_it(old_db):
    write(  # a response of another day, stored under m007's schema
        old_db,
        "INSERT INTO responses (id, survey_id, survey_version, design_id, randomized_on, day, answers, answer_line)"
        " VALUES ('a6', 'quiz', 2, ?, 'server', '2026-11-21', '{\"cheated\": \"no\"}', NULL)",
        [(scoped("quiz", "d-new"),)],
    )
    old_db.execute("DROP TABLE daily_tallies")
    forget_migration(old_db, "m009_daily_tallies")
    assert migrations.migrate(old_db) == ["m009_daily_tallies"]
    assert queries.daily_tallies(old_db, "quiz") == [
        (
            "2026-11-20",
            {
                "cheated": {OLD_CHEATED: {"yes": 1, "no": 1}, NEW_CHEATED: {"yes": 2, "no": 1}},
                "year": {YEAR: {"first": 3, "second": 1}},
            },
        ),
        ("2026-11-21", {"cheated": {NEW_CHEATED: {"no": 1}}}),
    ]
    for day in ("2026-11-20", "2026-11-21"):  # the migration's own recount agrees with the live one
        assert dict(queries.daily_tallies(old_db, "quiz"))[day] == queries.tallies_on_days(old_db, "quiz", [day])


def test_m009_calls_no_live_code(new_database, monkeypatch):
    """A later change of the live recount or of the design contract cannot change what m009 does."""

    def changed(*args, **kwargs):
        raise AssertionError("m009 called live code")

    for module, name in [
        (queries, "tallies_on_days"),
        (queries, "design_records"),
        (design_contract, "canonical_json"),
        (design_contract, "record_design_keys"),
    ]:
        monkeypatch.setattr(module, name, changed)
    db = connection.connect(new_database("m009"))
    apply_up_to(db, "m008_pattern_tallies")
    write(db, "INSERT INTO designs VALUES (?, ?, ?, ?, NULL)", [design_row("d-old", 1, OLD_CHEATED)])
    write(
        db,
        "INSERT INTO responses VALUES ('a1', 'quiz', 1, 'd-old', 'server', '2026-11-20',"
        ' \'{"cheated": "yes"}\', NULL)',
    )
    assert migrations.migrate(db) == NAMES[NAMES.index("m009_daily_tallies") :]
    assert db.execute("SELECT day, question, design, answer, count FROM daily_tallies").fetchall() == [
        ("2026-11-20", "cheated", OLD_CHEATED, "yes", 1)
    ]
    db.close()


def test_m010_puts_every_older_response_in_no_arm_and_takes_only_known_arms(old_db):
    assert {arm for (arm,) in old_db.execute("SELECT arm FROM responses").fetchall()} == {""}
    insert = (
        "INSERT INTO responses (id, survey_id, survey_version, design_id, randomized_on, day, answers, arm)"
        " VALUES (?, 'quiz', 2, ?, 'server', '2026-11-21', '{}', ?)"
    )
    write(old_db, insert, [("g2", scoped("quiz", "d-new"), "2")])
    with pytest.raises((sqlite3.IntegrityError, psycopg.errors.CheckViolation)):
        write(old_db, insert, [("g3", scoped("quiz", "d-new"), "3")])


def test_m011_keeps_older_bursts_and_responses_unmarked_and_takes_a_burst_without_a_usual_rate(backend_db_up_to_m010):
    db = backend_db_up_to_m010
    write(db, "INSERT INTO designs VALUES (?, ?, ?, ?, NULL)", [design_row("d-old", 1, OLD_CHEATED)])
    write(
        db,
        "INSERT INTO responses (id, survey_id, survey_version, design_id, randomized_on, day, answers)"
        " VALUES ('a1', 'quiz', 1, 'd-old', 'server', '2026-11-20', '{\"cheated\": \"yes\"}')",
    )
    write(db, "INSERT INTO bursts VALUES ('quiz', '2026-11-20', 60, 2.0)")
    assert migrations.migrate(db) == NAMES[NAMES.index("m011_burst_marks") :]
    assert [tuple(row) for row in db.execute("SELECT burst FROM responses").fetchall()] == [(0,)]
    assert [tuple(row) for row in db.execute("SELECT * FROM bursts").fetchall()] == [
        ("quiz", "2026-11-20", 60, 2.0, 0, 0)
    ]
    write(db, "INSERT INTO bursts (survey_id, day, peak, usual_rate) VALUES ('quiz', '2026-11-21', 320, NULL)")
    assert db.execute("SELECT usual_rate FROM bursts WHERE day = '2026-11-21'").fetchone()[0] is None
    with pytest.raises((sqlite3.IntegrityError, psycopg.errors.CheckViolation)):
        write(db, "UPDATE responses SET burst = 2")


@pytest.fixture
def backend_db_up_to_m010(new_database):
    """A database of each backend migrated up to m010, before the burst marks."""
    db = connection.connect(new_database("m010"))
    apply_up_to(db, "m010_response_arms")
    yield db
    db.close()


def test_m016_gives_each_survey_its_own_design_records_and_moves_its_responses(new_database):
    """Two surveys that shared one ``designs`` row (the same questions) each get a row of their own, under the
    id :meth:`surveys.definition.Survey.design_fingerprint` now gives, with every response following."""
    db = connection.connect(new_database("m016"))
    apply_up_to(db, "m015_events_and_tokens")
    write(db, "INSERT INTO designs VALUES (?, ?, ?, ?, NULL)", [design_row("d-shared", 1, OLD_CHEATED)])
    insert = (
        "INSERT INTO responses (id, survey_id, survey_version, design_id, randomized_on, day, answers)"
        " VALUES (?, ?, 1, 'd-shared', 'server', '2026-11-20', '{\"cheated\": \"yes\"}')"
    )
    write(db, insert, [("a1", "quiz"), ("b1", "copy"), ("b2", "copy")])
    assert migrations.migrate(db) == NAMES[NAMES.index("m016_survey_scoped_design_ids") :]
    rows = db.execute("SELECT id, survey_id, questions FROM designs ORDER BY survey_id").fetchall()
    assert [survey_id for _, survey_id, _ in rows] == ["copy", "quiz"]
    assert rows[0][2] == rows[1][2] == design_row("d-shared", 1, OLD_CHEATED)[3]
    ids = {
        survey_id: hashlib.sha256(f"{survey_id}\0d-shared".encode()).hexdigest()[:16] for survey_id in ("quiz", "copy")
    }
    assert {survey_id: design_id for design_id, survey_id, _ in rows} == ids
    moved = db.execute("SELECT id, design_id FROM responses ORDER BY id").fetchall()
    assert moved == [("a1", ids["quiz"]), ("b1", ids["copy"]), ("b2", ids["copy"])]
    db.close()
