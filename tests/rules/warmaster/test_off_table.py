"""RULES.md 2.9 "Leaving the table", a 1-2: the unit is off the table until it rolls to return.

Geometry (cm, table 180 x 120): unit F is three 4 x 2 cm stands facing +x; "where it left" the
left edge is centres at x = 1 (x 0..2, touching the edge), y 50, 54, 58 (y 48..60). A joined Hero
H is a 4 x 2 cm stand at (1, 62) (y 60..64), touching F3. While F is off the table, its stands
keep those poses so that the return puts them back there.
"""

import pytest

from rules import SYSTEMS, InvalidInput, Move, Situation, move_options, suggest

from .builders import character, enemy, failed_rules, judge, line_of_flyers, scenario

RULE = "general/leaving-the-table"
OFF = {"off_table": True}


def hero(x, y, joined="F", state=None):
    return {
        "id": "H",
        "army": "red",
        "name": "H",
        "keywords": ["CHARACTER", "HERO"],
        "state": {"joined": joined, **(state or {})},
        "models": [{"id": "H1", "base": {"rect": [40, 20]}, "x": x, "y": y}],
    }


def units_after(verdict):
    return {u["id"]: u for u in verdict.after.document["units"]}


def state_after(verdict, unit_id):
    return units_after(verdict)[unit_id].get("state", {})


def xs_after(verdict, unit_id):
    return [m["x"] for m in units_after(verdict)[unit_id]["models"]]


def rule_failed(verdict, rule=RULE):
    return [text for r, _, text in failed_rules(verdict) if r == rule]


# -- a 1-2 takes the unit off the table ------------------------------------------------------------


def test_a_drive_back_over_the_edge_on_a_2_records_the_unit_and_its_character_off_the_table():
    # F at x = 8 (x 7..9), the shooter at x = 28: 5 + 4 = 9 cm crosses the left edge after 7 cm.
    doc = scenario(
        [line_of_flyers("F", 8, 54), hero(8, 62), enemy("S", 28, 54)],
        phase="shooting",
    )
    drive = {
        "unit": "F",
        "type": "drive-back",
        "dice": [5, 4],
        "declarations": {"shooter": "S1", "hits": 2, "leave_table_roll": 2},
    }
    verdict = judge(doc, drive)
    assert verdict.legal, failed_rules(verdict)
    assert state_after(verdict, "F")["off_table"] is True
    assert state_after(verdict, "H")["off_table"] is True
    # its stands (and the Hero) are kept where it left, touching the edge
    assert xs_after(verdict, "F") == [1, 1, 1] and xs_after(verdict, "H") == [1]


def test_off_table_is_a_battle_long_flag_the_editor_does_not_offer():
    flag = SYSTEMS["warmaster-revolution"].flag("off_table")
    assert flag is not None and flag.lasts == "battle" and not flag.offers
    assert "2.9" in flag.label


# -- gone means gone ------------------------------------------------------------------------------

# The enemy E (blue, one 4 x 2 cm stand facing -x) stands where it left the table: centre (1, 54),
# x 0..2, y 52..56. F (red) at x = 10 is ordered by C to centres x = 3 (x 2..4): touching E.


def _ordered_next_to_e(e_state):
    doc = scenario(
        [
            line_of_flyers("F", 10, 54),
            character("C", 20, 70, rect=True),
            enemy("E", 1, 54, state=e_state),
        ]
    )
    move = {
        "unit": "F",
        "type": "order-move",
        "dice": [3, 3],
        "declarations": {"ordered_by": "C"},
        "end": {"F1": {"x": 3, "y": 50}, "F2": {"x": 3, "y": 54}, "F3": {"x": 3, "y": 58}},
    }
    return doc, move


def test_an_enemy_on_the_table_refuses_a_flyer_ending_touching_it():
    verdict = judge(*_ordered_next_to_e({}))
    assert not verdict.legal
    assert any("touching enemy" in t for _, _, t in failed_rules(verdict))


def test_a_flyer_may_end_where_an_enemy_off_the_table_left_as_if_it_were_not_there():
    doc, move = _ordered_next_to_e(OFF)
    verdict = judge(doc, move)
    assert verdict.legal, failed_rules(verdict)
    assert not [f for f in verdict.findings if "E" in f.text.split() or f.subject.startswith("E")]
    # the off-table unit is still in the result, unchanged
    assert units_after(verdict)["E"] == next(u for u in doc["units"] if u["id"] == "E")
    assert xs_after(verdict, "F") == [3, 3, 3]


