"""The public start page: the surveys open to anyone (the survey form itself is :mod:`web.respond`)."""

from __future__ import annotations

from flask import Blueprint, render_template

from web.catalog import get_catalog, survey_state
from web.permissions import public

bp = Blueprint("public", __name__)


@bp.get("/")
@public
def index():
    catalog = get_catalog()
    open_surveys = [s for s in catalog.surveys.values() if survey_state(s) == "open" and not s.invitation_only]
    return render_template("index.html", open_surveys=open_surveys)


@bp.get("/favicon.ico")
@public
def favicon():
    """No icon: an empty answer, so browsers' automatic requests leave no 404 in the log."""
    return "", 204
