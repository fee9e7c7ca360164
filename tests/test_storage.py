"""Tests of the storage module: schema, transactions, tallies, codes, file modes, backup and rebuild."""

from __future__ import annotations

import dataclasses
import os
import sqlite3
import threading

import numpy as np
import pytest

from storage import (
    burst_days,
    connection,
    export_rows,
    invitation_codes,
    kept_counts,
    migrations,
    queries,
    ratelimit,
    responses,
    survey_states,
)
from surveys import submission
from tests.helpers.records import dump_database, frontend_waits, store_model_answers
from tests.helpers.sample_surveys import model_survey

pytestmark = pytest.mark.sqlite_only(
    reason=(
        "its fresh_db tests: SQLite's WAL and busy timeout, rowid, backup and rebuild files, statement trace, "
        "a recount under the busy timeout; its other storage tests run on both backends through backend_db"
    )
)


def response(answers=None, survey_id="s", designs=None):
    answers = answers or {"q": "yes"}
    return submission.NoisyResponse(
        survey_id=survey_id,
        survey_version=1,
        design_id="fp1",
        design_record="{}",
        answers=answers,
        question_designs=dict.fromkeys(answers, "d1") if designs is None else designs,
        randomized_on="device",
    )


def column_names(db, table: str) -> list[str]:
    """The columns of ``table`` on either backend."""
    if connection.is_postgres(db):
        return db.column_names(table)
    return [column.name for column in db[table].columns]


def test_database_uses_wal_and_a_busy_timeout(fresh_db):
    assert fresh_db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert fresh_db.execute("PRAGMA busy_timeout").fetchone()[0] == connection.BUSY_TIMEOUT_SECONDS * 1000


def test_schema_has_no_column_for_addresses_agents_or_times(backend_db):
    forbidden = ("ip", "addr", "agent", "time", "referr", "created", "truth", "true")
    tables = [table for table in backend_db.table_names() if not table.startswith("_")]
    assert "responses" in tables and len(tables) >= 10
    for table in tables:
        for column in column_names(backend_db, table):
            assert not any(word in column.lower() for word in forbidden), (table, column)


def test_a_response_marked_during_a_burst_holds_a_mark_not_a_time_or_an_address(backend_db):
    """The mark is one column of 0 or 1 beside the day the row already had; the marked answers' kept tallies
    are per day too; nothing else is added to a response."""
    assert column_names(backend_db, "responses") == [
        "id",
        "survey_id",
        "survey_version",
        "design_id",
        "randomized_on",
        "day",
        "answers",
        "answer_line",
        "arm",
        "burst",
    ]
    assert column_names(backend_db, "burst_tallies") == ["survey_id", "day", "question", "design", "answer", "count"]
    assert responses.store_response(backend_db, response(), "k-marked-0000", "2026-11-21", hour_count=1, in_burst=True)
    assert responses.store_response(backend_db, response(), "k-plain-00000", "2026-11-21", hour_count=2)
    rows = backend_db.execute("SELECT day, burst FROM responses ORDER BY burst").fetchall()
    assert [tuple(row) for row in rows] == [("2026-11-21", 0), ("2026-11-21", 1)]
    assert queries.burst_tallies_on_days(backend_db, "s", ["2026-11-21"]) == {"q": {"d1": {"yes": 1}}}
    assert queries.tallies(backend_db, "s") == {"q": {"d1": {"yes": 2}}}
    assert burst_days.bursts(backend_db, "s") == [burst_days.BurstDay("2026-11-21", 1, None, 1, False)]


def test_responses_have_random_ids_and_no_rowid(fresh_db):
    for key in ("a" * 16, "b" * 16):
        responses.store_response(fresh_db, response(), key, "2026-11-22")
    ids = [row[0] for row in fresh_db.execute("SELECT id FROM responses")]
    assert len(set(ids)) == 2 and all(len(i) == 32 for i in ids)
    with pytest.raises(sqlite3.OperationalError):
        fresh_db.execute("SELECT rowid FROM responses")


def test_repeated_submission_key_stores_nothing(backend_db):
    assert responses.store_response(backend_db, response(), "k" * 16, "2026-11-22") is True
    assert responses.store_response(backend_db, response(), "k" * 16, "2026-11-22") is False
    assert backend_db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 1
    assert queries.response_count(backend_db, "s") == 1


def test_many_answers_stored_in_one_transaction_equal_the_same_answers_stored_one_by_one(backend_db, new_database):
    """:func:`storage.responses.store_responses` (the seeder's and loaders' batch) stores what
    :func:`store_response` stores answer by answer: the same rows in every table (the responses' random ids
    aside), a key stored already or given twice skipped, every kept count equal."""
    survey = model_survey()
    rng = np.random.default_rng(11)  # test data only, not a privacy path
    batch = []
    for i in range(40):
        noisy = {"cheated": str(rng.choice(["yes", "no"]))}
        if i % 3:
            noisy["lied"] = str(rng.choice(["yes", "no"]))
        noisy.update({q.name: str(rng.choice(q.choice_names)) for q in survey.plain_questions if i % 4})
        batch.append((submission.noisy_response(survey, noisy, "server"), f"batch-key-{i:04d}"))
    one_by_one = connection.connect(new_database("one-by-one"))
    migrations.migrate(one_by_one)
    try:
        responses.store_response(one_by_one, batch[0][0], batch[0][1], "2026-11-22")
        responses.store_response(backend_db, batch[0][0], batch[0][1], "2026-11-22")
        for noisy, key in batch[1:]:
            assert responses.store_response(one_by_one, noisy, key, "2026-11-22") is True
        assert responses.store_responses(backend_db, batch + [batch[5]], "2026-11-22") == len(batch) - 1
        assert _rows_but_response_ids(backend_db) == _rows_but_response_ids(one_by_one)
    finally:
        one_by_one.close()


