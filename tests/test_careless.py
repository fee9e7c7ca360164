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


_SHARE = careless_share(0.3, 0.05, 0.5)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: careless_share(0.3, 0.05, 0.5, confidence_level=1.0), "confidence_level"),
        (lambda: careless_share("0.3", 0.05, 0.5), "anchor_estimate"),
        (lambda: careless_share(math.nan, 0.05, 0.5), "anchor_estimate"),
        (lambda: careless_share(0.3, -0.05, 0.5), "anchor_std_err"),
        (lambda: careless_share(0.3, 0.05, 1.5), "known_prevalence"),
        (lambda: careless_share(0.3, 0.05, 0.5, careless_reading=math.inf), "careless_reading"),
        (lambda: correct_for_careless(0.4, 0.05, _SHARE, confidence_level=0.0), "confidence_level"),
        (lambda: correct_for_careless(True, 0.05, _SHARE), "estimate"),
        (lambda: correct_for_careless(0.4, -1e-9, _SHARE), "std_err"),
        (lambda: correct_for_careless(0.4, 0.05, _SHARE, careless_reading=None), "careless_reading"),
    ],
)
def test_each_bad_number_is_refused_naming_its_argument(call, name):
    with pytest.raises(ValueError, match=f"{name} must be"):
        call()


def test_a_number_type_with_float_and_the_bounds_themselves_are_taken():
    assert careless_share(np.float32(0.25), 0, 1).known_prevalence == 1.0  # the upper bound itself
    assert careless_share(0.25, 0.0, 0.0, careless_reading=1.0).estimate_raw == pytest.approx(
        0.25
    )  # (0 - 0.25) / (0 - 1)
    assert correct_for_careless(0.4, 0.0, _SHARE).uncorrected_std_err == 0.0


def test_the_share_and_the_interval_say_what_they_are_and_stay_in_bounds():
    # Anchor 0.3 against a known 0.5 with careless answers reading as no: share (0.5 - 0.3) / 0.5 = 0.4.
    share = careless_share(0.3, 0.05, 0.5, confidence_level=0.9)
    assert share.estimate_raw == pytest.approx(0.4) and share.std_err == pytest.approx(0.1)
    assert (share.ci.method, share.ci.confidence_level) == ("wald", 0.9)
    z = 1.6448536269514722
    assert (share.ci.low, share.ci.high) == pytest.approx((0.4 - z * 0.1, 0.4 + z * 0.1))
    assert (share.known_prevalence, share.careless_reading) == (0.5, 0.0)
    tight = careless_share(0.02, 0.001, 0.5)  # share 0.96: the interval reaches past 1 only if mistaken
    assert tight.ci.high < 1.0 and tight.ci.low == pytest.approx(0.96 - 1.959963984540054 * 0.002)
    low_end = careless_share(0.52, 0.2, 0.5)  # a share below 0: shown as 0, the interval's high above it
    assert low_end.estimate == 0.0 and low_end.ci.low == 0.0 and 0.0 < low_end.ci.high < 1.0


def test_the_corrected_estimate_is_clipped_and_its_variance_carries_the_share():
    # (naive - c r) / (1 - c) with c = 0.4, r = 0: 0.9 / 0.6 = 1.5, shown as 1; the delta method's second term
    # ((naive - r) / (1 - c)^2)^2 Var(c).
    corrected = correct_for_careless(0.9, 0.05, _SHARE)
    assert corrected.estimate_raw == pytest.approx(1.5) and corrected.estimate == 1.0
    assert corrected.std_err**2 == pytest.approx((0.05 / 0.6) ** 2 + (0.9 / 0.36) ** 2 * 0.1**2)
    read_yes = correct_for_careless(0.9, 0.05, _SHARE, careless_reading=0.2)
    assert read_yes.std_err**2 == pytest.approx((0.05 / 0.6) ** 2 + (0.7 / 0.36) ** 2 * 0.1**2)


def test_an_anchor_that_reads_as_careless_answers_do_is_refused_and_one_just_apart_is_taken():
    with pytest.raises(
        ValueError, match="the anchor cannot tell careless respondents from the others; use an anchor whose"
    ):
        careless_share(0.3, 0.05, 0.0)
    assert careless_share(0.0, 0.0, 1e-12).estimate_raw == pytest.approx(1.0)  # a gap of exactly 1e-12 is taken
    assert correct_for_careless(0.4, 0.05, _SHARE).estimate == pytest.approx(0.4 / 0.6)
