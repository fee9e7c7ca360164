"""Tests of the ``secrets`` randomizer, including an empirical privacy audit.

The audit draws N = 100,000 answers for a true yes and N for a true no (and,
for k options, N per true option) from the production randomizer. For every pair of
true answers (x, x') and every report r it bounds the likelihood ratio
P[r | x] / P[r | x'] from below by (one-sided Clopper-Pearson lower bound of
P[r | x]) / (one-sided upper bound of P[r | x']). If that lower bound exceeds
e^epsilon the randomizer leaks more than its design allows, and the test fails.

Family confidence is 99.9% by Bonferroni: with m one-sided bounds each is
taken at level 1 - 0.001 / m, so a correct randomizer fails with probability
at most 0.1% over the seeds. The same family level is used for the two-sided
check that each observed rate's interval contains the design value.

Every test here draws its ``secrets`` in bulk (tests/helpers/bulk_secrets.py, an autouse fixture): the
randomizers run unchanged and still call ``secrets.randbelow``/``randbits``, served exactly uniform from
numpy's PCG64 seeded by the test's node id, 65,536 words at a time, instead of one system call per draw. Each
test so draws the same sample on every run (a verdict that does not change from run to run); the tests that
replace the source with a walk over every value patch over it.
"""

import math
import re
from fractions import Fraction

import pytest

from analysis.design import (
    TWO_COIN,
    CrosswiseDesign,
    ForcedResponseDesign,
    KukDesign,
    MangatDesign,
    MultipleChoiceDesign,
    TriangularDesign,
    UnrelatedQuestionDesign,
    WarnerDesign,
)
from analysis.misclassification import MisclassificationDesign
from analysis.two_group import CheaterDetectionDesign, StochasticLieDetectorDesign
from surveys import protocol
from surveys.arms import group_yes_probabilities
from tests.helpers.audit import N_DRAWS, audit, multiple_choice_expected, yes_no_expected
from tests.helpers.bulk_secrets import use_bulk_secrets

DIE = ForcedResponseDesign(Fraction(2, 3), Fraction(1, 6), Fraction(1, 6))
ASYMMETRIC = ForcedResponseDesign(Fraction(7, 10), Fraction(1, 5), Fraction(1, 10))
#: a < b: more forced noes than forced yeses, so the yes report is the riskier one.
MORE_NOES = ForcedResponseDesign(Fraction(7, 10), Fraction(1, 10), Fraction(1, 5))
#: Numerators above 1 in every probability.
THREE_FIFTHS = ForcedResponseDesign(Fraction(3, 5), Fraction(3, 20), Fraction(1, 4))


@pytest.fixture(autouse=True)
def _bulk_secrets(monkeypatch, request):
    use_bulk_secrets(monkeypatch, request.node.nodeid)


def yes_no_counts(design, n):
    counts = {}
    for truth in (protocol.YES, protocol.NO):
        yes = sum(protocol.randomize_yes_no(truth, design) == protocol.YES for _ in range(n))
        counts[truth] = {protocol.YES: yes, protocol.NO: n - yes}
    return counts


@pytest.mark.parametrize(
    "design", [TWO_COIN, DIE, ASYMMETRIC, MORE_NOES], ids=["two-coin", "die", "asymmetric", "more-noes"]
)
def test_yes_no_randomizer_passes_privacy_audit(design):
    counts = yes_no_counts(design, N_DRAWS)
    assert audit(counts, N_DRAWS, design.epsilon, yes_no_expected(design)) == []


@pytest.mark.parametrize(
    ("design", "choices"),
    [(MultipleChoiceDesign(4, Fraction(1, 2)), "abcd"), (MultipleChoiceDesign(3, Fraction(2, 3)), "abc")],
    ids=["k4-t1/2", "k3-t2/3"],
)
def test_multiple_choice_randomizer_passes_privacy_audit(design, choices):
    choices = tuple(choices)
    n = N_DRAWS // 2
    counts = {}
    for truth in choices:
        draws = [protocol.randomize_choice(truth, choices, design) for _ in range(n)]
        counts[truth] = {r: draws.count(r) for r in choices}
    assert audit(counts, n, design.epsilon, multiple_choice_expected(design, choices)) == []


# --------------------------------------------------------------------------
# Exact distributions: the random source is replaced by a walk over every
# value it can return, so each report's probability is counted, not sampled.


def _walk(monkeypatch, bounds_seen, values):
    """Make ``secrets.randbelow``/``randbits`` return ``values`` in turn, recording each bound."""
    queue = list(values)

    def fake_randbelow(n):
        bounds_seen.append(n)
        return queue.pop(0)

    def fake_randbits(k):
        bounds_seen.append(2**k)
        return queue.pop(0)

    monkeypatch.setattr(protocol.secrets, "randbelow", fake_randbelow)
    monkeypatch.setattr(protocol.secrets, "randbits", fake_randbits)


