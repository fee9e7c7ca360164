"""Several app servers on one PostgreSQL database: shared rate limits, and a lost or busy server
answered with 503 and Retry-After, never a 500."""

from __future__ import annotations

import psycopg
import pytest

from app import create_app
from storage import postgres
from tests.helpers.drivers import Respondent, wire_form
from tests.helpers.records import stored_count
from tests.helpers.sample_surveys import survey_in
from web.db import close_pools, open_database

ANSWERS = {"cheated": "yes", "ai_use": "once", "year": "first"}


@pytest.fixture
def make_server_app(tmp_path, surveys_dir):
    """A function ``make_server_app(url, name, **settings)``: an app as one app server of a deployment,
    with its own instance folder (its own SQLite files), on the PostgreSQL database ``url``."""
    made = []

    def make(url: str, name: str, **settings):
        app = create_app(
            {
                "TESTING": True,
                "DATABASE": str(tmp_path / name / "test.sqlite3"),
                "DATABASE_URL": url,
                "SURVEYS_DIR": str(surveys_dir),
                "SECRET_KEY": "shared-secret-key",
                "RATELIMIT_SUBMISSIONS": "100000/600",
                **settings,
            }
        )
        made.append(app)
        return app

    yield make
    for app in made:
        close_pools(app)


def test_two_app_servers_on_one_database_share_the_submission_limit(make_server_app, postgres_url):
    """Before, each host counted in its own SQLite file: the second server let two more through."""
    first, second = (make_server_app(postgres_url, name, RATELIMIT_SUBMISSIONS="2/600") for name in ("a", "b"))
    # a browser answers once: two browsers behind one address through the first server, a third through the second
    assert [Respondent(first.test_client()).submit(ANSWERS).status_code for _ in range(2)] == [200, 200]
    refused = Respondent(second.test_client()).submit(ANSWERS)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert stored_count(first) == 2
    with psycopg.connect(postgres_url) as conn:
        (buckets,) = conn.execute("SELECT count(*) FROM window_hits WHERE bucket LIKE 'submit:%'").fetchone()
    assert buckets == 1  # one keyed bucket for the one address, in the database both servers use


def test_a_lost_postgresql_gives_503_with_retry_after_and_stores_nothing(
    make_server_app, postgres_url, monkeypatch, tmp_path
):
    monkeypatch.setattr(postgres, "WAIT_SECONDS", 0.5)
    app = make_server_app(postgres_url, "a")
    respondent = Respondent(app.test_client())
    controls = respondent.open_form()
    posted = {**controls, **wire_form(survey_in(app), ANSWERS)}  # the form read while the database is there
    app.config["DATABASE_URL"] = f"postgresql://rr@/postgres?host={tmp_path}&port=5432"  # no server there
    for response in (respondent.client.get("/s/quiz"), respondent.client.post("/s/quiz", data=posted)):
        assert response.status_code == 503
        assert response.headers["Retry-After"] == "5"
        assert "nothing was stored" in response.get_data(as_text=True)
    app.config["DATABASE_URL"] = postgres_url
    assert stored_count(app) == 0
    assert respondent.submit(ANSWERS, controls=controls).status_code == 200  # sent again once it is back
    assert stored_count(app) == 1


def test_a_read_only_postgresql_gives_503_with_the_reason_logged_and_stores_nothing(
    make_server_app, postgres_url, caplog
):
    """A server that takes no writes (here ``default_transaction_read_only``, as a standby reached after a
    failover): psycopg's ``ReadOnlySqlTransaction`` was a 500; it is the 503 of a database that cannot be
    written, its reason in the log."""
    app = make_server_app(postgres_url, "a")
    respondent = Respondent(app.test_client())
    controls = respondent.open_form()
    database = psycopg.conninfo.conninfo_to_dict(postgres_url)["dbname"]
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{database}" SET default_transaction_read_only = on')
        try:
            close_pools(app)  # the next request opens new connections, which read the setting
            refused = respondent.submit(ANSWERS, controls=controls)
        finally:
            admin.execute(f'ALTER DATABASE "{database}" RESET default_transaction_read_only')
    assert refused.status_code == 503 and refused.headers["Retry-After"] == "60"
    assert "could not write to its storage" in refused.get_data(as_text=True)
    assert any("read-only transaction" in r.getMessage() for r in caplog.records if r.levelname == "ERROR")
    close_pools(app)
    assert stored_count(app) == 0
    assert respondent.submit(ANSWERS, controls=controls).status_code == 200  # sent again, stored once
    assert stored_count(app) == 1


def test_a_lock_held_past_the_wait_gives_503_and_stores_nothing(make_server_app, postgres_url, monkeypatch):
    """Another session holds the responses table (a long migration, say): the submission gives up
    after the lock timeout, like SQLite's busy timeout, and its transaction is rolled back whole."""
    monkeypatch.setattr(postgres, "WAIT_SECONDS", 0.5)
    app = make_server_app(postgres_url, "a")
    respondent = Respondent(app.test_client())
    controls = respondent.open_form()
    with psycopg.connect(postgres_url) as holder:
        holder.execute("LOCK TABLE responses IN ACCESS EXCLUSIVE MODE")
        busy = respondent.submit(ANSWERS, controls=controls)
    assert busy.status_code == 503 and busy.headers["Retry-After"] == "5"
    assert stored_count(app) == 0
    assert respondent.submit(ANSWERS, controls=controls).status_code == 200
    assert stored_count(app) == 1


def test_compact_clusters_the_responses_in_key_order_and_backup_dumps_them(make_server_app, postgres_url, tmp_path):
    app = make_server_app(postgres_url, "a")
    for _ in range(30):
        assert Respondent(app.test_client()).submit(ANSWERS).status_code == 200
    db = open_database(app)
    in_key_order = [row[0] for row in db.execute("SELECT id FROM responses ORDER BY id").fetchall()]
    heap_order = "SELECT id FROM responses ORDER BY ctid"  # the order the rows lie in the table's file
    assert [row[0] for row in db.execute(heap_order).fetchall()] != in_key_order  # arrival order, random ids
    runner = app.test_cli_runner()
    compacted = runner.invoke(args=["compact"])
    assert compacted.exit_code == 0 and "30 responses" in compacted.output, compacted.output
    assert [row[0] for row in db.execute(heap_order).fetchall()] == in_key_order
    db.close()
    backed_up = runner.invoke(args=["backup", str(tmp_path / "rr.dump")])
    assert backed_up.exit_code == 0 and "Backed up 30 responses" in backed_up.output, backed_up.output
    assert (tmp_path / "rr.dump").read_bytes().startswith(b"PGDMP")  # pg_dump's custom format


def test_signing_in_on_a_server_whose_instance_folder_does_not_exist_yet(make_server_app, postgres_url, tmp_path):
    """On PostgreSQL nothing creates the SQLite folder; the hashing slots' lock files live there."""
    from storage import accounts
    from tests.helpers.drivers import ADMIN_NAME, ADMIN_PASSWORD, AdminSession

    app = make_server_app(postgres_url, "fresh")
    db = open_database(app)
    accounts.create_admin(db, ADMIN_NAME, ADMIN_PASSWORD)
    db.close()
    assert not (tmp_path / "fresh").exists()
    signed_in = AdminSession(app.test_client(), app).login()
    assert signed_in.status_code == 302, signed_in.get_data(as_text=True)
