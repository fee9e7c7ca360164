"""Complex samples: design weights, strata and clusters for the randomized shares (Horvitz-Thompson and Hajek).

A survey of students drawn class by class (clusters), faculty by faculty (strata), each class with its own
chance of being drawn (design weights ``w = 1 / inclusion probability``), estimates the population's share
from the weighted debiased answers. The variance is the one R's ``survey`` package computes (Lumley 2010,
chapters 2-3): Taylor linearisation with the primary sampling units (PSUs) taken as drawn with replacement
within their strata, or the delete-one-PSU jackknife (JK1 without strata, JKn within strata). Everything here
runs on totals per PSU, and a PSU total may stand for several PSUs that share it (``multiplicities``): the
respondents of an unclustered stratum who gave the same answer are one row, so the cost does not grow with
the number of answers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from analysis._checks import check_unit_open
from analysis.estimate import estimate_proportion
from analysis.weighting import WeightedEstimate, weighted_estimate

HAJEK = "hajek"
HORVITZ_THOMPSON = "horvitz-thompson"
LINEARIZATION = "linearization"
JACKKNIFE = "jackknife"
VARIANCE_METHODS = (LINEARIZATION, JACKKNIFE)


@dataclass(frozen=True)
class DesignTotals:
    """The weighted totals of a sample and their variance (:func:`design_estimate`).

    Attributes
    ----------
    total, weight_sum : float
        ``Y = sum_i w_i y_i`` and ``X = sum_i w_i`` (the estimated population size).
    ratio, ratio_variance : float
        The Hajek mean ``Y / X`` and its variance.
    ht_mean, ht_variance : float or None
        The Horvitz-Thompson mean ``Y / N`` and its variance; ``None`` without ``population_size``.
    total_variance : float
        The variance of ``Y``.
    psus, strata : int
        PSUs (with multiplicities) and strata in the sample.
    lonely_strata : tuple
        The strata with one PSU: they add nothing to the variance (R's ``survey.lonely.psu = "certainty"``
        or ``"remove"``), so the variance is too small by their share. A stratum drawn whole (``N_h = n_h``)
        is not lonely: it has no sampling variance.
    method : str
        ``"linearization"`` or ``"jackknife"``.
    """

    total: float
    weight_sum: float
    ratio: float
    ratio_variance: float
    ht_mean: float | None
    ht_variance: float | None
    total_variance: float
    psus: int
    strata: int
    lonely_strata: tuple[str, ...]
    method: str


@dataclass(frozen=True)
class DesignShare:
    """A randomized share under a complex sample (:func:`design_share`).

    ``hajek`` and ``horvitz_thompson`` (``None`` without a population size) are
    :class:`~analysis.weighting.WeightedEstimate` s (``method`` ``"hajek"`` or ``"horvitz-thompson"``,
    ``population_size`` ``N`` or the sum of the weights), each with the design effect against the unweighted
    estimate of all the answers; ``totals`` holds the figures they come from.
    """

    hajek: WeightedEstimate
    horvitz_thompson: WeightedEstimate | None
    totals: DesignTotals


def _labels(strata: Sequence | None, size: int) -> np.ndarray:
    """Integer codes of the strata (one stratum when ``None``)."""
    if strata is None:
        return np.zeros(size, dtype=int)
    if len(strata) != size:
        raise ValueError(f"strata must give one stratum per PSU ({size}), got {len(strata)}")
    return np.unique(np.asarray([str(s) for s in strata]), return_inverse=True)[1]


def _finite(values: object, name: str, size: int | None = None, minimum: float | None = None) -> np.ndarray:
    """A 1-d float array of finite values (``size`` long, each ``>= minimum``), or ``ValueError`` naming ``name``."""
    array = np.asarray(values, dtype=float)
    if array.ndim != 1 or (size is not None and array.size != size) or not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite numbers, one per PSU, got {name}={values!r}")
    if minimum is not None and np.any(array < minimum):
        raise ValueError(f"{name} must all be >= {minimum}, got {name}={values!r}")
    return array


def _fpc(fpc: Sequence[float] | None, codes: np.ndarray, sampled: np.ndarray) -> np.ndarray:
    """``1 - n_h / N_h`` per PSU row from the population PSU counts per row's stratum (1 without ``fpc``)."""
    if fpc is None:
        return np.ones(codes.size)
    sizes = _finite(fpc, "fpc", codes.size, 1.0)
    if np.any(sizes < sampled[codes] - 1e-9):
        raise ValueError(f"fpc must be at least each stratum's sampled PSUs, got fpc={fpc!r}")
    return 1.0 - sampled[codes] / sizes


