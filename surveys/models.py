"""Regression of a randomized answer on the plain questions, from kept pattern counts: logistic for a yes/no
answer, linear (least squares) for a number.

The counts a model needs are kept as answers arrive (``pattern_tallies``,
written by :mod:`storage.responses` in the transaction of each response):
per randomized yes/no question or number (the outcome), design key, *pattern* and
kept answer (a number's kept rows: its bucket, ``=sum`` and ``=sumsq``, so each
pattern keeps its count, sum and sum of squares). A pattern is the tuple of the respondent's answers to all the
survey's predictors (:func:`predictor_questions`: the plain one-choice questions and the plain numbers, those
results can be broken down by), spelled by :func:`answer_pattern` as canonical JSON ``{"question": "level", ...}``
with :data:`NO_ANSWER` (``""``) for a question left unanswered. A predictor's level is its break-down group
(its kind's ``group_of``): a choice's name, a plain number's bin key (``"b00"``..), never its grid position, so
a plain number is a categorical predictor by its declared bins. A plain check-all-that-apply question is no
predictor (its answer is a set of options, not one level).

How many rows that makes: at most ``prod(levels_q + 1)`` patterns over the
predictors ``q`` (each one's choices or bins, plus one for "no answer"),
times two stored answers, per outcome and design key, however many
responses there are. A survey whose plain questions would allow more than
:data:`MAX_PATTERNS` patterns keeps no pattern counts (:func:`kept_outcomes`
is empty; its results page says the model is not available).

:func:`fit_model` collapses the patterns over the predictors not chosen,
codes each chosen predictor as indicators against a reference level, takes
one design per row from the design key and calls
:func:`analysis.regression.fit_logistic`; the cost depends on the number of
patterns, not of responses. :func:`fit_linear_model` does the same for a
randomized number with :func:`analysis.linear_model.linear_model_from_cells`
(each cell's count, sum and sum of squares of the outputs, debiased for the
one-bit design and put in the question's units).
"""

from __future__ import annotations

import functools
import json
import math
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from analysis.design import BinaryDesign
from analysis.linear_model import LinearFit, affine_cells, debiased_cells, linear_model_from_cells
from analysis.numeric_design import BoundedDesign
from analysis.regression import LogisticFit, NotIdentified, PredictedPrevalence, fit_logistic
from surveys.arms import DIRECT
from surveys.definition import Question, Survey
from surveys.design_contract import (
    RANDOMIZED_IN_EVERY_ARM,
    SQUARES_KEY,
    SUM_KEY,
    SUM_KEYS,
    YES_NO,
    canonical_json,
    parse_design_key,
    question_design_key,
)
from surveys.kinds import breakdown_questions, kind_of

#: The most patterns of plain answers a survey may have for its pattern counts to be kept.
MAX_PATTERNS = 10_000

#: A plain question left unanswered, in a pattern (no choice name is empty).
NO_ANSWER = ""

#: Fewest answers a model is fitted from.
MIN_ANSWERS = 20


def predictor_questions(survey: Survey) -> tuple[Question, ...]:
    """The questions a model can take as predictors, which each pattern spells: those results can be broken
    down by (:func:`surveys.kinds.breakdown_questions`), the plain one-choice questions by their choices and
    the plain numbers by their bins; no randomized question, text or check-all-that-apply question."""
    return breakdown_questions(survey)


def predictor_levels(question: Question) -> tuple[tuple[str, str], ...]:
    """A predictor's levels as ``(level, label)`` pairs in order: its kind's ``groups`` (a choice's name and
    label; a plain number's bin key and :meth:`surveys.numbers.NumberRange.bin_labels` label)."""
    return kind_of(question).groups(question)


def level_names(question: Question) -> tuple[str, ...]:
    """The levels of a predictor as a pattern spells them (:func:`predictor_levels`' first items)."""
    return tuple(level for level, _ in predictor_levels(question))


def pattern_count(survey: Survey) -> int:
    """``prod(levels + 1)`` over the predictors (:func:`predictor_questions`, each one's choices or bins, plus
    one for no answer): how many patterns their answers can make."""
    return math.prod(len(predictor_levels(q)) + 1 for q in predictor_questions(survey))


