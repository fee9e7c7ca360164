"""Logistic regression of a randomized yes/no answer on the plain questions, from kept pattern counts.

The counts a model needs are kept as answers arrive (``pattern_tallies``,
written by :mod:`storage.responses` in the transaction of each response):
per randomized yes/no question (the outcome), design key, *pattern* and
stored answer. A pattern is the tuple of the respondent's answers to all the
survey's plain (non-randomized) questions, spelled by :func:`answer_pattern`
as canonical JSON ``{"question": "answer", ...}`` with :data:`NO_ANSWER`
(``""``) for a question left unanswered.

How many rows that makes: at most ``prod(levels_q + 1)`` patterns over the
plain questions ``q`` (each question's choices, plus one for "no answer"),
times two stored answers, per outcome and design key, however many
responses there are. A survey whose plain questions would allow more than
:data:`MAX_PATTERNS` patterns keeps no pattern counts (:func:`kept_outcomes`
is empty; its results page says the model is not available).

:func:`fit_model` collapses the patterns over the predictors not chosen,
codes each chosen predictor as indicators against a reference level, takes
one design per row from the design key and calls
:func:`analysis.regression.fit_logistic`; the cost depends on the number of
patterns, not of responses.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from analysis.design import BinaryDesign
from analysis.regression import LogisticFit, NotIdentified, PredictedPrevalence, fit_logistic
from surveys.definition import Question, Survey
from surveys.design_contract import YES_NO, canonical_json, parse_design_key

#: The most patterns of plain answers a survey may have for its pattern counts to be kept.
MAX_PATTERNS = 10_000

#: A plain question left unanswered, in a pattern (no choice name is empty).
NO_ANSWER = ""

#: Fewest answers a model is fitted from.
MIN_ANSWERS = 20


def pattern_count(survey: Survey) -> int:
    """``prod(len(choices) + 1)`` over the plain questions: how many patterns their answers can make."""
    return math.prod(len(q.choices) + 1 for q in survey.plain_questions)


def kept_outcomes(survey: Survey) -> tuple[str, ...]:
    """The randomized yes/no questions whose pattern counts are kept; none when :func:`pattern_count`
    exceeds :data:`MAX_PATTERNS`."""
    if pattern_count(survey) > MAX_PATTERNS:
        return ()
    return tuple(q.name for q in survey.randomized_questions if isinstance(q.design, BinaryDesign))


def answer_pattern(answers: Mapping[str, str], plain: Sequence[str]) -> str:
    """The pattern of the plain answers: canonical JSON ``{question: answer or ""}`` over ``plain``."""
    return canonical_json({name: answers.get(name, NO_ANSWER) for name in plain})


#: ``{design key: {pattern: {answer: count}}}``, as :func:`storage.queries.pattern_tallies` reads them.
PatternTallies = Mapping[str, Mapping[str, Mapping[str, int]]]


@dataclass(frozen=True)
class ModelChoice:
    """What the researcher asks for: the outcome, the predictors, and each predictor's reference level."""

    outcome: str
    predictors: tuple[str, ...]
    references: Mapping[str, str]


@dataclass(frozen=True)
class PredictorTerm:
    """One categorical predictor as coded: its question, the reference level and the levels given a column."""

    question: Question
    reference: str
    levels: tuple[str, ...]


@dataclass(frozen=True)
class GroupPrevalence:
    """The predicted prevalence of one combination of predictor levels (``{question: choice label}``)."""

    levels: tuple[tuple[str, str], ...]
    prevalence: PredictedPrevalence


@dataclass(frozen=True)
class ModelResult:
    """A fitted model, or the message that says why there is none.

    ``fit`` is None exactly when ``message`` is set. ``left_out`` counts the
    answers to the outcome not used: a chosen predictor unanswered or with a
    level no longer offered, or a design the model cannot read.
    """

    outcome: Question
    terms: tuple[PredictorTerm, ...]
    fit: LogisticFit | None
    groups: tuple[GroupPrevalence, ...]
    left_out: int
    message: str | None = None

    @property
    def n(self) -> int:
        return 0 if self.fit is None else self.fit.n


def check_choice(survey: Survey, choice: ModelChoice) -> ModelChoice:
    """``choice`` with every reference filled in (default: each predictor's first choice); ValueError naming
    an outcome that is not a randomized yes/no question, a predictor that is not plain, or an unknown level."""
    outcomes = [q.name for q in survey.randomized_questions if q.type == YES_NO]
    plain = [q.name for q in survey.plain_questions]
    if choice.outcome not in outcomes:
        raise ValueError(
            f"The model's outcome must be a randomized yes/no question, one of: {', '.join(outcomes) or 'none'}; "
            f"got “{choice.outcome[:40]}”."
        )
    if not choice.predictors:
        raise ValueError(
            f"Choose at least one predictor, among the questions that are not randomized: {', '.join(plain)}."
        )
    for name in choice.predictors:
        if name not in plain:
            raise ValueError(
                f"“{name[:40]}” is not a question that is not randomized; the predictors are among: "
                f"{', '.join(plain) or 'none'}."
            )
    if len(set(choice.predictors)) != len(choice.predictors):
        raise ValueError(f"Each predictor may be chosen once, got {', '.join(choice.predictors)}.")
    references = {}
    for name in choice.predictors:
        levels = survey.question(name).choice_names
        reference = choice.references.get(name, levels[0])
        if reference not in levels:
            raise ValueError(
                f"The reference level of {name} must be one of {', '.join(levels)}, got “{reference[:40]}”."
            )
        references[name] = reference
    unknown = sorted(set(choice.references) - set(choice.predictors))
    if unknown:
        raise ValueError(f"A reference level was given for {', '.join(unknown)}, which is not a chosen predictor.")
    return ModelChoice(choice.outcome, tuple(choice.predictors), references)


