"""Lessons: load_demo loads every lesson file; a lesson's steps are pages of their own URLs and
htmx partials; the "Try it" step judges in memory, for anyone, and stores nothing."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from battlefield.lessons import LESSON_DIR, load_lessons, read_lesson
from battlefield.models import Lesson, Scenario, Step

pytestmark = pytest.mark.django_db
PARTIAL = {"HX-Request": "true", "HX-Request-Type": "partial"}
FULL = {"HX-Request": "true", "HX-Request-Type": "full"}


@pytest.fixture
def demo():
    call_command("load_demo", stdout=StringIO())


def test_every_lesson_file_reads_and_load_demo_loads_them_all_once(demo):
    files = sorted(LESSON_DIR.glob("*.json"))
    assert len(files) >= 8
    assert Lesson.objects.count() == len(files)
    for path in files:
        doc = read_lesson(path)
        lesson = Lesson.objects.get(slug=path.stem)
        assert lesson.scenario.demo_key == doc["scenario"] and lesson.title == doc["title"]
    # idempotent: loading again adds and changes nothing
    assert load_lessons() == (0, 0)
    call_command("load_demo", stdout=StringIO())
    assert Lesson.objects.count() == len(files)


def test_the_home_page_links_each_lesson(client, demo):
    html = client.get("/").content.decode()
    for lesson in Lesson.objects.all():
        assert f'href="/lessons/{lesson.slug}/"' in html


def test_a_lesson_opens_on_its_first_step_with_the_focus_outlined(client, demo):
    lesson = Lesson.objects.get(slug="surge-basics")
    first = lesson.steps[0]
    response = client.get("/lessons/surge-basics/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" in html and lesson.title in html
    assert first["title"] in html
    assert 'data-step="1"' in html and 'href="/lessons/surge-basics/2/"' in html
    situation = lesson.scenario.situation
    for unit_id in first["focus"]:
        for model in situation.unit(unit_id).models:
            assert f'id="table-model-{model.id}" class="model highlighted"' in html


def test_next_and_previous_are_htmx_partials_with_their_own_urls(client, demo):
    partial = client.get("/lessons/surge-basics/2/", headers=PARTIAL).content.decode()
    assert "<html" not in partial and partial.lstrip().startswith('<div id="lesson"')
    assert 'hx-get="/lessons/surge-basics/1/"' in partial and 'hx-push-url="true"' in partial
    assert 'rel="prev"' in partial and 'rel="next"' in partial
    restored = client.get("/lessons/surge-basics/2/", headers=FULL).content.decode()
    assert "<html" in restored


def test_a_step_beyond_the_lesson_is_not_found(client, demo):
    assert client.get("/lessons/surge-basics/99/").status_code == 404
    assert client.get("/lessons/no-such-lesson/").status_code == 404


def try_number(slug):
    lesson = Lesson.objects.get(slug=slug)
    return next(i for i, s in enumerate(lesson.steps, 1) if "try" in s), lesson


def test_the_try_it_step_shows_the_locked_move_and_the_placement_form(client, demo):
    number, lesson = try_number("surge-basics")
    html = client.get(f"/lessons/surge-basics/{number}/").content.decode()
    move = lesson.steps[number - 1]["try"]
    assert "data-placement" in html and 'action="/lessons/surge-basics/check"' in html
    assert "Commit" not in html  # a lesson stores nothing
    unit = lesson.scenario.situation.unit(move["unit"])
    for model in unit.models:
        assert f'name="pose-{model.id}-x"' in html
    assert f'<span class="die" title="entered by hand">{move["dice"][0]}</span>' in html


def test_checking_a_try_is_open_to_anyone_and_stores_nothing(client, demo):
    number, lesson = try_number("surge-basics")
    move = lesson.steps[number - 1]["try"]
    steps, versions = Step.objects.count(), list(Scenario.objects.values_list("version", flat=True))
    # the posted declarations are ignored: the lesson's own are used
    response = client.post(
        "/lessons/surge-basics/check", {"unit": "A", "type": "normal", "dice": "6"}, headers=PARTIAL
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "verdict-body" in html and 'hx-swap-oob="true"' in html
    assert "does not judge surge moves" not in html
    assert move["unit"] == "B"
    assert Step.objects.count() == steps
    assert list(Scenario.objects.values_list("version", flat=True)) == versions


def test_a_try_with_a_bad_pose_answers_422_with_the_error(client, demo):
    response = client.post(
        "/lessons/surge-basics/check", {"pose-B1-x": "left", "pose-B1-y": "3"}, headers=PARTIAL
    )
    assert response.status_code == 422
    # the field as the form shows it (issue 13: no developer field names)
    assert "That did not work (B1, x)" in response.content.decode()


def test_suggest_in_a_try_is_refused_plainly_while_the_engine_lacks_the_move_type(client, demo):
    html = client.post("/lessons/surge-basics/suggest", {}, headers=PARTIAL).content.decode()
    assert html.lstrip().startswith('<fieldset id="pose-fields"')


def test_a_lesson_file_with_the_wrong_slug_is_refused(tmp_path):
    from rules import InvalidInput

    source = (LESSON_DIR / "surge-basics.json").read_text()
    bad = Path(tmp_path) / "renamed.json"
    bad.write_text(source)
    with pytest.raises(InvalidInput, match="file name"):
        read_lesson(bad)


def test_without_javascript_a_try_answers_the_whole_lesson_page_with_the_verdict(client, demo):
    number, lesson = try_number("warmaster-home-back")
    html = client.post("/lessons/warmaster-home-back/check", {}).content.decode()
    assert "<html" in html and "verdict-body" in html
    assert f'data-step="{number}"' in html and lesson.title in html
