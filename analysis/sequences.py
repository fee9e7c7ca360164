"""Anytime-valid confidence sequences for a proportion measured through randomized response.

A 95% confidence interval covers the truth with probability 0.95 if it is
looked at once, at a sample size fixed in advance. Looked at after every
answer, and stopped when it looks narrow enough, it excludes the truth at
some point far more often (in 60-68% of surveys of 10,000 answers for
Wilson's interval; analysis/README.md, "Confidence sequences"). A confidence
sequence ``(C_n)`` covers the truth at every ``n`` at once::

    P(pi in C_n for every n >= 1) >= 1 - alpha

so it may be looked at as often as anyone likes, and collection may stop
whenever the researcher decides, on whatever grounds.

The sequence here is Robbins' beta-binomial mixture for the reported-yes
rate ``lambda``. Each noisy answer is Bernoulli(lambda) with ``lambda = a +
t pi`` (:class:`analysis.design.ForcedResponseDesign`), so a sequence for
``lambda`` maps to one for ``pi`` through ``pi = (lambda - a) / t``, clipped to
``[0, 1]``, exactly as the intervals of :mod:`analysis.intervals` do. The
boundary depends only on the number of answers ``n`` and of yeses ``S``.

References
----------
Robbins, H. (1970). Statistical methods related to the law of the iterated
logarithm. Annals of Mathematical Statistics 41(5), 1397-1409.
Ville, J. (1939). Etude critique de la notion de collectif. Gauthier-Villars.
Howard, S. R., Ramdas, A., McAuliffe, J. and Sekhon, J. (2021). Time-uniform,
nonparametric, nonasymptotic confidence sequences. Annals of Statistics
49(2), 1055-1080.
Waudby-Smith, I., Wu, Z. S. and Ramdas, A. (2023). Nonparametric extensions of
randomized response for private confidence sets. ICML 2023, PMLR 202,
36748-36789.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

from analysis._checks import as_exact, check_counts, check_design_exact, check_real, check_unit_open
from analysis.design import MultipleChoiceDesign
from analysis.estimate import ProportionEstimate
from analysis.intervals import LOWER, TWO_SIDED, UPPER, mapped_to_pi, outside_design
from analysis.multiple_choice import check_option_counts

#: The mixing distribution Beta(a0, b0) of the mixture: uniform. See
#: :func:`confidence_sequence`, Notes, for why.
MIXTURE_PRIOR: tuple[float, float] = (1.0, 1.0)


@dataclass(frozen=True)
class ConfidenceSequence:
    """One step of an anytime-valid confidence sequence for a proportion.

    Attributes
    ----------
    low, high : float
        The bounds for the true-yes share ``pi``, within ``[0, 1]``.
    rate_low, rate_high : float
        The bounds for the reported-yes rate ``lambda = a + t pi``, within
        ``[0, 1]``, before the design's map.
    n : int
        Number of noisy answers.
    yes_count : int
        Number of reported yeses.
    confidence_level : float
        ``1 - alpha``: the chance that the sequence covers the truth at every
        ``n`` at once.
    prior : tuple of float
        The mixing distribution's ``(a0, b0)``.
    method : str
        ``"beta-binomial mixture"``.
    side : {"two-sided", "upper", "lower"}
        ``"upper"`` ("at most ``high``") or ``"lower"`` ("at least ``low``")
        when the reported-yes rate lies outside what the design can produce
        (:func:`confidence_sequence`, Notes); else ``"two-sided"``.
    """

    low: float
    high: float
    rate_low: float
    rate_high: float
    n: int
    yes_count: int
    confidence_level: float
    prior: tuple[float, float] = MIXTURE_PRIOR
    method: str = "beta-binomial mixture"
    side: str = TWO_SIDED


@dataclass(frozen=True)
class DifferenceSequence:
    """An anytime-valid confidence sequence for ``pi_1 - pi_2`` of two groups.

    Attributes
    ----------
    low, high : float
        The bounds, within ``[-1, 1]``.
    confidence_level : float
        ``1 - alpha`` for the difference, at every pair of sample sizes at once.
    first, second : ConfidenceSequence
        Each group's own sequence at level ``1 - alpha/2``.
    method : str
        ``"union bound"``.
    """

    low: float
    high: float
    confidence_level: float
    first: ConfidenceSequence
    second: ConfidenceSequence
    method: str = "union bound"


def _check_prior(a0: object, b0: object) -> tuple[float, float]:
    """The mixture's ``(a0, b0)``: finite numbers ``> 0``."""
    values = (check_real(a0, "a0"), check_real(b0, "b0"))
    for name, value in zip(("a0", "b0"), values):
        if value <= 0:
            raise ValueError(f"{name} must be > 0, got {name}={value!r}")
    return values


