"""Respondent pages: the survey form, the submission, the thank-you page.

Two ways in, never both for one answer:

* JavaScript on: ``static/randomize.js`` randomizes on the device and posts
  only ``rr-<name>`` fields with ``randomized_on=device``.
* JavaScript off: the form posts the true answers under the question names;
  they are randomized here at once with :mod:`secrets` and dropped.

Nothing in this module logs, stores or echoes a true answer, and no size
depends on an answer: requests carry fixed-width values (see
:mod:`web.forms`), the thank-you page pads every shown label
(:func:`padded_label`) and the sealed answers of the confirm page are never
compressed (:class:`UncompressedSerializer`).

A body that is not a form, not UTF-8 or too large is refused with 415, 400
or 413 before anything is parsed (:func:`body_problem`), so that it is never
mistaken for a form with no answers.
"""

from __future__ import annotations

import hmac
import math
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from flask import Blueprint, Response, current_app, g, make_response, render_template, request, session
from flask_babel import format_date, format_number, get_locale, gettext
from flask_wtf.csrf import generate_csrf, validate_csrf
from itsdangerous import BadData, BadSignature, Serializer, URLSafeSerializer, URLSafeTimedSerializer
from itsdangerous.encoding import base64_encode
from markupsafe import Markup, escape
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.wsgi import LimitedStream
from wtforms.validators import ValidationError

from storage import connection, responses
from surveys.arms import ARM_WIRE, arm_from_wire, draw_arm
from surveys.definition import CLOSED, NOT_YET_OPEN, Question, Survey
from surveys.form_fields import CARRIED, DEVICE_PREFIX
from surveys.submission import RANDOMIZED_ON, check_arm, randomize_on_server
from surveys.wording import (
    NO_EPSILON,
    Protection,
    design_sentence,
    device_sentence,
    drawn_sentence,
    epsilon_text,
    odds_factor_text,
    page_note,
    privacy_sentence,
    protection,
    revealing_items,
    short_percent,
    truthfully_sentence,
)
from web import record
from web.catalog import send_survey_state_and_key_seen, survey_or_404, survey_state, today
from web.db import get_db
from web.forms import (
    INVITATION_CODE,
    NO_ANSWER_LABEL,
    SUBMISSION_KEY,
    ControlForm,
    SubmissionError,
    may_be_blank,
    parse_answers,
    parse_wire_value,
    survey_form_class,
    wire_value,
    wire_values,
)
from web.frames import Frame, render_frame
from web.limits import arrivals, burst_rules, refuse_if_over_survey_limit, send_refusal

bp = Blueprint("respond", __name__)
bp.add_app_template_global(wire_value)
bp.add_app_template_global(wire_values)
bp.add_app_template_global(may_be_blank)
bp.add_app_template_global(NO_ANSWER_LABEL, "no_answer_label")

#: The request bodies a survey form is sent as.
FORM_MIMETYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def done_cookie(survey: Survey) -> str:
    """Name of the cookie that says this browser answered (it carries no answer)."""
    return f"rr_done_{survey.id}"


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
):
    """The survey form: fresh, or ``form`` (answers kept, each error next to its question)
    with ``errors`` (the problems of the request as a whole) above it. With ``preview_state``
    (the survey's state) it is a researcher's preview: a banner, and it posts where nothing is stored
    (page by page, as here). ``page`` (:class:`web.pages.PageView`): one page of a survey of several."""
    if survey.pages and page is None:
        from web import pages  # pages builds on this module

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
        preview=preview_state is not None,
        survey_state=preview_state,
        arm=arm,
        arm_wire=ARM_WIRE[arm],
        page=page,
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


#: How the language chooser names a language (others by their code).
LANGUAGE_NAMES = {
    "en": "English",
    "fr": "Français",
    "es": "Español",
    "de": "Deutsch",
    "it": "Italiano",
    "pt": "Português",
}
bp.add_app_template_global(LANGUAGE_NAMES, "language_names")


def N_(text: str) -> str:
    """Marks ``text`` for the catalogues (``pybabel extract``) without translating it: it is
    translated where it is shown (``_formhelpers.html`` passes labels and errors through ``_``)."""
    return text


#: Words of :mod:`web.forms` shown to respondents (a blank option's label, an answer's error),
#: marked here for the catalogues; ``tests/test_translations.py`` keeps them equal to the originals.
FORM_WORDS = (
    N_("Yes"),
    N_("No"),
    N_("No answer"),
    N_("Keep my earlier answer (randomized already, so it cannot be shown)"),
    N_("This question applies to you given your earlier answers; please choose an answer."),
    N_("Please choose an answer to this question, or “No answer”."),
    N_("The submission key is malformed; reload the page."),
    N_("The invitation code is malformed."),
)


