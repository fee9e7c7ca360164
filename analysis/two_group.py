"""Two-group designs that measure non-compliance: the cheater detection model and the stochastic lie detector.

Respondents are assigned at random to group 1 or group 2, which use
different randomization probabilities ``p1 != p2``. With two yes rates the
model can afford two parameters: the prevalence ``pi`` and a parameter for
the respondents who do not follow the instructions.

* Cheater detection model (Clark and Desharnais 1998): honest carriers
  (share ``pi``), honest non-carriers (``beta``) and cheaters (``gamma = 1 -
  pi - beta``) who say "no" whatever the randomizer says. An honest
  respondent is prompted to say "yes" with probability ``p_i`` and otherwise
  answers truthfully::

      lambda_i = pi + beta p_i = p_i + (1 - p_i) pi - p_i gamma

  ``pi`` is the share of honest carriers, a lower bound for the prevalence.
* Stochastic lie detector (Moshagen, Musch and Erdfelder 2012): a
  non-carrier says "no" with probability ``p_i`` (and "yes" otherwise); a
  carrier says "yes" with the honesty rate ``t``::

      lambda_i = pi t + (1 - pi)(1 - p_i)

Both models are saturated (two rates, two parameters): inside the parameter
space the moment estimates solve ``lambda_i = y_i / n_i`` exactly and are the
maximum-likelihood estimates. Outside it (RRreg's ``MLest``) the estimate is
the maximum of the likelihood over the parameter space, which lies on its
boundary. In the coordinates ``(pi, beta)`` (cheater detection) and
``(pi, a = pi t)`` (lie detector) both rates are affine, so the
log-likelihood is concave on a triangle: every maximization below is of a
concave function, which is why a root of the score and a golden-section
search on the profile find the maximum.

Neither design has a finite epsilon: a cheater's "no" is not randomized, and
an honest carrier under the cheater detection model never says "no" (see
:data:`NO_EPSILON_LABEL`).

References
----------
Clark, S. J. and Desharnais, R. A. (1998). Honest answers to embarrassing
questions: detecting cheating in the randomized response model.
Psychological Methods 3(2), 160-168.
Moshagen, M., Musch, J. and Erdfelder, E. (2012). A stochastic lie
detector. Behavior Research Methods 44(1), 222-231.
Heck, D. W. and Moshagen, M. (2018). RRreg: an R package for correlation
and regression analyses of randomized response data. Journal of Statistical
Software 85(2), 1-29.
Venzon, D. J. and Moolgavkar, S. H. (1988). A method for computing
profile-likelihood-based confidence intervals. Applied Statistics 37(1), 87-94.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from numbers import Integral

import numpy as np
from scipy import optimize, stats

from analysis._checks import DesignError, as_probability, check_estimates, check_unit_open
from analysis.estimate import PooledEstimate
from analysis.intervals import ConfidenceInterval

#: What the form and the results page say instead of an epsilon for a design
#: whose likelihood ratio is unbounded (``epsilon`` is ``math.inf``, as in
#: :mod:`analysis.privacy`).
NO_EPSILON_LABEL = "no epsilon guarantee: one answer fully reveals"

#: Where the score is read "just inside" an end of a slice (a share of its width): at the ends
#: themselves it can be infinite.
_INSIDE = 1e-13

#: Log-likelihoods this close are the same maximum (float rounding of sums of
#: hundreds of terms); an end of the range within it is preferred to an inner
#: point. A stationary maximum 4e-8 inside an end (curvature 1000) differs by 1e-12.
_TIE = 1e-12


def _check_group_probabilities(p1: object, p2: object, meaning: str) -> tuple[Fraction, Fraction]:
    """``p1, p2`` as exact fractions in ``[0, 1]`` that differ, or a :class:`DesignError` naming the bad one."""
    exact = []
    for name, value in (("p1", p1), ("p2", p2)):
        p = as_probability(value, name)
        if not 0 <= p <= 1:
            raise DesignError(f"{name} ({meaning}) must be in [0, 1], got {name}={p}", name)
        exact.append(p)
    if exact[0] == exact[1]:
        raise DesignError(f"p1 and p2 must differ (the two groups identify the model), got p1 = p2 = {exact[0]}", "p2")
    return exact[0], exact[1]


@dataclass(frozen=True)
class _Slice:
    """The rates along a line of the parameter space: ``lambda_i = alpha_i + beta_i u`` for ``u in [low, high]``."""

    alpha: tuple[float, float]
    beta: tuple[float, float]
    low: float
    high: float


class _TwoGroupRecord:
    """What both two-group designs write down the same way: the stored record and RRreg's call."""

    def to_dict(self) -> dict:
        return {"kind": self.kind, "p1": str(self.p1), "p2": str(self.p2)}

    def rrreg(self) -> dict:
        """RRreg's ``model`` and ``p``: ``RRuni(response, model = , p = , group = )`` gives these moment estimates."""
        return {"model": self.rrreg_model, "p": [str(self.p1), str(self.p2)]}


