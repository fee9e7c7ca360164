"""Surveys of several pages: one page at a time, the answers so far carried in a signed token.

A survey file splits its questions into pages with ``{type: page_break}``
(:mod:`surveys.schema`). Every page posts to ``/s/<id>`` like a one-page
form, with two more fields: ``carried`` (the signed answers of the pages
before, and which page this is) and ``go`` (``next`` or ``back``, one width).

The privacy rule: no true answer to a randomized question waits on the
server between pages. Each page's answers are randomized as soon as they
arrive (JavaScript off: here, with :mod:`secrets`; JavaScript on: on the
device, which posts only noisy answers), and only the noisy ones are carried
forward, in the page the server sends back, sealed as the confirm page seals
them (itsdangerous, uncompressed so the token's length never depends on an
answer). The server keeps nothing between pages; the answers are stored once,
after the last page, under the submission key (a repeat is stored once).
A response whose pages came by both paths (JavaScript failing half-way) is
stored as ``randomized_on="server"``: each answer was still randomized once,
where it arrived.

Back shows the earlier page again with its plain answers checked; a
randomized answer cannot be shown (only its noisy value exists), so its
question offers "Keep my earlier answer" (:data:`web.forms.KEEP_LABEL`),
checked, and says why. Going back carries the current page's answers too
(randomized as going forward), any of them left blank. A randomized number's
list starts on that option; a check-all-that-apply question gets one more
pair, ``<name>.keep`` (:class:`web.forms.TickAllField`); from the device
either posts its blank wire value to keep.

The respondent's arm (a two-group design's group, or the direct-question
control arm, :mod:`surveys.arms`) is drawn once, before any answer: on the
device (``static/randomize.js``) or, JavaScript off, on the server
(:func:`surveys.arms.draw_arm`), and posted with the first page as the
one-page form posts it. From then on it travels in the signed token, one
character whatever the arm (it reveals nothing on its own: it was drawn
independently of every answer), every later page randomizes in it, the
device takes it from the page instead of drawing again
(``data-carried``), and a page posted with another arm is refused. In the
direct arm nothing but numbers and check-all-that-apply questions is
randomized (:data:`surveys.design_contract.RANDOMIZED_IN_EVERY_ARM`), so the
token carries that respondent's other answers as given, which are stored as
given too (the arm's whole point).

Sizes: every page posts one fixed-width value per question of the page (a
question that an earlier page's answer skips is hidden and sent blank),
``go`` is ``next`` or ``back`` (4 bytes), and the token holds every
question of the survey as its fixed-width wire value, so its length depends
on the page only.

The page sent back is as long whatever the earlier answers that skip logic
reads: a question they skip is sent whole but hidden (``hidden``, else as
many spaces), its blank answer checked and its "Keep my earlier answer"
offered as the others', the note about kept answers is sent hidden when it
would speak of hidden questions only, and the earlier answers the page's
conditions name (for ``static/randomize.js``) are padded to their longest
(:func:`earlier_plain_answers`); tests/test_sizes.py takes every combination
of those answers through each paged survey. This relies on the pages being
sent uncompressed: nothing in the app compresses them, and the README tells
operators not to let the proxy do it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from flask import request
from flask_babel import gettext
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup

from surveys.arms import ARM_WIRE, arm_from_wire
from surveys.definition import Question, Survey
from surveys.form_fields import DEVICE_PREFIX
from surveys.submission import RANDOMIZED_ON, check_arm, randomize_on_server
from web import sealing
from web.forms import (
    SubmissionError,
    missing_answers,
    parse_page,
    read_arm,
    read_stored_wire,
    survey_form_class,
    ticks_options,
    wire_value,
)
from web.language import N_

#: The two values of ``go``; one width, so the request's length does not say which button was pressed.
NEXT, BACK = "next", "back"

#: ``randomized_on`` of a token before any page was answered (as wide as "device" and "server").
NOT_YET = "      "

#: The token's ``arm`` before the first page is posted (one character, as every arm's wire value).
ARM_NOT_YET = "-"

MISSING_MESSAGE = N_("Please choose an answer to this question.")

ARM_CHANGED_MESSAGE = N_(
    "The form's group changed between pages (it is drawn once, on the first page); please reload the survey."
)


@dataclass(frozen=True)
class Carried:
    """What the signed token carries: the (noisy) answers so far, the page shown, the furthest page reached,
    and the respondent's arm as its wire character (:data:`ARM_NOT_YET` before the first page is posted)."""

    answers: dict
    randomized_on: str
    page: int
    furthest: int
    arm: str = ARM_NOT_YET


@dataclass(frozen=True)
class PageView:
    """What the form template needs to show one page: every question of the page (``skipped``: those that
    earlier answers skip, sent hidden), and ``earlier`` (:func:`earlier_plain_answers`), JSON padded."""

    questions: tuple[Question, ...]
    skipped: frozenset[str]
    token: str
    number: int
    count: int
    keep: frozenset[str]
    earlier: Markup
    arm_carried: bool = False

    @property
    def keeps_a_shown_question(self) -> bool:
        """Whether a question shown (not skipped) offers "Keep my earlier answer": the note says why."""
        return bool(self.keep - self.skipped)


