"""Question kinds: one module per kind owns how its result is computed; :func:`kind_of` chooses the kind.

Each kind module defines the same names:

``compute(question, by_design, level, method)``
    The question's result from its tallies ``{design key: {answer: count}}``.
``without_figures(question, flags, sentence, error=None)``
    Its result with no figures (no answers, or not computed).
``running_point(question, by_design, level)``
    ``(n, estimate, confidence sequence)`` for the time chart, or ``None`` where the kind has none.
``finite_population(result, population_size, level)``
    The result with its finite-population figures (or the note saying why there are none); the result
    as it is where the kind has nothing to say about them.

and what the other callers ask of a kind: ``single_share``, ``splits_results``, ``keeps_patterns``; planning
(``needed_n``, ``plan_margin``, ``plan_options``, ``current_group_sizes``, ``target_needed_n``, ``target_scale``,
``design_needed``); exports and the chart (``design_columns``, ``estimate_rows``, ``breakdown_rows``,
``estimate_pairs``, ``chart_items``); group differences (``for_difference``: one group's figures,
``difference`` of two of them, ``comparable``, ``difference_sequence``); ``randomize``; what one answer is
stored and kept as (``device_answer``: the device's wire value checked and read, ``kept_rows``: its kept tally
rows, ``exported``: the stored answer in the responses CSV); the groups its answers split respondents into in
break-downs (``groups``: ``(value, label)`` pairs, none for a randomized answer; ``group_of``: one stored
answer's group). A kind with nothing to say names the default of
:mod:`surveys.kinds.common`.

:func:`kind_of` is the one place a question's kind is decided (:func:`kind_of_result` for a computed result);
:mod:`surveys.results`, planning, exports, break-downs, the timeline, targets, models and submissions consult
it (tests/test_layers.py keeps every other module from deciding a kind). docs/architecture.md has the recipe
for adding a kind.
"""

from __future__ import annotations

import json
from fractions import Fraction
from functools import lru_cache
from types import ModuleType

from surveys.arms import is_two_group
from surveys.definition import NUMBER_TYPES, SELECT_MULTIPLE, YES_NO, Choice, Question
from surveys.design_contract import parse_design_key
from surveys.kinds import choice, matrix, multiple, number, plain, two_group, yes_no
from surveys.numbers import NumberRange

#: Every kind, by name (the names the exports and the docs use).
KINDS: dict[str, ModuleType] = {
    "plain": plain,
    "yes_no": yes_no,
    "two_group": two_group,
    "choice": choice,
    "matrix": matrix,
    "number": number,
    "multiple": multiple,
}

#: The names every kind module defines (a function, or a flag where it is ``bool``): docs/architecture.md's recipe.
KIND_NAMES = (
    "compute",
    "without_figures",
    "running_point",
    "finite_population",
    "single_share",
    "splits_results",
    "keeps_patterns",
    "needed_n",
    "plan_margin",
    "plan_options",
    "current_group_sizes",
    "target_needed_n",
    "target_scale",
    "design_needed",
    "design_columns",
    "estimate_rows",
    "breakdown_rows",
    "estimate_pairs",
    "chart_items",
    "for_difference",
    "difference",
    "comparable",
    "difference_sequence",
    "randomize",
    "device_answer",
    "kept_rows",
    "exported",
    "groups",
    "group_of",
    "results_table",
)
#: The flags among :data:`KIND_NAMES`; ``results_table`` is a name (``"yes_no"``, ``"choice"``, ``"plain"``),
#: every other name a function.
KIND_FLAGS = ("single_share", "splits_results", "keeps_patterns")


def kind_of(question: Question, by_design=None) -> ModuleType:
    """The kind module that computes ``question``'s result.

    A question asked without randomization is plain; a randomized yes/no one is two-group or one-arm by its
    design; a randomized ``select_one`` is read through matrices when its design is one or a version of it
    with answers in ``by_design`` was (:func:`surveys.kinds.matrix.reads_as_matrix`), else as k options.
    """
    if question.type in NUMBER_TYPES:
        return number
    if question.type == SELECT_MULTIPLE:
        return multiple
    if not question.is_randomized:
        return plain
    if question.type == YES_NO:
        return two_group if is_two_group(question.design) else yes_no
    if matrix.reads_as_matrix(question, by_design or {}):
        return matrix
    return choice


def breakdown_questions(survey) -> tuple[Question, ...]:
    """The questions results can be broken down by (their kind's ``groups``): the plain one-choice questions
    (:attr:`surveys.definition.Survey.plain_questions`) by their options and the plain numbers by their bins."""
    return tuple(q for q in survey.questions if kind_of(q).groups(q))


def kind_of_result(result) -> ModuleType:
    """The kind module that computed ``result`` (a result of :func:`surveys.results.question_result`), for the
    callers that hold results rather than tallies (exports).

    Its question's kind (:func:`kind_of`), but a ``select_one`` result that holds misclassification-matrix
    versions was read through matrices (its current design may be a k-option one).
    """
    if getattr(result, "matrix_versions", ()):
        return matrix
    return kind_of(result.question)