@pytest.mark.parametrize(
    ("design", "denominator"),
    [(DIE, 6), (ASYMMETRIC, 10), (MORE_NOES, 10), (THREE_FIFTHS, 20)],
    ids=["die", "asymmetric", "more-noes", "three-fifths"],
)
def test_forced_response_is_exact_over_every_draw(monkeypatch, design, denominator):
    """Over the D equally likely draws u in range(D), exactly (t + a) D say yes
    for a true yes and exactly a D for a true no: P[yes|yes] = t + a and
    P[yes|no] = a with no rounding, whatever the numerators."""
    for truth, expected in ((protocol.YES, design.t + design.a), (protocol.NO, design.a)):
        yes = 0
        for u in range(denominator):
            bounds = []
            _walk(monkeypatch, bounds, [u])
            yes += protocol.randomize_yes_no(truth, design) == protocol.YES
            assert bounds == [denominator]
        assert Fraction(yes, denominator) == expected, truth


def test_two_coins_are_exact_over_every_pair_of_bits(monkeypatch):
    # (first, second) in {0, 1}^2: first heads reports the second coin, tails the truth,
    # so P[yes|yes] = 3/4 and P[yes|no] = 1/4.
    for truth, expected in ((protocol.YES, Fraction(3, 4)), (protocol.NO, Fraction(1, 4))):
        yes = 0
        for first in (0, 1):
            for second in (0, 1):
                bounds = []
                _walk(monkeypatch, bounds, [first, second])
                report = protocol.randomize_yes_no(truth)
                yes += report == protocol.YES
                assert report == (("yes" if second else "no") if first else truth)
                assert bounds == [2, 2]
        assert Fraction(yes, 4) == expected


@pytest.mark.parametrize(
    ("design", "denominator"),
    [
        (MultipleChoiceDesign(3, Fraction(2, 3)), 3),
        (MultipleChoiceDesign(4, Fraction(3, 5)), 5),
        (MultipleChoiceDesign(2, Fraction(1, 2)), 2),
    ],
    ids=["k3-t2/3", "k4-t3/5", "k2-t1/2"],
)
def test_multiple_choice_is_exact_over_every_draw(monkeypatch, design, denominator):
    """Over every (u, r) in range(D) x range(k), each equally likely, the true
    option is reported with probability exactly t + (1 - t)/k and each other
    option with (1 - t)/k."""
    k = design.k
    for truth in range(k):
        reported = [0] * k
        for u in range(denominator):
            for r in range(k):
                bounds = []
                _walk(monkeypatch, bounds, [u, r])
                reported[protocol.multiple_choice_index(truth, design)] += 1
                assert bounds == [denominator, k]
        shares = [Fraction(c, denominator * k) for c in reported]
        assert shares == [design.uniform_share + (design.t if j == truth else 0) for j in range(k)]


@pytest.mark.parametrize("truth", [-1, 4, 5])
def test_multiple_choice_index_out_of_range(truth):
    design = MultipleChoiceDesign(4, Fraction(1, 2))
    with pytest.raises(ValueError, match=re.escape(f"option index in [0, 4), got {truth}")):
        protocol.multiple_choice_index(truth, design)


def test_audit_catches_a_leaky_randomizer():
    """The audit must be able to fail: a randomizer that tells the truth 80% of
    the time and otherwise says yes has P[no|no]/P[no|yes] = infinite > 3."""
    n = 10_000
    counts = {"yes": {"yes": n, "no": 0}, "no": {"yes": 2_000, "no": 8_000}}
    failures = audit(counts, n, math.log(3), yes_no_expected(TWO_COIN))
    assert any("P[no|no]/P[no|yes]" in f for f in failures)


def test_truthful_design_always_tells_the_truth():
    design = ForcedResponseDesign(1, 0, 0)
    assert {protocol.randomize_yes_no("yes", design) for _ in range(200)} == {"yes"}
    assert {protocol.randomize_yes_no("no", design) for _ in range(200)} == {"no"}


def test_fully_forced_yes_design_always_says_yes():
    design = ForcedResponseDesign(Fraction(1, 10**6), 1 - Fraction(1, 10**6), 0)
    assert protocol.randomize_yes_no("no", design) in {"yes", "no"}
    draws = [protocol.randomize_yes_no("no", design) for _ in range(1000)]
    assert draws.count("yes") >= 990


