"""Skip logic in a survey file: the ``relevant:`` condition of a question, read and checked against the
questions before it (:mod:`surveys.conditions` reads and evaluates a condition; this module knows the survey)."""

from __future__ import annotations

from surveys.conditions import ConditionError, parse_condition
from surveys.definition import Question


def parse_relevant(report, where, value):
    """The skip-logic condition as written (:mod:`surveys.conditions`); what it may name is checked later."""
    if value is None:
        return None
    try:
        return parse_condition(value)
    except ConditionError as error:
        return report.add(where, "relevant", str(error))


def check_conditions(report, questions, written: list[str]) -> None:
    """Each condition names only earlier questions that are not randomized, and only their choices.

    The privacy rule: whether a question is shown must not depend on a
    randomized question's true answer, or showing it (or the page's length)
    would reveal that answer; and a condition decided by later answers could
    not be applied while answering. ``written`` is every question name of the
    file in order, valid or not (a broken question is reported once, by itself).
    """
    if not isinstance(questions, tuple):
        return
    before: dict[str, Question] = {}
    for q in questions:
        for compare in q.relevant.comparisons() if q.relevant is not None else ():
            problem = _comparison_problem(q, compare, before, written)
            if problem:
                report.add(q.name, "relevant", problem)
        before[q.name] = q


def _comparison_problem(question: Question, compare, before: dict, written: list[str]) -> str | None:
    """Why ``compare`` may not appear in ``question``'s condition, or None."""
    name = compare.question
    if name not in before:
        if name not in written:
            return f"there is no question called {name!r}"
        if written.index(name) >= written.index(question.name):
            return f"{name!r} is not before this question; a condition may name only earlier questions"
        return None  # an earlier question that is broken, reported by itself
    if before[name].is_randomized:
        return (
            f"{name!r} is randomized; a condition may name only questions with randomize: false, "
            f"because whether a question is shown would otherwise reveal the true answer to {name!r}"
        )
    if compare.value not in before[name].choice_names:
        return f"{compare.value!r} is not an answer to {name!r}; its answers are {', '.join(before[name].choice_names)}"
    return None
