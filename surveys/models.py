"""Logistic regression of a randomized yes/no answer on the plain questions, from kept pattern counts.

The counts a model needs are kept as answers arrive (``pattern_tallies``,
written by :mod:`storage.responses` in the transaction of each response):
per randomized yes/no question (the outcome), design key, *pattern* and
stored answer. A pattern is the tuple of the respondent's answers to all the
survey's plain (non-randomized) questions, spelled by :func:`answer_pattern`
as canonical JSON ``{"question": "answer", ...}`` with :data:`NO_ANSWER`
(``""``) for a question left unanswered.

How many rows that makes: at most ``prod(levels_q + 1)`` patterns over the
plain questions ``q`` (each question's choices, plus one for "no answer"),
times two stored answers, per outcome and design key, however many
responses there are. A survey whose plain questions would allow more than
:data:`MAX_PATTERNS` patterns keeps no pattern counts (:func:`kept_outcomes`
is empty; its results page says the model is not available).

:func:`fit_model` collapses the patterns over the predictors not chosen,
codes each chosen predictor as indicators against a reference level, takes
one design per row from the design key and calls
:func:`analysis.regression.fit_logistic`; the cost depends on the number of
patterns, not of responses.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from surveys.definition import Survey
from surveys.design_contract import YES_NO, canonical_json

#: The most patterns of plain answers a survey may have for its pattern counts to be kept.
MAX_PATTERNS = 10_000

#: A plain question left unanswered, in a pattern (no choice name is empty).
NO_ANSWER = ""

#: Fewest answers a model is fitted from.
MIN_ANSWERS = 20


def pattern_count(survey: Survey) -> int:
    """``prod(len(choices) + 1)`` over the plain questions: how many patterns their answers can make."""
    return math.prod(len(q.choices) + 1 for q in survey.plain_questions)


def kept_outcomes(survey: Survey) -> tuple[str, ...]:
    """The randomized yes/no questions whose pattern counts are kept; none when :func:`pattern_count`
    exceeds :data:`MAX_PATTERNS`."""
    if pattern_count(survey) > MAX_PATTERNS:
        return ()
    return tuple(q.name for q in survey.randomized_questions if q.type == YES_NO)


def answer_pattern(answers: Mapping[str, str], plain: Sequence[str]) -> str:
    """The pattern of the plain answers: canonical JSON ``{question: answer or ""}`` over ``plain``."""
    return canonical_json({name: answers.get(name, NO_ANSWER) for name in plain})
