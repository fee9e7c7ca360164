"""The ``sample_design`` of a survey file: design weights, strata and clusters (:mod:`surveys.sample_design`).

::

    sample_design:
      clusters: class                          # a plain one-choice question: each answer a drawn cluster (PSU)
      strata: {arts: [c1, c2], science: [c3]}  # with clusters: the clusters of each stratum
      weights: {c1: 12.5, c2: 12.5, c3: 40}    # each answer's design weight, per cluster (default 1)
      fpc: {arts: 40, science: 20}             # optional: the population's clusters per stratum
      variance: linearization                  # or jackknife

Without ``clusters``, each respondent is a PSU and ``strata`` names a plain one-choice question; ``weights``
and ``fpc`` are then per answer to it (``fpc``: the population's people per stratum). With one stratum,
``fpc`` may be one number. It cannot be given with ``population_counts`` (which weights to known counts
instead): one or the other.
"""

from __future__ import annotations

from collections.abc import Mapping

from surveys.definition import SampleDesign
from surveys.kinds import kind_of
from surveys.schema_checks import INVALID, check_keys, describe

SAMPLE_DESIGN_KEYS = ("clusters", "strata", "weights", "fpc", "variance")
VARIANCES = ("linearization", "jackknife")
_EXAMPLE = "{clusters: class, strata: {arts: [c1, c2], science: [c3]}, weights: {c1: 12.5, c2: 12.5, c3: 40}}"


