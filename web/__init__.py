"""The web layer: thin glue between HTTP and the other layers, wired here (as in flaskr).

One blueprint per area: :mod:`web.public` (the start page), :mod:`web.respond`
(the survey form), :mod:`web.auth` (admin sign-in), :mod:`web.admin` (admin
pages) and :mod:`web.exports` (downloads). Error pages, response headers and
template helpers each have their module; :func:`init_app` registers them all.
"""

from __future__ import annotations

from flask import Flask
from flask_wtf.csrf import CSRFProtect

csrf = CSRFProtect()


def init_app(app: Flask) -> None:
    from web import admin, auth, cli, db, errors, exports, headers, logs, public, respond, templating

    csrf.init_app(app)
    db.init_app(app)
    csrf.exempt(respond.submit)  # checked in the view, to recover from expired tokens
    for blueprint in (public.bp, respond.bp, auth.bp, admin.bp, exports.bp):
        app.register_blueprint(blueprint)
    errors.init_app(app)
    headers.init_app(app)
    templating.init_app(app)
    cli.init_app(app)
    logs.init_app(app)
    db.ensure_schema(app)
