"""Deployment zones, objective markers and the data source in the scenario format (FORMAT.md
"Scenario markers", docs/format.md), kept by the engine and drawn in both pictures."""

import io
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

from battlefield.pictures import legend_entries, table_png, table_svg
from battlefield.validation import validate_scenario
from rules import InvalidInput, Situation
from tests.documents import scenario

SVG = "{http://www.w3.org/2000/svg}"

SOURCE = {
    "dataset": "40kdc-data (wh40kdc)",
    "version": "1.4.5",
    "licence": "Data CC BY 4.0, 40kdc-data by Alpaca Software",
    "layout": {
        "id": "x-1",
        "name": "Dawn test",
        "dataslate": "launch",
        "deployment": "Dawn of War",
        "mission": "Take and Hold vs Take and Hold",
    },
    "unit_dataslates": ["launch"],
}


def marked(**overrides):
    # Red sets up along the top edge (y 0-12), blue along the bottom (y 32-44); two markers.
    doc = scenario(
        deployment_zones=[
            {"army": "red", "name": "Attacker", "footprint": [[0, 0], [60, 0], [60, 12], [0, 12]]},
            {"army": "blue", "footprint": [[0, 32], [60, 32], [60, 44], [0, 44]]},
        ],
        objectives=[
            {"id": "o1", "x": 10, "y": 22},
            {"id": "o2", "name": "Centre", "x": 50, "y": 22},
        ],
        source=SOURCE,
    )
    doc.update(overrides)
    return doc


def test_markers_are_kept_by_the_engine_and_survive_a_move():
    situation = validate_scenario(marked())
    assert [z.army for z in situation.deployment_zones] == ["red", "blue"]
    assert situation.deployment_zones[0].footprint.area == 60 * 12
    assert [(o.id, o.x, o.y) for o in situation.objectives] == [("o1", 10, 22), ("o2", 50, 22)]
    assert situation.source["version"] == "1.4.5"
    after = situation.moved({"B1": {"x": 30, "y": 22}})
    assert after.objectives == situation.objectives
    assert after.to_document()["deployment_zones"] == marked()["deployment_zones"]


def test_a_document_without_markers_means_what_it_meant():
    situation = validate_scenario(scenario())
    assert situation.deployment_zones == () and situation.objectives == ()
    assert dict(situation.source) == {}
    assert "zone" not in table_svg(situation)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d["deployment_zones"][1].update(army="green"), "deployment_zones[1].army"),
        (
            lambda d: d["deployment_zones"][0].update(
                footprint=[[0, 0], [10, 10], [10, 0], [0, 10]]
            ),
            "deployment_zones[0].footprint",
        ),
        (lambda d: d["objectives"][1].update(x=61), "objectives[1]"),
        (lambda d: d["objectives"][1].update(id="o1"), "objectives[1].id"),
        (lambda d: d["objectives"][0].update(colour="red"), "objectives[0].colour"),
        (lambda d: d["source"].update(publisher="me"), "source.publisher"),
    ],
)
def test_bad_markers_are_refused_naming_the_field(change, field):
    doc = marked()
    change(doc)
    with pytest.raises(InvalidInput) as refused:
        validate_scenario(doc)
    assert refused.value.field == field


def test_svg_draws_zones_objectives_legend_and_the_layout_caption():
    svg = str(table_svg(Situation.from_document(marked())))
    root = ET.fromstring(svg)
    zones = root.findall(f".//{SVG}path[@class='deployment-zone']")
    assert [z.get("data-army") for z in zones] == ["red", "blue"]
    objectives = root.findall(f".//{SVG}g[@class='objective']")
    assert [o.get("data-objective") for o in objectives] == ["o1", "o2"]
    # 40 mm across on a table in inches: r = 20 / 25.4.
    assert float(objectives[0].find(f"{SVG}circle").get("r")) == pytest.approx(20 / 25.4, abs=1e-3)
    legend = [t.text for t in root.findall(f".//{SVG}g[@class='legend']//{SVG}text")]
    assert "Deployment zone: World Eaters" in legend and "Objective marker" in legend
    caption = root.find(f".//{SVG}text[@class='source-caption']").text
    assert "Dawn test" in caption and "1.4.5" in caption and "launch" in caption


def test_png_paints_the_objective_marker_and_the_zone_tint():
    situation = Situation.from_document(marked(units=[scenario()["units"][1]]))
    image = Image.open(io.BytesIO(table_png(situation, width_px=1200))).convert("RGB")
    plain = Image.open(
        io.BytesIO(
            table_png(
                Situation.from_document(scenario(units=[scenario()["units"][1]])), width_px=1200
            )
        )
    ).convert("RGB")
    from battlefield.scene import scene

    d = scene(situation)
    vx, vy, vw, _ = d.view

    def pixel(img, x, y):
        s = img.width / vw
        return img.getpixel((round((x - vx) * s), round((y - vy) * s)))

    # The objective at (10, 22) is a white disc (just off its centre, clear of the label).
    assert min(pixel(image, 10 - 0.5, 22 - 0.45)) >= 250
    # Inside red's zone the table is tinted, unlike the same spot without zones.
    assert pixel(image, 5, 3) != pixel(plain, 5, 3)
    kinds = [row.kind for row in legend_entries(situation)]
    assert kinds.count("zone") == 2 and kinds.count("objective") == 1
