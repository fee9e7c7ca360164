"""The ``known_prevalence`` key of a survey file's randomized yes/no question: an anchor that measures careless
answering (:mod:`analysis.careless`).

    - name: birthday_march
      type: yes_no
      label: Is your birthday in March?
      known_prevalence: 1/12

At most one question per survey; it must be a randomized yes/no question with one design for everyone (not
a two-group design, not a paired-statement design such as crosswise, where the respondent's own answer is
stored), and its known share must lie above 0 and at most 1: a careless respondent ticks "no" and the app
randomizes it like a true "no", so a zero-prevalence question is answered *correctly* by the careless and
cannot reveal them.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from analysis.design import DesignError, as_probability
from surveys.definition import PAIRED_STATEMENT_CHOICES, Anchor, Question
from surveys.kinds import KINDS, kind_of
from surveys.schema_checks import INVALID

ANCHOR_KEYS = ("known_prevalence",)
KEY = "known_prevalence"


def _written(mapping: Mapping) -> list[tuple[str, object]]:
    """``(question name, value)`` of every question entry that writes the key, in file order."""
    entries = mapping.get("questions")
    if not isinstance(entries, list):
        return []
    return [
        (str(entry.get("name")), entry[KEY])
        for entry in entries
        if isinstance(entry, Mapping) and entry.get(KEY) is not None
    ]


def anchor_problem(question: Question) -> str | None:
    """Why ``question`` cannot be an anchor, or ``None`` when it can."""
    if kind_of(question) is not KINDS["yes_no"]:
        return "only a randomized yes/no question with one design for everyone can be an anchor"
    if getattr(question.design, "kind", None) in PAIRED_STATEMENT_CHOICES:
        return (
            "a paired-statement design stores the respondent's own answer, so a careless answer is not a randomized "
            "“no”; use a forced-response or another randomized design for the anchor"
        )
    return None


def _share(report, name: str, value: object):
    try:
        share = as_probability(value, KEY)
    except DesignError as error:
        return report.add(name, KEY, str(error))
    if not 0 < share <= 1:
        message = (
            f"must be above 0 and at most 1, got {value!r}: careless respondents answer “no”, which the app randomizes "
            "like a true “no”, so a question nobody truly says yes to cannot reveal them; use a share known above 0, "
            "such as 1/12 for “Is your birthday in March?”"
        )
        return report.add(name, KEY, message)
    return share


def parse_anchor(report, mapping: Mapping, questions) -> dict:
    """``{"anchor": Anchor or None}`` from the questions' ``known_prevalence`` keys, each problem reported."""
    written = _written(mapping)
    by_name = {q.name: q for q in questions if isinstance(q, Question)} if isinstance(questions, tuple) else {}
    anchors = []
    for position, (name, value) in enumerate(written):
        share = _share(report, name, value)
        if position:
            report.add(name, KEY, f"only one question may have {KEY}; {written[0][0]} already has it")
            continue
        question = by_name.get(name)
        problem = None if question is None else anchor_problem(question)
        if problem is not None:
            report.add(name, KEY, problem)
        elif question is not None and share is not INVALID:
            anchors.append(Anchor(name, Fraction(share)))
    return {"anchor": anchors[0] if anchors else None}
