"""Playwright: a three-page survey in English and French with skip logic, answered in French in Chromium.

The respondent reaches French through the language chooser or through the browser's own language
(``locale``, sent as Accept-Language), with JavaScript on and off. Every page must show the French
texts and the French interface words (none of the English ones), Back must keep the answers, and
no request (its answers, or the signed token of the earlier pages') nor the database may hold a true
answer to a randomized question. Screenshots are saved in ``test-artifacts/``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.browser_steps import BROWSER_ONLY_ON_SQLITE, check_requests, fill_in, press
from tests.helpers.drivers import ENGLISH_INTERFACE_WORDS
from tests.helpers.records import stored_answers
from tests.helpers.sample_surveys import PAGED_TWO_LANGUAGES_YAML, make_survey

pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only(reason=BROWSER_ONLY_ON_SQLITE)]

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
SURVEY = make_survey(PAGED_TWO_LANGUAGES_YAML)
#: crypto.getRandomValues always 2^32 - 5 (as in tests/test_browser_pages.py): each randomized answer
#: comes out as the opposite of the true one.
FORCED_COINS = "crypto.getRandomValues = function (array) { array.fill(4294967291); return array; };"
#: The true answers, by their French labels, page by page.
PAGE_1 = {"cheated": "Non", "lied": "Oui"}
PAGE_2 = {"ai_use": "jamais", "year": "première", "first_exam": "Non"}
TRUE = {"cheated": "no", "lied": "yes", "ai_use": "never", "first_exam": "no", "campus_help": "no"}
NOISY = {"cheated": "yes", "lied": "no", "ai_use": "often", "first_exam": "yes", "campus_help": "yes"}
#: The English words of the pages of a survey of several pages (beside the interface's, checked everywhere).
ENGLISH_PAGE_WORDS = ("Page 1 of", "Page 2 of", "Page 3 of", "Next", "Keep my earlier answer", "Only if", "cannot be")
#: The survey's own English texts: a French page shows none of them.
ENGLISH_SURVEY_TEXTS = ("Have you ever cheated", "Year of study", "Where do you live", "Answers are randomized")


@pytest.fixture
def paged2(surveys_dir):
    (surveys_dir / "paged2.yaml").write_text(PAGED_TWO_LANGUAGES_YAML)


def assert_french(page, number: int | None) -> None:
    """The page is in French: ``<html lang>``, the survey's texts, the interface's words, and its page number."""
    text = page.inner_text("body")
    english = [w for w in (*ENGLISH_INTERFACE_WORDS, *ENGLISH_PAGE_WORDS, *ENGLISH_SURVEY_TEXTS) if w in text]
    assert english == [], english
    assert page.get_attribute("html", "lang") == "fr"
    if number is not None:
        assert f"Page {number} sur 3" in text and "Votre vie privée" in text


def answer_in_french(page, shot: str) -> None:
    """From page 1 (in French already): pages 1 to 3, Back from page 3, forward again, submit."""
    assert_french(page, 1)
    assert "Avez-vous déjà triché à un examen ?" in page.inner_text("main")
    fill_in(page, PAGE_1)
    press(page, "Suivant")
    assert_french(page, 2)
    fill_in(page, PAGE_2)
    note = page.inner_text("fieldset[data-question=first_exam]")
    assert "Seulement si «\u00a0Année d'études\u00a0» est «\u00a0première\u00a0»." in note, note
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"languages-{shot}-page2.png"), full_page=True)
    press(page, "Suivant")
    assert_french(page, 3)
    fill_in(page, {"residence": "Sur le campus"})
    press(page, "Retour")
    assert_french(page, 2)
    assert page.locator("fieldset[data-question=year]").get_by_label("première", exact=True).is_checked()
    kept = page.locator("fieldset[data-question=ai_use]").get_by_label("Garder ma réponse précédente", exact=False)
    assert kept.is_checked()
    page.screenshot(path=str(ARTIFACTS / f"languages-{shot}-back.png"), full_page=True)
    press(page, "Suivant")
    assert_french(page, 3)
    assert page.locator("fieldset[data-question=residence]").get_by_label("Sur le campus", exact=True).is_checked()
    fill_in(page, {"campus_help": "Non"})
    press(page, "Envoyer les réponses")
    assert_french(page, None)
    assert "Ce qui a été enregistré" in page.inner_text("main")
    page.screenshot(path=str(ARTIFACTS / f"languages-{shot}-thanks.png"), full_page=True)


def open_in_french(page, live_server: str, way: str) -> None:
    """The survey's first page in French: by the chooser (the browser prefers English) or by the browser."""
    page.goto(f"{live_server}/s/paged2")
    if way == "chooser":
        assert page.get_attribute("html", "lang") == "en" and "Page 1 of 3" in page.inner_text("main")
        page.get_by_role("link", name="Français").click()
        page.wait_for_load_state()


def locale_of(way: str) -> str:
    return "fr-FR" if way == "browser" else "en-GB"


@pytest.mark.parametrize("way", ["chooser", "browser"])
def test_with_javascript_a_french_respondent_sees_french_on_every_page_and_sends_only_noisy_answers(
    browser, live_server, app, paged2, way
):
    context = browser.new_context(locale=locale_of(way))
    page = context.new_page()
    page.add_init_script(FORCED_COINS)
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.post_data) if r.method == "POST" else None)
    open_in_french(page, live_server, way)
    answer_in_french(page, f"js-{way}")
    context.close()
    check_requests(app, SURVEY, posts, True, TRUE, NOISY)
    (row,) = stored_answers(app)
    assert {name: row[name] for name in TRUE} == NOISY and row["year"] == "first" and row["residence"] == "campus"


