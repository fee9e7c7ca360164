"""An extended crosswise question's two groups, read back from its kept tallies, and its one-degree-of-freedom
check of careless answering (:mod:`analysis.extended_crosswise`), for the "How well does the design fit?" section
(:mod:`surveys.design_fit`).

Group 2's answers are kept under a crosswise design with ``q`` read as ``1 - q``
(:data:`surveys.design_contract.EXTENDED_MARK`), so a result's per-design estimates hold both groups: the design
with the question's ``q`` is group 1, the one with ``1 - q`` group 2, each marked as an extended question's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from analysis.extended_crosswise import ExtendedCrosswiseEstimate, estimate_extended_crosswise
from surveys.definition import Question
from surveys.design_contract import EXTENDED_MARK
from surveys.result_sentences import p_value_text


@dataclass(frozen=True)
class GroupCounts:
    """The "same" answers (stored "yes") and all answers of each group, from the kept tallies."""

    same: tuple[int, int]
    n: tuple[int, int]


@dataclass(frozen=True)
class ExtendedCrosswiseCheck:
    """One extended crosswise question: its groups' counts, the model's estimate and check, and the sentence."""

    question: Question
    counts: GroupCounts
    estimate: ExtendedCrosswiseEstimate
    sentence: str


#: What a crosswise design's epsilon assumes, as its label says it (:meth:`analysis.CrosswiseDesign.label`).
UNKNOWN = "ε holds only if the innocuous answer is unknown"


def group_of(question: Question, design_key: str, design) -> int | None:
    """0 (group 1) or 1 (group 2) for the answers of ``question`` kept under ``design_key`` (its ``design``);
    ``None`` for a plain crosswise version of the question, another version's ``q`` or any other question."""
    if not question.second_innocuous or not json.loads(design_key).get(EXTENDED_MARK):
        return None
    q = question.design.q
    return {q: 0, 1 - q: 1}.get(getattr(design, "q", None))


def pooled_groups(question: Question, parts) -> tuple[int, ...] | None:
    """The group (0 or 1) of each of ``parts`` (per-design estimates, with ``design_key`` and ``design``) when
    they are exactly an extended crosswise question's groups, each once; else ``None``."""
    groups = tuple(group_of(question, part.design_key, part.design) for part in parts)
    if not groups or None in groups or len(set(groups)) != len(groups):
        return None
    return groups


def groups_label(question: Question, groups: tuple[int, ...]) -> str:
    """The design label of an extended crosswise question's answers (:func:`pooled_groups`)."""
    q = question.design.q
    if len(groups) == 2:
        return f"extended crosswise (q={q} in group 1, {1 - q} in group 2; {UNKNOWN}), pooled over its 2 groups"
    group = groups[0] + 1
    share = q if group == 1 else 1 - q
    return f"extended crosswise (q={share} in group {group}; {UNKNOWN}), only group {group} has answers yet"


def groups_sentence(question: Question, groups: tuple[int, ...]) -> str:
    """What an extended crosswise result pools, in one sentence beside its estimate."""
    if len(groups) == 2:
        return (
            "It is an extended crosswise question: the answers of its two random groups (each read its own second "
            "statement) are pooled by maximum likelihood into one estimate, the extended crosswise model's."
        )
    return (
        f"It is an extended crosswise question: only group {groups[0] + 1} of its two random groups has answers "
        "yet, so the estimate is from that group alone."
    )


def group_counts(result) -> GroupCounts | None:
    """Each group's "same" answers and answers, from ``result.per_design`` (a yes/no result); ``None`` unless
    ``result`` is an extended crosswise question's with answers in both groups."""
    question = result.question
    if not question.second_innocuous:
        return None
    same, n = [0, 0], [0, 0]
    for entry in getattr(result, "per_design", ()) or ():
        group = group_of(question, entry.design_key, entry.design)
        if group is None:
            continue  # a plain crosswise version of the question, or another version's q: no group
        stored_yes = entry.yes_count if entry.design.trait_answer == "yes" else entry.n - entry.yes_count
        same[group] += stored_yes
        n[group] += entry.n
    if not all(n):
        return None
    return GroupCounts((same[0], same[1]), (n[0], n[1]))


def check_sentence(question: Question, counts: GroupCounts, estimate: ExtendedCrosswiseEstimate) -> str:
    """The check in plain words: each group's share of "same", what the model expects, and the test."""
    test = estimate.fit.likelihood_ratio
    verdict = (
        "The answers are consistent with everyone following the instructions"
        if test.p_value >= 0.05
        else "The answers speak against everyone following the instructions: some respondents seem to answer "
        "“same” or “different” whatever their answers to the two statements, and the estimate is then biased"
    )
    return (
        f"“{question.label}” (extended crosswise): group 1 answered “same” {counts.same[0]} times in "
        f"{counts.n[0]} and group 2 {counts.same[1]} times in {counts.n[1]}. If everyone follows the instructions, "
        f"group 1's share of “same” and group 2's share of “different” are equal ({estimate.fit.expected[0]:.1%} "
        f"at the estimate). {verdict}: likelihood ratio G² = {test.statistic:.2f}, 1 degree of freedom, "
        f"p = {p_value_text(test.p_value)}. Respondents who answer at random are not detected by this check."
    )


def extended_crosswise_checks(results) -> tuple[ExtendedCrosswiseCheck, ...]:
    """Every extended crosswise question with answers in both groups, checked (``results``: a SurveyResults)."""
    checks = []
    for result in results.questions:
        counts = group_counts(result)
        if counts is None:
            continue
        q = result.question.design.q
        estimate = estimate_extended_crosswise(
            counts.same[0], counts.n[0], counts.same[1], counts.n[1], q, results.confidence_level
        )
        checks.append(
            ExtendedCrosswiseCheck(result.question, counts, estimate, check_sentence(result.question, counts, estimate))
        )
    return tuple(checks)


def check_record(check: ExtendedCrosswiseCheck) -> dict:
    """One check as JSON-ready values (``design_fit.json``)."""
    e = check.estimate
    return {
        "question": check.question.name,
        "same": list(check.counts.same),
        "n": list(check.counts.n),
        "p": e.p,
        "estimate": e.estimate,
        "estimate_raw": e.estimate_raw,
        "std_err": e.std_err,
        "ci_low": e.ci.low,
        "ci_high": e.ci.high,
        "likelihood_ratio": {
            "statistic": e.fit.likelihood_ratio.statistic,
            "df": e.fit.likelihood_ratio.df,
            "p_value": e.fit.likelihood_ratio.p_value,
        },
        "pearson": {"statistic": e.fit.pearson.statistic, "df": e.fit.pearson.df, "p_value": e.fit.pearson.p_value},
        "sentence": check.sentence,
    }
