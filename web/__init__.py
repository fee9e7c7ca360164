"""The web layer: thin glue between HTTP and the pure packages."""

from __future__ import annotations

import sqlite3
from urllib.parse import urlsplit, urlunsplit

from flask import Blueprint, Flask, redirect, render_template, request
from flask_wtf.csrf import CSRFError, CSRFProtect
from werkzeug.exceptions import HTTPException, SecurityError
from werkzeug.routing import RequestRedirect

from web import cli, db, logs
from web.catalog import get_catalog, survey_state

csrf = CSRFProtect()
main = Blueprint("main", __name__)

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
}


@main.get("/")
def index():
    catalog = get_catalog()
    open_surveys = [s for s in catalog.surveys.values() if survey_state(s) == "open" and not s.invitation_only]
    return render_template("index.html", open_surveys=open_surveys)


def add_security_headers(response):
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    if request.endpoint != "static":  # respondent and admin pages, exports
        response.headers["Cache-Control"] = "no-store"
    return response


def redirect_within_site():
    """Werkzeug's own redirects (``/admin`` -> ``/admin/``, ``//`` -> ``/``) name the request's
    Host; send them as a path instead, so a forged Host header never comes back (the app's own
    redirects are paths already)."""
    error = request.routing_exception
    if isinstance(error, RequestRedirect):
        target = urlsplit(error.new_url)
        return redirect(urlunsplit(("", "", target.path or "/", target.query, "")), error.code)
    return None


def handle_http_error(error: HTTPException):
    return render_template("error.html", code=error.code, name=error.name, description=error.description), error.code


def handle_untrusted_host(error: SecurityError):
    """A Host header outside ``TRUSTED_HOSTS``: plain text, as no URL can be built for that host."""
    return "Bad Request: this server does not answer to that host name.\n", 400, {"Content-Type": "text/plain"}


def handle_csrf_error(error: CSRFError):
    return render_template(
        "error.html", code=400, name="The form could not be verified",
        description=f"{error.description} Reload the page and try again.",
    ), 400


#: Seconds a client is asked to wait after a 503 for a busy database.
RETRY_AFTER_BUSY_SECONDS = 5


def is_database_busy(error: sqlite3.OperationalError) -> bool:
    """SQLite gave up waiting for a lock (after the busy timeout)."""
    message = str(error).lower()
    return "database is locked" in message or "database is busy" in message or "database table is locked" in message


def handle_database_error(error: sqlite3.OperationalError):
    """A write that waited the whole busy timeout: 503 with ``Retry-After``, nothing stored.

    The transaction was never committed, and the form's submission key makes
    sending it again safe (stored once). Any other database error stays a 500.
    """
    if not is_database_busy(error):
        raise error
    return render_template(
        "error.html", code=503, name="The database is busy",
        description="It could not be written to in time, so nothing was stored: your answers were not stored. "
                    "Wait a few seconds and send the form again; sending it again is safe, "
                    "answers are stored only once.",
    ), 503, {"Retry-After": str(RETRY_AFTER_BUSY_SECONDS)}


def init_app(app: Flask) -> None:
    from surveys import wording
    from surveys.design_contract import question_design_key
    from web import admin, limits, respond

    csrf.init_app(app)
    db.init_app(app)
    app.teardown_appcontext(limits.close)
    csrf.exempt(respond.submit)  # checked in the view, to recover from expired tokens
    app.register_blueprint(main)
    app.register_blueprint(respond.bp)
    app.register_blueprint(admin.bp)
    app.register_error_handler(CSRFError, handle_csrf_error)
    app.register_error_handler(HTTPException, handle_http_error)
    app.register_error_handler(SecurityError, handle_untrusted_host)
    app.register_error_handler(sqlite3.OperationalError, handle_database_error)
    app.before_request(redirect_within_site)
    app.after_request(add_security_headers)
    app.jinja_env.globals.update(
        design_sentence=wording.design_sentence, percent=wording.short_percent,
        epsilon_text=wording.epsilon_text, design_key=question_design_key,
        wording=wording,
    )
    app.add_template_filter(wording.table_percent, "pct")
    cli.init_app(app)
    logs.init_app(app)
    db.ensure_schema(app)
