"""``make bench`` runs whole: its quick mode, every part and every figure's row in one table (issue 25).

The bench is not part of the test suite, but its quick mode (``python -m bench.run --quick``: toy sizes,
one short load round) is, so that a change to what it measures (a view's steps, a connection the app
keeps, the server's settings) cannot break it unnoticed, as the kept SQLite connection of the results
page once did (``database is locked`` before the second size). Its figures are not checked against
their targets (at toy sizes on a shared machine they mean nothing), except those that check
correctness: recounts equal to the kept counts, no third-party request.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.bursts import hour_threshold, usual_rate_of_others
from bench import cold, dataset, load, numbers_bench, postgres_bench, results_bench
from bench.survey import SURVEY_ID, UNREACHED_CEILING, write_numbers_survey, write_survey
from storage import burst_days, connection, queries

ROOT = Path(__file__).resolve().parent.parent
#: The whole quick run, servers and PostgreSQL included (about a minute on a quiet 2-core machine).
QUICK_TIMEOUT_SECONDS = 300

#: Every row of the full run's table, by part: the quick run prints the same rows.
ROWS = {
    "page": ["Respondent page weight, 10-question survey", "the same, shipped example exam-integrity"],
    "http": [f"{setup}: submissions/s" for setup in ("SQLite", "PostgreSQL, 1 app server", "PostgreSQL, 2 app servers")]
    + [
        "submission latency p50 / p99",
        "floor: the least a submission does, POST/s, same servers",
        "ceiling: bare-insert POST/s, same servers",
        "trivial GET/s, same servers",
        "submissions / floor (median of rounds)",
        "submissions / ceiling (median of rounds)",
        "floor / ceiling: the least a submission does",
        "server CPU per request: submission / flood / floor / ceiling / GET",
        "flood: submissions/s, each marked as a burst",
        "flood / submissions: the burst marks' cost (median of rounds)",
    ],
    "results": [
        "Stored responses (10 questions)",
        "Results page data: tallies + compute_results",
        "Results page render (test client, admin)",
        "Estimates export JSON (compute + serialize)",
        "Estimates export CSV (compute + write)",
        "SQL floor: one scan, SUM(json_extract) x 10",
        "Cold: tallies recounted in one SQL scan + compute",
        "cold / floor",
        "Break-down data ?by=stress (kept group tallies)",
        "Model cheated ~ stress, kept counts",
    ],
    "export": ["Responses CSV stream, 5,000 rows", "peak RSS growth after", "tracemalloc peak after"],
    "signin": [
        "Respondent page, no flood",
        "sign-in floods, SIGNIN_CONCURRENCY=1",
        "the same without the bound",
        "p95 flood (bounded) / p95 no flood",
        "Owner's sign-ins behind a proxy, no flood: browser that signed in before",
        "rotating floods, one client: one /24 and one /64: browser that signed in before",
        "rotating floods, 200 /24 networks and one /64: browser that signed in before",
        "the floods' answers",
    ],
    "model": [
        "Model: responses (5 predictors, 38 parameters)",
        "fit from the kept counts (gather.stored_model)",
        "CPU ratio to the size before",
        "largest |estimate - truth| / std err",
    ],
    "catalog": [
        "Catalogue: stored surveys",
        "get_catalog() per request (no poll due)",
        "change-log poll, nothing changed (at most every 0.5 s)",
        "change-log poll, one survey changed and reloaded",
        "respondent form GET, end to end (test client)",
        "first load of a process (every survey parsed)",
    ],
    "numbers": [
        "Numbers survey: stored responses (bounded integer, Laplace decimal, check-all, plain number)",
        "results page data: tallies + compute_results",
        "results page render (test client, admin)",
        "estimates export JSON (compute + serialize)",
        "estimates export CSV (compute + write)",
        "largest / smallest",
    ],
    "releases": [
        "Release: responses (20 figures, 9 break-downs)",
        "make: kept counts + make_release + JSON",
        "publish: the same + budget check and insert",
    ],
    "models": [
        "Kept-count models: responses",
        "weighted model (raked, 38 parameters)",
        "predictor model (18 outcome levels)",
        "correlation (cheated, lied)",
        "fit checks (design_fit: model cells, careless)",
    ],
    "where the time goes": ["Where a submission's time goes", "Where the responses CSV's time goes"],
}
#: Rows that check correctness, not speed: they pass at any size.
CHECKS = [
    "cold recount equals the stored tallies",
    "kept break-down equals a recount",
    "kept pattern counts equal a recount",
    "kept number and check-all tallies equal a recount",
    "answers counted from kept counts alone (no response row)",
    "third-party requests",
]


def quick_run(postgres_server: str) -> subprocess.CompletedProcess:
    """``python -m bench.run --quick`` on the session's PostgreSQL server, with a deadline."""
    return subprocess.run(
        [sys.executable, "-m", "bench.run", "--quick", "--postgres-url", postgres_server],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=QUICK_TIMEOUT_SECONDS,
        check=False,
    )


