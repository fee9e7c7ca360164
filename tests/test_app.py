"""Tests of the factory, configuration, headers and logging."""

from __future__ import annotations

import logging
import re

import pytest

from app import create_app
from tests.helpers.records import stored_bytes
from tests.helpers.sample_surveys import ALIAS_BOMB_YAML, DEEP_YAML
from web.db import open_database
from web.logs import RedactClientAddress

pytestmark = pytest.mark.both_backends


def test_config_comes_from_flask_prefixed_environment(monkeypatch, tmp_path, app_backend, request):
    url = request.getfixturevalue("postgres_url") if app_backend == "postgresql" else None  # new, empty
    monkeypatch.setenv("FLASK_DATABASE", str(tmp_path / "env.sqlite3"))
    if url:
        monkeypatch.setenv("FLASK_DATABASE_URL", url)
    monkeypatch.setenv("FLASK_SURVEYS_DIR", str(tmp_path))
    monkeypatch.setenv("FLASK_SECRET_KEY", "from-env")
    app = create_app()
    assert app.config["DATABASE"] == str(tmp_path / "env.sqlite3")
    assert app.config.get("DATABASE_URL") == url
    assert app.config["SURVEYS_DIR"] == str(tmp_path)
    assert app.config["SECRET_KEY"] == "from-env"
    db = open_database(app)
    try:
        assert "responses" in db.table_names()  # schema created on first run
    finally:
        db.close()
    assert (tmp_path / "env.sqlite3").exists() == (url is None)  # on PostgreSQL, no SQLite file beside it


def test_csrf_token_lives_at_least_a_day(app):
    assert app.config["WTF_CSRF_TIME_LIMIT"] >= 24 * 3600


def test_index_lists_open_surveys(client):
    html = client.get("/").get_data(as_text=True)
    assert "/s/quiz" in html


