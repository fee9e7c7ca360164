"""From a respondent's answers to a :class:`NoisyResponse`, the value storage writes.

Pure: no Flask. The web layer parses and validates the form, then calls
:func:`randomize_on_server` (JavaScript off) or takes the device's noisy
answers as they are, and hands the result to :func:`noisy_response`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from surveys.arms import ARMS, DIRECT, NO_ARM, arm_choices
from surveys.correlation import kept_pairs
from surveys.definition import Question, Survey
from surveys.design_contract import RANDOMIZED_IN_EVERY_ARM, design_record, question_design_key
from surveys.kinds import breakdown_questions, kind_of
from surveys.models import answer_pattern, arm_keeps_patterns, kept_outcomes, predictor_questions

#: Where an answer was randomized: in the browser, or on the server (JavaScript off).
RANDOMIZED_ON = ("device", "server")


@dataclass(frozen=True)
class NoisyResponse:
    """One respondent's randomized answers, ready to store.

    ``answers`` maps question name to the noisy (or, for non-randomized
    questions, plain) answer; ``designs`` maps question name to the design
    key it was randomized with (see ``Survey``'s design records);
    ``columns`` is the survey's question order and ``plain`` names the
    model's predictors (:func:`surveys.models.predictor_questions`: the plain
    one-choice questions and plain numbers, which its patterns spell); ``groups``
    maps each question results can be broken down by
    (:func:`surveys.kinds.breakdown_questions`) to this respondent's group:
    the answer as stored, a plain number's bin key (``"b00"``..), ``None``
    when unanswered; ``pattern_outcomes``
    names the randomized yes/no questions whose counts per pattern of plain
    answers are kept for the model (:func:`surveys.models.kept_outcomes`);
    ``arm`` is the respondent's group or control arm (:mod:`surveys.arms`);
    ``pairs`` names the pairs of yes/no questions whose pairs of answers are
    kept for their correlation (:func:`surveys.correlation.kept_pairs`).
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
    arm: str = NO_ARM
    kept: Mapping[str, tuple[tuple[str, int], ...]] = field(default_factory=dict)
    groups: Mapping[str, str | None] = field(default_factory=dict)
    pairs: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.randomized_on not in RANDOMIZED_ON:
            raise ValueError(f"randomized_on must be one of {RANDOMIZED_ON}, got {self.randomized_on!r}")
        if self.arm not in ARMS:
            raise ValueError(f"arm must be one of {ARMS}, got {self.arm!r}")

    def answer_line(self) -> str | None:
        """The answers in ``columns`` order as a CSV fragment (empty where
        unanswered), or None when a value would need CSV quoting."""
        values = [self.answers.get(name, "") for name in self.columns]
        if not self.columns or any(_NEEDS_QUOTING.search(value) for value in values):
            return None
        return ",".join(values)

    def kept_rows(self, name: str) -> tuple[tuple[str, int], ...]:
        """The kept tally rows ``(answer, increment)`` of question ``name``'s answer: its own count +1 for a
        choice, the bucket, sum and sum of squares of a number (:func:`surveys.kinds.kind_of`'s ``kept_rows``)."""
        return self.kept.get(name) or ((self.answers[name], 1),)

    def pattern(self) -> str:
        """The pattern of this response's predictors (:func:`surveys.models.answer_pattern`): each one's group
        in ``groups`` (a plain number's bin key, not its stored grid position), else its answer as stored.

        Before issue 27 a pattern spelled the plain one-choice questions only; plain numbers are new with that
        issue, so no survey has answers whose patterns this spelling changes: no migration recounts them."""
        levels = {name: self.groups[name] if name in self.groups else self.answers.get(name) for name in self.plain}
        return answer_pattern(levels, self.plain)


_NEEDS_QUOTING = re.compile(r'[,"\r\n]')


def randomize_answer(question: Question, truth: str, arm: str = NO_ARM) -> str:
    """The noisy answer for one true answer; plain questions pass through, and so do crosswise and
    triangular answers (the respondent did the mixing: the answer is stored as given) and the yes/no and
    choice answers of the direct-question control arm (asked directly, and the form says so); numbers and
    check-all-that-apply answers are randomized in every arm (:data:`RANDOMIZED_IN_EVERY_ARM`)."""
    if question.design is None or not getattr(question.design, "randomized_by_software", True):
        return truth
    if arm == DIRECT and question.type not in RANDOMIZED_IN_EVERY_ARM:
        return truth
    return kind_of(question).randomize(question, truth, arm)


