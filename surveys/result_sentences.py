"""A result in one plain-language sentence: yes/no and option shares with their intervals, the floor and
ceiling of a design, the fitted model.

Pure English text for the researcher's pages and exports (not translated); the numbers through
:mod:`surveys.text_format`. :mod:`surveys.wording` re-exports every name here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from analysis import ConfidenceInterval, OutsideDesign
from surveys.definition import Question
from surveys.text_format import TOO_WIDE, count_text, percent, short_percent


def is_too_wide(ci: ConfidenceInterval | None) -> bool:
    """Whether ``ci`` is wider than :data:`TOO_WIDE`: too few answers to tell anything useful."""
    return ci is not None and ci.high - ci.low > TOO_WIDE


def level_text(confidence_level: float) -> str:
    """``0.95 -> "95%"``."""
    return short_percent(confidence_level)


def outside_design_sentence(outside: OutsideDesign, subject: str) -> str:
    """What a rate below the design's floor (above its ceiling) means, with the one-sided bound.

    ``subject`` names what is estimated: ``"yes answers to “Q”"``.
    """
    level = level_text(outside.confidence_level)
    chance = percent(outside.p_value, 1, trim=True) if outside.p_value >= 0.001 else "under 0.1%"
    if outside.side == "below":
        return (
            f"Fewer {subject} ({percent(outside.observed_rate)}) than the design alone produces "
            f"({percent(outside.limit)}): the share of true ones is at most {percent(outside.bound)} "
            f"(one-sided {level} bound). If nobody's true answer were yes, so few would come by chance "
            f"{chance} of the time; otherwise respondents did not follow the instructions."
        )
    return (
        f"More {subject} ({percent(outside.observed_rate)}) than the design allows "
        f"({percent(outside.limit)}): the share of true ones is at least {percent(outside.bound)} "
        f"(one-sided {level} bound). If everybody's true answer were yes, so many would come by chance "
        f"{chance} of the time; otherwise respondents did not follow the instructions."
    )


def yes_no_sentence(
    question: Question,
    estimate: float | None,
    ci: ConfidenceInterval | None,
    confidence_level: float,
    outside: OutsideDesign | None = None,
) -> str:
    """A yes/no result in one plain sentence: the estimate and its interval for the true yes share.

    "Estimated share of true yes answers to “Q” in the population sampled: 23%
    (95% confidence interval 15% to 31%)." With an interval wider than
    :data:`TOO_WIDE`: "Too few answers to tell ...". With a rate outside what
    the design allows: :func:`outside_design_sentence`.
    """
    quoted = f"\u201c{question.label}\u201d"
    if ci is None or estimate is None:
        return f"No answers to {quoted} yet."
    if outside is not None:
        return outside_design_sentence(outside, f"yes answers to {quoted}")
    level = level_text(confidence_level)
    if ci.one_sided:  # a pooled or two-group estimate at an edge: the bound, never a width-0 interval
        return (
            f"Share of true yes answers to {quoted} in the population sampled: {bound_text(ci)} "
            f"(one-sided {level} bound)."
        )
    if is_too_wide(ci):
        return (
            f"Too few answers to tell: the share of true yes answers to {quoted} in the population "
            f"sampled could be anywhere from {percent(ci.low)} to {percent(ci.high)} ({level} confidence)."
        )
    return (
        f"Estimated share of true yes answers to {quoted} in the population sampled: {percent(estimate)} "
        f"({level} confidence interval {percent(ci.low)} to {percent(ci.high)})."
    )


#: How each interval method is named beside an interval computed otherwise than the page's chosen method.
METHOD_LABELS = {
    "wald": "Wald",
    "wilson": "Wilson",
    "clopper-pearson": "exact (Clopper-Pearson)",
    "profile likelihood": "profile likelihood",
    "clopper-pearson-cls": "one-sided (CLs)",
}


def method_label(method: str, pooled: bool = False) -> str:
    """``"Wald (pooled)"`` for a pooled Wald interval, else the method's name (:data:`METHOD_LABELS`)."""
    label = METHOD_LABELS.get(method, method)
    return f"{label} (pooled)" if pooled and method == "wald" else label


def bound_text(ci: ConfidenceInterval, digits: int = 0) -> str:
    """A one-sided bound in words: ``"at most 6%"`` (side ``"upper"``) or ``"at least 94%"`` (``"lower"``)."""
    if ci.side == "upper":
        return f"at most {percent(ci.high, digits)}"
    return f"at least {percent(ci.low, digits)}"


def range_text(low: float, high: float, side: str = "two-sided", format_share=None) -> str:
    """``"21% to 48%"``, or ``"at most 6%"`` / ``"at least 94%"`` for a one-sided bound (``side``)."""
    format_share = format_share or short_percent
    if side == "upper":
        return f"at most {format_share(high)}"
    if side == "lower":
        return f"at least {format_share(low)}"
    return f"{format_share(low)} to {format_share(high)}"


