"""The app plus one bench-only route: the framework's ceiling for a write.

``gunicorn "bench.ceiling_app:create_ceiling_app()"`` serves the product app
unchanged, with ``POST /bench/ceiling`` added: a request that goes through
the same server, middleware, security headers and kept connection
(:func:`web.db.get_db`, so the same :func:`storage.connection.connect`
settings: WAL, ``synchronous = FULL``) and inserts one row in one
``BEGIN IMMEDIATE`` transaction, and does nothing else (no form parsing, no
CSRF check, no survey lookup, no template), and ``GET /bench/trivial``, which
answers ``ok`` without touching the database. ``POST /bench/floor`` is the
least any submission must do, to show how far below the ceiling the issue's
own requirements put a submission: the survey looked up, the CSRF token
checked, the fields read as the product reads them, and the answer stored with
its key and kept counts in one transaction (:func:`storage.responses.store_response`),
answered ``ok``; without the open/closed check, the arrival count, the done
cookie and the thank-you page. The product has no such routes.
"""

from __future__ import annotations

from flask import Flask, request

from app import create_app
from storage import connection, responses
from surveys.form_fields import DEVICE_PREFIX
from surveys.submission import noisy_response
from web import csrf
from web.catalog import survey_or_404, today
from web.db import get_db, open_database
from web.forms import SubmissionError, parse_answers
from web.respond import csrf_problem

CEILING_TABLE = "CREATE TABLE IF NOT EXISTS bench_ceiling (id TEXT PRIMARY KEY, body_bytes INTEGER NOT NULL)"
#: How the table ends on SQLite (a clustered key, as ``responses``); PostgreSQL has no such clause.
SQLITE_TABLE_SUFFIX = " WITHOUT ROWID"


def ceiling():
    """Insert one row, answer ``ok``."""
    db = get_db()
    with connection.immediate_transaction(db):
        db.execute(
            "INSERT INTO bench_ceiling (id, body_bytes) VALUES (?, ?)",
            [responses.new_response_id(), request.content_length or 0],
        )
    return "ok"


def floor(survey_id: str):
    """The least a submission does (CSRF, fields, the answer with its key and kept counts), answer ``ok``.

    A refused token or form is answered 400, as the product would refuse it."""
    survey = survey_or_404(survey_id)
    if csrf_problem():
        return "bad token", 400
    try:
        answers, controls = parse_answers(survey, request.form, DEVICE_PREFIX)
    except SubmissionError:
        return "bad form", 400
    response = noisy_response(survey, answers, "device")
    responses.store_response(get_db(), response, controls.submission_key, today().isoformat())
    return "ok"


def trivial():
    """Answer ``ok`` and touch nothing: what a request costs the framework and server alone."""
    return "ok"


def create_ceiling_table(db) -> None:
    """Create the ceiling's table if it is missing. Call it once before starting several workers on one
    PostgreSQL database: concurrent ``CREATE TABLE IF NOT EXISTS`` there can fail on the catalogue's keys."""
    with connection.immediate_transaction(db):
        db.execute(CEILING_TABLE + ("" if connection.is_postgres(db) else SQLITE_TABLE_SUFFIX))


def create_ceiling_app(test_config: dict | None = None) -> Flask:
    """:func:`app.create_app` with ``POST /bench/ceiling`` (CSRF-exempt), ``GET /bench/trivial`` and
    ``POST /bench/floor/<survey_id>`` (its own CSRF check, as the product's) added,
    on whichever database the app uses (``FLASK_DATABASE_URL`` selects PostgreSQL)."""
    app = create_app(test_config)
    db = open_database(app)
    try:
        create_ceiling_table(db)
    finally:
        db.close()
    app.add_url_rule("/bench/ceiling", "bench_ceiling", ceiling, methods=["POST"])
    app.add_url_rule("/bench/trivial", "bench_trivial", trivial, methods=["GET"])
    app.add_url_rule("/bench/floor/<survey_id>", "bench_floor", floor, methods=["POST"])
    csrf.exempt(ceiling)
    csrf.exempt(floor)  # checked in the view, as the product's submit does
    return app
