"""Figure 1: submissions per second through gunicorn, against the framework's ceiling.

Two servers run side by side, each with its own temporary database: the
product app (``app:create_app()``) and the same app plus the bench-only
``POST /bench/ceiling`` (:mod:`bench.ceiling_app`). Rounds alternate
between them (ceiling first in even rounds, submissions first in odd ones)
so that a noisy neighbour and any drift hurt both alike. A third side, the
floor (``POST /bench/floor/<survey>`` on the ceiling's server), does the
least any submission must do (CSRF, the fields, the answer with its key and
kept counts in one transaction): its ratio to the ceiling bounds what the
submissions' ratio can reach. Reported:

* rates: the median over rounds; the ratio: the median of the per-round
  ratios (each round's two measurements are seconds apart);
* latencies: percentiles over every measured request of every round;
* server CPU per request (master + workers, from ``/proc``): much less
  sensitive than rates to other load on a shared machine, and on a
  CPU-bound box the ratio the rates would have on a quiet one.
"""

from __future__ import annotations

import sqlite3
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from bench import server
from bench.load import LoadResult, LoadSpec, run_load
from bench.report import Figure, at_least
from bench.survey import SURVEY_ID, write_survey
from web.forms import wire_values

#: Submissions / bare-insert ceiling (issue 15: 0.75 on both backends; it was 0.6 before connections were kept).
RATIO_TARGET = 0.75


@dataclass(frozen=True)
class HttpOptions:
    workers: int | None = None  # None: gunicorn.conf.py's default (2 x cores + 1)
    processes: int = 4
    threads: int = 4
    warmup_seconds: float = 2.0
    measure_seconds: float = 10.0
    rounds: int = 3

    @property
    def connections(self) -> int:
        return self.processes * self.threads


@dataclass
class Side:
    """Every round of one endpoint, with the server CPU each round used."""

    rounds: list[LoadResult] = field(default_factory=list)
    server_cpu_seconds: float = 0.0

    def rates(self) -> list[float]:
        return [r.rate for r in self.rounds]

    def merged(self) -> LoadResult:
        result = LoadResult(sum(r.measure_seconds for r in self.rounds))
        for part in self.rounds:
            result.merge(part)
        return result

    def cpu_ms_per_request(self) -> float:
        return 1000 * self.server_cpu_seconds / max(1, sum(r.sent for r in self.rounds))

    def client_cpu_share(self) -> float:
        """Client CPU during the windows, in cores."""
        return sum(r.client_cpu_seconds for r in self.rounds) / sum(r.measure_seconds for r in self.rounds)


def _load(target: server.Server, spec: LoadSpec, side: Side) -> None:
    before = target.cpu_seconds()
    side.rounds.append(run_load(spec))
    side.server_cpu_seconds += target.cpu_seconds() - before


def _stored_rows(database: Path, table: str) -> int:
    with sqlite3.connect(database) as conn:
        return conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]  # table: a constant of this module


def measure(workdir: Path, options: HttpOptions) -> tuple[list[Figure], dict]:
    """Run the rounds; return the figures and raw numbers."""
    surveys_dir = workdir / "http-surveys"
    survey = write_survey(surveys_dir)
    questions = {q.name: wire_values(q) for q in survey.questions}  # fixed-width values, as the form posts
    product_db, ceiling_db = workdir / "http-product.sqlite3", workdir / "http-ceiling.sqlite3"
    product_env = server.server_environment(product_db, surveys_dir, options.workers)
    ceiling_env = server.server_environment(ceiling_db, surveys_dir, options.workers)
    submissions, ceilings, floors = Side(), Side(), Side()
    with (
        server.start("app:create_app()", product_env, workdir / "gunicorn-product.log") as product,
        server.start(
            "bench.ceiling_app:create_ceiling_app()", ceiling_env, workdir / "gunicorn-ceiling.log"
        ) as ceiling,
    ):

        def spec(port: int, post_path: str) -> LoadSpec:
            return LoadSpec(
                port=port,
                form_path=f"/s/{SURVEY_ID}",
                post_path=post_path,
                questions=questions,
                processes=options.processes,
                threads=options.threads,
                warmup_seconds=options.warmup_seconds,
                measure_seconds=options.measure_seconds,
            )

        runs = [
            (ceiling, spec(ceiling.port, "/bench/ceiling"), ceilings),
            (ceiling, spec(ceiling.port, f"/bench/floor/{SURVEY_ID}"), floors),
            (product, spec(product.port, f"/s/{SURVEY_ID}"), submissions),
        ]
        for number in range(options.rounds):
            for target, load_spec, side in runs if number % 2 == 0 else runs[::-1]:
                _load(target, load_spec, side)
    raw = {
        "submissions": submissions,
        "ceilings": ceilings,
        "floors": floors,
        "stored_responses": _stored_rows(product_db, "responses"),
        "submission_ok_total": sum(r.ok for r in submissions.rounds),
    }
    return _figures(submissions, ceilings, floors, options), raw