@pytest.mark.parametrize("bad", ["Yes", "", "1", None, True])
def test_yes_no_rejects_anything_but_yes_or_no(bad):
    with pytest.raises(ValueError, match=repr(bad).replace("(", r"\(")):
        protocol.randomize_yes_no(bad)


def test_choice_must_be_one_of_the_choices():
    design = MultipleChoiceDesign(3, Fraction(1, 2))
    with pytest.raises(ValueError, match="'z'"):
        protocol.randomize_choice("z", ("a", "b", "c"), design)


def test_choice_count_must_match_design():
    design = MultipleChoiceDesign(3, Fraction(1, 2))
    with pytest.raises(ValueError, match="k=3"):
        protocol.randomize_choice("a", ("a", "b"), design)


def test_two_coin_draws_two_bits_whatever_the_answer(monkeypatch):
    """Both coins are drawn for a yes and for a no: the work does not depend on the answer."""
    calls = []

    def fake_randbits(k):
        calls.append(k)
        return 1

    monkeypatch.setattr(protocol.secrets, "randbits", fake_randbits)
    protocol.randomize_yes_no("yes")
    protocol.randomize_yes_no("no")
    assert calls == [1, 1, 1, 1]


def test_multiple_choice_draws_both_numbers_whatever_the_answer(monkeypatch):
    calls = []

    def fake_randbelow(n):
        calls.append(n)
        return 0

    monkeypatch.setattr(protocol.secrets, "randbelow", fake_randbelow)
    design = MultipleChoiceDesign(4, Fraction(1, 2))
    assert protocol.randomize_choice("c", ("a", "b", "c", "d"), design) == "c"
    assert calls == [2, 4]


# --------------------------------------------------------------------------
# The one-parameter yes/no designs drawn by software (Warner, unrelated question, Kuk, Mangat).

WARNER = WarnerDesign(Fraction(3, 4))
WARNER_LOW = WarnerDesign(Fraction(1, 4))
UNRELATED = UnrelatedQuestionDesign(Fraction(2, 3), Fraction(1, 4))
KUK = KukDesign(Fraction(7, 10), Fraction(3, 10))
MANGAT = MangatDesign(Fraction(3, 4))
SOFTWARE_DESIGNS = [WARNER, WARNER_LOW, UNRELATED, KUK, MANGAT]
SOFTWARE_IDS = ["warner", "warner-low", "unrelated", "kuk", "mangat"]


@pytest.mark.parametrize("design", SOFTWARE_DESIGNS, ids=SOFTWARE_IDS)
def test_binary_randomizer_passes_privacy_audit(design):
    """10^5 draws per true answer at 99.9% family confidence (the module docstring); Mangat's infinite epsilon
    leaves only the check that each observed rate matches theta1 or theta0 (and its "no" never follows a yes)."""
    counts = yes_no_counts(design, N_DRAWS)
    assert audit(counts, N_DRAWS, design.epsilon, yes_no_expected(design)) == []


@pytest.mark.parametrize(
    ("design", "denominator"),
    [(WARNER, 4), (UNRELATED, 12), (KUK, 10), (MANGAT, 4), (KukDesign(Fraction(2, 3), Fraction(1, 4)), 12)],
    ids=["warner", "unrelated", "kuk", "mangat", "kuk-unlike-denominators"],
)
def test_binary_design_is_exact_over_every_draw(monkeypatch, design, denominator):
    """Over the D equally likely draws u in range(D), exactly theta1 D say yes for a true yes and theta0 D for a
    true no: no rounding. The last design's theta1 = 2/3 and theta0 = 1/4 need D = 12, a multiple of both
    denominators (a draw below theta0's 4 alone would store yes with 3/4 for a true yes)."""
    theta1, theta0 = design.yes_probabilities()
    for truth, expected in ((protocol.YES, theta1), (protocol.NO, theta0)):
        yes = 0
        for u in range(denominator):
            bounds = []
            _walk(monkeypatch, bounds, [u])
            yes += protocol.randomize_yes_no(truth, design) == protocol.YES
            assert bounds == [denominator]
        assert Fraction(yes, denominator) == expected, truth


def test_binary_design_draws_one_number_whatever_the_answer(monkeypatch):
    calls = []

    def fake_randbelow(n):
        calls.append(n)
        return 0

    monkeypatch.setattr(protocol.secrets, "randbelow", fake_randbelow)
    protocol.randomize_yes_no("yes", UNRELATED)
    protocol.randomize_yes_no("no", UNRELATED)
    assert calls == [12, 12]


