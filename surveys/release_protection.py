"""What protects the respondents of a release, in plain sentences true for the survey's designs.

Part of :mod:`surveys.releases`; :func:`protection` is what a :class:`surveys.release_figures.Release` carries.
"""

from __future__ import annotations

from surveys.definition import Survey
from surveys.kinds import breakdown_questions
from surveys.release_plans import ReleasePlan
from surveys.text_format import count_text, percent


def protection(survey: Survey, plan: ReleasePlan) -> tuple[str, ...]:
    """Plain sentences, true for ``survey``'s designs and ``plan``'s figures, on what protects the respondents
    and what an observer of the release can and cannot learn."""
    policy = survey.release_policy
    sentences = []
    randomized = survey.randomized_questions
    if randomized:
        names = ", ".join(f"“{q.label}”" for q in randomized)
        sentences.append(
            f"Answers to {names} were randomized before they were stored, on the respondent's device (or at once "
            "on the server when the browser ran no JavaScript): the stored answer does not say what the person "
            "answered, and every figure from those answers is computed from the randomized answers only."
        )
        if survey.direct_share:
            sentences.append(
                f"A share of {percent(float(survey.direct_share), 1, trim=True)} of the respondents, drawn at "
                "random, were asked these questions directly as a control group; their answers to them are in no "
                "figure of this release."
            )
    if plan.costing_keys:
        used = {name for key in plan.costing_keys for name in key.split(":")[1:]}
        names = ", ".join(f"“{q.label}”" for q in breakdown_questions(survey) if q.name in used)
        sentences.append(
            f"Answers to {names} are stored as given. Every figure here that uses them had random noise added "
            f"({plan.mechanism}) before it was published, so that adding or removing one person changes the chance "
            f"of any published result only a little (this release: epsilon {plan.cost.epsilon:.3g}"
            + (f", delta {plan.cost.delta:g})." if plan.cost.delta else ").")
        )
    sentences.append(
        "What anyone can learn from this page: that the survey ran, how many answers it counted (published as it "
        "is, without noise), and the figures with their intervals. Randomized answers do not hide whether someone "
        "took part or how many people answered."
    )
    sentences.append(
        "What no one can learn from it: any one person's true answer, beyond what the randomization and the noise "
        "allow; comparing this release with another does not undo the noise, because each release is a snapshot "
        f"at least {policy.min_new_answers if policy else 0} answers after the last and every release is paid "
        "from the survey's one budget"
        + (
            f" (epsilon {float(policy.epsilon):g} in all" + (f", delta {policy.delta:g})." if policy.delta else ").")
            if policy
            else "."
        )
    )
    if policy is not None:
        rows = count_text(policy.rows_per_person, "answer")
        if survey.invitation_only:
            sentences.append(
                f"The noise assumes that one person gives at most {rows}; answers come only with single-use "
                "invitation codes, so this holds as long as each person receives at most that many codes."
            )
        else:
            sentences.append(
                f"The noise assumes that one person gives at most {rows}. This survey takes answers without "
                "invitation codes, so this is an assumption: a person who answered more often is less protected."
            )
    return tuple(sentences)
