"""Admin pages: sign-in, dashboard, results, exports. Thin glue over
``surveys.results`` and ``surveys.export``, which hold the logic."""

from __future__ import annotations

import functools
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
from analysis.bursts import MIN_BURST_COUNT
from storage import accounts, connection, queries, responses
from surveys import breakdowns, export, results
from surveys.definition import Survey
from web import gather, options
from web.catalog import get_catalog, survey_or_404, survey_state
from web.charts import daily_sparkline_svg, results_chart_svg
from web.db import get_db
from web.limits import (
    clear_signin_failures, hashing_slot, record_signin_failure, refuse_if_over, signin_lock, too_many,
)

bp = Blueprint("admin", __name__, url_prefix="/admin")

#: The admin's session cookie: a random token whose hash names a row of ``admin_sessions``.
ADMIN_COOKIE = "rr_admin"
CONFIDENCE_LEVELS = (0.80, 0.90, 0.95, 0.99)


class LoginForm(FlaskForm):
    name = StringField("Account", validators=[InputRequired(), Length(max=64)])
    password = PasswordField("Password", validators=[InputRequired(), Length(max=1024)])


class ActionForm(FlaskForm):
    """An empty form: a button that posts with a CSRF token."""


def signed_in_admin() -> str | None:
    """The account whose live server-side session the admin cookie names, or None."""
    return accounts.session_account(get_db(), request.cookies.get(ADMIN_COOKIE))


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
    form = LoginForm()
    if request.method == "GET":
        return render_template("admin/login.html", form=form)
    refusal = refuse_if_over("signin", "RATELIMIT_SIGNINS")
    if refusal:
        return refusal
    if not form.validate_on_submit():
        return render_template("admin/login.html", form=form), 400
    name = form.name.data
    locked_for = signin_lock(name)
    if locked_for:
        return too_many(f"Too many failed sign-ins for this account from your network. "
                        f"Try again in {locked_for} seconds.", locked_for)
    with hashing_slot() as held:
        if not held:
            return too_many("Sign-in is busy right now. Please try again in a few seconds.", 2, status=503)
        correct = accounts.sign_in(get_db(), name, form.password.data)
    if not correct:
        record_signin_failure(name)
        flash("Wrong account name or password.")
        return render_template("admin/login.html", form=form), 401
    clear_signin_failures(name)
    return signed_in_response(name, redirect(safe_next(request.args.get("next"))))


def signed_in_response(name: str, response: Response) -> Response:
    """Start a server-side session for ``name`` and set its cookie on ``response``.

    The admin cookie is apart from Flask's session cookie (which holds only
    CSRF tokens, and which a survey form makes last 7 days): it lives as long
    as the browser window, is sent only to /admin, and names a session that
    ends on sign-out, on a new password and with ``admin sign-out-everywhere``.
    """
    session.clear()  # a fresh CSRF session too: nothing from before sign-in survives
    response.set_cookie(
        ADMIN_COOKIE, accounts.start_session(get_db(), name), path="/admin", httponly=True,
        samesite="Strict", secure=current_app.config["SESSION_COOKIE_SECURE"],
    )
    return response


@bp.post("/logout")
def logout():
    accounts.end_session(get_db(), request.cookies.get(ADMIN_COOKIE))
    session.clear()
    response = redirect(url_for("admin.login"))
    response.delete_cookie(ADMIN_COOKIE, path="/admin")
    return response


@bp.get("/")
@admin_required
def dashboard():
    catalog = get_catalog()
    db = get_db()
    rows = [
        {
            "survey": survey,
            "state": survey_state(survey),
            "responses": queries.response_count(db, survey.id),
            "sparkline": daily_sparkline_svg(queries.daily_counts(db, survey.id)),
            "bursts": responses.bursts(db, survey.id),
            "excluded_days": {day for day, _ in responses.excluded_days(db, survey.id)},
        }
        for survey in catalog.surveys.values()
    ]
    return render_template("admin/dashboard.html", rows=rows, problems=catalog.problems, action=ActionForm(),
                           min_burst=MIN_BURST_COUNT)


def posted_day() -> str:
    """The ``day`` of an exclude/include form, checked (CSRF, a YYYY-MM-DD date); else 400."""
    if not ActionForm().validate_on_submit():
        abort(400, description="The form could not be verified; reload the page.")
    day = request.form.get("day", "")
    try:
        return responses.check_day(day)
    except ValueError:
        abort(400, description=f"The day must be a date written YYYY-MM-DD, got “{day[:20]}”.")


@bp.post("/surveys/<survey_id>/excluded-days")
@admin_required
def exclude_day(survey_id: str):
    """Leave one day's responses out of the estimates (they stay stored and exported)."""
    survey = survey_or_404(survey_id)
    day = posted_day()
    count = queries.responses_on_day(get_db(), survey.id, day)
    if count == 0:
        abort(400, description=f"“{survey.title}” has no responses on {day}; there is nothing to exclude.")
    responses.exclude_day(get_db(), survey.id, day)
    flash(f"Left out of the estimates of “{survey.title}”: the {count} response{'s' if count != 1 else ''} "
          f"of {day} (UTC). They stay stored and in the responses export.")
    return redirect(safe_next(request.form.get("next")))


@bp.post("/surveys/<survey_id>/included-days")
@admin_required
def include_day(survey_id: str):
    """Count an excluded day's responses in the estimates again."""
    survey = survey_or_404(survey_id)
    day = posted_day()
    if responses.include_day(get_db(), survey.id, day):
        flash(f"The responses of {day} (UTC) count in the estimates of “{survey.title}” again.")
    else:
        flash(f"{day} was not excluded from the estimates of “{survey.title}”; nothing changed.")
    return redirect(safe_next(request.form.get("next")))


def analysis_options() -> tuple[str, float]:
    """Interval method and confidence level from the query string, validated."""
    method = request.args.get("method", "wilson")
    if method not in INTERVAL_METHODS:
        abort(400, description=f"Unknown interval method “{method[:40]}”; choose one of {', '.join(INTERVAL_METHODS)}.")
    return method, _checked(options.confidence_level, request.args.get("level", "0.95"))


def survey_results(survey: Survey, method: str, level: float):
    return gather.stored_results(get_db(), survey, confidence_level=level, method=method)


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
    return gather.stored_breakdown(get_db(), survey, by, confidence_level=level, method=method)


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
            difference = breakdowns.compare_groups(breakdown, name, pair[0].value, pair[1].value, level)
            out.append({"question": question.question, "first": pair[0], "second": pair[1], "difference": difference})
    return out


def result_n(group, name: str) -> int:
    return next(q.n for q in group.questions if q.question.name == name)


@bp.app_template_filter("kind")
def kind_of(result) -> str:
    """``yes_no``, ``choice`` or ``plain``: which table a result goes in."""
    return {"YesNoResult": "yes_no", "ChoiceResult": "choice", "PlainResult": "plain"}[type(result).__name__]


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
    responses.set_closed(get_db(), survey.id, wanted == "closed")
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
    db = connection.connect(current_app.config["DATABASE"])  # owned by the stream, closed at its end

    def stream():
        try:
            yield from gather.responses_csv(db, survey)
        finally:
            db.close()

    return download(stream_with_context(stream()), "text/csv", f"{survey.id}-responses.csv")


@bp.get("/surveys/<survey_id>/codebook.json")
@admin_required
def codebook_json(survey_id: str):
    survey = survey_or_404(survey_id)
    return current_app.json.response(gather.codebook(get_db(), survey))