def _rates(side: Side) -> str:
    rates = side.rates()
    errors = side.merged().errors
    spread = f" (rounds {', '.join(f'{r:.0f}' for r in rates)})" if len(rates) > 1 else ""
    return f"{statistics.median(rates):.0f}/s{spread}" + (f", {errors} errors" if errors else "")


def latencies(side: Side) -> str:
    merged = side.merged()
    return f"{merged.percentile(50) * 1000:.1f} / {merged.percentile(99) * 1000:.1f} ms"


def _median_ratio(numerator: Side, denominator: Side) -> tuple[float, str]:
    """The median of the per-round rate ratios, and the rounds' ratios as text."""
    ratios = [n / d if d else 0.0 for n, d in zip(numerator.rates(), denominator.rates())]
    spread = f" (rounds {', '.join(f'{r:.2f}' for r in ratios)})" if len(ratios) > 1 else ""
    return statistics.median(ratios), spread


def floor_figure(floor: Side, ceiling: Side) -> Figure:
    """Floor / ceiling: the most the submissions' ratio could be, given what every submission must do."""
    ratio, spread = _median_ratio(floor, ceiling)
    errors = floor.merged().errors
    return Figure(
        "  floor / ceiling: the least a submission does (CSRF, fields, answer + key + kept counts)",
        f"{ratio:.2f}{spread}" + (f", {errors} errors" if errors else ""),
    )


def ratio_figure(submit: Side, ceiling: Side) -> Figure:
    """Submissions / ceiling: the median of the per-round rate ratios, against :data:`RATIO_TARGET`
    (missed too when any request of either side failed)."""
    ratio, spread = _median_ratio(submit, ceiling)
    errors = submit.merged().errors + ceiling.merged().errors
    return Figure(
        "  submissions / ceiling (median of rounds)",
        f"{ratio:.2f}{spread}",
        f">= {RATIO_TARGET}",
        at_least(ratio, RATIO_TARGET) and errors == 0,
    )


def _figures(sub: Side, top: Side, floor: Side, options: HttpOptions) -> list[Figure]:
    cpu_ratio = top.cpu_ms_per_request() / sub.cpu_ms_per_request()
    return [
        Figure(f"HTTP submissions/s (gunicorn, {options.connections} connections)", _rates(sub)),
        Figure("  submission latency p50 / p99", latencies(sub)),
        Figure("  ceiling: bare-insert POST/s, same app and server", _rates(top)),
        Figure("  ceiling latency p50 / p99", latencies(top)),
        ratio_figure(sub, top),
        floor_figure(floor, top),
        Figure(
            "  server CPU per request: submission / floor / ceiling",
            f"{sub.cpu_ms_per_request():.2f} / {floor.cpu_ms_per_request():.2f} / {top.cpu_ms_per_request():.2f} ms"
            f" (submission / ceiling {cpu_ratio:.2f})",
        ),
        Figure(
            "  load generator CPU (cores, submission / ceiling)",
            f"{sub.client_cpu_share():.2f} / {top.client_cpu_share():.2f}",
        ),
    ]
