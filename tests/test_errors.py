"""web/errors.py: every failure a request can meet is a page with its status and a message that says what
happened, never a 500 for the database's own trouble."""

from __future__ import annotations

import html
import logging
import sqlite3

import psycopg
import pytest

from tests.helpers.drivers import Respondent
from tests.helpers.records import stored_count
from web.db import get_db
from web.errors import database_unavailable, handle_postgres_unavailable, is_storage_failing

pytestmark = pytest.mark.sqlite_only(
    reason="SQLite's own disk errors; PostgreSQL's (its server's disk) reach the app as psycopg's "
    "OperationalError, answered by the same 503 (tests/test_postgres_servers.py)"
)

ANSWERS = {"cheated": "yes", "lied": "no", "ai_use": "never", "year": "first"}


def fill_the_disk(app) -> None:
    """Give the app's database no room for one more page: SQLite's own way to a full disk (``SQLITE_FULL``)."""
    with app.test_request_context():  # the test client's requests run on this thread, with this connection
        db = get_db()
        (pages,) = db.execute("PRAGMA page_count").fetchone()
        db.execute(f"PRAGMA max_page_count = {pages}")


def submit_until_refused(app, language: str | None = None):
    """New respondents submit until one is refused (answers fill the free space in the database's pages, then
    one needs a new page): that respondent, its form's controls, the count stored before it, the response."""
    refused = None
    for _ in range(200):
        client = app.test_client()
        if language:
            client.environ_base["HTTP_ACCEPT_LANGUAGE"] = language
        respondent = Respondent(client)
        controls = respondent.open_form()
        before = stored_count(app)
        response = respondent.submit(ANSWERS, controls=controls)
        if response.status_code != 200:
            refused = response
            break
    return respondent, controls, before, refused


def test_a_full_disk_gives_503_stores_nothing_and_logs_why_and_the_resend_is_stored_once(app, caplog):
    fill_the_disk(app)
    caplog.set_level(logging.ERROR)
    respondent, controls, before, refused = submit_until_refused(app)
    assert refused is not None and refused.status_code == 503, refused and refused.get_data(as_text=True)
    page = refused.get_data(as_text=True)
    assert "could not write to its storage" in page and "nothing was stored" in page
    assert refused.headers["Retry-After"] == "60"
    assert stored_count(app) == before  # the refused answer left nothing
    assert any("could not be written" in r.getMessage() and "full" in r.getMessage() for r in caplog.records)
    assert not any(r.exc_info for r in caplog.records)  # a line for the administrator, no traceback

    with app.test_request_context():
        get_db().execute("PRAGMA max_page_count = 1073741823")
    assert respondent.submit(ANSWERS, controls=controls).status_code == 200  # sent again once there is room
    assert respondent.submit(ANSWERS, controls=controls).status_code == 200  # a repeat of the key
    assert stored_count(app) == before + 1


@pytest.mark.parametrize(
    ("language", "title"),
    [
        ("fr", "Les réponses ne peuvent pas être enregistrées pour le moment"),
        ("es", "Las respuestas no se pueden guardar en este momento"),
    ],
)
def test_the_full_disk_page_is_in_the_respondents_language(app, language, title):
    fill_the_disk(app)
    *_, refused = submit_until_refused(app, language)
    assert refused is not None and refused.status_code == 503
    page = refused.get_data(as_text=True)
    assert title in page and "nothing was stored" not in page


def sqlite_error(tmp_path, make) -> sqlite3.OperationalError:
    """The error SQLite itself raises (with its result code) for what ``make(tmp_path)`` does."""
    with pytest.raises(sqlite3.OperationalError) as raised:
        make(tmp_path)
    return raised.value


def read_only_write(tmp_path):
    path = tmp_path / "ro.sqlite3"
    sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.commit()
    sqlite3.connect(f"file:{path}?mode=ro", uri=True).execute("INSERT INTO t VALUES (1)")


