"""The survey-file keys of numbers and check-all-that-apply questions: the range, the bins and the design.

An ``integer`` or ``decimal`` question declares ``min`` and ``max`` (and a decimal its ``step``); a randomized
one takes ``epsilon`` (default ln 3, as the two-coin yes/no) and optionally ``mechanism`` (``laplace`` or
``bounded``; :func:`analysis.numeric_design.numeric_design` picks the smaller variance otherwise). A
``select_multiple`` question takes ``epsilon`` for the whole question and optionally ``encoding``
(``optimized_unary`` or ``symmetric_unary``) or its own ``design: {p: 1/2, q: 1/4}``. Every mistake is a
:class:`surveys.schema_checks.Problem` naming the question and the key.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

from analysis.design import as_probability
from analysis.numeric_design import (
    MAX_NUMERIC_EPSILON,
    MAX_UNARY_OPTIONS,
    MIN_NUMERIC_EPSILON,
    NUMERIC_MECHANISMS,
    UNARY_ENCODINGS,
    UnaryDesign,
    numeric_design,
    unary_for_epsilon,
)
from surveys.design_contract import DECIMAL, INTEGER, NUMBER_TYPES, SELECT_MULTIPLE
from surveys.numbers import NumberRange, default_cuts, parse_number
from surveys.schema_checks import INVALID, check_keys, check_number, describe

#: The keys only a number or a check-all-that-apply question takes, and which of them.
NUMBER_KEYS = ("min", "max", "step", "bins", "mechanism")
MULTIPLE_KEYS = ("encoding",)
#: Both take ``epsilon`` when randomized.
EPSILON_KEY = "epsilon"
#: The epsilon of a randomized number or check-all-that-apply question when the file gives none: the
#: two-coin yes/no's, ln 3.
DEFAULT_EPSILON = math.log(3)


def misplaced_keys(report, where, qtype, entry: Mapping) -> None:
    """A problem for each number or check-all-that-apply key on a question of another type."""
    if qtype is INVALID:
        return
    allowed = {
        INTEGER: (*NUMBER_KEYS, EPSILON_KEY),
        DECIMAL: (*NUMBER_KEYS, EPSILON_KEY),
        SELECT_MULTIPLE: (*MULTIPLE_KEYS, EPSILON_KEY),
    }.get(qtype, ())
    for key in (*NUMBER_KEYS, *MULTIPLE_KEYS, EPSILON_KEY):
        if key in entry and key not in allowed:
            takes = "integer and decimal" if key in NUMBER_KEYS else "select_multiple"
            if key == EPSILON_KEY:
                takes = "integer, decimal and select_multiple (a yes_no or select_one design is given by its design)"
            report.add(where, key, f"only {takes} questions take {key!r}; remove it from this {qtype} question")


def _value(report, where, key, value, *, required: bool):
    if value is None:
        return report.add(where, key, "is required") if required else None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return report.add(where, key, f"must be a number, got {describe(value)}")
    try:
        return parse_number(str(value) if not isinstance(value, float) else repr(value))
    except ValueError as error:
        return report.add(where, key, str(error))


def parse_range(report, where, qtype, entry: Mapping):
    """The :class:`NumberRange` of an ``integer`` or ``decimal`` question, ``None`` for other types."""
    if qtype not in NUMBER_TYPES:
        return None
    minimum = _value(report, where, "min", entry.get("min"), required=True)
    maximum = _value(report, where, "max", entry.get("max"), required=True)
    if qtype == INTEGER:
        step = _value(report, where, "step", entry.get("step"), required=False) or Fraction(1)
        if step is not INVALID and step.denominator != 1:
            step = report.add(where, "step", f"an integer question's step must be a whole number, got {step}")
        for key, value in (("min", minimum), ("max", maximum)):
            if isinstance(value, Fraction) and value.denominator != 1:
                report.add(where, key, f"an integer question's {key} must be a whole number, got {float(value):g}")
                return INVALID
    else:
        step = _value(report, where, "step", entry.get("step"), required=True)
    if INVALID in (minimum, maximum, step):
        return INVALID
    cuts = _cuts(report, where, entry.get("bins"))
    if cuts is INVALID:
        return INVALID
    try:
        if step <= 0:
            raise ValueError(f"step must be positive, got {float(step):g}")
        if maximum > minimum and cuts is None:
            cuts = default_cuts(minimum, maximum, step)
        return NumberRange(minimum, maximum, step, cuts or ())
    except ValueError as error:
        key = (
            "bins" if "bins" in str(error) else "step" if "step" in str(error) and "steps" not in str(error) else "max"
        )
        return report.add(where, key, str(error))


def _cuts(report, where, value):
    if value is None:
        return None
    if not isinstance(value, list) or not value:
        example = "[1, 5, 10] (bins 0 to under 1, 1 to under 5, 5 to under 10, 10 to the maximum)"
        return report.add(where, "bins", f"must be a list of cut points such as {example}, got {describe(value)}")
    cuts = [_value(report, where, "bins", item, required=True) for item in value]
    return INVALID if INVALID in cuts else tuple(cuts)


def _epsilon(report, where, entry):
    value = entry.get(EPSILON_KEY)
    if value is None:
        return DEFAULT_EPSILON
    rule = f"a number from {MIN_NUMERIC_EPSILON} to {MAX_NUMERIC_EPSILON}"
    number = check_number(
        report, where, EPSILON_KEY, value, low=MIN_NUMERIC_EPSILON - 1e-12, high=MAX_NUMERIC_EPSILON + 1e-12, rule=rule
    )
    return number if number is INVALID else min(max(number, MIN_NUMERIC_EPSILON), MAX_NUMERIC_EPSILON)


def parse_number_design(report, where, qtype, randomize, entry: Mapping, number, choices):
    """The design of a randomized number or check-all-that-apply question; ``None`` when not randomized."""
    if randomize is INVALID or qtype is INVALID:
        return INVALID
    if not randomize:
        for key in (EPSILON_KEY, "mechanism", "encoding", "design"):
            if entry.get(key) is not None:
                report.add(where, key, f"{key!r} is given but randomize is false; remove one of them")
        return None
    epsilon = _epsilon(report, where, entry)
    if qtype == SELECT_MULTIPLE:
        return _unary(report, where, entry, epsilon, choices)
    if entry.get("design") is not None:
        message = "a number's design is chosen by epsilon and mechanism (laplace or bounded), not by design"
        return report.add(where, "design", message)
    mechanism = entry.get("mechanism")
    if mechanism is not None and mechanism not in NUMERIC_MECHANISMS:
        message = f"unknown mechanism {describe(mechanism)}; use one of {', '.join(NUMERIC_MECHANISMS)}"
        return report.add(where, "mechanism", message)
    if epsilon is INVALID or not isinstance(number, NumberRange):
        return INVALID
    return numeric_design(number.steps, epsilon, mechanism)


def _unary(report, where, entry, epsilon, choices):
    encoding, design = entry.get("encoding"), entry.get("design")
    if encoding is not None and encoding not in UNARY_ENCODINGS:
        message = f"unknown encoding {describe(encoding)}; use one of {', '.join(UNARY_ENCODINGS)}"
        return report.add(where, "encoding", message)
    if not isinstance(choices, tuple) or epsilon is INVALID:
        return INVALID
    if design is None:
        return unary_for_epsilon(len(choices), epsilon, encoding)
    for key in (EPSILON_KEY, "encoding"):
        if entry.get(key) is not None:
            return report.add(where, key, f"give either design or {key}, not both (the design sets the epsilon)")
    if not isinstance(design, Mapping):
        return report.add(where, "design", f"must be a mapping such as {{p: 1/2, q: 1/4}}, got {describe(design)}")
    check_keys(report, where, "design.", design, ("p", "q"))
    try:
        p = as_probability(design.get("p"), "p")
        q = as_probability(design.get("q"), "q")
        return UnaryDesign(len(choices), p, q)
    except ValueError as error:
        return report.add(where, "design", str(error))


def check_multiple_choices(report, where, qtype, choices):
    """A check-all-that-apply question has at most :data:`MAX_UNARY_OPTIONS` options."""
    if qtype == SELECT_MULTIPLE and isinstance(choices, tuple) and len(choices) > MAX_UNARY_OPTIONS:
        return report.add(
            where, "choices", f"a select_multiple question has at most {MAX_UNARY_OPTIONS} options, got {len(choices)}"
        )
    return choices
