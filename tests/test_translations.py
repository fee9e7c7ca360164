"""The interface's own words come from the catalogues in ``translations/`` (Flask-Babel).

A French or Spanish respondent sees no English word of the interface on the
form, the refused form, the thank-you page or the refusal pages; every msgid
has a msgstr in each catalogue, and the compiled ``.mo`` files say what the
``.po`` files say; ``<html lang>`` names the page's language.
"""

from __future__ import annotations

import html
import re

import pytest
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from babel.support import Translations

from app import ROOT
from surveys.definition import PAIRED_STATEMENT_CHOICES, YES_NO_CHOICES
from tests.helpers.drivers import ENGLISH_INTERFACE_WORDS as ENGLISH
from tests.helpers.drivers import Respondent, csrf_token_in, post_page, wire_form
from tests.helpers.sample_surveys import PAGED_YAML, QUIZ_YAML, make_survey
from web.forms import ASKED_BLANK_MESSAGE, KEEP_LABEL, NO_ANSWER_LABEL, TICK_ALL_MESSAGE
from web.language import FORM_WORDS

pytestmark = pytest.mark.both_backends

LANGUAGES = ("fr", "es")
CATALOGUES = ROOT / "translations"

#: A word of each catalogue's language that the same pages show.
NATIVE = {
    "fr": ("Votre vie privée", "Merci", "Sans réponse", "Oui"),
    "es": ("Su privacidad", "Gracias", "Sin respuesta", "Sí"),
}


def catalogue_of(path, reader=read_po):
    """The catalogue at ``path`` (``read_mo`` for a compiled one)."""
    with path.open("rb") as file:
        return reader(file)


def messages(catalogue) -> dict:
    """``{msgid: msgstr}``, a plural's as tuples (``read_mo`` gives lists)."""

    def plain(text):
        return tuple(text) if isinstance(text, list | tuple) else text

    return {plain(m.id): plain(m.string) for m in catalogue if m.id}


def visible_text(response) -> str:
    """The page's text as a reader sees it: tags (and their attributes) dropped, entities decoded."""
    page = response.get_data(as_text=True)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def english_left(response) -> list[str]:
    text = visible_text(response)
    return [words for words in ENGLISH if words in text]


def html_lang(response) -> str:
    return re.search(r'<html lang="([^"]+)">', response.get_data(as_text=True)).group(1)


@pytest.fixture(params=LANGUAGES)
def language(request, client) -> str:
    """Each translated language in turn, as the browser's preferred one."""
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = f"{request.param},en;q=0.5"
    return request.param


def english_pages(client) -> list:
    """The form, a refused form, the thank-you page and the already-answered page, in the browser's language."""
    respondent = Respondent(client)
    form = client.get("/s/quiz")
    refused = respondent.submit({"lied": "no", "ai_use": "once", "year": "first"})  # "cheated" left out
    thanks = respondent.submit({"cheated": "yes", "lied": "no", "ai_use": "once", "year": "first"})
    again = client.get("/s/quiz")
    assert [r.status_code for r in (form, refused, thanks, again)] == [200, 400, 200, 409]
    return [form, refused, thanks, again]


def test_the_english_pages_show_every_word_checked(client):
    """The words looked for on the translated pages are on the English ones: a typo in the list would fail here."""
    shown = " ".join(visible_text(page) for page in english_pages(client))
    assert [words for words in ENGLISH if words not in shown] == []


def test_translated_pages_show_none_of_the_english_words(client, language):
    for page in english_pages(client):
        assert english_left(page) == [], page.request.path
        assert html_lang(page) == language


def test_a_french_or_spanish_form_shows_no_english_interface_words(client, language):
    response = client.get("/s/quiz")
    assert response.status_code == 200
    assert english_left(response) == []
    assert NATIVE[language][0] in visible_text(response) and NATIVE[language][2] in visible_text(response)
    assert html_lang(response) == language


def test_a_refused_control_field_is_explained_in_the_respondents_language(client, language):
    controls = Respondent(client).open_form()
    refused = Respondent(client).submit({"cheated": "yes"}, controls={**controls, "submission_key": "bad key"})
    assert refused.status_code == 400
    assert "submission key is malformed" not in visible_text(refused)
    assert ("clé" if language == "fr" else "clave") in visible_text(refused)


