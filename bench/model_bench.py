"""Model fit: the logistic model of a randomized answer on five plain questions, from kept counts.

The survey (:data:`MODEL_SURVEY_YAML`) has one randomized yes/no outcome (two
coins) and five plain questions: three with two choices and two with
eighteen, so the model has 1 + 3 + 17 + 17 = 38 parameters and the plain
answers allow 3 * 3 * 3 * 19 * 19 = 9,747 patterns (under the 10,000 the app
keeps counts for, :data:`surveys.models.MAX_PATTERNS`).

At each size the database holds the ``pattern_tallies`` that ``n``
responses would leave: the counts of the patterns are one multinomial draw
of ``n`` (each plain question answered independently, a few left
unanswered), and the stored yes count of each pattern one binomial draw
from ``a + t * expit(x' beta)`` with known coefficients ``beta``. These are
the sufficient statistics the app keeps; the responses themselves are not
written (the fit never reads them). The timed call is the one the results
page, the model exports and ``export model`` make,
:func:`web.gather.stored_model` (one read snapshot, the kept counts, then
:func:`surveys.models.fit_model`: EM, Newton, a likelihood-ratio refit per
predictor and for the model, predicted prevalence per group), median of
:data:`RUNS` warm runs. The estimates are checked against the true
coefficients (largest ``|estimate - truth| / std_err``).

Simulated data only: ``numpy.random`` draws the bench's tallies, never an
answer of a respondent.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from itertools import product
from pathlib import Path

import numpy as np
from scipy import special

from analysis.regression import INTERCEPT
from bench.dataset import create_database
from bench.report import Figure, at_most, ms, table
from storage import connection, kept_counts
from surveys.definition import Survey
from surveys.design_contract import question_design_key
from surveys.files import load_survey_file
from surveys.models import NO_ANSWER, ModelChoice, ModelResult, answer_pattern, kept_outcomes
from web import gather

ROOT = Path(__file__).resolve().parent.parent
MODEL_SURVEY_ID = "bench-model"
RUNS = 9
TARGET_SECONDS = 0.100
#: The largest size may take at most this many times the CPU of the size before ("flat in the number of
#: responses": the cost follows the patterns seen, which stop growing once every combination has answers).
FLAT_FACTOR = 1.5
#: Largest ``|estimate - truth| / std_err`` over the coefficients taken as a fit that recovers the truth.
RECOVERY_Z = 4.5
#: Share of respondents who leave a plain question unanswered.
UNANSWERED = 0.01
SEED = 20261122

_PROGRAMMES = [f"programme_{k:02d}" for k in range(1, 19)]
_REGIONS = [f"region_{k:02d}" for k in range(1, 19)]

MODEL_SURVEY_YAML = f"""\
id: {MODEL_SURVEY_ID}
title: Exam integrity and student background (model benchmark)
version: 1
questions:
  - name: cheated
    type: yes_no
    label: Have you ever cheated on an exam?
  - name: campus
    type: select_one
    label: Do you live on campus?
    choices: ["no", "yes"]
    randomize: false
    required: false
  - name: paid_work
    type: select_one
    label: Do you work for pay during term?
    choices: ["no", "yes"]
    randomize: false
    required: false
  - name: first_generation
    type: select_one
    label: Are you the first in your family at university?
    choices: ["no", "yes"]
    randomize: false
    required: false
  - name: programme
    type: select_one
    label: Which programme are you in?
    choices: [{", ".join(_PROGRAMMES)}]
    randomize: false
    required: false
  - name: region
    type: select_one
    label: Which region are you from?
    choices: [{", ".join(_REGIONS)}]
    randomize: false
    required: false
"""

PREDICTORS = ("campus", "paid_work", "first_generation", "programme", "region")


def write_model_survey(folder: Path) -> Survey:
    """Write the model survey into ``folder`` and load it as the app would."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{MODEL_SURVEY_ID}.yaml"
    path.write_text(MODEL_SURVEY_YAML, encoding="utf-8")
    return load_survey_file(path)


@dataclass(frozen=True)
class Truth:
    """The simulated population: each plain question's answer shares and the true coefficients."""

    shares: dict[str, np.ndarray]  # per predictor, over its choices
    coefficients: dict[str, float]  # "(intercept)" and one per non-reference level, keyed "question=choice"


def make_truth(survey: Survey, rng: np.random.Generator) -> Truth:
    """Uneven answer shares and coefficients of a realistic size (odds ratios between about 0.5 and 2)."""
    shares, coefficients = {}, {"(intercept)": special.logit(0.2)}
    for name in PREDICTORS:
        levels = survey.question(name).choice_names
        shares[name] = rng.dirichlet(np.full(len(levels), 8.0))
        for level in levels[1:]:
            coefficients[f"{name}={level}"] = float(rng.uniform(-0.6, 0.6))
    return Truth(shares, coefficients)


