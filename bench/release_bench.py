"""Making a release with break-downs at 10,000 and 10,000,000 responses, from kept tallies (issue 28).

    python -m bench.release_bench                      # 10,000 and 10,000,000 responses
    python -m bench.release_bench --sizes 2000,100000  # toy sizes: says the bench works, not how fast

Also the part ``releases`` of :mod:`bench.run`. The survey is the benchmark's (:data:`bench.survey.SURVEY_YAML`:
nine randomized questions and the plain ``stress``) with a ``releases:`` key. At each size the database holds
the kept counts that many responses leave (``tallies``, ``group_tallies``, ``daily_counts`` and the others),
the exact aggregates :class:`bench.dataset.Generator` computes from templates stored by the product; the
response rows themselves are not written, because a release never reads them (as in :mod:`bench.model_bench`).
The release holds every figure a release of this survey may: the nine estimates (free), the counts and the
most common answer of ``stress`` and the nine break-downs by ``stress`` (discrete Laplace noise on every cell
from :data:`surveys.central_noise.SECURE`). Timed, medians of :data:`RUNS` warm runs:

* making it: :func:`web.release_data.read_inputs` (one read snapshot of the kept counts) +
  :func:`surveys.releases.make_release` + its JSON;
* publishing it: :func:`web.release_data.publish_release` (the same, then the budget check and the insert in
  one write transaction; each run stores a release, one kept response after the one before, untimed, as
  ``min_new_answers: 1`` asks).

Each must be under 100 ms at the largest size and flat: the largest size's time at most :data:`FLAT_FACTOR`
times the smallest's. The release's answer count is checked to equal the size (it is read from the kept counts:
the database has no response row).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import dataclass
from datetime import date
from fractions import Fraction
from pathlib import Path

from bench.dataset import Generator, create_database, grow_and_measure
from bench.report import Figure, flat_figure, median_seconds, table, timed_figure
from bench.survey import SURVEY_YAML
from storage import connection
from surveys.central_noise import SECURE
from surveys.definition import Survey
from surveys.files import load_survey_file
from surveys.releases import figure_choices, make_release, plan_release, release_to_json
from web import release_data

SIZES = (10_000, 10_000_000)
QUICK_SIZES = (2_000, 5_000)
RUNS = 9
TARGET_SECONDS = 0.100
#: The largest size's time at most this many times the smallest's: flat in the number of responses.
FLAT_FACTOR = 2.0
#: Each run spends this epsilon of a budget large enough for every run.
EPSILON = Fraction(1, 100)
SURVEY_ID = "bench-releases"
RELEASE_SURVEY_YAML = SURVEY_YAML.replace("id: bench-survey", f"id: {SURVEY_ID}") + (
    "releases:\n  budget: {epsilon: 1000}\n  min_new_answers: 1\n"
)


class KeptCountsGenerator(Generator):
    """:class:`bench.dataset.Generator` writing the kept counts only: no response row (a release reads none)."""

    def _insert_rows(self, conn, rows) -> None:
        return None


@dataclass(frozen=True)
class ReleaseTiming:
    """Seconds at one number of responses (medians of :data:`RUNS` warm runs)."""

    rows: int
    generated: float
    make: float
    publish: float
    figures: int
    breakdowns: int
    answers: int
    response_rows: int


def write_release_survey(folder: Path) -> Survey:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{SURVEY_ID}.yaml"
    path.write_text(RELEASE_SURVEY_YAML, encoding="utf-8")
    return load_survey_file(path)


def _median_publish(database: Path, survey: Survey, keys: list[str], generator: Generator, runs: int) -> float:
    """Median seconds of :func:`web.release_data.publish_release` over :data:`RUNS` runs after one, each after
    one more kept response (untimed, with the bench's connection closed: the generator writes alone) on a
    connection warmed by one read of the kept counts."""
    seconds = []
    for run in range(runs + 1):
        generator.grow_to(generator.rows + 1)
        db = connection.connect(database)
        try:
            release_data.read_inputs(db, survey, keys)
            start = time.perf_counter()
            release_data.publish_release(db, survey, keys, EPSILON, "bench", date(2026, 11, 26))
            if run:
                seconds.append(time.perf_counter() - start)
        finally:
            db.close()
    return statistics.median(seconds)


def measure_size(
    database: Path, survey: Survey, generator: Generator, generated: float, runs: int = RUNS
) -> ReleaseTiming:
    rows = generator.rows
    keys = [choice.key for choice in figure_choices(survey)]
    db = connection.connect(database)
    plan = plan_release(survey, keys, EPSILON)
    try:

        def make():
            inputs = release_data.read_inputs(db, survey, plan.keys)
            return release_to_json(make_release(survey, plan, inputs, SECURE, date(2026, 11, 26)))

        made = median_seconds(make, runs)
        answers = release_data.read_inputs(db, survey, plan.keys).answers
        response_rows = db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    finally:
        db.close()
    published = _median_publish(database, survey, keys, generator, runs)
    breakdowns = sum(key.startswith("breakdown:") for key in keys)
    return ReleaseTiming(rows, generated, made, published, len(keys), breakdowns, answers, response_rows)


def measure(
    workdir: Path, sizes: tuple[int, ...], pool_size: int = 0, say=lambda message: None, runs: int = RUNS
) -> list[ReleaseTiming]:
    """Grow the kept counts through ``sizes`` (rising) and measure at each, medians of ``runs`` runs; ``pool_size``:
    distinct answer sets stored through the product (0: :data:`bench.dataset.POOL_SIZE`)."""
    survey = write_release_survey(workdir / "release-surveys")
    database = workdir / "releases.sqlite3"
    create_database(database)
    generator = KeptCountsGenerator(database, survey, pool_size=pool_size)
    return grow_and_measure(
        generator,
        sizes,
        lambda rows, generated: measure_size(database, survey, generator, generated, runs),
        say,
        "releases: kept counts of {rows:,} responses",
        "releases: making and publishing a release at {rows:,}",
    )


def figures(timings: list[ReleaseTiming]) -> list[Figure]:
    """The table rows: each time at each size with its target at the largest, and the largest / smallest."""
    last = timings[-1]
    rows = [
        Figure(
            f"Release: responses ({last.figures} figures, {last.breakdowns} break-downs)",
            " / ".join(f"{t.rows:,}" for t in timings),
        )
    ]
    for name, attribute in (
        ("  make: kept counts + make_release + JSON", "make"),
        ("  publish: the same + budget check and insert", "publish"),
    ):
        values = [getattr(t, attribute) for t in timings]
        rows.append(timed_figure(name, values, TARGET_SECONDS, last.rows))
        if len(values) > 1:
            rows.append(flat_figure(values, FLAT_FACTOR))
    counted = all(t.answers == t.rows and t.response_rows == 0 for t in timings)
    rows.append(
        Figure(
            "  answers counted from kept counts alone (no response row)",
            " / ".join(f"{t.answers:,}" for t in timings),
            "= responses",
            counted,
        )
    )
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.release_bench")
    parser.add_argument("--sizes", help="responses, comma-separated (default 10000,10000000)")
    args = parser.parse_args(argv)
    sizes = tuple(int(s) for s in args.sizes.split(",")) if args.sizes else SIZES
    with tempfile.TemporaryDirectory(prefix="rr-release-bench-") as folder:
        timings = measure(Path(folder), sizes, say=print)
    print(table(figures(timings)))
    for t in timings:
        print(f"- kept counts of {t.rows:,} responses generated in {t.generated:.1f} s")


if __name__ == "__main__":
    main()
