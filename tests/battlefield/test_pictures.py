"""Pictures of the table: the SVG the page shows and the PNG shared as an image."""

import io
import xml.etree.ElementTree as ET

import pytest
from PIL import Image
from shapely.geometry import LineString, Point, box

from battlefield.games.warmaster import STYLES as TERRAIN_WARMASTER
from battlefield.games.wh40k import STYLES as TERRAIN_40K
from battlefield.pictures import Overlay, legend_entries, table_png, table_svg
from battlefield.scene import ARMY_COLOURS, TABLE_COLOUR, scene
from rules import Situation
from tests.documents import scenario

SVG = "{http://www.w3.org/2000/svg}"


#: The shared scenario's armies have the ids "red" and "blue": drawn in those colours.
RED, BLUE = ARMY_COLOURS[3], ARMY_COLOURS[0]


def forty_k(**overrides):
    """The shared two-squad scenario, plus a crater and a solid bunker, and a unit name that
    needs escaping in SVG."""
    doc = scenario()
    doc["terrain"] += [
        {
            "id": "crater",
            "type": "crater",
            "category": "exposed",
            "height": 0,
            "footprint": [[40, 30], [46, 30], [46, 36], [40, 36]],
        },
        {
            "id": "bunker",
            "type": "building",
            "category": "dense",
            "height": 4,
            "solid": True,
            "footprint": [[5, 35], [10, 35], [10, 40], [5, 40]],
        },
    ]
    crisis = doc["units"][1]
    crisis.update(name="Crisis <Battlesuits> & co", keywords=["VEHICLE"])
    crisis["models"][0].update(base={"oval": [150, 95]}, y=20.0)
    doc.update(overrides)
    return Situation.from_document(doc)


def warmaster():
    return Situation.from_document(
        {
            "format": "arbiter.scenario/1",
            "system": "warmaster-revolution",
            "name": "Flyers over the woods",
            "table": {"width": 180, "height": 120},
            "terrain": [
                {
                    "id": "wood",
                    "type": "woods",
                    "footprint": [[60, 40], [90, 40], [90, 70], [60, 70]],
                },
                {
                    "id": "river",
                    "type": "river",
                    "footprint": [[0, 100], [180, 100], [180, 108], [0, 108]],
                },
            ],
            "armies": [{"id": "emp", "name": "Empire"}, {"id": "orc", "name": "Orcs"}],
            "units": [
                {
                    "id": "G",
                    "army": "emp",
                    "name": "Griffons",
                    "keywords": ["MONSTER", "FLYING"],
                    "models": [
                        {"id": "G1", "base": {"rect": [20, 40]}, "x": 120, "y": 30},
                        {"id": "G2", "base": {"rect": [20, 40]}, "x": 120, "y": 32},
                    ],
                },
                {
                    "id": "O",
                    "army": "orc",
                    "name": "Orc Warriors",
                    "keywords": ["INFANTRY"],
                    "models": [
                        {
                            "id": f"O{i}",
                            "base": {"rect": [40, 20]},
                            "x": 30 + 4 * i,
                            "y": 80,
                            "facing": 270,
                        }
                        for i in range(3)
                    ],
                },
            ],
            "turn": {"round": 1, "active_army": "emp", "phase": "command"},
        }
    )


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def view_box(root: ET.Element) -> list[float]:
    return [float(v) for v in root.get("viewBox").split()]