def test_yes_and_no_are_in_the_respondents_language_on_the_form_and_the_thank_you_page(client, language):
    form = client.get("/s/quiz").get_data(as_text=True)
    labels = re.findall(r'<label for="q-cheated-\d">([^<]*)</label>', form)
    assert labels == [NATIVE[language][3], "Non" if language == "fr" else "No"]
    thanks = Respondent(client).submit({"cheated": "yes", "ai_use": "once", "year": "first"}, device=True)
    stored = re.search(r"<dt>Have you ever cheated on an exam\?</dt><dd>([^<]*)</dd>", thanks.get_data(as_text=True))
    assert stored.group(1).strip() == NATIVE[language][3]  # sent from the device: stored as sent


def test_a_french_or_spanish_thank_you_page_shows_no_english_interface_words(client, language):
    response = Respondent(client).submit({"cheated": "yes", "lied": "no", "ai_use": "once", "year": "first"})
    assert response.status_code == 200
    assert english_left(response) == []
    assert NATIVE[language][1] in visible_text(response)
    assert html_lang(response) == language


def test_the_interface_follows_the_survey_language_chosen(client, surveys_dir):
    """A survey in English and French: ``?lang=`` wins over the browser; a language without a catalogue
    leaves the interface in English while ``<html lang>`` names the survey's language."""
    two = QUIZ_YAML.replace("id: quiz\n", "id: two\nlanguages: [en, fr, de]\n")
    (surveys_dir / "two.yaml").write_text(two)
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "es"
    french = client.get("/s/two?lang=fr")
    assert html_lang(french) == "fr" and "Votre vie privée" in visible_text(french)
    german = client.get("/s/two?lang=de")
    assert html_lang(german) == "de" and "Your privacy" in visible_text(german)
    browser_default = client.get("/s/two")  # Spanish is not among the survey's languages: its first, English
    assert html_lang(browser_default) == "en" and "Your privacy" in visible_text(browser_default)


def test_a_survey_in_one_language_gets_the_browsers_interface_language_else_english(client):
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "de, it;q=0.8"
    response = client.get("/s/quiz")
    assert html_lang(response) == "en" and "Your privacy" in visible_text(response)


@pytest.mark.parametrize("language_code", LANGUAGES)
def test_every_msgid_has_a_translation(language_code):
    template = catalogue_of(CATALOGUES / "messages.pot")
    catalogue = catalogue_of(CATALOGUES / language_code / "LC_MESSAGES" / "messages.po")
    wanted = {m.id for m in template if m.id}
    assert wanted == {m.id for m in catalogue if m.id}
    untranslated = [m.id for m in catalogue if m.id and (not m.string or not all(m.string) or m.fuzzy)]
    assert untranslated == []


@pytest.mark.parametrize("language_code", LANGUAGES)
def test_the_compiled_catalogue_matches_its_po_file(language_code):
    """The ``.mo`` files are committed (a fresh clone serves them as is): they must say what the ``.po`` says."""
    folder = CATALOGUES / language_code / "LC_MESSAGES"
    written = messages(catalogue_of(folder / "messages.po"))
    compiled = messages(catalogue_of(folder / "messages.mo", read_mo))
    assert compiled == written


@pytest.mark.parametrize("language_code", LANGUAGES)
def test_translations_keep_every_placeholder(language_code):
    """A placeholder lost or misspelt in a translation would drop a number or raise at render time."""
    catalogue = catalogue_of(CATALOGUES / language_code / "LC_MESSAGES" / "messages.po")
    placeholder = re.compile(r"%\(\w+\)s")
    for message in catalogue:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = set().union(*(placeholder.findall(i) for i in ids)) - {"%(num)s"}
        for string in strings:
            assert set(placeholder.findall(string)) - {"%(num)s"} == wanted, (ids, string)


def test_the_words_of_the_forms_module_are_marked_for_the_catalogues():
    yes_no = {choice.label for choice in YES_NO_CHOICES}
    messages = {
        f"Please choose an answer to this question, or “{NO_ANSWER_LABEL}”.",
        "The submission key is malformed; reload the page.",
        "The invitation code is malformed.",
        TICK_ALL_MESSAGE,
    }
    paired = {choice.label for choices in PAIRED_STATEMENT_CHOICES.values() for choice in choices}
    assert set(FORM_WORDS) == {NO_ANSWER_LABEL, KEEP_LABEL, ASKED_BLANK_MESSAGE} | yes_no | paired | messages
    source = (ROOT / "web" / "forms.py").read_text()
    assert all(f'message="{text}"' in source for text in messages if "“" not in text)  # the control fields' own


