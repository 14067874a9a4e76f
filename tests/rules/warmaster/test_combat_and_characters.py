"""Combat phase moves of flyers (RULES.md 2.7) and flying characters (2.5, 2.8).

Geometry: unit F is three 4 x 2 cm stands facing +x at x = 50, y = 50, 54, 58 (x 49..51). The enemy
E1 it fought stands at (52, 54), x 51..53, touching F2's front: retreating goes in the -x direction,
so a retreat of d cm puts F's centres at x = 50 - d.
"""

import pytest

from .builders import (
    character,
    enemy,
    failed_rules,
    flyers,
    judge,
    line_of_flyers,
    scenario,
    stand,
    terrain,
)


def retreat(hits, **declarations):
    return {"unit": "F", "type": "retreat", "declarations": {"hits": hits, **declarations}}


def fought(*extra, pieces=()):
    return scenario(
        [line_of_flyers("F", 50, 54), enemy("E", 52, 54), *extra], pieces, phase="combat"
    )


def xs(verdict):
    return sorted({round(v["end"]["x"], 4) for v in verdict.models.values()})


def test_a_retreat_moves_straight_away_along_the_ground():
    verdict = judge(fought(), retreat(5))
    assert verdict.legal, failed_rules(verdict)
    assert xs(verdict) == [45.0]


def test_a_flyer_retreating_into_a_wood_is_destroyed_on_the_ground():
    # wood x 40..46.5: 5 cm back puts the rear edge at 44, inside it: on the ground, the end
    verdict = judge(fought(pieces=[terrain("wood", "woods", 40, 40, 46.5, 70)]), retreat(5))
    assert verdict.legal and {"event": "destroyed", "unit": "F"} in verdict.events
    assert not verdict.after.has_unit("F")


def test_a_flyer_retreating_into_impassable_terrain_or_enemies_is_destroyed():
    rocks = judge(fought(pieces=[terrain("r", "impassable", 40, 40, 46.5, 70)]), retreat(5))
    foes = judge(fought(enemy("X", 45, 54)), retreat(5))
    assert "destroyed" in [e["event"] for e in rocks.events]
    assert "destroyed" in [e["event"] for e in foes.events]


def test_a_retreat_halts_against_friends_who_do_not_make_way():
    # friend G1 at x 43..45: F halts with its rear edge on 45, centres at 46 (4 cm)
    verdict = judge(fought(flyers("G", [stand("G1", 44, 54)], keywords=("INFANTRY",))), retreat(8))
    assert verdict.legal, failed_rules(verdict)
    assert xs(verdict) == [46.0]


def test_a_pursuit_goes_along_the_ground_into_contact():
    # E1 has retreated to x 59..61: F (front 51) pursues 8 cm along the ground and touches it
    doc = scenario([line_of_flyers("F", 50, 54), enemy("E", 60, 54)], phase="combat")
    verdict = judge(
        doc, {"unit": "F", "type": "pursuit", "declarations": {"charge_targets": ["E"]}}
    )
    assert verdict.legal, failed_rules(verdict)
    assert xs(verdict) == [58.0]


def test_a_pursuit_is_blocked_by_woods_on_the_way():
    # wood x 53..55: F stops with its front edge on 53, centres at 52, short of E
    doc = scenario(
        [line_of_flyers("F", 50, 54), enemy("E", 60, 54)],
        [terrain("w", "woods", 53, 40, 55, 70)],
        phase="combat",
    )
    verdict = judge(
        doc, {"unit": "F", "type": "pursuit", "declarations": {"charge_targets": ["E"]}}
    )
    assert verdict.legal and xs(verdict) == [52.0]
    assert any("does not reach" in f.text for f in verdict.findings)


def _line(x):
    return {"F1": {"x": x, "y": 50}, "F2": {"x": x, "y": 54}, "F3": {"x": x, "y": 58}}


@pytest.mark.parametrize("enemy_x, legal", [(72.0, True), (72.1, False)])
def test_a_combat_advance_is_flown_at_most_20_cm(enemy_x, legal):
    # F spans x 49..51; E spans enemy_x - 1 ..: F must fly enemy_x - 52 cm to touch it, over the
    # wood (x 53..65). 2.9: no stand may advance more than 20 cm.
    doc = scenario(
        [line_of_flyers("F", 50, 54), enemy("E", enemy_x, 54)],
        [terrain("w", "woods", 53, 40, 65, 70)],
        phase="combat",
    )
    verdict = judge(doc, {"unit": "F", "type": "combat-advance", "end": _line(enemy_x - 2)})
    assert verdict.legal is legal, failed_rules(verdict)
    assert verdict.move["max_distance"] == 20


@pytest.mark.parametrize("end_x, legal", [(32.0, True), (31.9, False)])
def test_a_fall_back_is_flown_at_most_3d6_cm(end_x, legal):
    # 3D6 = 6 + 6 + 6 = 18 cm: from x = 50 back to x = 32 exactly
    doc = scenario(
        [line_of_flyers("F", 50, 54), enemy("E", 52, 54)],
        [terrain("w", "woods", 53, 40, 65, 70)],
        phase="combat",
    )
    fall_back = {"unit": "F", "type": "combat-fall-back", "dice": [6, 6, 6], "end": _line(end_x)}
    verdict = judge(doc, fall_back)
    assert verdict.legal is legal, failed_rules(verdict)
    assert verdict.move["max_distance"] == 18