def log_mixture_martingale(
    yes_count: object, n: object, rate: object, a0: float = MIXTURE_PRIOR[0], b0: float = MIXTURE_PRIOR[1]
) -> np.ndarray:
    """``log M_n(lambda)``, the log of Robbins' beta-binomial mixture martingale.

    Parameters
    ----------
    yes_count, n : int or array of int
        Reported yeses ``S`` and answers ``n``, ``0 <= S <= n`` (broadcast
        together: a whole survey's running counts at once).
    rate : float or array of float
        The reported-yes rate ``lambda`` tested, in ``[0, 1]``.
    a0, b0 : float
        The mixing distribution Beta(a0, b0), both ``> 0``.

    Returns
    -------
    numpy.ndarray
        ``log M_n(lambda)`` (``+inf`` where ``lambda`` is 0 or 1 and the
        answers rule it out), of the broadcast shape.

    Notes
    -----
    ::

        M_n(lambda) = integral of prod_i (x / lambda)^Y_i ((1 - x) / (1 - lambda))^(1 - Y_i) dBeta(x; a0, b0)
                    = B(a0 + S, b0 + n - S) / (B(a0, b0) lambda^S (1 - lambda)^(n - S))

    computed as ``betaln(a0 + S, b0 + n - S) - betaln(a0, b0) - S log lambda -
    (n - S) log(1 - lambda)`` (``xlogy``/``xlog1py``, so ``0 log 0 = 0``).
    Each likelihood ratio in the integral has mean 1 under ``lambda``, so
    ``M_n(lambda)`` is a nonnegative martingale with ``M_0 = 1`` when the
    answers are Bernoulli(lambda), and Ville's inequality gives
    ``P(M_n(lambda) >= 1/alpha for some n) <= alpha``. A survey's answers
    exclude ``lambda`` at ``n`` exactly when ``log M_n(lambda) >=
    log(1/alpha)``: no root finding is needed to ask whether a given rate was
    ever excluded.
    """
    a0, b0 = _check_prior(a0, b0)
    yes = np.asarray(yes_count)
    total = np.asarray(n)
    lam = np.asarray(rate, dtype=float)
    if not (np.issubdtype(yes.dtype, np.integer) and np.issubdtype(total.dtype, np.integer)):
        raise ValueError(f"yes_count and n must be integers, got yes_count={yes_count!r}, n={n!r}")
    if np.any(yes < 0) or np.any(yes > total):
        raise ValueError(f"yes_count must lie in [0, n], got yes_count={yes_count!r}, n={n!r}")
    if not np.all((lam >= 0) & (lam <= 1)):
        raise ValueError(f"rate must lie in [0, 1], got rate={rate!r}")
    return _log_mixture(yes, total - yes, lam, a0, b0)


def _log_mixture(yes: object, no: object, lam: object, a0: float, b0: float) -> np.ndarray:
    """``log M_n(lambda)`` from the numbers of yes and no answers (unchecked)."""
    return (
        special.betaln(a0 + yes, b0 + no) - special.betaln(a0, b0) - special.xlogy(yes, lam) - special.xlog1py(no, -lam)
    )


