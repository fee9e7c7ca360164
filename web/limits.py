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