#: A survey's states (:mod:`surveys.definition`) as the preview's banner names them.
SURVEY_STATE_WORDS = (N_("open"), N_("closed"), N_("not yet open"))


@bp.app_template_global()
def translated(text: str) -> str:
    """``text`` (a message made in Python, possibly naming what was sent) in the respondent's language
    when the catalogue has it, as plain text: the template escapes it (Jinja's ``_`` would mark it safe)."""
    return gettext(text)


def number_locale() -> str:
    """The locale the respondent's numbers are written in: the interface's (the sentences around them)."""
    return str(get_locale())


@bp.app_template_global("privacy_sentence")
def respondent_privacy_sentence(question: Question) -> str:
    """:func:`surveys.wording.privacy_sentence` in the respondent's language, numbers included."""
    return privacy_sentence(question, gettext, number_locale())


@bp.app_template_global()
def respondent_design_sentence(question: Question) -> str:
    """:func:`surveys.wording.design_sentence` in the respondent's language, numbers included
    (``design_sentence`` stays English for the admin pages)."""
    return design_sentence(question, gettext, number_locale())


@bp.app_template_global()
@lru_cache(maxsize=512)
def survey_protection(questions: tuple[Question, ...]) -> Protection:
    """:func:`surveys.wording.protection` of ``questions`` (a survey's or a page's), worked out once."""
    return protection(tuple(questions))


@bp.app_template_global()
def privacy_words(questions: Sequence[Question]) -> dict:
    """The summary's sentences for ``questions``, in the respondent's language, each from what their designs
    do (:mod:`surveys.wording`): ``shown`` (the :class:`~surveys.wording.Protection`), ``drawn``, ``device``,
    ``truthfully`` (``""`` where nothing is said) and ``revealing`` (one line per revealing question)."""
    shown = survey_protection(tuple(questions))
    return {
        "shown": shown,
        "drawn": drawn_sentence(shown, gettext),
        "device": device_sentence(shown, gettext),
        "truthfully": truthfully_sentence(shown, gettext),
        "revealing": revealing_items(shown, gettext),
    }


@bp.app_template_global()
def device_note(questions: Sequence[Question]) -> str:
    """The note under a page's ``questions`` with JavaScript on (:func:`surveys.wording.page_note`)."""
    return page_note(survey_protection(tuple(questions)), gettext)


@bp.app_template_global()
def explanations_by_design(questions: Sequence[Question]) -> list[tuple[list[str], str]]:
    """Each distinct explanation of the form's randomized questions once, with the labels of the questions it
    explains, in the order the questions come: ``[(labels, design sentence + privacy sentence), ...]``.
    Questions with the same design share one item, which keeps a long form's page small on a phone."""
    grouped: dict[str, list[str]] = {}
    for question in questions:
        text = f"{respondent_design_sentence(question)} {respondent_privacy_sentence(question)}"
        grouped.setdefault(text, []).append(question.label)
    return [(labels, text) for text, labels in grouped.items()]


@bp.app_template_global()
def respondent_percent(share: float) -> str:
    """A share on a respondent's page (:func:`surveys.wording.short_percent`): "10%", "10 %" in French."""
    return short_percent(share, number_locale())


@bp.app_template_global("odds_factor_text")
def respondent_odds_factor(epsilon: float) -> str:
    """:func:`surveys.wording.odds_factor_text` written in the respondent's locale ("2,72" in French)."""
    return odds_factor_text(epsilon, number_locale())


@bp.app_template_global()
def respondent_epsilon(epsilon: float) -> str:
    """:func:`surveys.wording.epsilon_text` written in the respondent's locale ("1,10" in French), an infinite
    one in the respondent's language."""
    if math.isinf(epsilon):
        return f"∞ ({gettext(NO_EPSILON)})"
    return epsilon_text(epsilon, number_locale())


#: The languages of the interface's own words (``translations/``); English is the msgids themselves.
INTERFACE_LANGUAGES = ("en", "fr", "es")


