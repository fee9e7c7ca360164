"""What the servers write to their logs: no client address, query string, size, date or time of day.

Gunicorn (the documented production server, ``gunicorn.conf.py``) and
Werkzeug's development server (``flask run``) each serve a malformed request,
an invitation link with ``?code=``, a page and a submission; their captured
logs are then searched for what must not be there.
"""

from __future__ import annotations

import io
import logging
import re
import socket
import time
from urllib.parse import urlsplit

import pytest
import requests

from serving import RedactingFormatter, redact
from tests.helpers.servers import Client, Server

pytestmark = pytest.mark.both_backends

SECRET = "SECRETCODE"
FORBIDDEN = {
    "a client address": re.compile(r"127\.0\.0\.1|::1\b"),
    "the invitation code": re.compile(SECRET),
    "a time of day": re.compile(r"\d{1,2}:\d{2}:\d{2}"),
    "an ISO date": re.compile(r"\d{4}-\d{2}-\d{2}"),
    "a log date": re.compile(r"\d{1,2}/[A-Z][a-z]{2}/\d{4}"),
}


def assert_nothing_forbidden(log: str) -> None:
    for what, pattern in FORBIDDEN.items():
        found = pattern.findall(log)
        assert not found, f"the log holds {what}: {found[:3]}\n{log}"


def send_raw(url: str, data: bytes) -> bytes:
    """Send bytes on a fresh connection; return what comes back."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def exercise(url: str) -> None:
    """The requests whose log lines could leak: malformed, with a code, a page, a submission."""
    reply = send_raw(url, f"GET /s/quiz?code={SECRET} HTTP/1.1 garbage\r\nHost: x\r\n\r\n".encode())
    assert b"400" in reply  # (http.server answers a bad version without a status line)
    assert requests.get(f"{url}/s/quiz", params={"code": SECRET}, timeout=10).status_code == 200
    assert requests.get(f"{url}/nowhere", params={"code": SECRET}, timeout=10).status_code == 404
    client = Client(url)
    client.submit("log-test-key-0001")
    assert client.acknowledged == ["log-test-key-0001"]


# --------------------------------------------------------------------------
# The redaction itself.


@pytest.mark.parametrize(
    "line, kept",
    [
        (
            '127.0.0.1 - - [22/Nov/2026 11:00:00] "GET /s/quiz?code=SECRETCODE HTTP/1.1" 200 5123',
            '"GET /s/quiz HTTP/1.1" 200',
        ),
        (
            "Invalid request from ip=127.0.0.1: Invalid HTTP request line: 'GET /x?code=SECRETCODE'",
            "Invalid request from ip=<address>: Invalid HTTP request line: 'GET /x'",
        ),
        ("Invalid request from ip=::1: bad", "Invalid request from ip=<address>: bad"),
        ("Invalid request from ip=2001:db8::7: bad", "Invalid request from ip=<address>: bad"),
        ("Listening at: http://[fe80::1%eth0]:8000 (12)", "Listening at: http://[<address>]:8000 (12)"),
        ("Error handling request GET /s/quiz?code=SECRETCODE", "Error handling request GET /s/quiz"),
        ("[2026-11-22 16:09:45 +0000] [12] [INFO] Booting", "[2026-11-22 <time> +0000] [12] [INFO] Booting"),
        (
            "survey 'quiz': closes 2026-11-30 is before opens 2026-12-01",
            "survey 'quiz': closes 2026-11-30 is before opens 2026-12-01",
        ),
        ('db.execute("INSERT INTO t VALUES (?,?)", [a, b])', 'db.execute("INSERT INTO t VALUES (?,?)", [a, b])'),
        ("GET /?code=SECRETCODE HTTP/1.1", "GET / HTTP/1.1"),
        (
            "Worker (pid:1234) was sent SIGKILL! Perhaps out of memory?",
            "Worker (pid:1234) was sent SIGKILL! Perhaps out of memory?",
        ),
        ('"POST /s/quiz HTTP/1.1" 303 -', '"POST /s/quiz HTTP/1.1" 303'),
    ],
)
def test_redact_drops_addresses_queries_sizes_and_times(line, kept):
    assert redact(line) == kept


def test_flask_app_log_has_no_time_stamp(app):
    from flask.logging import default_handler

    assert isinstance(default_handler.formatter, RedactingFormatter)
    record = logging.LogRecord("app", logging.ERROR, __file__, 1, "Exception on %s [%s]", ("/s/quiz", "GET"), None)
    assert default_handler.format(record) == "ERROR in test_logs: Exception on /s/quiz [GET]"


# --------------------------------------------------------------------------
# Gunicorn, the production server.


@pytest.mark.slow
def test_gunicorn_logs_hold_no_address_code_size_or_time(tmp_path, app_database_url):
    server = Server(tmp_path)
    server.workers = 1  # the master's and a worker's lines: one worker boots in a third of the time of three
    if app_database_url:  # the app's PostgreSQL database, as the other tests' apps use
        server.env["FLASK_DATABASE_URL"] = app_database_url
    try:
        url = server.start()
        exercise(url)
    finally:
        server.stop()
    log = server.log.read_text()
    assert "Invalid request from ip=<address>" in log  # the malformed request was logged, redacted
    access = [line for line in log.splitlines() if line.startswith('"')]
    assert '"GET /s/quiz" 200' in access and '"GET /nowhere" 404' in access and '"POST /s/quiz" 200' in access
    assert all(re.fullmatch(r'"[A-Z]+ /\S*" \d{3}', line) for line in access), access  # no size
    assert_nothing_forbidden(log)


# --------------------------------------------------------------------------
# Werkzeug, the development server.


@pytest.fixture
def werkzeug_log():
    """Everything the werkzeug logger writes during the test, as text."""
    logger = logging.getLogger("werkzeug")
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    old_level = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    yield buffer
    logger.removeHandler(handler)
    logger.setLevel(old_level)


def test_development_server_log_holds_no_address_code_size_or_time(live_server, werkzeug_log):
    exercise(live_server)
    deadline = time.monotonic() + 5
    while werkzeug_log.getvalue().count("\n") < 5 and time.monotonic() < deadline:
        time.sleep(0.05)  # the server thread logs after it has answered
    log = re.sub(r"\x1b\[[0-9;]*m", "", werkzeug_log.getvalue())  # colours, when the terminal has them
    assert '"GET /s/quiz HTTP/1.1" 200\n' in log and '"GET /nowhere HTTP/1.1" 404\n' in log
    assert "Bad request" in log  # the malformed request was logged, redacted
    assert not re.search(r'" \d{3} (\d+|-)$', log, re.MULTILINE)  # no size after the status
    assert_nothing_forbidden(log)
