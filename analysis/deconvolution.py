"""The distribution of randomized numbers' true values over declared bins, from the kept bucket counts.

A randomized number under :class:`analysis.numeric_design.DiscreteLaplaceDesign` is kept only as the count of
its output's bucket (``design.bucket(y)``: ``"b00"`` below the first edge, one bucket per inner edge, the
last above them). The true grid indices ``k`` in ``0 .. K`` are grouped into the declared bins
``[0, c_1), [c_1, c_2), ..., [c_last, K]`` and, **the stated assumption**, spread evenly over the grid
indices within each bin. Then a bucket's chance is a mixture of the bins' chances,

    lambda_j = sum_i A_ji w_i,     A_ji = mean over k in bin i of P(bucket j | k),

with ``w`` the bins' shares, and the bucket counts are Multinomial(n, lambda). :func:`deconvolve` finds the
``w`` of largest likelihood on the simplex by EM, finished by Newton steps, and gives each share a pointwise
band from the observed information. ``P(bucket j | k)`` is exact (:func:`bucket_probabilities`), from the
discrete Laplace distribution function of the noise ``Z``::

    P(Z <= z) = r^(-z) / (1 + r)            z < 0
    P(Z <= z) = 1 - r^(z + 1) / (1 + r)     z >= 0,        r = exp(-1 / scale)

with the clamp to ``[-C, K + C]`` taken into account (an output at an end carries the whole tail beyond it).

Under :class:`analysis.numeric_design.BoundedDesign` one bit is sent and ``P(1 | k)`` is linear in ``k``:
the answers identify the mean of the true values and nothing else about their distribution, so the result
says so (``identified`` false, with the reason) rather than showing shares. A plain number (``design``
``None``) is kept in its bin directly, and its shares are counted.

Flat in the number of answers: bucket counts in, at most 64 buckets whatever ``n``.

References
----------
Agrawal, D. and Aggarwal, C. C. (2001). On the design and quantification of privacy preserving data mining
algorithms. PODS 2001, 247-255 (EM reconstruction of a distribution from randomized values).
Fanti, G., Pihur, V. and Erlingsson, U. (2016). Building a RAPPOR with the unknown: privacy-preserving learning
of associations and data dictionaries. PoPETs 2016(3), 41-61 (EM over randomized reports).
Dempster, A. P., Laird, N. M. and Rubin, D. B. (1977). Maximum likelihood from incomplete data via the EM
algorithm. JRSS B 39(1), 1-38.
Varadhan, R. and Roland, C. (2008). Simple and globally convergent methods for accelerating the convergence of
any EM algorithm. Scandinavian Journal of Statistics 35(2), 335-353 (SQUAREM, scheme S3).
Jaggi, M. (2013). Revisiting Frank-Wolfe: projection-free sparse convex optimization. ICML 2013 (the duality
gap that certifies the maximum).
Lacoste-Julien, S. and Jaggi, M. (2015). On the global linear convergence of Frank-Wolfe optimization variants.
NeurIPS 28 (drop steps: a step cut at the face's boundary removes a vertex from the active set).
Andrews, D. W. K. (2000). Inconsistency of the bootstrap when a parameter is on the boundary of the parameter
space. Econometrica 68(2), 399-405.
Ghosh, A., Roughgarden, T. and Sundararajan, M. (2012). Universally utility-maximizing privacy mechanisms.
SIAM J. Comput. 41(6), 1673-1693 (the two-sided geometric distribution).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral

import numpy as np
from scipy import stats

from analysis._checks import check_integer, check_unit_open
from analysis.intervals import wilson_interval
from analysis.numeric_design import MAX_GRID_STEPS, BoundedDesign, DiscreteLaplaceDesign

#: The fit stops when the log-likelihood is provably within this of its maximum (:func:`optimality_gap`). A
#: gap ``g`` puts the estimate within about ``sqrt(2 g)`` standard errors of the maximum (the log-likelihood
#: is close to quadratic there): here about 1e-4 standard errors, negligible beside the band.
EM_TOLERANCE = 1e-8
#: ... or within ``n`` times this, where the sums of ``n`` counts round (at ten million answers, 1e-5: still
#: under 0.005 standard errors).
ROUNDING_TOLERANCE = 1e-12
#: Accelerated EM steps before the Newton steps start.
EM_START_STEPS = 10
#: The most steps; a fit that stops here is flagged ``converged=False``.
EM_MAX_STEPS = 2000
#: Smallest eigenvalue of the observed information, relative to its largest, below which it is taken as
#: singular: the answers do not tell some bins apart, and the band is the whole range.
MIN_RELATIVE_EIGENVALUE = 1e-12

#: :attr:`Distribution.band_method` values.
OBSERVED_INFORMATION = "observed information"
SINGULAR_INFORMATION = "information singular: whole range"
COUNTED = "wilson"


@dataclass(frozen=True)
class BinShare:
    """One bin's estimated share of the true values.

    Attributes
    ----------
    low, high : int
        The bin's first and last grid index (``high`` included).
    share : float
        The maximum-likelihood share, in ``[0, 1]``.
    std_err : float
        From the observed information (``inf`` when it is singular).
    band_low, band_high : float
        The pointwise band, within ``[0, 1]``.
    """

    low: int
    high: int
    share: float
    std_err: float
    band_low: float
    band_high: float


@dataclass(frozen=True)
class Distribution:
    """The true values' distribution over the declared bins, or why it is not identified.

    Attributes
    ----------
    identified : bool
        Whether the answers identify the shares (false for the one-bit design and for no answers).
    reason : str
        Why not, in plain words; ``""`` when identified.
    bins : tuple of (int, int)
        Each bin's first and last grid index.
    shares : tuple of BinShare
        One per bin when identified, else empty.
    n : int
        Answers (the sum of the bucket counts).
    band_method : str
        :data:`OBSERVED_INFORMATION`, :data:`SINGULAR_INFORMATION`, :data:`COUNTED` (a plain number's Wilson
        intervals) or ``""``.
    confidence_level : float
        Of each band (pointwise, not simultaneous).
    iterations : int
        Steps of the fit (EM, then Newton; 0 when nothing was fitted).
    converged : bool
        Whether the log-likelihood is within :data:`EM_TOLERANCE` of its maximum (:func:`optimality_gap`).
    log_likelihood : float
        At the estimate (0 when nothing was fitted).
    """

    identified: bool
    reason: str
    bins: tuple[tuple[int, int], ...]
    shares: tuple[BinShare, ...]
    n: int
    band_method: str
    confidence_level: float
    iterations: int = 0
    converged: bool = True
    log_likelihood: float = 0.0


# --------------------------------------------------------------------------
# Arguments.


def bins_from_cuts(cuts: Sequence[int], steps: int) -> tuple[tuple[int, int], ...]:
    """The bins ``[0, c_1), [c_1, c_2), ..., [c_last, K]`` as ``(first, last)`` grid indices.

    ``cuts`` must be strictly increasing integers in ``[1, K]`` (none: one bin, the whole grid).
    """
    steps = check_integer(steps, "steps", 1)
    if steps > MAX_GRID_STEPS:
        raise ValueError(f"steps must be at most {MAX_GRID_STEPS}, got steps={steps}")
    try:
        items = tuple(cuts)
    except TypeError:
        raise ValueError(f"cuts must be a sequence of grid indices, got cuts={cuts!r}") from None
    previous = 0
    for index, cut in enumerate(items):
        if isinstance(cut, bool) or not isinstance(cut, Integral) or not previous < cut <= steps:
            raise ValueError(
                f"cuts must be increasing grid indices in [1, {steps}], got cuts[{index}]={cut!r} after {previous}"
            )
        previous = int(cut)
    edges = (0, *(int(cut) for cut in items), steps + 1)
    return tuple((edges[i], edges[i + 1] - 1) for i in range(len(edges) - 1))


def _bucket_ranges(design: DiscreteLaplaceDesign) -> tuple[tuple[str, float, float], ...]:
    """Each bucket's label and its outputs ``[lo, hi]`` (``-inf``/``inf`` for the open ends)."""
    edges = design.bucket_edges()
    width = edges[1] - edges[0] if len(edges) > 1 else 1
    inner = tuple((f"b{i + 1:02d}", float(edge), float(edge + width - 1)) for i, edge in enumerate(edges))
    top = (f"b{len(edges) + 1:02d}", float(edges[0] + len(edges) * width), math.inf)
    return (("b00", -math.inf, float(edges[0] - 1)), *inner, top)


