"""Tests of surveys/arms.py: the random groups of the two-group designs and the direct-question control arm."""

from __future__ import annotations

from fractions import Fraction

import pytest

from analysis.design import DesignError
from analysis.two_group import CheaterDetectionDesign, StochasticLieDetectorDesign
from surveys import arms
from tests.helpers.audit import clopper_pearson_lower, clopper_pearson_upper
from tests.helpers.bulk_secrets import use_bulk_secrets

SLD = StochasticLieDetectorDesign(Fraction(1, 3), Fraction(2, 3))
CDM = CheaterDetectionDesign(Fraction(1, 4), Fraction(3, 5))


@pytest.mark.parametrize(
    ("design", "group", "theta0"),
    [(CDM, "1", Fraction(1, 4)), (CDM, "2", Fraction(3, 5)), (SLD, "1", Fraction(2, 3)), (SLD, "2", Fraction(1, 3))],
)
def test_group_yes_probabilities_are_the_models_rates_without_cheaters(design, group, theta0):
    """theta0 from the formula sheet: CDM lambda_i = pi + beta p_i (beta = 1 - pi at gamma = 0), SLD
    lambda_i = pi t + (1 - pi)(1 - p_i) at t = 1; and they equal the analysis module's rates."""
    assert arms.group_yes_probabilities(design, group) == (1, theta0)
    second = 0.0 if design is CDM else 1.0
    rate = design.rates(0.3, second)[int(group) - 1]
    assert rate == pytest.approx(0.3 + 0.7 * float(theta0))


def test_group_must_be_one_or_two():
    with pytest.raises(ValueError, match="group must be one of"):
        arms.group_yes_probabilities(SLD, "direct")


def test_attack_success_is_the_worse_group():
    """Under a 50/50 prior the best guess is right 1/2 + |theta1 - theta0|/2 of the time: SLD group 2 has
    theta0 = 1/3, so 1/2 + (2/3)/2 = 5/6."""
    assert arms.two_group_attack_success(SLD) == pytest.approx(5 / 6)


@pytest.mark.parametrize(
    ("group", "direct"), [(Fraction(1, 3), None), (Fraction(1, 2), Fraction(1, 5)), (None, Fraction(1, 4))]
)
def test_draw_arm_follows_the_shares(group, direct, monkeypatch, request):
    """20,000 draws: each arm's share lies in its 99.9% Clopper-Pearson interval (Bonferroni over the arms), the
    draws' words seeded by the test's name (tests/helpers/bulk_secrets.py) so the verdict holds on every run."""
    use_bulk_secrets(monkeypatch, request.node.nodeid)
    n = 20_000
    counts = dict.fromkeys(arms.ARMS, 0)
    for _ in range(n):
        counts[arms.draw_arm(group, direct)] += 1
    d = direct or Fraction(0)
    expected = {
        arms.DIRECT: d,
        "1": (1 - d) * group if group else 0,
        "2": (1 - d) * (1 - group) if group else 0,
        arms.NO_ARM: 0 if group else 1 - d,
    }
    alpha = 0.001 / len(expected)
    for arm, share in expected.items():
        low, high = clopper_pearson_lower(counts[arm], n, alpha), clopper_pearson_upper(counts[arm], n, alpha)
        assert low <= float(share) <= high, (arm, counts)


def test_draw_arm_draws_both_numbers_whatever_the_survey_has(monkeypatch):
    calls = []
    monkeypatch.setattr(arms.secrets, "randbelow", lambda n: calls.append(n) or 0)
    assert arms.draw_arm(Fraction(1, 2), Fraction(1, 5)) == arms.DIRECT
    assert arms.draw_arm(Fraction(1, 2), None) == "1"
    assert arms.draw_arm(None, None) == arms.NO_ARM
    assert calls == [10, 10, 2, 2]  # nothing drawn without groups or a control arm


@pytest.mark.parametrize("bad", [0, 1, "3/2", -0.1, "half", True])
def test_check_share_refuses_what_is_not_strictly_between_0_and_1(bad):
    with pytest.raises(DesignError, match="direct_share"):
        arms.check_share(bad, "direct_share")


def test_arm_wire_is_one_character_each_way():
    assert {len(wire) for wire in arms.ARM_WIRE.values()} == {1}
    assert all(arms.arm_from_wire(wire) == arm for arm, wire in arms.ARM_WIRE.items())
    with pytest.raises(ValueError, match="arm must be one of"):
        arms.arm_from_wire("direct")


def test_arm_choices():
    assert arms.arm_choices(True, True) == ("1", "2", "direct")
    assert arms.arm_choices(False, False) == ("",)
    assert arms.arm_choices(False, True) == ("", "direct")
    assert arms.arm_choices(True, False) == ("1", "2")