@pytest.mark.parametrize(
    ("make", "failing"),
    [
        (read_only_write, True),
        (lambda tmp_path: sqlite3.connect(tmp_path / "no" / "such" / "folder.sqlite3"), True),
        (lambda tmp_path: sqlite3.connect(":memory:").execute("SELECT * FROM missing"), False),
        (lambda tmp_path: sqlite3.connect(":memory:").execute("SELEC 1"), False),
    ],
    ids=["read-only", "cannot open", "no such table", "syntax"],
)
def test_a_disk_that_cannot_be_written_is_told_from_a_mistake_in_the_code(tmp_path, make, failing):
    assert is_storage_failing(sqlite_error(tmp_path, make)) is failing


def test_a_failing_disk_is_known_by_its_extended_result_code():
    error = sqlite3.OperationalError("disk I/O error")
    error.sqlite_errorname = "SQLITE_IOERR_WRITE"  # as SQLite sets it; the message alone decides nothing
    assert is_storage_failing(error)
    assert not is_storage_failing(sqlite3.OperationalError("disk I/O error"))


def test_postgresqls_full_disk_is_the_storage_page_and_a_lock_not_granted_the_busy_one(app, caplog):
    with app.test_request_context():
        page, status, headers = handle_postgres_unavailable(psycopg.errors.DiskFull("could not extend file"))
        assert (status, headers["Retry-After"]) == (503, "60") and "could not write to its storage" in page
        assert any("could not extend file" in r.getMessage() for r in caplog.records if r.levelname == "ERROR")
        page, status, headers = handle_postgres_unavailable(psycopg.errors.LockNotAvailable("lock timeout"))
        assert (status, headers["Retry-After"]) == (503, "5") and "The database is busy" in page


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (psycopg.OperationalError("the database system is in recovery mode"), True),
        (sqlite3.OperationalError("database is locked"), True),
        (psycopg.errors.ReadOnlySqlTransaction("cannot execute CREATE TABLE in a read-only transaction"), True),
        (sqlite3.OperationalError("no such table: responses"), False),
        (ValueError("bad setting"), False),
    ],
)
def test_database_unavailable_is_a_database_out_of_reach_not_a_wrong_one(error, expected):
    assert database_unavailable(error) is expected


def test_a_disk_sqlite_cannot_write_is_unavailable_too(tmp_path):
    assert database_unavailable(sqlite_error(tmp_path, read_only_write))


# --------------------------------------------------------------------------
# The other error pages: in the reader's language, English in the researchers' areas.


def error_page(client, path: str, language: str | None = None, status: int = 404) -> str:
    response = client.get(path, headers={"Accept-Language": language} if language else {})
    assert response.status_code == status, response.get_data(as_text=True)
    return html.unescape(response.get_data(as_text=True))


@pytest.mark.parametrize(
    ("language", "title", "sentence"),
    [
        ("fr", "Page introuvable", "Il n’y a aucune enquête nommée « nowhere »."),
        ("es", "Página no encontrada", "No hay ninguna encuesta llamada «nowhere»."),
        (None, "Not found", "There is no survey called “nowhere”."),
    ],
)
def test_a_survey_address_that_names_no_survey_is_refused_in_the_visitors_language(client, language, title, sentence):
    page = error_page(client, "/s/nowhere", language)
    assert f"<h1>{title}</h1>" in page and sentence in page


def test_an_address_with_no_page_is_refused_in_the_visitors_language_and_lang_comes_first(client):
    page = error_page(client, "/no-such-page", "es")
    assert "<h1>Página no encontrada</h1>" in page and "No hay ninguna página en esta dirección." in page
    page = error_page(client, "/no-such-page?lang=fr", "es")
    assert "<h1>Page introuvable</h1>" in page and "Il n’y a aucune page à cette adresse." in page


def test_a_method_the_page_does_not_take_is_refused_in_the_visitors_language(client):
    response = client.delete("/s/quiz", headers={"Accept-Language": "fr"})
    assert response.status_code == 405
    page = html.unescape(response.get_data(as_text=True))
    assert "<h1>Méthode non autorisée</h1>" in page and "Cette page ne peut pas être atteinte de cette façon." in page


def test_the_researchers_areas_refuse_in_english_whatever_the_browser_says(client):
    page = error_page(client, "/admin/no-such-page", "fr")
    assert "<h1>Not found</h1>" in page and "There is no page at this address." in page
    assert "introuvable" not in page