def lower_rate_bound(yes_count: int, n: int, a0: float, b0: float, log_threshold: float) -> float:
    """The smallest ``lambda`` with ``log M_n(lambda) < log_threshold`` (0 if ``S = 0``).

    ``log M_n`` is convex in ``lambda`` (a constant minus a log-likelihood)
    with its minimum at ``S / n``, where ``M_n <= 1`` (the mixture of
    likelihoods is at most the largest), and it grows to ``+inf`` as
    ``lambda -> 0`` when ``S > 0``: one root on ``(0, S/n)``.
    """
    if yes_count == 0:
        return 0.0

    yes, no = float(yes_count), float(n - yes_count)

    def excess(log_lam: float) -> float:
        return float(_log_mixture(yes, no, math.exp(log_lam), a0, b0)) - log_threshold

    # Brent's method on log(lambda): as precise relative to a root near 0 as to one near 1.
    smallest = math.log(np.finfo(float).tiny)
    if excess(smallest) <= 0:  # the root lies below the smallest normal float
        return 0.0
    return math.exp(optimize.brentq(excess, smallest, math.log(yes_count / n), xtol=1e-14))


def confidence_sequence(
    yes_count: int,
    n: int,
    t: float = 0.5,
    a: float = 0.25,
    b: float = 0.25,
    confidence_level: float = 0.95,
    a0: float = MIXTURE_PRIOR[0],
    b0: float = MIXTURE_PRIOR[1],
) -> ConfidenceSequence:
    """The beta-binomial mixture confidence sequence for ``pi`` at ``(S, n)``.

    Parameters
    ----------
    yes_count : int
        Number of reported yeses ``S``, ``0 <= S <= n``.
    n : int
        Number of noisy answers, ``n >= 1``.
    t, a, b : float or Fraction
        The design: truthful, forced-yes and forced-no probabilities,
        ``t + a + b = 1``.
    confidence_level : float
        ``1 - alpha``, in ``(0, 1)``: the chance of covering ``pi`` at every
        ``n`` at once.
    a0, b0 : float
        The mixing distribution Beta(a0, b0); default uniform
        (:data:`MIXTURE_PRIOR`).

    Returns
    -------
    ConfidenceSequence
        Bounds for ``pi`` within ``[0, 1]`` and for ``lambda``.

    Notes
    -----
    The set for the reported-yes rate is (Robbins 1970)::

        C_n = {lambda : M_n(lambda) < 1/alpha},
        M_n(lambda) = B(a0 + S, b0 + n - S) / (B(a0, b0) lambda^S (1 - lambda)^(n - S))

    (:func:`log_mixture_martingale`). By Ville's inequality ``P(exists n:
    lambda not in C_n) = P(exists n: M_n(lambda) >= 1/alpha) <= alpha``. ``log
    M_n`` is convex in ``lambda`` with its minimum (at most 0) at ``S / n``,
    so ``C_n`` is an interval; its ends are found by Brent's method (on
    ``log lambda``) on each side of ``S / n``, the upper one as ``1 -`` the lower end for the no
    answers (``M_n(lambda; S, a0, b0) = M_n(1 - lambda; n - S, b0, a0)``).
    Each end ``L`` becomes ``(L - a) / t``, clipped to ``[0, 1]``; the map is
    increasing and ``pi`` lies in ``[0, 1]``, so coverage is unchanged. When
    ``S / n`` lies outside ``[a, a + t]`` the mapped set can shrink to (nearly)
    ``[0, 0]`` (two coins, a true share of 0: about 0.65% of surveys at some
    look); the bound is then one-sided (``side``), widened to the fixed-sample
    one-sided bound of :func:`analysis.outside_design` (a superset keeps the coverage).

    The width shrinks like ``sqrt(log n / n)`` rather than ``1 / sqrt(n)``:
    that is the price of looking at every ``n``. At 95% it is about 1.8 times
    the Wilson interval's at ``n = 1,000`` and 2.0 times at ``n = 10,000``.

    Why uniform, ``a0 = b0 = 1``: the mixture spends its power where the
    prior puts mass; a prior concentrated near ``lambda = 1/2`` (Beta(20,
    20)) narrows the sequence there by 12-15% but widens it by 19-23% near
    ``lambda = 1/4`` (the two-coin floor), and Jeffreys' Beta(1/2, 1/2) is
    2-4% wider than uniform at every rate tried (n = 100 to 100,000). With a uniform prior no
    rate is favoured, and ``M_n(lambda) = 1 / ((n + 1) C(n, S) lambda^S (1 -
    lambda)^(n - S))``.

    References
    ----------
    Robbins, H. (1970). Annals of Mathematical Statistics 41(5), 1397-1409.
    Howard, S. R., Ramdas, A., McAuliffe, J. and Sekhon, J. (2021). Annals of
    Statistics 49(2), 1055-1080.
    Waudby-Smith, I., Wu, Z. S. and Ramdas, A. (2023). ICML 2023.
    """
    yes_count, n = check_counts(yes_count, n)
    exact = check_design_exact(t, a, b)
    t, a, b = (float(p) for p in exact)
    level = check_unit_open(confidence_level, "confidence_level")
    prior = _check_prior(a0, b0)
    log_threshold = -math.log1p(-level)
    rate_low = lower_rate_bound(yes_count, n, prior[0], prior[1], log_threshold)
    rate_high = 1.0 - lower_rate_bound(n - yes_count, n, prior[1], prior[0], log_threshold)
    low, high = mapped_to_pi(rate_low, rate_high, t, a)
    low, high, side = _at_the_edge(yes_count, n, exact, level, low, high)
    return ConfidenceSequence(low, high, rate_low, rate_high, n, yes_count, level, prior, side=side)


