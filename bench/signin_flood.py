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

The rotating-address variant (issue 24; :func:`rotating_figures`, ``python -m
bench.signin_flood --rotating``) runs the documented deployment behind a proxy
(``FLASK_PROXY_FIX=1``, rate limits on): :data:`ROTATING_CLIENTS` flooding
clients send wrong passwords, half for random names and half for the owner's,
each from the next ``X-Forwarded-For`` address of :func:`rotating_addresses`
(IPv4 addresses in many /24 networks and addresses of one IPv6 /64). Measured:
the owner's sign-ins from a network of their own, :data:`OWNER_ATTEMPTS` each
in a browser that signed in before the flood (it holds the remembered-device
cookie) and in a new browser: how many got in, and their median and p95
latency; with no flood, then with each flood of :data:`FLOODS`.
"""

from __future__ import annotations

import contextlib
import itertools
import secrets
import statistics
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import requests

from bench import server
from bench.dataset import create_database
from bench.report import Figure
from bench.survey import SURVEY_ID, write_survey
from storage import accounts, connection

FLOOD_CLIENTS = 12
WORKERS = 3
MEASURE_SECONDS = 8.0
#: Respondent p95 during the flood, with the bound, at most this many times the p95 without a flood.
P95_FACTOR_TARGET = 5.0
#: The rotating-address variant: flooding clients (threads), the owner's sign-ins per browser, and the
#: owner's account.
ROTATING_CLIENTS = 3
OWNER_ATTEMPTS = 10
OWNER_NAME, OWNER_PASSWORD, OWNER_ADDRESS = "owner", "the owner's long password", "192.0.2.10"
#: Every one of the owner's sign-ins in the remembered browser gets in during the flood.
OWNER_TARGET = 1.0


@dataclass(frozen=True)
class FloodScale:
    """How long and how big: the full run's defaults, or :data:`QUICK` (``bench.run --quick``)."""

    workers: int = WORKERS
    measure_seconds: float = MEASURE_SECONDS
    owner_attempts: int = OWNER_ATTEMPTS
    #: Between two of the owner's sign-ins: an owner retrying by hand, not in a loop.
    owner_pause_seconds: float = 0.3
    #: Concurrent sign-in clients of the flood, and of each rotating flood.
    flood_clients: int = FLOOD_CLIENTS
    rotating_clients: int = ROTATING_CLIENTS
    #: The no-flood figures on the next flood's server, before its flood (the same settings), instead of a
    #: server of their own: two gunicorn boots fewer (about 2 CPU-s each).
    share_servers: bool = False


#: Every figure of the full run, in seconds: one worker per server, half a second of respondents, one
#: sign-in per browser, and floods of two clients (one more than the bound: some are refused busy) and
#: rotating floods of one (every Argon2id check costs about 0.2 CPU-s, and the quick run's figures only
#: say that the bench works), the no-flood figures on the flood's servers.
QUICK = FloodScale(
    workers=1,
    measure_seconds=0.5,
    owner_attempts=1,
    owner_pause_seconds=0.0,
    flood_clients=2,
    rotating_clients=1,
    share_servers=True,
)


def _respondent_latencies(base_url: str, seconds: float) -> list[float]:
    """One respondent's page loads, one after the other, for ``seconds`` (at least two, for a p95)."""
    latencies = []
    with requests.Session() as session:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline or len(latencies) < 2:
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


def _launch(workdir: Path, concurrency: int | None, scale: FloodScale) -> tuple[str, dict[str, str], Path]:
    """The server of :func:`_measure` with ``SIGNIN_CONCURRENCY = concurrency`` (its own database), for
    :func:`bench.server.started`."""
    surveys_dir = workdir / "signin-surveys"
    write_survey(surveys_dir)
    database = workdir / f"signin-{concurrency}.sqlite3"
    create_database(database)
    env = server.server_environment(database, surveys_dir, scale.workers)
    env["FLASK_SIGNIN_CONCURRENCY"] = str(concurrency or 1)
    return "app:create_app()", env, workdir / f"signin-{concurrency}.log"


def _measure(
    running: server.Server, flooded: bool, scale: FloodScale, stop: bool = True
) -> tuple[list[float], list[int]]:
    """Respondent latencies (and the flood's statuses) on ``running``, during a flood or with none; the
    server is stopped at the end (unless ``stop`` is false)."""
    with running if stop else contextlib.nullcontext():
        _respondent_latencies(running.base_url, min(1.0, scale.measure_seconds))  # warm every worker's imports
        stop, statuses = threading.Event(), []
        threads = [
            threading.Thread(target=_flood, args=(running.base_url, stop, statuses))
            for _ in range(scale.flood_clients if flooded else 0)
        ]
        for thread in threads:
            thread.start()
        time.sleep(min(1.0, scale.measure_seconds) if threads else 0)
        try:
            latencies = _respondent_latencies(running.base_url, scale.measure_seconds)
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=60)
    return latencies, statuses


