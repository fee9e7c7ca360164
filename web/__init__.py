"""The web layer: thin glue between HTTP and the other layers, wired here (as in flaskr).

One blueprint per area: :mod:`web.public` (the start page), :mod:`web.respond`
(the survey form), :mod:`web.auth` (admin sign-in), :mod:`web.admin` (admin
pages) and :mod:`web.exports` (downloads). Error pages, response headers and
template helpers each have their module; :func:`init_app` registers them all. The
interface's words come from translation catalogues (``translations/``, Flask-Babel), in the
language :func:`web.respond.interface_language` chooses.
"""

from __future__ import annotations

from flask import Flask
from flask_babel import Babel
from flask_wtf.csrf import CSRFProtect

csrf = CSRFProtect()
#: The interface's own words from ``translations/`` (Flask-Babel); the respondent pages choose the language.
babel = Babel()


def init_app(app: Flask) -> None:
    from web import admin, assets, auth, cli, db, errors, exports, headers, logs, public, respond, templating

    csrf.init_app(app)
    babel.init_app(app, locale_selector=respond.interface_language)
    db.init_app(app)
    csrf.exempt(respond.submit)  # checked in the view, to recover from expired tokens
    for blueprint in (public.bp, respond.bp, auth.bp, admin.bp, exports.bp):
        app.register_blueprint(blueprint)
    errors.init_app(app)
    headers.init_app(app)
    templating.init_app(app)
    assets.init_app(app)
    cli.init_app(app)
    logs.init_app(app)
    db.ensure_schema(app)
