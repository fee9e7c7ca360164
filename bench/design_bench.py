"""Design-weighted estimates (``sample_design``: clusters, strata, weights) at 10,000 and 10,000,000 responses.

    python -m bench.design_bench                      # 10,000 and 10,000,000 responses
    python -m bench.design_bench --sizes 2000,5000    # toy sizes: says the bench works, not how fast

The survey (:func:`survey_yaml`) has four randomized yes/no questions, one randomized one-choice question of four
options (k-option design ``t = 1/2``: four design-weighted option shares) and the plain ``class``: 200
classes drawn within 10 faculties, each with its design weight, and the faculties' population counts of
classes (the finite-population correction). At each size the database holds the kept counts that many
responses leave (``tallies`` and the ``group_tallies`` by ``class``): the classes' answer counts one
multinomial draw of the size, each class's stored yes count of each question one binomial draw and its stored
options one multinomial draw; the response
rows themselves are not written (the estimates never read them). Timed, medians of :data:`RUNS` warm runs:
:func:`web.gather.estimates_json` (one read snapshot of the kept counts, the unweighted results and the
design-weighted Hajek and Horvitz-Thompson shares with their linearisation variances) and the same with the
jackknife. Each must be under 100 ms at the largest size.

Simulated data only: ``numpy.random`` draws the bench's tallies, never an answer of a respondent.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.dataset import create_database
from bench.report import Figure, at_most, ms, table
from storage import connection
from surveys.definition import Survey
from surveys.design_contract import question_design_key
from surveys.files import load_survey_file
from web import gather

SIZES = (10_000, 10_000_000)
RUNS = 9
TARGET_SECONDS = 0.100
SEED = 20261127
SURVEY_ID = "bench-design"
CLASSES = [f"c{k:03d}" for k in range(200)]
FACULTIES = [f"f{k:02d}" for k in range(10)]
QUESTIONS = ("cheated", "copied", "plagiarised", "lied")
CHOICE, OPTIONS = "tool", ("notes", "phone", "friend", "none")


def survey_yaml(variance: str = "linearization") -> str:
    """The bench's survey: 200 classes in 10 faculties (20 each), weights 5 to 24.5, 60 classes per faculty."""
    strata = ", ".join(f"{f}: [{', '.join(CLASSES[20 * i : 20 * i + 20])}]" for i, f in enumerate(FACULTIES))
    weights = ", ".join(f"{c}: {5 + (k % 40) / 2}" for k, c in enumerate(CLASSES))
    fpc = ", ".join(f"{f}: 60" for f in FACULTIES)
    questions = "".join(f"  - name: {q}\n    type: yes_no\n    label: Have you {q}?\n" for q in QUESTIONS)
    questions += (
        f"  - name: {CHOICE}\n    type: select_one\n    label: Which tool?\n"
        f"    choices: [{', '.join(OPTIONS)}]\n    design: {{t: 1/2}}\n"
    )
    return (
        f"id: {SURVEY_ID}\ntitle: Design-weighted estimates (benchmark)\nversion: 1\npopulation_size: 2000000\n"
        f"sample_design:\n  clusters: class\n  strata: {{{strata}}}\n  weights: {{{weights}}}\n"
        f"  fpc: {{{fpc}}}\n  variance: {variance}\nquestions:\n{questions}"
        f"  - name: class\n    type: select_one\n    label: Your class\n    choices: [{', '.join(CLASSES)}]\n"
        "    randomize: false\n"
    )


def write_survey(folder: Path, variance: str) -> Survey:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{SURVEY_ID}.yaml"
    path.write_text(survey_yaml(variance), encoding="utf-8")
    return load_survey_file(path)


