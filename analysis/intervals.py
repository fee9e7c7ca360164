"""Confidence intervals for a proportion measured through forced response.

Under the forced-response design (truthful with probability ``t``, forced
yes with ``a``, forced no with ``b``) the reported-yes rate is
``lambda = a + t * pi``. The count of reported yeses is Binomial(n, lambda),
so any binomial interval for ``lambda`` maps to an interval for ``pi``
through the increasing map ``pi = (lambda - a) / t``; coverage for ``pi``
is exactly the coverage for ``lambda``. The mapped interval is finally
clipped to ``[0, 1]``, which cannot lower coverage because ``pi`` lies in
``[0, 1]``.

Three methods, one small function each, chosen by name through
:func:`confidence_interval`:

``"wilson"`` (default)
    Wilson's score interval for ``lambda``; close to nominal coverage and
    recommended by Brown, Cai and DasGupta (2001).
``"clopper-pearson"``
    The exact beta-quantile interval for ``lambda``; coverage is never below
    the nominal level, at the price of width.
``"wald"``
    ``pi_hat +/- z * SE`` on the ``pi`` scale, with the plug-in population
    standard error of :func:`analysis.estimate.estimate_proportion`; shown for
    comparison, its coverage can fall well below nominal.

References
----------
Warner, S. L. (1965). Randomized response: a survey technique for
eliminating evasive answer bias. JASA 60(309), 63-69.
Wilson, E. B. (1927). Probable inference, the law of succession, and
statistical inference. JASA 22(158), 209-212.
Clopper, C. J. and Pearson, E. S. (1934). The use of confidence or fiducial
limits illustrated in the case of the binomial. Biometrika 26(4), 404-413.
Brown, L. D., Cai, T. T. and DasGupta, A. (2001). Interval estimation for a
binomial proportion. Statistical Science 16(2), 101-133.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from scipy import optimize, stats

from analysis._checks import _check_counts, _check_design, _check_design_exact, _check_unit_open


@dataclass(frozen=True)
class ConfidenceInterval:
    """A confidence interval.

    Attributes
    ----------
    low, high : float
        The bounds, ``low <= high``. For a proportion both lie in ``[0, 1]``.
    method : str
        How the interval was computed (``"wilson"``, ``"clopper-pearson"``
        or ``"wald"``).
    confidence_level : float
        The nominal coverage, for example 0.95.
    """

    low: float
    high: float
    method: str
    confidence_level: float


def _z(confidence_level: object) -> float:
    """The two-sided normal quantile ``z_{1 - alpha/2}`` for a confidence level."""
    level = _check_unit_open(confidence_level, "confidence_level")
    return float(stats.norm.ppf(0.5 + level / 2))


# --------------------------------------------------------------------------
# The point estimate and its plug-in standard error, shared with
# analysis.estimate so that the Wald interval and ProportionEstimate.std_err
# are one formula.


def _clipped_estimate(yes_count: int, n: int, t: float, a: float) -> float:
    """``clip((y/n - a) / t, 0, 1)``: the maximum-likelihood estimate of ``pi``."""
    return min(max((yes_count / n - a) / t, 0.0), 1.0)


def _population_std_err(yes_count: int, n: int, t: float, a: float) -> float:
    """``sqrt(lam_c (1 - lam_c) / (n t^2))`` with ``lam_c = a + t * pi_clipped``."""
    lam_c = a + t * _clipped_estimate(yes_count, n, t, a)
    return math.sqrt(max(lam_c * (1 - lam_c), 0.0) / n) / t


def _normal_interval(
    centre: float, std_err: float, confidence_level: float, lower: float = 0.0, upper: float = 1.0
) -> ConfidenceInterval:
    """``centre +/- z * std_err`` clipped to ``[lower, upper]`` (a Wald interval)."""
    half = _z(confidence_level) * std_err
    low = min(max(centre - half, lower), upper)
    high = min(max(centre + half, lower), upper)
    return ConfidenceInterval(low, high, "wald", float(confidence_level))


def _mapped(lam_low: float, lam_high: float, t: float, a: float) -> tuple[float, float]:
    """Map bounds for ``lambda`` to ``pi = (lambda - a) / t`` and clip to [0, 1]."""
    low = min(max((lam_low - a) / t, 0.0), 1.0)
    high = min(max((lam_high - a) / t, 0.0), 1.0)
    return low, high


# --------------------------------------------------------------------------
# One function per method.


def wald_interval(
    yes_count: int,
    n: int,
    t: float = 0.5,
    a: float = 0.25,
    b: float = 0.25,
    confidence_level: float = 0.95,
) -> ConfidenceInterval:
    """Wald interval for ``pi``: estimate plus or minus ``z`` standard errors.

    Parameters
    ----------
    yes_count : int
        Number of reported yeses, ``0 <= yes_count <= n``.
    n : int
        Number of noisy answers, ``n >= 1``.
    t, a, b : float
        The design: truthful, forced-yes and forced-no probabilities,
        ``t + a + b = 1``.
    confidence_level : float
        Nominal coverage in ``(0, 1)``.

    Returns
    -------
    ConfidenceInterval
        With ``method="wald"``, clipped to ``[0, 1]``.

    Notes
    -----
    With ``lambda = y / n``, ``pi_hat = clip((lambda - a) / t, 0, 1)`` and
    ``lam_c = a + t * pi_hat``::

        pi_hat +/- z_{1 - alpha/2} * sqrt(lam_c (1 - lam_c) / (n t^2))

    the interval of Warner (1965) with the plug-in clamped to the range
    ``[a, a + t]`` that ``lambda`` can take. Like the binomial Wald interval
    its coverage oscillates and can fall well below nominal (Brown, Cai and
    DasGupta 2001); prefer :func:`wilson_interval`.

    References
    ----------
    Warner, S. L. (1965). JASA 60(309), 63-69.
    Brown, L. D., Cai, T. T. and DasGupta, A. (2001). Statistical Science
    16(2), 101-133.
    """
    yes_count, n = _check_counts(yes_count, n)
    t, a, b = _check_design(t, a, b)
    centre = _clipped_estimate(yes_count, n, t, a)
    return _normal_interval(centre, _population_std_err(yes_count, n, t, a), confidence_level)


def wilson_interval(
    yes_count: int,
    n: int,
    t: float = 0.5,
    a: float = 0.25,
    b: float = 0.25,
    confidence_level: float = 0.95,
) -> ConfidenceInterval:
    """Wilson score interval for ``lambda``, mapped to ``pi``.

    Parameters
    ----------
    yes_count : int
        Number of reported yeses, ``0 <= yes_count <= n``.
    n : int
        Number of noisy answers, ``n >= 1``.
    t, a, b : float
        The design, ``t + a + b = 1``.
    confidence_level : float
        Nominal coverage in ``(0, 1)``.

    Returns
    -------
    ConfidenceInterval
        With ``method="wilson"``, clipped to ``[0, 1]``.

    Notes
    -----
    The Wilson (1927) interval for ``lambda`` is the set of values not
    rejected by the score test::

        (y + z^2/2) / (n + z^2)  +/-  z / (n + z^2) * sqrt(y (n - y) / n + z^2 / 4)

    with ``z = z_{1 - alpha/2}``. Each bound ``L`` becomes ``(L - a) / t``,
    clipped to ``[0, 1]``. If the whole interval for ``lambda`` lies below
    ``a`` (fewer yeses than the forced ones alone explain) it degenerates to
    ``[0, 0]``; likewise ``[1, 1]`` above ``a + t``.

    References
    ----------
    Wilson, E. B. (1927). JASA 22(158), 209-212.
    Brown, L. D., Cai, T. T. and DasGupta, A. (2001). Statistical Science
    16(2), 101-133, section 4.1.1.
    """
    yes_count, n = _check_counts(yes_count, n)
    t, a, b = _check_design(t, a, b)
    z = _z(confidence_level)
    z2 = z * z
    centre = (yes_count + z2 / 2) / (n + z2)
    half = z / (n + z2) * math.sqrt(yes_count * (n - yes_count) / n + z2 / 4)
    low, high = _mapped(centre - half, centre + half, t, a)
    return ConfidenceInterval(low, high, "wilson", float(confidence_level))


def clopper_pearson_interval(
    yes_count: int,
    n: int,
    t: float = 0.5,
    a: float = 0.25,
    b: float = 0.25,
    confidence_level: float = 0.95,
) -> ConfidenceInterval:
    """Clopper-Pearson ("exact") interval for ``lambda``, mapped to ``pi``.

    Parameters
    ----------
    yes_count : int
        Number of reported yeses, ``0 <= yes_count <= n``.
    n : int
        Number of noisy answers, ``n >= 1``.
    t, a, b : float
        The design, ``t + a + b = 1``.
    confidence_level : float
        Nominal coverage in ``(0, 1)``.

    Returns
    -------
    ConfidenceInterval
        With ``method="clopper-pearson"``, clipped to ``[0, 1]``.

    Notes
    -----
    With ``alpha = 1 - confidence_level`` the bounds for ``lambda`` are beta
    quantiles (Clopper and Pearson 1934; Brown, Cai and DasGupta 2001,
    section 4.2.1)::

        L = Beta(alpha/2; y, n - y + 1)      (L = 0 when y = 0)
        U = Beta(1 - alpha/2; y + 1, n - y)  (U = 1 when y = n)

    mapped through ``(lambda - a) / t`` and clipped to ``[0, 1]``. Its
    coverage is at least ``confidence_level`` for every ``pi``.

    References
    ----------
    Clopper, C. J. and Pearson, E. S. (1934). Biometrika 26(4), 404-413.
    Brown, L. D., Cai, T. T. and DasGupta, A. (2001). Statistical Science
    16(2), 101-133.
    """
    yes_count, n = _check_counts(yes_count, n)
    t, a, b = _check_design(t, a, b)
    alpha = 1 - _check_unit_open(confidence_level, "confidence_level")
    lam_low = 0.0 if yes_count == 0 else float(stats.beta.ppf(alpha / 2, yes_count, n - yes_count + 1))
    lam_high = 1.0 if yes_count == n else float(stats.beta.ppf(1 - alpha / 2, yes_count + 1, n - yes_count))
    low, high = _mapped(lam_low, lam_high, t, a)
    return ConfidenceInterval(low, high, "clopper-pearson", float(confidence_level))


_METHODS: dict[str, Callable[..., ConfidenceInterval]] = {
    "wilson": wilson_interval,
    "clopper-pearson": clopper_pearson_interval,
    "wald": wald_interval,
}

#: The names :func:`confidence_interval` accepts, the default first.
INTERVAL_METHODS: tuple[str, ...] = tuple(_METHODS)


def confidence_interval(
    yes_count: int,
    n: int,
    t: float = 0.5,
    a: float = 0.25,
    b: float = 0.25,
    confidence_level: float = 0.95,
    method: str = "wilson",
) -> ConfidenceInterval:
    """Confidence interval for ``pi`` by the named method.

    Parameters
    ----------
    yes_count : int
        Number of reported yeses, ``0 <= yes_count <= n``.
    n : int
        Number of noisy answers, ``n >= 1``.
    t, a, b : float
        The design, ``t + a + b = 1``.
    confidence_level : float
        Nominal coverage in ``(0, 1)``; default 0.95.
    method : {"wilson", "clopper-pearson", "wald"}
        See :func:`wilson_interval`, :func:`clopper_pearson_interval` and
        :func:`wald_interval`. Default ``"wilson"``, following Brown, Cai and
        DasGupta (2001).

    Returns
    -------
    ConfidenceInterval
        Within ``[0, 1]``, ``low <= high``.

    Notes
    -----
    Wilson and Clopper-Pearson are binomial intervals for the reported-yes
    rate ``lambda = a + t pi`` mapped through ``pi = (lambda - a) / t``; Wald
    is built on the ``pi`` scale. All are clipped to ``[0, 1]``.

    References
    ----------
    Brown, L. D., Cai, T. T. and DasGupta, A. (2001). Interval estimation for
    a binomial proportion. Statistical Science 16(2), 101-133.
    """
    if not isinstance(method, str) or method not in _METHODS:
        raise ValueError(f"unknown interval method {method!r}; choose one of {INTERVAL_METHODS}")
    return _METHODS[method](yes_count, n, t, a, b, confidence_level)


# --------------------------------------------------------------------------
# Answers outside what the design allows.


@dataclass(frozen=True)
class OutsideDesign:
    """A reported-yes rate below the design's floor ``a`` or above its ceiling ``a + t``.

    Attributes
    ----------
    side : {"below", "above"}
        ``"below"``: fewer yeses than the forced ones alone give
        (``y / n < a``); ``"above"``: more than ``a + t`` (``y / n > 1 - b``).
    limit : float
        The floor ``a`` or the ceiling ``a + t`` of the reported-yes rate.
    observed_rate : float
        ``y / n``.
    bound : float
        The one-sided bound for ``pi``: an upper bound when ``side ==
        "below"``, a lower bound when ``"above"``; never the collapsed 0 or 1
        of the mapped two-sided interval.
    p_value : float
        The chance of a rate at least this far outside if ``pi`` sat at the
        edge (``P(Y <= y | lambda = a)`` below, ``P(Y >= y | lambda = a + t)``
        above): small values say the design's coins were not followed, or a
        rare chance.
    confidence_level : float
        The one-sided level of ``bound``.
    method : str
        ``"clopper-pearson-cls"``.
    """

    side: str
    limit: float
    observed_rate: float
    bound: float
    p_value: float
    confidence_level: float
    method: str = "clopper-pearson-cls"


def _cls_upper_bound(yes_count: int, n: int, t: float, a: float, alpha: float) -> tuple[float, float]:
    """``(upper bound for pi, P(Y <= y | lambda = a))`` by the CLs rule; see :func:`outside_design`."""
    at_floor = float(stats.binom.cdf(yes_count, n, a))

    def cls_minus_alpha(pi: float) -> float:
        return float(stats.binom.cdf(yes_count, n, a + t * pi)) / at_floor - alpha

    if cls_minus_alpha(1.0) >= 0:
        return 1.0, at_floor
    return float(optimize.brentq(cls_minus_alpha, 0.0, 1.0, xtol=1e-12)), at_floor


def outside_design(
    yes_count: int,
    n: int,
    t: float = 0.5,
    a: float = 0.25,
    b: float = 0.25,
    confidence_level: float = 0.95,
) -> OutsideDesign | None:
    """A one-sided bound when the reported-yes rate lies outside ``[a, a + t]``; ``None`` inside.

    Parameters
    ----------
    yes_count : int
        Number of reported yeses, ``0 <= yes_count <= n``.
    n : int
        Number of noisy answers, ``n >= 1``.
    t, a, b : float or Fraction
        The design, ``t + a + b = 1``.
    confidence_level : float
        One-sided coverage of the bound, in ``(0, 1)``.

    Returns
    -------
    OutsideDesign or None

    Notes
    -----
    The design alone makes ``lambda = a + t pi >= a``. When ``y / n < a``
    the two-sided interval mapped through ``(lambda - a) / t`` can lie wholly
    below 0 and be clipped to ``[0, 0]``: a zero-width interval that reads
    as certainty. The one-sided Clopper-Pearson upper bound does no better:
    it is the largest ``pi`` with ``P(Y <= y | a + t pi) >= alpha``, and
    when even ``P(Y <= y | a) < alpha`` (two coins, ``n = 200``, 38 yeses:
    ``P = 0.03``) no ``pi`` qualifies. The bound reported here divides by
    the chance at the floor (the CLs rule of Junk 1999 and Read 2002, made
    for a signal over a known background, which the forced yeses are)::

        CLs(pi) = P(Y <= y | lambda = a + t pi) / P(Y <= y | lambda = a)
        upper = the pi in [0, 1] with CLs(pi) = alpha      (1 if CLs(1) >= alpha)

    ``CLs(0) = 1`` so the bound is always above 0, and ``CLs(pi) >=
    P(Y <= y | a + t pi)``, so it is never below the Clopper-Pearson bound:
    its coverage is at least ``1 - alpha`` (conservative). Above the
    ceiling the same is done for the no answers: ``n - y`` noes under the
    design ``(t, b, a)`` bound ``1 - pi`` from above, which bounds ``pi``
    from below.

    ``p_value`` is ``P(Y <= y | lambda = a)`` (or ``P(Y >= y | lambda = a +
    t)``): how often so few (many) yeses would come by chance if nobody's
    (everybody's) true answer were yes.

    References
    ----------
    Clopper, C. J. and Pearson, E. S. (1934). Biometrika 26(4), 404-413.
    Junk, T. (1999). Confidence level computation for combining searches with
    small statistics. Nucl. Instrum. Meth. A 434, 435-443.
    Read, A. L. (2002). Presentation of search results: the CL_s technique.
    J. Phys. G 28, 2693-2704.
    """
    yes_count, n = _check_counts(yes_count, n)
    exact = _check_design_exact(t, a, b)
    alpha = 1 - _check_unit_open(confidence_level, "confidence_level")
    t_f, a_f, b_f = (float(p) for p in exact)
    level = float(confidence_level)
    if yes_count < exact[1] * n:  # y / n < a, in exact arithmetic
        upper, p_value = _cls_upper_bound(yes_count, n, t_f, a_f, alpha)
        return OutsideDesign("below", a_f, yes_count / n, upper, p_value, level)
    if (n - yes_count) < exact[2] * n:  # (n - y) / n < b, i.e. y / n > a + t
        upper, p_value = _cls_upper_bound(n - yes_count, n, t_f, b_f, alpha)
        return OutsideDesign("above", a_f + t_f, yes_count / n, 1 - upper, p_value, level)
    return None
