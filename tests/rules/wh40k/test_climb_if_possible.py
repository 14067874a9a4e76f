"""RULES.md 1.5 (last bullet): every "if it can" / "if possible" duty weighs the spots a model
could reach with the climb counted. A tournament judge's review (round 5, D1) found surges and
charges that stopped at a low wall accepted as "could not have done better". Every number is
worked out by hand below (60 mm base: radius 30 / 25.4 = 1.181"; 32 mm: 0.630").

The board: a dense ruin whose one wall runs along x = 15 (0.25" thick: faces at 14.875 and
15.125) across the table, 2.5" tall. A MONSTER or VEHICLE climbs it (1.5: over 2"), paying
2.5" up and 2.5" down; the open ground each side is free. A 60 mm base stopped against the wall
stands at x = 14.875 - 1.181 = 13.694; over the wall it may end from x = 15.125 + 1.181 =
16.306 on.
"""

import pytest

from rules import adjudicate, suggest

from .scenarios import model, move, rect, situation, unit
from .test_terrain_3d import ruin

R60 = 30 / 25.4
R32 = 16 / 25.4
AT_THE_WALL = 14.875 - R60  # 13.694


def low_wall(height=2.5):
    return ruin("W", rect(14, 0.5, 16, 43.5), height, walls=[([(15, 1), (15, 43)], height, None)])


def surge_scene(start_x, target_x, keywords=("MONSTER",), distance="D6+2", wall=2.5):
    """B1 (60 mm, `keywords`) at (start_x, 20) surges at C1 (32 mm) at (target_x, 20) beyond the
    wall; A shot B."""
    surge = {
        "id": "surge",
        "kind": "surge",
        "trigger": "wounds-lost-to-shooting",
        "distance": distance,
    }
    return situation(
        [
            unit("B", "red", [model("B1", start_x, 20, base=60)], keywords, 8, abilities=[surge]),
            unit("C", "blue", [model("C1", target_x, 20)]),
            unit("A", "blue", [model("A1", 50, 40)]),
        ],
        [low_wall(wall)],
        phase="shooting",
        active="blue",
    )


def surge_move(end=None, dice=(6,)):
    trigger = {"event": "shot", "by": "A", "wounds_lost": 3}
    return move("B", "surge", end, dice=list(dice) if dice else None, trigger=trigger)


def while_moving_failures(verdict, rule):
    return [f for f in verdict.failures if f.rule == rule and f.stage == "while-moving"]


# -- 21.02 "engaged if possible" with a climb ---------------------------------------------------
def test_a_monster_stopped_at_a_low_wall_is_faulted_when_climbing_over_engages():
    # D6+2, roll 6: 8". At the wall B1's gap to C1 is 19.5 - 13.694 - 1.181 - 0.630 = 3.995: not
    # engaged. Over the wall at (16.4, 20): 2.9" across + 2.5 up + 2.5 down = 7.9 <= 8, gap
    # 19.5 - 16.4 - 1.811 = 1.289 <= 2: engaged. So the placement at the wall breaks 1.6.
    s = surge_scene(13.5, 19.5)
    v = adjudicate(s, surge_move({"B1": (AT_THE_WALL, 20)}))
    assert not v.legal
    [finding] = while_moving_failures(v, "21.02")
    assert "could have ended engaged" in finding.text
    assert "could not" not in finding.text


def test_the_monster_that_climbs_over_and_engages_passes():
    s = surge_scene(13.5, 19.5)
    v = adjudicate(s, surge_move({"B1": (16.4, 20)}))
    assert v.legal, [f.text for f in v.failures]
    assert v.models["B1"]["distance_moved"] == pytest.approx(7.9)


def test_a_fixed_10_inch_surge_stopped_at_the_wall_is_faulted():
    # Base contact beyond the wall: x = 19.5 - 1.811 = 17.689, 4.189 + 5 = 9.19 <= 10.
    s = surge_scene(13.5, 19.5, distance=10)
    v = adjudicate(s, surge_move({"B1": (AT_THE_WALL, 20)}, dice=None))
    assert while_moving_failures(v, "21.02")


def test_a_wall_too_tall_to_climb_in_the_move_leaves_the_stop_at_the_wall_legal():
    # The same with a 5" wall: climbing costs 10 > 8, so the wall is as close as B1 can get.
    s = surge_scene(13.5, 19.5, wall=5)
    v = adjudicate(s, surge_move({"B1": (AT_THE_WALL, 20)}))
    assert v.legal, [f.text for f in v.failures]


def test_the_suggestion_climbs_over_and_engages():
    s = surge_scene(13.5, 19.5)
    suggested = suggest(s, surge_move())
    b1 = suggested.end["B1"]
    assert b1.x > 15.125 + R60 - 1e-6  # beyond the wall
    v = adjudicate(s, suggested)
    assert v.legal, [f.text for f in v.failures]
    assert v.models["B1"]["engaged_with"] == ["C"]