def _noise_between(lo: np.ndarray, hi: np.ndarray, scale: float) -> np.ndarray:
    """``P(lo <= Z <= hi)`` for discrete Laplace noise of ``scale``, ends integers or infinite.

    From the distribution function in the module docstring, written so that no two numbers near 1 are
    subtracted when the whole range is on one side of 0: ``(r^(-hi) - r^(1 - lo)) / (1 + r)`` when
    ``hi < 0``, ``(r^lo - r^(hi + 1)) / (1 + r)`` when ``lo > 0``, else ``1 - (r^(1 - lo) + r^(hi + 1)) / (1 + r)``.
    Each form is evaluated only where it applies, where every power of ``r`` has an exponent >= 1 (or
    infinite: 0), so none overflows however small the scale (an epsilon ``K / scale`` of thousands, where
    ``r^(-x)`` for the other forms would be infinite).
    """
    r = math.exp(-1 / scale)
    lo, hi = np.broadcast_arrays(lo, hi)

    def power(x: np.ndarray) -> np.ndarray:  # r^x for x >= 1, 0 at x = inf
        return np.exp(-x / scale)

    chances = np.empty(lo.shape)
    below, above = hi < 0, lo > 0
    across = ~below & ~above
    chances[below] = (power(-hi[below]) - power(1 - lo[below])) / (1 + r)
    chances[above] = (power(lo[above]) - power(hi[above] + 1)) / (1 + r)
    chances[across] = 1 - (power(1 - lo[across]) + power(hi[across] + 1)) / (1 + r)
    return chances


