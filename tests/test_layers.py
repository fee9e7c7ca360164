"""The layers import one way only (README "Architecture"; STYLE.md "Our layering").

Every module under ``analysis/``, ``surveys/``, ``storage/`` and ``web/`` is
read with :mod:`ast`, imports inside functions included, and each imported
top-level package is checked against what its layer may not import.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from surveys.kinds import KIND_FLAGS, KIND_NAMES, KINDS

ROOT = Path(__file__).resolve().parent.parent

#: What each layer may not import (top-level package names).
FORBIDDEN = {
    "analysis": {"flask", "werkzeug", "wtforms", "sqlite3", "sqlite_utils", "psycopg", "surveys", "storage", "web"},
    "surveys": {"flask", "werkzeug", "wtforms", "sqlite3", "sqlite_utils", "storage", "web"},
    "storage": {"flask", "werkzeug", "wtforms", "web"},
}
LAYERS = ("analysis", "surveys", "storage", "web")
#: The underscore names that are a public API (``collections.namedtuple``'s).
NAMEDTUPLE_API = {"_asdict", "_replace", "_fields", "_make"}
#: The names numpy is imported as.
NUMPY = {"np", "numpy"}


def imported_packages(source: str) -> set[str]:
    """The top-level package of every ``import`` and absolute ``from ... import``, anywhere in ``source``."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def violations(root: Path = ROOT) -> list[str]:
    """``"module imports package"`` for every import that crosses a layer the wrong way."""
    found = []
    for layer, forbidden in FORBIDDEN.items():
        for path in sorted((root / layer).rglob("*.py")):
            for package in sorted(imported_packages(path.read_text(encoding="utf-8")) & forbidden):
                found.append(f"{path.relative_to(root)} imports {package}")
    return found


def test_every_layer_exists_and_has_modules():
    for layer in LAYERS:
        assert list((ROOT / layer).glob("*.py")), f"{layer}/ has no modules"


def test_no_layer_imports_against_the_direction():
    assert violations() == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import flask", {"flask"}),
        ("from sqlite_utils import Database", {"sqlite_utils"}),
        ("import storage.queries as q", {"storage"}),
        ("def f():\n    from storage import queries\n", {"storage"}),
        ("class C:\n    def m(self):\n        import web.db\n", {"web"}),
        ("from . import sibling", set()),
    ],
)
def test_imports_are_found_wherever_they_are_written(source, expected):
    assert imported_packages(source) == expected


def test_a_hidden_import_is_reported(tmp_path):
    (tmp_path / "surveys").mkdir()
    (tmp_path / "surveys" / "results.py").write_text("def stored():\n    from storage import queries\n")
    (tmp_path / "analysis").mkdir()
    (tmp_path / "analysis" / "estimate.py").write_text("import numpy\nimport sqlite3\n")
    assert violations(tmp_path) == ["analysis/estimate.py imports sqlite3", "surveys/results.py imports storage"]


