"""``make bench``: measure everything once and print one table.

    python -m bench.run                      # full run (up to 10,000,000 stored responses)
    python -m bench.run --quick              # smoke run: every row at toy sizes (2-3 minutes, 2 busy cores)
    python -m bench.run --sizes 10000,1000000,10000000 --only results

Figures (see bench/README.md for what each means):

1. ``http``: submissions per second through gunicorn against the floor (the
   least any submission must do), the bare-insert ceiling and the trivial
   GET of the same servers, on SQLite, on PostgreSQL and on PostgreSQL with two
   app servers (:func:`bench.postgres_bench.measure_http`, on a throwaway
   PostgreSQL cluster, or on ``--postgres-url``); then the submission timed
   step by step in process.
2. ``results``: the results page data, its render and the estimates exports
   from the tallies, against the SQL floor of a rescan and a cold recount.
3. ``export``: the streamed responses CSV, rows per second and peak memory,
   and its pieces apart.
4. ``page``: the respondent page's weight and third-party requests.
5. ``signin``: respondent latency while sign-ins flood the server, with and
   without the machine-wide bound on password checks, and the owner's
   sign-ins behind a proxy while floods rotate over many addresses
   (``bench.signin_flood``).
6. ``model``: the logistic model with five predictors (38 parameters) fitted
   from the kept pattern counts of 10,000, 1,000,000 and 10,000,000
   responses (``bench.model_bench``); with ``results``, also the model of
   the grown survey and its kept counts against a recount.
7. ``catalog``: the survey catalogue's cost per request with 10, 1,000 and
   10,000 surveys stored in the database (``bench.catalog_bench``): flat.
8. ``numbers``: the results page, its data and the estimates exports of a
   survey with a randomized integer (one bit), a Laplace decimal, a
   check-all-that-apply question and a plain number at the ``--sizes``
   (``bench.numbers_bench``): under 100 ms and flat.
9. ``releases``: making and publishing a release with break-downs from the
   kept counts of 10,000 and 10,000,000 responses (``bench.release_bench``):
   under 100 ms and flat.
10. ``models``: issue 29's models from the kept counts of 10,000 and
    10,000,000 responses (``bench.kept_models_bench``): the weighted model,
    the predictor model, the correlation and the fit checks, each under 100 ms.

``--quick`` runs every part and prints every row of the full run, at toy
sizes and for a second or so per load round: its figures say that the bench
works, not how fast the product is (``tests/test_bench.py`` runs it).
Everything lives in one temporary folder, deleted at the end (``--keep`` to
keep it); servers listen on 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench import (
    catalog_bench,
    export_bench,
    export_breakdown,
    http_bench,
    kept_models_bench,
    machine,
    model_bench,
    numbers_bench,
    page_bench,
    postgres_bench,
    profile_submit,
    release_bench,
    results_bench,
    signin_flood,
)
from bench.dataset import Generator, create_database
from bench.report import Figure, at_least, at_most, ms, table
from bench.survey import SURVEY_ID, write_survey
from devtools import postgres_cluster

ROOT = Path(__file__).resolve().parent.parent
PARTS = ("page", "http", "results", "export", "signin", "model", "catalog", "numbers", "releases", "models")
#: Responses the model is fitted at (from kept counts only: seconds to make).
MODEL_SIZES = (10_000, 1_000_000, 10_000_000)
#: Load rounds of figure 1 (the ratios are medians of the rounds' ratios): five, since rounds of the same code
#: have spread by up to 0.4 on this shared machine, and a median of three moves with one bad round.
HTTP_ROUNDS = 5

#: ``--quick``: stored responses for figure 2 (two sizes: the database is grown between them, as in a
#: full run; the CSV is streamed at the largest), the CSV's smaller pass, and the model's sizes.
QUICK_SIZES = (2_000, 5_000)
QUICK_EXPORT_SMALL_ROWS = 1_000
QUICK_MODEL_SIZES = (10_000, 100_000)
#: ``--quick``: distinct answer sets the numbers survey's generator stores through the product (full run:
#: :data:`bench.dataset.POOL_SIZE`), so that the part adds seconds, not tens of seconds, to the quick run.
QUICK_NUMBERS_POOL = 256
#: Bytes of database per stored response (rows, index, tallies), for the disk check.
BYTES_PER_ROW = 420
#: The same for the numbers survey (four questions; measured: 405 bytes at 200,000 responses).
NUMBERS_BYTES_PER_ROW = 420
RESULTS_TARGET_SECONDS = 0.100
COLD_OVER_FLOOR_TARGET = 1.5
EXPORT_RATE_TARGET = 500_000
PAGE_BYTES_TARGET = 30_000
FLAT_MEMORY_FACTOR = 1.25


@dataclass(frozen=True)
class Plan:
    """What to run, and how long; built from the command line."""

    parts: tuple[str, ...]
    sizes: tuple[int, ...]
    export_rows: int
    export_small_rows: int
    http: http_bench.HttpOptions
    profile_requests: int
    signin: signin_flood.FloodScale
    model_sizes: tuple[int, ...]
    catalog_sizes: tuple[int, ...]
    numbers_pool: int  # 0: the generator's default
    release_sizes: tuple[int, ...]
    release_runs: int
    postgres_url: str | None  # None: a throwaway cluster for the run
    keep: bool
    quick: bool = False


def parse_args(argv: list[str] | None = None) -> Plan:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="smoke run: every figure at toy sizes, one short load round"
    )
    parser.add_argument(
        "--sizes", help="stored responses for figure 2, comma-separated (default 10000,1000000,10000000)"
    )
    parser.add_argument("--only", help=f"comma-separated parts to run, among {', '.join(PARTS)}")
    parser.add_argument("--workers", type=int, help="gunicorn workers (default: gunicorn.conf.py's, 2 x cores + 1)")
    parser.add_argument("--connections", type=int, help="concurrent client connections (default 16)")
    parser.add_argument("--seconds", type=float, help="measured seconds per load round (default 8; 3 rounds)")
    parser.add_argument(
        "--postgres-url",
        help="the postgres database of a running PostgreSQL server to measure on (default: a throwaway cluster)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)
    quick = args.quick
    sizes = (
        tuple(int(s) for s in args.sizes.split(","))
        if args.sizes
        else (QUICK_SIZES if quick else (10_000, 1_000_000, 10_000_000))
    )
    connections = args.connections or (2 if quick else 16)
    processes = min(1 if quick else 4, connections)
    http = http_bench.HttpOptions(
        workers=args.workers or (1 if quick else None),
        processes=processes,
        threads=max(1, connections // processes),
        warmup_seconds=0.25 if quick else 2.0,
        measure_seconds=args.seconds or (0.25 if quick else 6.0),
        rounds=1 if quick else HTTP_ROUNDS,
        start_slack_seconds=0.5 if quick else 2.0,
        share_servers=quick,
    )
    parts = tuple(p.strip() for p in args.only.split(",")) if args.only else PARTS
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown part(s) {', '.join(sorted(unknown))}; choose among {', '.join(PARTS)}")
    return Plan(
        parts=parts,
        sizes=tuple(sorted(sizes)),
        export_rows=max(sizes) if quick else 1_000_000,
        export_small_rows=min(QUICK_EXPORT_SMALL_ROWS, max(sizes)) if quick else 100_000,
        http=http,
        profile_requests=10 if quick else 1000,
        signin=signin_flood.QUICK if quick else signin_flood.FloodScale(),
        model_sizes=QUICK_MODEL_SIZES if quick else MODEL_SIZES,
        catalog_sizes=catalog_bench.QUICK_SIZES if quick else catalog_bench.SIZES,
        numbers_pool=QUICK_NUMBERS_POOL if quick else 0,
        release_sizes=release_bench.QUICK_SIZES if quick else release_bench.SIZES,
        release_runs=1 if quick else release_bench.RUNS,
        postgres_url=args.postgres_url,
        keep=args.keep,
        quick=quick,
    )


def say(message: str) -> None:
    """Progress, on standard error, so that standard output is the table alone."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def check_disk(workdir: Path, plan: Plan) -> None:
    largest = max(plan.sizes + (plan.export_rows,)) if {"results", "export"} & set(plan.parts) else 0
    numbers = max(plan.sizes) * NUMBERS_BYTES_PER_ROW if "numbers" in plan.parts else 0
    needed = (largest * BYTES_PER_ROW + numbers) * 1.3
    free = shutil.disk_usage(workdir).free
    if needed > free:
        sys.exit(f"Not enough disk in {workdir}: about {needed / 1e9:.1f} GB needed, {free / 1e9:.1f} GB free.")


