"""A throwaway PostgreSQL cluster: Debian's server binaries, a temporary folder, a Unix socket.

One home for starting and stopping it, used by the test suite's
``postgres_server`` fixture (``tests/conftest.py``) and by the PostgreSQL
benchmarks (:mod:`bench.postgres_bench`). ``initdb`` runs as an unprivileged
account when the caller is root (PostgreSQL refuses to run as root), the
server listens on a Unix socket in the cluster's own folder only (no TCP port
to race for), and the folder is deleted when the cluster stops.

The tests' cluster has no durability (:data:`SCRATCH_SETTINGS`); the
benchmarks' keeps PostgreSQL's defaults (``fsync``, ``synchronous_commit``
on: an acknowledged answer is on disk, as with SQLite's ``synchronous =
FULL``).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: Where Debian installs the server binaries (``RR_POSTGRES_BIN`` overrides).
BIN_GLOB = "/usr/lib/postgresql/*/bin"
#: The tests' settings: no durability (the cluster is deleted at the end).
SCRATCH_SETTINGS = "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
#: The benchmarks' settings: durable commits, PostgreSQL's defaults otherwise.
DURABLE_SETTINGS = ""
#: A test cluster that is killed mid-load (tests/test_reliability.py): a commit is acknowledged only once
#: it is in the server's log; no fsync (the operating system outlives the kill, only a power cut needs it).
KILLABLE_SETTINGS = "-c fsync=off -c synchronous_commit=on"
#: Seconds ``initdb`` and ``pg_ctl`` may take.
COMMAND_TIMEOUT = 120
#: Seconds every process of a killed server has to be gone.
KILL_WAIT_SECONDS = 10


class ClusterError(RuntimeError):
    """The cluster could not be set up or started; the message says why (with the server's log)."""


def bindir() -> Path:
    """The folder of ``initdb`` and ``pg_ctl``: ``RR_POSTGRES_BIN``, else the newest Debian version."""
    candidates = [os.environ["RR_POSTGRES_BIN"]] if os.environ.get("RR_POSTGRES_BIN") else []
    candidates += sorted(glob.glob(BIN_GLOB), reverse=True)
    for folder in candidates:
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    raise ClusterError(f"PostgreSQL server binaries not found in {BIN_GLOB}; run `make test`, which installs them")


def server_user() -> str | None:
    """The unprivileged account the server runs as when the caller is root; None otherwise."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise ClusterError("running as root, and neither a postgres nor a nobody account exists to run PostgreSQL")


def _run_as(user: str | None, command: list[str]) -> None:
    result = subprocess.run(command, user=user, capture_output=True, text=True, timeout=COMMAND_TIMEOUT)
    if result.returncode != 0:
        raise ClusterError(f"{command[0]} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")


def _initdb(folder: Path, user: str | None, data: Path) -> None:
    command = [str(folder / "initdb"), "-D", str(data), "-U", "rr", "--auth=trust", "-E", "UTF8", "--no-locale"]
    _run_as(user, [*command, "--no-sync"])


class Cluster:
    """A throwaway cluster in a temporary folder, on a Unix socket there: initialised, started, killed with
    SIGKILL (the postmaster and every backend, as a lost host), restarted on the same data directory and
    socket, and deleted by :meth:`stop`. Failures raise :class:`ClusterError` with the server's log."""

    def __init__(self, settings: str = SCRATCH_SETTINGS):
        self.bindir, self.user = bindir(), server_user()
        self.root = Path(tempfile.mkdtemp(prefix="rr-postgres-"))
        if self.user is not None:
            os.chown(self.root, pwd.getpwnam(self.user).pw_uid, pwd.getpwnam(self.user).pw_gid)
        self.data, self.log = self.root / "data", self.root / "server.log"
        self.options = f"-k {self.root} -p 5432 -c listen_addresses='' {settings}".strip()

    @property
    def url(self) -> str:
        """The URL of the cluster's ``postgres`` database (Unix socket in :attr:`root`)."""
        return f"postgresql://rr@/postgres?host={self.root}&port=5432"

    def init(self) -> None:
        """``initdb`` into the folder (``--no-sync``: the folder does not outlive the run)."""
        _initdb(self.bindir, self.user, self.data)

    def start(self) -> None:
        """Start the server and wait until it accepts connections (crash recovery first, after a kill)."""
        pg_ctl = [str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60"]
        try:
            _run_as(self.user, [*pg_ctl, "-o", self.options, "start"])
        except ClusterError as error:
            server_log = self.log.read_text() if self.log.exists() else "(no server log)"
            raise ClusterError(f"{error}\n{server_log}") from None

    def start_if_stopped(self) -> None:
        """Start the server unless it runs (after a caller that killed it and failed before restarting it)."""
        status = [str(self.bindir / "pg_ctl"), "-D", str(self.data), "status"]
        if subprocess.run(status, user=self.user, capture_output=True, check=False).returncode != 0:
            self.start()

    def postmaster(self) -> int:
        """The PID of the running server's postmaster (``postmaster.pid``)."""
        return int((self.data / "postmaster.pid").read_text().split()[0])

    def processes(self) -> list[int]:
        """Every process of the running server: the postmaster and its children (its background
        processes and one backend per client connection), postmaster last."""
        postmaster = self.postmaster()
        return [*children(postmaster), postmaster]

    def kill(self) -> list[int]:
        """SIGKILL to every server process, as a lost host: nothing is shut down cleanly and no process
        outlives the postmaster. Returns their PIDs once all are gone and reaped (:class:`ClusterError`
        if one is still there after :data:`KILL_WAIT_SECONDS`).

        A signal to the postmaster's process group would miss the rest: every child of the postmaster
        calls ``setsid()``, so each sits in a process group of its own, and the backends, left alive,
        notice the postmaster's death and end themselves (``FATAL: terminating connection due to
        unexpected postmaster exit`` in the log). So the postmaster is stopped first (SIGSTOP: it can
        neither start a child nor see one die), its children are listed from ``/proc`` and killed, then
        the postmaster."""
        postmaster = self.postmaster()
        os.kill(postmaster, signal.SIGSTOP)
        processes = [*children(postmaster), postmaster]
        for pid in processes:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + KILL_WAIT_SECONDS
        while remaining(processes) and time.monotonic() < deadline:
            time.sleep(0.02)  # until reaped: a zombie postmaster's PID would pass for a running server
        if remaining(processes):
            raise ClusterError(f"server processes {remaining(processes)} not gone {KILL_WAIT_SECONDS} s after SIGKILL")
        return processes

    def stop(self) -> None:
        """Stop the server at once (``-m immediate``) if it runs, and delete its folder."""
        command = [str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"]
        subprocess.run(command, user=self.user, check=False, capture_output=True)
        shutil.rmtree(self.root, ignore_errors=True)


def _stat(pid: int) -> tuple[str, int] | None:
    """``(state, parent PID)`` of process ``pid`` from ``/proc/<pid>/stat``; None if there is none."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    state, parent = text.rsplit(")", 1)[1].split()[:2]  # the command name in (...) may hold spaces
    return state, int(parent)


def children(parent: int) -> list[int]:
    """The PIDs of the live processes whose parent is ``parent`` (``/proc``)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (stat := _stat(int(entry.name))) and stat[1] == parent and stat[0] != "Z":
            found.append(int(entry.name))
    return sorted(found)


def remaining(pids: list[int]) -> list[int]:
    """Those of ``pids`` that still have a process, running or dead and not yet reaped (a zombie)."""
    return [pid for pid in pids if _stat(pid) is not None]


def alive(pids: list[int]) -> list[int]:
    """Those of ``pids`` that are still running (a zombie, dead and not yet reaped, is not)."""
    return [pid for pid in pids if (stat := _stat(pid)) is not None and stat[0] != "Z"]


def start(settings: str = SCRATCH_SETTINGS) -> Cluster:
    """Initialise a cluster in a new temporary folder and start it on a Unix socket there with
    ``settings`` (``-c name=value`` options). Raises :class:`ClusterError` (with the server's log) when
    it cannot start, leaving nothing behind."""
    cluster = Cluster(settings)
    try:
        cluster.init()
        cluster.start()
    except BaseException:
        cluster.stop()
        raise
    return cluster


@contextmanager
def throwaway_cluster(settings: str = SCRATCH_SETTINGS) -> Iterator[str]:
    """:func:`start` a cluster, yield the URL of its ``postgres`` database, stop and delete it at the end."""
    cluster = start(settings)
    try:
        yield cluster.url
    finally:
        cluster.stop()


def create_database(server_url: str, name: str) -> str:
    """Create the empty database ``name`` (a name the caller made, not input) on the cluster at
    ``server_url``; return its URL."""
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
    return database_url(server_url, name)


def database_url(server_url: str, name: str) -> str:
    """The URL of database ``name`` on the cluster whose ``postgres`` database is at ``server_url``."""
    return server_url.replace("/postgres?", f"/{name}?")


def drop_databases(server_url: str, names: list[str]) -> None:
    """Drop these databases (forcing their connections closed), if they exist."""
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as admin:
        for name in names:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