def in_respondent_language(survey: Survey) -> Survey:
    """The survey in the language chosen (``?lang=``, kept in the form's address) or else the
    browser's preferred one (Accept-Language), else the file's first; only texts change.

    The interface's words follow (:func:`interface_language`): the survey's language when it
    has a catalogue, else English; a survey in one language gets the browser's among
    :data:`INTERFACE_LANGUAGES`."""
    if not survey.languages:
        g.interface_language = request.accept_languages.best_match(INTERFACE_LANGUAGES) or "en"
        return survey
    chosen = request.args.get("lang", "")
    if chosen not in survey.languages:
        chosen = request.accept_languages.best_match(survey.languages) or survey.languages[0]
    g.interface_language = chosen if chosen in INTERFACE_LANGUAGES else "en"
    g.page_language = chosen
    return survey.in_language(chosen)


def interface_language() -> str:
    """Flask-Babel's locale: the respondent's language once :func:`in_respondent_language` chose it;
    English elsewhere (the start page and the admin pages are in English only)."""
    return g.get("interface_language", "en")


@bp.app_template_global()
def page_language() -> str:
    """``<html lang>``: the survey's language when it has several, else the interface's."""
    return g.get("page_language") or str(get_locale())


@bp.get("/s/<survey_id>")
def show(survey_id: str):
    survey = in_respondent_language(survey_or_404(survey_id))
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


class UncompressedSerializer(URLSafeSerializer):
    """itsdangerous' URL-safe signed serializer without its zlib step: compression
    would make the token's length depend on the (noisy) answers it carries."""

    def dump_payload(self, obj) -> bytes:
        return base64_encode(Serializer.dump_payload(self, obj))


def _sealer() -> URLSafeSerializer:
    return UncompressedSerializer(current_app.config["SECRET_KEY"], salt="sealed-noisy-answers")


def seal_answers(survey: Survey, noisy: dict[str, str], randomized_on: str, key: str, code: str, arm: str = "") -> str:
    """The signed token of the confirm page; every question as its fixed-width wire value."""
    answers = {q.name: wire_value(q, noisy.get(q.name)) for q in survey.questions}
    sealed = {
        "survey": [survey.id, survey.version],
        "answers": answers,
        "randomized_on": randomized_on,
        "key": key,
        "code": code,
        "arm": ARM_WIRE[arm],
    }
    return _sealer().dumps(sealed)


def body_problem() -> tuple[int, str] | None:
    """``(status, message)`` if the request body cannot be a survey form, else None.

    Reads the whole body (at most ``MAX_CONTENT_LENGTH`` bytes) and keeps it
    for the form parser.
    """
    if request.mimetype not in FORM_MIMETYPES:
        sent = request.mimetype or "no content type"
        kinds = gettext("%(first)s or %(second)s", first=FORM_MIMETYPES[0], second=FORM_MIMETYPES[1])
        return 415, gettext("The answers must be sent as a form (%(kinds)s), not as %(sent)s.", kinds=kinds, sent=sent)
    if request.content_length is None and "wsgi.input_terminated" not in request.environ and _is_chunked():
        return 411, gettext("This server cannot read a chunked request body; send the answers with a Content-Length.")
    try:
        body = read_body()
    except RequestEntityTooLarge:
        limit = current_app.config["MAX_CONTENT_LENGTH"]
        return 413, gettext(
            "The request body is too large: a survey form takes at most %(limit)s bytes.", limit=format_number(limit)
        )
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return 400, gettext("The request body is not valid UTF-8 text.")
    return None


def _is_chunked() -> bool:
    return "chunked" in request.headers.get("Transfer-Encoding", "").lower()


def read_body() -> bytes:
    """The whole request body, kept for ``request.form``; ``RequestEntityTooLarge`` past the limit.

    Werkzeug refuses a declared Content-Length over ``MAX_CONTENT_LENGTH``,
    but a streamed (chunked) body it reads only up to the limit and then
    stops without a word. One more byte read from the server's own stream
    tells a cut body from one that fits exactly.
    """
    body = request.get_data(cache=True)
    stream = request.stream
    cut = request.content_length is None and isinstance(stream, LimitedStream) and stream.is_exhausted
    if cut and request.environ["wsgi.input"].read(1):
        raise RequestEntityTooLarge()
    return body


def read_submission(survey: Survey) -> tuple[dict[str, str], str, str, str, str]:
    """``(noisy answers, randomized_on, submission key, invitation code, arm)`` from the request.

    Raises :class:`SubmissionError` with every problem found.
    """
    form = request.form
    if request.files:  # never sent by our form; would otherwise be ignored, not refused
        raise SubmissionError([gettext("The survey form takes no files.")])
    if "sealed" in form:
        return _read_sealed(survey, form["sealed"])
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


