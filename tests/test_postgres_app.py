"""The app on each backend in turn (``pytest.mark.both_backends``): answering,
results, the responses CSV and ``init-db`` behave the same on SQLite and on PostgreSQL."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from storage import connection, postgres, responses
from surveys.submission import noisy_response
from tests.helpers.drivers import Respondent
from tests.helpers.records import frontend_waits, stored_count
from tests.helpers.sample_surveys import survey_in
from web.db import get_db, open_database

pytestmark = pytest.mark.both_backends


def store(app, answers_list: list[dict]) -> None:
    """Store noisy answers through storage, as the submission path does, in the app's database."""
    survey, db = survey_in(app), open_database(app)
    try:
        for i, answers in enumerate(answers_list):
            responses.store_response(db, noisy_response(survey, answers, "server"), f"stored-{i:010d}", "2026-11-22")
    finally:
        db.close()


def test_the_app_uses_the_backend_its_settings_name(app, app_backend):
    with app.test_request_context("/"):
        assert connection.dialect(get_db()).name == app_backend


def test_an_answer_is_stored_once_in_the_chosen_database(app, respondent, app_backend, tmp_path):
    controls = respondent.open_form()
    for _ in range(2):  # the same form sent twice (a double click): stored once
        assert respondent.submit(
            {"cheated": "yes", "ai_use": "once", "year": "first"}, controls=controls
        ).status_code in (
            200,
            303,
        )
    assert stored_count(app) == 1
    if app_backend == "postgresql":  # nothing went to the SQLite file
        lite = connection.connect(tmp_path / "test.sqlite3")
        assert "responses" not in lite.table_names() or lite.execute("SELECT COUNT(*) FROM responses").fetchone() == (
            0,
        )
        lite.close()


def test_results_page_and_responses_csv_read_the_chosen_database(app, client, auth):
    store(app, [{"cheated": "yes", "ai_use": "once", "year": "first"}, {"cheated": "no", "year": "second"}])
    auth.login()
    assert client.get("/admin/surveys/quiz").status_code == 200
    response = client.get("/admin/surveys/quiz/responses.csv")
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert len(rows) == 2 == stored_count(app)
    assert sorted(row["year"] for row in rows) == ["first", "second"]


def test_init_db_reports_the_database_up_to_date(runner):
    result = runner.invoke(args=["init-db"])
    assert result.exit_code == 0 and "up to date" in result.output


@pytest.mark.postgresql_only
def test_a_submission_on_postgresql_waits_for_three_round_trips(app, respondent, tmp_path, monkeypatch):
    """The rate-limit hit, then the answer's one transaction (:func:`storage.responses.store_submission`):
    the key, the code, the survey's state and the hour's arrival count so far read with the ``BEGIN``, the
    writes and the count sent with the ``COMMIT``. Three waits for the server (five before the write path
    was one transaction, six before the state and the key were read together). Counted in libpq's
    protocol trace of every pooled connection the request used."""
    assert app.config["RATELIMIT_ENABLED"]
    response, waits = submission_and_waits(respondent, tmp_path, monkeypatch)
    assert response.status_code == 200 and stored_count(app) == 1
    assert waits <= 3, f"a submission waited for {waits} round trips"


@pytest.mark.postgresql_only
def test_a_submission_on_postgresql_with_the_rate_limit_off_waits_for_two_round_trips(make_app, tmp_path, monkeypatch):
    """Without the rate limit nothing goes before the answer's transaction: its state is read there
    (web.respond.state_can_wait), so a submission waits as often as the floor's bare store does."""
    app = make_app({"RATELIMIT_ENABLED": False})
    response, waits = submission_and_waits(Respondent(app.test_client()), tmp_path, monkeypatch)
    assert response.status_code == 200 and stored_count(app) == 1
    assert waits == 2, f"a submission waited for {waits} round trips"


@pytest.mark.postgresql_only
def test_a_submission_on_postgresql_claims_its_key_and_reads_the_state_and_the_hour_in_one_statement(
    app, respondent, tmp_path, monkeypatch
):
    """The answer's first statement claims the key and reads the survey's open/closed choice and the hour's
    arrival count (one data-modifying ``WITH``, :func:`storage.responses.store_submission`): no statement of
    its own reads either, so psycopg sends two statements fewer per answer."""
    response, _, sent = submission_and_waits(respondent, tmp_path, monkeypatch, with_statements=True)
    assert response.status_code == 200 and stored_count(app) == 1
    claims = [text for text in sent if "INSERT INTO submission_keys" in text]
    assert len(claims) == 1 and claims[0].startswith("WITH claimed AS (INSERT INTO submission_keys"), sent
    assert "FROM survey_states" in claims[0] and "FROM window_hits" in claims[0]
    assert not [text for text in sent if "survey_states" in text and text is not claims[0]], sent
    assert not [text for text in sent if text.startswith("SELECT count FROM window_hits")], sent


def submission_and_waits(respondent, tmp_path, monkeypatch, with_statements=False):
    """A device-path submission from a fresh browser, and the round trips it waited for (libpq's trace); with
    ``with_statements``, also the SQL of every statement parsed (the trace's ``Parse`` messages)."""
    controls = respondent.open_form()
    traces, taken = [], postgres.from_pool

    def traced(pool):
        db = taken(pool)
        sink = open(tmp_path / f"trace-{len(traces)}", "w")  # noqa: SIM115 - closed below
        traces.append((db, sink))
        db.conn.pgconn.trace(sink.fileno())
        return db

    monkeypatch.setattr(postgres, "from_pool", traced)
    response = respondent.submit({"cheated": "yes", "ai_use": "once", "year": "first"}, controls=controls)
    monkeypatch.undo()
    waits, sent = 0, []
    for db, sink in traces:
        db.conn.pgconn.untrace()
        sink.close()
        trace = Path(sink.name).read_text()
        waits += frontend_waits(trace)
        sent += parsed_statements(trace)
    return (response, waits, sent) if with_statements else (response, waits)


def parsed_statements(trace: str) -> list[str]:
    """The SQL text of every ``Parse`` message the client sent, in a libpq protocol trace."""
    texts = []
    for fields in (line.split("\t") for line in trace.splitlines()):
        if len(fields) > 4 and fields[1] == "F" and fields[3] == "Parse":
            texts.append(re.match(r' "[^"]*" "(.*)"', fields[4]).group(1))  # the name, then the text (greedy)
    return texts
