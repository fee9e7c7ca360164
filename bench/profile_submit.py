"""Where a submission's time goes: the view's steps timed one by one, in process.

The app and survey of figure 1 (with the bench-only ceiling route), on their
own database, without a server. For each of ``requests`` device-path
submissions a fresh request context is pushed and the steps of
:func:`web.respond.submit` are called in the view's order, each timed on its
own (wall clock, no profiler, so C code and system calls such as fsync are
not distorted); the ceiling request is timed the same way right after. The
medians per step are reported, with a few pieces timed alone: the storage
calls against the ceiling's single insert, and the same fields read by
WTForms (the path of a refused form) as a measure of what the plain check saves.

This mirrors the view step by step: if ``web/respond.py`` changes, update
:func:`_submission_steps`.
"""

from __future__ import annotations

import secrets
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from flask import Flask, request
from flask_wtf.csrf import generate_csrf, validate_csrf

from bench.ceiling_app import ceiling, create_ceiling_app
from bench.load import CSRF_INPUT, submission_body
from bench.survey import SURVEY_ID, write_survey
from storage import connection, responses
from surveys.definition import Survey
from surveys.submission import noisy_response
from web import respond
from web.catalog import survey_or_404
from web.db import get_db, open_database
from web.forms import parse_answers, read_with_wtforms, wire_values

WARMUP = 100


@dataclass(frozen=True)
class SubmitProfile:
    """Median milliseconds per step: ``(label, ms)`` for the submission, the ceiling, and pieces alone."""

    submission: list[tuple[str, float]]
    ceiling: list[tuple[str, float]]
    pieces: list[tuple[str, float]]

    @property
    def submission_ms(self) -> float:
        return sum(ms for _, ms in self.submission)

    @property
    def ceiling_ms(self) -> float:
        return sum(ms for _, ms in self.ceiling)


def _app(workdir: Path, database_url: str | None = None) -> tuple[Flask, Survey]:
    """The ceiling app (product app + bench route) on its own database (SQLite, or the empty PostgreSQL
    database at ``database_url``), rate limit off."""
    surveys_dir = workdir / "profile-surveys"
    survey = write_survey(surveys_dir)
    app = create_ceiling_app(
        {
            "DATABASE": str(workdir / "profile.sqlite3"),
            "DATABASE_URL": database_url,
            "SURVEYS_DIR": str(surveys_dir),
            "SECRET_KEY": "bench-secret-key-not-for-production",
            "RATELIMIT_ENABLED": False,
        }
    )
    return app, survey


class _Timer:
    """Collects wall times per label."""

    def __init__(self) -> None:
        self.times: dict[str, list[float]] = defaultdict(list)

    def __call__(self, label: str, function, *args):
        start = time.perf_counter()
        result = function(*args)
        self.times[label].append(time.perf_counter() - start)
        return result

    def medians(self, prefix: str = "") -> list[tuple[str, float]]:
        return [
            (label[len(prefix) :], 1000 * statistics.median(times[WARMUP:] or times))
            for label, times in self.times.items()
            if label.startswith(prefix)
        ]


def _context(app: Flask, path: str, body: str, cookie: str):
    return app.test_request_context(
        path,
        method="POST",
        data=body,
        content_type="application/x-www-form-urlencoded",
        headers={"Cookie": cookie},
    )


def _submission_steps(app: Flask, body: str, cookie: str, step: _Timer) -> None:
    """One submission, step by step as :func:`web.respond.submit` runs it."""
    ctx = _context(app, f"/s/{SURVEY_ID}", body, cookie)
    step("S:push request context (session cookie opened)", ctx.push)
    step("S:parse the form body (werkzeug)", lambda: request.form)
    survey = step("S:survey_or_404 (catalog: scandir + stat)", survey_or_404, SURVEY_ID)
    noisy, on, key, code, arm = step("S:read_submission (plain check of the fields)", respond.read_submission, survey)
    step("S:state_can_wait (validate_csrf, cookie)", respond.state_can_wait, survey, (noisy, on, key, code, arm))
    response = step(
        "S:store_and_thank (the survey's state, key and arrival read with BEGIN, writes, thank page)",
        lambda: respond.store_and_thank(survey, noisy, on, key, code, arm, check_state=True),
    )
    step("S:process_response (headers, session save)", app.process_response, app.make_response(response))
    step("S:pop context (close connection)", ctx.pop)


def _ceiling_steps(app: Flask, body: str, cookie: str, step: _Timer) -> None:
    ctx = _context(app, "/bench/ceiling", body, cookie)
    step("C:push request context (session cookie opened)", ctx.push)
    response = step("C:ceiling view (connect + one insert transaction)", ceiling)
    step("C:process_response (headers)", app.process_response, app.make_response(response))
    step("C:pop context (close connection)", ctx.pop)


def _pieces(app: Flask, survey: Survey, body: str, count: int) -> list[tuple[str, float]]:
    """Storage calls and validation alone, in one request context and one connection."""
    step = _Timer()
    with _context(app, f"/s/{SURVEY_ID}", body, ""):
        token, db = generate_csrf(), get_db()
        noisy, _ = parse_answers(survey, request.form, "rr")
        for _ in range(count):
            step("parse_answers alone (plain check, as served)", parse_answers, survey, request.form, "rr")
            step(
                "the same fields read by WTForms (a refused form's path)", read_with_wtforms, survey, request.form, "rr"
            )
            step("validate_csrf alone", validate_csrf, token)
            step("thank page alone (frame filled + cookie)", respond.thank, survey, noisy)
            step(
                "store_response alone (BEGIN, key, design, response, one upsert per kept-count table, COMMIT)",
                responses.store_response,
                db,
                noisy_response(survey, noisy, "device"),
                secrets.token_urlsafe(18),
                "2026-01-01",
            )
            step("ceiling insert alone (BEGIN, 1 insert, COMMIT)", _ceiling_insert, db)
            step("connection.connect + close alone", lambda: open_database(app).close())
    return step.medians()


def _ceiling_insert(db) -> None:
    with connection.immediate_transaction(db):
        db.execute("INSERT INTO bench_ceiling (id, body_bytes) VALUES (?, ?)", [responses.new_response_id(), 0])


def profile(workdir: Path, requests: int = 1000, database_url: str | None = None) -> SubmitProfile:
    """Time ``requests`` submissions and ceiling posts step by step, then the pieces alone (on PostgreSQL
    when ``database_url`` names an empty database)."""
    app, survey = _app(workdir, database_url)
    client = app.test_client()
    token = CSRF_INPUT.search(client.get(f"/s/{SURVEY_ID}").get_data(as_text=True)).group(1)
    cookie = f"session={client.get_cookie('session').value}"
    questions = {q.name: wire_values(q) for q in survey.questions}  # fixed-width values, as the form posts
    step = _Timer()
    for _ in range(WARMUP + requests):
        body = submission_body(token, questions)
        _submission_steps(app, body, cookie, step)
        _ceiling_steps(app, body, cookie, step)
    pieces = _pieces(app, survey, submission_body(token, questions), WARMUP + requests)
    return SubmitProfile(step.medians("S:"), step.medians("C:"), pieces)