def read_arm(survey: Survey, wire: str) -> str:
    """The respondent's arm from the form's one-character ``arm`` (:mod:`surveys.arms`), or SubmissionError."""
    try:
        return check_arm(survey, arm_from_wire(wire))
    except ValueError as error:
        raise SubmissionError(
            [gettext("The form's group is not one this survey has (%(error)s).", error=error)]
        ) from None


def _read_sealed(survey: Survey, token: str):
    try:
        sealed = _sealer().loads(token)
    except BadSignature:
        raise SubmissionError([gettext("The confirmation form was altered; please reload the survey.")]) from None
    if sealed.get("survey") != [survey.id, survey.version]:
        raise SubmissionError([gettext("The confirmation form belongs to another survey or version.")])
    try:
        answers = {q.name: parse_wire_value(q, sealed["answers"][q.name]) for q in survey.questions}
    except (KeyError, TypeError, ValueError):
        raise SubmissionError([gettext("The confirmation form is out of date; please reload the survey.")]) from None
    noisy = {name: answer for name, answer in answers.items() if answer is not None}
    return (
        noisy,
        sealed["randomized_on"],
        sealed["key"],
        sealed.get("code", ""),
        read_arm(survey, sealed.get("arm", "n")),
    )


def csrf_problem() -> str | None:
    """None if the CSRF token is good, else Flask-WTF's reason."""
    try:
        validate_csrf(request.form.get("csrf_token"))
    except ValidationError as error:
        return str(error.args[0]) if error.args else "The CSRF token is invalid."
    return None


def is_own_expired_token(token: str | None) -> bool:
    """True only for a token this very browser session was given, now past its time limit.

    Flask-WTF reports "expired" before it compares the token with the
    session, so an attacker's own expired token would look the same; the
    comparison here (the token's signed value against the session's) makes
    the one-more-click page reachable only by the respondent who had the form.
    """
    serializer = URLSafeTimedSerializer(current_app.secret_key, salt="wtf-csrf-token")
    try:
        raw = serializer.loads(token or "")
    except BadData:
        return False
    own = session.get("csrf_token")
    return isinstance(raw, str) and isinstance(own, str) and hmac.compare_digest(own, raw)


@dataclass(frozen=True)
class KeySeen:
    """Whether submission ``key`` (as the form sent it) was stored already, read with the survey's state."""

    key: str
    seen: bool


@bp.post("/s/<survey_id>")
def submit(survey_id: str):
    """Store one answer. Refusals in this order: the rate limit, the survey's state (closed, not yet
    open), the body (:func:`body_problem`), the form, the CSRF token; then :func:`store_and_thank`.
    The body is read first so that the key it carries is looked up with the state in one query
    (:func:`web.catalog.survey_state_and_key_seen`), sent with the rate limit's count (one round trip on
    PostgreSQL); the order of the refusals is kept."""
    survey = in_respondent_language(survey_or_404(survey_id))
    problem = body_problem()
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
    if CARRIED in request.form and survey.pages:
        from web import pages  # pages builds on this module

        return pages.submit_page(survey)
    try:
        noisy, randomized_on, key, code, arm = read_submission(survey)
    except SubmissionError as error:
        return render_refused_form(survey, error)
    problem = csrf_problem()
    if problem:
        return confirm_after_csrf_failure(survey, problem, noisy, randomized_on, key, code, arm)
    known = KeySeen(sent, seen) if sent is not None else None
    return refuse_if_over_survey_limit(survey) or store_and_thank(survey, noisy, randomized_on, key, code, arm, known)


def sent_submission_key() -> str | None:
    """The form's ``submission_key`` when it is one (:data:`web.forms.SUBMISSION_KEY`), else None: only a
    well-formed key is looked up before the form is read."""
    key = request.form.get("submission_key")
    return key if isinstance(key, str) and SUBMISSION_KEY.match(key) else None


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


def store_and_thank(
    survey: Survey, noisy: dict, randomized_on: str, key: str, code: str, arm: str = "", known: KeySeen | None = None
):
    """Store the answer (:func:`web.record.record`, one transaction) and thank; a repeated key is thanked
    without storing. ``known``: whether the key was seen, when the caller looked it up already (for that
    very key only); otherwise the transaction finds a repeat, and the key is looked up first only for a
    browser that answered already (a repeat is thanked, a new answer from it refused)."""
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
    outcome = record.record(db, survey, submission, today(), arrivals(survey.id), burst_rules())
    if outcome is responses.Outcome.CODE_REFUSED:
        return invalid_code(survey)
    stored = outcome is responses.Outcome.STORED
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
    return bool(code) and responses.invitation_code_is_valid(get_db(), survey.id, code)


