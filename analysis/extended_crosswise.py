"""The extended crosswise model: the crosswise estimate from two random groups, and its one-df check.

In the crosswise model (Yu, Tian and Tang 2008) a respondent says whether
their answers to the sensitive statement (true for a share ``pi``) and to an
innocuous statement of known prevalence are the same. The extended
crosswise model (Heck, Hoffmann and Moshagen 2018) splits respondents at
random into two groups whose innocuous statements have prevalence ``p``
(group 1) and ``1 - p`` (group 2), ``p != 1/2``. The chance of "same" is::

    lambda_1 = pi p + (1 - pi)(1 - p)   = (1 - p) + pi (2p - 1)
    lambda_2 = pi (1 - p) + (1 - pi) p  = p - pi (2p - 1) = 1 - lambda_1

so under the model group 1's "same" rate equals group 2's "different" rate.
Two observed rates, one parameter: the likelihood is that of one binomial,
``z = same_1 + different_2`` out of ``N = n_1 + n_2`` at rate ``lambda_1``,
and the maximum-likelihood estimate pools both groups::

    pi_raw = (z / N - (1 - p)) / (2p - 1)
    SE(pi) = sqrt(lambda (1 - lambda) / N) / |2p - 1|,   lambda = z / N

clipped to ``[0, 1]`` (the likelihood is concave in ``lambda``, so the
maximum over the parameter space is the nearer end). Nothing is lost against
a one-group crosswise survey of ``N`` respondents (the paper's title).

The check is the likelihood-ratio test of the model against the saturated
one (each group its own rate)::

    G^2 = 2 sum_g [y_g ln(y_g / (n_g e_g)) + (n_g - y_g) ln((n_g - y_g) / (n_g (1 - e_g)))]

with ``e_1 = lambda_hat``, ``e_2 = 1 - lambda_hat``, chi-square with 1
degree of freedom (Pearson's ``X^2`` beside it). Inside the parameter space
it is the G-test of homogeneity of the 2 x 2 table (group 1's same and
different, group 2's different and same). Respondents who answer "same" (or
"different") whatever the truth push both groups' "same" rates the same way,
so ``lambda_1 + lambda_2`` moves away from 1 and the test detects them; a
share answering "same" at random with chance 1/2 keeps the sum at 1 and is
*not* detected (it biases ``pi`` towards 1/2 unseen).

References
----------
Heck, D. W., Hoffmann, A. and Moshagen, M. (2018). Detecting nonadherence
without loss in efficiency: a simple extension of the crosswise model.
Behavior Research Methods 50(5), 1895-1905.
Yu, J.-W., Tian, G.-L. and Tang, M.-L. (2008). Two new models for survey
sampling with sensitive characteristic: design and analysis. Metrika 67(3),
251-263.
Agresti, A. (2013). Categorical Data Analysis, 3rd ed., sections 1.5 and 3.2
(likelihood-ratio and Pearson statistics).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import stats

from analysis._checks import check_integer, check_unit_closed, check_unit_open
from analysis.fit import FitStatistic
from analysis.intervals import ConfidenceInterval, normal_interval


@dataclass(frozen=True)
class ExtendedCrosswiseFit:
    """The one-degree-of-freedom check of the crosswise model against each group's own "same" rate.

    Attributes
    ----------
    likelihood_ratio, pearson : FitStatistic
        ``G^2`` and ``X^2``, 1 degree of freedom, p-values from the chi-square tail.
    expected : tuple of float
        The model's "same" rates of groups 1 and 2 at the estimate (they add up to 1).
    """

    likelihood_ratio: FitStatistic
    pearson: FitStatistic
    expected: tuple[float, float]


@dataclass(frozen=True)
class ExtendedCrosswiseEstimate:
    """The share with the sensitive trait from both groups of an extended crosswise question.

    Attributes
    ----------
    p : float
        Group 1's innocuous prevalence (group 2's is ``1 - p``).
    same : tuple of int
        "Same" answers in groups 1 and 2.
    n : tuple of int
        Answers in groups 1 and 2.
    estimate : float
        The maximum-likelihood estimate of ``pi``, in ``[0, 1]``.
    estimate_raw : float
        The pooled moment estimate before clipping (outside ``[0, 1]`` when the answers are).
    std_err : float
        ``sqrt(lambda (1 - lambda) / N) / |2p - 1|`` at the pooled rate ``lambda``.
    ci : ConfidenceInterval
        Wald interval around ``estimate_raw``, clipped to ``[0, 1]``.
    fit : ExtendedCrosswiseFit
        The one-df check of careless or systematic answering.
    """

    p: float
    same: tuple[int, int]
    n: tuple[int, int]
    estimate: float
    estimate_raw: float
    std_err: float
    ci: ConfidenceInterval
    fit: ExtendedCrosswiseFit

    @property
    def total(self) -> int:
        """Answers in both groups."""
        return self.n[0] + self.n[1]

    @property
    def observed(self) -> tuple[float, float]:
        """Each group's observed "same" rate."""
        return (self.same[0] / self.n[0], self.same[1] / self.n[1])


def group_prevalence(p: object) -> float:
    """Group 1's innocuous prevalence as a float in ``(0, 1)``, not 1/2, or a ``ValueError`` naming it."""
    value = check_unit_open(p, "p")
    if value == 0.5:
        raise ValueError(f"p must differ from 1/2 (the groups' innocuous statements would say nothing), got p={p!r}")
    return value


