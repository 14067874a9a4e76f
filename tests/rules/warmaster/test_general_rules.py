"""RULES.md 2.9, the general rules the flyer rules stand on: the Command phase across the army,
characters that are not units, order rolls that fail.

Geometry (cm): unit F is three 4 x 2 cm stands facing +x at x = 10, y = 50, 54, 58, so it spans
x 9..11, y 48..60 and its front edge is x = 11. A rect character at (cx, cy) spans cx - 1 .. cx + 1
and cy - 2 .. cy + 2. `enemy(id, x, y)` is one blue stand spanning x - 1 .. x + 1, y - 2 .. y + 2.
"""

import pytest

from .builders import (
    character,
    enemy,
    failed_rules,
    judge,
    line_of_flyers,
    scenario,
    terrain,
)

F_YS = (("F1", 50), ("F2", 54), ("F3", 58))


def to_x(x, dy=0):
    return {m: {"x": x, "y": y + dy} for m, y in F_YS}


def order(end_x, dice=(3, 3), move_type="order-move", by="C", **declarations):
    return {
        "unit": "F",
        "type": move_type,
        "dice": list(dice),
        "end": to_x(end_x),
        "declarations": {"ordered_by": by, **declarations},
    }


def hero(unit_id, x, y, army="red", keyword="HERO", command=8, state=None):
    """A rect Hero or Wizard (no GENERAL keyword)."""
    return {
        "id": unit_id,
        "army": army,
        "name": unit_id,
        "keywords": ["CHARACTER", keyword],
        "state": {"command": command, **(state or {})},
        "models": [{"id": f"{unit_id}1", "base": {"rect": [40, 20]}, "x": x, "y": y}],
    }


INITIATIVE = {
    "unit": "F",
    "type": "initiative-charge",
    # F ends spanning x 22..24, y 60..72: its front edge touches E (x 24..26, y 64..68)
    "end": {"F1": {"x": 23, "y": 62}, "F2": {"x": 23, "y": 66}, "F3": {"x": 23, "y": 70}},
}


# -- the Command phase across the army ------------------------------------------------------------


def test_initiative_is_refused_once_any_unit_of_the_army_has_had_an_order_roll():
    base = [line_of_flyers("F", 10, 54), enemy("E", 25, 66), character("C", 20, 100, rect=True)]
    assert judge(scenario(base), INITIATIVE).legal
    # another red unit, far away, has had an order roll (a failed one counts: [house])
    ordered = line_of_flyers("G", 150, 20, state={"orders_this_phase": 1, "ordered_by": "C"})
    verdict = judge(scenario([*base, ordered]), INITIATIVE)
    assert not verdict.legal
    assert any("G" in t and "before any order" in t for _, _, t in failed_rules(verdict))


def test_home_back_is_refused_once_any_unit_of_the_army_has_had_an_order_roll():
    ordered = line_of_flyers("G", 150, 20, state={"orders_this_phase": 1, "ordered_by": "C"})
    doc = scenario([line_of_flyers("F", 10, 54), character("C", 80, 54, rect=True), ordered])
    verdict = judge(
        doc,
        {"unit": "F", "type": "home-back", "dice": [3], "declarations": {"home_back_to": "C"}},
    )
    assert not verdict.legal
    assert any("before any order" in t for _, _, t in failed_rules(verdict))


def test_a_unit_that_moved_by_initiative_cannot_be_ordered():
    doc = scenario(
        [
            line_of_flyers("F", 10, 54, state={"initiative_moved": True}),
            character("C", 20, 70, rect=True),
        ]
    )
    verdict = judge(doc, order(40))
    assert not verdict.legal
    assert any("initiative" in t for _, _, t in failed_rules(verdict))


def test_no_orders_once_any_friendly_character_has_moved():
    doc = scenario(
        [
            line_of_flyers("F", 10, 54),
            character("C", 20, 70, rect=True),
            hero("D", 150, 100, state={"moved_this_phase": True}),
        ]
    )
    verdict = judge(doc, order(40))
    assert not verdict.legal
    assert any("D has already made its own move" in t for _, _, t in failed_rules(verdict))


