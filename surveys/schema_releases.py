"""The ``releases`` key of a survey file: the budget and rules of the survey's public result releases.

::

    releases:
      budget: {epsilon: 1, delta: 0}   # total over every release of this survey
      rows_per_person: 1               # optional, default 1: answers one person may give (group privacy)
      min_new_answers: 50              # optional, default 50: new answers needed between two releases

Without the key a survey publishes no release (:mod:`surveys.releases` refuses with a message naming it).
``delta: 0`` (the default) keeps every release pure epsilon-differentially private (discrete Laplace noise);
``delta > 0`` allows the discrete Gaussian and zero-concentrated accounting (:mod:`analysis.central`).
Every mistake is one :class:`~surveys.schema_checks.Problem` naming its key (``releases.budget.epsilon``).

:class:`ReleasePolicy` is defined here, beside the key it is read from, because
:class:`~surveys.definition.Survey` holds one and :mod:`surveys.releases` imports the survey's definition;
:mod:`surveys.releases` names it too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from numbers import Real

from surveys.schema_checks import INVALID, YAML_BOOLEAN_HINT, check_keys, check_positive_int, describe

RELEASE_KEYS = ("budget", "rows_per_person", "min_new_answers")
BUDGET_KEYS = ("epsilon", "delta")
#: New answers a release needs beyond the previous one's, unless the file says otherwise.
DEFAULT_MIN_NEW_ANSWERS = 50
#: Rows one person may contribute to a table, unless the file says otherwise.
DEFAULT_ROWS_PER_PERSON = 1
#: A budget's delta must be below this: the chance that the guarantee fails outright.
MAX_DELTA = 1e-3
_EXAMPLE = "{budget: {epsilon: 1, delta: 0}, rows_per_person: 1, min_new_answers: 50}"
_EPSILON_RULE = "a number above 0 such as 1 or 1/2 (the epsilon of all releases together)"
_DELTA_RULE = (
    f"0 (pure epsilon; the default) or a number above 0 and below {MAX_DELTA:g} such as 0.000001 "
    "(the chance the guarantee fails; keep it far below 1 / the number of respondents)"
)


@dataclass(frozen=True)
class ReleasePolicy:
    """What a survey's ``releases:`` key allows.

    Attributes
    ----------
    epsilon : Fraction
        The budget: the most epsilon all the survey's releases together may spend (exact).
    delta : float
        The budget's delta; 0 keeps every release pure (discrete Laplace), above 0 allows the discrete
        Gaussian with zero-concentrated accounting.
    rows_per_person : int
        The most answers one person may contribute; every sensitivity is multiplied by it (group privacy).
    min_new_answers : int
        Answers a release needs beyond those of the previous release (the first: beyond none).
    """

    epsilon: Fraction
    delta: float
    rows_per_person: int = DEFAULT_ROWS_PER_PERSON
    min_new_answers: int = DEFAULT_MIN_NEW_ANSWERS

    def __post_init__(self) -> None:
        if not isinstance(self.epsilon, Fraction) or self.epsilon <= 0:
            raise ValueError(f"epsilon must be a Fraction above 0, got epsilon={self.epsilon!r}")
        if not (self.delta == 0 or 0 < self.delta < MAX_DELTA):
            raise ValueError(f"delta must be 0 or in (0, {MAX_DELTA:g}), got delta={self.delta!r}")
        for name in ("rows_per_person", "min_new_answers"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a whole number of 1 or more, got {name}={value!r}")


def parse_releases(report, value) -> ReleasePolicy | None:
    """The :class:`ReleasePolicy` of the file's ``releases`` key; ``None`` when the key is absent, and
    :data:`~surveys.schema_checks.INVALID` after reporting each problem (one per bad key)."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        return report.add(None, "releases", f"must be a mapping such as {_EXAMPLE}, got {describe(value)}")
    before = len(report.problems)
    check_keys(report, None, "releases.", value, RELEASE_KEYS)
    epsilon, delta = _budget(report, value.get("budget"))
    rows = _optional_count(report, "releases.rows_per_person", value.get("rows_per_person"), DEFAULT_ROWS_PER_PERSON)
    fresh = _optional_count(report, "releases.min_new_answers", value.get("min_new_answers"), DEFAULT_MIN_NEW_ANSWERS)
    if len(report.problems) > before:
        return INVALID
    return ReleasePolicy(epsilon, delta, rows, fresh)


def _optional_count(report, key: str, value, default: int):
    return default if value is None else check_positive_int(report, None, key, value)


def _budget(report, value):
    """``(epsilon, delta)`` of ``releases.budget``; INVALID in place of each one reported."""
    if value is None:
        return report.add(None, "releases.budget", f"is required: the total for all releases, such as {_EXAMPLE}"), 0.0
    if not isinstance(value, Mapping):
        message = f"must be a mapping such as {{epsilon: 1, delta: 0}}, got {describe(value)}"
        return report.add(None, "releases.budget", message), 0.0
    check_keys(report, None, "releases.budget.", value, BUDGET_KEYS)
    raw = value.get("epsilon")
    if raw is None:
        epsilon = report.add(None, "releases.budget.epsilon", f"is required: {_EPSILON_RULE}")
    else:
        epsilon = _exact_positive(raw)
        if epsilon is None:
            hint = f"; {YAML_BOOLEAN_HINT}" if isinstance(raw, bool) else ""
            epsilon = report.add(None, "releases.budget.epsilon", f"must be {_EPSILON_RULE}, got {describe(raw)}{hint}")
    return epsilon, _delta(report, value.get("delta"))


def _exact_positive(value) -> Fraction | None:
    """``value`` (a number, or text such as ``"1/2"``) as an exact positive finite Fraction; None otherwise.
    A float is read as the decimal it was written as (``0.1`` is 1/10, not its binary neighbour)."""
    if isinstance(value, bool):
        return None
    try:
        if isinstance(value, Real):
            if not math.isfinite(float(value)):
                return None
            number = Fraction(repr(value)) if isinstance(value, float) else Fraction(value)
        elif isinstance(value, str):
            number = Fraction(value.strip())
        else:
            return None
    except (ValueError, ZeroDivisionError):
        return None
    return number if number > 0 else None


def _delta(report, value) -> float:
    if value is None:
        return 0.0
    number = None
    if isinstance(value, Real) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    if number is None or not math.isfinite(number) or not (number == 0 or 0 < number < MAX_DELTA):
        return report.add(None, "releases.budget.delta", f"must be {_DELTA_RULE}, got {describe(value)}")
    return number