def test_a_fall_back_may_not_end_over_woods():
    doc = scenario(
        [line_of_flyers("F", 50, 54), enemy("E", 52, 54)],
        [terrain("w", "woods", 38, 40, 45, 70)],
        phase="combat",
    )
    verdict = judge(
        doc, {"unit": "F", "type": "combat-fall-back", "dice": [6, 6, 6], "end": _line(40)}
    )
    assert any(r == "flying-units/terrain" for r, _, _ in failed_rules(verdict))


def test_a_fall_back_ending_within_1_cm_of_an_enemy_confuses_the_unit():
    # D spans x 31..33, y 60.5..64.5: 0.5 cm from F3 (y 56..60) once F is back at x = 32
    doc = scenario(
        [line_of_flyers("F", 50, 54), enemy("E", 52, 54), enemy("D", 32, 62.5)],
        phase="combat",
    )
    verdict = judge(
        doc, {"unit": "F", "type": "combat-fall-back", "dice": [6, 6, 6], "end": _line(32)}
    )
    assert verdict.legal, failed_rules(verdict)
    assert {"event": "confused", "unit": "F", "because": ["D"]} in verdict.events
    assert verdict.after.unit("F").state["confused"] is True


def test_a_flying_character_moves_100_cm_under_the_flyers_terrain_rules():
    # 10 -> 110 is exactly 100 cm, over the wood (x 50..70); 110.1 is too far; 60 is over the wood
    doc = scenario([character("C", 10, 54, flying=True)], [terrain("w", "woods", 50, 40, 70, 70)])
    assert judge(
        doc, {"unit": "C", "type": "character-move", "end": {"C1": {"x": 110, "y": 54}}}
    ).legal
    assert not judge(
        doc, {"unit": "C", "type": "character-move", "end": {"C1": {"x": 110.1, "y": 54}}}
    ).legal
    over_wood = judge(
        doc, {"unit": "C", "type": "character-move", "end": {"C1": {"x": 60, "y": 54}}}
    )
    assert any(r == "flying-units/terrain" for r, _, _ in failed_rules(over_wood))


def test_a_lone_flying_character_contacted_by_the_enemy_escapes_to_a_unit_within_30_cm():
    # C (round 2 cm) at (10, 54) is touched by E1 (x 11..13). Friend G1 at x 34..36: the gap is
    # 34 - 11 = 23 cm, so C flies 23 cm straight to touch G1.
    doc = scenario(
        [
            character("C", 10, 54, flying=True),
            enemy("E", 12, 54),
            flyers("G", [stand("G1", 35, 54)], keywords=("INFANTRY",)),
        ],
        phase="combat",
    )
    verdict = judge(doc, {"unit": "C", "type": "character-escape"})
    assert verdict.legal, failed_rules(verdict)
    assert verdict.models["C1"]["distance_moved"] == pytest.approx(23, abs=0.01)
    assert verdict.after.unit("C").state["joined"] == "G"


def test_a_flying_character_with_no_unit_within_30_cm_is_slain():
    doc = scenario(
        [
            character("C", 10, 54, flying=True),
            enemy("E", 12, 54),
            flyers("G", [stand("G1", 50, 54)], keywords=("INFANTRY",)),
        ],
        phase="combat",
    )
    verdict = judge(doc, {"unit": "C", "type": "character-escape"})
    assert verdict.legal and {"event": "slain", "unit": "C"} in verdict.events
    assert not verdict.after.has_unit("C")


def test_an_escape_may_not_be_100_cm():
    doc = scenario(
        [
            character("C", 10, 54, flying=True),
            enemy("E", 12, 54),
            flyers("G", [stand("G1", 35, 54)], keywords=("INFANTRY",)),
            flyers("K", [stand("K1", 75, 54)], keywords=("INFANTRY",)),
        ],
        phase="combat",
    )
    verdict = judge(
        doc, {"unit": "C", "type": "character-escape", "end": {"C1": {"x": 73, "y": 54}}}
    )
    assert not verdict.legal
    assert verdict.failures[0].limit == 30


def test_a_flying_character_must_leave_a_unit_that_ends_where_it_cannot_be():
    # G stands in a wood; C has joined it and must fly to H (C's edge 37 to H1 at 41: 4 cm)
    doc = scenario(
        [
            flyers("G", [stand("G1", 35, 54)], keywords=("INFANTRY",)),
            character("C", 36, 58, flying=True, state={"joined": "G"}),
            flyers("H", [stand("H1", 42, 58)], keywords=("INFANTRY",)),
        ],
        [terrain("w", "woods", 30, 50, 39, 57)],
        phase="combat",
    )
    verdict = judge(doc, {"unit": "C", "type": "character-escape"})
    assert verdict.legal, failed_rules(verdict)
    assert verdict.after.unit("C").state["joined"] == "H"


def test_a_character_with_nothing_to_escape_from_makes_no_escape_move():
    doc = scenario(
        [
            character("C", 10, 54, flying=True),
            flyers("G", [stand("G1", 35, 54)], keywords=("INFANTRY",)),
        ]
    )
    assert not judge(
        doc, {"unit": "C", "type": "character-escape", "end": {"C1": {"x": 20, "y": 54}}}
    ).legal
