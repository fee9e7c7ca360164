"""Admin pages: the dashboard, a survey's results page, and the buttons that change a survey.

Each page parses its options (:mod:`web.options`), makes one call into
:mod:`web.gather` for everything it shows and renders; sign-in lives in
:mod:`web.auth`, the downloads in :mod:`web.exports`.
"""

from __future__ import annotations

import dataclasses

from flask import Blueprint, abort, flash, g, redirect, render_template, request
from flask_wtf import FlaskForm

from analysis import INTERVAL_METHODS
from analysis.bursts import MIN_BURST_COUNT
from storage import audit, burst_days, day_exclusions, events, queries, survey_states
from storage import surveys as stored_surveys
from surveys.files import SurveyCatalog
from surveys.form_fields import CARRIED
from surveys.kinds import breakdown_questions
from surveys.models import MAX_PATTERNS, model_outcomes, predictor_levels, predictor_questions
from web import answering, gather, options, paged_views, respond, share
from web.auth import safe_next
from web.catalog import get_catalog, refresh_now, survey_or_404, survey_state, today
from web.charts import breakdown_chart_svg, model_chart_svg, results_chart_svg, timeline_svg
from web.db import get_db
from web.forms import SubmissionError
from web.language import in_respondent_language
from web.permissions import no_such_survey, signed_in, survey_access, visible_survey_ids
from web.thanks import stored_answers_shown

bp = Blueprint("admin", __name__, url_prefix="/admin")

CONFIDENCE_LEVELS = (0.80, 0.90, 0.95, 0.99)


class ActionForm(FlaskForm):
    """An empty form: a button that posts with a CSRF token."""


def fields_of(data) -> dict:
    """A frozen dataclass's fields by name, one level deep (what a template reads)."""
    return {field.name: getattr(data, field.name) for field in dataclasses.fields(data)}


def visible_catalog() -> SurveyCatalog:
    """The catalogue as the signed-in account sees it: only the surveys it holds a role on (every one for
    a site administrator); the problems of broken survey files for site administrators only."""
    catalog = get_catalog()
    seen = visible_survey_ids(catalog.surveys)
    return SurveyCatalog(
        {survey_id: survey for survey_id, survey in sorted(catalog.surveys.items()) if survey_id in seen},
        catalog.problems if g.site_admin else (),
        catalog.files if g.site_admin else (),
        {survey_id: standing for survey_id, standing in catalog.standing.items() if survey_id in seen},
    )


@bp.get("/")
@signed_in
def dashboard():
    catalog = visible_catalog()
    page = gather.dashboard(get_db(), catalog, today())
    links = {row.survey.id: share.public_link(row.survey) for row in page.rows}
    qr_codes = {
        row.survey.id: share.qr_svg(links[row.survey.id]) for row in page.rows if not row.survey.invitation_only
    }
    return render_template(
        "admin/dashboard.html",
        **fields_of(page),
        action=ActionForm(),
        min_burst=MIN_BURST_COUNT,
        links=links,
        qr_codes=qr_codes,
        events=events.recent(get_db(), catalog.surveys),
    )


@bp.get("/surveys/<survey_id>")
@survey_access("viewer")
def survey_page(survey_id: str):
    """The results page; options it cannot take are shown beside their fields, with status 400."""
    survey = survey_or_404(survey_id)
    chosen = options.results_options(request.args, options.plain_names(survey), planned_names(survey), survey)
    page = gather.results_page(get_db(), survey, chosen, today())
    html = render_template(
        "admin/survey.html",
        **fields_of(page),
        **{name: value for name, value in fields_of(chosen).items() if name not in ("problems", "model")},
        typed=request.args,
        chart=results_chart_svg(page.results),
        breakdown_chart=breakdown_chart_svg(page.breakdown) if page.breakdown else None,
        timeline_charts=tuple(timeline_svg(timeline) for timeline in page.timelines),
        model_chart=model_chart_svg(page.model)
        if page.model and page.model.fit and page.model.method == "logistic"
        else None,
        breakdown_questions=breakdown_questions(survey),
        methods=INTERVAL_METHODS,
        levels=CONFIDENCE_LEVELS,
        action=ActionForm(),
        model_choice=chosen.model,
        model_references=[f"{name}:{level}" for name, level in chosen.model.references.items()] if chosen.model else [],
        max_patterns=MAX_PATTERNS,
        model_outcomes=model_outcomes(survey),
        model_predictors=[(q, predictor_levels(q)) for q in predictor_questions(survey)],
    )
    return html, 400 if page.problems else 200


