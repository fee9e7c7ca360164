"""Read the survey folder: one YAML file per survey, each checked by :mod:`surveys.schema`.

:func:`load_survey_file` reads one file (UTF-8, YAML without duplicate keys
or impossible dates, within the limits of :mod:`surveys.limits`) and hands its contents to
:func:`surveys.schema.parse_survey`; :func:`load_catalog` reads every survey
file of the folder, skips a broken one (logging its problems) and loads the
others.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.events import AliasEvent
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import Resolver
from yaml.scanner import Scanner

try:
    from yaml.cyaml import CParser as LibyamlEvents
except ImportError:  # PyYAML built without libyaml
    LibyamlEvents = None

from surveys import limits
from surveys.definition import Survey
from surveys.schema import Problem, SurveyFileError, parse_survey

logger = logging.getLogger(__name__)

SURVEY_FILE_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class Standing:
    """Where a survey stands in its life (kept in the database, :mod:`storage.surveys`): its stage
    (``draft``: no public link; ``live``; ``archived``), whether the start page lists it when open, and
    the survey file that manages it (None: made in the app)."""

    stage: str = "live"
    listed: bool = True
    managed_by: str | None = None


#: A survey read from a file, as files always were served.
LIVE = Standing()


@dataclass(frozen=True)
class SurveyCatalog:
    """Every survey that loaded, and the problems of the rest.

    ``files`` names every survey file found, loaded or not, in load order;
    ``standing`` each survey's :class:`Standing` (:data:`LIVE` when not given).
    """

    surveys: Mapping[str, Survey]
    problems: tuple[Problem, ...] = ()
    files: tuple[str, ...] = ()
    standing: Mapping[str, Standing] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("surveys", "standing"):  # a read-only view given is kept as it is (no copy of 10,000 surveys)
            value = getattr(self, name)
            if not isinstance(value, MappingProxyType):
                object.__setattr__(self, name, MappingProxyType(dict(value)))

    def get(self, survey_id: str) -> Survey | None:
        return self.surveys.get(survey_id)

    def standing_of(self, survey_id: str) -> Standing:
        return self.standing.get(survey_id, LIVE)

    def public(self, survey_id: str) -> Survey | None:
        """The survey a respondent may reach by its link: none for a draft."""
        survey = self.surveys.get(survey_id)
        return None if survey is None or self.standing_of(survey_id).stage == "draft" else survey


# -- reading YAML ----------------------------------------------------------


class _BeyondLimit(Exception):
    """A survey file beyond one of :mod:`surveys.limits`; the message names the limit."""


def _at(mark) -> str:
    return f"at line {mark.line + 1}, column {mark.column + 1}"


class _LimitedComposer(Composer):
    """PyYAML's composer (events to nodes), counting as it goes.

    It refuses a file nested deeper than :data:`~surveys.limits.MAX_YAML_DEPTH`,
    with more than :data:`~surveys.limits.MAX_YAML_ALIASES` aliases or more than
    :data:`~surveys.limits.MAX_YAML_NODES` values (an alias counts as every value it
    repeats, so a "billion laughs" file is refused before anything is expanded),
    an alias used inside the value it names, or a file whose reading passes
    :data:`~surveys.limits.MAX_YAML_SECONDS`. Refusing here, before any node
    is built past the limit, bounds what the constructor and
    :func:`~surveys.schema.parse_survey` are given.
    """

    def __init__(self) -> None:
        super().__init__()
        self._depth = 0
        self._aliases = 0
        self._nodes = 0
        self._sizes: dict[str, int] = {}  # anchor -> values it stands for, once its node is complete
        self._deadline = time.monotonic() + limits.MAX_YAML_SECONDS

    def _count(self, values: int, mark) -> None:
        self._nodes += values
        if self._nodes > limits.MAX_YAML_NODES:
            raise _BeyondLimit(
                f"more than {limits.MAX_YAML_NODES:,} values, counting what each alias repeats, by line "
                f"{mark.line + 1}; {limits.limit_text('MAX_YAML_NODES', limits.MAX_YAML_NODES)}"
            )
        if time.monotonic() > self._deadline:
            raise _BeyondLimit(
                f"took more than {limits.MAX_YAML_SECONDS:g} s to read, by line {mark.line + 1}; "
                + limits.limit_text("MAX_YAML_SECONDS", limits.MAX_YAML_SECONDS, " s")
            )

    def _alias(self, event) -> None:
        self._aliases += 1
        if self._aliases > limits.MAX_YAML_ALIASES:
            raise _BeyondLimit(
                f"more than {limits.MAX_YAML_ALIASES:,} aliases (*name), {_at(event.start_mark)}; "
                + limits.limit_text("MAX_YAML_ALIASES", limits.MAX_YAML_ALIASES)
            )
        if event.anchor in self.anchors and event.anchor not in self._sizes:
            raise _BeyondLimit(
                f"alias *{event.anchor} is used inside the value it names, {_at(event.start_mark)}; "
                "a value cannot contain itself"
            )
        self._count(self._sizes.get(event.anchor, 0), event.start_mark)  # an unknown alias is PyYAML's error

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, AliasEvent):
            self._alias(event)
            return super().compose_node(parent, index)
        self._count(1, event.start_mark)
        if self._depth >= limits.MAX_YAML_DEPTH:
            raise _BeyondLimit(
                f"nested more than {limits.MAX_YAML_DEPTH} levels deep, {_at(event.start_mark)}; "
                + limits.limit_text("MAX_YAML_DEPTH", limits.MAX_YAML_DEPTH)
            )
        before = self._nodes
        self._depth += 1
        node = super().compose_node(parent, index)
        self._depth -= 1
        if event.anchor is not None:
            self._sizes[event.anchor] = self._nodes - before + 1
        return node


class _SurveyConstructor(SafeConstructor):
    """``SafeConstructor`` that also refuses duplicate keys and impossible dates.

    Plain PyYAML keeps the last of two equal keys without a word, so a
    question with two ``design:`` lines would silently lose one.
    """

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                except TypeError:  # unhashable key: SafeLoader reports it
                    continue
                if duplicate:
                    raise yaml.constructor.ConstructorError(
                        "while reading a mapping",
                        node.start_mark,
                        f"found the key {key!r} twice",
                        key_node.start_mark,
                    )
                seen.add(key)
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_timestamp(self, node):
        try:
            return super().construct_yaml_timestamp(node)
        except ValueError as error:
            raise yaml.constructor.ConstructorError(
                None, None, f"{node.value!r} is not a valid date ({error})", node.start_mark
            ) from None


_SurveyConstructor.add_constructor("tag:yaml.org,2002:timestamp", _SurveyConstructor.construct_yaml_timestamp)


class PythonEvents(Reader, Scanner, Parser):
    """PyYAML's reader, scanner and parser in Python: text to events, where libyaml is missing."""

    def __init__(self, stream) -> None:
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)