def simulated_tallies(survey: Survey, truth: Truth, responses: int, rng: np.random.Generator) -> list[tuple]:
    """``(outcome, design key, pattern, answer, count)`` rows, as ``responses`` stored answers would leave them."""
    outcome = survey.question("cheated")
    design = outcome.design
    key = question_design_key(outcome)
    options = {
        name: [*survey.question(name).choice_names, NO_ANSWER] for name in PREDICTORS
    }  # NO_ANSWER last: unanswered
    marginals = {name: np.append(truth.shares[name] * (1 - UNANSWERED), UNANSWERED) for name in PREDICTORS}
    cells = list(product(*(range(len(options[name])) for name in PREDICTORS)))
    probabilities = np.array([np.prod([marginals[n][i] for n, i in zip(PREDICTORS, cell)]) for cell in cells])
    counts = rng.multinomial(responses, probabilities / probabilities.sum())
    plain = [q.name for q in survey.plain_questions]
    rows = []
    for cell, count in zip(cells, counts.tolist()):
        if not count:
            continue
        answers = {name: options[name][i] for name, i in zip(PREDICTORS, cell)}
        eta = truth.coefficients["(intercept)"] + sum(
            truth.coefficients.get(f"{name}={answer}", 0.0) for name, answer in answers.items()
        )
        p_yes = design.a + design.t * special.expit(eta)
        yes = int(rng.binomial(count, p_yes))
        pattern = answer_pattern({n: a for n, a in answers.items() if a != NO_ANSWER}, plain)
        rows += [(outcome.name, key, pattern, answer, n) for answer, n in (("yes", yes), ("no", count - yes)) if n]
    return rows


def store_tallies(database: Path, survey_id: str, rows: list[tuple]) -> None:
    """Put the rows in ``pattern_tallies`` of a fresh product database, as the write path would have."""
    create_database(database)
    db = connection.connect(database)
    try:
        with connection.immediate_transaction(db):
            db.conn.executemany(
                "INSERT INTO pattern_tallies (survey_id, outcome, design, pattern, answer, count)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [(survey_id, *row) for row in rows],
            )
    finally:
        db.close()


def model_choice() -> ModelChoice:
    return ModelChoice("cheated", PREDICTORS, {})


@dataclass(frozen=True)
class ModelTiming:
    """The fit at one number of responses."""

    responses: int
    tally_rows: int
    seconds: float  # wall, median
    cpu_seconds: float  # this process's CPU time, median (what a machine with a free core would show)
    parameters: int
    largest_z: float | None  # None when the fit gave a message
    message: str | None


def _median_fit(db, survey: Survey, choice: ModelChoice, runs: int = RUNS) -> tuple[float, float, ModelResult]:
    """Median wall and CPU seconds of :func:`web.gather.stored_model` over ``runs`` warm runs (:data:`RUNS`;
    ``bench.run --quick``: 1), and its result."""
    result = gather.stored_model(db, survey, choice, 0.95)  # warm-up
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        gather.stored_model(db, survey, choice, 0.95)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), result


def largest_z(result: ModelResult, truth: Truth) -> float:
    """``max |estimate - truth| / std_err`` over the coefficients (the intercept and each level's)."""
    wanted = {INTERCEPT: truth.coefficients["(intercept)"]}
    for term in result.terms:
        labels = {c.name: c.label for c in term.question.choices}
        reference = labels[term.reference]
        for level in term.levels:
            wanted[f"{term.question.label}: {labels[level]} vs {reference}"] = truth.coefficients[
                f"{term.question.name}={level}"
            ]
    return max(
        abs(result.fit.coefficient(name).estimate - value) / result.fit.coefficient(name).std_err
        for name, value in wanted.items()
    )


