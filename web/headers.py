"""What every response carries: the security headers, ``no-store`` on pages and exports, and redirects as paths."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from flask import Flask, redirect, request
from werkzeug.routing import RequestRedirect

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


def init_app(app: Flask) -> None:
    app.before_request(redirect_within_site)
    app.after_request(add_security_headers)
