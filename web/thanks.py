"""The thank-you page: the stored (noisy) answers, each label padded, and the done cookie.

No size depends on an answer: every shown label is padded with spaces to the
longest label of its question, counted in UTF-8 bytes (:func:`padded_label`),
and the page is rendered once per survey, language and address and cut at its
answers (:mod:`web.frames`), then filled for each respondent.
"""

from __future__ import annotations

import time
from functools import lru_cache

from flask import Response, current_app, g, make_response, render_template, request
from flask_babel import get_locale, gettext
from markupsafe import Markup, escape
from werkzeug.http import dump_cookie

from surveys.definition import Question, Survey
from surveys.kinds import kind_of
from web.forms import ticks_options
from web.frames import Frame, render_frame
from web.language import choice_text, interface_language


def done_cookie(survey: Survey) -> str:
    """Name of the cookie that says this browser answered (it carries no answer)."""
    return done_cookie_name(survey.id)


def done_cookie_name(survey_id: str) -> str:
    return f"rr_done_{survey_id}"


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
    labels = {name: escape(choice_text(question_type, label)) for name, label in choices} | {None: no_answer}
    width = max(len(label.encode("utf-8")) for label in labels.values())
    return {name: Markup(label + " " * (width - len(label.encode("utf-8")))) for name, label in labels.items()}


def stored_answers_shown(survey: Survey, noisy: dict) -> list[tuple[Question, Markup]]:
    """Every question with its stored (noisy) answer's padded label, as the thank-you page lists them."""
    language = interface_language()
    return [
        (q, _text_shown(q, noisy.get(q.name)) if labels is None else labels[noisy.get(q.name)])
        for q, labels in zip(survey.questions, _label_tables(survey, language))
    ]


@lru_cache(maxsize=256)
def _label_tables(survey: Survey, language: str) -> tuple[dict[str | None, Markup] | None, ...]:
    """Each question's :func:`padded_labels_in` ``language`` where its answer is one of its choices (None for a
    number or a check-all-that-apply question, shown by :func:`_text_shown`): one lookup per question on each
    thank-you page."""
    return tuple(None if _shown_apart(q) else padded_labels_in(q, language) for q in survey.questions)


def _shown_apart(question: Question) -> bool:
    """Whether ``question``'s stored answer is shown as a text made from it, not as one of its choices' labels."""
    return question.number is not None or bool(ticks_options(question))


def _text_shown(question: Question, stored: str | None) -> Markup:
    """A number's or a check-all-that-apply question's stored answer as text (:func:`_stored_text`), padded
    to the widest such text of the question."""
    texts = [gettext("No answer"), *_widest_texts(question)]
    width = max(len(text.encode("utf-8")) for text in texts)
    shown = gettext("No answer") if stored is None else _stored_text(question, stored)
    return Markup(escape(shown) + " " * (width - len(shown.encode("utf-8"))))


def _stored_text(question: Question, stored: str) -> str:
    """A number's stored output in its units (the one-bit design's digit as it is); a check-all-that-apply
    question's bits as "yes"/"no" per option."""
    if question.number is not None and question.design is not None and question.design.wire_width == 1:
        return gettext("random digit %(digit)s") % {"digit": stored}  # the one-bit design: no value of the range
    if question.number is not None:
        return kind_of(question).exported(question, stored)
    words = {"1": gettext("Yes"), "0": gettext("No")}
    return "; ".join(f"{choice.label}: {words[bit]}" for choice, bit in zip(question.choices, stored))


def _widest_texts(question: Question) -> list[str]:
    """The stored texts of ``question`` that are the widest (its ends, or every option "Yes" and every "No")."""
    if question.number is not None:
        design = question.design
        ends = (0, question.number.steps) if design is None else getattr(design, "output_range", (0, 1))
        return [_stored_text(question, str(end)) for end in ends]
    options = len(question.choices)
    return [_stored_text(question, "1" * options), _stored_text(question, "0" * options)]


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
    response.headers.add(
        "Set-Cookie", done_cookie_header(survey.id, current_app.config["SESSION_COOKIE_SECURE"], int(time.time()))
    )
    return response


#: How long a browser keeps the done cookie.
DONE_COOKIE_SECONDS = 365 * 24 * 3600


@lru_cache(maxsize=256)
def done_cookie_header(survey_id: str, secure: bool, second: int) -> str:
    """The ``Set-Cookie`` value of ``survey_id``'s done cookie sent in ``second`` (seconds since the epoch: its
    ``Expires``, which has no finer grain), made once a second rather than on every thank-you page."""
    return dump_cookie(
        done_cookie_name(survey_id),
        "1",
        max_age=DONE_COOKIE_SECONDS,
        expires=second + DONE_COOKIE_SECONDS,
        path=f"/s/{survey_id}",
        secure=secure,
        httponly=True,
        samesite="Lax",
    )
