"""Estimating the shares of a ``k``-option question asked with randomized response.

The design (:class:`analysis.design.MultipleChoiceDesign`): with probability
``t`` the respondent's true option is reported, otherwise one of the ``k``
options uniformly at random. The reported counts are
Multinomial(n, lambda) with ``lambda = t pi + (1 - t) / k``.

References
----------
Warner, S. L. (1965). Randomized response: a survey technique for
eliminating evasive answer bias. JASA 60(309), 63-69.
Wang, T., Blocki, J., Li, N. and Jha, S. (2017). Locally differentially
private protocols for frequency estimation. USENIX Security 2017, 729-745.
Duchi, J., Shalev-Shwartz, S., Singer, Y. and Chandra, T. (2008). Efficient
projections onto the l1-ball for learning in high dimensions. ICML 2008.
Wang, W. and Carreira-Perpinan, M. A. (2013). Projection onto the probability
simplex: an efficient algorithm with a simple proof, and an application.
arXiv:1309.1541.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Integral

import numpy as np

from analysis import privacy
from analysis._checks import as_exact
from analysis.design import MultipleChoiceDesign
from analysis.intervals import ConfidenceInterval, confidence_interval


def project_to_simplex(values: Sequence[float]) -> np.ndarray:
    """Euclidean projection of a vector onto the probability simplex.

    Parameters
    ----------
    values : sequence of float
        A non-empty vector ``v`` of finite numbers.

    Returns
    -------
    numpy.ndarray
        The point ``w`` with ``w >= 0`` and ``sum(w) = 1`` closest to ``v``.

    Notes
    -----
    Sort ``v`` in decreasing order into ``u`` and let ``rho`` be the largest
    ``j`` (1-based) with ``u_j + (1 - sum_{i <= j} u_i) / j > 0``; then::

        theta = (sum_{i <= rho} u_i - 1) / rho
        w = max(v - theta, 0)

    (Duchi et al. 2008, Figure 1; Wang and Carreira-Perpinan 2013,
    Algorithm 1). A vector already on the simplex is returned unchanged.

    References
    ----------
    Duchi, J., Shalev-Shwartz, S., Singer, Y. and Chandra, T. (2008). ICML.
    Wang, W. and Carreira-Perpinan, M. A. (2013). arXiv:1309.1541.
    """
    v = np.asarray(values, dtype=float)
    if v.ndim != 1 or v.size == 0 or not np.all(np.isfinite(v)):
        raise ValueError(f"values must be a non-empty 1-d vector of finite numbers, got {values!r}")
    u = np.sort(v)[::-1]
    cumulative = np.cumsum(u) - 1
    j = np.arange(1, v.size + 1)
    rho = int(np.nonzero(u - cumulative / j > 0)[0][-1]) + 1
    theta = cumulative[rho - 1] / rho
    return np.maximum(v - theta, 0.0)


@dataclass(frozen=True)
class MultipleChoiceEstimate:
    """Estimated shares of the options of a ``k``-option question.

    Attributes
    ----------
    n : int
        Number of noisy answers, ``sum(counts)``.
    counts : tuple of int
        Reported count of each option.
    k : int
        Number of options.
    t : float
        Probability of a truthful report.
    observed : tuple of float
        Reported shares ``lambda_j = c_j / n``.
    estimate_raw : tuple of float
        Unbiased ``(lambda_j - (1 - t)/k) / t``; sums to 1 but entries may be
        negative.
    estimate_projected : tuple of float
        ``estimate_raw`` projected onto the probability simplex: the shares
        to report.
    std_err : tuple of float
        Population standard error of each raw estimate, as for a yes/no
        question: ``sqrt(lam_c (1 - lam_c) / (n t^2))`` with the option's
        reported share clamped to what the design allows, ``lam_c = (1 - t)/k
        + t * clip(pi_raw_j, 0, 1)``. An option nobody reported therefore
        still has a positive standard error.
    """

    n: int
    counts: tuple[int, ...]
    k: int
    t: float
    observed: tuple[float, ...]
    estimate_raw: tuple[float, ...]
    estimate_projected: tuple[float, ...]
    std_err: tuple[float, ...]

    @property
    def epsilon(self) -> float:
        """Local-DP epsilon of one answer; see :func:`analysis.privacy.multiple_choice_epsilon`."""
        return privacy.multiple_choice_epsilon(self.k, self.t)

    def covariance(self) -> np.ndarray:
        """Estimated covariance matrix of ``estimate_raw``, ``k x k``.

        Notes
        -----
        ``(diag(lambda) - lambda lambda^T) / (n t^2)`` with the observed
        shares ``lambda``: the multinomial covariance of the shares, scaled
        by ``1 / t^2``.
        """
        lam = np.asarray(self.observed)
        return (np.diag(lam) - np.outer(lam, lam)) / (self.n * self.t**2)

    def confidence_intervals(
        self, confidence_level: float = 0.95, method: str = "wilson"
    ) -> tuple[ConfidenceInterval, ...]:
        """One confidence interval per option.

        Parameters
        ----------
        confidence_level : float
            Nominal coverage of each interval, in ``(0, 1)``; default 0.95.
            The intervals are not simultaneous.
        method : {"wilson", "clopper-pearson", "wald"}
            See :func:`analysis.intervals.confidence_interval`.

        Returns
        -------
        tuple of ConfidenceInterval
            In option order, each within ``[0, 1]``.

        Notes
        -----
        Option ``j`` is reported with probability ``t pi_j + (1 - t)/k``: a
        forced-response design for "is it option j?" with truthful ``t``,
        forced yes ``a = (1 - t)/k`` and forced no ``b = 1 - t - a``
        (:meth:`~analysis.design.MultipleChoiceDesign.option_marginal`). Its
        count is Binomial(n, lambda_j), so the binary intervals apply as
        they are.
        """
        t, a, b = MultipleChoiceDesign(self.k, as_exact(self.t)).option_marginal().exact()
        return tuple(confidence_interval(count, self.n, t, a, b, confidence_level, method) for count in self.counts)


def check_option_counts(counts: object) -> tuple[int, ...]:
    try:
        items = tuple(counts)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(f"counts must be a sequence of integers, got counts={counts!r}") from None
    if len(items) < 2:
        raise ValueError(f"counts must have one entry per option, at least 2, got counts={items!r}")
    for index, count in enumerate(items):
        if isinstance(count, bool) or not isinstance(count, Integral) or count < 0:
            raise ValueError(f"counts must be non-negative integers, got counts[{index}]={count!r}")
    result = tuple(int(count) for count in items)
    if sum(result) < 1:
        raise ValueError(f"counts must include at least one answer, got counts={result!r}")
    return result


def estimate_multiple_choice(counts: Sequence[int], t: float = 0.5) -> MultipleChoiceEstimate:
    """Estimate the true shares of a ``k``-option question.

    Parameters
    ----------
    counts : sequence of int
        Reported count of each option; ``k = len(counts) >= 2``.
    t : float
        Probability of a truthful report, in ``(0, 1]``; otherwise the report
        is uniform over the ``k`` options.

    Returns
    -------
    MultipleChoiceEstimate

    Raises
    ------
    ValueError
        If a count or ``t`` is invalid; the message names the value.

    Notes
    -----
    With ``lambda_j = c_j / n`` and ``E[lambda_j] = t pi_j + (1 - t)/k``::

        pi_raw_j = (lambda_j - (1 - t)/k) / t
        Cov(pi_raw) = (diag(lambda) - lambda lambda^T) / (n t^2)

    ``pi_raw`` is unbiased and sums to 1, but entries can be negative;
    ``estimate_projected`` is its Euclidean projection onto the probability
    simplex (:func:`project_to_simplex`). :meth:`MultipleChoiceEstimate.covariance`
    uses the observed shares. The standard error of each option does what
    the yes/no estimator does (Erlingsson, Pihur and Korolova 2014 clamp
    the same way): the share is clamped to the values the design allows,
    ``[q, q + t]`` with ``q = (1 - t)/k``, before it is plugged in::

        lam_c_j = q + t * clip(pi_raw_j, 0, 1)
        std_err_j = sqrt(lam_c_j (1 - lam_c_j) / (n t^2))

    so an option nobody reported (``lambda_j = 0 < q``) gets
    ``sqrt(q (1 - q) / (n t^2)) > 0``, not 0.

    References
    ----------
    Warner, S. L. (1965). JASA 60(309), 63-69.
    Wang, T., Blocki, J., Li, N. and Jha, S. (2017). USENIX Security 2017.
    Wang, W. and Carreira-Perpinan, M. A. (2013). arXiv:1309.1541.
    Erlingsson, U., Pihur, V. and Korolova, A. (2014). CCS 2014, 1054-1067.
    """
    counts = check_option_counts(counts)
    k = len(counts)
    try:
        design = MultipleChoiceDesign(k, as_exact(t))
    except ValueError as error:
        raise ValueError(f"invalid design k={k}, t={t!r}: {error}") from None
    t = float(design.t)
    n = sum(counts)
    lam = np.asarray(counts, dtype=float) / n
    raw = (lam - (1 - t) / k) / t
    lam_clamped = (1 - t) / k + t * np.clip(raw, 0.0, 1.0)
    variance = lam_clamped * (1 - lam_clamped) / (n * t * t)
    return MultipleChoiceEstimate(
        n=n,
        counts=counts,
        k=k,
        t=t,
        observed=tuple(float(x) for x in lam),
        estimate_raw=tuple(float(x) for x in raw),
        estimate_projected=tuple(float(x) for x in project_to_simplex(raw)),
        std_err=tuple(float(x) for x in np.sqrt(np.maximum(variance, 0.0))),
    )