def _stratum_sums(values: np.ndarray, codes: np.ndarray, strata: int) -> np.ndarray:
    """``values`` summed per stratum code."""
    return np.bincount(codes, weights=values, minlength=strata)


def _linearized(z: np.ndarray, m: np.ndarray, codes: np.ndarray, n_h: np.ndarray, keep: np.ndarray) -> float:
    """``sum_h (1 - f_h) n_h / (n_h - 1) sum_c m_c (z_c - zbar_h)^2`` over the strata with 2+ PSUs."""
    strata = n_h.size
    mean = _stratum_sums(m * z, codes, strata) / np.maximum(n_h, 1)
    squares = _stratum_sums(m * (z - mean[codes]) ** 2, codes, strata)
    factor = np.divide(n_h, n_h - 1, out=np.zeros_like(n_h), where=n_h > 1)
    return float(np.sum(factor * squares * keep))


def _jackknife(
    thetas: np.ndarray, m: np.ndarray, codes: np.ndarray, n_h: np.ndarray, fpc: np.ndarray, theta: float, mse: bool
) -> float:
    """``sum_r m_r (1 - f_h) (n_h - 1) / n_h (theta_r - centre)^2`` over the replicates of strata with 2+ PSUs;
    ``centre``: the replicates' mean (R's default, ``survey.replicates.mse = FALSE``) or ``theta``."""
    n_row = n_h[codes]
    scale = np.where(n_row > 1, fpc * (n_row - 1) / np.maximum(n_row, 1), 0.0)
    used = (scale > 0) & (m > 0)
    if not np.any(used):
        return 0.0
    centre = theta if mse else float(np.sum(m[used] * thetas[used]) / np.sum(m[used]))
    return float(np.sum(m[used] * scale[used] * (thetas[used] - centre) ** 2))


