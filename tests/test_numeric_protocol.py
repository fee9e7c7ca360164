"""Tests of surveys/numeric_protocol.py: the ``secrets`` samplers of numbers and check-all-that-apply answers.

Distribution tests: draws from the production sampler against its exact probability mass function
(tests/helpers/distributions.py), by a chi-square test at level alpha = 10^-4 fixed before the run (cells expecting
fewer than 5 pooled into the tails). The sampler's words come from a generator seeded by the test's name (below),
so each test draws the same sample on every run: its verdict is reproducible. Each sampler gets 10^6 draws
(stochastic rounding: 10^6 over its three cases), except the discrete Laplace: 2 x 10^5 per scale, since 10^6 of
its draws take 16 to 20 s of CPU in Python (60 to 70 s on this shared machine; about ten ``secrets.randbelow``
calls of 1.4 us each per draw, plus the loop); the level is unchanged.

Privacy audits: the empirical likelihood ratio of each kept report between the two extreme true answers is
within e^epsilon at 99.9% family confidence (tests/helpers/audit.py, 10^5 draws per answer).

Every test here draws its ``secrets`` in bulk (tests/helpers/bulk_secrets.py, an autouse fixture): the
production samplers run unchanged and still call ``secrets.randbelow``, which is served exactly uniform from
65,536 words at a time of numpy's PCG64 seeded by the test's node id, instead of one system call per draw
(measured on the whole module: 61 CPU-s before, see the commit). That the samplers draw from ``secrets`` and
nothing predictable is tests/test_layers.py::test_no_source_module_draws_from_random.
"""

from __future__ import annotations

import ast
import math
import re
import secrets
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from analysis.numeric_design import (
    DiscreteLaplaceDesign,
    UnaryDesign,
    bounded_for_epsilon,
    laplace_for_epsilon,
    unary_for_epsilon,
)
from surveys import numeric_protocol
from surveys.numeric_protocol import (
    bernoulli_exp,
    bounded_output,
    discrete_laplace,
    grid_index,
    laplace_output,
    rounding_denominator,
    unary_bits,
)
from tests.helpers.audit import N_DRAWS as AUDIT_DRAWS
from tests.helpers.audit import audit
from tests.helpers.bulk_secrets import bulk_functions, use_bulk_secrets
from tests.helpers.distributions import (
    ALPHA,
    bounded_pmf,
    chi_square_pvalue,
    clipped,
    discrete_laplace_pmf,
    laplace_output_pmf,
    laplace_window,
    unary_pmf,
)

ROOT = Path(__file__).resolve().parent.parent
REAL_RANDBELOW = secrets.randbelow
N = 1_000_000
#: Discrete Laplace draws per scale (see the module docstring for why not 10^6).
LAPLACE_N = 200_000
#: 1, a non-integer rational, and the ln 3 design of a 0..30 question (30 / ln 3 rounded up to a millionth).
SCALES = (Fraction(1), Fraction(5, 2), Fraction(27307177, 1000000))
LN3 = math.log(3)
LAPLACE = laplace_for_epsilon(30, LN3)
BOUNDED = bounded_for_epsilon(30, LN3)
UNARY = UnaryDesign(3, Fraction(1, 2), Fraction(1, 6))


@pytest.fixture(autouse=True)
def _bulk_secrets(monkeypatch, request):
    use_bulk_secrets(monkeypatch, request.node.nodeid)


def test_bulk_randbelow_rejects_the_words_of_the_last_partial_copy_and_randbits_takes_the_top_bits():
    """The bulk ``secrets`` of these tests are exact: for ``n = 3``, ``2^64 mod 3 = 1``, so the word ``2^64 - 1``
    is drawn again and every other word is answered ``x mod 3``; bad bounds get the real functions' refusals."""
    top = (1 << 64) - 1
    randbelow, randbits = bulk_functions(iter([top, top - 1, 5, top, 7, 1 << 63]))
    assert [randbelow(3), randbelow(3), randbelow(3)] == [(top - 1) % 3, 2, 1]
    assert randbits(1) == 1
    assert randbelow(1 << 40) < 1 << 40  # a wide bound: the real function
    with pytest.raises(ValueError):
        randbelow(0)


def test_the_ln3_laplace_design_is_the_scale_tested():
    assert LAPLACE.scale == SCALES[2] and LAPLACE.epsilon <= LN3