# --------------------------------------------------------------------------
# Figure 4: the respondent page.


def page_figures(workdir: Path) -> list[Figure]:
    write_survey(workdir / "page-surveys")
    bench_page = page_bench.measure(workdir / "page.sqlite3", workdir / "page-surveys", SURVEY_ID)
    example = page_bench.measure(workdir / "page-example.sqlite3", ROOT / "survey_files", "exam-integrity")

    def weight(page: page_bench.PageWeight) -> str:
        parts = " + ".join(f"{size:,}" for size in page.resources.values())
        return f"{page.total_bytes:,} B (HTML {page.html_bytes:,} + {parts})"

    third_party = bench_page.third_party + example.third_party
    return [
        Figure(
            "Respondent page weight, 10-question survey",
            weight(bench_page),
            f"< {PAGE_BYTES_TARGET // 1000} KB",
            bench_page.total_bytes < PAGE_BYTES_TARGET,
        ),
        Figure(
            "  the same, shipped example exam-integrity",
            weight(example),
            f"< {PAGE_BYTES_TARGET // 1000} KB",
            example.total_bytes < PAGE_BYTES_TARGET,
        ),
        Figure("  third-party requests", ", ".join(third_party) or "none", "none", not third_party),
    ]


# --------------------------------------------------------------------------
# Figure 2 and 3: the grown database.


