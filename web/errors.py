"""Error pages: every refusal says what is wrong, as a page with the right status code."""

from __future__ import annotations

import sqlite3

import psycopg
from flask import Flask, abort, render_template
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, SecurityError

#: Seconds a client is asked to wait after a 503 for a busy database.
RETRY_AFTER_BUSY_SECONDS = 5


def parsed_or_400(parse, *args):
    """``parse(*args)``, or a 400 with the parser's ``ValueError`` message, which names the bad text."""
    try:
        return parse(*args)
    except ValueError as error:
        abort(400, description=str(error))


def handle_http_error(error: HTTPException):
    return render_template("error.html", code=error.code, name=error.name, description=error.description), error.code


def handle_untrusted_host(error: SecurityError):
    """A Host header outside ``TRUSTED_HOSTS``: plain text, as no URL can be built for that host."""
    return "Bad Request: this server does not answer to that host name.\n", 400, {"Content-Type": "text/plain"}


def handle_csrf_error(error: CSRFError):
    return render_template(
        "error.html",
        code=400,
        name="The form could not be verified",
        description=f"{error.description} Reload the page and try again.",
    ), 400


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
    return _busy_page()


def _busy_page():
    """503 with ``Retry-After``: the database could not be written in time, nothing was stored."""
    return (
        render_template(
            "error.html",
            code=503,
            name="The database is busy",
            description="It could not be written to in time, so nothing was stored: your answers were not stored. "
            "Wait a few seconds and send the form again; sending it again is safe, "
            "answers are stored only once.",
        ),
        503,
        {"Retry-After": str(RETRY_AFTER_BUSY_SECONDS)},
    )


def unavailable_page():
    """503 with ``Retry-After``: the database cannot be reached at the moment (:mod:`web.startup`)."""
    return (
        render_template(
            "error.html",
            code=503,
            name="The database is unavailable",
            description="The server cannot reach its database right now, so nothing was read or stored. "
            "Wait a few seconds and try again; sending a form again is safe, answers are stored only once.",
        ),
        503,
        {"Retry-After": str(RETRY_AFTER_BUSY_SECONDS)},
    )


def handle_postgres_unavailable(error: psycopg.OperationalError):
    """PostgreSQL lost, restarting, out of pooled connections, or a lock not granted in time
    (``psycopg_pool.PoolTimeout``, ``LockNotAvailable``, a dropped connection and every other
    ``OperationalError``): the same 503 with ``Retry-After`` as SQLite's busy database, never a 500.
    The transaction was not committed (psycopg rolls it back), so nothing was stored."""
    return _busy_page()


def init_app(app: Flask) -> None:
    app.register_error_handler(CSRFError, handle_csrf_error)
    app.register_error_handler(HTTPException, handle_http_error)
    app.register_error_handler(SecurityError, handle_untrusted_host)
    app.register_error_handler(sqlite3.OperationalError, handle_database_error)
    app.register_error_handler(psycopg.OperationalError, handle_postgres_unavailable)
