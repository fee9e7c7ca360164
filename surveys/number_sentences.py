"""Numbers and check-all-that-apply questions in words, for the researcher (results page, codebook): a number's
interval in its units, and how each mechanism randomized the answers and how the figures are debiased."""

from __future__ import annotations

from surveys.design_sentences import epsilon_text
from surveys.text_format import MISSING, number_text

#: Where a number's or a check-all question's answer is randomized: true on both paths.
WHERE_RANDOMIZED = "on the respondent's device, or on the server when JavaScript was off"

#: What a number's interval is, by :attr:`analysis.numeric.MeanEstimate.method`.
NUMBER_INTERVAL_METHODS = {
    "t": "Student's t interval on the noisy answers (their spread includes the noise)",
    "wilson": "Wilson's interval for the share of ones, mapped through the debiasing",
}


def number_interval_text(low: float | None, high: float | None, side: str, decimals: int) -> str:
    """A number's interval in its units: ``"4.88 – 11.27"``, or the one-sided bound ``"≤ 11.27"`` / ``"≥ 4.88"``."""
    if low is None or high is None:
        return MISSING
    if side == "upper":
        return f"≤ {number_text(high, decimals)}"
    if side == "lower":
        return f"≥ {number_text(low, decimals)}"
    return f"{number_text(low, decimals)} – {number_text(high, decimals)}"


def number_mechanism_sentence(design, number) -> str:
    """How a number question's answers were randomized and how the mean is debiased, per mechanism
    (``design.kind``: ``discrete_laplace`` or ``bounded``), with the question's grid ``number``
    (:class:`surveys.numbers.NumberRange`)."""
    grid = (
        f"The answers lie on a grid of {design.steps} steps of {number.text(number.step)} "
        f"from {number.text(number.minimum)} to {number.text(number.maximum)}."
    )
    if design.kind == "discrete_laplace":
        return (
            f"{grid} Noise of the discrete Laplace mechanism was added to each answer before it was stored "
            f"({WHERE_RANDOMIZED}): a whole number of grid steps z with chances proportional to "
            f"exp(−|z| / {float(design.scale):.4g}), the noisy position kept within {design.clamp} steps beyond "
            f"either end; ε = {design.steps} / {float(design.scale):.4g} = {epsilon_text(design.epsilon)}. "
            "The noise has mean zero, so the mean of the noisy answers estimates the true mean without bias; "
            "every figure here comes from the noisy answers."
        )
    bottom = float(design.one_probability(0))
    top = float(design.one_probability(design.steps))
    return (
        f"{grid} One bit per answer was stored ({WHERE_RANDOMIZED}): 1 with probability {bottom:.4g} for the "
        f"lowest value, {top:.4g} for the highest, and in proportion between (for grid position k of "
        f"K = {design.steps}: {bottom:.4g} + {top - bottom:.4g} k / K); "
        f"ε = ln({top:.4g} / {bottom:.4g}) = {epsilon_text(design.epsilon)}. "
        f"The mean position is debiased from the share of ones s: K (s − {bottom:.4g}) / {top - bottom:.4g}; "
        "one bit per answer tells the mean only, not the distribution. Every figure here comes from the noisy answers."
    )


def check_all_mechanism_sentence(design) -> str:
    """How a check-all-that-apply question's ticks were randomized (a :class:`analysis.numeric_design.UnaryDesign`)
    and how its shares and the number ticked are debiased."""
    p, q = float(design.p), float(design.q)
    return (
        f"Each option was stored as one bit ({WHERE_RANDOMIZED}): 1 with probability {p:.4g} if ticked and {q:.4g} "
        f"if not, drawn independently; ε = {design.options} options × {epsilon_text(design.bit_epsilon)} = "
        f"{epsilon_text(design.epsilon)} for the whole question. An option's share is debiased from its share of "
        f"ones s: (s − {q:.4g}) / {p - q:.4g}; the number ticked from the ones per answer S: "
        f"(S − {design.options} × {q:.4g}) / {p - q:.4g}. Every figure here comes from the noisy answers."
    )