@dataclass(frozen=True)
class CheaterDetectionDesign(_TwoGroupRecord):
    """The cheater detection model (Clark and Desharnais 1998).

    Attributes
    ----------
    p1, p2 : Fraction
        Probability that an honest respondent of group 1 (2) is prompted to
        say "yes" (RRreg's ``p = c(p1, p2)`` for ``model = "CDM"``); in
        ``[0, 1]``, ``p1 != p2``.

    Notes
    -----
    ``lambda_i = pi + beta p_i`` with ``beta = 1 - pi - gamma``; the second
    parameter is the share of cheaters ``gamma``. Parameter space:
    ``pi >= 0, gamma >= 0, pi + gamma <= 1``.
    """

    p1: Fraction
    p2: Fraction

    def __post_init__(self) -> None:
        p1, p2 = _check_group_probabilities(self.p1, self.p2, "probability of a prompted yes")
        object.__setattr__(self, "p1", p1)
        object.__setattr__(self, "p2", p2)

    kind = "cheater_detection"
    #: Name of the second parameter: the share of cheaters.
    second_parameter = "gamma"
    rrreg_model = "CDM"
    epsilon = math.inf
    epsilon_label = NO_EPSILON_LABEL

    def label(self) -> str:
        return f"cheater detection (prompted yes p1={self.p1}, p2={self.p2})"

    def rates(self, pi: float, gamma: float) -> tuple[float, float]:
        """``lambda_i = pi + (1 - pi - gamma) p_i``: each group's chance of a "yes"."""
        beta = 1 - pi - gamma
        return tuple(pi + beta * float(p) for p in (self.p1, self.p2))  # type: ignore[return-value]

    def rate_derivatives(self, pi: float, gamma: float) -> tuple[np.ndarray, np.ndarray]:
        """First (2 x 2) and second (2 x 2 x 2) derivatives of the rates in ``(pi, gamma)``."""
        p = np.array([float(self.p1), float(self.p2)])
        return np.column_stack([1 - p, -p]), np.zeros((2, 2, 2))

    def in_space(self, pi: float, gamma: float) -> bool:
        return pi >= 0 and gamma >= 0 and pi + gamma <= 1

    def moment(self, lam1: float, lam2: float) -> tuple[float, float]:
        """Clark and Desharnais (1998): ``pi = (p2 l1 - p1 l2)/(p2 - p1)``, ``gamma = 1 - pi - beta``,
        ``beta = (l2 - l1)/(p2 - p1)``."""
        p1, p2 = float(self.p1), float(self.p2)
        pi = (p2 * lam1 - p1 * lam2) / (p2 - p1)
        beta = (lam2 - lam1) / (p2 - p1)
        return pi, 1 - pi - beta

    def moment_gradients(self, lam1: float, lam2: float) -> tuple[tuple[float, float], tuple[float, float]]:
        """Gradients of ``pi`` and ``gamma`` in ``(lambda1, lambda2)`` (constant: the estimators are linear)."""
        p1, p2 = float(self.p1), float(self.p2)
        d = p2 - p1
        return (p2 / d, -p1 / d), ((1 - p2) / d, (p1 - 1) / d)

    def slice_at_pi(self, pi: float) -> _Slice:
        """Fixed ``pi``: the rates are affine in ``u = beta in [0, 1 - pi]``."""
        return _Slice((pi, pi), (float(self.p1), float(self.p2)), 0.0, max(1.0 - pi, 0.0))

    def second_at_pi(self, pi: float, u: float) -> float:
        return 1 - pi - u

    def slice_at_second(self, gamma: float) -> _Slice:
        """Fixed ``gamma``: the rates are affine in ``u = pi in [0, 1 - gamma]``."""
        p = (float(self.p1), float(self.p2))
        return _Slice((p[0] * (1 - gamma), p[1] * (1 - gamma)), (1 - p[0], 1 - p[1]), 0.0, max(1.0 - gamma, 0.0))


