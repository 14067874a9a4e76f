"""The surge solver's per-surge caches (issue 16): each is keyed on everything its answer depends
on, so two bases, levels or boards never share an answer; and the suggestion is the one the
solver gave before the caches (recorded in examples/surge_suggestions.json on these boards).

To record the file again (only when a verdict change is meant, reviewed like a golden):

    .venv/bin/python -m tests.rules.wh40k.test_surge_caches
"""

import json
import math
import pathlib
import random

import pytest
import shapely
from shapely.geometry import Point
from shapely.ops import unary_union

from rules import Move, Situation, suggest
from rules.wh40k import moving
from rules.wh40k.moving import may_stand, overhang
from rules.wh40k.surge_solver import SurgeSpace

from .scenarios import model, rect, scenario, situation, terrain, unit

RECORDED = pathlib.Path(__file__).parent / "examples" / "surge_suggestions.json"
RAGE = {"id": "rage", "kind": "surge", "trigger": "models-destroyed-by-shooting", "distance": "D6"}


def floors_board(bases=(32, 32), target_z=3.0, terrain_x=20.0):
    """A ruin (x terrain_x..+10, y 10..20) with a 3" floor over its southern half (y 10..15);
    the target T1 on that floor at its north edge, the surging unit B to the east on the
    ground, one model per entry of `bases` (mm)."""
    x0 = terrain_x
    ruin = terrain("R", rect(x0, 10, x0 + 10, 20), category="dense", height=6)
    ruin["floors"] = [{"footprint": [list(p) for p in rect(x0, 10, x0 + 10, 15)], "height": 3}]
    b_models = [model(f"B{i + 1}", x0 + 13, 12 + 2.2 * i, base=b) for i, b in enumerate(bases)]
    return situation(
        [
            unit("B", "red", b_models, abilities=[RAGE]),
            unit("T", "blue", [model("T1", x0 + 5, 14.2, z=target_z)]),
            unit("A", "blue", [model("A1", 55, 40)]),
        ],
        [ruin],
        phase="shooting",
        active="blue",
    )


def space_of(board, max_distance=6.0):
    b = board.unit("B")
    return SurgeSpace(board, b, "T", max_distance)


def test_may_stand_remembered_per_base_not_shared():
    # a spot 0.7" inside the floor's edge: a 32 mm base (r 0.63") stands whole on the floor,
    # a 60 mm one (r 1.18") hangs over the edge and may not stand there (RULES.md 1.5)
    board = floors_board(bases=(32, 60))
    space = space_of(board)
    small, large = space.starts["B1"], space.starts["B2"]
    x, y = 25.0, 15.0 - 0.7
    assert space._may_stand_at(small, x, y, 3.0) is True
    assert space._may_stand_at(large, x, y, 3.0) is False
    # the same answers again (from the cache), and the same as asking may_stand itself
    assert space._may_stand_at(small, x, y, 3.0) is True
    assert space._may_stand_at(large, x, y, 3.0) is False
    b = board.unit("B")
    assert may_stand(board, b, small.placed(x, y, 3.0), small) is True
    assert may_stand(board, b, large.placed(x, y, 3.0), large) is False


def test_may_stand_remembered_per_level():
    # the same (x, y) at the floor's height and at a height with no floor under it
    board = floors_board()
    space = space_of(board)
    start = space.starts["B1"]
    assert space._may_stand_at(start, 25.0, 12.0, 3.0) is True
    assert space._may_stand_at(start, 25.0, 12.0, 4.5) is False
    assert space._may_stand_at(start, 25.0, 12.0, 0.0) is True


def test_may_stand_remembered_per_climb():
    # a VEHICLE (it climbs dense terrain) may end on a dense ruin's floor only if it started on
    # that level (RULES.md 1.5): the same spot, asked for a start on the ground and on the floor
    v_board = situation(
        [
            unit("B", "red", [model("B1", 33, 12)], keywords=("VEHICLE", "FLY"), abilities=[RAGE]),
            unit("T", "blue", [model("T1", 25, 14.2, z=3)]),
        ],
        [_ruin_doc()],
        phase="shooting",
        active="blue",
    )
    space = space_of(v_board)
    on_ground = space.starts["B1"]
    upstairs = on_ground.placed(27.0, 12.0, 3.0)
    assert space._may_stand_at(on_ground, 25.0, 12.0, 3.0) is False  # it would climb
    assert space._may_stand_at(upstairs, 25.0, 12.0, 3.0) is True  # already on that floor
    assert space._may_stand_at(on_ground, 25.0, 12.0, 3.0) is False


def _ruin_doc():
    ruin = terrain("R", rect(20, 10, 30, 20), category="dense", height=6)
    ruin["floors"] = [{"footprint": [list(p) for p in rect(20, 10, 30, 15)], "height": 3}]
    return ruin


