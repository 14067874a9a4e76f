"""The umpire's second review of the Warmaster half (RULES.md 2), worked by hand.

Unless a test says otherwise, stands are 4 x 2 cm (frontage 4 cm), `line_of_flyers(id, x, y)` is
three stands facing +x at (x, y - 4), (x, y), (x, y + 4), spanning x - 1 .. x + 1 by y - 6 .. y + 6,
and `enemy(id, x, y, count=3)` is three stands facing -x at (x, y), (x, y + 4), (x, y + 8),
spanning x - 1 .. x + 1 by y - 2 .. y + 10.
"""

from rules import Move, Situation, adjudicate

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


def _shifted(unit_doc, dx, dy=0.0):
    return {
        m["id"]: {"x": m["x"] + dx, "y": m["y"] + dy, "facing": m["facing"]}
        for m in unit_doc["models"]
    }


# -- 2.9 advance: the closest enemy unit the advancer can see AND reach ---------------------------

# F (x 89..91, y 54..66) has destroyed its enemy. Y (x 101..103, y 54..66) stands wholly inside the
# wood W (x 100..120, y 40..80): it is 101 - 91 = 10 cm away and F sees it (2 cm into the wood),
# but a stand touching Y would have to lie over the wood (its nearest clear edge, x = 100, is 1 cm
# from Y), which no flyer may end over (2.2, 2.5): Y cannot be reached. Z (x 99..101, y 74..86)
# stands only partly in the wood; its edge x = 99 is clear. From F's corner (91, 66) to Z's (99, 74)
# is sqrt(8^2 + 8^2) = 11.3 cm. Advancing F by (8, 18) puts it at x 97..99, y 72..84, touching Z
# along x = 99 and clear of the wood; every point moves sqrt(8^2 + 18^2) = 19.70 cm <= 20 cm.


def _unreachable_y():
    f = line_of_flyers("F", 90, 60, state={"in_combat": True})
    units = [f, enemy("Y", 102, 56, count=3), enemy("Z", 100, 76, count=3)]
    return f, scenario(units, [terrain("W", "woods", 100, 40, 120, 80)], phase="combat")


def test_an_advance_passes_over_a_closer_enemy_it_could_not_end_touching():
    f, doc = _unreachable_y()
    verdict = judge(doc, {"unit": "F", "type": "combat-advance", "end": _shifted(f, 8, 18)})
    assert verdict.legal, failed_rules(verdict)
    assert any("Z" in x.text and "closest" in x.text for x in verdict.findings if x.passed)


def test_an_advance_that_ends_over_the_wood_beside_y_is_still_refused():
    # F moved 10 cm to x 99..101 touches Y at x = 101, but lies 1 cm over the wood (x 100..101).
    f, doc = _unreachable_y()
    verdict = judge(doc, {"unit": "F", "type": "combat-advance", "end": _shifted(f, 10)})
    assert not verdict.legal
    assert any(rule == "flying-units/terrain" for rule, _, _ in failed_rules(verdict))


def test_an_advance_must_still_go_into_a_closer_enemy_it_can_reach():
    # Without the wood, Y (10 cm) is reachable, so the advance into Z (11.3 cm) is refused.
    f = line_of_flyers("F", 90, 60, state={"in_combat": True})
    doc = scenario([f, enemy("Y", 102, 56, count=3), enemy("Z", 100, 76, count=3)], phase="combat")
    verdict = judge(doc, {"unit": "F", "type": "combat-advance", "end": _shifted(f, 8, 18)})
    assert not verdict.legal
    assert any("Y" in text and "closest" in text for _, _, text in failed_rules(verdict))


def test_an_advance_with_only_an_unreachable_enemy_within_20_cm_measures_the_next():
    # Z moved to x 99..101, y 98..110: from F's corner (91, 66) to Z's (99, 98) is
    # sqrt(8^2 + 32^2) = 32.98 cm, beyond the advance. Y is passed over (out of reach), so the
    # failed finding measures Z's distance against the 20 cm and names both.
    f = line_of_flyers("F", 90, 60, state={"in_combat": True})
    units = [f, enemy("Y", 102, 56, count=3), enemy("Z", 100, 100, count=3)]
    doc = scenario(units, [terrain("W", "woods", 100, 40, 120, 80)], phase="combat")
    verdict = judge(doc, {"unit": "F", "type": "combat-advance", "end": _shifted(f, 10)})
    target = next(x for x in verdict.failures if "nothing to advance into" in x.text)
    assert (round(target.measured, 2), target.limit) == (32.98, 20)
    assert "past Y (out of reach), is Z, 32.98 cm away" in target.text