@dataclass(frozen=True)
class StochasticLieDetectorDesign(_TwoGroupRecord):
    """The stochastic lie detector (Moshagen, Musch and Erdfelder 2012).

    Attributes
    ----------
    p1, p2 : Fraction
        Probability that a non-carrier of group 1 (2) answers "no" (RRreg's
        ``p = c(p1, p2)`` for ``model = "SLD"``); in ``[0, 1]``, ``p1 != p2``.

    Notes
    -----
    ``lambda_i = pi t + (1 - pi)(1 - p_i)``; the second parameter is the
    honesty rate of carriers ``t``. Parameter space: ``pi, t in [0, 1]``
    (``t`` is not identified when ``pi = 0``).
    """

    p1: Fraction
    p2: Fraction

    def __post_init__(self) -> None:
        p1, p2 = _check_group_probabilities(self.p1, self.p2, "probability that a non-carrier answers no")
        object.__setattr__(self, "p1", p1)
        object.__setattr__(self, "p2", p2)

    kind = "stochastic_lie_detector"
    #: Name of the second parameter: the honesty rate of carriers.
    second_parameter = "t"
    rrreg_model = "SLD"
    epsilon = math.inf
    epsilon_label = NO_EPSILON_LABEL

    def label(self) -> str:
        return f"stochastic lie detector (non-carriers answer no with p1={self.p1}, p2={self.p2})"

    def rates(self, pi: float, t: float) -> tuple[float, float]:
        """``lambda_i = pi t + (1 - pi)(1 - p_i)``: each group's chance of a "yes"."""
        return tuple(pi * t + (1 - pi) * (1 - float(p)) for p in (self.p1, self.p2))  # type: ignore[return-value]

    def rate_derivatives(self, pi: float, t: float) -> tuple[np.ndarray, np.ndarray]:
        """First (2 x 2) and second (2 x 2 x 2) derivatives of the rates in ``(pi, t)``."""
        p = np.array([float(self.p1), float(self.p2)])
        first = np.column_stack([t - (1 - p), np.full(2, pi)])
        second = np.zeros((2, 2, 2))
        second[:, 0, 1] = second[:, 1, 0] = 1.0
        return first, second

    def in_space(self, pi: float, t: float) -> bool:
        return 0 <= pi <= 1 and 0 <= t <= 1

    def moment(self, lam1: float, lam2: float) -> tuple[float, float]:
        """Moshagen et al. (2012): ``pi = 1 - (l1 - l2)/(p2 - p1)``, ``t = (l1 - (1 - pi)(1 - p1)) / pi``."""
        p1, p2 = float(self.p1), float(self.p2)
        pi = 1 - (lam1 - lam2) / (p2 - p1)
        t = (lam1 - (1 - pi) * (1 - p1)) / pi if pi != 0 else math.nan
        return pi, t

    def moment_gradients(self, lam1: float, lam2: float) -> tuple[tuple[float, float], tuple[float, float]]:
        """Gradients of ``pi`` and ``t`` in ``(lambda1, lambda2)``.

        With ``t = N / D``, ``N = l2 (1 - p1) - l1 (1 - p2)`` and
        ``D = (l2 - l1) + (p2 - p1)`` (so that ``pi = D / (p2 - p1)``)::

            dt/dl1 = (N - (1 - p2) D) / D^2,   dt/dl2 = ((1 - p1) D - N) / D^2
        """
        p1, p2 = float(self.p1), float(self.p2)
        d = p2 - p1
        numerator = lam2 * (1 - p1) - lam1 * (1 - p2)
        denominator = (lam2 - lam1) + d
        if denominator == 0:
            return (-1 / d, 1 / d), (math.nan, math.nan)
        squared = denominator * denominator
        return (-1 / d, 1 / d), (
            (numerator - (1 - p2) * denominator) / squared,
            ((1 - p1) * denominator - numerator) / squared,
        )

    def slice_at_pi(self, pi: float) -> _Slice:
        """Fixed ``pi``: the rates are affine in ``u = pi t in [0, pi]``."""
        base = tuple((1 - pi) * (1 - float(p)) for p in (self.p1, self.p2))
        return _Slice(base, (1.0, 1.0), 0.0, pi)  # type: ignore[arg-type]

    def second_at_pi(self, pi: float, u: float) -> float:
        return u / pi if pi > 0 else math.nan

    def slice_at_second(self, t: float) -> _Slice:
        """Fixed ``t``: the rates are affine in ``u = pi in [0, 1]``."""
        q = tuple(1 - float(p) for p in (self.p1, self.p2))
        return _Slice(q, (t - q[0], t - q[1]), 0.0, 1.0)  # type: ignore[arg-type]


