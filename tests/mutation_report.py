"""Score of a mutmut run per module, checked against the known equivalent mutants.

Run by ``make mutation`` after ``mutmut run``: reads the results mutmut keeps
in ``mutants/<module path>.meta``, prints ``killed / tried`` per module, and
compares the mutants that were not killed with ``tests/equivalent_mutants.txt``
(one mutant name a line, then `` # `` and why it cannot change behaviour).

Exits 1 if a mutant that is not on the list survived (a test is missing), if a
mutant was not run, or if a listed mutant no longer exists or is now killed (the
list is stale). Given mutmut's patterns (``make mutation MUTATE='analysis.central*'``),
it scores and checks the mutants they match only, so a run can take one module
at a time.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from fnmatch import fnmatch
from pathlib import Path

MUTANTS = Path("mutants")
EQUIVALENT = Path(__file__).with_name("equivalent_mutants.txt")

#: mutmut's exit codes that mean a test caught the mutant (1: a test failed,
#: 3: pytest's internal error) or that it ran past its time limit.
KILLED = {1, 3}
TIMEOUT = {24, -24, 152, 255, 36}


def load_results(root: Path = MUTANTS) -> dict[str, dict[str, int | None]]:
    """``{module path: {mutant name: exit code}}`` from mutmut's ``.meta`` files."""
    results = {}
    for meta in sorted(root.rglob("*.py.meta")):
        codes = json.loads(meta.read_text("utf-8"))["exit_code_by_key"]
        if codes:
            results[str(meta.relative_to(root))[: -len(".meta")]] = codes
    return results


def load_equivalent(path: Path = EQUIVALENT) -> dict[str, str]:
    """``{mutant name: reason}``; every line needs a reason after ``#``."""
    equivalent = {}
    for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, sep, reason = line.partition("#")
        if not sep or not reason.strip():
            raise ValueError(f"{path}:{number}: give a reason after '#': {line!r}")
        equivalent[name.strip()] = reason.strip()
    return equivalent


def chosen(results: dict[str, dict[str, int | None]], patterns: list[str]) -> dict[str, dict[str, int | None]]:
    """The mutants of ``results`` whose names match one of ``patterns`` (mutmut's own ``fnmatch`` patterns, as
    given to ``mutmut run``; none: every mutant), modules left with none dropped."""
    if not patterns:
        return results
    kept = {
        module: {name: code for name, code in codes.items() if any(fnmatch(name, p) for p in patterns)}
        for module, codes in results.items()
    }
    return {module: codes for module, codes in kept.items() if codes}


def report(
    results: dict[str, dict[str, int | None]], equivalent: dict[str, str], patterns: list[str] | None = None
) -> tuple[list[str], list[str]]:
    """Return the lines to print and the problems that fail the run. ``patterns``: the run covered only the
    mutants they match (``make mutation MUTATE=...``): the others are neither scored nor checked, and a
    listed mutant outside them is not called stale. A mutant the run did not reach (no exit code) fails. A
    listed mutant that ran past its time limit is no sign that the list is stale (a mutant that survives can
    time out on a busy or paused machine): only one a test caught is."""
    patterns = patterns or []
    results = chosen(results, patterns)
    lines = [f"{'module':<28} {'killed / tried':>16} {'score':>7}   equivalent  not killed"]
    problems = []
    seen = set()
    totals = Counter()
    for module, codes in results.items():
        problems += [f"not run (mutmut stopped before it): {name}" for name, code in codes.items() if code is None]
        codes = {name: code for name, code in codes.items() if code is not None}
        if not codes:
            continue
        seen.update(codes)
        killed = sum(code in KILLED or code in TIMEOUT for code in codes.values())
        tried = len(codes)
        alive = sorted(name for name, code in codes.items() if code not in KILLED and code not in TIMEOUT)
        known = [name for name in alive if name in equivalent]
        totals.update(killed=killed, tried=tried, equivalent=len(known))
        score = f"{killed:>7} / {tried:<6} {100 * killed / tried:6.1f}%"
        lines.append(f"{module:<28} {score}   {len(known):>10}  {len(alive) - len(known):>10}")
        problems += [f"new survivor (exit code {codes[name]}): {name}" for name in alive if name not in equivalent]
        problems += [
            f"listed as equivalent but killed, remove it: {name}"
            for name, code in codes.items()
            if name in equivalent and code in KILLED
        ]
    lines.append(
        f"{'all':<28} {totals['killed']:>7} / {totals['tried']:<6} "
        f"{100 * totals['killed'] / max(totals['tried'], 1):6.1f}%   {totals['equivalent']:>10}"
    )
    problems += [
        f"listed as equivalent but no such mutant: {name}"
        for name in sorted(set(equivalent) - seen)
        if not patterns or any(fnmatch(name, p) for p in patterns)
    ]
    return lines, problems


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.mutation_report [PATTERN ...]``: the patterns the run was given (none: every mutant)."""
    patterns = sys.argv[1:] if argv is None else argv
    results = chosen(load_results(), patterns)
    if not results:
        print("No mutmut results in mutants/ for these mutants; run `mutmut run` first.", file=sys.stderr)
        return 1
    lines, problems = report(results, load_equivalent(), patterns)
    print("\n".join(lines))
    if problems:
        print("\nMutation check failed (see `mutmut show NAME`):", *problems, sep="\n  ", file=sys.stderr)
        return 1
    print("\nEvery mutant that survived is listed in tests/equivalent_mutants.txt with its reason.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
