"""The ``design`` of a survey file's question: yes/no designs by ``model`` or ``t, a, b``, a ``select_one``'s
``t`` or misclassification ``matrix``; each probability checked by :func:`analysis.design.as_probability`."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from analysis.design import (
    BINARY_DESIGN_FIELDS,
    TWO_COIN,
    DesignError,
    ForcedResponseDesign,
    MultipleChoiceDesign,
    as_probability,
)
from surveys.arms import TWO_GROUP_MODELS
from surveys.definition import EXTENDED_MODEL, PAIRED_STATEMENT_CHOICES, SELECT_ONE, YES_NO
from surveys.matrix import MATRIX_EXAMPLE, matrix_design
from surveys.schema_checks import INVALID, check_keys, describe

DESIGN_KEYS = {YES_NO: ("t", "a", "b"), SELECT_ONE: ("t",)}

#: Default truthful probability of a select_one question without a design.
DEFAULT_SELECT_ONE_T = Fraction(1, 2)


def _probabilities(report, where, value: Mapping, keys: tuple[str, ...], written_like: str) -> dict:
    """``{key: probability}`` of each of ``keys`` in the design ``value``; a problem for each one missing (``is
    required; {written_like}``) or not a probability (:func:`analysis.design.as_probability`)."""
    probabilities = {}
    for key in keys:
        if value.get(key) is None:
            report.add(where, f"design.{key}", f"is required; {written_like}")
            continue
        try:
            probabilities[key] = as_probability(value[key], key)
        except ValueError as error:
            report.add(where, f"design.{key}", str(error))
    return probabilities


def _design_field(error: DesignError, keys: tuple[str, ...]) -> str:
    """``"design.t"`` when ``error`` names one probability of the file, else ``"design"``.

    :class:`analysis.design.DesignError` carries the bad parameter in
    ``field``; the sum check (``field is None``) belongs to the whole design,
    and ``k`` is not written in the file (it is the number of choices).
    """
    return f"design.{error.field}" if error.field in keys else "design"


#: The yes/no designs a survey file names with ``model``, and the keys each takes besides ``model``.
MODEL_KEYS = {
    kind: fields
    + (("innocuous",) if kind in PAIRED_STATEMENT_CHOICES else ())
    + (("extended",) if kind == EXTENDED_MODEL else ())
    for kind, (_, fields) in {**BINARY_DESIGN_FIELDS, **TWO_GROUP_MODELS}.items()
}


def _binary_design(report, where, value):
    """A yes/no design written ``{model: warner, p: 3/4}`` (see README, "Designs")."""
    model = value.get("model")
    if model not in MODEL_KEYS:
        message = f"unknown model {describe(model)}; use one of {', '.join(MODEL_KEYS)}"
        return report.add(where, "design.model", message)
    keys = MODEL_KEYS[model]
    before = len(report.problems)
    check_keys(report, where, "design.", value, ("model", *keys))
    cls, fields = {**BINARY_DESIGN_FIELDS, **TWO_GROUP_MODELS}[model]
    example = "{model: " + model + ", " + ", ".join(f"{f}: ..." for f in keys) + "}"
    probabilities = _probabilities(report, where, value, fields, f"this design is written like {example}")
    if len(report.problems) > before:
        return INVALID
    try:
        return cls(**probabilities)
    except DesignError as error:
        return report.add(where, _design_field(error, fields), str(error))


def parse_design(report, where, qtype, randomize, value, choices):
    if randomize is INVALID or qtype is INVALID:
        return INVALID
    if not randomize:
        if value is not None:
            return report.add(where, "design", "a design is given but randomize is false; remove one of them")
        return None
    if value is None:
        if qtype == YES_NO:
            return TWO_COIN
        value = {"t": DEFAULT_SELECT_ONE_T}
    if qtype == YES_NO and isinstance(value, Mapping) and "model" in value:
        return _binary_design(report, where, value)
    if qtype == SELECT_ONE and isinstance(value, Mapping) and "matrix" in value:
        return _matrix_design(report, where, value, choices)
    keys = DESIGN_KEYS[qtype]
    example = "{t: 1/2, a: 1/4, b: 1/4}" if qtype == YES_NO else "{t: 1/2}"
    if not isinstance(value, Mapping):
        return report.add(where, "design", f"must be a mapping such as {example}, got {describe(value)}")
    before = len(report.problems)
    check_keys(report, where, "design.", value, keys)
    probabilities = _probabilities(report, where, value, keys, f"a {qtype} design is written like {example}")
    if len(report.problems) > before:
        return INVALID
    # Without valid choices k is unknown; t is still checked (its rule does
    # not depend on k) so that its mistake is reported in the same run.
    k = len(choices) if isinstance(choices, tuple) else 2
    try:
        design = ForcedResponseDesign(**probabilities) if qtype == YES_NO else MultipleChoiceDesign(k, **probabilities)
    except DesignError as error:
        return report.add(where, _design_field(error, keys), str(error))
    return design if isinstance(choices, tuple) else INVALID


def _matrix_design(report, where, value, choices):
    """A ``select_one`` design written ``{matrix: [[...], ...]}`` (:mod:`surveys.matrix`)."""
    before = len(report.problems)
    check_keys(report, where, "design.", value, ("matrix",))
    k = len(choices) if isinstance(choices, tuple) else None
    try:
        design = matrix_design(value["matrix"], k)
    except DesignError as error:
        return report.add(where, "design.matrix", f"{error}; a matrix design is written like {MATRIX_EXAMPLE}")
    return design if len(report.problems) == before and isinstance(choices, tuple) else INVALID
