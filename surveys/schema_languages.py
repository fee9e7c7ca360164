"""The ``languages`` of a survey file: a text in several languages is a mapping ``{en: ..., fr: ...}``.

:func:`parse_languages` reads the list (the default first); :func:`localize` gives the file's contents in one
language, reporting a text that lacks one. :func:`surveys.schema.parse_survey` checks the file once per language.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from surveys.schema_checks import describe

LANGUAGE_PATTERN = re.compile(r"[a-z]{2,3}(-[A-Z]{2})?")


def parse_languages(report, value) -> tuple[str, ...]:
    """The file's languages (``languages: [en, fr]``, the default first); ``()`` when absent."""
    if value is None:
        return ()
    rule = "a list of at least two language codes such as [en, fr], the default first"
    codes = tuple(str(code) for code in value) if isinstance(value, list) else ()
    bad = any(not LANGUAGE_PATTERN.fullmatch(code) for code in codes) or len(set(codes)) != len(codes)
    if len(codes) < 2 or bad:
        report.add(None, "languages", f"must be {rule} (each once), got {describe(value)}")
        return ()
    return codes


def _is_translated(value, languages) -> bool:
    """A mapping whose keys are all language codes, one at least of the file: one text in several languages."""
    if not isinstance(value, Mapping) or not value:
        return False
    return all(LANGUAGE_PATTERN.fullmatch(str(key)) for key in value) and any(str(key) in languages for key in value)


def localize(report, value, language: str, languages: tuple[str, ...], path: str = ""):
    """``value`` with every ``{en: ..., fr: ...}`` text replaced by its ``language`` text. With
    ``report``, a text that lacks a language is a problem naming where it is."""
    if _is_translated(value, languages):
        missing = [lang for lang in languages if lang not in value]
        unknown = [str(key) for key in value if str(key) not in languages]
        if report is not None and (missing or unknown):
            problem = f"not given in {', '.join(missing)}" if missing else f"in {', '.join(unknown)}, not in languages"
            report.add(None, path or None, f"the text is {problem}; give it in each of {', '.join(languages)}")
        return value.get(language, value.get(languages[0], next(iter(value.values()))))
    if isinstance(value, Mapping):
        return {
            key: localize(report, item, language, languages, f"{path}.{key}".lstrip(".")) for key, item in value.items()
        }
    if isinstance(value, list):
        return [localize(report, item, language, languages, f"{path}[{n}]") for n, item in enumerate(value, start=1)]
    return value
