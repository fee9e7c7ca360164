"""A share estimated from a sample drawn without replacement from a finite population of known size.

A survey handed to 710 of a university's 10,777 students is such a sample:
the default standard error of :class:`analysis.ProportionEstimate` treats
the population as infinite and slightly overstates the uncertainty; its
conditional standard error treats the respondents as the whole population
and understates it. The estimator here sits between the two, by the sampling
fraction ``f = n / N``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from analysis._checks import check_counts, check_integer, check_unit_open
from analysis.estimate import ProportionEstimate, estimate_proportion
from analysis.intervals import z_quantile


@dataclass(frozen=True)
class FinitePopulationEstimate:
    """A share of a finite population, with the unbiased variance under simple random sampling without replacement.

    Attributes
    ----------
    estimate : ProportionEstimate
        The point estimate (its ``estimate_raw`` is the Horvitz-Thompson mean
        of the transformed answers under equal inclusion probabilities).
    population_size : int
        ``N``, the number of people the ``n`` respondents were drawn from.
    sampling_fraction : float
        ``f = n / N``.
    variance : float
        The unbiased variance estimate of ``estimate.estimate_raw`` (Notes).
    std_err : float
        ``sqrt(variance)``.
    low, high : float
        The Wald interval ``estimate_raw +/- z std_err``, not clipped, as the
        references print it.
    confidence_level : float
    """

    estimate: ProportionEstimate
    population_size: int
    sampling_fraction: float
    variance: float
    std_err: float
    low: float
    high: float
    confidence_level: float


def estimate_finite_population(
    yes_count: int,
    n: int,
    population_size: int,
    t: float = 0.5,
    a: float = 0.25,
    b: float = 0.25,
    confidence_level: float = 0.95,
) -> FinitePopulationEstimate:
    """Estimate a share of a finite population of ``N`` people from ``n`` of them drawn without replacement.

    Parameters
    ----------
    yes_count, n : int
        Stored answers that point to the trait, out of ``n`` (as
        :func:`analysis.estimate_proportion` takes them; a
        :class:`analysis.BinaryDesign` gives the count and ``(t, a, b)``
        through ``trait_count`` and ``exact``).
    population_size : int
        ``N >= n``.
    t, a, b : float or Fraction
        The design on that count: ``P(counted | trait) = t + a``,
        ``P(counted | no trait) = a``.
    confidence_level : float
        Of the Wald interval.

    Returns
    -------
    FinitePopulationEstimate

    Raises
    ------
    ValueError
        If a count, the design, ``N`` or the level is invalid; the message
        names the value.

    Notes
    -----
    Each answer ``z_i`` in ``{0, 1}`` is turned into ``r_i = (z_i - a) / t``,
    unbiased for the respondent's true ``y_i`` over the randomization. Under
    simple random sampling without replacement with ``f = n / N`` the mean
    ``r_bar`` is unbiased for the population share, and::

        V_hat = (1 - f) s_r^2 / n + (1 / (N n)) sum_i r_i (r_i - 1)

    is unbiased for its variance, where ``s_r^2`` is the sample variance of
    the ``r_i`` (divisor ``n - 1``) and ``r_i (r_i - 1)`` is unbiased for the
    randomization variance of ``r_i`` because ``y_i^2 = y_i`` (Chaudhuri
    2011, section 2.3; the estimator RRTCS computes for every qualitative
    design). ``f -> 0`` gives the infinite-population variance (with divisor
    ``n - 1``, as RRreg); ``f = 1`` leaves the randomization noise alone.

    References
    ----------
    Chaudhuri, A. (2011). *Randomized Response and Indirect Questioning
    Techniques in Surveys*. Chapman and Hall/CRC.
    Cobo, B., Rueda, M. M. and Arcos, A. (2021). RRTCS: Randomized Response
    Techniques for Complex Surveys. R package 0.0.4 (``Estimator``,
    ``Qualitative``; vignette "Application of Horvitz model to a real
    survey").
    """
    yes_count, n = check_counts(yes_count, n)
    if n < 2:
        raise ValueError(f"n must be at least 2 for a sample variance, got {n}")
    population_size = check_integer(population_size, "population_size", n)
    level = check_unit_open(confidence_level, "confidence_level")
    point = estimate_proportion(yes_count, n, t, a, b)
    t_, a_ = float(point.t), float(point.a)
    r_yes, r_no = (1 - a_) / t_, -a_ / t_
    rate = yes_count / n
    sample_variance = rate * (1 - rate) * n / (n - 1) / (t_ * t_)
    randomization = yes_count * r_yes * (r_yes - 1) + (n - yes_count) * r_no * (r_no - 1)
    fraction = n / population_size
    variance = (1 - fraction) * sample_variance / n + randomization / (population_size * n)
    std_err = math.sqrt(max(variance, 0.0))
    half = z_quantile(level) * std_err
    return FinitePopulationEstimate(
        estimate=point,
        population_size=population_size,
        sampling_fraction=fraction,
        variance=variance,
        std_err=std_err,
        low=point.estimate_raw - half,
        high=point.estimate_raw + half,
        confidence_level=level,
    )
