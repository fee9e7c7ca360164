"""surveys/central_noise.py: each sampler against its exact distribution, and a privacy audit.

Chi-square goodness of fit (scipy.stats.chisquare) against :mod:`analysis.central`'s exact probabilities, at
the level ALPHA fixed before any run, with the seeded sampler (the same algorithms over ``random.Random``
bits: reproducible) and one smaller run of SECURE (``secrets``: a new sample each run, so it is held to
ALPHA_SECURE = 1e-5, each of its three checks failing by chance once in 100,000 runs; it runs the same code over
another bit source, so the seeded tests carry the power and this one checks the wiring to ``secrets``).
Cells are whole integers with expected count >= 5, the tails pooled
into the two end cells. That the test can fail: the same draws against the pmf of a slightly wrong parameter
are rejected (::test_the_chi_square_rejects_a_wrong_parameter).

The audit: for neighbouring data sets (a count ``c`` and ``c + rows_per_person``; utilities that differ by at most
the sensitivity), a lower 99.9% confidence bound on ``P(E | D) / P(E | D')`` for fixed events ``E`` (each
probability bounded by Clopper-Pearson at 99.95% one-sided, so the pair holds at 99.9%) must not exceed
``e^epsilon`` (the level is per event; the events, at most nine, are fixed before the run and the seeds are
fixed). The same audit flags noise scaled to one row where a person adds three, and an exponential choice at
twice the epsilon (::test_the_audit_flags_noise_that_ignores_rows_per_person,
::test_the_audit_flags_an_exponential_choice_at_twice_epsilon).
"""

from __future__ import annotations

import ast
import math
import secrets
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from scipy.stats import beta, chisquare

from analysis.central import (
    count_scale,
    discrete_gaussian_pmf,
    discrete_laplace_pmf,
    exponential_probabilities,
)
from surveys.central_noise import SECURE
from tests.helpers.seeded import seeded_sampler

ROOT = Path(__file__).resolve().parent.parent

#: The chi-square tests' level, fixed before the runs.
ALPHA = 1e-3
#: The level of SECURE's unseeded run.
ALPHA_SECURE = 1e-5
#: Draws per seeded chi-square test; SECURE's runs are smaller (it is about three times slower).
N = 8_000
N_SECURE = 3_000
#: The audit: draws per neighbouring data set, and each Clopper-Pearson bound's one-sided level.
N_AUDIT = 8_000
CP_ALPHA = 0.0005


def _cells(pmf, n):
    """Symmetric integer cells ``-K..K`` with ``K`` the largest with ``n pmf(K) >= 5``; each end cell takes its tail
    (its probability is what the cells in between leave, halved)."""
    k = 0
    while n * pmf(k + 1) >= 5:
        k += 1
    middle = {j: pmf(j) for j in range(-k + 1, k)}
    tail = (1 - math.fsum(middle.values())) / 2
    return k, {-k: tail, **middle, k: tail}


def _chi_square(draws, pmf):
    """The p-value of the draws against ``pmf`` (symmetric around 0), over :func:`_cells`."""
    k, probabilities = _cells(pmf, len(draws))
    seen = Counter(max(-k, min(k, d)) for d in draws)
    cells = sorted(probabilities)
    observed = [seen[c] for c in cells]
    expected = [len(draws) * probabilities[c] for c in cells]
    return chisquare(observed, expected).pvalue


LAPLACE_SCALES = [Fraction(1), Fraction(7, 3), Fraction(20)]
GAUSSIAN_SIGMA2 = [Fraction(1, 2), Fraction(7, 3), Fraction(10), Fraction(100, 3)]


@pytest.mark.parametrize("scale", LAPLACE_SCALES, ids=str)
def test_discrete_laplace_draws_fit_the_exact_pmf(scale):
    sampler = seeded_sampler(int(scale * 1000))
    draws = [sampler.discrete_laplace(scale) for _ in range(N)]
    assert _chi_square(draws, lambda k: discrete_laplace_pmf(k, scale)) > ALPHA


@pytest.mark.parametrize("sigma2", GAUSSIAN_SIGMA2, ids=str)
def test_discrete_gaussian_draws_fit_the_exact_pmf(sigma2):
    sampler = seeded_sampler(int(sigma2 * 1000) + 1)
    draws = [sampler.discrete_gaussian(sigma2) for _ in range(N)]
    assert _chi_square(draws, lambda k: discrete_gaussian_pmf(k, sigma2)) > ALPHA