def bucket_probabilities(design: DiscreteLaplaceDesign) -> tuple[tuple[str, ...], np.ndarray]:
    """``P(bucket j | true grid index k)`` for every kept bucket and every ``k`` in ``0 .. K``, exactly.

    Returns
    -------
    labels : tuple of str
        ``"b00" .. "bNN"`` as :meth:`DiscreteLaplaceDesign.bucket` gives them.
    matrix : numpy.ndarray, shape (buckets, K + 1)
        Each column sums to 1 (up to rounding). A bucket the clamped outputs cannot reach has a row of 0.
        Read-only: it is computed once per design and kept.

    Notes
    -----
    The output is ``Y = clamp(k + Z, -C, K + C)``, so a bucket of outputs ``[lo, hi]`` is first cut to the
    clamp; a bucket holding ``-C`` takes every ``Z <= lo' - k`` with ``lo' = -inf``, one holding ``K + C``
    every ``Z >= hi' - k`` with ``hi' = inf``; then ``P = P(lo' - k <= Z <= hi' - k)``
    (:func:`_noise_between`).
    """
    if not isinstance(design, DiscreteLaplaceDesign):
        raise ValueError(f"design must be a DiscreteLaplaceDesign, got design={design!r}")
    return _bucket_probabilities(design)


@functools.lru_cache(maxsize=64)
def _bucket_probabilities(design: DiscreteLaplaceDesign) -> tuple[tuple[str, ...], np.ndarray]:
    low, high = design.output_range
    ranges = _bucket_ranges(design)
    lo = np.array([[-math.inf if lo <= low else lo] for _, lo, _ in ranges])
    hi = np.array([[math.inf if hi >= high else hi] for _, _, hi in ranges])
    k = np.arange(design.steps + 1, dtype=float)[None, :]
    matrix = _noise_between(lo - k, hi - k, float(design.scale))
    matrix[(hi[:, 0] < low) | (lo[:, 0] > high)] = 0.0  # beyond the clamp
    matrix.setflags(write=False)
    return tuple(label for label, _, _ in ranges), matrix


