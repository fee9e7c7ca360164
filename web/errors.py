"""Error pages: every refusal says what is wrong, as a page with the right status code."""

from __future__ import annotations

import sqlite3

import psycopg
from flask import Flask, abort, current_app, render_template, request
from flask_babel import gettext
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, SecurityError

from web.language import N_, in_visitor_language, language_chosen

#: Seconds a client is asked to wait after a 503 for a busy database.
RETRY_AFTER_BUSY_SECONDS = 5


def parsed_or_400(parse, *args):
    """``parse(*args)``, or a 400 with the parser's ``ValueError`` message, which names the bad text."""
    try:
        return parse(*args)
    except ValueError as error:
        abort(400, description=str(error))


#: The statuses' names as the error page shows them, in the reader's language (werkzeug's own are English).
STATUS_NAMES = {
    400: N_("Bad request"),
    403: N_("Forbidden"),
    404: N_("Not found"),
    405: N_("Method not allowed"),
    409: N_("Conflict"),
    410: N_("Gone"),
    413: N_("Request too large"),
    429: N_("Too many requests"),
    500: N_("Internal server error"),
    503: N_("Service unavailable"),
}
#: What a status means when whoever raised it said nothing more (werkzeug's default description, which is
#: English): the same sense in the reader's language.
STATUS_DESCRIPTIONS = {
    400: N_("The server could not understand the request."),
    403: N_("You do not have the permission to open this page."),
    404: N_("There is no page at this address. If you typed it, please check it."),
    405: N_("This page cannot be reached that way."),
    500: N_("The server met an unexpected error and could not finish the request."),
}
#: Where the pages are in English only (the researchers' and administrators' areas), whatever the browser says.
ENGLISH_ONLY_PATHS = ("/admin", "/api")


def handle_http_error(error: HTTPException):
    """The error page of ``error``, in the reader's language: the respondent's or the visitor's where a page
    chose it, else (a survey that does not exist, an address with no page) the browser's among the interface
    languages; English in the researchers' areas (:data:`ENGLISH_ONLY_PATHS`). A description given by whoever
    raised the error is theirs to translate; werkzeug's default one is replaced by :data:`STATUS_DESCRIPTIONS`'s."""
    if not language_chosen() and not request.path.startswith(ENGLISH_ONLY_PATHS):
        in_visitor_language()
    name = gettext(STATUS_NAMES[error.code]) if error.code in STATUS_NAMES else error.name
    description = error.description
    if description == type(error).description and error.code in STATUS_DESCRIPTIONS:
        description = gettext(STATUS_DESCRIPTIONS[error.code])
    return render_template("error.html", code=error.code, name=name, description=description), error.code


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


#: SQLite's result codes (and the prefixes of their extended codes) for a disk it cannot write: full,
#: failing, read-only (a file system remounted read-only after errors, a file's mode changed), or a file it
#: cannot open.
STORAGE_FAILURES = ("SQLITE_FULL", "SQLITE_IOERR", "SQLITE_READONLY", "SQLITE_CANTOPEN")


def is_storage_failing(error: sqlite3.OperationalError) -> bool:
    """SQLite could not write to its disk (:data:`STORAGE_FAILURES`: "database or disk is full", "disk I/O
    error", "attempt to write a readonly database", "unable to open database file")."""
    name = getattr(error, "sqlite_errorname", "") or ""
    return name.startswith(STORAGE_FAILURES)


def handle_database_error(error: sqlite3.OperationalError):
    """A write that waited the whole busy timeout: 503 with ``Retry-After``, nothing stored; a disk that is
    full or failing: 503 too, and the reason in the log for the administrators
    (tests/test_errors.py::test_a_full_disk_gives_503_stores_nothing_and_logs_why_and_the_resend_is_stored_once).

    The transaction was never committed, and the form's submission key makes
    sending it again safe (stored once). Any other database error stays a 500.
    """
    if is_database_busy(error):
        return _busy_page()
    if is_storage_failing(error):
        return storage_failing(error)
    raise error


def storage_failing(error: Exception):
    """The 503 of a database that cannot be written (:func:`_storage_failing_page`), its reason in the log at
    ``ERROR`` for the administrators (no traceback: the code is not at fault). Also the handler of a
    PostgreSQL server that takes no writes (``ReadOnlySqlTransaction``: a standby the connection reached after
    a failover, or ``default_transaction_read_only``), otherwise a 500
    (tests/test_postgres_servers.py::test_a_read_only_postgresql_gives_503_with_the_reason_logged_and_stores_nothing)."""
    current_app.logger.error("The database could not be written, nothing was stored: %s", one_line(error))
    return _storage_failing_page()


