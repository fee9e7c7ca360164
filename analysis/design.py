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
from analysis._checks import MAX_DENOMINATOR, DesignError, as_probability, check_forced_response


class BinaryDesign:
    """A one-parameter yes/no design: two probabilities of a stored "yes".

    ``theta1 = P(stored yes | trait)`` and ``theta0 = P(stored yes | no
    trait)`` (:meth:`yes_probabilities`) are all that the estimators, the
    epsilon and the randomizer need. Every subclass is a frozen dataclass
    that keeps its own parameters (``p``, ``q``, ``k1``...) and gives these
    two numbers.

    The estimators of this package work from a forced-response triple ``(t,
    a, b)`` on the count of one stored answer; :meth:`exact` gives it. When
    ``theta1 > theta0`` the answer counted is "yes" and ``(t, a, b) =
    (theta1 - theta0, theta0, 1 - theta1)``; when ``theta1 < theta0`` (a
    crosswise design with ``q < 1/2``, Warner with ``p < 1/2``) a stored "no"
    is the answer that points to the trait, and ``(t, a, b) = (theta0 -
    theta1, 1 - theta0, theta1)`` on the count of "no" (:attr:`trait_answer`).
    ``theta1 == theta0`` carries no information and is refused.

    Notes
    -----
    ``lambda = theta0 + (theta1 - theta0) pi``, ``pi_hat = (lambda_hat -
    theta0) / (theta1 - theta0)``, ``Var(pi_hat) = lambda (1 - lambda) / (n
    (theta1 - theta0)^2)`` (divided by ``n``; RRreg divides by ``n - 1``).
    See /analysis/README.md, "Designs".
    """

    #: Whether a software randomizer draws the stored answer (crosswise and
    #: triangular: no, the respondent combines two answers in their head).
    randomized_by_software = True

    def yes_probabilities(self) -> tuple[Fraction, Fraction]:
        """``(theta1, theta0)``: P(stored yes | trait) and P(stored yes | no trait), exact."""
        raise NotImplementedError

    @property
    def trait_answer(self) -> str:
        """The stored answer whose count the estimators read: ``"yes"`` if ``theta1 > theta0``, else ``"no"``."""
        theta1, theta0 = self.yes_probabilities()
        return "yes" if theta1 > theta0 else "no"

    def trait_count(self, stored_yes: int, n: int) -> int:
        """The count the estimators read, from ``stored_yes`` stored "yes" answers out of ``n``.

        ``stored_yes`` when :attr:`trait_answer` is "yes", else ``n - stored_yes``
        (the stored "no" answers); pass it with :meth:`exact` to
        :func:`analysis.estimate_proportion`.
        """
        return stored_yes if self.trait_answer == "yes" else n - stored_yes

    def exact(self) -> tuple[Fraction, Fraction, Fraction]:
        """The equivalent forced-response ``(t, a, b)`` on the count of :attr:`trait_answer`."""
        theta1, theta0 = self.yes_probabilities()
        if theta1 > theta0:
            return theta1 - theta0, theta0, 1 - theta1
        return theta0 - theta1, 1 - theta0, theta1

    def floats(self) -> tuple[float, float, float]:
        """:meth:`exact` as floats, for display."""
        return tuple(float(p) for p in self.exact())  # type: ignore[return-value]

    def report_yes_probability(self, pi: float) -> float:
        """``lambda = theta0 + (theta1 - theta0) pi``: the chance of a stored "yes"."""
        theta1, theta0 = self.yes_probabilities()
        return float(theta0) + float(theta1 - theta0) * pi

    @property
    def epsilon(self) -> float:
        """Local differential privacy of one answer; see :func:`analysis.privacy.binary_epsilon`."""
        return privacy.binary_epsilon(*(float(p) for p in self.yes_probabilities()))

    def _record(self, **parameters: Fraction) -> dict:
        """``to_dict`` of a subclass: its kind and parameters, with ``theta1`` and ``theta0`` for the device.

        The two probabilities are derived (:func:`design_from_dict` ignores
        them); they are written so that ``static/randomize.js`` draws from
        them without a second copy of each design's formula.
        """
        theta1, theta0 = self.yes_probabilities()
        record = {"kind": self.kind, **{name: str(value) for name, value in parameters.items()}}
        return record | {"theta1": str(theta1), "theta0": str(theta0)}

    @property
    def attack_success_rate(self) -> float:
        """Best chance of guessing the true answer from one stored answer under a 50/50 prior
        (:func:`analysis.privacy.forced_response_attack_success` of :meth:`exact`)."""
        return privacy.forced_response_attack_success(*self.floats())