# --------------------------------------------------------------------------
# Exact distributions.


@pytest.mark.slow
@pytest.mark.parametrize("scale", SCALES, ids=["1", "5/2", "27.307177"])
def test_discrete_laplace_follows_its_exact_distribution(scale):
    window = laplace_window(scale)
    counts = clipped((discrete_laplace(scale) for _ in range(LAPLACE_N)), window)
    assert chi_square_pvalue(counts, discrete_laplace_pmf(scale, window), LAPLACE_N) > ALPHA


@pytest.mark.slow
@pytest.mark.parametrize("gamma", [Fraction(1, 3), Fraction(1), Fraction(5, 2)], ids=["1/3", "1", "5/2"])
def test_bernoulli_exp_is_one_with_probability_exp_minus_gamma(gamma):
    ones = sum(bernoulli_exp(gamma) for _ in range(N))
    chance = math.exp(-gamma)
    assert chi_square_pvalue(Counter({1: ones, 0: N - ones}), {0: 1 - chance, 1: chance}, N) > ALPHA


def test_discrete_laplace_takes_a_scale_of_one_or_less(monkeypatch):
    """Scale 1 (s = t = 1): sign +, U = 0 kept, V = 0: 0. Scale 1/2 (s = 2, t = 1): the same draws give 0 too."""
    for scale in (Fraction(1), Fraction(1, 2)):
        sample = lambda scale=scale: discrete_laplace(scale)  # noqa: E731
        assert _replayed(monkeypatch, sample, [0, 0, 0, 0, 1]) == (0, [2, 1, 1, 1, 2])


def test_bernoulli_exp_of_zero_is_always_one_and_a_negative_gamma_is_refused():
    assert all(bernoulli_exp(Fraction(0)) == 1 for _ in range(1000))
    with pytest.raises(ValueError, match="-1/2"):
        bernoulli_exp(Fraction(-1, 2))
    with pytest.raises(ValueError, match="scale must be positive"):
        discrete_laplace(Fraction(0))


@pytest.mark.slow
def test_laplace_output_follows_its_exact_distribution_at_a_small_clamp():
    """Index + noise, clamped: a design whose clamp ends are reached (scale 1/10: C = 4, P(clamp) ~ e^-40
    would never show, so the clamp itself is checked in the next test); here the sum's distribution."""
    design = DiscreteLaplaceDesign(4, Fraction(3, 2))
    counts = Counter(laplace_output(1, design) for _ in range(LAPLACE_N))
    assert chi_square_pvalue(counts, laplace_output_pmf(design, 1), LAPLACE_N) > ALPHA


def test_laplace_output_is_clamped_to_the_output_range(monkeypatch):
    low, high = LAPLACE.output_range
    monkeypatch.setattr(numeric_protocol, "discrete_laplace", lambda scale: -(10**9))
    assert laplace_output(30, LAPLACE) == low
    monkeypatch.setattr(numeric_protocol, "discrete_laplace", lambda scale: 10**9)
    assert laplace_output(0, LAPLACE) == high
    monkeypatch.setattr(numeric_protocol, "discrete_laplace", lambda scale: -3)
    assert laplace_output(0, LAPLACE) == -3


@pytest.mark.slow
@pytest.mark.parametrize("index", [0, 11], ids=["k=0", "k=11"])
def test_bounded_output_follows_its_exact_distribution(index):
    ones = sum(bounded_output(index, BOUNDED) for _ in range(N))
    assert chi_square_pvalue(Counter({1: ones, 0: N - ones}), bounded_pmf(BOUNDED, index), N) > ALPHA


@pytest.mark.slow
def test_unary_bits_follow_their_exact_distribution():
    ticked = (True, False, True)
    counts = Counter(unary_bits(ticked, UNARY) for _ in range(N))
    assert chi_square_pvalue(counts, unary_pmf(UNARY, ticked), N) > ALPHA


