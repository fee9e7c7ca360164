"""Skip logic: the ``relevant:`` condition of a question, parsed by hand (never ``eval``).

A question with ``relevant:`` is asked only when its condition holds for the
answers given before it (XLSForm's ``relevant`` column, a small part of its
expression language)::

    relevant: ${year} = 'first'
    relevant: ${year} != 'first' and not(${faculty} = 'law' or ${faculty} = 'arts')

The language has exactly these parts: ``${name}`` (the answer to an earlier
question, by its choice name), ``=`` and ``!=`` against a quoted choice name
(single or double quotes), ``and``, ``or``, ``not`` and parentheses; ``not``
binds tighter than ``and``, which binds tighter than ``or``. An unanswered
question (optional, or itself skipped) equals no choice: ``${q} = 'a'`` is
false and ``${q} != 'a'`` true, as in XLSForm.

Which questions a condition may name (only plain questions before it, so
that whether a later question is shown never reveals a randomized answer)
is checked by :mod:`surveys.schema`, which knows the survey; this module
only reads the text and evaluates it.

:meth:`Condition.to_json` is the form ``static/randomize.js`` evaluates
(``["=", "year", "first"]``, ``["not", x]``, ``["and", x, y, ...]``), so
the browser never parses the text itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from surveys.limits import MAX_CONDITION_DEPTH, limit_text

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<ref>\$\{(?P<name>[a-z][a-z0-9_]*)\})
      | '(?P<single>[^']*)' | "(?P<double>[^"]*)"
      | (?P<op>!=|=)
      | (?P<paren>[()])
      | (?P<word>and|or|not)\b
    )""",
    re.X,
)

#: Names a question and a choice for a sentence: ``(question, choice) -> (question label, choice label)``.
Words = Callable[[str, str], tuple[str, str]]
#: Translates a sentence (its msgid) before the labels go in; the web layer passes Flask-Babel's.
Gettext = Callable[[str], str]


def N_(text: str) -> str:
    """Marks a sentence for the catalogues (``pybabel extract -k N_``); it is translated where it is described."""
    return text


def untranslated(text: str) -> str:
    """The default :data:`Gettext`: English, the catalogues' msgids."""
    return text


#: The words of :meth:`Condition.describe`, whole sentences with placeholders (never pieced together).
IS = N_("“%(question)s” is “%(choice)s”")
IS_NOT = N_("“%(question)s” is not “%(choice)s”")
NOT = N_("not (%(condition)s)")
JOINS = {"and": N_("%(first)s and %(second)s"), "or": N_("%(first)s or %(second)s")}


class ConditionError(ValueError):
    """A condition that cannot be read; the message says where and what was expected."""


@dataclass(frozen=True)
class Compare:
    """``${question} = 'value'`` (``equal``) or ``${question} != 'value'``."""

    question: str
    equal: bool
    value: str

    def evaluate(self, answers: Mapping[str, str | None]) -> bool:
        return (answers.get(self.question) == self.value) == self.equal

    def questions(self) -> frozenset[str]:
        return frozenset({self.question})

    def comparisons(self) -> tuple[Compare, ...]:
        return (self,)

    def to_json(self) -> list:
        return ["=" if self.equal else "!=", self.question, self.value]

    def describe(self, words: Words, gettext: Gettext = untranslated) -> str:
        question, choice = words(self.question, self.value)
        return gettext(IS if self.equal else IS_NOT) % {"question": question, "choice": choice}


@dataclass(frozen=True)
class Not:
    """``not(term)``."""

    term: Condition

    def evaluate(self, answers: Mapping[str, str | None]) -> bool:
        return not self.term.evaluate(answers)

    def questions(self) -> frozenset[str]:
        return self.term.questions()

    def comparisons(self) -> tuple[Compare, ...]:
        return self.term.comparisons()

    def to_json(self) -> list:
        return ["not", self.term.to_json()]

    def describe(self, words: Words, gettext: Gettext = untranslated) -> str:
        return gettext(NOT) % {"condition": self.term.describe(words, gettext)}