def test_a_batch_of_two_surveys_keeps_each_surveys_counts_apart(backend_db, new_database):
    """The kept-count upserts send the key columns that every row shares (the survey, the day) once: a batch
    whose rows differ in the survey (no shared column), in the question only, or in nothing but the answer
    stores what the same answers stored one by one store."""
    batch = [
        (response({"q": answer, "r": other}, survey_id=survey), f"two-surveys-{index:04d}")
        for index, (survey, answer, other) in enumerate(
            [("s", "yes", "a"), ("t", "no", "b"), ("s", "no", "a"), ("t", "no", "c"), ("s", "yes", "b")]
        )
    ]
    one_by_one = connection.connect(new_database("one-by-one-two-surveys"))
    migrations.migrate(one_by_one)
    try:
        for noisy, key in batch:
            assert responses.store_response(one_by_one, noisy, key, "2026-11-22") is True
        assert responses.store_responses(backend_db, batch, "2026-11-22") == len(batch)
        assert _rows_but_response_ids(backend_db) == _rows_but_response_ids(one_by_one)
        assert queries.tallies(backend_db, "s") == {"q": {"d1": {"yes": 2, "no": 1}}, "r": {"d1": {"a": 2, "b": 1}}}
        assert queries.tallies(backend_db, "t") == {"q": {"d1": {"no": 2}}, "r": {"d1": {"b": 1, "c": 1}}}
    finally:
        one_by_one.close()


def _rows_but_response_ids(db) -> dict[str, list[tuple]]:
    dumped = {
        table: rows for table, rows in dump_database(db).items() if not table.startswith("_")
    }  # migrations' times
    id_column = column_names(db, "responses").index("id")
    dumped["responses"] = sorted((row[:id_column] + row[id_column + 1 :] for row in dumped["responses"]), key=repr)
    return dumped


def test_a_submission_is_stored_once_and_a_refused_one_leaves_no_trace(backend_db, tmp_path):
    """:func:`storage.responses.store_submission`, the one write path: a repeated key or a refused code stores
    nothing, uses no code and counts no arrival; the stored answer counts one arrival and one hour. On
    PostgreSQL the arrival is counted in the answer's own transaction (the rate-limit tables of the database)."""
    if connection.is_postgres(backend_db):
        ratelimit.create_postgres_tables(backend_db)
        limits_db = backend_db
    else:
        limits_db = ratelimit.connect(tmp_path / "limits.sqlite3")
    now = 1_800_000_000.0
    arrivals = responses.Arrivals(limits_db, "arrivals:s", now)
    (code,) = invitation_codes.add_invitation_codes(backend_db, "s", 1)

    def store(key: str, sent_code: str) -> responses.Outcome:
        return responses.store_submission(backend_db, response(), key, "2026-11-22", sent_code, arrivals=arrivals)

    assert store("k-unknown-code0", "no-such-code") is responses.Outcome.CODE_REFUSED
    assert store("k-first-000000", code) is responses.Outcome.STORED
    assert store("k-first-000000", code) is responses.Outcome.REPEAT
    assert store("k-used-code-000", code) is responses.Outcome.CODE_REFUSED
    assert queries.response_count(backend_db, "s") == 1 and burst_days.hour_histogram(backend_db, "s") == [(1, 1)]
    assert not responses.submission_key_exists(backend_db, "k-unknown-code0")
    assert not responses.submission_key_exists(backend_db, "k-used-code-000")
    next_count = ratelimit.hit(limits_db, "arrivals:s", responses.ARRIVAL_LIMIT, now).count
    assert next_count == 2  # only the stored answer was counted


def test_the_state_read_with_the_keys_claim_refuses_a_closed_survey_before_anything_else(backend_db):
    """``refuse`` gets the admin's open/closed choice read with the key's claim (on SQLite returned by the
    claim itself): a closed survey refuses a new answer and a repeat alike (the state comes first, read apart
    when the key was claimed already), and an open one stores the new key once and thanks its repeat."""
    seen: list[bool | None] = []

    def store(key: str) -> responses.Outcome:
        def refuse(closed: bool | None) -> bool:
            seen.append(closed)
            return bool(closed)

        return responses.store_submission(backend_db, response(), key, "2026-11-22", refuse=refuse)

    assert store("k-first-000000") is responses.Outcome.STORED
    survey_states.set_closed(backend_db, "s", True)
    assert store("k-first-000000") is responses.Outcome.REFUSED
    assert store("k-second-00000") is responses.Outcome.REFUSED
    survey_states.set_closed(backend_db, "s", False)
    assert store("k-first-000000") is responses.Outcome.REPEAT
    assert seen == [None, True, True, False]
    assert queries.response_count(backend_db, "s") == 1
    assert not responses.submission_key_exists(backend_db, "k-second-00000")


def test_failed_write_leaves_nothing_behind(backend_db):
    bad = response(designs={})  # no design key for the answer: KeyError mid-transaction
    with pytest.raises(KeyError):
        responses.store_response(backend_db, bad, "k" * 16, "2026-11-22")
    for table in ("responses", "submission_keys", "tallies", "daily_counts", "designs"):
        assert backend_db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0, table


def test_tallies_and_daily_counts(backend_db):
    responses.store_response(backend_db, response({"q": "yes", "r": "b"}), "a" * 16, "2026-11-21")
    responses.store_response(backend_db, response({"q": "no", "r": "b"}), "b" * 16, "2026-11-22")
    responses.store_response(backend_db, response({"q": "yes"}), "c" * 16, "2026-11-22")
    assert queries.tallies(backend_db, "s") == {"q": {"d1": {"yes": 2, "no": 1}}, "r": {"d1": {"b": 2}}}
    assert queries.daily_counts(backend_db, "s") == [("2026-11-21", 1), ("2026-11-22", 2)]


def test_invitation_codes_are_single_use_and_unlinked(backend_db):
    (code,) = invitation_codes.add_invitation_codes(backend_db, "s", 1)
    assert invitation_codes.invitation_code_is_valid(backend_db, "s", code)
    assert responses.store_response(backend_db, response(), "a" * 16, "2026-11-22", code)
    assert not invitation_codes.invitation_code_is_valid(backend_db, "s", code)
    with pytest.raises(responses.InvitationCodeError):
        responses.store_response(backend_db, response(), "b" * 16, "2026-11-22", code)
    assert backend_db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 1
    assert code not in str(backend_db.execute("SELECT * FROM invitation_codes").fetchall())  # only hashes
    assert "code" not in " ".join(column_names(backend_db, "responses"))


