"""Randomized-response designs: the probabilities that define them.

A design is the public part of the protocol: everything an analyst needs to
debias the noisy answers, and everything that fixes the privacy cost. The
probabilities are kept as exact fractions so that the live randomizer can
draw them without floating point (``surveys.protocol``); the estimators in
this package take them as plain floats.
"""

from __future__ import annotations

import math
from dataclasses import InitVar, dataclass
from fractions import Fraction

from analysis import privacy
from analysis._checks import MAX_DENOMINATOR, DesignError, _check_forced_response, as_probability


@dataclass(frozen=True)
class ForcedResponseDesign:
    """The forced-response design for a yes/no question.

    With probability ``t`` the respondent answers truthfully, with ``a`` the
    answer is forced to yes and with ``b`` forced to no; ``t + a + b = 1``.
    Two fair coins give ``t = 1/2, a = b = 1/4`` (:data:`TWO_COIN`).

    Notes
    -----
    P(report yes | true yes) = t + a and P(report yes | true no) = a, so the
    reported-yes rate is ``lambda = a + t * pi`` for a population proportion
    ``pi`` (Boruch 1971; Blair, Imai and Zhou 2015, section 2.2).
    """

    t: Fraction
    a: Fraction
    b: Fraction
    #: Largest denominator accepted (not a field: two designs with the same
    #: ``t, a, b`` are equal). Survey files keep :data:`MAX_DENOMINATOR`;
    #: :meth:`MultipleChoiceDesign.option_marginal` needs ``k`` times it.
    max_denominator: InitVar[int | None] = MAX_DENOMINATOR

    def __post_init__(self, max_denominator: int | None) -> None:
        exact = _check_forced_response(self.t, self.a, self.b, max_denominator)
        for field, value in zip(("t", "a", "b"), exact):
            object.__setattr__(self, field, value)

    @property
    def kind(self) -> str:
        return "forced_response"

    def floats(self) -> tuple[float, float, float]:
        """``(t, a, b)`` as floats, for display; the estimators take :meth:`exact`."""
        return float(self.t), float(self.a), float(self.b)

    def exact(self) -> tuple[Fraction, Fraction, Fraction]:
        """``(t, a, b)`` as exact fractions: what the estimators take."""
        return self.t, self.a, self.b

    def report_yes_probability(self, pi: float) -> float:
        """``lambda = a + t * pi``: the chance of a reported yes."""
        return float(self.a) + float(self.t) * pi

    @property
    def epsilon(self) -> float:
        """Local differential privacy of one answer; see :func:`analysis.privacy.forced_response_epsilon`."""
        return privacy.forced_response_epsilon(*self.floats())

    @property
    def attack_success_rate(self) -> float:
        """Best chance of guessing the true answer from one noisy answer; see
        :func:`analysis.privacy.forced_response_attack_success`."""
        return privacy.forced_response_attack_success(*self.floats())

    def to_dict(self) -> dict:
        """A JSON-able record of the design with exact fractions as strings."""
        return {"kind": self.kind, "t": str(self.t), "a": str(self.a), "b": str(self.b)}

    def label(self) -> str:
        if self == TWO_COIN:
            return "two coins (t=1/2, a=1/4, b=1/4)"
        return f"forced response (t={self.t}, a={self.a}, b={self.b})"


@dataclass(frozen=True)
class MultipleChoiceDesign:
    """Randomized response for a question with ``k`` options.

    With probability ``t`` the respondent's true option is reported; otherwise
    one of the ``k`` options is reported uniformly at random (which may be the
    true one). For ``k = 2, t = 1/2`` this is the two-coin protocol.

    Notes
    -----
    P(report j | true i) = t [i = j] + (1 - t) / k, so the reported shares are
    ``lambda = t * pi + (1 - t) / k`` (Warner 1965, generalised; Wang, Blocki,
    Li and Jha 2017, "generalized randomized response").
    """

    k: int
    t: Fraction

    def __post_init__(self) -> None:
        if isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 2:
            raise DesignError(f"k (number of options) must be an integer >= 2, got k={self.k!r}", "k")
        object.__setattr__(self, "t", as_probability(self.t, "t"))
        if not 0 < self.t <= 1:
            raise DesignError(f"t (probability of a truthful answer) must be in (0, 1], got t={self.t}", "t")

    @property
    def kind(self) -> str:
        return "multiple_choice"

    @property
    def uniform_share(self) -> Fraction:
        """``(1 - t) / k``: the chance of reporting a given option at random."""
        return (1 - self.t) / self.k

    def option_marginal(self) -> ForcedResponseDesign:
        """The forced-response design of "is it this option?", the same for every option.

        Option ``j`` is reported truthfully with ``t``; the uniform draw lands
        on it with ``a = (1 - t) / k`` (a forced yes) and elsewhere with
        ``b = 1 - t - a`` (a forced no). Its count is Binomial(n, t pi_j + a),
        so every yes/no estimator and interval applies to it as it is
        (analysis/README.md, "Multiple choice").

        ``a`` can need a denominator ``k`` times that of ``t`` (``t =
        0.654321`` and ``k = 3`` give ``a = 345679/3000000``), so the
        marginal accepts denominators up to ``k`` times
        :data:`~analysis._checks.MAX_DENOMINATOR`; pass its exact ``t, a,
        b`` on (not :meth:`ForcedResponseDesign.floats`), since such a float
        cannot be read back as the fraction.
        """
        a = self.uniform_share
        return ForcedResponseDesign(self.t, a, 1 - self.t - a, max_denominator=self.k * MAX_DENOMINATOR)

    @property
    def epsilon(self) -> float:
        """See :func:`analysis.privacy.multiple_choice_epsilon`."""
        return privacy.multiple_choice_epsilon(self.k, float(self.t))

    @property
    def attack_success_rate(self) -> float:
        """See :func:`analysis.privacy.multiple_choice_attack_success`."""
        return privacy.multiple_choice_attack_success(self.k, float(self.t))

    def to_dict(self) -> dict:
        return {"kind": self.kind, "k": self.k, "t": str(self.t)}

    def label(self) -> str:
        return f"{self.k} options, truthful with t={self.t}, otherwise uniform"


Design = ForcedResponseDesign | MultipleChoiceDesign

#: The default design: two fair coins.
TWO_COIN = ForcedResponseDesign(Fraction(1, 2), Fraction(1, 4), Fraction(1, 4))


def design_from_dict(record: dict) -> Design:
    """Rebuild a design from :meth:`to_dict` output (as stored with each answer)."""
    kind = record.get("kind")
    fields = {"forced_response": ("t", "a", "b"), "multiple_choice": ("k", "t")}.get(kind)
    if fields is None:
        raise DesignError(f"unknown design kind {kind!r}")
    missing = [f for f in fields if f not in record]
    if missing:
        raise DesignError(f"design record {record!r} lacks {missing}")
    if kind == "forced_response":
        return ForcedResponseDesign(record["t"], record["a"], record["b"])
    return MultipleChoiceDesign(int(record["k"]), record["t"])


def is_finite_epsilon(design: Design) -> bool:
    return math.isfinite(design.epsilon)
