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

import numpy as np
from scipy import optimize, special, stats

from analysis._checks import check_counts, check_design, check_design_exact, check_unit_open

#: :attr:`ConfidenceInterval.side` of an interval with two bounds.
TWO_SIDED = "two-sided"
#: Only ``high`` is a bound (``low`` is the least value the parameter can take): "at most ``high``".
UPPER = "upper"
#: Only ``low`` is a bound (``high`` is the largest value the parameter can take): "at least ``low``".
LOWER = "lower"


@dataclass(frozen=True)
class ConfidenceInterval:
    """A confidence interval, or a one-sided confidence bound.

    Attributes
    ----------
    low, high : float
        The bounds, ``low <= high``. For a proportion both lie in ``[0, 1]``.
    method : str
        How the interval was computed (``"wilson"``, ``"clopper-pearson"``,
        ``"wald"``, ``"clopper-pearson-cls"`` for the one-sided bound of
        :func:`outside_design`, ``"profile likelihood"``).
    confidence_level : float
        The nominal coverage, for example 0.95 (of the one bound when one-sided).
    side : {"two-sided", "upper", "lower"}
        :data:`TWO_SIDED`; or, when the answers sit outside what the design
        can produce (:func:`outside_design`), :data:`UPPER` ("at most
        ``high``", ``low`` is the parameter's least value) or :data:`LOWER`
        ("at least ``low``"). Such a bound is never shown as a two-sided
        interval: mapped through the design, the two-sided interval would
        have width 0 and read as certainty.
    """

    low: float
    high: float
    method: str
    confidence_level: float
    side: str = TWO_SIDED

    @property
    def one_sided(self) -> bool:
        """Whether only one end is a bound (:attr:`side` is ``"upper"`` or ``"lower"``)."""
        return self.side != TWO_SIDED


def z_quantile(confidence_level: object) -> float:
    """The two-sided normal quantile ``z_{1 - alpha/2}`` for a confidence level."""
    level = check_unit_open(confidence_level, "confidence_level")
    return float(stats.norm.ppf(0.5 + level / 2))


# --------------------------------------------------------------------------
# The point estimate and its plug-in standard error, shared with
# analysis.estimate so that the Wald interval and ProportionEstimate.std_err
# are one formula.


def clipped_pi(yes_count: int, n: int, t: float, a: float) -> float:
    """``clip((y/n - a) / t, 0, 1)``: the maximum-likelihood estimate of ``pi``."""
    return min(max((yes_count / n - a) / t, 0.0), 1.0)


def population_std_err(yes_count: int, n: int, t: float, a: float) -> float:
    """``sqrt(lam_c (1 - lam_c) / (n t^2))`` with ``lam_c = a + t * pi_clipped``."""
    lam_c = a + t * clipped_pi(yes_count, n, t, a)
    return math.sqrt(max(lam_c * (1 - lam_c), 0.0) / n) / t


def normal_interval(
    centre: float, std_err: float, confidence_level: float, lower: float = 0.0, upper: float = 1.0
) -> ConfidenceInterval:
    """``centre +/- z * std_err`` clipped to ``[lower, upper]`` (a Wald interval)."""
    half = z_quantile(confidence_level) * std_err
    low = min(max(centre - half, lower), upper)
    high = min(max(centre + half, lower), upper)
    return ConfidenceInterval(low, high, "wald", float(confidence_level))


