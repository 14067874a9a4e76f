"""What a move shows on the table (issue #13): where a model could have gone, the target's
engagement zone, trails, the Warmaster ranges; labels that never collide; army colours that
match their names, with a second cue besides colour."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from django.test import Client
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Point

from battlefield.models import Scenario
from battlefield.pictures import table_png, table_svg
from battlefield.scene import ARMY_COLOURS, _label_box, _overlaps, scene
from battlefield.showing import shown_overlays, trail_overlays
from battlefield.stepper import placed
from rules import Move, Situation, adjudicate
from tests.documents import scenario

SVG = "{http://www.w3.org/2000/svg}"


def surge_table() -> Situation:
    """B1 (30, 20) and B2 (31.5, 20), 32 mm bases (radius 0.63"), 6" and 4.5" from the centre
    of C1, a 40 mm base (radius 0.787") at (36, 20): B1's gap to C1 is 6 - 0.63 - 0.787 =
    4.583", so on a roll of 4 it can end within 2" (03.04) after moving 2.583"."""
    doc = scenario()
    doc["terrain"] = []
    doc["units"][1]["keywords"] = ["INFANTRY"]
    doc["units"][1]["models"] = [{"id": "C1", "base": {"round": 40}, "x": 36.0, "y": 20.0}]
    return Situation.from_document(doc)


def surge(end: dict) -> Move:
    return Move.from_document(
        {
            "format": "arbiter.move/1",
            "unit": "B",
            "type": "surge",
            "declarations": {
                "ability": "blood-surge",
                "trigger": {"event": "shot", "by": "C", "models_destroyed": 2},
            },
            "dice": [4],
            "end": {k: {"x": x, "y": y} for k, (x, y) in end.items()},
        }
    )


def test_a_model_that_could_have_engaged_gets_a_ghost_on_that_spot_and_an_arrow_from_it():
    situation = surge_table()
    # B2 moves to 33.2: 36 - 33.2 - 1.417 = 1.383" from C1, engaged; B1 stays put, 1.94" from
    # B2 (coherent) but 4.583" from C1, although it could have engaged: it fails 21.02.
    end = {"B1": (30.0, 20.0), "B2": (33.2, 20.0)}
    verdict = adjudicate(situation, surge(end))
    assert not verdict.legal
    shown = placed(
        situation, situation.unit("B"), {k: {"x": x, "y": y} for k, (x, y) in end.items()}
    )
    overlays = shown_overlays(situation, verdict, placed=shown)
    ghosts = [o for o in overlays if o.css_class == "ghost"]
    arrows = [o for o in overlays if o.css_class == "arrow"]
    assert len(ghosts) == 1 and len(arrows) == 1
    ghost = ghosts[0].geometry
    c1 = situation.model("C1").footprint
    assert abs(ghost.area - situation.model("B1").footprint.area) < 0.01  # B1's own base
    assert ghost.distance(c1) <= 2.0 + 0.01  # engaged there
    assert ghosts[0].label == "could have ended here"
    line = next(g for g in arrows[0].geometry.geoms if g.geom_type == "LineString")
    assert line.coords[0] == (30.0, 20.0)  # from where B1 was placed
    assert ghost.centroid.distance(Point(30.0, 20.0)) <= 4.0 + 0.01  # within the roll


def test_the_surge_targets_engagement_zone_is_two_inches_round_its_models():
    situation = surge_table()
    verdict = adjudicate(situation, surge({"B1": (30.0, 20.0), "B2": (33.2, 20.0)}))
    zone = next(o for o in shown_overlays(situation, verdict) if "target-zone" in o.css_class)
    # C1's edge is at x = 36 - 0.787 = 35.213: 1.9" left of it is inside, 2.1" is not.
    assert zone.geometry.contains(Point(35.213 - 1.9, 20.0))
    assert not zone.geometry.contains(Point(35.213 - 2.1, 20.0))
    assert zone.label == '2" engagement zone of Crisis Battlesuits'


def test_trails_run_from_start_to_end_for_the_models_that_moved_only():
    situation = surge_table()
    after = placed(
        situation, situation.unit("B"), {"B1": {"x": 30.0, "y": 20.0}, "B2": {"x": 33.2, "y": 21.0}}
    )
    lines, starts = trail_overlays(situation, after, "B")
    assert [list(g.coords) for g in lines.geometry.geoms] == [[(31.5, 20.0), (33.2, 21.0)]]
    assert [(p.x, p.y) for p in starts.geometry.geoms] == [(31.5, 20.0)]


def test_a_flyer_ordered_shows_its_100_cm_reach_and_the_20_cm_order_range_of_characters():
    situation = Situation.from_document(
        {
            "format": "arbiter.scenario/1",
            "system": "warmaster-revolution",
            "table": {"width": 240, "height": 120},
            "armies": [{"id": "elves", "name": "High Elves"}, {"id": "orcs", "name": "Orcs"}],
            "units": [
                {
                    "id": "eagles",
                    "army": "elves",
                    "name": "Giant Eagles",
                    "keywords": ["FLYING", "MONSTER"],
                    "models": [
                        {"id": "e1", "base": {"rect": [40, 20]}, "x": 20, "y": 60, "facing": 0}
                    ],
                },
                {
                    "id": "hero",
                    "army": "elves",
                    "name": "Elf Hero",
                    "keywords": ["HERO", "CHARACTER"],
                    "models": [
                        {"id": "h1", "base": {"rect": [40, 20]}, "x": 150, "y": 60, "facing": 0}
                    ],
                },
            ],
            "turn": {"round": 1, "active_army": "elves", "phase": "command"},
        }
    )
    overlays = shown_overlays(situation, {"move": {"unit": "eagles", "type": "order-move"}})
    reach = next(o for o in overlays if "flyer-reach" in o.css_class)
    # e1 is 2 cm deep along x (facing 0) so its front edge is at x = 21: 100 cm on is x = 121.
    assert reach.geometry.contains(Point(120.5, 60)) and not reach.geometry.contains(
        Point(121.5, 60)
    )
    assert reach.label == "100 cm flyer reach"
    order = next(o for o in overlays if "order-range" in o.css_class)
    assert order.label == "20 cm order range of Elf Hero"
    # h1's back edge is at x = 149: 20 cm from it is x = 129.
    assert order.geometry.contains(Point(129.5, 60)) and not order.geometry.contains(
        Point(128.5, 60)
    )
    initiative = shown_overlays(
        situation, {"move": {"unit": "eagles", "type": "initiative-charge"}}
    )
    assert any(o.label == "20 cm initiative range" for o in initiative)


# -- labels and colours ------------------------------------------------------------------------


def crowded() -> Situation:
    """Four units side by side along one row, two squads' width apart: their names cannot all
    sit above, below or beside them."""
    doc = scenario()
    doc["units"] = [
        {
            "id": f"U{i}",
            "army": "red" if i % 2 else "blue",
            "name": f"Very Long Unit Name Number {i}",
            "keywords": ["INFANTRY"],
            "models": [
                {"id": f"U{i}m{j}", "base": {"round": 32}, "x": 10 + i * 2.0, "y": 10 + j * 1.5}
                for j in range(3)
            ],
        }
        for i in range(4)
    ]
    return Situation.from_document(doc)


def test_labels_overlap_no_model_and_no_other_label_and_the_ones_that_do_not_fit_are_numbered():
    situation = crowded()
    drawing = scene(situation)
    labels = [u.label for u in drawing.units] + list(drawing.terrain_labels)
    boxes = [_label_box(label) for label in labels]
    for i, box in enumerate(boxes):
        assert not any(_overlaps(box, other) for other in boxes[i + 1 :])
        for unit in situation.units:
            for m in unit.models:
                assert not _overlaps(box, m.footprint.bounds), (labels[i].text, m.id)
    numbered = [e.text for e in drawing.legend if e.kind == "number"]
    names = {u.name for u in situation.units}
    shown = {u.label.text for u in drawing.units}
    # every name is either on the table or in the legend behind the number drawn for it
    for name in names - shown:
        number = next(t.split(" = ")[0] for t in numbered if t.endswith(f"= {name}"))
        assert number in shown
    svg = ET.fromstring(str(table_svg(situation)))
    legend = [t.text for t in svg.iter(f"{SVG}text") if t.text and " = " in t.text]
    assert legend == numbered


def test_terrain_is_named_with_its_height_on_the_table():
    drawing = scene(Situation.from_document(scenario()))
    assert [label.text for label in drawing.terrain_labels] == ['Ruin 5"']


def test_armies_named_after_a_colour_are_drawn_in_it_and_each_army_has_its_own_mark():
    doc = scenario()
    doc["armies"] = [{"id": "a", "name": "Blue army"}, {"id": "b", "name": "Red army"}]
    doc["units"][0]["army"], doc["units"][1]["army"] = "b", "a"
    doc["turn"]["active_army"] = "a"
    situation = Situation.from_document(doc)
    drawing = scene(situation)
    colour = {u.army: u.colour for u in drawing.units}
    assert colour == {"b": ARMY_COLOURS[3], "a": ARMY_COLOURS[0]}  # vermillion, blue
    marks = {
        u.army: (bool(u.models[0].mark_ring_r), bool(u.models[0].mark_dot_r)) for u in drawing.units
    }
    assert marks["a"] != marks["b"]  # told apart without colour too
    assert "Red army (red)" in drawing.desc
    # the legend shows each army's mark in its swatch, as on its bases
    svg = ET.fromstring(str(table_svg(situation)))
    swatches = [g for g in svg.iter(f"{SVG}g") if g.get("class") == "legend-entry legend-disc"]
    marked = [bool(g.findall(f"{SVG}circle[@class='army-mark']")) for g in swatches]
    assert marked == [False, True]  # Blue army (listed first): none; Red army: an inner ring
    png = table_png(situation)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_an_army_without_a_colour_word_takes_the_first_free_colour():
    doc = scenario()
    doc["armies"] = [{"id": "x", "name": "Necrons"}, {"id": "y", "name": "Blue army"}]
    doc["units"][0]["army"], doc["units"][1]["army"] = "x", "y"
    doc["turn"]["active_army"] = "x"
    drawing = scene(Situation.from_document(doc))
    assert {u.army: u.colour for u in drawing.units} == {"x": ARMY_COLOURS[1], "y": ARMY_COLOURS[0]}


# -- the step page -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_committed_surge_step_shows_the_target_zone_before_and_the_trails_after(
    client, django_user_model
):
    owner = django_user_model.objects.create_user("owner")
    client.force_login(owner)
    doc = scenario()
    doc["terrain"] = []
    doc["units"][1]["keywords"] = ["INFANTRY"]
    doc["units"][1]["models"] = [{"id": "C1", "base": {"round": 40}, "x": 36.0, "y": 20.0}]
    s = Scenario.objects.create(document=doc, owner=owner)
    # B1 2.6" and B2 2.4" to the right: 1.98" and 0.68" from C1's edge (x = 35.213), engaged;
    # 0.04" apart, in coherency.
    data = {
        "unit": "B",
        "roll": "hand",
        "type": "surge",
        "ability": "blood-surge",
        "trigger-event": "shot",
        "trigger-by": "C",
        "trigger-models_destroyed": "2",
        "dice": "4",
        "after": "done",
        "version": "1",
        "pose-B1-x": "32.6",
        "pose-B1-y": "20",
        "pose-B2-x": "33.9",
        "pose-B2-y": "20",
    }
    assert client.post(f"/scenarios/{s.pk}/move/commit", data).status_code == 302
    html = Client().get(f"/s/{s.share_token}/steps/0/").content.decode()
    before = ET.fromstring(re.search(r'<svg[^>]*id="before".*?</svg>', html, re.S).group(0))
    after = ET.fromstring(re.search(r'<svg[^>]*id="after".*?</svg>', html, re.S).group(0))

    def groups(root, css):
        return [g for g in root.iter(f"{SVG}g") if css in (g.get("class") or "").split()]

    assert groups(before, "target-zone") and not groups(before, "trail")
    trails = groups(after, "trail")
    assert len(trails) == 1 and len(trails[0].findall(f"{SVG}path")) == 2  # B1's and B2's
    assert "target Crisis Battlesuits" in html


def test_a_unit_label_keeps_off_an_objective_marker_just_above_the_unit():
    doc = scenario()
    # B1 and B2 at (30, 20) and (31.5, 20); a 40 mm marker (radius 0.787") centred 1.6" above
    # them covers where the name would go first (just above the unit).
    doc["objectives"] = [{"id": "obj-1", "name": "Relic", "x": 30.75, "y": 18.4}]
    drawing = scene(Situation.from_document(doc))
    label = next(u.label for u in drawing.units if u.id == "B")
    marker = drawing.objectives[0]
    disc = marker.disc
    assert not _overlaps(
        _label_box(label), (disc.x - disc.r, disc.y - disc.r, disc.x + disc.r, disc.y + disc.r)
    )
    assert not _overlaps(_label_box(label), _label_box(marker.label))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 6), st.integers(0, 11), st.integers(1, 4)),
        min_size=1,
        max_size=8,
        unique_by=lambda t: (t[0], t[1]),
    )
)
def test_placed_names_never_cover_a_model_or_another_label_and_the_rest_are_in_the_legend(units):
    """Random units in cells 6 in wide and 2 in tall (no base overlaps another), each a row of
    one to four 32 mm bases 1.3 in apart: every name drawn in full covers no model and no
    other label, and every name not drawn in full is in the legend behind its number."""
    doc = scenario()
    doc["terrain"] = []
    doc["units"] = [
        {
            "id": f"U{i}",
            "army": "red" if i % 2 else "blue",
            "name": f"Unit number {i} with a name",
            "keywords": ["INFANTRY"],
            "models": [
                {
                    "id": f"U{i}m{j}",
                    "base": {"round": 32},
                    "x": 14 + cx * 6.0 + j * 1.3,
                    "y": 10 + cy * 2.0,
                }
                for j in range(n)
            ],
        }
        for i, (cx, cy, n) in enumerate(units)
    ]
    situation = Situation.from_document(doc)
    drawing = scene(situation)
    labels = [u.label for u in drawing.units] + list(drawing.terrain_labels)
    full = [label for label in labels if not label.text.isdigit()]
    boxes = [_label_box(label) for label in labels]
    for label in full:
        box = _label_box(label)
        assert sum(_overlaps(box, other) for other in boxes) == 1  # itself only
        for m in situation.models():
            assert not _overlaps(box, m.footprint.bounds)
    legend = {e.text for e in drawing.legend if e.kind == "number"}
    for unit in drawing.units:
        if unit.label.text.isdigit():
            assert f"{unit.label.text} = {unit.name}" in legend
