"""What a survey is: frozen objects built by :mod:`surveys.schema`.

A :class:`Survey` is a tuple of :class:`Question` objects plus the
survey-level settings (dates, privacy budget). Each randomized question
carries its design from :mod:`analysis.design`; a plain question has
``design=None`` and its answer is stored as given.

The objects check only the invariants that tie their fields together (a
randomized question has a design and vice versa). Everything a researcher
can get wrong in a file is reported, with its place, by the schema check (:mod:`surveys.schema`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import date
from fractions import Fraction

from analysis.design import BinaryDesign, MultipleChoiceDesign
from analysis.misclassification import MisclassificationDesign
from analysis.privacy import SurveyEpsilon, survey_epsilon
from analysis.two_group import TwoGroupDesign
from surveys.arms import is_two_group, two_group_attack_success
from surveys.conditions import Condition
from surveys.design_contract import (
    DECIMAL,
    DESIGN_CLASSES,
    INTEGER,
    NUMBER_TYPES,
    SELECT_MULTIPLE,
    SELECT_ONE,
    YES_NO,
    canonical_json,
)
from surveys.matrix import misclassification_attack_success
from surveys.numbers import NumberRange
from surveys.schema_releases import ReleasePolicy

#: The question types a survey file may use.
QUESTION_TYPES = (YES_NO, SELECT_ONE, INTEGER, DECIMAL, SELECT_MULTIPLE)

OPEN = "open"
CLOSED = "closed"
NOT_YET_OPEN = "not yet open"

#: Default delta for the advanced-composition epsilon.
DEFAULT_DELTA = 1e-6

#: Responses in one clock hour that make it a burst whatever the survey's other hours
#: (``burst_ceiling_per_hour``; :mod:`analysis.bursts`): more than one a minute for a whole hour.
DEFAULT_BURST_CEILING = 100


def _hash_once(obj) -> int:
    """The hash a frozen dataclass would compute from its compared fields, worked out once and kept on
    the object: a survey is a key of the web layer's caches on every request, and hashing its questions,
    designs and translations each time cost more than the lookups it keys. Kept with the process id: a
    string's hash differs between processes, so a copy that reached another one (pickled) works it out
    again."""
    kept = obj.__dict__.get("_hash")
    if kept is not None and kept[0] == os.getpid():
        return kept[1]
    value = hash(tuple(getattr(obj, f.name) for f in fields(obj) if (f.compare if f.hash is None else f.hash)))
    object.__setattr__(obj, "_hash", (os.getpid(), value))  # not a field: outside eq, repr and replace
    return value


@dataclass(frozen=True)
class Choice:
    """One option of a question: ``name`` is stored, ``label`` is shown."""

    name: str
    label: str


#: The implicit options of a yes/no question.
YES_NO_CHOICES = (Choice("yes", "Yes"), Choice("no", "No"))
#: A crosswise question's options: stored "yes" = the same answer to both statements (RRreg's 1).
CROSSWISE_CHOICES = (Choice("yes", "Both “yes” or both “no”"), Choice("no", "Exactly one “yes”"))
#: A triangular question's options: stored "no" = "no" to both statements (RRreg's 0).
TRIANGULAR_CHOICES = (Choice("yes", "“Yes” to at least one"), Choice("no", "“No” to both"))
#: Designs whose form shows a second, innocuous statement, with their options.
PAIRED_STATEMENT_CHOICES = {"crosswise": CROSSWISE_CHOICES, "triangular": TRIANGULAR_CHOICES}
#: The paired-statement design a file may extend with a second group whose innocuous statement is true with
#: ``1 - q`` (``design.extended``: the extended crosswise model, :mod:`analysis.extended_crosswise`).
EXTENDED_MODEL = "crosswise"


@dataclass(frozen=True)
class Question:
    """One question of a survey.

    Attributes
    ----------
    name : str
        Identifier, unique within the survey; the form field and the column.
    type : str
        ``"yes_no"``, ``"select_one"``, ``"integer"``, ``"decimal"`` or ``"select_multiple"``.
    label, hint : str
        The question as shown, and optional help text below it (``""``).
    required, randomize : bool
    choices : tuple of Choice
        The options, in order; for yes/no always :data:`YES_NO_CHOICES`.
    design : BinaryDesign, MultipleChoiceDesign or None
        How the answer is randomized; ``None`` exactly when ``randomize`` is
        false.
    innocuous : str
        Crosswise and triangular only: the innocuous statement shown beside
        the sensitive one (its "yes" share is the design's ``q``); else ``""``.
    second_innocuous : str
        An extended crosswise question only (``design.extended`` in the file,
        :mod:`surveys.schema_extended_crosswise`): group 2's innocuous
        statement, true with ``1 - q``; else ``""``.
    relevant : Condition or None
        Skip logic: the question is asked only when this condition holds for
        the answers before it (:mod:`surveys.conditions`); ``None``: always.
    number : NumberRange or None
        An ``integer`` or ``decimal`` question's grid and bins
        (:mod:`surveys.numbers`); ``None`` for every other type.
    """

    name: str
    type: str
    label: str
    hint: str
    required: bool
    randomize: bool
    choices: tuple[Choice, ...]
    design: BinaryDesign | MultipleChoiceDesign | TwoGroupDesign | MisclassificationDesign | None
    innocuous: str = ""
    relevant: Condition | None = None
    number: NumberRange | None = None
    second_innocuous: str = ""

    def __hash__(self) -> int:
        return _hash_once(self)

    def __post_init__(self) -> None:
        if self.randomize != (self.design is not None):
            raise ValueError(f"question {self.name!r}: randomize={self.randomize} but design={self.design!r}")
        if isinstance(self.design, MultipleChoiceDesign | MisclassificationDesign) and self.design.k != len(
            self.choices
        ):
            raise ValueError(
                f"question {self.name!r}: design has k={self.design.k} options "
                f"but there are {len(self.choices)} choices"
            )
        if self.second_innocuous and getattr(self.design, "kind", None) != EXTENDED_MODEL:
            raise ValueError(f"question {self.name!r}: a second innocuous statement on design {self.design!r}")
        if (self.number is not None) != (self.type in NUMBER_TYPES):
            raise ValueError(f"question {self.name!r}: a {self.type} question with number={self.number!r}")
        new_type = self.type in (*NUMBER_TYPES, SELECT_MULTIPLE)
        if self.design is not None and new_type and not isinstance(self.design, DESIGN_CLASSES[self.type]):
            raise ValueError(f"question {self.name!r}: a {self.type} question cannot have design {self.design!r}")
        steps = getattr(self.design, "steps", None)
        if steps is not None and self.number is not None and steps != self.number.steps:
            raise ValueError(f"question {self.name!r}: design of {steps} steps on a grid of {self.number.steps}")
        options = getattr(self.design, "options", None)
        if options is not None and options != len(self.choices):
            raise ValueError(f"question {self.name!r}: design of {options} options, {len(self.choices)} choices")

    @property
    def choice_names(self) -> tuple[str, ...]:
        return tuple(choice.name for choice in self.choices)

    @property
    def is_randomized(self) -> bool:
        return self.randomize


#: Confidence level of a target's confidence sequence unless the file gives one.
DEFAULT_TARGET_LEVEL = 0.95


@dataclass(frozen=True)
class Target:
    """A margin of error the researcher wants to reach, for one share or one difference.

    Attributes
    ----------
    question : str
        A randomized yes/no question or number of the survey.
    margin : float
        The wanted half-width of the anytime-valid confidence sequence, in
        ``(0, 1)`` on the share's scale (for a difference, on the
        difference's scale); for a number, a positive half-width of its mean's
        sequence in the question's units (its kind's ``target_scale``).
    confidence_level : float
        ``1 - alpha`` of the sequence, in ``(0, 1)``.
    by : str or None
        For a difference: the plain question whose answers form the groups.
    groups : tuple of str
        For a difference: the two answers to ``by`` compared (first minus
        second); ``()`` for a share.
    """

    question: str
    margin: float
    confidence_level: float = DEFAULT_TARGET_LEVEL
    by: str | None = None
    groups: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if (self.by is None) != (not self.groups) or len(self.groups) not in (0, 2):
            raise ValueError(
                f"target for {self.question!r}: by={self.by!r} needs exactly two groups, got {self.groups!r}"
            )

    @property
    def is_difference(self) -> bool:
        return self.by is not None

    def label(self) -> str:
        """``cheated`` or ``cheated, first - fourth by year``: what the dashboard names it."""
        if not self.is_difference:
            return self.question
        return f"{self.question}, {self.groups[0]} − {self.groups[1]} by {self.by}"


@dataclass(frozen=True)
class PopulationMargin:
    """The population's count at each answer to one plain question (``population_counts`` of a survey file).

    ``by`` is the plain question; ``counts`` its groups (choice names, or a plain number's bin keys) with
    their population counts, in the question's order. One margin post-stratifies the randomized shares, two
    or more rake them (:mod:`surveys.weights`).
    """

    by: str
    counts: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class SampleDesign:
    """How the respondents were drawn (``sample_design`` of a survey file, :mod:`surveys.sample_design`).

    ``clusters``: the plain question whose answer names each respondent's drawn cluster (a PSU), or None (each
    respondent a PSU). ``strata``: without clusters, the plain question whose answer is the stratum.
    ``cluster_strata``: with clusters, ``(cluster, stratum)`` for every cluster (``()``: one stratum).
    ``weights``: ``(group, design weight)`` for every group of :attr:`by` (``()``: all 1). ``fpc``:
    ``(stratum, population count of PSUs)`` (``""`` for the one stratum; ``()``: drawn with replacement).
    ``variance``: ``"linearization"`` or ``"jackknife"``.
    """

    clusters: str | None = None
    strata: str | None = None
    cluster_strata: tuple[tuple[str, str], ...] = ()
    weights: tuple[tuple[str, float], ...] = ()
    fpc: tuple[tuple[str, int], ...] = ()
    variance: str = "linearization"

    @property
    def by(self) -> str:
        """The plain question whose kept group tallies give the PSU totals: the clusters', else the strata's."""
        return self.clusters or self.strata or ""


@dataclass(frozen=True)
class TargetScale:
    """How a target's margin is read, checked and shown, for one kind of question (its kind's ``target_scale``).

    Attributes
    ----------
    upper : float or None
        The margin must be below it (1 for a share); None: any positive number.
    rule : str
        What the margin must be, as the survey-file check says it.
    factor : float
        A margin or half-width is shown as ``value * factor`` (100: percentage points).
    unit : str
        Written after the target's margin on the dashboard (``" points"``; ``""`` in the question's units).
    decimals : int
        Decimals shown.
    differences : bool
        Whether a target may be a difference between two groups of a plain question.
    """

    upper: float | None
    rule: str
    factor: float = 1.0
    unit: str = ""
    decimals: int = 2
    differences: bool = False

    def text(self, value: float) -> str:
        """``value`` as the dashboard shows it: ``"4.2"`` (points) or ``"0.35"`` (the question's units)."""
        return f"{value * self.factor:.{self.decimals}f}"


#: A target on a share (a randomized yes/no question's, or a difference of two groups' shares).
SHARE_TARGET = TargetScale(
    1.0,
    "a number between 0 and 1 (exclusive): the wanted half-width, such as 0.05 for ±5 percentage points",
    100.0,
    " points",
    1,
    True,
)


def attack_success_rate(design) -> float:
    """Best chance of guessing a true answer from one stored answer under a uniform prior, for any design."""
    if is_two_group(design):
        return two_group_attack_success(design)
    if isinstance(design, MisclassificationDesign):
        return misclassification_attack_success(design)
    return design.attack_success_rate


@dataclass(frozen=True)
class Anchor:
    """A randomized yes/no question whose true share is known (``known_prevalence:``): an *anchor*.

    Its estimate measures the share of careless respondents, who answer "no" whatever the truth
    (:func:`analysis.careless.careless_share`).
    """

    question: str
    known_prevalence: Fraction


@dataclass(frozen=True)
class Survey:
    """A survey as loaded from one file.

    Attributes
    ----------
    id : str
        Slug used in URLs.
    title, intro : str
    version : int
        Bumped by the researcher when the questions change.
    questions : tuple of Question
    closed : bool
        Closed by hand, whatever the dates say.
    opens, closes : datetime.date or None
        First and last day on which answers are taken (both inclusive).
    epsilon_budget : float or None
        The most per-respondent epsilon (basic composition) the researcher
        allows; the loader refuses a survey over it.
    delta : float
        Delta for the advanced-composition figure in :attr:`epsilon`.
    source : str
        Name of the file the survey came from.
    invitation_only : bool
        Answers are taken only with a single-use invitation code
        (``flask --app app codes create``), given in the link as ``?code=``.
    max_responses_per_address_per_hour : int or None
        Submissions this survey takes from one client address per clock hour;
        ``None``: only the site-wide rate limit applies.
    burst_ceiling_per_hour : int
        Responses in one clock hour that flag it as a burst whatever the
        survey's other hours (:mod:`analysis.bursts`); the answers that
        arrive from there on in that hour are marked.
    population_size : int or None
        The number of people the respondents were drawn from, when finite and
        known: the results add the finite-population standard error of each
        one-design yes/no question (:func:`surveys.results.with_finite_population`).
    population_counts : tuple of PopulationMargin
        Known population counts of plain questions' answers: the randomized shares are post-stratified to
        one margin or raked to several (:mod:`surveys.weights`); ``()``: not given.
    sample_design : SampleDesign or None
        Design weights, strata and clusters: the yes/no shares' Hajek and Horvitz-Thompson estimates
        (:mod:`surveys.sample_design`); None: not given.
    organizer, contact, ethics_approval : str
        Who runs the survey, how to reach them and the ethics approval
        reference, shown on the form (``""``: not given).
    closing : str
        Text shown on the thank-you page (``""``: none).
    next_url : str
        A link offered on the thank-you page: an http(s) address or a path
        of this site (``""``: none).
    targets : tuple of Target
        Margins of error the researcher wants (``()``: none); the dashboard
        shows how far the survey is from each.
    close_when_targets_met : bool
        Close the survey once every target is met by its confidence sequence
        (needs at least one target).
    group_1_share : Fraction or None
        The share of respondents sent to group 1 of the survey's two-group
        designs (:mod:`surveys.arms`); ``None`` when it has none.
    direct_share : Fraction or None
        The share sent to the direct-question control arm; ``None``: no such arm.
    pages : tuple of tuple of str
        The question names of each page, in order, when the file splits the
        questions with ``page_break`` entries; ``()``: one page.
    languages : tuple of str
        The languages the file gives its texts in, the default first; ``()``:
        one language, not named.
    language : str
        The language of this object's texts (``""`` without ``languages``).
    translations : tuple of (str, Survey)
        The same survey in each other language: only the texts differ
        (names, choices, designs and pages are the same), so the stored
        answers do not depend on the language.
    release_policy : ReleasePolicy or None
        The file's ``releases:`` key (:mod:`surveys.schema_releases`): the budget and rules of the
        survey's public result releases (:mod:`surveys.releases`); ``None``: no release may be made.
    anchor : Anchor or None
        The randomized yes/no question of known prevalence (``known_prevalence:``, :mod:`surveys.schema_anchor`)
        that measures careless answering (:mod:`surveys.careless`); ``None``: none.
    """

    id: str
    title: str
    version: int
    intro: str
    questions: tuple[Question, ...]
    closed: bool = False
    opens: date | None = None
    closes: date | None = None
    epsilon_budget: float | None = None
    delta: float = DEFAULT_DELTA
    source: str = ""
    invitation_only: bool = False
    max_responses_per_address_per_hour: int | None = None
    burst_ceiling_per_hour: int = DEFAULT_BURST_CEILING
    population_size: int | None = None
    organizer: str = ""
    contact: str = ""
    ethics_approval: str = ""
    closing: str = ""
    next_url: str = ""
    targets: tuple[Target, ...] = ()
    close_when_targets_met: bool = False
    group_1_share: Fraction | None = None
    direct_share: Fraction | None = None
    pages: tuple[tuple[str, ...], ...] = ()
    languages: tuple[str, ...] = ()
    language: str = ""
    translations: tuple[tuple[str, Survey], ...] = ()
    release_policy: ReleasePolicy | None = None
    population_counts: tuple[PopulationMargin, ...] = ()
    anchor: Anchor | None = None
    sample_design: SampleDesign | None = None

    def __hash__(self) -> int:
        return _hash_once(self)

    def in_language(self, language: str) -> Survey:
        """This survey with its texts in ``language``; itself for its own or an unknown language."""
        return dict(self.translations).get(language, self)

    @property
    def page_names(self) -> tuple[tuple[str, ...], ...]:
        """The question names of every page (one page of all questions without page breaks)."""
        return self.pages or (tuple(q.name for q in self.questions),)

    @property
    def randomized_questions(self) -> tuple[Question, ...]:
        return tuple(q for q in self.questions if q.is_randomized)

    @property
    def plain_questions(self) -> tuple[Question, ...]:
        """The questions asked without randomization whose answer is one choice: break-down groups, the
        model's predictors and what skip logic may name. A plain number is stored as given too and is a
        break-down group and a predictor by its bins (:func:`surveys.kinds.breakdown_questions`,
        :func:`surveys.models.predictor_questions`), but skip logic does not name it yet."""
        return tuple(q for q in self.questions if not q.is_randomized and q.type in (YES_NO, SELECT_ONE))

    def question(self, name: str) -> Question:
        """The question called ``name``; ``KeyError`` if there is none."""
        for q in self.questions:
            if q.name == name:
                return q
        raise KeyError(name)

    def skipped(self, answers: Mapping[str, str]) -> frozenset[str]:
        """The questions not asked given ``answers`` (skip logic, in question order).

        A condition names only earlier questions, so one pass decides: a
        skipped question counts as unanswered for the conditions after it.
        """
        seen: dict[str, str | None] = {}
        skipped = set()
        for q in self.questions:
            if q.relevant is not None and not q.relevant.evaluate(seen):
                skipped.add(q.name)
            else:
                seen[q.name] = answers.get(q.name)
        return frozenset(skipped)

    @property
    def epsilon(self) -> SurveyEpsilon:
        """Per-respondent epsilon over the randomized questions.

        Plain questions are stored as given and carry no differential-privacy
        guarantee at all; they are not part of this figure.
        """
        return survey_epsilon([q.design.epsilon for q in self.randomized_questions], self.delta)

    @property
    def attack_success_rate(self) -> float | None:
        """The best chance, over the randomized questions, of guessing a true
        answer from its noisy one; ``None`` if nothing is randomized."""
        rates = [attack_success_rate(q.design) for q in self.randomized_questions]
        return max(rates) if rates else None

    def state(self, today: date, closed: bool | None = None) -> str:
        """``"open"``, ``"closed"`` or ``"not yet open"`` on ``today``; ``closed`` (None: the file's own flag)
        in place of the file's ``closed`` flag."""
        if (self.closed if closed is None else closed) or (self.closes is not None and today > self.closes):
            return CLOSED
        if self.opens is not None and today < self.opens:
            return NOT_YET_OPEN
        return OPEN

    def design_fingerprint(self) -> str:
        """A short hex digest of every question's type, options and design.

        Stored with each response so that the answers can be debiased with
        exactly the designs they were randomized with, even after the file
        is edited. Labels and wording do not change it; names, options,
        probabilities and a number's grid (range, step, bins) do. The survey's id is part of it: two surveys with the
        same questions (a copy under a new id) keep design records of their own
        (the digest of ``"<id>\\0<digest of the questions>"``, which migration
        ``m016_survey_scoped_design_ids`` computes for the records made before).
        """
        record = [
            [q.name, q.type, list(q.choice_names), q.design.to_dict() if q.design else None]
            + ([q.number.to_dict()] if q.number is not None else [])  # a number's grid: what its steps mean
            for q in self.questions
        ]
        questions = hashlib.sha256(canonical_json(record).encode("utf-8")).hexdigest()[:16]
        return hashlib.sha256(f"{self.id}\0{questions}".encode()).hexdigest()[:16]