# -- 2.8 / 2.9: a joined character whose retreat would leave it in a wood -------------------------

# F (x 89..91, y 54..66) lost its combat against X (x 91..93, y 54..66, touching F's front) by 5
# and retreats 5 cm to -x. The wood W covers x 80..86, y 50..57.5. F1 (y 54..58) would sweep x
# 84..91 through the wood: destroyed. F2 and F3 (y 58..66) miss it (57.5 < 58) and end at x 84..86.
# The flying General J (round, radius 1: x 86.8..88.8, y 55..57) has joined F. The stand nearest it
# was F1 (0.2 cm); of the survivors, F2 (sqrt(0.2^2 + 1^2) = 1.02 cm). Moving as F2 moves, J ends at
# (82.8, 56), x 81.8..83.8, y 55..57: wholly inside W, where a flying mount may not be (2.2, 2.8).
# So J must fly up to 30 cm to another friendly unit or be slain; with none on the table, slain.


def _retreat_past_a_wood():
    units = [
        line_of_flyers("F", 90, 60),
        enemy("X", 92, 56, count=3),
        character("J", 87.8, 56, flying=True, state={"joined": "F"}),
    ]
    return scenario(units, [terrain("W", "woods", 80, 50, 86, 57.5)], phase="combat")


def test_a_joined_character_carried_into_a_wood_by_a_retreat_must_leave():
    verdict = judge(
        _retreat_past_a_wood(), {"unit": "F", "type": "retreat", "declarations": {"hits": 5}}
    )
    assert verdict.legal, failed_rules(verdict)
    assert [m.id for m in verdict.after.unit("F").models] == ["F2", "F3"]
    j = verdict.after.unit("J").models[0]
    assert (round(j.x, 6), round(j.y, 6)) == (82.8, 56.0)  # as F2 moved
    assert {"event": "character-must-leave", "unit": "J", "from": "F"} in verdict.events
    assert any(f.subject == "J" and "W" in f.text and f.passed for f in verdict.findings)


def test_the_character_left_in_the_wood_then_escapes_or_is_slain():
    verdict = judge(
        _retreat_past_a_wood(), {"unit": "F", "type": "retreat", "declarations": {"hits": 5}}
    )
    after = verdict.after
    escape = adjudicate(
        after, Move.from_document({"unit": "J", "type": "character-escape"}, after.system)
    )
    assert escape.legal, failed_rules(escape)
    assert {"event": "slain", "unit": "J", "general": True} in escape.events


# -- 2.9 Command phase: one character's orders, one unit's orders, at a time ----------------------

# The General G (round, radius 1, at (24, 60), Command 9) and the Hero H (at (24, 70), Command 8).
# F (x 29..31, y 54..66) and O (x 29..31, y 74..86) are flyers; the only enemy is far away at
# (170, 20), so no order has the -1 for an enemy within 20 cm. G is 29 - 25 = 4 cm from F and
# sqrt(5^2 + 14^2) - 1 = 13.9 cm from O (from its corner (29, 74)); H is sqrt(5^2 + 4^2) - 1 =
# 5.4 cm from F. Every roll is 3 + 3 = 6: a first order passes (6 <= 9 or 8), and a second one
# (-1: 6 <= 8 for G) would pass too, so only the order of the phase can refuse it.


def _command_table():
    hero = character("H", 24, 70, command=8)
    hero["keywords"] = ["CHARACTER", "HERO"]
    units = [
        line_of_flyers("F", 30, 60),
        character("G", 24, 60, command=9),
        hero,
        line_of_flyers("O", 30, 80),
        enemy("E", 170, 20),
    ]
    return Situation.from_document(scenario(units))


def _order(situation, unit_id, by, dx=5.0):
    """`by` orders `unit_id` (roll 3 + 3) to move dx cm along +x from where it stands now."""
    unit = situation.unit(unit_id)
    end = {m.id: {"x": m.x + dx, "y": m.y, "facing": m.facing} for m in unit.models}
    doc = {
        "unit": unit_id,
        "type": "order-move",
        "declarations": {"ordered_by": by},
        "dice": [3, 3],
        "end": end,
    }
    return adjudicate(situation, Move.from_document(doc, situation.system))


