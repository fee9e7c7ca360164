"""analysis/careless.py: the anchor's careless share and the corrected shares, by hand and on simulated surveys
with a known share of careless respondents (fixed seeds, tolerances from the estimates' own standard errors)."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from analysis.careless import CarelessShare, careless_share, correct_for_careless
from analysis.estimate import estimate_proportion

#: Two coins: truthful 1/2, forced yes 1/4, forced no 1/4; a stored "no" alone reads as -a/t = -1/2.
STORED_NO_READING = -0.5


def test_the_share_and_the_correction_by_hand():
    share = careless_share(0.4, 0.05, known_prevalence=0.5)
    assert_allclose([share.estimate_raw, share.std_err], [0.2, 0.1])
    corrected = correct_for_careless(0.24, 0.02, share)
    assert_allclose(corrected.estimate_raw, 0.3)
    assert_allclose(corrected.std_err, math.sqrt((0.02 / 0.8) ** 2 + (0.24 / 0.64) ** 2 * 0.1**2))
    assert (corrected.uncorrected, corrected.uncorrected_std_err) == (0.24, 0.02)


def test_a_zero_prevalence_anchor_cannot_reveal_answers_that_are_randomized_noes():
    with pytest.raises(ValueError, match="known_prevalence=0"):
        careless_share(0.01, 0.02, known_prevalence=0)


def test_a_zero_prevalence_anchor_reveals_stored_noes():
    share = careless_share(-0.1, 0.02, known_prevalence=0, careless_reading=STORED_NO_READING)
    assert_allclose(share.estimate_raw, 0.2)


@pytest.mark.parametrize(
    ("args", "named"),
    [((0.4, -0.1, 0.5), "anchor_std_err="), ((0.4, 0.1, 1.5), "known_prevalence="), (("x", 0.1, 0.5), "anchor_est")],
)
def test_bad_numbers_are_refused_naming_them(args, named):
    with pytest.raises(ValueError, match=named):
        careless_share(*args)


def test_correct_refuses_something_other_than_a_share():
    with pytest.raises(ValueError, match="share="):
        correct_for_careless(0.2, 0.01, 0.2)


def _survey(rng, n, careless, anchor_prevalence, prevalence, stored_no=False):
    """Anchor and question estimates of a simulated two-coin survey.

    A careless respondent ticks "no" (randomized like any answer), or with ``stored_no`` sends a stored "no"."""
    lazy = rng.random(n) < careless
    out = []
    for share in (anchor_prevalence, prevalence):
        truth = (rng.random(n) < share) & ~lazy
        coin = rng.random(n)
        stored = np.where(coin < 0.5, truth, coin < 0.75)
        if stored_no:
            stored = stored & ~lazy
        out.append(estimate_proportion(int(stored.sum()), n))
    return out


def test_the_correction_recovers_the_truth_on_a_simulated_survey():
    anchor, question = _survey(np.random.default_rng(2023), 40_000, 0.2, 0.5, 0.3)
    share = careless_share(anchor.estimate_raw, anchor.std_err, 0.5)
    corrected = correct_for_careless(question.estimate_raw, question.std_err, share)
    assert abs(share.estimate_raw - 0.2) < 4 * share.std_err
    assert abs(corrected.estimate_raw - 0.3) < 4 * corrected.std_err
    assert abs(question.estimate_raw - 0.3) > 4 * question.std_err  # uncorrected: biased towards (1 - c) 0.3


def test_the_correction_with_stored_noes_and_a_zero_prevalence_anchor():
    anchor, question = _survey(np.random.default_rng(1234), 40_000, 0.15, 0.0, 0.3, stored_no=True)
    share = careless_share(anchor.estimate_raw, anchor.std_err, 0, careless_reading=STORED_NO_READING)
    corrected = correct_for_careless(question.estimate_raw, question.std_err, share, STORED_NO_READING)
    assert abs(share.estimate_raw - 0.15) < 4 * share.std_err
    assert abs(corrected.estimate_raw - 0.3) < 4 * corrected.std_err


def test_the_corrected_interval_covers_at_least_its_level():
    """The standard error leaves out a negative covariance term, so coverage is at least 95% up to the
    simulation's error (3 SE of 400 surveys), with a birthday-month anchor (1/12)."""
    rng = np.random.default_rng(29)
    runs, covered, share_covered = 400, 0, 0
    for _ in range(runs):
        anchor, question = _survey(rng, 20_000, 0.2, 1 / 12, 0.3)
        share = careless_share(anchor.estimate_raw, anchor.std_err, 1 / 12)
        corrected = correct_for_careless(question.estimate_raw, question.std_err, share)
        covered += corrected.ci.low <= 0.3 <= corrected.ci.high
        share_covered += share.ci.low <= 0.2 <= share.ci.high
    floor = 0.95 - 3 * math.sqrt(0.95 * 0.05 / runs)
    assert covered / runs >= floor and share_covered / runs >= floor


def test_a_share_is_clipped_below_one_before_it_divides():
    share = careless_share(-0.5, 0.01, 0.5)
    assert share.estimate == pytest.approx(0.999) and isinstance(share, CarelessShare)
    assert math.isfinite(correct_for_careless(0.2, 0.01, share).estimate_raw)


def test_an_interval_beyond_one_stays_inside_the_unit_range():
    share = careless_share(-0.5, 0.05, 0.5)
    assert 0 <= share.ci.low <= share.ci.high <= 1
