"""WTForms for a survey, built from its definition, and the wire format of answers.

The same form class parses both paths: the JavaScript-off form posts the
true answers under the question names; the device path posts the noisy
answers under ``rr-<name>`` (WTForms' ``prefix``), so a request can never be
mistaken for the other kind. CSRF is checked by the view itself
(``flask_wtf.csrf.validate_csrf``) so that an expired token can be answered
with the form instead of an error page.

Fixed-width answers on the wire
-------------------------------
TLS hides what a request says but not how long it is, so the length of a
submission must not depend on the answers in it. Every question therefore
posts exactly one value, always, of one width per question: the choice name
padded on the right with spaces to the longest choice name of that question
(:func:`wire_value`). An optional question has an explicit, pre-checked
"No answer" option whose value is all spaces of the same width, so skipping
it posts as many bytes as answering it. The server accepts exactly these
padded values (they are the ``RadioField`` choices) and maps them back to
names with :func:`parse_wire_value`; ``static/randomize.js`` sends the same
values, taken from the ``data-wire`` attribute of each question.

Why spaces: a space is never part of a choice name (the loader allows
``[A-Za-z0-9_.-]``, so "." could not pad unambiguously: "a" and "a." would
collide) and every encoder writes it as one byte (``+`` in
``application/x-www-form-urlencoded``, as browsers, Python and Werkzeug
encode it; a plain space in ``multipart/form-data``), like every character
of a name. The other fields do not depend on the answers: the CSRF token,
the submission key (24 URL-safe characters) and the invitation code are
made of characters that are never percent-encoded, and ``randomized_on`` is
fixed per path.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from types import MappingProxyType

from flask_babel import gettext
from flask_wtf import FlaskForm
from werkzeug.datastructures import MultiDict
from wtforms import HiddenField, RadioField, StringField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import InputRequired, Optional, Regexp, ValidationError

from surveys.arms import arm_from_wire
from surveys.definition import SELECT_MULTIPLE, Question, Survey
from surveys.form_fields import CONTROL_FIELDS
from surveys.kinds import kind_of
from surveys.submission import check_arm

SUBMISSION_KEY = re.compile(r"\A[A-Za-z0-9_-]{16,64}\Z")
INVITATION_CODE = re.compile(r"\A[A-Za-z0-9_-]{4,64}\Z")


class SubmissionError(ValueError):
    """The request is not a valid submission.

    ``messages`` are the problems of the request as a whole (an unknown
    field, a bad control); ``field_errors`` maps a question's name to the
    problems of its answer, shown next to that question. One message per
    problem: a problem is in one of the two, never both.
    """

    def __init__(self, messages: list[str], field_errors: dict[str, list[str]] | None = None):
        self.messages = list(messages)
        self.field_errors = dict(field_errors or {})
        every = self.messages + [f"{name}: {error}" for name, errors in self.field_errors.items() for error in errors]
        super().__init__("; ".join(every))


#: Pads a choice name to its question's wire width (see the module docstring).
WIRE_PAD = " "
#: Shown for an optional question left unanswered.
NO_ANSWER_LABEL = "No answer"


@functools.lru_cache(maxsize=4096)
def answer_names(question: Question) -> tuple[str, ...]:
    """What a true answer to ``question`` may be: its choice names, or a number's grid positions written with
    as many digits as the last (``"00"`` .. ``"30"``: each of one width, so the form posts one length)."""
    if question.number is None:
        return question.choice_names
    width = len(str(question.number.steps))
    return tuple(str(index).zfill(width) for index in range(question.number.steps + 1))


def answer_labels(question: Question) -> tuple[str, ...]:
    """What each of :func:`answer_names` is shown as: the choice's label, or the number in its units."""
    if question.number is None:
        return tuple(choice.label for choice in question.choices)
    return tuple(question.number.text(question.number.value_of(index)) for index in range(question.number.steps + 1))