def predictable_sources(source: str) -> set[str]:
    """Every use in ``source`` of a predictable number source: ``random``, ``numpy.random`` (imported or reached
    as ``np.random``/``numpy.random``), anywhere, inside functions included."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in {"random", "numpy.random"})
        elif isinstance(node, ast.ImportFrom) and node.module in {"random", "numpy.random"}:
            found.add(node.module)
        elif isinstance(node, ast.ImportFrom) and node.module == "numpy":
            found.update("numpy.random" for alias in node.names if alias.name == "random")
        elif (
            isinstance(node, ast.Attribute)
            and node.attr == "random"
            and getattr(node.value, "id", "") in {"np", "numpy"}
        ):
            found.add("numpy.random")
    return found


def random_users(root: Path = ROOT) -> list[str]:
    """``"module uses source"`` for every module of the layers that reaches a predictable number source."""
    return [
        f"{path.relative_to(root)} uses {source}"
        for layer in LAYERS
        for path in sorted((root / layer).rglob("*.py"))
        for source in sorted(predictable_sources(path.read_text(encoding="utf-8")))
    ]


def test_no_source_module_draws_from_random():
    """The privacy paths draw from ``secrets`` only; no module of the app imports ``random`` or ``numpy.random``,
    not even for tests (the tests' seeded sampler is tests/helpers/seeded.py), so none can reach a live draw."""
    assert random_users() == []


@pytest.mark.parametrize(
    "source",
    [
        "import random",
        "def seeded():\n    import random  # noqa\n    return random.Random(1)\n",
        "from random import randrange",
        "import numpy as np\nx = np.random.default_rng()",
        "from numpy import random",
        "from numpy.random import default_rng",
    ],
)
def test_a_predictable_source_is_found_wherever_it_is_written(source, tmp_path):
    (tmp_path / "surveys").mkdir()
    (tmp_path / "surveys" / "central_noise.py").write_text(source)
    assert random_users(tmp_path) and random_users(tmp_path)[0].startswith("surveys/central_noise.py uses ")


def private_borrowings(root: Path = ROOT) -> list[str]:
    """``"module: name"`` for every underscore name a module of the layers (or of ``bench/`` and ``devtools/``)
    takes from another module: imported
    (``from m import _f``), reached through a module (``m._f``) or through another module's object (``obj._m()``
    on a name that is not ``self``/``cls``). ``analysis/_checks.py`` is a module private to ``analysis/``: its
    own names are public, and only ``analysis/`` imports it."""
    found = []
    for layer in (*LAYERS, "bench", "devtools"):
        for path in sorted((root / layer).rglob("*.py")):
            module = path.relative_to(root).as_posix()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = []
                if isinstance(node, ast.ImportFrom) and node.module:
                    names = [alias.name for alias in node.names]
                    if node.module == "analysis._checks" and layer != "analysis":
                        names.append("analysis._checks")
                elif isinstance(node, ast.Attribute) and getattr(node.value, "id", "self") not in {"self", "cls"}:
                    names = [node.attr]
                found += [
                    f"{module}: {name}"
                    for name in names
                    if name.startswith("_") and name[1:2] != "_" and name not in NAMEDTUPLE_API
                ]
                found += [f"{module}: {name}" for name in names if name == "analysis._checks"]
    return found


def test_no_module_uses_another_modules_private_names():
    """A helper two modules share has a public name in its one home (analysis/README.md lists those of
    ``analysis/``): no module imports or reaches another module's underscore names."""
    assert private_borrowings() == []


@pytest.mark.parametrize(
    "source",
    [
        "from analysis.regression import _designs_per_pattern",
        "from analysis import two_group\nline = two_group._maximize_slice",
        "def fit(design):\n    return design._slice_at_second(0.0)\n",
    ],
)
def test_a_borrowed_private_name_is_found(source, tmp_path):
    (tmp_path / "analysis").mkdir()
    (tmp_path / "analysis" / "fit.py").write_text(source)
    assert len(private_borrowings(tmp_path)) == 1


def test_the_private_checks_module_is_imported_only_inside_analysis(tmp_path):
    (tmp_path / "surveys").mkdir()
    (tmp_path / "surveys" / "schema_anchor.py").write_text("from analysis._checks import as_probability\n")
    assert private_borrowings(tmp_path) == ["surveys/schema_anchor.py: analysis._checks"]


def test_test_modules_import_shared_helpers_only_from_the_helper_module():
    """Helpers live in tests/helpers/; no test module (nor conftest) imports another test module."""
    import ast

    wrong = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            wrong += [
                f"{path.name} imports {name}"
                for name in names
                if name.startswith("tests.")
                and name.split(".")[:2] != ["tests", "helpers"]
                and name != "tests.mutation_report"
            ]
    assert wrong == []


def imported_modules(source: str, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``source`` imports, anywhere (``if TYPE_CHECKING:`` and functions included):
    ``from a.b import c`` names ``a.b.c`` when that is a module, else ``a.b``."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                module = f"{node.module}.{alias.name}"
                names.add(module if module in known else node.module)
    return {name for name in names if name in known}


def import_circles(root: Path = ROOT) -> list[list[str]]:
    """Every circle of modules of the layers that import each other (a depth-first search of the import graph)."""
    paths = {
        ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__"): path
        for layer in LAYERS
        for path in sorted((root / layer).rglob("*.py"))
    }
    graph = {
        name: imported_modules(path.read_text(encoding="utf-8"), set(paths)) - {name} for name, path in paths.items()
    }
    circles, state = [], {}

    def visit(name: str, trail: list[str]) -> None:
        state[name] = "open"
        for other in sorted(graph[name]):
            if state.get(other) == "open":
                circles.append(trail[trail.index(other) :] + [name, other] if other in trail else [name, other])
            elif other not in state:
                visit(other, [*trail, name])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [])
    return circles


def test_no_two_modules_import_each_other_even_for_type_checking():
    """An import kept for type checking alone still ties two modules into one: none is left."""
    assert import_circles() == []


def test_a_circle_through_a_type_checking_import_is_found(tmp_path):
    (tmp_path / "surveys").mkdir()
    (tmp_path / "surveys" / "a.py").write_text("from surveys.b import thing\n")
    (tmp_path / "surveys" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import surveys.a\n"
    )
    assert import_circles(tmp_path) == [["surveys.a", "surveys.b", "surveys.a"]]


# --------------------------------------------------------------------------
# The question-kind registry: surveys/kinds/ is the one place a question's kind is decided.

#: A line that decides a question's kind: a two-group check, a type compared with yes/no or select_one, the
#: matrix reading, a randomized-or-not check, a design or result class tested with ``isinstance``.
KIND_DECISION = re.compile(
    r"is_two_group\(|[=!]= (YES_NO|SELECT_ONE)\b|\b(YES_NO|SELECT_ONE) [=!]=|reads_as_matrix\(|\.is_randomized\b"
    r"|isinstance\([^)]*\b(BinaryDesign|MultipleChoiceDesign|MisclassificationDesign|TwoGroupDesign"
    r"|YesNoResult|ChoiceResult|PlainResult)\b"
)

_FILE_TYPE = "survey-file reading: the type as written, before a Question (and so a kind) exists"
_DESIGN_WORDS = "a design's chances in words, per design family: takes a design, not a question"
_CODEBOOK = (
    "the codebook and R recipe describe each stored version's design record, and a question's versions may be "
    "of different kinds (forced response, then cheater detection): per design, not per question"
)
_ARMS = "survey-file check of group_1_share and direct_share; arms.py is below the kinds (they import it)"

#: Each line outside surveys/kinds/ that tests a kind-like condition, and why it is not a kind decision (or not
#: yet moved). A new line fails the test; so does an entry whose line is gone.
KIND_DECISIONS_ALLOWED = {
    (
        "surveys/definition.py",
        "return tuple(q for q in self.questions if not q.is_randomized and q.type in (YES_NO, SELECT_ONE))",
    ): "plain_questions: the questions asked plainly whose answer is one choice (break-down groups, predictors)",
    (
        "surveys/definition.py",
        "if isinstance(self.design, MultipleChoiceDesign | MisclassificationDesign) and self.design.k != len(",
    ): "Question's own invariant: a k-option or matrix design's k is its number of choices",
    ("surveys/definition.py", "if is_two_group(design):"): "attack_success_rate(design): a design's guessing rate",
    (
        "surveys/definition.py",
        "if isinstance(design, MisclassificationDesign):",
    ): "attack_success_rate(design): a design's guessing rate",
    (
        "surveys/definition.py",
        "return tuple(q for q in self.questions if q.is_randomized)",
    ): "Survey.randomized_questions: the split by randomize: that kind_of itself reads",
    (
        "surveys/protocol.py",
        "if is_two_group(design):",
    ): "the randomizer of a design (takes a design); each kind's randomize chooses the function",
    (
        "surveys/protocol.py",
        "if isinstance(design, MisclassificationDesign):",
    ): "the randomizer of a design (takes a design); each kind's randomize chooses the function",
    (
        "surveys/result_types.py",
        "if isinstance(current, MultipleChoiceDesign):",
    ): "ChoiceResult.current_design_count: a k-option design read as its matrix to compare versions",
    ("surveys/schema_designs.py", "if qtype == YES_NO:"): _FILE_TYPE,
    (
        "surveys/schema_designs.py",
        'if qtype == YES_NO and isinstance(value, Mapping) and "model" in value:',
    ): _FILE_TYPE,
    (
        "surveys/schema_designs.py",
        'if qtype == SELECT_ONE and isinstance(value, Mapping) and "matrix" in value:',
    ): _FILE_TYPE,
    (
        "surveys/schema_designs.py",
        'example = "{t: 1/2, a: 1/4, b: 1/4}" if qtype == YES_NO else "{t: 1/2}"',
    ): _FILE_TYPE,
    (
        "surveys/schema_designs.py",
        "design = ForcedResponseDesign(**probabilities) if qtype == YES_NO "
        "else MultipleChoiceDesign(k, **probabilities)",
    ): _FILE_TYPE,
    ("surveys/schema_questions.py", "if qtype == YES_NO:"): _FILE_TYPE,
    (
        "surveys/schema.py",
        "randomized = [q for q in questions if isinstance(q, Question) and q.is_randomized]",
    ): "the epsilon budget: every randomized question adds its design's epsilon, whatever its kind",
    (
        "surveys/schema_conditions.py",
        "if before[name].is_randomized:",
    ): "a survey-file check: a condition names only questions whose answers are stored as given",
    ("surveys/design_sentences.py", "if isinstance(design, MisclassificationDesign):"): _DESIGN_WORDS,
    ("surveys/revealing.py", "if isinstance(design, MisclassificationDesign):"): _DESIGN_WORDS,
    ("surveys/revealing.py", "if isinstance(design, MultipleChoiceDesign):"): _DESIGN_WORDS,
    (
        "surveys/revealing.py",
        "[group_yes_probabilities(design, g) for g in GROUPS] if is_two_group(design) "
        "else [design.yes_probabilities()]",
    ): _DESIGN_WORDS,
    (
        "surveys/design_contract.py",
        "fits = qtype == question.type and "
        "(design is None if not question.is_randomized else isinstance(design, kind))",
    ): "compatible_tallies: which stored design keys a question's type can read (the tally contract, below the kinds)",
    (
        "surveys/design_contract.py",
        "if isinstance(design, MultipleChoiceDesign | MisclassificationDesign) and design.k != len(choices):",
    ): "compatible_tallies: a stored k-option or matrix key whose k is not its number of choices",
    (
        "surveys/models.py",
        "if not (parsed is not None and parsed[0] == YES_NO and isinstance(parsed[2], BinaryDesign)):",
    ): "a stored design key read from the database: only one-arm yes/no tallies hold pattern counts",
    ("surveys/arms.py", "has_groups = parsed is not None and any(is_two_group(q.design) for q in parsed)"): _ARMS,
    ("surveys/arms.py", "q.is_randomized and q.type not in RANDOMIZED_IN_EVERY_ARM for q in parsed"): _ARMS,
    ("surveys/noisy_answers.py", "if is_two_group(design):"): _CODEBOOK,
    ("surveys/noisy_answers.py", "if isinstance(design, MisclassificationDesign):"): _CODEBOOK,
    (
        "surveys/noisy_answers.py",
        "if isinstance(design, BinaryDesign) and not isinstance(design, ForcedResponseDesign):",
    ): _CODEBOOK,
    ("surveys/noisy_answers.py", "if isinstance(design, BinaryDesign):"): _CODEBOOK,
    (
        "surveys/noisy_answers.py",
        '"randomized": question.is_randomized,',
    ): "the codebook's randomized field, as written",
    (
        "web/charts.py",
        "if isinstance(item, YesNoResult):",
    ): "a chart item's own fields (a yes/no result's or an option's): the kind chose the items (chart_items)",
}


def kind_decisions(root: Path = ROOT) -> set[tuple[str, str]]:
    """``(path, line)`` of every line outside ``surveys/kinds/`` (in ``surveys/``, ``storage/``, ``web/``) that
    :data:`KIND_DECISION` matches (a ``def`` line, the helper's own definition, aside)."""
    found = set()
    for layer in ("surveys", "storage", "web"):
        for path in sorted((root / layer).rglob("*.py")):
            relative = path.relative_to(root).as_posix()
            if relative.startswith("surveys/kinds/"):
                continue
            for line in path.read_text(encoding="utf-8").splitlines():
                text = line.strip()
                if KIND_DECISION.search(text) and not text.startswith("def "):
                    found.add((relative, text))
    return found


def test_only_the_kind_registry_decides_a_question_kind():
    """planning, export, break-downs, timeline, targets, models, submission... ask ``kind_of``; every other
    kind-like test is listed with its reason, and no listed line is stale."""
    found = kind_decisions()
    assert sorted(found - KIND_DECISIONS_ALLOWED.keys()) == []
    assert sorted(KIND_DECISIONS_ALLOWED.keys() - found) == []


@pytest.mark.parametrize(
    "line",
    [
        "    if is_two_group(question.design):",
        "    candidates = [q for q in survey.randomized_questions if q.type == YES_NO]",
        "    if SELECT_ONE != question.type:",
        "    if matrix.reads_as_matrix(question, by_design):",
        "    if question.is_randomized:",
        "    if isinstance(result, YesNoResult):",
        "    if isinstance(q.design, MultipleChoiceDesign | MisclassificationDesign):",
    ],
)
def test_a_kind_decided_outside_the_registry_is_found(tmp_path, line):
    (tmp_path / "surveys" / "kinds").mkdir(parents=True)
    (tmp_path / "surveys" / "planning.py").write_text(f"def plan(question):\n{line}\n        return 1\n")
    (tmp_path / "surveys" / "kinds" / "yes_no.py").write_text(f"def plan(question):\n{line}\n        return 1\n")
    assert kind_decisions(tmp_path) == {("surveys/planning.py", line.strip())}


@pytest.mark.parametrize("name", sorted(KINDS))
def test_every_kind_defines_every_name_the_callers_ask_for(name):
    """A caller asks ``kind_of(question).<name>`` without checking: each kind has each name (a shared default
    from surveys/kinds/common.py where it has nothing to say), a flag as a bool, the results table a known
    template's name and the rest callable."""
    module = KINDS[name]
    missing = [attribute for attribute in KIND_NAMES if not hasattr(module, attribute)]
    assert missing == []
    for attribute in KIND_NAMES:
        value = getattr(module, attribute)
        if attribute in KIND_FLAGS:
            assert isinstance(value, bool), attribute
        elif attribute == "results_table":
            assert value in ("yes_no", "choice", "plain", "number", "multiple")
        else:
            assert callable(value), attribute


#: The longest a module of the domain or the web layer may grow (issue 25: a room holds one concern).
MAX_MODULE_LINES = 600


def test_no_module_of_the_domain_or_the_web_layer_is_over_600_lines():
    """Each ``surveys/`` and ``web/`` module at most :data:`MAX_MODULE_LINES` lines: past that a module has
    grown past one concern and is split (web/gather.py reached 620 in a merge and was)."""
    long = {
        str(path.relative_to(ROOT)): lines
        for layer in ("surveys", "web")
        for path in (ROOT / layer).rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}
