"""Figure 2: results and estimates from the tallies, against a rescan of every response.

At each size (the same database, grown between sizes by
:class:`bench.dataset.Generator`):

* warm: :func:`storage.queries.tallies` + :func:`surveys.results.compute_results`
  (what the results page computes), the estimates exports
  (:func:`surveys.export.estimates_json` serialized, :func:`surveys.export.estimates_csv`),
  and the whole results page rendered through the Flask test client with a
  signed-in admin; medians of several runs;
* the SQL floor (:func:`bench.cold.floor_scan`) and the cold recompute
  (:func:`bench.cold.cold_tallies` + ``compute_results``), interleaved, medians;
* the break-down data of ``?by=stress`` (:func:`storage.queries.group_tallies`,
  read from the running break-down tallies), warm median, checked against a
  fresh recount (one rescan, up to :data:`BREAKDOWN_RECOUNT_MAX_ROWS`).
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from app import create_app
from bench.cold import cold_tallies, floor_scan
from bench.report import median_seconds
from storage import accounts, connection, postgres, queries
from surveys import export, results
from surveys.definition import Survey
from web.db import close_pools
from web.permissions import ADMIN_COOKIE

WARM_RUNS = 9
SCAN_RUNS_SMALL = 3  # floor and cold runs up to 1,000,000 rows
SCAN_RUNS_LARGE = 2  # above: each scan takes tens of seconds
#: Largest size at which the kept break-down tallies are checked against a
#: recount: the recount sorts one row per answer, minutes beyond this.
BREAKDOWN_RECOUNT_MAX_ROWS = 1_000_000
BREAKDOWN_BY = "stress"


@dataclass
class SizeTimings:
    """Seconds per operation at one number of stored responses."""

    rows: int
    results: float = 0.0
    estimates_json: float = 0.0
    estimates_csv: float = 0.0
    page: float = 0.0
    floor: float = 0.0
    cold: float = 0.0
    cold_matches_tallies: bool = False
    breakdown: float = 0.0
    breakdown_matches_recount: bool | None = None

    @property
    def cold_over_floor(self) -> float:
        return self.cold / self.floor


def warm_results(db, survey: Survey) -> results.SurveyResults:
    return results.compute_results(survey, queries.tallies(db, survey.id), queries.response_count(db, survey.id))


def _cold_results(db, survey: Survey, recounted: dict) -> results.SurveyResults:
    """Results from tallies recounted from ``responses``; the tallies are left in ``recounted``."""
    recounted["tallies"] = cold_tallies(db, survey.id)
    return results.compute_results(survey, recounted["tallies"], queries.response_count(db, survey.id))


def signed_in_client(database: Path | str, surveys_dir: Path):
    """A test client of the real app whose session is an admin's, as after sign-in (``database``: a
    SQLite path or a PostgreSQL URL)."""
    url = database if postgres.is_url(database) else None
    app = create_app(
        {
            "DATABASE": str(surveys_dir / "unused.sqlite3") if url else str(database),
            "DATABASE_URL": url,
            "SURVEYS_DIR": str(surveys_dir),
            "SECRET_KEY": "bench-secret-key-not-for-production",
            "RATELIMIT_ENABLED": False,
        }
    )
    client = app.test_client()
    db = connection.connect(database)
    if not db.execute("SELECT 1 FROM admins WHERE name = 'bench'").fetchone():
        accounts.create_admin(db, "bench", "bench password not for production")
    client.set_cookie(ADMIN_COOKIE, accounts.start_session(db, "bench"), path="/admin")
    db.close()
    return client


def close_app_connections(app) -> None:
    """Close the connections ``app`` keeps: on SQLite one per thread (:func:`web.db.get_db`), on PostgreSQL
    its pools. A kept SQLite connection holds the file and its write-ahead log open until the app is
    garbage-collected: the generator's switch of the journal mode for the next size then fails with
    ``database is locked``."""
    for kept in app.extensions.pop("db_connections", {}).values():
        kept.close()
    close_pools(app)


def page_timer(client, survey: Survey):
    def get_page() -> None:
        response = client.get(f"/admin/surveys/{survey.id}")
        if response.status_code != 200:
            raise RuntimeError(f"results page answered {response.status_code}")

    return get_page


def _interleaved_medians(first, second, runs: int) -> tuple[float, float]:
    """Median seconds of ``first()`` and ``second()``, run alternately ``runs`` times each."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(runs):
        for function, spent in zip((first, second), times):
            start = time.perf_counter()
            function()
            spent.append(time.perf_counter() - start)
    return statistics.median(times[0]), statistics.median(times[1])


def measure_size(database: Path, surveys_dir: Path, survey: Survey, rows: int, runs: int = WARM_RUNS) -> SizeTimings:
    """Every figure-2 timing for the database as it is now (``rows`` responses): medians of ``runs`` warm runs
    (``bench.run --quick``: 1) and of at most as many scans."""
    timings = SizeTimings(rows)
    db = connection.connect(database)
    try:
        timings.results = median_seconds(lambda: warm_results(db, survey), runs)
        timings.estimates_json = median_seconds(
            lambda: json.dumps(export.estimates_json(warm_results(db, survey), "2026-01-01T00:00:00+00:00")),
            runs,
        )
        timings.estimates_csv = median_seconds(lambda: export.estimates_csv(warm_results(db, survey)), runs)
        client = signed_in_client(database, surveys_dir)
        try:
            timings.page = median_seconds(page_timer(client, survey), runs)
        finally:
            close_app_connections(client.application)
        scans = min(runs, SCAN_RUNS_SMALL if rows <= 1_000_000 else SCAN_RUNS_LARGE)
        recounted: dict = {}
        timings.floor, timings.cold = _interleaved_medians(
            lambda: floor_scan(db, survey), lambda: _cold_results(db, survey, recounted), scans
        )
        timings.cold_matches_tallies = recounted["tallies"] == queries.tallies(db, survey.id)
        timings.breakdown = median_seconds(lambda: queries.group_tallies(db, survey.id, BREAKDOWN_BY), runs)
        if rows <= BREAKDOWN_RECOUNT_MAX_ROWS:
            timings.breakdown_matches_recount = queries.group_tallies(
                db, survey.id, BREAKDOWN_BY
            ) == queries.scan_group_tallies(db, survey.id, BREAKDOWN_BY)
    finally:
        db.close()
    return timings
