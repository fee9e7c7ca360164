"""From a respondent's answers to a :class:`~surveys.storage.NoisyResponse`.

Pure: no Flask. The web layer parses and validates the form, then calls
:func:`randomize_on_server` (JavaScript off) or takes the device's noisy
answers as they are, and hands the result to :func:`noisy_response`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping

from analysis.design import ForcedResponseDesign
from surveys import protocol
from surveys.definition import Question, Survey
from surveys.storage import NoisyResponse


def randomize_answer(question: Question, truth: str) -> str:
    """The noisy answer for one true answer; plain questions pass through."""
    if question.design is None:
        return truth
    if isinstance(question.design, ForcedResponseDesign):
        return protocol.randomize_yes_no(truth, question.design)
    return protocol.randomize_choice(truth, question.choice_names, question.design)


def randomize_on_server(survey: Survey, true_answers: Mapping[str, str]) -> dict[str, str]:
    """Randomize every answer with :mod:`secrets` at once (the JavaScript-off path)."""
    return {name: randomize_answer(survey.question(name), truth) for name, truth in true_answers.items()}


def question_design_key(question: Question) -> str:
    """Canonical JSON of what the estimators need: type, options and design.

    Answers to one question are tallied per key, so answers collected under
    different designs are never pooled as if they were one.
    """
    record = {
        "type": question.type,
        "choices": list(question.choice_names),
        "design": question.design.to_dict() if question.design else None,
    }
    return json.dumps(record, sort_keys=True, separators=(",", ":"))


def design_record(survey: Survey) -> str:
    """Every question's design key, as stored once per survey design."""
    return json.dumps({q.name: json.loads(question_design_key(q)) for q in survey.questions}, sort_keys=True)


@functools.lru_cache(maxsize=256)
def _designs(survey: Survey) -> tuple[str, str, dict[str, str]]:
    """Fingerprint, design record and per-question keys, computed once per survey."""
    keys = {q.name: question_design_key(q) for q in survey.questions}
    return survey.design_fingerprint(), design_record(survey), keys


def noisy_response(survey: Survey, noisy_answers: Mapping[str, str], randomized_on: str) -> NoisyResponse:
    """Package noisy answers with the designs they were randomized with."""
    fingerprint, record, keys = _designs(survey)
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
    )
