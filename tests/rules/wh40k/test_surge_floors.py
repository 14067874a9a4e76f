"""RULES.md 1.6 with 1.5: a surge model that cannot engage its target must still end as close to
it as it can, and "as close as possible" weighs every level it can reach (issue 12). Positions,
distances and the expected spot written by hand from the rule text.

The table: a ruin 20..40 x 10..24 with a 3" floor over its western half (x 20..30) and a 6" floor
over its eastern half (x 30..40). The surge target T1 stands on the 6" floor at (32, 17). B1
(INFANTRY, 32 mm base, r = 0.63") stands on the ground under the 3" floor, 6" from T1
horizontally (base to base): its centre at x = 32 - 6 - 2r = 24.74. It surges 5" (D6, rolled 5).

- On the ground it is never engaged (T1 is 6" up, more than 5"), and the closest it gets is 5"
  straight at T1: 1" away horizontally, 6" vertically, sqrt(1 + 36) = 6.08" straight.
- On the 6" floor it would be level with T1, but the climb alone is 6" > 5".
- On the 3" floor: 3" of climb leaves 2" to walk, to x = 26.74 (its base whole on the floor,
  which ends at x = 30): 4" from T1 horizontally, 3" vertically, sqrt(16 + 9) = 5" straight,
  closer than anything on the ground by 1.08". Not engaged either (4" > 2").
So B1 must end on the 3" floor, about 5" from T1.
"""

import math

import pytest

from rules import Move, adjudicate, suggest

from .scenarios import R32, model, rect, situation, terrain, unit

T1_X, Y = 32.0, 17.0
START_X = T1_X - 6 - 2 * R32  # 24.74
FLOOR_SPOT_X = START_X + 2  # 3" up, 2" along: 5" in all


def board():
    ruin = terrain("R", rect(20, 10, 40, 24), category="dense", height=6)
    ruin["floors"] = [
        {"footprint": [list(p) for p in rect(20, 10, 30, 24)], "height": 3},
        {"footprint": [list(p) for p in rect(30, 10, 40, 24)], "height": 6},
    ]
    rage = {
        "id": "rage",
        "kind": "surge",
        "trigger": "models-destroyed-by-shooting",
        "distance": "D6",
    }
    return situation(
        [
            unit("B", "red", [model("B1", START_X, Y)], abilities=[rage]),
            unit("T", "blue", [model("T1", T1_X, Y, z=6)]),
            unit("A", "blue", [model("A1", 50, 40)]),
        ],
        [ruin],
        phase="shooting",
        active="blue",
    )


def surge(end=None) -> Move:
    doc = {
        "format": "arbiter.move/1",
        "unit": "B",
        "type": "surge",
        "declarations": {
            "ability": "rage",
            "trigger": {"event": "shot", "by": "A", "models_destroyed": 1},
        },
        "dice": [5],
    }
    if end is not None:
        doc["end"] = {"B1": end}
    return Move.from_document(doc, "wh40k-11e")


def test_ending_on_the_ground_is_faulted_with_the_closer_spot_on_the_first_floor():
    s = board()
    v = adjudicate(s, surge({"x": START_X + 5, "y": Y}))
    bad = [f for f in v.failures if f.stage == "while-moving"]
    assert len(bad) == 1 and bad[0].subject == "B1"
    assert bad[0].measured == pytest.approx(math.sqrt(37), abs=1e-3)
    # the spot it names: on the 3" floor, no farther than 5" (and, the search being within a
    # hundredth of an inch of the best, no nearer than 5" less that)
    assert 'on the floor 3" up' in bad[0].text
    assert 5.0 - 1e-3 <= bad[0].limit <= 5.0 + 0.02


def test_ending_on_the_first_floor_as_close_as_it_can_is_legal():
    s = board()
    v = adjudicate(s, surge({"x": FLOOR_SPOT_X, "y": Y, "z": 3}))
    assert v.legal, [f.text for f in v.failures]
    assert v.models["B1"]["distance_moved"] == pytest.approx(5.0)


def test_the_suggested_surge_climbs_to_the_first_floor_and_is_legal():
    s = board()
    suggested = suggest(s, surge())
    end = suggested.end["B1"]
    assert end.z == pytest.approx(3)
    assert end.x == pytest.approx(FLOOR_SPOT_X, abs=0.02) and end.y == pytest.approx(Y, abs=0.02)
    v = adjudicate(s, suggested)
    assert v.legal, [f.text for f in v.failures]


# -- a surge that starts on a floor (a judge's review) ---------------------------------------------
# B1 (32 mm) stands on a 3" floor covering a Dense ruin (x 8..11.5, y 17..23) at (10, 20); the
# target C1 stands on the ground at (15.26, 20), 15.26 - 10 - 1.26 = 4" away horizontally.
# Rolled 4: on the floor B1 gets to (10.8, 20) at most, sqrt(3.2^2 + 3^2) = 4.39" from C1; down
# on the ground (3" of the 4 spent climbing down) it reaches (11, 20), 3" from C1: 1.39" nearer.
def floor_start_board(target_x=15.26):
    ruin = terrain("R", rect(8, 17, 11.5, 23), category="dense", height=3)
    ruin["floors"] = [{"footprint": [list(p) for p in rect(8, 17, 11.5, 23)], "height": 3}]
    rage = {
        "id": "rage",
        "kind": "surge",
        "trigger": "models-destroyed-by-shooting",
        "distance": "D6",
    }
    return situation(
        [
            unit("B", "red", [model("B1", 10, 20, z=3)], abilities=[rage]),
            unit("C", "blue", [model("C1", target_x, 20)]),
            unit("A", "blue", [model("A1", 50, 40)]),
        ],
        [ruin],
        phase="shooting",
        active="blue",
    )


def floor_surge(roll, end=None):
    doc = {
        "format": "arbiter.move/1",
        "unit": "B",
        "type": "surge",
        "declarations": {
            "ability": "rage",
            "trigger": {"event": "shot", "by": "A", "models_destroyed": 1},
        },
        "dice": [roll],
    }
    if end is not None:
        doc["end"] = {"B1": end}
    return Move.from_document(doc, "wh40k-11e")


def test_staying_on_the_floor_is_faulted_with_the_nearer_ground_below():
    v = adjudicate(floor_start_board(), floor_surge(4, {"x": 10.8, "y": 20, "z": 3}))
    bad = [f for f in v.failures if f.stage == "while-moving"]
    assert len(bad) == 1 and bad[0].measured == pytest.approx(math.hypot(3.2, 3), abs=1e-3)
    assert "on the ground" in bad[0].text


def test_the_suggestion_from_a_floor_walks_the_whole_way_left_after_climbing_down():
    # rolled 5, C1 at 15.27 (engaging it would take 5.01"): 3" down and 2" along, to x = 12
    s = floor_start_board(target_x=15.27)
    placed = suggest(s, floor_surge(5))
    assert placed.end["B1"].x == pytest.approx(12, abs=0.02) and placed.end["B1"].z == 0
    assert adjudicate(s, placed).legal
