"""The designs a yes/no question can take, when a share of respondents always answers "no".

The guided editor ("Add a question", :mod:`surveys.design_choices`) compares the designs of a question; for a
yes/no question it also takes a share of respondents assumed to ignore the instructions and store "no"
whatever the coins say (RRreg's ``complyRates`` with ``sysBias = c(0, 0)``), and shows for each design the
bias this leaves in the estimate that assumes everyone complies and the answers it needs for the survey's
margin at that share (:mod:`analysis.noncompliance`). A two-group design models such respondents itself
(cheater detection, the stochastic lie detector) and gets no figures here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from analysis.noncompliance import NoncompliancePlan, noncompliance_plan
from surveys.definition import YES_NO
from surveys.kinds import KINDS, kind_of
from surveys.numbers import NUMBER_PATTERN

#: The editor's kinds the share applies to: a yes/no question's designs.
NONCOMPLIANCE_KINDS = (YES_NO,)
#: The largest share accepted, in percent (all of them would leave nothing to estimate).
MAX_PERCENT = 99


def parse_percent(text: str) -> Fraction:
    """The share typed as a percent (``"10"``, ``"12.5"``; empty: 0) as a fraction of 1; ``ValueError`` naming
    the typed text unless it is a number from 0 to :data:`MAX_PERCENT`."""
    typed = str(text).strip().removesuffix("%").strip()
    if not typed:
        return Fraction(0)
    if not NUMBER_PATTERN.fullmatch(typed) or not 0 <= Fraction(typed) <= MAX_PERCENT:
        raise ValueError(
            f"the share who always answer no must be a percentage from 0 to {MAX_PERCENT}, got {str(text)[:20]!r}"
        )
    return Fraction(typed) / 100


def yes_probabilities(question) -> tuple[Fraction, Fraction] | None:
    """``(theta1, theta0)`` of a one-arm yes/no question's design, ``(1, 0)`` asked directly, ``None`` for a
    two-group design (which models non-compliance itself)."""
    kind = kind_of(question)
    if kind is KINDS["yes_no"]:
        return question.design.yes_probabilities()
    if kind is KINDS["plain"]:
        return Fraction(1), Fraction(0)
    return None


def question_plan(question, share: float, margin: float, level: float) -> NoncompliancePlan | None:
    """``question``'s bias range and answers needed at ``share``, planned for ``margin`` at ``level``
    (:func:`analysis.noncompliance.noncompliance_plan`); ``None`` for a two-group design."""
    thetas = yes_probabilities(question)
    return None if thetas is None else noncompliance_plan(*thetas, share, margin, level)


@dataclass(frozen=True)
class NoncomplianceRow:
    """One design's figures at the share: ``plan`` ``None`` for a two-group design."""

    key: str
    plan: NoncompliancePlan | None


def noncompliance_rows(kind: str, rows: Sequence, share: float, margin: float, level: float) -> dict:
    """``{design key: NoncomplianceRow}`` of the editor's ``rows`` (:class:`surveys.design_choices.DesignChoice`)
    of a question of ``kind`` at ``share``, planned for ``margin`` at ``level``; empty for a kind the share
    does not apply to or a share of 0."""
    if kind not in NONCOMPLIANCE_KINDS or not share:
        return {}
    found = {}
    for row in rows:
        found[row.option.key] = NoncomplianceRow(row.option.key, question_plan(row.question, share, margin, level))
    return found


def _points(value: float) -> str:
    """A bias in points with its sign, one decimal (``"−5.0"``, ``"+2.5"``; ``"0.0"`` when it rounds to 0)."""
    shown = f"{value * 100:+.1f}"
    return "0.0" if shown in ("+0.0", "-0.0") else shown.replace("-", "−")


def bias_text(plan: NoncompliancePlan) -> str:
    """The bias in points, as the table shows it: one value when it does not depend on the true share, else
    the range from no one to everyone having the trait (``"−5.0 to −15.0 points"``)."""
    low, high = (_points(value) for value in (plan.bias_low, plan.bias_high))
    return f"{low} points" if low == high else f"{low} to {high} points"
