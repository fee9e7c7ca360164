"""The editor's figures per design when a share always answers "no" (surveys/noncompliance.py)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from numpy.testing import assert_allclose

from analysis import naive_bias, noncompliant_sample_size
from surveys import design_choices, noncompliance
from surveys.definition import SELECT_ONE, YES_NO


def rows_at(share: float):
    plan, rows = design_choices.design_choices(None, YES_NO)
    return rows, noncompliance.noncompliance_rows(YES_NO, rows, share, plan.margin, plan.confidence_level)


def test_each_one_arm_design_gets_its_bias_and_answers_and_two_group_designs_none():
    rows, found = rows_at(0.2)
    assert set(found) == {row.option.key for row in rows}
    for row in rows:
        plan = found[row.option.key].plan
        thetas = noncompliance.yes_probabilities(row.question)
        if row.option.key in ("cheater_detection", "stochastic_lie_detector"):
            assert plan is None and thetas is None
            continue
        assert_allclose((plan.bias_low, plan.bias_high), [naive_bias(pi, *thetas, 0.2) for pi in (0, 1)])
        assert plan.needed_n == noncompliant_sample_size(0.05, *thetas, 0.2)
    direct = next(row for row in rows if row.option.key == "direct_yes_no")
    assert noncompliance.yes_probabilities(direct.question) == (1, 0)


def test_with_everyone_complying_or_another_kind_there_are_no_figures():
    assert rows_at(0.0)[1] == {}
    plan, rows = design_choices.design_choices(None, SELECT_ONE, ("a", "b"))
    assert noncompliance.noncompliance_rows(SELECT_ONE, rows, 0.1, plan.margin, plan.confidence_level) == {}


@pytest.mark.parametrize(("typed", "share"), [("", 0), ("10", Fraction(1, 10)), ("12.5%", Fraction(1, 8)), ("0", 0)])
def test_a_typed_percentage_is_read_exactly(typed, share):
    assert noncompliance.parse_percent(typed) == share


@pytest.mark.parametrize("typed", ["abc", "-1", "99.5", "100", "1e2", "nan"])
def test_a_typed_percentage_out_of_range_is_refused_by_name(typed):
    with pytest.raises(ValueError, match="percentage from 0 to 99"):
        noncompliance.parse_percent(typed)


def test_the_bias_is_written_in_points_with_its_sign():
    _, found = rows_at(0.1)
    assert noncompliance.bias_text(found["two_coins"].plan) == "−5.0 to −15.0 points"
    assert noncompliance.bias_text(found["direct_yes_no"].plan) == "0.0 to −10.0 points"
    assert noncompliance.bias_text(found["crosswise"].plan) == "+15.0 to +5.0 points"