# -- 21.02 "as close as possible" with a climb --------------------------------------------------
def test_a_vehicle_stopped_at_the_wall_is_faulted_when_climbing_gets_it_closer():
    # VEHICLE B1 at (10, 20), fixed 12", C1 at (25, 20): engaging is out (25 - 10 - 1.811 - 2 is
    # 11.19 of ground alone, plus 5 of climbing). At the wall the gap is 25 - 13.694 - 1.811 =
    # 9.495; over the wall, 7" across + 5 climbing puts it at x = 17: gap 6.189, 3.3" closer.
    s = surge_scene(10, 25, keywords=("VEHICLE",), distance=12)
    v = adjudicate(s, surge_move({"B1": (AT_THE_WALL, 20)}, dice=None))
    [finding] = while_moving_failures(v, "21.02")
    assert "could have got to" in finding.text
    assert finding.limit == pytest.approx(25 - 17 - R60 - R32, abs=0.06)


def test_the_vehicle_over_the_wall_as_far_as_it_can_go_passes():
    s = surge_scene(10, 25, keywords=("VEHICLE",), distance=12)
    v = adjudicate(s, surge_move({"B1": (17, 20)}, dice=None))
    assert v.legal, [f.text for f in v.failures]


def test_the_vehicle_suggestion_climbs_over_as_close_as_it_can():
    s = surge_scene(10, 25, keywords=("VEHICLE",), distance=12)
    suggested = suggest(s, surge_move(dice=None))
    v = adjudicate(s, suggested)
    assert v.legal, [f.text for f in v.failures]
    b1 = suggested.end["B1"]
    assert 25 - b1.x - R60 - R32 <= 25 - 17 - R60 - R32 + 0.05


# -- 11.04 "within 1 if it can, engaged if it can" with a climb ----------------------------------
def charge_scene():
    """MONSTERs A1 (13.5, 19) and A2 (13.5, 21.5), 60 mm, charge E1 (32 mm) at (19.5, 20)."""
    return situation(
        [
            unit(
                "A",
                "red",
                [model("A1", 13.5, 19, base=60), model("A2", 13.5, 21.5, base=60)],
                ("MONSTER",),
                8,
            ),
            unit("E", "blue", [model("E1", 19.5, 20)]),
        ],
        [low_wall()],
        phase="charge",
    )


def charge(a1, a2, dice):
    return move("A", "charge", {"A1": a1, "A2": a2}, dice=dice, charge_targets=["E"])


def test_a_charging_monster_left_at_the_wall_is_faulted_when_it_could_climb_and_engage():
    # Roll 8. A2 to (16.4, 21.5): 2.9 + 5 = 7.9 <= 8; its gap to E1 is
    # hypot(3.1, 1.5) - 1.811 = 3.444 - 1.811 = 1.633: engaged; 2.5" from A1 at (16.4, 19)
    # (> 2 x 1.181: clear) and linked to it. Within 1" of E1 it cannot get: the nearest such
    # spot is 6.185 - 2.811 = 3.374 away, 8.374 with the climb.
    s = charge_scene()
    v = adjudicate(s, charge((16.4, 19), (AT_THE_WALL, 21.5), [4, 4]))
    failed = while_moving_failures(v, "11.04")
    assert [f.subject for f in failed] == ["A2"]
    assert "engaged with a target if it can" in failed[0].text


def test_both_monsters_over_the_wall_pass():
    s = charge_scene()
    v = adjudicate(s, charge((16.4, 19), (16.4, 21.5), [4, 4]))
    assert v.legal, [f.text for f in v.failures]


def test_a_charging_monster_left_at_the_wall_is_faulted_when_it_could_climb_within_1():
    # Roll 10, A1 at (17.1, 19.6) within 1". A2 could reach (17.69, 22.15): hypot(4.19, 0.65) =
    # 4.240 + 5 = 9.24 <= 10; hypot(1.81, 2.15) = 2.8105, gap 0.9995 <= 1; 2.617 from A1 (clear).
    s = charge_scene()
    v = adjudicate(s, charge((17.1, 19.6), (AT_THE_WALL, 21.5), [5, 5]))
    failed = while_moving_failures(v, "11.04")
    assert [f.subject for f in failed] == ["A2", "A2"]
    assert 'within 1" of a target if it can' in failed[0].text
    assert "engaged with a target if it can" in failed[1].text


def test_both_monsters_beyond_the_wall_within_1_pass():
    s = charge_scene()
    v = adjudicate(s, charge((17.1, 19.6), (17.69, 22.15), [5, 5]))
    assert v.legal, [f.text for f in v.failures]


# -- D6: the surge's maximum distance is 21.02's ------------------------------------------------
def test_a_surge_model_moving_too_far_is_faulted_under_21_02():
    # fixed 8", B1 from (3, 20) to (11.01, 20): 8.01" on open ground (the wall is at x = 15).
    s = surge_scene(3, 30, distance=8)
    v = adjudicate(s, surge_move({"B1": (11.01, 20)}, dice=None))
    [finding] = [f for f in v.failures if f.measured == pytest.approx(8.01)]
    assert (finding.rule, finding.stage, finding.limit) == ("21.02", "while-moving", 8)


