"""Tests of the PostgreSQL backend: the throwaway cluster, the seam in storage, answers stored exactly once."""

from __future__ import annotations

import threading

import psycopg
import pytest

from storage import connection, migrations, postgres, queries, responses
from surveys import submission


def test_each_test_gets_an_empty_database_of_its_own(postgres_url):
    with psycopg.connect(postgres_url) as conn:
        tables = conn.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'").fetchone()
        name = conn.execute("SELECT current_database()").fetchone()[0]
    assert tables == (0,)
    assert name.startswith("rr_test_") and name in postgres_url


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
    assert types == {"admin_sessions.expires": "double precision", "bursts.usual_rate": "double precision"}