#: The salt of a page's token.
CARRIED_SALT = "carried-noisy-answers"


def seal(survey: Survey, carried: Carried) -> str:
    """The signed token of a page (:func:`web.sealing.seal`); every question of the survey as its fixed-width
    wire value."""
    return sealing.seal(
        survey,
        CARRIED_SALT,
        carried.answers,
        randomized_on=carried.randomized_on,
        page=carried.page,
        furthest=carried.furthest,
        arm=carried.arm,
    )


def unseal(survey: Survey, token: str) -> Carried:
    """The token's contents; :class:`SubmissionError` if it was altered or belongs to another survey."""
    try:
        payload = sealing.unseal(survey, CARRIED_SALT, token)
    except sealing.TokenAltered:
        raise SubmissionError([gettext("The form was altered; please reload the survey.")]) from None
    except sealing.TokenOfAnotherSurvey:
        raise SubmissionError(
            [gettext("The form belongs to another survey or version; please reload the survey.")]
        ) from None
    try:
        answers = {q.name: read_stored_wire(q, payload["answers"][q.name], blank_ok=True) for q in survey.questions}
        page, furthest, path = int(payload["page"]), int(payload["furthest"]), payload["randomized_on"]
        if not 0 <= page < len(survey.page_names) or path not in (NOT_YET, *RANDOMIZED_ON):
            raise ValueError(page)  # a file edited without a new version: fewer pages now
        arm = payload["arm"]
        if arm != ARM_NOT_YET:
            check_arm(survey, arm_from_wire(arm))  # arms added or removed without a new version
    except (KeyError, TypeError, ValueError):
        raise SubmissionError([gettext("The form is out of date; please reload the survey.")]) from None
    return Carried(answers, path, page, furthest, arm)


def decided_skipped(survey: Survey, answers: dict, page: int) -> frozenset[str]:
    """The questions of ``page`` that the answers of earlier pages skip (decided on the server).

    A condition is decided here when every question it names is on an earlier page or is itself
    decided skipped (so unanswered); one naming a question still open on the same page is left
    to the page (``static/randomize.js``, and :func:`web.forms.missing_answers` after the post).
    """
    return decided(survey, answers, page)[0]


def decided(survey: Survey, answers: dict, page: int) -> tuple[frozenset[str], frozenset[str]]:
    """``(skipped, asked)``: the questions of ``page`` with a condition that the answers of earlier pages decide
    (:func:`decided_skipped`), false and true. An asked one is shown as if it had no condition: a required one
    is offered no "No answer", so that the page posts as shown, JavaScript or not."""
    earlier = {name for names in survey.page_names[:page] for name in names}
    skipped = survey.skipped({name: value for name, value in answers.items() if name in earlier and value is not None})
    decidable, gone, asked = set(earlier), set(), set()
    for name in survey.page_names[page]:
        condition = survey.question(name).relevant
        if condition is None or not condition.questions() <= decidable:
            continue
        if name in skipped:
            gone.add(name)
            decidable.add(name)
        else:
            asked.add(name)
    return frozenset(gone), frozenset(asked)


def has_questions(survey: Survey, answers: dict, page: int) -> bool:
    return len(decided_skipped(survey, answers, page)) < len(survey.page_names[page])


def _shown_again(question, answer: str | None, hidden: bool):
    """A question's field value on a page shown again: its plain answer (a check-all-that-apply question's
    bits as they are), blank when randomized or skipped."""
    if ticks_options(question):
        return None if hidden else answer
    return wire_value(question, None if hidden else answer)


def page_view(survey: Survey, carried: Carried, keep_all: bool = False) -> tuple[PageView, object]:
    """The page ``carried.page`` and its form, plain answers checked and randomized ones kept (not shown).

    Every question of the page is in it, those that earlier answers skip hidden, blank and offered as
    kept like the others, so that the page is as long whatever those answers (:data:`PageView`)."""
    names = survey.page_names[carried.page]
    skipped, asked = decided(survey, carried.answers, carried.page)
    questions = tuple(survey.question(name) for name in names)
    again = keep_all or carried.page < carried.furthest
    keep = frozenset(q.name for q in questions if q.randomize and again)
    form_class = survey_form_class(survey, names, keep, asked)
    data = {q.name: _shown_again(q, carried.answers.get(q.name), q.randomize or q.name in skipped) for q in questions}
    form = form_class(formdata=None, data=data)
    view = PageView(
        questions,
        skipped,
        seal(survey, carried),
        carried.page + 1,
        len(survey.page_names),
        keep,
        earlier_plain_answers(survey, carried),
        carried.arm != ARM_NOT_YET,
    )
    return view, form


