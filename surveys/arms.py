"""Arms: the random groups of a two-group design and the direct-question control arm.

A survey with a two-group design (the cheater detection model or the
stochastic lie detector, :mod:`analysis.two_group`) or an extended crosswise
question (:mod:`surveys.schema_extended_crosswise`) sends each respondent at
random to group ``"1"`` or ``"2"`` for the whole survey; a survey with a
direct-question control arm sends a share of its respondents to ``"direct"``,
where the same questions are asked with no randomization. Every respondent
is in one arm (``""`` when the survey has neither), drawn once, on the
device (``static/randomize.js``) or on the server (:func:`draw_arm`), never
both. The arm is stored with the answers and written into the design key of
each tally (:func:`surveys.design_contract.question_design_key`), so the
counts per group are kept as answers arrive.

The arm says nothing on its own: it is drawn before, and independently of,
any answer.

Survey-file keys (see README, "Designs")::

    group_1_share: 1/2     # optional: the share of respondents in group 1 (two-group designs only)
    direct_share: 1/5      # optional: the share sent to the direct-question control arm
"""

from __future__ import annotations

import secrets
from fractions import Fraction
from math import lcm

from analysis.design import DesignError, as_probability
from analysis.privacy import forced_response_attack_success
from analysis.two_group import CheaterDetectionDesign, StochasticLieDetectorDesign, TwoGroupDesign
from surveys.design_contract import RANDOMIZED_IN_EVERY_ARM

#: No arm: the survey has no groups and no control arm.
NO_ARM = ""
#: The two groups of a two-group design.
GROUPS = ("1", "2")
#: The direct-question control arm.
DIRECT = "direct"
ARMS = (NO_ARM, *GROUPS, DIRECT)

#: The two-group yes/no designs a survey file names with ``model``, and the keys each takes besides ``model``.
TWO_GROUP_MODELS: dict[str, tuple[type, tuple[str, ...]]] = {
    "cheater_detection": (CheaterDetectionDesign, ("p1", "p2")),
    "stochastic_lie_detector": (StochasticLieDetectorDesign, ("p1", "p2")),
}

#: Group 1's share when the survey file does not set ``group_1_share``.
DEFAULT_GROUP_1_SHARE = Fraction(1, 2)


def is_two_group(design: object) -> bool:
    """Whether ``design`` is a two-group design (its respondents are split into groups 1 and 2)."""
    return isinstance(design, (CheaterDetectionDesign, StochasticLieDetectorDesign))


def group_yes_probabilities(design: TwoGroupDesign, group: str) -> tuple[Fraction, Fraction]:
    """``(theta1, theta0)`` of an honest respondent of ``group``: P(stored yes | trait), P(stored yes | no trait).

    Cheater detection (Clark and Desharnais 1998): prompted "yes" with
    ``p_i``, otherwise the truth, so ``theta1 = 1`` and ``theta0 = p_i``.
    Stochastic lie detector (Moshagen, Musch and Erdfelder 2012): a carrier
    says "yes", a non-carrier "no" with ``p_i``, so ``theta1 = 1`` and
    ``theta0 = 1 - p_i``. These are the rates ``lambda_i`` of the two models
    with no cheaters (``gamma = 0``, ``t = 1``).
    """
    if group not in GROUPS:
        raise ValueError(f"group must be one of {GROUPS}, got group={group!r}")
    p = design.p1 if group == "1" else design.p2
    theta0 = p if isinstance(design, CheaterDetectionDesign) else 1 - p
    return Fraction(1), theta0


def two_group_attack_success(design: TwoGroupDesign) -> float:
    """The best chance, over the two groups, of guessing an honest respondent's true answer from one stored
    answer under a 50/50 prior (:func:`analysis.privacy.forced_response_attack_success` of the group's
    ``(t, a, b) = (theta1 - theta0, theta0, 1 - theta1)``)."""
    rates = []
    for group in GROUPS:
        theta1, theta0 = group_yes_probabilities(design, group)
        rates.append(forced_response_attack_success(float(theta1 - theta0), float(theta0), float(1 - theta1)))
    return max(rates)


def check_share(value: object, name: str) -> Fraction:
    """``value`` as an exact fraction strictly between 0 and 1, or a :class:`DesignError` naming it."""
    share = as_probability(value, name)
    if not 0 < share < 1:
        raise DesignError(f"{name} must be strictly between 0 and 1, such as 1/2, got {name}={value!r}", name)
    return share


