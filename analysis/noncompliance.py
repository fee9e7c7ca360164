"""Planning a yes/no design when some respondents ignore the instructions and always answer "no".

A share ``c`` of respondents who do not comply with the randomization and store the self-protective
answer "no" whatever their coin says (RRreg's ``complyRates = c(1 - c, 1 - c)``, ``sysBias = c(0, 0)``)
turns the stored-yes rate of a one-parameter design with ``theta1 = P(yes | trait)`` and ``theta0 = P(yes |
no trait)`` from ``lambda = theta0 + d pi`` (``d = theta1 - theta0``) into::

    lambda_c = (1 - c) (theta0 + d pi) + c s

with ``s = 0`` here (``s`` is the share of "yes" among non-compliers, RRreg's ``sysBias``; kept as an
argument). The estimator that assumes everyone complies, ``pi_hat = (lambda_hat - theta0) / d``, then has
the exact expectation ``(lambda_c - theta0) / d``, so its bias is in closed form::

    bias = E[pi_hat] - pi = -c (pi + (theta0 - s) / d)

linear in ``pi``, between ``-c (theta0 - s) / d`` (no one has the trait) and ``-c (1 + (theta0 - s) / d)``
(everyone has it). Asked directly (``theta1 = 1, theta0 = 0``) it is ``-c pi``. A design whose "no" is not
the safe answer (crosswise with ``q < 1/2``, ``d < 0``) is biased upwards.

Its variance is ``lambda_c (1 - lambda_c) / (n d^2)``, so the answers needed for a margin and the power of a
test follow from the normal approximation with ``lambda_c`` in place of ``lambda``; the test is the one an
analyst runs assuming compliance (its rejection threshold uses the null's ``lambda``), as rr's
``power.rr.test`` computes it, here with the non-compliant answers in the alternative.

References
----------
Blair, G., Imai, K. and Zhou, Y.-Y. (2015). Design and analysis of the randomized response technique.
JASA 110(511), 1304-1319 (rr's ``power.rr.test``).
Heck, D. W. and Moshagen, M. (2018). RRreg: an R package for correlation and regression analyses of
randomized response data. Journal of Statistical Software 85(2), 1-29 (``RRgen``, ``RRsimu``:
``complyRates``, ``sysBias``).
Clark, S. J. and Desharnais, R. A. (1998). Honest answers to embarrassing questions: detecting cheating in
the randomized response model. Psychological Methods 3(2), 160-168.
Ulrich, R., Schroter, H., Striegel, H. and Simon, P. (2012). Asking sensitive questions: a statistical power
analysis of randomized response models. Psychological Methods 17(4), 623-641.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import stats

from analysis._checks import check_integer, check_unit_closed, check_unit_open
from analysis.intervals import z_quantile
from analysis.planning import first_n_within, whole_n

#: The tests :func:`noncompliant_power` computes.
ALTERNATIVES = ("larger", "smaller", "two-sided")


def _check_share(value: object, name: str = "noncompliance") -> float:
    """A share of non-compliant respondents in ``[0, 1)`` (all of them leaves nothing to estimate)."""
    share = check_unit_closed(value, name)
    if share >= 1:
        raise ValueError(f"{name} must be in [0, 1), got {name}={value!r}")
    return share


def _check_thetas(theta1: object, theta0: object) -> tuple[float, float]:
    """``(theta1, theta0)`` as floats in ``[0, 1]``, distinct (equal ones carry no information)."""
    one, zero = check_unit_closed(theta1, "theta1"), check_unit_closed(theta0, "theta0")
    if one == zero:
        raise ValueError(f"theta1 and theta0 must differ, got theta1={theta1!r}, theta0={theta0!r}")
    return one, zero


def _checked_design_and_share(
    theta1: object, theta0: object, noncompliance: object, noncompliant_yes: object
) -> tuple[float, float, float, float]:
    """``theta1, theta0, c, s`` checked, in that order (every public function takes these four)."""
    theta1, theta0 = _check_thetas(theta1, theta0)
    return theta1, theta0, _check_share(noncompliance), check_unit_closed(noncompliant_yes, "noncompliant_yes")


def observed_yes_rate(
    pi: float, theta1: float, theta0: float, noncompliance: float = 0.0, noncompliant_yes: float = 0.0
) -> float:
    """The stored-yes rate ``lambda_c = (1 - c) (theta0 + (theta1 - theta0) pi) + c s``.

    Parameters
    ----------
    pi : float
        True share with the trait, in ``[0, 1]``.
    theta1, theta0 : float
        ``P(stored yes | trait)`` and ``P(stored yes | no trait)`` of a complying respondent (forced response:
        ``a + t`` and ``a``; asked directly: 1 and 0).
    noncompliance : float
        Share ``c`` in ``[0, 1)`` of respondents who ignore the instructions.
    noncompliant_yes : float
        Share ``s`` of "yes" among them (RRreg's ``sysBias``); 0, the default, is "always no".

    Returns
    -------
    float
        The probability that a stored answer is "yes".
    """
    pi = check_unit_closed(pi, "pi")
    theta1, theta0, c, s = _checked_design_and_share(theta1, theta0, noncompliance, noncompliant_yes)
    return (1 - c) * (theta0 + (theta1 - theta0) * pi) + c * s


def naive_bias(pi: float, theta1: float, theta0: float, noncompliance: float, noncompliant_yes: float = 0.0) -> float:
    """The exact bias of the estimate that assumes everyone complies.

    Parameters
    ----------
    pi, theta1, theta0, noncompliance, noncompliant_yes : float
        As in :func:`observed_yes_rate`.

    Returns
    -------
    float
        ``E[pi_hat] - pi = -c (pi + (theta0 - s) / (theta1 - theta0))``, on the proportion scale.

    Notes
    -----
    ``pi_hat = (lambda_hat - theta0) / d`` is linear in the stored-yes share, so ``E[pi_hat] = (lambda_c -
    theta0) / d`` exactly, for any ``n`` (before clipping to ``[0, 1]``). Two coins (``theta1 = 3/4, theta0 =
    1/4``), ``c = 0.1``, ``pi = 0.2``: ``-0.1 (0.2 + 0.5) = -0.07``.
    """
    lam = observed_yes_rate(pi, theta1, theta0, noncompliance, noncompliant_yes)
    theta1, theta0 = float(theta1), float(theta0)
    return (lam - theta0) / (theta1 - theta0) - float(pi)


def bias_range(
    theta1: float, theta0: float, noncompliance: float, noncompliant_yes: float = 0.0
) -> tuple[float, float]:
    """The bias of :func:`naive_bias` at ``pi = 0`` and at ``pi = 1``: it lies between them for every ``pi``
    (it is linear in ``pi``)."""
    return (
        naive_bias(0.0, theta1, theta0, noncompliance, noncompliant_yes),
        naive_bias(1.0, theta1, theta0, noncompliance, noncompliant_yes),
    )


def _worst_rate(theta1: float, theta0: float, c: float, s: float) -> float:
    """The ``lambda_c`` over ``pi`` in ``[0, 1]`` closest to 1/2 (largest ``lambda_c (1 - lambda_c)``)."""
    ends = sorted(((1 - c) * theta + c * s) for theta in (theta0, theta1))
    return min(max(0.5, ends[0]), ends[1])


def _rate(pi: float | None, theta1: float, theta0: float, c: float, s: float) -> float:
    if pi is None:
        return _worst_rate(theta1, theta0, c, s)
    return observed_yes_rate(pi, theta1, theta0, c, s)


def noncompliant_half_width(
    n: int,
    theta1: float,
    theta0: float,
    noncompliance: float,
    confidence_level: float = 0.95,
    pi: float | None = None,
    noncompliant_yes: float = 0.0,
) -> float:
    """Half-width ``z sqrt(lambda_c (1 - lambda_c) / n) / |theta1 - theta0|`` of the Wald interval with ``n``
    answers when a share ``noncompliance`` always answers "no" (``pi`` ``None``: worst case over ``pi``).

    The interval is centred on the biased estimate: its width is this, its centre is off by
    :func:`naive_bias`.
    """
    n = check_integer(n, "n", 1)
    theta1, theta0, c, s = _checked_design_and_share(theta1, theta0, noncompliance, noncompliant_yes)
    lam = _rate(pi, theta1, theta0, c, s)
    return z_quantile(confidence_level) * math.sqrt(lam * (1 - lam) / n) / abs(theta1 - theta0)


def noncompliant_sample_size(
    half_width: float,
    theta1: float,
    theta0: float,
    noncompliance: float,
    confidence_level: float = 0.95,
    pi: float | None = None,
    noncompliant_yes: float = 0.0,
) -> int:
    """Answers for a Wald interval of half-width ``h`` when a share ``noncompliance`` always answers "no".

    Parameters
    ----------
    half_width : float
        Wanted margin ``h`` in ``(0, 1)``.
    theta1, theta0, noncompliance, noncompliant_yes : float
        As in :func:`observed_yes_rate`.
    confidence_level : float
        In ``(0, 1)``; default 0.95.
    pi : float or None
        Anticipated share; ``None`` (default) plans for the worst case over ``pi`` in ``[0, 1]``.

    Returns
    -------
    int
        ``ceil(z^2 lambda_c (1 - lambda_c) / (d^2 h^2))``; with ``c = 0`` the same as
        :func:`analysis.planning.sample_size_for_half_width`.

    Notes
    -----
    The margin is about the spread of the estimate, not its bias: the interval is centred on ``pi +``
    :func:`naive_bias`. Asked directly with ``c = 0`` this is statsmodels'
    ``samplesize_confint_proportion(lambda, h)`` rounded up.
    """
    h = check_unit_open(half_width, "half_width")
    theta1, theta0, c, s = _checked_design_and_share(theta1, theta0, noncompliance, noncompliant_yes)
    lam = _rate(pi, theta1, theta0, c, s)
    z = z_quantile(confidence_level)
    return whole_n(z * z * lam * (1 - lam) / ((theta1 - theta0) ** 2 * h * h))


def _spread(pi: float, theta1: float, theta0: float, c: float, s: float) -> float:
    """The standard deviation of one answer's contribution to ``pi_hat``: ``sqrt(lambda_c (1 - lambda_c)) / |d|``."""
    lam = observed_yes_rate(pi, theta1, theta0, c, s)
    return math.sqrt(lam * (1 - lam)) / abs(theta1 - theta0)


def _check_alternative(alternative: object) -> str:
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {', '.join(ALTERNATIVES)}, got alternative={alternative!r}")
    return str(alternative)


def _power(shift: float, spread0: float, spread1: float, n: int, alpha: float, alternative: str) -> float:
    """Power of the z-test with null spread ``spread0``, true spread ``spread1`` and true mean minus null
    ``shift``, on ``n`` answers (``spread0 = 0``: a null the design makes certain, rejected by any shift
    in the tested direction)."""
    root = math.sqrt(n)
    if spread1 == 0:
        spread1 = 1e-300  # every answer the same: the estimate is its mean
    if alternative == "two-sided":
        z = float(stats.norm.ppf(1 - alpha / 2))
        high = (z * spread0 - shift * root) / spread1
        low = (-z * spread0 - shift * root) / spread1
        return float(stats.norm.sf(high) + stats.norm.cdf(low))
    z = float(stats.norm.ppf(1 - alpha))
    sign = 1.0 if alternative == "larger" else -1.0
    return float(stats.norm.sf((z * spread0 - sign * shift * root) / spread1))


def noncompliant_power(
    n: int,
    pi0: float,
    pi1: float,
    theta1: float,
    theta0: float,
    noncompliance: float,
    alpha: float = 0.05,
    alternative: str = "larger",
    noncompliant_yes: float = 0.0,
) -> float:
    """Power of the test of ``pi = pi0`` when the true share is ``pi1`` and a share ``noncompliance`` always
    answers "no".

    Parameters
    ----------
    n : int
        Answers, ``n >= 1``.
    pi0, pi1 : float
        Share under the null (0: "is there anyone with the trait?") and the true share, in ``[0, 1]``.
    theta1, theta0, noncompliance, noncompliant_yes : float
        As in :func:`observed_yes_rate`.
    alpha : float
        Significance level in ``(0, 1)``; default 0.05.
    alternative : str
        ``"larger"`` (default, ``pi > pi0``), ``"smaller"`` or ``"two-sided"``.

    Returns
    -------
    float
        The probability that the analyst's test, which assumes everyone complies, rejects.

    Notes
    -----
    The test rejects (``"larger"``) when ``pi_hat > pi0 + z_{1-alpha} sigma0 / sqrt(n)`` with ``sigma0 =
    sqrt(lambda0 (1 - lambda0)) / |d|``, ``lambda0 = theta0 + d pi0`` (rr's ``se.null``). Under
    non-compliance ``pi_hat`` is about ``N(mu, sigma_c^2 / n)`` with ``mu = pi1 + bias`` and ``sigma_c =
    sqrt(lambda_c (1 - lambda_c)) / |d|``, so::

        power = 1 - Phi( (z_{1-alpha} sigma0 - (mu - pi0) sqrt(n)) / sigma_c )

    (mirrored for ``"smaller"``; the sum of both tails at ``alpha/2`` for ``"two-sided"``). With ``c = 0``
    this is rr's ``power.rr.test(type = "one.sample")``; it is statsmodels'
    ``normal_power_het(mu - pi0, n, alpha, sigma0, sigma_c, alternative)``.
    """
    n = check_integer(n, "n", 1)
    pi0, pi1 = check_unit_closed(pi0, "pi0"), check_unit_closed(pi1, "pi1")
    theta1, theta0, c, s = _checked_design_and_share(theta1, theta0, noncompliance, noncompliant_yes)
    alpha = check_unit_open(alpha, "alpha")
    alternative = _check_alternative(alternative)
    mean = pi1 + naive_bias(pi1, theta1, theta0, c, s)
    spread0 = _spread(pi0, theta1, theta0, 0.0, 0.0)
    return _power(mean - pi0, spread0, _spread(pi1, theta1, theta0, c, s), n, alpha, alternative)


def noncompliant_difference_power(
    n: int,
    pi_control: float,
    pi_treated: float,
    theta1: float,
    theta0: float,
    noncompliance: float,
    alpha: float = 0.05,
    alternative: str = "larger",
    null: tuple[float, float] | None = None,
    noncompliant_yes: float = 0.0,
) -> float:
    """Power of the test of a difference between two independent groups of ``n`` answers each, when a share
    ``noncompliance`` of both always answers "no".

    Parameters
    ----------
    n : int
        Answers in each group.
    pi_control, pi_treated : float
        The groups' true shares; the difference tested is ``pi_treated - pi_control``.
    theta1, theta0, noncompliance, alpha, alternative, noncompliant_yes
        As in :func:`noncompliant_power`.
    null : (float, float) or None
        ``(treated, control)`` shares under the null, whose difference is tested against and whose spreads set
        the threshold (rr's ``prespT.null``, ``prespC.null``); default both ``pi_control``.

    Returns
    -------
    float
        The power of the test that assumes everyone complies.

    Notes
    -----
    The same non-compliance in both groups cancels ``theta0``: the expected difference is ``(1 - c)
    (pi_treated - pi_control)``, its bias ``-c (pi_treated - pi_control)``. The spreads add:
    ``sigma^2 = sigma_T^2 + sigma_C^2``, under the null (rr's two-sample ``se.null``) and under the truth.
    """
    n = check_integer(n, "n", 1)
    control, treated = check_unit_closed(pi_control, "pi_control"), check_unit_closed(pi_treated, "pi_treated")
    null_treated, null_control = (control, control) if null is None else null
    null_treated = check_unit_closed(null_treated, "null[0]")
    null_control = check_unit_closed(null_control, "null[1]")
    theta1, theta0, c, s = _checked_design_and_share(theta1, theta0, noncompliance, noncompliant_yes)
    alpha = check_unit_open(alpha, "alpha")
    alternative = _check_alternative(alternative)
    shift = (1 - c) * (treated - control) - (null_treated - null_control)
    spread0 = math.hypot(*(_spread(pi, theta1, theta0, 0.0, 0.0) for pi in (null_treated, null_control)))
    spread1 = math.hypot(*(_spread(pi, theta1, theta0, c, s) for pi in (treated, control)))
    return _power(shift, spread0, spread1, n, alpha, alternative)


def noncompliant_sample_size_for_power(
    power: float,
    pi0: float,
    pi1: float,
    theta1: float,
    theta0: float,
    noncompliance: float,
    alpha: float = 0.05,
    alternative: str = "larger",
    noncompliant_yes: float = 0.0,
) -> int | None:
    """The smallest ``n`` with :func:`noncompliant_power` at least ``power``; ``None`` when no ``n`` reaches it.

    Notes
    -----
    For a one-sided test ``sqrt(n) = (z_{1-alpha} sigma0 + z_{power} sigma_c) / (mu - pi0)`` (statsmodels'
    ``normal_sample_size_one_tail``), rounded up (1 when the right side is not positive: a target at or
    below the test's level), then the smallest ``n`` up to it that reaches ``power`` found by bisection (the
    power rises with ``n`` when ``mu`` lies on the alternative's side, for either test). When
    non-compliance pulls the expected estimate ``mu`` to the null's side (``mu <= pi0`` for ``"larger"``)
    more answers only make the test surer of the wrong answer: 1 if one answer reaches ``power`` (a target
    below the level), else ``None``. A two-sided test is searched for on whole ``n`` (doubling, then
    bisection) from that start.
    """
    target = check_unit_open(power, "power")
    args = (pi0, pi1, theta1, theta0, noncompliance, alpha, alternative, noncompliant_yes)
    noncompliant_power(1, *args)  # checks every argument
    mean = float(pi1) + naive_bias(pi1, theta1, theta0, noncompliance, noncompliant_yes)
    shift = mean - float(pi0)
    one_sided_alpha = float(alpha) / 2 if alternative == "two-sided" else float(alpha)
    if alternative == "smaller":
        shift = -shift
    elif alternative == "two-sided":
        shift = abs(shift)
    if shift <= 0:
        return 1 if noncompliant_power(1, *args) >= target else None
    spread0 = _spread(pi0, theta1, theta0, 0.0, 0.0)
    spread1 = _spread(pi1, theta1, theta0, noncompliance, noncompliant_yes)
    root = (stats.norm.ppf(1 - one_sided_alpha) * spread0 + stats.norm.ppf(target) * spread1) / shift
    start = whole_n(root * root) if root > 0 else 1
    if noncompliant_power(start, *args) < target:  # a two-sided test's far tail is left out of ``start``
        return first_n_within(lambda n: 1 - noncompliant_power(n, *args), 1 - target, start)
    if noncompliant_power(1, *args) >= target:
        return 1
    below, reached = 1, start  # the power rises with n when mu is on the alternative's side: bisect
    while reached - below > 1:
        middle = (below + reached) // 2
        if noncompliant_power(middle, *args) >= target:
            reached = middle
        else:
            below = middle
    return reached


@dataclass(frozen=True)
class NoncompliancePlan:
    """One design's figures when a share of respondents always answers "no".

    Attributes
    ----------
    noncompliance : float
        The share ``c`` assumed.
    bias_low, bias_high : float
        The bias of the estimate that assumes compliance if no one (``pi = 0``) and if everyone (``pi = 1``)
        has the trait; it lies between the two for every ``pi`` (:func:`bias_range`).
    needed_n : int
        Answers for ``margin`` at ``confidence_level``, worst case over ``pi`` (:func:`noncompliant_sample_size`).
    margin, confidence_level : float
    """

    noncompliance: float
    bias_low: float
    bias_high: float
    needed_n: int
    margin: float
    confidence_level: float

    @property
    def largest_bias(self) -> float:
        """The bias farthest from 0 over every ``pi``."""
        return max(self.bias_low, self.bias_high, key=abs)


def noncompliance_plan(
    theta1: float, theta0: float, noncompliance: float, margin: float, confidence_level: float = 0.95
) -> NoncompliancePlan:
    """The :class:`NoncompliancePlan` of a design (``theta1``, ``theta0``) when a share ``noncompliance``
    always answers "no", planned for ``margin`` at ``confidence_level``."""
    low, high = bias_range(theta1, theta0, noncompliance)
    needed = noncompliant_sample_size(margin, theta1, theta0, noncompliance, confidence_level)
    return NoncompliancePlan(float(noncompliance), low, high, needed, float(margin), float(confidence_level))
