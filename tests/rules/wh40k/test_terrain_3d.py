"""RULES.md 1.5, terrain in three dimensions: walls, floors and enclosed parts. Worked tests built
by hand from the rule text (positions, distances and expected findings written here)."""

import math

import pytest

from rules import InvalidInput, Situation, adjudicate

from .scenarios import R32, model, move, rect, scenario, situation, terrain, unit

R40 = 20 / 25.4  # radius of a 40 mm base


def failures(verdict):
    return [(f.rule, f.stage) for f in verdict.failures]


def ruin(tid, points, height, walls=(), floors=(), enclosed=(), category="dense"):
    doc = terrain(tid, points, category=category, height=height)
    if walls:
        doc["walls"] = [
            {"path": [list(p) for p in path], "height": h, **({"thickness": t} if t else {})}
            for path, h, t in walls
        ]
    if floors:
        doc["floors"] = [{"footprint": [list(p) for p in fp], "height": h} for fp, h in floors]
    if enclosed:
        doc["enclosed"] = [{"footprint": [list(p) for p in fp], "height": h} for fp, h in enclosed]
    return doc


def gap_ruin():
    """A ruin 20..30 x 10..20 whose north wall (5" tall, 0.25" thick, centred on y = 10.125) runs
    from x = 20 to 26 and from 28 to 30: a 2" gap between x = 26 and 28. Its one upper floor (3")
    covers 20..25 x 10..15, well clear of the gap."""
    return ruin(
        "R",
        rect(20, 10, 30, 20),
        5,
        walls=[([(20, 10.125), (26, 10.125)], 5, None), ([(28, 10.125), (30, 10.125)], 5, None)],
        floors=[(rect(20, 10, 25, 15), 3)],
    )


def tower():
    """A tower 10..16 x 10..16 with floors at 3" and 6" over its whole footprint."""
    whole = rect(10, 10, 16, 16)
    return ruin("T", whole, 6, floors=[(whole, 3), (whole, 6)])


def vehicle(x, y, move_=8, base=40):
    return unit("V", "red", [model("V1", x, y, base=base)], keywords=("VEHICLE",), move=move_)


# -- vehicles and monsters ----------------------------------------------------------------------
def test_a_vehicle_drives_through_a_gap_between_walls_at_no_extra_cost():
    # V1 (40 mm, r 0.79) from (27, 7) to (27, 14): straight down through the 2" gap (26..28),
    # 1" from each wall end, clear of the floor (x <= 25). 7" moved, nothing climbed.
    s = situation([vehicle(27, 7)], [gap_ruin()])
    v = adjudicate(s, move("V", "normal", {"V1": (27, 14)}))
    assert v.legal, [f.text for f in v.failures]
    assert v.models["V1"]["distance_moved"] == pytest.approx(7.0)


def test_a_vehicle_is_stopped_by_a_three_inch_wall_it_has_not_the_move_to_climb():
    # A lone 3" wall along y = 11 from x = 20 to 30. V1 from (25, 8) to (25, 14): 6" across and
    # 3" up and 3" down = 12", more than its 10" (going round either end is longer still:
    # 2 x hypot(5.79 + 0.79, 3) > 14). With M 12 the same move is exactly legal.
    wall = ruin("W", rect(20, 10, 30, 12), 3, walls=[([(20, 11), (30, 11)], 3, None)])
    s = situation([vehicle(25, 8, move_=10)], [wall])
    v = adjudicate(s, move("V", "normal", {"V1": (25, 14)}))
    (bad,) = v.failures
    assert bad.rule == "09.05" and bad.measured == pytest.approx(12.0) and bad.limit == 10
    assert "climbing" in bad.text
    s = situation([vehicle(25, 8, move_=12)], [wall])
    v = adjudicate(s, move("V", "normal", {"V1": (25, 14)}))
    assert v.legal and v.models["V1"]["distance_moved"] == pytest.approx(12.0)