def planned_names(survey) -> list[str]:
    """The questions the planning panel can plan for: the randomized yes/no ones."""
    return [q.name for q in survey.randomized_questions if q.type == "yes_no"]


@bp.get("/surveys/<survey_id>/preview")
@survey_access("viewer")
def preview(survey_id: str):
    """The survey's form exactly as respondents see it, open or not, with a banner; it posts to
    :func:`preview_submit`. In the language chosen (``?lang=``) or the browser's, as a respondent's;
    ``?javascript=off``: the page without its script, as a browser without JavaScript gets it (the
    server randomizes)."""
    survey = in_respondent_language(survey_or_404(survey_id))
    script = request.args.get("javascript") != "off"
    return answering.render_form(survey, preview_state=survey_state(survey), script=script)


@bp.post("/surveys/<survey_id>/preview")
@survey_access("viewer")
def preview_submit(survey_id: str):
    """Check and randomize the previewed answers as a submission would, and show the thank-you
    page; nothing is stored, counted or remembered (no cookie). A survey of several pages goes
    page by page, as the real form does (:func:`web.paged_views.preview_page`)."""
    survey = in_respondent_language(survey_or_404(survey_id))
    if CARRIED in request.form and survey.pages:
        return paged_views.preview_page(survey, survey_state(survey), preview_thanks)
    try:
        noisy, *_ = respond.read_submission(survey)
    except SubmissionError as error:
        return answering.render_refused_form(survey, error, preview_state=survey_state(survey))
    return preview_thanks(survey, noisy)


def preview_thanks(survey, noisy: dict):
    """The preview's thank-you page: the answers as they would be stored, under the banner; nothing stored."""
    shown = stored_answers_shown(survey, noisy)
    return render_template("respond/thanks.html", survey=survey, shown=shown, preview=True)


@bp.get("/surveys/<survey_id>/close")
@survey_access("owner")
def confirm_close(survey_id: str):
    """The step before closing a survey: what closing does, and the button that does it (no script needed)."""
    survey = survey_or_404(survey_id)
    back = safe_next(request.args.get("next"))
    return render_template("admin/confirm_close.html", survey=survey, back=back, action=ActionForm())


def posted_form() -> None:
    """A button's form with a valid CSRF token; else 400."""
    if not ActionForm().validate_on_submit():
        abort(400, description="The form could not be verified; reload the page.")


def posted_day() -> str:
    """The ``day`` of an exclude/include form, checked (CSRF, a YYYY-MM-DD date); else 400."""
    posted_form()
    day = request.form.get("day", "")
    try:
        return day_exclusions.check_day(day)
    except ValueError:
        abort(400, description=f"The day must be a date written YYYY-MM-DD, got “{day[:20]}”.")


@bp.post("/surveys/<survey_id>/excluded-days")
@survey_access("owner")
def exclude_day(survey_id: str):
    """Leave one day's responses out of the estimates (they stay stored and exported)."""
    survey = survey_or_404(survey_id)
    day = posted_day()
    count = queries.responses_on_day(get_db(), survey.id, day)
    if count == 0:
        abort(400, description=f"“{survey.title}” has no responses on {day}; there is nothing to exclude.")
    day_exclusions.exclude_day(get_db(), survey.id, day)
    flash(
        f"Left out of the estimates of “{survey.title}”: the {count} response{'s' if count != 1 else ''} "
        f"of {day} (UTC). They stay stored and in the responses export.",
        "success",
    )
    return redirect(safe_next(request.form.get("next")))