@dataclass(frozen=True)
class Join:
    """``a and b and ...`` (``word="and"``) or ``a or b or ...``."""

    word: str
    terms: tuple[Condition, ...]

    def evaluate(self, answers: Mapping[str, str | None]) -> bool:
        results = (term.evaluate(answers) for term in self.terms)
        return all(results) if self.word == "and" else any(results)

    def questions(self) -> frozenset[str]:
        return frozenset().union(*(term.questions() for term in self.terms))

    def comparisons(self) -> tuple[Compare, ...]:
        return tuple(c for term in self.terms for c in term.comparisons())

    def to_json(self) -> list:
        return [self.word, *(term.to_json() for term in self.terms)]

    def describe(self, words: Words, gettext: Gettext = untranslated) -> str:
        """The terms joined two at a time by the translated "%(first)s and %(second)s" (or "or")."""
        parts = [
            term.describe(words, gettext) if isinstance(term, Compare | Not) else f"({term.describe(words, gettext)})"
            for term in self.terms
        ]
        sentence = parts[0]
        for part in parts[1:]:
            sentence = gettext(JOINS[self.word]) % {"first": sentence, "second": part}
        return sentence


Condition = Compare | Not | Join


def _tokens(text: str) -> list[tuple[str, str, int]]:
    """``(kind, value, position)`` for each token; ``ConditionError`` at the first character that is none."""
    tokens, position = [], 0
    while text[position:].strip():
        match = _TOKEN.match(text, position)
        if match is None:
            start = len(text) - len(text[position:].lstrip())
            raise ConditionError(
                f"cannot read {text[start : start + 20]!r} at character {start + 1}; a condition is made of "
                f"${{question}}, = or !=, 'choice', and, or, not and parentheses"
            )
        kind = next(k for k in ("ref", "single", "double", "op", "paren", "word") if match.group(k) is not None)
        value = {"ref": match.group("name"), "double": match.group("double")}.get(kind, match.group(kind))
        tokens.append(("text" if kind in ("single", "double") else kind, value, match.start(kind) + 1))
        position = match.end()
    return tokens


class _Parser:
    """Recursive descent over the tokens: or_expr := and_expr ('or' and_expr)*, and so on down."""

    def __init__(self, text: str):
        self.text = text
        self.tokens = _tokens(text)
        self.at = 0
        self.depth = 0

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, kind: str, value: str | None, expected: str) -> str:
        token = self.peek()
        if token is None or token[0] != kind or (value is not None and token[1] != value):
            found = "the end" if token is None else f"{token[1]!r} at character {token[2]}"
            raise ConditionError(f"expected {expected} but found {found}")
        self.at += 1
        return token[1]

    def is_next(self, kind: str, value: str) -> bool:
        token = self.peek()
        return token is not None and token[0] == kind and token[1] == value

    def condition(self) -> Condition:
        result = self.join("or", self.conjunction)
        if self.peek() is not None:
            self.take("end", None, "and, or, or the end of the condition")
        return result

    def join(self, word: str, part) -> Condition:
        terms = [part()]
        while self.is_next("word", word):
            self.at += 1
            terms.append(part())
        return terms[0] if len(terms) == 1 else Join(word, tuple(terms))

    def conjunction(self) -> Condition:
        return self.join("and", self.negation)

    def nested(self, part: Callable[[], Condition]) -> Condition:
        """``part()`` one level deeper; past :data:`~surveys.limits.MAX_CONDITION_DEPTH` a ``ConditionError``
        (so that no condition, parsed, evaluated or described, recurses without bound)."""
        if self.depth >= MAX_CONDITION_DEPTH:
            raise ConditionError(
                f"nested more than {MAX_CONDITION_DEPTH} deep (parentheses and not) at character "
                f"{self.tokens[self.at][2]}; {limit_text('MAX_CONDITION_DEPTH', MAX_CONDITION_DEPTH)}"
            )
        self.depth += 1
        result = part()
        self.depth -= 1
        return result

    def negation(self) -> Condition:
        if self.is_next("word", "not"):
            self.at += 1
            return Not(self.nested(self.negation))
        if self.is_next("paren", "("):
            self.at += 1
            inner = self.nested(lambda: self.join("or", self.conjunction))
            self.take("paren", ")", "a closing parenthesis")
            return inner
        name = self.take("ref", None, "${question}, not or a parenthesis")
        op = self.take("op", None, "= or != after ${" + name + "}")
        value = self.take("text", None, f"a quoted choice name after ${{{name}}} {op}")
        return Compare(name, op == "=", value)


def parse_condition(text: str) -> Condition:
    """The condition written ``text``; ``ConditionError`` (a ``ValueError``) saying what is wrong and where."""
    if not isinstance(text, str) or not text.strip():
        raise ConditionError(f"a condition must be text such as ${{year}} = 'first', got {text!r}")
    return _Parser(text).condition()