def design_estimate(
    totals: Sequence[float],
    weights: Sequence[float],
    strata: Sequence | None = None,
    multiplicities: Sequence[float] | None = None,
    fpc: Sequence[float] | None = None,
    population_size: float | None = None,
    method: str = LINEARIZATION,
    mse: bool = False,
    within: Sequence[float] | None = None,
) -> DesignTotals:
    """The Hajek and Horvitz-Thompson means of a stratified cluster sample from its weighted PSU totals.

    Parameters
    ----------
    totals : sequence of float
        ``y_c = sum_{i in c} w_i y_i`` of each PSU ``c`` (each distinct PSU total, see ``multiplicities``).
    weights : sequence of float
        ``x_c = sum_{i in c} w_i``, the PSU's weighted count (positive).
    strata : sequence, optional
        Each PSU's stratum (any labels); one stratum when omitted.
    multiplicities : sequence of float, optional
        How many PSUs share each row's totals (default 1 each): the respondents of a stratum who gave the same
        answer, each a PSU, are one row.
    fpc : sequence of float, optional
        Each row's stratum's population count of PSUs ``N_h`` (finite-population correction
        ``1 - n_h / N_h``); none: PSUs drawn with replacement.
    population_size : float, optional
        The known population size ``N`` for the Horvitz-Thompson mean.
    method : {"linearization", "jackknife"}
    mse : bool
        Jackknife only: centre the replicates on the full-sample estimate rather than on their mean.
    within : sequence of float, optional
        Per row, an unbiased estimate of the variance of one of its PSUs' ``y_c`` given that the PSU was drawn
        (a later stage's: the randomization's), added with the weight ``f_h`` (Notes). Without ``fpc`` it adds
        nothing.

    Returns
    -------
    DesignTotals

    Raises
    ------
    ValueError
        If the lengths differ, a weight is not positive, a multiplicity is negative, ``fpc`` is below a
        stratum's sampled PSUs or the method is unknown; the message names the value.

    Notes
    -----
    With ``Y = sum_c y_c``, ``X = sum_c x_c``, the Hajek mean ``R = Y / X`` and the Horvitz-Thompson mean
    ``Y / N``. Linearisation (Lumley 2010, sections 2.2 and 3.2; Wolter 2007, chapter 6): the scores
    ``z_c = (y_c - R x_c) / X`` (Hajek) or ``z_c = y_c / N`` (Horvitz-Thompson), and::

        Var = sum_h (1 - f_h) n_h / (n_h - 1) sum_{c in h} (z_c - zbar_h)^2

    with ``n_h`` the stratum's PSUs, ``f_h = n_h / N_h`` (0 without ``fpc``). The delete-one-PSU jackknife
    (Wolter 2007, chapter 4; R's ``as.svrepdesign`` types JK1 and JKn): deleting PSU ``c`` of stratum ``h``
    multiplies the other PSUs of ``h`` by ``n_h / (n_h - 1)``, giving ``theta_(hc)``; then::

        Var = sum_h (1 - f_h) (n_h - 1) / n_h sum_{c in h} (theta_(hc) - centre)^2

    with ``centre`` the mean of all the replicates (R's default) or the full-sample estimate (``mse``).
    Strata with one PSU add nothing to either (R's lonely-PSU options ``"certainty"``/``"remove"``).

    A PSU's total is itself estimated when its answers are randomized. Drawn with replacement (no ``fpc``),
    the variance between PSUs already holds the randomization's. Drawn without, the first term above holds
    only ``1 - f_h`` of it, and the rest is added back (Särndal, Swensson and Wretman 1992, result 4.3.1, the
    second-stage term ``sum_c V_c / pi_c`` with ``pi_c = f_h`` within a stratum)::

        Var += sum_h f_h sum_{c in h} v_c / D^2

    with ``v_c`` the ``within`` variance of ``y_c`` and ``D = X`` (Hajek), ``N`` (Horvitz-Thompson) or 1
    (the total); as R's ``survey`` adds a later stage's variance in multistage designs.
    """
    if method not in VARIANCE_METHODS:
        raise ValueError(f"method must be one of {VARIANCE_METHODS}, got method={method!r}")
    y = _finite(totals, "totals")
    x = _finite(weights, "weights", y.size)
    if y.size == 0 or np.any(x <= 0):
        raise ValueError(f"weights must be positive, one per PSU, got weights={weights!r}")
    m = np.ones(y.size) if multiplicities is None else _finite(multiplicities, "multiplicities", y.size, 0.0)
    codes = _labels(strata, y.size)
    count = int(codes.max()) + 1
    n_h = _stratum_sums(m, codes, count)
    f = _fpc(fpc, codes, n_h)
    keep = _stratum_sums(m * f, codes, count) / np.maximum(n_h, 1e-300)
    if population_size is not None and not (math.isfinite(population_size) and population_size > 0):
        raise ValueError(f"population_size must be positive, got population_size={population_size!r}")
    big_y, big_x = float(m @ y), float(m @ x)
    ratio = big_y / big_x
    ht = None if population_size is None else big_y / population_size
    if method == LINEARIZATION:
        ratio_var = _linearized((y - ratio * x) / big_x, m, codes, n_h, keep)
        total_var = _linearized(y, m, codes, n_h, keep)
    else:
        factor = np.divide(n_h, n_h - 1, out=np.ones_like(n_h), where=n_h > 1)[codes]
        y_h, x_h = _stratum_sums(m * y, codes, count)[codes], _stratum_sums(m * x, codes, count)[codes]
        rep_y = big_y - y_h + factor * (y_h - y)
        rep_x = big_x - x_h + factor * (x_h - x)
        ratio_var = _jackknife(rep_y / rep_x, m, codes, n_h, f, ratio, mse)
        total_var = _jackknife(rep_y, m, codes, n_h, f, big_y, mse)
    if within is not None:
        extra = float(np.sum(m * (1.0 - f) * _finite(within, "within", y.size, 0.0)))
        ratio_var += extra / big_x**2
        total_var += extra
    lonely = tuple(str(s) for s in _stratum_names(strata)[(n_h > 0) & (n_h < 2) & (keep > 0)])
    return DesignTotals(
        total=big_y,
        weight_sum=big_x,
        ratio=ratio,
        ratio_variance=ratio_var,
        ht_mean=ht,
        ht_variance=None if ht is None else total_var / population_size**2,
        total_variance=total_var,
        psus=int(round(float(m.sum()))),
        strata=int(np.count_nonzero(n_h)),
        lonely_strata=lonely,
        method=method,
    )


def _stratum_names(strata: Sequence | None) -> np.ndarray:
    """The stratum label of each code (``""`` for the one stratum without ``strata``)."""
    if strata is None:
        return np.array([""])
    return np.unique(np.asarray([str(s) for s in strata]))


def _randomization(debiased: object, n: object, t: float, a: float, b: float) -> np.ndarray:
    """An unbiased estimate of the randomization's variance of a group's debiased total ``sum_i u_i`` (Notes of
    :func:`design_share`)."""
    u = np.asarray(debiased, dtype=float)
    return (u * (a + t) * b + (np.asarray(n, dtype=float) - u) * a * (1 - a)) / t**2


