"""Tests of web/lifecycle.py and the catalogue read from the database: draft, open, closed, archived,
unlisted, test answers cleared, deleted; survey files imported; several app servers."""

from __future__ import annotations

import io
import re
import time
import zipfile

import pytest
import requests

from storage import accounts, audit, queries, responses, survey_states
from storage import surveys as stored_surveys
from tests.helpers.drivers import Respondent
from tests.helpers.sample_surveys import QUIZ_YAML
from tests.helpers.servers import Server
from web.db import open_database

pytestmark = pytest.mark.both_backends

ANSWERS = {"cheated": "yes", "ai_use": "once", "year": "first"}
DRAFT_YAML = QUIZ_YAML.replace("id: quiz", "id: draft-one").replace("title: Test quiz", "title: Draft one")
OTHER_YAML = QUIZ_YAML.replace("id: quiz", "id: other")


def in_db(app, function, *args, **kwargs):
    db = open_database(app)
    try:
        return function(db, *args, **kwargs)
    finally:
        db.close()


def post(auth, path: str, **data):
    token = auth.csrf_token("/admin/")
    return auth.client.post(path, data={"csrf_token": token, **data})


@pytest.fixture
def draft(app):
    in_db(app, stored_surveys.save_version, DRAFT_YAML, source_name="draft-one.yaml", managed_by=None, actor="ann")
    return "draft-one"


def test_a_survey_file_is_imported_live_and_managed_by_its_file(app, client):
    record = in_db(app, stored_surveys.survey_record, "quiz")
    assert (record.stage, record.managed_by, record.listed) == ("live", "quiz.yaml", True)
    assert "Test quiz" in client.get("/").get_data(as_text=True)


def test_a_draft_answers_404_publicly_and_is_not_on_the_start_page(app, client, auth, draft):
    assert client.get("/s/draft-one").status_code == 404
    assert client.post("/s/draft-one", data={}).status_code == 404
    assert "Draft one" not in client.get("/").get_data(as_text=True)
    auth.login()
    page = auth.client.get("/admin/surveys/draft-one").get_data(as_text=True)
    assert "no public link yet" in page
    assert auth.client.get("/admin/surveys/draft-one/preview").status_code == 200
    assert post(auth, "/admin/surveys/draft-one/open").status_code == 302
    assert client.get("/s/draft-one").status_code == 200
    assert "Draft one" in client.get("/").get_data(as_text=True)
    assert [(e.action, e.detail) for e in in_db(app, audit.entries, ["draft-one"])] == [("survey-state", "opened")]


def test_an_unlisted_survey_is_reachable_by_its_link_and_not_on_the_start_page(app, client, auth):
    auth.login()
    assert post(auth, "/admin/surveys/quiz/listed", listed="off").status_code == 302
    assert "Test quiz" not in client.get("/").get_data(as_text=True)
    assert Respondent(client).submit(ANSWERS).status_code == 200
    assert post(auth, "/admin/surveys/quiz/listed", listed="on").status_code == 302
    assert "Test quiz" in client.get("/").get_data(as_text=True)
    assert post(auth, "/admin/surveys/quiz/listed", listed="maybe").status_code == 400


def test_archive_closes_and_unarchive_brings_it_back_closed(app, client, auth):
    auth.login()
    assert post(auth, "/admin/surveys/quiz/archive").status_code == 302
    assert "Test quiz" not in client.get("/").get_data(as_text=True)
    assert "This survey is closed" in client.get("/s/quiz").get_data(as_text=True)
    assert "archived" in auth.client.get("/admin/").get_data(as_text=True)
    assert post(auth, "/admin/surveys/quiz/open").status_code == 400  # unarchive first
    assert post(auth, "/admin/surveys/quiz/unarchive").status_code == 302
    assert in_db(app, stored_surveys.survey_record, "quiz").stage == "live"
    assert "Test quiz" not in client.get("/").get_data(as_text=True)  # closed
    assert post(auth, "/admin/surveys/quiz/open").status_code == 302
    assert Respondent(client).submit(ANSWERS).status_code == 200