def _distinct(theta1: Fraction, theta0: Fraction, field: str, rule: str) -> None:
    """Refuse a design whose two yes-probabilities are equal: its answers say nothing about the trait."""
    if theta1 == theta0:
        raise DesignError(f"{rule}: the stored answer would not depend on the true one", field)


def _unit(value: object, name: str, *, low_open: bool = False, high_open: bool = False) -> Fraction:
    """``value`` as an exact probability in ``[0, 1]`` (ends excluded as asked), or DesignError naming it."""
    exact = as_probability(value, name)
    if exact < 0 or exact > 1 or (low_open and exact == 0) or (high_open and exact == 1):
        low, high = "(" if low_open else "[", ")" if high_open else "]"
        raise DesignError(f"{name} must be in {low}0, 1{high}, got {name}={exact}", name)
    return exact


@dataclass(frozen=True)
class ForcedResponseDesign(BinaryDesign):
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
        exact = check_forced_response(self.t, self.a, self.b, max_denominator)
        for field, value in zip(("t", "a", "b"), exact):
            object.__setattr__(self, field, value)

    @property
    def kind(self) -> str:
        return "forced_response"

    def yes_probabilities(self) -> tuple[Fraction, Fraction]:
        """``(t + a, a)``."""
        return self.t + self.a, self.a

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

    #: Drawn by the randomizer (see :attr:`BinaryDesign.randomized_by_software`).
    randomized_by_software = True

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


@dataclass(frozen=True)
class WarnerDesign(BinaryDesign):
    """Warner's mirrored question: the statement with probability ``p``, its negation otherwise.

    The respondent's answer is to "I have the trait" with ``p`` and to "I do
    not have the trait" with ``1 - p``; the stored answer is the one given.
    So ``theta1 = p``, ``theta0 = 1 - p``; ``p = 1/2`` says nothing and is
    refused, ``p < 1/2`` is read through a stored "no"
    (:attr:`BinaryDesign.trait_answer`).

    Notes
    -----
    ``pi_hat = (lambda_hat + p - 1) / (2p - 1)``, ``Var = lambda (1 -
    lambda) / (n (2p - 1)^2)``; epsilon ``= |ln(p / (1 - p))|``.

    References
    ----------
    Warner, S. L. (1965). Randomized response: a survey technique for
    eliminating evasive answer bias. JASA 60(309), 63-69.
    """

    p: Fraction

    def __post_init__(self) -> None:
        object.__setattr__(self, "p", _unit(self.p, "p"))
        _distinct(self.p, 1 - self.p, "p", f"p must not be 1/2, got p={self.p}")

    kind = "warner"

    def yes_probabilities(self) -> tuple[Fraction, Fraction]:
        return self.p, 1 - self.p

    def to_dict(self) -> dict:
        return self._record(p=self.p)

    def label(self) -> str:
        return f"Warner, mirrored question (p={self.p})"