def test_a_situation_without_off_table_units_is_judged_as_it_is():
    from rules.warmaster.leaving import without_off_table

    situation = Situation.from_document(_ordered_next_to_e({})[0])
    assert without_off_table(situation) is situation


def test_a_drive_back_by_a_shooter_that_is_off_the_table_is_refused():
    doc = scenario([line_of_flyers("F", 100, 54), enemy("S", 120, 54, state=OFF)], phase="shooting")
    drive = {
        "unit": "F",
        "type": "drive-back",
        "dice": [3],
        "declarations": {"shooter": "S1", "hits": 1},
    }
    verdict = judge(doc, drive)
    assert not verdict.legal
    assert any("off the table" in t for t in rule_failed(verdict))


# -- no moves while off ---------------------------------------------------------------------------


def _off_table(*extra, lost=0, phase="command", f_state=None):
    state = {**OFF, **({"stands_lost": lost} if lost else {}), **(f_state or {})}
    return scenario([line_of_flyers("F", 1, 54, state=state), *extra], phase=phase)


@pytest.mark.parametrize(
    "move",
    [
        {
            "unit": "F",
            "type": "order-move",
            "dice": [3, 3],
            "declarations": {"ordered_by": "C"},
            "end": {"F1": {"x": 5, "y": 50}, "F2": {"x": 5, "y": 54}, "F3": {"x": 5, "y": 58}},
        },
        {
            "unit": "F",
            "type": "initiative-charge",
            "end": {"F1": {"x": 5, "y": 50}, "F2": {"x": 5, "y": 54}, "F3": {"x": 5, "y": 58}},
        },
    ],
)
def test_a_unit_off_the_table_may_not_be_ordered_or_use_initiative(move):
    doc = _off_table(character("C", 12, 70, rect=True), enemy("E", 30, 54))
    verdict = judge(doc, move)
    assert not verdict.legal
    (text,) = rule_failed(verdict)
    assert "off the table (2.9)" in text and "start of its side's turn" in text
    assert verdict.findings[0].stage == "eligible-if"


def test_a_character_joined_to_a_unit_off_the_table_may_not_move():
    doc = _off_table(hero(1, 62, state=OFF))
    verdict = judge(doc, {"unit": "H", "type": "character-move", "end": {"H1": {"x": 30, "y": 62}}})
    assert not verdict.legal
    assert any("off the table (2.9)" in t for t in rule_failed(verdict))


def test_the_move_options_of_a_unit_off_the_table_offer_only_the_return():
    situation = Situation.from_document(_off_table())
    options = move_options(situation, "F")
    assert all(f.passed for f in options["return-to-table"]), options["return-to-table"]
    for name, findings in options.items():
        if name != "return-to-table":
            assert findings and not all(f.passed for f in findings), name


# -- the return ----------------------------------------------------------------------------------


def returning(dice=(6,), end=None):
    move = {"unit": "F", "type": "return-to-table", "dice": list(dice)}
    if end is not None:
        move["end"] = end
    return move


def return_event(verdict):
    return next(e for e in verdict.events if e["event"] == "return-roll")


def test_the_return_is_a_command_phase_move_the_engine_places():
    move_type = SYSTEMS["warmaster-revolution"].move_types["return-to-table"]
    assert move_type.rule == RULE and move_type.phases == ("command",)
    assert move_type.dice == "one D6" and move_type.suggests


@pytest.mark.parametrize("roll, lost", [(1, 0), (2, 1)])
def test_a_return_roll_of_1_or_2_keeps_the_unit_off_the_table(roll, lost):
    verdict = judge(_off_table(lost=lost), returning([roll]))
    assert verdict.legal, failed_rules(verdict)
    event = return_event(verdict)
    assert event == {
        "event": "return-roll",
        "unit": "F",
        "roll": roll,
        "modifier": -lost,
        "outcome": "off-table",
    }
    assert state_after(verdict, "F")["off_table"] is True
    assert any("again" in f.text for f in verdict.findings if f.rule == RULE)