#: The words of a survey of several pages with skip logic, beside the interface's (none may stay English).
PAGE_WORDS = (
    "Page 1 of",
    "Page 2 of",
    "Next",
    "Back",
    "Only if",
    "” is “",
    "Keep my earlier answer",
    "cannot be shown",
)
#: The words of the researcher's preview banner.
PREVIEW_WORDS = ("Preview", "this is the form respondents see", "Nothing sent from this preview", "Back to the results")


def paged_pages(client) -> list:
    """The paged quiz (English texts) from page 1 to the thank-you page, by way of Back from page 3."""
    survey = make_survey(PAGED_YAML)
    page1 = client.get("/s/paged")
    page2 = post_page(client, survey, page1.get_data(as_text=True), {"cheated": "yes", "lied": "no"})
    page3 = post_page(
        client, survey, page2.get_data(as_text=True), {"ai_use": "once", "year": "first", "first_exam": "no"}
    )
    back = post_page(client, survey, page3.get_data(as_text=True), {}, go="back")
    page3_again = post_page(client, survey, back.get_data(as_text=True), {})
    thanks = post_page(client, survey, page3_again.get_data(as_text=True), {"residence": "home"})
    responses = [page1, page2, page3, back, thanks]
    assert [r.status_code for r in responses] == [200] * 5 and "<dl" in thanks.get_data(as_text=True)
    return responses


def words_left(response, words) -> list[str]:
    text = visible_text(response)
    return [w for w in (*ENGLISH, *words) if w in text]


@pytest.fixture
def paged(surveys_dir):
    (surveys_dir / "paged.yaml").write_text(PAGED_YAML)


def test_the_english_pages_of_a_survey_of_several_pages_show_every_page_word_checked(client, paged):
    shown = " ".join(visible_text(page) for page in paged_pages(client))
    assert [words for words in PAGE_WORDS if words not in shown] == []


def test_a_french_or_spanish_survey_of_several_pages_with_conditions_shows_no_english_words(client, paged, language):
    """The progress, the buttons, the kept-answer option and the skip condition's words ("is", "and") too."""
    pages_seen = paged_pages(client)
    for page in pages_seen:
        assert words_left(page, PAGE_WORDS) == [], page.request.path
        assert html_lang(page) == language
    french = "«\u00a0Year of study\u00a0» est «\u00a0first\u00a0»"
    condition = {"fr": french, "es": "«Year of study» es «first»"}[language]
    assert condition in visible_text(pages_seen[1])


def test_a_skip_condition_with_and_or_not_is_described_in_the_respondents_language(client, surveys_dir, language):
    text = QUIZ_YAML + (
        "  - name: late\n    type: yes_no\n    label: Late?\n"
        "    relevant: ${year} = 'first' and not(${year} != 'second' or ${year} = 'third')\n"
    )
    (surveys_dir / "quiz.yaml").write_text(text)
    note = re.search(r'<p class="skip-note">([^<]*)</p>', client.get("/s/quiz").get_data(as_text=True)).group(1)
    expected = {
        "fr": "Seulement si «\u00a0Year of study\u00a0» est «\u00a0first\u00a0» et il n’est pas vrai que "
        "(«\u00a0Year of study\u00a0» n’est pas «\u00a0second\u00a0» "
        "ou «\u00a0Year of study\u00a0» est «\u00a0third\u00a0»).",
        "es": "Solo si «Year of study» es «first» y no es cierto que "
        "(«Year of study» no es «second» o «Year of study» es «third»).",
    }
    assert html.unescape(note) == expected[language]


def test_a_french_or_spanish_preview_shows_no_english_words(client, auth, language):
    """The researcher's preview (and what it shows after a post) in the browser's language, banner included."""
    auth.login()
    form = client.get("/admin/surveys/quiz/preview")
    fields = wire_form(make_survey(QUIZ_YAML), {"cheated": "yes", "ai_use": "once", "year": "first"})
    posted = client.post(
        "/admin/surveys/quiz/preview",
        data={"csrf_token": csrf_token_in(form.get_data(as_text=True)), "submission_key": "preview-key-0001", **fields},
    )
    for page in (form, posted):
        assert page.status_code == 200
        assert words_left(page, PREVIEW_WORDS) == []
        assert {"fr": "Aperçu", "es": "Vista previa"}[language] in visible_text(page)
        assert html_lang(page) == language
    assert {"fr": "(le questionnaire est ouvert)", "es": "(la encuesta está abierta)"}[language] in visible_text(form)