def device_answers(survey: Survey, wire_answers: Mapping[str, str]) -> dict[str, str]:
    """The stored answers of what the device sent (each question's kind reads its wire value: a choice name
    as the form checked it, a number's fixed-width output, a check-all-that-apply question's bits); ValueError
    naming the question when one is not a value its design can send."""
    stored = {}
    for name, wire in wire_answers.items():
        question = survey.question(name)
        try:
            stored[name] = kind_of(question).device_answer(question, wire)
        except ValueError as error:
            raise ValueError(f"{name}: {error}") from None
    return stored


def randomize_on_server(survey: Survey, true_answers: Mapping[str, str], arm: str = NO_ARM) -> dict[str, str]:
    """Randomize every answer with :mod:`secrets` at once (the JavaScript-off path), in the respondent's ``arm``."""
    return {name: randomize_answer(survey.question(name), truth, arm) for name, truth in true_answers.items()}


def check_arm(survey: Survey, arm: str) -> str:
    """``arm`` if a respondent of ``survey`` can be in it (:func:`surveys.arms.arm_choices`), else ValueError."""
    allowed = arm_choices(survey.group_1_share is not None, survey.direct_share is not None)
    if arm not in allowed:
        raise ValueError(f"arm must be one of {list(allowed)} for this survey, got {arm[:20]!r}")
    return arm


@functools.lru_cache(maxsize=256)
def _designs(survey: Survey) -> tuple[str, str, dict[str, str], tuple[str, ...]]:
    """Fingerprint, design record, per-question keys and kept pattern outcomes, computed once per survey."""
    keys = {q.name: question_design_key(q) for q in survey.questions}
    return survey.design_fingerprint(), design_record(survey), keys, kept_outcomes(survey)


@functools.lru_cache(maxsize=256)
def _predictor_names(survey: Survey) -> tuple[str, ...]:
    """The names of :func:`surveys.models.predictor_questions`, computed once per survey."""
    return tuple(q.name for q in predictor_questions(survey))


@functools.lru_cache(maxsize=256)
def _group_questions(survey: Survey) -> tuple[Question, ...]:
    """:func:`surveys.kinds.breakdown_questions`, computed once per survey."""
    return breakdown_questions(survey)


def response_groups(survey: Survey, answers: Mapping[str, str]) -> dict[str, str | None]:
    """Each break-down question's group for these stored answers (its kind's ``group_of``: the answer as stored, a
    plain number's bin key), ``None`` where unanswered: what ``group_tallies`` are kept by."""
    return {
        q.name: None if q.name not in answers else kind_of(q).group_of(q, answers[q.name])
        for q in _group_questions(survey)
    }


def noisy_response(
    survey: Survey, noisy_answers: Mapping[str, str], randomized_on: str, arm: str = NO_ARM
) -> NoisyResponse:
    """Package noisy answers with the designs they were randomized with, in the respondent's ``arm``.

    Each answer's design key carries the arm (:func:`surveys.design_contract.question_design_key`), so the
    running tallies keep each group, and the direct arm, apart. The control arm's yes/no answers are kept out
    of the pattern counts of the model (they are not randomized); its numbers are randomized, so kept in them.
    """
    fingerprint, record, keys, outcomes = _designs(survey)
    if arm:
        keys = {q.name: question_design_key(q, arm) for q in survey.questions}
        outcomes = tuple(name for name in outcomes if arm_keeps_patterns(arm, survey.question(name).type))
    return NoisyResponse(
        survey_id=survey.id,
        survey_version=survey.version,
        design_id=fingerprint,
        design_record=record,
        answers=dict(noisy_answers),
        question_designs={name: keys[name] for name in noisy_answers},
        randomized_on=randomized_on,
        columns=tuple(q.name for q in survey.questions),
        plain=_predictor_names(survey),
        pattern_outcomes=outcomes,
        arm=check_arm(survey, arm),
        groups=response_groups(survey, noisy_answers),
        pairs=kept_pairs(survey),
        kept={
            name: rows
            for name, answer in noisy_answers.items()
            if (rows := kind_of(survey.question(name)).kept_rows(survey.question(name), answer)) != ((answer, 1),)
        },
    )
