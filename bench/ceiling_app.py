"""The app plus one bench-only route: the framework's ceiling for a write.

``gunicorn "bench.ceiling_app:create_ceiling_app()"`` serves the product app
unchanged, with ``POST /bench/ceiling`` added: a request that goes through
the same server, middleware, security headers and kept connection
(:func:`web.db.get_db`, so the same :func:`storage.connection.connect`
settings: WAL, ``synchronous = FULL``) and inserts one row in one
``BEGIN IMMEDIATE`` transaction, and does nothing else (no form parsing, no
CSRF check, no survey lookup, no template). The product has no such route.
"""

from __future__ import annotations

from flask import Flask, request

from app import create_app
from storage import connection, responses
from web import csrf
from web.db import get_db

CEILING_TABLE = (
    "CREATE TABLE IF NOT EXISTS bench_ceiling (id TEXT PRIMARY KEY, body_bytes INTEGER NOT NULL) WITHOUT ROWID"
)


def ceiling():
    """Insert one row, answer ``ok``."""
    db = get_db()
    with connection.immediate_transaction(db):
        db.execute(
            "INSERT INTO bench_ceiling (id, body_bytes) VALUES (?, ?)",
            [responses.new_response_id(), request.content_length or 0],
        )
    return "ok"


def create_ceiling_app(test_config: dict | None = None) -> Flask:
    """:func:`app.create_app` with ``POST /bench/ceiling`` (CSRF-exempt) added."""
    app = create_app(test_config)
    db = connection.connect(app.config["DATABASE"])
    try:
        with connection.immediate_transaction(db):
            db.execute(CEILING_TABLE)
    finally:
        db.close()
    app.add_url_rule("/bench/ceiling", "bench_ceiling", ceiling, methods=["POST"])
    csrf.exempt(ceiling)
    return app