def test_test_answers_are_cleared_only_before_opening(app, client, auth, draft):
    from surveys.submission import noisy_response

    survey = in_db(app, lambda db: stored_surveys.definition_survey(stored_surveys.current_definitions(db)[0]))
    assert survey.id == "draft-one"
    response = noisy_response(survey, {"cheated": "yes"}, "server")
    in_db(app, responses.store_submission, response, "k1", "2026-11-22")
    auth.login()
    assert "Clear test answers" in auth.client.get("/admin/surveys/draft-one").get_data(as_text=True)
    assert auth.client.get("/admin/surveys/draft-one/clear").status_code == 200
    assert post(auth, "/admin/surveys/draft-one/clear").status_code == 302
    assert in_db(app, queries.response_count, "draft-one") == 0
    assert in_db(app, stored_surveys.survey_record, "draft-one") is not None
    assert post(auth, "/admin/surveys/quiz/clear").status_code == 400  # a survey file is live: opened
    assert auth.client.get("/admin/surveys/quiz/clear").status_code == 400


def test_delete_needs_the_id_typed_exactly_and_offers_a_backup_first(app, client, auth):
    assert Respondent(client).submit(ANSWERS).status_code == 200
    auth.login()
    page = auth.client.get("/admin/surveys/quiz/delete").get_data(as_text=True)
    assert "/admin/surveys/quiz/backup.zip" in page
    backup = auth.client.get("/admin/surveys/quiz/backup.zip")
    archive = zipfile.ZipFile(io.BytesIO(backup.get_data()))
    backup.close()  # the spooled file goes with the response
    assert sorted(archive.namelist()) == ["codebook.json", "responses.csv", "versions/v1-quiz.yaml"]
    assert archive.read("versions/v1-quiz.yaml").decode() == QUIZ_YAML
    assert len(archive.read("responses.csv").decode().strip().splitlines()) == 2  # header and the answer
    refused = post(auth, "/admin/surveys/quiz/delete", confirm_id="Quiz")
    assert refused.status_code == 400 and "nothing was deleted" in refused.get_data(as_text=True)
    assert in_db(app, queries.response_count, "quiz") == 1
    assert post(auth, "/admin/surveys/quiz/delete", confirm_id="quiz").status_code == 302
    assert in_db(app, queries.response_count, "quiz") == 0
    assert in_db(app, stored_surveys.survey_record, "quiz") is None
    assert client.get("/s/quiz").status_code == 404
    assert "survey-deleted" in [e.action for e in in_db(app, audit.entries, ["quiz"])]


@pytest.mark.parametrize("action", ["open", "close", "archive", "unarchive", "listed", "clear", "delete"])
def test_a_lifecycle_post_without_a_csrf_token_changes_nothing(app, auth, action):
    auth.login()
    before = in_db(app, stored_surveys.survey_record, "quiz")
    response = auth.client.post(f"/admin/surveys/quiz/{action}", data={"listed": "off", "confirm_id": "quiz"})
    assert response.status_code == 400
    assert in_db(app, stored_surveys.survey_record, "quiz") == before


def test_lifecycle_buttons_are_the_owners_only(app, client, auth):
    assert client.post("/admin/surveys/quiz/archive").status_code in (401, 400)
    auth.login()
    page = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    assert "/admin/surveys/quiz/archive" in page and "/admin/surveys/quiz/delete" in page


def test_a_changed_survey_file_is_served_without_a_restart_and_a_locked_change_refused(app, client, surveys_dir):
    assert Respondent(app.test_client()).submit(ANSWERS).status_code == 200
    (surveys_dir / "quiz.yaml").write_text(QUIZ_YAML.replace("title: Test quiz", "title: Renamed quiz"))
    assert "Renamed quiz" in client.get("/s/quiz").get_data(as_text=True)
    redesigned = QUIZ_YAML.replace("design: {t: 2/3, a: 1/6, b: 1/6}", "design: {t: 3/4, a: 1/8, b: 1/8}")
    (surveys_dir / "quiz.yaml").write_text(redesigned)
    assert "Renamed quiz" in client.get("/s/quiz").get_data(as_text=True)  # the stored version still served
    with app.app_context():
        from web.catalog import get_catalog

        problems = [problem.message for problem in get_catalog().problems]
    assert "version 1 has answers: raise `version:` to change its questions or designs" in problems
    assert [v.version for v in in_db(app, stored_surveys.versions, "quiz")] == [1]
    (surveys_dir / "quiz.yaml").write_text(redesigned.replace("version: 1", "version: 2"))
    assert client.get("/s/quiz").status_code == 200
    assert [v.version for v in in_db(app, stored_surveys.versions, "quiz")] == [1, 2]


