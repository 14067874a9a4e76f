"""Lessons that show (issue #13 item 5): each narrated step has its own table and overlays
(before, measuring lines, reach, after), and the text names what the table labels."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from io import StringIO

import pytest
from django.core.management import call_command

from battlefield.lessons import LESSON_DIR
from battlefield.models import Lesson
from rules import Situation
from rules.situation import base_distance

SVG = "{http://www.w3.org/2000/svg}"
SCENARIOS = LESSON_DIR.parent / "scenarios"


@pytest.fixture
def demo(db):
    call_command("load_demo", stdout=StringIO())


def table_of(html: str) -> ET.Element:
    svg = re.search(r'<svg xmlns="http://www.w3.org/2000/svg" id="table".*?</svg>', html, re.S)
    assert svg, "the step shows its table"
    return ET.fromstring(svg.group(0))


def positions(root: ET.Element) -> dict[str, tuple[float, float]]:
    out = {}
    for g in root.iter(f"{SVG}g"):
        if g.get("data-model"):
            x, y = re.match(r"translate\(([-\d.]+) ([-\d.]+)\)", g.get("transform")).groups()
            out[g.get("data-model")] = (float(x), float(y))
    return out


def overlays(root: ET.Element, css: str) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if css in (g.get("class") or "").split()]


def test_the_after_step_shows_every_berzerker_engaged_with_a_trail_from_where_it_started(
    client, demo
):
    situation = Lesson.objects.get(slug="surge-basics").scenario.situation
    before = client.get("/lessons/surge-basics/5/").content.decode()
    after = client.get("/lessons/surge-basics/6/").content.decode()
    start, end = positions(table_of(before)), positions(table_of(after))
    crisis = situation.unit("C").models
    berzerkers = [m.id for m in situation.unit("B").models]
    for mid in berzerkers:
        assert start[mid] != end[mid]  # the step's own table: after the surge
        moved = situation.model(mid).placed(*end[mid])
        # engaged: within 2" of a Crisis Battlesuit, horizontally (03.04), after at most 4"
        assert min(base_distance(moved, c) for c in crisis) <= 2.0 + 0.01
        assert (
            (end[mid][0] - start[mid][0]) ** 2 + (end[mid][1] - start[mid][1]) ** 2
        ) ** 0.5 <= 4.0 + 0.01
    trails = overlays(table_of(after), "trail")
    assert len(trails) == 1 and len(trails[0].findall(f"{SVG}path")) == 8  # one per model
    zone = overlays(table_of(after), "target-zone")
    assert zone and zone[0].find(f"{SVG}text").text == '2" engagement zone of Crisis Battlesuits'
    assert not overlays(table_of(before), "trail")  # before the move there is no trail


def test_a_step_that_measures_draws_the_ruler_labelled_with_the_distance(client, demo):
    root = table_of(client.get("/lessons/surge-basics/4/").content.decode())
    rulers = [g.find(f"{SVG}text").text for g in overlays(root, "ruler")]
    # "The Crisis Battlesuits are about 4 in away, the Strike Team more than 20 in."
    assert len(rulers) == 2
    near, far = (float(r.rstrip('"')) for r in rulers)
    assert 3.5 <= near <= 4.5 and far > 20


def test_the_reach_step_shades_where_the_berzerkers_can_get_to(client, demo):
    root = table_of(client.get("/lessons/surge-basics/3/").content.decode())
    assert overlays(root, "reachable")


def test_the_outlined_units_are_named_as_the_table_labels_them(client, demo):
    html = client.get("/lessons/surge-basics/4/").content.decode()
    assert "Outlined on the table: Crisis Battlesuits, Strike Team (the shooters)." in html


@pytest.mark.parametrize("path", sorted(LESSON_DIR.glob("*.json")), ids=lambda p: p.stem)
def test_lesson_texts_name_units_not_ids_the_table_does_not_show(path):
    doc = json.loads(path.read_text())
    situation = Situation.from_document(
        json.loads((SCENARIOS / f"{doc['scenario']}.json").read_text())
    )
    # Ids that are not plain words (B, BT, AR2, EA1): the table labels names, never these.
    ids = {u.id for u in situation.units} | {m.id for m in situation.models()}
    codes = {i for i in ids if not i.islower() and i != "A"}  # "A" is also the article
    for step in doc["steps"]:
        words = set(re.findall(r"[\w'-]+", f"{step['title']} {step['text']}"))
        assert not words & codes, (step["title"], words & codes)
