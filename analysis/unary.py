"""Check-all-that-apply answers sent as one randomized bit per option (unary encoding).

Under :class:`analysis.numeric_design.UnaryDesign` ``(m, p, q)`` each of the ``m`` options is sent as 1 with
probability ``p`` when ticked and ``q`` when not, every bit drawn independently. One option's bit is therefore
exactly a yes/no design with yes-probabilities ``(theta1, theta0) = (p, q)``: the forced-response design
``(t, a, b) = (p - q, q, 1 - p)`` (:func:`option_design`), so each option's share is estimated, and its
interval computed, by :func:`analysis.estimate.estimate_proportion` and
:func:`analysis.intervals.confidence_interval` as they are (:func:`unary_shares`). The number of options ticked
is linear in the number of 1s sent (:func:`ticked_count`), so its mean and standard error come from the
histogram of sent 1s, which the kept pattern counts give (:func:`pattern_ones` gives the per-option 1s).

Pure: counts in, frozen results out.

References
----------
Wang, T., Blocki, J., Li, N. and Jha, S. (2017). Locally differentially private protocols for frequency
estimation. USENIX Security 2017, 729-745 (unary encoding, section 4.4).
Erlingsson, U., Pihur, V. and Korolova, A. (2014). RAPPOR: randomized aggregatable privacy-preserving ordinal
response. CCS 2014, 1054-1067 (one randomized bit per candidate value).
Warner, S. L. (1965). Randomized response: a survey technique for eliminating evasive answer bias. JASA
60(309), 63-69.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral

from analysis._checks import check_integer, check_unit_open
from analysis.design import ForcedResponseDesign
from analysis.estimate import estimate_proportion
from analysis.intervals import ConfidenceInterval, confidence_interval, normal_interval
from analysis.numeric_design import MAX_UNARY_OPTIONS, UnaryDesign


@dataclass(frozen=True)
class ShareEstimate:
    """One option's share of respondents who ticked it.

    Attributes
    ----------
    option : int
        The option's position in the question's order, from 0.
    n : int
        Answers.
    ones : int
        Answers whose bit for this option was sent as 1.
    observed_rate : float
        ``lambda_hat = ones / n``.
    estimate_raw : float
        ``(lambda_hat - q) / (p - q)``: unbiased, may fall outside ``[0, 1]`` (use it to pool or average).
    estimate : float
        ``estimate_raw`` clipped to ``[0, 1]``: the number to report.
    clipped : bool
        Whether clipping changed the estimate.
    std_err : float
        ``sqrt(lambda (1 - lambda) / n) / (p - q)`` with ``lambda = q + (p - q) estimate``: the observed rate
        when it lies within ``[q, p]``, the nearer end otherwise.
    interval : ConfidenceInterval
        Wilson's interval of the option's bit, mapped to the share and clipped to ``[0, 1]``; a one-sided bound
        (``interval.side``) when the observed rate lies outside ``[q, p]``
        (:func:`analysis.intervals.confidence_interval`).
    """

    option: int
    n: int
    ones: int
    observed_rate: float
    estimate_raw: float
    estimate: float
    clipped: bool
    std_err: float
    interval: ConfidenceInterval


@dataclass(frozen=True)
class TickedCount:
    """The mean number of options a respondent ticked.

    Attributes
    ----------
    n : int
        Answers.
    options : int
        ``m``, the options of the question.
    mean_sent : float
        The mean number of 1s sent per answer.
    estimate_raw : float
        ``(mean_sent - m q) / (p - q)``: unbiased, may fall outside ``[0, m]``.
    estimate : float
        ``estimate_raw`` clipped to ``[0, m]``.
    clipped : bool
        Whether clipping changed the estimate.
    std_err : float
        ``sqrt(max(s2, m min(p (1 - p), q (1 - q))) / n) / (p - q)``, ``s2`` the variance of the 1s sent
        (divided by ``n``); see :func:`ticked_count`.
    low, high : float
        The Wald interval ``estimate_raw +/- z std_err`` clipped to ``[0, m]``.
    interval_clipped : bool
        Whether clipping moved an end of the interval.
    confidence_level : float
    """

    n: int
    options: int
    mean_sent: float
    estimate_raw: float
    estimate: float
    clipped: bool
    std_err: float
    low: float
    high: float
    interval_clipped: bool
    confidence_level: float


@dataclass(frozen=True)
class PatternOnes:
    """Per-option 1s summed over kept patterns: ``ones[j]`` answers sent 1 for option ``j``, ``n`` answers."""

    n: int
    ones: tuple[int, ...]


def check_design(design: object) -> UnaryDesign:
    if not isinstance(design, UnaryDesign):
        raise ValueError(f"design must be a UnaryDesign, got design={design!r}")
    return design


def option_design(design: UnaryDesign) -> ForcedResponseDesign:
    """The yes/no design of one option's bit: forced response ``(t, a, b) = (p - q, q, 1 - p)``, exact.

    A ticked option is sent as 1 with ``t + a = p``, an option not ticked with ``a = q``: the two
    yes-probabilities of :class:`analysis.design.BinaryDesign` are ``(p, q)``.
    """
    design = check_design(design)
    return ForcedResponseDesign(design.p - design.q, design.q, 1 - design.p, max_denominator=None)


def _check_pattern_counts(pattern_counts: object, options: int | None) -> dict[str, int]:
    if not isinstance(pattern_counts, Mapping):
        raise ValueError(f"pattern_counts must map bit strings to counts, got pattern_counts={pattern_counts!r}")
    checked: dict[str, int] = {}
    for pattern, count in pattern_counts.items():
        if (
            not isinstance(pattern, str)
            or not 1 <= len(pattern) <= MAX_UNARY_OPTIONS
            or set(pattern) - {"0", "1"}
            or (options is not None and len(pattern) != options)
        ):
            width = f"{options} characters" if options is not None else f"1 to {MAX_UNARY_OPTIONS} characters"
            raise ValueError(f"a pattern must be {width} 0 or 1, got pattern {pattern!r}")
        if isinstance(count, bool) or not isinstance(count, Integral) or count < 0:
            raise ValueError(f"a pattern's count must be an integer >= 0, got pattern_counts[{pattern!r}]={count!r}")
        checked[pattern] = int(count)
    widths = {len(pattern) for pattern in checked}
    if len(widths) > 1:
        raise ValueError(f"every pattern must have the same length, got lengths {sorted(widths)}")
    return checked


def pattern_ones(pattern_counts: Mapping[str, int], options: int | None = None) -> PatternOnes:
    """Per-option 1s and the number of answers from the kept pattern counts.

    Parameters
    ----------
    pattern_counts : mapping of str to int
        Bit string as sent (``"0110"``, the question's option order) to the number of answers that sent it.
    options : int, optional
        ``m``; by default the patterns' length. Needed when ``pattern_counts`` is empty (then every count is 0).

    Returns
    -------
    PatternOnes
        ``n = sum(counts)``, ``ones[j] = sum(count for pattern with pattern[j] == "1")``.

    Raises
    ------
    ValueError
        A pattern that is not a bit string of the same length as the others (or ``options``), a negative or
        non-integer count, or no pattern and no ``options``.
    """
    if options is not None:
        options = check_integer(options, "options", 1)
        if options > MAX_UNARY_OPTIONS:
            raise ValueError(f"options must be an integer in [1, {MAX_UNARY_OPTIONS}], got options={options!r}")
    checked = _check_pattern_counts(pattern_counts, options)
    if options is None:
        if not checked:
            raise ValueError("pattern_counts is empty: pass options to say how many options there are")
        options = len(next(iter(checked)))
    ones = [0] * options
    for pattern, count in checked.items():
        for index, bit in enumerate(pattern):
            if bit == "1":
                ones[index] += count
    return PatternOnes(sum(checked.values()), tuple(ones))


def _check_ones(ones_per_option: object, n: int, options: int) -> tuple[int, ...]:
    try:
        ones = tuple(ones_per_option)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(f"ones_per_option must be a sequence of counts, got {ones_per_option!r}") from None
    if len(ones) != options:
        raise ValueError(f"ones_per_option must have one count per option ({options}), got {len(ones)}: {ones!r}")
    for index, count in enumerate(ones):
        if isinstance(count, bool) or not isinstance(count, Integral) or not 0 <= count <= n:
            raise ValueError(f"ones_per_option must be integers in [0, n={n}], got ones_per_option[{index}]={count!r}")
    return tuple(int(count) for count in ones)


def unary_shares(
    design: UnaryDesign, n: int, ones_per_option: Sequence[int], level: float = 0.95
) -> tuple[ShareEstimate, ...]:
    """Each option's share of respondents who ticked it, debiased, with its standard error and interval.

    Parameters
    ----------
    design : UnaryDesign
        ``(m, p, q)``.
    n : int
        Answers, ``n >= 1``.
    ones_per_option : sequence of int
        ``m`` counts: answers whose bit for each option was sent as 1 (:func:`pattern_ones`).
    level : float
        Confidence level of each interval, in ``(0, 1)``. The intervals are not simultaneous.

    Returns
    -------
    tuple of ShareEstimate
        In option order.

    Raises
    ------
    ValueError
        A bad design, count or level; the message names it.

    Notes
    -----
    Option ``j``'s bit is 1 with ``lambda_j = q + (p - q) pi_j`` for a share ``pi_j`` of respondents who
    ticked it, and its count is Binomial(n, lambda_j) when the respondents are a random sample
    (Wang et al. 2017, section 4.4)::

        pi_raw = (ones / n - q) / (p - q)                                   unbiased
        SE     = sqrt(lam_c (1 - lam_c) / n) / (p - q),   lam_c = q + (p - q) clip(pi_raw, 0, 1)

    ``lam_c`` is the observed rate whenever it lies within ``[q, p]``; outside, the nearer end, so that a rate
    the design cannot produce does not shrink the standard error (as RAPPOR clamps; Erlingsson et al. 2014).
    This is :func:`analysis.estimate.estimate_proportion` on the forced-response design
    ``(p - q, q, 1 - p)`` of :func:`option_design`, and the interval is its Wilson interval
    (:func:`analysis.intervals.confidence_interval`; Brown, Cai and DasGupta 2001), with the one-sided bound
    of :func:`analysis.intervals.outside_design` when the rate lies outside ``[q, p]``.
    """
    design = check_design(design)
    n = check_integer(n, "n", 1)
    ones = _check_ones(ones_per_option, n, design.options)
    level = check_unit_open(level, "level")
    t, a, b = option_design(design).exact()
    results = []
    for option, count in enumerate(ones):
        estimate = estimate_proportion(count, n, t, a, b)
        results.append(
            ShareEstimate(
                option=option,
                n=n,
                ones=count,
                observed_rate=estimate.observed_rate,
                estimate_raw=estimate.estimate_raw,
                estimate=estimate.estimate,
                clipped=estimate.clipped,
                std_err=estimate.std_err_population,
                interval=confidence_interval(count, n, t, a, b, level, "wilson"),
            )
        )
    return tuple(results)


def ticked_count(design: UnaryDesign, n: int, pattern_counts: Mapping[str, int], level: float = 0.95) -> TickedCount:
    """The mean number of options ticked per respondent, with its standard error and interval.

    Parameters
    ----------
    design : UnaryDesign
        ``(m, p, q)``.
    n : int
        Answers, ``n >= 1``; must equal the sum of ``pattern_counts``.
    pattern_counts : mapping of str to int
        Kept patterns: bit string sent (``m`` characters) to its count.
    level : float
        Confidence level, in ``(0, 1)``.

    Returns
    -------
    TickedCount

    Raises
    ------
    ValueError
        A bad design, pattern, count or level, or ``n`` not the sum of the counts.

    Notes
    -----
    A respondent who ticked ``T`` options sends ``S`` 1s with ``E[S | T] = T p + (m - T) q = m q + (p - q) T``,
    so ``(S - m q) / (p - q)`` is unbiased for ``T`` and its mean over the answers is unbiased for the mean of
    ``T``. With ``S_bar`` and ``s2 = sum (S_i - S_bar)^2 / n`` from the histogram of ``S`` (each pattern's
    count of 1s)::

        T_raw = (S_bar - m q) / (p - q)
        SE    = sqrt(max(s2, m min(p (1 - p), q (1 - q))) / n) / (p - q)
        interval = T_raw +/- z SE, clipped to [0, m]

    The floor under ``s2`` is the least variance ``S`` can have whatever the true answers (given ``T`` the
    ``m`` bits are independent, each of variance ``p (1 - p)`` or ``q (1 - q)``), so a sample that happens to
    send the same number of 1s every time does not claim a standard error of 0 (as the shares' clamp). The
    divisor ``n`` makes ``m = 1`` give exactly the share's ``lambda (1 - lambda) / n``. The mean is a linear
    function of the options' shares (``E T = sum pi_j``); the covariance between options is in ``s2``.
    """
    design = check_design(design)
    n = check_integer(n, "n", 1)
    checked = _check_pattern_counts(pattern_counts, design.options)
    level = check_unit_open(level, "level")
    total = sum(checked.values())
    if total != n:
        raise ValueError(f"n must equal the sum of the pattern counts ({total}), got n={n}")
    m, p, q = design.options, float(design.p), float(design.q)
    histogram: dict[int, int] = {}
    for pattern, count in checked.items():
        histogram[pattern.count("1")] = histogram.get(pattern.count("1"), 0) + count
    mean_sent = math.fsum(ones * count for ones, count in histogram.items()) / n
    s2 = math.fsum(count * (ones - mean_sent) ** 2 for ones, count in histogram.items()) / n
    floor = m * min(p * (1 - p), q * (1 - q))
    std_err = math.sqrt(max(s2, floor) / n) / (p - q)
    raw = (mean_sent - m * q) / (p - q)
    estimate = min(max(raw, 0.0), float(m))
    unclipped = normal_interval(raw, std_err, level, -math.inf, math.inf)
    interval = normal_interval(raw, std_err, level, 0.0, float(m))
    return TickedCount(
        n=n,
        options=m,
        mean_sent=mean_sent,
        estimate_raw=raw,
        estimate=estimate,
        clipped=estimate != raw,
        std_err=std_err,
        low=interval.low,
        high=interval.high,
        interval_clipped=(interval.low, interval.high) != (unclipped.low, unclipped.high),
        confidence_level=level,
    )
