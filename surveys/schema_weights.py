"""The ``population_counts`` of a survey file: known population counts of plain questions' answers.

One margin post-stratifies the randomized shares, two or more rake them (:mod:`surveys.weights`)::

    population_counts:
      - by: faculty                 # a plain one-choice question (or a plain number, by its bin keys)
        counts: {arts: 1200, science: 800}
      - by: year
        counts: {first: 700, second: 600, third: 700}

Every group of ``by`` must be given a count (a whole number of 1 or more), each ``by`` once, and every
margin must add up to the same population.
"""

from __future__ import annotations

from collections.abc import Mapping

from surveys.definition import PopulationMargin
from surveys.kinds import kind_of
from surveys.schema_checks import INVALID, check_keys, describe

POPULATION_KEYS = ("by", "counts")
_EXAMPLE = "[{by: faculty, counts: {arts: 1200, science: 800}}]"


def parse_population_counts(report, value, questions):
    """The tuple of :class:`~surveys.definition.PopulationMargin`; ``()`` when the key is absent."""
    if value is None:
        return ()
    if isinstance(value, Mapping):
        value = [value]
    if not isinstance(value, list) or not value:
        return report.add(
            None, "population_counts", f"must be a list of margins such as {_EXAMPLE}, got {describe(value)}"
        )
    known = {q.name: q for q in questions} if isinstance(questions, tuple) else None
    margins, seen = [], set()
    for position, entry in enumerate(value, start=1):
        margin = _margin(report, f"population_counts[{position}]", entry, known)
        if margin is INVALID:
            continue
        if margin.by in seen:
            report.add(None, f"population_counts[{position}]", f"gives {margin.by} a second time; keep one")
            continue
        seen.add(margin.by)
        margins.append(margin)
    totals = {sum(count for _, count in margin.counts) for margin in margins}
    if len(totals) > 1:
        listed = ", ".join(f"{m.by}: {sum(c for _, c in m.counts):,}" for m in margins)
        return report.add(None, "population_counts", f"every margin must add up to the same population, got {listed}")
    return tuple(margins) if len(margins) == len(value) else INVALID


def _margin(report, where: str, entry, known):
    if not isinstance(entry, Mapping):
        return report.add(None, where, f"must be a mapping such as {_EXAMPLE[1:-1]}, got {describe(entry)}")
    before = len(report.problems)
    check_keys(report, None, f"{where}.", entry, POPULATION_KEYS)
    by, counts = entry.get("by"), entry.get("counts")
    groups = None
    if not isinstance(by, str):
        report.add(None, f"{where}.by", f"must name a plain question, got {describe(by)}")
    elif known is not None:
        question = known.get(by)
        groups = kind_of(question).groups(question) if question is not None else ()
        if not groups:
            report.add(
                None, f"{where}.by", f"must name a plain (not randomized) one-choice question or number, got {by!r}"
            )
            groups = None
    if not isinstance(counts, Mapping) or not counts:
        report.add(None, f"{where}.counts", f"must map each answer to its population count, got {describe(counts)}")
        return INVALID
    for group, count in counts.items():
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            report.add(None, f"{where}.counts.{group}", f"must be a whole number of 1 or more, got {describe(count)}")
    if groups is not None:
        names = [name for name, _ in groups]
        unknown = [str(g) for g in counts if str(g) not in names]
        missing = [name for name in names if name not in {str(g) for g in counts}]
        if unknown:
            report.add(
                None,
                f"{where}.counts",
                f"{', '.join(unknown)} is not an answer to {by}; the answers are {', '.join(names)}",
            )
        if missing:
            report.add(None, f"{where}.counts", f"give a count for every answer to {by}: {', '.join(missing)} missing")
        if len(report.problems) == before:
            written = {str(group): count for group, count in counts.items()}
            return PopulationMargin(by=by, counts=tuple((name, written[name]) for name in names))
    return INVALID
