"""Plain-language sentences about designs and privacy, for respondents and admins."""

from __future__ import annotations

import math

from analysis.design import TWO_COIN, ForcedResponseDesign
from surveys.definition import Question


def percent(value: float) -> str:
    """``0.25 -> '25%'``, ``1/6 -> '16.7%'``."""
    text = f"{100 * value:.1f}".rstrip("0").rstrip(".")
    return f"{text}%"


def design_sentence(question: Question) -> str:
    """How one question's answer is randomized, in words a respondent follows."""
    design = question.design
    if design is None:
        return "Not randomized: stored exactly as you answer."
    if design == TWO_COIN:
        return ("Two coins are flipped on your device. First coin tails: your true answer is sent. "
                "First coin heads: the second coin decides, heads sends “yes”, tails sends “no”.")
    if isinstance(design, ForcedResponseDesign):
        return (f"Your true answer is sent {percent(float(design.t))} of the time; otherwise “yes” is sent "
                f"({percent(float(design.a))} of the time) or “no” ({percent(float(design.b))}).")
    return (f"Your true answer is sent {percent(float(design.t))} of the time; otherwise one of the "
            f"{design.k} options is picked at random.")


def epsilon_text(epsilon: float) -> str:
    return "∞ (no protection)" if math.isinf(epsilon) else f"{epsilon:.2f}"