def test_a_character_that_let_another_start_ordering_gives_no_more_orders():
    # k04: G orders O, then H orders F: G's orders are over, so G may not order O again.
    first = _order(_command_table(), "O", "G")
    second = _order(first.after, "F", "H")
    assert first.legal and second.legal
    assert second.after.unit("G").state["orders_over"] is True
    again = _order(second.after, "O", "G")
    assert not again.legal
    assert any(
        "H" in text and "before another starts" in text for _, _, text in failed_rules(again)
    )


def test_a_unit_whose_character_went_on_to_another_unit_takes_no_more_orders():
    # k05: G orders O, then F: O's orders are finished, so G may not order O again.
    first = _order(_command_table(), "O", "G")
    second = _order(first.after, "F", "G")
    assert first.legal and second.legal
    assert second.after.unit("O").state["orders_finished"] is True
    again = _order(second.after, "O", "G")
    assert not again.legal
    assert any(
        "O" in text and "before another is ordered" in text for _, _, text in failed_rules(again)
    )


def test_a_character_may_go_on_ordering_the_same_unit():
    # G orders O twice in a row (the second roll 6 <= 9 - 1): nothing is finished yet.
    first = _order(_command_table(), "O", "G")
    second = _order(first.after, "O", "G")
    assert second.legal, failed_rules(second)
    assert not second.after.unit("O").state.get("orders_finished")
    assert not second.after.unit("G").state.get("orders_over")


# -- 2.6 / 2.9 drive back: the friends are those where the flyers end ------------------------------

# F (x 89..91, y 54..66) is shot by X2 (x 119..121, y 58..62) and driven straight back along -x by
# 5 + 5 = 10 cm, to x 79..81. There stand two friendly infantry stands: P1 and Q1 (x 79..81,
# y 62..66), Q in combat. Q cannot make way, so F halts 1 cm short of it: rear edge at 81 + 1 =
# 82, F at x 82..84 after 7 cm, confused ([house] 1 cm). That end is clear of P1, so P never makes
# way and F never halts on it: no make-way, no confusion D6 for P or for F, and "friends" is no
# reason for F's confusion.


def _friends_behind(p_x, make_way):
    units = [
        line_of_flyers("F", 90, 60),
        enemy("X", 120, 56, count=3),
        flyers("P", [stand("P1", p_x, 56)], keywords=("INFANTRY",)),
        flyers("Q", [stand("Q1", 80, 64)], keywords=("INFANTRY",), state={"in_combat": True}),
    ]
    move = {
        "unit": "F",
        "type": "drive-back",
        "dice": [5, 5],
        "declarations": {"shooter": "X2", "hits": 2, "friends_make_way": make_way},
    }
    return judge(scenario(units, phase="shooting"), move)


def test_a_friend_the_halted_flyers_never_end_over_does_not_make_way():
    # k27: P1 at x 79..81 would lie under F at 10 cm, but F ends at x 82..84, 1 cm clear of it.
    verdict = _friends_behind(80, make_way=True)
    assert verdict.legal, failed_rules(verdict)
    assert sorted({round(v["end"]["x"], 4) for v in verdict.models.values()}) == [83.0]
    assert [e for e in verdict.events if e["event"] in ("make-way", "confusion-roll")] == []
    assert {"event": "confused", "unit": "F", "because": ["busy"]} in verdict.events


def test_a_friend_the_halted_flyers_never_touch_does_not_confuse_them():
    # k50: P1 at x 78..80 does not make way; F would halt touching it at x 80..82 (9 cm), but Q
    # halts it first at x 82..84 (7 cm), 2 cm from P1: confused because of Q only.
    verdict = _friends_behind(79, make_way=False)
    assert verdict.legal, failed_rules(verdict)
    assert sorted({round(v["end"]["x"], 4) for v in verdict.models.values()}) == [83.0]
    assert {"event": "confused", "unit": "F", "because": ["busy"]} in verdict.events
    assert not any("P" in f.text and "friends" in f.text for f in verdict.findings)


def test_only_the_side_whose_turn_it_is_moves_in_the_command_phase():
    # RULES.md 2.3, 2.9: the Command phase is a side's own. The same order as above, in blue's
    # turn, is refused for red's F (an umpire's third review: c16).
    doc = scenario(
        [line_of_flyers("F", 30, 60), character("G", 24, 60, command=9), enemy("E", 170, 20)]
    )
    ours = _order(Situation.from_document(doc), "F", "G")
    assert ours.legal, [f.text for f in ours.failures]
    doc["turn"]["active_army"] = "blue"
    theirs = _order(Situation.from_document(doc), "F", "G")
    assert not theirs.legal
    assert any("other side's turn" in f.text for f in theirs.failures)
