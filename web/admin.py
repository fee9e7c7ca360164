"""Admin pages: sign-in, dashboard, results, exports. Thin glue over
``surveys.results`` and ``surveys.export``, which hold the logic."""

from __future__ import annotations

import functools
import time
from datetime import datetime, timezone
from urllib.parse import urlsplit

from flask import (
    Blueprint, Response, abort, current_app, flash, g, redirect, render_template, request,
    session, stream_with_context, url_for,
)
from flask_wtf import FlaskForm
from wtforms import PasswordField, StringField
from wtforms.validators import InputRequired, Length

from analysis import INTERVAL_METHODS
from surveys import accounts, export, results, storage
from surveys.definition import Survey
from web import options
from web.catalog import get_catalog, survey_or_404, survey_state
from web.charts import daily_sparkline_svg, results_chart_svg
from web.db import get_db
from web.limits import refuse_if_over

bp = Blueprint("admin", __name__, url_prefix="/admin")

ADMIN_SESSION_SECONDS = 12 * 3600
CONFIDENCE_LEVELS = (0.80, 0.90, 0.95, 0.99)


class LoginForm(FlaskForm):
    name = StringField("Account", validators=[InputRequired(), Length(max=64)])
    password = PasswordField("Password", validators=[InputRequired(), Length(max=1024)])


class ActionForm(FlaskForm):
    """An empty form: a button that posts with a CSRF token."""


def signed_in_admin() -> str | None:
    name, since = session.get("admin"), session.get("admin_since", 0)
    if name and time.time() - since < ADMIN_SESSION_SECONDS:
        return name
    return None


def admin_required(view):
    """Pages redirect to sign-in; data (exports, POSTs) answer 401."""

    @functools.wraps(view)
    def wrapped(**kwargs):
        g.admin = signed_in_admin()
        if g.admin is None:
            if request.method == "GET" and not request.path.endswith((".csv", ".json")):
                return redirect(url_for("admin.login", next=request.full_path.rstrip("?")))
            abort(401, description="Sign in as an admin to see this.")
        return view(**kwargs)

    return wrapped


def safe_next(target: str | None) -> str:
    """Only same-site paths under /admin, so the sign-in page cannot redirect elsewhere;
    no control characters (a newline in a Location header is an error, not a redirect)."""
    if (target and target.startswith("/admin") and not urlsplit(target).netloc and "\\" not in target
            and target.isprintable()):
        return target
    return url_for("admin.dashboard")


@bp.route("/login", methods=["GET", "POST"])
def login():
    if request.method == "POST":
        refusal = refuse_if_over("signin", "RATELIMIT_SIGNINS")
        if refusal:
            return refusal
    form = LoginForm()
    status = 200
    if form.validate_on_submit():
        outcome = accounts.sign_in(get_db(), form.name.data, form.password.data)
        if outcome.outcome == "ok":
            session.clear()  # a fresh session: nothing from before sign-in survives
            session["admin"], session["admin_since"] = form.name.data, time.time()
            return redirect(safe_next(request.args.get("next")))
        if outcome.outcome == "locked":
            status = 429
            flash(f"Too many failed sign-ins for this account. Try again in {outcome.retry_after} seconds.")
        else:
            status = 401
            flash("Wrong account name or password.")
    elif request.method == "POST":
        status = 400
    response = current_app.make_response((render_template("admin/login.html", form=form), status))
    if status == 429:
        response.headers["Retry-After"] = str(outcome.retry_after)
    return response


@bp.post("/logout")
def logout():
    session.clear()
    return redirect(url_for("admin.login"))


@bp.get("/")
@admin_required
def dashboard():
    catalog = get_catalog()
    db = get_db()
    rows = [
        {
            "survey": survey,
            "state": survey_state(survey),
            "responses": storage.response_count(db, survey.id),
            "sparkline": daily_sparkline_svg(storage.daily_counts(db, survey.id)),
        }
        for survey in catalog.surveys.values()
    ]
    return render_template("admin/dashboard.html", rows=rows, problems=catalog.problems, action=ActionForm())


def analysis_options() -> tuple[str, float]:
    """Interval method and confidence level from the query string, validated."""
    method = request.args.get("method", "wilson")
    if method not in INTERVAL_METHODS:
        abort(400, description=f"Unknown interval method “{method[:40]}”; choose one of {', '.join(INTERVAL_METHODS)}.")
    return method, _checked(options.confidence_level, request.args.get("level", "0.95"))


def survey_results(survey: Survey, method: str, level: float):
    return results.stored_results(get_db(), survey, confidence_level=level, method=method)


def requested_results(survey_id: str):
    """The survey and its results with the method and level the query asks for."""
    survey = survey_or_404(survey_id)
    return survey, survey_results(survey, *analysis_options())


