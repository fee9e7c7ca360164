"""web/startup.py: an app process whose database cannot be reached as it starts still starts, answers 503
until the database is back, then serves. The database's absence is made here by a stand-in for the
schema's migration; the real thing (gunicorn, PostgreSQL killed, a worker booting meanwhile) is
tests/test_reliability.py::test_a_worker_started_while_postgresql_is_down_answers_503_until_it_is_back."""

from __future__ import annotations

import psycopg
import pytest

from web import db as web_db
from web import startup

pytestmark = pytest.mark.sqlite_only(
    reason="the database's absence is a stand-in for the migration, the same on both; PostgreSQL's real "
    "absence is tested in tests/test_reliability.py"
)


@pytest.fixture
def database_down(monkeypatch):
    """A switch: while ``state["down"]``, migrating the schema raises PostgreSQL's connection error;
    ``state["tries"]`` counts the tries."""
    state = {"down": True, "tries": 0}
    migrate = web_db.ensure_schema

    def ensure_schema(app):
        state["tries"] += 1
        if state["down"]:
            raise psycopg.OperationalError("connection failed: Connection refused")
        migrate(app)

    monkeypatch.setattr(web_db, "ensure_schema", ensure_schema)
    return state


def test_an_app_started_without_its_database_answers_503_then_serves_once_it_is_back(
    make_app, database_down, monkeypatch
):
    monkeypatch.setattr(startup, "RETRY_SECONDS", 0.0)
    client = make_app({"SECRET_KEY": "k"}).test_client()

    refused = client.get("/s/quiz")
    assert refused.status_code == 503
    assert refused.headers["Retry-After"] == "5"
    assert "cannot use its database" in refused.get_data(as_text=True)
    assert client.get("/static/style.css").status_code == 200  # files that need no database are served
    assert database_down["tries"] == 2  # the start, then the request

    database_down["down"] = False
    assert client.get("/s/quiz").status_code == 200
    assert client.get("/s/quiz").status_code == 200
    assert database_down["tries"] == 3  # done once, not again on each request


@pytest.mark.parametrize(
    ("language", "title"),
    [("fr", "La base de données est indisponible"), ("es", "La base de datos no está disponible")],
)
def test_the_503_of_a_start_without_its_database_is_in_the_visitors_language(make_app, database_down, language, title):
    client = make_app({"SECRET_KEY": "k"}).test_client()
    refused = client.get("/s/quiz", headers={"Accept-Language": language})
    assert refused.status_code == 503 and title in refused.get_data(as_text=True)
    assert "cannot use its database" not in refused.get_data(as_text=True)


def test_a_start_without_its_database_is_tried_again_at_most_once_a_second(make_app, database_down, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(startup, "monotonic", lambda: clock[0])
    client = make_app({"SECRET_KEY": "k"}).test_client()
    assert [client.get("/s/quiz").status_code for _ in range(5)] == [503] * 5
    assert database_down["tries"] == 1  # within the second after the start: not tried again

    database_down["down"] = False
    clock[0] += startup.RETRY_SECONDS
    assert client.get("/s/quiz").status_code == 200
    assert database_down["tries"] == 2


def test_any_other_error_at_start_still_stops_the_app(make_app, monkeypatch):
    def broken(app):
        raise ValueError("migration 019 failed")

    monkeypatch.setattr(web_db, "ensure_schema", broken)
    with pytest.raises(ValueError, match="migration 019"):
        make_app({"SECRET_KEY": "k"})