def check_counts(bucket_counts: object, labels: Sequence[str]) -> np.ndarray:
    """The counts in the order of ``labels``; keys beginning with ``=`` (the kept sums) are skipped."""
    if not isinstance(bucket_counts, Mapping):
        raise ValueError(f"bucket_counts must map bucket labels to counts, got bucket_counts={bucket_counts!r}")
    position = {label: index for index, label in enumerate(labels)}
    counts = np.zeros(len(labels))
    for label, count in bucket_counts.items():
        if isinstance(label, str) and label.startswith("="):
            continue
        if label not in position:
            raise ValueError(f"unknown bucket {label!r}: the buckets are {labels[0]} .. {labels[-1]}")
        if isinstance(count, bool) or not isinstance(count, Integral) or count < 0:
            raise ValueError(f"a bucket count must be an integer >= 0, got bucket_counts[{label!r}]={count!r}")
        counts[position[label]] += int(count)
    return counts


# --------------------------------------------------------------------------
# The fit.


def _log_likelihood(matrix: np.ndarray, counts: np.ndarray, weights: np.ndarray) -> float:
    chances = matrix @ weights
    seen = counts > 0
    return float(counts[seen] @ np.log(chances[seen]))


def _ratios(matrix: np.ndarray, counts: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``c_j / lambda_j`` (0 where ``c_j = 0``)."""
    return np.divide(counts, matrix @ weights, out=np.zeros_like(counts), where=counts > 0)


def optimality_gap(matrix: np.ndarray, counts: np.ndarray, weights: np.ndarray) -> float:
    """``max_i dl/dw_i - grad' w``: an upper bound on ``l(w_max) - l(w)`` for ``w`` on the simplex.

    ``l`` is concave, so ``l(w*) <= l(w) + grad l(w)' (w* - w) <= l(w) + max_i grad_i - grad' w`` (the
    Frank-Wolfe duality gap; Jaggi 2013), and ``grad' w = sum_j c_j (A w)_j / (A w)_j = n``. Summed as
    ``sum_i w_i (max grad - grad_i)``, terms >= 0, so it is never negative, even by rounding.
    """
    slopes = matrix.T @ _ratios(matrix, counts, weights)
    return float(weights @ (slopes.max() - slopes))


def _em_map(matrix: np.ndarray, counts: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """One EM step: ``w_i <- w_i sum_j c_j A_ji / lambda_j / n`` (the posterior share of bin ``i``)."""
    return weights * (matrix.T @ _ratios(matrix, counts, weights)) / counts.sum()


def _squarem_step(matrix: np.ndarray, counts: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """One accelerated EM step (SQUAREM, Varadhan and Roland 2008, scheme S3), never below two EM maps.

    ``w1 = F(w)``, ``w2 = F(w1)``, ``r = w1 - w``, ``v = w2 - w1 - r``, ``alpha = -|r| / |v|`` (at most -1);
    the step goes to ``F(w - 2 alpha r + alpha^2 v)``, alpha moved halfway to -1 until that point has no
    negative share; when its log-likelihood is below ``w2``'s the step is ``w2``.
    """
    first = _em_map(matrix, counts, weights)
    second = _em_map(matrix, counts, first)
    r, v = first - weights, second - 2 * first + weights
    norm_v = float(np.linalg.norm(v))
    if norm_v == 0:
        return second
    alpha = min(-float(np.linalg.norm(r)) / norm_v, -1.0)
    jump = weights - 2 * alpha * r + alpha * alpha * v
    while np.any(jump < 0) and alpha < -1:
        alpha = min((alpha - 1) / 2, -1.0)
        jump = weights - 2 * alpha * r + alpha * alpha * v
    if np.any(jump < 0):
        return second
    jump = _em_map(matrix, counts, jump / jump.sum())
    return jump if _log_likelihood(matrix, counts, jump) >= _log_likelihood(matrix, counts, second) else second


def _newton_direction(
    matrix: np.ndarray, counts: np.ndarray, weights: np.ndarray, free: np.ndarray
) -> np.ndarray | None:
    """The Newton direction of ``l`` on the face of the simplex the shares ``free`` span.

    The last free share is ``1 - sum`` of the others: ``D = A_free - A_last``, score ``D' (c / lambda)``,
    information ``D' diag(c / lambda^2) D``. ``None`` when the information cannot be inverted.
    """
    ratios = _ratios(matrix, counts, weights)
    differences = matrix[:, free[:-1]] - matrix[:, free[-1:]]
    weighted = differences * np.divide(ratios, matrix @ weights, out=np.zeros_like(ratios), where=counts > 0)[:, None]
    try:
        step = np.linalg.solve(weighted.T @ differences, differences.T @ ratios)
    except np.linalg.LinAlgError:
        return None
    direction = np.zeros_like(weights)
    direction[free[:-1]] = step
    direction[free[-1]] = -step.sum()
    return direction if np.all(np.isfinite(direction)) else None


def _line_maximum(
    matrix: np.ndarray, counts: np.ndarray, weights: np.ndarray, direction: np.ndarray, end: float
) -> float:
    """The ``t`` in ``[0, end]`` of largest ``l(w + t d)``, for a direction ``d`` along which ``l`` rises at 0.

    ``l`` is concave, so its slope ``phi'(t) = grad l(w + t d)' d`` falls: ``end`` when it is still >= 0 there,
    else its root, by bisection until the bracket is within ``2^-40`` of its upper end (relative, so a root of
    1e-15 is found as well as one near 1), returning the bracket's lower end, where ``phi' > 0``: the step
    raises ``l``. The slope decides, not ``l``: near the maximum a step gains about ``gap^2 / information``
    (1e-19 at a gap of 1e-8), far below the rounding of ``l`` itself (``n`` times 1e-16), while the slope keeps
    its sign down to a gap of about ``n`` times 1e-16 (:data:`ROUNDING_TOLERANCE`).
    """

    def slope(t: float) -> float:
        return float((matrix.T @ _ratios(matrix, counts, weights + t * direction)) @ direction)

    if slope(end) >= 0:
        return end
    low, high = 0.0, end
    for _ in range(200):  # a root down to 2^-160 end (7e-49 at end 1)
        if high - low <= high * 2.0**-40:
            break
        middle = (low + high) / 2
        low, high = (middle, high) if slope(middle) > 0 else (low, middle)
    return low


def _rise(matrix: np.ndarray, counts: np.ndarray, weights: np.ndarray, direction: np.ndarray, end: float) -> float:
    """What ``l(w + t d)``, ``t`` in ``[0, end]``, gains by its second-order expansion at 0.

    With slope ``a = sum_j c_j (A d)_j / lambda_j`` and curvature ``b = sum_j c_j (A d)_j^2 / lambda_j^2``:
    ``a t - b t^2 / 2`` at ``t = min(end, a / b)``. From derivatives, so it compares two steps where their
    gains in ``l`` itself are lost in rounding (:func:`_line_maximum`); for a Newton step of length 1 it is
    half the Newton decrement squared.
    """
    moved, chances = matrix @ direction, matrix @ weights
    ratios = _ratios(matrix, counts, weights)
    slope = float(ratios @ moved)
    curvature = float(np.divide(ratios, chances, out=np.zeros_like(ratios), where=counts > 0) @ (moved * moved))
    length = end if curvature <= 0 else min(end, slope / curvature)
    return slope * length - curvature * length * length / 2


def _limits(weights: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """How far along ``direction`` each share stays >= 0: ``w_i / -d_i`` where ``d_i < 0``, else ``inf``."""
    falling = direction < 0
    return np.divide(weights, -direction, out=np.full_like(weights, math.inf), where=falling)


def _newton_step(matrix: np.ndarray, counts: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, float] | None:
    """The Newton direction on the face of the positive shares and of those at 0 whose slope would make them
    grow (those again left at 0 if the direction lowers them), and how far it may go: 1, or less where a
    share reaches 0. ``None`` when there is no such direction along which ``l`` rises."""
    slopes = matrix.T @ _ratios(matrix, counts, weights)
    growing = (weights == 0) & (slopes > counts.sum())
    free = np.nonzero((weights > 0) | growing)[0]
    direction = _newton_direction(matrix, counts, weights, free) if len(free) > 1 else None
    if direction is not None and np.any(growing & (direction < 0)):
        free = np.nonzero(weights > 0)[0]
        direction = _newton_direction(matrix, counts, weights, free) if len(free) > 1 else None
    if direction is None or float(slopes @ direction) <= 0:
        return None
    reach = float(_limits(weights, direction).min())
    return (direction, min(1.0, reach)) if reach > 0 else None


def _vertex_step(matrix: np.ndarray, counts: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, float]:
    """The Frank-Wolfe direction: towards the bin of largest slope, ``e_i - w``, up to ``e_i`` (length 1). It
    revives a share at 0 whose slope says it should grow, which EM (multiplicative) cannot."""
    slopes = matrix.T @ _ratios(matrix, counts, weights)
    target = np.zeros_like(weights)
    target[int(np.argmax(slopes))] = 1.0
    return target - weights, 1.0


def _finish_step(matrix: np.ndarray, counts: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """A step after EM: the Newton step (:func:`_newton_step`), unless it may go its whole length and the
    Frank-Wolfe step (:func:`_vertex_step`) gains more by the second-order expansion of ``l`` (:func:`_rise`;
    so when the face is at its own maximum and the largest slope is at a share the face leaves at 0); its
    length the maximum of ``l`` along it (:func:`_line_maximum`). A Newton step cut where a share reaches 0
    is always taken and sets that share to 0 exactly (a drop step, as in the away-step Frank-Wolfe of
    Lacoste-Julien and Jaggi 2015), so a share does not crawl towards 0. Every step raises ``l`` (or leaves it
    at the maximum)."""
    newton, vertex = _newton_step(matrix, counts, weights), _vertex_step(matrix, counts, weights)
    use_vertex = newton is None or (
        newton[1] == 1.0 and _rise(matrix, counts, weights, *newton) < _rise(matrix, counts, weights, *vertex)
    )
    direction, end = vertex if use_vertex else newton
    length = _line_maximum(matrix, counts, weights, direction, end)
    moved = np.maximum(weights + length * direction, 0.0)
    if length == end:
        moved[_limits(weights, direction) <= end] = 0.0
    return moved / moved.sum()


def _maximize(matrix: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, int, bool]:
    """The maximum of the log-likelihood on the simplex: EM, then Newton steps; ``(w, steps, converged)``.

    From even shares, :data:`EM_START_STEPS` accelerated EM steps (:func:`_squarem_step`), then Newton steps
    on the face of the positive shares (as :mod:`analysis.regression` finishes its EM) or Frank-Wolfe steps,
    whichever promises more (:func:`_finish_step`). Every step raises the log-likelihood (or leaves it at the
    maximum). Stops as soon as :func:`optimality_gap` is below :data:`EM_TOLERANCE` (or ``n``
    :data:`ROUNDING_TOLERANCE`, ``converged``), or after :data:`EM_MAX_STEPS` steps.
    """
    weights = np.full(matrix.shape[1], 1 / matrix.shape[1])
    tolerance = max(EM_TOLERANCE, ROUNDING_TOLERANCE * float(counts.sum()))
    for step in range(EM_MAX_STEPS):
        if optimality_gap(matrix, counts, weights) < tolerance:
            return weights, step, True
        if step < EM_START_STEPS:
            weights = _squarem_step(matrix, counts, weights)
        else:
            weights = _finish_step(matrix, counts, weights)
    return weights, EM_MAX_STEPS, optimality_gap(matrix, counts, weights) < tolerance


def _covariance(matrix: np.ndarray, counts: np.ndarray, weights: np.ndarray) -> np.ndarray | None:
    """The inverse observed information of the shares, mapped to all ``I`` of them; ``None`` if singular.

    With the last share written ``1 - sum`` of the others, ``d lambda_j / d w_i = A_ji - A_jI =: D_ji`` and
    minus the Hessian of the log-likelihood is ``J = sum_j c_j D_j D_j' / lambda_j^2``. The covariance of all
    the shares is ``G J^-1 G'`` with ``G`` the identity over the free shares stacked on a row of -1.
    """
    chances = matrix @ weights
    seen = counts > 0
    differences = (matrix[:, :-1] - matrix[:, -1:])[seen]
    information = (differences * (counts[seen] / chances[seen] ** 2)[:, None]).T @ differences
    eigenvalues = np.linalg.eigvalsh(information)
    if eigenvalues[-1] <= 0 or eigenvalues[0] <= MIN_RELATIVE_EIGENVALUE * eigenvalues[-1]:
        return None
    free = np.linalg.inv(information)
    lift = np.vstack([np.eye(len(weights) - 1), -np.ones(len(weights) - 1)])
    return lift @ free @ lift.T


def _laplace(
    design: DiscreteLaplaceDesign, bucket_counts: Mapping[str, int], bins: tuple[tuple[int, int], ...], level: float
) -> Distribution:
    labels, probabilities = bucket_probabilities(design)
    counts = check_counts(bucket_counts, labels)
    n = int(counts.sum())
    if n == 0:
        return Distribution(False, "no answers yet", bins, (), 0, "", level)
    impossible = [labels[j] for j in np.nonzero((counts > 0) & (probabilities.sum(axis=1) == 0))[0]]
    if impossible:
        raise ValueError(f"bucket {impossible[0]} cannot hold an output of this design, yet it has answers")
    matrix = np.column_stack([probabilities[:, low : high + 1].mean(axis=1) for low, high in bins])
    if len(bins) == 1:
        share = BinShare(bins[0][0], bins[0][1], 1.0, 0.0, 1.0, 1.0)
        return Distribution(True, "", bins, (share,), n, OBSERVED_INFORMATION, level, 0, True, 0.0)
    weights, steps, converged = _maximize(matrix, counts)
    covariance = _covariance(matrix, counts, weights)
    z = float(stats.norm.ppf(0.5 + level / 2))
    shares = []
    for (low, high), share, std_err in zip(
        bins,
        weights.tolist(),
        np.sqrt(np.maximum(np.diag(covariance), 0.0)).tolist() if covariance is not None else [math.inf] * len(bins),
    ):
        band = (0.0, 1.0) if covariance is None else (max(share - z * std_err, 0.0), min(share + z * std_err, 1.0))
        shares.append(BinShare(low, high, share, std_err, *band))
    method = OBSERVED_INFORMATION if covariance is not None else SINGULAR_INFORMATION
    log_likelihood = _log_likelihood(matrix, counts, weights)
    return Distribution(True, "", bins, tuple(shares), n, method, level, steps, converged, log_likelihood)


def _counted(bucket_counts: Mapping[str, int], bins: tuple[tuple[int, int], ...], level: float) -> Distribution:
    """A plain number: each bin's share is its count over ``n``, with Wilson's interval."""
    labels = tuple(f"b{i:02d}" for i in range(len(bins)))
    counts = check_counts(bucket_counts, labels).astype(int)
    n = int(counts.sum())
    if n == 0:
        return Distribution(False, "no answers yet", bins, (), 0, "", level)
    shares = []
    for (low, high), count in zip(bins, counts.tolist()):
        interval = wilson_interval(count, n, 1, 0, 0, level)
        share = count / n
        shares.append(BinShare(low, high, share, math.sqrt(share * (1 - share) / n), interval.low, interval.high))
    return Distribution(True, "", bins, tuple(shares), n, COUNTED, level)


#: Why the one-bit design's answers say nothing about the distribution beyond its mean.
BOUNDED_REASON = (
    "one bit per answer: its chance of a 1 is a straight line in the true value, so the answers identify the "
    "mean of the true values but not how they spread over the bins"
)


def deconvolve(
    design: DiscreteLaplaceDesign | BoundedDesign | None,
    bucket_counts: Mapping[str, int],
    cuts: Sequence[int],
    steps: int | None = None,
    level: float = 0.95,
) -> Distribution:
    """The true values' distribution over the declared bins, from the kept bucket counts.

    Parameters
    ----------
    design : DiscreteLaplaceDesign, BoundedDesign or None
        How each answer was randomized; ``None`` for a plain number (kept in its bin, ``"b00"`` the first).
    bucket_counts : mapping of str to int
        Bucket label (``design.bucket(y)``; a plain number's bin label) to its count. Keys beginning with
        ``"="`` (a question's kept sums) are skipped, so the whole tally may be passed.
    cuts : sequence of int
        Grid indices where a bin starts: bins ``[0, c_1), ..., [c_last, K]`` (:func:`bins_from_cuts`).
    steps : int, optional
        ``K``; by default ``design.steps`` (required for a plain number; must agree with the design).
    level : float
        Confidence level of each pointwise band, in ``(0, 1)``.

    Returns
    -------
    Distribution
        Not identified (with the reason, no shares) for the one-bit design or when there are no answers.

    Raises
    ------
    ValueError
        A bad design, label, count, cut or level; a count in a bucket the design cannot reach.

    Notes
    -----
    **Model.** The true values are spread evenly over the grid indices within each bin (the stated
    assumption: the answers cannot tell how values spread inside a bin, only how much falls in it, so this
    assumption fixes the transition ``A_ji``; see the module docstring). The counts are
    Multinomial(n, A w).

    **Estimate.** The maximum of ``l(w) = sum_j c_j log (A w)_j`` over the simplex (``l`` is concave, so a
    local maximum is the global one; a share can be 0 there). EM (Dempster, Laird and Rubin 1977; for
    randomized values Agrawal and Aggarwal 2001, Fanti, Pihur and Erlingsson 2016),
    ``w_i <- w_i sum_j (c_j / n) A_ji / (A w)_j``, from even shares, accelerated by SQUAREM (Varadhan and
    Roland 2008), for :data:`EM_START_STEPS` steps; then Newton steps on the face of the simplex the positive
    shares span, a share that reaches 0 left there unless its slope says it should grow (plain EM crawls
    towards a boundary maximum: tens of thousands of steps where a share's maximum is 0, which happens often
    at a small epsilon), or a Frank-Wolfe step towards the bin of largest slope where that promises more
    (:func:`_finish_step`). Each step goes to the maximum of ``l`` along it (up to its length), found from the
    sign of the slope, never from differences of ``l``: near a maximum on the boundary a step gains less than
    ``l`` rounds by (tests/test_deconvolution.py::test_the_fit_converges_where_the_maximum_has_empty_bins).
    The fit stops when the log-likelihood is provably within :data:`EM_TOLERANCE` of its maximum
    (:func:`optimality_gap`: ``converged``), typically after 10 to 70 steps, or after :data:`EM_MAX_STEPS`.

    **Band.** ``w_i +/- z SE_i`` clipped to ``[0, 1]``, with ``SE`` from the inverse observed information at
    the estimate (:func:`_covariance`: minus the Hessian of the explicit log-likelihood, no EM bookkeeping
    needed), pointwise. It is used at the boundary too: there the constrained estimate varies less than the
    information says (a share cannot fall below 0), so the band is conservative (measured:
    tests/test_deconvolution.py::test_band_coverage_over_seeds). A parametric
    bootstrap was not used: it needs hundreds of refits (too slow for a results page), and at the boundary it
    is not consistent either (Andrews 2000). When the information is singular (the answers do not tell some
    bins apart, such as one bucket holding every answer), no share is pinned down and every band is the whole
    range ``[0, 1]`` (:data:`SINGULAR_INFORMATION`, ``std_err`` infinite).

    **One bit** (:class:`BoundedDesign`): ``P(1 | k)`` is linear in ``k``, so the chance of a 1 depends on
    the true values only through their mean: the distribution is not identified (:data:`BOUNDED_REASON`).

    **Plain numbers** (``design`` ``None``): each bin's share is its count over ``n``, with Wilson's interval.
    """
    level = check_unit_open(level, "level")
    if design is not None and not isinstance(design, DiscreteLaplaceDesign | BoundedDesign):
        raise ValueError(f"design must be a DiscreteLaplaceDesign, a BoundedDesign or None, got design={design!r}")
    if design is None and steps is None:
        raise ValueError("steps is required for a plain number (design None)")
    if design is not None and steps is not None and steps != design.steps:
        raise ValueError(f"steps must be the design's {design.steps}, got steps={steps!r}")
    bins = bins_from_cuts(cuts, design.steps if design is not None else steps)
    if design is None:
        return _counted(bucket_counts, bins, level)
    if isinstance(design, BoundedDesign):
        counts = check_counts(bucket_counts, ("b00", "b01"))
        return Distribution(False, BOUNDED_REASON, bins, (), int(counts.sum()), "", level)
    return _laplace(design, bucket_counts, bins, level)
