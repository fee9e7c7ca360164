"""A release's sentences as the catalogues' messages, so each reader sees them in the page's language.

Part of :mod:`surveys.releases`. A release is a snapshot: its figures are stored, never recomputed. Its titles,
notes and "what protects the respondents" sentences are therefore kept twice: as English text (the CSV, and
releases stored before this module) and as :class:`Words`, a message of the catalogues (its msgid, marked with
``N_`` for ``pybabel extract``) with the values put in it (plain text such as a question's label, a
:class:`Number` written in the reader's locale, or another :class:`Words`). :func:`say` writes either in a
language: the web layer passes Flask-Babel's ``gettext`` and the page's locale, the English text is
``say(words)``. Values are never translated by their own text: a question's label stays the survey's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from surveys.text_format import Gettext, percent, untranslated

#: How a :class:`Number` is written: ``"g3"`` three significant digits (``0.333``), ``"whole"`` an integer,
#: ``"level"`` a percentage with at most one decimal (``95%``), ``"points"`` a share in percentage points with one
#: decimal (``0.176 -> 17.6``).
STYLES = ("g3", "whole", "level", "points")


@dataclass(frozen=True)
class Number:
    """A number put in a sentence, written in the reader's locale (``style``: one of :data:`STYLES`)."""

    value: float
    style: str

    def __post_init__(self) -> None:
        if self.style not in STYLES:
            raise ValueError(f"style must be one of {', '.join(STYLES)}, got style={self.style!r}")

    def text(self, locale: str | None = None) -> str:
        """The number as written in English (``locale`` None) or in ``locale``'s way (its decimal sign)."""
        if self.style == "level":
            return percent(self.value, 1, trim=True, locale=locale)
        if self.style == "whole":
            return str(int(self.value))
        english = f"{self.value:.3g}" if self.style == "g3" else f"{self.value * 100:.1f}"
        if locale is None or locale == "en":
            return english
        from babel.numbers import get_decimal_symbol

        return english.replace(".", get_decimal_symbol(locale))


@dataclass(frozen=True)
class Words:
    """A sentence to translate where it is shown: ``text`` (the msgid, ``%(name)s`` slots) and its ``values``."""

    text: str
    values: tuple[tuple[str, str | Number | Words], ...] = ()


def words(text: str, **values: str | Number | Words) -> Words:
    """``Words(text, values)``, the values sorted by name."""
    return Words(text, tuple(sorted(values.items())))


def say(item: str | Number | Words, gettext: Gettext = untranslated, locale: str | None = None) -> str:
    """``item`` written out: a :class:`Words`' msgid through ``gettext`` with its values written the same way;
    a :class:`Number` in ``locale``'s way; plain text as it is. ``say(item)`` is the English text."""
    if isinstance(item, Number):
        return item.text(locale)
    if isinstance(item, str):
        return item
    values = {name: say(value, gettext, locale) for name, value in item.values}
    return gettext(item.text) % values


def say_each(items: Sequence[Words], gettext: Gettext = untranslated, locale: str | None = None) -> tuple[str, ...]:
    """Each of ``items`` written out (:func:`say`)."""
    return tuple(say(item, gettext, locale) for item in items)


def to_data(item: str | Number | Words):
    """``item`` as JSON values: text as it is, ``{"value", "style"}`` for a number, ``{"text", "values"}``."""
    if isinstance(item, Number):
        return {"value": item.value, "style": item.style}
    if isinstance(item, str):
        return item
    return {"text": item.text, "values": [[name, to_data(value)] for name, value in item.values]}


def from_data(data) -> str | Number | Words:
    """What :func:`to_data` wrote; ValueError for anything else."""
    if isinstance(data, str):
        return data
    if isinstance(data, dict) and set(data) == {"value", "style"}:
        return Number(float(data["value"]), str(data["style"]))
    if isinstance(data, dict) and set(data) == {"text", "values"} and isinstance(data["text"], str):
        return Words(data["text"], tuple((str(name), from_data(value)) for name, value in data["values"]))
    raise ValueError(f"not a release's words: {str(data)[:80]!r}")


def words_from_data(data) -> Words:
    """A :class:`Words` that :func:`to_data` wrote; ValueError for anything else."""
    found = from_data(data)
    if not isinstance(found, Words):
        raise ValueError(f"not a release's sentence: {str(data)[:80]!r}")
    return found