def test_the_english_preview_shows_every_preview_word_checked(client, auth):
    auth.login()
    shown = visible_text(client.get("/admin/surveys/quiz/preview"))
    assert [words for words in PREVIEW_WORDS if words not in shown] == []


#: What a form with a control arm (1/10) shows of its numbers: a design's share (lied: a = 1/6), a guessing
#: rate (cheated, two coins: 75%), the survey's epsilon (ln 75) and the control arm's share, in each language.
NUMBERS = {
    "en": ("16.7%", "75%", "ε = 4.32", "About 10%"),
    "fr": ("16,7\u00a0%", "75\u00a0%", "ε = 4,32", "Environ 10\u00a0%"),
    "es": ("16,7\u00a0%", "75\u00a0%", "ε = 4,32", "alrededor del 10\u00a0%"),
}


@pytest.mark.parametrize("language_code", ["en", "fr", "es"])
def test_numbers_on_the_form_are_written_in_the_respondents_locale(client, surveys_dir, language_code):
    (surveys_dir / "quiz.yaml").write_text(QUIZ_YAML + "direct_share: 1/10\n")
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = language_code
    text = visible_text(client.get("/s/quiz"))
    assert [number for number in NUMBERS[language_code] if number not in text] == []
    if language_code != "en":
        assert [number for number in NUMBERS["en"] if number in text] == []


#: The English words of the release page, the releases ledger and the publishing form (issue 28).
RELEASE_WORDS = (
    "Results published on",
    "This page is a snapshot",
    "Download exactly what is published",
    "Print view",
    "Published value",
    "What protects the respondents",
    "of the survey's release budget",
)
LEDGER_WORDS = ("Releases and budget", "Publish a release", "release budget is", "spent epsilon", "is left", "Address")
FORM_PAGE_WORDS = ("Show the cost", "Epsilon of this release", "List this release", "Answers counted now")
#: A phrase of each page in each language.
RELEASE_NATIVE = {
    "fr": ("Ce qui protège les répondants", "Publications et budget", "Afficher le coût"),
    "es": ("Qué protege a quienes responden", "Publicaciones y presupuesto", "Mostrar el coste"),
}


@pytest.fixture
def published(app, auth, surveys_dir) -> str:
    """The quiz with a release budget and one release published (in English): its token."""
    from storage import releases
    from tests.helpers.records import add_responses, many
    from tests.helpers.sample_surveys import quiz_with_releases
    from web.db import open_database

    (surveys_dir / "quiz.yaml").write_text(quiz_with_releases())
    auth.login()
    add_responses(app, many(20, 20))
    form = auth.client.get("/admin/surveys/quiz/releases/new")
    data = {"csrf_token": csrf_token_in(form.get_data(as_text=True)), "action": "publish", "epsilon": "0.5"}
    answer = auth.client.post("/admin/surveys/quiz/releases/new", data={**data, "figure": ["counts:year"]})
    assert answer.status_code == 302
    own = open_database(app)
    try:
        return releases.releases_of(own, "quiz")[0].token
    finally:
        own.close()


def test_the_english_release_pages_show_every_word_checked(app, auth, published):
    pages = {
        RELEASE_WORDS: app.test_client().get(f"/r/{published}"),
        LEDGER_WORDS: auth.client.get("/admin/surveys/quiz/releases"),
        FORM_PAGE_WORDS: auth.client.get("/admin/surveys/quiz/releases/new"),
    }
    for words, page in pages.items():
        assert [w for w in words if w not in visible_text(page)] == [], page.request.path


def test_a_release_and_the_releases_pages_follow_the_visitors_language(app, auth, published, language):
    """The public release page in the browser's language (signed out), the ledger and the publishing form too;
    ``?lang=`` wins over the browser. The figures' titles, notes and the protection sentences follow too
    (::test_a_french_or_spanish_release_shows_no_english_figure_note)."""
    visitor = app.test_client()
    visitor.environ_base["HTTP_ACCEPT_LANGUAGE"] = f"{language},en;q=0.5"
    auth.client.environ_base["HTTP_ACCEPT_LANGUAGE"] = f"{language},en;q=0.5"
    pages = (
        (visitor.get(f"/r/{published}"), RELEASE_WORDS, RELEASE_NATIVE[language][0]),
        (visitor.get(f"/r/{published}/print"), RELEASE_WORDS[:2], RELEASE_NATIVE[language][0]),
        (auth.client.get("/admin/surveys/quiz/releases"), LEDGER_WORDS, RELEASE_NATIVE[language][1]),
        (auth.client.get("/admin/surveys/quiz/releases/new"), FORM_PAGE_WORDS, RELEASE_NATIVE[language][2]),
    )
    for page, words, native in pages:
        assert page.status_code == 200 and html_lang(page) == language, page.request.path
        assert [w for w in words if w in visible_text(page)] == [], page.request.path
        assert native in visible_text(page), page.request.path
    english = visitor.get(f"/r/{published}?lang=en")
    assert html_lang(english) == "en" and "What protects the respondents" in visible_text(english)
    missing = visitor.get("/r/nothing-here-at-all-xx")
    assert missing.status_code == 404 and "There is no release at this address" not in visible_text(missing)


