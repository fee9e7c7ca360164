"""WTForms for a survey, built from its definition.

The same form class parses both paths: the JavaScript-off form posts the
true answers under the question names; the device path posts the noisy
answers under ``rr-<name>`` (WTForms' ``prefix``), so a request can never be
mistaken for the other kind. CSRF is checked by the view itself
(``flask_wtf.csrf.validate_csrf``) so that an expired token can be answered
with the form instead of an error page.
"""

from __future__ import annotations

import functools
import re

from flask_wtf import FlaskForm
from werkzeug.datastructures import MultiDict
from wtforms import HiddenField, RadioField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import InputRequired, Optional, Regexp

from surveys.definition import Question, Survey

DEVICE_PREFIX = "rr"
SUBMISSION_KEY = re.compile(r"\A[A-Za-z0-9_-]{16,64}\Z")
INVITATION_CODE = re.compile(r"\A[A-Za-z0-9_-]{4,64}\Z")
#: Form fields that are not questions.
CONTROL_FIELDS = frozenset({"csrf_token", "submission_key", "randomized_on", "invitation_code", "sealed"})


class SubmissionError(ValueError):
    """The request is not a valid submission; ``messages`` says why."""

    def __init__(self, messages: list[str]):
        super().__init__("; ".join(messages))
        self.messages = messages


def _question_field(question: Question) -> RadioField:
    required = InputRequired(message=f"Please answer: {question.label}")
    return RadioField(
        question.label,
        choices=[SelectChoice(c.name, c.label) for c in question.choices],
        # strip_whitespace=False: only "" means unanswered; " " is not a choice, and would
        # otherwise pass Optional and be stored (device) or crash the randomizer (server).
        validators=[required] if question.required else [Optional(strip_whitespace=False)],
        description=question.hint,
    )


@functools.lru_cache(maxsize=128)
def survey_form_class(survey: Survey) -> type[FlaskForm]:
    """A ``FlaskForm`` subclass with one radio field per question."""

    class Meta:
        csrf = False  # checked by the view, see the module docstring

    fields = {q.name: _question_field(q) for q in survey.questions}
    fields["Meta"] = Meta
    return type(f"SurveyForm_{survey.id}", (FlaskForm,), fields)


class ControlForm(FlaskForm):
    """The fields every submission carries besides its answers (never prefixed)."""

    class Meta:
        csrf = False

    submission_key = HiddenField(
        validators=[InputRequired("The form is missing its submission key; reload the page."),
                    Regexp(SUBMISSION_KEY, message="The submission key is malformed; reload the page.")]
    )
    invitation_code = HiddenField(
        validators=[Optional(), Regexp(INVITATION_CODE, message="The invitation code is malformed.")]
    )


def check_field_names(survey: Survey, formdata: MultiDict, prefix: str) -> None:
    """Refuse fields that are not questions or controls, and repeated fields."""
    question_names = {(f"{prefix}-{q.name}" if prefix else q.name) for q in survey.questions}
    problems = []
    for key in formdata.keys():
        if key not in question_names and key not in CONTROL_FIELDS:
            problems.append(f"“{key[:60]}” is not a question of this survey.")
        elif len(formdata.getlist(key)) > 1:
            problems.append(f"“{key}” was sent more than once.")
    if problems:
        raise SubmissionError(problems)


def parse_answers(survey: Survey, formdata: MultiDict, prefix: str) -> tuple[dict[str, str], ControlForm]:
    """Validate ``formdata``; return ``{question: answer}`` (answered questions
    only) and the validated controls. Raises :class:`SubmissionError`."""
    check_field_names(survey, formdata, prefix)
    form = survey_form_class(survey)(formdata=formdata, prefix=prefix)
    controls = ControlForm(formdata=formdata)
    valid = form.validate()
    if not (controls.validate() and valid):
        raise SubmissionError(_messages(form) + _messages(controls))
    answers = {q.name: form[q.name].data for q in survey.questions if form[q.name].data not in (None, "")}
    return answers, controls


def _messages(form: FlaskForm) -> list[str]:
    """Each error, led by its question's label unless it already names it."""
    return [
        error if error.startswith(("Please", "The ")) else f"{form[name].label.text}: {error}"
        for name, errors in form.errors.items()
        for error in errors
    ]