@bp.get("/surveys/<survey_id>")
@admin_required
def survey_page(survey_id: str):
    survey = survey_or_404(survey_id)
    method, level = analysis_options()
    computed = survey_results(survey, method, level)
    by = request.args.get("by")
    breakdown = survey_breakdown(survey, by, method, level) if by else None
    differences = group_differences(breakdown, level) if breakdown else []
    half_width = half_width_option()
    return render_template(
        "admin/survey.html", survey=survey, results=computed, chart=results_chart_svg(computed),
        state=survey_state(survey), method=method, level=level, methods=INTERVAL_METHODS,
        levels=CONFIDENCE_LEVELS, breakdown=breakdown, by=by, differences=differences,
        planning=results.plan(survey, computed.response_count, half_width=half_width, confidence_level=level),
        half_width=half_width, action=ActionForm(),
    )


def half_width_option() -> float:
    return _checked(options.half_width, request.args.get("half_width", "0.05"))


def _checked(parse, text: str) -> float:
    """``parse(text)``, or a 400 with the parser's message naming the text."""
    try:
        return parse(text)
    except ValueError as error:
        abort(400, description=str(error))


def survey_breakdown(survey: Survey, by: str, method: str, level: float):
    plain = {q.name for q in survey.plain_questions}
    if by not in plain:
        abort(400, description=f"“{by[:40]}” is not a non-randomized question of this survey; "
                               f"break-downs are by one of: {', '.join(sorted(plain)) or 'none'}.")
    grouped = storage.group_tallies(get_db(), survey.id, by)
    return results.compute_breakdown(survey, by, grouped, confidence_level=level, method=method)


def group_differences(breakdown, level: float) -> list[dict]:
    """For each yes/no question, the first group minus the second among groups with answers
    (or the two named by ``?first=&second=``)."""
    out = []
    for question in breakdown.groups[0].questions if breakdown.groups else ():
        if kind_of(question) != "yes_no":
            continue
        name = question.question.name
        answered = [g for g in breakdown.groups if g.value is not None and result_n(g, name) > 0]
        chosen = [request.args.get("first"), request.args.get("second")]
        pair = [g for v in chosen for g in answered if g.value == v] if all(chosen) else answered[:2]
        if len(pair) == 2:
            difference = results.compare_groups(breakdown, name, pair[0].value, pair[1].value, level)
            out.append({"question": question.question, "first": pair[0], "second": pair[1], "difference": difference})
    return out


def result_n(group, name: str) -> int:
    return next(q.n for q in group.questions if q.question.name == name)


@bp.app_template_filter("kind")
def kind_of(result) -> str:
    """``yes_no``, ``choice`` or ``plain``: which table a result goes in."""
    return {"YesNoResult": "yes_no", "ChoiceResult": "choice", "PlainResult": "plain"}[type(result).__name__]


@bp.app_template_filter("pct")
def pct(value, digits: int = 1) -> str:
    return "–" if value is None else f"{100 * value:.{digits}f}%"


@bp.post("/surveys/<survey_id>/state")
@admin_required
def set_state(survey_id: str):
    survey = survey_or_404(survey_id)
    form = ActionForm()
    if not form.validate_on_submit():
        abort(400, description="The form could not be verified; reload the page.")
    wanted = request.form.get("state")
    if wanted not in ("open", "closed"):
        abort(400, description="state must be “open” or “closed”.")
    storage.set_closed(get_db(), survey.id, wanted == "closed")
    flash(f"“{survey.title}” is now {survey_state(survey)}.")
    return redirect(safe_next(request.form.get("next")))


def exported_at() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def download(body, mimetype: str, filename: str) -> Response:
    response = Response(body, mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@bp.get("/surveys/<survey_id>/estimates.json")
@admin_required
def estimates_json(survey_id: str):
    _, computed = requested_results(survey_id)
    return current_app.json.response(export.estimates_json(computed, exported_at()))


@bp.get("/surveys/<survey_id>/estimates.csv")
@admin_required
def estimates_csv(survey_id: str):
    survey, computed = requested_results(survey_id)
    return download(export.estimates_csv(computed), "text/csv", f"{survey.id}-estimates.csv")


@bp.get("/surveys/<survey_id>/responses.csv")
@admin_required
def responses_csv(survey_id: str):
    survey = survey_or_404(survey_id)
    db = storage.connect(current_app.config["DATABASE"])  # owned by the stream, closed at its end

    def stream():
        try:
            yield from export.iter_responses_csv(db, survey)
        finally:
            db.close()

    return download(stream_with_context(stream()), "text/csv", f"{survey.id}-responses.csv")


@bp.get("/surveys/<survey_id>/codebook.json")
@admin_required
def codebook_json(survey_id: str):
    survey = survey_or_404(survey_id)
    return current_app.json.response(export.codebook(get_db(), survey))