def _at_the_edge(
    yes_count: int, n: int, design: tuple, level: float, low: float, high: float
) -> tuple[float, float, str]:
    """``(low, high, side)``: the mapped sequence, or a one-sided bound when ``S / n`` lies outside the design.

    Below the floor the sequence for ``lambda`` may lie wholly (or nearly) below ``a`` and map to ``[0, 0]``.
    The bound shown is then ``[0, max(high, U)]`` with ``U`` the fixed-sample one-sided bound of
    :func:`analysis.outside_design`: a superset of the sequence, so its anytime coverage is kept, and never
    narrower than the interval beside it. Above the ceiling likewise ``[min(low, L), 1]``.
    """
    outside = outside_design(yes_count, n, *design, confidence_level=level)
    if outside is None:
        return low, high, TWO_SIDED
    if outside.side == "below":
        return 0.0, max(high, outside.bound), UPPER
    return min(low, outside.bound), 1.0, LOWER


def option_confidence_sequences(
    counts: Sequence[int],
    t: float = 0.5,
    confidence_level: float = 0.95,
    a0: float = MIXTURE_PRIOR[0],
    b0: float = MIXTURE_PRIOR[1],
) -> tuple[ConfidenceSequence, ...]:
    """One confidence sequence per option of a ``k``-option question.

    Parameters
    ----------
    counts : sequence of int
        Reported count of each option; ``k = len(counts) >= 2``.
    t : float or Fraction
        Probability of a truthful report, in ``(0, 1]``.
    confidence_level : float
        ``1 - alpha`` of each option's sequence; not simultaneous over the
        options (as :meth:`analysis.multiple_choice.MultipleChoiceEstimate.confidence_intervals`).
    a0, b0 : float
        The mixing distribution; see :func:`confidence_sequence`.

    Returns
    -------
    tuple of ConfidenceSequence
        In option order.

    Notes
    -----
    Option ``j`` is reported with probability ``t pi_j + (1 - t)/k``: the
    forced-response design :meth:`~analysis.design.MultipleChoiceDesign.option_marginal`
    (``a = (1 - t)/k``, ``b = 1 - t - a``), and its count after ``n``
    answers is a running sum of Bernoulli(lambda_j) answers, so
    :func:`confidence_sequence` applies to it as it is. For all ``k`` at once
    at level ``1 - alpha`` pass ``confidence_level = 1 - alpha/k`` (union
    bound).
    """
    counts = check_option_counts(counts)
    t, a, b = MultipleChoiceDesign(len(counts), as_exact(t)).option_marginal().exact()
    n = sum(counts)
    return tuple(confidence_sequence(count, n, t, a, b, confidence_level, a0, b0) for count in counts)


