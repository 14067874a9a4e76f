"""What the table's drawing keeps between pictures (issue 16): the rendered pieces of the SVG
(battlefield/pictures.py, kept by the very scene values they are drawn from) and the board's
looks (battlefield/scene.py, kept by the board's own objects). A picture drawn with them is the
picture drawn afresh, byte for byte, whatever moved, whoever asks and whatever was declared;
labels round a unit's new positions are placed as they would be afresh; and both stay within
their bounds."""

import copy

import pytest
from django.core.cache import cache
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import box

from battlefield import pagecache, pictures, scene, stepper
from battlefield.models import Scenario
from battlefield.pictures import Overlay, table_svg
from battlefield.scene import _label_box, _overlaps
from rules import Situation
from tests.documents import scenario


def forget_all() -> None:
    """Every page and drawing cache emptied: what a picture is without any of them."""
    cache.clear()
    pagecache.forget_situations()
    pictures.forget_svg_pieces()
    scene.forget_looks()


@pytest.fixture(autouse=True)
def empty_caches():
    forget_all()
    yield
    forget_all()


def board() -> Situation:
    """The test table with more on it: three pieces of terrain (one over the table's edge), a
    deployment zone, an objective and a third unit."""
    doc = scenario()
    doc["terrain"].append(
        {
            "id": "crater",
            "type": "crater",
            "category": "exposed",
            "height": 0,
            "footprint": [[40, 30], [46, 30], [46, 36], [40, 36]],
        }
    )
    doc["terrain"].append(
        {
            "id": "edge-wood",
            "type": "woods",
            "category": "light",
            "height": 0,
            "footprint": [[55, 2], [64, 2], [64, 8], [55, 8]],
        }
    )
    doc["deployment_zones"] = [
        {"army": "red", "footprint": [[0, 0], [60, 0], [60, 8], [0, 8]], "name": "Hammer"}
    ]
    doc["objectives"] = [{"id": "o1", "name": "Home", "x": 12, "y": 30}]
    doc["units"].append(
        {
            "id": "D",
            "army": "red",
            "name": "Khorne Berzerkers",
            "keywords": ["INFANTRY"],
            "move": 6,
            "models": [
                {"id": f"D{i}", "base": {"round": 32}, "x": 10.0 + 1.5 * i, "y": 14.0}
                for i in range(4)
            ],
        }
    )
    return Situation.from_document(doc)


BOARD = board()
UNITS = ["B", "C", "D"]


def drag(situation: Situation, unit_id: str, dx: float, dy: float, turn: float) -> Situation:
    """The unit's models moved and turned, as the stepper shows a placement (stepper.placed:
    the other units and the board are the very same objects)."""
    unit = situation.unit(unit_id)
    poses = {
        m.id: {"x": m.x + dx, "y": m.y + dy, "facing": (m.facing or 0) + turn} for m in unit.models
    }
    return stepper.placed(situation, unit, poses)


def overlays_for(kind: int, x: float, y: float) -> list:
    """Overlays of the kinds a Check draws: a reach region (labelled), a ghost and arrow, a
    trail (tuples, as well as Overlays)."""
    reach = Overlay(box(x - 6, y - 6, x + 6, y + 6), "reachable reachable-ground", "reachable")
    ghost = Overlay(box(x + 1, y + 1, x + 2, y + 2), "ghost", "could have ended here")
    return [[], [reach], [reach, ghost], [(box(x, y, x + 1, y + 3), "trail path")]][kind]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(UNITS),
            st.floats(-20, 20),
            st.floats(-12, 12),
            st.sampled_from([0.0, 45.0, 90.0]),
            st.integers(0, 3),
            st.booleans(),
            st.sampled_from(["table", "before"]),
            st.booleans(),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_a_picture_drawn_with_what_is_kept_is_the_picture_drawn_afresh(moves):
    """Pictures one after another (as Checks come), with caches kept between them: each is
    byte for byte the picture drawn with every cache emptied first, and its names drawn in full
    cover no model where the models now stand (the moved unit's new positions included)."""
    for unit_id, dx, dy, turn, kind, lit, dom_id, interactive in moves:
        shown = drag(BOARD, unit_id, dx, dy, turn)
        unit = shown.unit(unit_id)
        highlight = [unit.models[0].id] if lit else []
        overlays = overlays_for(kind, unit.models[0].x, unit.models[0].y)
        kept = table_svg(
            shown, highlight=highlight, overlays=overlays, dom_id=dom_id, interactive=interactive
        )
        drawing = scene.scene(shown, highlight=highlight, overlays=overlays)
        forget_all()
        afresh = table_svg(
            shown, highlight=highlight, overlays=overlays, dom_id=dom_id, interactive=interactive
        )
        assert kept == afresh
        labels = [u.label for u in drawing.units if u.label] + list(drawing.terrain_labels)
        # (a numbered marker with no free spot left takes the one covering least: scene.py)
        labels = [label for label in labels if not label.text.isdigit()]
        models = [m for u in shown.units for m in u.models]
        for label in labels:
            for m in models:
                r = m.base.radius
                assert not _overlaps(_label_box(label), (m.x - r, m.y - r, m.x + r, m.y + r)), (
                    label.text,
                    m.id,
                )
        # the next picture starts from this one's caches, as the next Check would
        table_svg(shown, highlight=highlight, overlays=overlays, dom_id=dom_id)


