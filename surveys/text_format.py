"""Numbers in words: the one formatter of every percentage, level and count shown (:func:`percent`).

One formatter, :func:`percent`, with the number of decimals chosen by the
context:

* sentences and chart labels: whole percents, ``"23%"`` (``percent(x)``);
* admin tables: one decimal, ``"23.4%"`` (:func:`table_percent`, the ``pct`` filter);
* design probabilities, attack rates and confidence levels: at most one
  decimal, trailing zeros dropped, ``"25%"``, ``"16.7%"``, ``"99.5%"``
  (:func:`short_percent`).

The respondent's pages pass their ``locale`` (``"fr"``, ``"es"``...): the numbers
are then written by Babel (:func:`babel.numbers.format_percent`,
:func:`babel.numbers.format_decimal`) with that locale's own pattern,
``"16,7 %"`` in French; without a locale (the admin pages, the CLI) they are
written as above. :mod:`surveys.wording` re-exports every name here.
"""

from __future__ import annotations

from collections.abc import Callable

from babel import Locale
from babel.numbers import format_decimal, format_percent

from analysis import SurveyEpsilon

#: Translates a sentence (its msgid) before its numbers are put in; the web layer passes Flask-Babel's.
Gettext = Callable[[str], str]


def N_(text: str) -> str:
    """Marks a constant for the catalogues (``pybabel extract``); it is translated where it is used."""
    return text


#: Shown for a share that does not exist (no answers).
MISSING = "–"
#: Decimals of a share in an admin table.
TABLE_DIGITS = 1
#: An interval wider than this (half-width above 25 points) says too little to report an
#: estimate: the sentence says "too few answers to tell" instead. Half the range a share can take.
TOO_WIDE = 0.5
#: The rule as the results page states it.
TOO_WIDE_RULE = "an interval wider than 50 percentage points (± 25)"
#: What the confidence sequence beside each interval is, and which to read when (results page).
SEQUENCE_NOTE = (
    "Anytime-valid sequence: valid however often you look and whenever you stop collecting, so it is wider; "
    "the interval is valid only if this is the only look, at a sample size you fixed in advance."
)


def untranslated(text: str) -> str:
    """The default :data:`Gettext`: English, the catalogues' msgids."""
    return text


def percent(value: float | None, digits: int = 0, *, trim: bool = False, locale: str | None = None) -> str:
    """``value`` (a share in ``[0, 1]``) as a percentage with ``digits`` decimals.

    ``percent(0.2345) == "23%"``, ``percent(0.2345, 1) == "23.4%"``; with
    ``trim`` the trailing zeros of the decimals go: ``percent(0.25, 1,
    trim=True) == "25%"``. ``None`` gives :data:`MISSING`. With ``locale``, in
    that locale's way: ``percent(1/6, 1, trim=True, locale="fr") == "16,7\u00a0%"``.
    """
    if value is None:
        return MISSING
    if locale is not None:
        return local_percent(value, digits, trim, locale)
    text = f"{value * 100:.{digits}f}"
    if trim and "." in text:
        text = text.rstrip("0").rstrip(".")
    return f"{text}%"


def local_percent(value: float, digits: int, trim: bool, locale: str) -> str:
    """:func:`percent` through Babel: the locale's own percent pattern with ``digits`` decimals
    (``#``, dropped when zero, with ``trim``; ``0``, always shown, without)."""
    pattern = Locale.parse(locale).percent_formats[None].pattern
    if digits:
        pattern = pattern.replace("0", "0." + ("#" if trim else "0") * digits, 1)
    return format_percent(value, pattern, locale=locale)


def local_decimal(value: float, digits: int, locale: str | None) -> str:
    """``value`` with exactly ``digits`` decimals, in ``locale``'s way when given (``"2,72"`` in French)."""
    if locale is None:
        return f"{value:.{digits}f}"
    return format_decimal(value, "#,##0." + "0" * digits if digits else "#,##0", locale=locale)


def table_percent(value: float | None, digits: int = TABLE_DIGITS) -> str:
    """A share in an admin table, ``"23.4%"``: the ``pct`` template filter."""
    return percent(value, digits)


def number_text(value: float | None, decimals: int) -> str:
    """A figure in a number question's units (a mean, an interval's end, a standard error) with two decimals more
    than the question's values have: ``number_text(8.075, 1) == "8.075"``, ``number_text(15, 0) == "15.00"``;
    ``None`` gives :data:`MISSING`."""
    if value is None:
        return MISSING
    return f"{value:.{decimals + 2}f}"


def margin_text(half_width: float) -> str:
    """A margin of error in words: ``0.05 -> "plus or minus 5 percentage points"`` (at most one decimal)."""
    return f"plus or minus {percent(half_width, 1, trim=True).removesuffix('%')} percentage points"


def short_percent(value: float, locale: str | None = None) -> str:
    """At most one decimal: ``0.25 -> "25%"``, ``1/6 -> "16.7%"``, ``0.995 -> "99.5%"`` (``"16,7 %"`` in French).

    For probabilities of a design, attack success rates and confidence levels.
    """
    return percent(value, 1, trim=True, locale=locale)


def epsilon_bound_text(epsilon: SurveyEpsilon) -> str:
    """Which composition bound :attr:`analysis.SurveyEpsilon.best` is, in words.

    Both bounds are valid; the page shows the tighter one and names it.
    """
    if epsilon.best == epsilon.basic:
        return "sequential composition, pure ε-differential privacy: the tighter of the two valid bounds"
    return f"advanced composition with δ = {epsilon.delta:g}: the tighter of the two valid bounds"


def count_text(count: int, word: str) -> str:
    """``"1 response"``, ``"3 responses"``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
