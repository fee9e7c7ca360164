"""The live randomizer: turns a true answer into a noisy one, from ``secrets``.

This runs on the server only when the respondent's browser could not
randomize (JavaScript off). The browser's twin is ``static/randomize.js``.

Rules kept here, each for a reason:

* Every draw comes from :mod:`secrets` (the operating system's CSPRNG).
  A seeded or predictable generator would let someone who knows its state
  undo the noise.
* Every coin is drawn unconditionally, before the true answer is looked at,
  and the result is picked arithmetically: the work done, and the random
  numbers consumed, do not depend on the answer.
* Probabilities are exact fractions; a design with denominator ``D`` is
  drawn as ``secrets.randbelow(D)``, so there is no floating point and no
  rounding bias. Two coins use two independent fair bits.
"""

from __future__ import annotations

import secrets
from fractions import Fraction
from math import lcm

from analysis.design import TWO_COIN, BinaryDesign, ForcedResponseDesign, MultipleChoiceDesign
from analysis.misclassification import MisclassificationDesign
from analysis.two_group import TwoGroupDesign
from surveys.arms import group_yes_probabilities, is_two_group
from surveys.matrix import misclassification_index

YES = "yes"
NO = "no"


def two_coin_bits(truth: bool) -> bool:
    """The two-coin protocol with two fair bits.

    First coin heads (1): report the second coin (heads means yes).
    First coin tails (0): report the truth.
    """
    first = secrets.randbits(1)
    second = secrets.randbits(1)
    return bool((first & second) | ((1 - first) & int(truth)))


def _common_denominator(*probabilities: Fraction) -> int:
    return lcm(*(p.denominator for p in probabilities))


def forced_response_bit(truth: bool, design: ForcedResponseDesign) -> bool:
    """One forced-response answer: truthful with ``t``, yes with ``a``, no with ``b``.

    A single integer ``u`` uniform on ``[0, D)`` is drawn, ``D`` the common
    denominator: ``u < tD`` answers truthfully, ``tD <= u < (t+a)D`` forces
    yes, the rest forces no.
    """
    if design == TWO_COIN:
        return two_coin_bits(truth)
    denominator = _common_denominator(design.t, design.a, design.b)
    u = secrets.randbelow(denominator)
    truthful = u < design.t * denominator
    forced_yes = u < (design.t + design.a) * denominator
    return bool((truthful and truth) or (not truthful and forced_yes))


def binary_bit(truth: bool, design: BinaryDesign) -> bool:
    """One stored answer of a one-parameter yes/no design (Warner, unrelated question, Kuk, Mangat).

    Stored "yes" with ``theta1`` for a true yes and ``theta0`` for a true no
    (:meth:`analysis.BinaryDesign.yes_probabilities`). One integer ``u``
    uniform on ``[0, D)`` is drawn, ``D`` the common denominator, and both
    thresholds are compared before the answer picks one: the draw is Warner's
    spinner (``u < pD``: the statement, else its negation), the unrelated
    question's two draws folded into one (``u < pD``: the sensitive answer;
    ``pD <= u < (p + (1 - p) q) D``: an innocuous "yes") and Kuk's card
    (``u < k1 D`` red from deck 1, ``u < k2 D`` red from deck 2), with the
    same distribution of the stored answer as the physical device.

    Crosswise and triangular have no randomizer (``randomized_by_software``
    false): a ValueError names the design.
    """
    if not design.randomized_by_software:
        raise ValueError(f"the {design.kind} design is not randomized by software: its answer is stored as given")
    theta1, theta0 = design.yes_probabilities()
    denominator = _common_denominator(theta1, theta0)
    u = secrets.randbelow(denominator)
    yes_if_trait = u < theta1 * denominator
    yes_if_not = u < theta0 * denominator
    return bool((truth and yes_if_trait) or (not truth and yes_if_not))


def two_group_bit(truth: bool, design: TwoGroupDesign, group: str) -> bool:
    """One stored answer of an honest respondent of ``group`` under a two-group design.

    The group's ``(theta1, theta0)`` (:func:`surveys.arms.group_yes_probabilities`:
    cheater detection, prompted "yes" with ``p_i``; stochastic lie detector,
    a non-carrier's "no" with ``p_i``) drawn as :func:`binary_bit` draws
    its thresholds: one ``u`` below the common denominator, both compared
    before the answer picks one.
    """
    theta1, theta0 = group_yes_probabilities(design, group)
    denominator = _common_denominator(theta1, theta0)
    u = secrets.randbelow(denominator)
    yes_if_trait = u < theta1 * denominator
    yes_if_not = u < theta0 * denominator
    return bool((truth and yes_if_trait) or (not truth and yes_if_not))


def multiple_choice_index(truth: int, design: MultipleChoiceDesign) -> int:
    """One ``k``-option answer: the true index with ``t``, else uniform over ``k``.

    Both draws are always made: ``u`` uniform on ``[0, D)`` decides whether
    to answer truthfully, ``r = randbelow(k)`` (unbiased, no modulo bias) is
    the random option.
    """
    if not 0 <= truth < design.k:
        raise ValueError(f"truth must be an option index in [0, {design.k}), got {truth!r}")
    denominator = design.t.denominator
    u = secrets.randbelow(denominator)
    random_option = secrets.randbelow(design.k)
    truthful = u < design.t * denominator
    return truth if truthful else random_option


def randomize_yes_no(truth: str, design: BinaryDesign | TwoGroupDesign = TWO_COIN, group: str = "") -> str:
    """Randomize a ``"yes"``/``"no"`` answer; returns ``"yes"`` or ``"no"``.

    ``group`` (``"1"`` or ``"2"``) is the respondent's group under a two-group design.
    """
    if truth not in (YES, NO):
        raise ValueError(f"a yes/no answer must be 'yes' or 'no', got {truth!r}")
    if is_two_group(design):
        return YES if two_group_bit(truth == YES, design, group) else NO
    if isinstance(design, ForcedResponseDesign):
        return YES if forced_response_bit(truth == YES, design) else NO
    return YES if binary_bit(truth == YES, design) else NO


def randomize_choice(
    truth: str, choices: tuple[str, ...], design: MultipleChoiceDesign | MisclassificationDesign
) -> str:
    """Randomize one option name among ``choices`` (``len(choices) == design.k``): ``k`` options, or a
    misclassification matrix (:func:`surveys.matrix.misclassification_index`)."""
    if len(choices) != design.k:
        raise ValueError(f"the design has k={design.k} options but {len(choices)} choices were given")
    if truth not in choices:
        raise ValueError(f"{truth!r} is not one of the choices {list(choices)}")
    if isinstance(design, MisclassificationDesign):
        return choices[misclassification_index(choices.index(truth), design)]
    return choices[multiple_choice_index(choices.index(truth), design)]
