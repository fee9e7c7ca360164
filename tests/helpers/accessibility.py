"""The accessibility check of the browser tests: axe-core, fetched from the npm registry at a pinned version and
checked against the registry's integrity hash, run inside a Playwright page.

The package is not in git: ``make test`` (its ``axe`` step, ``python -m tests.helpers.accessibility``) downloads
the tarball once into ``.cache/`` (git-ignored), and every use checks its hash again, so a cached file changed on
disk is refused rather than run. To move to a new version, change :data:`AXE_VERSION` and :data:`AXE_INTEGRITY`
(``npm view axe-core@<version> dist.integrity``).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import io
import os
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
AXE_VERSION = "4.14.1"
#: The registry's ``dist.integrity`` of the tarball (Subresource Integrity: sha512, base64).
AXE_INTEGRITY = "sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ=="
AXE_TARBALL_URL = f"https://registry.npmjs.org/axe-core/-/axe-core-{AXE_VERSION}.tgz"
AXE_CACHE = ROOT / ".cache" / f"axe-core-{AXE_VERSION}.tgz"
#: The script inside the tarball that defines ``window.axe``.
AXE_SCRIPT = "package/axe.min.js"


class AxeFetchError(RuntimeError):
    """axe-core could not be fetched, or what was fetched is not the pinned tarball."""


def integrity_of(data: bytes) -> str:
    """The Subresource Integrity string (``sha512-<base64>``) of ``data``, as npm writes it."""
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")


def checked(data: bytes, origin: str) -> bytes:
    """``data`` if its integrity is :data:`AXE_INTEGRITY`; else :class:`AxeFetchError` naming ``origin``."""
    found = integrity_of(data)
    if found != AXE_INTEGRITY:
        raise AxeFetchError(f"{origin}: integrity {found}, not the pinned {AXE_INTEGRITY} of axe-core {AXE_VERSION}")
    return data


def fetch_axe(cache: Path = AXE_CACHE) -> Path:
    """The pinned axe-core tarball in ``cache``, downloaded from the npm registry if it is not there yet.

    The download is checked before it is kept, and written under a temporary name then renamed, so parallel
    test workers never read a half-written file."""
    if cache.exists():
        checked(cache.read_bytes(), str(cache))
        return cache
    try:
        response = requests.get(AXE_TARBALL_URL, timeout=120)
        response.raise_for_status()
    except requests.RequestException as error:
        raise AxeFetchError(f"could not download {AXE_TARBALL_URL}: {error}") from error
    data = checked(response.content, AXE_TARBALL_URL)
    cache.parent.mkdir(parents=True, exist_ok=True)
    partial = cache.with_name(f"{cache.name}.{os.getpid()}.part")
    partial.write_bytes(data)
    partial.replace(cache)
    return cache


@functools.cache
def axe_source() -> str:
    """The text of ``axe.min.js`` from the checked tarball (fetched first if it is missing)."""
    data = checked(fetch_axe().read_bytes(), str(AXE_CACHE))
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        return archive.extractfile(AXE_SCRIPT).read().decode("utf-8")


@dataclass(frozen=True)
class Violation:
    """One axe rule a page breaks: the rule's ``id``, its ``impact`` (minor to critical), what it asks
    (``help``, with ``help_url``), and the CSS selector of each element that breaks it (``targets``)."""

    id: str
    impact: str
    help: str
    help_url: str
    targets: tuple[str, ...]

    def describe(self) -> str:
        """One line per element: the rule, its impact, the element and what the rule asks."""
        return "\n".join(f"{self.id} ({self.impact}) at {target}: {self.help}" for target in self.targets)


#: Runs every rule axe enables by default (WCAG 2.x A and AA, and its best practices: landmarks, heading order,
#: one main heading), returning the violations as plain values.
_RUN = """async () => {
    const result = await axe.run(document, {resultTypes: ['violations']});
    return result.violations.map(v => ({
        id: v.id, impact: v.impact || '', help: v.help, help_url: v.helpUrl,
        targets: v.nodes.map(n => n.target.map(t => Array.isArray(t) ? t.join(' >>> ') : t).join(' ')),
    }));
}"""


#: axe's source evaluated with timers of its own: in a context with JavaScript off (``java_script_enabled=False``)
#: the page's timers never fire, and axe waits on ``setTimeout(..., 0)`` between rules. Its own ``setTimeout``
#: runs a callback of delay 0 or 1 ms as a microtask and never one of a longer delay, which axe sets only as
#: deadlines (a frame that does not answer, slow stylesheets) that it clears once the work is done. The page's
#: own ``setTimeout`` is left as it is.
_LOAD = """(function (setTimeout, clearTimeout) {
%s
}).call(window, (callback, delay, ...args) => {
    if (!(delay > 1)) Promise.resolve().then(() => callback(...args));
    return 0;
}, () => {});"""


def axe_violations(page) -> list[Violation]:
    """The axe violations of what ``page`` shows now, with JavaScript on or off. axe is evaluated by Playwright
    rather than added as a script tag, so the app's Content-Security-Policy does not stop it."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(_LOAD % axe_source())
    return [Violation(**{**found, "targets": tuple(found["targets"])}) for found in page.evaluate(_RUN)]


def describe(found: dict[str, list[Violation]]) -> str:
    """Every violation of every page, ``found`` mapping a page's name to its violations; '' if none."""
    return "\n".join(
        f"{name}:\n" + "\n".join("  " + line for v in violations for line in v.describe().splitlines())
        for name, violations in found.items()
        if violations
    )


#: Where the browser tests save their screenshots (git-ignored, kept by CI as an artifact).
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"


@dataclass
class PageChecks:
    """What a browser journey saw: each page it :meth:`check`-ed, saved as a screenshot in ``folder`` and
    checked with axe, and the violations found, by page and width (``found``, for :func:`describe`)."""

    folder: Path = SCREENSHOTS
    found: dict[str, list[Violation]] = field(default_factory=dict)

    def check(self, page, name: str) -> None:
        """Open every ``<details>`` of ``page`` (what they fold is checked too), save the whole page as
        ``<name>-<width>.png`` and record its axe violations; a name checked twice at one width is a mistake
        of the journey."""
        width = page.viewport_size["width"]
        key = f"{name} at {width} px"
        if key in self.found:
            raise ValueError(f"the journey checked {key!r} twice")
        page.locator("details").evaluate_all("folded => folded.forEach(details => { details.open = true; })")
        self.folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(self.folder / f"{name}-{width}.png"), full_page=True)
        self.found[key] = axe_violations(page)


if __name__ == "__main__":  # `make test`'s set-up step: fetch the pinned axe-core once
    print(f"axe-core {AXE_VERSION}: {fetch_axe()}")
