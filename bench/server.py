"""The production server (gunicorn with ``gunicorn.conf.py``) on a free loopback port.

Started as in production, with its own database and surveys folder given
through the environment. The port is chosen by the kernel (``RR_BIND`` ends
in ``:0``) and read back from gunicorn's "Listening at" line, so there is no
race for a port; readiness is polled with a deadline, and the server's log
is printed if it does not come up.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LISTENING = re.compile(r"Listening at: http://\S+:(\d+)")  # the address itself is redacted in the log
START_DEADLINE_SECONDS = 60


class ServerError(RuntimeError):
    """The server did not start; the message carries its log."""


@dataclass
class Server:
    """A running gunicorn master; use as a context manager to stop it."""

    process: subprocess.Popen
    port: int
    log_path: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def cpu_seconds(self) -> float:
        """CPU time (user + system) used so far by the master and its live workers."""
        return sum(_process_cpu_seconds(pid) for pid in [self.process.pid, *_children(self.process.pid)])

    def stop(self) -> None:
        """SIGTERM the master (graceful shutdown of its workers), SIGKILL if it lingers."""
        if self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            _terminate(self.process)

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *_exc) -> None:
        self.stop()


def _stat_fields(pid: int) -> list[str]:
    """Fields of ``/proc/<pid>/stat`` after the command name (field 3 onwards)."""
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2 :].split()


def _children(pid: int) -> list[int]:
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int(_stat_fields(int(entry.name))[1]) == pid:
                    children.append(int(entry.name))
            except (OSError, ValueError, IndexError):
                continue  # exited meanwhile
    return children


def _process_cpu_seconds(pid: int) -> float:
    try:
        fields = _stat_fields(pid)
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def server_environment(database: Path, surveys_dir: Path, workers: int | None) -> dict[str, str]:
    """The environment of a benchmark server: its own files, no rate limit, a fixed secret key."""
    env = dict(os.environ)
    env.update(
        RR_BIND="127.0.0.1:0",
        FLASK_DATABASE=str(database),
        FLASK_SURVEYS_DIR=str(surveys_dir),
        FLASK_SECRET_KEY="bench-secret-key-not-for-production",
        FLASK_RATELIMIT_ENABLED="false",
    )
    if workers:
        env["RR_WORKERS"] = str(workers)
    return env


def start(app_spec: str, env: dict[str, str], log_path: Path) -> Server:
    """Start ``gunicorn -c gunicorn.conf.py APP_SPEC`` and wait until it answers."""
    log = open(log_path, "wb")  # noqa: SIM115 - closed below once the child holds its own copy
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "-c", "gunicorn.conf.py", app_spec],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )  # same process group as the bench: an interrupted bench takes the server with it
    log.close()
    try:
        server = Server(process, _wait_for_port(process, log_path), log_path)
        _wait_until_answering(server)
    except BaseException:
        _terminate(process)
        raise
    return server


@contextmanager
def started(launches: list[tuple[str, dict[str, str], Path]]) -> Iterator[list[Server]]:
    """:func:`start` every ``(app_spec, env, log_path)`` at once (a boot is mostly imports, one core
    each), yield the servers in that order, and stop them all at the end (one already stopped is left
    as it is). If one does not start, the others are stopped and its error raised."""
    with ThreadPoolExecutor(max_workers=max(1, len(launches))) as pool:
        futures = [pool.submit(start, *launch) for launch in launches]
    servers = [future.result() for future in futures if future.exception() is None]
    try:
        failure = next((future.exception() for future in futures if future.exception() is not None), None)
        if failure is not None:
            raise failure
        yield servers
    finally:
        with ThreadPoolExecutor(max_workers=max(1, len(servers))) as pool:
            list(pool.map(Server.stop, servers))


def _terminate(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.kill()  # gunicorn's workers exit when their master is gone
        process.wait()


def _wait_for_port(process: subprocess.Popen, log_path: Path) -> int:
    deadline = time.monotonic() + START_DEADLINE_SECONDS
    while time.monotonic() < deadline:
        match = LISTENING.search(log_path.read_text(errors="replace"))
        if match:
            return int(match.group(1))
        if process.poll() is not None:
            break
        time.sleep(0.05)
    raise ServerError(f"gunicorn did not start; its log:\n{log_path.read_text(errors='replace')}")


def _wait_until_answering(server: Server) -> None:
    deadline = time.monotonic() + START_DEADLINE_SECONDS
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(server.base_url + "/", timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise ServerError(f"gunicorn did not answer in time; its log:\n{server.log_path.read_text(errors='replace')}")