TwoGroupDesign = CheaterDetectionDesign | StochasticLieDetectorDesign


def two_group_design_from_dict(record: dict) -> TwoGroupDesign:
    """Rebuild a design from its :meth:`to_dict` record."""
    kinds = {cls.kind: cls for cls in (CheaterDetectionDesign, StochasticLieDetectorDesign)}
    cls = kinds.get(record.get("kind"))
    if cls is None:
        raise DesignError(f"unknown two-group design kind {record.get('kind')!r}")
    missing = [key for key in ("p1", "p2") if key not in record]
    if missing:
        raise DesignError(f"design record {record!r} lacks {missing}")
    return cls(record["p1"], record["p2"])


# --------------------------------------------------------------------------
# The likelihood.


def _log_likelihood(rates: tuple[float, ...], yes: tuple[int, int], n: tuple[int, int]) -> float:
    """``sum_i y_i ln lambda_i + (n_i - y_i) ln(1 - lambda_i)`` (``-inf`` where a count is impossible).

    Plain floats: two groups, called thousands of times per interval.
    """
    total = 0.0
    for lam, y, size in zip(rates, yes, n):
        lam = min(max(float(lam), 0.0), 1.0)
        for count, p in ((y, lam), (size - y, 1.0 - lam)):
            if count:
                if p <= 0:
                    return -math.inf
                total += count * math.log(p)
    return total


def _slice_score(u: float, line: _Slice, yes: tuple[int, int], no: tuple[int, int]) -> float:
    """Derivative of the log-likelihood along the slice at an interior ``u`` (decreasing in ``u``)."""
    score = 0.0
    for alpha, beta, y, m in zip(line.alpha, line.beta, yes, no):
        if beta == 0:
            continue
        lam = alpha + beta * u
        if y:
            score += beta * y / lam if lam > 0 else math.copysign(math.inf, beta)
        if m:
            score -= beta * m / (1 - lam) if lam < 1 else math.copysign(math.inf, beta)
    return score


def _slice_rates(line: _Slice, u: float) -> tuple[float, float]:
    return tuple(a + b * u for a, b in zip(line.alpha, line.beta))  # type: ignore[return-value]


def maximize_slice(line: _Slice, yes: tuple[int, int], n: tuple[int, int]) -> tuple[float, float]:
    """``(u, log-likelihood)`` at the maximum over ``u in [low, high]`` of a concave log-likelihood.

    The score is decreasing in ``u``: if it is negative just inside ``low``
    the maximum is at ``low``, if positive just inside ``high`` at ``high``,
    otherwise at its root (Brent's method). The ends are then compared with
    the root, so a maximum on the boundary is returned exactly.
    """
    no = (n[0] - yes[0], n[1] - yes[1])
    width = line.high - line.low
    candidates = [line.low, line.high]
    if width > 0:
        inner_low, inner_high = line.low + _INSIDE * width, line.high - _INSIDE * width
        if _slice_score(inner_low, line, yes, no) > 0 and _slice_score(inner_high, line, yes, no) < 0:
            root = optimize.brentq(_slice_score, inner_low, inner_high, args=(line, yes, no), xtol=1e-15, rtol=1e-15)
            candidates.append(float(root))
    values = [_log_likelihood(_slice_rates(line, u), yes, n) for u in candidates]
    best = _first_near_maximum(values)
    return candidates[best], values[best]