def _table_rows(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("| ")]


def pair_spec(measure_seconds: float = 6.0, slice_seconds: float = 0.5) -> load.LoadSpec:
    return load.LoadSpec(
        0, "/s/x", "/s/x", {}, other_path="/bench/floor/x", measure_seconds=measure_seconds, slice_seconds=slice_seconds
    )


@pytest.mark.parametrize(("measure", "slice_length", "slices"), [(6.0, 0.5, 24), (0.25, 0.5, 2), (1.0, 0.3, 6)])
def test_a_pairs_window_is_twice_its_measure_cut_into_an_even_number_of_slices(measure, slice_length, slices):
    spec = pair_spec(measure, slice_length)
    start, window_start, window_end = load.LoadSpec(**{**spec.__dict__, "start_at": 100.0}).schedule()
    assert (start, window_start) == (100.0, 100.0 + spec.warmup_seconds)
    assert window_end - window_start == pytest.approx(2 * measure)
    assert spec.slices() == slices


def test_a_pairs_requests_take_turns_by_slice_and_count_only_within_one():
    spec, window = pair_spec(), (10.0, 22.0)  # 24 slices of 0.5 s
    assert [load.path_of(spec, window, t) for t in (10.0, 10.49, 10.5, 11.2, 21.9)] == [0, 0, 1, 0, 1]
    assert load.path_of(spec, window, 9.6) == 1  # the warm-up takes turns too
    assert load.tally(spec, window, 10.1, 10.4) == (True, True)
    assert load.tally(spec, window, 10.4, 10.6) == (True, False)  # ran into the other path's slice
    assert load.tally(spec, window, 21.8, 22.1) == (True, False)  # ran past the window
    assert load.tally(spec, window, 9.9, 10.2) == (False, False)  # started in the warm-up


def test_one_paths_requests_count_when_they_finish_in_the_window():
    spec, window = load.LoadSpec(0, "/s/x", "/s/x", {}), (10.0, 16.0)
    assert [load.path_of(spec, window, t) for t in (9.0, 10.6, 15.9)] == [0, 0, 0]
    assert load.tally(spec, window, 9.9, 10.2) == (True, True)
    assert load.tally(spec, window, 9.0, 9.5) == (True, False)  # the warm-up's: sent, for CPU per request
    assert load.tally(spec, window, 15.9, 16.1) == (True, False)


def test_a_pair_and_one_path_are_driven_by_their_own_functions():
    with pytest.raises(ValueError, match="/bench/floor/x"):
        load.run_load(pair_spec())
    with pytest.raises(ValueError, match="/s/x"):
        load.run_pair(load.LoadSpec(0, "/s/x", "/s/x", {}))


def test_the_bench_surveys_answers_stay_ordinary_in_a_run_that_crosses_a_clock_hour(tmp_path):
    """The new hour is judged against the hour the run began in; without the seeded usual traffic the threshold
    fell to a few hundred answers above that hour's count (6,888 after 6,500), and the submissions after it were
    marked as a burst."""
    target = str(tmp_path / "bench.sqlite3")
    postgres_bench._prepare(target)
    db = connection.connect(target)
    try:
        with connection.immediate_transaction(db):  # the hour the run began in
            db.execute("INSERT INTO hour_histograms (survey_id, responses, hours) VALUES (?, 6500, 1)", [SURVEY_ID])
        usual = usual_rate_of_others(burst_days.hour_histogram(db, SURVEY_ID), leave_out=0)
    finally:
        db.close()
    assert hour_threshold(usual, UNREACHED_CEILING) == UNREACHED_CEILING


