"""Privacy accounting: epsilon per answer, per respondent, and attack success.

Every function takes plain numbers. A design's own properties
(``ForcedResponseDesign.epsilon`` and so on) call these.

References
----------
Dwork, C. and Roth, A. (2014). The Algorithmic Foundations of Differential
Privacy. Foundations and Trends in Theoretical Computer Science 9(3-4).
Dwork, C., Rothblum, G. N. and Vadhan, S. (2010). Boosting and differential
privacy. FOCS 2010, 51-60.
Rogers, R., Roth, A., Ullman, J. and Vadhan, S. (2016). Privacy odometers
and filters: pay-as-you-go composition. NeurIPS 2016.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


def forced_response_epsilon(t: float, a: float, b: float) -> float:
    """Local-DP epsilon of one forced-response answer.

    Notes
    -----
    The worst-case likelihood ratio between a true yes and a true no, over the
    two possible reports (Dwork and Roth 2014, section 3.2)::

        epsilon = ln max( (t + a) / a, (t + b) / b )

    Two fair coins (t = 1/2, a = b = 1/4) give ln 3. If ``a`` or ``b`` is 0
    one report reveals the true answer for certain, and epsilon is infinite:
    the design gives no differential privacy at all.
    """
    if a == 0 or b == 0:
        return math.inf
    return math.log(max((t + a) / a, (t + b) / b))


def multiple_choice_epsilon(k: int, t: float) -> float:
    """Local-DP epsilon of one answer to a ``k``-option question.

    Notes
    -----
    With q = (1 - t) / k the chance of a given random report, the largest
    likelihood ratio is (t + q) / q (Wang et al. 2016, generalized randomized
    response)::

        epsilon = ln( (t + (1 - t)/k) / ((1 - t)/k) )

    Infinite when t = 1 (no randomization).
    """
    q = (1 - t) / k
    if q == 0:
        return math.inf
    return math.log((t + q) / q)


def forced_response_attack_success(t: float, a: float, b: float) -> float:
    """Chance that the best guess of a true yes/no from one noisy answer is right.

    Notes
    -----
    For a respondent equally likely a priori to be a yes or a no, the Bayes
    guess follows the report, and is right with probability::

        1/2 [ (t + a) + (t + b) ] = (1 + t) / 2

    which is 3/4 for two coins. This is the number non-experts can weigh:
    "someone who sees your stored answer and guesses your true answer from it
    is right 3 times in 4 — no better than that, whatever they know of the
    coins".
    """
    return 0.5 * (max(t + a, a) + max(t + b, b))


def multiple_choice_attack_success(k: int, t: float) -> float:
    """Chance that the best guess of a true option from one noisy answer is right.

    Notes
    -----
    Under a uniform prior over the k options the Bayes guess is the reported
    option, right with probability ``t + (1 - t)/k`` (3/4 for k = 2, t = 1/2).
    """
    return t + (1 - t) / k


def basic_composition(epsilons: Sequence[float]) -> float:
    """Sequential composition: the epsilons of the answers add up.

    Notes
    -----
    Dwork and Roth (2014), Theorem 3.16: k mechanisms that are eps_i-DP are
    together (sum eps_i)-DP. Two-coin answers to k questions cost k ln 3.
    """
    return float(sum(epsilons))


def advanced_composition(epsilons: Sequence[float], delta: float) -> float:
    """Advanced composition bound for a chosen ``delta``.

    Notes
    -----
    For k mechanisms with epsilons eps_i, the composition is
    (eps', delta)-DP with (Dwork, Rothblum and Vadhan 2010; Dwork and Roth
    2014, Theorem 3.20; the same argument with unequal epsilons, as stated
    for example by Rogers, Roth, Ullman and Vadhan 2016, "Privacy odometers
    and filters")::

        eps' = sqrt(2 ln(1/delta) * sum eps_i^2) + sum eps_i (e^eps_i - 1)

    which for k equal epsilons is the familiar
    sqrt(2 k ln(1/delta)) eps + k eps (e^eps - 1). It beats the basic sum
    only for many questions with small epsilon; :class:`SurveyEpsilon`
    reports both and the smaller.
    """
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got delta={delta!r}")
    eps = [float(e) for e in epsilons]
    if any(math.isinf(e) for e in eps):
        return math.inf
    return math.sqrt(2 * math.log(1 / delta) * sum(e * e for e in eps)) + sum(
        e * math.expm1(e) for e in eps
    )


@dataclass(frozen=True)
class SurveyEpsilon:
    """Per-respondent privacy cost of a whole survey.

    Attributes
    ----------
    per_question : tuple of float
        Epsilon of each randomized question, in order.
    basic : float
        Sequential composition, ``sum(per_question)``; a pure-DP guarantee.
    advanced : float
        Advanced-composition epsilon, valid together with ``delta``.
    delta : float
        The delta that goes with ``advanced``.
    """

    per_question: tuple[float, ...]
    basic: float
    advanced: float
    delta: float

    @property
    def best(self) -> float:
        """The tighter of the two bounds (the advanced one carries ``delta``)."""
        return min(self.basic, self.advanced)


def survey_epsilon(epsilons: Sequence[float], delta: float = 1e-6) -> SurveyEpsilon:
    """Per-respondent epsilon of a survey: basic and advanced composition."""
    per_question = tuple(float(e) for e in epsilons)
    if any(e < 0 for e in per_question):
        raise ValueError(f"epsilons must be >= 0, got {per_question}")
    return SurveyEpsilon(
        per_question=per_question,
        basic=basic_composition(per_question),
        advanced=advanced_composition(per_question, delta) if per_question else 0.0,
        delta=delta,
    )