def test_initiative_and_home_back_are_refused_once_any_friendly_character_has_moved():
    """2.9: character moves are the last sub-phase. The Hero D (x 149..151, y 98..102) has made
    its own move, so the phase is past initiative and home back. The initiative charge is the
    first test's (legal without D); the home back is F's 3 x 10 = 30 cm toward C at (80, 54),
    80 - 1 - 11 = 68 cm away, more than 20 cm (legal without D)."""
    moved = hero("D", 150, 100, state={"moved_this_phase": True})
    base = [line_of_flyers("F", 10, 54), enemy("E", 25, 66), character("C", 20, 100, rect=True)]
    assert judge(scenario(base), INITIATIVE).legal
    verdict = judge(scenario([*base, moved]), INITIATIVE)
    assert not verdict.legal
    assert any("D has already made its own move" in t for _, _, t in failed_rules(verdict))
    home_back = {
        "unit": "F",
        "type": "home-back",
        "dice": [3],
        "declarations": {"home_back_to": "C"},
    }
    far = [line_of_flyers("F", 10, 54), character("C", 80, 54, rect=True)]
    assert judge(scenario(far), home_back).legal
    verdict = judge(scenario([*far, moved]), home_back)
    assert not verdict.legal
    assert any("D has already made its own move" in t for _, _, t in failed_rules(verdict))


@pytest.mark.parametrize("flag", ["orders_over", None])
def test_a_character_whose_order_failed_gives_no_more_orders(flag):
    state = {flag: True} if flag else {}
    doc = scenario([line_of_flyers("F", 10, 54), character("C", 20, 70, rect=True, state=state)])
    assert judge(doc, order(40)).legal is (flag is None)


def test_a_generals_failed_order_ends_every_characters_orders_even_unmarked():
    """2.9: a failure by the General ends all orders for the phase. The General G (x 149..151,
    y 98..102) has `orders_over` (an imported or hand-edited state) while the Hero D (x 19..21,
    y 68..72), sqrt(8^2 + 8^2) = 11.3 cm from F's corner (11, 60), has no flag of its own: D's
    order (3 + 3 = 6 against Command 8) is refused. With the General's flag clear it passes."""
    general = character("G", 150, 100, rect=True, state={"orders_over": True})
    doc = scenario([line_of_flyers("F", 10, 54), hero("D", 20, 70), general])
    verdict = judge(doc, order(40, by="D"))
    assert not verdict.legal
    assert any("General" in t and "ends all orders" in t for _, _, t in failed_rules(verdict))
    # nor is D offered as the one to order F before the roll
    from rules import Situation
    from rules.warmaster.command import order_offer

    offer = order_offer(Situation.from_document(doc), "F", None, {})
    assert offer.choices == ()
    assert "the General, has failed an order" in offer.empty
    free = character("G", 150, 100, rect=True)
    assert judge(
        scenario([line_of_flyers("F", 10, 54), hero("D", 20, 70), free]), order(40, by="D")
    ).legal


def test_a_refused_initiative_charge_reports_no_charge():
    """docs/format.md: `charged` says an initiative charge reached its target, so a refused one
    does not report it. E spans x 24..26, y 64..68. Ending with F's centres at x = 22 leaves its
    front edge at 23, 1 cm short of E (not touching); from irregular formation (F3 pushed 2 cm
    forward, to x = 12) the charge reaches 10 cm, and 23 - 10 = 13 cm is too far for F1."""
    doc = scenario([line_of_flyers("F", 10, 54), enemy("E", 25, 66)])
    assert {"event": "charged", "unit": "F", "target": "E"} in judge(doc, INITIATIVE).events
    short = {**INITIATIVE, "end": {m: {"x": 22, "y": p["y"]} for m, p in INITIATIVE["end"].items()}}
    verdict = judge(doc, short)
    assert not verdict.legal
    assert any("must end touching" in t for _, _, t in failed_rules(verdict))
    assert "charged" not in [e["event"] for e in verdict.events]
    irregular = line_of_flyers("F", 10, 54)
    irregular["models"][2]["x"] = 12
    end = {**INITIATIVE["end"], "F3": {"x": 25, "y": 70}}
    verdict = judge(scenario([irregular, enemy("E", 25, 66)]), {**INITIATIVE, "end": end})
    assert not verdict.legal
    assert verdict.move["max_distance"] == 10
    assert "charged" not in [e["event"] for e in verdict.events]


# -- characters are not units -------------------------------------------------------------------


def test_initiative_ignores_a_nearer_lone_enemy_general():
    # the blue General (x 15..17, y 52..56) is 4 cm from F; E is 13.6 cm away: E is the target
    doc = scenario(
        [
            line_of_flyers("F", 10, 54),
            character("G", 16, 54, army="blue", rect=True),
            enemy("E", 25, 66),
        ]
    )
    verdict = judge(doc, INITIATIVE)
    assert verdict.legal, failed_rules(verdict)
    assert verdict.move["target"] == "E"