EXPONENTIAL_CASES = [([0, 3, 5, 5, 10], Fraction(1, 2), 1), ([40, 41, 38, 0], Fraction(1), 2)]


@pytest.mark.parametrize(("utilities", "epsilon", "sensitivity"), EXPONENTIAL_CASES)
def test_exponential_choices_fit_the_exact_probabilities(utilities, epsilon, sensitivity):
    sampler = seeded_sampler(sum(utilities))
    seen = Counter(sampler.exponential_choice(utilities, epsilon, sensitivity) for _ in range(N))
    expected = [N * p for p in exponential_probabilities(utilities, epsilon, sensitivity)]
    kept = [i for i, e in enumerate(expected) if e >= 5]  # the tiny ones pooled into the first kept cell
    observed = [seen[i] for i in kept]
    observed[0] += sum(seen[i] for i in range(len(utilities)) if i not in kept)
    pooled = [expected[i] for i in kept]
    pooled[0] += sum(e for i, e in enumerate(expected) if i not in kept)
    assert chisquare(observed, pooled).pvalue > ALPHA


def test_secure_draws_fit_the_exact_pmfs():
    """One smaller run of SECURE for each sampler (not seeded: each check fails by chance with probability
    ALPHA_SECURE)."""
    laplace = [SECURE.discrete_laplace(Fraction(5, 2)) for _ in range(N_SECURE)]
    gaussian = [SECURE.discrete_gaussian(Fraction(9, 4)) for _ in range(N_SECURE)]
    utilities = [0, 2, 4]
    seen = Counter(SECURE.exponential_choice(utilities, Fraction(1), 1) for _ in range(N_SECURE))
    expected = [N_SECURE * p for p in exponential_probabilities(utilities, 1, 1)]
    p_values = (
        _chi_square(laplace, lambda k: discrete_laplace_pmf(k, Fraction(5, 2))),
        _chi_square(gaussian, lambda k: discrete_gaussian_pmf(k, Fraction(9, 4))),
        chisquare([seen[i] for i in range(3)], expected).pvalue,
    )
    assert min(p_values) > ALPHA_SECURE, p_values


def test_the_chi_square_rejects_a_wrong_parameter():
    """The same draws as above against a parameter 15% off are rejected: the tests above can fail."""
    sampler = seeded_sampler(7)
    laplace = [sampler.discrete_laplace(Fraction(7, 3)) for _ in range(N)]
    assert _chi_square(laplace, lambda k: discrete_laplace_pmf(k, Fraction(7, 3) * Fraction(115, 100))) < ALPHA
    gaussian = [sampler.discrete_gaussian(Fraction(10)) for _ in range(N)]
    assert _chi_square(gaussian, lambda k: discrete_gaussian_pmf(k, Fraction(115, 10))) < ALPHA


def test_secure_draws_from_secrets_and_the_seeded_sampler_does_not(monkeypatch):
    calls = []
    real = secrets.randbelow

    def recording(n):
        calls.append(n)
        return real(n)

    monkeypatch.setattr(secrets, "randbelow", recording)
    SECURE.discrete_laplace(Fraction(3))
    SECURE.discrete_gaussian(Fraction(3, 2))
    SECURE.exponential_choice([1, 2, 3], Fraction(1), 1)
    assert calls
    calls.clear()
    seeded = seeded_sampler(1)
    seeded.discrete_laplace(Fraction(3))
    seeded.discrete_gaussian(Fraction(3, 2))
    seeded.exponential_choice([1, 2, 3], Fraction(1), 1)
    assert calls == []


def test_the_module_imports_secrets_and_no_other_source_of_numbers():
    """The module draws from ``secrets``; ``random`` (and nothing else that makes numbers) is named nowhere in it,
    not even for tests: the tests' seeded sampler is tests/helpers/seeded.py."""
    tree = ast.parse((ROOT / "surveys" / "central_noise.py").read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "secrets" in imported
    assert not imported & {"random", "numpy", "numpy.random", "os", "uuid", "time"}
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id == "random"]


def test_the_seeded_sampler_repeats_itself_and_bad_arguments_are_refused():
    one, two = seeded_sampler(5), seeded_sampler(5)
    assert [one.discrete_gaussian(Fraction(4)) for _ in range(50)] == [
        two.discrete_gaussian(Fraction(4)) for _ in range(50)
    ]
    with pytest.raises(ValueError, match="sigma2"):
        SECURE.discrete_gaussian(Fraction(0))
    with pytest.raises(ValueError, match="scale"):
        SECURE.discrete_laplace(-1)
    with pytest.raises(ValueError, match="utilities"):
        SECURE.exponential_choice([], Fraction(1), 1)
    with pytest.raises(ValueError, match="sensitivity"):
        SECURE.exponential_choice([1, 2], Fraction(1), 0)
    with pytest.raises(ValueError, match="seed"):
        seeded_sampler("1")