def measure(workdir: Path, sizes: tuple[int, ...], runs: int = RUNS) -> list[ModelTiming]:
    """:func:`measure_here` in a fresh process with the app's BLAS setting (one thread, ``app.create_app``):
    numpy reads it only when first imported, and the bench has imported numpy already."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.model_bench",
            "--workdir",
            str(workdir),
            "--sizes",
            ",".join(map(str, sizes)),
            "--runs",
            str(runs),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the model bench failed:\n{done.stderr}")
    return [ModelTiming(**row) for row in json.loads(done.stdout)]


def measure_here(workdir: Path, sizes: tuple[int, ...], runs: int = RUNS) -> list[ModelTiming]:
    """The model fit at each number of responses, each from its own database of kept counts, in this process."""
    survey = write_model_survey(workdir / "model-surveys")
    if kept_outcomes(survey) != ("cheated",):
        raise RuntimeError("the model survey's pattern counts would not be kept: too many patterns")
    rng = np.random.default_rng(SEED)
    truth = make_truth(survey, rng)
    timings = []
    for responses in sizes:
        rows = simulated_tallies(survey, truth, responses, rng)
        database = workdir / f"model-{responses}.sqlite3"
        store_tallies(database, survey.id, rows)
        db = connection.connect(database)
        try:
            seconds, cpu_seconds, result = _median_fit(db, survey, model_choice(), runs)
        finally:
            db.close()
        fitted = result.fit is not None
        timings.append(
            ModelTiming(
                responses,
                len(rows),
                seconds,
                cpu_seconds,
                len(result.fit.names) if fitted else 0,
                largest_z(result, truth) if fitted else None,
                result.message,
            )
        )
    return timings


def figures(timings: list[ModelTiming]) -> list[Figure]:
    """The table rows of the model fit: time per size with its target, flatness, and the recovered truth."""
    sizes = " / ".join(f"{t.responses:,}" for t in timings)
    seconds = [t.seconds for t in timings]
    fitted = all(t.message is None for t in timings)
    parameters = timings[-1].parameters
    return [
        Figure(f"Model: responses (5 predictors, {parameters} parameters)", sizes),
        Figure("  kept pattern-count rows", " / ".join(f"{t.tally_rows:,}" for t in timings)),
        Figure(
            "  fit from the kept counts (gather.stored_model)",
            " / ".join(ms(s) for s in seconds),
            f"< {ms(TARGET_SECONDS)} at every size",
            at_most(max(seconds), TARGET_SECONDS),
        ),
        Figure("  the same, CPU time of the process", " / ".join(ms(t.cpu_seconds) for t in timings)),
        Figure(
            "  CPU ratio to the size before",
            " / ".join(f"{b.cpu_seconds / a.cpu_seconds:.2f}" for a, b in zip(timings, timings[1:])),
            f"last <= {FLAT_FACTOR:g} (flat)",
            at_most(timings[-1].cpu_seconds / timings[-2].cpu_seconds, FLAT_FACTOR) if len(timings) > 1 else None,
        ),
        Figure(
            "  largest |estimate - truth| / std err",
            " / ".join(
                "no fit: " + (t.message or "") if t.largest_z is None else f"{t.largest_z:.2f}" for t in timings
            ),
            f"<= {RECOVERY_Z:g}",
            fitted and all(t.largest_z <= RECOVERY_Z for t in timings),
        ),
    ]


def bench_survey_fit(
    database: Path, survey: Survey, outcome: str, predictor: str, runs: int = RUNS
) -> tuple[float, bool]:
    """On the grown 10-question database: seconds for the model ``outcome ~ predictor`` from its kept counts,
    and whether those counts equal a recount from the stored responses
    (:func:`storage.kept_counts.scan_pattern_tallies`)."""
    db = connection.connect(database)
    try:
        seconds, _, result = _median_fit(db, survey, ModelChoice(outcome, (predictor,), {}), runs)
        kept = sorted(
            (o, design, pattern, answer, count)
            for o in kept_outcomes(survey)
            for design, by_pattern in kept_counts.pattern_tallies(db, survey.id, o).items()
            for pattern, by_answer in by_pattern.items()
            for answer, count in by_answer.items()
        )
        matches = kept == sorted(kept_counts.scan_pattern_tallies(db, survey.id)) and result.fit is not None
    finally:
        db.close()
    return seconds, matches


def main(argv: list[str] | None = None) -> None:
    """``python -m bench.model_bench``: the model figures alone (a table), or with ``--workdir`` the timings
    as JSON for :func:`measure`."""
    parser = argparse.ArgumentParser(prog="python -m bench.model_bench")
    parser.add_argument("--sizes", default="10000,1000000,10000000", help="responses, comma-separated")
    parser.add_argument("--workdir", help="folder for the databases; print JSON timings (used by bench.run)")
    parser.add_argument("--runs", type=int, default=RUNS, help=f"warm fits timed per size (default {RUNS})")
    args = parser.parse_args(argv)
    sizes = tuple(int(size) for size in args.sizes.split(","))
    if args.workdir:
        print(json.dumps([asdict(timing) for timing in measure_here(Path(args.workdir), sizes, args.runs)]))
        return
    with tempfile.TemporaryDirectory(prefix="rr-model-bench-") as folder:
        print(table(figures(measure(Path(folder), sizes, args.runs))))


if __name__ == "__main__":
    main()