def test_an_initiative_charge_never_targets_a_character():
    # the only enemy within 20 cm is a General: no initiative target
    doc = scenario([line_of_flyers("F", 10, 54), character("G", 16, 54, army="blue", rect=True)])
    verdict = judge(doc, {**INITIATIVE, "end": to_x(10)})
    assert not verdict.legal


def test_an_enemy_character_within_20_cm_costs_no_order_penalty():
    # Command 8, roll 4 + 4 = 8: passes only without the -1 for an enemy within 20 cm; the blue
    # General stands 13 cm from F (x 24..26)
    doc = scenario(
        [
            line_of_flyers("F", 10, 54),
            character("C", 20, 70, command=8, rect=True),
            character("G", 25, 54, army="blue", rect=True),
        ]
    )
    verdict = judge(doc, order(60, dice=(4, 4)))
    assert verdict.legal, failed_rules(verdict)
    roll = next(f for f in verdict.findings if f.rule == "command/orders" and f.measured == 8)
    assert roll.limit == 8


def test_an_enemy_unit_within_20_cm_costs_one():
    doc = scenario(
        [
            line_of_flyers("F", 10, 54),
            character("C", 20, 70, command=8, rect=True),
            enemy("E", 25, 54),
        ]
    )
    verdict = judge(doc, order(60, dice=(4, 4)))
    roll = next(f for f in verdict.findings if f.rule == "command/orders" and f.measured == 8)
    # failed, the roll's finding gives no limit (2.9: the failure is reported by the findings
    # that follow); the 7 needed is in its text
    assert roll.limit is None and roll.text.endswith(": 7. The order fails.")


def test_a_flown_move_may_end_touching_a_lone_enemy_general_who_is_displaced():
    # F flies to x = 40 (spans x 39..41). The blue General (round 20 mm, radius 1 cm) stands at
    # (42, 54): touching F2's front edge. Its nearest place touching its own unit B (x 59..61,
    # y 52..56) is centred at (58, 54): 16 cm, within 30.
    doc = scenario(
        [
            line_of_flyers("F", 10, 54),
            character("C", 20, 70, rect=True),
            character("G", 42, 54, army="blue"),
            enemy("B", 60, 54),
        ]
    )
    verdict = judge(doc, order(40))
    assert verdict.legal, failed_rules(verdict)
    event = next(e for e in verdict.events if e["event"] == "character-displaced")
    assert event["unit"] == "G"
    assert event["distance"] == pytest.approx(16.0, abs=0.05)
    assert (event["to"]["x"], event["to"]["y"]) == (pytest.approx(58, abs=0.05), pytest.approx(54))
    assert verdict.after.model("G1").x == pytest.approx(58, abs=0.05)


def test_a_lone_enemy_general_with_no_unit_within_30_cm_is_slain():
    # B now spans x 79..81: 36 cm from the General's spot
    doc = scenario(
        [
            line_of_flyers("F", 10, 54),
            character("C", 20, 70, rect=True),
            character("G", 42, 54, army="blue"),
            enemy("B", 80, 54),
        ]
    )
    verdict = judge(doc, order(40))
    assert verdict.legal, failed_rules(verdict)
    assert {"event": "slain", "unit": "G", "general": True} in verdict.events
    assert not verdict.after.has_unit("G") or not verdict.after.unit("G").models


@pytest.mark.parametrize("b_x, displaced", [(74, True), (74.001, False)])
def test_a_displaced_general_reaches_a_unit_exactly_30_cm_away_and_no_further(b_x, displaced):
    """2.9: the General's circle edge is at x = 43; B's near edge at b_x - 1 is 30 cm away (73)
    or 30.001 cm (73.001). Exactly 30 cm is within reach: the General flies the full 30 cm into
    true contact (RULES.md 0). A hair more is out of reach, and it is slain, although the
    polygon drawn round its circle (0.0012 cm wider towards B) would touch B after 29.9998 cm."""
    doc = scenario(
        [
            line_of_flyers("F", 10, 54),
            character("C", 20, 70, rect=True),
            character("G", 42, 54, army="blue"),
            enemy("B", b_x, 54),
        ]
    )
    verdict = judge(doc, order(40))
    assert verdict.legal, failed_rules(verdict)
    if displaced:
        event = next(e for e in verdict.events if e["event"] == "character-displaced")
        assert event["distance"] == pytest.approx(30, abs=1e-4)
        assert verdict.after.model("G1").x == pytest.approx(72, abs=1e-6)
    else:
        assert {"event": "slain", "unit": "G", "general": True} in verdict.events


