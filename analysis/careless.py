"""Careless answering: a question of known prevalence (an *anchor*) measures the share of respondents who ignore
the instructions, and corrects the other shares for it.

A careless respondent answers "no" whatever the truth (Atsusaka and
Stevenson 2023). Each randomized yes/no question's unbiased estimate
``pi_hat`` (the design's debiasing of its stored answers, :func:`analysis.estimate_proportion`)
then reads, in expectation::

    E[pi_hat] = (1 - c) pi + c r

with ``c`` the careless share, ``pi`` the true prevalence among the others,
and ``r`` what one careless answer reads as through the design:

* ``r = 0`` when the careless "no" is randomized like any true answer (the
  app's own protocol: the respondent ticks "no" and the device randomizes it;
  the design turns a true "no" into a stored answer whose debiased reading is 0);
* ``r = -theta0 / (theta1 - theta0)`` when the careless respondent's *stored*
  answer is "no" (a paper crosswise sheet, Atsusaka and Stevenson's setting),
  with ``theta1, theta0`` the chances of a stored "yes" for a carrier and a
  non-carrier.

An anchor of known prevalence ``pi_A`` gives::

    c_hat = (pi_A - pi_hat_A) / (pi_A - r_A),        SE(c_hat) = SE(pi_hat_A) / |pi_A - r_A|

(no information when ``pi_A = r_A``: with ``r = 0`` a zero-prevalence
anchor cannot reveal respondents who answer "no", since they give the
right answer to it). Every other question is corrected as::

    pi_corrected = (pi_hat - c_hat r) / (1 - c_hat)
    Var = SE(pi_hat)^2 / (1 - c)^2 + ((pi_hat - r) / (1 - c)^2)^2 SE(c_hat)^2

the delta method with the two estimates taken as independent. The same
careless respondents say "no" to both, which makes the two estimates
positively correlated: ``Cov = c (1 - c) (pi - r)(pi_A - r_A) / n`` per
respondent answering both (when the anchor's truth is unrelated to the
question's), and the covariance term of the delta method is then
``-2 (pi_hat - r)(pi - r) c / (n (1 - c)^3) <= 0``; leaving it out makes the
standard error conservative (too wide, not too narrow).

Assumed: careless answering is the same on every question (one ``c``), and
a careless respondent answers "no" to every question.

References
----------
Atsusaka, Y. and Stevenson, R. T. (2023). A bias-corrected estimator for
the crosswise model with inattentive respondents. Political Analysis 31(1),
134-148.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import stats

from analysis._checks import check_unit_open
from analysis.intervals import ConfidenceInterval


@dataclass(frozen=True)
class CarelessShare:
    """The share of careless respondents measured by an anchor (:func:`careless_share`).

    Attributes
    ----------
    estimate_raw : float
        ``(pi_A - pi_hat_A) / (pi_A - r_A)``: unbiased, may leave ``[0, 1)``.
    estimate : float
        ``estimate_raw`` clipped to ``[0, MAX_SHARE]``: the number to report and to correct with.
    std_err : float
    ci : ConfidenceInterval
        Wald interval, clipped to ``[0, 1]``.
    known_prevalence : float
        The anchor's prevalence ``pi_A``.
    careless_reading : float
        ``r_A``.
    """

    estimate_raw: float
    estimate: float
    std_err: float
    ci: ConfidenceInterval
    known_prevalence: float
    careless_reading: float


@dataclass(frozen=True)
class CarelessCorrected:
    """One share corrected for careless answering (:func:`correct_for_careless`), beside the uncorrected one.

    Attributes
    ----------
    uncorrected, uncorrected_std_err : float
        The estimate as the design alone gives it (``pi_hat``) and its standard error.
    estimate_raw : float
        ``(pi_hat - c r) / (1 - c)``; may leave ``[0, 1]``.
    estimate : float
        Clipped to ``[0, 1]``.
    std_err : float
        Conservative delta-method standard error (see the module docstring).
    ci : ConfidenceInterval
        Wald interval, clipped to ``[0, 1]``.
    """

    uncorrected: float
    uncorrected_std_err: float
    estimate_raw: float
    estimate: float
    std_err: float
    ci: ConfidenceInterval


#: The largest careless share a correction divides by ``1 - c`` with (a share of 1 leaves nothing to correct).
MAX_SHARE = 0.999


def check_real(value: object, name: str, low: float = -math.inf, high: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(value, "__float__"):
        raise ValueError(f"{name} must be a number, got {name}={value!r}")
    number = float(value)  # type: ignore[arg-type]
    if not (math.isfinite(number) and low <= number <= high):
        raise ValueError(f"{name} must be a finite number in [{low}, {high}], got {name}={value!r}")
    return number


def _wald(estimate: float, std_err: float, level: float) -> ConfidenceInterval:
    z = float(stats.norm.ppf(0.5 + level / 2))
    low = min(max(estimate - z * std_err, 0.0), 1.0)
    high = max(min(estimate + z * std_err, 1.0), 0.0)
    return ConfidenceInterval(low, high, "wald", level)


def careless_share(
    anchor_estimate: float,
    anchor_std_err: float,
    known_prevalence: float,
    careless_reading: float = 0.0,
    confidence_level: float = 0.95,
) -> CarelessShare:
    """Estimate the share of respondents who answer "no" whatever the truth, from an anchor question.

    Parameters
    ----------
    anchor_estimate : float
        The anchor's unbiased estimate ``pi_hat_A`` (``estimate_raw``, not clipped).
    anchor_std_err : float
        Its standard error.
    known_prevalence : float
        The anchor's true prevalence ``pi_A`` in ``[0, 1]`` (``1/12`` for "Is your birthday in March?").
    careless_reading : float
        ``r_A``: what a careless answer reads as through the anchor's design (0 when the careless "no" is
        randomized, the app's protocol; see the module docstring).
    confidence_level : float

    Returns
    -------
    CarelessShare

    Raises
    ------
    ValueError
        A bad number, or ``known_prevalence == careless_reading`` (the anchor cannot tell careless
        respondents from the others).
    """
    level = check_unit_open(confidence_level, "confidence_level")
    estimate = check_real(anchor_estimate, "anchor_estimate")
    std_err = check_real(anchor_std_err, "anchor_std_err", 0.0)
    known = check_real(known_prevalence, "known_prevalence", 0.0, 1.0)
    reading = check_real(careless_reading, "careless_reading")
    gap = known - reading
    if abs(gap) < 1e-12:
        raise ValueError(
            f"known_prevalence={known_prevalence!r} equals what a careless answer reads as ({reading:g}): the anchor "
            "cannot tell careless respondents from the others; use an anchor whose true answer is sometimes yes"
        )
    raw = (known - estimate) / gap
    share_se = std_err / abs(gap)
    return CarelessShare(raw, min(max(raw, 0.0), MAX_SHARE), share_se, _wald(raw, share_se, level), known, reading)


def correct_for_careless(
    estimate: float,
    std_err: float,
    share: CarelessShare,
    careless_reading: float = 0.0,
    confidence_level: float = 0.95,
) -> CarelessCorrected:
    """Correct one question's share for the careless share an anchor measured.

    Parameters
    ----------
    estimate : float
        The question's unbiased estimate ``pi_hat`` (``estimate_raw``).
    std_err : float
        Its standard error.
    share : CarelessShare
        :func:`careless_share` of the anchor.
    careless_reading : float
        ``r`` of this question's design (0 under the app's protocol).
    confidence_level : float

    Returns
    -------
    CarelessCorrected
        ``c`` is ``share.estimate`` (clipped to ``[0, 0.999]``); see the module docstring for the formulas.
    """
    if not isinstance(share, CarelessShare):
        raise ValueError(f"share must be a CarelessShare, got share={share!r}")
    level = check_unit_open(confidence_level, "confidence_level")
    naive = check_real(estimate, "estimate")
    naive_se = check_real(std_err, "std_err", 0.0)
    reading = check_real(careless_reading, "careless_reading")
    c = share.estimate
    kept = 1 - c
    raw = (naive - c * reading) / kept
    variance = (naive_se / kept) ** 2 + ((naive - reading) / kept**2) ** 2 * share.std_err**2
    corrected_se = math.sqrt(variance)
    return CarelessCorrected(
        uncorrected=naive,
        uncorrected_std_err=naive_se,
        estimate_raw=raw,
        estimate=min(max(raw, 0.0), 1.0),
        std_err=corrected_se,
        ci=_wald(raw, corrected_se, level),
    )
