"""Privacy accounting: epsilon per answer, per respondent, and attack success.

The guarantee that holds whatever anyone believed before is epsilon's: one
stored answer changes anyone's odds about the respondent's true answer by at
most a factor of ``e^epsilon`` (3 for two coins). The attack-success rates
are easier to weigh but assume a prior (50/50 for yes/no, 1/k for k
options); quote them only with that assumption.

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

from analysis._checks import (
    check_epsilons,
    check_integer,
    check_probabilities_sum_to_one,
    check_unit_closed,
    check_unit_open,
)


def forced_response_epsilon(t: float, a: float, b: float) -> float:
    """Local-DP epsilon of one forced-response answer.

    Parameters
    ----------
    t, a, b : float
        The design: truthful, forced-yes and forced-no probabilities, each in
        ``[0, 1]``, with ``t + a + b = 1`` (up to float rounding).

    Returns
    -------
    float
        ``epsilon >= 0``; ``math.inf`` when ``a`` or ``b`` is 0.

    Raises
    ------
    ValueError
        If a probability is not a finite number in ``[0, 1]`` or the three do
        not sum to 1; the message names the value.

    Notes
    -----
    The worst-case likelihood ratio between a true yes and a true no, over the
    two possible reports (Dwork and Roth 2014, section 3.2)::

        epsilon = ln max( (t + a) / a, (t + b) / b )

    Two fair coins (t = 1/2, a = b = 1/4) give ln 3. If ``a`` or ``b`` is 0
    one report reveals the true answer for certain, and epsilon is infinite:
    the design gives no differential privacy at all.

    References
    ----------
    Dwork, C. and Roth, A. (2014). Foundations and Trends in Theoretical
    Computer Science 9(3-4), section 3.2.
    """
    t, a, b = check_probabilities_sum_to_one(t=t, a=a, b=b)
    if a == 0 or b == 0:
        return math.inf
    return math.log(max((t + a) / a, (t + b) / b))


def binary_epsilon(theta1: float, theta0: float) -> float:
    """Local-DP epsilon of one stored yes/no answer from its two yes-probabilities.

    Parameters
    ----------
    theta1, theta0 : float
        P(stored yes | trait) and P(stored yes | no trait), each in ``[0, 1]``.

    Returns
    -------
    float
        ``epsilon >= 0``; ``math.inf`` when one stored answer is possible
        under one true answer only (triangular, Mangat: a stored "no" proves
        the trait absent).

    Raises
    ------
    ValueError
        If a probability is not a finite number in ``[0, 1]``; the message names it.

    Notes
    -----
    The largest log ratio of the two answers' probabilities (Dwork and Roth
    2014, section 3.2)::

        epsilon = max(|ln(theta1 / theta0)|, |ln((1 - theta1) / (1 - theta0))|)

    Forced response is ``theta1 = t + a, theta0 = a``
    (:func:`forced_response_epsilon`); Warner with ``p`` and crosswise with
    ``q`` give ``|ln(p / (1 - p))|``. Crosswise and triangular epsilon holds
    only against a reader who does not know the respondent's innocuous answer.
    """
    theta1 = check_unit_closed(theta1, "theta1")
    theta0 = check_unit_closed(theta0, "theta0")
    if theta1 == theta0:
        return 0.0
    ratios = []
    for with_trait, without in ((theta1, theta0), (1 - theta1, 1 - theta0)):
        if with_trait == without:
            continue
        if with_trait == 0 or without == 0:
            return math.inf
        ratios.append(abs(math.log(with_trait / without)))
    return max(ratios)


def _check_multiple_choice(k: object, t: object) -> tuple[int, float]:
    return check_integer(k, "k", 2), check_unit_closed(t, "t")


def multiple_choice_epsilon(k: int, t: float) -> float:
    """Local-DP epsilon of one answer to a ``k``-option question.

    Parameters
    ----------
    k : int
        Number of options, ``k >= 2``.
    t : float
        Probability of a truthful report, in ``[0, 1]``; otherwise the report
        is uniform over the ``k`` options.

    Returns
    -------
    float
        ``epsilon >= 0``; ``math.inf`` when ``t = 1`` (no randomization).

    Raises
    ------
    ValueError
        If ``k`` is not an integer ``>= 2`` or ``t`` is not in ``[0, 1]``;
        the message names the value.

    Notes
    -----
    With q = (1 - t) / k the chance of a given random report, the largest
    likelihood ratio is (t + q) / q (Wang et al. 2017, generalized randomized
    response)::

        epsilon = ln( (t + (1 - t)/k) / ((1 - t)/k) )

    References
    ----------
    Wang, T., Blocki, J., Li, N. and Jha, S. (2017). Locally differentially
    private protocols for frequency estimation. USENIX Security 2017.
    """
    k, t = _check_multiple_choice(k, t)
    q = (1 - t) / k
    if q == 0:
        return math.inf
    return math.log((t + q) / q)


def forced_response_attack_success(t: float, a: float, b: float) -> float:
    """Chance that the best guess of a true yes/no from one noisy answer is right, under a 50/50 prior.

    Parameters
    ----------
    t, a, b : float
        The design, each in ``[0, 1]``, ``t + a + b = 1``.

    Returns
    -------
    float
        A probability in ``[1/2, 1]``.

    Raises
    ------
    ValueError
        If a probability is not a finite number in ``[0, 1]`` or the three do
        not sum to 1; the message names the value.

    Notes
    -----
    This figure assumes a 50/50 prior: an attacker who, before seeing the
    stored answer, thinks yes and no equally likely for this respondent. The
    Bayes guess then follows the report, and is right with probability::

        1/2 [ (t + a) + (t + b) ] = (1 + t) / 2

    which is 3/4 for two coins, against 1/2 for a blind guess. It is *not* a
    bound for every attacker: one who knows that 90% of people answer "no"
    guesses "no" whatever the report and is right 90% of the time. What holds
    whatever the prior is the epsilon guarantee: a stored answer multiplies
    anyone's odds of a true yes against a true no by at most
    ``e^epsilon`` (:func:`forced_response_epsilon`), a factor of 3 for two
    coins. Show this rate only with its 50/50 assumption spelled out.
    """
    t, a, b = check_probabilities_sum_to_one(t=t, a=a, b=b)
    return 0.5 * (max(t + a, a) + max(t + b, b))


def multiple_choice_attack_success(k: int, t: float) -> float:
    """Chance that the best guess of a true option from one noisy answer is right, under a uniform prior.

    Parameters
    ----------
    k : int
        Number of options, ``k >= 2``.
    t : float
        Probability of a truthful report, in ``[0, 1]``.

    Returns
    -------
    float
        A probability in ``[1/k, 1]``.

    Raises
    ------
    ValueError
        If ``k`` is not an integer ``>= 2`` or ``t`` is not in ``[0, 1]``.

    Notes
    -----
    This figure assumes a uniform prior: an attacker who, before seeing the
    stored answer, thinks each of the k options equally likely. The Bayes
    guess is then the reported option, right with probability
    ``t + (1 - t)/k`` (3/4 for k = 2, t = 1/2; 5/8 for k = 4, t = 1/2),
    against 1/k for a blind guess. An attacker with another prior can do
    better (one who knows that almost everyone picks one option guesses it
    and is almost always right). What holds whatever the prior is the epsilon
    guarantee: a stored answer multiplies anyone's odds between any two true
    options by at most ``e^epsilon`` (:func:`multiple_choice_epsilon`),
    ``(t + (1 - t)/k) / ((1 - t)/k)``: 5 for k = 4, t = 1/2. Show this rate
    only with its uniform-prior assumption spelled out.
    """
    k, t = _check_multiple_choice(k, t)
    return t + (1 - t) / k


def basic_composition(epsilons: Sequence[float]) -> float:
    """Sequential composition: the epsilons of the answers add up.

    Parameters
    ----------
    epsilons : sequence of float
        Epsilon of each answer, ``>= 0`` (``math.inf`` allowed).

    Returns
    -------
    float
        ``sum(epsilons)``; 0 for no answers.

    Raises
    ------
    ValueError
        If an epsilon is negative, NaN or not a number; the message names it.

    Notes
    -----
    Dwork and Roth (2014), Theorem 3.16: k mechanisms that are eps_i-DP are
    together (sum eps_i)-DP. Two-coin answers to k questions cost k ln 3.
    """
    return math.fsum(check_epsilons(epsilons))


def advanced_composition(epsilons: Sequence[float], delta: float) -> float:
    """Advanced composition bound for a chosen ``delta``.

    Parameters
    ----------
    epsilons : sequence of float
        Epsilon of each answer, ``>= 0`` (``math.inf`` allowed).
    delta : float
        The failure probability that goes with the bound, in ``(0, 1)``.

    Returns
    -------
    float
        ``eps'`` such that the answers together are ``(eps', delta)``-DP;
        ``math.inf`` if an epsilon is infinite, 0 for no answers.

    Raises
    ------
    ValueError
        If an epsilon is negative or NaN, or ``delta`` is not in ``(0, 1)``;
        the message names the value.

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
    eps = check_epsilons(epsilons)
    delta = check_unit_open(delta, "delta")
    if any(math.isinf(e) for e in eps):
        return math.inf
    return math.sqrt(2 * math.log(1 / delta) * sum(e * e for e in eps)) + sum(e * math.expm1(e) for e in eps)


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
    """Per-respondent epsilon of a survey: basic and advanced composition.

    Parameters
    ----------
    epsilons : sequence of float
        Epsilon of each randomized question, ``>= 0`` (``math.inf`` allowed).
    delta : float
        The delta of the advanced-composition bound, in ``(0, 1)``; default
        ``1e-6``.

    Returns
    -------
    SurveyEpsilon
        Both bounds; a survey with no questions costs 0.

    Raises
    ------
    ValueError
        If an epsilon is negative or NaN, or ``delta`` is not in ``(0, 1)``;
        the message names the value.

    Notes
    -----
    :func:`basic_composition` and :func:`advanced_composition`.
    """
    per_question = check_epsilons(epsilons)
    delta = check_unit_open(delta, "delta")
    return SurveyEpsilon(
        per_question=per_question,
        basic=basic_composition(per_question),
        advanced=advanced_composition(per_question, delta),
        delta=delta,
    )