def _first_near_maximum(values: list[float]) -> int:
    """Index of the first value within :data:`_TIE` of the largest: ends are listed first, so a maximum
    on the boundary is reported exactly there rather than a rounding error inside it."""
    top = max(values)
    return next(i for i, value in enumerate(values) if value >= top - _TIE)


def _profile(design: TwoGroupDesign, parameter: str, value: float, yes, n) -> float:
    """Largest log-likelihood with ``parameter`` (``"pi"`` or the second) held at ``value``."""
    line = design.slice_at_pi(value) if parameter == "pi" else design.slice_at_second(value)
    return maximize_slice(line, yes, n)[1]


def _maximum_likelihood(design: TwoGroupDesign, yes, n) -> tuple[float, float]:
    """``(pi, second)`` maximizing the likelihood over the parameter space.

    The profile log-likelihood of ``pi`` is concave (a concave function
    maximized over the other coordinate of a convex set), so a bounded
    golden-section search finds its maximum; ``pi = 0`` and ``pi = 1`` are
    then compared exactly, and preferred on a tie (:func:`_first_near_maximum`).
    """
    found = optimize.minimize_scalar(
        lambda pi: -_profile(design, "pi", pi, yes, n), bounds=(0.0, 1.0), method="bounded", options={"xatol": 1e-12}
    )
    candidates = (0.0, 1.0, float(found.x))
    values = [_profile(design, "pi", pi, yes, n) for pi in candidates]
    pi = candidates[_first_near_maximum(values)]
    u, _ = maximize_slice(design.slice_at_pi(pi), yes, n)
    return pi, design.second_at_pi(pi, u)


def _observed_information(design: TwoGroupDesign, pi: float, second: float, yes, n) -> np.ndarray:
    """Minus the Hessian of the log-likelihood in ``(pi, second)``.

    ``-d2l = sum_i [y_i/l_i^2 + m_i/(1 - l_i)^2] g_i g_i' - sum_i [y_i/l_i - m_i/(1 - l_i)] H_i``
    with ``g_i``, ``H_i`` the gradient and Hessian of ``lambda_i``; at the
    moment estimate the second sum vanishes (``lambda_i = y_i / n_i``).
    """
    lam = np.asarray(design.rates(pi, second))
    first, second_derivatives = design.rate_derivatives(pi, second)
    y = np.asarray(yes, dtype=float)
    m = np.asarray(n, dtype=float) - y
    with np.errstate(divide="ignore", invalid="ignore"):
        curvature = y / lam**2 + m / (1 - lam) ** 2
        score = y / lam - m / (1 - lam)
    information = np.zeros((2, 2))
    for i in range(2):
        information += curvature[i] * np.outer(first[i], first[i]) - score[i] * second_derivatives[i]
    return information


def _covariance_from_information(information: np.ndarray) -> np.ndarray:
    """The inverse information, or NaNs where it is not finite and positive definite (a boundary estimate)."""
    if not np.all(np.isfinite(information)):
        return np.full((2, 2), math.nan)
    try:
        np.linalg.cholesky(information)
    except np.linalg.LinAlgError:
        return np.full((2, 2), math.nan)
    return np.linalg.inv(information)


def _delta_std_err(gradient: tuple[float, float], lam: tuple[float, float], sizes: tuple[int, int]) -> float:
    """``sqrt(sum_i g_i^2 lambda_i (1 - lambda_i) / sizes_i)`` (the published formulas)."""
    return math.sqrt(sum(g * g * x * (1 - x) / s for g, x, s in zip(gradient, lam, sizes)))


# --------------------------------------------------------------------------
# The result.