def _joined(values: list[str]) -> str:
    return " / ".join(values)


def results_figures(timings: list[results_bench.SizeTimings]) -> list[Figure]:
    last = timings[-1]
    sizes = _joined(f"{t.rows:,}" for t in timings)
    at = f"at {last.rows:,}"

    def row(name: str, attribute: str) -> Figure:
        values = [getattr(t, attribute) for t in timings]
        return Figure(
            name,
            _joined(ms(v) for v in values),
            f"< {ms(RESULTS_TARGET_SECONDS)} {at}",
            at_most(values[-1], RESULTS_TARGET_SECONDS),
        )

    return [
        Figure("Stored responses (10 questions)", sizes),
        row("Results page data: tallies + compute_results", "results"),
        row("Results page render (test client, admin)", "page"),
        row("Estimates export JSON (compute + serialize)", "estimates_json"),
        row("Estimates export CSV (compute + write)", "estimates_csv"),
        Figure("SQL floor: one scan, SUM(json_extract) x 10", _joined(ms(t.floor) for t in timings)),
        Figure("Cold: tallies recounted in one SQL scan + compute", _joined(ms(t.cold) for t in timings)),
        Figure(
            "  cold / floor",
            _joined(f"{t.cold_over_floor:.2f}" for t in timings),
            f"<= {COLD_OVER_FLOOR_TARGET} {at}",
            at_most(last.cold_over_floor, COLD_OVER_FLOOR_TARGET),
        ),
        Figure(
            "  cold recount equals the stored tallies",
            _joined("yes" if t.cold_matches_tallies else "NO" for t in timings),
            "yes",
            all(t.cold_matches_tallies for t in timings),
        ),
        Figure("  warm results / floor", _joined(f"{t.results / t.floor:.4f}" for t in timings)),
        Figure("Break-down data ?by=stress (kept group tallies)", _joined(ms(t.breakdown) for t in timings)),
        Figure(
            "  kept break-down equals a recount",
            _joined(
                "not run" if t.breakdown_matches_recount is None else "yes" if t.breakdown_matches_recount else "NO"
                for t in timings
            ),
            "yes",
            all(t.breakdown_matches_recount is not False for t in timings),
        ),
    ]


