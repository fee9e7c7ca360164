"""Confidence sequences at size: the results page, the dashboard's targets and the check after each answer.

    python -m bench.sequences_bench                      # 10,000,000 responses in a temporary folder
    python -m bench.sequences_bench --rows 1000000 --workdir /tmp/seq   # keep (and reuse) the database

The benchmark survey (:mod:`bench.survey`) with targets added (a share for
each of three yes/no questions and one difference of two ``stress`` groups)
and ``close_when_targets_met``: the targets do not change the design keys,
so the generated responses (:class:`bench.dataset.Generator`, which writes
the kept tallies, break-down tallies and per-day tallies as the app would)
are the survey's. At that size, medians of several warm runs of:

* the results page through the Flask test client with a signed-in admin:
  every estimate with its confidence sequence and the estimate over time
  (six yes/no questions, :data:`bench.dataset.DAYS` days); target < 100 ms;
* the same page with a break-down by ``stress`` and the difference of two
  groups (each group's and the difference's sequences);
* the dashboard, which measures every target (and plans the answers still
  needed for each share);
* :func:`web.gather.close_if_targets_met`, the work added to a submission of
  a self-closing survey whose targets are not met yet (read the kept counts,
  compute the sequences, no write).

It also checks that the per-day tallies add up to the running tallies.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from bench.dataset import DAYS, Generator, create_database
from bench.report import Figure, at_most, median_seconds, ms, table
from bench.results_bench import signed_in_client
from bench.survey import SURVEY_ID, write_survey
from storage import connection, queries
from surveys.files import load_survey_file
from web import gather

RUNS = 9
PAGE_TARGET_SECONDS = 0.100
#: Added to the benchmark survey's file: three shares and one difference, closing when met.
TARGETS_YAML = """\
targets:
  - {question: cheated, margin: 0.001}
  - {question: plagiarism, margin: 0.001}
  - {question: drugs, margin: 0.001}
  - {question: cheated, by: stress, groups: [low, high], margin: 0.001}
close_when_targets_met: true
"""


def survey_with_targets(surveys_dir: Path):
    """The benchmark survey written with :data:`TARGETS_YAML` and loaded by the product's loader."""
    write_survey(surveys_dir)
    path = surveys_dir / f"{SURVEY_ID}.yaml"
    path.write_text(path.read_text(encoding="utf-8") + TARGETS_YAML, encoding="utf-8")
    return load_survey_file(path)


def ensure_rows(database: Path, surveys_dir: Path, rows: int) -> None:
    """Generate ``rows`` responses unless ``database`` holds them already (a kept ``--workdir``)."""
    if database.exists():
        db = connection.connect(database)
        try:
            if queries.response_count(db, SURVEY_ID) == rows:
                return
        finally:
            db.close()
        raise SystemExit(f"{database} holds another number of responses; use an empty --workdir")
    create_database(database)
    Generator(database, write_survey(surveys_dir)).grow_to(rows)


def daily_tallies_add_up(db, survey_id: str) -> bool:
    """The per-day tallies summed over the days equal the running tallies."""
    summed: dict = {}
    for _, per_question in queries.daily_tallies(db, survey_id):
        for question, by_design in per_question.items():
            for design, by_answer in by_design.items():
                for answer, count in by_answer.items():
                    kept = summed.setdefault(question, {}).setdefault(design, {})
                    kept[answer] = kept.get(answer, 0) + count
    return summed == queries.tallies(db, survey_id)


def cpu_median_seconds(function, runs: int) -> float:
    """Median CPU time of this process over ``runs`` calls of ``function()`` (after one warm-up call).

    On a machine shared with other work the wall time of a page grows with
    the load while its CPU time does not: both are reported.
    """
    function()
    times = []
    for _ in range(runs):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return statistics.median(times)


def _page(client, path: str):
    def get() -> None:
        response = client.get(path)
        if response.status_code != 200:
            raise RuntimeError(f"{path} answered {response.status_code}")

    return get


def measure(workdir: Path, rows: int) -> list[Figure]:
    """Every figure of this benchmark at ``rows`` responses."""
    surveys_dir, database = workdir / "surveys", workdir / "data.sqlite3"
    ensure_rows(database, surveys_dir, rows)
    survey = survey_with_targets(surveys_dir)
    client = signed_in_client(database, surveys_dir)
    load = os.getloadavg()[0]
    page = median_seconds(_page(client, f"/admin/surveys/{SURVEY_ID}"), RUNS)
    page_cpu = cpu_median_seconds(_page(client, f"/admin/surveys/{SURVEY_ID}"), RUNS)
    html = client.get(f"/admin/surveys/{SURVEY_ID}").get_data(as_text=True)
    if "Confidence sequence" not in html and "confidence sequence" not in html:
        raise RuntimeError("the results page shows no confidence sequence")
    differences = median_seconds(_page(client, f"/admin/surveys/{SURVEY_ID}?by=stress&first=low&second=high"), RUNS)
    dashboard = median_seconds(_page(client, "/admin/"), RUNS)
    db = connection.connect(database)
    try:
        check = median_seconds(lambda: gather.close_if_targets_met(db, survey), RUNS)
        if gather.close_if_targets_met(db, survey):
            raise RuntimeError("the benchmark's targets are met: the check would have closed the survey")
        adds_up = daily_tallies_add_up(db, SURVEY_ID)
    finally:
        db.close()
    return [
        Figure("Stored responses, days with answers", f"{rows:,}, {DAYS}"),
        Figure(
            "Results page: sequences and the estimate over time",
            ms(page),
            "< 100 ms",
            at_most(page, PAGE_TARGET_SECONDS),
        ),
        Figure("  its CPU time (what it costs without other work on the machine)", ms(page_cpu)),
        Figure("The same with ?by=stress and a difference of two groups", ms(differences)),
        Figure("Dashboard: four targets measured, three planned", ms(dashboard)),
        Figure("Target check after a stored answer (not met: no write)", ms(check)),
        Figure("Per-day tallies add up to the running tallies", "yes" if adds_up else "NO", "yes", adds_up),
        Figure("Load average (1 min) when the page was measured", f"{load:.2f} on {os.cpu_count()} cores"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000, help="stored responses (default 10,000,000)")
    parser.add_argument("--workdir", type=Path, help="keep the database here and reuse it on the next run")
    args = parser.parse_args()
    if args.workdir:
        args.workdir.mkdir(parents=True, exist_ok=True)
        figures = measure(args.workdir, args.rows)
    else:
        with tempfile.TemporaryDirectory(prefix="rr-sequences-bench-") as folder:
            figures = measure(Path(folder), args.rows)
    print(table(figures))
    if any(figure.passed is False for figure in figures):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
