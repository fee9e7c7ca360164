"""The browser's samplers of numbers and check-all-that-apply answers (``window.RRSamplers`` in
static/randomize.js, as served minified), in Debian's Chromium.

The same tests as tests/test_numeric_protocol.py gives the server's: 10^6 draws of each sampler, inside one
``page.evaluate`` loop, against the exact probability mass function by a chi-square test at level
alpha = 10^-6 fixed before the run (tests/helpers/distributions.py: cells expecting fewer than 5 pooled into the
tails); privacy audits of the two extreme answers at family level 10^-5 (tests/helpers/audit.py); and the
draws replayed for another answer, which must consume the same random words. The levels are lower than the
server's (10^-4, 10^-3) because the browser's words come from ``crypto.getRandomValues``: a new sample each run,
where the server's tests draw a seeded one.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from fractions import Fraction

import pytest

from analysis.numeric_design import (
    DiscreteLaplaceDesign,
    UnaryDesign,
    bounded_for_epsilon,
    laplace_for_epsilon,
    unary_for_epsilon,
)
from tests.helpers.audit import LIVE_FAMILY_ALPHA, audit
from tests.helpers.audit import N_DRAWS as AUDIT_DRAWS
from tests.helpers.browser_steps import BROWSER_ONLY_ON_SQLITE, quiz_page
from tests.helpers.distributions import (
    LIVE_ALPHA,
    bounded_pmf,
    chi_square_pvalue,
    clipped,
    discrete_laplace_pmf,
    laplace_output_pmf,
    laplace_window,
    unary_pmf,
)

pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only(reason=BROWSER_ONLY_ON_SQLITE)]

N = 1_000_000
SCALES = (Fraction(1), Fraction(5, 2), Fraction(27307177, 1000000))
LN3 = math.log(3)
LAPLACE = laplace_for_epsilon(30, LN3)
BOUNDED = bounded_for_epsilon(30, LN3)
UNARY = UnaryDesign(3, Fraction(1, 2), Fraction(1, 6))

#: A seeded xorshift32 in place of crypto.getRandomValues, for the replay test only: the same words on every
#: page load, so two loads that ask for the same words get the same answers.
SEEDED_WORDS = """
(() => {
  let state = 2463534242;
  window.wordsFilled = 0;
  crypto.getRandomValues = function (array) {
    for (let i = 0; i < array.length; i++) {
      state ^= state << 13; state >>>= 0; state ^= state >>> 17; state ^= state << 5; state >>>= 0;
      array[i] = state;
    }
    window.wordsFilled += array.length;
    return array;
  };
})();
"""


def draws(page, expression: str, n: int) -> Counter:
    """Counts of ``String(expression)`` over ``n`` evaluations in one loop of the page."""
    counts = page.evaluate(
        """([expression, n]) => {
            const draw = eval("(() => " + expression + ")");
            const counts = {};
            for (let i = 0; i < n; i++) {
                const report = String(draw());
                counts[report] = (counts[report] || 0) + 1;
            }
            return counts;
        }""",
        [expression, n],
    )
    return Counter(counts)


def as_integers(counts: Counter) -> Counter:
    return Counter({int(key): value for key, value in counts.items()})


@pytest.fixture(scope="module")
def samplers(browser, module_quiz_server):
    """A respondent's page with the served (minified) randomize.js, loaded once for the module's tests that
    only call its samplers: they read nothing a test before them could change (each ``page.evaluate`` draws
    from ``crypto.getRandomValues`` and returns counts), where a new app, server, browser context, page and load
    cost about a second a test on a busy machine. The test that seeds the random words has a page of its own."""
    with quiz_page(browser, module_quiz_server, "window.RRSamplers") as page:
        yield page


@pytest.mark.parametrize("scale", SCALES, ids=["1", "5/2", "27.307177"])
def test_browser_discrete_laplace_follows_its_exact_distribution(samplers, scale):
    window = laplace_window(scale)
    raw = as_integers(draws(samplers, f"RRSamplers.discreteLaplace('{scale}')", N))
    counts = clipped(raw.elements(), window)
    assert chi_square_pvalue(counts, discrete_laplace_pmf(scale, window), N) > LIVE_ALPHA


def test_browser_laplace_output_follows_its_exact_distribution(samplers):
    design = DiscreteLaplaceDesign(4, Fraction(3, 2))
    counts = as_integers(draws(samplers, f"RRSamplers.laplaceOutput(1, {json.dumps(design.to_dict())})", N))
    assert chi_square_pvalue(counts, laplace_output_pmf(design, 1), N) > LIVE_ALPHA


@pytest.mark.parametrize("gamma", ["1/3", "1", "5/2"])
def test_browser_bernoulli_exp_is_one_with_probability_exp_minus_gamma(samplers, gamma):
    counts = as_integers(draws(samplers, f"RRSamplers.bernoulliExp('{gamma}')", N))
    chance = math.exp(-Fraction(gamma))
    assert chi_square_pvalue(counts, {0: 1 - chance, 1: chance}, N) > LIVE_ALPHA


@pytest.mark.parametrize("index", [0, 11], ids=["k=0", "k=11"])
def test_browser_bounded_output_follows_its_exact_distribution(samplers, index):
    counts = as_integers(draws(samplers, f"RRSamplers.boundedOutput({index}, {json.dumps(BOUNDED.to_dict())})", N))
    assert chi_square_pvalue(counts, bounded_pmf(BOUNDED, index), N) > LIVE_ALPHA


def _patterns(counts: Counter) -> Counter:
    return Counter({tuple(int(b) for b in key.split(",")): value for key, value in counts.items()})


def test_browser_unary_bits_follow_their_exact_distribution(samplers):
    ticked = (True, False, True)
    counts = draws(samplers, f"RRSamplers.unaryBits({json.dumps(ticked)}, {json.dumps(UNARY.to_dict())})", N)
    assert chi_square_pvalue(_patterns(counts), unary_pmf(UNARY, ticked), N) > LIVE_ALPHA


@pytest.mark.parametrize(
    ("value", "minimum", "step", "steps", "probabilities"),
    [
        ("2.3", "0", "0.5", 60, {4: 0.4, 5: 0.6}),
        ("2.3", "0", "0.3", 100, {7: 1 / 3, 8: 2 / 3}),
        ("-0.7", "-1", "1/4", 8, {1: 0.8, 2: 0.2}),
    ],
    ids=["step 1/2", "step 3/10", "min -1, step 1/4"],
)
def test_browser_stochastic_rounding_goes_up_with_the_fraction_of_a_step(
    samplers, value, minimum, step, steps, probabilities
):
    expression = f"RRSamplers.gridIndex('{value}', '{minimum}', '{step}', {steps})"
    counts = as_integers(draws(samplers, expression, N))
    assert chi_square_pvalue(counts, probabilities, N) > LIVE_ALPHA


def test_browser_an_integer_stays_on_its_index(samplers):
    counts = draws(samplers, "[0, 17, 30].map((v) => RRSamplers.gridIndex(String(v), '0', '1', 30)).join(',')", 10_000)
    assert counts == Counter({"0,17,30": 10_000})


def test_browser_uniform_below_past_two_to_the_32_is_uniform(samplers):
    """Bounds past 2^32 take two words (high part, low word) and past 2^52 BigInt words: 10^6 draws below
    1.5 * 2^32 and below 3 * 10^20, cut into ten equal slices and by residue mod 3, are uniform."""
    for bound in (6442450944, 300000000000000000000):
        counts = Counter(
            samplers.evaluate(
                """([bound, n]) => { const c = {}; const b = BigInt(bound);
                    for (let i = 0; i < n; i++) { const x = BigInt(RRSamplers.randomBelowBig(bound));
                      if (x < 0n || x >= b) { return {out: x.toString()}; }
                      const key = (x * 10n / b).toString() + ":" + (x % 3n).toString();
                      c[key] = (c[key] || 0) + 1; }
                    return c; }""",
                [str(bound), N],
            )
        )
        pmf = {f"{tenth}:{residue}": 1 / 30 for tenth in range(10) for residue in range(3)}
        assert chi_square_pvalue(counts, pmf, N) > LIVE_ALPHA, bound


@pytest.mark.parametrize("value", ["abc", "1.1234567", "31", "-1", "1e3", " 1", "+3", "30.000001"])
def test_browser_a_value_off_the_form_or_the_range_is_refused_naming_it(samplers, value):
    message = samplers.evaluate(
        "(v) => { try { RRSamplers.gridIndex(v, '0', '1', 30); return null; } catch (e) { return e.message; } }",
        value,
    )
    assert message is not None and message.endswith(value)


def test_browser_an_index_off_the_grid_is_refused(samplers):
    for index in ("-1", "31", "1.5", "'3'"):
        message = samplers.evaluate(
            f"() => {{ try {{ RRSamplers.laplaceOutput({index}, {json.dumps(LAPLACE.to_dict())}); return null; }}"
            " catch (e) { return e.message; } }"
        )
        assert message and "grid index" in message, index


# --------------------------------------------------------------------------
# The same random words for another answer: the same work.

REPLAYED = {
    "laplace": (f"RRSamplers.laplaceOutput(K, {json.dumps(LAPLACE.to_dict())})", 0, 30),
    "bounded": (f"RRSamplers.boundedOutput(K, {json.dumps(BOUNDED.to_dict())})", 0, 30),
    "unary": (f"RRSamplers.unaryBits([K === 1, K === 1, K === 1], {json.dumps(UNARY.to_dict())}).join('')", 0, 1),
    "rounding": ("RRSamplers.gridIndex(['0', '2.35', '7.5'][K], '0', '0.5', 15)", 0, 2),
}


@pytest.mark.parametrize("name", REPLAYED)
def test_browser_draws_do_not_depend_on_the_true_answer(page, live_server, name):
    """Two loads of the page with the same seeded words: 3,000 draws for one extreme answer, then for the other,
    ask for the same number of words (the pool is refilled as often); the Laplace outputs differ by exactly the
    difference of the answers (the same noise), the one-bit outputs can only rise with the answer."""
    expression, first, last = REPLAYED[name]
    page.add_init_script(SEEDED_WORDS)
    runs = {}
    for answer in (first, last):
        page.goto(f"{live_server}/s/quiz")
        outputs = page.evaluate(
            f"() => {{ const K = {answer}; const out = []; for (let i = 0; i < 3000; i++) out.push({expression});"
            " return [out, window.wordsFilled]; }"
        )
        runs[answer] = outputs
    (outputs_first, words_first), (outputs_last, words_last) = runs[first], runs[last]
    assert words_first == words_last
    if name == "laplace":
        assert [y - x for x, y in zip(outputs_first, outputs_last, strict=True)] == [30] * 3000
    if name == "bounded":
        assert all(x <= y for x, y in zip(outputs_first, outputs_last, strict=True))
    if name == "unary":  # none ticked against all ticked: a bit sent 1 with q is sent 1 with p > q
        assert all(a <= b for x, y in zip(outputs_first, outputs_last, strict=True) for a, b in zip(x, y, strict=True))


# --------------------------------------------------------------------------
# Privacy audits: the two extreme true answers.


def _bucket_expected(design, truths):
    expected = {}
    for truth in truths:
        cells = Counter()
        for y, chance in laplace_output_pmf(design, truth).items():
            cells[design.bucket(y)] += chance
        expected[truth] = dict(cells)
    return expected


def test_browser_laplace_output_passes_privacy_audit(samplers):
    truths = (0, LAPLACE.steps)
    expected = _bucket_expected(LAPLACE, truths)
    counts = {}
    for truth in truths:
        raw = as_integers(
            draws(samplers, f"RRSamplers.laplaceOutput({truth}, {json.dumps(LAPLACE.to_dict())})", AUDIT_DRAWS)
        )
        buckets = Counter()
        for y, count in raw.items():
            buckets[LAPLACE.bucket(y)] += count
        counts[truth] = {bucket: buckets.get(bucket, 0) for bucket in expected[truth]}
    assert audit(counts, AUDIT_DRAWS, LAPLACE.epsilon, expected, LIVE_FAMILY_ALPHA) == []


def test_browser_bounded_output_passes_privacy_audit(samplers):
    truths = (0, BOUNDED.steps)
    counts, expected = {}, {}
    for truth in truths:
        seen = draws(samplers, f"RRSamplers.boundedOutput({truth}, {json.dumps(BOUNDED.to_dict())})", AUDIT_DRAWS)
        counts[truth] = {r: seen.get(r, 0) for r in "01"}
        expected[truth] = {str(r): p for r, p in bounded_pmf(BOUNDED, truth).items()}
    assert audit(counts, AUDIT_DRAWS, BOUNDED.epsilon, expected, LIVE_FAMILY_ALPHA) == []


@pytest.mark.parametrize("design", [UNARY, unary_for_epsilon(3, LN3)], ids=["p1/2 q1/6", "ln 3"])
def test_browser_unary_bits_pass_privacy_audit(samplers, design):
    truths = {"all": (True,) * 3, "none": (False,) * 3}
    counts, expected = {}, {}
    for name, ticked in truths.items():
        seen = draws(
            samplers,
            f"RRSamplers.unaryBits({json.dumps(ticked)}, {json.dumps(design.to_dict())}).join('')",
            AUDIT_DRAWS,
        )
        expected[name] = {design.wire(bits): p for bits, p in unary_pmf(design, ticked).items()}
        counts[name] = {pattern: seen.get(pattern, 0) for pattern in expected[name]}
    assert audit(counts, AUDIT_DRAWS, design.epsilon, expected, LIVE_FAMILY_ALPHA) == []