def test_concurrent_writers_never_see_database_locked(tmp_path):
    path = tmp_path / "c.sqlite3"
    migrations.migrate(connection.connect(path))
    errors = []

    def writer(worker: int):
        db = connection.connect(path)
        try:
            for i in range(50):
                responses.store_response(db, response(), f"w{worker:02d}-{i:04d}-xxxxxxxx", "2026-11-22")
        except Exception as error:  # noqa: BLE001 - any failure is the finding
            errors.append(repr(error))
        finally:
            db.close()

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    db = connection.connect(path)
    assert db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 400
    assert queries.response_count(db, "s") == 400


def test_admin_closed_override(backend_db):
    assert survey_states.closed_override(backend_db, "s") is None
    survey_states.set_closed(backend_db, "s", True)
    assert survey_states.closed_override(backend_db, "s") is True
    survey_states.set_closed(backend_db, "s", False)
    assert survey_states.closed_override(backend_db, "s") is False


def test_randomized_on_must_be_device_or_server():
    with pytest.raises(ValueError, match="'phone'"):
        submission.NoisyResponse("s", 1, "f", "{}", {}, {}, "phone")


def test_group_tallies_kept_at_submission_equal_a_fresh_recount(backend_db):
    """The running break-down tallies must equal a recount from the stored responses
    (the migration's backfill), including respondents who skipped the group question."""
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
                    "required": False,
                },
            ],
        },
        "g.yaml",
    )
    answers = [
        {"cheated": "yes", "year": "first"},
        {"cheated": "no", "year": "first"},
        {"cheated": "yes", "year": "second"},
        {"cheated": "yes"},
    ]
    for i, noisy in enumerate(answers):
        responses.store_response(
            backend_db, noisy_response(survey, noisy, "device"), f"group-key-{i:06d}", "2026-11-22"
        )
    kept = queries.group_tallies(backend_db, "g", "year")
    (design,) = kept["first"]["cheated"]
    assert kept["first"]["cheated"][design] == {"yes": 1, "no": 1}
    assert kept["second"]["cheated"][design] == {"yes": 1}
    assert kept[None]["cheated"][design] == {"yes": 1}
    queries.rebuild_group_tallies(backend_db)
    assert queries.group_tallies(backend_db, "g", "year") == kept
    assert queries.group_tallies(backend_db, "g", "year") == queries.scan_group_tallies(backend_db, "g", "year")


def mode(path) -> int:
    return os.stat(path).st_mode & 0o777


def test_database_and_its_log_files_are_created_private(tmp_path, umask_022):
    db = connection.connect(tmp_path / "answers.sqlite3")
    migrations.migrate(db)
    responses.store_response(db, response(), "a" * 16, "2026-11-22")
    files = [tmp_path / name for name in ("answers.sqlite3", "answers.sqlite3-wal", "answers.sqlite3-shm")]
    assert {path.name: mode(path) for path in files} == {path.name: 0o600 for path in files}
    db.close()


def test_an_existing_file_keeps_its_mode(tmp_path, umask_022):
    path = tmp_path / "shared.sqlite3"
    path.touch(mode=0o640)
    connection.create_private_file(path)
    assert mode(path) == 0o640


def test_backup_and_its_partial_file_are_private(fresh_db, tmp_path, umask_022, monkeypatch):
    responses.store_response(fresh_db, response(), "a" * 16, "2026-11-22")
    check_copy, partial_modes = connection._check_copy, []

    def check_and_record(partial):
        partial_modes.append(mode(partial))
        return check_copy(partial)

    monkeypatch.setattr(connection, "_check_copy", check_and_record)
    target = tmp_path / "backup.sqlite3"
    assert connection.backup(tmp_path / "fresh.sqlite3", target) == 1
    assert partial_modes == [0o600] and mode(target) == 0o600


def test_failed_backup_leaves_no_partial_copy(tmp_path):
    source = tmp_path / "not-ours.sqlite3"
    sqlite3.connect(source).close()  # an empty database: no responses table
    target = tmp_path / "backup.sqlite3"
    with pytest.raises(sqlite3.OperationalError, match="responses"):
        connection.backup(source, target)
    assert not target.exists() and not (tmp_path / "backup.sqlite3.partial").exists()


def test_rebuild_keeps_every_row_and_empties_the_log(fresh_db, tmp_path):
    for key in ("a" * 16, "b" * 16):
        responses.store_response(fresh_db, response(), key, "2026-11-22")
    before = fresh_db.execute("SELECT * FROM responses ORDER BY id").fetchall()
    assert (tmp_path / "fresh.sqlite3-wal").stat().st_size > 0
    assert connection.rebuild(fresh_db) == 2
    assert fresh_db.execute("SELECT * FROM responses ORDER BY id").fetchall() == before
    assert queries.tallies(fresh_db, "s") == {"q": {"d1": {"yes": 2}}}
    assert (tmp_path / "fresh.sqlite3-wal").stat().st_size == 0


def recount_patterns(db, survey_id: str, outcome: str, plain: list[str]) -> dict:
    """``{pattern: {answer: count}}`` of ``outcome`` counted here from the stored responses, one by one."""
    import json

    counts: dict = {}
    for (answers,) in db.execute("SELECT answers FROM responses WHERE survey_id = ?", [survey_id]).fetchall():
        stored = json.loads(answers)
        if outcome in stored:
            pattern = json.dumps({name: stored.get(name, "") for name in plain}, sort_keys=True, separators=(",", ":"))
            by_answer = counts.setdefault(pattern, {})
            by_answer[stored[outcome]] = by_answer.get(stored[outcome], 0) + 1
    return counts


def test_pattern_tallies_kept_at_submission_equal_a_recount_from_the_responses(backend_db):
    survey = model_survey()
    store_model_answers(backend_db, survey, 300)
    for outcome in ("cheated", "lied"):
        kept = kept_counts.pattern_tallies(backend_db, "m", outcome)
        (design,) = kept  # one design per outcome
        assert design == submission.question_design_key(survey.question(outcome))
        assert kept[design] == recount_patterns(backend_db, "m", outcome, ["p0", "p1"])
        assert sum(sum(a.values()) for a in kept[design].values()) > 150


def test_pattern_tallies_of_excluded_days_equal_their_share_of_the_kept_counts(backend_db):
    survey = model_survey()
    store_model_answers(backend_db, survey, 120)
    assert kept_counts.pattern_tallies_on_days(
        backend_db, "m", "cheated", ["2026-11-22"]
    ) == kept_counts.pattern_tallies(backend_db, "m", "cheated")
    assert kept_counts.pattern_tallies_on_days(backend_db, "m", "cheated", ["2026-11-23"]) == {}


