"""The respondent's language and locale, used by the whole app.

:func:`in_respondent_language` chooses the survey's language for a request
(``?lang=``, else the browser's) and :func:`interface_language` the language
of the interface's own words (Flask-Babel's locale selector, set in
:func:`web.init_app`). The rest writes what a respondent reads in that
language and locale: the privacy and design sentences of
:mod:`surveys.design_sentences` and :mod:`surveys.protection`, numbers and
percentages, a choice's label, a question's skip note. The templates call
these by the names :mod:`web.templating` registers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

from babel.lists import format_list
from flask import g, request
from flask_babel import get_locale, gettext, refresh
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header

from surveys.definition import Question, Survey
from surveys.design_sentences import NO_EPSILON, design_sentence, epsilon_text, odds_factor_text, privacy_sentence
from surveys.protection import (
    Protection,
    device_sentence,
    drawn_sentence,
    page_note,
    protection,
    quoted_labels,
    revealing_items,
    truthfully_sentence,
)
from surveys.release_figures import PublishedFigure, PublishedRow, Release
from surveys.release_words import Words, say
from surveys.text_format import short_percent

#: How the language chooser names a language (others by their code).
LANGUAGE_NAMES = {
    "en": "English",
    "fr": "Français",
    "es": "Español",
    "de": "Deutsch",
    "it": "Italiano",
    "pt": "Português",
}


def N_(text: str) -> str:
    """Marks ``text`` for the catalogues (``pybabel extract``) without translating it: it is
    translated where it is shown (``_formhelpers.html`` passes labels and errors through ``_``)."""
    return text


#: Words of :mod:`web.forms` shown to respondents (a blank option's label, an answer's error),
#: marked here for the catalogues; ``tests/test_translations.py`` keeps them equal to the originals.
FORM_WORDS = (
    N_("Yes"),
    N_("No"),
    N_("No answer"),
    N_("Keep my earlier answer (randomized already, so it cannot be shown)"),
    N_("This question applies to you given your earlier answers; please choose an answer."),
    N_("Please choose an answer to this question, or “No answer”."),
    N_("The submission key is malformed; reload the page."),
    N_("The invitation code is malformed."),
    N_("Please answer “yes” or “no” for each option."),
    # The options of a paired-statement question (surveys.definition.PAIRED_STATEMENT_CHOICES): the product's
    # words, not the survey's, shown as a yes/no question's options are (choice_text).
    N_("Both “yes” or both “no”"),
    N_("Exactly one “yes”"),
    N_("“Yes” to at least one"),
    N_("“No” to both"),
)

#: A survey's states (:mod:`surveys.definition`) as the preview's banner names them.
SURVEY_STATE_WORDS = (N_("open"), N_("closed"), N_("not yet open"))

#: The languages of the interface's own words (``translations/``); English is the msgids themselves.
INTERFACE_LANGUAGES = ("en", "fr", "es")


def in_respondent_language(survey: Survey) -> Survey:
    """The survey in the language chosen (``?lang=``, kept in the form's address) or else the
    browser's preferred one (Accept-Language), else the file's first; only texts change.

    The interface's words follow (:func:`interface_language`): the survey's language when it
    has a catalogue, else English; a survey in one language gets the browser's among
    :data:`INTERFACE_LANGUAGES`."""
    if not survey.languages:
        g.interface_language = preferred_language(INTERFACE_LANGUAGES) or "en"
        return survey
    chosen = request.args.get("lang", "")
    if chosen not in survey.languages:
        chosen = preferred_language(survey.languages) or survey.languages[0]
    g.interface_language = chosen if chosen in INTERFACE_LANGUAGES else "en"
    g.page_language = chosen
    return survey.in_language(chosen)


def in_visitor_language() -> None:
    """The interface's words of a page that is no survey form (a release, the releases ledger, the publishing
    form): ``?lang=`` when it names a language of :data:`INTERFACE_LANGUAGES`, else the browser's preferred one
    among them, else English."""
    chosen = request.args.get("lang", "")
    if chosen not in INTERFACE_LANGUAGES:
        chosen = preferred_language(INTERFACE_LANGUAGES) or "en"
    g.interface_language = chosen
    refresh()  # a locale Flask-Babel kept from a word translated earlier in the request is dropped


def preferred_language(offered: tuple[str, ...]) -> str | None:
    """The browser's preferred language among ``offered`` (its ``Accept-Language``; None: none of them)."""
    return _best_match(request.headers.get("Accept-Language", ""), offered)


@lru_cache(maxsize=1024)
def _best_match(accept_language: str, offered: tuple[str, ...]) -> str | None:
    """Werkzeug's reading of ``accept_language`` (:class:`werkzeug.datastructures.LanguageAccept`), worked out
    once per header and offer rather than parsed on every submission: browsers send few different headers."""
    return parse_accept_header(accept_language, LanguageAccept).best_match(offered)


def language_chosen() -> bool:
    """Whether a page of this request chose the interface's language (:func:`in_respondent_language`,
    :func:`in_visitor_language`)."""
    return "interface_language" in g


def interface_language() -> str:
    """Flask-Babel's locale: the respondent's language once :func:`in_respondent_language` chose it;
    or :func:`in_visitor_language`; English elsewhere (the start page and most admin pages are in English only)."""
    return g.get("interface_language", "en")


def page_language() -> str:
    """``<html lang>``: the survey's language when it has several, else the interface's."""
    return g.get("page_language") or str(get_locale())


def translated(text: str) -> str:
    """``text`` (a message made in Python, possibly naming what was sent) in the respondent's language
    when the catalogue has it, as plain text: the template escapes it (Jinja's ``_`` would mark it safe)."""
    return gettext(text)


