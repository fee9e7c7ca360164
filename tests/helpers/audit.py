"""The empirical privacy audit shared by the server and browser randomizer tests.

For every pair of true answers (x, x') and every report r, the likelihood
ratio P[r | x] / P[r | x'] is bounded from below by (one-sided
Clopper-Pearson lower bound of P[r | x]) / (one-sided upper bound of
P[r | x']). If that lower bound exceeds e^epsilon, the randomizer leaks more
than its design allows. Each observed rate's two-sided interval must also
contain the design's value.

Family confidence 99.9% by Bonferroni: with m bounds in all, each is taken
at level 1 - 0.001 / m, so a correct randomizer fails with probability at
most 0.1% over the samples. The server's randomizers draw from a seeded
stream in these tests (tests/helpers/bulk_secrets.py), so their verdicts are
the same on every run. The browser's draw from ``crypto.getRandomValues``,
which no test can seed without replacing what it tests: a new sample each run.
Those audits (17 in the suite, the arms' shares included) are held to
:data:`LIVE_FAMILY_ALPHA` = 10^-5 each, so together they fail a correct
randomizer at most once in about 6,000 runs, where at 10^-3 each it was once
in 60 (and with the server's, unseeded then, CI failed so once).
"""

from __future__ import annotations

import math
from itertools import permutations

from scipy.stats import beta

from surveys import protocol

N_DRAWS = 100_000


#: The family level of an audit whose sample is the same on every run (a seeded source).
FAMILY_ALPHA = 0.001
#: The family level of an audit whose sample is new on every run (the browser's ``crypto.getRandomValues``).
LIVE_FAMILY_ALPHA = 1e-5


def clopper_pearson_lower(successes: int, n: int, alpha: float) -> float:
    """One-sided exact lower bound at level 1 - alpha (Clopper and Pearson 1934)."""
    return 0.0 if successes == 0 else float(beta.ppf(alpha, successes, n - successes + 1))


def clopper_pearson_upper(successes: int, n: int, alpha: float) -> float:
    """One-sided exact upper bound at level 1 - alpha."""
    return 1.0 if successes == n else float(beta.ppf(1 - alpha, successes + 1, n - successes))


def audit(counts: dict, n: int, epsilon: float, expected: dict, family_alpha: float = FAMILY_ALPHA) -> list[str]:
    """Return the audit's failures at family level ``family_alpha``; ``counts[x][r]`` = times report r was
    seen for truth x.

    ``expected[x][r]`` is the design's P[r | x].
    """
    truths = list(counts)
    reports = sorted({r for x in truths for r in expected[x]})
    ratio_bounds = len(list(permutations(truths, 2))) * len(reports) * 2
    rate_checks = len(truths) * len(reports) * 2
    per_bound = family_alpha / (ratio_bounds + rate_checks)
    failures = []
    for x, other in permutations(truths, 2):
        for r in reports:
            lower = clopper_pearson_lower(counts[x][r], n, per_bound)
            upper = clopper_pearson_upper(counts[other][r], n, per_bound)
            if upper == 0 or lower / upper > math.exp(epsilon):
                failures.append(f"P[{r}|{x}]/P[{r}|{other}] >= {lower / upper:.4f} > e^eps")
    for x in truths:
        for r in reports:
            lower = clopper_pearson_lower(counts[x][r], n, per_bound)
            upper = clopper_pearson_upper(counts[x][r], n, per_bound)
            if not lower <= expected[x][r] <= upper:
                failures.append(f"P[{r}|{x}] in [{lower:.4f}, {upper:.4f}] misses {expected[x][r]}")
    return failures


def yes_no_expected(design):
    """The design's P[r | x] for a true yes or no, from its own two yes-probabilities."""
    theta1, theta0 = (float(p) for p in design.yes_probabilities())
    return {
        protocol.YES: {protocol.YES: theta1, protocol.NO: 1 - theta1},
        protocol.NO: {protocol.YES: theta0, protocol.NO: 1 - theta0},
    }


def multiple_choice_expected(design, choices):
    """The design's P[r | x] for every true option x and report r, from its own t and k."""
    t, q = float(design.t), float(design.uniform_share)
    return {x: {r: (t if r == x else 0) + q for r in choices} for x in choices}
