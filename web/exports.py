"""Admin downloads: the estimates and a break-down (JSON, CSV), the noisy responses (CSV, SPSS, Stata, an R
script for the CSV), their codebook (JSON).

Each view parses its options, makes one call into :mod:`web.gather` for the
body and sends it; anonymous requests get a 401, and an account without
the analyst role the 404 of a missing survey (:mod:`web.permissions`).
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, request, stream_with_context

from surveys import export, stats_files
from web import gather, options
from web.catalog import survey_or_404
from web.db import get_db, open_database
from web.errors import parsed_or_400
from web.permissions import survey_access

bp = Blueprint("exports", __name__, url_prefix="/admin")


def download(body, mimetype: str, filename: str) -> Response:
    response = Response(body, mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@bp.get("/surveys/<survey_id>/estimates.json")
@survey_access("analyst")
def estimates_json(survey_id: str):
    survey = survey_or_404(survey_id)
    method, level = parsed_or_400(options.estimate_options, request.args)
    return current_app.json.response(gather.estimates_json(get_db(), survey, method, level))


@bp.get("/surveys/<survey_id>/estimates.csv")
@survey_access("analyst")
def estimates_csv(survey_id: str):
    survey = survey_or_404(survey_id)
    method, level = parsed_or_400(options.estimate_options, request.args)
    return download(gather.estimates_csv(get_db(), survey, method, level), "text/csv", f"{survey.id}-estimates.csv")


@bp.get("/surveys/<survey_id>/breakdown.json")
@survey_access("analyst")
def breakdown_json(survey_id: str):
    survey = survey_or_404(survey_id)
    by, method, level = parsed_or_400(options.breakdown_options, request.args, options.plain_names(survey))
    return current_app.json.response(gather.breakdown_json(get_db(), survey, by, method, level))


@bp.get("/surveys/<survey_id>/breakdown.csv")
@survey_access("analyst")
def breakdown_csv(survey_id: str):
    survey = survey_or_404(survey_id)
    by, method, level = parsed_or_400(options.breakdown_options, request.args, options.plain_names(survey))
    body = gather.breakdown_csv(get_db(), survey, by, method, level)
    return download(body, "text/csv", f"{survey.id}-breakdown-{by}.csv")


@bp.get("/surveys/<survey_id>/responses.csv")
@survey_access("analyst")
def responses_csv(survey_id: str):
    survey = survey_or_404(survey_id)
    db = open_database(current_app)  # owned by the stream, closed at its end

    def stream():
        try:
            yield from gather.responses_csv(db, survey)
        finally:
            db.close()

    return download(stream_with_context(stream()), "text/csv", export.responses_csv_name(survey))


#: Statistics-file formats: extension -> media type.
STATISTICS_FILES = {"sav": "application/x-spss-sav", "dta": "application/x-stata-dta"}


@bp.get("/surveys/<survey_id>/responses.<fmt>")
@survey_access("analyst")
def responses_statistics_file(survey_id: str, fmt: str):
    survey = survey_or_404(survey_id)
    if fmt not in STATISTICS_FILES:
        abort(404)
    body = gather.statistics_file(get_db(), survey, fmt)
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
    survey = survey_or_404(survey_id)
    return current_app.json.response(gather.codebook(get_db(), survey))


@bp.get("/surveys/<survey_id>/model.json")
@survey_access("analyst")
def model_json(survey_id: str):
    survey = survey_or_404(survey_id)
    choice, level = parsed_or_400(options.model_options, request.args, survey)
    return current_app.json.response(gather.model_json(get_db(), survey, choice, level))


@bp.get("/surveys/<survey_id>/model.csv")
@survey_access("analyst")
def model_csv(survey_id: str):
    survey = survey_or_404(survey_id)
    choice, level = parsed_or_400(options.model_options, request.args, survey)
    return download(
        gather.model_csv(get_db(), survey, choice, level), "text/csv", f"{survey.id}-model-{choice.outcome}.csv"
    )
