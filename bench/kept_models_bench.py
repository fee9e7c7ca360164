"""Issue 29's new models at 10,000,000 responses, from kept counts: the weighted model, the predictor model, the
correlation and the fit checks.

Each is computed from kept counts only (pattern tallies, group tallies, pair tallies, the results' tallies), so its
cost follows the number of kept rows, not of responses. At each size the bench makes the kept counts that many
responses would leave, in memory, and times the domain call the results page, the exports and the CLI make on them
(median of :data:`RUNS` warm runs, wall and CPU):

* the **weighted model** (:func:`surveys.weighted_model.fit_weighted_model`): ``cheated`` on the five plain
  questions of :mod:`bench.model_bench`'s survey (38 parameters, 9,747 patterns), raked to two margins
  (``campus``, ``programme``) given as ``population_counts``: pseudo-maximum likelihood and the sandwich;
* the **predictor model** (:func:`surveys.predictor_model.fit_predictor_model`): ``cheated`` (randomized)
  predicting ``programme`` (18 levels: a multinomial model of 17 equations) from the group tallies by programme;
* the **correlation** (:func:`surveys.correlation.pair_correlation`) of ``cheated`` and ``lied`` from their kept
  pair counts;
* the **fit checks** (:func:`surveys.design_fit.design_fit`): the model's Pearson and deviance over its 9,747
  cells and the careless-answering correction from the anchor ``lied`` (``known_prevalence``), given the page's
  results and model (the model's own fit is :mod:`bench.model_bench`'s figure).

The kept counts are one multinomial draw of the responses over the patterns (each plain question answered
independently, a few unanswered) and binomial draws of the stored answers through the designs (as
:func:`bench.model_bench.simulated_tallies`); ``numpy.random``, simulated data only. Nothing is read from a
database: the reads of kept counts are timed by :mod:`bench.model_bench` and :mod:`bench.results_bench`.
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
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from scipy import special

from bench.model_bench import MODEL_SURVEY_YAML, PREDICTORS, SEED, make_truth, simulated_tallies
from bench.report import Figure, at_most, ms, table
from surveys.correlation import pair_correlation
from surveys.design_contract import question_design_key
from surveys.design_fit import design_fit
from surveys.files import load_survey_file
from surveys.models import ModelChoice, fit_model
from surveys.predictor_model import PredictorChoice, fit_predictor_model
from surveys.results import compute_results
from surveys.weighted_model import fit_weighted_model

ROOT = Path(__file__).resolve().parent.parent
RUNS = 9
TARGET_SECONDS = 0.100
SIZES = (10_000, 10_000_000)
QUICK_SIZES = (10_000, 100_000)  # the 38-parameter models need answers in most levels
#: The true share of ``lied`` (the anchor's known prevalence) and the share answering ``no`` to everything.
LIED_SHARE = 0.25
CARELESS = 0.05

_LIED = """\
  - name: lied
    type: yes_no
    label: Is your birthday in the first quarter of the year?
    design: {t: 2/3, a: 1/6, b: 1/6}
    known_prevalence: 1/4
