"""Numbers and designs in words: the one home of every percentage, level and epsilon shown.

Pure text: the domain's sentences (:mod:`surveys.results`), the charts
(:mod:`web.charts`) and the templates (registered as filters and globals by
:func:`web.init_app`) all format through these functions, so a share reads
the same on every page.

One formatter, :func:`percent`, with the number of decimals chosen by the
context:

* sentences and chart labels: whole percents, ``"23%"`` (``percent(x)``);
* admin tables: one decimal, ``"23.4%"`` (:func:`table_percent`, the ``pct`` filter);
* design probabilities, attack rates and confidence levels: at most one
  decimal, trailing zeros dropped, ``"25%"``, ``"16.7%"``, ``"99.5%"``
  (:func:`short_percent`).
"""

from __future__ import annotations

import math

from analysis import TWO_COIN, ConfidenceInterval, ForcedResponseDesign
from surveys.definition import Question

#: Shown for a share that does not exist (no answers).
MISSING = "–"
#: Decimals of a share in an admin table.
TABLE_DIGITS = 1


def percent(value: float | None, digits: int = 0, *, trim: bool = False) -> str:
    """``value`` (a share in ``[0, 1]``) as a percentage with ``digits`` decimals.

    ``percent(0.2345) == "23%"``, ``percent(0.2345, 1) == "23.4%"``; with
    ``trim`` the trailing zeros of the decimals go: ``percent(0.25, 1,
    trim=True) == "25%"``. ``None`` gives :data:`MISSING`.
    """
    if value is None:
        return MISSING
    text = f"{value * 100:.{digits}f}"
    if trim and "." in text:
        text = text.rstrip("0").rstrip(".")
    return f"{text}%"


def table_percent(value: float | None, digits: int = TABLE_DIGITS) -> str:
    """A share in an admin table, ``"23.4%"``: the ``pct`` template filter."""
    return percent(value, digits)


def short_percent(value: float) -> str:
    """At most one decimal: ``0.25 -> "25%"``, ``1/6 -> "16.7%"``, ``0.995 -> "99.5%"``.

    For probabilities of a design, attack success rates and confidence levels.
    """
    return percent(value, 1, trim=True)


def epsilon_text(epsilon: float) -> str:
    """``1.0986 -> "1.10"``; an infinite epsilon says that it protects nothing."""
    return "∞ (no protection)" if math.isinf(epsilon) else f"{epsilon:.2f}"


def count_text(count: int, word: str) -> str:
    """``"1 response"``, ``"3 responses"``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def design_sentence(question: Question) -> str:
    """How one question's answer is randomized, in words a respondent follows.

    True on both paths: it says what is stored, not where the coins are
    flipped (on the device with JavaScript, on the server without).
    """
    design = question.design
    if design is None:
        return "Not randomized: stored exactly as you answer."
    if design == TWO_COIN:
        return ("Two coins are flipped in secret. First coin tails: your true answer is stored. "
                "First coin heads: the second coin decides, heads stores “yes”, tails stores “no”.")
    if isinstance(design, ForcedResponseDesign):
        return (f"Your true answer is stored {short_percent(float(design.t))} of the time; otherwise “yes” is "
                f"stored ({short_percent(float(design.a))} of the time) or “no” ({short_percent(float(design.b))}).")
    return (f"Your true answer is stored {short_percent(float(design.t))} of the time; otherwise one of the "
            f"{design.k} options is picked at random.")


def odds_factor_text(epsilon: float) -> str:
    """``e^epsilon``, the most one answer can change anyone's odds: ``ln 3 -> "3"``, ``1 -> "2.72"``."""
    if math.isinf(epsilon):
        return "∞"
    factor = math.exp(epsilon)
    return str(round(factor)) if abs(factor - round(factor)) < 1e-9 else f"{factor:.2f}"


def privacy_sentence(question: Question) -> str:
    """What one randomized answer gives away: the guarantee that holds whatever anyone believed
    before (odds change by at most ``e^epsilon``), then the guessing rate with its prior spelled out."""
    design = question.design
    if design is None:
        return "Not protected: anyone who sees the stored answer sees yours."
    if math.isinf(design.epsilon):
        return "This design gives no such protection: some stored answers reveal the true one."
    k = len(question.choices)
    between = "yes against no" if question.type == "yes_no" else "one option against another"
    prior = "yes and no equally likely" if question.type == "yes_no" else f"all {k} options equally likely"
    return (f"Whatever anyone believed about you before, your stored answer changes their odds of {between} "
            f"by at most a factor of {odds_factor_text(design.epsilon)}. If they thought {prior} for you, "
            f"a guess from your stored answer is right at most {short_percent(design.attack_success_rate)} "
            f"of the time (a blind guess: {short_percent(1 / k)}).")


def yes_no_sentence(question: Question, ci: ConfidenceInterval | None, confidence_level: float) -> str:
    """A yes/no result in one plain sentence: "Between 20% and 31% of respondents would answer yes ..."."""
    quoted = f"\u201c{question.label}\u201d"
    if ci is None:
        return f"No answers to {quoted} yet."
    low, high = percent(ci.low), percent(ci.high)
    share = f"About {low}" if low == high else f"Between {low} and {high}"
    return f"{share} of respondents would answer yes to {quoted} ({short_percent(confidence_level)} confidence)."
