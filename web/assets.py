"""Scripts and stylesheets served minified: what a respondent's phone downloads, without the comments.

``static/randomize.js`` and ``static/style.css`` are kept readable, with the
comments that explain the randomizer; they are minified once, when the app
starts (rjsmin and rcssmin), and served from memory under the same URLs with
an ETag. Every other static file is served by Flask as it is.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import rcssmin
import rjsmin
from flask import Flask, Response, request

MINIFIERS = {".js": (rjsmin.jsmin, "text/javascript"), ".css": (rcssmin.cssmin, "text/css")}


@dataclass(frozen=True)
class Asset:
    """One minified file: its bytes, content type and entity tag."""

    body: bytes
    mimetype: str
    etag: str


def minified_assets(folder: Path) -> dict[str, Asset]:
    """Every ``.js`` and ``.css`` file directly in ``folder``, minified, by file name."""
    assets = {}
    for path in sorted(folder.iterdir()):
        if path.suffix not in MINIFIERS or not path.is_file():
            continue
        minify, mimetype = MINIFIERS[path.suffix]
        body = minify(path.read_text(encoding="utf-8")).encode("utf-8")
        assets[path.name] = Asset(body, mimetype, hashlib.sha256(body).hexdigest()[:32])
    return assets


def init_app(app: Flask) -> None:
    """Serve the minified files in place of Flask's static view for those names."""
    assets = minified_assets(Path(app.static_folder))
    plain = app.view_functions["static"]

    def static(filename: str) -> Response:
        asset = assets.get(filename)
        if asset is None:
            return plain(filename=filename)
        response = Response(asset.body, mimetype=asset.mimetype)
        response.set_etag(asset.etag)
        response.cache_control.no_cache = True  # as Flask's static files: revalidated, so a new version is seen
        return response.make_conditional(request)

    app.view_functions["static"] = static