def export_figures(passes: dict[str, export_bench.ExportPass]) -> list[Figure]:
    full, small = passes["full"], passes["small"]
    traced_full, traced_small = passes["full_traced"].traced_peak_bytes, passes["small_traced"].traced_peak_bytes
    mib = 2**20
    return [
        Figure(
            f"Responses CSV stream, {full.rows:,} rows",
            f"{full.rate:,.0f} rows/s ({full.seconds:.2f} s)",
            f">= {EXPORT_RATE_TARGET:,} rows/s",
            at_least(full.rate, EXPORT_RATE_TARGET),
        ),
        Figure(
            f"  peak RSS growth after {small.rows:,} / {full.rows:,} rows",
            f"{small.rss_growth_bytes / mib:.1f} / {full.rss_growth_bytes / mib:.1f} MiB",
        ),
        Figure(
            f"  tracemalloc peak after {small.rows:,} / {full.rows:,} rows",
            f"{traced_small / mib:.2f} / {traced_full / mib:.2f} MiB",
            f"flat (<= {FLAT_MEMORY_FACTOR} x)",
            traced_full <= FLAT_MEMORY_FACTOR * traced_small,
        ),
    ]


def export_breakdown_table(pieces: list[tuple[str, float]]) -> str:
    return table([Figure(label, f"{rate:,.0f} rows/s") for label, rate in pieces], ("piece", "rate"))


def grow_and_measure(workdir: Path, plan: Plan) -> tuple[list[Figure], list[str], str]:
    """Grow one database through the sizes; measure figure 2 at each and figure 3 at its size.

    Returns the figures, notes, and the export breakdown (empty without ``export``).
    """
    surveys_dir = workdir / "data-surveys"
    survey = write_survey(surveys_dir)
    database = workdir / "data.sqlite3"
    create_database(database)
    generator = Generator(database, survey)
    stages = sorted(
        set(plan.sizes if "results" in plan.parts else ()) | ({plan.export_rows} if "export" in plan.parts else set())
    )
    timings, passes, notes, breakdown, model_fits = [], None, [], "", []
    for rows in stages:
        say(f"generating responses up to {rows:,}")
        start = time.perf_counter()
        generator.grow_to(rows)
        notes.append(
            f"generated {rows:,} rows in {time.perf_counter() - start:.1f} s, "
            f"database {database.stat().st_size / 1e9:.2f} GB"
        )
        if "results" in plan.parts and rows in plan.sizes:
            say(f"results, exports, floor and cold recount at {rows:,}")
            runs = 1 if plan.quick else results_bench.WARM_RUNS
            timings.append(results_bench.measure_size(database, surveys_dir, survey, rows, runs))
            model_fits.append(model_bench.bench_survey_fit(database, survey, "cheated", "stress", runs))
        if "export" in plan.parts and rows == plan.export_rows:
            say(f"streaming the responses CSV ({plan.export_small_rows:,} and {rows:,} rows)")
            passes = export_bench.measure(
                database, surveys_dir / f"{SURVEY_ID}.yaml", rows, plan.export_small_rows, fresh=not plan.quick
            )
            say("breaking the CSV stream down")
            breakdown = export_breakdown_table(export_breakdown.breakdown(database, survey))
    figures = (results_figures(timings) if timings else []) + (export_figures(passes) if passes else [])
    if model_fits:
        figures += [
            Figure("Model cheated ~ stress, kept counts", _joined(ms(seconds) for seconds, _ in model_fits)),
            Figure(
                "  kept pattern counts equal a recount",
                _joined("yes" if same else "NO" for _, same in model_fits),
                "yes",
                all(same for _, same in model_fits),
            ),
        ]
    return figures, notes, breakdown


# --------------------------------------------------------------------------
# Figure 1: HTTP on both backends, and where a submission's time goes.


def profile_table(profile: profile_submit.SubmitProfile) -> str:
    """The step-by-step timing of a submission and of the ceiling, and the pieces alone."""
    rows = [Figure(f"Submission, in process: {profile.submission_ms:.2f} ms (sum of medians)", "")]
    rows += [Figure(f"  {label}", f"{value:.3f} ms") for label, value in profile.submission]
    rows += [
        Figure(
            f"Ceiling, in process: {profile.ceiling_ms:.2f} ms"
            f" (ratio {profile.ceiling_ms / profile.submission_ms:.2f})",
            "",
        )
    ]
    rows += [Figure(f"  {label}", f"{value:.3f} ms") for label, value in profile.ceiling]
    rows += [Figure("Pieces alone (same connection, repeated)", "")]
    rows += [Figure(f"  {label}", f"{value:.3f} ms") for label, value in profile.pieces]
    return table(rows, ("step", "median"))


