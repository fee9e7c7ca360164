"""The correlation between two randomized yes/no answers of a survey, from the kept pair counts.

Which questions' pairs are kept (:func:`pair_questions`: the first :data:`MAX_PAIR_QUESTIONS` one-design randomized
yes/no questions, every pair of them), the kept rows one response adds (:func:`pair_rows`), and the figures the
results page shows for a chosen pair (:func:`pair_correlation`, from :func:`analysis.correlate`), and those figures
as the exports' JSON and CSV (:func:`correlation_json`, :func:`correlation_csv`). No storage, no Flask: storage
keeps and reads the counts, the web layer picks the pair from the query string.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from analysis import Correlation, correlate
from surveys.definition import Question, Survey
from surveys.design_contract import canonical_json, question_design_key
from surveys.kinds import is_one_design_yes_no, one_design_yes_no_of_stored
from surveys.tables import finite, safe_csv

#: The most yes/no questions whose pairs are kept: the first 10 of a survey (45 pairs, 45 kept rows per response
#: at most); a later one's pairs are not kept, and the page says so.
MAX_PAIR_QUESTIONS = 10

#: ``{(first design key, second design key): {(first answer, second answer): count}}`` of one pair of questions,
#: as :func:`storage.kept_counts.pair_tallies` reads them.
PairTallies = Mapping[tuple[str, str], Mapping[tuple[str, str], int]]

#: The stored answers of a yes/no question, in the order of the analysis' table.
ANSWERS = ("yes", "no")

ASSUMPTION = (
    "This assumes that every respondent followed both questions' instructions and that the two randomizations"
    " were drawn independently of each other; it counts only the respondents who answered both questions under"
    " their current designs, outside the direct-question arm."
)


#: Where the respondents ``left_out`` answered, as the panel says it.
LEFT_OUT_WHERE = "under an older design or in the direct-question arm"
#: The same with an extended crosswise question in the pair (its survey has no direct-question arm).
LEFT_OUT_WHERE_EXTENDED = "under an older design or in group 2 of an extended crosswise question"


@dataclass(frozen=True)
class PairCorrelation:
    """The figures of one pair of questions: ``correlation`` (``None`` with no answers, or with ``error`` when
    it could not be computed), ``n`` respondents counted and ``left_out`` who answered both under other designs,
    in the direct-question arm or in group 2 of an extended crosswise question (``left_out_where`` says which)."""

    first: Question
    second: Question
    n: int
    left_out: int
    correlation: Correlation | None
    assumption: str = ASSUMPTION
    error: str | None = None
    left_out_where: str = LEFT_OUT_WHERE


def extended_sentence(question: Question) -> str:
    """Why only group 1 of an extended crosswise ``question`` counts in a correlation: :func:`analysis.correlate`
    reads one table of stored answers under one design for each question, and group 2's answers are kept under
    another (``q`` read as ``1 - q``)."""
    return (
        f" “{question.label}” is an extended crosswise question: only its group 1's answers (the statement true with"
        f" q = {question.design.q}) are counted, because the correlation is estimated from one table of stored answers"
        " under one design per question and group 2's answers are kept under another (q read as 1 - q), so"
        " group 2's are left out."
    )


@lru_cache(maxsize=256)
def pair_questions(survey: Survey) -> tuple[Question, ...]:
    """The questions whose pairs of answers are kept: the first :data:`MAX_PAIR_QUESTIONS` randomized yes/no
    questions under a one-group design, in the survey's order."""
    return tuple(q for q in survey.questions if is_one_design_yes_no(q))[:MAX_PAIR_QUESTIONS]


def left_out_questions(survey: Survey) -> tuple[Question, ...]:
    """The one-design yes/no questions after the first :data:`MAX_PAIR_QUESTIONS`, whose pairs are not kept."""
    return tuple(q for q in survey.questions if is_one_design_yes_no(q))[MAX_PAIR_QUESTIONS:]


@lru_cache(maxsize=256)
def kept_pairs(survey: Survey) -> tuple[tuple[str, str], ...]:
    """Every pair ``(first, second)`` of :func:`pair_questions`, the first before the second in the survey."""
    return tuple(itertools.combinations((q.name for q in pair_questions(survey)), 2))


def stored_pairs(columns: Sequence[str], questions: Mapping[str, dict]) -> tuple[tuple[str, str], ...]:
    """:func:`kept_pairs` of a stored design record (``columns``: the question order; ``questions``: each
    question's key record), for storage's recount: what the write path kept for that version."""
    names = [
        name for name in columns if name in questions and one_design_yes_no_of_stored(canonical_json(questions[name]))
    ]
    return tuple(itertools.combinations(names[:MAX_PAIR_QUESTIONS], 2))


def pair_rows(
    pairs: Iterable[tuple[str, str]], answers: Mapping[str, str], designs: Mapping[str, str]
) -> list[tuple[str, str, str, str, str, str]]:
    """The kept rows ``(first, second, first design, second design, first answer, second answer)`` of one
    response: one for each pair whose two questions it answered (``designs``: each answer's design key, with
    its arm)."""
    return [
        (first, second, designs[first], designs[second], answers[first], answers[second])
        for first, second in pairs
        if first in answers and second in answers
    ]


