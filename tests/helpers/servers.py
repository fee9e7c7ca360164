"""The app served for real: Werkzeug in a thread for the browser tests, gunicorn in a process group of its own
for the reliability and log tests, and respondent machines posting to it over HTTP."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import requests
from werkzeug.serving import make_server

from app import ROOT
from tests.helpers.drivers import wire_form
from tests.helpers.sample_surveys import QUIZ_YAML, make_survey

WORKERS = 3


ANSWERS = {
    **wire_form(make_survey(QUIZ_YAML), {"cheated": "yes", "ai_use": "once", "year": "first"}, device=True),
    "randomized_on": "device",
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """Gunicorn in its own process group, so a test can SIGKILL all of it."""

    def __init__(self, tmp_path: Path):
        self.tmp_path = tmp_path
        self.database = tmp_path / "load.sqlite3"
        surveys = tmp_path / "surveys"
        surveys.mkdir(exist_ok=True)
        (surveys / "quiz.yaml").write_text(QUIZ_YAML)
        self.env = {
            **os.environ,
            "FLASK_DATABASE": str(self.database),
            "FLASK_SURVEYS_DIR": str(surveys),
            "FLASK_SECRET_KEY": "reliability-test-key",
            "FLASK_RATELIMIT_ENABLED": "false",
        }
        self.log = tmp_path / "server.log"
        self.process = None
        self.workers = WORKERS

    def start(self) -> str:
        port = free_port()
        with self.log.open("ab") as log:  # the child keeps its own copy of the descriptor
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "gunicorn",
                    "-c",
                    "gunicorn.conf.py",
                    "--bind",
                    f"127.0.0.1:{port}",
                    "--workers",
                    str(self.workers),
                    "app:create_app()",
                ],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if requests.get(f"{self.url}/s/quiz", timeout=10).status_code == 200:
                    return self.url
            except requests.RequestException:  # not listening yet, or slow on a busy machine
                time.sleep(0.1)
            if self.process.poll() is not None:
                break
        self.stop()
        raise AssertionError(f"gunicorn did not answer within 30 s:\n{self.log.read_text()}")

    def kill(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


@contextlib.contextmanager
def served(app) -> Iterator[str]:
    """``app`` served by Werkzeug's threaded server on a free loopback port, in a thread; yields its base URL.

    The port is bound when ``make_server`` returns, so no wait. The server looks for the request to stop
    every 20 ms instead of socketserver's default 0.5 s, which every browser test spent at teardown."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


class Client:
    """One respondent machine: gets a CSRF token once, then submits with fresh keys."""

    def __init__(self, url: str):
        self.url = url
        self.session = requests.Session()
        html = self.session.get(f"{url}/s/quiz", timeout=10).text
        self.token = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
        self.acknowledged: list[str] = []
        self.statuses: list[int] = []
        self.errors = 0

    def submit(self, key: str) -> None:
        self.session.cookies.pop("rr_done_quiz", None)
        try:
            response = self.session.post(
                f"{self.url}/s/quiz", data={**ANSWERS, "csrf_token": self.token, "submission_key": key}, timeout=30
            )
        except requests.RequestException:
            self.errors += 1  # no answer: not acknowledged, may or may not be stored
            return
        self.statuses.append(response.status_code)
        if response.status_code == 200 and "Thank you" in response.text:
            self.acknowledged.append(key)

    def run(self, rounds: int, stop: threading.Event) -> None:
        for _ in range(rounds):
            if stop.is_set():
                return
            key = secrets.token_urlsafe(18)
            self.submit(key)
            if self.acknowledged and self.acknowledged[-1] == key and len(self.acknowledged) % 3 == 0:
                self.submit(key)  # a retry of a stored submission: answered, not stored again
