"""The web layer: thin glue between HTTP and the other layers, wired here (as in flaskr).

One blueprint per area: :mod:`web.public` (the start page), :mod:`web.respond`
(the survey form), :mod:`web.auth` (admin sign-in), :mod:`web.admin` (admin
pages) and :mod:`web.exports` (downloads). Error pages, response headers and
template helpers each have their module; :func:`init_app` registers them all. The
interface's words come from translation catalogues (``translations/``, Flask-Babel), in the
language :func:`web.language.interface_language` chooses.
"""

from __future__ import annotations

from flask import Flask
from flask_babel import Babel
from flask_wtf.csrf import CSRFProtect
from werkzeug.middleware.proxy_fix import ProxyFix

csrf = CSRFProtect()
#: The interface's own words from ``translations/`` (Flask-Babel); the respondent pages choose the language.
babel = Babel()


def init_app(app: Flask) -> None:
    from web import (
        admin,
        api,
        assets,
        auditlog,
        auth,
        cli,
        codes,
        db,
        editor,
        errors,
        exports,
        headers,
        language,
        lifecycle,
        logs,
        notify,
        people,
        public,
        releases,
        respond,
        startup,
        templating,
        tokens,
    )

    csrf.init_app(app)
    babel.init_app(app, locale_selector=language.interface_language)
    db.init_app(app)
    csrf.exempt(respond.submit)  # checked in the view, to recover from expired tokens
    for view in (editor.create_survey, editor.save_survey, editor.append_to_source, editor.preview_text):
        csrf.exempt(view)  # uploads above MAX_CONTENT_LENGTH: the view checks the token after the size (web/editor.py)
    csrf.exempt(people.use_link)  # checked by its form after the link: a used link says so, not “bad token”
    for blueprint in (
        public.bp, respond.bp, auth.bp, admin.bp, editor.bp, exports.bp, lifecycle.bp, people.bp,
        codes.bp, tokens.bp, auditlog.bp, api.bp, releases.bp,
    ):  # fmt: skip
        app.register_blueprint(blueprint)
    notify.init_app(app)
    errors.init_app(app)
    headers.init_app(app)
    templating.init_app(app)
    assets.init_app(app)
    cli.init_app(app)
    logs.init_app(app)
    startup.prepare(app)
    cli.say_when_the_database_is_unavailable(app.cli)
    trust_proxies(app)


def proxy_hops(value: object) -> int:
    """The ``PROXY_FIX`` setting as a number of trusted proxies (``1``, ``"1"``; 0 for none)."""
    hops = value if isinstance(value, int) and not isinstance(value, bool) else None
    if isinstance(value, str) and value.strip().isdigit():
        hops = int(value)
    if hops is None or hops < 0:
        raise ValueError(f"PROXY_FIX must be a number of trusted proxies (0 or more), not {value!r}")
    return hops


def trust_proxies(app: Flask) -> None:
    """Behind ``PROXY_FIX`` trusted proxies, take the client's address, scheme, host and port from the
    X-Forwarded-For/-Proto/-Host/-Port values those proxies added (Werkzeug's ProxyFix); with 0 the
    headers are ignored, as anyone can send them. The address only keys the rate limits, through a
    keyed hash (:mod:`web.limits`); it is never stored with an answer nor logged."""
    hops = proxy_hops(app.config["PROXY_FIX"])
    if hops:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops, x_port=hops)