def survey_loader(events: type) -> type:
    """The YAML loader of survey files over the event parser ``events``: :class:`_LimitedComposer`,
    :class:`_SurveyConstructor` (a ``SafeConstructor``: builds no objects) and PyYAML's resolver."""

    class SurveyYamlLoader(_LimitedComposer, events, _SurveyConstructor, Resolver):
        def __init__(self, stream) -> None:
            events.__init__(self, stream)
            _LimitedComposer.__init__(self)
            _SurveyConstructor.__init__(self)
            Resolver.__init__(self)

    return SurveyYamlLoader


#: libyaml's parser (C) when PyYAML has it, which reads the shipped surveys about 8 times faster than
#: PyYAML's own; either way the composing, with its limits, is :class:`_LimitedComposer`'s.
_SurveyYamlLoader = survey_loader(LibyamlEvents or PythonEvents)


def _yaml_error_message(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    problem = getattr(error, "problem", None) or str(error)
    if mark is None:
        return f"invalid YAML: {problem}"
    return f"invalid YAML at line {mark.line + 1}, column {mark.column + 1}: {problem}"


def _read_text(path: Path) -> str:
    """The file's text, newlines made ``\\n`` as in text mode; :class:`_BeyondLimit` past
    :data:`~surveys.limits.MAX_SURVEY_FILE_BYTES`, checked before reading."""
    with path.open("rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        data = handle.read(limits.MAX_SURVEY_FILE_BYTES + 1) if size <= limits.MAX_SURVEY_FILE_BYTES else b""
    if size > limits.MAX_SURVEY_FILE_BYTES or len(data) > limits.MAX_SURVEY_FILE_BYTES:
        raise _BeyondLimit(
            f"the file is {max(size, len(data)):,} bytes; "
            + limits.limit_text("MAX_SURVEY_FILE_BYTES", limits.MAX_SURVEY_FILE_BYTES, " bytes")
        )
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def load_survey_file(path: str | Path) -> Survey:
    """Read and check one survey file, within the limits of :mod:`surveys.limits`.

    Raises
    ------
    SurveyFileError
        With every problem found: unreadable file, a file beyond a limit
        (naming it), YAML syntax (with its line), wrong shape, or any mistake
        in the survey itself.
    """
    return load_survey_text(read_survey_text(path), Path(path).name)


def read_survey_text(path: str | Path) -> str:
    """A survey file's text as :func:`load_survey_file` reads it (UTF-8, newlines as ``\\n``, within
    :data:`~surveys.limits.MAX_SURVEY_FILE_BYTES`); :class:`SurveyFileError` naming the file otherwise."""
    path = Path(path)
    try:
        return _read_text(path)
    except UnicodeDecodeError as error:
        raise _whole_file_problem(path.name, f"not UTF-8 text (byte {error.start}); save the file as UTF-8") from None
    except OSError as error:
        raise _whole_file_problem(path.name, f"cannot read the file: {error.strerror or error}") from None
    except _BeyondLimit as error:
        raise _whole_file_problem(path.name, str(error)) from None


def _whole_file_problem(name: str, message: str) -> SurveyFileError:
    return SurveyFileError([Problem(name, None, None, message)])


def load_survey_text(text: str, name: str) -> Survey:
    """Check a survey file's text (as stored in the database, or typed in the browser) exactly as
    :func:`load_survey_file` checks a file: the same limits, YAML reader and :func:`~surveys.schema.parse_survey`.
    ``name`` is what the problems are reported against (a file name).

    Raises
    ------
    SurveyFileError
        With every problem found.
    """
    if not isinstance(text, str):
        raise _whole_file_problem(name, f"a survey file is text, not {type(text).__name__}")
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > limits.MAX_SURVEY_FILE_BYTES:
        raise _whole_file_problem(
            name,
            f"the file is {size:,} bytes; "
            + limits.limit_text("MAX_SURVEY_FILE_BYTES", limits.MAX_SURVEY_FILE_BYTES, " bytes"),
        )
    try:
        data = yaml.load(text.replace("\r\n", "\n").replace("\r", "\n"), Loader=_SurveyYamlLoader)
    except _BeyondLimit as error:
        raise _whole_file_problem(name, str(error)) from None
    except yaml.YAMLError as error:
        raise _whole_file_problem(name, _yaml_error_message(error)) from None
    return parse_survey(data, name)


def compose_survey_text(text: str):
    """The YAML node tree of a survey file's text (nodes carry their line and column), read within the
    limits of :mod:`surveys.limits` as :func:`load_survey_text` reads it; ``yaml.YAMLError`` or
    ``ValueError`` (a limit passed) when it cannot be read."""
    loader = _SurveyYamlLoader(text)
    try:
        return loader.get_single_node()
    except _BeyondLimit as error:
        raise ValueError(str(error)) from None
    finally:
        loader.dispose()


def survey_file_paths(directory: str | Path) -> tuple[list[Path], list[Problem]]:
    """The ``*.yaml`` and ``*.yml`` files of ``directory`` (not hidden ones), by name, and the problem of a
    missing or unreadable folder."""
    directory = Path(directory)
    try:
        paths = sorted(
            (
                p
                for p in directory.iterdir()
                if p.suffix.lower() in SURVEY_FILE_SUFFIXES and not p.name.startswith(".") and p.is_file()
            ),
            key=lambda p: p.name,
        )
    except FileNotFoundError:
        return [], [Problem(str(directory), None, None, "the survey folder does not exist")]
    except OSError as error:
        return [], [Problem(str(directory), None, None, f"cannot list the survey folder: {error.strerror or error}")]
    return paths, []


def load_catalog(directory: str | Path) -> SurveyCatalog:
    """Load every ``*.yaml`` and ``*.yml`` file in ``directory``, by name.

    A broken file is skipped and its problems are logged and kept in
    :attr:`SurveyCatalog.problems`; the other files still load. A file whose
    survey id is already taken by an earlier file is skipped too. A missing
    folder is a problem, not an exception.
    """
    paths, problems = survey_file_paths(directory)
    surveys: dict[str, Survey] = {}
    for path in paths:
        try:
            survey = load_survey_file(path)
        except SurveyFileError as error:
            problems.extend(error.problems)
            continue
        if survey.id in surveys:
            first = surveys[survey.id].source
            problems.append(
                Problem(
                    path.name,
                    None,
                    "id",
                    f"survey id {survey.id!r} is already used by {first}; this file was not loaded",
                )
            )
            continue
        surveys[survey.id] = survey
    for problem in problems:
        logger.error("%s", problem)
    return SurveyCatalog(surveys, tuple(problems), tuple(p.name for p in paths))
