"""The audit log's page, CSV and purge (web/auditlog.py, storage/audit.py), and the downloads it records."""

from __future__ import annotations

import csv
import io
import time

import pytest

from storage import audit
from tests.helpers.records import add_responses, many
from tests.helpers.survey_people import signed_in_as

pytestmark = pytest.mark.both_backends


def csv_rows(response) -> list[dict]:
    return list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))


def test_a_site_admin_sees_every_entry_and_an_owner_only_those_of_their_surveys(app, auth, db):
    audit.record(db, "someone", "survey-state", "quiz", "closed")
    audit.record(db, "elsewhere", "survey-state", "other", "opened")
    audit.record(db, None, "sign-in-failed", None, "")
    auth.login()
    page = auth.client.get("/admin/audit").get_data(as_text=True)
    assert "elsewhere" in page and "someone" in page and "sign-in-failed" in page
    actors = {row["actor"] for row in csv_rows(auth.client.get("/admin/audit.csv"))}
    assert {"someone", "elsewhere", ""} <= actors  # a sign-in of the researcher's may be there too
    owner = signed_in_as(app, "owner", "owner")
    page = owner.client.get("/admin/audit").get_data(as_text=True)
    assert "someone" in page and "elsewhere" not in page and "sign-in-failed" not in page
    rows = [r for r in csv_rows(owner.client.get("/admin/audit.csv")) if r["action"] != "sign-in"]  # her own
    assert [(r["actor"], r["action"], r["survey_id"], r["detail"]) for r in rows] == [
        ("someone", "survey-state", "quiz", "closed")
    ]
    analyst = signed_in_as(app, "analyst", "analyst")
    assert [(r["actor"], r["action"]) for r in csv_rows(analyst.client.get("/admin/audit.csv"))] == [
        ("analyst", "sign-in")  # her own, and nothing about the survey she only analyses
    ]


def test_signed_out_the_log_is_not_shown(client):
    assert client.get("/admin/audit").status_code == 302
    assert client.get("/admin/audit.csv").status_code == 401


def test_each_download_is_recorded_with_who_and_which_file_never_its_contents(app, auth, db):
    add_responses(app, many(3, 2))
    auth.login()
    for path in ("responses.csv", "estimates.json", "codebook.json", "breakdown.csv?by=year", "responses.dta"):
        assert auth.client.get(f"/admin/surveys/quiz/{path}").status_code == 200
    exports = [(e.actor, e.survey_id, e.detail) for e in audit.entries(db) if e.action == "export"]
    assert sorted(exports) == sorted(
        ("researcher", "quiz", detail)
        for detail in ("responses.csv", "estimates.json", "codebook.json", "breakdown.csv by year", "responses.dta")
    )
    logged = repr(audit.entries(db))
    assert "yes" not in logged and "first" not in logged and "127.0.0.1" not in logged


def test_a_refused_download_records_nothing(app, auth, db):
    auth.login()
    assert auth.client.get("/admin/surveys/quiz/estimates.csv?level=2").status_code == 400
    assert [e for e in audit.entries(db) if e.action == "export"] == []


def test_audit_purge_removes_the_entries_older_than_the_setting(make_app, admin_account):
    app = make_app({"SECRET_KEY": "k", "AUDIT_LOG_DAYS": "30"})
    from web.db import open_database

    db = open_database(app)
    now = time.time()
    audit.record(db, "old", "survey-state", "quiz", "", now=now - 31 * 86400)
    audit.record(db, "recent", "survey-state", "quiz", "", now=now - 29 * 86400)
    result = app.test_cli_runner().invoke(args=["audit", "purge"])
    assert result.exit_code == 0 and "Removed 1 audit log entries older than 30 days" in result.output
    assert [e.actor for e in audit.entries(db)] == ["recent"]
    db.close()


def test_opening_the_log_purges_the_entries_older_than_the_setting(make_app, admin_account):
    from tests.helpers.drivers import AdminSession
    from web.db import open_database

    app = make_app({"SECRET_KEY": "k", "AUDIT_LOG_DAYS": 7})
    db = open_database(app)
    audit.record(db, "old", "survey-state", "quiz", "", now=time.time() - 8 * 86400)
    session = AdminSession(app.test_client(), app)
    session.login()
    page = session.client.get("/admin/audit").get_data(as_text=True)
    assert "kept for 7 days" in page and ">old<" not in page
    assert "old" not in [e.actor for e in audit.entries(db)]
    db.close()


def test_the_csv_never_hands_a_spreadsheet_a_formula(app, auth, db):
    audit.record(db, "researcher", "token-created", "quiz", '=HYPERLINK("http://example.org")')
    auth.login()
    (row,) = [r for r in csv_rows(auth.client.get("/admin/audit.csv")) if r["action"] == "token-created"]
    assert row["detail"] == '\'=HYPERLINK("http://example.org")'


def test_an_account_sees_what_it_did_itself_even_on_a_survey_it_no_longer_owns(app, db):
    """A researcher who deleted her survey (her role went with it) still sees that she deleted it; another
    account's actions on other surveys stay hidden from her."""
    owner = signed_in_as(app, "owner", "owner")
    audit.record(db, "owner", "survey-deleted", "gone", "deleted by typing its id")
    audit.record(db, "elsewhere", "survey-deleted", "other", "")
    rows = [r for r in csv_rows(owner.client.get("/admin/audit.csv")) if r["action"] != "sign-in"]
    assert [(r["actor"], r["action"], r["survey_id"]) for r in rows] == [("owner", "survey-deleted", "gone")]
