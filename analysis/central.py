"""Central differential privacy for what a survey publishes: noise scales, exact distributions, accounting.

A release adds noise to figures computed from plain answers (the randomized answers are protected already,
and every figure from them is post-processing). Neighbouring data sets differ by one PERSON added or removed;
a person may contribute up to ``rows_per_person`` rows, so a count's sensitivity is ``rows_per_person``
(group privacy) and every scale below takes that sensitivity.

Everything here is pure: numbers in, numbers or frozen results out. The noise itself is drawn in
:mod:`surveys.central_noise` (``secrets`` only).

* Counts: the discrete Laplace (two-sided geometric) mechanism, ``P(Z = k) = (1 - r)/(1 + r) r^|k|`` with
  ``r = exp(-1/t)`` and ``t = sensitivity/epsilon``: epsilon-DP (Ghosh, Roughgarden and Sundararajan 2012;
  Canonne, Kamath and Steinke 2020, section 2).
* Counts under an (epsilon, delta) budget: the discrete Gaussian, ``P(Z = k) proportional to
  exp(-k^2/(2 sigma^2))``, rho-zCDP with ``rho = sensitivity^2/(2 sigma^2)`` (Canonne, Kamath and Steinke
  2020, Theorem 4).
* "The most common answer": the exponential mechanism, ``P(i) proportional to exp(epsilon u_i/(2 D))``
  (McSherry and Talwar 2007).
* Accounting: sequential and parallel composition, advanced composition (Dwork, Rothblum and Vadhan 2010),
  zero-concentrated DP (Bun and Steinke 2016) with its conversion to (epsilon, delta) by Canonne, Kamath and
  Steinke 2020, Corollary 13 (:func:`zcdp_epsilon`); :func:`total_cost` picks the tightest that applies.

References
----------
M. Bun and T. Steinke, "Concentrated Differential Privacy: Simplifications, Extensions, and Lower Bounds",
TCC 2016, arXiv:1605.02065 (Proposition 1.3, 1.4; Lemma 1.7, composition).
C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020,
arXiv:2004.00010 (Algorithms 1-3, Theorem 4, Corollary 13).
C. Dwork, G. N. Rothblum and S. Vadhan, "Boosting and Differential Privacy", FOCS 2010 (Theorem III.3).
F. McSherry and K. Talwar, "Mechanism Design via Differential Privacy", FOCS 2007 (Theorem 6).
F. McSherry, "Privacy Integrated Queries", SIGMOD 2009 (Theorem 4, parallel composition).
A. Ghosh, T. Roughgarden and M. Sundararajan, "Universally Utility-Maximizing Privacy Mechanisms",
SIAM J. Comput. 41(6), 2012.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from scipy.optimize import minimize_scalar
from scipy.stats import norm

from analysis.privacy import advanced_composition

__all__ = [
    "ModeBound",
    "PrivacyCost",
    "SharedFigure",
    "TotalCost",
    "advanced",
    "count_interval",
    "count_scale",
    "discrete_gaussian_pmf",
    "discrete_gaussian_variance",
    "discrete_laplace_pmf",
    "discrete_laplace_quantile",
    "discrete_laplace_variance",
    "exponential_probabilities",
    "gaussian_sigma2",
    "mode_shortfall",
    "nonnegative_counts",
    "parallel",
    "rho_for",
    "sequential",
    "share_with_noise",
    "total_cost",
    "zcdp_epsilon",
]

#: The methods of :class:`TotalCost`, in the order preferred on a tie.
METHODS = ("sequential", "advanced", "zCDP")


@dataclass(frozen=True)
class PrivacyCost:
    """The privacy cost of one figure or one release.

    Attributes
    ----------
    epsilon : float
        The pure epsilon, or the epsilon of an (epsilon, delta) guarantee.
    delta : float
        The delta that goes with ``epsilon`` (0 for pure DP).
    rho : float
        The zero-concentrated DP cost (Bun and Steinke 2016). 0 means not stated: for a pure cost (``delta`` 0)
        ``epsilon^2/2`` is used (Bun and Steinke 2016, Proposition 1.4), and an (epsilon, delta) cost with no
        rho has no zCDP route. :func:`sequential` and :func:`parallel` state it whenever every part has one
        (a pure part counting ``epsilon^2/2``), so a release that mixes pure and Gaussian figures keeps the
        zCDP cost of both.
    """

    epsilon: float
    delta: float = 0.0
    rho: float = 0.0

    def __post_init__(self) -> None:
        for name in ("epsilon", "delta", "rho"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)) or not value >= 0:
                raise ValueError(f"a privacy cost's {name} must be a number >= 0, got {value!r}")
        if not self.delta < 1:
            raise ValueError(f"a privacy cost's delta must be below 1, got {self.delta!r}")


@dataclass(frozen=True)
class TotalCost:
    """What a list of costs adds up to.

    Attributes
    ----------
    epsilon, delta : float
        The guarantee: together the costs are (epsilon, delta)-DP.
    method : str
        ``"sequential"`` (the sums), ``"advanced"`` (Dwork, Rothblum and Vadhan 2010) or ``"zCDP"`` (Bun and
        Steinke 2016, converted by :func:`zcdp_epsilon`): the tightest that applies, and the last two only
        when they are tighter than the sums.
    sequential_epsilon : float
        The plain sum of the epsilons, always shown beside it.
    """

    epsilon: float
    delta: float
    method: str
    sequential_epsilon: float


@dataclass(frozen=True)
class SharedFigure:
    """One share ``c_i / sum c`` of noisy counts, with its standard error and interval (see
    :func:`share_with_noise`)."""

    count: int
    share: float
    std_err: float
    low: float
    high: float


# ----------------------------------------------------------------------------------------------------------------
# argument checks


def _positive_fraction(value: object, name: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    exact = Fraction(value)
    if exact <= 0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    return exact


def _sensitivity(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"the sensitivity must be a whole number >= 1, got {value!r}")
    return value


def _level(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)) or not 0 < value < 1:
        raise ValueError(f"the confidence level must be between 0 and 1, got {value!r}")
    return float(value)


def _delta(value: object, *, zero: bool = False) -> float:
    low_ok = (lambda d: d >= 0) if zero else (lambda d: d > 0)
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)) or not (low_ok(value) and value < 1):
        interval = "[0, 1)" if zero else "(0, 1)"
        raise ValueError(f"delta must be in {interval}, got {value!r}")
    return float(value)


def _integer(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    return value


# ----------------------------------------------------------------------------------------------------------------
# the discrete Laplace mechanism


def count_scale(epsilon: Fraction, sensitivity: int) -> Fraction:
    """The discrete Laplace scale ``t = sensitivity / epsilon``, exactly.

    Parameters
    ----------
    epsilon : Fraction
        The epsilon the count spends, ``> 0`` (an int or float is read exactly as a Fraction).
    sensitivity : int
        How much one person can change the count: ``rows_per_person``.

    Returns
    -------
    Fraction
        ``t``: the noise ``P(Z = k) proportional to exp(-|k|/t)`` makes the count epsilon-DP, since one person
        moves the count by at most ``sensitivity`` and ``exp(sensitivity/t) = exp(epsilon)`` bounds the ratio of
        the two probabilities of every output (Canonne, Kamath and Steinke 2020, section 2).
    """
    return _sensitivity(sensitivity) / _positive_fraction(epsilon, "epsilon")


def _ratio(scale: object) -> tuple[float, float]:
    """``r = exp(-1/t)`` and ``1 - r`` (by ``expm1``, exact in floats for a large scale)."""
    t = float(_positive_fraction(scale, "the scale"))
    return math.exp(-1 / t), -math.expm1(-1 / t)


def discrete_laplace_pmf(k: int, scale: Fraction | float) -> float:
    """``P(Z = k) = (1 - r)/(1 + r) r^|k|`` with ``r = exp(-1/t)``, ``t`` the scale.

    Canonne, Kamath and Steinke 2020, Definition 1 (the two-sided geometric distribution).
    """
    r, one_minus_r = _ratio(scale)
    return one_minus_r / (1 + r) * math.exp(-abs(_integer(k, "k")) / float(Fraction(scale)))


def discrete_laplace_variance(scale: Fraction | float) -> float:
    """``Var Z = 2 r / (1 - r)^2``, ``r = exp(-1/t)``: twice the variance of a geometric variable's
    ``r/(1 - r)^2`` (``Z`` is the difference of two independent geometric variables)."""
    r, one_minus_r = _ratio(scale)
    return 2 * r / one_minus_r**2


def _laplace_tail(m: int, r: float) -> float:
    """``P(|Z| > m) = 2 r^(m + 1) / (1 + r)`` (the two geometric tails beyond ``m``)."""
    return 2 * r ** (m + 1) / (1 + r)


def discrete_laplace_quantile(level: float, scale: Fraction | float) -> int:
    """The smallest ``m >= 0`` with ``P(|Z| <= m) >= level``.

    Notes
    -----
    ``P(|Z| <= m) = 1 - 2 r^(m + 1)/(1 + r)``, so ``m = ceil(ln((1 - level)(1 + r)/2) / ln r) - 1`` (at least
    0); the float candidate is then moved by one step either way until the inequality holds exactly as
    computed.
    """
    level = _level(level)
    r, _ = _ratio(scale)
    if r == 0.0:
        return 0
    m = max(0, math.ceil(math.log((1 - level) * (1 + r) / 2) / math.log(r)) - 1)
    while m > 0 and 1 - _laplace_tail(m - 1, r) >= level:
        m -= 1
    while 1 - _laplace_tail(m, r) < level:
        m += 1
    return m


def count_interval(noisy: int, scale: Fraction | float, level: float) -> tuple[int, int]:
    """The interval for a true count from its noisy count, from the noise alone.

    Parameters
    ----------
    noisy : int
        The count with discrete Laplace noise, as drawn (BEFORE :func:`nonnegative_counts`, which changes the
        noise's distribution).
    scale : Fraction or float
        The noise's scale (:func:`count_scale`).
    level : float
        The confidence level.

    Returns
    -------
    (int, int)
        ``(max(noisy - m, 0), max(noisy + m, 0))`` with ``m`` = :func:`discrete_laplace_quantile`: it holds the
        true count whenever ``|Z| <= m``, so with probability at least ``level``; the ends are clipped at 0,
        which a true count never is below, so the coverage is unchanged.
    """
    noisy = _integer(noisy, "the noisy count")
    m = discrete_laplace_quantile(level, scale)
    return max(noisy - m, 0), max(noisy + m, 0)


# ----------------------------------------------------------------------------------------------------------------
# the discrete Gaussian mechanism and zCDP


def gaussian_sigma2(rho: Fraction, sensitivity: int) -> Fraction:
    """``sigma^2 = sensitivity^2 / (2 rho)``, exactly.

    Canonne, Kamath and Steinke 2020, Theorem 4: adding discrete Gaussian noise of parameter ``sigma^2`` to a
    query of sensitivity ``D`` is ``D^2/(2 sigma^2)``-zCDP.
    """
    return Fraction(_sensitivity(sensitivity) ** 2) / (2 * _positive_fraction(rho, "rho"))


def _theta(sigma2: float) -> tuple[float, float]:
    """``Z = sum_y exp(-y^2/(2 sigma^2))`` and ``sum_y y^2 exp(-y^2/(2 sigma^2))`` over all integers.

    For ``sigma^2 < 1`` the sums converge at once as written; for ``sigma^2 >= 1`` by Poisson summation:
    ``Z = sqrt(2 pi sigma^2) sum_n exp(-2 pi^2 sigma^2 n^2)`` and
    ``sum y^2 ... = sqrt(2 pi sigma^2) sigma^2 sum_n exp(-2 pi^2 sigma^2 n^2) (1 - 4 pi^2 sigma^2 n^2)``
    (the Fourier transform of ``y^2 exp(-y^2/(2 sigma^2))``), whose terms fall as fast. Terms are summed
    until they are below ``1e-300``.
    """
    if sigma2 < 1:
        terms = range(1, math.isqrt(int(80 * sigma2)) + 40)
        z = 1 + 2 * math.fsum(math.exp(-(y * y) / (2 * sigma2)) for y in terms)
        second = 2 * math.fsum(y * y * math.exp(-(y * y) / (2 * sigma2)) for y in terms)
        return z, second
    c = 2 * math.pi**2 * sigma2
    root = math.sqrt(2 * math.pi * sigma2)
    terms = range(1, 40)
    z = root * (1 + 2 * math.fsum(math.exp(-c * n * n) for n in terms))
    second = root * sigma2 * (1 + 2 * math.fsum(math.exp(-c * n * n) * (1 - 2 * c * n * n) for n in terms))
    return z, second


def discrete_gaussian_pmf(k: int, sigma2: Fraction | float) -> float:
    """``P(Z = k) = exp(-k^2/(2 sigma^2)) / sum_y exp(-y^2/(2 sigma^2))`` (Canonne, Kamath and Steinke 2020,
    Definition 1); the normalizing sum as in :func:`_theta`."""
    s2 = float(_positive_fraction(sigma2, "sigma2"))
    k = _integer(k, "k")
    return math.exp(-(k * k) / (2 * s2)) / _theta(s2)[0]


def discrete_gaussian_variance(sigma2: Fraction | float) -> float:
    """``Var Z = sum_y y^2 P(Z = y)``, summed exactly (:func:`_theta`); at most ``sigma^2`` (Canonne, Kamath and
    Steinke 2020, Proposition 19) and within ``3e-7`` of it from ``sigma^2 = 1`` on (``1e-20`` from 3 on)."""
    s2 = float(_positive_fraction(sigma2, "sigma2"))
    z, second = _theta(s2)
    return second / z


def _cks_epsilon(rho: float, delta: float) -> float:
    """Canonne, Kamath and Steinke 2020, Corollary 13, solved for epsilon: rho-zCDP implies (epsilon, delta)-DP
    for ``epsilon = inf_{alpha > 1} alpha rho + (ln(1/delta) + (alpha - 1) ln(1 - 1/alpha) - ln alpha)/(alpha - 1)``.
    The infimum over ``ln(alpha - 1)`` by bounded Brent search (the function is smooth and unimodal there)."""
    log_inv_delta = math.log(1 / delta)

    def eps(log_am1: float) -> float:
        am1 = math.exp(log_am1)
        alpha = am1 + 1
        return alpha * rho + (log_inv_delta + am1 * math.log(am1 / alpha) - math.log(alpha)) / am1

    # the Bun-Steinke optimum alpha = 1 + sqrt(ln(1/delta)/rho) is near; search well around it
    centre = 0.5 * math.log(log_inv_delta / rho)
    found = minimize_scalar(eps, bounds=(centre - 25, centre + 25), method="bounded", options={"xatol": 1e-10})
    return max(0.0, min(float(found.fun), eps(centre)))


def zcdp_epsilon(rho: float, delta: float) -> float:
    """The epsilon of (epsilon, delta)-DP that rho-zCDP implies.

    Parameters
    ----------
    rho : float
        The zCDP cost, ``>= 0``.
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    float
        The smaller of Bun and Steinke 2016, Proposition 1.3, ``rho + 2 sqrt(rho ln(1/delta))``, and Canonne,
        Kamath and Steinke 2020, Corollary 13 (tighter; see :func:`_cks_epsilon`). Both are valid, so their
        minimum is; the second is what OpenDP's ``make_zCDP_to_approxDP`` computes
        (tests/test_central.py::test_zcdp_epsilon_agrees_with_opendp).
    """
    rho = float(rho)
    if not rho >= 0 or not math.isfinite(rho):
        raise ValueError(f"rho must be a finite number >= 0, got {rho!r}")
    delta = _delta(delta)
    if rho == 0:
        return 0.0
    bun_steinke = rho + 2 * math.sqrt(rho * math.log(1 / delta))
    return min(bun_steinke, _cks_epsilon(rho, delta))


def rho_for(epsilon: float, delta: float) -> float:
    """The largest rho with ``zcdp_epsilon(rho, delta) <= epsilon`` (bisection; :func:`zcdp_epsilon` increases
    with rho).

    Starts from Bun and Steinke's closed form ``sqrt(rho) = sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta))``,
    which is a lower end (their conversion is the looser), and doubles an upper end; 100 halvings leave the
    relative error below ``1e-12``, on the safe side (the returned rho never exceeds epsilon).
    """
    epsilon = float(epsilon)
    if not epsilon >= 0 or not math.isfinite(epsilon):
        raise ValueError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    delta = _delta(delta)
    if epsilon == 0:
        return 0.0
    log_inv_delta = math.log(1 / delta)
    low = (math.sqrt(log_inv_delta + epsilon) - math.sqrt(log_inv_delta)) ** 2
    high = 2 * low
    while zcdp_epsilon(high, delta) <= epsilon:
        low, high = high, 2 * high
    for _ in range(100):
        middle = (low + high) / 2
        if zcdp_epsilon(middle, delta) <= epsilon:
            low = middle
        else:
            high = middle
        if high - low <= 1e-13 * high:
            break
    return low


# ----------------------------------------------------------------------------------------------------------------
# the exponential mechanism


def exponential_probabilities(utilities: Sequence[int], epsilon: float, sensitivity: int) -> tuple[float, ...]:
    """The exponential mechanism's probabilities ``exp(epsilon u_i/(2 D)) / sum_j exp(epsilon u_j/(2 D))``.

    Parameters
    ----------
    utilities : sequence of int
        One utility per candidate (for "the most common answer": each option's count).
    epsilon : float
        The epsilon the choice spends, ``> 0``.
    sensitivity : int
        ``D``: how much one person can change any utility (``rows_per_person`` for counts).

    Notes
    -----
    McSherry and Talwar 2007, Theorem 6: epsilon-DP. Computed from ``u_i - max u`` (no overflow).
    """
    if not utilities:
        raise ValueError("the exponential mechanism needs at least one candidate, got none")
    values = [_integer(u, "a utility") for u in utilities]
    eps = float(_positive_fraction(epsilon, "epsilon"))
    d = _sensitivity(sensitivity)
    top = max(values)
    weights = [math.exp(eps * (u - top) / (2 * d)) for u in values]
    total = math.fsum(weights)
    return tuple(w / total for w in weights)


@dataclass(frozen=True)
class ModeBound:
    """How far the chosen "most common answer" may fall short of the true most common one (:func:`mode_shortfall`).

    Attributes
    ----------
    shortfall : float
        ``d`` in ``[0, 1]``: with probability at least ``level`` (over the sample and the noise), the population
        share of the answer chosen is at most ``d`` below the largest population share of any answer.
    answers_low : int
        ``n_low``: the lower confidence bound on the number of answers that was used (0: no bound, ``d = 1``).
    choice : float
        The exponential mechanism's part, ``(2 D / epsilon) ln(k / beta_1) / n_low``.
    sampling : float
        The sampling part, ``sqrt(2 ln((k - 1) / beta_2) / n_low)``.
    level : float
    """

    shortfall: float
    answers_low: int
    choice: float
    sampling: float
    level: float


def mode_shortfall(
    noisy_total: int, options: int, epsilon: float, sensitivity: int, total_scale: Fraction | float, level: float
) -> ModeBound:
    """A bound ``d`` such that the answer the exponential mechanism chose has a population share at most ``d``
    below the largest share, with probability at least ``level``; computed from published numbers only.

    Parameters
    ----------
    noisy_total : int
        The number of answers to the question with discrete Laplace noise of scale ``total_scale`` (as drawn,
        published beside the choice).
    options : int
        ``k``, the number of answers the mechanism chose among.
    epsilon : float
        The epsilon the exponential mechanism spent (:func:`exponential_probabilities`).
    sensitivity : int
        ``D``: how much one person can change a count (``rows_per_person``).
    total_scale : Fraction or float
        The scale of the noise on ``noisy_total`` (:func:`count_scale`).
    level : float
        The confidence level; ``beta = 1 - level`` is split in three equal parts ``beta_1, beta_2, beta_3``.

    Notes
    -----
    The answers are ``n`` independent draws from a population with shares ``pi_1 .. pi_k``; ``p_i = c_i / n``
    are the sample's shares, ``I`` the answer chosen, ``j*`` the population's most common answer. Then

    ``pi_j* - pi_I = [(pi_j* - pi_I) - (p_j* - p_I)] + (p_j* - p_I)``.

    1. The mechanism: given the sample, ``c_max - c_I <= (2 D / epsilon) (ln k + ln(1 / beta_1))`` with
       probability at least ``1 - beta_1`` (McSherry and Talwar 2007; Dwork and Roth 2014, Theorem 3.11, with
       ``t = ln(1 / beta_1)``), and ``p_j* - p_I <= (c_max - c_I) / n``.
    2. Sampling: for each rival ``i != j*``, ``p_j* - p_i`` is the mean of ``n`` independent values of
       ``1{answer = j*} - 1{answer = i}``, which lie in ``[-1, 1]`` (their variance is at most 1) and have mean
       ``pi_j* - pi_i``; by Hoeffding's inequality (Hoeffding 1963, Theorem 2) it falls below its mean by
       ``h`` or more with probability at most ``exp(-n h^2 / 2)``. Over the ``k - 1`` rivals (Bonferroni), with
       probability at least ``1 - beta_2`` none does for ``h = sqrt(2 ln((k - 1) / beta_2) / n)``; this holds
       for the ``I`` chosen, whatever it is (when ``I = j*`` the shortfall is 0).
    3. The number of answers: ``n >= n_low = noisy_total - m`` with probability at least ``1 - beta_3``, ``m``
       the discrete Laplace's two-sided quantile at ``1 - 2 beta_3`` (:func:`discrete_laplace_quantile`; the
       noise is symmetric, so ``P(Z > m) <= beta_3``). Both bounds above decrease in ``n``, so ``n_low`` may
       stand for it.

    By the union bound, with probability at least ``1 - beta_1 - beta_2 - beta_3 = level``,
    ``pi_j* - pi_I <= d = min(1, (2 D / epsilon) ln(k / beta_1) / n_low + sqrt(2 ln((k - 1) / beta_2) / n_low))``;
    ``d = 1`` when ``n_low < 1``, ``d = 0`` when ``k = 1``. Hoeffding's bound holds at every ``n``, where a normal
    approximation with the variance bound ``1 / n`` (narrower by about a quarter) would be asymptotic, and in
    the far tail (``beta_2 / (k - 1)``) where it is least accurate. The bound uses no count beyond
    ``noisy_total``, so it costs no budget beyond that count's.

    References
    ----------
    F. McSherry and K. Talwar, "Mechanism Design via Differential Privacy", FOCS 2007.
    C. Dwork and A. Roth, "The Algorithmic Foundations of Differential Privacy", 2014 (Theorem 3.11).
    W. Hoeffding, "Probability Inequalities for Sums of Bounded Random Variables", JASA 58(301), 1963.
    """
    noisy_total = _integer(noisy_total, "the noisy total")
    k = _integer(options, "the number of options")
    if k < 1:
        raise ValueError(f"the mechanism needs at least one option, got options={options!r}")
    eps = float(_positive_fraction(epsilon, "epsilon"))
    d = _sensitivity(sensitivity)
    level = _level(level)
    beta = (1 - level) / 3
    n_low = max(noisy_total - discrete_laplace_quantile(1 - 2 * beta, total_scale), 0)
    if k == 1:
        return ModeBound(0.0, n_low, 0.0, 0.0, level)
    if n_low < 1:
        return ModeBound(1.0, 0, math.inf, math.inf, level)
    choice = 2 * d / eps * math.log(k / beta) / n_low
    sampling = math.sqrt(2 * math.log((k - 1) / beta) / n_low)
    return ModeBound(min(1.0, choice + sampling), n_low, choice, sampling, level)


# ----------------------------------------------------------------------------------------------------------------
# composition


def _costs(costs: Sequence[PrivacyCost]) -> list[PrivacyCost]:
    found = list(costs)
    for cost in found:
        if not isinstance(cost, PrivacyCost):
            raise ValueError(f"a cost must be a PrivacyCost, got {cost!r}")
    return found


def _rhos(found: list[PrivacyCost]) -> list[float] | None:
    """Each cost's zCDP cost (``epsilon^2/2`` for a pure one with none stated), or None when one has a delta but
    no rho."""
    if any(c.rho == 0 and c.delta > 0 for c in found):
        return None
    return [c.rho if c.rho > 0 else c.epsilon**2 / 2 for c in found]


def sequential(costs: Sequence[PrivacyCost]) -> PrivacyCost:
    """Basic composition: epsilons, deltas and rhos add up (Dwork and Roth 2014, Theorem 3.16; Bun and Steinke
    2016, Lemma 1.7 for rho). No costs cost nothing.

    The rho is the sum of every part's zCDP cost, a pure part's ``epsilon^2/2`` included (so a sum of pure costs
    has a rho too), or 0 when a part has a delta and no rho (see :class:`PrivacyCost`)."""
    found = _costs(costs)
    rhos = _rhos(found)
    return PrivacyCost(
        epsilon=math.fsum(c.epsilon for c in found),
        delta=math.fsum(c.delta for c in found),
        rho=math.fsum(rhos) if rhos is not None else 0.0,
    )


def parallel(costs: Sequence[PrivacyCost]) -> PrivacyCost:
    """Parallel composition over disjoint cells: the largest epsilon, delta and rho (McSherry 2009, Theorem 4).
    No costs cost nothing; the rho as in :func:`sequential`, the largest instead of the sum.

    With ``rows_per_person = D > 1`` a person's rows may fall in several cells, changing them by ``r_1, ..., r_m``
    with ``sum r_j <= D``. It still holds when each cell's noise is scaled to the sensitivity ``D``
    (:func:`count_scale`, :func:`gaussian_sigma2`): the privacy loss is ``sum r_j epsilon/D <= epsilon`` for the
    discrete Laplace, and ``sum r_j^2/(2 sigma^2) <= D^2/(2 sigma^2) = rho`` for the discrete Gaussian (the
    histogram's L1 and L2 sensitivities are at most ``D``)."""
    found = _costs(costs)
    rhos = _rhos(found)
    return PrivacyCost(
        epsilon=max((c.epsilon for c in found), default=0.0),
        delta=max((c.delta for c in found), default=0.0),
        rho=max(rhos, default=0.0) if rhos is not None else 0.0,
    )


def advanced(epsilon: float, k: int, delta_prime: float) -> PrivacyCost:
    """Advanced composition of ``k`` epsilon-DP mechanisms.

    Dwork, Rothblum and Vadhan 2010, Theorem III.3 (Dwork and Roth 2014, Theorem 3.20): together they are
    ``(eps', delta_prime)``-DP with ``eps' = sqrt(2 k ln(1/delta_prime)) epsilon + k epsilon (e^epsilon - 1)``
    (computed by :func:`analysis.privacy.advanced_composition`). The returned cost's delta is ``delta_prime``
    (add ``k delta`` for mechanisms that are themselves (epsilon, delta)-DP).
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise ValueError(f"k must be a whole number >= 0, got {k!r}")
    delta_prime = _delta(delta_prime)
    return PrivacyCost(epsilon=advanced_composition([float(epsilon)] * k, delta_prime), delta=delta_prime)


def _zcdp_total(found: list[PrivacyCost], delta: float) -> float | None:
    """The epsilon of the zCDP route, or None when a cost has a delta but no rho (it cannot be put in zCDP).
    A pure cost counts ``epsilon^2/2`` (Bun and Steinke 2016, Proposition 1.4)."""
    rhos = _rhos(found)
    return None if rhos is None else zcdp_epsilon(math.fsum(rhos), delta)


def _advanced_total(found: list[PrivacyCost], delta: float) -> float | None:
    """The epsilon of advanced composition with ``delta' = delta - sum delta_i`` (heterogeneous epsilons as in
    :func:`analysis.privacy.advanced_composition`), or None when the deltas leave nothing for ``delta'``."""
    spare = delta - math.fsum(c.delta for c in found)
    if spare <= 0:
        return None
    return advanced_composition([c.epsilon for c in found], spare)


def total_cost(costs: Sequence[PrivacyCost], delta: float) -> TotalCost:
    """What the costs add up to under a budget's delta, by the tightest accounting that applies.

    Parameters
    ----------
    costs : sequence of PrivacyCost
        Every figure of every release, in any order (parallel cells already combined by :func:`parallel`).
    delta : float
        The budget's delta, in ``[0, 1)``. With 0 only pure costs are allowed, and the total is their sum.

    Returns
    -------
    TotalCost
        * ``"sequential"``: ``(sum epsilon_i, sum delta_i)``; always computed, shown as ``sequential_epsilon``.
        * ``"advanced"``: when ``sum delta_i < delta``, Dwork, Rothblum and Vadhan 2010 with
          ``delta' = delta - sum delta_i``, guaranteeing ``(eps', delta)``.
        * ``"zCDP"``: when every cost is pure or has a rho, ``rho = sum rho_i`` (``epsilon_i^2/2`` for a pure
          one) converted at ``delta`` by :func:`zcdp_epsilon`, guaranteeing ``(eps, delta)``.

        The smallest epsilon is taken, and "advanced" or "zCDP" only when strictly smaller than the sum (and
        than the other). ``sequential`` needs ``sum delta_i <= delta``; when no method fits the budget's delta
        the sequential sums are returned and the caller sees ``delta`` above its budget.

    Raises
    ------
    ValueError
        When ``delta`` is 0 and a cost has a delta (only pure costs fit a pure budget).
    """
    delta = _delta(delta, zero=True)
    found = _costs(costs)
    plain = sequential(found)
    if delta == 0:
        bad = [c for c in found if c.delta > 0]
        if bad:
            raise ValueError(f"a budget with delta 0 takes pure costs only, got {bad[0]!r}")
        return TotalCost(plain.epsilon, 0.0, "sequential", plain.epsilon)
    best = TotalCost(plain.epsilon, plain.delta, "sequential", plain.epsilon)
    fits = plain.delta <= delta
    for method, epsilon in (("advanced", _advanced_total(found, delta)), ("zCDP", _zcdp_total(found, delta))):
        if epsilon is not None and (not fits or epsilon < best.epsilon):
            best, fits = TotalCost(epsilon, delta, method, plain.epsilon), True
    return best


# ----------------------------------------------------------------------------------------------------------------
# post-processing and intervals of published counts


def _simplex_shift(values: list[int], total: int) -> Fraction:
    """``tau`` with ``sum max(c_i - tau, 0) = total``: the Euclidean projection onto
    ``{x >= 0, sum x = total}`` is ``max(c - tau, 0)`` (Held, Wolfe and Crowder 1974; Duchi et al. 2008,
    Figure 1), exactly in Fractions."""
    ordered = sorted(values, reverse=True)
    running, tau = 0, Fraction(0)
    for j, c in enumerate(ordered, start=1):
        running += c
        candidate = Fraction(running - total, j)
        if c - candidate > 0:
            tau = candidate
    return tau


def nonnegative_counts(noisy: Sequence[int]) -> tuple[int, ...]:
    """Noisy counts made whole and non-negative, keeping their sum.

    Parameters
    ----------
    noisy : sequence of int
        The counts with noise added (some may be negative).

    Returns
    -------
    tuple of int
        Counts ``>= 0`` with the same sum as ``noisy`` when that sum is ``>= 0``, all zeros otherwise.

    Notes
    -----
    How: the nearest vector (Euclidean) with non-negative entries and the same sum ``S`` is
    ``x_i = max(c_i - tau, 0)`` for the one ``tau`` that makes them sum to ``S`` (projection onto the scaled
    simplex); ``tau`` is a fraction with denominator at most ``len(noisy)``. Each ``x_i`` is rounded down and
    the ``S - sum floor(x_i)`` units left go to the largest fractional parts (ties to the earlier cell), so the
    result is whole and sums to ``S``. Counts that are all ``>= 0`` are returned unchanged (``tau = 0``). As
    the sum is kept, so is the expected total: the noise has mean 0, so ``E S`` is the true total (up to the
    rare case ``S < 0``, where nothing can be published but zeros).
    """
    values = [_integer(c, "a noisy count") for c in noisy]
    total = sum(values)
    if total <= 0:
        return tuple(0 for _ in values)
    tau = _simplex_shift(values, total)
    shares = [max(c - tau, Fraction(0)) for c in values]
    whole = [math.floor(x) for x in shares]
    left = total - sum(whole)
    by_remainder = sorted(range(len(values)), key=lambda i: (-(shares[i] - whole[i]), i))
    for i in by_remainder[:left]:
        whole[i] += 1
    return tuple(whole)


def share_with_noise(noisy_counts: Sequence[int], scale: Fraction | float, level: float) -> tuple[SharedFigure, ...]:
    """Shares of noisy counts with a standard error that holds both the sampling error and the noise.

    Parameters
    ----------
    noisy_counts : sequence of int
        The published counts ``c_i`` (each with independent discrete Laplace noise of ``scale``).
    scale : Fraction or float
        The noise's scale.
    level : float
        The confidence level of the intervals.

    Returns
    -------
    tuple of SharedFigure
        Per count: ``share = c_i / n`` (``n = sum c``), its standard error and the interval
        ``share +/- z SE`` clipped to ``[0, 1]``. With ``n <= 0`` there is no share: 0, an infinite standard
        error and the whole range.

    Notes
    -----
    ``SE^2 = p(1 - p)/n + v ((1 - p)^2 + (k - 1) p^2)/n^2``: the multinomial sampling variance of a share of
    ``n`` answers, plus the noise's by the delta method (``p = c_i/n`` has derivative ``(1 - p)/n`` in
    ``c_i`` and ``-p/n`` in each of the other ``k - 1`` counts, each count's noise of variance
    ``v`` = :func:`discrete_laplace_variance`). Both parts are evaluated at the published ``p`` and ``n``.
    """
    counts = [_integer(c, "a count") for c in noisy_counts]
    z = float(norm.ppf(0.5 + _level(level) / 2))
    v = discrete_laplace_variance(scale)
    n, k = sum(counts), len(counts)
    if n <= 0:
        return tuple(SharedFigure(c, 0.0, math.inf, 0.0, 1.0) for c in counts)
    figures = []
    for c in counts:
        p = c / n
        se = math.sqrt(max(p * (1 - p), 0.0) / n + v * ((1 - p) ** 2 + (k - 1) * p * p) / n**2)
        figures.append(SharedFigure(c, p, se, max(0.0, p - z * se), min(1.0, p + z * se)))
    return tuple(figures)