def test_a_two_inch_wall_is_no_obstacle_to_a_vehicle():
    low = ruin("W", rect(20, 10, 30, 12), 2, walls=[([(20, 11), (30, 11)], 2, None)])
    s = situation([vehicle(25, 8, move_=6)], [low])
    v = adjudicate(s, move("V", "normal", {"V1": (25, 14)}))
    assert v.legal and v.models["V1"]["distance_moved"] == pytest.approx(6.0)


# -- infantry climbing -------------------------------------------------------------------------
def test_infantry_climbing_to_the_second_floor_pays_the_height_up():
    # I1 from the ground at (8, 13) to the 6" floor at (13, 13): 5" across + 6" up = 11".
    s = situation([unit("I", "red", [model("I1", 8, 13)], move=12)], [tower()])
    v = adjudicate(s, move("I", "normal", {"I1": {"x": 13, "y": 13, "z": 6}}))
    assert v.legal, [f.text for f in v.failures]
    assert v.models["I1"]["distance_moved"] == pytest.approx(11.0)
    s = situation([unit("I", "red", [model("I1", 8, 13)], move=10)], [tower()])
    v = adjudicate(s, move("I", "normal", {"I1": {"x": 13, "y": 13, "z": 6}}))
    (bad,) = v.failures
    assert bad.measured == pytest.approx(11.0) and 'including 6" climbing' in bad.text


def test_infantry_coming_down_from_the_second_floor_pays_the_height_down():
    # I1 from the 6" floor at (13, 13) to the ground at (18, 13): 5" across + 6" down = 11".
    s = situation([unit("I", "red", [model("I1", 13, 13, z=6)], move=11)], [tower()])
    v = adjudicate(s, move("I", "normal", {"I1": {"x": 18, "y": 13, "z": 0}}))
    assert v.legal, [f.text for f in v.failures]
    assert v.models["I1"]["distance_moved"] == pytest.approx(11.0)


def test_infantry_walks_under_an_enemy_standing_on_a_floor():
    # E1 stands on the 6" floor at (13, 13). I1 walks at ground level from (8, 13) to (18, 13),
    # straight under it: 10", never on E1's level (1.5) and 6" below it, so never within 5"
    # vertically: not engaged before or after (1.2).
    s = situation(
        [
            unit("I", "red", [model("I1", 8, 13)], move=10),
            unit("E", "blue", [model("E1", 13, 13, z=6)]),
        ],
        [tower()],
    )
    v = adjudicate(s, move("I", "normal", {"I1": (18, 13)}))
    assert v.legal, [f.text for f in v.failures]
    assert v.models["I1"]["distance_moved"] == pytest.approx(10.0)


def test_a_model_overhanging_a_floor_edge_is_refused_and_one_within_tolerance_is_not():
    # The tower's 3" floor ends at x = 16. A 32 mm base (r 0.63) at x = 15.8 reaches 16.43:
    # 0.43" in mid-air, over the 0.05" tolerance. At x = 15.4 it reaches 16.03: 0.03", fine.
    s = situation([unit("I", "red", [model("I1", 13, 13, z=3)])], [tower()])
    v = adjudicate(s, move("I", "normal", {"I1": {"x": 15.8, "y": 13, "z": 3}}))
    (bad,) = v.failures
    assert bad.rule == "13.06" and bad.stage == "end-of-move" and bad.subject == "I1"
    assert bad.measured == pytest.approx(15.8 + R32 - 16, abs=0.002) and bad.limit == 0.05
    v = adjudicate(s, move("I", "normal", {"I1": {"x": 15.4, "y": 13, "z": 3}}))
    assert v.legal, [f.text for f in v.failures]


def test_a_model_cannot_end_between_floors():
    s = situation([unit("I", "red", [model("I1", 13, 13, z=3)])], [tower()])
    v = adjudicate(s, move("I", "normal", {"I1": {"x": 13, "y": 13.5, "z": 4.5}}))
    assert any("no floor at that height" in f.text for f in v.failures)


