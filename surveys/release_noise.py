"""The noise a release adds to each count of a figure, and what the figure's note says of it.

Part of :mod:`surveys.releases`. A person changes a count table by at most ``rows_per_person`` answers, so each
count gets discrete Laplace noise of scale ``rows_per_person / epsilon`` (discrete Gaussian noise with
``sigma^2 = rows_per_person^2 / (2 rho)`` when the budget has ``delta > 0``). The draws come from the
:class:`surveys.central_noise.CentralSampler` the caller passes; this module only chooses their size. Counts are
then shown whole and non-negative by :func:`analysis.central.nonnegative_counts` (see :data:`NONNEGATIVE_HOW`).

References
----------
C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist

from analysis.central import (
    count_scale,
    discrete_gaussian_pmf,
    discrete_gaussian_variance,
    discrete_laplace_quantile,
    discrete_laplace_variance,
    gaussian_sigma2,
    zcdp_epsilon,
)
from surveys.central_noise import CentralSampler
from surveys.release_plans import GAUSSIAN, LAPLACE, ReleasePlan
from surveys.release_words import Number, Words, say, words
from surveys.schema_releases import ReleasePolicy
from surveys.text_format import N_

#: How :func:`analysis.central.nonnegative_counts` makes counts whole and non-negative, for the notes.
NONNEGATIVE_WORDS = words(
    N_(
        "the noisy counts were replaced by the nearest whole, non-negative counts with the same total (each lowered "
        "by one common amount, any below it set to 0, then rounded keeping the total; all 0 when the noisy total is "
        "0 or below), so whenever the noisy total is above 0 the published total is the noisy total, whose "
        "expectation is the true total"
    )
)
#: :data:`NONNEGATIVE_WORDS` in English.
NONNEGATIVE_HOW = say(NONNEGATIVE_WORDS)

#: What :meth:`CountNoise.describe` says the noise was added to, and how far it moves it (one message each, so
#: that each language can say it in its own grammar).
SUBJECTS = {
    "each count": N_(
        "%(noise)s was added once to each count; each count is within ±%(half)s of its value before noise with "
        "probability %(level)s"
    ),
    "the sum": N_(
        "%(noise)s was added once to the sum; the sum is within ±%(half)s of its value before noise with "
        "probability %(level)s"
    ),
    "the number": N_(
        "%(noise)s was added once to the number; the number is within ±%(half)s of its value before noise with "
        "probability %(level)s"
    ),
    "the number of answers": N_(
        "%(noise)s was added once to the number of answers; the number of answers is within ±%(half)s of its "
        "value before noise with probability %(level)s"
    ),
}


@dataclass(frozen=True)
class CountNoise:
    """The noise added to each count of one figure."""

    mechanism: str
    scale: Fraction  # discrete Laplace: t = sensitivity / epsilon; discrete Gaussian: sigma^2
    sensitivity: int
    epsilon: Fraction

    def draw(self, sampler: CentralSampler) -> int:
        if self.mechanism == LAPLACE:
            return int(sampler.discrete_laplace(self.scale))
        return int(sampler.discrete_gaussian(self.scale))

    @property
    def variance(self) -> float:
        if self.mechanism == LAPLACE:
            return float(discrete_laplace_variance(self.scale))
        return float(discrete_gaussian_variance(self.scale))

    def half_width(self, level: float) -> int:
        """The least ``m`` with ``P(|noise| <= m) >= level``, exactly: the discrete Laplace's quantile
        (:func:`analysis.central.discrete_laplace_quantile`), the discrete Gaussian's summed from its pmf."""
        if self.mechanism == LAPLACE:
            return int(discrete_laplace_quantile(level, self.scale))
        centre = discrete_gaussian_pmf(0, self.scale)
        sigma2, m, inside = float(self.scale), 0, centre
        while inside < level:
            m += 1
            inside += 2 * centre * math.exp(-(m * m) / (2 * sigma2))
        return m

    def describe(self, level: float, subject: str = "each count") -> Words:
        """What was added, and how far it moves ``subject`` (a key of :data:`SUBJECTS`) at ``level``."""
        if subject not in SUBJECTS:
            raise ValueError(f"subject must be one of {', '.join(SUBJECTS)}, got subject={subject!r}")
        if self.mechanism == LAPLACE:
            noise = words(
                N_("discrete Laplace noise (scale %(scale)s = %(sensitivity)s / epsilon %(epsilon)s)"),
                scale=Number(float(self.scale), "g3"),
                sensitivity=Number(self.sensitivity, "whole"),
                epsilon=Number(float(self.epsilon), "g3"),
            )
        else:
            noise = words(
                N_(
                    "discrete Gaussian noise (variance sigma² = %(sigma2)s, sensitivity %(sensitivity)s, "
                    "epsilon %(epsilon)s)"
                ),
                sigma2=Number(float(self.scale), "g3"),
                sensitivity=Number(self.sensitivity, "whole"),
                epsilon=Number(float(self.epsilon), "g3"),
            )
        return words(
            SUBJECTS[subject],
            noise=noise,
            half=Number(self.half_width(level), "whole"),
            level=Number(level, "level"),
        )


def z_value(level: float) -> float:
    """The standard normal quantile of a two-sided interval at ``level``."""
    return NormalDist().inv_cdf(0.5 + level / 2)


def count_noise(plan: ReleasePlan, policy: ReleasePolicy, key: str) -> CountNoise:
    """The noise on each count of the figure ``key`` of ``plan``."""
    sensitivity = policy.rows_per_person
    epsilon = plan.epsilon_each[key]
    if plan.mechanism == LAPLACE:
        return CountNoise(LAPLACE, count_scale(epsilon, sensitivity), sensitivity, epsilon)
    return CountNoise(GAUSSIAN, gaussian_sigma2(plan.rho_each[key], sensitivity), sensitivity, epsilon)


def split_noise(
    plan: ReleasePlan, policy: ReleasePolicy, key: str, sensitivities: tuple[int, ...]
) -> tuple[CountNoise, ...]:
    """The noise on each of several whole numbers of one figure, each with its own sensitivity (one person's
    largest change to it), the figure's epsilon (or ``rho``) split equally between them: sequential composition
    (Dwork and Roth 2014, Theorem 3.16; for ``rho``, Bun and Steinke 2016, Lemma 2.3) makes the figure cost
    what :func:`surveys.release_plans.plan_release` charged for it."""
    parts = len(sensitivities)
    if plan.mechanism == LAPLACE:
        epsilon = plan.epsilon_each[key] / parts
        return tuple(CountNoise(LAPLACE, count_scale(epsilon, d), d, epsilon) for d in sensitivities)
    rho = plan.rho_each[key] / parts
    epsilon = Fraction(zcdp_epsilon(float(rho), policy.delta))  # what each part's note reads (its cost is rho)
    return tuple(CountNoise(GAUSSIAN, gaussian_sigma2(rho, d), d, epsilon) for d in sensitivities)
