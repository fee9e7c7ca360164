"""A closed-loop HTTP load generator in separate processes.

``processes`` x ``threads`` clients, each with its own connection. The
client is a minimal HTTP/1.1 one on a raw socket (request bytes built by
hand, responses read by ``Content-Length``): on a two-core machine the load
generator shares the CPU with the server, and ``http.client`` or
``requests`` would spend as much CPU per request as a bare Flask view. The
connection is kept alive when the server allows it (gunicorn's sync
workers, the production setting, close it after every response).

Each client first opens a session as a browser would (GET the form once:
session cookie and CSRF token), then posts as fast as its answers come
back. Requests finishing during the warm-up are not counted; the
measurement window is the same wall-clock interval in every process.

Two endpoints can be measured as a pair (``other_path``): every client
alternates between them in slices of wall-clock time, the same slices in
every process, so that both see the same machine, seconds or less apart,
and a neighbour's burst or a checkpoint falls on both alike. A request
counts for its slice's endpoint only if it started and finished in that
slice: each endpoint then loses the same time at every switch (the other
one's last requests finishing, its own last ones cut off), so the pair's
ratio has no bias from the switches. Measured (2026-11-28, bench/README):
the floor against itself gave 1.002 and 1.005 as a pair, its rounds spread
by 0.014 and 0.025 (sd), where two windows one after the other spread by
0.113 and 0.116.
"""

from __future__ import annotations

import dataclasses
import json
import math
import multiprocessing
import random
import re
import resource
import secrets
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

CSRF_INPUT = re.compile(r'name="csrf_token" value="([^"]+)"')
#: Seconds given to the client processes to start and open their sessions.
START_SLACK_SECONDS = 2.0
HEADER_END = b"\r\n\r\n"


@dataclass(frozen=True)
class LoadSpec:
    """What to post, where, how hard and for how long.

    ``questions`` maps each question name to its options; every request
    carries a fresh ``submission_key`` and one random option per question
    under ``rr-<name>`` with ``randomized_on=device`` (the JavaScript path),
    and only the session cookie (never ``rr_done_<survey>``).
    """

    port: int
    form_path: str
    post_path: str
    questions: dict[str, tuple[str, ...]]
    processes: int = 4
    threads: int = 4
    warmup_seconds: float = 2.0
    measure_seconds: float = 10.0
    #: ``"GET"``: each request is a bare ``GET post_path`` (no body), the trivial request of the same server.
    method: str = "POST"
    #: Seconds given to the client processes to start and open their sessions before the warm-up.
    start_slack_seconds: float = START_SLACK_SECONDS
    #: When the warm-up starts (``time.time()``; 0: ``start_slack_seconds`` after the load is started), so that
    #: the loads of several servers and a caller's CPU samples share one schedule (:meth:`schedule`).
    start_at: float = 0.0
    #: Non-empty: a pair, ``post_path`` and this path alternating in :meth:`slices` (``post_path`` first).
    other_path: str = ""
    #: The pair's slices last about this long (:meth:`slices`).
    slice_seconds: float = 0.5

    @property
    def connections(self) -> int:
        return self.processes * self.threads

    @property
    def paths(self) -> tuple[str, ...]:
        return (self.post_path, self.other_path) if self.other_path else (self.post_path,)

    def schedule(self) -> tuple[float, float, float]:
        """``(start, window_start, window_end)`` in ``time.time()`` seconds: the clients' start, then the
        measured window (for a pair: ``measure_seconds`` for each path, so twice as long)."""
        start = self.start_at or time.time() + self.start_slack_seconds
        window_start = start + self.warmup_seconds
        return start, window_start, window_start + self.measure_seconds * len(self.paths)

    def slices(self) -> int:
        """How many slices a pair's window is cut into: an even number (each path as long), at least two."""
        return max(2, 2 * round(self.measure_seconds / self.slice_seconds))


def slice_of(spec: LoadSpec, window: tuple[float, float], moment: float) -> int:
    """The index of the pair's slice ``moment`` falls in (negative during the warm-up: the same alternation)."""
    window_start, window_end = window
    return math.floor((moment - window_start) / ((window_end - window_start) / spec.slices()))


