"""Read the survey folder: one YAML file per survey, each checked by :mod:`surveys.schema`.

:func:`load_survey_file` reads one file (UTF-8, YAML without duplicate keys
or impossible dates) and hands its contents to
:func:`surveys.schema.parse_survey`; :func:`load_catalog` reads every survey
file of the folder, skips a broken one (logging its problems) and loads the
others.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import yaml

from surveys.definition import Survey
from surveys.schema import Problem, SurveyFileError, parse_survey

logger = logging.getLogger(__name__)

SURVEY_FILE_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class SurveyCatalog:
    """Every survey in the folder that loaded, and the problems of the rest.

    ``files`` names every survey file found, loaded or not, in load order.
    """

    surveys: Mapping[str, Survey]
    problems: tuple[Problem, ...] = ()
    files: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "surveys", MappingProxyType(dict(self.surveys)))

    def get(self, survey_id: str) -> Survey | None:
        return self.surveys.get(survey_id)


# -- reading YAML ----------------------------------------------------------


class _SurveyYamlLoader(yaml.SafeLoader):
    """``SafeLoader`` that also refuses duplicate keys and impossible dates.

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


_SurveyYamlLoader.add_constructor("tag:yaml.org,2002:timestamp", _SurveyYamlLoader.construct_yaml_timestamp)


def _yaml_error_message(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    problem = getattr(error, "problem", None) or str(error)
    if mark is None:
        return f"invalid YAML: {problem}"
    return f"invalid YAML at line {mark.line + 1}, column {mark.column + 1}: {problem}"


def load_survey_file(path: str | Path) -> Survey:
    """Read and check one survey file.

    Raises
    ------
    SurveyFileError
        With every problem found: unreadable file, YAML syntax (with its
        line), wrong shape, or any mistake in the survey itself.
    """
    path = Path(path)
    name = path.name

    def fail(message: str) -> SurveyFileError:
        return SurveyFileError([Problem(name, None, None, message)])

    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise fail(f"not UTF-8 text (byte {error.start}); save the file as UTF-8") from None
    except OSError as error:
        raise fail(f"cannot read the file: {error.strerror or error}") from None
    try:
        data = yaml.load(text, Loader=_SurveyYamlLoader)  # a SafeLoader: builds no objects
    except yaml.YAMLError as error:
        raise fail(_yaml_error_message(error)) from None
    return parse_survey(data, name)


def load_catalog(directory: str | Path) -> SurveyCatalog:
    """Load every ``*.yaml`` and ``*.yml`` file in ``directory``, by name.

    A broken file is skipped and its problems are logged and kept in
    :attr:`SurveyCatalog.problems`; the other files still load. A file whose
    survey id is already taken by an earlier file is skipped too. A missing
    folder is a problem, not an exception.
    """
    directory = Path(directory)
    problems: list[Problem] = []
    surveys: dict[str, Survey] = {}
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
        paths = []
        problems.append(Problem(str(directory), None, None, "the survey folder does not exist"))
    except OSError as error:
        paths = []
        problems.append(
            Problem(str(directory), None, None, f"cannot list the survey folder: {error.strerror or error}")
        )
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
