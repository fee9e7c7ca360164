"""The one place central noise is drawn: the noise a release adds to figures of plain answers.

:data:`SECURE` draws from :mod:`secrets` only, in exact integers and fractions (no floating point on the
sampling path, so no rounding bias): every Bernoulli(``n/d``) is one ``randbelow(d) < n``.

* The discrete Laplace noise of a count is :func:`surveys.numeric_protocol.discrete_laplace` (Canonne,
  Kamath and Steinke 2020, Algorithm 2), reused as it is.
* The discrete Gaussian is their Algorithm 3 (:meth:`ExactSampler.discrete_gaussian`).
* The exponential mechanism (McSherry and Talwar 2007) is sampled exactly by rejection: propose a candidate
  uniformly, accept it with Bernoulli(``exp(-epsilon (u_max - u_i)/(2 D))``)
  (:func:`surveys.numeric_protocol.bernoulli_exp`, Algorithm 1), repeat.

:class:`ExactSampler` runs the same algorithms over any ``randbelow(n)``: the tests' seeded sampler
(``tests.helpers.seeded.seeded_sampler``, over ``random.Random(seed)``) is one, never used for a release (its draws
are predictable from the seed). This module imports no ``random``
(tests/test_layers.py::test_no_source_module_draws_from_random).

The exact probabilities are :mod:`analysis.central`'s (tests/test_central_noise.py checks the draws against
them by chi-square).

References
----------
C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020,
arXiv:2004.00010, Algorithms 1-3.
F. McSherry and K. Talwar, "Mechanism Design via Differential Privacy", FOCS 2007.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Protocol

from surveys.numeric_protocol import bernoulli_exp, discrete_laplace

__all__ = ["SECURE", "CentralSampler", "ExactSampler"]


class CentralSampler(Protocol):
    """What a release draws its noise from: :data:`SECURE`, or a seeded :class:`ExactSampler` in tests."""

    def discrete_laplace(self, scale: Fraction) -> int:
        """An integer with ``P(k) proportional to exp(-|k|/scale)``."""
        ...

    def discrete_gaussian(self, sigma2: Fraction) -> int:
        """An integer with ``P(k) proportional to exp(-k^2/(2 sigma2))``."""
        ...

    def exponential_choice(self, utilities: Sequence[int], epsilon: Fraction, sensitivity: int) -> int:
        """The index of a candidate, ``P(i) proportional to exp(epsilon u_i/(2 sensitivity))``."""
        ...


def _positive(value: object, name: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number (best a Fraction), got {value!r}")
    exact = Fraction(value)
    if exact <= 0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    return exact


class ExactSampler:
    """The three central samplers over one source of ``randbelow(n)`` draws (``None``: ``secrets``: :data:`SECURE`)."""

    def __init__(self, randbelow: Callable[[int], int] | None) -> None:
        self._randbelow = randbelow

    def discrete_laplace(self, scale: Fraction) -> int:
        """Canonne, Kamath and Steinke 2020, Algorithm 2 (:func:`surveys.numeric_protocol.discrete_laplace`)."""
        return discrete_laplace(_positive(scale, "the scale"), randbelow=self._randbelow)

    def discrete_gaussian(self, sigma2: Fraction) -> int:
        """Canonne, Kamath and Steinke 2020, Algorithm 3, exactly.

        With ``t = floor(sigma) + 1``: draw ``Y`` discrete Laplace of scale ``t``, accept it with
        Bernoulli(``exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2))``), else draw again. The accepted ``Y`` is
        discrete Gaussian of parameter ``sigma^2``: ``P(Y = y) exp(-(|y| - sigma^2/t)^2/(2 sigma^2))`` is
        proportional to ``exp(-|y|/t - (|y| - sigma^2/t)^2/(2 sigma^2))``, which is ``exp(-y^2/(2 sigma^2))`` times
        a constant. (OpenDP's ``sample_discrete_gaussian`` is the same algorithm.) ``floor(sigma)`` is
        ``isqrt(floor(sigma^2))``; the Bernoulli's parameter is a fraction, so everything is integers and fractions.
        """
        s2 = _positive(sigma2, "sigma2")
        t = math.isqrt(s2.numerator // s2.denominator) + 1
        while True:
            y = discrete_laplace(Fraction(t), randbelow=self._randbelow)
            gamma = (abs(y) - s2 / t) ** 2 / (2 * s2)
            if bernoulli_exp(gamma, randbelow=self._randbelow):
                return y

    def exponential_choice(self, utilities: Sequence[int], epsilon: Fraction, sensitivity: int) -> int:
        """The exponential mechanism by rejection, exactly.

        Propose ``i`` uniformly, accept with Bernoulli(``exp(-epsilon (u_max - u_i)/(2 D))``), else propose
        again: ``P(i) proportional to exp(epsilon u_i/(2 D))`` (McSherry and Talwar 2007). The best candidate
        is always accepted, so a proposal is kept with probability at least ``1/len(utilities)``.
        """
        values = list(utilities)
        if not values or any(isinstance(u, bool) or not isinstance(u, int) for u in values):
            raise ValueError(f"the utilities must be one or more whole numbers, got {utilities!r}")
        if isinstance(sensitivity, bool) or not isinstance(sensitivity, int) or sensitivity < 1:
            raise ValueError(f"the sensitivity must be a whole number >= 1, got {sensitivity!r}")
        factor = _positive(epsilon, "epsilon") / (2 * sensitivity)
        top = max(values)
        draw = self._randbelow
        while True:
            i = (draw or secrets.randbelow)(len(values))
            if bernoulli_exp(factor * (top - values[i]), randbelow=draw):
                return i


#: The sampler of every release: :mod:`secrets` only.
SECURE: CentralSampler = ExactSampler(None)