def test_no_model_ends_through_a_low_enclosed_part_but_one_may_stand_on_top():
    # A container: enclosed part 20..26 x 10..13, 2.5" tall. Ending at ground inside it is
    # refused; on its top (z 2.5: 3" across + 2.5" up = 5.5") is fine for infantry.
    box = ruin("C", rect(20, 10, 26, 13), 2.5, enclosed=[(rect(20, 10, 26, 13), 2.5)])
    s = situation([unit("I", "red", [model("I1", 19, 11.5)])], [box])
    v = adjudicate(s, move("I", "normal", {"I1": (22, 11.5)}))
    assert any("enclosed" in f.text for f in v.failures)
    v = adjudicate(s, move("I", "normal", {"I1": {"x": 22, "y": 11.5, "z": 2.5}}))
    assert v.legal, [f.text for f in v.failures]


def test_models_on_different_levels_do_not_overlap():
    # I1 ends right under E1 (6" up); the bases share x and y but not the level.
    s = situation(
        [
            unit("I", "red", [model("I1", 8, 13)], move=10),
            unit("E", "blue", [model("E1", 13, 13, z=6)]),
        ],
        [tower()],
    )
    v = adjudicate(s, move("I", "normal", {"I1": (13, 13)}))
    assert v.legal, [f.text for f in v.failures]


# -- the format: invalid terrain is refused naming the field -----------------------------------
@pytest.mark.parametrize(
    "part, field",
    [
        (
            {"floors": [{"footprint": [[19, 10], [25, 10], [25, 15]], "height": 3}]},
            "terrain[0].floors[0].footprint",
        ),
        ({"walls": [{"path": [[20, 11], [30, 11]], "height": -1}]}, "terrain[0].walls[0].height"),
        (
            {
                "enclosed": [
                    {"footprint": [[20, 10], [24, 10], [24, 14], [20, 14]], "height": 2},
                    {"footprint": [[23, 10], [27, 10], [27, 14], [23, 14]], "height": 2},
                ]
            },
            "terrain[0].enclosed[1].footprint",
        ),
        (
            {"floors": [{"footprint": [[20, 10], [25, 10], [25, 15]], "height": 9}]},
            "terrain[0].floors[0].height",
        ),
        ({"walls": [{"path": [[20, 11], [35, 11]], "height": 2}]}, "terrain[0].walls[0].path"),
    ],
)
def test_invalid_terrain_parts_are_refused_naming_the_field(part, field):
    doc = scenario(
        [unit("I", "red", [model("I1", 5, 5)])],
        [{**terrain("R", rect(20, 10, 30, 20), height=5), **part}],
    )
    with pytest.raises(InvalidInput) as err:
        Situation.from_document(doc)
    assert err.value.field == field


def test_an_old_shape_feature_keeps_its_meaning():
    # No walls or floors: a block of its height over the whole footprint, climbed as one piece
    # by a vehicle (3 up + 3 down), as before.
    s = situation([vehicle(25, 8, move_=12)], [terrain("R", rect(20, 10, 30, 12), height=3)])
    v = adjudicate(s, move("V", "normal", {"V1": (25, 14)}))
    assert v.legal and v.models["V1"]["distance_moved"] == pytest.approx(12.0)
    assert not s.terrain[0].layered
    assert math.isclose(s.terrain[0].standing_levels[0][1], 3)


# -- "if it can" weighs every level (RULES.md 1.4, 1.5) ----------------------------------------
def charge_at_the_first_floor():
    """E1 stands on the tower's 3" floor at (13, 13). A1 starts on the ground at (13, 5): 6.74"
    away horizontally, 3" down, straight distance hypot(6.74, 3) = 7.38"."""
    return situation(
        [
            unit("A", "red", [model("A1", 13, 5)]),
            unit("E", "blue", [model("E1", 13, 13, z=3)]),
        ],
        [tower()],
    )


