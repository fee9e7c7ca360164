"""What protects the respondents of a release, in plain sentences true for the survey's designs.

Part of :mod:`surveys.releases`; :func:`protection` is what a :class:`surveys.release_figures.Release` carries, as
the catalogues' messages (:mod:`surveys.release_words`) so each reader sees them in the page's language.
"""

from __future__ import annotations

from surveys.definition import Survey
from surveys.kinds import breakdown_questions
from surveys.release_plans import GAUSSIAN, ReleasePlan
from surveys.release_words import Number, Words, words
from surveys.text_format import N_


def _labels(labels) -> str:
    """Question labels in quotation marks, separated by commas (the survey's own words, never translated)."""
    return ", ".join(f"“{label}”" for label in labels)


def protection(survey: Survey, plan: ReleasePlan) -> tuple[Words, ...]:
    """Plain sentences, true for ``survey``'s designs and ``plan``'s figures, on what protects the respondents
    and what an observer of the release can and cannot learn."""
    policy = survey.release_policy
    sentences = []
    randomized = survey.randomized_questions
    if randomized:
        sentences.append(
            words(
                N_(
                    "Answers to %(names)s were randomized before they were stored, on the respondent's device (or at "
                    "once on the server when the browser ran no JavaScript): the stored answer does not say what the "
                    "person answered, and every figure from those answers is computed from the randomized answers "
                    "only."
                ),
                names=_labels(q.label for q in randomized),
            )
        )
        if survey.direct_share:
            sentences.append(
                words(
                    N_(
                        "A share of %(share)s of the respondents, drawn at random, were asked these questions "
                        "directly as a control group; their answers to them are in no figure of this release."
                    ),
                    share=Number(float(survey.direct_share), "level"),
                )
            )
    if plan.costing_keys:
        used = {name for key in plan.costing_keys for name in key.split(":")[1:]}
        names = _labels(q.label for q in breakdown_questions(survey) if q.name in used)
        mechanism = N_("discrete Gaussian") if plan.mechanism == GAUSSIAN else N_("discrete Laplace")
        common = {"names": names, "mechanism": words(mechanism), "epsilon": Number(plan.cost.epsilon, "g3")}
        if plan.cost.delta:
            sentences.append(
                words(
                    N_(
                        "Answers to %(names)s are stored as given. Every figure here that uses them had random noise "
                        "added (%(mechanism)s) before it was published, so that adding or removing one person changes "
                        "the chance of any published result only a little (this release: epsilon %(epsilon)s, delta "
                        "%(delta)s)."
                    ),
                    delta=f"{plan.cost.delta:g}",
                    **common,
                )
            )
        else:
            sentences.append(
                words(
                    N_(
                        "Answers to %(names)s are stored as given. Every figure here that uses them had random noise "
                        "added (%(mechanism)s) before it was published, so that adding or removing one person changes "
                        "the chance of any published result only a little (this release: epsilon %(epsilon)s)."
                    ),
                    **common,
                )
            )
    sentences.append(
        words(
            N_(
                "What anyone can learn from this page: that the survey ran, how many answers it counted (published "
                "as it is, without noise), and the figures with their intervals. Randomized answers do not hide "
                "whether someone took part or how many people answered."
            )
        )
    )
    sentences.append(_cannot_learn(survey))
    if policy is not None:
        sentences.append(_rows_assumption(survey))
    return tuple(sentences)


def _cannot_learn(survey: Survey) -> Words:
    policy = survey.release_policy
    if policy is None:
        return words(
            N_(
                "What no one can learn from it: any one person's true answer, beyond what the randomization and "
                "the noise allow; comparing this release with another does not undo the noise, because each "
                "release is a snapshot at least 0 answers after the last and every release is paid from the "
                "survey's one budget."
            )
        )
    values = {"answers": Number(policy.min_new_answers, "whole"), "epsilon": f"{float(policy.epsilon):g}"}
    if policy.delta:
        return words(
            N_(
                "What no one can learn from it: any one person's true answer, beyond what the randomization and "
                "the noise allow; comparing this release with another does not undo the noise, because each "
                "release is a snapshot at least %(answers)s answers after the last and every release is paid from "
                "the survey's one budget (epsilon %(epsilon)s in all, delta %(delta)s)."
            ),
            delta=f"{policy.delta:g}",
            **values,
        )
    return words(
        N_(
            "What no one can learn from it: any one person's true answer, beyond what the randomization and the "
            "noise allow; comparing this release with another does not undo the noise, because each release is a "
            "snapshot at least %(answers)s answers after the last and every release is paid from the survey's one "
            "budget (epsilon %(epsilon)s in all)."
        ),
        **values,
    )


def _rows_assumption(survey: Survey) -> Words:
    rows = survey.release_policy.rows_per_person
    if survey.invitation_only:
        if rows == 1:
            return words(
                N_(
                    "The noise assumes that one person gives at most 1 answer; answers come only with single-use "
                    "invitation codes, so this holds as long as each person receives at most that many codes."
                )
            )
        return words(
            N_(
                "The noise assumes that one person gives at most %(rows)s answers; answers come only with "
                "single-use invitation codes, so this holds as long as each person receives at most that many codes."
            ),
            rows=Number(rows, "whole"),
        )
    if rows == 1:
        return words(
            N_(
                "The noise assumes that one person gives at most 1 answer. This survey takes answers without "
                "invitation codes, so this is an assumption: a person who answered more often is less protected."
            )
        )
    return words(
        N_(
            "The noise assumes that one person gives at most %(rows)s answers. This survey takes answers without "
            "invitation codes, so this is an assumption: a person who answered more often is less protected."
        ),
        rows=Number(rows, "whole"),
    )