def kept_outcomes(survey: Survey) -> tuple[str, ...]:
    """The randomized questions whose pattern counts are kept (yes/no questions and numbers: their kind's
    ``keeps_patterns``); none when :func:`pattern_count` exceeds :data:`MAX_PATTERNS`."""
    if pattern_count(survey) > MAX_PATTERNS:
        return ()
    return tuple(q.name for q in survey.randomized_questions if kind_of(q).keeps_patterns)


def arm_keeps_patterns(arm: str, question_type: str) -> bool:
    """Whether an outcome of type ``question_type`` answered by a respondent in ``arm`` (:mod:`surveys.arms`) is
    added to the pattern counts: in every arm, except a question the direct-question control arm asks directly
    (the model debiases randomized answers); numbers and check-all questions stay randomized there
    (:data:`surveys.design_contract.RANDOMIZED_IN_EVERY_ARM`) and are counted. :func:`surveys.submission.noisy_response`
    and storage's recount both ask it."""
    return arm != DIRECT or question_type in RANDOMIZED_IN_EVERY_ARM


def answer_pattern(levels: Mapping[str, str | None], plain: Sequence[str]) -> str:
    """The pattern of the predictors' levels: canonical JSON ``{question: level or ""}`` over ``plain`` (the
    predictors' names); ``levels`` are each predictor's break-down group (a plain number's bin key, not its
    stored grid position: :attr:`surveys.submission.NoisyResponse.groups`), ``None`` or absent when unanswered."""
    return canonical_json({name: levels.get(name) or NO_ANSWER for name in plain})


#: ``{design key: {pattern: {answer: count}}}``, as :func:`storage.kept_counts.pattern_tallies` reads them.
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

    #: Which template and export rows read it (:class:`LinearModelResult` is ``"linear"``).
    method = "logistic"

    @property
    def n(self) -> int:
        return 0 if self.fit is None else self.fit.n


def is_linear(question: Question) -> bool:
    """Whether ``question`` is modelled by least squares: a pattern outcome that is not one share (a number,
    whose kept rows are its count, sum and sum of squares)."""
    kind = kind_of(question)
    return kind.keeps_patterns and not kind.single_share


def model_outcomes(survey: Survey) -> tuple[Question, ...]:
    """The questions a model can have as its outcome: the randomized yes/no questions (logistic) and the
    randomized numbers (linear), in the survey's order."""
    return tuple(q for q in survey.randomized_questions if kind_of(q).single_share or is_linear(q))


def check_choice(survey: Survey, choice: ModelChoice) -> ModelChoice:
    """``choice`` with every reference filled in (default: each predictor's first level: its first choice, a
    plain number's first bin); ValueError naming an outcome that is not a randomized yes/no question or number,
    a predictor that is not one of :func:`predictor_questions`, or an unknown level."""
    outcomes = [q.name for q in model_outcomes(survey)]
    plain = [q.name for q in predictor_questions(survey)]
    if choice.outcome not in outcomes:
        raise ValueError(
            "The model's outcome must be a randomized yes/no question or number, one of: "
            f"{', '.join(outcomes) or 'none'}; got “{choice.outcome[:40]}”."
        )
    if not choice.predictors:
        raise ValueError(
            "Choose at least one predictor, among the questions that are not randomized (one choice or a "
            f"number): {', '.join(plain)}."
        )
    for name in choice.predictors:
        if name not in plain:
            raise ValueError(
                f"“{name[:40]}” cannot be a predictor: the predictors are the questions not randomized whose "
                f"answer is one choice or a number, among: {', '.join(plain) or 'none'}."
            )
    if len(set(choice.predictors)) != len(choice.predictors):
        raise ValueError(f"Each predictor may be chosen once, got {', '.join(choice.predictors)}.")
    references = {}
    for name in choice.predictors:
        levels = level_names(survey.question(name))
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