@dataclass
class LoadResult:
    """Requests completed in the window, their latencies and status codes."""

    measure_seconds: float
    latencies: list[float] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    client_cpu_seconds: float = 0.0
    #: Every request sent, warm-up and stragglers included (for CPU per request).
    sent: int = 0

    @property
    def ok(self) -> int:
        return self.statuses.get(200, 0)

    @property
    def errors(self) -> int:
        return sum(self.statuses.values()) - self.ok

    @property
    def rate(self) -> float:
        return self.ok / self.measure_seconds

    def percentile(self, q: float) -> float:
        """Latency percentile ``q`` (0-100) in seconds, over the window's requests."""
        if len(self.latencies) < 2:
            return float("nan")
        return statistics.quantiles(self.latencies, n=1000, method="inclusive")[round(q * 10) - 1]

    def merge(self, other: LoadResult) -> None:
        self.latencies.extend(other.latencies)
        self.statuses.update(other.statuses)
        self.client_cpu_seconds += other.client_cpu_seconds
        self.sent += other.sent


def submission_body(csrf_token: str, questions: dict[str, tuple[str, ...]]) -> str:
    """One device-path submission, as ``static/randomize.js`` posts it."""
    fields = {"csrf_token": csrf_token, "submission_key": secrets.token_urlsafe(18), "randomized_on": "device"}
    fields.update({f"rr-{name}": random.choice(options) for name, options in questions.items()})
    return urlencode(fields)


@dataclass(frozen=True)
class Response:
    status: int
    headers: dict[str, str]
    body: bytes


class RawConnection:
    """One HTTP/1.1 connection to 127.0.0.1:``port``, reopened when the server closes it."""

    def __init__(self, port: int):
        self.port = port
        self.sock: socket.socket | None = None
        self.pending = b""

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        self.sock, self.pending = None, b""

    def request(self, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> Response:
        if self.sock is None:
            self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=60)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}", f"Content-Length: {len(body)}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        response = self._read_response()
        if response.headers.get("connection", "").lower() == "close":
            self.close()
        return response

    def _receive(self) -> bytes:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("connection closed by the server")
        return chunk

    def _read_response(self) -> Response:
        data = self.pending
        while HEADER_END not in data:
            data += self._receive()
        head, _, data = data.partition(HEADER_END)
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            headers.setdefault(name.strip().lower(), value.strip())
        length = int(headers.get("content-length", 0))
        while len(data) < length:
            data += self._receive()
        self.pending = data[length:]
        return Response(int(status_line.split(" ", 2)[1]), headers, data[:length])


class _Client:
    """One browser session on one connection."""

    def __init__(self, spec: LoadSpec):
        self.spec = spec
        self.conn = RawConnection(spec.port)
        self.cookie, self.csrf_token = self._open_session()

    def _open_session(self) -> tuple[str, str]:
        response = self.conn.request("GET", self.spec.form_path, {})
        if response.status != 200:
            raise RuntimeError(f"GET {self.spec.form_path} answered {response.status}")
        cookie = response.headers.get("set-cookie", "").split(";", 1)[0]
        return cookie, CSRF_INPUT.search(response.body.decode()).group(1)

    def post(self, path: str) -> int:
        if self.spec.method == "GET":
            method, headers, body = "GET", {"Cookie": self.cookie}, b""
        else:
            body = submission_body(self.csrf_token, self.spec.questions).encode("ascii")
            method, headers = "POST", {"Content-Type": "application/x-www-form-urlencoded", "Cookie": self.cookie}
        try:
            return self.conn.request(method, path, headers, body).status
        except (OSError, ValueError):
            self.conn.close()
            return 0  # connection error


def _client_thread(spec: LoadSpec, start: float, window: tuple[float, float], results: list[LoadResult]) -> None:
    """Post until the window ends, each request to its path (:func:`path_of`), tallied by :func:`tally`."""
    client = _Client(spec)
    time.sleep(max(0.0, start - time.time()))
    while (started := time.time()) < window[1]:
        side = path_of(spec, window, started)
        tick = time.perf_counter()
        status = client.post(spec.paths[side])
        elapsed = time.perf_counter() - tick
        sent, counted = tally(spec, window, started, time.time())
        results[side].sent += sent
        if counted:
            results[side].latencies.append(elapsed)
            results[side].statuses[status] += 1


