"""RULES.md section 3 items 4 and 5, end to end through `manage.py adjudicate`.

The geometry is the rules-level tests' (tests/rules/warmaster): unit F is three 4 x 2 cm flying
stands facing +x in a line down the y axis; for home back they stand at x = 10 (front edge x = 11)
and a round 20 mm character C at (cx, 54) leaves a gap of cx - 12 cm; for drive backs they stand
at x = 100 and the shooter S1 at (120, 54) drives them toward -x.
"""

import pytest

from tests.rules.warmaster.builders import (
    character,
    enemy,
    flyers,
    line_of_flyers,
    scenario,
    stand,
    terrain,
)

from .cli import adjudicate_cli

LEGAL, ILLEGAL = 0, 1


def home_back(roll):
    return {"unit": "F", "type": "home-back", "dice": [roll], "declarations": {"home_back_to": "C"}}


def drive_back(dice, **declarations):
    return {
        "unit": "F",
        "type": "drive-back",
        "dice": list(dice),
        "declarations": {"shooter": "S1", "hits": len(dice), **declarations},
    }


def test_a_roll_greater_than_the_gap_ends_in_touch_with_the_character(tmp_path):
    # gap 50 - 12 = 38 cm, roll 4 = 40 cm: F flies 38 cm and F2's front edge touches C.
    result = adjudicate_cli(
        tmp_path, scenario([line_of_flyers("F", 10, 54), character("C", 50, 54)]), home_back(4)
    )
    assert result.status == LEGAL
    assert result.model_end("F2") == pytest.approx((48, 54), abs=0.01)
    assert result.verdict["move"]["max_distance"] == 40


def test_a_smaller_roll_moves_the_full_distance(tmp_path):
    # gap 82 - 12 = 70 cm, roll 2 = 20 cm: every stand flies 20 cm, from x 10 to 30.
    result = adjudicate_cli(
        tmp_path, scenario([line_of_flyers("F", 10, 54), character("C", 82, 54)]), home_back(2)
    )
    assert result.status == LEGAL
    assert [result.model_end(m)[0] for m in ("F1", "F2", "F3")] == pytest.approx([30, 30, 30])


def test_a_blocked_path_ends_as_far_as_possible(tmp_path):
    # roll 4 = 40 cm would put the front edge at 51, inside the wood x 45..60: the unit stops
    # with its front edge on the wood's edge, centres at x 44.
    doc = scenario(
        [line_of_flyers("F", 10, 54), character("C", 82, 54)],
        [terrain("wood", "woods", 45, 40, 60, 70)],
    )
    result = adjudicate_cli(tmp_path, doc, home_back(4))
    assert result.status == LEGAL
    assert result.model_end("F2") == pytest.approx((44, 54), abs=0.01)


def test_a_confused_unit_homes_back_but_cannot_be_ordered(tmp_path):
    doc = scenario([line_of_flyers("F", 10, 54, state={"confused": True}), character("C", 50, 54)])
    result = adjudicate_cli(tmp_path, doc, home_back(4))
    assert result.status == LEGAL
    assert "may-be-ordered" not in result.events()
    assert any("cannot be given orders" in f["text"] for f in result.verdict["findings"])


def test_a_unit_ending_within_20_cm_of_a_character_may_be_ordered(tmp_path):
    # gap 70, roll 6 = 60 cm: the unit ends 10 cm from C.
    doc = scenario([line_of_flyers("F", 10, 54), character("C", 82, 54, rect=True)])
    result = adjudicate_cli(tmp_path, doc, home_back(6))
    assert result.status == LEGAL
    assert "may-be-ordered" in result.events()


def test_flyers_driven_back_over_a_wood_fly_over_it(tmp_path):
    # wood x 90..95; 5 + 6 = 11 cm puts the centres at x 89, clear of it; the 6 confuses them.
    doc = scenario(
        [line_of_flyers("F", 100, 54), enemy("S", 120, 54)],
        [terrain("wood", "woods", 90, 40, 95, 70)],
        phase="shooting",
    )
    result = adjudicate_cli(tmp_path, doc, drive_back([5, 6]))
    assert result.status == LEGAL
    assert result.model_end("F2") == pytest.approx((89, 54))
    assert "confused" in result.events()


def test_driven_back_flyers_end_short_of_impassable_terrain(tmp_path):
    # cliffs x 85..94.5: 7 cm would end over them; the stands stop at its edge, centres x 95.5.
    doc = scenario(
        [line_of_flyers("F", 100, 54), enemy("S", 120, 54)],
        [terrain("cliff", "cliffs", 85, 40, 94.5, 70)],
        phase="shooting",
    )
    result = adjudicate_cli(tmp_path, doc, drive_back([2, 5]))
    assert result.status == LEGAL
    assert result.model_end("F2") == pytest.approx((95.5, 54))


def test_driven_back_flyers_halt_on_friends_who_do_not_make_way(tmp_path):
    # friend G1 at x 92..94: the flyers halt touching it, centres x 95, and are confused.
    doc = scenario(
        [
            line_of_flyers("F", 100, 54),
            enemy("S", 120, 54),
            flyers("G", [stand("G1", 93, 54)], keywords=("INFANTRY",)),
        ],
        phase="shooting",
    )
    result = adjudicate_cli(tmp_path, doc, drive_back([3, 4]))
    assert result.status == LEGAL
    assert result.model_end("F2") == pytest.approx((95, 54))
    assert "confused" in result.events()
    assert result.verdict["scenario"]["units"][0]["state"]["confused"] is True


def test_driven_back_flyers_stop_1_cm_in_front_of_an_enemy(tmp_path):
    # enemy E1 at x 92..94: the flyers stop with their rear edge at x 95, centres x 96.
    doc = scenario(
        [line_of_flyers("F", 100, 54), enemy("S", 120, 54), enemy("E", 93, 54)], phase="shooting"
    )
    result = adjudicate_cli(tmp_path, doc, drive_back([3, 4]))
    assert result.status == LEGAL
    assert result.model_end("F2") == pytest.approx((96, 54))
    assert "confused" in result.events()


def test_a_hand_placement_the_dice_do_not_allow_exits_1(tmp_path):
    doc = scenario([line_of_flyers("F", 100, 54), enemy("S", 120, 54)], phase="shooting")
    end = {m: {"x": 95, "y": y} for m, y in (("F1", 50), ("F2", 54), ("F3", 58))}
    result = adjudicate_cli(tmp_path, doc, {**drive_back([3, 4]), "end": end})
    assert result.status == ILLEGAL and result.verdict["legal"] is False