#: Patterns whose cell is remembered per choice of predictors (:func:`_pattern_cells`): the same few thousand
#: patterns are read on every fit, and decoding their JSON was a quarter of a fit's time at 10,000,000
#: responses (bench/model_bench.py). A memo that grows past this is emptied before it is filled again.
PATTERN_CACHE_SIZE = 1 << 15

_values = operator.methodcaller("values")
_decode = json.JSONDecoder().decode  # one pattern string each: skip json.loads's per-call checks


def pattern_levels(pattern: str, names: tuple[str, ...]) -> tuple[str, ...]:
    """The answers of ``names`` in a kept pattern (:func:`answer_pattern`), :data:`NO_ANSWER` where absent."""
    answers = _decode(pattern)
    return tuple([answers.get(name, NO_ANSWER) for name in names])


@functools.lru_cache(maxsize=8)
def _pattern_cells(names: tuple[str, ...], choices: tuple[tuple[str, ...], ...]) -> dict[str, int]:
    """The memo of :func:`_cell_code` for one choice of predictors (their names and offered choices):
    ``{pattern: cell}``, filled as patterns are met."""
    return {}


def _cell_code(pattern: str, names: tuple[str, ...], choices: tuple[tuple[str, ...], ...]) -> int:
    """The cell of ``pattern``: each predictor's position among its choices, as the digits of one number
    (the first predictor's most significant); -1 when a predictor is unanswered or at a level not offered."""
    code = 0
    for level, offered in zip(pattern_levels(pattern, names), choices):
        if level not in offered:
            return -1
        code = code * len(offered) + offered.index(level)
    return code


def _cell_codes(patterns: list[str], names: tuple[str, ...], choices: tuple[tuple[str, ...], ...]) -> np.ndarray:
    """:func:`_cell_code` of each pattern, from the memo of this choice of predictors where it is there."""
    memo = _pattern_cells(names, choices)
    try:
        return np.array([memo[pattern] for pattern in patterns], dtype=np.int64)
    except KeyError:  # patterns not met yet (or the memo emptied by another thread): fill it
        if len(memo) + len(patterns) > PATTERN_CACHE_SIZE:
            memo.clear()
        codes = []
        for pattern in patterns:
            code = memo.get(pattern)
            if code is None:
                code = memo[pattern] = _cell_code(pattern, names, choices)
            codes.append(code)
        return np.array(codes, dtype=np.int64)


@dataclass(frozen=True)
class Cells:
    """Kept counts summed per design key and combination of the predictors' levels, one row per combination
    met (in order of the levels' positions among their choices, then of ``keys``).

    ``design`` indexes ``keys``; ``levels`` holds each predictor's position among its choices; ``counts`` is
    ``[trait answer, other]`` (``[yes, no]`` unless the design counts a stored "no",
    :attr:`analysis.BinaryDesign.trait_answer`); ``left_out`` counts the answers not in any row.
    """

    keys: tuple[str, ...]
    design: np.ndarray
    levels: np.ndarray
    counts: np.ndarray
    left_out: int


