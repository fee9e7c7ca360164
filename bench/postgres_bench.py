"""Issue 15's figures on both backends, side by side: ``python -m bench.postgres_bench``.

    python -m bench.postgres_bench                          # HTTP, then 1,000,000 responses
    python -m bench.postgres_bench --only http --seconds 6
    python -m bench.postgres_bench --only data --sizes 1000000,10000000

A throwaway PostgreSQL cluster (:mod:`devtools.postgres_cluster`, durable
commits: PostgreSQL's defaults) is started in a temporary folder and
deleted at the end, with everything else.

``http``: the same gunicorn servers as figure 1 (:mod:`bench.http_bench`),
on SQLite, on PostgreSQL, and on PostgreSQL with two app servers (two
gunicorn instances on different ports, as two hosts would be, each with
its own workers and pools) sharing one database. For each: submissions per
second (the product's ordinary answers: the bench survey's burst ceiling is
out of reach, :mod:`bench.survey`), the same answers to a survey under the
default ceiling, each marked as part of a burst (the flood), the floor (the
least a submission does), the bare-insert ceiling (:mod:`bench.ceiling_app`)
and the trivial ``GET /bench/trivial`` of the same server. With two servers the load
generator's connections are split evenly between them. The submissions
and the floor take turns in one window (:func:`bench.load.run_pair`).
Rounds alternate the order; ratios are medians of per-round ratios.

``data``: one survey grown on both backends to each size
(:mod:`bench.dataset`; on PostgreSQL with ``COPY``), then at each size the
results page data, its render and the estimates exports
(:mod:`bench.results_bench`), and at the largest size the responses CSV
stream against the rate at which the same database hands over the raw rows
(:mod:`bench.export_bench`), with peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from bench import dataset, export_bench, machine, results_bench, server
from bench.ceiling_app import create_ceiling_table
from bench.dataset import create_database
from bench.http_bench import (
    HttpOptions,
    Side,
    flood_figure,
    floor_figure,
    floor_ratio_figure,
    latencies,
    ratio_figure,
)
from bench.load import LoadResult, LoadSpec, run_load, run_pair
from bench.report import Figure, at_least, at_most, median_seconds, ms, table
from bench.survey import FLOOD_SURVEY_ID, SURVEY_ID, seed_usual_traffic, write_flood_survey, write_survey
from devtools import postgres_cluster
from storage import connection
from surveys import export
from web.db import migrate_database
from web.forms import wire_values

RESULTS_TARGET_SECONDS = 0.100
EXPORT_RATIO_TARGET = 0.85
PARTS = ("http", "data")
#: Each app server: the product app plus the bench routes (submissions, floor, ceiling, trivial GET).
APP = "bench.ceiling_app:create_ceiling_app()"


def say(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# HTTP: submissions, the floor, the ceiling and the trivial GET, per backend and number of app servers.


#: Each setup's sides.
HTTP_SIDES = ("submit", "floor", "flood", "ceiling", "trivial")
#: What each setup's rounds load, in order (every other round the other way round): the ordinary submissions and
#: the floor as a pair (:func:`bench.load.run_pair`: taking turns in half-second slices of one window, so that
#: the ratio the target is on compares the same seconds of the machine), then the marked submissions, the
#: ceiling and the GET, each in a window of its own.
HTTP_LOADS = (("submit", "floor"), ("flood",), ("ceiling",), ("trivial",))


@dataclass
class Setup:
    """One backend with one or more app servers, each the product app plus the bench routes
    (:func:`bench.ceiling_app.create_ceiling_app`): submissions, floor, ceiling and trivial GET on the same server."""

    name: str
    servers: list[server.Server] = field(default_factory=list)
    sides: dict[str, Side] = field(default_factory=lambda: {k: Side() for k in HTTP_SIDES})


def _environment(database: Path, database_url: str | None, surveys_dir: Path, workers: int | None) -> dict:
    env = server.server_environment(database, surveys_dir, workers)
    if database_url:
        env["FLASK_DATABASE_URL"] = database_url
    return env


def _prepare(target: str) -> None:
    """Migrate the database, create the ceiling's table and give the bench survey its usual traffic
    (:func:`bench.survey.seed_usual_traffic`) once, before the workers boot (``flask init-db`` first, as the
    README's deployment says)."""
    migrate_database(target)
    db = connection.connect(target)
    try:
        create_ceiling_table(db)
        seed_usual_traffic(db)
    finally:
        db.close()


def _load_split(servers: list[server.Server], spec: LoadSpec, sides: list[Side]) -> None:
    """One round against every server at once, the connections split evenly, on one schedule; the results
    merged into ``sides`` (a pair's, :attr:`LoadSpec.other_path`: one for each path, the servers' CPU sampled
    at every slice's end and credited to the slice's path)."""
    spec = replace(spec, start_at=time.time() + spec.start_slack_seconds)
    processes = max(1, spec.processes // len(servers))
    specs = [replace(spec, port=s.port, processes=processes) for s in servers]
    results: list[list[LoadResult] | None] = [None] * len(specs)
    cpu = [0.0] * len(sides)

    def drive(index: int) -> None:
        results[index] = list(run_pair(specs[index])) if spec.other_path else [run_load(specs[index])]

    before = sum(s.cpu_seconds() for s in servers)
    threads = [threading.Thread(target=drive, args=(i,)) for i in range(len(specs))]
    if spec.other_path:
        threads.append(threading.Thread(target=_credit_cpu_by_slice, args=(servers, spec, cpu)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if not spec.other_path:
        cpu[0] = sum(s.cpu_seconds() for s in servers) - before
    for number, side in enumerate(sides):
        merged = LoadResult(spec.measure_seconds)
        for part in results:
            if part is None:
                raise RuntimeError("a load generator failed")
            merged.merge(part[number])
        side.rounds.append(merged)
        side.server_cpu_seconds += cpu[number]


def _credit_cpu_by_slice(servers: list[server.Server], spec: LoadSpec, credited: list[float]) -> None:
    """Sample the servers' CPU at a pair's window start and at each of its slices' ends; add each slice's CPU
    to its path's entry of ``credited`` (the pair's requests are counted by slice too, so CPU per request
    compares the two paths on the same slices)."""
    _, window_start, window_end = spec.schedule()
    length = (window_end - window_start) / spec.slices()
    previous = None
    for index in range(spec.slices() + 1):
        time.sleep(max(0.0, window_start + index * length - time.time()))
        now = sum(s.cpu_seconds() for s in servers)
        if previous is not None:
            credited[(index - 1) % 2] += now - previous
        previous = now


def measure_http(workdir: Path, server_url: str, options: HttpOptions) -> list[Figure]:
    """Submissions, floor, ceiling and trivial GET on SQLite, on PostgreSQL with one app server and with
    two (databases of their own on the cluster at ``server_url``, dropped at the end); their figures."""
    surveys_dir = workdir / "http-surveys"
    survey = write_survey(surveys_dir)
    write_flood_survey(surveys_dir)
    questions = {q.name: wire_values(q) for q in survey.questions}
    base = LoadSpec(
        0,
        f"/s/{SURVEY_ID}",
        "",
        questions,
        options.processes,
        options.threads,
        options.warmup_seconds,
        options.measure_seconds,
        start_slack_seconds=options.start_slack_seconds,
    )
    paths = {
        "submit": (f"/s/{SURVEY_ID}", "POST"),
        "flood": (f"/s/{FLOOD_SURVEY_ID}", "POST"),
        "floor": (f"/bench/floor/{SURVEY_ID}", "POST"),
        "ceiling": ("/bench/ceiling", "POST"),
        "trivial": ("/bench/trivial", "GET"),
    }
    names = [f"bench_http{count}_{secrets.token_hex(4)}" for count in (1, 2)]  # apart from any other run's
    one_url, two_url = (postgres_cluster.create_database(server_url, name) for name in names)
    setups: list[tuple[Setup, int]] = []
    launches: list[tuple[str, dict, Path]] = []
    try:
        shared = int(options.share_servers)  # servers the two-server setup borrows from the one-server one
        for name, count, database_url in (
            ("SQLite", 1, None),
            ("PostgreSQL, 1 app server", 1, one_url),
            ("PostgreSQL, 2 app servers", 2, one_url if shared else two_url),
        ):
            database = workdir / f"http-{len(setups)}.sqlite3"
            if not (shared and count == 2):
                _prepare(database_url or str(database))
            env = _environment(database, database_url, surveys_dir, options.workers)
            setups.append((Setup(name), count))
            booted = count - shared if count == 2 else count
            launches += [(APP, env, workdir / f"gunicorn-{len(setups)}-{n}.log") for n in range(booted)]
        with server.started(launches) as running:  # all booted at once; stopped at the end
            for setup, count in setups:
                borrowed = setups[1][0].servers[:shared] if count == 2 else []
                booted = count - len(borrowed)
                setup.servers, running = borrowed + running[:booted], running[booted:]
            for number in range(options.rounds):
                backwards = number % 2 == 1  # the order, and which of a pair goes first
                for setup, _ in setups:
                    for kinds in HTTP_LOADS[::-1] if backwards else HTTP_LOADS:
                        kinds = kinds[::-1] if backwards else kinds
                        (path, method), *other = (paths[kind] for kind in kinds)
                        spec = replace(base, post_path=path, method=method, other_path=other[0][0] if other else "")
                        say(f"round {number + 1}: {setup.name}, {' and '.join(kinds)}")
                        _load_split(setup.servers, spec, [setup.sides[kind] for kind in kinds])
    finally:
        postgres_cluster.drop_databases(server_url, names)
    return [figure for setup, _ in setups for figure in _http_figures(setup)]


def _median_rate(side: Side) -> str:
    rates = side.rates()
    errors = side.merged().errors
    return f"{statistics.median(rates):,.0f}/s (rounds {', '.join(f'{r:.0f}' for r in rates)})" + (
        f", {errors} errors" if errors else ""
    )


def _http_figures(setup: Setup) -> list[Figure]:
    submit, floor, flood, ceiling, trivial = (setup.sides[k] for k in HTTP_SIDES)
    return [
        Figure(f"{setup.name}: submissions/s", _median_rate(submit)),
        Figure("  submission latency p50 / p99", latencies(submit)),
        Figure("  flood: submissions/s, each marked as a burst", _median_rate(flood)),
        Figure("  floor: the least a submission does, POST/s, same servers", _median_rate(floor)),
        Figure("  ceiling: bare-insert POST/s, same servers", _median_rate(ceiling)),
        Figure("  trivial GET/s, same servers", _median_rate(trivial)),
        floor_ratio_figure(submit, floor),
        ratio_figure(submit, ceiling),
        floor_figure(floor, ceiling),
        flood_figure(flood, submit),
        Figure(
            "  server CPU per request: submission / flood / floor / ceiling / GET",
            f"{submit.cpu_ms_per_request():.2f} / {flood.cpu_ms_per_request():.2f} / {floor.cpu_ms_per_request():.2f}"
            f" / {ceiling.cpu_ms_per_request():.2f} / {trivial.cpu_ms_per_request():.2f} ms",
        ),
    ]


# --------------------------------------------------------------------------
# Data: the results page, the estimates exports and the responses CSV at each size, on both backends.


@dataclass(frozen=True)
class DataSize:
    """One backend at one size: results timings, and (largest size) the CSV against the raw rows."""

    backend: str
    rows: int
    generated_seconds: float
    results: float
    page: float
    estimates_json: float
    estimates_csv: float
    same_as_sqlite: bool | None = None  # PostgreSQL: the same responses and kept counts as the SQLite copy
    csv: export_bench.ExportPass | None = None
    csv_small: export_bench.ExportPass | None = None
    raw: export_bench.ExportPass | None = None


def _results_timings(database: Path | str, surveys_dir: Path, survey) -> dict[str, float]:
    db = connection.connect(database)
    client = results_bench.signed_in_client(database, surveys_dir)
    try:
        warm = lambda: results_bench.warm_results(db, survey)  # noqa: E731
        return {
            "results": median_seconds(warm, results_bench.WARM_RUNS),
            "estimates_json": median_seconds(
                lambda: json.dumps(export.estimates_json(warm(), "2026-01-01T00:00:00+00:00")), results_bench.WARM_RUNS
            ),
            "estimates_csv": median_seconds(lambda: export.estimates_csv(warm()), results_bench.WARM_RUNS),
            "page": median_seconds(results_bench.page_timer(client, survey), results_bench.WARM_RUNS),
        }
    finally:
        db.close()
        results_bench.close_app_connections(client.application)


def measure_data(workdir: Path, server_url: str, sizes: list[int], export_rows: int) -> list[DataSize]:
    surveys_dir = workdir / "data-surveys"
    survey = write_survey(surveys_dir)
    sqlite_path = workdir / "data.sqlite3"
    pg_url = postgres_cluster.create_database(server_url, "bench_data")
    create_database(sqlite_path)
    create_database(pg_url)
    generators = {
        "SQLite": (sqlite_path, dataset.Generator(sqlite_path, survey)),
        "PostgreSQL": (pg_url, dataset.PostgresGenerator(workdir / "pg-data.sqlite3", survey, url=pg_url)),
    }
    measured = []
    for rows in sizes:
        for backend, (database, generator) in generators.items():
            say(f"{backend}: generating responses up to {rows:,}")
            start = time.perf_counter()
            generator.grow_to(rows)
            generated = time.perf_counter() - start
            say(f"{backend}: results and exports at {rows:,}")
            timings = _results_timings(database, surveys_dir, survey)
            csv = small = raw = None
            if rows == export_rows:
                say(f"{backend}: responses CSV and raw rows at {rows:,}")
                survey_file = surveys_dir / f"{SURVEY_ID}.yaml"
                # A first read, not measured: the raw pass ran first and paid for the cold pages alone
                # (at 10,000,000 on SQLite 126k rows/s cold against the CSV's 689k).
                export_bench.raw_rows_pass(database, SURVEY_ID, rows)
                raw = export_bench.raw_rows_pass(database, SURVEY_ID, rows)
                csv = export_bench.run_pass(database, survey_file, rows)
                small = export_bench.run_pass(database, survey_file, min(rows, 100_000))
            same = same_contents(sqlite_path, pg_url, survey) if backend == "PostgreSQL" else None
            measured.append(
                DataSize(backend, rows, generated, **timings, same_as_sqlite=same, csv=csv, csv_small=small, raw=raw)
            )
    return measured


#: What :func:`same_contents` compares: every kept count, and a digest of the stored rows.
KEPT_TABLES = ("tallies", "group_tallies", "pattern_tallies", "daily_counts", "daily_tallies", "designs")
ROWS_DIGEST = "SELECT COUNT(*), SUM(LENGTH(id || day || answer_line)), MIN(id), MAX(id) FROM responses"


def same_contents(sqlite_path: Path, pg_url: str, survey) -> bool:
    """True if both databases hold the same kept counts (every row of :data:`KEPT_TABLES`) and the same
    responses (count, total length of id, day and answer line, first and last id)."""
    found = []
    for target in (sqlite_path, pg_url):
        db = connection.connect(target)
        try:
            kept = {table: sorted(map(tuple, db.execute(f"SELECT * FROM {table}").fetchall())) for table in KEPT_TABLES}
            found.append((kept, tuple(db.execute(ROWS_DIGEST).fetchone())))  # table names: constants above
        finally:
            db.close()
    return found[0] == found[1]


def data_figures(measured: list[DataSize]) -> list[Figure]:
    figures = []
    mib = 2**20
    for size in measured:
        label = f"{size.backend}, {size.rows:,} responses"
        figures.append(Figure(f"{label} (generated in {size.generated_seconds:.0f} s)", ""))
        if size.same_as_sqlite is not None:
            same = size.same_as_sqlite
            figures.append(Figure("  same rows and kept counts as SQLite", "yes" if same else "NO", "yes", same))
        for name, attribute in (
            ("  results page data: tallies + compute_results", "results"),
            ("  results page render (test client, admin)", "page"),
            ("  estimates export JSON", "estimates_json"),
            ("  estimates export CSV", "estimates_csv"),
        ):
            value = getattr(size, attribute)
            figures.append(
                Figure(name, ms(value), f"< {ms(RESULTS_TARGET_SECONDS)}", at_most(value, RESULTS_TARGET_SECONDS))
            )
        if size.csv is not None:
            ratio = size.csv.rate / size.raw.rate
            figures += [
                Figure("  raw stored rows handed over", f"{size.raw.rate:,.0f} rows/s ({size.raw.seconds:.2f} s)"),
                Figure("  responses CSV stream", f"{size.csv.rate:,.0f} rows/s ({size.csv.seconds:.2f} s)"),
                Figure(
                    "  CSV / raw rows",
                    f"{ratio:.2f}",
                    f">= {EXPORT_RATIO_TARGET}",
                    at_least(ratio, EXPORT_RATIO_TARGET),
                ),
                Figure(
                    f"  peak RSS growth after {size.csv_small.rows:,} / {size.csv.rows:,} rows",
                    f"{size.csv_small.rss_growth_bytes / mib:.1f} / {size.csv.rss_growth_bytes / mib:.1f} MiB",
                ),
            ]
    return figures


# --------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.postgres_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help=f"comma-separated parts, among {', '.join(PARTS)}")
    parser.add_argument("--sizes", default="1000000", help="stored responses for the data part (default 1000000)")
    parser.add_argument("--export-rows", type=int, help="rows streamed as CSV (default: the largest size)")
    parser.add_argument("--seconds", type=float, default=6.0, help="measured seconds per load round (default 6)")
    parser.add_argument("--rounds", type=int, default=3, help="load rounds (default 3)")
    parser.add_argument("--workers", type=int, help="gunicorn workers per app server (default: gunicorn.conf.py's)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (not the cluster)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    parts = tuple(p.strip() for p in args.only.split(",")) if args.only else PARTS
    sizes = sorted(int(s) for s in args.sizes.split(","))
    workdir = Path(tempfile.mkdtemp(prefix="rr-bench-pg-"))
    load_before, cpu_before, wall_before = os.getloadavg(), _cpu_seconds(), time.perf_counter()
    figures: list[Figure] = []
    try:
        with postgres_cluster.throwaway_cluster(postgres_cluster.DURABLE_SETTINGS) as server_url:
            if "http" in parts:
                options = HttpOptions(workers=args.workers, measure_seconds=args.seconds, rounds=args.rounds)
                figures += measure_http(workdir, server_url, options)
            if "data" in parts:
                figures += data_figures(measure_data(workdir, server_url, sizes, args.export_rows or sizes[-1]))
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    load_after = os.getloadavg()
    print(f"Benchmark, {machine.describe()}, PostgreSQL {_server_version()}\n")
    print(table(figures))
    print(
        f"\nload average (1 min) {load_before[0]:.2f} at the start, {load_after[0]:.2f} at the end;"
        f" wall {time.perf_counter() - wall_before:.0f} s, this process and its children's CPU"
        f" {_cpu_seconds() - cpu_before:.0f} s"
    )
    failed = [f.name.strip() for f in figures if f.passed is False]
    print(f"\n{len(failed)} target(s) missed" + (": " + "; ".join(failed) if failed else ""))
    return 1 if failed else 0


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _server_version() -> str:
    done = subprocess.run([str(postgres_cluster.bindir() / "postgres"), "--version"], capture_output=True, text=True)
    return done.stdout.strip().rsplit(" ", 1)[-1]


if __name__ == "__main__":
    sys.exit(main())