def test_a_displaced_general_may_join_a_unit_whose_rear_edge_dips_into_a_wood():
    """2.8 / 2.9: as above, but B (facing -x, x 59..61, y 52..56) has its rear 0.1 cm (x 60.9..61)
    in a wood covering x 60.9..70. B is not standing in the wood, so the General may still join it:
    the same spot, (58, 54), 16 cm away and 58 + 1 = 59 < 60.9 clear of the wood. Before, the
    engine took B for a unit in the wood and ruled the General slain (the battle over)."""
    doc = scenario(
        [
            line_of_flyers("F", 10, 54),
            character("C", 20, 70, rect=True),
            character("G", 42, 54, army="blue", flying=True),
            enemy("B", 60, 54),
        ],
        [terrain("w", "woods", 60.9, 40, 70, 70)],
    )
    verdict = judge(doc, order(40))
    assert verdict.legal, failed_rules(verdict)
    assert not any(e["event"] == "slain" for e in verdict.events)
    event = next(e for e in verdict.events if e["event"] == "character-displaced")
    assert event["distance"] == pytest.approx(16.0, abs=0.05)
    assert (event["to"]["x"], event["to"]["y"]) == (pytest.approx(58, abs=0.05), pytest.approx(54))


def test_flyers_may_end_on_their_own_hero_who_is_moved_aside():
    # H (x 39..41, y 52..56) lies under F2's end: the owner moves it 2 cm clear (to x 37 or 43)
    doc = scenario(
        [line_of_flyers("F", 10, 54), character("C", 20, 70, rect=True), hero("H", 40, 54)]
    )
    verdict = judge(doc, order(40))
    assert verdict.legal, failed_rules(verdict)
    event = next(e for e in verdict.events if e["event"] == "character-moved-aside")
    assert event["unit"] == "H" and event["distance"] == pytest.approx(2.0, abs=0.06)


# -- failed orders, blunders -----------------------------------------------------------------------


@pytest.mark.parametrize("end_x, legal", [(20.0, True), (20.1, False), (10.0, True)])
def test_a_failed_first_order_allows_a_10_cm_half_pace_move(end_x, legal):
    # Command 6, roll 4 + 4 = 8 fails
    doc = scenario([line_of_flyers("F", 10, 54), character("C", 20, 70, command=6, rect=True)])
    verdict = judge(doc, order(end_x, dice=(4, 4)))
    assert verdict.legal is legal, failed_rules(verdict)
    assert any(e["event"] == "order-failed" for e in verdict.events)
    if legal:
        assert verdict.after.unit("F").state["orders_this_phase"] == 1
        assert verdict.after.unit("C").state["orders_over"] is True


def test_a_failed_first_order_may_not_end_touching_an_enemy():
    # E spans x 21..23: F ending at x = 20 (x 19..21) touches it
    doc = scenario(
        [
            line_of_flyers("F", 10, 54),
            character("C", 20, 70, command=6, rect=True),
            enemy("E", 22, 50),
        ]
    )
    assert not judge(doc, order(20, dice=(4, 4))).legal


@pytest.mark.parametrize("end_x, legal", [(10.0, True), (15.0, False)])
def test_a_failed_later_order_allows_no_move(end_x, legal):
    doc = scenario(
        [
            line_of_flyers("F", 10, 54, state={"orders_this_phase": 1, "ordered_by": "C"}),
            character("C", 20, 70, command=8, rect=True),
        ]
    )
    # 5 + 4 = 9 against 8 - 1 (2nd order) = 7: fails
    verdict = judge(doc, order(end_x, dice=(5, 4)))
    assert verdict.legal is legal, failed_rules(verdict)


@pytest.mark.parametrize("end_x, legal", [(10.0, True), (15.0, False)])
def test_a_heros_12_is_a_blunder_with_no_half_pace_move(end_x, legal):
    doc = scenario([line_of_flyers("F", 10, 54), hero("C", 20, 70, command=10)])
    verdict = judge(doc, order(end_x, dice=(6, 6)))
    assert verdict.legal is legal, failed_rules(verdict)
    assert {"event": "blunder-roll", "unit": "F", "dice": "D6"} in verdict.events


