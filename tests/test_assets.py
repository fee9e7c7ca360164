"""Tests of web/assets.py: the script and the stylesheet are served minified, everything else as it is."""

from __future__ import annotations

from pathlib import Path

import pytest
import rcssmin
import rjsmin

pytestmark = pytest.mark.both_backends

STATIC = Path(__file__).resolve().parent.parent / "static"


@pytest.mark.parametrize(("name", "minify"), [("randomize.js", rjsmin.jsmin), ("style.css", rcssmin.cssmin)])
def test_a_script_or_stylesheet_is_served_minified_and_smaller(client, name, minify):
    source = (STATIC / name).read_text(encoding="utf-8")
    response = client.get(f"/static/{name}")
    assert response.status_code == 200
    assert response.get_data(as_text=True) == minify(source)
    assert len(response.get_data()) < 0.9 * len(source.encode("utf-8"))
    assert "/*" in source and "/*" not in response.get_data(as_text=True)  # the comments stay in the source


def test_the_served_script_keeps_the_randomizers_calls(client):
    served = client.get("/static/randomize.js").get_data(as_text=True)
    assert "crypto.getRandomValues" in served and "Math.random" not in served


def test_a_minified_file_answers_304_to_its_etag_and_is_revalidated(client):
    first = client.get("/static/randomize.js")
    assert first.headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert "no-cache" in first.headers["Cache-Control"] and first.headers["ETag"]
    again = client.get("/static/randomize.js", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.get_data() == b""


def test_a_missing_static_file_is_a_404_and_no_path_leaves_the_folder(client):
    assert client.get("/static/no-such-file.js").status_code == 404
    assert client.get("/static/../app.py").status_code == 404