def png_image(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    return image.convert("RGB")


def pixel(image: Image.Image, situation: Situation, x: float, y: float):
    """The colour at table point (x, y): the picture spans the scene's view box."""
    vx, vy, vw, vh = scene(situation).view
    return image.getpixel((int((x - vx) / vw * image.width), int((y - vy) / vh * image.height)))


def near(rgb, colour: str, tolerance: int = 14) -> bool:
    want = tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return all(abs(a - b) <= tolerance for a, b in zip(rgb, want, strict=True))


# -- SVG ------------------------------------------------------------------------------------


def test_the_svg_is_well_formed_xml_with_a_title_and_description_for_screen_readers():
    root = parse(table_svg(forty_k(name="Berzerkers answer the guns")))
    assert root.tag == f"{SVG}svg"
    assert root.get("role") == "img"
    title, desc = root.find(f"{SVG}title"), root.find(f"{SVG}desc")
    assert title.text == "Berzerkers answer the guns"
    assert "60 by 44 in table" in desc.text and "World Eaters (red)" in desc.text
    assert root.get("aria-labelledby") == "table-title table-desc"


def test_the_view_box_is_in_table_units_so_clicks_map_to_table_coordinates():
    root = parse(table_svg(forty_k()))
    vx, vy, vw, vh = view_box(root)
    # The table (0..60 x 0..44 in) sits inside the view with a margin round it.
    assert vx < 0 and vy < 0 and vx + vw > 60 and vy + vh > 44
    assert vw < 70  # inches, not pixels
    surface = next(e for e in root.iter(f"{SVG}rect") if e.get("class") == "table-surface")
    assert (surface.get("x"), surface.get("y"), surface.get("width"), surface.get("height")) == (
        "0",
        "0",
        "60",
        "44",
    )
    assert root.get("data-unit") == "in"


def test_every_model_is_one_element_with_its_ids_and_every_unit_names_its_army():
    situation = forty_k()
    root = parse(table_svg(situation))
    models = [e for e in root.iter() if e.get("data-model")]
    assert [m.get("data-model") for m in models] == ["B1", "B2", "C1"]
    assert [m.get("data-unit") for m in models] == ["B", "B", "C"]
    assert len({m.get("id") for m in models}) == 3 and all(m.get("id") for m in models)
    units = [e for e in root.iter() if "unit" in (e.get("class") or "").split()]
    assert {(u.get("data-unit"), u.get("data-army")) for u in units} == {
        ("B", "red"),
        ("C", "blue"),
    }


def test_a_model_is_placed_by_one_transform_at_its_centre_and_facing():
    root = parse(table_svg(forty_k()))
    c1 = next(e for e in root.iter() if e.get("data-model") == "C1")
    assert c1.get("transform") == "translate(40 20) rotate(90)"
    ellipse = c1.find(f"{SVG}ellipse")
    # 150 mm long along the facing, 95 mm wide: radii 75 / 25.4 = 2.953 and 47.5 / 25.4 = 1.87
    assert (ellipse.get("rx"), ellipse.get("ry")) == ("2.953", "1.87")
    assert c1.find(f"{SVG}path").get("class") == "facing"


def test_round_bases_at_the_default_facing_get_no_facing_tick():
    root = parse(table_svg(forty_k()))
    b1 = next(e for e in root.iter() if e.get("data-model") == "B1")
    assert b1.find(f"{SVG}circle").get("r") == "0.63"  # 32 mm / 2 / 25.4
    assert b1.find(f"{SVG}path") is None


def test_highlighted_models_get_the_outline_class_and_the_others_do_not():
    root = parse(table_svg(forty_k(), highlight=["B2", "C1"]))
    outlined = {
        e.get("data-model")
        for e in root.iter()
        if e.get("data-model") and any("highlight" == c.get("class") for c in e)
    }
    assert outlined == {"B2", "C1"}
    ring = next(
        c
        for e in root.iter()
        if e.get("data-model") == "B2"
        for c in e
        if c.get("class") == "highlight" and c.get("stroke") == "#000000"
    )
    assert float(ring.get("r")) > 0.63  # just outside the base


def test_overlays_render_as_areas_lines_and_labels_with_their_class():
    overlays = [
        Overlay(Point(30, 20).buffer(6).difference(box(33, 18, 34, 19)), "reachable"),
        Overlay(LineString([(30, 20), (38, 26)]), "ruler", '10"'),
        Overlay(Point(40, 20).buffer(3).exterior, "engagement"),
    ]
    root = parse(table_svg(forty_k(), overlays=overlays))
    groups = [e for e in root.iter(f"{SVG}g") if "overlay" in (e.get("class") or "").split()]
    assert [g.get("class") for g in groups] == [
        "overlay reachable",
        "overlay ruler",
        "overlay engagement",
    ]
    reachable = groups[0].find(f"{SVG}path")
    assert reachable.get("fill-rule") == "evenodd"
    assert reachable.get("d").count("M") == 2  # the outline and the hole
    assert groups[1].find(f"{SVG}text").text == '10"'
    assert groups[2].find(f"{SVG}path").get("fill") == "none"


def test_names_from_the_scenario_are_escaped():
    svg = table_svg(forty_k())
    assert "Crisis &lt;Battlesuits&gt; &amp; co" in svg
    labels = [e.text for e in parse(svg).iter(f"{SVG}text") if e.get("class") == "unit-label"]
    assert "Crisis <Battlesuits> & co" in labels


def test_terrain_carries_its_category_and_the_40k_style_solid_drawn_darkest():
    root = parse(table_svg(forty_k()))
    terrain = {e.get("data-terrain"): e for e in root.iter(f"{SVG}path") if e.get("data-terrain")}
    assert terrain["ruin-1"].get("fill") == TERRAIN_40K["dense"].fill
    assert terrain["crater"].get("stroke-dasharray")  # exposed: dashed edge
    assert terrain["bunker"].get("fill") == TERRAIN_40K["solid"].fill
    assert terrain["ruin-1"].get("d") == "M20 10L26 10L26 16L20 16Z"


def test_the_40k_grid_is_every_inch_with_stronger_lines_every_six():
    drawing = scene(forty_k())
    major = {a for a, b in drawing.grid_major.segments}
    minor = {a for a, b in drawing.grid_minor.segments}
    assert (6.0, 0.0) in major and (54.0, 0.0) in major and (0.0, 42.0) in major
    assert (1.0, 0.0) in minor and (6.0, 0.0) not in minor
    # 59 inner vertical lines + 43 horizontal ones, split between minor and major.
    assert len(major) + len(minor) == 59 + 43


def test_the_legend_lists_armies_in_order_then_the_terrain_styles_used():
    rows = legend_entries(forty_k())
    assert [(r.kind, r.text, r.fill) for r in rows[:2]] == [
        ("army", "World Eaters", RED),
        ("army", "Tau Empire", BLUE),
    ]
    assert {r.text for r in rows[2:]} == {
        "Dense terrain",
        "Exposed terrain",
        "Solid terrain (no entry)",
    }


def test_a_warmaster_table_is_drawn_in_centimetres_with_stands_as_rectangles():
    situation = warmaster()
    root = parse(table_svg(situation))
    assert root.get("data-unit") == "cm"
    vx, vy, vw, vh = view_box(root)
    assert vx < 0 and vx + vw > 180 and vy + vh > 120
    g1 = next(e for e in root.iter() if e.get("data-model") == "G1")
    # A cavalry-like stand: 20 mm frontage, 40 mm deep along the facing (+x): 4 x 2 cm.
    assert g1.find(f"{SVG}polygon").get("points") == "-2,-1 2,-1 2,1 -2,1"
    drawing = scene(situation)
    assert ((50.0, 0.0), (50.0, 120.0)) in drawing.grid_major.segments
    assert ((10.0, 0.0), (10.0, 120.0)) in drawing.grid_minor.segments
    wood = next(e for e in root.iter(f"{SVG}path") if e.get("data-terrain") == "wood")
    assert wood.get("fill") == TERRAIN_WARMASTER["woods"].fill


# -- PNG ------------------------------------------------------------------------------------


def test_the_png_has_the_asked_width_and_the_pictures_proportions():
    situation = forty_k()
    vx, vy, vw, vh = scene(situation).view
    for width in (1200, 600):
        image = png_image(table_png(situation, width_px=width))
        assert image.width == width
        assert image.height == round(width * vh / vw)


def test_the_png_shows_terrain_armies_and_the_bare_table_in_their_colours():
    situation = forty_k()
    image = png_image(table_png(situation))
    assert near(pixel(image, situation, 23.5, 13.5), TERRAIN_40K["dense"].fill)  # ruin centroid
    assert near(pixel(image, situation, 6.5, 36.0), TERRAIN_40K["solid"].fill)  # off its name
    assert near(pixel(image, situation, 30.0, 20.0), RED)  # B1's centre
    assert near(pixel(image, situation, 40.0, 20.0), BLUE)  # C1's centre
    assert near(pixel(image, situation, 50.5, 10.5), TABLE_COLOUR)  # off the grid lines
    assert near(pixel(image, situation, -0.5, 30.3), "#FFFFFF")  # the margin


def test_the_png_keeps_the_axes_unflipped_and_turns_bases_clockwise():
    situation = forty_k()
    image = png_image(table_png(situation))
    # C1 faces 90 degrees: clockwise from +x with y down, so its long axis runs down the page.
    # 2.3 in along the facing (below the centre, beside the facing tick) is still on the base:
    # (0.5 / 1.87)^2 + (2.3 / 2.953)^2 = 0.07 + 0.61 < 1; 2.5 in across (> 1.87) is not.
    assert near(pixel(image, situation, 40.5, 22.3), BLUE)
    assert not near(pixel(image, situation, 42.5, 20.0), BLUE, 40)


def test_a_highlighted_model_has_a_dark_ring_just_outside_its_base_in_the_png():
    situation = forty_k()
    drawing = scene(situation, highlight=["B1"])
    ring = drawing.units[0].models[0].ring_r  # centre line of the black ring
    plain = png_image(table_png(situation))
    outlined = png_image(table_png(situation, highlight=["B1"]))

    def darkest(image):
        return min(sum(pixel(image, situation, 30.0, 20.0 - ring + d / 100)) for d in range(-4, 5))

    assert darkest(outlined) < 150
    assert darkest(plain) > 450


def test_the_png_draws_overlays_see_through():
    situation = forty_k()
    image = png_image(table_png(situation, overlays=[Overlay(box(48, 2, 56, 8), "reachable")]))
    r, g, b = pixel(image, situation, 52.5, 5.5)
    # 18 % of #0072B2 over the table: red 238 * 0.82 = 195, blue 223 * 0.82 + 178 * 0.18 = 215
    assert b > r + 10  # tinted blue, the table still showing through
    assert r > 150


def test_a_warmaster_png_shows_woods_river_and_stands():
    situation = warmaster()
    image = png_image(table_png(situation))
    assert near(pixel(image, situation, 75, 47), TERRAIN_WARMASTER["woods"].fill)  # off its name
    assert near(pixel(image, situation, 150, 104), TERRAIN_WARMASTER["river"].fill)
    assert near(pixel(image, situation, 120, 30.5), ARMY_COLOURS[0])
    assert near(pixel(image, situation, 34.5, 80), ARMY_COLOURS[1])


def test_a_silly_width_is_refused():
    with pytest.raises(ValueError):
        table_png(forty_k(), width_px=0)


def test_an_empty_table_still_makes_both_pictures():
    situation = forty_k(terrain=[], armies=[], units=[], turn={"round": 1})
    root = parse(table_svg(situation))
    assert not [e for e in root.iter() if e.get("data-model")]
    assert png_image(table_png(situation, width_px=300)).width == 300


def test_terrain_hanging_over_the_table_edge_is_drawn_only_on_the_table():
    situation = forty_k(
        terrain=[
            {
                "id": "hill",
                "type": "hill",
                "category": "exposed",
                "footprint": [[55, 5], [65, 5], [65, 10], [55, 10]],
            }
        ]
    )
    root = parse(table_svg(situation))
    hill = next(e for e in root.iter(f"{SVG}path") if e.get("data-terrain") == "hill")
    xs = [float(v.split()[0]) for v in hill.get("d").strip("MZ").replace("L", "M").split("M")]
    assert max(xs) == 60 and min(xs) == 55


def test_a_very_tall_table_makes_a_narrower_png_instead_of_a_huge_one():
    situation = forty_k(table={"width": 10, "height": 900}, terrain=[], units=[])
    image = png_image(table_png(situation, width_px=1200))
    assert image.height <= 4000 and image.width < 1200


def test_two_pictures_on_one_page_can_have_distinct_ids():
    a = parse(table_svg(forty_k(), dom_id="before"))
    b = parse(table_svg(forty_k(), dom_id="after"))
    ids_a = {e.get("id") for e in a.iter() if e.get("id")}
    ids_b = {e.get("id") for e in b.iter() if e.get("id")}
    assert ids_a and not ids_a & ids_b
    assert "before-model-B1" in ids_a


def test_the_svg_starts_with_the_svg_element_so_htmx_can_swap_it_whole():
    assert table_svg(forty_k()).startswith("<svg ")


def test_an_interactive_picture_lets_a_keyboard_reach_every_model():
    root = parse(table_svg(forty_k(), interactive=True))
    assert root.get("role") == "group"
    models = [e for e in root.iter() if e.get("data-model")]
    assert all(m.get("tabindex") == "0" and m.get("aria-label") for m in models)
    assert not [e for e in parse(table_svg(forty_k())).iter() if e.get("tabindex")]


def test_overlays_may_be_plain_tuples_and_an_elevated_model_says_how_high_it_is():
    situation = forty_k(
        units=[
            {
                "id": "J",
                "army": "red",
                "name": "Jump Pack",
                "keywords": ["INFANTRY", "FLY"],
                "models": [{"id": "J1", "base": {"round": 40}, "x": 23, "y": 13, "z": 3}],
            }
        ]
    )
    root = parse(table_svg(situation, overlays=[(Point(23, 13), "blocked", "here")]))
    j1 = next(e for e in root.iter() if e.get("data-model") == "J1")
    assert j1.find(f"{SVG}title").text == "J1: Jump Pack (World Eaters), 3 in up"
    blocked = next(e for e in root.iter(f"{SVG}g") if e.get("class") == "overlay blocked")
    assert blocked.find(f"{SVG}circle") is not None and blocked.find(f"{SVG}text").text == "here"


def ruin_with_floors():
    doc = scenario()
    doc["terrain"][0]["walls"] = [{"path": [[20, 10.125], [26, 10.125]], "height": 5}]
    doc["terrain"][0]["floors"] = [
        {"footprint": [[20, 10], [26, 10], [26, 13], [20, 13]], "height": 3}
    ]
    return Situation.from_document(doc)


def test_walls_and_floors_are_drawn_with_their_heights_in_the_svg_and_the_png():
    # RULES.md 1.5: the 5" wall as a line labelled 'wall 5"', the 3" floor shaded and labelled.
    s = ruin_with_floors()
    ((level,),) = [scene(s).levels]
    assert level.feature == "ruin-1"
    assert [w.points for w in level.walls] == [((20.0, 10.125), (26.0, 10.125))]
    assert [label.text for label in level.labels] == ['3"', 'wall 5"']
    svg = table_svg(s)
    root = ET.fromstring(svg)
    ns = {"s": "http://www.w3.org/2000/svg"}
    assert len(root.findall(".//s:path[@class='terrain-wall']", ns)) == 1
    assert [t.text for t in root.findall(".//s:text[@class='terrain-height']", ns)] == [
        '3"',
        'wall 5"',
    ]
    plain = Image.open(io.BytesIO(table_png(Situation.from_document(scenario())))).convert("RGB")
    drawn = Image.open(io.BytesIO(table_png(s))).convert("RGB")
    assert plain.size == drawn.size and plain.tobytes() != drawn.tobytes()


def test_a_feature_without_walls_or_floors_adds_no_level_marks():
    assert scene(Situation.from_document(scenario())).levels == ()


def test_a_warmaster_unit_off_the_table_is_labelled_so():
    """RULES.md 2.9: a unit off the table keeps its stands where it left (for its return);
    the picture must not show it as if it stood there."""
    from tests.rules.warmaster.builders import line_of_flyers, scenario

    doc = scenario([line_of_flyers("F", 1, 54)])
    doc["units"][0]["state"] = {"off_table": True}
    svg = table_svg(Situation.from_document(doc))
    assert "F (off the table)" in svg
