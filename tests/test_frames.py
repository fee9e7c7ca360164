"""web/frames.py: the thank-you page rendered once and filled per submission is the page the template renders."""

from __future__ import annotations

import itertools

import pytest
from flask import render_template, template_rendered

from tests.helpers.drivers import Respondent
from tests.helpers.sample_surveys import PAGED_TWO_LANGUAGES_YAML, survey_in
from web import thanks
from web.frames import Frame, render_frame
from web.language import in_respondent_language

pytestmark = pytest.mark.both_backends


def every_answer_set(survey):
    """Every combination of a stored answer (or none, where a question may be blank) per question."""
    options = [list(q.choice_names) + ([None] if not q.required else []) for q in survey.questions]
    for values in itertools.product(*options):
        yield {q.name: v for q, v in zip(survey.questions, values) if v is not None}


def rendered_directly(survey, noisy) -> str:
    shown = None if noisy is None else thanks.stored_answers_shown(survey, noisy)
    return render_template("respond/thanks.html", survey=survey, shown=shown)


@pytest.mark.parametrize(("survey_id", "language"), [("quiz", "en"), ("quiz", "fr"), ("paged2", "fr")])
def test_the_filled_frame_is_the_template_rendered_for_every_answer_set(app, surveys_dir, survey_id, language):
    (surveys_dir / "paged2.yaml").write_text(PAGED_TWO_LANGUAGES_YAML)
    with app.test_request_context(f"/s/{survey_id}", method="POST", headers={"Accept-Language": language}):
        survey = in_respondent_language(survey_in(app, survey_id))
        lengths = set()
        for noisy in [None, *every_answer_set(survey)]:
            page = thanks.thank(survey, noisy).get_data(as_text=True)
            assert page == rendered_directly(survey, noisy)
            lengths.add(len(page.encode()) if noisy is not None else None)
        assert len(lengths - {None}) == 1  # one length whatever was stored
        assert ("Merci" in page) == (language == "fr")


def test_the_template_is_rendered_once_for_many_submissions(app):
    rendered = []

    def count(_sender, template, **_extra):
        rendered.append(template.name)

    template_rendered.connect(count, app)
    try:
        for _ in range(5):
            assert (
                Respondent(app.test_client()).submit({"cheated": "yes", "ai_use": "once", "year": "first"}).status_code
                == 200
            )
    finally:
        template_rendered.disconnect(count, app)
    assert rendered.count("respond/thanks.html") == 1
    assert rendered.count("respond/form.html") == 5  # each respondent's form is still rendered


def test_a_frame_is_filled_in_order_and_needs_one_value_per_slot():
    frame = render_frame(lambda markers: f"<p>{markers[0]}</p><p>{markers[1]}</p>", 2)
    assert frame == Frame(("<p>", "</p><p>", "</p>")) and frame.slots == 2
    assert frame.fill(["a", "b"]) == "<p>a</p><p>b</p>"
    with pytest.raises(ValueError, match="the frame has 2 slots, got 1 values"):
        frame.fill(["a"])


@pytest.mark.parametrize(
    ("render", "problem"),
    [
        (lambda m: f"{m[0]}{m[0]}{m[1]}", "slot 0 appears 2 times"),
        (lambda m: f"{m[0]}", "slot 1 appears 0 times"),
        (lambda m: f"{m[1]}{m[0]}", "slot 1 appears 0 times"),  # out of order
    ],
)
def test_a_page_that_does_not_print_each_slot_once_in_order_is_refused(render, problem):
    with pytest.raises(ValueError, match=problem):
        render_frame(render, 2)