def difference_sequence(
    first: ProportionEstimate,
    second: ProportionEstimate,
    confidence_level: float = 0.95,
    a0: float = MIXTURE_PRIOR[0],
    b0: float = MIXTURE_PRIOR[1],
) -> DifferenceSequence:
    """A confidence sequence for ``pi_1 - pi_2``, two groups of respondents.

    Parameters
    ----------
    first, second : ProportionEstimate
        The two groups' counts and designs (the designs may differ).
    confidence_level : float
        ``1 - alpha`` for the difference, in ``(0, 1)``.
    a0, b0 : float
        The mixing distribution; see :func:`confidence_sequence`.

    Returns
    -------
    DifferenceSequence
        ``[L_1 - U_2, U_1 - L_2]`` (within ``[-1, 1]``, as each group's
        bounds lie in ``[0, 1]``), with each group's sequence.

    Notes
    -----
    A union bound over two sequences at ``1 - alpha/2`` each::

        P(exists n_1: pi_1 not in C^1_{n_1}  or  exists n_2: pi_2 not in C^2_{n_2})
            <= alpha/2 + alpha/2 = alpha

    and whenever both cover, ``pi_1 - pi_2`` lies in ``[L_1 - U_2, U_1 -
    L_2]``. Each group's event is about its own stream of answers, whatever
    their order relative to the other group's, so the difference is covered
    at every pair ``(n_1, n_2)`` at once, and the bound needs no independence
    between the groups. (The product ``M^1 M^2`` of the two mixtures is a
    martingale too and gives a joint region that is a little narrower than
    the rectangle, but only when the groups are independent, and its
    projection on ``pi_1 - pi_2`` needs a two-dimensional search; the union
    bound is kept for being valid without that assumption and exact to
    compute.)
    """
    for name, item in (("first", first), ("second", second)):
        if not isinstance(item, ProportionEstimate):
            raise ValueError(f"{name} must be a ProportionEstimate, got {name}={item!r}")
    level = check_unit_open(confidence_level, "confidence_level")
    each = 1 - (1 - level) / 2
    one, two = (
        confidence_sequence(item.yes_count, item.n, item.t, item.a, item.b, each, a0, b0) for item in (first, second)
    )
    return DifferenceSequence(one.low - two.high, one.high - two.low, level, one, two)


@dataclass(frozen=True)
class MappedSequence:
    """An anytime-valid confidence sequence for a share estimated from several reported rates at once.

    ``low``, ``high`` bound the share within ``[0, 1]``; ``rates`` holds the
    bounds of each reported rate it was mapped from; ``confidence_level`` is
    the chance of covering at every look at once.
    """

    low: float
    high: float
    rates: tuple[tuple[float, float], ...]
    confidence_level: float


def _rate_bounds(yes_count: int, n: int, confidence_level: float) -> tuple[float, float]:
    """The mixture sequence's bounds for a reported rate itself (the identity design ``t = 1``)."""
    sequence = confidence_sequence(yes_count, n, 1, 0, 0, confidence_level)
    return sequence.rate_low, sequence.rate_high


def _linear_box_bounds(
    weights: Sequence[float], offset: float, box: Sequence[tuple[float, float]]
) -> tuple[float, float]:
    """Least and largest ``offset + sum_i w_i x_i`` over ``x_i`` in ``[lo_i, hi_i]`` (each term at one end)."""
    low = offset + sum(min(w * lo, w * hi) for w, (lo, hi) in zip(weights, box))
    high = offset + sum(max(w * lo, w * hi) for w, (lo, hi) in zip(weights, box))
    return low, high