def estimate_with_interval(estimate: float, ci: ConfidenceInterval, digits: int = 0) -> str:
    """``"35% (21% to 48%)"``, or the one-sided bound alone (``"at most 6% (one-sided)"``): never a two-sided
    interval of width 0, and the estimate only beside the interval that holds it."""
    if ci.one_sided:
        return f"{bound_text(ci, digits)} (one-sided)"
    return f"{percent(estimate, digits)} ({percent(ci.low, digits)} to {percent(ci.high, digits)})"


def choice_sentence(
    question: Question,
    options: Sequence[tuple[str, float | None, ConfidenceInterval | None]],
    confidence_level: float,
) -> str:
    """A multiple-choice result in one sentence: each option's estimated true share and interval.

    ``options`` are ``(label, estimate, interval)`` in the question's order, each estimate inside its
    interval (:attr:`surveys.results.OptionResult.estimate`). An option whose answers sit outside what the
    design can produce gets its one-sided bound ("c at most 6% (one-sided)"). When an option's interval is
    wider than :data:`TOO_WIDE`: "Too few answers to tell ...".
    """
    quoted = f"\u201c{question.label}\u201d"
    known = [(label, estimate, ci) for label, estimate, ci in options if estimate is not None and ci is not None]
    if not known:
        return f"No answers to {quoted} yet."
    level = level_text(confidence_level)
    if any(is_too_wide(ci) for _, _, ci in known):
        widest = max(ci.high - ci.low for _, _, ci in known)
        return (
            f"Too few answers to tell the true shares of the answers to {quoted} in the population sampled: "
            f"the {level} confidence intervals are up to {widest * 100:.0f} percentage points wide."
        )
    parts = "; ".join(f"{label} {estimate_with_interval(estimate, ci)}" for label, estimate, ci in known)
    one_sided = " or one-sided bounds" if any(ci.one_sided for _, _, ci in known) else ""
    return (
        f"Estimated shares of true answers to {quoted} in the population sampled: {parts} "
        f"({level} confidence intervals{one_sided}, one per option)."
    )


def p_value_text(p: float) -> str:
    """A p-value for a table or sentence: ``"< 0.001"`` below 0.001, else three decimals."""
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def ratio_text(value: float) -> str:
    """An odds ratio: two decimals, ``"2.35"``."""
    return f"{value:.2f}"


#: What the randomization does to a linear model's outcome, per mechanism (:class:`surveys.models.LinearModelResult`).
LINEAR_NOISE = {
    "laplace": "each answer sent is its true value plus discrete Laplace noise of mean zero",
    "bounded": "each answer sent is one bit, debiased into a value whose mean is the true value",
}


def linear_model_sentence(result) -> str:
    """A fitted linear model of a randomized number (:class:`surveys.models.LinearModelResult`) in plain words,
    or its message: its size and R^2, and where the noise is (true for each mechanism: :data:`LINEAR_NOISE`).

    "From 300 answers, a linear model of “Q” on Year (R² 0.013 of the randomized answers). The noise is in the
    outcome, not in the predictors: each answer sent is its true value plus discrete Laplace noise of mean zero,
    so the coefficients are unbiased for the same model of the true values; the noise makes their intervals
    wider (and R² lower) than answers given directly would."
    """
    if result.fit is None:
        return result.message
    fit = result.fit
    names = ", ".join(term.question.label for term in result.terms)
    finite = math.isfinite(fit.r_squared)
    r_squared = f"R\u00b2 {fit.r_squared:.3f}" if finite else "no R\u00b2: the answers do not vary"
    return (
        f"From {count_text(fit.n, 'answer')}, a linear model of \u201c{result.outcome.label}\u201d on {names} "
        f"({r_squared} of the randomized answers). The noise is in the outcome, not in the "
        f"predictors: {LINEAR_NOISE[result.mechanism]}, so the coefficients are unbiased for the same model of "
        "the true values; the noise makes their intervals wider (and R\u00b2 lower) than answers given directly would."
    )


def model_sentence(result) -> str:
    """A fitted model (:class:`surveys.models.ModelResult`) in plain words, or its message.

    "From 600 answers, the predictors together (Department) are associated with a true yes to “Q”
    (likelihood-ratio test p < 0.001). The largest difference: Department: Science vs Arts, odds of a
    true yes 3.02 times as high (95% interval 1.6 to 5.7)."
    """
    if result.fit is None:
        return result.message
    fit = result.fit
    quoted = f"\u201c{result.outcome.label}\u201d"
    names = ", ".join(term.question.label for term in result.terms)
    test = fit.model_test
    found = "are associated" if test.p_value < 1 - fit.confidence_level else "are not clearly associated"
    sentence = (
        f"From {count_text(fit.n, 'answer')}, the predictors together ({names}) {found} with a true yes to {quoted} "
        f"(likelihood-ratio test p {'' if test.p_value < 0.001 else '= '}{p_value_text(test.p_value)})."
    )
    slopes = fit.coefficients[1:]
    if not slopes:
        return sentence
    top = min(slopes, key=lambda c: c.p_value)
    return (
        f"{sentence} The clearest difference: {top.name}, odds of a true yes {ratio_text(top.odds_ratio)} times "
        f"as high ({level_text(fit.confidence_level)} interval {ratio_text(top.odds_ratio_low)} to "
        f"{ratio_text(top.odds_ratio_high)}), the other predictors held fixed."
    )