@bp.post("/surveys/<survey_id>/included-days")
@survey_access("owner")
def include_day(survey_id: str):
    """Count an excluded day's responses in the estimates again."""
    survey = survey_or_404(survey_id)
    day = posted_day()
    if day_exclusions.include_day(get_db(), survey.id, day):
        flash(f"The responses of {day} (UTC) count in the estimates of “{survey.title}” again.", "success")
    else:
        flash(f"{day} was not excluded from the estimates of “{survey.title}”; nothing changed.", "info")
    return redirect(safe_next(request.form.get("next")))


@bp.post("/surveys/<survey_id>/set-aside-bursts")
@survey_access("owner")
def set_burst_aside(survey_id: str):
    """Leave the answers marked during one day's burst out of the estimates (they stay stored and exported;
    the day's other answers stay in the estimates)."""
    survey = survey_or_404(survey_id)
    day = posted_day()
    if not burst_days.set_burst_aside(get_db(), survey.id, day, True):
        flash(f"“{survey.title}” has no marked answers of {day} to set aside, or they are set aside already.", "info")
    else:
        flash(
            f"The answers marked during the burst of {day} (UTC) are set aside from the estimates of “{survey.title}”;"
            " the day's other answers still count. They stay stored and in the responses export.",
            "success",
        )
    return redirect(safe_next(request.form.get("next")))


@bp.post("/surveys/<survey_id>/kept-bursts")
@survey_access("owner")
def keep_burst(survey_id: str):
    """Count the answers marked during one day's burst in the estimates again."""
    survey = survey_or_404(survey_id)
    day = posted_day()
    if burst_days.set_burst_aside(get_db(), survey.id, day, False):
        flash(
            f"The answers marked during the burst of {day} (UTC) count in the estimates of “{survey.title}” again.",
            "success",
        )
    else:
        flash(
            f"The marked answers of {day} were not set aside from the estimates of “{survey.title}”; nothing changed.",
            "info",
        )
    return redirect(safe_next(request.form.get("next")))


def stored_record(survey_id: str) -> stored_surveys.SurveyRecord:
    """The survey's stored record (stage, listing, managing file); the 404 of a missing survey if none."""
    record = stored_surveys.survey_record(get_db(), survey_id)
    if record is None:
        no_such_survey(survey_id)
    return record


def open_by_hand(survey, note: audit.Note) -> None:
    """Open ``survey`` (a draft becomes live) with ``note`` in the same transaction; an archived one is refused
    (400): it is unarchived first. The one path of the dashboard's and the survey page's Open buttons."""
    if stored_record(survey.id).stage == "archived":
        abort(400, description=f"“{survey.title}” is archived: unarchive it first.")
    stored_surveys.open_survey(get_db(), survey.id, note=note)
    refresh_now()


def close_by_hand(survey, note: audit.Note) -> None:
    """Close ``survey`` with ``note`` in the same transaction; only a live survey is closed (400 otherwise)."""
    if stored_record(survey.id).stage != "live":
        abort(400, description=f"“{survey.title}” is not live: only a live survey is closed.")
    survey_states.set_closed(get_db(), survey.id, True, note=note)


@bp.post("/surveys/<survey_id>/state")
@survey_access("owner")
def set_state(survey_id: str):
    """Open or close a survey by hand (``state`` = ``open`` or ``closed``)."""
    survey = survey_or_404(survey_id)
    posted_form()
    wanted = request.form.get("state")
    if wanted not in ("open", "closed"):
        abort(400, description="state must be “open” or “closed”.")
    note = audit.Note(g.admin, "survey-state", survey.id, "opened" if wanted == "open" else "closed")
    (open_by_hand if wanted == "open" else close_by_hand)(survey, note)
    flash(f"“{survey.title}” is now {survey_state(survey)}.", "success")
    return redirect(safe_next(request.form.get("next")))
