"""The read-only API: a survey's estimates, break-downs, model, responses CSV and codebook for scripts.

Each request sends one of the survey's API tokens (:mod:`storage.tokens`) as
``Authorization: Bearer <token>`` (:func:`web.permissions.survey_token`); the
bodies are those of the admin downloads (:data:`web.exports.SENDERS`), with
the same options (``?method=``, ``?level=``, ``?by=``, ``?model_outcome=``...).
Refusals are JSON ``{"error": ...}`` with the status: 401 for a missing,
unknown or revoked token, 404 for another survey's token or an unknown file.
"""

from __future__ import annotations

from flask import Blueprint, abort, current_app
from werkzeug.exceptions import HTTPException

from web import exports
from web.catalog import survey_or_404
from web.permissions import survey_token

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.get("/surveys/<survey_id>/<name>")
@survey_token
def survey_file(survey_id: str, name: str):
    """One of :data:`web.exports.SENDERS` for ``survey_id``."""
    sender = exports.SENDERS.get(name)
    if sender is None:
        abort(404, description=f"The API has no file called “{name}”; it has {', '.join(exports.SENDERS)}.")
    return sender(survey_or_404(survey_id))


@bp.errorhandler(HTTPException)
def refusal(error: HTTPException):
    """A refusal as JSON, with how to authenticate on a 401."""
    response = current_app.json.response({"error": error.description})
    response.status_code = error.code or 500
    if error.code == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="rr-survey"'
    return response