# -- D2: rotations are free (1.3), so "if possible" weighs a turned base too ---------------------
HULL = {"hull": [[-2.375, -1.375], [2.375, -1.375], [2.375, 1.375], [-2.375, 1.375]]}


def gap_scene():
    """A 4.75 x 2.75" hull VEHICLE at (9, 20) facing 90 (long side along y), a fixed 12" surge at
    C1 (21, 20). A dense 5" wall along x = 15 (faces 14.875 and 15.125) with a gap from y = 18.4
    to 21.6: 2.95" clear between the walls' 0.125" half thicknesses."""
    wall = ruin(
        "W",
        rect(14, 0.5, 16, 43.5),
        5,
        walls=[([(15, 1), (15, 18.4)], 5, None), ([(15, 21.6), (15, 43)], 5, None)],
    )
    surge = {"id": "surge", "kind": "surge", "trigger": "wounds-lost-to-shooting", "distance": 12}
    return situation(
        [
            unit(
                "B",
                "red",
                [model("B1", 9, 20, base=HULL, facing=90)],
                ("VEHICLE",),
                10,
                abilities=[surge],
            ),
            unit("C", "blue", [model("C1", 21, 20)]),
            unit("A", "blue", [model("A1", 50, 40)]),
        ],
        [wall],
        phase="shooting",
        active="blue",
    )


def test_a_hull_stopped_broadside_at_the_wall_is_faulted_when_turning_takes_it_through_the_gap():
    # Broadside (facing 90) the hull is 4.75" across the gap's 2.95": it stops with its face on
    # the wall at x = 13.5 (13.5 + 1.375 = 14.875), 21 - 0.630 - 14.875 = 5.495" from C1.
    # Climbing the 5" wall costs 10 + at least 7.5 across: out. Turned to facing 0 it is 2.75"
    # wide and passes the gap (18.625..21.375 within 18.525..21.475); at (17.6, 20) its nose is
    # at 19.975, 21 - 0.630 - 19.975 = 0.395" from C1 (engaged), 8.6" moved of 12.
    s = gap_scene()
    v = adjudicate(s, surge_move({"B1": {"x": 13.5, "y": 20, "facing": 90}}, dice=None))
    [finding] = while_moving_failures(v, "21.02")
    assert "could have ended engaged" in finding.text


def test_the_hull_turned_through_the_gap_and_engaged_passes():
    s = gap_scene()
    v = adjudicate(s, surge_move({"B1": {"x": 17.6, "y": 20, "facing": 0}}, dice=None))
    assert v.legal, [f.text for f in v.failures]


def test_the_suggestion_turns_the_hull_through_the_gap():
    s = gap_scene()
    suggested = suggest(s, surge_move(dice=None))
    v = adjudicate(s, suggested)
    assert v.legal, [f.text for f in v.failures]
    assert v.models["B1"]["engaged_with"] == ["C"]


# -- two low walls in a row (a judge's review, round 6, R1) -------------------------------------
def two_walls_scene():
    """The same MONSTER B1 (60 mm) at (13.5, 20), a fixed 15" surge, at C1 (32 mm) at (23.5, 20).
    One ruin, two 2.5" walls across the table at x = 15 and x = 20 (faces 14.875 / 15.125 and
    19.875 / 20.125). Against the first wall B1 stands at 13.694, 23.5 - 0.630 - 13.694 - 1.181 =
    7.995" from C1. Past the first wall, against the second, at 19.875 - 1.181 = 18.694: 6.194"
    moved + 5" of climbing = 11.19", 3.0 - 0.005 = 2.995" from C1 (not engaged). Past both
    walls it would pay 5.19 + 10 = 15.19 + more: too far to engage (base contact at x = 21.69 costs
    8.19 + 10 = 18.19)."""
    surge = {"id": "surge", "kind": "surge", "trigger": "wounds-lost-to-shooting", "distance": 15}
    walls = [([(15, 1), (15, 43)], 2.5, None), ([(20, 1), (20, 43)], 2.5, None)]
    return situation(
        [
            unit("B", "red", [model("B1", 13.5, 20, base=60)], ("MONSTER",), 8, abilities=[surge]),
            unit("C", "blue", [model("C1", 23.5, 20)]),
            unit("A", "blue", [model("A1", 50, 40)]),
        ],
        [ruin("W", rect(14, 0.5, 21, 43.5), 2.5, walls=walls)],
        phase="shooting",
        active="blue",
    )


def test_a_monster_stopped_at_the_first_of_two_low_walls_is_faulted_when_between_them_is_closer():
    verdict = adjudicate(two_walls_scene(), surge_move({"B1": {"x": AT_THE_WALL, "y": 20}}, None))
    [fault] = while_moving_failures(verdict, "21.02")
    assert "18.69" in fault.text  # the spot against the second wall


def test_the_suggestion_between_two_low_walls_is_legal_and_as_close_as_it_can_get():
    situation_ = two_walls_scene()
    placed = suggest(situation_, surge_move(None, None))
    verdict = adjudicate(situation_, placed)
    assert verdict.legal, [f.text for f in verdict.failures]
    assert placed.end["B1"].x == pytest.approx(19.875 - R60, abs=0.06)
