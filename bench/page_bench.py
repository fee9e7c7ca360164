"""Figure 4: what the respondent's browser loads, and from where.

The survey page is fetched through the Flask test client (the bytes
gunicorn would send); every resource it references (``<link href>``,
``<script src>``, ``<img src>``, ``<iframe src>``, ``<source src>``,
``<object data>``, and ``url(...)``/``@import`` inside its stylesheets) is
collected. Same-origin resources are fetched and their bytes added up; any
URL naming another host (``https://...`` or ``//host/...``) is a
third-party request. Plain links (``<a href>``) load nothing and are not
counted; neither is the form's ``action`` (it is only used on submit, and
is checked to be same-origin too).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from app import create_app

ORIGIN = "http://localhost"
RESOURCE_ATTRIBUTES = {
    "link": "href",
    "script": "src",
    "img": "src",
    "iframe": "src",
    "source": "src",
    "video": "src",
    "audio": "src",
    "embed": "src",
    "object": "data",
    "form": "action",
}
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)|@import\s+['"]([^'"]+)""")


class _ResourceParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs) -> None:
        wanted = RESOURCE_ATTRIBUTES.get(tag)
        for name, value in attrs:
            if name == wanted and value:
                self.urls.append(value)
            if name == "srcset" and value:
                self.urls.extend(part.split()[0] for part in value.split(",") if part.strip())


@dataclass
class PageWeight:
    """Bytes loaded by the page, per URL, and the URLs on other origins."""

    html_bytes: int = 0
    resources: dict[str, int] = field(default_factory=dict)
    third_party: list[str] = field(default_factory=list)

    @property
    def total_bytes(self) -> int:
        return self.html_bytes + sum(self.resources.values())


def _is_third_party(url: str) -> bool:
    """True for a URL on another host (or with another scheme) than the page's."""
    parts = urlsplit(urljoin(ORIGIN + "/", url))
    if parts.scheme == "data":
        return False
    return parts.scheme not in ("http", "https") or parts.netloc != urlsplit(ORIGIN).netloc


def _fetch(client, url: str) -> bytes:
    response = client.get(urlsplit(url).path)
    if response.status_code != 200:
        raise RuntimeError(f"{url} answered {response.status_code}")
    return response.get_data()


def _add_resources(client, urls: list[str], weight: PageWeight) -> None:
    for url in urls:
        absolute = urljoin(ORIGIN + "/", url)
        if url.startswith("data:") or absolute in weight.resources:
            continue
        if _is_third_party(url):
            weight.third_party.append(url)
            continue
        if urlsplit(absolute).path.startswith("/s/"):  # the form's action: posted to, not loaded
            continue
        body = _fetch(client, absolute)
        weight.resources[absolute] = len(body)
        if absolute.endswith(".css"):
            nested = [a or b for a, b in CSS_URL.findall(body.decode("utf-8", "replace"))]
            _add_resources(client, [urljoin(absolute, u) for u in nested], weight)


def measure(database: Path, surveys_dir: Path, survey_id: str) -> PageWeight:
    """Weigh ``/s/<survey_id>`` as a first-time visitor's browser would load it."""
    app = create_app(
        {
            "DATABASE": str(database),
            "SURVEYS_DIR": str(surveys_dir),
            "SECRET_KEY": "bench-secret-key-not-for-production",
            "RATELIMIT_ENABLED": False,
        }
    )
    client = app.test_client()
    html = _fetch(client, f"/s/{survey_id}")
    parser = _ResourceParser()
    parser.feed(html.decode("utf-8"))
    weight = PageWeight(html_bytes=len(html))
    _add_resources(client, parser.urls, weight)
    return weight
