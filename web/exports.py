"""Admin downloads: the estimates, a break-down, the models and the correlation of two answers (JSON, CSV),
the noisy responses (CSV, SPSS, Stata, an R script for the CSV), their codebook (JSON).

Each view parses its options, makes one call into :mod:`web.gather` for the
body and sends it; anonymous requests get a 401, and an account without
the analyst role the 404 of a missing survey (:mod:`web.permissions`). The
bodies (``send_*``) are shared with the token API (:mod:`web.api`). Each
download is written in the audit log (who, and which file; never its
contents), and a download of the responses is an event its owners are told
of (:mod:`web.notify`).
"""

from __future__ import annotations

import secrets

from flask import Blueprint, Response, abort, current_app, g, request, stream_with_context

from storage import audit, events
from surveys import export, stats_files
from web import answer_package, gather, notify, options
from web.catalog import survey_or_404
from web.db import get_db, open_database
from web.errors import parsed_or_400
from web.permissions import survey_access

bp = Blueprint("exports", __name__, url_prefix="/admin")


def download(body, mimetype: str, filename: str) -> Response:
    response = Response(body, mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def actor() -> str | None:
    """Who downloads: the signed-in account, or ``token:LABEL`` for an API token."""
    token = getattr(g, "api_token", None)
    return f"token:{token.label}" if token is not None else getattr(g, "admin", None)


def exported(survey, what: str) -> None:
    """Note the download ``what`` of ``survey`` in the audit log; a download of the responses is also an event."""
    db = get_db()
    audit.record(db, actor(), "export", survey.id, what)
    if what.startswith("responses"):
        events.note(db, survey.id, f"export:{secrets.token_hex(8)}", "export", f"{what} by {actor()}")
        notify.after_event(current_app)


def send_estimates_json(survey):
    method, level = parsed_or_400(options.estimate_options, request.args)
    exported(survey, "estimates.json")
    return current_app.json.response(gather.estimates_json(get_db(), survey, method, level))


def send_estimates_csv(survey):
    method, level = parsed_or_400(options.estimate_options, request.args)
    exported(survey, "estimates.csv")
    return download(gather.estimates_csv(get_db(), survey, method, level), "text/csv", f"{survey.id}-estimates.csv")


def send_breakdown_json(survey):
    by, method, level = parsed_or_400(options.breakdown_options, request.args, options.plain_names(survey))
    pair = (request.args.get("first") or None, request.args.get("second") or None)
    body = parsed_or_400(lambda: gather.breakdown_json(get_db(), survey, by, method, level, pair=pair))
    exported(survey, f"breakdown.json by {by}")
    return current_app.json.response(body)


def send_breakdown_csv(survey):
    by, method, level = parsed_or_400(options.breakdown_options, request.args, options.plain_names(survey))
    exported(survey, f"breakdown.csv by {by}")
    body = gather.breakdown_csv(get_db(), survey, by, method, level)
    return download(body, "text/csv", f"{survey.id}-breakdown-{by}.csv")


def send_responses_csv(survey):
    exported(survey, "responses.csv")
    db = open_database(current_app)  # owned by the stream, closed at its end

    def stream():
        try:
            yield from answer_package.responses_csv(db, survey)
        finally:
            db.close()

    return download(stream_with_context(stream()), "text/csv", export.responses_csv_name(survey))


def send_codebook_json(survey):
    exported(survey, "codebook.json")
    return current_app.json.response(answer_package.codebook(get_db(), survey))


def send_model_json(survey):
    choice, level = parsed_or_400(options.model_options, request.args, survey)
    exported(survey, f"model.json of {choice.outcome}")
    return current_app.json.response(gather.model_json(get_db(), survey, choice, level))


def send_model_csv(survey):
    choice, level = parsed_or_400(options.model_options, request.args, survey)
    exported(survey, f"model.csv of {choice.outcome}")
    return download(
        gather.model_csv(get_db(), survey, choice, level), "text/csv", f"{survey.id}-model-{choice.outcome}.csv"
    )


def send_predictor_json(survey):
    choice, level = parsed_or_400(options.predictor_options, request.args, survey)
    exported(survey, f"predictor.json of {choice.predictor} on {choice.outcome}")
    return current_app.json.response(gather.stored_predictor_json(get_db(), survey, choice, level))


def send_predictor_csv(survey):
    choice, level = parsed_or_400(options.predictor_options, request.args, survey)
    exported(survey, f"predictor.csv of {choice.predictor} on {choice.outcome}")
    body = gather.stored_predictor_csv(get_db(), survey, choice, level)
    return download(body, "text/csv", f"{survey.id}-predictor-{choice.predictor}-{choice.outcome}.csv")


def send_correlation_json(survey):
    (first, second), level = parsed_or_400(options.correlation_options, request.args, survey)
    exported(survey, f"correlation.json of {first.name} and {second.name}")
    return current_app.json.response(gather.correlation_json(get_db(), survey, (first, second), level))


def send_correlation_csv(survey):
    (first, second), level = parsed_or_400(options.correlation_options, request.args, survey)
    exported(survey, f"correlation.csv of {first.name} and {second.name}")
    body = gather.correlation_csv(get_db(), survey, (first, second), level)
    return download(body, "text/csv", f"{survey.id}-correlation-{first.name}-{second.name}.csv")


#: The downloads a token may read (:mod:`web.api`), by file name.
SENDERS = {
    "estimates.json": send_estimates_json,
    "estimates.csv": send_estimates_csv,
    "breakdown.json": send_breakdown_json,
    "breakdown.csv": send_breakdown_csv,
    "model.json": send_model_json,
    "model.csv": send_model_csv,
    "predictor.json": send_predictor_json,
    "predictor.csv": send_predictor_csv,
    "correlation.json": send_correlation_json,
    "correlation.csv": send_correlation_csv,
    "responses.csv": send_responses_csv,
    "codebook.json": send_codebook_json,
}


@bp.get("/surveys/<survey_id>/estimates.json")
@survey_access("analyst")
def estimates_json(survey_id: str):
    return send_estimates_json(survey_or_404(survey_id))


@bp.get("/surveys/<survey_id>/design_fit.json")
@survey_access("analyst")
def design_fit_json(survey_id: str):
    """The "How well does the design fit?" checks as JSON (:func:`surveys.design_fit.design_fit_record`)."""
    survey = survey_or_404(survey_id)
    method, level = parsed_or_400(options.estimate_options, request.args)
    exported(survey, "design_fit.json")
    return current_app.json.response(gather.design_fit_json(get_db(), survey, method, level))


@bp.get("/surveys/<survey_id>/estimates.csv")
@survey_access("analyst")
def estimates_csv(survey_id: str):
    return send_estimates_csv(survey_or_404(survey_id))


@bp.get("/surveys/<survey_id>/breakdown.json")
@survey_access("analyst")
def breakdown_json(survey_id: str):
    return send_breakdown_json(survey_or_404(survey_id))


@bp.get("/surveys/<survey_id>/breakdown.csv")
@survey_access("analyst")
def breakdown_csv(survey_id: str):
    return send_breakdown_csv(survey_or_404(survey_id))


@bp.get("/surveys/<survey_id>/responses.csv")
@survey_access("analyst")
def responses_csv(survey_id: str):
    return send_responses_csv(survey_or_404(survey_id))


#: Statistics-file formats: extension -> media type.
STATISTICS_FILES = {"sav": "application/x-spss-sav", "dta": "application/x-stata-dta"}


@bp.get("/surveys/<survey_id>/responses.<fmt>")
@survey_access("analyst")
def responses_statistics_file(survey_id: str, fmt: str):
    survey = survey_or_404(survey_id)
    if fmt not in STATISTICS_FILES:
        abort(404)
    exported(survey, f"responses.{fmt}")
    body = answer_package.statistics_file(get_db(), survey, fmt)
    return download(body, STATISTICS_FILES[fmt], f"{survey.id}-responses.{fmt}")


@bp.get("/surveys/<survey_id>/read-responses.R")
@survey_access("analyst")
def responses_r_script(survey_id: str):
    survey = survey_or_404(survey_id)
    script = stats_files.r_script(survey, export.responses_csv_name(survey))  # reads nothing stored
    return download(script, "text/plain", f"{survey.id}-read-responses.R")


@bp.get("/surveys/<survey_id>/codebook.json")
@survey_access("analyst")
def codebook_json(survey_id: str):
    return send_codebook_json(survey_or_404(survey_id))


@bp.get("/surveys/<survey_id>/model.json")
@survey_access("analyst")
def model_json(survey_id: str):
    return send_model_json(survey_or_404(survey_id))


@bp.get("/surveys/<survey_id>/model.csv")
@survey_access("analyst")
def model_csv(survey_id: str):
    return send_model_csv(survey_or_404(survey_id))


@bp.get("/surveys/<survey_id>/predictor.json")
@survey_access("analyst")
def predictor_json(survey_id: str):
    return send_predictor_json(survey_or_404(survey_id))


@bp.get("/surveys/<survey_id>/predictor.csv")
@survey_access("analyst")
def predictor_csv(survey_id: str):
    return send_predictor_csv(survey_or_404(survey_id))


@bp.get("/surveys/<survey_id>/correlation.json")
@survey_access("analyst")
def correlation_json(survey_id: str):
    return send_correlation_json(survey_or_404(survey_id))


@bp.get("/surveys/<survey_id>/correlation.csv")
@survey_access("analyst")
def correlation_csv(survey_id: str):
    return send_correlation_csv(survey_or_404(survey_id))