def test_rebuilding_the_pattern_tallies_restores_a_recount_and_touches_no_other_survey(backend_db):
    survey = model_survey()
    store_model_answers(backend_db, survey, 200)
    kept = kept_counts.pattern_tallies(backend_db, "m", "cheated")
    backend_db.execute("UPDATE pattern_tallies SET count = count + 5 WHERE outcome = 'cheated'")
    backend_db.execute("DELETE FROM pattern_tallies WHERE outcome = 'lied'")
    backend_db.execute("INSERT INTO pattern_tallies VALUES ('other', 'cheated', 'd', '{}', 'yes', 7)")
    rows = kept_counts.rebuild_pattern_tallies(backend_db, "m")
    (design,) = kept_counts.pattern_tallies(backend_db, "m", "cheated")
    assert kept_counts.pattern_tallies(backend_db, "m", "cheated") == kept
    assert kept_counts.pattern_tallies(backend_db, "m", "cheated")[design] == recount_patterns(
        backend_db, "m", "cheated", ["p0", "p1"]
    )
    (lied,) = kept_counts.pattern_tallies(backend_db, "m", "lied")
    recount = recount_patterns(backend_db, "m", "lied", ["p0", "p1"])
    assert kept_counts.pattern_tallies(backend_db, "m", "lied")[lied] == recount
    assert rows == backend_db.execute("SELECT COUNT(*) FROM pattern_tallies WHERE survey_id = 'm'").fetchone()[0]
    assert kept_counts.pattern_tallies(backend_db, "other", "cheated") == {"d": {"{}": {"yes": 7}}}
    assert not connection.in_transaction(backend_db)


def test_a_response_stored_during_the_pattern_recount_is_neither_blocked_nor_lost(fresh_db, tmp_path, monkeypatch):
    from surveys.submission import noisy_response

    survey = model_survey()
    store_model_answers(fresh_db, survey, 100)
    fresh_db.execute("UPDATE pattern_tallies SET count = count + 2")  # drift the repair must undo
    path = fresh_db.execute("PRAGMA database_list").fetchone()[2]
    scan = kept_counts.scan_pattern_tallies

    def scan_while_a_response_arrives(db, survey_id, days=None):
        rows = scan(db, survey_id, days)
        other = connection.connect(path)
        other.execute("PRAGMA busy_timeout = 200")  # a submission blocked by the repair would fail here
        answers = {"cheated": "yes", "lied": "no", "p0": "c1", "p1": "c2"}
        responses.store_response(other, noisy_response(survey, answers, "server"), "arrived-mid-scan", "2026-11-22")
        other.close()
        return rows

    monkeypatch.setattr(kept_counts, "scan_pattern_tallies", scan_while_a_response_arrives)
    kept_counts.rebuild_pattern_tallies(fresh_db, "m")
    assert fresh_db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 101
    for outcome in ("cheated", "lied"):
        (design,) = kept_counts.pattern_tallies(fresh_db, "m", outcome)
        recount = recount_patterns(fresh_db, "m", outcome, ["p0", "p1"])
        assert kept_counts.pattern_tallies(fresh_db, "m", outcome)[design] == recount


def test_no_pattern_tallies_kept_beyond_the_pattern_limit(backend_db):
    from surveys.models import MAX_PATTERNS, kept_outcomes, pattern_count

    wide = model_survey(plain_questions=5, choices=6)  # 7**5 = 16,807 patterns
    assert pattern_count(wide) == 7**5 > MAX_PATTERNS
    assert kept_outcomes(wide) == ()
    store_model_answers(backend_db, wide, 10)
    assert kept_counts.pattern_tallies(backend_db, "m", "cheated") == {}
    assert kept_outcomes(model_survey(plain_questions=4, choices=9)) == ("cheated", "lied")  # 10**4 is allowed


def test_a_plain_numbers_bin_is_in_the_kept_patterns_and_the_recount_spells_the_same(backend_db):
    """A plain number is a predictor by its bins: the write path's patterns spell its bin key (not its stored grid
    position), equal to a recount here by hand, and the storage scan (excluded days, the repair) spells the same."""
    import json

    from surveys.schema import parse_survey
    from surveys.submission import noisy_response

    questions = [
        {"name": "cheated", "type": "yes_no", "label": "Cheated?"},
        {"name": "p0", "type": "select_one", "label": "P0", "choices": ["c0", "c1"], "randomize": False},
        {"name": "age", "type": "integer", "label": "Age", "min": 16, "max": 99, "randomize": False,
         "required": False, "bins": [30, 45, 65]},
    ]  # fmt: skip
    survey = parse_survey({"id": "pn", "title": "PN", "version": 1, "questions": questions}, "pn.yaml")
    by_hand: dict = {}
    for i in range(90):
        noisy = {"cheated": ["yes", "no"][i % 2 if i % 5 else 0], "p0": f"c{(i // 2) % 2}"}
        if i % 9:
            noisy["age"] = f"{(7 * i) % 84:02d}"  # grid positions: age 16 + position
        responses.store_response(backend_db, noisy_response(survey, noisy, "server"), f"pn-{i:04d}", "2026-11-22")
        age = "" if "age" not in noisy else f"b{sum(16 + int(noisy['age']) >= cut for cut in (30, 45, 65)):02d}"
        pattern = json.dumps({"age": age, "p0": noisy["p0"]}, sort_keys=True, separators=(",", ":"))
        by_answer = by_hand.setdefault(pattern, {})
        by_answer[noisy["cheated"]] = by_answer.get(noisy["cheated"], 0) + 1
    kept = kept_counts.pattern_tallies(backend_db, "pn", "cheated")
    (design,) = kept
    assert kept[design] == by_hand
    assert {json.loads(p)["age"] for p in by_hand} == {"", "b00", "b01", "b02", "b03"}
    assert kept_counts.pattern_tallies_on_days(backend_db, "pn", "cheated", ["2026-11-22"]) == kept
    backend_db.execute("DELETE FROM pattern_tallies WHERE survey_id = 'pn'")
    kept_counts.rebuild_pattern_tallies(backend_db, "pn")
    assert kept_counts.pattern_tallies(backend_db, "pn", "cheated") == kept


