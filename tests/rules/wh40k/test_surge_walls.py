"""RULES.md 1.3 and 1.6: a model may walk through a ruin's walls (INFANTRY through Dense
terrain, 1.5) but never end partway through one, so the "as close as possible" search must look
for spots clear of the walls, not stop at the nearest point of its reach that stands in one.
Positions and distances written by hand.

The table: a Dense ruin 6..9 x 4..16 with one wall 6" tall along x = 7 (y 4.5..15.5, 0.25"
thick: its faces at x = 6.875 and 7.125). B1 (INFANTRY, 32 mm base, r = 0.63") stands at
(10, 10) and surges 3" (D6, rolled 3) toward T1 at (1, 10), 7.74" away base to base. T1 is out
of reach, so B1 must end as close to it as it can:
- straight west, 3" of move reach x = 7, but a base centred anywhere in 6.245 < x < 7.755 is
  partway through the wall (its face at 7.125, plus r);
- past the wall (x <= 6.245) is 3.755" away: out of reach.
So the closest legal end is x = 7.755, 2.245" from the start, 7.755 - 1 - 1.26 = 5.495" from T1.
"""

import pytest

from rules import adjudicate, suggest

from .scenarios import R32, model, move, rect, situation, terrain, unit

WALL_FACE = 7.125
CLOSEST_X = WALL_FACE + R32  # 7.755
RAGE = {"id": "rage", "kind": "surge", "trigger": "models-destroyed-by-shooting", "distance": "D6"}
TRIGGER = {"event": "shot", "by": "A", "models_destroyed": 1}


def board():
    ruin = terrain("R", rect(6, 4, 9, 16), category="dense", height=6)
    ruin["walls"] = [{"path": [[7, 4.5], [7, 15.5]], "height": 6}]
    return situation(
        [
            unit("B", "red", [model("B1", 10, 10)], abilities=[RAGE]),
            unit("T", "blue", [model("T1", 1, 10)]),
            unit("A", "blue", [model("A1", 50, 40)]),
        ],
        [ruin],
        phase="shooting",
        active="blue",
    )


def surge(end=None):
    return move("B", "surge", end=end, dice=[3], ability="rage", trigger=TRIGGER)


def test_a_model_left_where_it_started_is_faulted_with_the_spot_in_front_of_the_wall():
    v = adjudicate(board(), surge({"B1": (10, 10)}))
    bad = [f for f in v.failures if f.stage == "while-moving"]
    assert len(bad) == 1 and bad[0].subject == "B1"
    assert bad[0].measured == pytest.approx(10 - 1 - 2 * R32, abs=1e-3)  # where it stands


def test_a_model_short_of_the_closest_spot_by_more_than_the_tolerance_is_faulted():
    # 7.9 is 0.145" farther than 7.755: the nearest points of its reach stand in the wall, and
    # the judge must look past them
    v = adjudicate(board(), surge({"B1": (7.9, 10)}))
    bad = [f for f in v.failures if f.stage == "while-moving"]
    assert len(bad) == 1 and bad[0].subject == "B1"
    assert bad[0].measured == pytest.approx(7.9 - 1 - 2 * R32, abs=1e-3)


def test_the_closest_spot_clear_of_the_wall_passes():
    v = adjudicate(board(), surge({"B1": (CLOSEST_X + 0.005, 10)}))
    assert v.legal, [f.text for f in v.failures]


def test_the_suggestion_ends_in_front_of_the_wall():
    s = board()
    placed = suggest(s, surge())
    end = placed.end["B1"]
    assert end.x == pytest.approx(CLOSEST_X, abs=0.02)
    assert abs(end.y - 10) < 0.2  # off the line by 0.2" loses under 0.003"
    assert adjudicate(s, placed).legal
