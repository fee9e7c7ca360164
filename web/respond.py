"""The respondent's views: the survey form (``GET /s/<id>``) and the submission (``POST /s/<id>``).

Two ways in, never both for one answer:

* JavaScript on: ``static/randomize.js`` randomizes on the device and posts
  only ``rr-<name>`` fields with ``randomized_on=device``.
* JavaScript off: the form posts the true answers under the question names;
  they are randomized here at once with :mod:`secrets` and dropped.

Nothing in this module logs, stores or echoes a true answer, and no size
depends on an answer: requests carry fixed-width values (see
:mod:`web.forms`), the thank-you page pads every shown label
(:mod:`web.thanks`) and the sealed answers of the confirm page are never
compressed (:mod:`web.sealing`). The view parses, calls the write path once
(:func:`web.answering.store_and_thank`) and renders. Around it: the language
(:mod:`web.language`), the body and CSRF checks (:mod:`web.body`) and the
pages of a survey of several (:mod:`web.paged_views`).
"""

from __future__ import annotations

from flask import Blueprint, request
from flask_babel import gettext

from storage import connection
from surveys.arms import ARM_WIRE
from surveys.definition import Survey
from surveys.form_fields import CARRIED, DEVICE_PREFIX
from surveys.submission import RANDOMIZED_ON, randomize_on_server
from web import paged_views
from web.answering import (
    KeySeen,
    already_answered,
    code_is_acceptable,
    confirm_after_csrf_failure,
    refuse_if_unavailable,
    render_form,
    render_message,
    render_refused_form,
    store_and_thank,
)
from web.body import body_problem, csrf_problem, sent_submission_key
from web.catalog import respondent_survey_or_404, send_survey_state_and_key_seen
from web.db import get_db
from web.forms import SubmissionError, parse_answers, read_arm
from web.language import in_respondent_language
from web.limits import refuse_if_over_survey_limit, send_refusal
from web.permissions import public
from web.sealing import read_sealed
from web.thanks import done_cookie
from web.thanks import thank as thank  # re-exported: bench/profile_submit.py times it as respond.thank

bp = Blueprint("respond", __name__)


@bp.get("/s/<survey_id>")
@public
def show(survey_id: str):
    survey = in_respondent_language(respondent_survey_or_404(survey_id))
    refusal = refuse_if_unavailable(survey)
    if refusal:
        return refusal
    if request.cookies.get(done_cookie(survey)):
        return already_answered(survey)
    if not code_is_acceptable(survey, request.args.get("code", "")):
        return render_message(
            survey,
            403,
            gettext("This survey needs a valid invitation link"),
            gettext("Open the survey from the personal link you were sent; each link works once."),
        )
    return render_form(survey)


def read_submission(survey: Survey) -> tuple[dict[str, str], str, str, str, str]:
    """``(noisy answers, randomized_on, submission key, invitation code, arm)`` from the request.

    Raises :class:`SubmissionError` with every problem found.
    """
    form = request.form
    if request.files:  # never sent by our form; would otherwise be ignored, not refused
        raise SubmissionError([gettext("The survey form takes no files.")])
    if "sealed" in form:
        return read_sealed(survey, form["sealed"])
    randomized_on = form.get("randomized_on", "server")
    if randomized_on not in RANDOMIZED_ON:
        raise SubmissionError(
            [gettext("randomized_on must be “device” or “server”, not “%(sent)s”.", sent=randomized_on[:20])]
        )
    prefix = DEVICE_PREFIX if randomized_on == "device" else ""
    answers, parsed = parse_answers(survey, form, prefix)
    arm = read_arm(survey, form.get("arm", ARM_WIRE[""]))
    noisy = answers if randomized_on == "device" else randomize_on_server(survey, answers, arm)
    return noisy, randomized_on, parsed.submission_key, parsed.invitation_code, arm


@bp.post("/s/<survey_id>")
@public
def submit(survey_id: str):
    """Store one answer. Refusals in this order: the rate limit, the survey's state (closed, not yet
    open), the body (:func:`body_problem`), the form, the CSRF token; then :func:`store_and_thank`.

    The body, the form and the token are read first: they need no database. When all three are good
    and the browser has not answered before (:func:`state_can_wait`), the rate limit's count is taken
    and the survey's state is read in the answer's own transaction, with its key (two round trips on
    PostgreSQL with the rate limit off, three with it on). Otherwise the key the body carries is looked
    up with the state in one query (:func:`web.catalog.survey_state_and_key_seen`), sent with the rate
    limit's count (one round trip), and the refusals follow in their order."""
    survey = in_respondent_language(respondent_survey_or_404(survey_id))
    problem = body_problem()
    carried = problem is None and CARRIED in request.form and bool(survey.pages)
    parsed = read_or_refuse(survey) if problem is None and not carried else None
    if state_can_wait(survey, parsed):
        refusal = send_refusal("submit", "RATELIMIT_SUBMISSIONS")()
        return refusal or store_and_thank(survey, *parsed, check_state=True)
    sent = sent_submission_key() if problem is None else None
    with connection.pipeline(get_db()):  # the rate limit's count and the state, read after: one round trip
        over = send_refusal("submit", "RATELIMIT_SUBMISSIONS")
        state_and_seen = send_survey_state_and_key_seen(survey, sent)
    refusal, (state, seen) = over(), state_and_seen()
    if refusal:
        return refusal
    refusal = refuse_if_unavailable(survey, state)
    if refusal:
        return refusal
    if problem:
        return render_message(
            survey, problem[0], gettext("Your answers could not be read"), problem[1], back_to_form=True
        )
    if carried:
        return paged_views.submit_page(survey)
    if isinstance(parsed, SubmissionError):
        return render_refused_form(survey, parsed)
    noisy, randomized_on, key, code, arm = parsed
    problem = csrf_problem()
    if problem:
        return confirm_after_csrf_failure(survey, problem, noisy, randomized_on, key, code, arm)
    known = KeySeen(sent, seen) if sent is not None else None
    return refuse_if_over_survey_limit(survey) or store_and_thank(survey, noisy, randomized_on, key, code, arm, known)


def read_or_refuse(survey: Survey) -> tuple[dict[str, str], str, str, str, str] | SubmissionError:
    """:func:`read_submission`, or the :class:`SubmissionError` it raised (answered after the rate limit and
    the survey's state, which come first)."""
    try:
        return read_submission(survey)
    except SubmissionError as error:
        return error


def state_can_wait(survey: Survey, parsed) -> bool:
    """Whether the survey's state can be read in the answer's transaction: the form was read and its CSRF
    token is good, this browser has not answered before (its key is looked up first), the survey sets no
    limit per address of its own (counted between the state and the store) and a survey that takes
    invitation codes got one. Every refusal then comes in its order: the rate limit, then the state."""
    if not isinstance(parsed, tuple) or csrf_problem() is not None or request.cookies.get(done_cookie(survey)):
        return False
    code = parsed[3]
    return survey.max_responses_per_address_per_hour is None and not (survey.invitation_only and not code)