def test_kept_daily_tallies_equal_a_recount_and_add_up_to_the_tallies(backend_db):
    from surveys.submission import noisy_response
    from tests.helpers.sample_surveys import make_survey

    survey = make_survey()
    days = ["2026-11-20", "2026-11-21", "2026-11-23"]
    for i in range(60):
        answers = {"cheated": "yes" if i % 3 else "no", "ai_use": "once", "dept": ["arts", "law"][i % 2]}
        responses.store_response(backend_db, noisy_response(survey, answers, "server"), f"k{i:015d}", days[i % 3])
    kept = queries.daily_tallies(backend_db, "quiz")
    assert [day for day, _ in kept] == days
    for day, per_question in kept:
        assert per_question == queries.tallies_on_days(backend_db, "quiz", [day])
    summed: dict = {}
    for _, per_question in kept:
        for question, by_design in per_question.items():
            for design, by_answer in by_design.items():
                for answer, count in by_answer.items():
                    target = summed.setdefault(question, {}).setdefault(design, {})
                    target[answer] = target.get(answer, 0) + count
    assert summed == queries.tallies(backend_db, "quiz")


def test_closing_on_targets_writes_once_and_never_overrides_a_choice_made_by_hand(backend_db):
    assert survey_states.close_on_targets(backend_db, "s") is True
    assert survey_states.closed_override(backend_db, "s") is True
    assert survey_states.close_on_targets(backend_db, "s") is False  # a second answer that sees the targets met
    survey_states.set_closed(backend_db, "s", False)  # reopened by hand
    assert survey_states.close_on_targets(backend_db, "s") is False
    assert survey_states.closed_override(backend_db, "s") is False


def test_daily_tallies_on_days_sum_the_kept_rows_of_those_days_and_equal_a_recount(backend_db):
    from surveys.submission import noisy_response
    from tests.helpers.sample_surveys import make_survey

    survey = make_survey()
    days = ["2026-11-20", "2026-11-21", "2026-11-23"]
    for i in range(45):
        answers = {"cheated": "yes" if i % 4 else "no", "ai_use": "once", "dept": ["arts", "law"][i % 2]}
        responses.store_response(backend_db, noisy_response(survey, answers, "server"), f"k{i:015d}", days[i % 3])
    chosen = ["2026-11-20", "2026-11-23"]
    assert queries.daily_tallies_on_days(backend_db, "quiz", chosen) == queries.tallies_on_days(
        backend_db, "quiz", chosen
    )
    assert queries.daily_tallies_on_days(backend_db, "quiz", ["2026-11-22"]) == {}
    with pytest.raises(ValueError, match="2026-13-01"):
        queries.daily_tallies_on_days(backend_db, "quiz", ["2026-13-01"])


def test_setting_wal_waits_while_another_process_holds_the_file_and_raises_anything_else():
    """Workers booting together: the journal-mode pragma can answer "database is locked" at once (no busy
    handler) while the first worker migrates a new file; it is retried, any other error is not."""

    class Flaky:
        def __init__(self, failures, message="database is locked"):
            self.calls, self.failures, self.message = 0, failures, message

        def execute(self, sql):
            self.calls += 1
            if self.calls <= self.failures:
                raise sqlite3.OperationalError(self.message)

    locked = Flaky(2)
    connection._set_wal(locked)
    assert locked.calls == 3
    other = Flaky(1, "disk I/O error")
    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
        connection._set_wal(other)
    assert other.calls == 1


def test_a_response_on_postgresql_goes_out_in_two_round_trips(postgres_url, tmp_path):
    """BEGIN with the submission key (its result decides), then every other write with the COMMIT, in one
    pipeline: the writes that read no result do not wait for one another (was eleven round trips, one per
    statement, then six with BEGIN and COMMIT apart)."""
    db = connection.connect(postgres_url)
    migrations.migrate(db)
    trace = tmp_path / "libpq.trace"
    with open(trace, "w") as sink:
        db.conn.pgconn.trace(sink.fileno())
        stored = responses.store_response(db, response({"q": "yes", "r": "b"}), "k" * 16, "2026-11-22", hour_count=1)
        db.conn.pgconn.untrace()
    assert stored and queries.response_count(db, "s") == 1
    assert queries.tallies(db, "s") == {"q": {"d1": {"yes": 1}}, "r": {"d1": {"b": 1}}}
    assert frontend_waits(trace.read_text()) == 2
    db.close()


ARRIVAL_BUCKET = "arrivals:s"


