"""web/forms.py: the plain check of a submission accepts exactly what the WTForms fields accept."""

from __future__ import annotations

import itertools
import random

import pytest
from werkzeug.datastructures import MultiDict

from tests.helpers.sample_surveys import QUIZ_YAML, SKIP_YAML, make_survey
from web.forms import SubmissionError, plainly_valid, read_with_wtforms, wire_value, wire_values

pytestmark = pytest.mark.both_backends

KEYS = [None, "", "k" * 15, "k" * 16, "good_key-0123456789AB", "bad key 0123456789", "k" * 64, "k" * 65]
CODES = [None, "", "   ", "abcd", "abc", "code-42_X", "no spaces allowed", "é" * 5]


def question_values(question) -> list[str | None]:
    """What a request may post for a question: nothing, empty, each wire value, the blank one, near misses."""
    values = [None, "", *wire_values(question), wire_value(question, None)]
    values += [question.choice_names[0], wire_values(question)[0] + " ", "maybe", " " * (len(values[2]) + 1)]
    return values


def forms(survey, prefix: str, sampled: int = 3000, seed: int = 7):
    """Forms with one question's value varied at a time over every value (the others answered), then
    ``sampled`` forms with every question's value drawn at random (seeded), each with a valid key and no
    code; then every key and code with valid answers."""
    per_question = [question_values(q) for q in survey.questions]
    name = (lambda q: f"{prefix}-{q.name}") if prefix else (lambda q: q.name)
    good = [wire_values(q)[0] for q in survey.questions]

    def form(values, key="k" * 20, code=None) -> MultiDict:
        fields = [(name(q), v) for q, v in zip(survey.questions, values) if v is not None]
        fields += [("submission_key", key)] if key is not None else []
        return MultiDict(fields + ([("invitation_code", code)] if code is not None else []))

    for i, values in enumerate(per_question):
        for value in values:
            yield form(good[:i] + [value] + good[i + 1 :])
    draw = random.Random(seed)
    for _ in range(sampled):
        yield form([draw.choice(values) for values in per_question])
    for key, code in itertools.product(KEYS, CODES):
        yield form(good, key, code)


def wtforms_verdict(survey, formdata, prefix):
    try:
        return read_with_wtforms(survey, formdata, prefix)
    except SubmissionError:
        return None


@pytest.mark.sqlite_only(reason="two readers of a form compared in a request context; no database is read")
@pytest.mark.parametrize("text", [QUIZ_YAML, SKIP_YAML], ids=["quiz", "skip-logic"])
@pytest.mark.parametrize("prefix", ["", "rr"])
def test_the_plain_check_accepts_exactly_what_wtforms_accepts(app, text, prefix):
    survey = make_survey(text)
    checked = accepted = 0
    with app.test_request_context("/"):
        for formdata in forms(survey, prefix):
            assert plainly_valid(survey, formdata, prefix) == wtforms_verdict(survey, formdata, prefix), formdata
            checked += 1
            accepted += plainly_valid(survey, formdata, prefix) is not None
    assert checked > 1000 and 0 < accepted < checked  # both verdicts were exercised
