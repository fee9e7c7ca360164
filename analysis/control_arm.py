"""The direct-question control arm: randomized response against asking directly.

A random share of respondents answers the same question directly. Their
yes rate ``pi_DQ = y / n`` is compared with the randomized-response
estimate; for undesirable behaviour the randomized-response estimate should
be higher ("more is better", Lensvelt-Mulders et al. 2005), which is the
usual check that the design reduced evasive answers.

References
----------
Lensvelt-Mulders, G. J. L. M., Hox, J. J., van der Heijden, P. G. M. and
Maas, C. J. M. (2005). Meta-analysis of randomized response research:
thirty-five years of validation. Sociological Methods and Research 33(3), 319-348.
Heck, D. W. and Moshagen, M. (2018). RRreg. Journal of Statistical Software 85(2), section 4.1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import stats

from analysis._checks import check_counts, check_real, check_unit_open
from analysis.intervals import ConfidenceInterval, normal_interval


@dataclass(frozen=True)
class ControlArmComparison:
    """Randomized-response estimate minus the direct-question estimate.

    Attributes
    ----------
    rr_estimate, rr_std_err : float
        The randomized-response estimate and its standard error, as given.
    direct_yes, direct_n : int
        Yes count and number of answers in the direct-question arm.
    direct_estimate, direct_std_err : float
        ``y / n`` and ``sqrt(pi_DQ (1 - pi_DQ) / n)``.
    difference, std_err : float
        ``rr_estimate - direct_estimate`` and ``sqrt(rr_std_err^2 + direct_std_err^2)``.
    ci : ConfidenceInterval
        ``difference +/- z std_err``, clipped to ``[-1, 1]`` (``method="wald"``).
    p_value_rr_higher : float
        One-sided p-value of "the randomized-response estimate is higher",
        ``1 - Phi(difference / std_err)``.
    """

    rr_estimate: float
    rr_std_err: float
    direct_yes: int
    direct_n: int
    direct_estimate: float
    direct_std_err: float
    difference: float
    std_err: float
    ci: ConfidenceInterval
    p_value_rr_higher: float


def compare_with_direct(
    rr_estimate: float, rr_std_err: float, direct_yes: int, direct_n: int, confidence_level: float = 0.95
) -> ControlArmComparison:
    """Compare a randomized-response estimate with the direct-question arm.

    Parameters
    ----------
    rr_estimate : float
        The randomized-response estimate of the prevalence (any design; pass
        the unclipped or moment estimate to keep the difference unbiased).
    rr_std_err : float
        Its standard error, ``>= 0``.
    direct_yes, direct_n : int
        Yes count and number of answers of the direct question, ``direct_n >= 1``.
    confidence_level : float
        In ``(0, 1)``; default 0.95.

    Returns
    -------
    ControlArmComparison

    Raises
    ------
    ValueError
        If an argument is out of range; the message names it.

    Notes
    -----
    The two arms are independent samples (respondents are assigned at random), so::

        pi_DQ = y / n,   SE_DQ = sqrt(pi_DQ (1 - pi_DQ) / n)
        difference = pi_RR - pi_DQ,   SE = sqrt(SE_RR^2 + SE_DQ^2)

    References
    ----------
    Lensvelt-Mulders, G. J. L. M. et al. (2005). Sociological Methods and Research 33(3), 319-348.
    """
    rr = check_real(rr_estimate, "rr_estimate")
    rr_se = check_real(rr_std_err, "rr_std_err")
    if rr_se < 0:
        raise ValueError(f"rr_std_err must be >= 0, got rr_std_err={rr_std_err!r}")
    try:
        yes, n = check_counts(direct_yes, direct_n)
    except ValueError as error:
        raise ValueError(f"direct arm: {error}") from None
    level = check_unit_open(confidence_level, "confidence_level")
    direct = yes / n
    direct_se = math.sqrt(direct * (1 - direct) / n)
    diff = rr - direct
    se = math.hypot(rr_se, direct_se)
    p_value = float(stats.norm.sf(diff / se)) if se > 0 else (0.0 if diff > 0 else 1.0)
    return ControlArmComparison(
        rr_estimate=rr,
        rr_std_err=rr_se,
        direct_yes=yes,
        direct_n=n,
        direct_estimate=direct,
        direct_std_err=direct_se,
        difference=diff,
        std_err=se,
        ci=normal_interval(diff, se, level, lower=-1.0, upper=1.0),
        p_value_rr_higher=p_value,
    )