@lru_cache(maxsize=1024)
def _number_question_of_key(key: str) -> Question | None:
    """The number question a stored design key describes (its design, grid and bins), or ``None`` when the key
    is not a number's: what a recount needs to turn a stored answer into the kept rows it was tallied as."""
    parsed = parse_design_key(key)
    if parsed is None or parsed[0] not in NUMBER_TYPES:
        return None
    qtype, choices, design = parsed
    record = json.loads(key).get("number") or {}
    number = NumberRange(
        Fraction(record["min"]),
        Fraction(record["max"]),
        Fraction(record["step"]),
        tuple(Fraction(cut) for cut in record.get("bins", ())),
    )
    return Question(
        "recounted",
        qtype,
        "",
        "",
        True,
        design is not None,
        tuple(Choice(c, c) for c in choices),
        design,
        number=number,
    )


def group_of_stored(key: str, answer: str) -> str:
    """The break-down group of a stored answer to a plain question under design key ``key``, as the write path
    kept it (:func:`surveys.submission.response_groups`, the kind's ``group_of``): a plain number's bin key; any
    other answer as stored. For storage's recounts from the stored responses."""
    question = _number_question_of_key(key)
    if question is None:
        return answer
    return kind_of(question).group_of(question, answer)


def groups_of_stored(key: str) -> tuple[str, ...]:
    """The groups a plain question's answers under design key ``key`` fall in (its kind's ``groups``): a plain
    number's bin keys, else its choices. For storage's recount of the model's patterns (how many levels each
    predictor has); ``()`` for an unreadable key."""
    question = _number_question_of_key(key)
    if question is not None:
        return tuple(group for group, _ in kind_of(question).groups(question))
    parsed = parse_design_key(key)
    return () if parsed is None else tuple(parsed[1])


def is_breakdown_of_stored(key: str) -> bool:
    """Whether the plain question a stored design key describes is one results can be broken down by (its kind's
    ``groups``, as :func:`breakdown_questions` asks of a live question): a plain choice or number, not a plain
    check-all question. For storage's recount of the group tallies; False for a randomized question or an
    unreadable key."""
    question = _number_question_of_key(key)
    if question is None:
        parsed = parse_design_key(key)
        if parsed is None or parsed[2] is not None:
            return False
        qtype, choices, _ = parsed
        question = Question("recounted", qtype, "", "", True, False, tuple(Choice(c, c) for c in choices), None)
    return not question.is_randomized and bool(kind_of(question).groups(question))


def keeps_patterns_of_stored(key: str) -> bool:
    """Whether the randomized question a stored design key describes has its pattern counts kept for the model
    (its kind's ``keeps_patterns``, which :func:`surveys.models.kept_outcomes` asks of a live question): a
    one-group yes/no question or a number, not a two-group question. For storage's recount of the patterns;
    False for a plain question or an unreadable key."""
    question = _number_question_of_key(key) or _randomized_question_of_key(key)
    return question is not None and question.is_randomized and bool(kind_of(question).keeps_patterns)


def is_one_design_yes_no(question: Question) -> bool:
    """Whether ``question`` is a randomized yes/no question under a one-group design (the ``yes_no`` kind: not
    two-group, not plain): the questions whose pairs of answers are kept for their correlation
    (:mod:`surveys.correlation`)."""
    return kind_of(question) is yes_no


def is_k_option_choice(question: Question) -> bool:
    """Whether ``question`` is a randomized ``select_one`` read as k options (the ``choice`` kind: its design is
    a k-option one, not a misclassification matrix): each option's answer is a forced-response yes/no
    (:meth:`analysis.MultipleChoiceDesign.option_marginal`), as the design weights read it
    (:mod:`surveys.sample_design`)."""
    return kind_of(question) is choice


def k_option_choice_of_stored(key: str) -> bool:
    """:func:`is_k_option_choice` of the question a stored design key describes (False for an unreadable key, a
    plain question or a matrix design's key)."""
    question = _randomized_question_of_key(key)
    return question is not None and is_k_option_choice(question)


def one_design_yes_no_of_stored(key: str) -> bool:
    """:func:`is_one_design_yes_no` of the question a stored design key describes (False for an unreadable key,
    a plain question or the direct arm's record): for storage's recount of the pair counts."""
    question = _randomized_question_of_key(key)
    return question is not None and is_one_design_yes_no(question)


@lru_cache(maxsize=1024)
def _randomized_question_of_key(key: str) -> Question | None:
    """The randomized question a stored design key describes (its type, choices and design), ``None`` when the
    key is unreadable or has no design: enough for :func:`kind_of` to name its kind."""
    parsed = parse_design_key(key)
    if parsed is None or parsed[2] is None:
        return None
    qtype, choices, design = parsed
    return Question("recounted", qtype, "", "", True, True, tuple(Choice(c, c) for c in choices), design)


def kept_rows_of_stored(key: str, answer: str) -> tuple[tuple[str, int], ...]:
    """The kept tally rows ``(answer, increment)`` of a stored answer under design key ``key``, as the write
    path tallied it (:func:`surveys.submission.NoisyResponse.kept_rows`): a number's bucket or bin, sum and sum
    of squares; any other answer its own count. For storage's recounts from the stored responses."""
    question = _number_question_of_key(key)
    if question is None:
        return ((answer, 1),)
    return number.kept_rows(question, answer)
