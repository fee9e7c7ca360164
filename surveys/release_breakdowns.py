"""A release's break-down: a randomized question's estimate per answer to a plain question, from noisy cells.

Part of :mod:`surveys.releases`. Each cell (plain answer x stored noisy answer, under the question's current
design) is noised once; the cells are disjoint (parallel composition); each group's estimate is the question's
own estimator applied to the noisy cells, and its interval adds the noise's variance to the sampling variance by
the delta method (Casella and Berger 2002, section 5.5.4: the noise is independent of the sample, so the
variances add). The estimator is affine in the observed shares for every design a break-down takes; its map is
read once per question from the kind's own ``compute`` (:func:`_affine_estimator`), so a group costs a few array
operations, not an estimate.

References
----------
G. Casella and R. L. Berger, "Statistical Inference", 2nd ed., 2002, section 5.5.4 (the delta method).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from analysis.central import nonnegative_counts
from surveys.definition import Question
from surveys.design_contract import question_design_key
from surveys.kinds import kind_of
from surveys.release_figures import PublishedFigure, PublishedRow
from surveys.release_noise import NONNEGATIVE_WORDS, count_noise, z_value
from surveys.release_words import words
from surveys.text_format import MISSING, N_, percent

#: Answers per cell at the points where a question's estimator is read (:func:`_affine_estimator`).
_PROBE = 1000


def _raw_estimates(question: Question, counts: Sequence[int]) -> list[tuple[str, float | None]]:
    """``[(option, estimate_raw)]`` of the question's own estimator (its kind's ``compute``) on ``counts`` of its
    answers under its current design."""
    kind = kind_of(question)
    by_design = {question_design_key(question): dict(zip(question.choice_names, counts))}
    result = kind.compute(question, by_design, 0.95, "wald")
    return [
        (row.get("option") or "", row.get("estimate_raw"))
        for row in kind.estimate_rows(result, 0.95)
        if not row.get("version_of_pooled")
    ]


@lru_cache(maxsize=256)
def _affine_estimator(question: Question) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """``(options, base, G)``: the question's unbiased estimator as an affine map of its observed shares
    ``lambda``, ``estimate = base + G lambda``, read from its kind's own ``compute``.

    Every design a break-down takes (yes/no, ``select_one``, a misclassification matrix; one design, one arm)
    estimates ``P^-1 (lambda - offset)``: affine in ``lambda``. With ``u`` the uniform shares, ``estimate(u)``
    and column ``j`` of ``G`` is ``(estimate((u + e_j) / 2) - estimate(u)) / (1/2) = A (e_j - u)``, so that
    ``estimate(u) + A (lambda - u) = estimate(u) + G lambda`` for every ``lambda`` on the simplex: ``base`` is
    ``estimate(u)``. Read once per question (k + 1 estimates) and kept.
    """
    k = len(question.choice_names)
    base_rows = _raw_estimates(question, [_PROBE] * k)
    options = tuple(option for option, _ in base_rows)
    base = np.array([np.nan if raw is None else raw for _, raw in base_rows], dtype=float)
    columns = []
    for j in range(k):
        counts = [_PROBE] * k
        counts[j] += k * _PROBE
        moved = np.array([np.nan if raw is None else raw for _, raw in _raw_estimates(question, counts)], dtype=float)
        columns.append((moved - base) * 2)
    return options, base, np.column_stack(columns)


def _group_estimates(question: Question, counts: Sequence[int], variance: float):
    """``[(option, estimate, total variance)]`` of one group from its noisy cells ``counts``.

    ``estimate = base + G lambda`` (:func:`_affine_estimator`) with ``lambda = counts / n``. Its variance is the
    multinomial sampling variance ``[G (diag(lambda) - lambda lambda^T) G^T]_ii / n`` plus the noise's by the
    delta method: ``lambda`` moves by ``(e_l - lambda) / n`` per unit of cell ``l``, each cell's noise has
    variance ``V``, so the noise adds ``V / n^2 sum_l (G_il - (G lambda)_i)^2`` (Casella and Berger 2002,
    section 5.5.4; the noise is independent of the sample).
    """
    options, base, g = _affine_estimator(question)
    n = sum(counts)
    shares = np.asarray(counts, dtype=float) / n
    moved = g @ shares
    sampling = np.einsum("ij,j,ij->i", g, shares, g) - moved**2
    noise = ((g - moved[:, None]) ** 2).sum(axis=1) * variance / n
    return list(zip(options, (base + moved).tolist(), ((sampling + noise) / n).tolist()))


def _unit(value: float) -> float:
    """``value`` kept within ``[0, 1]`` (a share)."""
    return min(max(value, 0.0), 1.0)


def breakdown_figure(survey, plan, policy, key, inputs, sampler, level) -> PublishedFigure:
    _, name, by_name = key.split(":", 2)
    question, by = survey.question(name), survey.question(by_name)
    noise = count_noise(plan, policy, key)
    design_key = question_design_key(question)
    answers = question.choice_names
    labels = {choice.name: choice.label for choice in question.choices}
    groups = list(kind_of(by).groups(by))
    if not by.required or by.relevant is not None:
        groups.append((None, "No answer"))
    grouped = inputs.group_tallies.get(by.name, {})
    z, rows = z_value(level), []
    for value, group_label in groups:
        cells = grouped.get(value, {}).get(question.name, {}).get(design_key, {})
        shown = list(nonnegative_counts([int(cells.get(a, 0)) + noise.draw(sampler) for a in answers]))
        if sum(shown) == 0:
            rows.append(PublishedRow(f"{group_label}", f"{MISSING} (0)", MISSING, MISSING, None))
            continue
        for option, raw, total in _group_estimates(question, shown, noise.variance):
            label = group_label if not option else f"{group_label}: {labels.get(option, option)}"
            if not (math.isfinite(raw) and math.isfinite(total)):
                rows.append(PublishedRow(label, MISSING, MISSING, MISSING, None))
                continue
            half = z * math.sqrt(max(total, 0.0))
            low, shown_value, high = (_unit(raw - half), _unit(raw), _unit(raw + half))
            text = f"{percent(shown_value, 1)} ({sum(shown)})"
            rows.append(PublishedRow(label, text, percent(low, 1), percent(high, 1), shown_value))
    note = words(
        N_(
            "%(noise)s; a cell is the answers of one group with one stored (randomized) answer, so the cells are "
            "disjoint and the table costs one epsilon. Then %(how)s, group by group. Each estimate applies the "
            "question's own estimator to the noisy cells; its interval adds the noise's variance to the sampling "
            "variance (delta method). The number in brackets is the group's answers (the sum of its noisy cells). "
            "Only answers under the question's current design are counted."
        ),
        noise=noise.describe(level),
        how=NONNEGATIVE_WORDS,
    )
    title = words(N_("%(question)s by %(by)s"), question=question.label, by=by.label)
    return PublishedFigure.of(key, title, tuple(rows), note, float(plan.epsilon_each[key]))