def wire_width(question: Question) -> int:
    """The one width of every value posted for ``question``."""
    return max(len(name) for name in answer_names(question))


def wire_value(question: Question, name: str | None) -> str:
    """The value posted for choice ``name`` (``None``: no answer), padded to the question's width."""
    if name is not None and name not in answer_names(question):
        raise ValueError(f"{name!r} is not a choice of question {question.name!r}")
    return (name or "").ljust(wire_width(question), WIRE_PAD)


@functools.lru_cache(maxsize=4096)
def wire_values(question: Question) -> tuple[str, ...]:
    """The values of the question's choices, in order, as posted (worked out once per question)."""
    return tuple(wire_value(question, name) for name in answer_names(question))


@functools.lru_cache(maxsize=4096)
def _names_by_wire_value(question: Question) -> MappingProxyType:
    return MappingProxyType(dict(zip(wire_values(question), answer_names(question))))


def parse_wire_value(question: Question, value: str, blank_ok: bool = False) -> str | None:
    """The choice name posted as ``value`` (``None`` for "no answer", accepted when the question
    may be blank or ``blank_ok``); ``ValueError`` if it is not one."""
    by_value = _names_by_wire_value(question)
    if value in by_value:
        return by_value[value]
    if value == wire_value(question, None) and (blank_ok or may_be_blank(question)):
        return None
    raise ValueError(f"{value!r} is not a posted value of question {question.name!r}")


def ticks_options(question: Question) -> bool:
    """Whether ``question`` is a check-all-that-apply one: without JavaScript it posts one yes/no pair per
    option (:class:`TickAllField`), from the device its bits in one field."""
    return question.type == SELECT_MULTIPLE


def reads_device_wire(question: Question) -> bool:
    """Whether the device posts ``question``'s noisy answer in its design's own fixed-width wire form (a
    randomized number's sign and digits, :meth:`analysis.numeric_design.DiscreteLaplaceDesign.wire`, or its one
    bit; a check-all-that-apply question's bits) rather than one of the question's wire values."""
    return (question.number is not None and question.design is not None) or ticks_options(question)


def device_blank(question: Question) -> str:
    """What the device posts for a randomized number left unanswered: spaces of its design's wire width."""
    width = question.design.wire_width if question.design is not None else len(question.choices)
    return WIRE_PAD * width


def stored_wire(question: Question, stored: str | None) -> str:
    """A stored (noisy) answer at its question's one width, as the sealed tokens carry it (:mod:`web.sealing`):
    a choice's wire value, a randomized number's output as its design sends it, a check-all-that-apply
    question's bits; blank (spaces) for none."""
    if not reads_device_wire(question):
        return wire_value(question, stored)
    if stored is None:
        return device_blank(question)
    return question.design.wire(int(stored)) if question.number is not None else stored


def read_stored_wire(question: Question, text: str, blank_ok: bool = False) -> str | None:
    """The stored answer a :func:`stored_wire` value carries (``None`` for a blank one, where allowed);
    ValueError if it is not one."""
    if not reads_device_wire(question):
        return parse_wire_value(question, text, blank_ok)
    if text == device_blank(question) and (blank_ok or may_be_blank(question)):
        return None
    return device_answers_of(question, text)


def read_device_wire(question: Question, value: str | None) -> str | None:
    """The stored output a device's ``value`` carries (``None``: unanswered and allowed); ValueError if it is
    not one its design can send (:func:`surveys.submission.device_answers`)."""
    if value == device_blank(question) and may_be_blank(question):
        return None
    if not value:
        raise ValueError("Please choose an answer to this question.")
    return device_answers_of(question, value)


def device_answers_of(question: Question, value: str) -> str:
    return kind_of(question).device_answer(question, value)


#: A check-all-that-apply question posted without a "yes" or "no" for some option (a hand-made request).
TICK_ALL_MESSAGE = "Please answer “yes” or “no” for each option."


