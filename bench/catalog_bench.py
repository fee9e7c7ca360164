"""The catalogue's cost per request with 10, 1,000 and 10,000 stored surveys (issue 26).

    python -m bench.catalog_bench            # 10, 1,000 and 10,000 stored surveys
    python -m bench.catalog_bench --quick    # 10, 100 and 300: says the bench works, not how fast

Surveys live in the database; each app process keeps them parsed (:mod:`web.catalog`) and reads the
change log at most every 0.5 s, reloading only the surveys named there. For each number of stored
surveys this measures, in process on SQLite: ``get_catalog()`` as a request calls it (no poll due), a
poll of the change log that finds nothing, a poll that finds one changed survey and reloads it, the
respondent form end to end (test client), and the first load of a process (every survey parsed once).
The first four should not grow with the number of surveys; the first load does, once per process.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.report import Figure, flat_figure, median_seconds, ms, table

SIZES = (10, 1_000, 10_000)
QUICK_SIZES = (10, 100, 300)
#: A per-request cost at the largest size at most this many times the smallest's: flat.
FLAT_FACTOR = 2.0

SURVEY = """\
id: {id}
title: Survey {n}
version: 1
questions:
  - name: cheated
    type: yes_no
    label: Have you ever cheated on an exam?
  - name: year
    type: select_one
    label: Year of study
    choices: [first, second, third, fourth]
    randomize: false
"""


@dataclass(frozen=True)
class CatalogTiming:
    surveys: int
    cached: float
    poll_nothing: float
    poll_one_changed: float
    form_get: float
    first_load: float


def store_surveys(database: Path, count: int) -> None:
    """``count`` live surveys written straight into a migrated database (as many saves would leave them)."""
    from storage import connection, migrations

    db = connection.connect(database)
    migrations.migrate(db)
    now = time.time()
    ids = [f"survey-{n:05d}" for n in range(count)]
    with connection.immediate_transaction(db):
        connection.executemany(
            db,
            "INSERT INTO surveys (id, stage, listed, managed_by, current_version, opened_at)"
            " VALUES (?, 'live', 1, NULL, 1, ?)",
            [(survey_id, now) for survey_id in ids],
        )
        connection.executemany(
            db,
            "INSERT INTO survey_versions (survey_id, version, source, source_name, saved_by, saved_at)"
            " VALUES (?, 1, ?, ?, NULL, ?)",
            [
                (survey_id, SURVEY.format(id=survey_id, n=n), f"{survey_id}.yaml", now)
                for n, survey_id in enumerate(ids)
            ],
        )
        connection.executemany(
            db,
            "INSERT INTO catalog_changes (generation, survey_id, at) VALUES (?, ?, ?)",
            [(n + 1, survey_id, now) for n, survey_id in enumerate(ids)],
        )
        db.execute("INSERT INTO catalog_generation (id, generation) VALUES (1, ?)", [count])
    db.close()


def measure_one(folder: Path, count: int, runs: int) -> CatalogTiming:
    from app import create_app
    from storage import surveys as stored_surveys
    from web.catalog import get_catalog

    database = folder / f"catalog-{count}.sqlite3"
    store_surveys(database, count)
    app = create_app({"DATABASE": str(database), "SECRET_KEY": "bench", "RATELIMIT_ENABLED": False})

    def call() -> None:
        with app.test_request_context("/"):
            get_catalog()

    start = time.perf_counter()
    call()
    first_load = time.perf_counter() - start
    kept = app.extensions["rr_catalog"]
    cached = median_seconds(call, runs, warmup=0)

    def poll() -> None:
        kept.checked = float("-inf")
        call()

    poll_nothing = median_seconds(poll, runs, warmup=0)
    changed_id = "survey-00000"
    texts = iter(range(10**9))

    def change_then_poll() -> float:
        with app.app_context():
            from web.db import get_db

            text = SURVEY.format(id=changed_id, n=f"0, reworded {next(texts)}")
            stored_surveys.save_version(get_db(), text, source_name="x.yaml", managed_by=None, actor=None)
        kept.checked = float("-inf")
        begin = time.perf_counter()
        call()
        return time.perf_counter() - begin

    poll_one = statistics.median(change_then_poll() for _ in range(max(5, runs // 20)))
    client = app.test_client()
    form_get = median_seconds(lambda: client.get(f"/s/survey-{count - 1:05d}"), max(20, runs // 10), warmup=0)
    return CatalogTiming(count, cached, poll_nothing, poll_one, form_get, first_load)


def measure(folder: Path, sizes: tuple[int, ...], runs: int | None = None) -> list[CatalogTiming]:
    """The timings at each number of stored surveys (``runs`` calls per median: 100 for toy sizes, else 500)."""
    runs = runs or (100 if max(sizes) < 1_000 else 500)
    return [measure_one(folder, count, runs) for count in sizes]


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.0f} µs" if seconds < 0.001 else ms(seconds)


def figures(timings: list[CatalogTiming]) -> list[Figure]:
    """The table rows: each cost at each number of stored surveys, and whether it stays flat."""
    rows = [Figure("Catalogue: stored surveys", " / ".join(f"{t.surveys:,}" for t in timings))]
    for name, attribute, flat in (
        ("  get_catalog() per request (no poll due)", "cached", True),
        ("  change-log poll, nothing changed (at most every 0.5 s)", "poll_nothing", True),
        ("  change-log poll, one survey changed and reloaded", "poll_one_changed", True),
        ("  respondent form GET, end to end (test client)", "form_get", True),
        ("  first load of a process (every survey parsed)", "first_load", False),
    ):
        values = [getattr(t, attribute) for t in timings]
        rows.append(Figure(name, " / ".join(_us(v) for v in values)))
        if flat and len(values) > 1:
            rows.append(flat_figure(values, FLAT_FACTOR))
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.catalog_bench")
    parser.add_argument("--quick", action="store_true", help=f"{', '.join(map(str, QUICK_SIZES))} surveys")
    args = parser.parse_args(argv)
    sizes = QUICK_SIZES if args.quick else SIZES
    with tempfile.TemporaryDirectory(prefix="rr-catalog-bench-") as folder:
        print(table(figures(measure(Path(folder), sizes))))


if __name__ == "__main__":
    main()