@dataclass(frozen=True)
class UnrelatedQuestionDesign(BinaryDesign):
    """Unrelated question with a known prevalence: the sensitive answer with ``p``, else a "yes" with ``q``.

    With probability ``p`` the stored answer is the respondent's; otherwise
    it is the answer to an innocuous question whose "yes" share ``q`` is
    known. The randomizer draws that innocuous answer itself, "yes" with
    probability ``q``, so the respondent enters only the sensitive answer.
    ``theta1 = p + (1 - p) q``, ``theta0 = (1 - p) q``.

    Notes
    -----
    ``pi_hat = (lambda_hat - (1 - p) q) / p``, ``Var = lambda (1 - lambda) /
    (n p^2)``; epsilon ``= max(ln(1 + p / ((1 - p) q)), ln(1 + p / ((1 - p)
    (1 - q))))``.

    References
    ----------
    Greenberg, B. G., Abul-Ela, A.-L. A., Simmons, W. R. and Horvitz, D. G.
    (1969). The unrelated question randomized response model: theoretical
    framework. JASA 64(326), 520-539.
    """

    p: Fraction
    q: Fraction

    def __post_init__(self) -> None:
        object.__setattr__(self, "p", _unit(self.p, "p", low_open=True))
        object.__setattr__(self, "q", _unit(self.q, "q"))

    kind = "unrelated_question"

    def yes_probabilities(self) -> tuple[Fraction, Fraction]:
        return self.p + (1 - self.p) * self.q, (1 - self.p) * self.q

    def to_dict(self) -> dict:
        return self._record(p=self.p, q=self.q)

    def label(self) -> str:
        return f"unrelated question (p={self.p}, innocuous yes share q={self.q})"


@dataclass(frozen=True)
class KukDesign(BinaryDesign):
    """Kuk's card design: a card from deck 1 (red share ``k1``) with the trait, deck 2 (``k2``) without.

    The stored answer is "yes" for a red card: ``theta1 = k1``, ``theta0 =
    k2``; ``k1 = k2`` is refused.

    Notes
    -----
    ``pi_hat = (lambda_hat - k2) / (k1 - k2)``, ``Var = lambda (1 - lambda) /
    (n (k1 - k2)^2)``; epsilon ``= max(|ln(k1/k2)|, |ln((1 - k1)/(1 - k2))|)``.

    References
    ----------
    Kuk, A. Y. C. (1990). Asking sensitive questions indirectly.
    Biometrika 77(2), 436-438.
    """

    k1: Fraction
    k2: Fraction

    def __post_init__(self) -> None:
        object.__setattr__(self, "k1", _unit(self.k1, "k1"))
        object.__setattr__(self, "k2", _unit(self.k2, "k2"))
        _distinct(self.k1, self.k2, "k2", f"k1 and k2 must differ, got k1=k2={self.k1}")

    kind = "kuk"

    def yes_probabilities(self) -> tuple[Fraction, Fraction]:
        return self.k1, self.k2

    def to_dict(self) -> dict:
        return self._record(k1=self.k1, k2=self.k2)

    def label(self) -> str:
        return f"Kuk's cards (red share k1={self.k1} with the trait, k2={self.k2} without)"


@dataclass(frozen=True)
class MangatDesign(BinaryDesign):
    """Mangat's design: with the trait the stored answer is "yes"; without, Warner's device with ``p``.

    ``theta1 = 1``, ``theta0 = 1 - p``: a stored "no" proves the trait
    absent, so epsilon is infinite.

    Notes
    -----
    ``pi_hat = (lambda_hat - 1 + p) / p``, ``Var = lambda (1 - lambda) / (n
    p^2)``.

    References
    ----------
    Mangat, N. S. (1994). An improved randomized response strategy. JRSS B
    56(1), 93-95.
    """

    p: Fraction

    def __post_init__(self) -> None:
        object.__setattr__(self, "p", _unit(self.p, "p", low_open=True))

    kind = "mangat"

    def yes_probabilities(self) -> tuple[Fraction, Fraction]:
        return Fraction(1), 1 - self.p

    def to_dict(self) -> dict:
        return self._record(p=self.p)

    def label(self) -> str:
        return f"Mangat (with the trait always yes; without, truthful with p={self.p})"