def http_figures(workdir: Path, plan: Plan) -> list[Figure]:
    """Figure 1 on both backends: on ``--postgres-url``'s server, or on a throwaway cluster (durable
    commits, PostgreSQL's defaults) started for the run and deleted after it."""
    if plan.postgres_url:
        return postgres_bench.measure_http(workdir, plan.postgres_url, plan.http)
    with postgres_cluster.throwaway_cluster(postgres_cluster.DURABLE_SETTINGS) as server_url:
        return postgres_bench.measure_http(workdir, server_url, plan.http)


def run(plan: Plan) -> int:
    workdir = Path(tempfile.mkdtemp(prefix="rr-bench-"))
    load_before, wall_before = os.getloadavg()[0], time.perf_counter()
    figures: list[Figure] = []
    notes: list[str] = []
    http_profile = export_pieces = ""
    try:
        check_disk(workdir, plan)
        if "page" in plan.parts:
            say("respondent page weight")
            figures += page_figures(workdir)
        if "http" in plan.parts:
            say(
                f"HTTP load: {plan.http.rounds} round(s) x {len(postgres_bench.HTTP_SIDES)} sides x 3 setups"
                f" (SQLite, PostgreSQL with 1 and 2 app servers) x {plan.http.measure_seconds:g} s"
                " (the submissions and the floor taking turns in one window)"
            )
            figures += http_figures(workdir, plan)
            say("profiling the submission path in process")
            http_profile = profile_table(profile_submit.profile(workdir, plan.profile_requests))
        if "signin" in plan.parts:
            say(
                f"respondent latency under a sign-in flood (3 servers x {plan.signin.measure_seconds:g} s),"
                " owner's sign-ins under rotating floods"
            )
            figures += signin_flood.measure(workdir, plan.signin)
        if "model" in plan.parts:
            say(f"model fit from kept counts at {', '.join(f'{n:,}' for n in plan.model_sizes)} responses")
            runs = 1 if plan.quick else model_bench.RUNS
            figures += model_bench.figures(model_bench.measure(workdir, plan.model_sizes, runs))
        if "catalog" in plan.parts:
            say(f"the survey catalogue with {', '.join(f'{n:,}' for n in plan.catalog_sizes)} stored surveys")
            figures += catalog_bench.figures(catalog_bench.measure(workdir, plan.catalog_sizes))
        if "numbers" in plan.parts:
            timings = numbers_bench.measure(workdir, plan.sizes, plan.numbers_pool, say)
            figures += numbers_bench.figures(timings)
            notes += [f"numbers survey: generated up to {t.rows:,} rows in {t.generated:.1f} s" for t in timings]
        if "releases" in plan.parts:
            timings = release_bench.measure(workdir, plan.release_sizes, plan.numbers_pool, say, runs=plan.release_runs)
            figures += release_bench.figures(timings)
            notes += [f"releases: kept counts of {t.rows:,} responses made in {t.generated:.1f} s" for t in timings]
        if "models" in plan.parts:
            sizes = kept_models_bench.QUICK_SIZES if plan.quick else kept_models_bench.SIZES
            say(f"issue 29's models from kept counts at {', '.join(f'{n:,}' for n in sizes)} responses")
            runs = 1 if plan.quick else kept_models_bench.RUNS
            figures += kept_models_bench.figures(kept_models_bench.measure(workdir, sizes, runs))
        if {"results", "export"} & set(plan.parts):
            more, generation, export_pieces = grow_and_measure(workdir, plan)
            figures += more
            notes += generation
    finally:
        if plan.keep:
            say(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    print(f"Benchmark, {machine.describe()}\n")
    print(table(figures))
    for note in notes:
        print(f"- {note}")
    print(
        f"- load average (1 min) {load_before:.2f} at the start, {os.getloadavg()[0]:.2f} at the end;"
        f" wall {time.perf_counter() - wall_before:.0f} s"
    )
    if http_profile:
        print("\nWhere a submission's time goes (wall time per step, medians):\n")
        print(http_profile)
    if export_pieces:
        print(f"\nWhere the responses CSV's time goes ({plan.export_rows:,} rows, each piece alone):\n")
        print(export_pieces)
    failed = [f.name.strip() for f in figures if f.passed is False]
    print(f"\n{len(failed)} target(s) missed" + (": " + "; ".join(failed) if failed else ""))
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    return run(parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