#: The rotating floods: (label, IPv4 /24 networks, IPv4 addresses in each, addresses of one IPv6 /64).
#: "one client" holds one /24 and one /64 (82 addresses, about the 41 of issue 24 twice over); "200
#: networks" stands for a botnet.
FLOODS = (("one client: one /24 and one /64", 1, 41, 41), ("200 /24 networks and one /64", 200, 3, 200))


def rotating_addresses(networks: int, per_network: int, ipv6: int) -> list[str]:
    """The flood's ``X-Forwarded-For`` values, interleaved: ``per_network`` IPv4 addresses in each of
    ``networks`` /24 networks, and ``ipv6`` addresses of one IPv6 /64."""
    ipv4 = [f"10.{n // 250}.{n % 250}.{1 + i}" for i in range(per_network) for n in range(networks)]
    six = [f"2001:db8:24:1:{i:x}:{i * 7 % 65536:x}::{i + 1:x}" for i in range(ipv6)]
    return [a for pair in itertools.zip_longest(ipv4, six) for a in pair if a]


def _csrf_token(session: requests.Session, base_url: str, headers: dict) -> str:
    page = session.get(f"{base_url}/admin/login", headers=headers, timeout=30).text
    return page.split('name="csrf_token" type="hidden" value="', 1)[1].split('"', 1)[0]


def _rotating_flood(base_url: str, addresses: list[str], stop: threading.Event, statuses: list[int]) -> None:
    """Wrong passwords, every other one for the owner's name, each from the next address of ``addresses``."""
    with requests.Session() as session:
        token = _csrf_token(session, base_url, {"X-Forwarded-For": addresses[0]})
        for index in itertools.count():
            if stop.is_set():
                return
            name = OWNER_NAME if index % 2 else "n" + secrets.token_hex(6)
            response = session.post(
                f"{base_url}/admin/login",
                headers={"X-Forwarded-For": addresses[index % len(addresses)]},
                timeout=60,
                data={"csrf_token": token, "name": name, "password": "wrong password guess"},
            )
            statuses.append(response.status_code)


def _owner_signs_in(base_url: str, device_cookie: str | None) -> tuple[bool, float]:
    """One sign-in by the owner in a fresh session (holding ``device_cookie`` if given): (got in, seconds
    the POST took)."""
    headers = {"X-Forwarded-For": OWNER_ADDRESS}
    with requests.Session() as session:
        if device_cookie:
            session.cookies.set("rr_device", device_cookie, path="/admin/login")
        token = _csrf_token(session, base_url, headers)
        start = time.perf_counter()
        response = session.post(
            f"{base_url}/admin/login",
            headers=headers,
            timeout=60,
            allow_redirects=False,
            data={"csrf_token": token, "name": OWNER_NAME, "password": OWNER_PASSWORD},
        )
        return response.status_code == 302, time.perf_counter() - start


def _remembered_cookie(base_url: str) -> str | None:
    """Sign the owner in once; the remembered-device cookie it leaves (None where the app sets none)."""
    with requests.Session() as session:
        token = _csrf_token(session, base_url, {"X-Forwarded-For": OWNER_ADDRESS})
        session.post(
            f"{base_url}/admin/login",
            headers={"X-Forwarded-For": OWNER_ADDRESS},
            data={"csrf_token": token, "name": OWNER_NAME, "password": OWNER_PASSWORD},
            allow_redirects=False,
            timeout=60,
        ).raise_for_status()
        return session.cookies.get("rr_device", path="/admin/login")


def _owner_attempts(base_url: str, device_cookie: str | None, scale: FloodScale) -> list[tuple[bool, float]]:
    attempts = []
    for _ in range(scale.owner_attempts):
        attempts.append(_owner_signs_in(base_url, device_cookie))
        time.sleep(scale.owner_pause_seconds)
    return attempts


def _proxied_launch(workdir: Path, label: str, workers: int) -> tuple[str, dict[str, str], Path]:
    """The app behind one trusted proxy, rate limits on, with the owner's account (its own database), for
    :func:`bench.server.started`."""
    surveys_dir = workdir / f"{label}-surveys"
    write_survey(surveys_dir)
    database = workdir / f"{label}.sqlite3"
    create_database(database)
    db = connection.connect(database)
    accounts.create_admin(db, OWNER_NAME, OWNER_PASSWORD)
    db.close()
    env = server.server_environment(database, surveys_dir, workers)
    env.update(FLASK_PROXY_FIX="1", FLASK_RATELIMIT_ENABLED="true", FLASK_SIGNIN_CONCURRENCY="1")
    return "app:create_app()", env, workdir / f"{label}.log"