# ---------------------------------------------------------------------------------------------------------------
# the privacy audit


def _ratio_lower_bound(hits: int, other_hits: int, n: int) -> float:
    """A lower confidence bound on ``p / q`` from ``hits`` of ``n`` and ``other_hits`` of ``n``: the lower
    Clopper-Pearson bound of ``p`` over the upper one of ``q``, each at ``1 - CP_ALPHA``."""
    low = beta.ppf(CP_ALPHA, hits, n - hits + 1) if hits > 0 else 0.0
    high = beta.ppf(1 - CP_ALPHA, other_hits + 1, n - other_hits) if other_hits < n else 1.0
    return low / high


def _audit(outputs, other_outputs, events):
    """The largest lower bound of the likelihood ratio over ``events`` (predicates), both ways round."""
    worst = 0.0
    for event in events:
        p = sum(1 for o in outputs if event(o))
        q = sum(1 for o in other_outputs if event(o))
        worst = max(worst, _ratio_lower_bound(p, q, len(outputs)), _ratio_lower_bound(q, p, len(outputs)))
    return worst


def _count_events(c, rows):
    """At or below ``c`` (the ratio is exactly ``e^epsilon`` there), at or above ``c + rows``, and single values."""
    return [
        lambda o: o <= c,
        lambda o: o >= c + rows,
        *[lambda o, v=v: o == v for v in range(c - 2, c + rows + 3)],
    ]


def _noisy_counts(sampler, count, scale):
    return [count + sampler.discrete_laplace(scale) for _ in range(N_AUDIT)]


@pytest.mark.parametrize(("epsilon", "rows"), [(Fraction(1), 1), (Fraction(1, 2), 3)])
def test_neighbouring_counts_are_within_e_to_the_epsilon(epsilon, rows):
    """A person adds up to ``rows`` rows: counts 30 and 30 + rows, noise of scale rows/epsilon."""
    sampler = seeded_sampler(rows * 100 + epsilon.denominator)
    scale = count_scale(epsilon, rows)
    outputs, neighbour = _noisy_counts(sampler, 30, scale), _noisy_counts(sampler, 30 + rows, scale)
    assert _audit(outputs, neighbour, _count_events(30, rows)) <= math.exp(epsilon)


def test_the_audit_flags_noise_that_ignores_rows_per_person():
    """Scale 1/epsilon where a person adds three rows: the ratio is e^(3 epsilon), and the audit says so."""
    sampler = seeded_sampler(99)
    epsilon, rows = Fraction(1, 2), 3
    scale = count_scale(epsilon, 1)
    outputs, neighbour = _noisy_counts(sampler, 30, scale), _noisy_counts(sampler, 30 + rows, scale)
    assert _audit(outputs, neighbour, _count_events(30, rows)) > math.exp(epsilon)


#: Utilities and a neighbour differing by at most the sensitivity 1 in each candidate.
UTILITIES, NEIGHBOUR = [5, 5], [6, 4]


def _choices(sampler, utilities, epsilon):
    return [sampler.exponential_choice(utilities, epsilon, 1) for _ in range(N_AUDIT)]


def _choice_events():
    return [lambda o, i=i: o == i for i in range(len(UTILITIES))]


def test_neighbouring_utilities_are_within_e_to_the_epsilon():
    sampler = seeded_sampler(2007)
    epsilon = Fraction(1)
    ratio = _audit(_choices(sampler, UTILITIES, epsilon), _choices(sampler, NEIGHBOUR, epsilon), _choice_events())
    assert ratio <= math.exp(epsilon)


def test_the_audit_flags_an_exponential_choice_at_twice_epsilon():
    """Drawn at 2 epsilon (as if the 2 of exp(epsilon u / (2 D)) were left out): the ratio of the last candidate
    is (e^2 + 1)/2 = 4.19 > e, and the audit says so (at epsilon the largest ratio is e/(e + 1) x 2... = 1.86)."""
    sampler = seeded_sampler(2008)
    ratio = _audit(
        _choices(sampler, UTILITIES, Fraction(2)), _choices(sampler, NEIGHBOUR, Fraction(2)), _choice_events()
    )
    assert ratio > math.exp(1)