@pytest.mark.slow
@pytest.mark.parametrize(
    ("value", "minimum", "step", "steps", "probabilities"),
    [
        ("2.3", Fraction(0), Fraction(1, 2), 60, {4: 0.4, 5: 0.6}),
        ("2.3", Fraction(0), Fraction(3, 10), 100, {7: 1 / 3, 8: 2 / 3}),
        ("-0.7", Fraction(-1), Fraction(1, 4), 8, {1: 0.8, 2: 0.2}),
    ],
    ids=["step 1/2", "step 3/10", "min -1, step 1/4"],
)
def test_stochastic_rounding_goes_up_with_the_fraction_of_a_step(value, minimum, step, steps, probabilities):
    """10^6 draws in all, a third per case (each case is also exact over its one draw, below)."""
    counts = Counter(grid_index(value, minimum, step, steps) for _ in range(N // 3))
    assert chi_square_pvalue(counts, probabilities, N // 3) > ALPHA


# --------------------------------------------------------------------------
# Exactness, input checks, and work that does not depend on the answer.


def _fixed_draw(monkeypatch, u, bounds):
    def fake_randbelow(n):
        bounds.append(n)
        return u

    monkeypatch.setattr(numeric_protocol.secrets, "randbelow", fake_randbelow)


@pytest.mark.parametrize(
    ("value", "minimum", "step", "steps", "fraction"),
    [
        ("2.3", Fraction(0), Fraction(1, 2), 60, Fraction(3, 5)),
        ("2.3", Fraction(0), Fraction(3, 10), 100, Fraction(2, 3)),
        ("0.000001", Fraction(-1, 4), Fraction(7, 3), 3, Fraction(750003, 7000000)),
        ("3", Fraction(0), Fraction(1), 30, Fraction(0)),
        ("12.345678", Fraction(5, 2), Fraction(1, 8), 200, Fraction(47839, 62500)),
        ("2", Fraction(1, 3), Fraction(1), 10, Fraction(2, 3)),
        ("9007199254.740993", Fraction(0), Fraction(10**10), 1, Fraction(2**53 + 1, 10**16)),
    ],
    ids=[
        "step 1/2",
        "step 3/10",
        "min -1/4, step 7/3",
        "integer",
        "six decimals, step 1/8",
        "min 1/3 (a denominator not dividing 10^6)",
        "threshold 2^53 + 1 (not a float)",
    ],
)
def test_stochastic_rounding_is_exact_over_its_one_draw(monkeypatch, value, minimum, step, steps, fraction):
    """``(pos - floor(pos)) D`` is an integer for every value, so of the D equally likely draws exactly that
    many go up: the draw just below the threshold goes up, the one at it does not."""
    position = (Fraction(value) - minimum) / step
    assert position - math.floor(position) == fraction
    denominator = rounding_denominator(minimum, step)
    threshold = (position - math.floor(position)) * denominator
    assert threshold.denominator == 1
    bounds = []
    for u, up in ((threshold - 1, 1), (threshold, 0), (denominator - 1, 0)):
        if u < 0:
            continue
        _fixed_draw(monkeypatch, int(u), bounds)
        assert grid_index(value, minimum, step, steps) == math.floor(position) + up
    assert set(bounds) == {denominator}


def test_an_integer_question_draws_once_below_a_million_and_keeps_the_integer(monkeypatch):
    bounds = []
    _fixed_draw(monkeypatch, 0, bounds)
    assert [grid_index(str(v), Fraction(0), Fraction(1), 30) for v in range(31)] == list(range(31))
    assert bounds == [10**6] * 31


@pytest.mark.parametrize(
    "value", ["abc", "1.1234567", "31", "-1", "1e3", " 1", "1.", ".5", "\u0661", "+3", "", "30.000001", 5, None]
)
def test_a_value_off_the_form_or_the_range_is_refused_naming_it(value):
    with pytest.raises(ValueError, match=re.escape(repr(value))):
        grid_index(value, Fraction(0), Fraction(1), 30)


@pytest.mark.parametrize(
    ("value", "minimum", "step", "steps", "message"),
    [
        ("31", Fraction(0), Fraction(1), 30, "between 0 and 30, got '31'"),
        ("3", Fraction(-1, 4), Fraction(1, 4), 11, "between -0.25 and 2.5, got '3'"),
        ("-1", Fraction(-1, 2), Fraction(1, 8), 20, "between -0.5 and 2, got '-1'"),
    ],
)
def test_a_value_off_the_range_is_refused_naming_the_range_as_the_file_wrote_it(value, minimum, step, steps, message):
    with pytest.raises(ValueError, match=f"^the number must be {re.escape(message)}$"):
        grid_index(value, minimum, step, steps)


@pytest.mark.parametrize("index", [-1, 31, 1.0, True, "3"])
def test_an_index_off_the_grid_is_refused_naming_it(index):
    for sample, design in ((laplace_output, LAPLACE), (bounded_output, BOUNDED)):
        with pytest.raises(ValueError, match=re.escape(repr(index))):
            sample(index, design)


def test_ticks_of_the_wrong_number_or_type_are_refused():
    for ticked in ((True, False), (True, False, 1), (True, False, True, False)):
        with pytest.raises(ValueError, match="3 booleans"):
            unary_bits(ticked, UNARY)


def _recording(monkeypatch, replay=None):
    """Patch ``secrets.randbelow`` to log ``(bound, value)``: real draws, or ``replay``'s values in turn."""
    log, real = [], REAL_RANDBELOW
    values = iter(replay) if replay is not None else None

    def randbelow(n):
        value = real(n) if values is None else next(values)
        log.append((n, value))
        return value

    monkeypatch.setattr(numeric_protocol.secrets, "randbelow", randbelow)
    return log


SAMPLERS = {
    "laplace": (lambda k: laplace_output(k, LAPLACE), 0, 30),
    "bounded": (lambda k: bounded_output(k, BOUNDED), 0, 30),
    "unary": (lambda k: unary_bits((k == 1,) * 3, UNARY), 0, 1),
    "rounding": (lambda k: grid_index(("0", "2.35", "7.5")[k], Fraction(0), Fraction(1, 2), 15), 0, 2),
}


@pytest.mark.parametrize("name", SAMPLERS)
def test_the_draws_do_not_depend_on_the_true_answer(monkeypatch, name):
    """The same random numbers, replayed for the other extreme answer, are asked for with the same bounds and
    all consumed: the number of ``secrets`` calls and their bounds (the work) depend on the draws only. For the
    Laplace, the output moves by exactly the difference of the answers (the noise is the same)."""
    sample, first, last = SAMPLERS[name]
    for _ in range(500):
        log = _recording(monkeypatch)
        out_first = sample(first)
        replayed = _recording(monkeypatch, [value for _, value in log])
        out_last = sample(last)
        assert replayed == log
        if name == "laplace" and LAPLACE.output_range[0] < out_first < LAPLACE.output_range[1] - 30:
            assert out_last == out_first + 30


def test_the_samplers_use_secrets_and_no_other_random_source():
    """The server module imports ``secrets`` and no other source of randomness; the browser's uses
    ``crypto.getRandomValues`` and never ``Math.random`` (the served, minified file: tests/test_assets.py)."""
    tree = ast.parse((ROOT / "surveys" / "numeric_protocol.py").read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "secrets" in imported
    assert not imported & {"random", "numpy", "numpy.random", "os", "uuid", "time"}
    for function in (node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)):
        # _plain writes a range end in an error message, not a draw; mutmut's copies of it (`make mutation`
        # rewrites this file) are named x__plain__mutmut_<n>.
        if function.name == "_plain" or function.name.startswith("x__plain__mutmut_"):
            continue
        names = {node.id for node in ast.walk(function) if isinstance(node, ast.Name)}
        floats = [node for node in ast.walk(function) if isinstance(node, ast.Constant) and type(node.value) is float]
        assert not floats and not names & {"float", "math"}, function.name
    script = (ROOT / "static" / "randomize.js").read_text()
    assert "Math.random" not in script and "crypto.getRandomValues(pool)" in script


# --------------------------------------------------------------------------
# Privacy audits: the two extreme true answers.


def _audited(sample, truths, report):
    counts = {}
    for truth in truths:
        reports = Counter(report(sample(truth)) for _ in range(AUDIT_DRAWS))
        counts[truth] = reports
    return counts


def _bucket_expected(design, truths):
    expected = {}
    for truth in truths:
        cells = Counter()
        for y, chance in laplace_output_pmf(design, truth).items():
            cells[design.bucket(y)] += chance
        expected[truth] = dict(cells)
    return expected


@pytest.mark.slow
def test_laplace_output_passes_privacy_audit():
    """Kept buckets of the ln 3 design of a 0..30 question (the buckets the tallies keep; a bucket is a
    post-processing of the output, so its ratio is within e^epsilon if the mechanism's is)."""
    truths = (0, LAPLACE.steps)
    expected = _bucket_expected(LAPLACE, truths)
    counts = _audited(lambda k: laplace_output(k, LAPLACE), truths, LAPLACE.bucket)
    for truth in truths:
        counts[truth] = {bucket: counts[truth].get(bucket, 0) for bucket in expected[truth]}
    assert audit(counts, AUDIT_DRAWS, LAPLACE.epsilon, expected) == []


@pytest.mark.slow
def test_bounded_output_passes_privacy_audit():
    truths = (0, BOUNDED.steps)
    counts = _audited(lambda k: bounded_output(k, BOUNDED), truths, str)
    counts = {k: {r: counts[k].get(r, 0) for r in "01"} for k in truths}
    expected = {k: {str(r): p for r, p in bounded_pmf(BOUNDED, k).items()} for k in truths}
    assert audit(counts, AUDIT_DRAWS, BOUNDED.epsilon, expected) == []


@pytest.mark.slow
@pytest.mark.parametrize("design", [UNARY, unary_for_epsilon(3, LN3)], ids=["p1/2 q1/6", "ln 3"])
def test_unary_bits_pass_privacy_audit(design):
    """Every option ticked against none: the pair whose ratios reach e^epsilon (every bit changes)."""
    truths = {"all": (True,) * 3, "none": (False,) * 3}
    counts = _audited(lambda name: unary_bits(truths[name], design), truths, design.wire)
    expected = {name: {design.wire(b): p for b, p in unary_pmf(design, truths[name]).items()} for name in truths}
    counts = {name: {r: counts[name].get(r, 0) for r in expected[name]} for name in truths}
    assert audit(counts, AUDIT_DRAWS, design.epsilon, expected) == []


@pytest.mark.slow
def test_the_audit_catches_a_laplace_sampler_with_half_the_noise(monkeypatch):
    """The audit can fail: noise of half the scale doubles epsilon, and the tails show it."""
    half = DiscreteLaplaceDesign(LAPLACE.steps, LAPLACE.scale / 2)
    real = numeric_protocol.discrete_laplace
    monkeypatch.setattr(numeric_protocol, "discrete_laplace", lambda scale: real(scale / 2))
    truths = (0, LAPLACE.steps)
    expected = _bucket_expected(LAPLACE, truths)
    counts = _audited(lambda k: laplace_output(k, LAPLACE), truths, LAPLACE.bucket)
    counts = {k: {b: counts[k].get(b, 0) for b in expected[k]} for k in truths}
    assert audit(counts, AUDIT_DRAWS, LAPLACE.epsilon, expected) != []
    assert half.epsilon == pytest.approx(2 * LAPLACE.epsilon)


# --------------------------------------------------------------------------
# Exact over their draws: what each sampler asks of ``secrets`` and what it returns for given draws (the
# distribution tests above are marked slow and left out of the mutation run; these say the same exactly).


def _replayed(monkeypatch, sample, draws):
    """``sample()`` with ``secrets.randbelow`` returning ``draws`` in turn: its result and the bounds asked for,
    every draw used and each below its bound."""
    log = _recording(monkeypatch, draws)
    result = sample()
    assert len(log) == len(draws) and all(value < bound for bound, value in log)
    return result, [bound for bound, _ in log]


@pytest.mark.parametrize("index", [0, 1, 11, 30])
def test_bounded_output_is_one_for_exactly_its_share_of_the_draws(monkeypatch, index):
    """Of the ``(high + low) K`` equally likely draws, exactly ``low K + (high - low) k`` give a 1: the
    lowest of them, so the draw just below that count is a 1 and the one at it a 0."""
    bound = (BOUNDED.high + BOUNDED.low) * BOUNDED.steps
    ones = [
        u for u in range(bound) if _replayed(monkeypatch, lambda: bounded_output(index, BOUNDED), [u]) == (1, [bound])
    ]
    assert ones == list(range(BOUNDED.low * BOUNDED.steps + (BOUNDED.high - BOUNDED.low) * index))


def test_unary_bits_compare_one_draw_per_option_with_p_if_ticked_and_q_if_not(monkeypatch):
    """UNARY: p = 1/2, q = 1/6 over the common denominator 6; a ticked option is a 1 for draws 0..2, an unticked
    one for draw 0 only."""
    ticked = (True, False, True)
    for u in range(6):
        bits, bounds = _replayed(monkeypatch, lambda: unary_bits(ticked, UNARY), [u, u, u])
        assert bounds == [6, 6, 6]
        assert bits == (int(u < 3), int(u < 1), int(u < 3))
    bits, _ = _replayed(monkeypatch, lambda: unary_bits(ticked, UNARY), [2, 0, 3])
    assert bits == (1, 1, 0)


def test_unary_bits_scale_p_and_q_to_their_common_denominator(monkeypatch):
    """p = 1/3, q = 1/4: one draw below 12 per option, a ticked option a 1 for draws 0..3, an unticked one for
    draws 0..2."""
    design = UnaryDesign(2, Fraction(1, 3), Fraction(1, 4))
    for u in range(12):
        bits, bounds = _replayed(monkeypatch, lambda: unary_bits((True, False), design), [u, u])
        assert bounds == [12, 12] and bits == (int(u < 4), int(u < 3))


@pytest.mark.parametrize(
    ("gamma", "draws", "bounds", "bit"),
    [
        (Fraction(1, 3), [1], [3], 1),  # A_1 = 0 at once: K = 1, odd
        (Fraction(1, 3), [0, 5], [3, 6], 0),  # A_1 = 1 (1/3), then A_2 = 0: K = 2
        (Fraction(1, 3), [0, 1], [3, 6], 0),  # the draw at the numerator is a 0 (1 < 1 is false): K = 2
        (Fraction(1, 3), [0, 0, 8], [3, 6, 9], 1),  # K = 3
        (Fraction(1), [0, 1], [1, 2], 0),  # gamma = 1 is one unit step, no exp(-1) loop before it
        (Fraction(1), [0, 0, 2], [1, 2, 3], 1),  # K = 3: one, with no exp(-0) step after it
        (Fraction(5, 2), [0, 1], [1, 2], 0),  # the first Bernoulli(exp(-1)) is 0: stop with 0
        (Fraction(5, 2), [0, 0, 2, 0, 0, 2, 1], [1, 2, 3, 1, 2, 3, 2], 1),  # two exp(-1) ones, then exp(-1/2)
    ],
)
def test_bernoulli_exp_follows_algorithm_1_over_given_draws(monkeypatch, gamma, draws, bounds, bit):
    """Bernoulli(gamma / k) is ``randbelow(d k) < n`` for ``gamma = n / d``, until the first 0; the bit is K odd.
    Above 1, one Bernoulli(exp(-1)) per whole unit first, stopping at the first 0."""
    assert _replayed(monkeypatch, lambda: bernoulli_exp(gamma), draws) == (bit, bounds)


@pytest.mark.parametrize(
    ("draws", "bounds", "value"),
    [
        # sign -, U = 3 kept (Bernoulli(exp(-3/5)): draw 4 is not < 3), V = 0: floor(3 / 2) = 1
        ([1, 3, 4, 0, 1], [2, 5, 5, 1, 2], -1),
        # sign -, U = 0, V = 0: a negative zero, drawn again: sign +, U = 4, V = 1: floor((4 + 5) / 2) = 4
        ([1, 0, 0, 0, 1, 0, 4, 4, 0, 0, 2, 0, 1], [2, 5, 5, 1, 2, 2, 5, 5, 1, 2, 3, 1, 2], 4),
        # sign +, U = 4 refused (draws 0 then 9: K = 2), U = 1 kept, V = 0: floor(1 / 2) = 0
        ([0, 4, 0, 9, 1, 3, 0, 1], [2, 5, 5, 10, 5, 5, 1, 2], 0),
        # sign +, U = 0, V = 2 (two ones of Bernoulli(exp(-1)), then a 0): floor((0 + 10) / 2) = 5
        ([0, 0, 0, 0, 0, 2, 0, 0, 2, 0, 1], [2, 5, 5, 1, 2, 3, 1, 2, 3, 1, 2], 5),
        # sign -, U = 1, V = 0: floor(1 / 2) = 0, a negative zero: drawn again, sign +, U = 2, V = 0: 1
        ([1, 1, 3, 0, 1, 0, 2, 3, 0, 1], [2, 5, 5, 1, 2, 2, 5, 5, 1, 2], 1),
    ],
)
def test_discrete_laplace_follows_algorithm_2_over_given_draws(monkeypatch, draws, bounds, value):
    """Scale 5/2 (s = 2, t = 5): a fair sign, U below t kept with chance exp(-U / t), V ones of Bernoulli(exp(-1))
    before a 0, the magnitude floor((U + t V) / s), a negative zero drawn again."""
    assert _replayed(monkeypatch, lambda: discrete_laplace(Fraction(5, 2)), draws) == (value, bounds)
