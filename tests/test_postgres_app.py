"""The app on each backend in turn (``BOTH_BACKEND_MODULES`` in tests/conftest.py): answering,
results, the responses CSV and ``init-db`` behave the same on SQLite and on PostgreSQL."""

from __future__ import annotations

import csv
import io

from storage import connection, queries, responses
from surveys.submission import noisy_response
from tests.helpers import survey_in
from web.db import get_db, open_database


def stored_count(app) -> int:
    db = open_database(app)
    try:
        return queries.response_count(db, "quiz")
    finally:
        db.close()


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
