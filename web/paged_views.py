"""The posts of a survey of several pages (:mod:`web.pages`): the next or previous page, or, after the last,
the answers stored as a one-page form's are (:func:`web.answering.store_and_thank`); and the researcher's
preview of them, which stores nothing.
"""

from __future__ import annotations

from flask import request
from flask_babel import gettext

from surveys.arms import arm_from_wire
from surveys.definition import Survey
from web.answering import (
    confirm_after_csrf_failure,
    kept_arm,
    render_form,
    render_message,
    store_and_thank,
)
from web.body import csrf_problem, is_own_expired_token
from web.forms import INVITATION_CODE, SubmissionError
from web.limits import refuse_if_over_survey_limit
from web.pages import ARM_NOT_YET, Carried, first_carried, page_view, read_page, unseal


def show_page(
    survey: Survey,
    carried: Carried,
    status: int = 200,
    errors=(),
    field_errors=None,
    code: str = "",
    again=False,
    posted=None,
    preview_state: str | None = None,
):
    """The form of page ``carried.page``, with ``field_errors`` next to their questions; ``again``: the page's
    randomized answers are carried already, so they are offered as kept; ``posted``: a refused post of the
    page without JavaScript, whose answers are shown again as the one-page form does (never carried);
    ``preview_state``: a researcher's preview (:func:`preview_page`), banner on top."""
    view, form = page_view(survey, carried, keep_all=again)
    arm = kept_arm(survey) if carried.arm == ARM_NOT_YET else arm_from_wire(carried.arm)
    if posted is not None:
        form = type(form)(formdata=posted)
    for name, messages in (field_errors or {}).items():
        if name in form:
            form[name].errors = list(messages)
    return render_form(
        survey, status, errors=errors, form=form, code=code, arm=arm, page=view, preview_state=preview_state
    )


def submit_page(survey: Survey):
    """One page's post (``carried`` in the form): the next (or previous) page, or the stored answers."""
    code = request.form.get("invitation_code", "")
    try:
        step, key, code = read_page(survey)
    except SubmissionError as error:
        return refused_page(survey, error, code)
    problem = csrf_problem()
    if problem and not is_own_expired_token(request.form.get("csrf_token")):
        return render_message(
            survey,
            400,
            gettext("The form could not be verified"),
            gettext("%(problem)s Please reload the survey page.", problem=problem),
            True,
        )
    if step.final is not None:
        on, arm = step.carried.randomized_on, arm_from_wire(step.carried.arm)
        if problem:  # this browser's own expired form: the noisy answers are sealed for one more click
            return confirm_after_csrf_failure(survey, problem, step.final, on, key, code, arm)
        limit = refuse_if_over_survey_limit(survey)
        return limit or store_and_thank(survey, step.final, on, key, code, arm)
    status = 400 if step.field_errors else 200
    return show_page(survey, step.carried, status, field_errors=step.field_errors, code=code, again=status == 400)


def preview_page(survey: Survey, preview_state: str, thank):
    """One page's post in a researcher's preview (``/admin/surveys/<id>/preview``): the same reading,
    randomizing, skip logic and Back as :func:`submit_page`, the same pages under the banner, but the last
    page goes to ``thank(survey, noisy answers)`` and nothing is stored, counted or remembered: no response,
    no submission key, no invitation code used, no rate-limit count, no cookie."""
    code = request.form.get("invitation_code", "")
    try:
        step, _key, code = read_page(survey)
    except SubmissionError as error:
        return refused_page(survey, error, code, preview_state)
    if step.final is not None:
        return thank(survey, step.final)
    status = 400 if step.field_errors else 200
    return show_page(
        survey,
        step.carried,
        status,
        field_errors=step.field_errors,
        code=code,
        again=status == 400,
        preview_state=preview_state,
    )


def refused_page(survey: Survey, error: SubmissionError, code: str, preview_state: str | None = None):
    """The page again after a refused post, when its token can be read; else a message (400), or in a preview
    the first page again with the problem above it (the message's link leads to the real form)."""
    try:
        carried = unseal(survey, request.form.get("carried", ""))
    except SubmissionError:
        if preview_state is not None:
            return show_page(survey, first_carried(survey), 400, error.messages, preview_state=preview_state)
        return render_message(survey, 400, gettext("Your answers could not be read"), " ".join(error.messages), True)
    code = code if INVITATION_CODE.fullmatch(code) else ""
    posted = request.form if request.form.get("randomized_on", "server") == "server" else None
    return show_page(
        survey, carried, 400, error.messages, error.field_errors, code, posted=posted, preview_state=preview_state
    )
