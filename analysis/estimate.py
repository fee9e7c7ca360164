"""Estimating a proportion from forced-response answers, pooling and comparing.

:func:`estimate_proportion` debiases the noisy yes count of one question
asked under one design. :func:`pool_estimates` combines estimates of the same
question collected under different designs, and :func:`difference` compares
two independent groups.

References
----------
Warner, S. L. (1965). Randomized response: a survey technique for
eliminating evasive answer bias. JASA 60(309), 63-69.
Boruch, R. F. (1971). Assuring confidentiality of responses in social
research: a note on strategies. The American Sociologist 6(4), 308-311.
Blair, G., Imai, K. and Zhou, Y.-Y. (2015). Design and analysis of the
randomized response technique. JASA 110(511), 1304-1319.
Erlingsson, U., Pihur, V. and Korolova, A. (2014). RAPPOR: randomized
aggregatable privacy-preserving ordinal response. CCS 2014, 1054-1067.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from analysis import privacy
from analysis._checks import check_counts, check_design_exact, check_estimates
from analysis.intervals import (
    ConfidenceInterval,
    clipped_pi,
    confidence_interval,
    normal_interval,
    population_std_err,
)


@dataclass(frozen=True)
class ProportionEstimate:
    """Estimate of a population proportion from forced-response answers.

    Attributes
    ----------
    n : int
        Number of noisy answers.
    yes_count : int
        Number of reported yeses.
    t, a, b : Fraction
        The design: truthful, forced-yes and forced-no probabilities, kept
        exact (a float such as ``(1 - 0.654321)/3`` could not be read back
        as the fraction :meth:`confidence_interval` needs).
    observed_rate : float
        ``lambda_hat = yes_count / n``, the reported-yes rate.
    estimate_raw : float
        ``(lambda_hat - a) / t``: unbiased, but may fall outside ``[0, 1]``.
        Use it when averaging or pooling estimates.
    estimate : float
        ``estimate_raw`` clipped to ``[0, 1]``: the maximum-likelihood
        estimate, the number to report.
    clipped : bool
        Whether clipping changed the estimate.
    std_err_population : float
        Standard error for inference about the population the respondents
        were sampled from (the default, :attr:`std_err`).
    std_err_conditional : float
        Standard error of the randomization noise alone, given the
        respondents' true answers.
    """

    n: int
    yes_count: int
    t: Fraction
    a: Fraction
    b: Fraction
    observed_rate: float
    estimate_raw: float
    estimate: float
    clipped: bool
    std_err_population: float
    std_err_conditional: float

    @property
    def std_err(self) -> float:
        """The default standard error: :attr:`std_err_population`.

        A survey's respondents are usually a sample, and the question is about
        the population they were drawn from; the population standard error
        includes that sampling variation as well as the coins' noise.
        """
        return self.std_err_population

    @property
    def epsilon(self) -> float:
        """Local-DP epsilon of one answer; see :func:`analysis.privacy.forced_response_epsilon`."""
        return privacy.forced_response_epsilon(self.t, self.a, self.b)

    def confidence_interval(self, confidence_level: float = 0.95, method: str = "wilson") -> ConfidenceInterval:
        """Confidence interval for the population proportion.

        Parameters
        ----------
        confidence_level : float
            Nominal coverage in ``(0, 1)``; default 0.95.
        method : {"wilson", "clopper-pearson", "wald"}
            See :func:`analysis.intervals.confidence_interval`.

        Returns
        -------
        ConfidenceInterval
            Within ``[0, 1]``.
        """
        return confidence_interval(self.yes_count, self.n, self.t, self.a, self.b, confidence_level, method)


def estimate_proportion(yes_count: int, n: int, t: float = 0.5, a: float = 0.25, b: float = 0.25) -> ProportionEstimate:
    """Estimate the share of true yeses from forced-response answers.

    Parameters
    ----------
    yes_count : int
        Number of reported yeses, ``0 <= yes_count <= n``.
    n : int
        Number of noisy answers, ``n >= 1``.
    t, a, b : float or Fraction
        The design: with probability ``t`` the answer is truthful, with ``a``
        it is forced to yes and with ``b`` forced to no; ``t + a + b = 1``.
        The defaults are two fair coins. Exact fractions are kept as they
        are (pass a design's :meth:`~analysis.ForcedResponseDesign.exact`).

    Returns
    -------
    ProportionEstimate

    Raises
    ------
    ValueError
        If a count or the design is invalid; the message names the value.

    Notes
    -----
    The reported-yes rate is ``lambda = a + t pi`` (Warner 1965; Boruch
    1971), so with ``lambda_hat = y / n``::

        pi_raw = (lambda_hat - a) / t           unbiased for pi
        pi_hat = clip(pi_raw, 0, 1)             the MLE

    **Population standard error (the default).** ``y`` is
    Binomial(n, lambda) when the respondents are a random sample, so
    ``Var(pi_raw) = lambda (1 - lambda) / (n t^2)``. It is estimated with
    ``lambda`` clamped to the values the design allows, ``lam_c = a + t *
    pi_hat`` (as RAPPOR clamps before plugging in; Erlingsson, Pihur and
    Korolova 2014), so that an observed rate outside ``[a, a + t]`` does not
    shrink the standard error::

        std_err_population = sqrt(lam_c (1 - lam_c) / (n t^2))

    This is the default because a survey's respondents are usually a sample
    and the question is about the population they came from: the standard
    error must include the sampling variation as well as the coins.

    **Conditional standard error.** Given the respondents' true answers,
    with a share ``p`` of true yeses, only the coins vary: a true yes reports
    yes with probability ``t + a``, a true no with probability ``a``, so::

        Var = [p (t + a)(1 - t - a) + (1 - p) a (1 - a)] / (n t^2)

    estimated with ``p = pi_hat``. For two coins both terms equal 3/16 and
    ``Var = 3 / (4 n)`` whatever ``p``. Use it when the respondents *are* the
    population of interest (a whole team, a whole class): it measures only
    the privacy noise.

    References
    ----------
    Warner, S. L. (1965). JASA 60(309), 63-69.
    Boruch, R. F. (1971). The American Sociologist 6(4), 308-311.
    Blair, G., Imai, K. and Zhou, Y.-Y. (2015). JASA 110(511), 1304-1319.
    Erlingsson, U., Pihur, V. and Korolova, A. (2014). CCS 2014, 1054-1067.
    """
    yes_count, n = check_counts(yes_count, n)
    exact = check_design_exact(t, a, b)
    t, a, b = (float(p) for p in exact)
    observed = yes_count / n
    raw = (observed - a) / t
    clipped_estimate = p = clipped_pi(yes_count, n, t, a)
    conditional_var = (p * (t + a) * (1 - t - a) + (1 - p) * a * (1 - a)) / (n * t * t)
    return ProportionEstimate(
        n=n,
        yes_count=yes_count,
        t=exact[0],
        a=exact[1],
        b=exact[2],
        observed_rate=observed,
        estimate_raw=raw,
        estimate=clipped_estimate,
        clipped=clipped_estimate != raw,
        std_err_population=population_std_err(yes_count, n, t, a),
        std_err_conditional=math.sqrt(max(conditional_var, 0.0)),
    )


# --------------------------------------------------------------------------
# Pooling designs and comparing groups.


@dataclass(frozen=True)
class PooledEstimate:
    """One question's answers collected under several designs, combined.

    Attributes
    ----------
    n : int
        Total number of answers.
    estimate_raw : float
        The joint maximum-likelihood estimate before clipping: the weighted
        mean of the components' raw estimates with the weights taken at the
        pooled estimate itself (see :func:`pool_estimates`).
    estimate : float
        ``estimate_raw`` clipped to ``[0, 1]``.
    clipped : bool
        Whether clipping changed the estimate.
    std_err : float
        ``sqrt(1 / sum(w_i))``, the weights at the pooled estimate (the
        inverse Fisher information of all the answers).
    weights : tuple of float
        The normalised weights ``w_i / sum(w)``, in the order given.
    """

    n: int
    estimate_raw: float
    estimate: float
    clipped: bool
    std_err: float
    weights: tuple[float, ...]

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Wald interval ``estimate +/- z * std_err``, clipped to ``[0, 1]``.

        Parameters
        ----------
        confidence_level : float
            Nominal coverage in ``(0, 1)``; default 0.95.

        Returns
        -------
        ConfidenceInterval
            With ``method="wald"``.
        """
        return normal_interval(self.estimate, self.std_err, confidence_level)


def _variance_at(estimate: ProportionEstimate, pi: float) -> float:
    """``lam (1 - lam) / (n t^2)`` with ``lam = a + t * clip(pi, 0, 1)``, never 0.

    A design with ``a = 0`` (or ``b = 0``) lets ``lam`` reach 0 (or 1), where
    the variance vanishes and the weight would be infinite; for such a design
    ``lam`` is kept at least ``1/(2n)`` (at most ``1 - 1/(2n)``): the variance
    as if half an answer had gone the other way.
    """
    t, a, b = float(estimate.t), float(estimate.a), float(estimate.b)
    lam = a + t * min(max(pi, 0.0), 1.0)
    half = 1 / (2 * estimate.n)
    if a == 0:
        lam = max(lam, half)
    if b == 0:
        lam = min(lam, 1 - half)
    return lam * (1 - lam) / (estimate.n * t * t)


def _score(items: Sequence[ProportionEstimate], pi: float) -> float:
    """``sum_i w_i(pi) (pi_raw_i - pi)``: the joint log-likelihood's slope, up to a positive factor."""
    return math.fsum((item.estimate_raw - pi) / _variance_at(item, pi) for item in items)


def _common_estimate(items: Sequence[ProportionEstimate]) -> float:
    """The root of :func:`_score` between the smallest and the largest raw estimate (bisection)."""
    low = min(item.estimate_raw for item in items)
    high = max(item.estimate_raw for item in items)
    # _score(low) >= 0 >= _score(high) and _score decreases: halve until the float bracket closes.
    # Each step keeps a float strictly inside the bracket, so the bracket holds fewer floats every
    # time and the loop ends (after at most about 2,100 steps: the float exponents' span).
    while True:
        middle = (low + high) / 2
        if middle in (low, high):
            break
        score = _score(items, middle)
        if score == 0:
            return middle  # an exact root (such as 0 when the designs agree there)
        if score > 0:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def pool_estimates(estimates: Sequence[ProportionEstimate]) -> PooledEstimate:
    """Combine estimates of one question made under different designs.

    Parameters
    ----------
    estimates : sequence of ProportionEstimate
        Independent estimates of the same proportion, for example the answers
        collected before and after the survey's design was changed.

    Returns
    -------
    PooledEstimate

    Raises
    ------
    ValueError
        If ``estimates`` is empty or holds something other than
        :class:`ProportionEstimate`.

    Notes
    -----
    Component ``i`` has ``y_i ~ Binomial(n_i, lam_i)``, ``lam_i = a_i + t_i
    pi``. The joint log-likelihood's derivative in ``pi`` is, with
    ``pi_raw_i = (y_i / n_i - a_i) / t_i``::

        sum_i n_i t_i (y_i/n_i - lam_i) / (lam_i (1 - lam_i))
            = sum_i w_i(pi) (pi_raw_i - pi),    w_i(pi) = n_i t_i^2 / (lam_i (1 - lam_i))

    so the maximum-likelihood estimate is the inverse-variance weighted mean
    of the raw estimates *with every weight taken at the common estimate
    itself*: the fixed point ``pi = sum w_i(pi) pi_raw_i / sum w_i(pi)``.
    The log-likelihood is concave, so the slope decreases and has one root
    between the smallest and largest ``pi_raw_i``; it is found by bisection.
    (``lam_i`` uses ``pi`` clipped to ``[0, 1]``. A design with ``a = 0``
    or ``b = 0`` lets ``lam_i`` reach 0 or 1 and its weight grow without
    bound; its ``lam_i`` is kept within ``[1/(2 n_i), 1 - 1/(2 n_i)]``, and
    the result is then the root of this slightly tempered score rather than
    the exact likelihood maximum.) Then::

        SE_pool = sqrt(1 / sum_i w_i(pi_pool))

    the inverse Fisher information, and ``pi_pool`` clipped to ``[0, 1]``
    is reported.

    Weighting each ``pi_raw_i`` by its *own* estimated variance (the
    textbook inverse-variance mean) biases the pool: a component whose
    noise pushed its estimate towards 0 also gets a smaller variance and
    so more weight. For two coins and a die with 50 answers each at
    ``pi = 0.1`` that bias is about -0.006; weights that depend on the data
    only through the common estimate treat every component alike
    (tests/test_estimate.py::test_pooling_is_unbiased_where_own_weights_are_not).

    References
    ----------
    Cochran, W. G. (1954). The combination of estimates from different
    experiments. Biometrics 10(1), 101-129.
    Blair, G., Imai, K. and Zhou, Y.-Y. (2015). JASA 110(511), 1304-1319
    (maximum likelihood for randomized response).
    """
    items = check_estimates(estimates, ProportionEstimate)
    raw = _common_estimate(items)
    weights = [1 / _variance_at(item, raw) for item in items]
    total = math.fsum(weights)
    estimate = min(max(raw, 0.0), 1.0)
    return PooledEstimate(
        n=sum(item.n for item in items),
        estimate_raw=raw,
        estimate=estimate,
        clipped=estimate != raw,
        std_err=math.sqrt(1 / total),
        weights=tuple(w / total for w in weights),
    )


@dataclass(frozen=True)
class Difference:
    """Difference between the proportions of two independent groups.

    Attributes
    ----------
    estimate : float
        ``first.estimate_raw - second.estimate_raw``, in ``[-1, 1]`` only
        approximately (raw estimates are unclipped).
    std_err : float
        ``sqrt(SE_1^2 + SE_2^2)``.
    ci : ConfidenceInterval
        Wald interval, clipped to ``[-1, 1]``.
    first_raw, second_raw : float
        The two raw (unclipped) estimates subtracted: show them beside the
        difference, since a group's reported estimate may be clipped.
    """

    estimate: float
    std_err: float
    ci: ConfidenceInterval
    first_raw: float = math.nan
    second_raw: float = math.nan


def difference(first: ProportionEstimate, second: ProportionEstimate, confidence_level: float = 0.95) -> Difference:
    """Compare two independent groups: ``pi_1 - pi_2``.

    Parameters
    ----------
    first, second : ProportionEstimate
        Estimates from two independent groups of respondents (the designs may
        differ).
    confidence_level : float
        Nominal coverage in ``(0, 1)``; default 0.95.

    Returns
    -------
    Difference

    Notes
    -----
    The raw estimates are unbiased and independent, so::

        d = pi_raw_1 - pi_raw_2
        SE_d = sqrt(SE_1^2 + SE_2^2)          (population standard errors)
        d +/- z_{1 - alpha/2} SE_d, clipped to [-1, 1]

    References
    ----------
    Warner, S. L. (1965). JASA 60(309), 63-69.
    """
    for name, item in (("first", first), ("second", second)):
        if not isinstance(item, ProportionEstimate):
            raise ValueError(f"{name} must be a ProportionEstimate, got {name}={item!r}")
    estimate = first.estimate_raw - second.estimate_raw
    std_err = math.hypot(first.std_err_population, second.std_err_population)
    ci = normal_interval(estimate, std_err, confidence_level, lower=-1.0, upper=1.0)
    return Difference(
        estimate=estimate, std_err=std_err, ci=ci, first_raw=first.estimate_raw, second_raw=second.estimate_raw
    )