def test_floor_spots_ring_per_base_size():
    # the ring spots sit one edge gap from the target's base: a larger base's ring is wider
    board = floors_board(bases=(32, 60))
    space = space_of(board, max_distance=12.0)
    t = board.unit("T").models[0]
    small, large = space.floor_spots("B1"), space.floor_spots("B2")
    assert small and large
    r_small, r_large = space.starts["B1"].base.radius, space.starts["B2"].base.radius
    for spots, r in ((small, r_small), (large, r_large)):
        for s in spots:
            centre_gap = math.hypot(s.x - t.x, s.y - t.y) - t.base.radius - r
            assert -1e-9 <= centre_gap <= 2.0
            assert s.z == t.z
    # a spot of the small ring is not handed to the large base
    assert {(s.x, s.y) for s in small}.isdisjoint({(s.x, s.y) for s in large})


def test_caches_belong_to_one_board():
    # two boards, the ruin moved: the same questions give each board's own answers
    here, there = floors_board(terrain_x=20.0), floors_board(terrain_x=35.0)
    a, b = space_of(here, max_distance=12.0), space_of(there, max_distance=12.0)
    spot = (25.0, 12.0, 3.0)
    assert a._may_stand_at(a.starts["B1"], *spot) is True
    assert b._may_stand_at(b.starts["B1"], *spot) is False  # no floor there on this board
    here_spots, there_spots = a.floor_spots("B1"), b.floor_spots("B1")
    assert here_spots and there_spots
    assert {(s.x, s.y) for s in here_spots}.isdisjoint({(s.x, s.y) for s in there_spots})


def test_joined_unions_keyed_by_the_shapes():
    board = floors_board()
    space = space_of(board)
    one = [shapely.Point(0, 0).buffer(1.0), shapely.Point(1, 0).buffer(1.0)]
    two = [shapely.Point(5, 5).buffer(1.0)]
    assert space._joined(one).equals(unary_union(one))
    assert space._joined(two).equals(unary_union(two))
    assert space._joined(one) is space._joined(one)
    assert not space._joined(two).equals(space._joined(one))


def test_ground_near_the_target_keyed_by_reach_model_and_margin():
    board = floors_board(bases=(32, 60))
    space = space_of(board)
    near, far = space.near_target(2.5), space.near_target(4.0)
    assert space.near_target(2.5) is near
    assert far.area > near.area
    # every centre within 2.5" of the target (the true circles, not their polygons) is in it,
    # and it reaches out only a hair further
    t = board.unit("T").models[0]
    true_reach = shapely.Point(t.x, t.y).buffer(t.base.radius + 2.5 - 1e-9, quad_segs=256)
    assert near.contains(true_reach)
    assert near.within(shapely.Point(t.x, t.y).buffer(t.base.radius + 2.5 + 0.05))
    small = space._static_near("B1", 0.01, 4.0)
    assert space._static_near("B1", 0.01, 4.0) is small
    assert small.equals(shapely.intersection(space.static_region("B1", 0.01), far))
    # another model, margin or reach: its own region
    assert not space._static_near("B2", 0.01, 4.0).equals(small)
    other_margin = space._static_near("B1", 0.004, 4.0)
    assert other_margin is not small
    assert other_margin.equals(shapely.intersection(space.static_region("B1", 0.004), far))
    assert space._static_near("B1", 0.01, 2.5).area < small.area


def test_floors_and_overhang_as_before_on_random_spots():
    # the bounding-box shortcuts in may_stand give the same surfaces, and the overhang over
    # several surfaces is the one over their union
    rng = random.Random(16)
    board = floors_board()
    two_floors = _ruin_doc()
    two_floors["floors"].append({"footprint": [list(p) for p in rect(20, 15, 30, 20)], "height": 3})
    wide = situation(
        [unit("B", "red", [model("B1", 40, 12)]), unit("T", "blue", [model("T1", 50, 30)])],
        [two_floors],
    )
    for sit in (board, wide):
        start = sit.unit("B").models[0]
        for _ in range(200):
            spot = start.placed(rng.uniform(17, 33), rng.uniform(7, 23), 3.0)
            fp = spot.footprint
            # the plain test: every feature under the base (any old-shape one), every level
            plain = [
                (shape, t)
                for t in sit.terrain
                if t.footprint.intersects(fp) or not t.layered
                for shape, h in t.standing_levels
                if abs(h - spot.z) <= 1e-6 and shape.intersects(fp)
            ]
            found = moving._floors_at(sit, spot.z, fp)
            assert [(s.wkt, t.id) for s, t in found] == [(s.wkt, t.id) for s, t in plain]
            if found:
                shapes = [s for s, _ in found]
                # the distance from the outline's farthest point to the union of the surfaces
                union = unary_union(shapes)
                farthest = max(union.distance(Point(c)) for c in fp.exterior.coords)
                assert overhang(fp, shapes) == pytest.approx(farthest, abs=1e-12)