def test_a_charger_that_can_climb_within_one_inch_of_a_target_on_a_floor_must():
    s = charge_at_the_first_floor()
    # Roll 10. On the ground under E1 at (13, 11.27) A1 is 0.47" away horizontally but 3" below:
    # straight 3.04", engaged, not within 1". Climbing to base contact on the 3" floor at
    # (13, 11.74) costs 6.74 + 3 = 9.74" <= 10: it can, so it must.
    v = adjudicate(s, move("A", "charge", {"A1": (13, 11.27)}, dice=[5, 5], charge_targets=["E"]))
    (bad,) = v.failures
    assert bad.rule == "11.04" and bad.subject == "A1" and 'within 1"' in bad.text
    assert 'on the floor 3" up' in bad.text  # the finding names the spot and its level
    v = adjudicate(
        s,
        move(
            "A", "charge", {"A1": {"x": 13, "y": 11.74, "z": 3}}, dice=[5, 5], charge_targets=["E"]
        ),
    )
    assert v.legal, [f.text for f in v.failures]
    assert v.models["A1"]["distance_moved"] == pytest.approx(9.74, abs=1e-6)


def test_a_charger_that_cannot_afford_the_climb_may_stop_engaged_on_the_ground():
    # Roll 8: the nearest spot within 1" of E1 on its floor is (13, 10.75, 3): 5.75 + 3 = 8.75",
    # more than 8. Ending engaged on the ground at (13, 11.27) (6.27") is then allowed.
    s = charge_at_the_first_floor()
    v = adjudicate(s, move("A", "charge", {"A1": (13, 11.27)}, dice=[4, 4], charge_targets=["E"]))
    assert v.legal, [f.text for f in v.failures]
    assert any('could not get within 1"' in f.text for f in v.findings)


def test_the_suggested_charge_climbs_to_the_target_and_is_legal():
    s = charge_at_the_first_floor()
    from rules import suggest

    mv = suggest(s, move("A", "charge", dice=[5, 5], charge_targets=["E"]))
    assert mv.end["A1"].z == pytest.approx(3)
    v = adjudicate(s, mv)
    assert v.legal, [f.text for f in v.failures]


def surge_up_the_tower(end=None):
    """B1 (a surge of D6+2, rolled 6: 8") stands on the ground at (13, 9), just outside the
    tower; the closest enemy E1 stands on the tower's 6" floor at (13, 13): 2.74" away
    horizontally, 6" up (straight 6.6", the surge target). From the ground B1 is never within 5"
    vertically of E1, so it engages only by climbing. Its whole base must be on the floor (the
    floor starts at y = 10, so its centre at y >= 10.63): (10.63 - 9) + 6 = 7.63" <= 8."""
    fury = {
        "id": "fury",
        "kind": "surge",
        "trigger": "models-destroyed-by-shooting",
        "distance": "D6+2",
    }
    s = situation(
        [
            unit("B", "red", [model("B1", 13, 9)], abilities=[fury]),
            unit("E", "blue", [model("E1", 13, 13, z=6)]),
            unit("A", "blue", [model("A1", 50, 40)]),
        ],
        [tower()],
        phase="shooting",
        active="blue",
    )
    doc = {
        "format": "arbiter.move/1",
        "unit": "B",
        "type": "surge",
        "declarations": {
            "ability": "fury",
            "trigger": {"event": "shot", "by": "A", "models_destroyed": 1},
        },
        "dice": [6],
    }
    if end is not None:
        doc["end"] = {"B1": end}
    from rules import Move

    return s, Move.from_document(doc, "wh40k-11e")


