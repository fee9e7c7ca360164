"""Analysis options typed by a person (query strings, CLI flags), checked before any statistic runs.

Each parser takes the text as given and returns a float, or raises
``ValueError`` with a message that names the text. The admin pages turn the
message into a 400, the CLI into a usage error: one rule for both.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from analysis import INTERVAL_METHODS
from surveys.correlation import choose_pair, pair_questions
from surveys.definition import Question, Survey
from surveys.kinds import breakdown_questions
from surveys.models import ModelChoice, check_choice
from surveys.noncompliance import MAX_PERCENT, parse_percent
from surveys.predictor_model import PredictorChoice, check_predictor_choice

#: Highest confidence level offered (z = 4.89). At 1 - 2**-53 the normal quantile
#: is infinite and sample sizes overflow; every level up to this one stays finite.
MAX_CONFIDENCE_LEVEL = 0.999999
MIN_CONFIDENCE_LEVEL = 0.5
#: Smallest planned half-width (0.1 point): a tinier one needs more respondents than exist,
#: and below about 1e-154 its square underflows to 0.
MIN_HALF_WIDTH = 0.001
MAX_HALF_WIDTH = 0.5


@dataclass(frozen=True)
class ResultsOptions:
    """What the results page's query string asks for, checked.

    ``by``: the plain question to break the results down by, or None;
    ``first``/``second``: the groups to compare (both or neither, else the first two);
    ``plan``: the randomized yes/no question to plan for, or None for the one that needs most answers;
    ``noncompliance``: the share (a fraction, 0 by default) of respondents the planning assumes always answer "no";
    ``model``: the model to fit (``model_outcome``, ``model_predictors``, ``model_reference``), or None;
    ``predictor_choice``: the randomized answer as a predictor (``predictor``, ``predictor_outcome``), or None;
    ``pair``: the two randomized yes/no questions whose correlation is shown (``pair_first``, ``pair_second``;
    checked against the survey by :func:`surveys.correlation.choose_pair`), or None for the first two;
    ``problems``: ``(field, message)`` for each field refused, whose default is used instead, so the page
    can show the message beside the field.
    """

    method: str = "wilson"
    level: float = 0.95
    half_width: float = 0.05
    by: str | None = None
    first: str | None = None
    second: str | None = None
    plan: str | None = None
    noncompliance: float = 0.0
    model: ModelChoice | None = None
    predictor_choice: PredictorChoice | None = None
    pair: tuple[str | None, str | None] = (None, None)
    problems: tuple[tuple[str, str], ...] = ()

    def problem(self, field: str) -> str | None:
        """The message about ``field``, or None when it was accepted."""
        return next((message for name, message in self.problems if name == field), None)


def plain_names(survey: Survey) -> set[str]:
    """The questions a break-down can be by (:func:`surveys.kinds.breakdown_questions`): those not randomized
    whose answer is one choice, and the plain numbers (by their declared bins)."""
    return {q.name for q in breakdown_questions(survey)}


def _number(text: str, what: str, example: str) -> float:
    """``text`` as a finite float, or a ValueError naming it."""
    shown = f"“{text[:40]}”"
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"The {what} must be a number such as {example}, got {shown}.") from None
    if not math.isfinite(value):
        raise ValueError(f"The {what} must be a finite number such as {example}, got {shown}.")
    return value


def confidence_level(text: str) -> float:
    """A confidence level from 0.5 to :data:`MAX_CONFIDENCE_LEVEL`."""
    value = _number(text, "confidence level", "0.95")
    if not MIN_CONFIDENCE_LEVEL <= value <= MAX_CONFIDENCE_LEVEL:
        raise ValueError(
            f"The confidence level must be from {MIN_CONFIDENCE_LEVEL} to {MAX_CONFIDENCE_LEVEL}, got “{text[:40]}”."
        )
    return value


def half_width(text: str) -> float:
    """A margin of error (the half-width of a planned interval) as a share, from 5, 5% or 0.05.

    A number with ``%`` or of 1 or more is in percentage points (``5`` and
    ``5%`` are plus or minus 5 points, 0.05); a number below 1 is a share
    (``0.05``), so ``0.5%`` is half a point. From :data:`MIN_HALF_WIDTH` up
    to (not including) :data:`MAX_HALF_WIDTH`.
    """
    shown = f"“{text[:40]}”"
    stripped = text.strip()
    points = stripped.endswith("%")
    number = stripped.removesuffix("%").strip() if points else stripped
    try:
        value = float(number)
    except ValueError:
        raise ValueError(f"The margin of error must be a number such as 5, 5% or 0.05, got {shown}.") from None
    if not math.isfinite(value):
        raise ValueError(f"The margin of error must be a finite number such as 5, 5% or 0.05, got {shown}.")
    share = value / 100 if points or value >= 1 else value
    if not MIN_HALF_WIDTH <= share < MAX_HALF_WIDTH:
        raise ValueError(
            f"The margin of error must be at least 0.1 and below 50 percentage points "
            f"(5, 5% and 0.05 all mean plus or minus 5 points), got {shown}."
        )
    return share


def interval_method(text: str) -> str:
    """One of :data:`analysis.INTERVAL_METHODS`."""
    if text not in INTERVAL_METHODS:
        raise ValueError(f"Unknown interval method “{text[:40]}”; choose one of {', '.join(INTERVAL_METHODS)}.")
    return text


def breakdown_by(text: str, plain_questions: Collection[str]) -> str:
    """The name of a question that is not randomized (only those can split the respondents)."""
    if text not in plain_questions:
        raise ValueError(
            f"“{text[:40]}” is not a non-randomized question of this survey; "
            f"break-downs are by one of: {', '.join(sorted(plain_questions)) or 'none'}."
        )
    return text


def estimate_options(args: Mapping[str, str]) -> tuple[str, float]:
    """Interval method and confidence level (``method``, ``level``), as the estimates exports take them."""
    return interval_method(args.get("method", "wilson")), confidence_level(args.get("level", "0.95"))


def planned_question(text: str, planned: Collection[str]) -> str:
    """The name of a randomized yes/no question (those the planning panel can plan for)."""
    if text not in planned:
        raise ValueError(
            f"“{text[:40]}” is not a randomized yes/no question of this survey; "
            f"plan for one of: {', '.join(sorted(planned)) or 'none'}."
        )
    return text


def noncompliance_share(text: str) -> float:
    """The share assumed to always answer "no", typed in percent (``10``, ``12.5``, ``10%``; empty: 0), as a
    fraction: from 0 to :data:`surveys.noncompliance.MAX_PERCENT` percent
    (:func:`surveys.noncompliance.parse_percent`)."""
    try:
        return float(parse_percent(text))
    except ValueError:
        raise ValueError(
            f"The share who always answer “no” must be a percentage from 0 to {MAX_PERCENT}, such as 10 or 12.5, "
            f"got “{text[:40]}”."
        ) from None


def _checked(problems: list, field: str, parse, text: str, default):
    """``parse(text)``, or ``default`` with ``(field, message)`` added to ``problems``."""
    try:
        return parse(text)
    except ValueError as error:
        problems.append((field, str(error)))
        return default


def breakdown_options(args: Mapping[str, str], plain_questions: Collection[str]) -> tuple[str, str, float]:
    """The question to break down by (``by``, required), the interval method and level: the break-down exports."""
    if not args.get("by"):
        raise ValueError(
            "Choose the question to break the results down by with by=…, one of: "
            f"{', '.join(sorted(plain_questions)) or 'none (this survey has no question that is not randomized)'}."
        )
    return (breakdown_by(args["by"], plain_questions), *estimate_options(args))


def _values(args: Mapping[str, str], key: str) -> list[str]:
    """Every non-empty value of a repeated query-string field (a plain mapping holds one)."""
    values = args.getlist(key) if hasattr(args, "getlist") else [args[key]] if key in args else []
    return [value for value in values if value]


def model_choice(survey: Survey, outcome: str, predictors: list[str], references: list[str]) -> ModelChoice:
    """The model asked for: ``references`` written ``question:level`` (a choice, or a plain number's bin key
    ``b00``..; one per predictor at most), checked
    against ``survey`` (:func:`surveys.models.check_choice`)."""
    chosen = {}
    for text in references:
        name, colon, level = text.partition(":")
        if not colon or not name or not level:
            raise ValueError(
                "A reference level is written question:level, such as dept:arts (a plain number's bin: age:b01), "
                f"got “{text[:40]}”."
            )
        if name in chosen:
            raise ValueError(f"Give one reference level for {name[:40]}, got {chosen[name][:40]} and {level[:40]}.")
        chosen[name] = level
    # a reference for a predictor not chosen (left over from the form) is dropped
    chosen = {name: level for name, level in chosen.items() if name in predictors}
    return check_choice(survey, ModelChoice(outcome, tuple(predictors), chosen))


def _model(args: Mapping[str, str], survey: Survey) -> ModelChoice:
    return model_choice(
        survey, args.get("model_outcome", ""), _values(args, "model_predictors"), _values(args, "model_reference")
    )


def results_options(
    args: Mapping[str, str],
    plain_questions: Collection[str],
    planned: Collection[str] = (),
    survey: Survey | None = None,
) -> ResultsOptions:
    """Everything the results page's query string chooses, each checked in the order shown on the page.

    A field that is refused is replaced by its default and its message kept
    in :attr:`ResultsOptions.problems`; the page shows it beside the field
    (with status 400) rather than a bare error page.
    """
    problems: list[tuple[str, str]] = []
    default = ResultsOptions()
    by = args.get("by") or None
    plan = args.get("plan") or None
    return ResultsOptions(
        method=_checked(problems, "method", interval_method, args.get("method", "wilson"), default.method),
        level=_checked(problems, "level", confidence_level, args.get("level", "0.95"), default.level),
        half_width=_checked(problems, "half_width", half_width, args.get("half_width", "0.05"), default.half_width),
        by=None if by is None else _checked(problems, "by", lambda t: breakdown_by(t, plain_questions), by, None),
        first=args.get("first") or None,
        second=args.get("second") or None,
        plan=None if plan is None else _checked(problems, "plan", lambda t: planned_question(t, planned), plan, None),
        noncompliance=_checked(
            problems, "noncompliance", noncompliance_share, args.get("noncompliance", ""), default.noncompliance
        ),
        model=None
        if survey is None or not args.get("model_outcome")
        else _checked(problems, "model", lambda a: _model(a, survey), args, None),
        predictor_choice=None
        if survey is None or not args.get("predictor")
        else _checked(problems, "predictor", lambda a: predictor_choice(a, survey), args, None),
        pair=(args.get("pair_first") or None, args.get("pair_second") or None),
        problems=tuple(problems),
    )


def predictor_choice(args: Mapping[str, str], survey: Survey) -> PredictorChoice:
    """The randomized yes/no answer (``predictor``) and the plain outcome (``predictor_outcome``), checked by
    :func:`surveys.predictor_model.check_predictor_choice`."""
    return check_predictor_choice(survey, args.get("predictor", ""), args.get("predictor_outcome", ""))


def predictor_options(args: Mapping[str, str], survey: Survey) -> tuple[PredictorChoice, float]:
    """The pair (``predictor``, ``predictor_outcome``) and the confidence level (``level``), as the predictor
    exports take them."""
    return predictor_choice(args, survey), confidence_level(args.get("level", "0.95"))


def pair_choice(survey: Survey, first: str, second: str) -> tuple[Question, Question]:
    """The two randomized yes/no questions ``first`` and ``second`` (both required), checked by
    :func:`surveys.correlation.choose_pair`, in the survey's order: the correlation exports and CLI."""
    if not first or not second:
        names = ", ".join(q.name for q in pair_questions(survey)) or "none (fewer than two in this survey)"
        raise ValueError(
            f"Choose the two randomized yes/no questions with pair_first=… and pair_second=…, of: {names}."
        )
    return choose_pair(survey, first, second)


def correlation_options(args: Mapping[str, str], survey: Survey) -> tuple[tuple[Question, Question], float]:
    """The pair (``pair_first``, ``pair_second``, as on the results page) and the confidence level (``level``), as
    the correlation exports take them."""
    pair = pair_choice(survey, args.get("pair_first", ""), args.get("pair_second", ""))
    return pair, confidence_level(args.get("level", "0.95"))


def model_options(args: Mapping[str, str], survey: Survey) -> tuple[ModelChoice, float]:
    """The model (``model_outcome``, ``model_predictors``, ``model_reference``) and the confidence level
    (``level``), as the model exports take them."""
    if not args.get("model_outcome"):
        raise ValueError("Choose the model's outcome with model_outcome=…, a randomized yes/no question or number.")
    return _model(args, survey), confidence_level(args.get("level", "0.95"))