@dataclass(frozen=True)
class CrosswiseDesign(BinaryDesign):
    """The crosswise model: "are your answers to the sensitive and the innocuous statement the same?"

    The innocuous statement is true with a known probability ``q`` and
    independent of the trait. Stored "yes" = "both yes or both no", "no" =
    "exactly one yes" (RRreg's coding 1/0). ``theta1 = q``, ``theta0 = 1 -
    q``; ``q = 1/2`` is refused; ``q < 1/2`` is read through a stored "no".
    Nothing is randomized by software: the answer is stored as given.

    Notes
    -----
    ``pi_hat = (lambda_hat + q - 1) / (2q - 1)``, ``Var = lambda (1 -
    lambda) / (n (2q - 1)^2)``; epsilon ``= |ln(q / (1 - q))|``, against a
    reader who does not know the respondent's innocuous answer only.

    References
    ----------
    Yu, J.-W., Tian, G.-L. and Tang, M.-L. (2008). Two new models for survey
    sampling with sensitive characteristic: design and analysis. Metrika
    67(3), 251-263.
    """

    q: Fraction

    def __post_init__(self) -> None:
        object.__setattr__(self, "q", _unit(self.q, "q", low_open=True, high_open=True))
        _distinct(self.q, 1 - self.q, "q", f"q must not be 1/2, got q={self.q}")

    kind = "crosswise"
    randomized_by_software = False

    def yes_probabilities(self) -> tuple[Fraction, Fraction]:
        return self.q, 1 - self.q

    def to_dict(self) -> dict:
        return self._record(q=self.q)

    def label(self) -> str:
        return f"crosswise (innocuous yes share q={self.q}; ε holds only if the innocuous answer is unknown)"


@dataclass(frozen=True)
class TriangularDesign(BinaryDesign):
    """The triangular model: "no to both statements" against "yes to at least one".

    Stored "no" = "no to both", "yes" = "yes to at least one" (RRreg's coding
    0/1). ``theta1 = 1``, ``theta0 = q``: a stored "no" proves the trait
    absent, so epsilon is infinite. Nothing is randomized by software.

    Notes
    -----
    ``pi_hat = 1 - (1 - lambda_hat) / (1 - q)``, ``Var = lambda (1 - lambda)
    / (n (1 - q)^2)``.

    References
    ----------
    Yu, J.-W., Tian, G.-L. and Tang, M.-L. (2008). Metrika 67(3), 251-263.
    """

    q: Fraction

    def __post_init__(self) -> None:
        object.__setattr__(self, "q", _unit(self.q, "q", high_open=True))

    kind = "triangular"
    randomized_by_software = False

    def yes_probabilities(self) -> tuple[Fraction, Fraction]:
        return Fraction(1), self.q

    def to_dict(self) -> dict:
        return self._record(q=self.q)

    def label(self) -> str:
        return f"triangular (innocuous yes share q={self.q}; a stored “no” proves no trait)"


#: The designs of a yes/no question by their ``kind``, with the parameters their record keeps.
BINARY_DESIGN_FIELDS: dict[str, tuple[type, tuple[str, ...]]] = {
    "forced_response": (ForcedResponseDesign, ("t", "a", "b")),
    "warner": (WarnerDesign, ("p",)),
    "unrelated_question": (UnrelatedQuestionDesign, ("p", "q")),
    "kuk": (KukDesign, ("k1", "k2")),
    "mangat": (MangatDesign, ("p",)),
    "crosswise": (CrosswiseDesign, ("q",)),
    "triangular": (TriangularDesign, ("q",)),
}

Design = BinaryDesign | MultipleChoiceDesign

#: The default design: two fair coins.
TWO_COIN = ForcedResponseDesign(Fraction(1, 2), Fraction(1, 4), Fraction(1, 4))


def design_from_dict(record: dict) -> Design:
    """Rebuild a design from :meth:`to_dict` output (as stored with each answer)."""
    kind = record.get("kind")
    known = {**BINARY_DESIGN_FIELDS, "multiple_choice": (MultipleChoiceDesign, ("k", "t"))}
    if kind not in known:
        raise DesignError(f"unknown design kind {kind!r}")
    cls, fields = known[kind]
    missing = [f for f in fields if f not in record]
    if missing:
        raise DesignError(f"design record {record!r} lacks {missing}")
    if kind == "multiple_choice":
        return MultipleChoiceDesign(int(record["k"]), record["t"])
    return cls(*(record[f] for f in fields))


def is_finite_epsilon(design: Design) -> bool:
    return math.isfinite(design.epsilon)
