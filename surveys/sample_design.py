"""Design-weighted results: each yes/no share and each one-choice question's option shares under the survey file's
``sample_design`` (clusters, strata, weights).

Pure: takes a :class:`~surveys.definition.Survey` and the kept group tallies by its design's question (the
clusters', else the strata's: :func:`storage.queries.group_tallies`), and returns frozen dataclasses. Each
group's stored answers under the question's one design give its PSU totals (:func:`analysis.design_share`):
a cluster is a PSU; without clusters each respondent is one, and a stratum's two kinds of stored answer are
two rows with their counts. The cost does not grow with the number of answers. A one-choice question's option
is a forced-response yes/no under its design's option marginal (each answer's debiased indicator of the option
takes two values), so its shares follow from the same tallies, option by option. Only yes/no questions under
one design and one-choice questions read as k options are weighted; the others are listed as not weighted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from analysis import DesignShare, design_share
from surveys.definition import Choice, Question, SampleDesign, Survey
from surveys.design_contract import answer_counts, compatible_tallies, parse_design_key
from surveys.export_columns import ESTIMATE_COLUMNS
from surveys.kinds import is_k_option_choice, is_one_design_yes_no, k_option_choice_of_stored, kind_of
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
    """One yes/no question's or one option's design-weighted share; ``share`` is None (``note`` says why) when it
    has none.

    ``option``: the option of a one-choice question (None for a yes/no question); ``n``: the question's answers
    in the design's groups; ``note`` also says which strata had one PSU.
    """

    question: Question
    n: int
    share: DesignShare | None
    note: str = ""
    option: Choice | None = None


@dataclass(frozen=True)
class DesignWeighting:
    """The design-weighted shares of a survey with ``sample_design``.

    ``by``: the clusters' (else the strata's) question; ``rows``: one per yes/no question and one per option of
    a one-choice question; ``left_out``: the most answers of a question with no answer to it; ``not_weighted``:
    the randomized questions of other kinds; ``population_size``: ``N`` for the Horvitz-Thompson share (the
    survey's ``population_size``), or None.
    """

    sample_design: SampleDesign
    by: Question
    rows: tuple[DesignRow, ...]
    not_weighted: tuple[Question, ...]
    left_out: int
    confidence_level: float
    population_size: int | None


def is_weighted(question: Question) -> bool:
    """Whether the design weights read ``question``: a yes/no question under a one-group design, or a one-choice
    question read as k options (:mod:`surveys.kinds`)."""
    return is_one_design_yes_no(question) or is_k_option_choice(question)


def _designs(question: Question, grouped: Mapping, groups) -> dict[str, object]:
    """``{design key: design}`` of the keys ``question``'s answers in ``groups`` were stored under that its type
    reads (:func:`~surveys.design_contract.compatible_tallies`, each key parsed once)."""
    keys = {key for group in groups for key in grouped.get(group, {}).get(question.name, {})}
    return {tally.key: tally.design for tally in compatible_tallies(question, dict.fromkeys(keys, {}))[0]}


def _group_answers(by_design: Mapping, designs: Mapping) -> dict[str, dict[str, int]]:
    """``{design key: {answer: count}}`` of one group's tallies under ``designs``, where it has answers."""
    answered = {}
    for key in designs:
        answers = {answer: int(count) for answer, count in answer_counts(by_design.get(key, {})).items() if count}
        if answers:
            answered[key] = answers
    return answered


def _unit_columns(sample: SampleDesign, groups: list[str]) -> tuple[list[float], list | None, list | None]:
    """Per group: its weight, its stratum (clusters only) and its stratum's population count of PSUs."""
    weights = dict(sample.weights)
    fpc = dict(sample.fpc)
    if sample.clusters:
        stratum = dict(sample.cluster_strata)
        strata = [stratum.get(g, "") for g in groups]
        return [weights.get(g, 1.0) for g in groups], strata, [fpc[s] for s in strata] if fpc else None
    return [weights.get(g, 1.0) for g in groups], None, [fpc[g] for g in groups] if fpc else None


def _shares(question: Question, key: str, design, answers: list[dict[str, int]]) -> list[tuple] | str:
    """``(option, counts, t, a, b)`` per share of ``question`` under its one stored ``key``, ``counts`` from each
    group's ``answers``: a yes/no question's trait answers under its design; each option's answers of a
    one-choice question under its design's option marginal (a forced-response yes/no,
    :meth:`analysis.MultipleChoiceDesign.option_marginal`). A sentence instead when the key is not read so."""
    if is_one_design_yes_no(question):
        trait = design.trait_answer  # "yes", or "no" where a stored no points to the trait (its trait_count)
        return [(None, [group.get(trait, 0) for group in answers], *design.exact())]
    if not k_option_choice_of_stored(key) or tuple(parse_design_key(key)[1]) != question.choice_names:
        return "No design-weighted estimate: the answers came under a design that is not read as these options."
    marginal = design.option_marginal().exact()
    return [(choice, [group.get(choice.name, 0) for group in answers], *marginal) for choice in question.choices]


def _answered_groups(question: Question, grouped: Mapping, names: list) -> tuple[dict, dict, set, int]:
    """``(designs, per_group, keys, n)``: the designs ``question``'s answers in the groups ``names`` were kept
    under, each answered group's ``{answer: count}`` under its first, every design key with answers, and the
    answers."""
    designs = _designs(question, grouped, names)
    per_group, keys, n = {}, set(), 0
    for name in names:
        answered = _group_answers(grouped.get(name, {}).get(question.name, {}), designs)
        keys |= set(answered)
        n += sum(sum(answers.values()) for answers in answered.values())
        if answered:
            per_group[name] = next(iter(answered.values()))
    return designs, per_group, keys, n


def _share_row(survey: Survey, question: Question, n: int, groups: tuple, share: tuple, level: float) -> DesignRow:
    """One share's row, :func:`analysis.design_share` of ``share = (option, counts, ns, t, a, b)`` (per group:
    the answers counted for the share and all answers), or the reason it has none; ``groups = (names, weights,
    strata, fpc)`` (:func:`_unit_columns`); ``n``: the question's answers in the design's groups."""
    sample = survey.sample_design
    option, counts, ns, t, a, b = share
    groups, weights, strata, fpc = groups
    try:
        result = design_share(
            counts,
            ns,
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
        return DesignRow(question, n, None, f"No design-weighted estimate: {error}.", option)
    return DesignRow(question, n, result, _lonely_note(sample, result, groups), option)


def design_rows(survey: Survey, question: Question, grouped: Mapping, level: float) -> tuple[DesignRow, ...]:
    """``question``'s shares under ``survey.sample_design`` from the group tallies ``grouped`` by its question:
    one row for a yes/no question, one per option for a one-choice question."""
    by = survey.question(survey.sample_design.by)
    designs, per_group, keys, n = _answered_groups(question, grouped, [name for name, _ in kind_of(by).groups(by)])
    options = question.choices if is_k_option_choice(question) else (None,)
    if not per_group:
        return tuple(DesignRow(question, n, None, "No answers yet.", option) for option in options)
    note = "No design-weighted estimate: the answers came under several designs."
    shares = note if len(keys) != 1 else _shares(question, min(keys), designs[min(keys)], list(per_group.values()))
    if isinstance(shares, str):
        return tuple(DesignRow(question, n, None, shares, option) for option in options)
    ns = [sum(answers.values()) for answers in per_group.values()]
    groups = (list(per_group), *_unit_columns(survey.sample_design, list(per_group)))
    return tuple(
        _share_row(survey, question, n, groups, (option, counts, ns, t, a, b), level)
        for option, counts, t, a, b in shares
    )


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
    """Every yes/no share and every one-choice question's option shares under ``survey.sample_design`` from the
    kept group tallies by its question; None without ``sample_design``."""
    sample = survey.sample_design
    if sample is None:
        return None
    rows, others, left_out = [], [], 0
    for question in survey.randomized_questions:
        if not is_weighted(question):
            others.append(question)
            continue
        rows.extend(design_rows(survey, question, grouped, confidence_level))
        missing = _group_answers(grouped.get(None, {}).get(question.name, {}), _designs(question, grouped, [None]))
        left_out = max(left_out, sum(sum(answers.values()) for answers in missing.values()))
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
    """``{"weighted": {...}}`` for the estimates JSON: the design and one row per yes/no share and per option of a
    one-choice question (``question``, ``option``: the option's name or ``""``, ``n``, :data:`DESIGN_COLUMNS`,
    ``note``)."""
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
                {"question": r.question.name, "option": _option_name(r), "n": r.n, **design_values(weighting, r)}
                | {"note": r.note}
                for r in weighting.rows
            ],
        }
    }


def _option_name(row: DesignRow) -> str:
    """The row's option's name, ``""`` for a yes/no question's (as the estimates' ``option`` column)."""
    return "" if row.option is None else row.option.name


def design_estimates_csv(rows: list[dict], weighting: DesignWeighting) -> str:
    """The estimate ``rows`` with :data:`DESIGN_COLUMNS`, matched by question and option (empty for other
    questions)."""
    by_share = {(r.question.name, _option_name(r)): design_values(weighting, r) for r in weighting.rows}
    empty = dict.fromkeys(DESIGN_COLUMNS)
    merged = [row | by_share.get((row["question"], row["option"]), empty) for row in rows]
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