def test_a_return_roll_of_0_or_less_destroys_the_unit_and_its_joined_character():
    verdict = judge(_off_table(hero(1, 62, state=OFF), lost=1), returning([1]))
    assert verdict.legal, failed_rules(verdict)
    assert return_event(verdict)["outcome"] == "destroyed"
    assert {"event": "destroyed", "unit": "F"} in verdict.events
    assert {"event": "slain", "unit": "H", "general": False} in verdict.events
    assert "F" not in units_after(verdict) and "H" not in units_after(verdict)


def test_a_return_on_a_3_puts_the_unit_back_where_it_left_but_it_may_not_move():
    verdict = judge(_off_table(hero(1, 62, state=OFF)), returning([3]))
    assert verdict.legal, failed_rules(verdict)
    assert return_event(verdict)["outcome"] == "returns-may-not-move"
    for unit_id in ("F", "H"):
        assert state_after(verdict, unit_id)["off_table"] is False
        assert state_after(verdict, unit_id)["may_not_move"] is True
    assert xs_after(verdict, "F") == [1, 1, 1]


def test_a_return_on_a_6_puts_the_unit_back_free_to_move():
    verdict = judge(_off_table(hero(1, 62, state=OFF)), returning([6]))
    assert verdict.legal, failed_rules(verdict)
    assert return_event(verdict)["outcome"] == "returns"
    assert state_after(verdict, "F")["off_table"] is False
    assert not state_after(verdict, "F").get("may_not_move")
    assert state_after(verdict, "H")["off_table"] is False


def test_the_engine_suggests_the_return_where_the_unit_left():
    situation = Situation.from_document(_off_table())
    placed = suggest(situation, Move.from_document(returning([5]), situation.system))
    assert {m: (p.x, p.y) for m, p in placed.end.items()} == {
        "F1": (1, 50),
        "F2": (1, 54),
        "F3": (1, 58),
    }


def test_a_return_placed_elsewhere_is_refused():
    end = {"F1": {"x": 9, "y": 50}, "F2": {"x": 9, "y": 54}, "F3": {"x": 9, "y": 58}}
    verdict = judge(_off_table(), returning([6], end))
    assert not verdict.legal


def test_the_return_is_refused_outside_the_command_phase():
    verdict = judge(_off_table(phase="shooting"), returning([6]))
    assert not verdict.legal
    assert any(f.stage == "eligible-if" and not f.passed for f in verdict.findings)


def test_the_return_is_refused_once_a_unit_of_its_army_has_moved_this_phase():
    moved = line_of_flyers("D", 100, 54, state={"orders_this_phase": 1})
    verdict = judge(_off_table(moved), returning([6]))
    assert not verdict.legal
    assert any("before" in t for t in rule_failed(verdict))


def test_the_return_is_made_in_its_own_sides_turn():
    doc = _off_table()
    doc["turn"]["active_army"] = "blue"
    verdict = judge(doc, returning([6]))
    assert not verdict.legal


@pytest.mark.parametrize("dice", [[7], [0], [3, 4], []])
def test_the_return_needs_one_d6(dice):
    with pytest.raises(InvalidInput) as err:
        judge(_off_table(), returning(dice))
    assert err.value.field == "dice"


def test_a_unit_on_the_table_cannot_make_the_return():
    doc = scenario([line_of_flyers("F", 50, 54)])
    verdict = judge(doc, returning([6]))
    assert not verdict.legal
    assert rule_failed(verdict)


def test_a_unit_now_standing_where_it_left_is_reported_not_passed():
    # [house] RULES.md is silent: D (red) has flown in where F left; F cannot come back on it.
    doc = _off_table(line_of_flyers("D", 2, 54))
    verdict = judge(doc, returning([6]))
    assert not verdict.legal
    assert any("D" in t for t in rule_failed(verdict))


def test_another_unit_off_the_table_where_it_left_does_not_block_the_return():
    other = line_of_flyers("D", 1, 54, state=OFF)
    verdict = judge(_off_table(other), returning([6]))
    assert verdict.legal, failed_rules(verdict)
    assert state_after(verdict, "D")["off_table"] is True


def test_a_unit_off_the_table_does_not_overlap_the_stands_now_where_it_left():
    # Gone means gone: the table after another unit flew in where F left still imports, and a
    # unit on the table overlapping another on the table is still refused.
    Situation.from_document(_off_table(line_of_flyers("D", 2, 54)))
    with pytest.raises(InvalidInput):
        Situation.from_document(scenario([line_of_flyers("F", 1, 54), line_of_flyers("D", 2, 54)]))