@dataclass(frozen=True)
class TwoGroupEstimate:
    """Estimates of a two-group design from the yes counts of each group.

    Attributes
    ----------
    design : CheaterDetectionDesign or StochasticLieDetectorDesign
    yes, n : tuple of int
        Yes count and number of answers of group 1 and group 2.
    observed : tuple of float
        ``lambda_hat_i = yes_i / n_i``.
    second_parameter : str
        ``"gamma"`` (share of cheaters) or ``"t"`` (honesty of carriers).
    pi_moment, second_moment : float
        The closed-form moment estimates (what the papers and RRreg print
        when inside the parameter space); may leave it.
    pi, second : float
        The estimates to report: the moment estimates when they lie in the
        parameter space (where they are the maximum-likelihood estimates),
        otherwise the maximum-likelihood estimate on its boundary (RRreg's
        ``MLest``). ``second`` is NaN for the lie detector at ``pi = 0``.
    on_boundary : bool
        True when the moment estimates left the parameter space.
    pi_std_err, second_std_err : float
        Inside the space: the published delta-method formulas with ``n_i``
        (Clark and Desharnais 1998; Moshagen et al. 2012), equal to the
        observed-information standard errors. On the boundary: from the
        observed information at the maximum (as RRreg's ``optim`` Hessian),
        NaN where it is singular; use the profile intervals there.
    pi_std_err_rrreg, second_std_err_rrreg : float
        The same formulas with ``n_i - 1``, as RRreg's ``RRuni`` prints them
        (for the moment estimates).
    log_likelihood : float
        At ``(pi, second)``.
    """

    design: TwoGroupDesign
    yes: tuple[int, int]
    n: tuple[int, int]
    observed: tuple[float, float]
    second_parameter: str
    pi_moment: float
    second_moment: float
    pi: float
    second: float
    on_boundary: bool
    pi_std_err: float
    second_std_err: float
    pi_std_err_rrreg: float
    second_std_err_rrreg: float
    log_likelihood: float

    @property
    def epsilon(self) -> float:
        """``math.inf``: see :data:`NO_EPSILON_LABEL`."""
        return self.design.epsilon

    def covariance(self) -> np.ndarray:
        """Inverse observed information in ``(pi, second)`` at the reported estimates (NaN if singular)."""
        return _covariance_from_information(_observed_information(self.design, self.pi, self.second, self.yes, self.n))

    def confidence_interval(self, parameter: str = "pi", confidence_level: float = 0.95) -> ConfidenceInterval:
        """Profile-likelihood interval for ``"pi"`` or the second parameter.

        Parameters
        ----------
        parameter : str
            ``"pi"`` or :attr:`second_parameter` (``"gamma"`` or ``"t"``).
        confidence_level : float
            In ``(0, 1)``; default 0.95.

        Returns
        -------
        ConfidenceInterval
            With ``method="profile likelihood"``, within ``[0, 1]``.

        Notes
        -----
        ``{v : 2 (l_max - l_p(v)) <= chi2_{1, level}}`` with the profile
        ``l_p(v) = max l`` over the other parameter (Venzon and Moolgavkar
        1988). The profile is quasi-concave for both parameters (its
        super-level sets are images of convex sets), so each end is the one
        root of ``2 (l_max - l_p) - chi2`` between the estimate and 0 or 1,
        found by Brent's method; an end where the root does not exist is the
        end of the range.
        """
        if parameter not in ("pi", self.second_parameter):
            raise ValueError(f"parameter must be 'pi' or {self.second_parameter!r}, got parameter={parameter!r}")
        level = check_unit_open(confidence_level, "confidence_level")
        centre = self.pi if parameter == "pi" else self.second
        if math.isnan(centre):
            return ConfidenceInterval(0.0, 1.0, "profile likelihood", level)
        drop = float(stats.chi2.ppf(level, 1)) / 2

        def excess(value: float) -> float:
            return self.log_likelihood - _profile(self.design, parameter, value, self.yes, self.n) - drop

        ends = []
        for bound in (0.0, 1.0):
            if excess(bound) <= 0:
                ends.append(bound)
            else:
                ends.append(float(optimize.brentq(excess, min(centre, bound), max(centre, bound), xtol=1e-12)))
        return ConfidenceInterval(ends[0], ends[1], "profile likelihood", level)