def test_a_new_board_is_never_drawn_from_an_old_boards_looks():
    """Another version's Situation is other objects: its terrain is drawn as it now is, even
    where everything else (the units, the table's size) is the same."""
    before = table_svg(BOARD)
    doc = copy.deepcopy(scenario())
    doc["terrain"][0]["footprint"] = [[2, 2], [8, 2], [8, 8], [2, 8]]
    moved = Situation.from_document(doc)
    after = table_svg(moved)
    assert after != before and 'd="M2 2L8 2L8 8L2 8Z"' in after
    forget_all()
    assert table_svg(moved) == after


def test_a_changed_overlay_object_is_not_drawn_from_what_was_kept():
    """Overlays kept by identity are only immutable ones (Overlay, tuples); any other object
    with geometry and css_class is drawn afresh every time, since it might have changed."""

    class Mutable:
        def __init__(self, geometry):
            self.geometry, self.css_class, self.label = geometry, "reachable", ""

    overlay = Mutable(box(1, 1, 3, 3))
    first = table_svg(BOARD, overlays=[overlay])
    overlay.geometry = box(5, 5, 9, 9)
    second = table_svg(BOARD, overlays=[overlay])
    assert first != second and 'd="M9 5L9 9L5 9L5 5Z"' in second


def test_the_kept_pieces_and_looks_stay_within_their_byte_bounds(monkeypatch):
    monkeypatch.setattr(pictures._PIECES, "limit", 200_000)
    monkeypatch.setattr(scene._KEPT, "limit", 150_000)
    for i in range(40):
        table_svg(drag(BOARD, "D", i * 0.25, 0.0, 0.0), overlays=overlays_for(2, 20, 20 + i / 4))
    count, size = pictures.kept_svg_pieces()
    assert 0 < count and size <= 200_000
    count, size = scene.kept_looks()
    assert 0 < count and size <= 150_000
    # and what is left still draws the same picture as afresh
    shown = drag(BOARD, "D", 1.0, 0.0, 0.0)
    kept = table_svg(shown)
    forget_all()
    assert table_svg(shown) == kept


# -- through the pages --------------------------------------------------------------------------


def svg(response) -> str:
    html = response.content.decode()
    return html[html.index("<svg") : html.index("</svg>")]


@pytest.mark.django_db
def test_a_check_never_gets_a_stale_table(client, django_user_model):
    """Checks in a row, with the caches kept: another placement, other dice, another declared
    move, another user and a new version each get the table drawn for them, byte for byte the
    one drawn with every cache emptied first."""
    owner = django_user_model.objects.create_user("owner")
    reader = django_user_model.objects.create_user("reader")
    s = Scenario.objects.create(document=scenario(), owner=owner, visibility="unlisted")
    client.force_login(owner)
    other = Client()
    other.force_login(reader)
    surge = {
        "unit": "B",
        "roll": "hand",
        "type": "surge",
        "ability": "blood-surge",
        "trigger-event": "shot",
        "trigger-by": "C",
        "trigger-models_destroyed": "1",
        "after": "done",
        "pose-B1-y": "20",
        "pose-B2-x": "31.5",
        "pose-B2-y": "20",
    }
    asked = [
        (client, f"/scenarios/{s.pk}/move/check", {**surge, "dice": "4", "pose-B1-x": "33"}),
        (client, f"/scenarios/{s.pk}/move/check", {**surge, "dice": "4", "pose-B1-x": "34"}),
        (client, f"/scenarios/{s.pk}/move/check", {**surge, "dice": "1", "pose-B1-x": "34"}),
        (
            client,
            f"/scenarios/{s.pk}/move/check",
            {
                "unit": "B",
                "type": "advance",
                "roll": "hand",
                "dice": "3",
                "pose-B1-x": "34",
                "pose-B1-y": "20",
                "pose-B2-x": "31.5",
                "pose-B2-y": "20",
            },
        ),
        (other, f"/s/{s.share_token}/move/check", {**surge, "dice": "4", "pose-B1-x": "34"}),
    ]
    seen = []
    for who, url, data in asked:
        kept = who.post(url, data)
        assert kept.status_code == 200, kept.content[:300]
        forget_all()
        afresh = who.post(url, data)
        assert svg(kept) == svg(afresh)
        seen.append(svg(kept))
    assert seen[0] != seen[1]  # the model stands elsewhere
    # A new version: the ruin moved; the next Check shows it where it now is.
    document = copy.deepcopy(s.document)
    document["terrain"][0]["footprint"] = [[2, 2], [8, 2], [8, 8], [2, 8]]
    s.document = document
    s.save()
    who, url, data = asked[0]
    kept = who.post(url, data)
    assert 'd="M2 2L8 2L8 8L2 8Z"' in svg(kept) and svg(kept) != seen[0]
    forget_all()
    assert svg(who.post(url, data)) == svg(kept)


def phase_now(html: str) -> str:
    return html[html.index('<p class="phase-now">') :].split("</p>")[0]


@pytest.mark.django_db
def test_the_share_page_shows_the_phase_of_the_current_version():
    """The phase bar is kept per version: a new turn or phase shows at once."""
    s = Scenario.objects.create(document=scenario())
    page = Client().get(s.share_url()).content.decode()
    assert "<strong>Shooting phase</strong>" in phase_now(page)
    document = copy.deepcopy(s.document)
    document["turn"]["phase"] = "charge"
    s.document = document
    s.save()
    page = Client().get(s.share_url()).content.decode()
    assert "<strong>Charge phase</strong>" in phase_now(page)
    forget_all()
    assert phase_now(Client().get(s.share_url()).content.decode()) == phase_now(page)
