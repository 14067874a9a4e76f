"""Drawing terrain point by point in the editor (issue #12 item 5): a footprint, then walls and
upper floors of it with typed heights; the document's validator refuses what RULES.md 1.5
does not allow, naming the field."""

from __future__ import annotations

import pytest

from battlefield.editor import parse_points
from battlefield.models import Scenario
from rules import InvalidInput

pytestmark = pytest.mark.django_db
PARTIAL = {"HX-Request": "true", "HX-Request-Type": "partial"}


@pytest.fixture
def mine(client, django_user_model):
    user = django_user_model.objects.create_user("player", password="a long enough password")
    client.force_login(user)
    assert client.post("/scenarios/new", {"name": "Club table", "table": "wh40k-11e:60x44"})
    return Scenario.objects.latest("pk")


def draw(client, scenario, **data):
    scenario.refresh_from_db()
    return client.post(
        f"/scenarios/{scenario.pk}/edit/terrain/draw",
        {"version": scenario.version, **data},
        headers=PARTIAL,
    )


def test_an_l_shaped_ruin_drawn_by_its_corners_then_a_wall_and_a_floor_of_it(client, mine):
    corners = "10,10 20,10 20,14 14,14 14,20 10,20"  # an L: six clicks
    response = draw(
        client, mine, part="footprint", points=corners, type="ruin", category="dense", height=""
    )
    assert response.status_code == 200
    mine.refresh_from_db()
    (ruin,) = mine.document["terrain"]
    assert ruin["id"] == "ruin-1" and ruin["type"] == "ruin" and ruin["category"] == "dense"
    assert ruin["footprint"] == [[10, 10], [20, 10], [20, 14], [14, 14], [14, 20], [10, 20]]
    assert "height" not in ruin  # a layered ruin has its heights on its walls and floors

    assert (
        draw(
            client,
            mine,
            part="wall",
            feature="ruin-1",
            points="10,10 20,10",
            height=5,
            thickness=0.5,
        ).status_code
        == 200
    )
    assert (
        draw(
            client, mine, part="floor", feature="ruin-1", points="10,10 14,10 14,14 10,14", height=3
        ).status_code
        == 200
    )
    mine.refresh_from_db()
    ruin = mine.document["terrain"][0]
    assert ruin["height"] == 5  # as tall as its tallest part
    assert ruin["walls"] == [{"path": [[10, 10], [20, 10]], "height": 5, "thickness": 0.5}]
    assert ruin["floors"] == [{"footprint": [[10, 10], [14, 10], [14, 14], [10, 14]], "height": 3}]
    # The table draws what was drawn: the floor labelled with its height, the wall with its.
    html = client.get(f"/scenarios/{mine.pk}/edit").content.decode()
    assert 'class="terrain-floor"' in html
    assert ">3&quot;</text>" in html and ">wall 5&quot;</text>" in html
    assert mine.situation.terrain[0].floors[0].height == 3


def test_a_floor_outside_its_footprint_is_refused_naming_the_field(client, mine):
    draw(
        client,
        mine,
        part="footprint",
        points="10,10 20,10 20,20 10,20",
        type="ruin",
        category="dense",
    )
    version = Scenario.objects.get(pk=mine.pk).version
    response = draw(
        client, mine, part="floor", feature="ruin-1", points="18,18 30,18 30,30 18,30", height=3
    )
    assert response.status_code == 422
    assert "Not saved." in response.content.decode()
    assert Scenario.objects.get(pk=mine.pk).version == version  # nothing saved


def test_too_few_points_and_bad_points_are_refused_plainly(client, mine):
    response = draw(client, mine, part="footprint", points="10,10 20,10", type="ruin")
    assert response.status_code == 422
    assert "a footprint needs at least 3 points" in response.content.decode()
    response = draw(client, mine, part="wall", feature="nope", points="1,1 2,2", height=3)
    assert response.status_code == 422
    assert "there is no terrain piece" in response.content.decode()
    response = draw(client, mine, part="floor", feature="x", points="1,1 2,2", height=-1)
    assert response.status_code == 422
    assert "height must be at least 0" in response.content.decode()


def test_points_read_as_clicked_or_typed():
    assert parse_points("1,2 3.5,4\n5,6; 7,8") == [[1, 2], [3.5, 4], [5, 6], [7, 8]]
    with pytest.raises(InvalidInput, match="point 2"):
        parse_points("1,2 3")
    with pytest.raises(InvalidInput, match="point 1 y must be a number"):
        parse_points("1,two")


def test_the_editor_offers_walls_and_floors_only_where_the_game_has_levels(client, mine):
    html = client.get(f"/scenarios/{mine.pk}/edit").content.decode()
    assert 'value="wall"' in html and 'value="floor"' in html
    assert "js/editor-terrain.js" in html
    client.post("/scenarios/new", {"name": "WM", "table": "warmaster-revolution:180x120"})
    warmaster = Scenario.objects.latest("pk")
    html = client.get(f"/scenarios/{warmaster.pk}/edit").content.decode()
    assert "data-draw-form" in html and 'value="wall"' not in html


def test_a_refused_drawing_keeps_its_points_without_javascript(client, mine):
    mine.refresh_from_db()
    response = client.post(
        f"/scenarios/{mine.pk}/edit/terrain/draw",
        {"version": mine.version, "part": "footprint", "points": "10,10 20,10", "type": "ruin"},
    )
    assert response.status_code == 422
    html = response.content.decode()
    assert "a footprint needs at least 3 points" in html
    assert '<details class="draw-terrain" open>' in html
    assert 'placeholder="x,y x,y x,y">10,10 20,10</textarea>' in html


def test_a_turn_button_turns_a_whole_feature_with_its_walls_about_its_centre(client, mine):
    draw(
        client,
        mine,
        part="footprint",
        points="10,10 20,10 20,14 10,14",
        type="ruin",
        category="dense",
    )
    draw(client, mine, part="wall", feature="ruin-1", points="10,10 20,10", height=4)
    mine.refresh_from_db()
    # Centre (15, 12); a quarter turn clockwise (y down) takes (10, 10) to (17, 7) and
    # (20, 10) to (17, 17): the wall along the top becomes the right-hand side.
    response = client.post(
        f"/scenarios/{mine.pk}/edit/terrain/ruin-1",
        {"version": mine.version, "x": 15, "y": 12, "rotate_by": 0, "turn": 90},
        headers=PARTIAL,
    )
    assert response.status_code == 200
    assert "Turned terrain ruin-1" in response.content.decode()
    mine.refresh_from_db()
    ruin = mine.document["terrain"][0]
    assert ruin["walls"][0]["path"] == [[17, 7], [17, 17]]
    assert sorted(map(tuple, ruin["footprint"])) == [(13, 7), (13, 17), (17, 7), (17, 17)]
