"""Per-model keywords in the movement judge (RULES.md 1.4, 1.5, 1.7): a model has its unit's
keywords plus its own (`models[].keywords`), both when it moves and when it stands in the way.
Positions and distances worked by hand (32 mm base: radius 16 / 25.4 = 0.630"; the hull below
is 4" x 2", half length 2")."""

from rules import adjudicate

from .scenarios import model, move, rect, situation, terrain, unit

HULL = {"hull": [[-2, -1], [2, -1], [2, 1], [-2, 1]]}


def failures(verdict):
    return [(f.rule, f.stage, f.subject) for f in verdict.failures]


def passed_rules(verdict):
    return {f.rule for f in verdict.findings if f.passed}


def own(m, *keywords):
    """A model document with keywords of its own."""
    return {**m, "keywords": list(keywords)}


def straight_through(mover_unit, blocker_unit):
    """The mover drives from (10, 10) through the blocker's model at (16, 10) to (22, 10): 12",
    with the waypoint on the blocker's centre so no detour is possible. At the end the hull's
    rear edge is at x = 20, 20 - 16 - 0.630 = 3.37" from the blocker (a 32 mm mover's edge at
    21.37: 4.74"): unengaged."""
    s = situation([mover_unit, blocker_unit])
    mid = mover_unit["models"][0]["id"]
    return adjudicate(
        s, move(mover_unit["id"], "normal", {mid: (22, 10)}, paths={mid: [(16, 10, 0)]})
    )


def test_a_vehicle_cannot_pass_a_model_with_its_own_monster_or_vehicle_keyword():
    # 17.01: a VEHICLE making a normal move crosses models that are neither MONSTER nor VEHICLE.
    # B1 stands in an INFANTRY unit but is itself a MONSTER (or VEHICLE): it blocks the path.
    mover = unit("V", "red", [model("V1", 10, 10, base=HULL)], keywords=("VEHICLE",), move=12)
    for keyword in ("MONSTER", "VEHICLE"):
        blocker = unit("B", "blue", [own(model("B1", 16, 10), keyword)])
        v = straight_through(mover, blocker)
        assert failures(v) == [("03.01", "while-moving", "V1")], keyword
        assert "enemy model B1" in v.failures[0].text
    # With no waypoints the engine's own path must go round B1 too: any way round is longer
    # than the straight 12".
    s = situation([mover, unit("B", "blue", [own(model("B1", 16, 10), "MONSTER")])])
    v = adjudicate(s, move("V", "normal", {"V1": (22, 10)}))
    assert failures(v) == [("09.05", "while-moving", "V1")]
    assert v.models["V1"]["distance_moved"] > 12
    # Control: B1 with only its unit's INFANTRY is crossed (17.01).
    v = straight_through(mover, unit("B", "blue", [model("B1", 16, 10)]))
    assert v.legal, [f.text for f in v.failures]
    assert "17.01" in passed_rules(v)


def test_a_model_with_its_own_vehicle_or_monster_keyword_crosses_infantry():
    # V1 is a VEHICLE (hull) or a MONSTER (32 mm) by its own keyword in an INFANTRY unit: in a
    # normal or advance move it crosses B1 (INFANTRY), 12" of its 12".
    for base, keyword in ((HULL, "VEHICLE"), (32, "MONSTER")):
        for move_type in ("normal", "advance"):
            mover = unit("V", "red", [own(model("V1", 10, 10, base=base), keyword)], move=12)
            s = situation([mover, unit("B", "blue", [model("B1", 16, 10)])])
            dice = (1,) if move_type == "advance" else None
            v = adjudicate(
                s, move("V", move_type, {"V1": (22, 10)}, dice=dice, paths={"V1": [(16, 10, 0)]})
            )
            assert v.legal, (keyword, move_type, [f.text for f in v.failures])
            assert "17.01" in passed_rules(v)


def test_in_a_mixed_unit_only_the_monster_crosses_infantry():
    # Unit V (INFANTRY): V1 a MONSTER by its own keyword at (10, 10), V2 plain at (10, 12)
    # (centres 2" apart: 0.74" between bases, coherent). Each goes 12" straight through an enemy
    # INFANTRY model in its row (E1 at (16, 10), E2 at (16, 12)). V1 may (17.01), V2 may not.
    s = situation(
        [
            unit("V", "red", [own(model("V1", 10, 10), "MONSTER"), model("V2", 10, 12)], move=12),
            unit("E", "blue", [model("E1", 16, 10), model("E2", 16, 12)]),
        ]
    )
    v = adjudicate(
        s,
        move(
            "V",
            "normal",
            {"V1": (22, 10), "V2": (22, 12)},
            paths={"V1": [(16, 10, 0)], "V2": [(16, 12, 0)]},
        ),
    )
    assert failures(v) == [("03.01", "while-moving", "V2")]
    assert "enemy model E2" in v.failures[0].text


def test_anyone_may_cross_a_model_with_its_own_aircraft_keyword():
    # 23.02: B1 is AIRCRAFT by its own keyword (its unit is a VEHICLE unit): an INFANTRY model
    # crosses it, 12" of its 12". Control: without the keyword, B1 blocks.
    mover = unit("V", "red", [model("V1", 10, 10)], move=12)
    blocker = unit("B", "blue", [own(model("B1", 16, 10), "AIRCRAFT")], keywords=("VEHICLE",))
    v = straight_through(mover, blocker)
    assert v.legal, [f.text for f in v.failures]
    assert "23.02" in passed_rules(v)
    blocker = unit("B", "blue", [model("B1", 16, 10)], keywords=("VEHICLE",))
    v = straight_through(mover, blocker)
    assert failures(v) == [("03.01", "while-moving", "V1")]


def test_a_model_with_its_own_infantry_keyword_walks_through_dense_terrain():
    # 13.06: a dense block 3" tall, x 15..17, y 5..15. A1 (INFANTRY by its own keyword, in a
    # CHARACTER unit) walks straight from (10, 10) to (22, 10): 12" of its 12", no climb.
    # Without the keyword it must climb 3" up and 3" down (18") or go round the block (from
    # (10, 10) past the corner (15, 5) grown by 0.63": well over 12"): refused.
    block = terrain("B", rect(15, 5, 17, 15), height=3)
    for keywords, legal in ((["INFANTRY"], True), ([], False)):
        a1 = {**model("A1", 10, 10), "keywords": keywords}
        s = situation([unit("A", "red", [a1], keywords=("CHARACTER",), move=12)], [block])
        v = adjudicate(s, move("A", "normal", {"A1": (22, 10)}))
        assert v.legal is legal, (keywords, [f.text for f in v.failures])
        if legal:
            assert v.models["A1"]["distance_moved"] == 12.0