def test_a_wizards_12_is_a_blunder_too_and_only_the_roll_owed_is_reported():
    # RULES.md gives no Blunder table results: the engine reports the D6 owed and judges nothing
    # more (docs/rules-coverage.md); the unit stays put (x 9..11).
    doc = scenario([line_of_flyers("F", 10, 54), hero("C", 20, 70, keyword="WIZARD", command=10)])
    verdict = judge(doc, order(10, dice=(6, 6)))
    assert verdict.legal, failed_rules(verdict)
    assert [e for e in verdict.events if e["event"] == "blunder-roll"] == [
        {"event": "blunder-roll", "unit": "F", "dice": "D6"}
    ]
    blunder = next(f for f in verdict.findings if "blunder" in f.text)
    assert "does not judge" in blunder.text


def test_a_generals_12_fails_with_no_move_and_ends_all_orders():
    doc = scenario(
        [
            line_of_flyers("F", 10, 54),
            character("C", 20, 70, command=10, rect=True),
            hero("D", 150, 100),
        ]
    )
    assert not judge(doc, order(15, dice=(6, 6))).legal
    verdict = judge(doc, order(10, dice=(6, 6)))
    assert verdict.legal, failed_rules(verdict)
    assert not any(e["event"] == "blunder-roll" for e in verdict.events)
    assert verdict.after.unit("D").state["orders_over"] is True


# -- initiative and fortified enemies -------------------------------------------------------------

# F spans x 9..11, y 48..60, front edge x = 11. W (fortified blue infantry at (18, 54)) spans
# x 17..19, y 52..56: 6 cm in front of F. E at (25, 66) spans x 24..26, y 64..68: dx 13, dy 4
# from F's corner (11, 60), 13.6 cm. F's INITIATIVE end (x 22..24, y 60..72) touches E only.


def test_initiative_may_ignore_fortified_enemy_infantry_at_the_players_choice():
    units = [
        line_of_flyers("F", 10, 54),
        enemy("W", 18, 54, state={"fortified": True}),
        enemy("E", 25, 66),
        character("C", 20, 100, rect=True),
    ]
    # Without the choice, the fortified W (6 cm) is the closest enemy: charging E is refused.
    refused = judge(scenario(units), INITIATIVE)
    assert not refused.legal
    assert refused.move["target"] == "W"
    # The player chooses to ignore fortified infantry: E (13.6 cm) is the target, legal.
    chosen = {**INITIATIVE, "declarations": {"ignore_fortified": True}}
    verdict = judge(scenario(units), chosen)
    assert verdict.legal, failed_rules(verdict)
    assert verdict.move["target"] == "E"
    assert any("W" in f.text and "fortified" in f.text and f.passed for f in verdict.findings)


def test_only_fortified_infantry_or_artillery_may_be_ignored_by_initiative():
    monster = {**enemy("W", 18, 54, state={"fortified": True}), "keywords": ["MONSTER"]}
    units = [line_of_flyers("F", 10, 54), monster, enemy("E", 25, 66)]
    verdict = judge(scenario(units), {**INITIATIVE, "declarations": {"ignore_fortified": True}})
    assert not verdict.legal
    assert verdict.move["target"] == "W"


# -- the advance target ---------------------------------------------------------------------------

# After the combat, F (x 9..11, y 48..60, facing +x) advances. Enemies: B behind it at (4, 54)
# (x 3..5), 4 cm away but outside F's 180-degree front arc; N at (20, 54) (x 19..21, y 52..56),
# 8 cm in front; M at (26, 62) (x 25..27, y 60..64), 14 cm from F's corner (11, 60); and a lone
# blue Hero at (14, 66) (x 13..15, y 64..68), 3.6 cm from that corner, which is not a unit.


def _advance(end_x, dy=0):
    return {"unit": "F", "type": "combat-advance", "end": to_x(end_x, dy)}


def _advance_table():
    return scenario(
        [
            line_of_flyers("F", 10, 54, state={"in_combat": True}),  # its enemy destroyed
            enemy("B", 4, 54),
            enemy("N", 20, 54),
            enemy("M", 26, 62),
            hero("H", 14, 66, army="blue"),
        ],
        phase="combat",
    )


def test_an_advance_goes_into_the_closest_enemy_unit_it_can_see_and_reach():
    # F at x 17..19 touches N (x 19..21): an 8 cm advance into the closest enemy it sees.
    verdict = judge(_advance_table(), _advance(18))
    assert verdict.legal, failed_rules(verdict)


def test_an_advance_into_a_further_enemy_is_refused():
    # F at x 23..25, y 50..62 touches M (x 25, y 60..64) with F3; each stand moves 14.1 cm,
    # within 20 cm, but N (8 cm) is closer: M is not the advance's target.
    verdict = judge(_advance_table(), _advance(24, dy=2))
    assert not verdict.legal
    assert any("N" in t and "closest" in t for _, _, t in failed_rules(verdict))