def path_of(spec: LoadSpec, window: tuple[float, float], started: float) -> int:
    """Which of ``spec.paths`` a request started at ``started`` goes to: a pair's alternate by slice."""
    return slice_of(spec, window, started) % 2 if spec.other_path else 0


def tally(spec: LoadSpec, window: tuple[float, float], started: float, finished: float) -> tuple[bool, bool]:
    """``(sent, counted)`` for a request: whether it counts towards CPU per request (one path: every request,
    warm-up included, as the server's CPU is taken over the whole load; a pair: those started in the window,
    as its CPU is sampled over the window's slices), and whether it is measured (one path: it finished in the
    window; a pair: it started and finished in one slice of the window)."""
    window_start, window_end = window
    if not spec.other_path:
        return True, window_start <= finished <= window_end
    inside = window_start <= started
    return inside, inside and slice_of(spec, window, finished) == slice_of(spec, window, started)


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _client_process(spec: LoadSpec, start: float, window: tuple[float, float]) -> list[LoadResult]:
    """``spec.threads`` clients in this process, a result per path; CPU counted from the window's start (a
    pair's split evenly between its paths, which take turns)."""
    parts = [[LoadResult(spec.measure_seconds) for _ in spec.paths] for _ in range(spec.threads)]
    threads = [threading.Thread(target=_client_thread, args=(spec, start, window, part)) for part in parts]
    for thread in threads:
        thread.start()
    time.sleep(max(0.0, window[0] - time.time()))
    cpu_at_start = _cpu_seconds()
    for thread in threads:
        thread.join()
    cpu = (_cpu_seconds() - cpu_at_start) / len(spec.paths)
    results = [LoadResult(spec.measure_seconds, client_cpu_seconds=cpu) for _ in spec.paths]
    for part in parts:
        for result, side in zip(results, part):
            result.merge(side)
    return results


def _run_here(spec: LoadSpec) -> list[LoadResult]:
    start, *window = spec.schedule()
    with multiprocessing.get_context("spawn").Pool(spec.processes) as pool:
        parts = pool.starmap(_client_process, [(spec, start, tuple(window))] * spec.processes)
    results = [LoadResult(spec.measure_seconds) for _ in spec.paths]
    for part in parts:
        for result, side in zip(results, part):
            result.merge(side)
    return results


def run_load(spec: LoadSpec) -> LoadResult:
    """Drive the server with ``spec`` (one path) from a fresh ``python -m bench.load`` process.

    A separate interpreter that imports only the standard library, so that
    its client processes start light (spawned children re-import the main
    module, which in the bench runner pulls in numpy, scipy and Flask).
    """
    if spec.other_path:
        raise ValueError(f"run_load measures one path; {spec.other_path!r} is a pair's: use run_pair")
    return _run_child(spec)[0]


def run_pair(spec: LoadSpec) -> tuple[LoadResult, LoadResult]:
    """Drive the server with ``spec``'s two paths taking turns (:meth:`LoadSpec.slices`); a result for each,
    each over ``measure_seconds`` of its slices."""
    if not spec.other_path:
        raise ValueError(f"run_pair needs a second path; only {spec.post_path!r} was given")
    first, second = _run_child(spec)
    return first, second


def _run_child(spec: LoadSpec) -> list[LoadResult]:
    """The results of ``spec``'s paths, from ``python -m bench.load``."""
    payload = json.dumps(dataclasses.asdict(spec))
    done = subprocess.run(
        [sys.executable, "-m", "bench.load"],
        input=payload,
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the load generator failed:\n{done.stderr}")
    return [
        LoadResult(
            spec.measure_seconds,
            raw["latencies"],
            Counter({int(k): v for k, v in raw["statuses"].items()}),
            raw["client_cpu_seconds"],
            raw["sent"],
        )
        for raw in json.loads(done.stdout)
    ]


def main() -> None:
    """Read a :class:`LoadSpec` as JSON on stdin, run it, write its results (one per path) as JSON."""
    raw = json.load(sys.stdin)
    spec = LoadSpec(**{**raw, "questions": {k: tuple(v) for k, v in raw["questions"].items()}})
    json.dump(
        [
            {
                "latencies": result.latencies,
                "statuses": result.statuses,
                "client_cpu_seconds": result.client_cpu_seconds,
                "sent": result.sent,
            }
            for result in _run_here(spec)
        ],
        sys.stdout,
    )


if __name__ == "__main__":
    main()
