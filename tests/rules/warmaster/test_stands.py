"""Stands, formations, distance moved and sight (RULES.md 2.1, 2.3)."""

import pytest

from rules import InvalidInput, Situation
from rules.warmaster.stands import distance_moved, formation, stands_together
from rules.warmaster.terrain import can_see, unit_sees

from .builders import character, enemy, flyers, line_of_flyers, scenario, stand, terrain


def stands_of(doc, unit_id):
    return Situation.from_document(doc).unit(unit_id).models


@pytest.mark.parametrize(
    "base",
    [
        {"rect": [40, 20]},  # 2.1: 4 x 2 cm, facing a long edge (infantry)
        {"rect": [20, 40]},  # ... or a short edge (cavalry, monsters, most flyers)
    ],
)
def test_a_stand_is_a_4_by_2_cm_rectangle_facing_either_edge(base):
    unit = flyers("F", [{**stand("F1", 50, 50), "base": base}])
    assert Situation.from_document(scenario([unit])).unit("F").models[0].base.kind == "rect"


@pytest.mark.parametrize(
    "base",
    [
        {"rect": [40, 40]},
        {"rect": [50, 25]},
        {"rect": [39, 20]},
        {"round": 20},  # a round base is for characters only
        {"oval": [40, 20]},
        {"hull": [[2, 1], [-2, 1], [-2, -1], [2, -1]]},
    ],
)
def test_a_stand_of_another_size_or_shape_is_refused_when_the_scenario_is_read(base):
    # RULES.md 2.1: stands are 4 x 2 cm; every distance the engine measures between stands
    # assumes it, so a stand of another size is refused, naming it, rather than judged.
    unit = flyers("F", [{**stand("F1", 50, 50), "base": base}])
    with pytest.raises(InvalidInput) as error:
        Situation.from_document(scenario([unit]))
    assert error.value.field == "units[0].models[0].base"
    assert "4 x 2 cm" in error.value.message and "2.1" in error.value.message


@pytest.mark.parametrize("round_mm, allowed", [(20, True), (25, True), (25.5, False), (40, False)])
def test_a_character_stand_is_4_by_2_cm_or_round_up_to_2_5_cm_across(round_mm, allowed):
    rect = scenario([character("C", 50, 50, rect=True)])
    assert Situation.from_document(rect).unit("C")
    doc = scenario([character("C", 50, 50, round_mm=round_mm)])
    if allowed:
        assert Situation.from_document(doc).unit("C").models[0].base.kind == "round"
    else:
        with pytest.raises(InvalidInput) as error:
            Situation.from_document(doc)
        assert error.value.field == "units[0].models[0].base"
        assert "2.5 cm" in error.value.message


def test_a_line_a_column_and_anything_else_are_recognised_from_positions():
    line = scenario([line_of_flyers("F", 50, 50)])
    column = scenario(
        [flyers("F", [stand("F1", 50, 50), stand("F2", 48, 50), stand("F3", 46, 50)])]
    )
    offset = scenario(
        [flyers("F", [stand("F1", 50, 50), stand("F2", 50, 54), stand("F3", 49, 58)])]
    )
    assert formation(stands_of(line, "F")) == "line"
    assert formation(stands_of(column, "F")) == "column"
    assert formation(stands_of(offset, "F")) == "irregular"


def test_a_stand_the_size_check_accepts_is_the_same_size_for_formations():
    # A stand written 40.00000000000001 mm wide (a float from an export) is a 4 x 2 cm stand
    # (2.1): its unit in line is still a line, not irregular (an umpire's review, S24).
    doc = scenario([line_of_flyers("F", 50, 50)])
    doc["units"][0]["models"][1]["base"] = {"rect": [40.00000000000001, 20]}
    assert formation(stands_of(doc, "F")) == "line"


def test_a_line_seen_at_an_angle_is_still_a_line():
    # facing 90 (down the table): frontage runs along x, stands 4 cm apart in x
    doc = scenario(
        [flyers("F", [stand("F1", 50, 50, 90), stand("F2", 54, 50, 90), stand("F3", 58, 50, 90)])]
    )
    assert formation(stands_of(doc, "F")) == "line"


def test_stands_touching_only_at_a_corner_are_together():
    # F2 is diagonally behind F1: corners meet at (49, 52)
    doc = scenario([flyers("F", [stand("F1", 50, 50), stand("F2", 48, 54)])])
    assert stands_together(stands_of(doc, "F"))
    apart = scenario([flyers("F", [stand("F1", 50, 50), stand("F2", 48, 54.1)])])
    assert not stands_together(stands_of(apart, "F"))


def test_distance_moved_is_the_furthest_moving_point():
    (m,) = stands_of(scenario([flyers("F", [stand("F1", 50, 50)])]), "F")
    assert distance_moved(m, 60, 50) == pytest.approx(10)  # straight ahead: 10
    assert distance_moved(m, 50, 50, 180) == pytest.approx(20**0.5)  # about-face: diagonal 4.47
    # a quarter turn on the spot: corner (51, 48) goes to (52, 51): sqrt(1 + 9) = 3.16
    assert distance_moved(m, 50, 50, 90) == pytest.approx(10**0.5)


def sight(doc, a="F1", b="E1"):
    s = Situation.from_document(doc)
    return can_see(s, s.model(a), s.model(b))


