"""Reliability under load and faults, against the production server on loopback.

Gunicorn with several worker processes serves the app on a free 127.0.0.1
port. Concurrent clients submit with client-side submission keys; every
submission that got a success response must be stored exactly once, even
when every server process is killed with SIGKILL in the middle of the load.
Every loop is bounded in count and time.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests

from app import ROOT
from devtools import postgres_cluster
from tests.helpers.servers import Client, Server

pytestmark = pytest.mark.sqlite_only(
    reason=(
        "its SQLite half: SQLite's write lock and busy timeout and its online backup; the PostgreSQL half is "
        "there too, on a cluster of its own"
    )
)

CLIENTS = 50


@pytest.fixture
def server(tmp_path):
    srv = Server(tmp_path)
    try:
        srv.start()
        yield srv
    finally:
        srv.stop()


def _response_count(database: Path) -> int:
    conn = sqlite3.connect(database)
    try:
        return conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    finally:
        conn.close()


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


@pytest.mark.slow
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
    assert not [s for s in statuses if s >= 500 and s != 503], "a 500 under load"
    # A write that waited out SQLite's 5 s busy timeout is refused with a 503 and Retry-After, nothing stored
    # (docs/deployment.md, and the test below of a write lock held too long): none on a quiet machine, one
    # in a fresh clone's run on a loaded one. Within the 1% left unacknowledged.
    assert statuses.count(503) <= CLIENTS * 8 * 0.01
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


@pytest.mark.slow
def test_kill_9_mid_load_loses_no_acknowledged_submission(server):
    stop = threading.Event()
    clients = []

    def load():
        clients.extend(run_load(server.url, rounds=40, stop=stop))

    loader = threading.Thread(target=load)
    loader.start()
    # Mid-load: once a few answers are stored (on a loaded machine that takes longer than a fixed sleep allowed).
    deadline = time.monotonic() + 60
    while _response_count(server.database) < 5 and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)
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


# --------------------------------------------------------------------------
# PostgreSQL: two app servers (two gunicorn instances, as two hosts) on one database server.

#: Seconds a client keeps sending one submission again (same key) after a 503 or a lost connection.
RETRY_SECONDS = 30


class RetryingClient(Client):
    """A respondent's browser sent again: after a 503 or no answer, the same submission (same key)
    is sent again until it is acknowledged, as a respondent told "send the form again" does."""

    def run(self, rounds: int, stop: threading.Event) -> None:
        for _ in range(rounds):
            if stop.is_set():
                return
            self.submit_until_acknowledged(secrets.token_urlsafe(18), stop)

    def submit_until_acknowledged(self, key: str, stop: threading.Event) -> None:
        deadline = time.monotonic() + RETRY_SECONDS
        while not stop.is_set() and time.monotonic() < deadline:
            self.submit(key)
            if self.acknowledged and self.acknowledged[-1] == key:
                return
            time.sleep(0.2)


@pytest.fixture
def pg_database(durable_postgres):
    """The URL of a new database on the module's killable cluster, dropped after the test."""
    import psycopg

    name = f"rr_reliability_{secrets.token_hex(4)}"  # a name we made, not input
    with psycopg.connect(durable_postgres.url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
    yield durable_postgres.url.replace("/postgres?", f"/{name}?")
    durable_postgres.start_if_stopped()
    with psycopg.connect(durable_postgres.url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def two_app_servers(pg_database, tmp_path):
    """Two gunicorn instances on their own ports and instance folders, one PostgreSQL database."""
    servers = []
    for name in ("host-a", "host-b"):
        (tmp_path / name).mkdir()
        server = Server(tmp_path / name)
        server.env["FLASK_DATABASE_URL"] = pg_database
        server.workers = 2  # two hosts of two workers: four processes to boot on a shared 2-core machine
        servers.append(server)
    try:
        start_all(servers)
        yield servers
    finally:
        for server in servers:
            server.stop()


def pg_stored(url: str) -> dict:
    """What the database holds, and the tallies recounted from the stored rows."""
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT day, answers FROM responses").fetchall()
        tallies = conn.execute("SELECT question, answer, SUM(count) FROM tallies GROUP BY question, answer").fetchall()
        daily = conn.execute(
            "SELECT day, question, answer, SUM(count) FROM daily_tallies GROUP BY day, question, answer"
        ).fetchall()
        return {
            "keys": {key for (key,) in conn.execute("SELECT key FROM submission_keys")},
            "responses": len(rows),
            "daily": conn.execute("SELECT COALESCE(SUM(count), 0) FROM daily_counts").fetchone()[0],
            "tallied": {(question, answer): count for question, answer, count in tallies},
            "recounted": Counter((q, a) for _, answers in rows for q, a in json.loads(answers).items()),
            "daily_tallied": {(day, question, answer): count for day, question, answer, count in daily},
            "daily_recounted": Counter((day, q, a) for day, answers in rows for q, a in json.loads(answers).items()),
        }


def check_pg_exactly_once(state: dict, acknowledged: set[str]) -> None:
    assert acknowledged <= state["keys"], f"{len(acknowledged - state['keys'])} acknowledged submissions lost"
    assert state["responses"] == len(state["keys"]) == state["daily"]  # one row per key, nothing twice
    assert state["tallied"] == dict(state["recounted"])  # the kept tallies equal a recount of the rows
    assert state["daily_tallied"] == dict(state["daily_recounted"])
    assert sum(count for (question, _), count in state["tallied"].items() if question == "cheated") == len(
        state["keys"]
    )


def load_in_background(servers: list[Server], rounds: int, stop: threading.Event):
    """:data:`CLIENTS` clients, every other one on each server, each submitting ``rounds`` times in a
    thread of its own; returns the thread that waits for them all, and the clients."""
    with ThreadPoolExecutor(max_workers=10) as pool:
        clients = list(pool.map(lambda index: RetryingClient(servers[index % len(servers)].url), range(CLIENTS)))

    def run_all() -> None:
        with ThreadPoolExecutor(max_workers=CLIENTS) as pool:
            for client in clients:
                pool.submit(client.run, rounds, stop)

    loader = threading.Thread(target=run_all)
    loader.start()
    return loader, clients


def acknowledged_keys(clients: list[Client]) -> set[str]:
    return {key for client in clients for key in list(client.acknowledged)}


def wait_for_acknowledged(clients: list[Client], count: int, seconds: float = 30) -> None:
    """Wait (bounded) until the clients have ``count`` acknowledged submissions between them."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and len(acknowledged_keys(clients)) < count:
        time.sleep(0.02)


def _still_loading(clients: list[Client], servers: list[Server]) -> str:
    """What the clients saw and the servers logged, for a load that did not end in time (a liveness failure:
    the next reader needs to know whether the servers refused, failed or never answered)."""
    statuses = Counter(s for c in clients for s in c.statuses)
    logs = "\n".join(f"--- {s.url}:\n{s.log.read_text()[-2000:]}" for s in servers)
    return (
        f"the load did not end: {len(acknowledged_keys(clients))} of {CLIENTS * 12} acknowledged, statuses "
        f"{dict(statuses)}, {sum(c.errors for c in clients)} requests unanswered\n{logs}"
    )


def start_all(servers: list[Server]) -> None:
    """Start the servers together, as hosts booting at once on one database."""
    with ThreadPoolExecutor(max_workers=len(servers)) as pool:
        list(pool.map(Server.start, servers))


@pytest.mark.slow
def test_postgres_app_servers_and_database_server_killed_with_sigkill_mid_load_lose_no_acknowledged_answer(
    two_app_servers, pg_database, durable_postgres
):
    # 1. Every app server killed mid-load (both hosts lost at once), then restarted.
    stop = threading.Event()
    loader, clients = load_in_background(two_app_servers, rounds=40, stop=stop)
    wait_for_acknowledged(clients, CLIENTS * 3)
    for server in two_app_servers:
        server.kill()  # SIGKILL to each master and every worker, mid-load
    stop.set()
    loader.join(timeout=60)
    acknowledged = acknowledged_keys(clients)
    assert {c.url for c in clients if c.acknowledged} == {s.url for s in two_app_servers}  # both took answers
    assert len(acknowledged) < CLIENTS * 40  # the kill did cut the load
    check_pg_exactly_once(pg_stored(pg_database), acknowledged)
    start_all(two_app_servers)

    # 2. The database server killed mid-load (the postmaster and every backend), restarted on the same
    # data directory; meanwhile the app servers answer 503 or drop the connection, and clients send again.
    stop = threading.Event()
    loader, clients = load_in_background(two_app_servers, rounds=12, stop=stop)
    wait_for_acknowledged(clients, CLIENTS * 3)
    processes = durable_postgres.processes()
    durable_postgres.kill()
    acknowledged_before = acknowledged_keys(clients)
    assert len(processes) > 2  # the postmaster, its background processes and the app servers' backends
    assert not postgres_cluster.alive(processes), "a server process outlived the kill"
    assert "unexpected postmaster exit" not in durable_postgres.log.read_text()  # none outlived the postmaster
    time.sleep(1.0)
    durable_postgres.start()  # crash recovery
    loader.join(timeout=240)  # a liveness guard only: 12 rounds against a server in crash recovery, on a loaded machine
    stop.set()
    assert not loader.is_alive(), _still_loading(clients, two_app_servers)
    statuses = [s for c in clients for s in c.statuses]
    assert 503 in statuses or sum(c.errors for c in clients) > 0  # the clients did see the database gone
    assert not [s for s in statuses if s >= 500 and s != 503], "a 500 while the database was gone"
    assert CLIENTS * 3 <= len(acknowledged_before) < CLIENTS * 12  # the kill came mid-load
    assert len(acknowledged_keys(clients)) == CLIENTS * 12  # every submission went through once it was back
    check_pg_exactly_once(pg_stored(pg_database), acknowledged | acknowledged_keys(clients))
    for server in two_app_servers:
        assert "Traceback" not in server.log.read_text()


@pytest.mark.slow
def test_a_worker_started_while_postgresql_is_down_answers_503_until_it_is_back(
    pg_database, durable_postgres, tmp_path
):
    # Before web/startup.py a worker that booted while the database was down raised in create_app, and
    # gunicorn's master shut the whole server down ("Worker failed to boot"): it stayed down after the
    # database came back.
    server = Server(tmp_path)
    server.env["FLASK_DATABASE_URL"] = pg_database
    # One worker: the server's first 200 then proves it has booted. With two, the second could still be
    # booting when the database went down, log the warning itself, and the check below would find no new worker.
    server.workers = 1
    server.start()
    try:
        old_workers = postgres_cluster.children(server.process.pid)
        assert len(old_workers) == 1, old_workers
        durable_postgres.kill()
        os.kill(old_workers[0], signal.SIGKILL)  # a worker ends while the database is down; a new one boots
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and "unavailable at start" not in server.log.read_text():
            if server.process.poll() is not None:
                break  # the master shut the server down
            time.sleep(0.1)
        assert "unavailable at start" in server.log.read_text()
        assert server.process.poll() is None, server.log.read_text()  # the master still serves
        new_worker = (set(postgres_cluster.children(server.process.pid)) - set(old_workers)).pop()
        refusals = [requests.get(f"{server.url}/s/quiz", timeout=30) for _ in range(4)]
        assert {r.status_code for r in refusals} == {503}
        assert all(r.headers["Retry-After"] == "5" and "again" in r.text for r in refusals)

        durable_postgres.start()
        deadline = time.monotonic() + 30
        statuses = []

        def serves_again() -> bool:  # the new worker finished its start once a request reached it
            return statuses[-4:] == [200] * 4 and "reachable again" in server.log.read_text()

        while time.monotonic() < deadline and not serves_again():
            statuses.append(requests.get(f"{server.url}/s/quiz", timeout=30).status_code)
            time.sleep(0.1)
        assert serves_again(), statuses
        assert new_worker in postgres_cluster.children(server.process.pid)
        assert "Worker failed to boot" not in server.log.read_text()
    finally:
        server.stop()