def earlier_plain_answers(survey: Survey, carried: Carried) -> Markup:
    """The answers of earlier pages that the conditions of the page's questions name (plain ones only, the
    schema's rule), as JSON for ``static/randomize.js`` to evaluate them (a condition may also name a question
    of the page), padded with spaces to the longest these answers can give: its length says nothing of them."""
    names = survey.page_names[carried.page]
    relevant = [survey.question(name).relevant for name in names if survey.question(name).relevant is not None]
    named = sorted({n for condition in relevant for n in condition.questions() if n not in names})
    plain = [survey.question(name) for name in named if not survey.question(name).randomize]
    answers = _json({q.name: carried.answers.get(q.name) for q in plain})
    widest = _json({q.name: max((None, *q.choice_names), key=lambda value: len(_json(value))) for q in plain})
    return Markup(answers + " " * (len(widest) - len(answers)))


def _json(value) -> str:
    """``value`` as the template's ``tojson`` writes it into an attribute (keys sorted, ``<>&'`` escaped)."""
    return str(htmlsafe_json_dumps(value, dumps=json.dumps, sort_keys=True))


def first_carried(survey: Survey) -> Carried:
    return Carried({}, NOT_YET, 0, 0, ARM_NOT_YET)


def posted_arm(survey: Survey, carried: Carried, form) -> str:
    """The respondent's arm (wire character) for this page's post: the token's once it has one (a post
    with another is refused), else the one posted with the first page (drawn on the device or the server)."""
    if carried.arm == ARM_NOT_YET:
        return ARM_WIRE[read_arm(survey, form.get("arm", ARM_WIRE[""]))]
    if form.get("arm", carried.arm) != carried.arm:
        raise SubmissionError([gettext(ARM_CHANGED_MESSAGE)])
    return carried.arm


def merge(survey: Survey, carried: dict, current: dict) -> dict:
    """The answers so far: a plain answer as now chosen; a randomized one left blank keeps the carried one."""
    merged = dict(carried)
    for name, value in current.items():
        if value is not None or not survey.question(name).randomize:
            merged[name] = value
    return merged


def next_page(survey: Survey, answers: dict, page: int, step: int) -> int | None:
    """The next page in direction ``step`` that has a question to ask, or None past either end."""
    page += step
    while 0 <= page < len(survey.page_names):
        if has_questions(survey, answers, page):
            return page
        page += step
    return None


@dataclass(frozen=True)
class Step:
    """The outcome of one page's post: the page to show next (``carried``, ``status``, ``field_errors``),
    or, after the last page, the noisy answers to store (``final``)."""

    carried: Carried
    final: dict | None = None
    field_errors: dict | None = None


def read_page(survey: Survey) -> tuple[Step, str, str]:
    """Read one page's post: ``(step, submission key, invitation code)``. Raises :class:`SubmissionError`."""
    form = request.form
    carried = unseal(survey, form.get("carried", ""))
    go = form.get("go", NEXT)
    randomized_on = form.get("randomized_on", "server")
    if go not in (NEXT, BACK) or randomized_on not in RANDOMIZED_ON:
        raise SubmissionError([gettext("go must be “next” or “back” and randomized_on “device” or “server”.")])
    prefix = DEVICE_PREFIX if randomized_on == "device" else ""
    arm = posted_arm(survey, carried, form)
    names = tuple(survey.page_names[carried.page])
    keep = frozenset(name for name in names if survey.question(name).randomize and carried.page < carried.furthest)
    current, controls = parse_page(survey, form, prefix, names, keep, going_back=go == BACK)
    if randomized_on == "server":
        noisy = randomize_on_server(survey, {k: v for k, v in current.items() if v is not None}, arm_from_wire(arm))
        current = {name: noisy.get(name) for name in current}
    path = randomized_on if carried.randomized_on in (NOT_YET, randomized_on) else "server"
    answers = merge(survey, carried.answers, current)
    key, code = controls.submission_key, controls.invitation_code
    return _step(survey, replace(carried, answers=answers, randomized_on=path, arm=arm), go, names), key, code


def _step(survey: Survey, carried: Carried, go: str, names: tuple[str, ...]) -> Step:
    if go == BACK:
        back = next_page(survey, carried.answers, carried.page, -1)
        return Step(replace(carried, page=carried.page if back is None else back))
    missing = missing_answers(survey, carried.answers, names)
    if missing:
        furthest = max(carried.furthest, carried.page + 1)  # the page's randomized answers are carried now
        return Step(
            replace(carried, furthest=furthest), field_errors={name: [gettext(MISSING_MESSAGE)] for name in missing}
        )
    forward = next_page(survey, carried.answers, carried.page, 1)
    if forward is None:
        skipped = survey.skipped({k: v for k, v in carried.answers.items() if v is not None})
        final = {k: v for k, v in carried.answers.items() if v is not None and k not in skipped}
        return Step(carried, final=final)
    return Step(replace(carried, page=forward, furthest=max(carried.furthest, forward)))
