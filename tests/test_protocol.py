"""Tests of the live (``secrets``) randomizer, including an empirical privacy audit.

The audit draws N = 100,000 answers for a true yes and N for a true no (and,
for k options, N per true option) from the live randomizer. For every pair of
true answers (x, x') and every report r it bounds the likelihood ratio
P[r | x] / P[r | x'] from below by (one-sided Clopper-Pearson lower bound of
P[r | x]) / (one-sided upper bound of P[r | x']). If that lower bound exceeds
e^epsilon the randomizer leaks more than its design allows, and the test fails.

Family confidence is 99.9% by Bonferroni: with m one-sided bounds each is
taken at level 1 - 0.001 / m, so a correct randomizer fails with probability
at most 0.1%. The same family level is used for the two-sided check that each
observed rate's interval contains the design value.
"""

import math
from fractions import Fraction

import pytest

from analysis.design import TWO_COIN, ForcedResponseDesign, MultipleChoiceDesign
from surveys import protocol
from tests.privacy_audit import N_DRAWS, audit, yes_no_expected

DIE = ForcedResponseDesign(Fraction(2, 3), Fraction(1, 6), Fraction(1, 6))
ASYMMETRIC = ForcedResponseDesign(Fraction(7, 10), Fraction(1, 5), Fraction(1, 10))


def yes_no_counts(design, n):
    counts = {}
    for truth in (protocol.YES, protocol.NO):
        yes = sum(protocol.randomize_yes_no(truth, design) == protocol.YES for _ in range(n))
        counts[truth] = {protocol.YES: yes, protocol.NO: n - yes}
    return counts


@pytest.mark.parametrize("design", [TWO_COIN, DIE, ASYMMETRIC], ids=["two-coin", "die", "asymmetric"])
def test_yes_no_randomizer_passes_privacy_audit(design):
    counts = yes_no_counts(design, N_DRAWS)
    assert audit(counts, N_DRAWS, design.epsilon, yes_no_expected(design)) == []


def test_multiple_choice_randomizer_passes_privacy_audit():
    design = MultipleChoiceDesign(4, Fraction(1, 2))
    choices = ("a", "b", "c", "d")
    n = N_DRAWS // 2
    counts = {}
    for truth in choices:
        draws = [protocol.randomize_choice(truth, choices, design) for _ in range(n)]
        counts[truth] = {r: draws.count(r) for r in choices}
    q = float(design.uniform_share)
    expected = {x: {r: (0.5 if r == x else 0) + q for r in choices} for x in choices}
    assert audit(counts, n, design.epsilon, expected) == []


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