def parse_sample_design(report, value, questions, population_counts=()):
    """The :class:`~surveys.definition.SampleDesign`; None when the key is absent."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        return report.add(None, "sample_design", f"must be a mapping such as {_EXAMPLE}, got {describe(value)}")
    before = len(report.problems)
    check_keys(report, None, "sample_design.", value, SAMPLE_DESIGN_KEYS)
    if population_counts:
        report.add(
            None,
            "sample_design",
            "cannot be given with population_counts: weight either by the design (sample_design) or to known "
            "population counts (population_counts), not both",
        )
    known = {q.name: q for q in questions} if isinstance(questions, tuple) else None
    clusters, strata = value.get("clusters"), value.get("strata")
    if clusters is None and strata is None:
        return report.add(None, "sample_design", "give clusters, strata or both")
    groups = _groups(report, "sample_design.clusters", clusters, known) if clusters is not None else None
    if clusters is None:
        groups = _groups(report, "sample_design.strata", strata, known)
        cluster_strata, stratum_names = (), groups
    else:
        cluster_strata = _cluster_strata(report, strata, groups)
        stratum_names = tuple(dict.fromkeys(s for _, s in cluster_strata)) if cluster_strata else ("",)
    weights = _weights(report, value.get("weights"), groups)
    listed = None
    if clusters is not None and groups is not None:
        listed = (
            {s: sum(1 for _, of in cluster_strata if of == s) for s in stratum_names}
            if cluster_strata
            else {"": len(groups)}
        )
    fpc = _fpc(report, value.get("fpc"), stratum_names, listed)
    variance = value.get("variance", "linearization")
    if variance not in VARIANCES:
        report.add(None, "sample_design.variance", f"must be linearization or jackknife, got {describe(variance)}")
    if len(report.problems) != before or groups is None:
        return INVALID
    return SampleDesign(
        clusters=clusters,
        strata=None if clusters is not None else strata,
        cluster_strata=cluster_strata,
        weights=weights,
        fpc=fpc,
        variance=variance,
    )


def _groups(report, where: str, name, known) -> tuple[str, ...] | None:
    """The answers (group names) of the plain one-choice question ``name``; None (reported) otherwise."""
    if not isinstance(name, str):
        report.add(None, where, f"must name a plain one-choice question, got {describe(name)}")
        return None
    if known is None:
        return None
    question = known.get(name)
    groups = kind_of(question).groups(question) if question is not None else ()
    if not groups:
        report.add(None, where, f"must name a plain (not randomized) one-choice question, got {name!r}")
        return None
    return tuple(group for group, _ in groups)


def _cluster_strata(report, strata, clusters) -> tuple[tuple[str, str], ...]:
    """``(cluster, stratum)`` for every cluster; ``()`` without strata (one stratum)."""
    if strata is None:
        return ()
    where = "sample_design.strata"
    if not isinstance(strata, Mapping) or not strata:
        report.add(
            None,
            where,
            f"with clusters, must list each stratum's clusters, such as {{arts: [c1, c2]}}, got {describe(strata)}",
        )
        return ()
    pairs = []
    for stratum, members in strata.items():
        if not isinstance(members, list) or not members:
            report.add(None, f"{where}.{stratum}", f"must be a list of clusters, got {describe(members)}")
            continue
        pairs.extend((str(member), str(stratum)) for member in members)
    seen: dict[str, str] = {}
    for cluster, stratum in pairs:
        if cluster in seen:
            report.add(None, f"{where}.{stratum}", f"{cluster} is already in stratum {seen[cluster]}")
        seen.setdefault(cluster, stratum)
    if clusters is not None:
        unknown = [c for c in seen if c not in clusters]
        missing = [c for c in clusters if c not in seen]
        if unknown:
            report.add(None, where, f"{', '.join(unknown)} is not a cluster; the clusters are {', '.join(clusters)}")
        if missing:
            report.add(None, where, f"put every cluster in a stratum: {', '.join(missing)} missing")
        return tuple((c, seen[c]) for c in clusters if c in seen)
    return tuple(seen.items())


def _weights(report, weights, groups) -> tuple[tuple[str, float], ...]:
    """``(group, weight)`` for every group, or ``()`` (every weight 1)."""
    if weights is None:
        return ()
    where = "sample_design.weights"
    if not isinstance(weights, Mapping) or not weights:
        report.add(None, where, f"must map each group to its design weight, got {describe(weights)}")
        return ()
    for group, weight in weights.items():
        if isinstance(weight, bool) or not isinstance(weight, int | float) or not 0 < weight < float("inf"):
            report.add(None, f"{where}.{group}", f"must be a positive number, got {describe(weight)}")
    if groups is None:
        return ()
    written = {str(group): weight for group, weight in weights.items()}
    unknown = [g for g in written if g not in groups]
    missing = [g for g in groups if g not in written]
    if unknown:
        report.add(None, where, f"{', '.join(unknown)} is not a group; the groups are {', '.join(groups)}")
    if missing:
        report.add(None, where, f"give a weight for every group: {', '.join(missing)} missing")
    return tuple((g, float(written[g])) for g in groups if g in written and not isinstance(written[g], bool))


def _fpc(report, fpc, strata: tuple[str, ...] | None, listed) -> tuple[tuple[str, int], ...]:
    """``(stratum, population count of PSUs)`` for every stratum, or ``()`` (drawn with replacement)."""
    if fpc is None:
        return ()
    where = "sample_design.fpc"
    if strata == ("",) and not isinstance(fpc, Mapping):
        fpc = {"": fpc}
    if not isinstance(fpc, Mapping) or not fpc:
        report.add(None, where, f"must map each stratum to its population count, got {describe(fpc)}")
        return ()
    for stratum, count in fpc.items():
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            label = f"{where}.{stratum}" if stratum != "" else where
            report.add(None, label, f"must be a whole number of 1 or more, got {describe(count)}")
            return ()
    if strata is None:
        return ()
    written = {str(s): c for s, c in fpc.items()}
    unknown = [s for s in written if s not in strata]
    missing = [s for s in strata if s not in written]
    if unknown or missing:
        names = ", ".join(strata)
        report.add(None, where, f"give one count for each stratum ({names}), got {', '.join(written) or 'none'}")
        return ()
    for stratum, count in (listed or {}).items():
        if written[stratum] < count:
            label = f"{where}.{stratum}" if stratum else where
            report.add(None, label, f"must be at least the {count} clusters listed, got {written[stratum]}")
    return tuple((s, written[s]) for s in strata)