@pytest.mark.slow
def test_the_quick_run(postgres_server, subtests):
    """One test, so that a parallel run makes the quick run once (its tests would be handed to both workers,
    each making it again), its checks reported one by one as subtests."""
    run = quick_run(postgres_server)
    with subtests.test("it finishes with one table"):
        _finishes_with_one_table(run)
    for part in ROWS:
        with subtests.test("it prints every figure's row", part=part):
            _prints_every_figures_row(run, part)
    with subtests.test("it measures submissions against the floor on both backends"):
        _measures_submissions_against_the_floor_on_both_backends(run)
    with subtests.test("it grows the database through every size"):
        _grows_the_database_through_every_size(run)
    for check in CHECKS:
        with subtests.test("its correctness check passes", check=check):
            _correctness_check_passes(run, check)


def _finishes_with_one_table(run):
    """The run ends with its verdict (status 0, or 1 for a missed target), not a traceback."""
    assert run.returncode in (0, 1), run.stderr[-3000:]
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    assert run.stdout.count("| figure ") == 1
    assert "target(s) missed" in run.stdout.splitlines()[-1]


def _prints_every_figures_row(run, part):
    """Each part's rows are in the output (and the HTTP rows once for each backend and app servers)."""
    missing = [row for row in ROWS[part] if row not in run.stdout]
    assert not missing, f"rows missing: {missing}\n{run.stdout}\n{run.stderr[-3000:]}"


def _measures_submissions_against_the_floor_on_both_backends(run):
    """Three submissions / floor rows (SQLite, PostgreSQL with one and two app servers), each with its
    target, and every request of every side answered."""
    rows = [row for row in _table_rows(run.stdout) if "submissions / floor" in row]
    assert len(rows) == 3, run.stdout
    assert all(">= 0.9" in row for row in rows), rows
    assert "errors" not in run.stdout, run.stdout


def _grows_the_database_through_every_size(run):
    """The results figures at both quick sizes: the database is grown again after the first is measured."""
    rows = [row for row in _table_rows(run.stdout) if row.startswith("| Stored responses")]
    assert len(rows) == 1 and "2,000 / 5,000" in rows[0], run.stdout


def _correctness_check_passes(run, check):
    rows = [row for row in _table_rows(run.stdout) if check in row]
    assert rows and all(row.rstrip(" |").endswith("PASS") for row in rows), run.stdout


@pytest.mark.slow
def test_results_figures_leave_the_database_to_the_generator(tmp_path, monkeypatch):
    """After the results figures at one size (their signed-in app keeps a connection per thread), no
    connection holds the file: the generator can switch the journal off and grow it to the next size."""
    monkeypatch.setattr(dataset, "POOL_SIZE", 64)  # distinct answer sets stored through the product: 2 x 64
    survey = write_survey(tmp_path / "surveys")
    database = tmp_path / "data.sqlite3"
    dataset.create_database(database)
    generator = dataset.Generator(database, survey)
    generator.grow_to(100)
    results_bench.measure_size(database, tmp_path / "surveys", survey, 100)
    conn = sqlite3.connect(database, timeout=0)
    try:
        assert conn.execute("PRAGMA journal_mode = OFF").fetchone() == ("off",)
    finally:
        conn.close()
    generator.grow_to(200)
    assert generator.rows == 200


