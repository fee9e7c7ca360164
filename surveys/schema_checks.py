"""The checks a survey file's values go through, and the report that collects every problem.

Each check takes the :class:`Report`, where the value sits (question, field) and the value; it returns the
checked value, or :data:`INVALID` after adding a :class:`Problem` that names the bad value. Used by
:mod:`surveys.schema` and its parts (:mod:`surveys.schema_designs`, :mod:`surveys.schema_targets`).
"""

from __future__ import annotations

import contextlib
import difflib
import math
import re
import reprlib
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import date, datetime
from numbers import Real
from urllib.parse import urlsplit

_ISO_DATE_PATTERN = re.compile(r"\d{4}-\d{2}-\d{2}")
_URL_RULE = "an address starting with https:// or http://, or a path on this site starting with /"
YAML_BOOLEAN_HINT = "YAML reads unquoted yes, no, on, off, true and false as true/false; put it in quotes"


@dataclass(frozen=True)
class Problem:
    """One mistake in a survey file.

    ``question`` is the question's name (or ``"#3"`` for the third question
    when it has no usable name) and ``None`` for survey-level problems;
    ``field`` is the key, dotted for nested keys (``"design.t"``), or
    ``None`` when the problem is with the whole file or question.
    """

    file: str
    question: str | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = []
        if self.question is not None:
            shown = self.question if self.question.startswith("#") else repr(self.question)
            where.append(f"question {shown}")
        if self.field is not None:
            where.append(f"field {self.field!r}")
        location = f"{self.file}: {', '.join(where)}" if where else self.file
        return f"{location}: {self.message}"


class SurveyFileError(Exception):
    """A survey file that cannot be loaded; ``.problems`` lists every reason."""

    def __init__(self, problems: list[Problem] | tuple[Problem, ...]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


# -- checking the mapping --------------------------------------------------


class _Invalid:
    """Marks a value that was reported as a problem."""

    def __repr__(self) -> str:
        return "INVALID"


INVALID = _Invalid()


@dataclass
class Report:
    """Collects the problems of one file."""

    file: str
    problems: list[Problem] = dataclass_field(default_factory=list)

    def add(self, question: str | None, field_name: str | None, message: str) -> _Invalid:
        self.problems.append(Problem(self.file, question, field_name, message))
        return INVALID


def _shown_values() -> reprlib.Repr:
    """How a problem shows a value: in full up to 200 characters of text and 10 items a level, so that
    a list of thousands (or what aliases repeat) makes a short message, not a page of it."""
    shown = reprlib.Repr()
    shown.maxstring = shown.maxother = 200
    shown.maxlist = shown.maxtuple = shown.maxdict = shown.maxset = 10
    shown.maxlevel = 4
    return shown


_SHOWN = _shown_values()


def describe(value: object) -> str:
    """``value`` as a researcher would recognise it, with its YAML kind."""
    kinds = {
        bool: "true/false",
        int: "a number",
        float: "a number",
        str: "text",
        list: "a list",
        dict: "a mapping",
        type(None): "nothing",
    }
    kind = next((k for t, k in kinds.items() if type(value) is t), type(value).__name__)
    return kind if value is None else f"{kind} {_SHOWN.repr(value)}"


def check_keys(report, question, prefix, mapping, known) -> None:
    """One problem per key not in ``known``, with a guess at the intended one."""
    for key in mapping:
        if key in known:
            continue
        name = str(key)
        guess = difflib.get_close_matches(name, known, n=1)
        hint = f"did you mean {guess[0]!r}?" if guess else f"the keys allowed here are {', '.join(known)}"
        report.add(question, f"{prefix}{name}", f"unknown key {name!r}; {hint}")


def check_text(report, question, field_name, value, *, required: bool):
    if value is None:
        return report.add(question, field_name, "is required") if required else ""
    if isinstance(value, bool):
        return report.add(question, field_name, f"must be text, got {describe(value)}; {YAML_BOOLEAN_HINT}")
    if not isinstance(value, str):
        return report.add(question, field_name, f"must be text, got {describe(value)}; put it in quotes")
    if required and not value.strip():
        return report.add(question, field_name, "must not be empty")
    return value.strip()


def check_flag(report, question, field_name, value, default: bool):
    if value is None:
        return default
    if not isinstance(value, bool):
        return report.add(question, field_name, f"must be true or false, got {describe(value)}")
    return value


def check_pattern(report, question, field_name, value, pattern, rule: str):
    if value is None:
        return report.add(question, field_name, "is required")
    if not isinstance(value, str) or not pattern.fullmatch(value):
        return report.add(question, field_name, f"must be {rule}, got {describe(value)}")
    return value


def check_positive_int(report, question, field_name, value):
    if value is None:
        return report.add(question, field_name, "is required")
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        message = f"must be a whole number of 1 or more, got {describe(value)}"
        return report.add(question, field_name, message)
    return value


def check_optional_positive_int(report, question, field_name, value):
    """``None`` when absent, else as :func:`check_positive_int`."""
    return None if value is None else check_positive_int(report, question, field_name, value)


def check_number(report, question, field_name, value, *, low: float, high: float, rule: str):
    """A float strictly between ``low`` and ``high``; YAML reads ``1e-6`` as text, so
    numeric text is accepted too."""
    number = None
    if isinstance(value, Real) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        with contextlib.suppress(ValueError):
            number = float(value.strip())
    if number is None or not (math.isfinite(number) and low < number < high):
        return report.add(question, field_name, f"must be {rule}, got {describe(value)}")
    return number


def check_next_url(report, value):
    """The optional link offered after the thank-you page: http(s) or a path of this site."""
    if value is None:
        return ""
    if not isinstance(value, str) or not value.strip():
        return report.add(None, "next_url", f"must be {_URL_RULE}, got {describe(value)}")
    url = value.strip()
    parts = urlsplit(url)
    is_web = parts.scheme in ("http", "https") and bool(parts.netloc)
    is_path = not parts.scheme and not parts.netloc and url.startswith("/") and not url.startswith("//")
    if not (is_web or is_path) or any(ch.isspace() for ch in url):
        return report.add(None, "next_url", f"must be {_URL_RULE}, got {describe(value)}")
    return url


def check_date(report, field_name, value):
    if value is None:
        return None
    if isinstance(value, datetime):
        message = f"must be a date such as 2025-03-01 without a time, got {value!r}"
        return report.add(None, field_name, message)
    if isinstance(value, date):
        return value
    if isinstance(value, str) and _ISO_DATE_PATTERN.fullmatch(value.strip()):
        try:
            return date.fromisoformat(value.strip())
        except ValueError as error:
            return report.add(None, field_name, f"{value!r} is not a valid date ({error})")
    return report.add(None, field_name, f"must be a date written YYYY-MM-DD, got {describe(value)}")
