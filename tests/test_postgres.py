"""Tests of the PostgreSQL backend: the throwaway cluster, the seam in storage, answers stored exactly once."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

from devtools import postgres_cluster
from storage import (
    accounts,
    connection,
    day_exclusions,
    export_rows,
    invitation_codes,
    kept_counts,
    migrations,
    postgres,
    queries,
    responses,
    survey_states,
    transfer,
)
from surveys import submission

pytestmark = pytest.mark.sqlite_only(
    reason="PostgreSQL's own tests; its CLI runner's app only runs commands on the databases they name"
)


def test_each_test_gets_an_empty_database_of_its_own(postgres_url):
    with psycopg.connect(postgres_url) as conn:
        tables = conn.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'").fetchone()
        name = conn.execute("SELECT current_database()").fetchone()[0]
    assert tables == (0,)
    assert name.startswith("rr_test_") and name in postgres_url


def test_a_killed_cluster_leaves_no_server_process_and_restarts(durable_postgres):
    """``Cluster.kill`` is a lost host: every server process dies by SIGKILL, none outlives the postmaster
    to end itself (each child of the postmaster sits in a process group of its own)."""
    clients = [psycopg.connect(durable_postgres.url, autocommit=True) for _ in range(3)]
    processes = durable_postgres.processes()
    assert len(processes) >= 4  # the postmaster, its background processes and a backend per client
    try:
        killed = durable_postgres.kill()
        assert set(processes) <= set(killed)
        assert not postgres_cluster.alive(processes), "a server process outlived the kill"
        assert "unexpected postmaster exit" not in durable_postgres.log.read_text()  # none ended itself
    finally:
        for client in clients:
            client.close()
        durable_postgres.start_if_stopped()
    with psycopg.connect(durable_postgres.url) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)


#: Seconds the server stays down: past psycopg_pool's tries at 0, 1, 3 and 7 s, its next at 15 s.
OUTAGE_SECONDS = 8


@pytest.mark.slow
def test_a_pool_connects_again_as_soon_as_the_server_is_back_after_a_long_outage(durable_postgres):
    """A full pool (as a busy worker's) whose every connection was lost: with psycopg_pool's own
    ``reconnect_timeout`` (5 minutes) each lost connection's next try came at 15 s, some 5 s after the server
    was back (more after a longer outage), and no request could start one sooner, the pool being full of
    connections being tried; ``open_pool`` ends each series of tries after ``WAIT_SECONDS`` and the first
    request after the outage starts a new one."""
    pool = postgres.open_pool(durable_postgres.url)
    try:
        held = [pool.getconn(timeout=30) for _ in range(pool.max_size)]  # a worker's every thread busy: a full pool
        for conn in held:
            pool.putconn(conn)
        durable_postgres.kill()
        try:
            while pool.get_stats()["pool_available"]:  # each idle connection found lost, dropped, tried again
                with pytest.raises(psycopg.OperationalError), pool.connection(timeout=1) as conn:
                    conn.execute("SELECT 1")
            time.sleep(OUTAGE_SECONDS)
        finally:
            durable_postgres.start_if_stopped()
        back = time.monotonic()
        with pool.connection(timeout=30) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
        assert time.monotonic() - back < 3
    finally:
        pool.close()


def test_the_connections_a_restarted_server_closed_are_not_handed_out(durable_postgres):
    """Every connection of a full pool sat idle while the server was killed and started again: each was
    handed out and failed its request ("server closed the connection unexpectedly", a 503) before
    ``from_pool`` polled their sockets."""
    pool = postgres.open_pool(durable_postgres.url)
    try:
        held = [pool.getconn(timeout=30) for _ in range(pool.max_size)]
        for conn in held:
            pool.putconn(conn)
        try:
            durable_postgres.kill()
        finally:
            durable_postgres.start_if_stopped()
        for _ in range(pool.max_size):  # as many requests as the pool had idle connections
            db = postgres.from_pool(pool)
            try:
                assert db.execute("SELECT 1").fetchone() == (1,)
            finally:
                db.close()
    finally:
        pool.close()


def test_an_idle_connection_of_a_live_server_is_not_taken_for_closed(postgres_url):
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("SELECT 1")
        assert not postgres.closed_by_server(conn)
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", [conn.info.backend_pid])
        time.sleep(0.2)  # the server's message reaches the socket
        assert postgres.closed_by_server(conn)


@pytest.fixture
def pg_db(postgres_url):
    db = connection.connect(postgres_url)
    migrations.migrate(db)
    yield db
    db.close()


def noisy(answers: dict) -> submission.NoisyResponse:
    return submission.NoisyResponse("s", 1, "fp1", "{}", answers, dict.fromkeys(answers, "d1"), "server")


def test_a_postgresql_url_selects_postgresql_and_a_path_sqlite(postgres_url, tmp_path):
    pg = connection.connect(postgres_url)
    lite = connection.connect(tmp_path / "x.sqlite3")
    assert connection.is_postgres(pg) and not connection.is_postgres(lite)
    assert connection.dialect(pg) is connection.POSTGRESQL and connection.dialect(lite) is connection.SQLITE
    pg.close()
    lite.close()


def test_placeholders_become_psycopgs_and_a_literal_percent_stays_literal():
    assert postgres.placeholders("SELECT ? || '%' WHERE a = ?") == "SELECT %s || '%%' WHERE a = %s"


def test_a_printed_url_hides_its_password():
    shown = postgres.without_password("postgresql://rr:s3cret@db.example:5432/survey")
    assert "s3cret" not in shown and "db.example" in shown and "survey" in shown


def test_migrations_run_once_when_two_servers_migrate_at_the_same_time(postgres_url):
    """Two app servers starting together: the advisory lock lets one apply everything, the other nothing."""
    results, errors = [], []

    def start():
        db = connection.connect(postgres_url)
        try:
            results.append(migrations.migrate(db))
        except Exception as error:  # noqa: BLE001 - any failure is the finding
            errors.append(repr(error))
        finally:
            db.close()

    threads = [threading.Thread(target=start) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(results, key=len) == [[], [], [function.__name__ for function in migrations.MIGRATIONS]]


def test_concurrent_submitters_store_each_key_exactly_once_with_tallies_in_step(pg_db, postgres_url):
    """Eight writers on their own connections send the same 30 keys and 10 of their own: every key
    is stored once, and the kept tallies equal a recount of the stored rows."""
    errors, accepted = [], []

    def writer(worker: int):
        db = connection.connect(postgres_url)
        try:
            keys = [f"shared-{i:04d}-xxxxxxxx" for i in range(30)] + [f"own-{worker}-{i:04d}-xxxxxx" for i in range(10)]
            for i, key in enumerate(keys):
                if responses.store_response(db, noisy({"q": ["yes", "no"][i % 2]}), key, "2026-11-22"):
                    accepted.append(key)
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
    assert sorted(accepted) == sorted(set(accepted)) and len(accepted) == 30 + 8 * 10
    assert pg_db.execute("SELECT COUNT(*) FROM responses").fetchone() == (110,)
    recount = dict(pg_db.execute("SELECT answers::jsonb ->> 'q', COUNT(*) FROM responses GROUP BY 1").fetchall())
    assert queries.tallies(pg_db, "s") == {"q": {"d1": recount}}
    assert queries.response_count(pg_db, "s") == 110


def test_a_failed_answer_leaves_nothing_and_the_connection_usable(pg_db):
    with pytest.raises(KeyError):
        responses.store_response(
            pg_db, submission.NoisyResponse("s", 1, "f", "{}", {"q": "yes"}, {}, "server"), "k" * 16, "2026-11-22"
        )
    assert not pg_db.in_transaction
    assert responses.store_response(pg_db, noisy({"q": "yes"}), "k" * 16, "2026-11-22") is True
    assert pg_db.execute("SELECT COUNT(*) FROM submission_keys").fetchone() == (1,)


def test_times_are_stored_as_doubles_not_single_precision(pg_db):
    """PostgreSQL's REAL is 4 bytes (a session's expiry would lose minutes); the migrations write DOUBLE PRECISION."""
    types = dict(
        pg_db.execute(
            "SELECT table_name || '.' || column_name, data_type FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND data_type IN ('real', 'double precision')"
        ).fetchall()
    )
    assert {"admin_sessions.expires", "bursts.usual_rate", "audit_log.at"} <= set(types)
    assert set(types.values()) == {"double precision"}, types


def all_rows(db) -> dict[str, list[tuple]]:
    """Every row of every copied table, sorted, with doubles rounded as both backends store them."""
    return {
        table: sorted(tuple(row) for row in db.execute(f"SELECT * FROM {table}").fetchall())
        for table in transfer.TABLES
    }


@pytest.fixture
def filled_sqlite(tmp_path):
    """A SQLite database with answers of several days, codes, an admin, a session, a burst, a closed survey."""
    from tests.helpers.records import store_model_answers
    from tests.helpers.sample_surveys import model_survey

    db = connection.connect(tmp_path / "source.sqlite3")
    migrations.migrate(db)
    store_model_answers(db, model_survey(), 120)
    for i, day in enumerate(["2026-11-20", "2026-11-21"]):
        responses.store_response(
            db, noisy({"q": "yes"}), f"day-key-{i:08d}", day, hour_count=i + 1, in_burst=True, burst_usual_rate=0.5
        )
    invitation_codes.add_invitation_codes(db, "s", 3)
    day_exclusions.exclude_day(db, "s", "2026-11-20")
    survey_states.set_closed(db, "m", True)
    accounts.create_admin(db, "ana", "a long enough password")
    accounts.start_session(db, "ana", now=1_800_000_000.25)
    yield db
    db.close()


def test_a_sqlite_database_copied_to_postgresql_and_back_keeps_every_row(filled_sqlite, postgres_url, tmp_path):
    pg = connection.connect(postgres_url)
    report = transfer.copy_database(filled_sqlite, pg)
    assert report.rows["responses"] == 122 and report.surveys == ("m", "s")
    assert all_rows(pg) == all_rows(filled_sqlite)
    assert kept_counts.pattern_tallies(pg, "m", "cheated") == kept_counts.pattern_tallies(filled_sqlite, "m", "cheated")
    assert accounts.sign_in(pg, "ana", "a long enough password")
    back = connection.connect(tmp_path / "back.sqlite3")
    assert transfer.copy_database(pg, back).rows == report.rows
    assert all_rows(back) == all_rows(filled_sqlite)
    pg.close()
    back.close()


def test_a_copy_into_a_database_with_rows_is_refused(filled_sqlite, pg_db):
    invitation_codes.add_invitation_codes(pg_db, "s", 1)
    with pytest.raises(ValueError, match="not empty: rows in invitation_codes"):
        transfer.copy_database(filled_sqlite, pg_db)


def test_a_copy_whose_tallies_differ_is_rolled_back_whole(filled_sqlite, pg_db, monkeypatch):
    real = queries.tallies
    monkeypatch.setattr(queries, "tallies", lambda db, survey_id: {} if db is pg_db else real(db, survey_id))
    with pytest.raises(RuntimeError, match="tallies differ"):
        transfer.copy_database(filled_sqlite, pg_db)
    assert all(rows == [] for rows in all_rows(pg_db).values())


def test_the_responses_csv_reads_older_rows_through_a_server_side_cursor(pg_db):
    from surveys.submission import noisy_response
    from tests.helpers.sample_surveys import make_survey
    from web import answer_package

    survey = make_survey()
    for i in range(5):
        answers = {"cheated": ["yes", "no"][i % 2], "ai_use": "once", "dept": "arts"}
        responses.store_response(pg_db, noisy_response(survey, answers, "server"), f"k{i:015d}", "2026-11-22")
    pg_db.execute("UPDATE responses SET answer_line = NULL WHERE answers LIKE '%no%'")  # as before m003
    names = [question.name for question in survey.questions]
    with connection.read_snapshot(pg_db):
        cursor = export_rows.response_rows(pg_db, "quiz", names)
        assert isinstance(cursor, psycopg.ServerCursor)
        cursor.close()
    lines = "".join(answer_package.responses_csv(pg_db, survey, batch_rows=2)).splitlines()
    assert len(lines) == 1 + 5
    assert sum(",no," in line for line in lines) == 2


def test_copy_db_command_copies_and_prints_the_compared_counts(filled_sqlite, postgres_url, runner, tmp_path):
    result = runner.invoke(args=["copy-db", str(tmp_path / "source.sqlite3"), postgres_url])
    assert result.exit_code == 0, result.output
    assert "responses: 122" in result.output and "compared equal" in result.output
    again = runner.invoke(args=["copy-db", str(tmp_path / "source.sqlite3"), postgres_url])
    assert again.exit_code == 1 and "not empty" in again.output


def test_backup_of_postgresql_is_a_pg_dump_that_restores_into_an_empty_database_with_equal_rows(
    filled_sqlite, postgres_databases, tmp_path
):
    import os
    import subprocess

    from storage import ratelimit

    source_url, empty_url = postgres_databases(), postgres_databases()
    source = ratelimit.connect(source_url)  # the rate-limit tables too, with a keyed address hash in them
    migrations.migrate(source)
    transfer.copy_database(filled_sqlite, source)
    ratelimit.hit(source, "submit:an-address-hash", ratelimit.Limit(5, 600), 100.0)
    dump = tmp_path / "rr.dump"
    assert connection.backup(source_url, dump) == 122
    assert os.stat(dump).st_mode & 0o777 == 0o600 and not (tmp_path / "rr.dump.partial").exists()
    restore = subprocess.run(["pg_restore", "--no-owner", "--dbname", empty_url, str(dump)], capture_output=True)
    assert restore.returncode == 0, restore.stderr
    restored = connection.connect(empty_url)
    assert all_rows(restored) == all_rows(source) == all_rows(filled_sqlite)
    assert restored.execute("SELECT COUNT(*) FROM window_hits").fetchone() == (0,)  # no address hash kept
    assert migrations.pending_names(restored) == []
    restored.close()
    source.close()


def test_a_failed_pg_dump_leaves_no_file_and_says_why(pg_db, postgres_url, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no pg_dump to be found
    with pytest.raises(RuntimeError, match="pg_dump was not found"):
        connection.backup(postgres_url, tmp_path / "rr.dump")
    assert list(tmp_path.iterdir()) == []


def test_the_copy_takes_every_table_of_the_schema(tmp_path):
    """A table added by a migration is copied too (before, the tables of issue 26 were left behind: surveys,
    their versions, roles, the audit log, events and API tokens)."""
    db = connection.connect(str(tmp_path / "schema.sqlite3"))
    migrations.migrate(db)
    assert set(db.table_names()) - {"_sqlite_migrations"} == set(transfer.TABLES)
    db.close()