def kept_rows(survey: Survey, responses: int, rng: np.random.Generator) -> tuple[list[tuple], list[tuple]]:
    """``(tallies rows, group_tallies rows)`` as ``responses`` stored answers would leave them."""
    per_class = rng.multinomial(responses, rng.dirichlet(np.full(len(CLASSES), 20.0)))
    tallies, grouped = [], []
    for name in QUESTIONS:
        key = question_design_key(survey.question(name))
        prevalence = rng.beta(2, 5, len(CLASSES))
        yes = rng.binomial(per_class, 0.25 + 0.5 * prevalence)
        for answer, counts in (("yes", yes), ("no", per_class - yes)):
            tallies.append((SURVEY_ID, name, key, answer, int(counts.sum())))
            grouped += [
                (SURVEY_ID, "class", c, name, key, answer, int(n)) for c, n in zip(CLASSES, counts.tolist()) if n
            ]
    key = question_design_key(survey.question(CHOICE))
    shares = 0.5 * rng.dirichlet(np.full(len(OPTIONS), 2.0), len(CLASSES)) + 0.5 / len(OPTIONS)
    stored = rng.multinomial(per_class, shares)
    for j, option in enumerate(OPTIONS):
        tallies.append((SURVEY_ID, CHOICE, key, option, int(stored[:, j].sum())))
        grouped += [(SURVEY_ID, "class", c, CHOICE, key, option, int(n)) for c, n in zip(CLASSES, stored[:, j]) if n]
    return tallies, grouped


def store(database: Path, tallies: list[tuple], grouped: list[tuple]) -> None:
    """Put the rows in a fresh product database, as the write path would have."""
    create_database(database)
    db = connection.connect(database)
    try:
        with connection.immediate_transaction(db):
            db.conn.executemany("INSERT INTO tallies VALUES (?, ?, ?, ?, ?)", tallies)
            db.conn.executemany("INSERT INTO group_tallies VALUES (?, ?, ?, ?, ?, ?, ?)", grouped)
    finally:
        db.close()


@dataclass(frozen=True)
class DesignTiming:
    responses: int
    variance: str
    seconds: float


def _median(db, survey: Survey, runs: int) -> tuple[float, dict]:
    document = gather.estimates_json(db, survey, "wilson", 0.95)  # warm-up
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        gather.estimates_json(db, survey, "wilson", 0.95)
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds), document


def measure(workdir: Path, sizes: tuple[int, ...] = SIZES, runs: int = RUNS) -> list[DesignTiming]:
    """The estimates JSON with its design-weighted shares at each size, by linearisation and by the jackknife."""
    rng = np.random.default_rng(SEED)
    timings = []
    for responses in sizes:
        database = workdir / f"design-{responses}.sqlite3"
        surveys = {v: write_survey(workdir / v, v) for v in ("linearization", "jackknife")}
        store(database, *kept_rows(surveys["linearization"], responses, rng))
        db = connection.connect(database)
        try:
            for variance, survey in surveys.items():
                seconds, document = _median(db, survey, runs)
                rows = document["weighted"]["rows"]
                if any(row["weighted_std_err"] is None for row in rows):
                    raise RuntimeError(f"no design-weighted estimate: {[row['note'] for row in rows]}")
                if [row["option"] for row in rows if row["question"] == CHOICE] != list(OPTIONS):
                    raise RuntimeError(f"the option shares of {CHOICE} are not weighted: {rows}")
                if any(row["n"] != responses for row in rows):
                    raise RuntimeError(f"the weighted answers are not the {responses:,} kept: {rows}")
                timings.append(DesignTiming(responses, variance, seconds))
        finally:
            db.close()
    return timings


def figures(timings: list[DesignTiming]) -> list[Figure]:
    rows = []
    for variance in ("linearization", "jackknife"):
        mine = [t for t in timings if t.variance == variance]
        rows.append(
            Figure(
                f"Design-weighted estimates ({variance}): " + " / ".join(f"{t.responses:,}" for t in mine),
                " / ".join(ms(t.seconds) for t in mine),
                f"< {ms(TARGET_SECONDS)}",
                at_most(mine[-1].seconds, TARGET_SECONDS),
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--runs", type=int, default=RUNS)
    args = parser.parse_args()
    sizes = tuple(int(size) for size in args.sizes.split(","))
    with tempfile.TemporaryDirectory() as folder:
        print(table(figures(measure(Path(folder), sizes, args.runs))))


if __name__ == "__main__":
    main()
