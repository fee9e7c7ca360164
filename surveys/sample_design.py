"""Design-weighted results: each yes/no share under the survey file's ``sample_design`` (clusters, strata, weights).

Pure: takes a :class:`~surveys.definition.Survey` and the kept group tallies by its design's question (the
clusters', else the strata's: :func:`storage.queries.group_tallies`), and returns frozen dataclasses. Each
group's stored answers under the question's one design give its PSU totals (:func:`analysis.design_share`):
a cluster is a PSU; without clusters each respondent is one, and a stratum's two kinds of stored answer are
two rows with their counts. The cost does not grow with the number of answers. Only one-design yes/no
questions are weighted; the others are listed as not weighted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from analysis import DesignShare, design_share
from surveys.definition import Question, SampleDesign, Survey
from surveys.design_contract import compatible_tallies
from surveys.export_columns import ESTIMATE_COLUMNS
from surveys.kinds import is_one_design_yes_no, kind_of
from surveys.tables import safe_csv
from surveys.weights import WEIGHTED_COLUMNS, weighted_estimates_csv, weighted_json

#: The columns the estimates CSV gains with ``sample_design``: the Hajek share in :data:`WEIGHTED_COLUMNS`
#: (``weighted_by``: the clusters' or strata's question), then these (empty where a share is not weighted).
DESIGN_COLUMNS = (
    *WEIGHTED_COLUMNS,
    "variance_method",
    "psus",
    "strata",
    "lonely_strata",
    "ht_estimate_raw",
    "ht_estimate",
    "ht_std_err",
    "ht_ci_low",
    "ht_ci_high",
    "ht_design_effect",
)


@dataclass(frozen=True)
class DesignRow:
    """One yes/no question's design-weighted share; ``share`` is None (``note`` says why) when it has none.

    ``n``: the answers in the design's groups; ``note`` also says which strata had one PSU.
    """

    question: Question
    n: int
    share: DesignShare | None
    note: str = ""


@dataclass(frozen=True)
class DesignWeighting:
    """The design-weighted shares of a survey with ``sample_design``.

    ``by``: the clusters' (else the strata's) question; ``left_out``: the most answers of a question with no
    answer to it; ``not_weighted``: the randomized questions of other kinds; ``population_size``: ``N`` for the
    Horvitz-Thompson share (the survey's ``population_size``), or None.
    """

    sample_design: SampleDesign
    by: Question
    rows: tuple[DesignRow, ...]
    not_weighted: tuple[Question, ...]
    left_out: int
    confidence_level: float
    population_size: int | None


def _designs(question: Question, grouped: Mapping, groups) -> dict[str, object]:
    """``{design key: design}`` of the keys ``question``'s answers in ``groups`` were stored under that its type
    reads (:func:`~surveys.design_contract.compatible_tallies`, each key parsed once)."""
    keys = {key for group in groups for key in grouped.get(group, {}).get(question.name, {})}
    return {tally.key: tally.design for tally in compatible_tallies(question, dict.fromkeys(keys, {}))[0]}


def _group_counts(by_design: Mapping, designs: Mapping) -> dict[str, tuple[int, int]]:
    """``{design key: (trait answers, answers)}`` of one group's tallies under ``designs``, where it has answers."""
    counts = {}
    for key, design in designs.items():
        answers = by_design.get(key, {})
        yes, no = int(answers.get("yes", 0)), int(answers.get("no", 0))
        if yes + no:
            counts[key] = (design.trait_count(yes, yes + no), yes + no)
    return counts


def _unit_columns(sample: SampleDesign, groups: list[str]) -> tuple[list[float], list | None, list | None]:
    """Per group: its weight, its stratum (clusters only) and its stratum's population count of PSUs."""
    weights = dict(sample.weights)
    fpc = dict(sample.fpc)
    if sample.clusters:
        stratum = dict(sample.cluster_strata)
        strata = [stratum.get(g, "") for g in groups]
        return [weights.get(g, 1.0) for g in groups], strata, [fpc[s] for s in strata] if fpc else None
    return [weights.get(g, 1.0) for g in groups], None, [fpc[g] for g in groups] if fpc else None


def design_row(survey: Survey, question: Question, grouped: Mapping, level: float) -> DesignRow:
    """``question``'s share under ``survey.sample_design`` from the group tallies ``grouped`` by its question."""
    sample = survey.sample_design
    names = [name for name, _ in kind_of(survey.question(sample.by)).groups(survey.question(sample.by))]
    designs = _designs(question, grouped, names)
    per_group, keys, n = {}, set(), 0
    for name in names:
        counts = _group_counts(grouped.get(name, {}).get(question.name, {}), designs)
        keys |= set(counts)
        n += sum(answers for _, answers in counts.values())
        if counts:
            per_group[name] = next(iter(counts.values()))
    if not per_group:
        return DesignRow(question, 0, None, "No answers yet.")
    if len(keys) != 1:
        return DesignRow(question, n, None, "No design-weighted estimate: the answers came under several designs.")
    groups = list(per_group)
    weights, strata, fpc = _unit_columns(sample, groups)
    t, a, b = designs[next(iter(keys))].exact()
    try:
        share = design_share(
            [per_group[g][0] for g in groups],
            [per_group[g][1] for g in groups],
            weights,
            strata,
            bool(sample.clusters),
            fpc,
            survey.population_size,
            t,
            a,
            b,
            sample.variance,
            level,
        )
    except ValueError as error:
        return DesignRow(question, n, None, f"No design-weighted estimate: {error}.")
    return DesignRow(question, n, share, _lonely_note(sample, share, groups))


def _lonely_note(sample: SampleDesign, share: DesignShare, groups: list[str]) -> str:
    """A sentence on the strata with one PSU (they add nothing to the variance), or ``""``."""
    lonely = share.totals.lonely_strata
    if not lonely:
        return ""
    if not sample.clusters:
        lonely = tuple(groups[int(code)] for code in lonely)
    names = ", ".join(s or "the one stratum" for s in lonely)
    return (
        f"Stratum {names} has answers from one sampling unit only: its variance cannot be estimated and is "
        "counted as 0, so the standard error is too small by its share."
    )


def design_results(survey: Survey, grouped: Mapping, confidence_level: float = 0.95) -> DesignWeighting | None:
    """Every yes/no share under ``survey.sample_design`` from the kept group tallies by its question; None
    without ``sample_design``."""
    sample = survey.sample_design
    if sample is None:
        return None
    rows, others, left_out = [], [], 0
    for question in survey.randomized_questions:
        if not is_one_design_yes_no(question):
            others.append(question)
            continue
        rows.append(design_row(survey, question, grouped, confidence_level))
        missing = _group_counts(grouped.get(None, {}).get(question.name, {}), _designs(question, grouped, [None]))
        left_out = max(left_out, sum(n for _, n in missing.values()))
    return DesignWeighting(
        sample_design=sample,
        by=survey.question(sample.by),
        rows=tuple(rows),
        not_weighted=tuple(others),
        left_out=left_out,
        confidence_level=float(confidence_level),
        population_size=survey.population_size,
    )


def _estimate_values(e) -> tuple:
    if e is None:
        return (None,) * 6
    return (e.estimate_raw, e.estimate, e.std_err, e.low, e.high, e.design_effect)


def design_values(weighting: DesignWeighting, row: DesignRow) -> dict:
    """The :data:`DESIGN_COLUMNS` of one row (``None`` where it has no estimate)."""
    share = row.share
    if share is None:
        return dict.fromkeys(DESIGN_COLUMNS) | {"weighted_by": weighting.by.name}
    hajek, totals = share.hajek, share.totals
    return dict(
        zip(
            DESIGN_COLUMNS,
            (
                weighting.by.name,
                *_estimate_values(hajek),
                hajek.finite_population,
                totals.method,
                totals.psus,
                totals.strata,
                len(totals.lonely_strata),
                *_estimate_values(share.horvitz_thompson),
            ),
        )
    )


def design_json(weighting: DesignWeighting) -> dict:
    """``{"weighted": {...}}`` for the estimates JSON: the design and one row per yes/no share (``question``,
    ``option`` ``""``, :data:`DESIGN_COLUMNS`, ``note``)."""
    sample = weighting.sample_design
    return {
        "weighted": {
            "method": "design",
            "by": weighting.by.name,
            "clusters": sample.clusters,
            "strata": sample.strata or dict(sample.cluster_strata) or None,
            "weights": dict(sample.weights),
            "fpc": dict(sample.fpc),
            "variance": sample.variance,
            "population_size": weighting.population_size,
            "left_out_answers": weighting.left_out,
            "not_weighted": [q.name for q in weighting.not_weighted],
            "confidence_level": weighting.confidence_level,
            "rows": [
                {"question": r.question.name, "option": "", "n": r.n, **design_values(weighting, r), "note": r.note}
                for r in weighting.rows
            ],
        }
    }


def design_estimates_csv(rows: list[dict], weighting: DesignWeighting) -> str:
    """The estimate ``rows`` with :data:`DESIGN_COLUMNS`, matched by question (empty for other questions)."""
    by_question = {r.question.name: design_values(weighting, r) for r in weighting.rows}
    empty = dict.fromkeys(DESIGN_COLUMNS)
    merged = [row | by_question.get(row["question"], empty) for row in rows]
    return safe_csv((*ESTIMATE_COLUMNS, *DESIGN_COLUMNS), merged)


def weights_json(weighting) -> dict:
    """The estimates JSON's ``weighted`` part: :func:`design_json` or :func:`surveys.weights.weighted_json`."""
    return design_json(weighting) if isinstance(weighting, DesignWeighting) else weighted_json(weighting)


def weights_csv(rows: list[dict], weighting) -> str:
    """The estimates CSV with the weighted columns: :func:`design_estimates_csv` or
    :func:`surveys.weights.weighted_estimates_csv`."""
    if isinstance(weighting, DesignWeighting):
        return design_estimates_csv(rows, weighting)
    return weighted_estimates_csv(rows, weighting)