def choose_pair(survey: Survey, first: str | None, second: str | None) -> tuple[Question, Question] | None:
    """The pair the page shows: ``first`` and ``second`` by name (either order; the survey's order kept), the
    first two of :func:`pair_questions` when neither is given, ``None`` when the survey has fewer than two.

    ``ValueError`` naming the bad name when one is not a question whose pairs are kept, or both are the same."""
    questions = pair_questions(survey)
    if first is None and second is None:
        return (questions[0], questions[1]) if len(questions) >= 2 else None
    by_name = {q.name: q for q in questions}
    for name in (first, second):
        if name not in by_name:
            raise ValueError(
                f"{str(name)[:40]!r} is not a randomized yes/no question whose pairs are kept;"
                f" choose two of {sorted(by_name)}"
            )
    if first == second:
        raise ValueError(f"choose two different questions, got {first!r} twice")
    order = [q.name for q in questions]
    a, b = sorted((first, second), key=order.index)
    return by_name[a], by_name[b]


def pair_correlation(first: Question, second: Question, tallies: PairTallies, level: float) -> PairCorrelation:
    """The correlation of the pair's true answers from the kept counts under both questions' current designs
    (:func:`analysis.correlate`); the counts under other design keys (an older version, the direct-question
    arm) are counted in ``left_out``."""
    current = (question_design_key(first), question_design_key(second))
    counts = tallies.get(current, {})
    table = [[int(counts.get((a, b), 0)) for b in ANSWERS] for a in ANSWERS]
    n = sum(map(sum, table))
    left_out = sum(int(c) for key, by_answer in tallies.items() if key != current for c in by_answer.values())
    extended = [q for q in (first, second) if q.second_innocuous]
    notes = {
        "assumption": ASSUMPTION + "".join(extended_sentence(q) for q in extended),
        "left_out_where": LEFT_OUT_WHERE_EXTENDED if extended else LEFT_OUT_WHERE,
    }
    if n == 0:
        return PairCorrelation(first, second, 0, left_out, None, **notes)
    try:
        result = correlate(table, first.design, second.design, level)
    except ValueError as error:
        return PairCorrelation(first, second, n, left_out, None, error=str(error), **notes)
    return PairCorrelation(first, second, n, left_out, result, **notes)


# --------------------------------------------------------------------------
# Exports.

#: The columns of ``correlation.csv``: one row per joint cell (``figure`` ``joint``), then ``phi``, ``odds_ratio``
#: and ``independence_test`` (the likelihood ratio: ``statistic``, ``df``, ``p_value``).
CORRELATION_COLUMNS = (
    "figure",
    "first_answer",
    "second_answer",
    "estimate",
    "moment",
    "std_err",
    "low",
    "high",
    "statistic",
    "df",
    "p_value",
    "confidence_level",
    "method",
    "n",
    "left_out",
)


def correlation_rows(result: PairCorrelation) -> list[dict]:
    """The figures of the pair as rows: the four joint cells of the true answers (``estimate`` the share on the
    simplex, ``moment`` the inverse's, ``std_err`` its delta-method error), ``phi`` and ``odds_ratio`` with
    ``low``/``high`` their interval (empty when not defined), ``independence_test``; each with the ``method``,
    ``n`` counted and ``left_out``. No rows without figures."""
    c = result.correlation
    if c is None:
        return []
    common = {"confidence_level": c.confidence_level, "method": c.method, "n": result.n, "left_out": result.left_out}
    rows = [
        {"figure": "joint", "first_answer": ANSWERS[not cell.first], "second_answer": ANSWERS[not cell.second],
         "estimate": cell.estimate, "moment": cell.moment, "std_err": cell.std_err}
        for cell in c.cells
    ]  # fmt: skip
    phi_low, phi_high = c.phi_ci or (None, None)
    rows.append({"figure": "phi", "estimate": c.phi, "std_err": c.phi_std_err, "low": phi_low, "high": phi_high})
    or_low, or_high = c.odds_ratio_ci or (None, None)
    rows.append({"figure": "odds_ratio", "estimate": c.odds_ratio, "low": or_low, "high": or_high})
    rows.append({"figure": "independence_test", "statistic": c.lr_statistic, "df": c.df, "p_value": c.p_value})
    return [
        {column: _cell({**common, **row}.get(column)) for column in CORRELATION_COLUMNS} for row in rows
    ]  # fmt: skip


def _cell(value: object) -> object:
    """A CSV cell: ``""`` for a figure that is not defined."""
    return "" if value is None else value


def correlation_json(result: PairCorrelation, survey: Survey, exported_at: str) -> dict:
    """The pair's figures with the survey's identity, the two questions, ``n``, ``left_out``, the stored answers'
    2 x 2 table, the assumption, and :func:`correlation_rows`; ``message`` (and no rows) without figures."""
    c = result.correlation
    if c is not None:
        message = None
    elif result.error:
        message = f"The correlation could not be computed: {result.error}"
    else:
        message = "No respondent has answered both questions under their current designs yet."
    return {
        "survey_id": survey.id,
        "version": survey.version,
        "first": result.first.name,
        "second": result.second.name,
        "n": result.n,
        "left_out": result.left_out,
        "method": None if c is None else c.method,
        "confidence_level": None if c is None else c.confidence_level,
        "stored_table": None if c is None else [list(row) for row in c.table],
        "message": message,
        "assumption": result.assumption,
        "exported_at": exported_at,
        "rows": [{k: (None if v == "" else finite(v)) for k, v in row.items()} for row in correlation_rows(result)],
    }


def correlation_csv(result: PairCorrelation) -> str:
    """:func:`correlation_rows` as CSV with the header :data:`CORRELATION_COLUMNS`; text cells spreadsheet-safe."""
    return safe_csv(CORRELATION_COLUMNS, correlation_rows(result))
