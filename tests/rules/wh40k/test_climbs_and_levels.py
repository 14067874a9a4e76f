"""Climbing and levels in the movement judge (RULES.md 1.5): which feature a climb belongs to,
where a model may stand above the table, and which enemy bases are in the way on each stretch of
a path. Positions and distances worked by hand (32 mm base: radius 0.630"; 60 mm: 1.181")."""

from rules import adjudicate
from rules.wh40k.moving import may_stand

from .scenarios import model, move, rect, situation, terrain, unit
from .test_terrain_3d import ruin


def failures(verdict):
    return [(f.rule, f.stage, f.subject) for f in verdict.failures]


def texts(verdict):
    return [f.text for f in verdict.failures]


# -- 1.5: a climb bars the upper floors of the feature climbed, not of the next one -----------
def monster_over_a_wall_onto_a_floor(one_feature):
    """M1 (MONSTER, 60 mm, M 20) at (15, 11) goes straight to (24, 11) on a 2" floor covering
    x 21..27, y 5..17. On the way it crosses a 3" wall along x = 19 (y 0.6..43.4: no way round).
    Horizontal 9"; the wall is climbed 3" up and 3" down, the floor (2": no climb section)
    stepped up 2": 9 + 6 + 2 = 17" of 20. With `one_feature` the wall and the floor belong to one
    ruin R (x 18..27); otherwise the wall is ruin X's (x 18..20) and the floor ruin Y's."""
    wall = ([(19, 0.6), (19, 43.4)], 3, None)
    floor = (rect(21, 5, 27, 17), 2)
    if one_feature:
        pieces = [ruin("R", rect(18, 0.5, 27, 43.5), 3, walls=[wall], floors=[floor])]
    else:
        pieces = [
            ruin("X", rect(18, 0.5, 20, 43.5), 3, walls=[wall]),
            ruin("Y", rect(21, 5, 27, 17), 2, floors=[floor]),
        ]
    s = situation(
        [unit("M", "red", [model("M1", 15, 11, base=60)], keywords=("MONSTER",), move=20)], pieces
    )
    return adjudicate(s, move("M", "normal", {"M1": {"x": 24, "y": 11, "z": 2}}))


def test_a_monster_that_climbed_one_feature_may_end_on_another_features_low_floor():
    # The 3" wall it climbed is X's; Y's 2" floor is a separate feature it only stepped onto.
    v = monster_over_a_wall_onto_a_floor(one_feature=False)
    assert v.legal, texts(v)
    assert v.models["M1"]["distance_moved"] == 17.0


def test_a_monster_that_climbed_a_features_wall_may_not_end_on_its_floor():
    # The same crossing when the wall and the floor are one ruin's: refused at the end (13.06).
    v = monster_over_a_wall_onto_a_floor(one_feature=True)
    assert failures(v) == [("13.06", "end-of-move", "M1")]
    assert "R" in texts(v)[0]
    assert v.models["M1"]["distance_moved"] == 17.0


# -- 1.5: on an old-shape feature a model stands on its top -----------------------------------
def test_on_an_old_shape_block_a_model_stands_on_its_top_not_part_way_up():
    # A dense block 3" tall (no walls or floors: one block), x 20..26, y 8..14. A1 (INFANTRY,
    # M 10) from (17, 11) to (23, 11): 6" across, its base wholly over the block. On its top
    # (z = 3) it moves 6 + 3 = 9" of 10; at z = 1.5 it would stand inside the block, part-way
    # up, which is no floor (13.06, end-of-move); at 3.5 it would float above it.
    block = terrain("B", rect(20, 8, 26, 14), height=3)
    s = situation([unit("A", "red", [model("A1", 17, 11)], move=10)], [block])
    a1 = s.model("A1")
    for z, legal in ((3.0, True), (1.5, False), (3.5, False)):
        v = adjudicate(s, move("A", "normal", {"A1": {"x": 23, "y": 11, "z": z}}))
        assert v.legal is legal, (z, texts(v))
        assert may_stand(s, s.unit("A"), a1.placed(23, 11, z), a1) is legal, z
        if not legal:
            assert failures(v) == [("13.06", "end-of-move", "A1")], z
            finding = v.failures[0]
            assert (finding.measured, finding.limit) == (z, 3.0)
    v = adjudicate(s, move("A", "normal", {"A1": {"x": 23, "y": 11, "z": 1.5}}))
    assert "part-way up" in texts(v)[0]
