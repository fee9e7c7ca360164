"""The public start page: the surveys open to anyone (the survey form itself is :mod:`web.respond`) and the result
releases their owners chose to list (:mod:`web.releases`; an unlisted release appears nowhere public)."""

from __future__ import annotations

from flask import Blueprint, render_template

from web import release_data
from web.catalog import get_catalog, survey_state
from web.db import get_db
from web.permissions import public

bp = Blueprint("public", __name__)


@bp.get("/")
@public
def index():
    catalog = get_catalog()
    open_surveys = [
        survey
        for _, survey in sorted(catalog.surveys.items())
        if on_start_page(catalog.standing_of(survey.id))
        and not survey.invitation_only
        and survey_state(survey) == "open"
    ]
    titles = {survey_id: survey.title for survey_id, survey in catalog.surveys.items()}
    results = release_data.listed(get_db(), titles)
    return render_template("index.html", open_surveys=open_surveys, results=results)


def on_start_page(standing) -> bool:
    """Whether a survey of this standing may be listed: live and listed (it must be open too)."""
    return standing.stage == "live" and standing.listed


@bp.get("/favicon.ico")
@public
def favicon():
    """No icon: an empty answer, so browsers' automatic requests leave no 404 in the log."""
    return "", 204
