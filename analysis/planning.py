"""Planning a forced-response survey: sample size, precision and power.

The coins cost precision: one noisy answer carries the information of
``t^2 / (lambda (1 - lambda))`` about ``pi`` instead of ``1 / (pi (1 - pi))``.
For two coins a survey needs about four times as many respondents as a
direct question for the same margin of error.

The fixed-sample functions use the normal approximation to Binomial(n,
lambda), with ``lambda = a + t pi`` the reported-yes rate; the
confidence-sequence ones (:func:`sample_size_for_sequence_half_width`) use
the exact mixture boundary of :mod:`analysis.sequences`.

References
----------
Warner, S. L. (1965). Randomized response: a survey technique for
eliminating evasive answer bias. JASA 60(309), 63-69.
Lensvelt-Mulders, G. J. L. M., Hox, J. J. and van der Heijden, P. G. M.
(2005). How to improve the efficiency of randomised response designs.
Quality and Quantity 39(3), 253-265.
Blair, G., Imai, K. and Zhou, Y.-Y. (2015). Design and analysis of the
randomized response technique. JASA 110(511), 1304-1319.
Howard, S. R., Ramdas, A., McAuliffe, J. and Sekhon, J. (2021).
Time-uniform, nonparametric, nonasymptotic confidence sequences. Annals of
Statistics 49(2), 1055-1080.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from scipy import stats

from analysis._checks import check_design, check_design_exact, check_integer, check_unit_closed, check_unit_open
from analysis.design import MultipleChoiceDesign
from analysis.intervals import z_quantile
from analysis.misclassification import MisclassificationDesign, producible_worst_case_variances
from analysis.sequences import MIXTURE_PRIOR, lower_rate_bound
from analysis.two_group import CheaterDetectionDesign, StochasticLieDetectorDesign, TwoGroupDesign

#: How close ``n`` computed in floating point must be to an integer to be
#: taken as that integer before rounding up (so 400.0000000001 is 400).
_INTEGER_TOLERANCE = 1e-9


def whole_n(exact: float, least: int = 1) -> int:
    """A sample size computed in floating point, rounded up to a whole number of answers, at least ``least``.

    Within :data:`_INTEGER_TOLERANCE` of an integer it is taken as that integer first, so that rounding error
    never adds an answer (400.0000000001 is 400).
    """
    nearest = round(exact)
    if abs(exact - nearest) <= _INTEGER_TOLERANCE * max(1.0, exact):
        exact = nearest
    return max(least, math.ceil(exact))


def first_n_within(width: Callable[[int], float], h: float, low: int) -> int:
    """The smallest ``n > low`` with ``width(n) <= h``, given ``width(low) > h`` and ``width`` falling with ``n``.

    Doubling from ``low`` until ``width`` is at most ``h``, then bisection on whole ``n`` (invariant:
    ``width(low) > h >= width(high)``).
    """
    high = 2 * low
    while width(high) > h:
        low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        if width(middle) > h:
            low = middle
        else:
            high = middle
    return high


def _worst_case_rate(t: float, a: float) -> float:
    """The ``lambda`` in ``[a, a + t]`` closest to 1/2, maximising ``lambda (1 - lambda)``."""
    return min(max(0.5, a), a + t)


def _rate(pi: float | None, t: float, a: float) -> float:
    if pi is None:
        return _worst_case_rate(t, a)
    return a + t * check_unit_closed(pi, "pi")


def sample_size_for_half_width(
    half_width: float,
    confidence_level: float = 0.95,
    t: float = 0.5,
    a: float = 0.25,
    b: float = 0.25,
    pi: float | None = None,
) -> int:
    """Number of answers for a Wald interval of a given half-width.

    Parameters
    ----------
    half_width : float
        Wanted margin of error ``h`` on the proportion scale, in ``(0, 1)``.
    confidence_level : float
        Nominal coverage in ``(0, 1)``; default 0.95.
    t, a, b : float
        The design, ``t + a + b = 1``; default two coins.
    pi : float or None
        Anticipated proportion in ``[0, 1]``. ``None`` (default) plans for
        the worst case over all ``pi``.

    Returns
    -------
    int
        The smallest ``n`` whose half-width is at most ``h``.

    Notes
    -----
    The half-width is ``z sqrt(lambda (1 - lambda) / n) / t``, so::

        n = ceil( z^2 lambda (1 - lambda) / (t^2 h^2) ),   lambda = a + t pi

    With ``pi`` unknown, ``lambda`` ranges over ``[a, a + t]`` and
    ``lambda (1 - lambda)`` is largest at the point of that range closest to
    1/2. Two coins, ``h = 0.05``, 95%: ``lambda = 1/2`` and
    ``n = ceil(1.96^2 / 4 / (0.25 * 0.0025)) = 1537``, four times the 385 of a
    direct question.

    References
    ----------
    Warner, S. L. (1965). JASA 60(309), 63-69.
    Lensvelt-Mulders, G. J. L. M., Hox, J. J. and van der Heijden, P. G. M.
    (2005). Quality and Quantity 39(3), 253-265.
    """
    h = check_unit_open(half_width, "half_width")
    z = z_quantile(confidence_level)
    t, a, b = check_design(t, a, b)
    lam = _rate(pi, t, a)
    return whole_n(z * z * lam * (1 - lam) / (t * t * h * h))


def half_width_for_n(
    n: int,
    confidence_level: float = 0.95,
    t: float = 0.5,
    a: float = 0.25,
    b: float = 0.25,
    pi: float | None = None,
) -> float:
    """Margin of error of the Wald interval with ``n`` answers.

    Parameters
    ----------
    n : int
        Number of answers, ``n >= 1``.
    confidence_level : float
        Nominal coverage in ``(0, 1)``; default 0.95.
    t, a, b : float
        The design, ``t + a + b = 1``; default two coins.
    pi : float or None
        Anticipated proportion in ``[0, 1]``; ``None`` (default) for the
        worst case.

    Returns
    -------
    float
        ``h = z sqrt(lambda (1 - lambda) / n) / t``.

    Notes
    -----
    The inverse of :func:`sample_size_for_half_width`, with ``lambda`` chosen
    the same way. Two coins, ``n = 1000``, 95%, worst case:
    ``1.96 * sqrt(0.25 / 1000) / 0.5 = 0.062``.

    References
    ----------
    Warner, S. L. (1965). JASA 60(309), 63-69.
    """
    n = check_integer(n, "n", 1)
    z = z_quantile(confidence_level)
    t, a, b = check_design(t, a, b)
    lam = _rate(pi, t, a)
    return z * math.sqrt(lam * (1 - lam) / n) / t


def _information(pi: float, t: float, a: float, name: str) -> float:
    """Fisher information about ``pi`` in one answer: ``t^2 / (lambda (1 - lambda))``."""
    lam = a + t * pi
    if not 0 < lam < 1:
        raise ValueError(
            f"{name}={pi!r} makes every answer the same under this design "
            f"(lambda = a + t * {name} = {lam}); the test is undefined"
        )
    return t * t * (1 / lam + 1 / (1 - lam))


def power_one_sided(
    n: int,
    pi0: float,
    pi1: float,
    t: float = 0.5,
    a: float = 0.25,
    b: float = 0.25,
    alpha: float = 0.05,
) -> float:
    """Power of the one-sided z-test of ``pi = pi0`` against ``pi = pi1``.

    Parameters
    ----------
    n : int
        Number of answers, ``n >= 1``.
    pi0 : float
        Proportion under the null hypothesis, in ``[0, 1]``.
    pi1 : float
        Proportion under the alternative, in ``[0, 1]``. The test rejects for
        large estimates if ``pi1 > pi0`` and for small ones if ``pi1 < pi0``.
    t, a, b : float
        The design, ``t + a + b = 1``; default two coins.
    alpha : float
        Significance level in ``(0, 1)``; default 0.05.

    Returns
    -------
    float
        The probability of rejecting when ``pi = pi1`` (equal to ``alpha``
        when ``pi1 = pi0``). A plain float, like statsmodels' ``power``
        methods.

    Raises
    ------
    ValueError
        If an argument is out of range, or if ``a + t pi`` is 0 or 1 for
        ``pi0`` or ``pi1`` (every answer would be the same).

    Notes
    -----
    One answer carries Fisher information
    ``I(pi) = t^2 [1/lambda + 1/(1 - lambda)]`` with ``lambda = a + t pi``,
    and the estimate is approximately N(pi, 1 / (n I(pi))). For
    ``pi1 > pi0`` the test rejects when the estimate exceeds
    ``pi0 + z_{1-alpha} / sqrt(n I(pi0))`` (mirrored for ``pi1 < pi0``), so::

        power = Phi( (|pi1 - pi0| - z_{1-alpha} / sqrt(n I(pi0))) * sqrt(n I(pi1)) )

    References
    ----------
    Warner, S. L. (1965). JASA 60(309), 63-69.
    Ulrich, R., Schroter, H., Striegel, H. and Simon, P. (2012). Asking
    sensitive questions: a statistical power analysis of randomized response
    models. Psychological Methods 17(4), 623-641.
    """
    n = check_integer(n, "n", 1)
    pi0 = check_unit_closed(pi0, "pi0")
    pi1 = check_unit_closed(pi1, "pi1")
    level = check_unit_open(alpha, "alpha")
    t, a, b = check_design(t, a, b)
    info0 = _information(pi0, t, a, "pi0")
    info1 = _information(pi1, t, a, "pi1")
    z = float(stats.norm.ppf(1 - level))
    shift = abs(pi1 - pi0) - z / math.sqrt(n * info0)
    return float(stats.norm.cdf(shift * math.sqrt(n * info1)))


def _sequence_half_width(n: int, lam: float, t: float, level: float) -> float:
    """Half the width, on the ``pi`` scale before clipping, of the mixture sequence at ``S = n lambda``."""
    a0, b0 = MIXTURE_PRIOR
    log_threshold = -math.log1p(-level)
    yes = n * lam
    low = lower_rate_bound(yes, n, a0, b0, log_threshold)
    high = 1.0 - lower_rate_bound(n - yes, n, b0, a0, log_threshold)
    return (high - low) / (2 * t)


def sequence_half_width_for_n(
    n: int,
    confidence_level: float = 0.95,
    t: float = 0.5,
    a: float = 0.25,
    b: float = 0.25,
    pi: float | None = None,
) -> float:
    """Margin of error of the anytime-valid confidence sequence after ``n`` answers.

    Parameters
    ----------
    n : int
        Number of answers, ``n >= 1``.
    confidence_level : float
        ``1 - alpha`` over every look at once, in ``(0, 1)``; default 0.95.
    t, a, b : float
        The design, ``t + a + b = 1``; default two coins.
    pi : float or None
        Anticipated proportion in ``[0, 1]``; ``None`` (default) for the
        worst case (``lambda`` closest to 1/2, as :func:`half_width_for_n`).

    Returns
    -------
    float
        ``(U_n - L_n) / (2 t)`` for the answers that follow the anticipated
        rate exactly (``S = n lambda``), before clipping to ``[0, 1]``.

    Notes
    -----
    ``L_n < U_n`` are the two rates at which the beta-binomial mixture
    (:func:`analysis.sequences.confidence_sequence`, uniform prior) reaches
    the threshold::

        log B(1 + S, 1 + n - S) - S log lambda - (n - S) log(1 - lambda) = log(1 / alpha),   S = n lambda

    (found by Brent's method as the sequence itself). Laplace's approximation
    of the beta function gives the shape::

        h_seq(n) ~ sqrt( lambda (1 - lambda) [2 log(1/alpha) + log(n / (2 pi_c lambda (1 - lambda)))] / n ) / t

    (``pi_c = 3.14159...``) against ``h_fixed(n) = z sqrt(lambda (1 - lambda) / n) / t``
    for the interval: the squared ratio ``[2 log(1/alpha) + log(n / (2 pi_c
    lambda (1 - lambda)))] / z^2`` grows like ``log n``, the price of looking
    at every ``n``. Two coins, 95%, worst case: ``h_seq(1000) = 0.111``
    against ``h_fixed(1000) = 0.062``.

    References
    ----------
    Robbins, H. (1970). Annals of Mathematical Statistics 41(5), 1397-1409.
    Howard, S. R., Ramdas, A., McAuliffe, J. and Sekhon, J. (2021). Annals of
    Statistics 49(2), 1055-1080.
    """
    n = check_integer(n, "n", 1)
    level = check_unit_open(confidence_level, "confidence_level")
    t, a, b = check_design(t, a, b)
    return _sequence_half_width(n, float(_rate(pi, t, a)), float(t), level)


def sample_size_for_sequence_half_width(
    half_width: float,
    confidence_level: float = 0.95,
    t: float = 0.5,
    a: float = 0.25,
    b: float = 0.25,
    pi: float | None = None,
) -> int:
    """Expected number of answers until the confidence sequence's margin of error reaches ``half_width``.

    Parameters
    ----------
    half_width : float
        Wanted margin of error ``h`` on the proportion scale, in ``(0, 1)``.
    confidence_level : float
        ``1 - alpha`` over every look at once, in ``(0, 1)``; default 0.95.
    t, a, b : float
        The design, ``t + a + b = 1``; default two coins.
    pi : float or None
        Anticipated proportion in ``[0, 1]``; ``None`` (default) plans for
        the worst case over all ``pi``.

    Returns
    -------
    int
        The smallest ``n`` with ``h_seq(n) <= h`` (:func:`sequence_half_width_for_n`):
        where a survey that stops as soon as its sequence is narrow enough
        stops, when its answers follow the anticipated rate. More than
        :func:`sample_size_for_half_width`'s ``n`` for the same ``h``, except
        for a margin close to ``1/t``, which the sequence (its rate bounds
        kept in ``[0, 1]``) reaches after fewer answers than the interval.

    Notes
    -----
    Solves ``h_seq(n) = h`` for the exact boundary (bisection on whole
    ``n``, starting from the fixed-sample ``n``, below which the sequence is
    not narrow enough, or from 1 for a margin close to ``1/t``). By the approximation in
    :func:`sequence_half_width_for_n`, ``n`` is the root of::

        n = lambda (1 - lambda) [2 log(1/alpha) + log(n / (2 pi_c lambda (1 - lambda)))] / (t^2 h^2)

    against ``n_fixed = z^2 lambda (1 - lambda) / (t^2 h^2)`` (:func:`sample_size_for_half_width`).
    Two coins, 95%, worst case, ``h = 0.05``: 5,666 answers against 1,537
    (the approximation gives 5,672).
    The sequence's width at a given ``n`` depends on the answers only
    through ``S / n`` (and little at that), so a survey stopped at the first
    ``n`` with a narrow enough sequence stops close to this ``n``; the
    fixed-sample ``n`` is only valid when it is fixed in advance and the
    interval is looked at once, at the end.

    References
    ----------
    Robbins, H. (1970). Annals of Mathematical Statistics 41(5), 1397-1409.
    Howard, S. R., Ramdas, A., McAuliffe, J. and Sekhon, J. (2021). Annals of
    Statistics 49(2), 1055-1080.
    """
    h = check_unit_open(half_width, "half_width")
    level = check_unit_open(confidence_level, "confidence_level")
    exact = check_design_exact(t, a, b)  # passed on exact: a float of a fraction past 10^6 would be refused
    t, a, b = (float(p) for p in exact)
    lam, scale = float(_rate(pi, t, a)), float(t)

    def width(n: int) -> float:
        return _sequence_half_width(n, lam, scale, level)

    low = max(1, sample_size_for_half_width(h, level, *exact, pi) - 1)  # too few: narrower than any sequence
    if width(low) <= h:  # h near 1/t: the clipped sequence beats the interval
        if width(1) <= h:
            return 1
        low = 1
    return first_n_within(width, h, low)


# --------------------------------------------------------------------------
# Two-group designs (cheater detection, stochastic lie detector): sample
# size, precision and power for the prevalence. Kept as one block.


@dataclass(frozen=True)
class TwoGroupPlan:
    """Group sizes for a two-group design.

    Attributes
    ----------
    n1, n2, n : int
        Answers wanted in group 1, group 2 and in all (``n = n1 + n2``).
    group_share : float
        Share of respondents assigned to group 1.
    half_width : float
        The Wald half-width for ``pi`` these sizes give, ``<=`` the target.
    confidence_level : float
    """

    n1: int
    n2: int
    n: int
    group_share: float
    half_width: float
    confidence_level: float


def _two_group_components(design: TwoGroupDesign, pi: float, second: float) -> tuple[float, float]:
    """``A_i = g_i^2 lambda_i (1 - lambda_i)`` so that ``Var(pi_hat) = A_1/n1 + A_2/n2`` (delta method)."""
    if not isinstance(design, (CheaterDetectionDesign, StochasticLieDetectorDesign)):
        raise ValueError(f"design must be a two-group design, got design={design!r}")
    pi = check_unit_closed(pi, "pi")
    second = check_unit_closed(second, design.second_parameter)
    if not design.in_space(pi, second):
        raise ValueError(f"pi={pi!r} and {design.second_parameter}={second!r} lie outside the parameter space")
    lam = design.rates(pi, second)
    gradient, _ = design.moment_gradients(*lam)
    return tuple(g * g * x * (1 - x) for g, x in zip(gradient, lam))  # type: ignore[return-value]


def two_group_half_width(
    design: TwoGroupDesign, n1: int, n2: int, pi: float, second: float, confidence_level: float = 0.95
) -> float:
    """Wald half-width for ``pi`` with ``n1`` and ``n2`` answers: ``z sqrt(A_1/n1 + A_2/n2)``.

    Parameters
    ----------
    design : CheaterDetectionDesign or StochasticLieDetectorDesign
    n1, n2 : int
        Answers in each group, ``>= 1``.
    pi, second : float
        Anticipated prevalence and second parameter (``gamma`` or ``t``).
    confidence_level : float

    Notes
    -----
    ``A_i = g_i^2 lambda_i (1 - lambda_i)`` with ``g`` the gradient of the
    moment estimator of ``pi`` (:func:`analysis.two_group.estimate_two_group`):
    ``(p2, -p1)/(p2 - p1)`` for cheater detection (Clark and Desharnais
    1998), ``(-1, 1)/(p2 - p1)`` for the lie detector (Moshagen et al. 2012).
    """
    n1 = check_integer(n1, "n1", 1)
    n2 = check_integer(n2, "n2", 1)
    z = z_quantile(confidence_level)
    first, other = _two_group_components(design, pi, second)
    return z * math.sqrt(first / n1 + other / n2)


def two_group_sample_size(
    design: TwoGroupDesign,
    half_width: float,
    pi: float,
    second: float,
    confidence_level: float = 0.95,
    group_share: float | None = None,
) -> TwoGroupPlan:
    """Smallest group sizes for a Wald interval of ``pi`` of a given half-width.

    Parameters
    ----------
    design : CheaterDetectionDesign or StochasticLieDetectorDesign
    half_width : float
        Target ``h`` in ``(0, 1)``.
    pi, second : float
        Anticipated prevalence and second parameter (``gamma`` or ``t``).
    confidence_level : float
    group_share : float or None
        Share ``r`` of respondents sent to group 1, in ``(0, 1)``; ``None``
        (default) the share that minimizes ``n``.

    Returns
    -------
    TwoGroupPlan

    Notes
    -----
    With ``n1 = r n``, ``n2 = (1 - r) n`` the variance is ``(A_1/r + A_2/(1 - r))/n``, so::

        n = ceil(z^2 (A_1/r + A_2/(1 - r)) / h^2)

    The best share is Neyman's, ``r = sqrt(A_1)/(sqrt(A_1) + sqrt(A_2))``,
    giving ``n = z^2 (sqrt(A_1) + sqrt(A_2))^2 / h^2``. ``n1 = round(r n)``
    and ``n`` is raised until the rounded sizes meet ``h``. Moshagen et al.
    (2012) recommend more respondents in the group with the lower ``p``;
    the optimal share makes that precise.
    """
    h = check_unit_open(half_width, "half_width")
    first, other = _two_group_components(design, pi, second)
    z = z_quantile(confidence_level)
    if group_share is None:
        share = math.sqrt(first) / (math.sqrt(first) + math.sqrt(other)) if first + other > 0 else 0.5
    else:
        share = check_unit_open(group_share, "group_share")
    n = whole_n(z * z * (first / share + other / (1 - share)) / (h * h), least=2)
    while True:
        n1, _ = _group_sizes(n, share)
        width = z * math.sqrt(first / n1 + other / (n - n1))
        if width <= h:
            return TwoGroupPlan(n1, n - n1, n, share, width, float(confidence_level))
        n += 1


def two_group_power(
    design: TwoGroupDesign, n1: int, n2: int, pi0: float, pi1: float, second: float, alpha: float = 0.05
) -> float:
    """Power of the one-sided z-test of ``pi = pi0`` against ``pi = pi1`` in a two-group design.

    Parameters
    ----------
    design : CheaterDetectionDesign or StochasticLieDetectorDesign
    n1, n2 : int
        Answers in each group.
    pi0, pi1 : float
        Prevalence under the null and the alternative.
    second : float
        Anticipated second parameter (``gamma`` or ``t``), the same under both.
    alpha : float
        Significance level; default 0.05.

    Returns
    -------
    float

    Notes
    -----
    As :func:`power_one_sided`, with ``SE(pi) = sqrt(A_1/n1 + A_2/n2)`` at each hypothesis::

        power = Phi( (|pi1 - pi0| - z_{1-alpha} SE(pi0)) / SE(pi1) )

    References
    ----------
    Ulrich, R. et al. (2012). Psychological Methods 17(4), 623-641.
    Moshagen, M., Musch, J. and Erdfelder, E. (2012). Behavior Research Methods 44(1), 222-231.
    """
    n1 = check_integer(n1, "n1", 1)
    n2 = check_integer(n2, "n2", 1)
    level = check_unit_open(alpha, "alpha")
    se = []
    for name, value in (("pi0", pi0), ("pi1", pi1)):
        try:
            first, other = _two_group_components(design, value, second)
        except ValueError as error:
            raise ValueError(f"{name}: {error}") from None
        se.append(math.sqrt(first / n1 + other / n2))
    if se[0] == 0 or se[1] == 0:
        raise ValueError(
            f"pi0={pi0!r} or pi1={pi1!r} makes every answer the same under this design; the test is undefined"
        )
    z = float(stats.norm.ppf(1 - level))
    return float(stats.norm.cdf((abs(float(pi1) - float(pi0)) - z * se[0]) / se[1]))


def two_group_worst_case(design: TwoGroupDesign) -> tuple[float, float]:
    """``(pi, second)`` at which both groups' reported-yes rates are 1/2: the worst case for planning ``pi``.

    The moment estimator of ``pi`` is linear in the two rates with a constant
    gradient ``g`` (:func:`two_group_half_width`), so ``Var(pi_hat) = sum_i
    g_i^2 lambda_i (1 - lambda_i) / n_i`` is largest where each ``lambda_i =
    1/2``; both designs reach that point inside their parameter space:
    cheater detection at ``pi = gamma = 1/2`` (no honest non-carrier, so
    ``lambda_i = pi`` whatever ``p_i``), the stochastic lie detector at ``pi =
    1, t = 1/2``. Planning there bounds the margin of error for any
    prevalence and any non-compliance.
    """
    if isinstance(design, CheaterDetectionDesign):
        return 0.5, 0.5
    if isinstance(design, StochasticLieDetectorDesign):
        return 1.0, 0.5
    raise ValueError(f"design must be a two-group design, got design={design!r}")


def _two_group_sequence_half_width(
    weights: tuple[float, float], sizes: tuple[int, int], rates: tuple[float, float], level: float
) -> float:
    """``sum_i |w_i| h_i``: half the width of :func:`analysis.two_group_sequence` before clipping, each rate's
    mixture sequence at ``1 - alpha/2`` with ``S_i = n_i lambda_i``."""
    each = 1 - (1 - level) / 2
    return sum(abs(w) * _sequence_half_width(n, lam, 1.0, each) for w, n, lam in zip(weights, sizes, rates))


def _check_rates(rates: object) -> tuple[float, float]:
    if rates is None:
        return 0.5, 0.5
    try:
        pair = tuple(rates)  # type: ignore[call-overload]
    except TypeError:
        pair = ()
    if len(pair) != 2:
        raise ValueError(f"rates must be a pair of reported-yes rates (group 1, group 2), got rates={rates!r}")
    return check_unit_closed(pair[0], "rates[0]"), check_unit_closed(pair[1], "rates[1]")


def _group_sizes(n: int, share: float) -> tuple[int, int]:
    """``(n1, n2)`` with ``n1 = round(share n)``, each at least 1."""
    n1 = min(max(1, round(share * n)), n - 1)
    return n1, n - n1


def two_group_sequence_half_width_for_n(
    design: TwoGroupDesign,
    n1: int,
    n2: int,
    confidence_level: float = 0.95,
    rates: tuple[float, float] | None = None,
) -> float:
    """Margin of error of the two-group prevalence's confidence sequence after ``n1`` and ``n2`` answers.

    Parameters
    ----------
    design : CheaterDetectionDesign or StochasticLieDetectorDesign
    n1, n2 : int
        Answers in group 1 and group 2, each ``>= 1``.
    confidence_level : float
        ``1 - alpha`` over every look at once; default 0.95.
    rates : pair of float or None
        Anticipated reported-yes rates ``(lambda_1, lambda_2)``; ``None``
        (default) the worst case ``(1/2, 1/2)`` (:func:`two_group_worst_case`).

    Returns
    -------
    float
        ``sum_i |g_i| h_i`` where ``g`` is the gradient of the moment
        estimator of ``pi`` and ``h_i`` half the width of group ``i``'s
        rate sequence at ``1 - alpha/2`` (``t = 1``, ``S_i = n_i lambda_i``,
        as :func:`sequence_half_width_for_n`): half the width of the box
        :func:`analysis.two_group_sequence` maps, before clipping to ``[0, 1]``.
    """
    n1 = check_integer(n1, "n1", 1)
    n2 = check_integer(n2, "n2", 1)
    level = check_unit_open(confidence_level, "confidence_level")
    lam = _check_rates(rates)
    weights, _ = design.moment_gradients(*lam)
    return _two_group_sequence_half_width(weights, (n1, n2), lam, level)


def two_group_sample_size_for_sequence(
    design: TwoGroupDesign,
    half_width: float,
    confidence_level: float = 0.95,
    group_share: float = 0.5,
    rates: tuple[float, float] | None = None,
) -> int:
    """Expected number of answers (both groups) until the two-group prevalence's sequence reaches ``half_width``.

    Parameters
    ----------
    design : CheaterDetectionDesign or StochasticLieDetectorDesign
    half_width : float
        Wanted margin of error ``h`` in ``(0, 1)``.
    confidence_level : float
        ``1 - alpha`` over every look at once; default 0.95.
    group_share : float
        Share of respondents assigned to group 1 (the survey's
        ``group_1_share``), in ``(0, 1)``; default 1/2.
    rates : pair of float or None
        Anticipated reported-yes rates; ``None`` (default) the worst case.

    Returns
    -------
    int
        The smallest ``n`` with :func:`two_group_sequence_half_width_for_n`
        at ``n1 = round(r n)``, ``n2 = n - n1`` at most ``h`` (doubling, then
        bisection on whole ``n``, as :func:`sample_size_for_sequence_half_width`).
    """
    h = check_unit_open(half_width, "half_width")
    level = check_unit_open(confidence_level, "confidence_level")
    share = check_unit_open(group_share, "group_share")
    lam = _check_rates(rates)
    weights, _ = design.moment_gradients(*lam)

    def width(n: int) -> float:
        return _two_group_sequence_half_width(weights, _group_sizes(n, share), lam, level)

    if width(2) <= h:
        return 2
    return first_n_within(width, h, 2)


# --------------------------------------------------------------------------
# select_one: every option share of a k-option or misclassification-matrix design.


def _matrix_of(design: MisclassificationDesign | MultipleChoiceDesign) -> MisclassificationDesign:
    if isinstance(design, MultipleChoiceDesign):
        return MisclassificationDesign.from_multiple_choice(design.k, design.t)
    if isinstance(design, MisclassificationDesign):
        return design
    raise ValueError(f"design must be a MultipleChoiceDesign or MisclassificationDesign, got design={design!r}")


def _widest_option_spread(design: MisclassificationDesign | MultipleChoiceDesign) -> float:
    """``V = max_j max_pi n Var(pi_hat_j)``: the largest one-answer variance of any option's estimate over the
    true shares, at reported shares the design can produce
    (:func:`analysis.misclassification.producible_worst_case_variances`)."""
    return max(producible_worst_case_variances(_matrix_of(design), 1))


def option_shares_sample_size(
    design: MisclassificationDesign | MultipleChoiceDesign, half_width: float, confidence_level: float = 0.95
) -> int:
    """Answers for a Wald interval of half-width ``half_width`` on *every* option share, in the worst case.

    Parameters
    ----------
    design : MisclassificationDesign or MultipleChoiceDesign
        A k-option design is read as its matrix ``t I + (1 - t)/k 1 1'``.
    half_width : float
        Wanted margin of error ``h`` of each option share, in ``(0, 1)``.
    confidence_level : float
        Nominal coverage of each option's interval (not simultaneous), in ``(0, 1)``.

    Returns
    -------
    int
        ``ceil(z^2 V / h^2)``, ``V`` the largest one-answer variance of any option's raw estimate over every
        true share (:func:`analysis.misclassification.producible_worst_case_variances`).

    Notes
    -----
    Option ``j``'s raw estimate has variance ``(sum_k A_jk^2 lambda_k - pi_j^2) / n`` (van den Hout and van der
    Heijden 2002), ``A = P^-1``, at reported shares ``lambda = P pi`` the design can produce. That is at most
    ``R_j^2 / (4 n)``, ``R_j`` the range of row ``j`` of ``P^-1`` (Popoviciu), but only reported shares the
    matrix can produce count: for a matrix that cannot put half the answers on both extreme options the
    worst case is smaller (the 3 x 3 matrix SKEWED of tests/test_planning.py, h = 0.01: 44,984 answers, not 51,144).
    For the k-option design ``P^-1 = (I - (1 - t)/k 1 1') / t``, ``V = 1/(4 t^2)`` when a reported share of
    1/2 can be produced, and ``n = ceil(z^2 / (4 t^2 h^2))``, a yes/no forced-response design's worst case
    (:func:`sample_size_for_half_width`).
    """
    h = check_unit_open(half_width, "half_width")
    z = z_quantile(confidence_level)
    return whole_n(z * z * _widest_option_spread(design) / (h * h))


def option_shares_half_width(
    design: MisclassificationDesign | MultipleChoiceDesign, n: int, confidence_level: float = 0.95
) -> float:
    """The widest option's Wald half-width with ``n`` answers in the worst case: ``z sqrt(V / n)``
    (the inverse of :func:`option_shares_sample_size`)."""
    n = check_integer(n, "n", 1)
    return z_quantile(confidence_level) * math.sqrt(_widest_option_spread(design) / n)


def option_shares_power(
    design: MisclassificationDesign | MultipleChoiceDesign, n: int, difference: float, alpha: float = 0.05
) -> float:
    """Power of the one-sided z-test that an option share differs from a null value by ``difference``, in the
    worst case of every option and every true share.

    Parameters
    ----------
    design : MisclassificationDesign or MultipleChoiceDesign
        A k-option design is read as its matrix ``t I + (1 - t)/k 1 1'``.
    n : int
        Number of answers, ``n >= 1``.
    difference : float
        ``|pi1 - pi0|`` for the option tested, in ``[0, 1]``.
    alpha : float
        Significance level in ``(0, 1)``; default 0.05.

    Returns
    -------
    float
        ``Phi(|difference| / sqrt(V / n) - z_{1-alpha})``; ``alpha`` when ``difference = 0``.

    Notes
    -----
    Each option's raw estimate ``(P^-1 lambda_hat)_j`` is approximately normal with variance at most
    ``V / n`` (:func:`option_shares_sample_size`). Taking that bound under the null and the alternative gives a
    power no option falls below, whatever the true shares: a conservative plan, as the worst-case sample size
    is. For the k-option design ``V = 1/(4 t^2)`` (when a reported share of 1/2 can be produced) and the power
    is ``Phi(2 t sqrt(n) |difference| - z_{1-alpha})``, the yes/no forced-response design's at its worst case
    ``lambda = 1/2`` (:func:`power_one_sided`; Ulrich et al. 2012 for randomized-response power).
    """
    n = check_integer(n, "n", 1)
    shift = check_unit_closed(difference, "difference")
    level = check_unit_open(alpha, "alpha")
    std_err = math.sqrt(_widest_option_spread(design) / n)
    return float(stats.norm.cdf(shift / std_err - stats.norm.ppf(1 - level)))
