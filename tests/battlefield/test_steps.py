"""Step links: every committed step is a read-only page under the share token, with the table
before and after, the dice and the verdict, and a PNG for link previews."""

import re

import pytest
from django.test import Client

from battlefield.models import Scenario
from rules import Verdict
from rules.dice import Dice
from tests.documents import scenario
from tests.registry import judge_move_type

pytestmark = pytest.mark.django_db
MOVED = {
    "unit": "B",
    "type": "normal",
    "roll": "hand",
    "dice": "3",
    "pose-B1-x": "30",
    "pose-B1-y": "25",
    "pose-B2-x": "31.5",
    "pose-B2-y": "25",
}


def rolled_normal_move(situation, move):
    """A plumbing rule that rolls one die as the engine does (Dice) and passes the move."""
    dice = Dice(move.dice, move.seed)
    dice.roll(1)
    dice.finish()
    verdict = Verdict(move={"unit": move.unit, "type": move.type, **dice.summary()})
    verdict.check(
        rule="09.05",
        stage="while-moving",
        passed=True,
        subject=move.unit,
        text="A test's fixed answer.",
    )
    verdict.after = situation.moved({k: v.as_dict() for k, v in move.end.items()})
    return verdict


@pytest.fixture
def committed(client, monkeypatch, django_user_model):
    judge_move_type(monkeypatch, "wh40k-11e", "normal", adjudicate=rolled_normal_move)
    owner = django_user_model.objects.create_user("owner")  # editing needs an account (issue 7)
    client.force_login(owner)
    s = Scenario.objects.create(document=scenario(), owner=owner)
    client.post(f"/scenarios/{s.pk}/move/commit", {**MOVED, "version": "1"})
    s.refresh_from_db()
    assert s.steps.count() == 1
    return s


def test_a_step_link_is_read_only_for_an_anonymous_visitor(committed):
    anonymous = Client()
    response = anonymous.get(f"/s/{committed.share_token}/steps/0/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Step 0: Normal move by Khorne Berzerkers" in html  # by name (issue 13)
    assert 'id="before"' in html and 'id="after"' in html  # both tables
    assert '<span class="die">3</span>' in html and "entered by hand" in html
    assert "Verdict: legal" in html and "09.05" in html
    # nothing to change here: the only forms are the two tables' rulers, which send nothing
    forms = re.findall(r"<form[^>]*>", html.split('<main id="main"', 1)[1])
    assert len(forms) == 2 and all("data-measure-only" in f and "method" not in f for f in forms)
    # the share page's own stepper is not open to them
    assert anonymous.get(f"/scenarios/{committed.pk}/move").status_code == 404


def test_a_step_link_shows_the_models_before_and_after(committed):
    html = Client().get(f"/s/{committed.share_token}/steps/0/").content.decode()
    before = html.split('id="before"', 1)[1].split('id="after"', 1)[0]
    after = html.split('id="after"', 1)[1]
    model = 'class="model" data-model="B1" data-unit="B" data-army="red"'
    assert f'id="before-model-B1" {model} transform="translate(30 20)' in before
    assert f'id="after-model-B1" {model} transform="translate(30 25)' in after


def test_the_step_picture_is_its_open_graph_image(committed):
    html = Client().get(f"/s/{committed.share_token}/steps/0/").content.decode()
    png_url = f"/s/{committed.share_token}/steps/0/table.png"
    assert f'<meta property="og:image" content="http://testserver{png_url}">' in html
    response = Client().get(png_url)
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert response.content[:8] == b"\x89PNG\r\n\x1a\n"
    again = Client().get(png_url, headers={"If-None-Match": response["ETag"]})
    assert again.status_code == 304


def test_a_step_link_with_a_wrong_token_or_index_is_not_found(committed):
    assert Client().get("/s/not-a-token/steps/0/").status_code == 404
    assert Client().get(f"/s/{committed.share_token}/steps/5/").status_code == 404


def test_an_undo_step_has_its_own_link_showing_the_table_restored(client, committed):
    client.post(f"/scenarios/{committed.pk}/move/undo", {"version": "2"})
    html = Client().get(f"/s/{committed.share_token}/steps/1/").content.decode()
    assert "Undo of step 0" in html and "took back step 0" in html
    after = html.split('id="after"', 1)[1]
    assert 'data-model="B1" data-unit="B" data-army="red" transform="translate(30 20)' in after
    assert f'href="/s/{committed.share_token}/steps/0/"' in html


def test_the_stepper_log_links_every_step(client, committed):
    html = client.get(f"/scenarios/{committed.pk}/move").content.decode()
    assert f'href="/s/{committed.share_token}/steps/0/"' in html


def test_a_step_link_answers_its_partial_to_htmx_and_the_whole_page_on_restore(committed):
    partial = Client().get(
        f"/s/{committed.share_token}/steps/0/",
        headers={"HX-Request": "true", "HX-Request-Type": "partial"},
    )
    assert "<html" not in partial.content.decode() and 'id="step-page"' in partial.content.decode()
    full = Client().get(
        f"/s/{committed.share_token}/steps/0/",
        headers={"HX-Request": "true", "HX-Request-Type": "full"},
    )
    assert "<html" in full.content.decode()


def test_the_share_page_lists_the_moves_made_with_their_links(committed):
    html = Client().get(committed.share_url()).content.decode()
    assert f'href="/s/{committed.share_token}/steps/0/"' in html and "normal by B" in html


@pytest.mark.parametrize(
    "visibility,cache",
    [
        ("private", "private, max-age=86400"),
        ("club", "private, max-age=86400"),
        ("unlisted", "public, no-cache"),  # shared caches revalidate (issue 15)
        ("public", "public, no-cache"),
    ],
)
def test_a_step_picture_is_kept_by_shared_caches_only_when_the_link_is_open(
    client, committed, visibility, cache
):
    # The owner may see every one of them; a proxy may keep only what anyone with the link sees.
    Scenario.objects.filter(pk=committed.pk).update(visibility=visibility)
    response = client.get(f"/s/{committed.share_token}/steps/0/table.png")
    assert response.status_code == 200
    assert response["Cache-Control"] == cache
