"""Shared fixtures: an app on a temporary database, clients, a live server, Chromium."""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from app import create_app

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless=new",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

#: A survey written for the tests, so the shipped examples can change freely.
QUIZ_YAML = """\
id: quiz
title: Test quiz
version: 1
intro: Answers are randomized.
questions:
  - name: cheated
    type: yes_no
    label: Have you ever cheated on an exam?
  - name: lied
    type: yes_no
    label: Have you lied to a professor?
    required: false
    design: {t: 2/3, a: 1/6, b: 1/6}
  - name: ai_use
    type: select_one
    label: How often have you used AI-written text as your own?
    choices: [never, once, sometimes, often]
    design: {t: 1/2}
  - name: year
    type: select_one
    label: Year of study
    choices: [first, second, third, fourth]
    randomize: false
"""


#: A survey for the results and export tests: a plain question with labelled choices.
DEPT_SURVEY_YAML = (
    QUIZ_YAML.replace("intro: Answers are randomized.\n", "")
    .replace("  - name: year\n", "  - name: dept\n")
    .replace(
        "    label: Year of study\n    choices: [first, second, third, fourth]\n",
        "    label: Department\n"
        "    choices: [{name: arts, label: Arts}, {name: science, label: Science}, {name: law, label: Law}]\n",
    )
)


def make_survey(text: str = DEPT_SURVEY_YAML, **changes):
    """Parse a survey from YAML text, with top-level keys replaced by ``changes``."""
    import yaml

    from surveys.schema import parse_survey

    mapping = yaml.safe_load(text)
    mapping.update(changes)
    return parse_survey(mapping, "quiz.yaml")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A skipped browser test is a failure when the browser is required (CI)."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and item.get_closest_marker("browser") and os.environ.get("RR_REQUIRE_BROWSER"):
        report.outcome = "failed"
        report.longrepr = f"browser test skipped but RR_REQUIRE_BROWSER is set: {report.longrepr}"


@pytest.fixture
def surveys_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "surveys"
    folder.mkdir()
    (folder / "quiz.yaml").write_text(QUIZ_YAML)
    return folder


@pytest.fixture
def app(tmp_path: Path, surveys_dir: Path):
    return create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "test.sqlite3"),
            "SURVEYS_DIR": str(surveys_dir),
            "SECRET_KEY": "test-secret-key",
            "RATELIMIT_SUBMISSIONS": "100000/600",  # tests submit many times from one address
        }
    )


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


@pytest.fixture
def db(app):
    from storage import connection

    database = connection.connect(app.config["DATABASE"])
    yield database
    database.close()


@pytest.fixture
def fresh_db(tmp_path):
    """A migrated database on its own, without an app."""
    from storage import connection, migrations

    database = connection.connect(tmp_path / "fresh.sqlite3")
    migrations.migrate(database)
    yield database
    database.close()


@pytest.fixture
def umask_022():
    """The usual umask, under which files are created 0644 unless asked otherwise."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def wire_form(survey, answers: dict, device: bool = False) -> dict:
    """The answer fields a browser posts for ``answers`` (``{question: choice name}``), in form order.

    Every question is sent as its fixed-width wire value (``web.forms.wire_value``),
    an optional question left out as "no answer", under ``rr-<name>`` when
    ``device``. A value that is not a choice name and a key that is not a
    question are sent as given, for the tests of refusals.
    """
    from web.forms import wire_value

    prefix = "rr-" if device else ""
    names = {q.name for q in survey.questions}
    fields = {}
    for q in survey.questions:
        if q.name in answers:
            value = answers[q.name]
            fields[prefix + q.name] = wire_value(q, value) if value in q.choice_names else value
        elif not q.required:
            fields[prefix + q.name] = wire_value(q, None)
    fields.update({prefix + key: value for key, value in answers.items() if key not in names})
    return fields


def survey_in(app, survey_id: str = "quiz"):
    """The app's loaded survey ``survey_id``."""
    from web.catalog import get_catalog

    with app.app_context():
        return get_catalog().surveys[survey_id]


class Respondent:
    """Drives the survey form through the test client, as a browser without JavaScript would."""

    def __init__(self, client):
        self.client = client

    def open_form(self, survey_id: str = "quiz", **params) -> dict:
        page = self.client.get(f"/s/{survey_id}", query_string=params)
        assert page.status_code == 200, page.get_data(as_text=True)
        html = page.get_data(as_text=True)
        return {
            "csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', html).group(1),
            "submission_key": re.search(r'name="submission_key" type="hidden" value="([^"]+)"', html).group(1),
        }

    def submit(self, answers: dict, survey_id: str = "quiz", device: bool = False, controls=None):
        controls = controls if controls is not None else self.open_form(survey_id)
        data = dict(controls)
        if device:
            data["randomized_on"] = "device"
        data.update(wire_form(survey_in(self.client.application, survey_id), answers, device))
        return self.client.post(f"/s/{survey_id}", data=data)


@pytest.fixture
def respondent(client) -> Respondent:
    return Respondent(client)


@pytest.fixture
def live_server(app):
    """The app on a free loopback port, in a thread; yields its base URL."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(timeout=10)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Launch Debian's Chromium: Playwright cannot download its own browser here."""
    path = os.environ.get("RR_CHROMIUM", "/usr/bin/chromium")
    if not os.path.exists(path):
        message = f"Chromium not found at {path}; run `make test`, which installs it"
        if os.environ.get("RR_REQUIRE_BROWSER"):
            pytest.fail(message)
        pytest.skip(message)
    return {**browser_type_launch_args, "executable_path": path, "args": CHROMIUM_ARGS}


def csrf_token_in(html: str) -> str:
    return re.search(r'name="csrf_token"(?: type="hidden")? value="([^"]+)"', html).group(1)


ADMIN_NAME = "researcher"
ADMIN_PASSWORD = "correct horse battery"


class AdminSession:
    """Signs in through the real form, CSRF token and all."""

    def __init__(self, client, app):
        self.client = client
        self.app = app

    def csrf_token(self, path: str = "/admin/login") -> str:
        return csrf_token_in(self.client.get(path).get_data(as_text=True))

    def login(self, name: str = ADMIN_NAME, password: str = ADMIN_PASSWORD):
        token = self.csrf_token()
        return self.client.post("/admin/login", data={"csrf_token": token, "name": name, "password": password})

    def logout(self):
        token = self.csrf_token("/admin/")
        return self.client.post("/admin/logout", data={"csrf_token": token})


@pytest.fixture
def admin_account(app):
    from storage import accounts, connection

    db = connection.connect(app.config["DATABASE"])
    accounts.create_admin(db, ADMIN_NAME, ADMIN_PASSWORD)
    db.close()
    return ADMIN_NAME


@pytest.fixture
def auth(client, app, admin_account) -> AdminSession:
    return AdminSession(client, app)