def design_share(
    yes_counts: Sequence[int],
    ns: Sequence[int],
    weights: Sequence[float],
    strata: Sequence | None = None,
    clustered: bool = True,
    fpc: Sequence[float] | None = None,
    population_size: float | None = None,
    t: float = 0.5,
    a: float = 0.25,
    b: float = 0.25,
    method: str = LINEARIZATION,
    confidence_level: float = 0.95,
) -> DesignShare:
    """A yes/no share under a complex sample from the stored answers' counts per group (one design ``t, a, b``).

    Parameters
    ----------
    yes_counts, ns : sequence of int
        Per group: the stored answers that point to the trait, and all answers.
    weights : sequence of float
        Per group: each answer's design weight ``w_g`` (inverse inclusion probability).
    strata : sequence, optional
        With ``clustered``: each cluster's stratum (one stratum when omitted).
    clustered : bool
        True: each group is a cluster (a PSU). False: each group is a stratum and each of its respondents a PSU.
    fpc : sequence of float, optional
        Per group: its stratum's population count of PSUs (clusters, or people when not ``clustered``).
    population_size : float, optional
        ``N``: gives the Horvitz-Thompson share.
    t, a, b : float or Fraction
        The forced-response design on the count: a trait answer is stored with ``a + t``, another with ``a``.
    method : {"linearization", "jackknife"}
    confidence_level : float

    Returns
    -------
    DesignShare
        The Hajek share (always) and the Horvitz-Thompson one (with ``N``), each with its design effect against
        the unweighted estimate of all the answers (:func:`analysis.estimate_proportion`).

    Notes
    -----
    Each answer's debiased indicator ``u_i = (r_i - a) / t`` (``r_i = 1`` for a stored trait answer) is
    unbiased for the true answer over the randomization, so ``sum w_i u_i`` is unbiased for the population
    count over the design and the randomization together. It takes two values, so a group's weighted totals
    follow from its counts: ``y_g = w_g (y_g - a n_g) / t`` and ``x_g = w_g n_g``. Not clustered, the two
    values are two rows of each stratum with multiplicities ``y_g`` and ``n_g - y_g``. Then
    :func:`design_estimate`. Drawn with replacement, the randomization's variance is part of the variance
    between PSUs. With ``fpc``, the part the finite-population correction takes away is added back: given the
    true answers, ``Var(u_i) = (a + t) b / t^2`` for a carrier and ``a (1 - a) / t^2`` otherwise, linear in
    the true answer, so replacing it by ``u_i`` gives the unbiased ``v_g = w_g^2 (U_g (a + t) b +
    (n_g - U_g) a (1 - a)) / t^2`` with ``U_g = sum_i u_i`` (Chaudhuri 2011, chapter 3: the variance of a
    randomized response estimator is the design's variance of the true totals plus the expected
    randomization variance). With one stratum and equal weights this is the unbiased variance of
    :func:`analysis.estimate_finite_population` (RRTCS's, tested).
    """
    level = check_unit_open(confidence_level, "confidence_level")
    ys, counts = (np.asarray(v) for v in (yes_counts, ns))
    w = _finite(weights, "weights", ys.size)
    if ys.shape != counts.shape or ys.ndim != 1 or ys.size == 0:
        raise ValueError(f"yes_counts and ns must be equally long, got {len(yes_counts)} and {len(ns)}")
    if np.any(ys < 0) or np.any(ys > counts) or np.any(counts < 1) or np.any(w <= 0):
        raise ValueError(f"every group needs 1+ answers, 0 <= yes <= n and a positive weight, got ns={list(ns)!r}")
    tf, af, bf = float(t), float(a), float(b)
    if clustered:
        debiased = (ys - af * counts) / tf
        rows = (w * debiased, w * counts, strata, None, fpc, w**2 * _randomization(debiased, counts, tf, af, bf))
    else:
        groups = np.arange(ys.size)
        one, zero = (1 - af) / tf, -af / tf
        rows = (
            np.concatenate([w * one, w * zero]),
            np.concatenate([w, w]),
            np.concatenate([groups, groups]),
            np.concatenate([ys, counts - ys]).astype(float),
            None if fpc is None else np.concatenate([np.asarray(fpc, float)] * 2),
            np.concatenate([w**2 * _randomization(one, 1, tf, af, bf), w**2 * _randomization(zero, 1, tf, af, bf)]),
        )
    totals = design_estimate(*rows[:5], population_size=population_size, method=method, within=rows[5])
    pooled = estimate_proportion(int(ys.sum()), int(counts.sum()), t, a, b)
    unweighted = (pooled.estimate_raw, pooled.std_err)
    finite = fpc is not None
    hajek = weighted_estimate(totals.ratio, totals.ratio_variance, level, unweighted, HAJEK, totals.weight_sum, finite)
    ht = None
    if totals.ht_mean is not None:
        ht = weighted_estimate(
            totals.ht_mean, totals.ht_variance, level, unweighted, HORVITZ_THOMPSON, population_size, finite
        )
    return DesignShare(hajek=hajek, horvitz_thompson=ht, totals=totals)