@pytest.mark.parametrize("design", [CrosswiseDesign(Fraction(1, 4)), TriangularDesign(Fraction(1, 4))])
def test_crosswise_and_triangular_have_no_randomizer(design):
    with pytest.raises(ValueError, match=f"the {design.kind} design is not randomized by software"):
        protocol.randomize_yes_no("yes", design)


SLD = StochasticLieDetectorDesign(Fraction(1, 3), Fraction(2, 3))
CDM = CheaterDetectionDesign(Fraction(1, 4), Fraction(3, 5))


def two_group_expected(design, group):
    theta1, theta0 = (float(p) for p in group_yes_probabilities(design, group))
    return {
        protocol.YES: {protocol.YES: theta1, protocol.NO: 1 - theta1},
        protocol.NO: {protocol.YES: theta0, protocol.NO: 1 - theta0},
    }


@pytest.mark.parametrize("design", [SLD, CDM], ids=["sld", "cdm"])
@pytest.mark.parametrize("group", ["1", "2"])
def test_two_group_randomizer_passes_privacy_audit(design, group):
    """10^5 draws per true answer and group at 99.9% family confidence: each observed rate is the group's
    theta1 (1: a carrier's stored answer is yes) or theta0 (CDM: p_g, SLD: 1 - p_g)."""
    counts = {}
    for truth in (protocol.YES, protocol.NO):
        yes = sum(protocol.randomize_yes_no(truth, design, group) == protocol.YES for _ in range(N_DRAWS))
        counts[truth] = {protocol.YES: yes, protocol.NO: N_DRAWS - yes}
    assert audit(counts, N_DRAWS, design.epsilon, two_group_expected(design, group)) == []


@pytest.mark.parametrize(
    ("design", "group", "denominator", "theta0"),
    [
        (SLD, "1", 3, Fraction(2, 3)),
        (SLD, "2", 3, Fraction(1, 3)),
        (CDM, "1", 4, Fraction(1, 4)),
        (CDM, "2", 5, Fraction(3, 5)),
    ],
)
def test_two_group_design_is_exact_over_every_draw(monkeypatch, design, group, denominator, theta0):
    """Over the D equally likely draws, a true yes is stored yes every time and a true no exactly theta0 D times."""
    for truth, expected in ((protocol.YES, Fraction(1)), (protocol.NO, theta0)):
        yes = 0
        for u in range(denominator):
            bounds = []
            _walk(monkeypatch, bounds, [u])
            yes += protocol.randomize_yes_no(truth, design, group) == protocol.YES
            assert bounds == [denominator]
        assert Fraction(yes, denominator) == expected, truth


def test_two_group_design_needs_a_group():
    with pytest.raises(ValueError, match="group must be one of"):
        protocol.randomize_yes_no("yes", SLD, "")
    with pytest.raises(ValueError, match="got group=''$"):  # no group given: the default is none
        protocol.randomize_yes_no("yes", SLD)


MATRIX = MisclassificationDesign([["3/5", "1/10", "1/5"], ["1/4", "7/10", "1/5"], ["3/20", "1/5", "3/5"]])
MATRIX_CHOICES = ("low", "middle", "high")


def matrix_expected(design, choices):
    return {x: {r: float(design.matrix[j][i]) for j, r in enumerate(choices)} for i, x in enumerate(choices)}


def test_misclassification_randomizer_passes_privacy_audit():
    """10^5 draws per true option at 99.9% family confidence: each report's rate is P[j, i] and no ratio of
    two columns' rates exceeds e^epsilon (van den Hout and van der Heijden 2002)."""
    counts = {}
    for truth in MATRIX_CHOICES:
        drawn = [protocol.randomize_choice(truth, MATRIX_CHOICES, MATRIX) for _ in range(N_DRAWS)]
        counts[truth] = {r: drawn.count(r) for r in MATRIX_CHOICES}
    assert audit(counts, N_DRAWS, MATRIX.epsilon, matrix_expected(MATRIX, MATRIX_CHOICES)) == []


@pytest.mark.parametrize(("truth", "denominator"), [(0, 20), (1, 10), (2, 5)])
def test_misclassification_is_exact_over_every_draw(monkeypatch, truth, denominator):
    """Over the D equally likely draws of column i (D its common denominator), report j comes exactly P[j, i] D
    times: no rounding."""
    reports = []
    for u in range(denominator):
        bounds = []
        _walk(monkeypatch, bounds, [u])
        reports.append(protocol.randomize_choice(MATRIX_CHOICES[truth], MATRIX_CHOICES, MATRIX))
        assert bounds == [denominator]
    for j, report in enumerate(MATRIX_CHOICES):
        assert Fraction(reports.count(report), denominator) == MATRIX.matrix[j][truth]