def test_sight_is_blocked_by_stands_of_other_units():
    viewer, target = flyers("F", [stand("F1", 10, 54)]), enemy("E", 30, 54)
    screen = flyers("G", [stand(f"G{i}", 20, 50 + 4 * i) for i in range(3)], keywords=("INFANTRY",))
    assert sight(scenario([viewer, target]))
    assert not sight(scenario([viewer, target, screen]))


@pytest.mark.parametrize(
    "kind, x0, x1, visible",
    [
        ("woods", 18, 21, False),
        # 2.2: ANY wood between two stands blocks, however thin (the 2 cm is for a stand inside)
        ("woods", 19, 20.5, False),
        ("village", 19, 20.5, False),  # villages block as woods
        ("building", 19, 20, False),
        ("high-linear-obstacle", 19, 20, False),
        ("hill", 18, 22, False),  # a hill between the two stands
        ("river", 15, 25, True),
        # 2.2: impassable, but low: deep water, lakes and ravines do not block sight
        ("ravine", 15, 25, True),
        ("deep-water", 15, 25, True),
        ("lake", 15, 25, True),
    ],
)
def test_sight_through_terrain(kind, x0, x1, visible):
    doc = scenario(
        [flyers("F", [stand("F1", 10, 54)]), enemy("E", 30, 54)],
        [terrain("t", kind, x0, 40, x1, 70)],
    )
    assert sight(doc) is visible


def test_a_stand_on_the_hill_sees_over_it():
    doc = scenario(
        [flyers("F", [stand("F1", 10, 54)]), enemy("E", 30, 54)],
        [terrain("t", "hill", 5, 40, 22, 70)],
    )
    assert sight(doc)


def test_flyers_see_exactly_as_ground_units_do():
    screen = flyers("G", [stand(f"G{i}", 20, 50 + 4 * i) for i in range(3)], keywords=("INFANTRY",))
    doc = scenario([line_of_flyers("F", 10, 54), enemy("E", 30, 54), screen])
    s = Situation.from_document(doc)
    assert not unit_sees(s, s.unit("F"), s.unit("E"))


# F1 at (10, 54) facing +x spans x 9..11, y 52..56; E at (30, 54) spans x 29..31.
@pytest.mark.parametrize(
    "x0, x1, visible",
    [
        (9.5, 12.5, True),  # F1 inside the wood, its front edge 1.5 cm from the wood's edge
        (9.5, 13.5, False),  # 2.5 cm of wood in front of F1: more than 2 cm
        (27.0, 35.0, True),  # E inside, 2 cm of wood in front of it: seen exactly that far
        (26.5, 35.0, False),  # 2.5 cm of wood in front of E
    ],
)
def test_a_stand_inside_a_wood_sees_and_is_seen_up_to_2_cm_into_it(x0, x1, visible):
    doc = scenario(
        [flyers("F", [stand("F1", 10, 54)]), enemy("E", 30, 54)],
        [terrain("w", "woods", x0, 40, x1, 70)],
    )
    assert sight(doc) is visible


@pytest.mark.parametrize(
    "ex, ey, visible",
    [
        (20, 54, False),  # straight behind F1 (front edge at x = 41): outside the 180-degree arc
        (40, 40, False),  # beside it: E spans x 39..41, nothing in front of the front edge line
        (42, 40, True),  # E spans x 41..43: in front of the line through the front corners
        (60, 20, True),
    ],
)
def test_a_stand_sees_only_in_front_of_the_line_through_its_front_corners(ex, ey, visible):
    doc = scenario([flyers("F", [stand("F1", 40, 54)]), enemy("E", ex, ey)])
    assert sight(doc) is visible


def test_all_round_sight_sees_behind():
    doc = scenario(
        [
            flyers("F", [stand("F1", 40, 54)], keywords=("FLYING", "ALL-ROUND-SIGHT")),
            enemy("E", 20, 54),
        ]
    )
    s = Situation.from_document(doc)
    assert unit_sees(s, s.unit("F"), s.unit("E"))


def test_characters_never_block_sight():
    # 2.9: a friendly Hero (4 x 2 cm, x 19..21, y 52..56) squarely between F1 and E
    from .builders import character

    doc = scenario(
        [flyers("F", [stand("F1", 10, 54)]), enemy("E", 30, 54), character("H", 20, 54, rect=True)]
    )
    assert sight(doc)


def test_a_stored_table_with_an_odd_stand_still_opens_and_every_move_on_it_is_refused():
    # A scenario saved before stand sizes were checked (RULES.md 2.1) must not be lost: it is
    # read with its odd stand kept, and no move is judged on it until the stand is mended.
    from rules import Move, adjudicate

    unit = flyers("F", [{**stand("F1", 50, 50), "base": {"round": 40}}])
    other = flyers("G", [stand("G1", 120, 80)])
    doc = scenario([unit, other])
    situation = Situation.from_document(doc, odd_bases_kept=True)
    assert (
        situation.odd_bases == (("units[0].models[0].base", situation.odd_bases[0][1]),)
        and "4 x 2 cm" in situation.odd_bases[0][1]
    )
    move = Move.from_document(
        {
            "format": "arbiter.move/1",
            "unit": "G",
            "type": "order-move",
            "dice": [2, 2],
            "end": {"G1": {"x": 100, "y": 80}},
        },
        situation.system,
    )
    verdict = adjudicate(situation, move)
    assert not verdict.legal
    assert [(f.rule, f.passed) for f in verdict.findings] == [("units/stands", False)]
    assert "units[0].models[0].base" in verdict.findings[0].text
