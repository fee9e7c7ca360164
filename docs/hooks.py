"""MkDocs hooks: the README is the site's home, and analysis/README.md and bench/README.md are pages of it.

The Markdown files are written to be read on GitHub too, so their links are relative to where each file
sits in the repository (``docs/privacy.md`` from the README, ``../analysis/README.md`` from a page of
``docs/``). Here each such link is rewritten to the page it becomes in the site.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent

#: Markdown files outside ``docs/`` published as pages: repository path -> page of the site.
OUTSIDE = {"README.md": "index.md", "analysis/README.md": "statistics.md", "bench/README.md": "benchmarks.md"}

#: A Markdown link or image target: ``](target)`` or ``](target#anchor)``.
LINK = re.compile(r"\]\((?P<target>[^)\s#]+)(?P<anchor>#[^)\s]*)?\)")


def on_files(files, config):
    """Add the Markdown files outside ``docs/`` as pages."""
    for source, page in OUTSIDE.items():
        files.append(File.generated(config, page, abs_src_path=str(ROOT / source)))
    return files


def repository_path(src_uri: str) -> str:
    """Where the page ``src_uri`` of the site sits in the repository."""
    outside = {page: source for source, page in OUTSIDE.items()}
    return outside.get(src_uri, f"docs/{src_uri}")


def site_path(path: str) -> str | None:
    """The page or file of the site that the repository ``path`` becomes; None if it is not in the site."""
    if path in OUTSIDE:
        return OUTSIDE[path]
    if path.startswith("docs/"):
        return path.removeprefix("docs/")
    return None


def on_page_markdown(markdown, page, config, files):
    """Rewrite the page's relative links from repository paths to site paths."""
    here = repository_path(page.file.src_uri)

    def rewrite(match: re.Match) -> str:
        target = match["target"]
        if "://" in target or target.startswith(("mailto:", "/")):
            return match[0]
        in_site = site_path(posixpath.normpath(posixpath.join(posixpath.dirname(here), target)))
        if in_site is None:
            return match[0]
        relative = posixpath.relpath(in_site, posixpath.dirname(page.file.src_uri) or ".")
        return f"]({relative}{match['anchor'] or ''})"

    return LINK.sub(rewrite, markdown)