def measure_rotating(
    running: server.Server,
    flood: tuple[str, int, int, int] | None,
    scale: FloodScale = FloodScale(),
    stop: bool = True,
) -> dict[str, list]:
    """The owner's sign-ins on ``running`` (:func:`_proxied_launch`'s server, stopped at the end unless
    ``stop`` is false), during ``flood`` (one of :data:`FLOODS`; None: no flood): ``remembered`` from a
    browser that signed in before, ``new`` from a new one, each a list of (got in, seconds); ``flood``, the
    flood's statuses."""
    with running if stop else contextlib.nullcontext():
        base_url = running.base_url
        cookie = _remembered_cookie(base_url)
        stop, statuses = threading.Event(), []
        addresses = rotating_addresses(*flood[1:]) if flood else []
        threads = [
            threading.Thread(
                target=_rotating_flood, args=(base_url, addresses[i :: scale.rotating_clients], stop, statuses)
            )
            for i in range(scale.rotating_clients if flood else 0)
        ]
        for thread in threads:
            thread.start()
        time.sleep(min(1.0, scale.measure_seconds) if threads else 0)
        try:
            remembered = _owner_attempts(base_url, cookie, scale)
            new = _owner_attempts(base_url, None, scale)
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=60)
    return {"remembered": remembered, "new": new, "flood": statuses}


def _owner_summary(attempts: list[tuple[bool, float]]) -> str:
    times = [seconds for _, seconds in attempts]
    p95 = statistics.quantiles(times, n=20, method="inclusive")[-1] if len(times) > 1 else times[0]
    return (
        f"{sum(ok for ok, _ in attempts)} / {len(attempts)} got in, "
        f"median {statistics.median(times) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms"
    )


def rotating_figures(workdir: Path, scale: FloodScale = FloodScale()) -> list[Figure]:
    """The owner's sign-ins with no flood, then during each of :data:`FLOODS` (``FLASK_PROXY_FIX=1``), each
    on a server of its own (all booted at once, each stopped after its measurement)."""
    floods = FLOODS if scale.share_servers else (None, *FLOODS)
    launches = [_proxied_launch(workdir, f"rotating-{flood[1] if flood else 0}", scale.workers) for flood in floods]
    with server.started(launches) as running:
        return _rotating_figures(running, scale)


def _rotating_figures(running: list[server.Server], scale: FloodScale) -> list[Figure]:
    quiet = measure_rotating(running[0], None, scale, stop=not scale.share_servers)
    running = running if scale.share_servers else running[1:]
    figures = [
        Figure(
            "Owner's sign-ins behind a proxy, no flood: browser that signed in before",
            _owner_summary(quiet["remembered"]),
        ),
        Figure("  the same, a new browser", _owner_summary(quiet["new"])),
    ]
    for flood, on in zip(FLOODS, running):
        result = measure_rotating(on, flood, scale)
        got_in = sum(ok for ok, _ in result["remembered"]) / scale.owner_attempts
        statuses = result["flood"]
        counts = ", ".join(f"{statuses.count(code)} x {code}" for code in sorted(set(statuses)))
        figures += [
            Figure(
                f"  during {scale.rotating_clients} rotating floods, {flood[0]}: browser that signed in before",
                _owner_summary(result["remembered"]),
                f">= {OWNER_TARGET:.0%} got in",
                got_in >= OWNER_TARGET,
            ),
            Figure("    the same, a new browser", _owner_summary(result["new"])),
            Figure("    the floods' answers", f"{len(statuses)} sign-ins: {counts}"),
        ]
    return figures


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def _summary(latencies: list[float], statuses: list[int]) -> str:
    text = f"median {statistics.median(latencies) * 1000:.1f} ms, p95 {_p95(latencies) * 1000:.1f} ms"
    if statuses:
        text += f" ({len(statuses)} sign-ins: {statuses.count(401)} checked, {statuses.count(503)} refused busy)"
    return text


def measure(workdir: Path, scale: FloodScale = FloodScale()) -> list[Figure]:
    """Figure 5: respondent latency with no flood, with the bound and without it, then the rotating floods."""
    concurrencies = (1, scale.flood_clients) if scale.share_servers else (None, 1, scale.flood_clients)
    with server.started([_launch(workdir, concurrency, scale) for concurrency in concurrencies]) as running:
        quiet = _measure(running[0], False, scale, stop=not scale.share_servers)
        bounded, unbounded = (_measure(on, True, scale) for on in running[-2:])
    factor = _p95(bounded[0]) / _p95(quiet[0])
    return [
        Figure(f"Respondent page, no flood ({scale.workers} workers)", _summary(*quiet)),
        Figure(f"  during {scale.flood_clients} sign-in floods, SIGNIN_CONCURRENCY=1", _summary(*bounded)),
        Figure(f"  the same without the bound (={scale.flood_clients})", _summary(*unbounded)),
        Figure(
            "  p95 flood (bounded) / p95 no flood",
            f"{factor:.1f}",
            f"<= {P95_FACTOR_TARGET:g}",
            factor <= P95_FACTOR_TARGET,
        ),
        *rotating_figures(workdir, scale),
    ]


if __name__ == "__main__":
    import sys
    import tempfile

    from bench.report import table

    with tempfile.TemporaryDirectory(prefix="rr-bench-signin-") as folder:
        figures = (rotating_figures if "--rotating" in sys.argv[1:] else measure)(Path(folder))
    print(table(figures))
    sys.exit(1 if any(f.passed is False for f in figures) else 0)
