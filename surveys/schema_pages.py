"""Several pages: a ``{type: page_break}`` entry among a survey file's questions starts a new page."""

from __future__ import annotations

from collections.abc import Mapping

from surveys.schema_checks import check_keys

#: The entry of ``questions`` that starts a new page; its only other key is an optional ``label`` (not shown yet).
PAGE_BREAK = "page_break"


def is_page_break(entry) -> bool:
    """Whether an entry of ``questions`` is a page break rather than a question."""
    return isinstance(entry, Mapping) and entry.get("type") == PAGE_BREAK


def parse_pages(report, value, questions) -> tuple[tuple[str, ...], ...]:
    """The question names of each page, split at ``{type: page_break}`` entries; ``()`` without any.

    A break must stand between two questions: first, last or twice in a row it would make an empty page.
    """
    if not isinstance(value, list) or not any(is_page_break(entry) for entry in value):
        return ()
    valid = {q.name for q in questions} if isinstance(questions, tuple) else set()
    pages: list[list[str]] = [[]]
    for position, entry in enumerate(value, start=1):
        if not is_page_break(entry):
            name = entry.get("name") if isinstance(entry, Mapping) else None
            pages[-1].append(name if name in valid else None)
            continue
        check_keys(report, f"#{position}", "", entry, ("type",))
        if not pages[-1] or position == len(value):
            report.add(f"#{position}", "type", "a page_break must stand between two questions (no empty page)")
        pages.append([])
    return tuple(tuple(name for name in page if name) for page in pages if page)