class TickAllField(StringField):
    """A check-all-that-apply question without JavaScript: one pair of radios ("1" ticked, "0" not) per option,
    posted as ``<name>.1`` .. ``<name>.m``, every pair always posted (the "0" is checked until changed), so the
    request is as long whatever is ticked; read into one bit string. ``keep`` (a randomized one on a page shown
    again, :mod:`web.pages`): one more pair ``<name>.keep`` for :data:`KEEP_LABEL`, "1" checked until changed;
    while it is "1" the field is ``kept`` and its pairs are not read (its earlier answer is carried)."""

    def __init__(self, *args, question: Question, keep: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.question = question
        self.keep = keep
        self.kept = keep

    def process(self, formdata, data=None, extra_filters=None):
        super().process(None, data or "0" * len(self.question.choices), extra_filters)
        if formdata is not None:
            self.kept = self.keep and formdata.get(f"{self.name}.keep") == "1"
            self.data = tick_bits(self.question, formdata, self.name)

    def pre_validate(self, form) -> None:
        if not self.kept and (self.data is None or "?" in self.data):
            raise ValidationError(TICK_ALL_MESSAGE)


def tick_bits(question: Question, formdata, name: str) -> str | None:
    """The bits a check-all-that-apply question's pairs posted under ``name``: ``"?"`` for a pair posted
    without 0 or 1 (shown again with neither radio checked); ``None`` when no pair was posted."""
    values = [formdata.get(f"{name}.{index}") for index in range(1, len(question.choices) + 1)]
    if all(value is None for value in values):
        return None
    return "".join(value if value in ("0", "1") else "?" for value in values)


class DeviceNumberField(StringField):
    """A randomized number's field on the device path: its noisy output, checked by the question's kind;
    ``blank_ok``: its blank value is accepted too ("Keep my earlier answer" on a page shown again)."""

    def __init__(self, *args, question: Question, blank_ok: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.question = question
        self.blank_ok = blank_ok

    def pre_validate(self, form) -> None:
        if self.blank_ok and self.data == device_blank(self.question):
            return
        try:
            read_device_wire(self.question, self.data)
        except ValueError as error:
            raise ValidationError(str(error)) from None


def may_be_blank(question: Question) -> bool:
    """Whether the form posts and accepts the blank "no answer" value for ``question``:
    an optional question, or one with skip logic (blank when it is not asked; a required
    one that is asked is then checked by :func:`parse_answers`)."""
    return not question.required or question.relevant is not None


#: The blank option of a randomized question on a page shown again: its earlier answer was randomized and
#: sent on already, so it cannot be shown; leaving this checked keeps it.
KEEP_LABEL = "Keep my earlier answer (randomized already, so it cannot be shown)"


class AnswerField(RadioField):
    """A question's radio field: its blank value (the browser's "no answer", posted by the device path for a
    question left unanswered) where no blank is offered is refused with the field's own message ("Please
    choose an answer..."), not WTForms' "Not a valid choice", which says the respondent chose wrongly."""

    def __init__(self, *args, blank_value: str = "", missing_message: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.blank_value = blank_value
        self.missing_message = missing_message

    def pre_validate(self, form) -> None:
        if self.data == self.blank_value and all(choice.value != self.blank_value for choice in self.iter_choices()):
            raise ValidationError(self.missing_message)
        super().pre_validate(form)


def _question_field(question: Question, keep: bool = False, asked: bool = False) -> RadioField:
    """The radio field of ``question``: ``keep`` offers :data:`KEEP_LABEL`; ``asked``: its condition is known
    to hold (decided by an earlier page), so a required question is offered no "No answer" and none is checked."""
    choices = [SelectChoice(value, label) for value, label in zip(wire_values(question), answer_labels(question))]
    blank_ok = may_be_blank(question) and not (asked and question.required)
    if keep:
        message = "Please choose an answer to this question."
        choices.append(SelectChoice(wire_value(question, None), KEEP_LABEL))
    elif not blank_ok:
        message = "Please choose an answer to this question."
    else:  # the form always posts the pre-checked "No answer"; only a hand-made request omits it
        message = f"Please choose an answer to this question, or “{NO_ANSWER_LABEL}”."
        choices.append(SelectChoice(wire_value(question, None), NO_ANSWER_LABEL))
    return AnswerField(
        question.label,
        choices=choices,
        default=wire_value(question, None) if keep or blank_ok else None,
        validators=[InputRequired(message=message)],
        description=question.hint,
        blank_value=wire_value(question, None),
        missing_message=message,
    )


@functools.lru_cache(maxsize=128)
def survey_form_class(
    survey: Survey,
    names: tuple[str, ...] | None = None,
    keep: frozenset[str] = frozenset(),
    asked: frozenset[str] = frozenset(),
    device: bool = False,
) -> type[FlaskForm]:
    """A ``FlaskForm`` subclass with one radio field per question (of ``names`` only, for one page);
    the questions in ``keep`` get the blank option :data:`KEEP_LABEL`; those in ``asked`` (a condition an
    earlier page decided true) are shown as if they had none: a required one gets no "No answer".
    ``device``: the form the device posts, where a randomized number is its noisy output
    (:class:`DeviceNumberField`)."""

    class Meta:
        csrf = False  # checked by the view, see the module docstring

    shown = survey.questions if names is None else [survey.question(name) for name in names]
    fields = {q.name: _field(q, keep, asked, device) for q in shown}
    fields["Meta"] = Meta
    return type(f"SurveyForm_{survey.id}", (FlaskForm,), fields)


def _field(question: Question, keep: frozenset[str], asked: frozenset[str], device: bool):
    kept = question.name in keep and question.randomize
    if device and reads_device_wire(question):
        return DeviceNumberField(question.label, question=question, description=question.hint, blank_ok=kept)
    if ticks_options(question):
        return TickAllField(question.label, question=question, description=question.hint, keep=kept)
    return _question_field(question, question.name in keep, question.name in asked)


class ControlForm(FlaskForm):
    """The fields every submission carries besides its answers (never prefixed)."""

    class Meta:
        csrf = False

    # Labels given (as WTForms would make them from the names): an unlabelled field asks Flask-WTF for its
    # translations, which loads WTForms' catalogue from disk once per request (about 0.9 ms a submission).
    submission_key = HiddenField(
        "Submission Key",
        validators=[
            InputRequired("The form is missing its submission key; reload the page."),
            Regexp(SUBMISSION_KEY, message="The submission key is malformed; reload the page."),
        ],
    )
    invitation_code = HiddenField(
        "Invitation Code", validators=[Optional(), Regexp(INVITATION_CODE, message="The invitation code is malformed.")]
    )


def check_field_names(survey: Survey, formdata: MultiDict, prefix: str, names=None, keep=frozenset()) -> None:
    """Refuse fields that are not questions (of ``names``, when given) or controls, and repeated fields;
    ``keep``: the questions offered "Keep my earlier answer" (a check-all-that-apply one posts it as a pair)."""
    names = [q.name for q in survey.questions] if names is None else names
    question_names = {(f"{prefix}-{name}" if prefix else name) for name in names}
    if not prefix:  # a check-all-that-apply question posts one pair per option without JavaScript
        question_names |= {
            f"{name}.{index}"
            for name in names
            if ticks_options(survey.question(name))
            for index in ("keep", *range(1, len(survey.question(name).choices) + 1))
            if index != "keep" or (name in keep and survey.question(name).randomize)
        }
    problems = []
    for key in formdata:
        if key not in question_names and key not in CONTROL_FIELDS:
            problems.append(f"“{key[:60]}” is not a question of this survey.")
        elif len(formdata.getlist(key)) > 1:
            problems.append(f"“{key}” was sent more than once.")
    if problems:
        raise SubmissionError(problems)


@dataclass(frozen=True)
class Controls:
    """A valid submission's controls: its ``submission_key`` and its ``invitation_code`` (``""``: none)."""

    submission_key: str
    invitation_code: str

    @classmethod
    def of(cls, form: ControlForm) -> Controls:
        return cls(form.submission_key.data, form.invitation_code.data or "")


def parse_answers(survey: Survey, formdata: MultiDict, prefix: str) -> tuple[dict[str, str], Controls]:
    """Validate ``formdata``; return ``{question: choice name}`` (answered questions
    only) and the validated controls. Raises :class:`SubmissionError`.

    A form as our pages post it passes :func:`plainly_valid` (the same rule as the WTForms fields, checked
    without building them: a quarter of a submission's time went to WTForms); any other is read by WTForms,
    which accepts it or says what is wrong with each field."""
    check_field_names(survey, formdata, prefix)
    plain = plainly_valid(survey, formdata, prefix)
    answers, controls = plain if plain is not None else read_with_wtforms(survey, formdata, prefix)
    return asked_answers(survey, answers), controls


def read_with_wtforms(survey: Survey, formdata: MultiDict, prefix: str) -> tuple[dict[str, str | None], Controls]:
    """``({question: choice name or None}, controls)`` as the WTForms fields read ``formdata``, or
    :class:`SubmissionError` with each field's problems."""
    device = bool(prefix)
    form = survey_form_class(survey, device=device)(formdata=formdata, prefix=prefix)
    controls = ControlForm(formdata=formdata)
    valid = form.validate()
    if not (controls.validate() and valid):
        raise SubmissionError(
            _messages(controls), {q.name: list(form[q.name].errors) for q in survey.questions if form[q.name].errors}
        )
    return {q.name: _read(q, form[q.name].data, device) for q in survey.questions}, Controls.of(controls)


def _read(question: Question, value: str, device: bool) -> str | None:
    """One posted value read: a randomized number's output or a check-all-that-apply question's bits on the
    device path, the bits of its pairs without JavaScript, else a wire value's name."""
    if device and reads_device_wire(question):
        return read_device_wire(question, value)
    if ticks_options(question):
        return kind_of(question).device_answer(question, value)  # the bits as posted: one 0/1 per option
    return parse_wire_value(question, value)


def posted_value(question: Question, formdata: MultiDict, prefix: str) -> str | None:
    """What ``formdata`` posted for ``question``: its field, or a check-all-that-apply question's pairs read
    into bits (without JavaScript)."""
    if ticks_options(question) and not prefix:
        bits = tick_bits(question, formdata, question.name)
        return None if bits is None or "?" in bits else bits
    return formdata.get(f"{prefix}-{question.name}" if prefix else question.name)


def plainly_valid(survey: Survey, formdata: MultiDict, prefix: str) -> tuple[dict[str, str | None], Controls] | None:
    """``({question: choice name or None}, controls)`` when every field passes what its WTForms field checks,
    else None (and WTForms then says why). The fields of :func:`survey_form_class` and :class:`ControlForm`:
    each question posts one of its wire values (the blank one only where :func:`may_be_blank`;
    ``InputRequired``: present and not empty); the submission key is present and matches
    :data:`SUBMISSION_KEY`; the invitation code is absent, blank (WTForms' ``Optional``: only spaces) or
    matches :data:`INVITATION_CODE`. tests/test_forms.py checks the two agree on every kind of form."""
    answers = {}
    for question in survey.questions:
        value = posted_value(question, formdata, prefix)
        if not value:
            return None
        try:
            answers[question.name] = _read(question, value, bool(prefix))
        except ValueError:
            return None
    key, code = formdata.get("submission_key"), formdata.get("invitation_code")
    if not key or not SUBMISSION_KEY.match(key):
        return None
    if code and code.strip() and not INVITATION_CODE.match(code):
        return None
    return answers, Controls(key, code or "")


def parse_page(
    survey: Survey, formdata: MultiDict, prefix: str, names: tuple[str, ...], keep: frozenset[str], going_back: bool
) -> tuple[dict[str, str | None], Controls]:
    """Validate one page's ``formdata`` (the questions ``names``); return ``{question: choice name or None}``
    for each of them and the validated controls. Raises :class:`SubmissionError`.

    Going back, any question may be left blank (a required one left unanswered is simply
    not posted by a browser with JavaScript off); whether the answers are complete is
    checked when going forward (:func:`missing_answers`).
    """
    device = bool(prefix)
    check_field_names(survey, formdata, prefix, names, keep)
    if going_back:
        keep = frozenset(names)
        formdata = MultiDict(formdata)
        for name in names:
            key = f"{prefix}-{name}" if prefix else name
            if not formdata.get(key):  # not posted (no radio checked), or a number's "Choose a number" ("")
                question = survey.question(name)
                formdata[key] = stored_wire(question, None) if device else wire_value(question, None)
    form = survey_form_class(survey, names, keep, device=device)(formdata=formdata, prefix=prefix)
    controls = ControlForm(formdata=formdata)
    valid = form.validate()
    if not (controls.validate() and valid):
        raise SubmissionError(
            _messages(controls), {name: list(form[name].errors) for name in names if form[name].errors}
        )
    return {name: _page_answer(survey.question(name), form[name], device) for name in names}, Controls.of(controls)


def _page_answer(question: Question, field, device: bool) -> str | None:
    """One page's posted answer (``None``: blank, or "Keep my earlier answer"): a number's or a check-all's
    noisy output from the device, a check-all's bits without JavaScript, else a wire value's name."""
    if device and reads_device_wire(question):
        return None if field.data == device_blank(question) else device_answers_of(question, field.data)
    if ticks_options(question):
        return None if field.kept else field.data
    return parse_wire_value(question, field.data, blank_ok=True)


def missing_answers(survey: Survey, answers: dict[str, str | None], names) -> list[str]:
    """The required questions among ``names`` that are asked (skip logic, given ``answers``) but blank."""
    skipped = survey.skipped({name: value for name, value in answers.items() if value is not None})
    return [
        name for name in names if survey.question(name).required and name not in skipped and answers.get(name) is None
    ]


#: Shown next to a required question with skip logic that is asked but was left blank.
ASKED_BLANK_MESSAGE = "This question applies to you given your earlier answers; please choose an answer."


def asked_answers(survey: Survey, answers: dict[str, str | None]) -> dict[str, str]:
    """The answers of the questions asked (skip logic), without blanks; ``SubmissionError``
    when a required question that is asked was left blank.

    An answer sent for a skipped question is ignored, never stored nor randomized: with
    JavaScript off a condition on the same page cannot hide its question, so a respondent
    may well have answered it before changing the answer that skips it.
    """
    skipped = survey.skipped({name: value for name, value in answers.items() if value is not None})
    missing = missing_answers(survey, answers, [q.name for q in survey.questions])
    if missing:
        raise SubmissionError([], {name: [ASKED_BLANK_MESSAGE] for name in missing})
    return {name: value for name, value in answers.items() if value is not None and name not in skipped}


def _messages(form: FlaskForm) -> list[str]:
    """Each error of the control fields (their messages say which field they are about)."""
    return [error for errors in form.errors.values() for error in errors]


def read_arm(survey: Survey, wire: str) -> str:
    """The respondent's arm from the form's one-character ``arm`` (:mod:`surveys.arms`), or SubmissionError."""
    try:
        return check_arm(survey, arm_from_wire(wire))
    except ValueError as error:
        raise SubmissionError(
            [gettext("The form's group is not one this survey has (%(error)s).", error=error)]
        ) from None