def collapse_patterns(
    tallies: PatternTallies, predictors: Sequence[Question]
) -> tuple[dict[tuple[str, tuple[str, ...]], list[int]], int]:
    """``{(design key, levels of the predictors): [trait answer, other]}`` (``[yes, no]`` unless the design
    counts a stored "no", :attr:`analysis.BinaryDesign.trait_answer`) summed over the other plain answers, and the
    number of answers left out (a predictor unanswered or at a level not offered, a design not yes/no)."""
    cells: dict = defaultdict(lambda: [0, 0])
    left_out = 0
    for key, by_pattern in tallies.items():
        parsed = parse_design_key(key)
        readable = parsed is not None and parsed[0] == YES_NO and isinstance(parsed[2], BinaryDesign)
        # The count the design's (t, a, b) reads comes first: a stored "no" for crosswise with q < 1/2.
        first, second = ("yes", "no") if not readable or parsed[2].trait_answer == "yes" else ("no", "yes")
        for pattern, by_answer in by_pattern.items():
            answers = json.loads(pattern)
            levels = tuple(answers.get(q.name, NO_ANSWER) for q in predictors)
            usable = readable and all(level in q.choice_names for level, q in zip(levels, predictors))
            if not usable:
                left_out += sum(by_answer.values())
                continue
            cells[key, levels][0] += by_answer.get(first, 0)
            cells[key, levels][1] += by_answer.get(second, 0)
            left_out += sum(count for answer, count in by_answer.items() if answer not in ("yes", "no"))
    return dict(cells), left_out


def term_label(question: Question, level: str, reference: str) -> str:
    """A column's readable name: ``"Department: Science vs Arts"``."""
    labels = {c.name: c.label for c in question.choices}
    return f"{question.label}: {labels[level]} vs {labels[reference]}"


def fit_model(
    survey: Survey, choice: ModelChoice, tallies: PatternTallies, confidence_level: float = 0.95
) -> ModelResult:
    """Fit the logistic model of ``choice`` from the kept pattern counts of its outcome.

    Each chosen predictor is coded as indicators of its levels with answers,
    against its reference level; each row of the fit is one combination of
    design key and predictor levels, with its design. The result carries a
    message instead of a fit for too few answers (:data:`MIN_ANSWERS`), a
    reference level with no answers, or a likelihood with no unique maximum.
    """
    choice = check_choice(survey, choice)
    outcome = survey.question(choice.outcome)
    predictors = [survey.question(name) for name in choice.predictors]
    cells, left_out = collapse_patterns(tallies, predictors)
    answered = {key: counts for key, counts in cells.items() if sum(counts)}
    seen = [{levels[i] for _, levels in answered} for i in range(len(predictors))]
    terms = tuple(
        PredictorTerm(
            q,
            choice.references[q.name],
            tuple(c for c in q.choice_names if c in seen[i] and c != choice.references[q.name]),
        )
        for i, q in enumerate(predictors)
    )

    def failed(message: str) -> ModelResult:
        return ModelResult(outcome, terms, None, (), left_out, message)

    total = sum(sum(counts) for counts in answered.values())
    if total < MIN_ANSWERS:
        return failed(
            f"Too few answers to fit a model: {total} usable answers to “{outcome.label}”, "
            f"at least {MIN_ANSWERS} needed."
        )
    for term, levels_seen in zip(terms, seen):
        if term.reference not in levels_seen:
            return failed(
                f"No answers at the reference level of “{term.question.label}”; "
                "choose a level with answers as the reference."
            )
    names = [term_label(t.question, level, t.reference) for t in terms for level in t.levels]
    rows = list(answered)
    x = np.array(
        [[float(levels[i] == level) for i, t in enumerate(terms) for level in t.levels] for _, levels in rows]
    ).reshape(len(rows), len(names))
    try:
        fit = fit_logistic(
            x,
            np.array([answered[row][0] for row in rows], dtype=np.int64),
            np.array([answered[row][1] for row in rows], dtype=np.int64),
            [parse_design_key(key)[2] for key, _ in rows],
            names=names,
            terms={
                t.question.label: [term_label(t.question, level, t.reference) for level in t.levels]
                for t in terms
                if t.levels
            },
            confidence_level=confidence_level,
        )
    except NotIdentified as error:
        return failed(f"The model has no estimate: {error.reason}")
    except ValueError as error:
        return failed(f"The model cannot be fitted: {error}")
    return ModelResult(outcome, terms, fit, _groups(terms, fit), left_out)


def _groups(terms: Sequence[PredictorTerm], fit: LogisticFit) -> tuple[GroupPrevalence, ...]:
    """Each predicted prevalence with the levels it is for, read back from its indicator values."""
    groups = []
    for prevalence in fit.prevalences:
        values = iter(prevalence.x[1:])
        names = []
        for term in terms:
            on = [level for level in term.levels if next(values) == 1.0]
            names.append(on[0] if on else term.reference)
        order = tuple(term.question.choice_names.index(name) for term, name in zip(terms, names))
        levels = tuple(
            (term.question.label, next(c.label for c in term.question.choices if c.name == name))
            for term, name in zip(terms, names)
        )
        groups.append((order, GroupPrevalence(levels, prevalence)))
    return tuple(group for _, group in sorted(groups, key=lambda pair: pair[0]))
