"""API tokens in the browser: an owner makes, lists and revokes a survey's read-only tokens (:mod:`web.api`).

A new token is shown once, on the page that answers its creation; only its
hash is stored (:mod:`storage.tokens`). Creating and revoking are written in
the audit log (with the label, never the token).
"""

from __future__ import annotations

from flask import Blueprint, abort, flash, g, redirect, render_template, request, url_for

from storage import audit, tokens
from web.admin import ActionForm, posted_form
from web.catalog import survey_or_404
from web.db import get_db
from web.permissions import survey_access

bp = Blueprint("tokens", __name__, url_prefix="/admin")


def render_tokens(survey, new_token: str | None = None, status: int = 200):
    page = render_template(
        "admin/tokens.html",
        survey=survey,
        tokens=tokens.of_survey(get_db(), survey.id),
        new_token=new_token,
        max_label=tokens.MAX_LABEL,
        action=ActionForm(),
    )
    return page, status, {"Cache-Control": "no-store"}


@bp.get("/surveys/<survey_id>/tokens")
@survey_access("owner")
def tokens_page(survey_id: str):
    return render_tokens(survey_or_404(survey_id))


@bp.post("/surveys/<survey_id>/tokens")
@survey_access("owner")
def create_token(survey_id: str):
    """Make a token and show it, once."""
    survey = survey_or_404(survey_id)
    posted_form()
    try:
        token = tokens.create(get_db(), survey.id, request.form.get("label", ""), g.admin)
    except ValueError as error:
        abort(400, description=f"{str(error)[0].upper()}{str(error)[1:]}.")
    audit.record(get_db(), g.admin, "token-created", survey.id, f"label {request.form['label'].strip()!r}")
    return render_tokens(survey, new_token=token)


@bp.post("/surveys/<survey_id>/tokens/<token_id>/revoke")
@survey_access("owner")
def revoke_token(survey_id: str, token_id: str):
    survey = survey_or_404(survey_id)
    posted_form()
    revoked = tokens.revoke(get_db(), survey.id, token_id)
    if revoked is None:
        abort(404, description="This survey has no such live token; it may have been revoked already.")
    audit.record(get_db(), g.admin, "token-revoked", survey.id, f"label {revoked.label!r}")
    flash(f"The token “{revoked.label}” is revoked: scripts using it now get a 401.", "success")
    return redirect(url_for("tokens.tokens_page", survey_id=survey.id))
