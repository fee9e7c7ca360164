"""What the one-page form and the paged form share: the form page and the refusal pages, and storing
an answer then thanking (:func:`store_and_thank`, one call to the write path :func:`web.record.record`).

The views are in :mod:`web.respond` (one page) and :mod:`web.paged_views`
(a survey of several pages); both build on this module.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from flask import current_app, render_template, request, session
from flask_babel import format_date, gettext
from flask_wtf.csrf import generate_csrf

from storage import invitation_codes, responses
from surveys.arms import ARM_WIRE, draw_arm
from surveys.definition import CLOSED, NOT_YET_OPEN, OPEN, Survey
from web import notify, pages, record
from web.body import is_own_expired_token
from web.catalog import state_on, survey_state, today
from web.db import get_db
from web.forms import INVITATION_CODE, ControlForm, SubmissionError, read_arm, survey_form_class
from web.limits import arrivals, burst_rules
from web.sealing import seal_answers
from web.thanks import done_cookie, thank


def privacy_summary(survey: Survey) -> dict:
    return {"epsilon": survey.epsilon}


def render_form(
    survey: Survey,
    status: int = 200,
    errors=(),
    form=None,
    code: str | None = None,
    preview_state: str | None = None,
    arm: str | None = None,
    page=None,
    script: bool = True,
    unsaved: bool = False,
):
    """The survey form: fresh, or ``form`` (answers kept, each error next to its question)
    with ``errors`` (the problems of the request as a whole) above it. With ``preview_state``
    (the survey's state) it is a researcher's preview: a banner, and it posts where nothing is stored
    (page by page, as here). ``page`` (:class:`web.pages.PageView`): one page of a survey of several.
    ``script`` False (a researcher's preview of the path without JavaScript): the page loads no script.
    ``unsaved``: a preview of a text being edited (:func:`web.editor.preview_text`): its banner says so, and
    the form has no address to post to and its buttons are disabled, so no answer can be sent from it."""
    if survey.pages and page is None:
        page, form = pages.page_view(survey, pages.first_carried(survey))
    session.permanent = True  # the CSRF token's session outlives a browser restart (7 days)
    if arm is None:  # the JavaScript-off arm, drawn before any answer; the device draws its own
        arm = draw_arm(survey.group_1_share, survey.direct_share)
    form = form if form is not None else survey_form_class(survey)(formdata=None)
    controls = ControlForm(formdata=None)
    controls.submission_key.data = secrets.token_urlsafe(18)
    controls.invitation_code.data = request.args.get("code", "") if code is None else code
    body = render_template(
        "respond/form.html",
        survey=survey,
        form=form,
        controls=controls,
        privacy=privacy_summary(survey),
        errors=errors,
        refused=status != 200,
        preview=preview_state is not None or unsaved,
        unsaved=unsaved,
        survey_state=preview_state,
        arm=arm,
        arm_wire=ARM_WIRE[arm],
        page=page,
        script=script,
    )
    return body, status


def render_refused_form(survey: Survey, error: SubmissionError, preview_state: str | None = None):
    """The form again after a refused submission, each answer problem next to its question.

    The true answers of the JavaScript-off path are kept (checked again);
    the device path's answers are noisy ones, not the respondent's, so
    they are not shown as if chosen. ``checked`` is padded in the template
    (``_formhelpers.html``), so the page is as long whatever the kept answers.
    """
    posted = request.form
    keeps_answers = "sealed" not in posted and posted.get("randomized_on", "server") == "server"
    form = survey_form_class(survey)(formdata=posted if keeps_answers else None)
    for question in survey.questions:
        form[question.name].errors = list(error.field_errors.get(question.name, ()))
    code = posted.get("invitation_code", "")
    code = code if INVITATION_CODE.fullmatch(code) else ""
    return render_form(
        survey, 400, errors=error.messages, form=form, code=code, preview_state=preview_state, arm=kept_arm(survey)
    )


def kept_arm(survey: Survey) -> str | None:
    """The arm the refused form was in, kept (a respondent told "directly" stays so); None: draw one."""
    try:
        return read_arm(survey, request.form.get("arm", ""))
    except SubmissionError:
        return None


def render_message(survey: Survey | None, status: int, title: str, text: str, back_to_form: bool = False):
    """A page with a title and a sentence. It links back to the form only when that form would
    help (``back_to_form``); a closed survey or a done browser gets a link elsewhere, never a loop."""
    return render_template(
        "respond/message.html", survey=survey, title=title, text=text, back_to_form=back_to_form
    ), status


def refuse_if_unavailable(survey: Survey, state: str | None = None):
    """None if ``survey`` takes answers today, else the closed or not-yet-open page. ``state``: the
    survey's state when the caller read it already (:func:`web.catalog.survey_state`)."""
    state = state or survey_state(survey)
    if state == CLOSED:
        return render_message(
            survey,
            410,
            gettext("This survey is closed"),
            gettext("It no longer takes answers. Thank you for your interest."),
        )
    if state == NOT_YET_OPEN:
        opens = format_date(survey.opens, "long")
        return render_message(
            survey, 403, gettext("This survey is not open yet"), gettext("It opens on %(date)s.", date=opens)
        )
    return None


def already_answered(survey: Survey):
    return render_message(
        survey,
        409,
        gettext("You have already answered this survey"),
        gettext(
            "This browser has sent its answers already. Answering twice would let the random noise be "
            "averaged away, so a second response is not accepted."
        ),
    )


def confirm_after_csrf_failure(survey, problem, noisy, randomized_on, key, code, arm=""):
    """Keep the (already noisy) answers and ask for one more click with a fresh token,
    but only for this browser's own expired form; anything else is refused outright."""
    if not is_own_expired_token(request.form.get("csrf_token")):
        return render_message(
            survey,
            400,
            gettext("The form could not be verified"),
            gettext("%(problem)s Please reload the survey page.", problem=problem),
            back_to_form=True,
        )
    generate_csrf()
    return render_template(
        "respond/confirm.html",
        survey=survey,
        sealed_token=seal_answers(survey, noisy, randomized_on, key, code, arm),
        message=gettext(
            "The form had been open for a long time. Your answers are kept (already randomized); "
            "press the button to send them."
        ),
    ), 400


@dataclass(frozen=True)
class KeySeen:
    """Whether submission ``key`` (as the form sent it) was stored already, read with the survey's state."""

    key: str
    seen: bool


def store_and_thank(
    survey: Survey,
    noisy: dict,
    randomized_on: str,
    key: str,
    code: str,
    arm: str = "",
    known: KeySeen | None = None,
    check_state: bool = False,
):
    """Store the answer (:func:`web.record.record`, one transaction) and thank; a repeated key is thanked
    without storing. ``known``: whether the key was seen, when the caller looked it up already (for that
    very key only); otherwise the transaction finds a repeat, and the key is looked up first only for a
    browser that answered already (a repeat is thanked, a new answer from it refused). ``check_state``:
    the survey's state was not read yet; the transaction reads it in its first round trip and answers
    the closed or not-yet-open page (:func:`refuse_if_unavailable`) instead of storing."""
    db = get_db()
    answered = bool(request.cookies.get(done_cookie(survey)))
    if known is not None and known.key == key:
        seen = known.seen
    else:
        seen = answered and responses.submission_key_exists(db, key)
    if seen:
        return thank(survey, None)  # a repeat: stored once already; this copy's noise is not shown
    if answered:
        return already_answered(survey)
    if survey.invitation_only and not code:
        return invalid_code(survey)
    submission = record.Submission(noisy, randomized_on, key, code, arm)
    day, states = today(), []

    def unavailable(closed_override: bool | None) -> bool:
        states.append(state_on(survey, closed_override, day))
        return states[-1] != OPEN

    refuse = unavailable if check_state else None
    outcome = record.record(db, survey, submission, day, arrivals(survey.id), burst_rules(), refuse)
    if outcome is responses.Outcome.REFUSED:
        return refuse_if_unavailable(survey, states[-1])
    if outcome is responses.Outcome.CODE_REFUSED:
        return invalid_code(survey)
    stored = outcome is responses.Outcome.STORED
    if stored:
        notify.after_answer(current_app, survey)  # a job on a queue: targets and e-mail, off this request
    return thank(survey, noisy if stored else None)  # not stored: a concurrent repeat of the key won


def invalid_code(survey: Survey):
    """The page for an invitation code that is unknown or used (403)."""
    return render_message(
        survey,
        403,
        gettext("This invitation code is not valid"),
        gettext("It may have been used already. Ask the researcher for a new link."),
    )


def code_is_acceptable(survey: Survey, code: str) -> bool:
    if not survey.invitation_only:
        return True
    return bool(code) and invitation_codes.invitation_code_is_valid(get_db(), survey.id, code)