def one_line(error: BaseException) -> str:
    """``error``'s message on one line (psycopg's span several), for a log line or a command's error."""
    return " ".join(str(error).split())


def database_unavailable(error: BaseException) -> bool:
    """Whether ``error`` says the database cannot be reached or written right now, rather than that the work
    is wrong: any of psycopg's ``OperationalError`` (refused, starting up, in recovery, timed out; a wrong
    database name or password too, which reach the client with no code to tell them apart: the message gives
    the server's reason), a PostgreSQL that takes no writes (a standby), SQLite's lock held past the busy
    timeout, or a disk SQLite cannot write (:func:`is_storage_failing`). What :mod:`web.startup` waits out and
    the command line reports in one line."""
    if isinstance(error, (psycopg.OperationalError, psycopg.errors.ReadOnlySqlTransaction)):
        return True
    return isinstance(error, sqlite3.OperationalError) and (is_database_busy(error) or is_storage_failing(error))


#: Seconds a client is asked to wait after a 503 for a full or failing disk (not a moment's wait).
RETRY_AFTER_STORAGE_SECONDS = 60


def _storage_failing_page():
    """503 with ``Retry-After``: the database's disk is full or failing, nothing was stored."""
    return _database_page(
        gettext("Answers cannot be stored right now"),
        gettext(
            "The server could not write to its storage, so nothing was stored: your answers were not stored. The "
            "site's administrators can see why in the server's log. Try again later; sending the form again is "
            "safe, answers are stored only once."
        ),
        RETRY_AFTER_STORAGE_SECONDS,
    )


def _busy_page():
    """503 with ``Retry-After``: the database could not be written in time, nothing was stored."""
    return _database_page(
        gettext("The database is busy"),
        gettext(
            "It could not be written to in time, so nothing was stored: your answers were not stored. Wait a few "
            "seconds and send the form again; sending it again is safe, answers are stored only once."
        ),
        RETRY_AFTER_BUSY_SECONDS,
    )


def _database_page(name: str, description: str, retry_after: int):
    """A 503 for the database's trouble: its title and sentence (in the reader's interface language), and how
    many seconds to wait (``Retry-After``)."""
    return (
        render_template("error.html", code=503, name=name, description=description),
        503,
        {"Retry-After": str(retry_after)},
    )


def unavailable_page():
    """503 with ``Retry-After``: the database cannot be used at the moment, not reached or not written, as the
    process started (:mod:`web.startup`)."""
    return _database_page(
        gettext("The database is unavailable"),
        gettext(
            "The server cannot use its database right now (it cannot reach it or cannot write to it), so nothing "
            "was read or stored. Wait a few seconds and try again; sending a form again is safe, answers are "
            "stored only once."
        ),
        RETRY_AFTER_BUSY_SECONDS,
    )


#: PostgreSQL's SQLSTATEs for a server that cannot write to its disk: ``disk_full``, ``io_error``.
POSTGRES_STORAGE_FAILURES = ("53100", "58030")


def handle_postgres_unavailable(error: psycopg.OperationalError):
    """PostgreSQL lost, restarting, out of pooled connections, or a lock not granted in time
    (``psycopg_pool.PoolTimeout``, ``LockNotAvailable``, a dropped connection and every other
    ``OperationalError``): the same 503 with ``Retry-After`` as SQLite's busy database, never a 500;
    its disk full or failing (:data:`POSTGRES_STORAGE_FAILURES`): the 503 of a disk that cannot be written
    (:func:`storage_failing`). The transaction was not committed (psycopg rolls it back), so nothing was
    stored."""
    if error.sqlstate in POSTGRES_STORAGE_FAILURES:
        return storage_failing(error)
    return _busy_page()


def init_app(app: Flask) -> None:
    app.register_error_handler(CSRFError, handle_csrf_error)
    app.register_error_handler(HTTPException, handle_http_error)
    app.register_error_handler(SecurityError, handle_untrusted_host)
    app.register_error_handler(sqlite3.OperationalError, handle_database_error)
    app.register_error_handler(psycopg.OperationalError, handle_postgres_unavailable)
    app.register_error_handler(psycopg.errors.ReadOnlySqlTransaction, storage_failing)