def run_at_once(submit, workers: int) -> None:
    """``submit(index)`` for each of ``workers`` indexes, each on a thread of its own, all started, then joined."""
    threads = [threading.Thread(target=submit, args=(index,)) for index in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_the_hours_arrival_row_is_not_locked_while_the_app_decides_on_the_burst(postgres_url):
    """Every answer to a survey updates its hour's arrival count: the row is taken with the writes and the
    ``COMMIT`` (:func:`storage.responses._count_arrival_and_hour`), not in the first round trip, so another
    submission can count its own arrival while this one's app works out the burst verdict. Here another
    connection updates the row from inside the burst rule, with a lock timeout; the answer is judged at the
    count read first plus one, and both counts end up in the row."""
    db = connection.connect(postgres_url)
    migrations.migrate(db)
    ratelimit.create_postgres_tables(db)
    now = 1_800_000_000.0
    hour = int(now // responses.HOUR_SECONDS)
    ratelimit.hit(db, ARRIVAL_BUCKET, responses.ARRIVAL_LIMIT, now)  # the hour's first answer, counted
    other = connection.connect(postgres_url)
    judged = []

    def burst_of(_db, hour_count):
        other.execute("SET lock_timeout = '500ms'")
        other.execute(
            'UPDATE window_hits SET count = count + 1 WHERE bucket = ? AND "window" = ?', [ARRIVAL_BUCKET, hour]
        )
        judged.append(hour_count)
        return None

    arrivals = responses.Arrivals(db, ARRIVAL_BUCKET, now)
    outcome = responses.store_submission(db, response(), "k" * 16, "2026-11-22", arrivals=arrivals, burst_of=burst_of)
    assert outcome is responses.Outcome.STORED and judged == [2]
    count = db.execute('SELECT count FROM window_hits WHERE bucket = ? AND "window" = ?', [ARRIVAL_BUCKET, hour])
    assert count.fetchone()[0] == 3
    other.close()
    db.close()


def test_an_arrival_count_deletes_every_window_that_is_over(postgres_url):
    """The hour's count is taken with the writes (not through the rate limiter's count), and deletes the
    windows that are over as that count does, another survey's included: no bucket outlives its hour by
    more than the next answer to any survey."""
    db = connection.connect(postgres_url)
    migrations.migrate(db)
    ratelimit.create_postgres_tables(db)
    now = 1_800_000_000.0
    ratelimit.hit(db, "arrivals:other", responses.ARRIVAL_LIMIT, now)  # this hour's: kept
    ratelimit.hit(db, "arrivals:other", responses.ARRIVAL_LIMIT, now - 2 * responses.HOUR_SECONDS)  # over
    assert db.execute("SELECT COUNT(*) FROM window_hits").fetchone()[0] == 2
    arrivals = responses.Arrivals(db, ARRIVAL_BUCKET, now)
    assert responses.store_submission(db, response(), "k" * 16, "2026-11-22", arrivals=arrivals).value == "stored"
    rows = db.execute('SELECT bucket, "window" FROM window_hits ORDER BY bucket').fetchall()
    hour = int(now // responses.HOUR_SECONDS)
    assert [tuple(row) for row in rows] == [("arrivals:other", hour), (ARRIVAL_BUCKET, hour)]
    db.close()


def test_concurrent_submissions_count_every_arrival_and_move_the_histogram_through_each_count(postgres_url):
    """Twelve submissions at once, each on its own connection, in one clock hour: the hour's count is twelve
    and the histogram holds one hour of twelve (the count's row lock orders the moves as the answers commit;
    an answer that took a count must commit before the next count is taken)."""
    db = connection.connect(postgres_url)
    migrations.migrate(db)
    ratelimit.create_postgres_tables(db)
    now, workers = 1_800_000_000.0, 12
    start, outcomes = threading.Barrier(workers), []

    def submit(index: int) -> None:
        own = connection.connect(postgres_url)
        start.wait()
        arrivals = responses.Arrivals(own, ARRIVAL_BUCKET, now)
        outcomes.append(
            responses.store_submission(own, response(), f"key-{index:012d}", "2026-11-22", arrivals=arrivals)
        )
        own.close()

    run_at_once(submit, workers)
    assert outcomes == [responses.Outcome.STORED] * workers
    assert burst_days.hour_histogram(db, "s") == [(workers, 1)]
    count = db.execute("SELECT count FROM window_hits WHERE bucket = ?", [ARRIVAL_BUCKET]).fetchone()[0]
    assert count == workers == queries.response_count(db, "s")
    db.close()


def test_concurrent_answers_that_share_no_tally_still_move_the_histogram_through_each_count(postgres_url):
    """Sixteen submissions at once in one clock hour, three times, half answering one way and half the other, so
    that two answers may share no kept-count row but the day's count. The hour's move must start after the
    answer before it committed (its row at count - 1 then in the statement's snapshot): sent with the day's count,
    whose lock it waits for inside the same statement, it missed that row and left stray hours below the
    hour's count (2026-11-28: [(2, 1), (4, 1), (16, 1)] after one hour of sixteen)."""
    db = connection.connect(postgres_url)
    migrations.migrate(db)
    ratelimit.create_postgres_tables(db)
    workers, hours = 16, 3
    for hour in range(hours):
        now, start = 1_800_000_000.0 + hour * responses.HOUR_SECONDS, threading.Barrier(workers)

        def submit(index: int, now: float = now, start: threading.Barrier = start, hour: int = hour) -> None:
            own = connection.connect(postgres_url)
            answers = {"q": "yes", "r": "a"} if index % 2 else {"q": "no", "r": "b"}
            start.wait()
            responses.store_submission(
                own,
                response(answers),
                f"h{hour}-{index:012d}",
                "2026-11-22",
                arrivals=responses.Arrivals(own, ARRIVAL_BUCKET, now),
            )
            own.close()

        run_at_once(submit, workers)
    assert burst_days.hour_histogram(db, "s") == [(workers, hours)]
    assert queries.response_count(db, "s") == workers * hours
    db.close()


def test_copy_text_rows_become_csv_lines_with_their_escapes_undone():
    rows = [b"a1,1,fp1,device,,2026-11-22,yes\n", b"b2,1,fp1,server,,2026-11-22,back\\\\slash\\ttab\n"]
    assert (
        export_rows._copy_text(rows)
        == "a1,1,fp1,device,,2026-11-22,yes\r\nb2,1,fp1,server,,2026-11-22,back\\slash\ttab\r\n"
    )


def test_the_ready_csv_lines_on_postgresql_come_through_one_copy(postgres_url, tmp_path):
    """One ``COPY (SELECT ...) TO STDOUT`` for every ready line, cut into chunks of ``batch_rows`` lines here
    (was one keyset query per chunk)."""
    db = connection.connect(postgres_url)
    migrations.migrate(db)
    stored = dataclasses.replace(response({"q": "yes"}), columns=("q",))  # stored with its ready line
    for key in "abcde":
        responses.store_response(db, stored, key * 16, "2026-11-22")
    trace = tmp_path / "libpq.trace"
    with open(trace, "w") as sink, connection.read_snapshot(db):
        db.conn.pgconn.trace(sink.fileno())
        chunks = list(export_rows.response_line_chunks(db, "s", ["q"], 2))
        db.conn.pgconn.untrace()
    assert [chunk.count("\r\n") for chunk in chunks] == [2, 2, 1]
    assert all(line.endswith(",2026-11-22,yes") for line in "".join(chunks).splitlines())
    assert trace.read_text().count("COPY (SELECT") == 1 and "string_agg" not in trace.read_text()
    db.close()


def test_a_response_runs_one_statement_per_table_whatever_its_number_of_answers(fresh_db):
    """Each kept-count table gets one multi-row upsert per response (was one statement per answer: 54 write
    statements for this twelve-question response with two break-downs), and the counts stay those of a recount."""
    answers = {f"q{i}": "yes" for i in range(12)}
    plain = dataclasses.replace(response(answers), plain=("q0", "q1"), groups={"q0": "yes", "q1": "yes"})
    statements = []
    fresh_db.conn.set_trace_callback(statements.append)
    responses.store_response(fresh_db, plain, "k" * 16, "2026-11-22", hour_count=1)
    fresh_db.conn.set_trace_callback(None)
    writes = [sql for sql in statements if sql.startswith(("INSERT", "UPDATE"))]
    # submission key, design, response, tallies, group tallies, daily count, daily tallies, the hour (one move)
    assert len(writes) == 8, writes
    assert queries.tallies(fresh_db, "s") == {name: {"d1": {"yes": 1}} for name in answers}
    assert fresh_db.execute("SELECT SUM(count), COUNT(*) FROM group_tallies").fetchone() == (24, 24)
    assert fresh_db.execute("SELECT SUM(count), COUNT(*) FROM daily_tallies").fetchone() == (12, 12)


def test_kept_counts_of_more_rows_than_one_upsert_carries_are_all_added(backend_db, monkeypatch):
    monkeypatch.setattr(responses, "ROWS_PER_UPSERT", 5)
    answers = {f"q{i}": ["yes", "no"][i % 2] for i in range(12)}
    for key in ("a" * 16, "b" * 16):
        responses.store_response(backend_db, response(answers), key, "2026-11-22")
    assert queries.tallies(backend_db, "s") == {name: {"d1": {answer: 2}} for name, answer in answers.items()}
    assert backend_db.execute("SELECT SUM(count), COUNT(*) FROM daily_tallies").fetchone() == (24, 12)


def test_the_state_and_the_key_read_together_equal_each_read_alone(backend_db):
    """:func:`storage.survey_states.closed_override_and_key_seen` against :func:`closed_override` and
    :func:`submission_key_exists`, for every state (never set, closed, reopened) and key (stored, not, none)."""
    responses.store_response(backend_db, response({"q": "yes"}), "stored-key-0000000", "2026-11-22")
    for closed in (None, True, False):
        if closed is not None:
            survey_states.set_closed(backend_db, "s", closed)
        for key in ("stored-key-0000000", "unseen-key-0000000", None):
            together = survey_states.closed_override_and_key_seen(backend_db, "s", key)
            alone = (
                survey_states.closed_override(backend_db, "s"),
                bool(key) and responses.submission_key_exists(backend_db, key),
            )
            assert together == alone
            assert together[0] is closed
        assert survey_states.closed_override_and_key_seen(backend_db, "other", "stored-key-0000000") == (None, True)


#: Surveys with arms (surveys/arms.py), for the rescans against what the write path keeps: a direct-question
#: control arm beside one-group yes/no questions and a plain number; two random groups (a two-group yes/no
#: question, whose pattern counts are not kept) beside a one-group yes/no question and a randomized number;
#: and both at once.
ARMED_SURVEYS = {
    "direct arm": """\
id: armed
title: Direct arm
version: 1
direct_share: 1/3
questions:
  - {name: cheated, type: yes_no, label: Cheated}
  - {name: lied, type: yes_no, label: Lied, required: false, design: {t: 2/3, a: 1/6, b: 1/6}}
  - {name: year, type: select_one, label: Year, choices: [first, second], randomize: false}
  - {name: age, type: integer, label: Age, randomize: false, min: 16, max: 99, bins: [30]}
""",
    "two groups": """\
id: armed
title: Two groups
version: 1
questions:
  - {name: evaded, type: yes_no, label: Evaded, design: {model: stochastic_lie_detector, p1: 1/3, p2: 2/3}}
  - {name: cheated, type: yes_no, label: Cheated}
  - {name: drinks, type: integer, label: Drinks, min: 0, max: 30, epsilon: 1, mechanism: laplace}
  - {name: year, type: select_one, label: Year, choices: [first, second], randomize: false}
""",
    "two groups and a direct arm": """\
id: armed
title: Both
version: 1
direct_share: 1/4
questions:
  - {name: doped, type: yes_no, label: Doped, design: {model: cheater_detection, p1: 1/4, p2: 3/5}}
  - {name: cheated, type: yes_no, label: Cheated}
  - {name: year, type: select_one, label: Year, choices: [first, second], randomize: false}
""",
}
ARMED_DAYS = ("2026-11-20", "2026-11-21", "2026-11-23")
#: The kept-count tables a rescan is compared with, and their key columns (without ``survey_id``).
KEPT_TABLES = {
    "pattern_tallies": ("outcome", "design", "pattern", "answer"),
    "group_tallies": ("by_question", "by_answer", "question", "design", "answer"),
    "daily_tallies": ("day", "question", "design", "answer"),
}


def kept_table_rows(db, table: str, survey_id: str = "armed") -> dict[tuple, int]:
    """``{key columns: count}`` of ``table``'s rows of the survey, zero counts left out (a kept sum can be 0)."""
    columns = ", ".join(KEPT_TABLES[table])
    return {
        tuple(row[:-1]): row[-1]
        for row in db.execute(f"SELECT {columns}, count FROM {table} WHERE survey_id = ?", [survey_id]).fetchall()
        if row[-1]
    }


def added_between(before: dict, after: dict) -> dict:
    """What the kept counts gained from ``before`` to ``after``, zero changes left out."""
    return {key: after[key] - before.get(key, 0) for key in after if after[key] != before.get(key, 0)}


def rescanned(db, survey, days: list[str]) -> dict[str, dict[tuple, int]]:
    """What the rescans of storage/queries.py count over ``days``, in the rows of :data:`KEPT_TABLES`."""
    patterns = {
        (outcome, design, pattern, answer): count
        for outcome in (q.name for q in survey.randomized_questions)
        for design, by_pattern in kept_counts.pattern_tallies_on_days(db, "armed", outcome, days).items()
        for pattern, by_answer in by_pattern.items()
        for answer, count in by_answer.items()
        if count
    }
    groups = {
        (by, responses.NO_ANSWER if group is None else group, question, design, answer): count
        for by in ("year", "age")
        if by in {q.name for q in survey.questions}
        for group, per_question in queries.group_tallies_on_days(db, "armed", by, days).items()
        for question, by_design in per_question.items()
        for design, by_answer in by_design.items()
        for answer, count in by_answer.items()
        if count
    }
    daily = {
        (question, design, answer): count
        for question, by_design in queries.tallies_on_days(db, "armed", days).items()
        for design, by_answer in by_design.items()
        for answer, count in by_answer.items()
        if count
    }
    return {"pattern_tallies": patterns, "group_tallies": groups, "daily_tallies": daily}


@pytest.mark.parametrize("survey_name", list(ARMED_SURVEYS))
def test_rescans_of_a_survey_with_arms_count_what_the_write_path_keeps(backend_db, survey_name):
    """A survey with a direct-question arm or two random groups: the kept pattern, group and daily tallies
    equal their rescans (:func:`storage.kept_counts.pattern_tallies_on_days`, ``group_tallies_on_days``,
    ``tallies_on_days``) day by day (what each day's submissions added) and over all days, and the repairs
    (``rebuild_pattern_tallies``, ``rebuild_group_tallies``) rebuild exactly the kept counts. The direct arm's
    answers are in no pattern count (they are not randomized), nor is a two-group question (its kind keeps none)."""
    from surveys.arms import DIRECT, arm_choices
    from surveys.submission import noisy_response, randomize_on_server
    from tests.helpers.sample_surveys import make_survey

    survey = make_survey(ARMED_SURVEYS[survey_name])
    arms = arm_choices(survey.group_1_share is not None, survey.direct_share is not None)
    names = {q.name for q in survey.questions}
    per_day, stored, randomized = 30, 0, 0
    added: dict[str, dict] = {}
    for day in ARMED_DAYS:
        before = {table: kept_table_rows(backend_db, table) for table in KEPT_TABLES}
        for _ in range(per_day):
            i, arm = stored, arms[stored % len(arms)]
            truth = {"cheated": ["yes", "no"][i % 3 == 0], "year": ["first", "second"][(i // 2) % 2]}
            truth |= {"lied": ["no", "yes"][i % 4 == 0], "evaded": ["no", "yes"][i % 5 < 2]}
            truth |= {"doped": ["yes", "no"][i % 2], "drinks": str(i % 4), "age": f"{(7 * i) % 40:02d}"}
            noisy = randomize_on_server(survey, {k: v for k, v in truth.items() if k in names}, arm)
            responses.store_response(backend_db, noisy_response(survey, noisy, "server", arm), f"armed-{i:09d}", day)
            stored, randomized = stored + 1, randomized + (arm != DIRECT)
        after = {table: kept_table_rows(backend_db, table) for table in KEPT_TABLES}
        added[day] = {table: added_between(before[table], after[table]) for table in KEPT_TABLES}
        added[day]["daily_tallies"] = {key[1:]: count for key, count in added[day]["daily_tallies"].items()}
        assert rescanned(backend_db, survey, [day]) == added[day]
    kept = {table: kept_table_rows(backend_db, table) for table in KEPT_TABLES}
    whole = rescanned(backend_db, survey, list(ARMED_DAYS))
    assert whole["pattern_tallies"] == kept["pattern_tallies"] and whole["group_tallies"] == kept["group_tallies"]
    # The direct arm's yes/no answers are in the kept tallies under its own key, but in no pattern count.
    direct_keys = {design for _, design, _ in whole["daily_tallies"] if '"direct"' in design}
    assert bool(direct_keys) == (DIRECT in arms)
    assert not direct_keys & {design for _, design, _, _ in kept["pattern_tallies"]}
    cheated = sum(count for (outcome, *_), count in kept["pattern_tallies"].items() if outcome == "cheated")
    assert cheated == randomized and (randomized < stored) == (DIRECT in arms)  # one per respondent not in it
    backend_db.execute("UPDATE pattern_tallies SET count = count + 3 WHERE survey_id = 'armed'")
    backend_db.execute("DELETE FROM group_tallies WHERE survey_id = 'armed' AND question = 'cheated'")
    kept_counts.rebuild_pattern_tallies(backend_db, "armed")
    queries.rebuild_group_tallies(backend_db)
    assert kept_table_rows(backend_db, "pattern_tallies") == kept["pattern_tallies"]
    assert kept_table_rows(backend_db, "group_tallies") == kept["group_tallies"]


def test_a_negative_kept_sum_survives_the_pattern_repair(backend_db):
    """A Laplace number's outputs can fall below its grid, so a pattern's kept sum can be negative: the repair
    (:func:`storage.kept_counts.rebuild_pattern_tallies`) keeps it, as the write path did, leaving out only zeros."""
    from surveys.submission import noisy_response
    from tests.helpers.sample_surveys import make_survey

    survey = make_survey(ARMED_SURVEYS["two groups"])
    for i, output in enumerate(("-7", "-3", "2")):
        noisy = {"drinks": output, "year": "first", "cheated": "yes"}
        responses.store_response(backend_db, noisy_response(survey, noisy, "server", "1"), f"neg-{i}", "2026-11-22")
    kept = kept_counts.pattern_tallies(backend_db, "armed", "drinks")
    (by_pattern,) = kept.values()
    assert by_pattern['{"year":"first"}']["=sum"] == -8
    kept_counts.rebuild_pattern_tallies(backend_db, "armed")
    assert kept_counts.pattern_tallies(backend_db, "armed", "drinks") == kept


PLAIN_TICKS_YAML = """\
id: ticks
title: A plain check-all question beside a plain choice
version: 1
questions:
  - {name: cheated, type: yes_no, label: Cheated}
  - {name: year, type: select_one, label: Year, randomize: false, choices: [first, second]}
  - {name: clubs, type: select_multiple, label: Clubs, randomize: false, choices: [chess, choir, rowing]}
"""


def test_the_group_repair_adds_no_groups_for_a_plain_check_all_question(backend_db):
    """The write path keeps group tallies only by the questions results can be broken down by
    (:func:`surveys.kinds.breakdown_questions`: a plain choice or number, not a plain check-all question); the
    repair (:func:`storage.queries.rebuild_group_tallies`) must count exactly those, no more."""
    from surveys.submission import noisy_response, randomize_on_server
    from tests.helpers.sample_surveys import make_survey

    survey = make_survey(PLAIN_TICKS_YAML)
    for i in range(12):
        truth = {"cheated": ["yes", "no"][i % 2], "year": ["first", "second"][i % 3 == 0], "clubs": "101"}
        noisy = randomize_on_server(survey, truth)
        responses.store_response(backend_db, noisy_response(survey, noisy, "server"), f"ticks-{i}", "2026-11-22")
    kept = kept_table_rows(backend_db, "group_tallies", "ticks")
    assert kept and {row[0] for row in kept} == {"year"}
    queries.rebuild_group_tallies(backend_db)
    assert kept_table_rows(backend_db, "group_tallies", "ticks") == kept