def test_a_surge_that_can_engage_only_by_climbing_must_climb():
    # Ending on the ground at (13, 9.37) is not engaged: B1 could have climbed to E1's floor.
    s, mv = surge_up_the_tower({"x": 13, "y": 9.37})
    v = adjudicate(s, mv)
    bad = [f for f in v.failures if f.stage == "while-moving"]
    assert len(bad) == 1 and bad[0].subject == "B1"
    assert "could have ended engaged" in bad[0].text and 'on the floor 6" up' in bad[0].text
    # On the floor at (13, 10.7): 1.7 + 6 = 7.7" moved, 13 - 10.7 - 1.26 = 1.04" from E1
    # horizontally, same level: engaged. Legal.
    s, mv = surge_up_the_tower({"x": 13, "y": 10.7, "z": 6})
    v = adjudicate(s, mv)
    assert v.legal, [f.text for f in v.failures]
    assert v.models["B1"]["distance_moved"] == pytest.approx(7.7)


def test_the_suggested_surge_climbs_to_engage_and_is_legal():
    from rules import suggest

    s, mv = surge_up_the_tower()
    suggested = suggest(s, mv)
    assert suggested.end["B1"].z == pytest.approx(6)
    v = adjudicate(s, suggested)
    assert v.legal, [f.text for f in v.failures]


def test_the_reach_overlay_shows_each_floor_the_unit_can_reach_with_its_height():
    # I1 (M 6) at (8, 13): the 3" floor is reachable within 6 - 3 = 3" as the crow flies, so its
    # spot (12, 13) (4" away) is not, (10.7, 13) (2.7") is; the 6" floor needs all 6" of climb,
    # so it is not shown. Centres stay 0.63 - 0.05" inside the floor's edge (whole base on it).
    from shapely.geometry import Point

    from rules import reach

    s = situation([unit("I", "red", [model("I1", 8, 13)])], [tower()])
    regions = reach(s, move("I", "normal"))
    kinds = [kind for _, kind in regions]
    assert kinds == ["ground", 'floor 3"']
    floor = regions[1][0]
    assert floor.contains(Point(10.7, 13)) and not floor.contains(Point(12, 13))
    assert not floor.contains(Point(10.3, 13))  # base would hang over the edge
    # A vehicle may not end on an upper floor after climbing: no floor for it.
    s = situation([vehicle(8, 13, move_=12)], [tower()])
    assert [kind for _, kind in reach(s, move("V", "normal"))] == ["ground"]


def test_the_reach_overlay_shows_a_monster_the_low_floors_it_may_step_onto():
    # RULES.md 1.5: a MONSTER (it climbs dense terrain) may end on a dense ruin's floor of 2" or
    # less, not on one above 2" it climbed to. M1 (M 10, 60 mm base) at (6, 13) beside a ruin
    # with a 1.5" platform over 10..16 x 10..13 and a 3" floor over 10..16 x 13..16: the
    # overlay shows the platform, as the judge would pass an end there, and not the 3" floor.
    from shapely.geometry import Point

    from rules import reach

    platform, upper = rect(10, 10, 16, 13), rect(10, 13, 16, 16)
    ruin_ = ruin("P", rect(10, 10, 16, 16), 3, floors=[(platform, 1.5), (upper, 3)])
    monster = unit("M", "red", [model("M1", 6, 12, base=60)], keywords=("MONSTER",), move=10)
    s = situation([monster], [ruin_])
    regions = dict((kind, shape) for shape, kind in reach(s, move("M", "normal")))
    assert set(regions) == {"ground", 'floor 1.5"'}
    assert regions['floor 1.5"'].contains(Point(13, 11.5))
    # and the judge agrees: ending there is legal, ending on the 3" floor is not
    end = {"M1": {"x": 13, "y": 11.6, "z": 1.5}}
    assert adjudicate(s, move("M", "normal", end=end)).legal
    end = {"M1": {"x": 13, "y": 14.5, "z": 3}}
    assert not adjudicate(s, move("M", "normal", end=end)).legal