def number_locale() -> str:
    """The locale the respondent's numbers are written in: the interface's (the sentences around them)."""
    return str(get_locale())


def respondent_list(items: Sequence[str]) -> str:
    """``items`` as a list in the respondent's language: "A and B" (English), "A et B", "A y B" (Babel's CLDR
    patterns, :func:`babel.lists.format_list`)."""
    return format_list(list(items), locale=number_locale())


def respondent_privacy_sentence(question: Question) -> str:
    """:func:`surveys.design_sentences.privacy_sentence` in the respondent's language, numbers included."""
    return privacy_sentence(question, gettext, number_locale())


def respondent_design_sentence(question: Question) -> str:
    """:func:`surveys.design_sentences.design_sentence` in the respondent's language, numbers included
    (``design_sentence`` stays English for the admin pages)."""
    return design_sentence(question, gettext, number_locale())


@lru_cache(maxsize=512)
def survey_protection(questions: tuple[Question, ...]) -> Protection:
    """:func:`surveys.protection.protection` of ``questions`` (a survey's or a page's), worked out once."""
    return protection(tuple(questions))


def privacy_words(questions: Sequence[Question]) -> dict:
    """The summary's sentences for ``questions``, in the respondent's language, each from what their designs
    do (:mod:`surveys.protection`): ``shown`` (the :class:`~surveys.protection.Protection`), ``drawn``, ``device``,
    ``truthfully`` (``""`` where nothing is said), ``revealing`` (one line per proof), and ``plain`` and
    ``paired``, the quoted labels of the plain questions and of the compared statements that prove nothing, as
    lists in the respondent's language (:func:`surveys.protection.quoted_labels`)."""
    shown = survey_protection(tuple(questions))
    return {
        "shown": shown,
        "plain": quoted_labels(shown.plain, gettext, respondent_list),
        "paired": quoted_labels(shown.paired_not_revealing, gettext, respondent_list),
        "drawn": drawn_sentence(shown, gettext),
        "device": device_sentence(shown, gettext),
        "truthfully": truthfully_sentence(shown, gettext),
        "revealing": revealing_items(shown, gettext, respondent_list),
    }


def device_note(questions: Sequence[Question]) -> str:
    """The note under a page's ``questions`` with JavaScript on (:func:`surveys.protection.page_note`)."""
    return page_note(survey_protection(tuple(questions)), gettext)


def explanations_by_design(questions: Sequence[Question]) -> list[tuple[list[str], str]]:
    """Each distinct explanation of the form's randomized questions once, with the labels of the questions it
    explains, in the order the questions come: ``[(labels, design sentence + privacy sentence), ...]``.
    Questions with the same design share one item, which keeps a long form's page small on a phone."""
    grouped: dict[str, list[str]] = {}
    for question in questions:
        text = f"{respondent_design_sentence(question)} {respondent_privacy_sentence(question)}"
        grouped.setdefault(text, []).append(question.label)
    return [(labels, text) for text, labels in grouped.items()]


def respondent_percent(share: float) -> str:
    """A share on a respondent's page (:func:`surveys.text_format.short_percent`): "10%", "10 %" in French."""
    return short_percent(share, number_locale())


def respondent_odds_factor(epsilon: float) -> str:
    """:func:`surveys.design_sentences.odds_factor_text` written in the respondent's locale ("2,72" in French)."""
    return odds_factor_text(epsilon, number_locale())


def respondent_epsilon(epsilon: float) -> str:
    """:func:`surveys.design_sentences.epsilon_text` written in the respondent's locale ("1,10" in French), an infinite
    one in the respondent's language."""
    if math.isinf(epsilon):
        return f"∞ ({gettext(NO_EPSILON)})"
    return epsilon_text(epsilon, number_locale())


def choice_label(question: Question, name: str) -> str:
    """The label of choice ``name``: a yes/no question's "Yes" and "No" are the interface's words
    (in the respondent's language); any other label is the survey's text, already in its language."""
    return choice_text(question.type, question.choices[question.choice_names.index(name)].label)


def choice_text(question_type: str, label: str) -> str:
    """A choice's ``label`` as shown: translated for a yes/no question, else the survey's own text."""
    return gettext(label) if question_type == "yes_no" else label


def skip_note(survey: Survey, question: Question) -> str:
    """The sentence under a question with skip logic, in the survey's words:
    "Only if “Year of study” is “First year”." (``""`` for a question always asked)."""
    if question.relevant is None:
        return ""

    def words(name: str, value: str) -> tuple[str, str]:
        asked = survey.question(name)
        return asked.label, choice_label(asked, value)

    return gettext("Only if %(condition)s.", condition=question.relevant.describe(words, gettext))


#: The figures whose row labels are the app's own words (:data:`surveys.release_figures.MODE_ROWS`, "Mean"), not a
#: survey's: those are translated where shown; the others are the survey's labels, shown as they are.
TRANSLATED_ROW_FIGURES = ("mode", "plain_mean")


def release_text(words: Words | None, english: str) -> str:
    """A release's title, note or sentence in the reader's language and locale (:func:`surveys.release_words.say`);
    ``english`` (what was published) for a release stored before its words were kept."""
    return english if words is None else say(words, gettext, number_locale())


def release_sentences(release: Release) -> tuple[str, ...]:
    """What protects the respondents of ``release``, in the reader's language (as published, for an older one)."""
    if not release.protection_words:
        return release.protection
    return tuple(release_text(words, "") for words in release.protection_words)


def release_row_label(figure: PublishedFigure, row: PublishedRow) -> str:
    """A published row's label: the app's own words (:data:`TRANSLATED_ROW_FIGURES`) in the reader's language, a
    survey's label as it is."""
    return gettext(row.label) if figure.key.split(":", 1)[0] in TRANSLATED_ROW_FIGURES else row.label