def _check_group_counts(yes: object, n: object) -> tuple[tuple[int, int], tuple[int, int]]:
    """Two yes counts and two group sizes as ints, or a ``ValueError`` naming the bad one."""
    out = []
    for name, values in (("yes", yes), ("n", n)):
        try:
            items = tuple(values)  # type: ignore[arg-type]
        except TypeError:
            raise ValueError(f"{name} must be a pair of integers (group 1, group 2), got {name}={values!r}") from None
        if len(items) != 2:
            raise ValueError(f"{name} must be a pair of integers (group 1, group 2), got {name}={values!r}")
        out.append(items)
    for index in range(2):
        size, count = out[1][index], out[0][index]
        if isinstance(size, bool) or not isinstance(size, Integral) or size < 2:
            raise ValueError(f"n[{index}] must be an integer >= 2, got n[{index}]={size!r}")
        if isinstance(count, bool) or not isinstance(count, Integral) or not 0 <= count <= size:
            raise ValueError(f"yes[{index}] must be an integer in [0, n[{index}]={size}], got yes[{index}]={count!r}")
    return (int(out[0][0]), int(out[0][1])), (int(out[1][0]), int(out[1][1]))


def estimate_two_group(yes: tuple[int, int], n: tuple[int, int], design: TwoGroupDesign) -> TwoGroupEstimate:
    """Estimate the prevalence and the non-compliance parameter of a two-group design.

    Parameters
    ----------
    yes : pair of int
        Number of "yes" answers in group 1 and group 2.
    n : pair of int
        Number of answers in group 1 and group 2, each ``>= 2``.
    design : CheaterDetectionDesign or StochasticLieDetectorDesign

    Returns
    -------
    TwoGroupEstimate

    Raises
    ------
    ValueError
        If a count is invalid (the message names it) or ``design`` is not a
        two-group design.

    Notes
    -----
    With ``l_i = yes_i / n_i``:

    * cheater detection (Clark and Desharnais 1998)::

          pi = (p2 l1 - p1 l2) / (p2 - p1),   beta = (l2 - l1) / (p2 - p1),   gamma = 1 - pi - beta
          Var(pi) = [p2^2 l1 (1 - l1)/n1 + p1^2 l2 (1 - l2)/n2] / (p2 - p1)^2
          Var(gamma) = [(1 - p2)^2 l1 (1 - l1)/n1 + (1 - p1)^2 l2 (1 - l2)/n2] / (p2 - p1)^2

    * stochastic lie detector (Moshagen, Musch and Erdfelder 2012)::

          pi = 1 - (l1 - l2) / (p2 - p1),   t = (l1 - (1 - pi)(1 - p1)) / pi
          Var(pi) = [l1 (1 - l1)/n1 + l2 (1 - l2)/n2] / (p2 - p1)^2
          Var(t) = sum_i (dt/dl_i)^2 l_i (1 - l_i) / n_i

    The variances are the delta method on independent binomial rates; RRreg
    divides by ``n_i - 1`` (``*_std_err_rrreg``). When the moment estimates
    leave the parameter space the reported estimates are the constrained
    maximum-likelihood estimates (see the module docstring).

    References
    ----------
    Clark, S. J. and Desharnais, R. A. (1998). Psychological Methods 3(2), 160-168.
    Moshagen, M., Musch, J. and Erdfelder, E. (2012). Behavior Research Methods 44(1), 222-231.
    Heck, D. W. and Moshagen, M. (2018). Journal of Statistical Software 85(2).
    """
    if not isinstance(design, (CheaterDetectionDesign, StochasticLieDetectorDesign)):
        raise ValueError(f"design must be a two-group design, got design={design!r}")
    yes, n = _check_group_counts(yes, n)
    lam = (yes[0] / n[0], yes[1] / n[1])
    pi_moment, second_moment = design.moment(*lam)
    g_pi, g_second = design.moment_gradients(*lam)
    inside = not math.isnan(second_moment) and design.in_space(pi_moment, second_moment)
    if inside:
        pi, second = pi_moment, second_moment
        pi_se, second_se = _delta_std_err(g_pi, lam, n), _delta_std_err(g_second, lam, n)
    else:
        pi, second = _maximum_likelihood(design, yes, n)
        covariance = _covariance_from_information(_observed_information(design, pi, second, yes, n))
        pi_se, second_se = math.sqrt(covariance[0, 0]), math.sqrt(covariance[1, 1])
    minus_one = (n[0] - 1, n[1] - 1)
    return TwoGroupEstimate(
        design=design,
        yes=yes,
        n=n,
        observed=lam,
        second_parameter=design.second_parameter,
        pi_moment=pi_moment,
        second_moment=second_moment,
        pi=pi,
        second=second,
        on_boundary=not inside,
        pi_std_err=pi_se,
        second_std_err=second_se,
        pi_std_err_rrreg=_delta_std_err(g_pi, lam, minus_one),
        second_std_err_rrreg=_delta_std_err(g_second, lam, minus_one),
        log_likelihood=_log_likelihood(design.rates(pi, 0.0 if math.isnan(second) else second), yes, n),
    )


