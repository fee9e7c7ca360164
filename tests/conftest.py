"""Shared fixtures: an app on a temporary database, clients, a live server, Chromium."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from app import create_app
from tests.helpers import ADMIN_NAME, ADMIN_PASSWORD, QUIZ_YAML, AdminSession, Respondent

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
