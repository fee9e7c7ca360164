"""Rate limits on submissions and sign-ins, per client address, across workers.

The address is never stored: the bucket is an HMAC of it under the app's
secret key, kept only in the rate-limit file, for at most two windows.
Settings: ``RATELIMIT_ENABLED``, ``RATELIMIT_SUBMISSIONS``,
``RATELIMIT_SIGNINS`` (``COUNT/SECONDS``) and ``RATELIMIT_DATABASE``.
"""

from __future__ import annotations

import hashlib
import hmac
import time

from flask import current_app, g, render_template, request

from surveys import ratelimit


def _connection():
    if "ratelimit_db" not in g:
        g.ratelimit_db = ratelimit.connect(current_app.config["RATELIMIT_DATABASE"])
    return g.ratelimit_db


def close(_exc=None) -> None:
    conn = g.pop("ratelimit_db", None)
    if conn is not None:
        conn.close()


def _bucket(kind: str) -> str:
    key = current_app.config["SECRET_KEY"].encode()
    address = (request.remote_addr or "").encode()
    return f"{kind}:" + hmac.new(key, address, hashlib.sha256).hexdigest()[:24]


def refuse_if_over(kind: str, setting: str):
    """None if allowed; else a 429 page with Retry-After."""
    if not current_app.config["RATELIMIT_ENABLED"]:
        return None
    limit = ratelimit.Limit.parse(current_app.config[setting])
    verdict = ratelimit.hit(_connection(), _bucket(kind), limit, time.time())
    if verdict.allowed:
        return None
    body = render_template(
        "error.html", code=429, name="Too many requests",
        description=f"Too many requests from your network. Please try again in {verdict.retry_after} seconds.",
    )
    return body, 429, {"Retry-After": str(verdict.retry_after)}


def refuse_if_over_survey_limit(survey):
    """None if allowed; else a 429 page with Retry-After, once ``survey`` has taken its
    ``max_responses_per_address_per_hour`` from this address in the clock hour.

    Counted in a bucket of its own per survey (``survey:<id>:<keyed hash>``),
    so one survey's limit never spends another's or the site-wide one.
    """
    most = survey.max_responses_per_address_per_hour
    if most is None or not current_app.config["RATELIMIT_ENABLED"]:
        return None
    verdict = ratelimit.hit(_connection(), _bucket(f"survey:{survey.id}"), ratelimit.Limit(most, 3600), time.time())
    if verdict.allowed:
        return None
    body = render_template(
        "error.html", code=429, name="Too many responses from your network",
        description=f"This survey takes at most {most} responses an hour from one network address, and that many "
                    f"have come from yours. Please try again in {verdict.retry_after} seconds.",
    )
    return body, 429, {"Retry-After": str(verdict.retry_after)}