def mapped_to_pi(lam_low: float, lam_high: float, t: float, a: float) -> tuple[float, float]:
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
    yes_count, n = check_counts(yes_count, n)
    edge = _edge_bound(yes_count, n, t, a, b, confidence_level)
    if edge is not None:
        return edge
    t, a, b = check_design(t, a, b)
    centre = clipped_pi(yes_count, n, t, a)
    std_err = population_std_err(yes_count, n, t, a)
    if std_err == 0:
        # No forced answer of that kind (a = 0 with no yes, or b = 0 with no no): the plug-in is 0.
        return _zero_forced_bound(yes_count, n, t, a, b, confidence_level)
    return normal_interval(centre, std_err, confidence_level)


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
    clipped to ``[0, 1]``. When ``y / n`` lies below ``a`` (fewer yeses than
    the forced ones alone explain) or above ``a + t``, the mapped interval
    would shrink to (nearly) ``[0, 0]`` or ``[1, 1]``: the one-sided bound of
    :func:`outside_design` is returned instead (:func:`confidence_interval`, Notes).

    References
    ----------
    Wilson, E. B. (1927). JASA 22(158), 209-212.
    Brown, L. D., Cai, T. T. and DasGupta, A. (2001). Statistical Science
    16(2), 101-133, section 4.1.1.
    """
    yes_count, n = check_counts(yes_count, n)
    edge = _edge_bound(yes_count, n, t, a, b, confidence_level)
    if edge is not None:
        return edge
    t, a, b = check_design(t, a, b)
    z = z_quantile(confidence_level)
    z2 = z * z
    centre = (yes_count + z2 / 2) / (n + z2)
    half = z / (n + z2) * math.sqrt(yes_count * (n - yes_count) / n + z2 / 4)
    # At y = 0 (y = n) the limit is exactly 0 (1); the subtraction would leave a rounding residue of ~1e-17.
    lam_low = 0.0 if yes_count == 0 else centre - half
    lam_high = 1.0 if yes_count == n else centre + half
    low, high = mapped_to_pi(lam_low, lam_high, t, a)
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
    yes_count, n = check_counts(yes_count, n)
    edge = _edge_bound(yes_count, n, t, a, b, confidence_level)
    if edge is not None:
        return edge
    t, a, b = check_design(t, a, b)
    alpha = 1 - check_unit_open(confidence_level, "confidence_level")
    lam_low = 0.0 if yes_count == 0 else float(stats.beta.ppf(alpha / 2, yes_count, n - yes_count + 1))
    lam_high = 1.0 if yes_count == n else float(stats.beta.ppf(1 - alpha / 2, yes_count + 1, n - yes_count))
    low, high = mapped_to_pi(lam_low, lam_high, t, a)
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

    One rule for every method: when the reported-yes rate lies outside what
    the design can produce (``y / n < a`` or ``y / n > a + t``), the mapped
    two-sided interval would have width 0 or nearly so (two coins, 38 yeses
    of 200: Wilson ``[0, 2.5e-5]``), which reads as certainty. The result is
    then the one-sided bound of :func:`outside_design` (``side`` ``"upper"``
    or ``"lower"``, ``method`` ``"clopper-pearson-cls"``), whatever the
    method asked for.

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


def _log_binom_cdf(yes_count: int, n: int, rate: float) -> float:
    """``log P(Y <= y)`` for ``Y ~ Binomial(n, rate)``, finite even where the probability underflows.

    Far below the mean (1 yes in 10,000 at a rate of 1/4) the probability is under the smallest float and
    scipy's ``logcdf`` gives ``-inf``; then the sum of the pmf is taken in log space over the last terms up
    to ``y``, which fall geometrically below ``y`` (ratio ``j (1 - p) / ((n - j + 1) p) < 1``), as many as
    bring it to 1e-26 of the last.
    """
    value = float(stats.binom.logcdf(yes_count, n, rate))
    if math.isfinite(value) or rate >= 1:
        return value
    ratio = yes_count * (1 - rate) / ((n - yes_count + 1) * rate)
    terms = yes_count + 1 if ratio >= 1 or ratio == 0 else min(yes_count + 1, math.ceil(60 / -math.log(ratio)) + 10)
    js = np.arange(yes_count - terms + 1, yes_count + 1)
    return float(special.logsumexp(stats.binom.logpmf(js, n, rate)))


def _cls_upper_bound(yes_count: int, n: int, t: float, a: float, alpha: float) -> tuple[float, float]:
    """``(upper bound for pi, P(Y <= y | lambda = a))`` by the CLs rule; see :func:`outside_design`.

    The ratio is taken in log space (:func:`_log_binom_cdf`): far below the floor both probabilities
    underflow while their ratio does not.
    """
    log_floor = _log_binom_cdf(yes_count, n, a)
    at_floor = math.exp(log_floor)
    log_alpha = math.log(alpha)

    def cls_minus_alpha(pi: float) -> float:
        # log CLs - log alpha, kept finite (at a rate of 1 with y < n the probability is exactly 0)
        return max(_log_binom_cdf(yes_count, n, a + t * pi) - log_floor, -1e4) - log_alpha

    if cls_minus_alpha(1.0) >= 0:
        return 1.0, at_floor
    return float(optimize.brentq(cls_minus_alpha, 0.0, 1.0, xtol=1e-12)), at_floor


def _edge_bound(
    yes_count: int, n: int, t: object, a: object, b: object, confidence_level: float
) -> ConfidenceInterval | None:
    """The one-sided bound of :func:`outside_design` as a :class:`ConfidenceInterval`; ``None`` inside the design."""
    outside = outside_design(yes_count, n, t, a, b, confidence_level)
    if outside is None:
        return None
    return one_sided_interval(outside)


def one_sided_interval(outside: OutsideDesign) -> ConfidenceInterval:
    """``outside``'s bound as a one-sided :class:`ConfidenceInterval`: ``[0, bound]`` below the floor (side
    ``"upper"``), ``[bound, 1]`` above the ceiling (side ``"lower"``)."""
    if outside.side == "below":
        return ConfidenceInterval(0.0, outside.bound, outside.method, outside.confidence_level, UPPER)
    return ConfidenceInterval(outside.bound, 1.0, outside.method, outside.confidence_level, LOWER)


def _zero_forced_bound(
    yes_count: int, n: int, t: float, a: float, b: float, confidence_level: float
) -> ConfidenceInterval:
    """Wald's fallback when its plug-in standard error is 0: every answer at an edge the design does not force.

    ``y = 0`` with ``a = 0`` (or ``y = n`` with ``b = 0``) puts the clamped rate at 0 (1), so ``pi_hat +/- z
    SE`` would be ``[0, 0]`` (``[1, 1]``). The one-sided bound of :func:`_cls_upper_bound` is given instead;
    with ``a = 0`` its chance at the floor is 1, so it is the one-sided Clopper-Pearson bound.
    """
    alpha = 1 - float(confidence_level)
    level = float(confidence_level)
    if yes_count == 0:
        upper, _ = _cls_upper_bound(yes_count, n, t, a, alpha)
        return ConfidenceInterval(0.0, upper, "clopper-pearson-cls", level, UPPER)
    upper, _ = _cls_upper_bound(n - yes_count, n, t, b, alpha)
    return ConfidenceInterval(1 - upper, 1.0, "clopper-pearson-cls", level, LOWER)


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
    yes_count, n = check_counts(yes_count, n)
    exact = check_design_exact(t, a, b)
    alpha = 1 - check_unit_open(confidence_level, "confidence_level")
    t_f, a_f, b_f = (float(p) for p in exact)
    level = float(confidence_level)
    if yes_count < exact[1] * n:  # y / n < a, in exact arithmetic
        upper, p_value = _cls_upper_bound(yes_count, n, t_f, a_f, alpha)
        return OutsideDesign("below", a_f, yes_count / n, upper, p_value, level)
    if (n - yes_count) < exact[2] * n:  # (n - y) / n < b, i.e. y / n > a + t
        upper, p_value = _cls_upper_bound(n - yes_count, n, t_f, b_f, alpha)
        return OutsideDesign("above", a_f + t_f, yes_count / n, 1 - upper, p_value, level)
    return None