"""


def survey_yaml() -> str:
    """:data:`bench.model_bench.MODEL_SURVEY_YAML` with the anchor ``lied`` and two margins to rake to."""
    programmes = ", ".join(f"programme_{k:02d}: {1000 + 150 * k}" for k in range(1, 19))
    total = sum(1000 + 150 * k for k in range(1, 19))
    margins = (
        f"population_counts:\n  - {{by: campus, counts: {{'no': {total * 3 // 5}, 'yes': {total - total * 3 // 5}}}}}\n"
        f"  - {{by: programme, counts: {{{programmes}}}}}\nquestions:\n"
    )
    text = MODEL_SURVEY_YAML.replace("bench-model", "bench-kept-models").replace("questions:\n", margins, 1)
    return text.replace("  - name: campus\n", _LIED + "  - name: campus\n", 1)


@dataclass(frozen=True)
class Kept:
    """The kept counts of ``responses`` responses: the model's pattern counts, the results' tallies, the group
    tallies by programme and the pair counts of (cheated, lied)."""

    patterns: dict
    tallies: dict
    grouped: dict
    pairs: dict


def kept_counts(survey, responses: int, rng: np.random.Generator) -> Kept:
    """The kept counts ``responses`` responses would leave (module docstring)."""
    rows = simulated_tallies(survey, make_truth(survey, rng), responses, rng)
    patterns: dict = {}
    for _, key, pattern, answer, count in rows:
        patterns.setdefault(key, {}).setdefault(pattern, {})[answer] = count
    cheated, lied = survey.question("cheated"), survey.question("lied")
    key_c, key_l = question_design_key(cheated), question_design_key(lied)
    yes_c = sum(by.get("yes", 0) for by in patterns[key_c].values())
    # lied: the truth at LIED_SHARE, a careless share answering "no" (then randomized), independent of cheated.
    t, a = float(lied.design.t), float(lied.design.a)
    p_lied = (1 - CARELESS) * (a + t * LIED_SHARE) + CARELESS * a
    pair = {}
    for first, count in (("yes", yes_c), ("no", responses - yes_c)):
        lied_yes = int(rng.binomial(count, p_lied))
        pair[(first, "yes")], pair[(first, "no")] = lied_yes, count - lied_yes
    tallies = {
        "cheated": {key_c: {"yes": yes_c, "no": responses - yes_c}},
        "lied": {
            key_l: {"yes": pair[("yes", "yes")] + pair[("no", "yes")], "no": pair[("yes", "no")] + pair[("no", "no")]}
        },
    }
    programmes = survey.question("programme").choice_names
    shares = rng.dirichlet(np.full(len(programmes), 8.0))
    by_programme = rng.multinomial(responses, shares)
    effects = rng.uniform(-0.5, 0.5, len(programmes))
    grouped = {}
    for level, count, effect in zip(programmes, by_programme.tolist(), effects):
        p_yes = float(cheated.design.a + cheated.design.t * special.expit(special.logit(0.2) + effect))
        yes = int(rng.binomial(count, p_yes))
        grouped[level] = {"cheated": {key_c: {"yes": yes, "no": count - yes}}}
    return Kept(patterns, tallies, grouped, {(key_c, key_l): pair})


@dataclass(frozen=True)
class Timing:
    """One computation at one number of responses: median wall and CPU seconds, and whether it gave figures."""

    name: str
    responses: int
    seconds: float
    cpu_seconds: float
    fitted: bool


def _median(call: Callable[[], object], runs: int) -> tuple[float, float, object]:
    result = call()  # warm-up
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        call()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), result


def _calls(survey, kept: Kept, choice: ModelChoice, responses: int) -> dict:
    """``{row name: (the timed call, whether its result has figures)}`` on one size's kept counts."""
    results = compute_results(survey, kept.tallies, responses)
    model = fit_model(survey, choice, kept.patterns)
    cheated, lied = survey.question("cheated"), survey.question("lied")
    return {
        "weighted model (raked, 38 parameters)": (
            lambda: fit_weighted_model(survey, choice, kept.patterns),
            lambda r: r is not None and r.fit is not None,
        ),
        "predictor model (18 outcome levels)": (
            lambda: fit_predictor_model(survey, PredictorChoice("cheated", "programme"), kept.grouped),
            lambda r: r.fit is not None,
        ),
        "correlation (cheated, lied)": (
            lambda: pair_correlation(cheated, lied, kept.pairs, 0.95),
            lambda r: r.correlation is not None,
        ),
        "fit checks (design_fit: model cells, careless)": (
            lambda: design_fit(survey, results, model, kept.patterns),
            lambda r: r.model is not None and r.model.fit is not None and r.careless is not None,
        ),
    }


def measure_here(folder: Path, sizes: tuple[int, ...], runs: int = RUNS) -> list[Timing]:
    """Every computation at every size, in this process."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "bench-kept-models.yaml"
    path.write_text(survey_yaml(), encoding="utf-8")
    survey = load_survey_file(path)
    rng = np.random.default_rng(SEED)
    choice = ModelChoice("cheated", PREDICTORS, {})
    timings = []
    for responses in sizes:
        kept = kept_counts(survey, responses, rng)
        calls = _calls(survey, kept, choice, responses)
        for name, (call, fitted) in calls.items():
            seconds, cpu, result = _median(call, runs)
            timings.append(Timing(name, responses, seconds, cpu, bool(fitted(result))))
    return timings


def measure(workdir: Path, sizes: tuple[int, ...], runs: int = RUNS) -> list[Timing]:
    """:func:`measure_here` in a fresh process with the app's BLAS setting (one thread), as :mod:`bench.model_bench`."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    command = [sys.executable, "-m", "bench.kept_models_bench", "--workdir", str(workdir)]
    command += ["--sizes", ",".join(map(str, sizes)), "--runs", str(runs)]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the kept-models bench failed:\n{done.stderr}")
    return [Timing(**row) for row in json.loads(done.stdout)]


def figures(timings: list[Timing]) -> list[Figure]:
    """One row per computation: its time at each size, PASS when under the target at every size with figures."""
    sizes = sorted({t.responses for t in timings})
    rows = [Figure("Kept-count models: responses", " / ".join(f"{n:,}" for n in sizes))]
    for name in dict.fromkeys(t.name for t in timings):
        mine = [t for t in timings if t.name == name]
        rows.append(
            Figure(
                f"  {name}",
                " / ".join(ms(t.seconds) for t in mine) + f" (CPU {' / '.join(ms(t.cpu_seconds) for t in mine)})",
                f"< {ms(TARGET_SECONDS)}, figures",
                at_most(max(t.seconds for t in mine), TARGET_SECONDS) and all(t.fitted for t in mine),
            )
        )
    return rows


def main(argv: list[str] | None = None) -> None:
    """``python -m bench.kept_models_bench``: the table, or with ``--workdir`` the timings as JSON (:func:`measure`)."""
    parser = argparse.ArgumentParser(prog="python -m bench.kept_models_bench")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="responses, comma-separated")
    parser.add_argument("--workdir", help="folder for the survey file; print JSON timings (used by bench.run)")
    parser.add_argument("--runs", type=int, default=RUNS, help=f"warm runs timed per size (default {RUNS})")
    args = parser.parse_args(argv)
    sizes = tuple(int(size) for size in args.sizes.split(","))
    if args.workdir:
        print(json.dumps([asdict(t) for t in measure_here(Path(args.workdir), sizes, args.runs)]))
        return
    with tempfile.TemporaryDirectory(prefix="rr-kept-models-bench-") as folder:
        print(table(figures(measure(Path(folder), sizes, args.runs))))


if __name__ == "__main__":
    main()
