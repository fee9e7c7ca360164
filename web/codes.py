"""Invitation codes in the browser: an owner makes N codes and downloads them once, as CSV.

The codes exist in plain form only in that download (with each code's link);
only their hashes are stored (:func:`storage.invitation_codes.add_invitation_codes`),
so the page can say how many were made and used, never which. The creation
is written in the audit log (``codes-created``, with the number made).
"""

from __future__ import annotations

from flask import Blueprint, abort, g, render_template, request, url_for

from storage import audit, invitation_codes
from surveys.tables import safe_csv
from web.admin import ActionForm, posted_form
from web.catalog import survey_or_404
from web.db import get_db
from web.exports import download
from web.permissions import survey_access

bp = Blueprint("codes", __name__, url_prefix="/admin")

#: The most codes made at once.
MAX_CODES = 10_000


def wanted_count(text: str) -> int:
    """The number of codes asked for, 1 to :data:`MAX_CODES`; else ValueError naming the text."""
    text = text.strip()
    if not text.isdigit() or not 1 <= int(text) <= MAX_CODES:
        raise ValueError(f"The number of codes must be a whole number from 1 to {MAX_CODES:,}, not “{text[:20]}”.")
    return int(text)


def codes_csv(survey, codes: list[str]) -> str:
    """``code,link`` rows: each code and the survey's link that carries it, every cell spreadsheet-safe
    (:func:`surveys.tables.safe_csv`; a code never starts with a formula character,
    :func:`storage.invitation_codes.new_invitation_code`, so the codes are as a respondent types them)."""
    rows = (
        {"code": code, "link": url_for("respond.show", survey_id=survey.id, code=code, _external=True)}
        for code in codes
    )
    return safe_csv(["code", "link"], rows)


@bp.get("/surveys/<survey_id>/codes")
@survey_access("owner")
def codes_page(survey_id: str):
    survey = survey_or_404(survey_id)
    made, used = invitation_codes.invitation_code_counts(get_db(), survey.id)
    return render_template(
        "admin/codes.html", survey=survey, made=made, used=used, max_codes=MAX_CODES, action=ActionForm()
    )


@bp.post("/surveys/<survey_id>/codes")
@survey_access("owner")
def create_codes(survey_id: str):
    """Make the codes and send them as a CSV download: the only time they are ever shown."""
    survey = survey_or_404(survey_id)
    posted_form()
    if not survey.invitation_only:
        abort(400, description=f"“{survey.title}” takes no invitation codes: its file does not say invitation_only.")
    try:
        count = wanted_count(request.form.get("count", ""))
    except ValueError as error:
        abort(400, description=str(error))
    db = get_db()
    codes = invitation_codes.add_invitation_codes(db, survey.id, count)
    audit.record(db, g.admin, "codes-created", survey.id, f"{count} codes")
    response = download(codes_csv(survey, codes), "text/csv", f"{survey.id}-codes.csv")
    response.headers["Cache-Control"] = "no-store"
    return response