def two_group_sequence(
    yes: tuple[int, int], n: tuple[int, int], design, confidence_level: float = 0.95
) -> MappedSequence:
    """The anytime-valid confidence sequence for the prevalence of a two-group design.

    Parameters
    ----------
    yes, n : pair of int
        Reported yeses and answers in group 1 and group 2.
    design : CheaterDetectionDesign or StochasticLieDetectorDesign
        :mod:`analysis.two_group`; its :meth:`moment` gives ``pi`` from the
        two reported-yes rates.
    confidence_level : float
        ``1 - alpha`` over every look at once.

    Notes
    -----
    Each group's reported-yes rate ``lambda_i`` gets the mixture sequence of
    :func:`confidence_sequence` at level ``1 - alpha/2``; by a union bound
    both cover their rates at every look at once with probability at least
    ``1 - alpha``. The moment map is linear in ``(lambda_1, lambda_2)`` for
    both designs (cheater detection ``pi = (p2 lambda1 - p1 lambda2) / (p2 -
    p1)``; stochastic lie detector ``pi = 1 - (lambda1 - lambda2) / (p2 -
    p1)``: Clark and Desharnais 1998; Moshagen, Musch and Erdfelder 2012), so
    whenever both rates lie in their sequences ``pi`` lies between the map's
    least and largest value over the box, reached at its corners; the bounds
    are clipped to ``[0, 1]``. Conservative: the box ignores how the two
    rates move together.
    """
    level = check_unit_open(confidence_level, "confidence_level")
    each = 1 - (1 - level) / 2
    box = tuple(_rate_bounds(y, size, each) for y, size in zip(yes, n))
    offset = design.moment(0.0, 0.0)[0]
    weights = (design.moment(1.0, 0.0)[0] - offset, design.moment(0.0, 1.0)[0] - offset)
    low, high = _linear_box_bounds(weights, offset, box)
    return MappedSequence(min(max(low, 0.0), 1.0), min(max(high, 0.0), 1.0), box, level)


def matrix_option_sequences(
    counts: Sequence[int], inverse, confidence_level: float = 0.95
) -> tuple[MappedSequence, ...]:
    """Anytime-valid confidence sequences for every option share under a misclassification matrix.

    Parameters
    ----------
    counts : sequence of int
        Answers reported for each option.
    inverse : array, shape (k, k)
        ``P^-1``, the inverse of the misclassification matrix
        (:class:`analysis.misclassification.MisclassificationDesign`), so
        that ``pi = P^-1 lambda``.
    confidence_level : float
        ``1 - alpha`` for all ``k`` options at every look at once.

    Notes
    -----
    Each reported share ``lambda_j`` (its count against the rest) gets the
    mixture sequence at level ``1 - alpha/k``; by a union bound all cover at
    every look with probability at least ``1 - alpha``, and then each ``pi_j
    = sum_i (P^-1)_ji lambda_i`` lies between the least and largest value of
    that linear form over the box of rates (van den Hout and van der Heijden
    2002 for the map), clipped to ``[0, 1]``. Conservative, as the box
    ignores that the shares sum to 1.
    """
    counts = [int(c) for c in counts]
    level = check_unit_open(confidence_level, "confidence_level")
    inverse = np.asarray(inverse, dtype=float)
    k = len(counts)
    if inverse.shape != (k, k):
        raise ValueError(f"inverse must be a {k} x {k} matrix for {k} counts, got shape {inverse.shape}")
    n = sum(counts)
    each = 1 - (1 - level) / k
    box = tuple(_rate_bounds(count, n, each) for count in counts)
    out = []
    for row in inverse:
        low, high = _linear_box_bounds(row.tolist(), 0.0, box)
        out.append(MappedSequence(min(max(low, 0.0), 1.0), min(max(high, 0.0), 1.0), box, level))
    return tuple(out)


# --------------------------------------------------------------------------
# Several designs' sequences for one share, combined by a union bound.


@dataclass(frozen=True)
class UnionSequence:
    """Several designs' sequences for one share (or a difference of shares), combined by a union bound.

    Attributes
    ----------
    low, high : float
        Bounds for the share (for a difference, within ``[-1, 1]``).
    confidence_level : float
        ``1 - alpha`` over every look at once.
    designs : int
        How many designs' sequences were combined (1: the sequence as it is).
    side : {"two-sided", "upper", "lower"}
        One-sided where the combined bound ends at 0 (1) and a part was one-sided there.
    """

    low: float
    high: float
    confidence_level: float
    designs: int
    side: str = TWO_SIDED


