"""Respondent latency while sign-ins flood the server (figure 5).

An attacker spraying sign-ins (random account names, wrong passwords, as
from many addresses: the per-address limits are off) makes every attempt
cost an Argon2id check of 64 MiB. Those checks run on the same gunicorn
workers that serve respondents. With ``SIGNIN_CONCURRENCY`` (default 1) at
most that many checks run at once on the machine, and a sign-in beyond it
gets a 503 at once, so the other workers keep serving the survey.

Measured: the median and 95th percentile of ``GET /s/<survey>`` answered to
one sequential respondent, with no flood, then during a flood of
:data:`FLOOD_CLIENTS` concurrent sign-in clients, with the bound (1) and
without it (the bound set as high as the flood, as before the bound existed).
"""

from __future__ import annotations

import secrets
import statistics
import threading
import time
from pathlib import Path

import requests

from bench import server
from bench.dataset import create_database
from bench.report import Figure
from bench.survey import SURVEY_ID, write_survey

FLOOD_CLIENTS = 12
WORKERS = 3
MEASURE_SECONDS = 8.0
#: Respondent p95 during the flood, with the bound, at most this many times the p95 without a flood.
P95_FACTOR_TARGET = 5.0


def _respondent_latencies(base_url: str, seconds: float) -> list[float]:
    latencies = []
    with requests.Session() as session:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            start = time.perf_counter()
            response = session.get(f"{base_url}/s/{SURVEY_ID}", timeout=30)
            latencies.append(time.perf_counter() - start)
            if response.status_code != 200:
                raise RuntimeError(f"the survey page answered {response.status_code}")
    return latencies


def _flood(base_url: str, stop: threading.Event, statuses: list[int]) -> None:
    with requests.Session() as session:
        page = session.get(f"{base_url}/admin/login", timeout=30).text
        token = page.split('name="csrf_token" type="hidden" value="', 1)[1].split('"', 1)[0]
        while not stop.is_set():
            response = session.post(
                f"{base_url}/admin/login",
                timeout=60,
                data={"csrf_token": token, "name": "n" + secrets.token_hex(6), "password": "wrong password guess"},
            )
            statuses.append(response.status_code)


def _measure(workdir: Path, concurrency: int | None) -> tuple[list[float], list[int]]:
    """Respondent latencies (and the flood's statuses) with ``SIGNIN_CONCURRENCY = concurrency``,
    or with no flood when it is None."""
    surveys_dir = workdir / "signin-surveys"
    write_survey(surveys_dir)
    database = workdir / f"signin-{concurrency}.sqlite3"
    create_database(database)
    env = server.server_environment(database, surveys_dir, WORKERS)
    env["FLASK_SIGNIN_CONCURRENCY"] = str(concurrency or 1)
    with server.start("app:create_app()", env, workdir / f"signin-{concurrency}.log") as running:
        _respondent_latencies(running.base_url, 1.0)  # warm every worker's imports
        stop, statuses = threading.Event(), []
        threads = [
            threading.Thread(target=_flood, args=(running.base_url, stop, statuses))
            for _ in range(FLOOD_CLIENTS if concurrency else 0)
        ]
        for thread in threads:
            thread.start()
        time.sleep(1.0 if threads else 0)
        try:
            latencies = _respondent_latencies(running.base_url, MEASURE_SECONDS)
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=60)
    return latencies, statuses


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def _summary(latencies: list[float], statuses: list[int]) -> str:
    text = f"median {statistics.median(latencies) * 1000:.1f} ms, p95 {_p95(latencies) * 1000:.1f} ms"
    if statuses:
        text += f" ({len(statuses)} sign-ins: {statuses.count(401)} checked, {statuses.count(503)} refused busy)"
    return text


def measure(workdir: Path) -> list[Figure]:
    quiet = _measure(workdir, None)
    bounded = _measure(workdir, 1)
    unbounded = _measure(workdir, FLOOD_CLIENTS)
    factor = _p95(bounded[0]) / _p95(quiet[0])
    return [
        Figure(f"Respondent page, no flood ({WORKERS} workers)", _summary(*quiet)),
        Figure(f"  during {FLOOD_CLIENTS} sign-in floods, SIGNIN_CONCURRENCY=1", _summary(*bounded)),
        Figure(f"  the same without the bound (={FLOOD_CLIENTS})", _summary(*unbounded)),
        Figure(
            "  p95 flood (bounded) / p95 no flood",
            f"{factor:.1f}",
            f"<= {P95_FACTOR_TARGET:g}",
            factor <= P95_FACTOR_TARGET,
        ),
    ]


if __name__ == "__main__":
    import sys
    import tempfile

    from bench.report import table

    with tempfile.TemporaryDirectory(prefix="rr-bench-signin-") as folder:
        figures = measure(Path(folder))
    print(table(figures))
    sys.exit(1 if any(f.passed is False for f in figures) else 0)