def pool_two_group(estimates) -> PooledEstimate:
    """Pool the prevalence of one question measured under several versions of a two-group design.

    Parameters
    ----------
    estimates : sequence of TwoGroupEstimate
        Independent fits of the same question (answers kept apart by
        design version), all of one kind (cheater detection or stochastic
        lie detector: their ``pi`` are different quantities).

    Returns
    -------
    PooledEstimate
        ``estimate_raw`` the weighted mean of the versions' moment
        estimates ``pi_moment``, ``estimate`` it clipped to ``[0, 1]``,
        ``std_err`` its delta-method standard error, ``weights`` the
        normalised weights in the order given.

    Raises
    ------
    ValueError
        With no estimates, something other than a :class:`TwoGroupEstimate`,
        or designs of both kinds.

    Notes
    -----
    Each version's moment estimate is linear in its two reported-yes rates
    with the constant gradient ``g_v`` (:meth:`CheaterDetectionDesign.moment_gradients`),
    hence unbiased with ``Var_v = sum_i g_vi^2 lambda_vi (1 - lambda_vi) / n_vi``.
    The weights are the inverse of that variance at its largest, every
    ``lambda = 1/2`` (:func:`analysis.planning.two_group_worst_case`)::

        w_v = 1 / sum_i (g_vi^2 / (4 n_vi)),   pi_pool = sum_v w_v pi_v / sum_v w_v
        SE_pool = sqrt(sum_v w_v^2 Var_v_hat) / sum_v w_v

    with ``Var_v_hat`` at the observed rates. Weights that depend on the
    design and the group sizes only keep ``pi_pool`` exactly unbiased;
    weights from each version's own estimated variance (Cochran 1954) would
    favour a version whose noise happened to shrink its variance, the bias
    :func:`analysis.pool_estimates` avoids for one-group designs. The price
    is some precision when the rates lie far from 1/2. Assumed: every version
    measures the same prevalence; the non-compliance parameter (``gamma`` or
    ``t``) may differ between versions and is not pooled.

    References
    ----------
    Cochran, W. G. (1954). The combination of estimates from different
    experiments. Biometrics 10(1), 101-129.
    """
    items = check_estimates(estimates, TwoGroupEstimate)
    kinds = {item.design.kind for item in items}
    if len(kinds) > 1:
        raise ValueError(f"estimates must share one kind of design, got kinds {sorted(kinds)}")
    weights, variances = [], []
    for item in items:
        gradient, _ = item.design.moment_gradients(*item.observed)
        weights.append(1 / math.fsum(g * g / (4 * size) for g, size in zip(gradient, item.n)))
        variances.append(_delta_std_err(gradient, item.observed, item.n) ** 2)
    total = math.fsum(weights)
    raw = math.fsum(w * item.pi_moment for w, item in zip(weights, items)) / total
    estimate = min(max(raw, 0.0), 1.0)
    return PooledEstimate(
        n=sum(sum(item.n) for item in items),
        estimate_raw=raw,
        estimate=estimate,
        clipped=estimate != raw,
        std_err=math.sqrt(math.fsum(w * w * v for w, v in zip(weights, variances))) / total,
        weights=tuple(w / total for w in weights),
    )