def test_built_up_areas_and_common_plurals_are_terrain_names():
    # RULES.md 2.2 and 2.9 ("villages and built-up areas"; an umpire's review): each is read as
    # the rulebook's name it means
    from rules.systems import SYSTEMS

    system = SYSTEMS["warmaster-revolution"]
    for name, meaning in (
        ("built-up area", "village"),
        ("Villages", "village"),
        ("roads", "road"),
        ("swamp", "marshy-ground"),
        ("boulder", "boulders"),
        ("rivers", "river"),
    ):
        assert system.terrain_name(name) == meaning, name


# -- 2.8: a character joins a friendly unit; `joined` must name one ------------------------------


def _joined_to(unit_id):
    """A red Hero J touching F3 (y 56..60) and recorded as joined to `unit_id`; S is blue."""
    return scenario(
        [
            line_of_flyers("F", 10, 54),
            enemy("S", 40, 54),
            hero("J", 10, 62, state={"joined": unit_id}),
        ],
        phase="shooting",
    )


@pytest.mark.parametrize(
    "joined, says",
    [("S", "blue"), ("NOPE", "no unit"), ("J", "itself")],
)
def test_a_character_joined_to_an_enemy_a_missing_unit_or_itself_is_invalid_input(joined, says):
    """Umpire's review (K05, K06): a character joins only a friendly unit (2.8), so `joined`
    naming an enemy unit, no unit at all or the character itself is refused when the scenario
    is read, naming the field, as a reference to an army that does not exist is."""
    from rules import InvalidInput, Situation

    with pytest.raises(InvalidInput) as err:
        Situation.from_document(_joined_to(joined))
    assert err.value.field == "units[2].state.joined"
    assert says in str(err.value)


def test_a_character_joined_to_a_friendly_character_is_invalid_input():
    """2.8, 2.9: a character joins a unit, and characters are not units, so `joined` naming a
    friendly character (here the General C, beside the Hero J) is refused when the scenario is
    read, naming the field and saying why, as a joined enemy is."""
    from rules import InvalidInput, Situation

    doc = _joined_to("C")
    doc["units"].append(character("C", 30, 80))
    with pytest.raises(InvalidInput) as err:
        Situation.from_document(doc)
    assert err.value.field == "units[2].state.joined"
    assert "C is a character" in str(err.value)
    assert "2.9" in str(err.value)


def test_the_command_line_refuses_a_character_joined_to_an_enemy_with_exit_2(tmp_path):
    import json
    from io import StringIO

    from rules.__main__ import EXIT_INVALID, main

    files = []
    move = {
        "format": "arbiter.move/1",
        "unit": "F",
        "type": "drive-back",
        "declarations": {"shooter": "S1", "hits": 1},
        "dice": [3],
    }
    for name, doc in (("scenario.json", _joined_to("S")), ("move.json", move)):
        (tmp_path / name).write_text(json.dumps(doc))
        files.append(str(tmp_path / name))
    out, err = StringIO(), StringIO()
    assert main(files, stdout=out, stderr=err) == EXIT_INVALID
    assert "units[2].state.joined" in err.getvalue()


def test_a_character_joined_to_a_friendly_unit_is_read():
    from rules import Situation

    assert Situation.from_document(_joined_to("F")).unit("J").state["joined"] == "F"


def test_no_character_is_offered_to_give_orders_once_a_friendly_character_has_moved():
    """2.9: orders come before character moves. Once the Hero D has made its own move this phase
    (`moved_this_phase`), an order to F is refused, and the stepper offers nobody to give it
    (the General G is 10 cm from F and would be offered otherwise)."""
    from rules import Situation
    from rules.warmaster.command import order_offer

    general = character("G", 20, 54, rect=True)
    before = scenario([line_of_flyers("F", 10, 54), general, hero("D", 100, 100)])
    assert [c for c, _ in order_offer(Situation.from_document(before), "F", None, {}).choices] == [
        "G"
    ]
    after = scenario(
        [
            line_of_flyers("F", 10, 54),
            general,
            hero("D", 100, 100, state={"moved_this_phase": True}),
        ]
    )
    assert not judge(after, order(40, by="G")).legal
    offer = order_offer(Situation.from_document(after), "F", None, {})
    assert offer.choices == ()
    assert "D has already moved" in offer.empty
