"""A submission's request before its answers are read: the body, the CSRF token, the submission key.

A body that is not a form, not UTF-8 or too large is refused with 415, 400
or 413 before anything is parsed (:func:`body_problem`), so that it is never
mistaken for a form with no answers. The CSRF token is checked in the view
(:func:`csrf_problem`), so that a respondent whose own form expired can send
the answers with one more click (:func:`is_own_expired_token`).
"""

from __future__ import annotations

import hmac

from flask import current_app, request, session
from flask_babel import format_number, gettext
from flask_wtf.csrf import validate_csrf
from itsdangerous import BadData, URLSafeTimedSerializer
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.wsgi import LimitedStream
from wtforms.validators import ValidationError

from web.forms import SUBMISSION_KEY

#: The request bodies a survey form is sent as.
FORM_MIMETYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


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


def sent_submission_key() -> str | None:
    """The form's ``submission_key`` when it is one (:data:`web.forms.SUBMISSION_KEY`), else None: only a
    well-formed key is looked up before the form is read."""
    key = request.form.get("submission_key")
    return key if isinstance(key, str) and SUBMISSION_KEY.match(key) else None