# -- the suggestion as before ----------------------------------------------------------------
def ruin_table(seed: int) -> dict:
    """A random 3-D board: a ruin with a wall and an upper floor (sometimes a second), the
    target on it (or beside it), the surging unit of 1-10 on the ground."""
    rng = random.Random(seed)
    cx, cy = rng.uniform(14, 46), rng.uniform(12, 32)
    fz = rng.choice([3.0, 6.0])
    ruin = terrain("ruin", rect(cx - 3, cy - 3, cx + 3, cy + 3), category="dense", height=6)
    ruin["walls"] = [{"path": [[cx - 3, cy - 2.875], [cx + 3, cy - 2.875]], "height": 6}]
    ruin["floors"] = [
        {"footprint": [list(p) for p in rect(cx - 3, cy - 3, cx + 3, cy)], "height": fz}
    ]
    if fz == 6.0 and rng.random() < 0.5:
        ruin["floors"].append(
            {"footprint": [list(p) for p in rect(cx - 3, cy, cx + 3, cy + 3)], "height": 3.0}
        )
    on_floor = rng.random() < 0.7
    c_models = [
        model(f"C{i + 1}", cx - 1.5 + 1.4 * i, cy - 1.5, z=fz if on_floor else None)
        for i in range(rng.randint(1, 3))
    ]
    n, side, gap = rng.randint(1, 10), rng.choice([-1, 1]), rng.uniform(1.5, 6)
    bx, by = cx + side * (3 + gap), cy - 2 + rng.uniform(-2, 3)
    b_models = [
        model(f"B{i + 1}", bx + side * 1.4 * (i % 2), by + 1.4 * (i // 2)) for i in range(n)
    ]
    return scenario(
        [unit("B", "red", b_models, abilities=[RAGE]), unit("C", "blue", c_models)],
        [ruin],
        phase="shooting",
        active="blue",
    )


def cases():
    """(name, scenario, move) for the recorded boards: random 3-D ruins and the regression
    corpus's random tables."""
    from tests.regression.corpus import random_table

    def surge_move(unit_id, ability, by, dice):
        return {
            "format": "arbiter.move/1",
            "unit": unit_id,
            "type": "surge",
            "dice": [dice],
            "declarations": {
                "ability": ability,
                "trigger": {"event": "shot", "by": by, "models_destroyed": 1},
            },
        }

    for seed in range(12):
        yield f"ruin{seed}", ruin_table(seed), surge_move("B", "rage", "C", 1 + seed % 6)
    for seed in (10, 11, 12, 14):
        for dice in (2, 5):
            yield (
                f"table{seed}/{dice}",
                random_table(seed),
                surge_move("B", "blood-surge", "A", dice),
            )


def suggestions() -> dict:
    out = {}
    for name, doc, move in cases():
        sit = Situation.from_document(doc)
        end = suggest(sit, Move.from_document(move, sit.system)).end
        out[name] = {mid: [p.x, p.y, p.z] for mid, p in sorted(end.items())}
    return out


def test_suggestions_as_recorded_before_the_caches():
    recorded = json.loads(RECORDED.read_text())
    now = suggestions()
    assert set(now) == set(recorded)
    for name, placed in now.items():
        for mid, position in placed.items():
            assert position == pytest.approx(recorded[name][mid], abs=1e-9), (name, mid)


if __name__ == "__main__":
    RECORDED.write_text(json.dumps(suggestions(), indent=1, sort_keys=True) + "\n")


def test_models_around_a_position_hold_every_close_or_engaged_one():
    # `_around` only spares the exact tests for models far away: every model whose base is
    # within `reach` of the position (touching, overlapping, engaged) is among those it gives
    from rules.situation import Base, Model
    from rules.wh40k.measuring import in_engagement_range
    from rules.wh40k.surge_solver import _around, _centres, _close

    rng = random.Random(12)
    board = floors_board()
    start = board.unit("B").models[0]
    sizes = [Base("round", (25 / 25.4,)), Base("round", (60 / 25.4,)), Base("oval", (2.4, 1.4))]
    others = [
        Model(f"X{i}", "X", rng.choice(sizes), rng.uniform(0, 12), rng.uniform(0, 12))
        for i in range(300)
    ]
    centres = _centres(others)
    for _ in range(50):
        here = start.placed(rng.uniform(2, 10), rng.uniform(2, 10))
        close = set(_around(centres, here, 0.0))
        engaged = set(_around(centres, here, 2.0))
        for i, m in enumerate(others):
            if _close(here, m):
                assert i in close
            if in_engagement_range(here, m):
                assert i in engaged
        assert close <= engaged
    assert _around(_centres([]), start, 2.0) == []
