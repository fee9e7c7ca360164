"""Reliability under load and faults, against the production server on loopback.

Gunicorn with several worker processes serves the app on a free 127.0.0.1
port. Concurrent clients submit with client-side submission keys; every
submission that got a success response must be stored exactly once, even
when every server process is killed with SIGKILL in the middle of the load.
Every loop is bounded in count and time.
"""

from __future__ import annotations

import secrets
import sqlite3
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from app import ROOT
from tests.helpers import Client, Server

CLIENTS = 50


@pytest.fixture
def server(tmp_path):
    srv = Server(tmp_path)
    try:
        srv.start()
        yield srv
    finally:
        srv.stop()


def stored(database: Path) -> dict:
    conn = sqlite3.connect(database)
    try:
        return {
            "integrity": conn.execute("PRAGMA integrity_check").fetchone()[0],
            "keys": {row[0] for row in conn.execute("SELECT key FROM submission_keys")},
            "responses": conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0],
            "daily": conn.execute("SELECT COALESCE(SUM(count), 0) FROM daily_counts").fetchone()[0],
            "tallied": dict(conn.execute("SELECT question, SUM(count) FROM tallies GROUP BY question").fetchall()),
        }
    finally:
        conn.close()


def check_exactly_once(state: dict, acknowledged: set[str]) -> None:
    assert state["integrity"] == "ok"
    assert acknowledged <= state["keys"], f"{len(acknowledged - state['keys'])} acknowledged submissions lost"
    assert state["responses"] == len(state["keys"]) == state["daily"]  # one row per key, nothing twice
    assert state["tallied"] == {"cheated": state["responses"], "ai_use": state["responses"], "year": state["responses"]}


def run_load(url: str, rounds: int, stop: threading.Event) -> list[Client]:
    clients = [Client(url) for _ in range(CLIENTS)]
    with ThreadPoolExecutor(max_workers=CLIENTS) as pool:
        for client in clients:
            pool.submit(client.run, rounds, stop)
    return clients


def test_concurrent_submitters_are_stored_exactly_once(server, tmp_path):
    stop = threading.Event()
    backup_result = {}

    def back_up_mid_load():
        time.sleep(1.0)
        before = stored(server.database)["keys"]
        copy = tmp_path / "backup.sqlite3"
        result = subprocess.run(
            [sys.executable, "-m", "flask", "--app", "app", "backup", str(copy)],
            cwd=ROOT,
            env=server.env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        backup_result.update(before=before, copy=copy, result=result)

    backup_thread = threading.Thread(target=back_up_mid_load)
    backup_thread.start()
    clients = run_load(server.url, rounds=8, stop=stop)
    backup_thread.join(timeout=90)

    statuses = [s for c in clients for s in c.statuses]
    acknowledged = {k for c in clients for k in c.acknowledged}
    assert not [s for s in statuses if s >= 500], "5xx responses under load"
    assert sum(c.errors for c in clients) == 0
    assert len(acknowledged) >= CLIENTS * 8 * 0.99
    check_exactly_once(stored(server.database), acknowledged)
    log = server.log.read_text()
    assert "database is locked" not in log
    access = [line for line in log.splitlines() if line.startswith('"')]
    assert len(access) > CLIENTS * 8 and not any("127.0.0.1" in line for line in access)  # no client address

    # The online backup, taken under load, restores with every row committed before it began.
    result = backup_result["result"]
    assert result.returncode == 0, result.stderr
    restored = stored(backup_result["copy"])
    assert restored["integrity"] == "ok"
    assert backup_result["before"] <= restored["keys"]
    assert restored["responses"] == len(restored["keys"])
    copy = backup_result["copy"]
    assert copy.read_bytes()[18:20] == b"\x01\x01"  # a rebuilt copy in rollback-journal mode, not WAL
    assert not [p.name for p in copy.parent.iterdir() if p.name.startswith(copy.name + "-")]  # no -wal, -shm
    assert oct(copy.stat().st_mode & 0o777) == oct(0o600)


def test_kill_9_mid_load_loses_no_acknowledged_submission(server):
    stop = threading.Event()
    clients = []

    def load():
        clients.extend(run_load(server.url, rounds=40, stop=stop))

    loader = threading.Thread(target=load)
    loader.start()
    time.sleep(2.0)
    server.kill()  # SIGKILL to the master and every worker, mid-load
    stop.set()
    loader.join(timeout=120)
    acknowledged = {k for c in clients for k in c.acknowledged}
    assert acknowledged, "no submission was acknowledged before the kill"
    assert sum(c.errors for c in clients) > 0 or len(acknowledged) < CLIENTS * 40  # the kill did cut the load

    server.start()  # restart on the same files: WAL recovery
    state = stored(server.database)
    check_exactly_once(state, acknowledged)
    # and the restarted server takes answers again
    Client(server.url).submit("after-restart-" + secrets.token_urlsafe(8))
    assert stored(server.database)["responses"] == state["responses"] + 1


# --------------------------------------------------------------------------
# A database locked for longer than the busy timeout.


def test_gunicorn_worker_timeout_is_well_above_the_busy_timeout():
    import runpy

    from storage.connection import BUSY_TIMEOUT_SECONDS

    config = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    assert config["timeout"] >= BUSY_TIMEOUT_SECONDS * 3  # a wait for the lock never gets a worker killed


def test_a_write_lock_held_too_long_gives_503_with_retry_after_and_the_retry_is_stored_once(
    app, respondent, monkeypatch
):
    from storage import connection

    monkeypatch.setattr(connection, "BUSY_TIMEOUT_SECONDS", 1)
    controls = respondent.open_form()
    answers = {"cheated": "yes", "ai_use": "once", "year": "first"}
    holder = sqlite3.connect(app.config["DATABASE"], isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer (a backup, a migration) keeps the lock
    try:
        started = time.monotonic()
        busy = respondent.submit(answers, controls=controls)
        waited = time.monotonic() - started
    finally:
        holder.execute("ROLLBACK")
    body = busy.get_data(as_text=True)
    assert busy.status_code == 503 and busy.headers["Retry-After"].isdigit()
    assert "not stored" in body and "send the form again" in body
    assert 1 <= waited < 10
    assert stored(Path(app.config["DATABASE"]))["responses"] == 0

    retried = respondent.submit(answers, controls=controls)  # the same submission key, lock released
    assert retried.status_code == 200 and "Thank you" in retried.get_data(as_text=True)
    again = respondent.submit(answers, controls=controls)
    assert again.status_code == 200
    state = stored(Path(app.config["DATABASE"]))
    assert state["responses"] == 1 and state["keys"] == {controls["submission_key"]}