@pytest.mark.slow
@pytest.mark.postgresql_only
def test_a_change_on_one_app_server_is_served_by_another_within_a_second(postgres_url, tmp_path):
    """Two gunicorn servers (as two hosts) on one PostgreSQL database: unlisting the survey through the first
    takes it off the second's start page within a second, with no restart."""
    servers = []
    for name in ("host-a", "host-b"):
        (tmp_path / name).mkdir()
        server = Server(tmp_path / name)
        server.env["FLASK_DATABASE_URL"] = postgres_url
        server.workers = 1
        servers.append(server)
    try:
        for server in servers:
            server.start()
        first, second = (server.url for server in servers)
        db = open_database_url(postgres_url)
        try:
            accounts.create_admin(db, "ann", "a long enough password")
        finally:
            db.close()
        assert "Test quiz" in requests.get(f"{second}/", timeout=10).text
        session = requests.Session()
        token = csrf_of(session.get(f"{first}/admin/login", timeout=10).text)
        signed = session.post(
            f"{first}/admin/login", data={"csrf_token": token, "name": "ann", "password": "a long enough password"}
        )
        assert signed.status_code == 200, signed.text[:300]
        token = csrf_of(session.get(f"{first}/admin/surveys/quiz", timeout=10).text)
        changed = session.post(
            f"{first}/admin/surveys/quiz/listed", data={"csrf_token": token, "listed": "off"}, allow_redirects=False
        )
        assert changed.status_code == 302
        start = time.monotonic()
        while "Test quiz" in requests.get(f"{second}/", timeout=10).text:
            assert time.monotonic() - start < 1.0, "the second server still lists the survey after a second"
            time.sleep(0.05)
    finally:
        for server in servers:
            server.stop()


def open_database_url(url: str):
    from storage import connection

    return connection.connect(url)


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf_token" (?:type="hidden" )?value="([^"]+)"', html).group(1)


def test_a_catalogue_held_by_a_request_keeps_its_surveys_while_another_is_added_or_changed(app, draft):
    from web.catalog import get_catalog, refresh_now

    with app.test_request_context("/"):
        before = get_catalog()
        assert set(before.surveys) == {"quiz", "draft-one"}
        in_db(app, stored_surveys.save_version, OTHER_YAML, source_name="o.yaml", managed_by=None, actor=None)
        in_db(
            app,
            stored_surveys.save_version,
            DRAFT_YAML.replace("Draft one", "Draft two"),
            source_name="d.yaml",
            managed_by=None,
            actor=None,
        )
        refresh_now()
        after = get_catalog()
    assert set(before.surveys) == {"quiz", "draft-one"}  # a new dict for the added survey
    assert set(after.surveys) == {"quiz", "draft-one", "other"}
    assert after.get("draft-one").title == "Draft two" and after.standing_of("other").stage == "draft"


def fail_the_audit_write(monkeypatch):
    """The audit log's next write fails, after the change it records was written."""
    import types

    def fail(_size):
        raise RuntimeError("injected failure")

    monkeypatch.setattr(audit, "secrets", types.SimpleNamespace(token_hex=fail))


@pytest.mark.parametrize(
    ("path", "data"),
    [("delete", {"confirm_id": "quiz"}), ("close", {}), ("archive", {}), ("listed", {"listed": "off"})],
)
def test_a_change_is_never_committed_without_its_audit_entry(app, auth, monkeypatch, path, data):
    auth.login()
    before = (in_db(app, stored_surveys.survey_record, "quiz"), in_db(app, survey_states.closed_override, "quiz"))
    token = auth.csrf_token("/admin/")
    fail_the_audit_write(monkeypatch)
    with pytest.raises(RuntimeError, match="injected failure"):
        auth.client.post(f"/admin/surveys/quiz/{path}", data={"csrf_token": token, **data})
    monkeypatch.undo()
    after = (in_db(app, stored_surveys.survey_record, "quiz"), in_db(app, survey_states.closed_override, "quiz"))
    assert after == before and after[0] is not None
    assert in_db(app, audit.entries, ["quiz"]) == []