def cells_of(tallies: PatternTallies, predictors: Sequence[Question]) -> Cells:
    """Sum the kept counts over the plain answers other than ``predictors``' (numpy over the patterns).

    Left out: a predictor unanswered or at a level not offered, a design key that is not a yes/no design, an
    answer other than yes or no."""
    names = tuple(q.name for q in predictors)
    choices = tuple(level_names(q) for q in predictors)
    keys, indices, firsts, seconds, left_out = [], [], [], [], 0
    for key, by_pattern in tallies.items():
        parsed = parse_design_key(key)
        if not (parsed is not None and parsed[0] == YES_NO and isinstance(parsed[2], BinaryDesign)):
            left_out += sum(sum(by_answer.values()) for by_answer in by_pattern.values())
            continue
        # The count the design's (t, a, b) reads comes first: a stored "no" for crosswise with q < 1/2.
        first, second = ("yes", "no") if parsed[2].trait_answer == "yes" else ("no", "yes")
        answers = list(by_pattern.values())
        counted = np.array([by_answer.get(first, 0) for by_answer in answers], dtype=np.int64)
        other = np.array([by_answer.get(second, 0) for by_answer in answers], dtype=np.int64)
        total = np.array(list(map(sum, map(_values, answers))), dtype=np.int64)
        codes = _cell_codes(list(by_pattern), names, choices)
        kept = codes >= 0
        left_out += int(total[~kept].sum() + (total - counted - other)[kept].sum())
        indices.append(codes[kept])
        firsts.append(counted[kept])
        seconds.append(other[kept])
        keys.append(key)
    width = max(len(keys), 1)
    # One number per (cell, design key), the cell most significant: np.unique sorts the rows into the Cells order.
    combined = np.concatenate([codes * width + index for index, codes in enumerate(indices)] or [np.zeros(0, int)])
    rows, inverse = np.unique(combined, return_inverse=True)
    inverse = inverse.reshape(-1)
    counts = np.column_stack(
        [
            np.bincount(inverse, weights=np.concatenate(part or [np.zeros(0)]), minlength=len(rows))
            for part in (firsts, seconds)
        ]
    ).astype(np.int64)  # exact: float64 holds whole numbers up to 2**53
    levels = np.unravel_index(rows // width, [len(offered) for offered in choices])
    return Cells(tuple(keys), rows % width, np.column_stack([*levels, np.zeros((len(rows), 0), int)]), counts, left_out)


def collapse_patterns(
    tallies: PatternTallies, predictors: Sequence[Question]
) -> tuple[dict[tuple[str, tuple[str, ...]], list[int]], int]:
    """:func:`cells_of` as ``{(design key, levels of the predictors): [trait answer, other]}`` and the number
    of answers left out."""
    cells = cells_of(tallies, predictors)
    names = [level_names(q) for q in predictors]
    return {
        (cells.keys[d], tuple(names[i][p] for i, p in enumerate(row))): list(count)
        for d, row, count in zip(cells.design.tolist(), cells.levels.tolist(), cells.counts.tolist())
    }, cells.left_out


def term_label(question: Question, level: str, reference: str) -> str:
    """A column's readable name: ``"Department: Science vs Arts"``, ``"Age: 30 to under 45 vs 16 to under 30"``."""
    labels = dict(predictor_levels(question))
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
    if is_linear(outcome):
        return fit_linear_model(survey, choice, tallies, confidence_level)
    predictors = [survey.question(name) for name in choice.predictors]
    cells = cells_of(tallies, predictors)
    answered = cells.counts.sum(axis=1) > 0
    levels, counts, design = cells.levels[answered], cells.counts[answered], cells.design[answered]
    terms = predictor_terms(choice, predictors, levels)

    def failed(message: str) -> ModelResult:
        return ModelResult(outcome, terms, None, (), cells.left_out, message)

    problem = unfit_reason(outcome, terms, levels, int(counts.sum()))
    if problem is not None:
        return failed(problem)
    names = [term_label(t.question, level, t.reference) for t in terms for level in t.levels]
    designs = [parse_design_key(key)[2] for key in cells.keys]  # each key parsed once
    try:
        fit = fit_logistic(
            level_indicators(terms, levels),
            counts[:, 0],
            counts[:, 1],
            designs[0] if len(designs) == 1 else [designs[d] for d in design.tolist()],
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
    return ModelResult(outcome, terms, fit, _groups(terms, fit, levels), cells.left_out)


def predictor_terms(
    choice: ModelChoice, predictors: Sequence[Question], levels: np.ndarray
) -> tuple[PredictorTerm, ...]:
    """Each predictor coded against its reference, with a column for each other level met in ``levels``."""
    seen = [set(np.unique(levels[:, i]).tolist()) for i in range(len(predictors))]
    return tuple(
        PredictorTerm(
            q,
            choice.references[q.name],
            tuple(c for k, c in enumerate(level_names(q)) if k in seen[i] and c != choice.references[q.name]),
        )
        for i, q in enumerate(predictors)
    )


def unfit_reason(outcome: Question, terms: Sequence[PredictorTerm], levels: np.ndarray, total: int) -> str | None:
    """Why no model is fitted (too few answers, a reference level with none), or None."""
    if total < MIN_ANSWERS:
        return (
            f"Too few answers to fit a model: {total} usable answers to “{outcome.label}”, "
            f"at least {MIN_ANSWERS} needed."
        )
    for i, term in enumerate(terms):
        if level_names(term.question).index(term.reference) not in set(levels[:, i].tolist()):
            return (
                f"No answers at the reference level of “{term.question.label}”; "
                "choose a level with answers as the reference."
            )
    return None


def level_indicators(terms: Sequence[PredictorTerm], levels: np.ndarray) -> np.ndarray:
    """One row per row of ``levels`` (each predictor's position among its choices): per term, a 1 in the column
    of its level (none at the reference)."""
    x = np.zeros((len(levels), sum(len(term.levels) for term in terms)))
    offset = 0
    for i, term in enumerate(terms):
        names = level_names(term.question)
        column = np.full(len(names), -1)
        for index, level in enumerate(term.levels):
            column[names.index(level)] = offset + index
        codes = column[levels[:, i]]
        on = np.flatnonzero(codes >= 0)
        x[on, codes[on]] = 1.0
        offset += len(term.levels)
    return x


def _groups(terms: Sequence[PredictorTerm], fit: LogisticFit, levels: np.ndarray) -> tuple[GroupPrevalence, ...]:
    """Each predicted prevalence with the levels it is for, in the order of the levels' positions among their
    choices (the first predictor's first).

    :attr:`~analysis.regression.LogisticFit.prevalences` follow the first
    appearance of each distinct row of predictor values; the rows of
    ``levels`` (:class:`Cells`, with answers) are sorted by the levels'
    positions, and each distinct combination codes to one distinct row, so
    the distinct combinations in order line up with the prevalences.
    """
    distinct = levels[np.sort(np.unique(levels, axis=0, return_index=True)[1])] if len(levels) else levels
    if len(distinct) != len(fit.prevalences):
        raise RuntimeError(f"{len(fit.prevalences)} predicted prevalences for {len(distinct)} groups")
    named = [
        [(term.question.label, label) for _, label in predictor_levels(term.question)] for term in terms
    ]  # per predictor, by position
    columns = [[pairs[k] for k in distinct[:, i].tolist()] for i, pairs in enumerate(named)]
    return tuple(map(GroupPrevalence, zip(*columns), fit.prevalences))


# --------------------------------------------------------------------------
# The linear model of a randomized number.


@dataclass(frozen=True)
class NumberCells:
    """A number's kept sums per combination of the predictors' levels, under its current design (one row per
    combination met, in order of the levels' positions among their choices).

    ``levels`` holds each predictor's position among its choices; ``counts``, ``sums`` and ``squares`` the
    answers, the sum of their outputs and of their squares (grid steps, as stored); ``left_out`` counts the
    answers in no row (a predictor unanswered or at a level not offered, or another design of the question).
    """

    levels: np.ndarray
    counts: np.ndarray
    sums: np.ndarray
    squares: np.ndarray
    left_out: int


def _answers(by_answer: Mapping[str, int]) -> int:
    return sum(count for answer, count in by_answer.items() if answer not in SUM_KEYS)


def number_cells_of(tallies: PatternTallies, outcome: Question, predictors: Sequence[Question]) -> NumberCells:
    """Sum a number's kept pattern rows over the plain answers other than ``predictors``' (numpy over the
    patterns). Only the question's current design key is read: another epsilon, mechanism or grid is left out,
    as the number's results leave it out."""
    names = tuple(q.name for q in predictors)
    choices = tuple(level_names(q) for q in predictors)
    current = question_design_key(outcome)
    left_out = 0
    codes = counts = sums = squares = np.zeros(0)
    for key, by_pattern in tallies.items():
        answers = list(by_pattern.values())
        n = np.array([_answers(by_answer) for by_answer in answers], dtype=np.int64)
        if key != current:
            left_out += int(n.sum())
            continue
        found = _cell_codes(list(by_pattern), names, choices)
        kept = found >= 0
        left_out += int(n[~kept].sum())
        codes, counts = found[kept], n[kept]
        sums = np.array([float(a.get(SUM_KEY, 0)) for a in answers])[kept]
        squares = np.array([float(a.get(SQUARES_KEY, 0)) for a in answers])[kept]
    rows, inverse = np.unique(codes.astype(np.int64), return_inverse=True)
    inverse = inverse.reshape(-1)
    added = [np.bincount(inverse, weights=part.astype(float), minlength=len(rows)) for part in (counts, sums, squares)]
    levels = np.unravel_index(rows, [len(offered) for offered in choices])
    return NumberCells(
        np.column_stack([*levels, np.zeros((len(rows), 0), int)]),
        added[0].astype(np.int64),
        added[1],
        added[2],
        left_out,
    )


@dataclass(frozen=True)
class LinearModelResult:
    """A fitted linear model of a randomized number, or the message that says why there is none.

    ``fit`` is None exactly when ``message`` is set; its coefficients are in the question's units (the
    intercept: the mean at every reference level; each other: a difference of means). ``mechanism`` is
    ``"laplace"`` (each output is the true value plus noise of mean zero) or ``"bounded"`` (the outcome is
    each answer's debiased bit). ``left_out`` as :class:`ModelResult`'s.
    """

    outcome: Question
    terms: tuple[PredictorTerm, ...]
    fit: LinearFit | None
    left_out: int
    mechanism: str
    message: str | None = None

    #: Which template and export rows read it (:class:`ModelResult` is ``"logistic"``).
    method = "linear"

    @property
    def n(self) -> int:
        return 0 if self.fit is None else self.fit.n


def unit_cells(outcome: Question, cells: NumberCells, x: np.ndarray) -> list[tuple]:
    """The cells ``(x_row, n, sum, sum of squares)`` of the outcome in the question's units: each output
    debiased (:func:`analysis.linear_model.debiased_cells`: the one-bit design's ``K((a+b) bit - b)/(a-b)``,
    the Laplace output as it is), then ``min + step * y`` (:func:`analysis.linear_model.affine_cells`)."""
    grid = [
        (tuple(row), int(n), float(total), float(squares))
        for row, n, total, squares in zip(x.tolist(), cells.counts.tolist(), cells.sums, cells.squares)
    ]
    number = outcome.number
    return affine_cells(debiased_cells(outcome.design, grid), float(number.step), float(number.minimum))


def fit_linear_model(
    survey: Survey, choice: ModelChoice, tallies: PatternTallies, confidence_level: float = 0.95
) -> LinearModelResult:
    """Least squares of a randomized number on the chosen plain predictors, from its kept pattern sums.

    The predictors are coded as in :func:`fit_model`; the fit is
    :func:`analysis.linear_model.linear_model_from_cells` on :func:`unit_cells`, so its coefficients,
    standard errors (HC0 by default) and intervals are in the question's units. The noise is in the
    outcome only, so the coefficients are unbiased for the true values' regression; the noise widens the
    intervals and lowers R^2.
    """
    choice = check_choice(survey, choice)
    outcome = survey.question(choice.outcome)
    predictors = [survey.question(name) for name in choice.predictors]
    cells = number_cells_of(tallies, outcome, predictors)
    answered = cells.counts > 0
    kept = NumberCells(
        cells.levels[answered], cells.counts[answered], cells.sums[answered], cells.squares[answered], cells.left_out
    )
    terms = predictor_terms(choice, predictors, kept.levels)
    mechanism = "bounded" if isinstance(outcome.design, BoundedDesign) else "laplace"
    problem = unfit_reason(outcome, terms, kept.levels, int(kept.counts.sum()))
    if problem is not None:
        return LinearModelResult(outcome, terms, None, cells.left_out, mechanism, problem)
    names = [term_label(t.question, level, t.reference) for t in terms for level in t.levels]
    try:
        fit = linear_model_from_cells(
            unit_cells(outcome, kept, level_indicators(terms, kept.levels)), names, level=confidence_level
        )
    except ValueError as error:
        return LinearModelResult(
            outcome, terms, None, cells.left_out, mechanism, f"The model cannot be fitted: {error}"
        )
    return LinearModelResult(outcome, terms, fit, cells.left_out, mechanism)
