"""The database made ready as an app process starts, or as soon as it can be reached.

Each gunicorn worker builds the app after the fork (``preload_app = False``)
and then migrates the schema and imports the survey folders
(:func:`web.db.ensure_schema`, :func:`web.catalog.import_on_start`). Gunicorn
starts a new worker whenever one ends, and a worker that raises while it boots
makes the master shut the whole server down ("Worker failed to boot"). So a
worker that started while PostgreSQL restarted (or while SQLite's write lock
was held past its busy timeout) used to take every worker of its server down
with it, and the server stayed down after the database came back
(tests/test_reliability.py::test_a_worker_started_while_postgresql_is_down_answers_503_until_it_is_back).

:func:`prepare` does that work at once when the database answers. When it
cannot be reached or written (:func:`web.errors.database_unavailable`) the process starts all the same and
answers every request with 503 and ``Retry-After`` (static files aside) until
the work succeeds: one request at a time tries it again, at most once every
:data:`RETRY_SECONDS`; the others are answered at once. Any other error (a
failed migration, a bad setting) still stops the process at start.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from time import monotonic

from flask import Flask, current_app, request

from web import catalog, db
from web.errors import database_unavailable, one_line
from web.errors import unavailable_page as _unavailable_page
from web.language import in_visitor_language

#: Seconds between two tries of a start that found the database unavailable.
RETRY_SECONDS = 1.0


@dataclass
class _Pending:
    """The start's database work not done yet: the next moment to try it, and the lock one try holds."""

    next_try: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)


def prepare(app: Flask) -> None:
    """Migrate the database and import the survey folders now; if the database is unavailable, say so in the
    log and finish before the first request that finds it back (:func:`_finish_before_request`)."""
    try:
        _prepare_now(app)
    except Exception as error:
        if not database_unavailable(error):
            raise
        app.logger.warning(
            "The database is unavailable at start; requests answer 503 until it is back: %s",
            one_line(error),
        )
        app.extensions["rr_pending_start"] = _Pending(next_try=monotonic() + RETRY_SECONDS)
        app.before_request(_finish_before_request)


def unavailable_page():
    """:func:`web.errors.unavailable_page` in the visitor's language (``?lang=``, else the browser's): no survey
    can be read to choose it."""
    in_visitor_language()
    return _unavailable_page()


def _prepare_now(app: Flask) -> None:
    db.ensure_schema(app)
    catalog.import_on_start(app)


def _finish_before_request():
    """None once the start's work is done (now or before); else the 503 page. One thread tries at a time, at
    most once every :data:`RETRY_SECONDS`; the others get the page at once rather than wait for it."""
    pending = current_app.extensions.get("rr_pending_start")
    if pending is None or request.endpoint == "static":
        return None
    if not pending.lock.acquire(blocking=False):
        return unavailable_page()
    try:
        if "rr_pending_start" not in current_app.extensions:
            return None  # finished by the thread that held the lock
        if monotonic() < pending.next_try:
            return unavailable_page()
        try:
            _prepare_now(current_app)
        except Exception as error:
            if not database_unavailable(error):
                raise
            pending.next_try = monotonic() + RETRY_SECONDS
            return unavailable_page()
        del current_app.extensions["rr_pending_start"]
        current_app.logger.warning("The database is reachable again; the start's work is done.")
        return None
    finally:
        pending.lock.release()