def test_numbers_generator_keeps_the_tallies_the_product_would(tmp_path):
    """The numbers survey grown in bulk (two batches): its kept tallies (a number's buckets, ``=sum`` and
    ``=sumsq``; a check-all question's bit strings) equal the kept rows of a recount of the stored answers, and
    its per-day tallies add up to them."""
    survey = write_numbers_survey(tmp_path / "surveys")
    database = tmp_path / "numbers.sqlite3"
    dataset.create_database(database)
    generator = dataset.Generator(database, survey, pool_size=64)
    generator.grow_to(300)
    generator.grow_to(700)
    db = connection.connect(database)
    try:
        kept = queries.tallies(db, survey.id)
        recounted = cold.kept_tallies(survey, cold.cold_tallies(db, survey.id))
        per_day: dict = {}
        for _, day in queries.daily_tallies(db, survey.id):
            for name, by_key in day.items():
                for key, rows in by_key.items():
                    for row, count in rows.items():
                        added = per_day.setdefault(name, {}).setdefault(key, {})
                        added[row] = added.get(row, 0) + count
    finally:
        db.close()
    assert set(kept) == {"drinks", "unpaid_hours", "done", "age"}
    assert all(
        {"=sum", "=sumsq"} < set(rows) for name in ("drinks", "unpaid_hours", "age") for rows in kept[name].values()
    )
    assert kept == recounted
    assert per_day == kept
    assert queries.response_count(connection.connect(database), survey.id) == 700


def _numbers_timing(rows: int, page: float) -> numbers_bench.NumbersTiming:
    return numbers_bench.NumbersTiming(rows, 1.0, 0.010, page, page / 2, 0.010, 0.010, True)


@pytest.mark.parametrize(
    ("pages", "verdicts"),
    [
        ((0.040, 0.050), ["PASS", "PASS"]),  # under 100 ms, flat
        ((0.040, 0.120), ["FAIL", "FAIL"]),  # over 100 ms at the largest size, three times the smallest
        ((0.010, 0.090), ["PASS", "FAIL"]),  # under 100 ms but nine times the smallest: not flat
    ],
)
def test_numbers_figures_judge_the_target_and_flatness_at_the_largest_size(pages, verdicts):
    figures = numbers_bench.figures([_numbers_timing(10_000, pages[0]), _numbers_timing(10_000_000, pages[1])])
    names = [f.name.strip() for f in figures]
    at = names.index("results page render (test client, admin)")
    assert [figures[at].verdict, figures[at + 1].verdict] == verdicts
    assert figures[at + 1].name.strip() == "largest / smallest"
    assert figures[at + 1].value == f"{pages[1] / pages[0]:.2f}"


def test_release_figures_read_kept_counts_alone_at_every_size(tmp_path):
    """The release bench grows kept counts only (no response row), and its release counts every response."""
    from bench import release_bench

    timings = release_bench.measure(tmp_path, (300, 1_000), pool_size=32, runs=1)
    assert [(t.rows, t.answers, t.response_rows) for t in timings] == [(300, 300, 0), (1_000, 1_000, 0)]
    rows = {figure.name.strip(): figure for figure in release_bench.figures(timings)}
    assert rows["answers counted from kept counts alone (no response row)"].passed is True
    assert rows["Release: responses (20 figures, 9 break-downs)"].value == "300 / 1,000"


def test_kept_models_figures_give_every_models_figures_from_kept_counts(tmp_path):
    """The kept-models bench (issue 29) at toy sizes: each computation gives figures (a fit, not a message) from
    the kept counts it makes, and prints one row per computation."""
    from bench import kept_models_bench

    timings = kept_models_bench.measure_here(tmp_path, kept_models_bench.QUICK_SIZES, runs=1)
    assert len(timings) == 8 and all(t.fitted for t in timings), timings
    rows = [figure.name.strip() for figure in kept_models_bench.figures(timings)]
    assert rows == ROWS["models"]


def test_the_design_bench_weights_every_kept_answer_at_each_size(tmp_path):
    """The design-weighted bench grows kept counts only and weights every answer of each question, by
    linearisation and by the jackknife (its ``measure`` raises otherwise)."""
    from bench import design_bench

    timings = design_bench.measure(tmp_path, (300, 1_000), runs=1)
    assert [(t.responses, t.variance) for t in timings] == [
        (300, "linearization"),
        (300, "jackknife"),
        (1_000, "linearization"),
        (1_000, "jackknife"),
    ]
    names = [figure.name for figure in design_bench.figures(timings)]
    assert names == [
        "Design-weighted estimates (linearization): 300 / 1,000",
        "Design-weighted estimates (jackknife): 300 / 1,000",
    ]