def draw_arm(group_1_share: Fraction | None, direct_share: Fraction | None) -> str:
    """One respondent's arm, drawn with :mod:`secrets` (the JavaScript-off path).

    ``direct_share`` (or ``None``: no control arm) goes to :data:`DIRECT`;
    the others to group ``"1"`` with ``group_1_share`` and ``"2"`` otherwise
    when the survey has groups (``group_1_share`` not ``None``), else to
    :data:`NO_ARM`. When the survey has either share both draws are made,
    whichever it has, as exact integers below the common denominator; with
    neither, nothing is drawn.
    """
    shares = [s for s in (group_1_share, direct_share) if s is not None]
    if not shares:
        return NO_ARM  # nothing to draw
    denominator = lcm(*(s.denominator for s in shares))
    u_direct, u_group = secrets.randbelow(denominator), secrets.randbelow(denominator)
    first = group_1_share is not None and u_group < group_1_share * denominator
    if direct_share is not None and u_direct < direct_share * denominator:
        return DIRECT
    if group_1_share is None:
        return NO_ARM
    return "1" if first else "2"


def arm_choices(has_groups: bool, has_direct: bool) -> tuple[str, ...]:
    """The arms a respondent of such a survey can be in."""
    arms = list(GROUPS) if has_groups else [NO_ARM]
    return (*arms, DIRECT) if has_direct else tuple(arms)


def arm_shares_problems(
    group_1_share: object, direct_share: object, questions: object
) -> tuple[dict[str, Fraction | None], list[tuple[str, str]]]:
    """The survey's ``group_1_share`` and ``direct_share`` from its file, with ``(key, message)`` problems.

    ``group_1_share`` is :data:`DEFAULT_GROUP_1_SHARE` when a question has a
    two-group design and the key is absent, and refused without one;
    ``direct_share`` needs a randomized question that the direct arm asks directly
    (there is nothing to compare otherwise; numbers and check-all-that-apply
    questions are randomized in every arm). ``questions`` is the parsed tuple, or anything else when the
    questions themselves had problems (then only the values are checked).
    """
    parsed = questions if isinstance(questions, tuple) else None
    has_groups = parsed is not None and any(is_two_group(q.design) for q in parsed)
    extended = [q.name for q in parsed or () if q.second_innocuous]  # extended crosswise: two groups too
    has_groups = has_groups or bool(extended)
    has_randomized = parsed is not None and any(
        q.is_randomized and q.type not in RANDOMIZED_IN_EVERY_ARM for q in parsed
    )
    shares: dict[str, Fraction | None] = {"group_1_share": None, "direct_share": None}
    problems: list[tuple[str, str]] = []
    for key, value, allowed, why in (
        (
            "group_1_share",
            group_1_share,
            has_groups,
            "there is no two-group design (cheater_detection or "
            "stochastic_lie_detector) or extended crosswise question to split into groups; remove it",
        ),
        (
            "direct_share",
            direct_share,
            has_randomized,
            "there is no randomized question to compare with its direct answers (numbers and check-all-that-apply "
            "questions are randomized in every arm); remove it",
        ),
    ):
        if value is None:
            continue
        try:
            shares[key] = check_share(value, key)
        except DesignError as error:
            problems.append((key, str(error)))
            continue
        if parsed is not None and not allowed:
            problems.append((key, f"is set but {why}"))
        elif key == "direct_share" and extended:
            problems.append(
                (
                    key,
                    f"cannot be combined with an extended crosswise question ({', '.join(extended)}): "
                    "its respondents must all be in group 1 or 2",
                )
            )
    if has_groups and shares["group_1_share"] is None:
        shares["group_1_share"] = DEFAULT_GROUP_1_SHARE
    return shares, problems


#: Each arm as the one character a form posts (``arm``), so that a request is as long whatever the arm.
ARM_WIRE = {NO_ARM: "n", "1": "1", "2": "2", DIRECT: "d"}
_ARM_FROM_WIRE = {wire: arm for arm, wire in ARM_WIRE.items()}


def arm_from_wire(text: str) -> str:
    """The arm a form's one-character ``arm`` value names; ValueError naming anything else."""
    if text not in _ARM_FROM_WIRE:
        raise ValueError(f"arm must be one of {', '.join(ARM_WIRE.values())}, got {str(text)[:20]!r}")
    return _ARM_FROM_WIRE[text]