def _intersection_or_hull(parts: Sequence) -> tuple[float, float]:
    """The intersection of the parts' ``[low, high]``; their hull if they do not meet."""
    low, high = max(p.low for p in parts), min(p.high for p in parts)
    if low > high:
        low, high = min(p.low for p in parts), max(p.high for p in parts)
    return low, high


def _combined_side(low: float, high: float, parts: Sequence[ConfidenceSequence]) -> str:
    """A combined bound is one-sided where it ends at 0 (1) and a part was one-sided there."""
    if low == 0.0 and any(p.side == UPPER for p in parts):
        return UPPER
    if high == 1.0 and any(p.side == LOWER for p in parts):
        return LOWER
    return TWO_SIDED


def _each_level(confidence_level: float, parts: int, empty: str) -> float:
    """``1 - alpha/m`` for ``m`` parts; ``ValueError(empty)`` with none."""
    if parts == 0:
        raise ValueError(empty)
    return 1 - (1 - confidence_level) / parts


def union_sequence(estimates: Sequence[ProportionEstimate], confidence_level: float) -> UnionSequence:
    """The anytime-valid confidence sequence for one true share measured under one or more designs.

    Notes
    -----
    Each design's answers ``(n, S)`` give :func:`confidence_sequence` at level
    ``1 - alpha/m`` (``m`` designs; one design: the sequence as it is). By a
    union bound all ``m`` cover the share at every look at once with
    probability at least ``1 - alpha``, and then the share lies in their
    intersection, which is returned. If the intersection is empty, the
    designs' answers disagree beyond what chance allows; their hull is
    returned instead, which still holds the share whenever any of them
    covers it.

    The guarantee is over the looks made while the set of designs with
    answers stays the same: a design added later lowers each design's share
    of ``alpha``, so across such a change the error is at most the sum over
    designs of the largest share each was given.

    Raises ``ValueError`` with no estimates.
    """
    each = _each_level(confidence_level, len(estimates), "estimates must hold at least one design's answers, got none")
    parts = [confidence_sequence(e.yes_count, e.n, e.t, e.a, e.b, each) for e in estimates]
    low, high = _intersection_or_hull(parts)
    return UnionSequence(low, high, float(confidence_level), len(parts), _combined_side(low, high, parts))


def two_group_union_sequence(fits: Sequence, confidence_level: float) -> UnionSequence:
    """The anytime-valid sequence for a two-group prevalence measured under one or more versions of its design.

    ``fits`` are :class:`analysis.two_group.TwoGroupEstimate` (their ``yes``, ``n`` and ``design``): each
    version's :func:`two_group_sequence` at ``1 - alpha/m`` (``m`` versions), intersected (their hull if
    they do not meet), as :func:`union_sequence` does for one-group designs.
    """
    each = _each_level(confidence_level, len(fits), "fits must hold at least one version's answers, got none")
    parts = [two_group_sequence(fit.yes, fit.n, fit.design, each) for fit in fits]
    low, high = _intersection_or_hull(parts)
    return UnionSequence(low, high, float(confidence_level), len(parts))


def difference_union_sequence(
    first: Sequence[ProportionEstimate], second: Sequence[ProportionEstimate], confidence_level: float
) -> UnionSequence:
    """The anytime-valid sequence for ``pi_first - pi_second``: each group at ``1 - alpha/2``, then subtracted.

    ``[L_1 - U_2, U_1 - L_2]`` of the two groups' :func:`union_sequence` (a union bound, as
    :func:`difference_sequence`, which this equals when each group has one design); ``designs`` counts both
    groups' designs.
    """
    each = 1 - (1 - confidence_level) / 2
    one, two = union_sequence(first, each), union_sequence(second, each)
    return UnionSequence(one.low - two.high, one.high - two.low, float(confidence_level), one.designs + two.designs)
