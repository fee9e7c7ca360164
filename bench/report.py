"""Figures, their targets, and the table :mod:`bench.run` prints."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    """One measured figure.

    ``passed`` is None for figures reported without a target (context, such
    as the ceiling's own rate or the SQL floor).
    """

    name: str
    value: str
    target: str = ""
    passed: bool | None = None

    @property
    def verdict(self) -> str:
        return {True: "PASS", False: "FAIL", None: ""}[self.passed]


def at_least(value: float, target: float) -> bool:
    return value >= target


def at_most(value: float, target: float) -> bool:
    return value <= target


def median_seconds(function: Callable[[], object], runs: int, warmup: int = 1) -> float:
    """Median wall time of ``function()`` over ``runs`` calls after ``warmup`` calls."""
    for _ in range(warmup):
        function()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def timed_figure(name: str, values: list[float], target: float | None = None, at_rows: int = 0) -> Figure:
    """Seconds measured at each size, judged against ``target`` at the largest (``at_rows`` responses) when one
    is given."""
    if target is None:
        return Figure(name, " / ".join(ms(v) for v in values))
    return Figure(
        name, " / ".join(ms(v) for v in values), f"< {ms(target)} at {at_rows:,}", at_most(values[-1], target)
    )


def flat_figure(values: list[float], factor: float) -> Figure:
    """The largest size's figure over the smallest's, judged flat when at most ``factor``."""
    ratio = values[-1] / values[0]
    return Figure("    largest / smallest", f"{ratio:.2f}", f"<= {factor:g} (flat)", at_most(ratio, factor))


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 10 else f"{seconds:.1f} s"


def table(figures: list[Figure], header: tuple[str, ...] = ("figure", "measured", "target", "")) -> str:
    """The figures as a plain-text table (also valid Markdown).

    Target and verdict columns are left out when no figure has one.
    """
    rows = [(f.name, f.value, f.target, f.verdict) for f in figures]
    shown = [i for i in range(4) if i < 2 or any(row[i] for row in rows)]
    rows = [tuple(row[i] for i in shown) for row in [header, *rows]]
    widths = [max(len(row[i]) for row in rows) for i in range(len(shown))]

    def line(cells) -> str:
        return "| " + " | ".join(cell.ljust(width) for cell, width in zip(cells, widths)) + " |"

    separator = "|" + "|".join("-" * (width + 2) for width in widths) + "|"
    return "\n".join([line(rows[0]), separator, *(line(row) for row in rows[1:])])
