"""From a respondent's answers to a :class:`NoisyResponse`, the value storage writes.

Pure: no Flask. The web layer parses and validates the form, then calls
:func:`randomize_on_server` (JavaScript off) or takes the device's noisy
answers as they are, and hands the result to :func:`noisy_response`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass

from analysis.design import BinaryDesign
from surveys import protocol
from surveys.definition import Question, Survey
from surveys.design_contract import design_record, question_design_key
from surveys.models import answer_pattern, kept_outcomes

#: Where an answer was randomized: in the browser, or on the server (JavaScript off).
RANDOMIZED_ON = ("device", "server")


@dataclass(frozen=True)
class NoisyResponse:
    """One respondent's randomized answers, ready to store.

    ``answers`` maps question name to the noisy (or, for non-randomized
    questions, plain) answer; ``designs`` maps question name to the design
    key it was randomized with (see ``Survey``'s design records);
    ``columns`` is the survey's question order and ``plain`` names its
    non-randomized questions (the break-down groups); ``pattern_outcomes``
    names the randomized yes/no questions whose counts per pattern of plain
    answers are kept for the model (:func:`surveys.models.kept_outcomes`).
    """

    survey_id: str
    survey_version: int
    design_id: str
    design_record: str
    answers: Mapping[str, str]
    question_designs: Mapping[str, str]
    randomized_on: str
    columns: tuple[str, ...] = ()
    plain: tuple[str, ...] = ()
    pattern_outcomes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.randomized_on not in RANDOMIZED_ON:
            raise ValueError(f"randomized_on must be one of {RANDOMIZED_ON}, got {self.randomized_on!r}")

    def answer_line(self) -> str | None:
        """The answers in ``columns`` order as a CSV fragment (empty where
        unanswered), or None when a value would need CSV quoting."""
        values = [self.answers.get(name, "") for name in self.columns]
        if not self.columns or any(_NEEDS_QUOTING.search(value) for value in values):
            return None
        return ",".join(values)

    def pattern(self) -> str:
        """The pattern of this response's plain answers (:func:`surveys.models.answer_pattern`)."""
        return answer_pattern(self.answers, self.plain)


_NEEDS_QUOTING = re.compile(r'[,"\r\n]')


def randomize_answer(question: Question, truth: str) -> str:
    """The noisy answer for one true answer; plain questions pass through, and so do crosswise and
    triangular answers (the respondent did the mixing: the answer is stored as given)."""
    if question.design is None or not question.design.randomized_by_software:
        return truth
    if isinstance(question.design, BinaryDesign):
        return protocol.randomize_yes_no(truth, question.design)
    return protocol.randomize_choice(truth, question.choice_names, question.design)


def randomize_on_server(survey: Survey, true_answers: Mapping[str, str]) -> dict[str, str]:
    """Randomize every answer with :mod:`secrets` at once (the JavaScript-off path)."""
    return {name: randomize_answer(survey.question(name), truth) for name, truth in true_answers.items()}


@functools.lru_cache(maxsize=256)
def _designs(survey: Survey) -> tuple[str, str, dict[str, str], tuple[str, ...]]:
    """Fingerprint, design record, per-question keys and kept pattern outcomes, computed once per survey."""
    keys = {q.name: question_design_key(q) for q in survey.questions}
    return survey.design_fingerprint(), design_record(survey), keys, kept_outcomes(survey)


def noisy_response(survey: Survey, noisy_answers: Mapping[str, str], randomized_on: str) -> NoisyResponse:
    """Package noisy answers with the designs they were randomized with."""
    fingerprint, record, keys, outcomes = _designs(survey)
    return NoisyResponse(
        survey_id=survey.id,
        survey_version=survey.version,
        design_id=fingerprint,
        design_record=record,
        answers=dict(noisy_answers),
        question_designs={name: keys[name] for name in noisy_answers},
        randomized_on=randomized_on,
        columns=tuple(q.name for q in survey.questions),
        plain=tuple(q.name for q in survey.plain_questions),
        pattern_outcomes=outcomes,
    )