#: Everyday English words, none of which a French or Spanish note uses (the survey's own labels, in quotation
#: marks, are left out before looking): every English note and protection sentence has several of them.
ENGLISH_NOTE_WORDS = frozenset({"the", "was", "were", "with", "each", "is", "are", "and", "noise", "answers", "of"})
#: Every kind of figure the quiz can publish: free estimate, counts, the most common answer, a break-down.
EVERY_FIGURE = ["estimate:cheated", "counts:year", "mode:year", "breakdown:cheated:year"]


def notes_and_sentences(response) -> list[str]:
    """The figures' notes and the protection section's sentences of a release page, as text."""
    page = response.get_data(as_text=True)
    protection = page.split('id="protection"', 1)[1]
    found = re.findall(r'<p class="note">(.*?)</p>', page, re.S) + re.findall(r"<p>(.*?)</p>", protection, re.S)
    return [html.unescape(re.sub(r"<[^>]+>", " ", text)) for text in found]


def english_words_in(text: str) -> list[str]:
    """The words of :data:`ENGLISH_NOTE_WORDS` in ``text`` once the quoted survey labels are taken out."""
    unquoted = re.sub(r"“[^”]*”|«[^»]*»", " ", text)
    return sorted({word for word in re.findall(r"[A-Za-z]+", unquoted) if word.lower() in ENGLISH_NOTE_WORDS})


@pytest.fixture
def every_figure_published(app, auth, surveys_dir) -> str:
    """The quiz with a release of every kind of figure published: its token."""
    from storage import releases
    from tests.helpers.records import add_responses, many
    from tests.helpers.sample_surveys import quiz_with_releases
    from web.db import open_database

    (surveys_dir / "quiz.yaml").write_text(quiz_with_releases())
    auth.login()
    add_responses(app, many(20, 20))
    form = auth.client.get("/admin/surveys/quiz/releases/new")
    data = {"csrf_token": csrf_token_in(form.get_data(as_text=True)), "action": "publish", "epsilon": "0.5"}
    answer = auth.client.post("/admin/surveys/quiz/releases/new", data={**data, "figure": EVERY_FIGURE})
    assert answer.status_code == 302
    own = open_database(app)
    try:
        return releases.releases_of(own, "quiz")[0].token
    finally:
        own.close()


def test_the_english_release_notes_are_found_by_the_check(app, every_figure_published):
    """On the English page each note and sentence has English words: the check below can fail."""
    texts = notes_and_sentences(app.test_client().get(f"/r/{every_figure_published}?lang=en"))
    assert len(texts) >= len(EVERY_FIGURE) + 3
    assert [text for text in texts if not english_words_in(text)] == []


def test_a_french_or_spanish_release_shows_no_english_figure_note(app, auth, every_figure_published, language):
    """Each figure's title and note and each sentence on what protects the respondents is in the visitor's
    language: no everyday English word outside the survey's quoted labels, and each note is the catalogue's
    translation (read from the compiled catalogue, not through the app) of the words stored with the release."""

    from storage import releases
    from surveys.release_words import say
    from web.db import open_database
    from web.release_data import readable

    own = open_database(app)
    try:
        release = readable(releases.release_by_token(own, every_figure_published).body)
    finally:
        own.close()
    visitor = app.test_client()
    visitor.environ_base["HTTP_ACCEPT_LANGUAGE"] = f"{language},en;q=0.5"
    for path in (f"/r/{every_figure_published}", f"/r/{every_figure_published}/print"):
        page = visitor.get(path)
        texts = notes_and_sentences(page)
        assert len(texts) >= len(EVERY_FIGURE) + 3
        assert [(text, english_words_in(text)) for text in texts if english_words_in(text)] == [], path
        shown = visible_text(page)
        assert [figure.note for figure in release.figures if figure.note in shown] == []
        assert [sentence for sentence in release.protection if sentence in shown] == []
    gettext = Translations.load(str(CATALOGUES), [language]).gettext
    for figure in release.figures:
        assert html.escape(say(figure.note_words, gettext, language), quote=False) in page.get_data(as_text=True)
        title = say(figure.title_words, gettext, language)
        assert title != figure.title and html.escape(title, quote=False) in page.get_data(as_text=True)
    auth.client.environ_base["HTTP_ACCEPT_LANGUAGE"] = f"{language},en;q=0.5"
    ledger = visible_text(auth.client.get("/admin/surveys/quiz/releases"))
    assert [f.title for f in release.figures if f.title in ledger] == []
    assert [f.title for f in release.figures if say(f.title_words, gettext, language) not in ledger] == []


