"""The ``extended`` key of a crosswise design: the extended crosswise model's second group.

    - name: cannabis
      type: yes_no
      label: I have used cannabis in the past 12 months.
      design:
        model: crosswise
        q: 1/4
        innocuous: My mother's birthday is in January, February or March.
        extended:
          innocuous: My mother's birthday is between April and December.

Group 1 reads ``innocuous`` (true with ``q``), group 2 the ``extended`` one, which must be true with ``1 - q``
(Heck, Hoffmann and Moshagen 2018; :mod:`analysis.extended_crosswise`); the survey's ``group_1_share`` is the
share of group 1, as for the two-group designs (:mod:`surveys.arms`). Only a crosswise design takes the key
(:data:`surveys.schema_designs.MODEL_KEYS` refuses it on any other model); it is a mapping with one key,
``innocuous``, a text (in several languages like any other), which cannot be group 1's statement again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from surveys.definition import EXTENDED_MODEL, Question
from surveys.schema_checks import check_keys, check_text, describe

#: The keys of ``design.extended``.
EXTENDED_KEYS = ("innocuous",)
#: Where a problem with the key is reported.
FIELD = "design.extended"
_EXAMPLE = "extended: {innocuous: My mother's birthday is between April and December.}"


def _written(entries: object) -> dict[str, object]:
    """``{question name: design.extended}`` of every question entry of a crosswise design that writes the key."""
    if not isinstance(entries, list):
        return {}
    found = {}
    for entry in entries:
        design = entry.get("design") if isinstance(entry, Mapping) else None
        if isinstance(design, Mapping) and design.get("model") == EXTENDED_MODEL and "extended" in design:
            found[str(entry.get("name"))] = design["extended"]
    return found


def _second_statement(report, name: str, value: object, first: str):
    """Group 2's innocuous statement from ``design.extended``, or ``None`` after reporting what is wrong."""
    if not isinstance(value, Mapping):
        message = f"must be a mapping with group 2's innocuous statement, such as {_EXAMPLE}; got {describe(value)}"
        report.add(name, FIELD, message)
        return None
    check_keys(report, name, f"{FIELD}.", value, EXTENDED_KEYS)
    if value.get("innocuous") is None:
        message = (
            "is required: group 2's innocuous statement, true with 1 - q (group 1's is true with q), such as "
            "“My mother's birthday is between April and December.” (q: 1/4)"
        )
        report.add(name, f"{FIELD}.innocuous", message)
        return None
    text = check_text(report, name, f"{FIELD}.innocuous", value.get("innocuous"), required=True)
    if not isinstance(text, str):
        return None
    if text == first:
        message = "is group 1's innocuous statement again; group 2's must be true with 1 - q, such as its negation"
        report.add(name, f"{FIELD}.innocuous", message)
        return None
    return text


def parse_extended_crosswise(report, entries: object, questions: object) -> object:
    """``questions`` with each extended crosswise question's group 2 statement (``second_innocuous``).

    ``entries`` is the file's ``questions`` list, ``questions`` the parsed tuple (anything else when the
    questions had problems: then the key's own shape is still checked where the question was read)."""
    written = _written(entries)
    if not written:
        return questions
    parsed = {q.name: q for q in questions} if isinstance(questions, tuple) else {}
    seconds = {}
    for name, value in written.items():
        question: Question | None = parsed.get(name)
        text = _second_statement(report, name, value, question.innocuous if question else "")
        if question is not None and text is not None:
            seconds[name] = text
    if not isinstance(questions, tuple):
        return questions
    return tuple(replace(q, second_innocuous=seconds[q.name]) if q.name in seconds else q for q in questions)