@bp.app_template_global()
def padded_label(question: Question, name: str | None) -> Markup:
    """The label of answer ``name`` (``None``: no answer), HTML-escaped and padded with
    spaces to the longest such label of the question, counted in UTF-8 bytes, so that
    the page showing it is as long whatever the answer."""
    return padded_labels_in(question, str(get_locale()))[name]


def padded_labels_in(question: Question, locale: str) -> dict[str | None, Markup]:
    """:func:`padded_labels` of ``question`` in ``locale``."""
    return padded_labels(question.type, tuple((choice.name, choice.label) for choice in question.choices), locale)


@lru_cache(maxsize=1024)
def padded_labels(question_type: str, choices: tuple[tuple[str, str], ...], locale: str) -> dict[str | None, Markup]:
    """:func:`padded_label` of every answer (``choices``: ``(name, label)``; and of ``None``) of a question
    of ``question_type`` in the interface language ``locale``, worked out once rather than on every thank-you
    page. The labels depend on nothing else (:func:`choice_label`; the catalogues are fixed), and the key is
    a few strings, cheaper to hash than the question. ``locale`` is the language the caller's ``gettext``
    translates into: part of the key only."""
    no_answer = escape(gettext("No answer"))  # NO_ANSWER_LABEL in the respondent's language
    labels = {name: escape(_choice_text(question_type, label)) for name, label in choices} | {None: no_answer}
    width = max(len(label.encode("utf-8")) for label in labels.values())
    return {name: Markup(label + " " * (width - len(label.encode("utf-8")))) for name, label in labels.items()}


@bp.app_template_global()
def choice_label(question: Question, name: str) -> str:
    """The label of choice ``name``: a yes/no question's "Yes" and "No" are the interface's words
    (in the respondent's language); any other label is the survey's text, already in its language."""
    return _choice_text(question.type, question.choices[question.choice_names.index(name)].label)


def _choice_text(question_type: str, label: str) -> str:
    """A choice's ``label`` as shown: translated for a yes/no question, else the survey's own text."""
    return gettext(label) if question_type == "yes_no" else label


@bp.app_template_global()
def skip_note(survey: Survey, question: Question) -> str:
    """The sentence under a question with skip logic, in the survey's words:
    "Only if “Year of study” is “First year”." (``""`` for a question always asked)."""
    if question.relevant is None:
        return ""

    def words(name: str, value: str) -> tuple[str, str]:
        asked = survey.question(name)
        return asked.label, choice_label(asked, value)

    return gettext("Only if %(condition)s.", condition=question.relevant.describe(words, gettext))


def stored_answers_shown(survey: Survey, noisy: dict) -> list[tuple[Question, Markup]]:
    """Every question with its stored (noisy) answer's padded label, as the thank-you page lists them."""
    language = interface_language()
    return [(q, padded_labels_in(q, language)[noisy.get(q.name)]) for q in survey.questions]


#: Thank-you frames kept per app (surveys x languages x with/without answers); all dropped when full.
MAX_THANKS_FRAMES = 256


def thanks_frame(survey: Survey, answered: bool) -> Frame:
    """The thank-you page of ``survey`` cut at its answers (:mod:`web.frames`), rendered once per survey,
    interface and page language, address and with or without answers, and kept on the app."""
    frames = current_app.extensions.setdefault("thanks_frames", {})
    language = interface_language()  # Flask-Babel's locale selector: what get_locale() reads, without its cost
    key = (survey, answered, language, g.get("page_language") or language, request.script_root, request.path)
    frame = frames.get(key)
    if frame is None:
        if len(frames) >= MAX_THANKS_FRAMES:
            frames.clear()

        def render(labels) -> str:
            shown = list(zip(survey.questions, labels)) if answered else None
            return render_template("respond/thanks.html", survey=survey, shown=shown)

        frame = frames[key] = render_frame(render, len(survey.questions) if answered else 0)
    return frame


def thank(survey: Survey, noisy: dict | None) -> Response:
    """The thank-you page, showing every question's stored (noisy) answer when there are new ones."""
    if noisy is None:
        page = thanks_frame(survey, answered=False).fill(())
    else:
        page = thanks_frame(survey, answered=True).fill([label for _, label in stored_answers_shown(survey, noisy)])
    response = make_response(page)
    response.set_cookie(
        done_cookie(survey),
        "1",
        max_age=365 * 24 * 3600,
        path=f"/s/{survey.id}",
        httponly=True,
        samesite="Lax",
        secure=current_app.config["SESSION_COOKIE_SECURE"],
    )
    return response