def test_revealing_questions_sharing_a_proof_are_listed_in_the_respondents_language(client, surveys_dir, language):
    """Two Mangat questions prove the same thing: one line, the labels joined as the language writes a list
    (Babel's CLDR pattern), each in the language's quotation marks (French's with no-break spaces inside, so a
    quoted word never starts or ends a line), after a heading that fits one or many."""
    mangat = "    type: yes_no\n    design: {model: mangat, p: 3/4}\n"
    added = f"  - name: dropped\n    label: Dropped data\n{mangat}  - name: hid\n    label: Hid data\n{mangat}"
    text = QUIZ_YAML + added
    (surveys_dir / "quiz.yaml").write_text(text)
    page = re.sub(r"[ \t\r\n]+", " ", visible_text(client.get("/s/quiz")))  # French keeps its no-break spaces
    expected = {
        "fr": "Protection incomplète : Pour «\u00a0Dropped data\u00a0» et «\u00a0Hid data\u00a0», "
        "un «\u00a0non\u00a0» enregistré prouve",
        "es": "Protección incompleta: Para «Dropped data» y «Hid data», un «no» guardado prueba",
    }
    assert expected[language] in page, page


def test_plain_questions_are_listed_in_the_respondents_language_and_quotation_marks(client, surveys_dir, language):
    """The "Not protected" line names its questions as the revealing line does: each label in the language's
    quotation marks, the list joined by the language's pattern (before: English “ ” and ", " in every language)."""
    plain = "    type: select_one\n    choices: [north, south]\n    randomize: false\n"
    added = f"  - name: campus\n    label: Campus\n{plain}  - name: faculty\n    label: Faculty\n{plain}"
    (surveys_dir / "quiz.yaml").write_text(QUIZ_YAML + added)
    page = re.sub(r"[ \t\r\n]+", " ", visible_text(client.get("/s/quiz")))
    expected = {
        "fr": "«\u00a0Year of study\u00a0», «\u00a0Campus\u00a0» et «\u00a0Faculty\u00a0» sont enregistrées telles que",
        "es": "«Year of study», «Campus» y «Faculty»",
    }
    assert expected[language] in page, page


def test_a_paired_statement_questions_options_are_the_interfaces_words_in_the_respondents_language(
    client, surveys_dir, language
):
    """The options of a crosswise and a triangular question are the product's words, not the survey's: on the
    form, in the privacy summary's proof and on the thank-you page they are in the respondent's language
    (before: English on a French or Spanish form)."""
    paired = "    type: yes_no\n    design: {model: %s, q: 1/4, innocuous: My birthday is in spring.}\n"
    added = (
        f"  - name: swapped\n    label: Swapped data\n{paired % 'crosswise'}"
        f"  - name: gifted\n    label: Gifted authorship\n{paired % 'triangular'}"
    )
    (surveys_dir / "quiz.yaml").write_text(QUIZ_YAML + added)
    english = [choice.label for choices in PAIRED_STATEMENT_CHOICES.values() for choice in choices]
    gettext = Translations.load(str(CATALOGUES), [language]).gettext
    translated = [gettext(label) for label in english]
    page = client.get("/s/quiz").get_data(as_text=True)
    assert [label for label in english if html.escape(label, quote=False) in page] == []
    assert [label for label in translated if label not in page] == []
    answers = {"cheated": "yes", "lied": "no", "ai_use": "never", "year": "first", "swapped": "no", "gifted": "no"}
    thanks = Respondent(client).submit(answers).get_data(as_text=True)
    assert gettext("“No” to both") in thanks and "“No” to both" not in thanks, thanks
