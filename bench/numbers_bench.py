"""Numbers and check-all-that-apply on the results page at 10,000, 1,000,000 and 10,000,000 responses (issue 27).

    python -m bench.numbers_bench                      # 10,000, 1,000,000 and 10,000,000 stored responses
    python -m bench.numbers_bench --sizes 2000,5000    # toy sizes: says the bench works, not how fast

Also the part ``numbers`` of :mod:`bench.run` (at its ``--sizes``). The survey
(:data:`bench.survey.NUMBERS_SURVEY_YAML`) has a randomized integer under the one-bit bounded design, a
decimal under the discrete Laplace mechanism, a randomized check-all-that-apply question and a plain number.
One SQLite database is grown through the sizes by :class:`bench.dataset.Generator`, as for the choices'
figures: the responses are stored (copies of templates stored once through the product) and the kept
tallies, per-day tallies and break-down tallies are what the product would have added one response at a
time (a number's bucket, ``=sum`` and ``=sumsq`` rows; a check-all question's bit string). At each size,
medians of :data:`RUNS` warm runs of: the results page data (:func:`storage.queries.tallies` +
:func:`surveys.results.compute_results`), the whole results page through the Flask test client with a
signed-in admin (wall and CPU time), and the estimates exports (JSON and CSV). Up to
:data:`RECOUNT_MAX_ROWS` responses, the kept tallies are checked against a recount of the stored answers
(:func:`bench.cold.cold_tallies` turned into kept rows by :func:`bench.cold.kept_tallies`).

Every figure must be under 100 ms at the largest size and flat: the largest size's time at most
:data:`FLAT_FACTOR` times the smallest's, measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench import cold
from bench.dataset import Generator, create_database, grow_and_measure
from bench.report import Figure, flat_figure, table, timed_figure
from bench.results_bench import close_app_connections, signed_in_client
from bench.survey import write_numbers_survey
from storage import connection, queries
from surveys import export, results
from surveys.definition import Survey

SIZES = (10_000, 1_000_000, 10_000_000)
RUNS = 9
TARGET_SECONDS = 0.100
#: The largest size's time at most this many times the smallest's: flat in the number of responses.
FLAT_FACTOR = 2.0
#: Largest size at which the kept tallies are checked against a recount (one scan of every stored answer).
RECOUNT_MAX_ROWS = 1_000_000


@dataclass(frozen=True)
class NumbersTiming:
    """Seconds per operation at one number of stored responses (medians of :data:`RUNS` warm runs)."""

    rows: int
    generated: float
    results: float
    page: float
    page_cpu: float
    estimates_json: float
    estimates_csv: float
    matches_recount: bool | None  # None: not checked at this size


def _medians(function, runs: int = RUNS) -> tuple[float, float]:
    """Median wall and CPU seconds of ``function()`` over ``runs`` calls after one warm-up call."""
    function()
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        function()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu)


def _results(db, survey: Survey) -> results.SurveyResults:
    return results.compute_results(survey, queries.tallies(db, survey.id), queries.response_count(db, survey.id))


def _page_getter(client, survey: Survey):
    def get_page() -> None:
        response = client.get(f"/admin/surveys/{survey.id}")
        if response.status_code != 200:
            raise RuntimeError(f"results page answered {response.status_code}")
        if b"unpaid_hours" not in response.data and b"claim but not do" not in response.data:
            raise RuntimeError("results page does not show the numbers survey's questions")

    return get_page


def measure_size(database: Path, surveys_dir: Path, survey: Survey, rows: int, generated: float) -> NumbersTiming:
    """Every figure for the database as it is now (``rows`` responses)."""
    db = connection.connect(database)
    try:
        data, _ = _medians(lambda: _results(db, survey))
        as_json, _ = _medians(
            lambda: json.dumps(export.estimates_json(_results(db, survey), "2026-01-01T00:00:00+00:00"))
        )
        as_csv, _ = _medians(lambda: export.estimates_csv(_results(db, survey)))
        client = signed_in_client(database, surveys_dir)
        try:
            page, page_cpu = _medians(_page_getter(client, survey))
        finally:
            close_app_connections(client.application)
        matches = None
        if rows <= RECOUNT_MAX_ROWS:
            recounted = cold.kept_tallies(survey, cold.cold_tallies(db, survey.id))
            matches = recounted == queries.tallies(db, survey.id)
    finally:
        db.close()
    return NumbersTiming(rows, generated, data, page, page_cpu, as_json, as_csv, matches)


def measure(workdir: Path, sizes: tuple[int, ...], pool_size: int = 0, say=lambda message: None) -> list[NumbersTiming]:
    """Grow one database through ``sizes`` (rising) and measure at each; ``pool_size``: distinct answer sets
    stored through the product (0: :data:`bench.dataset.POOL_SIZE`; the quick run stores fewer)."""
    surveys_dir = workdir / "numbers-surveys"
    survey = write_numbers_survey(surveys_dir)
    database = workdir / "numbers.sqlite3"
    create_database(database)
    return grow_and_measure(
        Generator(database, survey, pool_size=pool_size),
        sizes,
        lambda rows, generated: measure_size(database, surveys_dir, survey, rows, generated),
        say,
        "numbers survey: generating responses up to {rows:,}",
        "numbers survey: results page, its data and the estimates exports at {rows:,}",
    )


def figures(timings: list[NumbersTiming]) -> list[Figure]:
    """The table rows: each figure at each size with its target at the largest, and the largest / smallest."""
    rows = [
        Figure(
            "Numbers survey: stored responses (bounded integer, Laplace decimal, check-all, plain number)",
            " / ".join(f"{t.rows:,}" for t in timings),
        )
    ]
    for name, attribute, target in (
        ("  results page data: tallies + compute_results", "results", True),
        ("  results page render (test client, admin)", "page", True),
        ("    its CPU time", "page_cpu", False),
        ("  estimates export JSON (compute + serialize)", "estimates_json", True),
        ("  estimates export CSV (compute + write)", "estimates_csv", True),
    ):
        values = [getattr(t, attribute) for t in timings]
        rows.append(timed_figure(name, values, TARGET_SECONDS if target else None, timings[-1].rows))
        if len(values) > 1:
            rows.append(flat_figure(values, FLAT_FACTOR))
    rows.append(
        Figure(
            "  kept number and check-all tallies equal a recount",
            " / ".join(
                "not run" if t.matches_recount is None else "yes" if t.matches_recount else "NO" for t in timings
            ),
            "yes",
            all(t.matches_recount is not False for t in timings),
        )
    )
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.numbers_bench")
    parser.add_argument("--sizes", help="stored responses, comma-separated (default 10000,1000000,10000000)")
    args = parser.parse_args(argv)
    sizes = tuple(int(s) for s in args.sizes.split(",")) if args.sizes else SIZES
    with tempfile.TemporaryDirectory(prefix="rr-numbers-bench-") as folder:
        timings = measure(Path(folder), sizes)
    print(table(figures(timings)))
    for t in timings:
        print(f"- generated up to {t.rows:,} rows in {t.generated:.1f} s")


if __name__ == "__main__":
    main()