def test_favicon_is_no_404(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 204 and response.data == b""


@pytest.mark.parametrize("path", ["/", "/s/quiz"])
def test_public_pages_link_to_the_researchers_sign_in(client, path):
    html = client.get(path).get_data(as_text=True)
    assert '<a href="/admin/login">Researchers: sign in</a>' in html


def test_admin_pages_do_not_offer_the_sign_in_link_again(client):
    assert "Researchers: sign in" not in client.get("/admin/login").get_data(as_text=True)


def test_respondent_page_loads_one_script_and_nothing_from_another_site(client):
    """Inline code on every page is checked in test_security.py; here: the one script is ours."""
    html = client.get("/s/quiz").get_data(as_text=True)
    assert html.count("<script") == 1 and 'src="/static/randomize.js"' in html
    assert "http://" not in html and "https://" not in html


def test_broken_survey_file_is_logged_and_the_others_keep_working(client, surveys_dir, caplog):
    (surveys_dir / "bad.yaml").write_text("id: bad\ntitle: Bad\nversion: 0\nquestions: []\n")
    with caplog.at_level(logging.ERROR):
        assert client.get("/s/quiz").status_code == 200
        assert client.get("/s/bad").status_code == 404
    assert "bad.yaml" in caplog.text and "version" in caplog.text


def test_hostile_survey_files_are_skipped_and_the_site_keeps_serving(client, surveys_dir, caplog):
    """Issue 24: a file nested 5,000 deep and a "billion laughs" file, each one problem naming its limit."""
    (surveys_dir / "deep.yaml").write_text(DEEP_YAML)
    (surveys_dir / "laughs.yaml").write_text(ALIAS_BOMB_YAML)
    with caplog.at_level(logging.ERROR):
        home = client.get("/")
        assert home.status_code == 200 and "/s/quiz" in home.get_data(as_text=True)
        assert client.get("/s/quiz").status_code == 200
        assert client.get("/s/deep").status_code == 404
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 2, errors
    assert errors[0].startswith("deep.yaml: nested more than 20 levels deep") and "MAX_YAML_DEPTH" in errors[0]
    assert errors[1].startswith("laughs.yaml: more than 50,000 values") and "MAX_YAML_NODES" in errors[1]


def test_new_survey_file_is_picked_up_without_restart(client, surveys_dir):
    assert client.get("/s/second").status_code == 404
    (surveys_dir / "second.yaml").write_text(
        "id: second\ntitle: Second\nversion: 1\nquestions:\n  - {name: q, type: yes_no, label: Question}\n"
    )
    assert client.get("/s/second").status_code == 200


def test_request_log_loses_address_and_time():
    record = logging.LogRecord(
        "werkzeug",
        logging.INFO,
        __file__,
        1,
        '203.0.113.9 - - [22/Nov/2026 11:00:00] "%s" %s %s',
        ("POST /s/quiz HTTP/1.1", "200", "-"),
        None,
    )
    RedactClientAddress().filter(record)
    message = record.getMessage()
    assert "203.0.113.9" not in message and "11:00:00" not in message
    assert message.startswith('"POST /s/quiz')


def test_invitation_only_survey_takes_each_code_once(app, surveys_dir, runner):
    from tests.helpers.drivers import Respondent
    from tests.helpers.sample_surveys import QUIZ_YAML

    (surveys_dir / "quiz.yaml").write_text(QUIZ_YAML.replace("version: 1\n", "version: 1\ninvitation_only: true\n"))
    code = runner.invoke(args=["codes", "create", "quiz", "1"]).output.strip()
    answers = {"cheated": "yes", "ai_use": "once", "year": "first"}
    assert app.test_client().get("/s/quiz").status_code == 403  # no code: no form
    assert app.test_client().get("/s/quiz?code=wrong-code").status_code == 403
    without = Respondent(app.test_client())
    assert without.submit(answers, controls=without.open_form(code=code)).status_code == 403  # code not posted
    first, second = Respondent(app.test_client()), Respondent(app.test_client())
    first_controls = {**first.open_form(code=code), "invitation_code": code}
    second_controls = {**second.open_form(code=code), "invitation_code": code}  # same link, opened twice
    assert first.submit(answers, controls=first_controls).status_code == 200
    response = second.submit(answers, controls=second_controls)
    assert response.status_code == 403 and "not valid" in response.get_data(as_text=True)
    assert app.test_client().get(f"/s/quiz?code={code}").status_code == 403  # a used link shows no form


def test_submissions_are_rate_limited_per_address(app, respondent, db):
    app.config["RATELIMIT_SUBMISSIONS"] = "3/600"
    from tests.helpers.drivers import Respondent

    statuses = [
        Respondent(app.test_client()).submit({"cheated": "yes", "ai_use": "once", "year": "first"}).status_code
        for _ in range(4)
    ]
    assert statuses == [200, 200, 200, 429]
    assert db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 3


def test_rate_limit_can_be_switched_off(app):
    app.config.update(RATELIMIT_SUBMISSIONS="1/600", RATELIMIT_ENABLED=False)
    from tests.helpers.drivers import Respondent

    for _ in range(3):
        assert (
            Respondent(app.test_client()).submit({"cheated": "no", "ai_use": "once", "year": "first"}).status_code
            == 200
        )


def test_rate_limit_counts_hold_no_address(app, respondent):
    """In the rate-limit file on SQLite, in the app's database on PostgreSQL: a keyed hash, not the address."""
    respondent.submit({"cheated": "no", "ai_use": "once", "year": "first"})
    data = stored_bytes(app)
    assert b"submit:" in data  # the search does see the submission's bucket ...
    assert b"127.0.0.1" not in data  # ... which names no address


def trusted_app(monkeypatch, make_app, value: str):
    monkeypatch.setenv("FLASK_TRUSTED_HOSTS", value)
    return make_app({"SECRET_KEY": "x"})


@pytest.mark.parametrize("value", ["survey.example, localhost", '["survey.example", "localhost"]'])
def test_trusted_hosts_from_the_environment_refuse_a_foreign_host(monkeypatch, make_app, value):
    client = trusted_app(monkeypatch, make_app, value).test_client()
    for path in ("/", "/admin", "/admin/", "/s/quiz"):
        foreign = client.get(path, headers={"Host": "evil.example"})
        assert foreign.status_code == 400 and "Location" not in foreign.headers
        assert "evil.example" not in foreign.get_data(as_text=True)
    assert client.get("/s/quiz", headers={"Host": "survey.example"}).status_code == 200
    assert client.get("/", headers={"Host": "localhost:8000"}).status_code == 200


@pytest.mark.parametrize("path", ["/admin", "/admin/", "/admin/surveys/quiz"])
def test_redirects_are_relative_so_a_forged_host_never_comes_back(client, path):
    """Without FLASK_TRUSTED_HOSTS the app still answers any Host, but no Location names it."""
    response = client.get(path, headers={"Host": "evil.example"})
    assert response.status_code in (302, 308)
    location = response.headers["Location"]
    assert location.startswith("/admin/") and "evil.example" not in location
    assert "evil.example" not in response.get_data(as_text=True)


def test_redirects_after_sign_in_and_sign_out_are_paths(auth):
    """The app's own redirects (``url_for``) were paths already; Werkzeug leaves them so."""
    signed_in = auth.login()
    assert signed_in.status_code == 302 and signed_in.headers["Location"] == "/admin/"
    signed_out = auth.logout()
    assert signed_out.status_code == 302 and signed_out.headers["Location"] == "/admin/login"


@pytest.mark.sqlite_only(reason="a subprocess imports the app to read its BLAS setting; the backend plays no part")
def test_the_app_asks_for_one_blas_thread_before_numpy_is_imported(tmp_path, app_database_url):
    import subprocess
    import sys
    from pathlib import Path

    settings = {
        "TESTING": True,
        "SECRET_KEY": "x",
        "DATABASE": str(tmp_path / "b.sqlite3"),
        "DATABASE_URL": app_database_url,
    }
    code = (
        "import os, sys\n"
        "for name in ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS'): os.environ.pop(name, None)\n"
        "import app\n"
        "before = 'numpy' in sys.modules\n"
        f"app.create_app({settings!r})\n"
        "print(before, 'numpy' in sys.modules, os.environ['OPENBLAS_NUM_THREADS'], os.environ['OMP_NUM_THREADS'])\n"
    )
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True", "1", "1"]


# --------------------------------------------------------------------------
# PROXY_FIX: the client's address, scheme and host from a trusted proxy's X-Forwarded-* headers.

FORWARDED = {"X-Forwarded-For": "203.0.113.77", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "survey.example.org"}


def proxied_app(make_app, hops, **settings):
    return make_app({"SECRET_KEY": "x", "PROXY_FIX": hops, **settings})


@pytest.mark.parametrize(("hops", "link"), [(0, "http://localhost/s/quiz"), (1, "https://survey.example.org/s/quiz")])
def test_proxy_fix_takes_scheme_and_host_from_x_forwarded_only_when_set(make_app, hops, link):
    from storage import accounts
    from tests.helpers.drivers import ADMIN_NAME, ADMIN_PASSWORD, AdminSession

    app = proxied_app(make_app, hops)
    db = open_database(app)
    accounts.create_admin(db, ADMIN_NAME, ADMIN_PASSWORD)
    db.close()
    client = app.test_client()
    assert AdminSession(client, app).login().status_code == 302
    html = client.get("/admin/", headers=FORWARDED).get_data(as_text=True)
    assert f"<title>{link}</title>" in html  # the shared link (and its QR code) names the public address
    assert ("survey.example.org" in html) == bool(hops)


@pytest.mark.parametrize(("hops", "forwarded_host_status"), [(0, 400), (1, 200)])
def test_trusted_hosts_check_the_forwarded_host_only_behind_a_trusted_proxy(make_app, hops, forwarded_host_status):
    app = proxied_app(make_app, hops, TRUSTED_HOSTS=["survey.example.org"])
    client = app.test_client()
    headers = {"Host": "10.0.0.5:8000", "X-Forwarded-Host": "survey.example.org"}
    assert client.get("/s/quiz", headers=headers).status_code == forwarded_host_status
    assert client.get("/s/quiz", headers={"Host": "10.0.0.5:8000"}).status_code == 400


@pytest.mark.parametrize(("hops", "second_status"), [(0, 429), (1, 200)])
def test_behind_a_trusted_proxy_the_rate_limit_keys_on_the_client_and_stores_no_address(
    make_app, hops, second_status, caplog
):
    from tests.helpers.drivers import Respondent

    app = proxied_app(make_app, hops, RATELIMIT_SUBMISSIONS="1/600")
    answers = {"cheated": "yes", "ai_use": "once", "year": "first"}
    statuses = []
    with caplog.at_level(logging.DEBUG):
        for address in ("203.0.113.77", "198.51.100.23"):  # two clients through the same proxy
            client = app.test_client()
            client.environ_base["HTTP_X_FORWARDED_FOR"] = address
            statuses.append(Respondent(client).submit(answers).status_code)
    assert statuses == [200, second_status]
    stored = stored_bytes(app)  # the database and the rate-limit counts (SQLite: both files must exist)
    assert b"submit:" in stored and b'"cheated"' in stored  # the search sees the buckets and the answers
    assert b"203.0.113" not in stored and b"198.51.100" not in stored  # no address next to an answer
    assert "203.0.113" not in caplog.text and "198.51.100" not in caplog.text


@pytest.mark.parametrize("value", [-1, "two", True, 1.5])
def test_a_proxy_fix_that_is_not_a_count_of_proxies_is_refused_by_name(make_app, value):
    with pytest.raises(ValueError, match=r"PROXY_FIX .* not " + re.escape(repr(value))):
        proxied_app(make_app, value)