@pytest.mark.parametrize("way", ["chooser", "browser"])
def test_without_javascript_a_french_respondent_sees_french_on_every_page_and_carries_only_noisy_answers(
    browser, live_server, app, paged2, way, monkeypatch
):
    from web import pages

    flip = {"yes": "no", "no": "yes", "never": "often"}
    monkeypatch.setattr(
        pages, "randomize_on_server", lambda survey, answers, arm="": {k: flip.get(v, v) for k, v in answers.items()}
    )
    context = browser.new_context(java_script_enabled=False, locale=locale_of(way))
    page = context.new_page()
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.post_data) if r.method == "POST" else None)
    open_in_french(page, live_server, way)
    answer_in_french(page, f"nojs-{way}")
    context.close()
    check_requests(app, SURVEY, posts, False, TRUE, NOISY)
    (row,) = stored_answers(app)
    assert {name: row[name] for name in TRUE} == NOISY and row["residence"] == "campus"


#: The same survey in English and Spanish (every French text replaced by its Spanish one).
SPANISH_TEXTS = {
    "languages: [en, fr]": "languages: [en, es]",
    "id: paged2": "id: paged2es",
    "Questionnaire de test en trois pages": "Cuestionario de prueba en tres páginas",
    "Les réponses sont tirées au sort.": "Las respuestas se sortean.",
    "Avez-vous déjà triché à un examen ?": "¿Ha copiado alguna vez en un examen?",
    "Avez-vous menti à un professeur ?": "¿Ha mentido a un profesor?",
    "Avez-vous rendu un texte écrit par une IA ?": "¿Ha entregado un texto escrito por una IA?",
    "fr: jamais": "fr: nunca",
    "fr: une fois": "fr: una vez",
    "fr: parfois": "fr: a veces",
    "fr: souvent": "fr: a menudo",
    "Année d'études": "Año de estudios",
    "fr: première": "fr: primero",
    "fr: deuxième": "fr: segundo",
    "fr: troisième": "fr: tercero",
    "fr: quatrième": "fr: cuarto",
    "Avez-vous triché à votre tout premier examen ?": "¿Copió en su primer examen?",
    "Où logez-vous ?": "¿Dónde vive?",
    "Sur le campus": "En el campus",
    "Chez moi": "En casa",
    "Un colocataire a-t-il rédigé un devoir pour vous ?": "¿Le ha escrito un trabajo un compañero de piso?",
}


def spanish_survey_yaml() -> str:
    text = PAGED_TWO_LANGUAGES_YAML
    for french, spanish in SPANISH_TEXTS.items():
        assert french in text, french
        text = text.replace(french, spanish)
    return text.replace("fr: ", "es: ")


SPANISH = make_survey(spanish_survey_yaml())


def assert_spanish(page, number: int | None) -> None:
    """The page is in Spanish: ``<html lang>``, the survey's texts, the interface's words, and its page number."""
    text = page.inner_text("body")
    english = [w for w in (*ENGLISH_INTERFACE_WORDS, *ENGLISH_PAGE_WORDS, *ENGLISH_SURVEY_TEXTS) if w in text]
    assert english == [], english
    assert page.get_attribute("html", "lang") == "es"
    if number is not None:
        assert f"Página {number} de 3" in text and "Su privacidad" in text


def test_with_javascript_a_spanish_respondent_sees_spanish_on_every_page_and_sends_only_noisy_answers(
    browser, live_server, app, surveys_dir
):
    (surveys_dir / "paged2es.yaml").write_text(spanish_survey_yaml())
    context = browser.new_context(locale="es-ES")
    page = context.new_page()
    page.add_init_script(FORCED_COINS)
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.post_data) if r.method == "POST" else None)
    page.goto(f"{live_server}/s/paged2es")
    assert_spanish(page, 1)
    assert "¿Ha copiado alguna vez en un examen?" in page.inner_text("main")
    fill_in(page, {"cheated": "No", "lied": "Sí"})
    press(page, "Siguiente")
    assert_spanish(page, 2)
    fill_in(page, {"ai_use": "nunca", "year": "primero", "first_exam": "No"})
    assert "Solo si" in page.inner_text("fieldset[data-question=first_exam]")
    press(page, "Siguiente")
    assert_spanish(page, 3)
    fill_in(page, {"residence": "En el campus"})
    press(page, "Atrás")
    assert_spanish(page, 2)
    assert page.locator("fieldset[data-question=year]").get_by_label("primero", exact=True).is_checked()
    kept = page.locator("fieldset[data-question=ai_use]").get_by_label("Mantener mi respuesta anterior", exact=False)
    assert kept.is_checked()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "languages-es-js-back.png"), full_page=True)
    press(page, "Siguiente")
    fill_in(page, {"campus_help": "No"})
    press(page, "Enviar respuestas")
    assert_spanish(page, None)
    assert "Lo que se guardó" in page.inner_text("main")
    context.close()
    check_requests(app, SPANISH, posts, True, TRUE, NOISY)
    (row,) = stored_answers(app)
    assert {name: row[name] for name in TRUE} == NOISY and row["year"] == "first" and row["residence"] == "campus"
