"""Figure 3: the streamed responses CSV, its rate and its peak memory.

Each pass runs in a fresh process (``spawn``) that imports the app and
opens the database, then resets the kernel's peak-RSS mark (``5`` written
to ``/proc/self/clear_refs``) so that the peak afterwards (``VmHWM``) is
the export's own; the growth is that peak minus the resident size at the
start. Where the mark cannot be reset, ``ru_maxrss`` is used instead (a
high-water mark that may date from the imports, so the growth reads low).
A separate pass under :mod:`tracemalloc`
gives the peak of Python allocations (slower, so its time is not used for
the rate). Passes stop after ``limit`` rows, to show that the peak after
100,000 rows and after 1,000,000 is the same.
"""

from __future__ import annotations

import multiprocessing
import resource
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ExportPass:
    """One pass over the CSV stream."""

    rows: int
    seconds: float
    rss_growth_bytes: int
    traced_peak_bytes: int | None

    @property
    def rate(self) -> float:
        return self.rows / self.seconds


def _status_bytes(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024  # kB
    raise KeyError(field)


def _reset_peak_rss() -> int:
    """Start a new peak-RSS measurement; return the baseline in bytes."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return _status_bytes("VmRSS")
    except (OSError, KeyError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


def _peak_rss_bytes() -> int:
    try:
        return _status_bytes("VmHWM")
    except (OSError, KeyError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _export_pass(database: str, survey_file: str, limit: int, trace: bool) -> ExportPass:
    """Consume and discard ``web.answer_package.responses_csv`` until ``limit`` rows (in the child)."""
    from storage import connection
    from surveys.files import load_survey_file
    from web import answer_package

    survey = load_survey_file(survey_file)
    db = connection.connect(database)
    baseline = _reset_peak_rss()
    if trace:
        tracemalloc.start()
    rows, start = -1, time.perf_counter()  # -1: the header line
    chunks = answer_package.responses_csv(db, survey)
    for chunk in chunks:
        rows += chunk.count("\n")
        if rows >= limit:
            break
    chunks.close()
    seconds = time.perf_counter() - start
    traced = tracemalloc.get_traced_memory()[1] if trace else None
    tracemalloc.stop()
    db.close()
    return ExportPass(rows, seconds, _peak_rss_bytes() - baseline, traced)


def run_pass(database: Path | str, survey_file: Path, limit: int, trace: bool = False) -> ExportPass:
    """:func:`_export_pass` in a fresh process."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(_export_pass, (str(database), str(survey_file), limit, trace))


def measure(
    database: Path | str, survey_file: Path, rows: int, small_rows: int = 100_000, fresh: bool = True
) -> dict[str, ExportPass]:
    """Rate over ``rows``; RSS growth and traced peak after ``small_rows`` and after ``rows``.

    Each pass in a fresh process; with ``fresh=False`` (``bench.run --quick``) the four passes one after
    the other in one spawned process, which pays for the imports once (its memory figures then include
    what the passes before left behind: they say that the bench works, not what the export holds)."""
    passes = {
        "full": (rows, False),
        "small": (small_rows, False),
        "full_traced": (rows, True),
        "small_traced": (small_rows, True),
    }
    if fresh:
        return {name: run_pass(database, survey_file, limit, trace) for name, (limit, trace) in passes.items()}
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return {
            name: pool.apply(_export_pass, (str(database), str(survey_file), limit, trace))
            for name, (limit, trace) in passes.items()
        }


#: The stored columns the CSV is made of, handed over as they are (no CSV, no joining).
RAW_COLUMNS = "id, survey_version, design_id, randomized_on, arm, day, answer_line"


def _raw_rows_pass(database: str, survey_id: str, limit: int) -> ExportPass:
    """Read and discard the stored columns of ``limit`` rows as fast as the database hands them over
    (in the child): ``COPY (SELECT ...) TO STDOUT`` on PostgreSQL, a plain cursor on SQLite."""
    from storage import connection

    db = connection.connect(database)
    baseline = _reset_peak_rss()
    start = time.perf_counter()
    if connection.is_postgres(db):
        sql = f"COPY (SELECT {RAW_COLUMNS} FROM responses WHERE survey_id = %s ORDER BY id LIMIT %s) TO STDOUT"
        rows = 0
        with db.conn.cursor() as cursor, cursor.copy(sql, [survey_id, limit]) as copy:
            for block in copy:
                rows += bytes(block).count(b"\n")
    else:
        cursor = db.conn.execute(
            f"SELECT {RAW_COLUMNS} FROM responses WHERE survey_id = ? ORDER BY id LIMIT ?", [survey_id, limit]
        )
        rows = 0
        while batch := cursor.fetchmany(1000):
            rows += len(batch)
    seconds = time.perf_counter() - start
    db.close()
    return ExportPass(rows, seconds, _peak_rss_bytes() - baseline, None)


def raw_rows_pass(database: Path | str, survey_id: str, limit: int) -> ExportPass:
    """:func:`_raw_rows_pass` in a fresh process: the rate the CSV stream is compared with."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(_raw_rows_pass, (str(database), survey_id, limit))
