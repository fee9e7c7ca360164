"""Releases in the browser (issue 28): an owner publishes a release, anyone with a viewer's role reads the
ledger, and anyone with the address reads the release.

``/admin/surveys/<survey_id>/releases/new``: the figures to choose and this
release's epsilon; "Show the cost" previews the cost and what would be left
(nothing stored), "Publish" stores the release (a dated snapshot under a random
address, unlisted unless the owner ticks "list it on the start page") or answers 400 with the refusal, storing nothing.
``/r/<token>``, ``/r/<token>.csv`` and ``/r/<token>/print``: the release as
published (read from its stored JSON, never recomputed), its CSV and a print
view. Each view parses, makes one call into :mod:`web.release_data` and renders.
"""

from __future__ import annotations

from fractions import Fraction

from flask import Blueprint, abort, flash, g, redirect, render_template, request, url_for
from flask_babel import gettext

from surveys.releases import ReleaseRefused, release_csv
from web import release_data
from web.admin import ActionForm, posted_form
from web.catalog import survey_or_404, today
from web.db import get_db
from web.exports import download
from web.language import in_visitor_language
from web.permissions import public, survey_access
from web.release_charts import figure_chart_svg

bp = Blueprint("releases", __name__)
#: Every page here (the release, the ledger, the publishing form) is in the visitor's language (``?lang=``, else
#: the browser's); the figures' own texts are stored as published, in English.
bp.before_request(in_visitor_language)

#: The longest epsilon text read from the form.
MAX_EPSILON_CHARS = 20
#: Tells search engines not to list an unlisted release's page.
UNLISTED = {"X-Robots-Tag": "noindex, nofollow"}


def parse_epsilon(text: str) -> Fraction:
    """This release's epsilon as typed (``0.5``, ``1/2``; ``0`` for a release of free figures only, which
    :func:`surveys.releases.plan_release` refuses otherwise): a number of 0 or more; else ValueError naming it."""
    text = text.strip()
    try:
        value = Fraction(text) if text and len(text) <= MAX_EPSILON_CHARS else None
    except (ValueError, ZeroDivisionError):
        value = None
    if value is None or value < 0:
        raise ValueError(
            gettext(
                "This release's epsilon must be a number above 0, such as 0.5 (0 if every figure is free), "
                "not “%(text)s”.",
                text=text[:20],
            )
        )
    return value


def render_form(page: release_data.ReleaseForm, status: int = 200, problem: str | None = None):
    chosen = request.form.getlist("figure") if request.method == "POST" else []
    html = render_template(
        "releases/new.html",
        page=page,
        chosen=chosen,
        listed=request.method == "POST" and request.form.get("listed") == "yes",
        epsilon_text=request.form.get("epsilon", "") if request.method == "POST" else "",
        problem=problem,
        action=ActionForm(),
    )
    return html, status


@bp.get("/admin/surveys/<survey_id>/releases/new")
@survey_access("owner")
def new_release(survey_id: str):
    """The figures a release may include, the budget spent and left, and the answers counted now."""
    survey = survey_or_404(survey_id)
    return render_form(release_data.release_form(get_db(), survey))


@bp.post("/admin/surveys/<survey_id>/releases/new")
@survey_access("owner")
def post_release(survey_id: str):
    """``action=preview``: the cost and what would be left (nothing stored); ``action=publish``: store the
    release and go to the ledger, or 400 with the refusal (nothing stored)."""
    survey = survey_or_404(survey_id)
    posted_form()
    keys = request.form.getlist("figure")
    publishing = request.form.get("action") == "publish"
    try:
        epsilon = parse_epsilon(request.form.get("epsilon", ""))
        if publishing:
            listed = request.form.get("listed") == "yes"
            stored = release_data.publish_release(get_db(), survey, keys, epsilon, g.admin, today(), listed=listed)
        else:
            return render_form(release_data.release_form(get_db(), survey, keys, epsilon))
    except ValueError as error:  # ReleaseRefused is one
        refused = publishing and isinstance(error, ReleaseRefused)
        told = gettext("Not published: %(reason)s", reason=str(error)) if refused else str(error)
        return render_form(release_data.release_form(get_db(), survey), 400, told)
    message = gettext(
        "Release %(number)s of “%(survey)s” is published at its address below.",
        number=stored.number,
        survey=survey.title,
    )
    flash(message, "success")
    return redirect(url_for("releases.ledger", survey_id=survey.id))


@bp.get("/admin/surveys/<survey_id>/releases")
@survey_access("viewer")
def ledger(survey_id: str):
    """Every release of the survey, its figures and cost, the total spent and what is left."""
    survey = survey_or_404(survey_id)
    return render_template("releases/ledger.html", page=release_data.ledger(get_db(), survey))


#: The status of a release stored but unreadable: the address is right, its content cannot be served.
UNREADABLE_STATUS = 410


def published_or_404(token: str):
    """The stored release and its content at ``token``: 404 for an unknown address, 410 with a page saying so
    when its stored text cannot be read (never a 500)."""
    found = release_data.published(get_db(), token)
    if found is None:
        abort(404, description=gettext("There is no release at this address."))
    if found[1] is None:
        abort(
            UNREADABLE_STATUS,
            description=gettext(
                "A release is stored at this address, but its stored text cannot be read, so it cannot be shown. "
                "The survey's owner can see it on the releases page and publish again."
            ),
        )
    return found


def headers_of(stored) -> dict[str, str]:
    """An unlisted release asks search engines not to list it; a listed one is on the start page anyway."""
    return {} if stored.listed else UNLISTED


@bp.get("/r/<token>")
@public
def release_page(token: str):
    """The release as published: its figures with their intervals and notes, charts, what protects the
    respondents; readable on a phone."""
    stored, release = published_or_404(token)
    charts = [figure_chart_svg(figure) for figure in release.figures]
    html = render_template("releases/release.html", stored=stored, release=release, charts=charts, printing=False)
    return html, 200, headers_of(stored)


@bp.get("/r/<token>/print")
@public
def release_print(token: str):
    """The release for a report: the same figures, charts and tables, without the site's header or links."""
    stored, release = published_or_404(token)
    charts = [figure_chart_svg(figure) for figure in release.figures]
    html = render_template("releases/release.html", stored=stored, release=release, charts=charts, printing=True)
    return html, 200, headers_of(stored)


@bp.get("/r/<token>.csv")
@public
def release_csv_file(token: str):
    """Exactly what was published, one row per published row (:func:`surveys.releases.release_csv`)."""
    stored, release = published_or_404(token)
    response = download(release_csv(release), "text/csv", f"release-{stored.survey_id}-{stored.number}.csv")
    response.headers.update(headers_of(stored))
    return response