def extended_crosswise_rates(
    pi: object, p: object, always_same: object = 0.0, always_different: object = 0.0
) -> tuple[float, float]:
    """The two groups' "same" rates when shares of respondents answer "same" or "different" whatever the truth.

    Parameters
    ----------
    pi : float
        The share with the sensitive trait, in ``[0, 1]``.
    p : float
        Group 1's innocuous prevalence, in ``(0, 1)``, not 1/2.
    always_same, always_different : float
        Shares that ignore the instructions (``0`` each: the crosswise model).

    Returns
    -------
    tuple of float
        ``c_s + (1 - c_s - c_d) lambda_g`` for groups 1 and 2, with ``lambda_g`` as in the module's notes.
    """
    pi = check_unit_closed(pi, "pi")
    p = group_prevalence(p)
    same = check_unit_closed(always_same, "always_same")
    different = check_unit_closed(always_different, "always_different")
    if same + different > 1:
        raise ValueError(f"always_same + always_different must be at most 1, got {same} + {different}")
    follow = 1.0 - same - different
    lam = (1 - p) + pi * (2 * p - 1)
    return (same + follow * lam, same + follow * (1 - lam))


def _binomial_log_terms(y: int, n: int, rate: float) -> float:
    """``y ln(y / (n rate)) + (n - y) ln((n - y) / (n (1 - rate)))`` with ``0 ln 0 = 0``."""
    total = 0.0
    for count, chance in ((y, rate), (n - y, 1.0 - rate)):
        if count:
            total += count * math.log(count / (n * chance))
    return total


def _fit(same: tuple[int, int], n: tuple[int, int], lam: float) -> ExtendedCrosswiseFit:
    """G^2 and X^2 of the model's rates ``(lam, 1 - lam)`` against each group's own, 1 df."""
    expected = (lam, 1.0 - lam)
    g2 = 2.0 * sum(_binomial_log_terms(y, m, e) for y, m, e in zip(same, n, expected))
    x2 = sum(m * (y / m - e) ** 2 / (e * (1.0 - e)) for y, m, e in zip(same, n, expected))
    g2 = max(g2, 0.0)
    return ExtendedCrosswiseFit(
        FitStatistic("likelihood ratio", g2, 1, float(stats.chi2.sf(g2, 1))),
        FitStatistic("pearson", x2, 1, float(stats.chi2.sf(x2, 1))),
        expected,
    )


def estimate_extended_crosswise(
    same_1: object, n_1: object, same_2: object, n_2: object, p: object, confidence_level: object = 0.95
) -> ExtendedCrosswiseEstimate:
    """Estimate ``pi`` from both groups of an extended crosswise question, and check the model (1 df).

    Parameters
    ----------
    same_1, n_1 : int
        "Same" answers and all answers in group 1 (innocuous prevalence ``p``); ``n_1 >= 1``.
    same_2, n_2 : int
        The same in group 2 (innocuous prevalence ``1 - p``); ``n_2 >= 1``.
    p : float
        Group 1's innocuous prevalence, in ``(0, 1)``, not 1/2.
    confidence_level : float
        Of the Wald interval.

    Returns
    -------
    ExtendedCrosswiseEstimate

    Notes
    -----
    ``pi_raw = ((same_1 + n_2 - same_2) / N - (1 - p)) / (2p - 1)``; the estimate is ``pi_raw`` clipped to
    ``[0, 1]``, the maximum of the likelihood over the parameter space. The fit's expected rates are the model's
    at the estimate, so a clipped estimate adds the distance to the edge to ``G^2``, as a fit with ``pi``
    bounded does (Heck, Hoffmann and Moshagen 2018).

    Examples
    --------
    >>> e = estimate_extended_crosswise(130, 200, 70, 200, p=0.25)
    >>> round(e.estimate, 3), round(e.fit.likelihood_ratio.statistic, 3)
    (0.2, 0.0)
    """
    p = group_prevalence(p)
    n1 = check_integer(n_1, "n_1", 1)
    n2 = check_integer(n_2, "n_2", 1)
    y1 = check_integer(same_1, "same_1", 0)
    y2 = check_integer(same_2, "same_2", 0)
    if y1 > n1:
        raise ValueError(f"same_1 must be at most n_1={n1}, got same_1={y1}")
    if y2 > n2:
        raise ValueError(f"same_2 must be at most n_2={n2}, got same_2={y2}")
    level = check_unit_open(confidence_level, "confidence_level")
    total = n1 + n2
    lam = (y1 + n2 - y2) / total
    d = 2 * p - 1
    raw = (lam - (1 - p)) / d
    std_err = math.sqrt(lam * (1 - lam) / total) / abs(d)
    estimate = min(max(raw, 0.0), 1.0)
    fitted = (1 - p) + estimate * d
    return ExtendedCrosswiseEstimate(
        p=p,
        same=(y1, y2),
        n=(n1, n2),
        estimate=estimate,
        estimate_raw=raw,
        std_err=std_err,
        ci=normal_interval(raw, std_err, level),
        fit=_fit((y1, y2), (n1, n2), fitted),
    )
