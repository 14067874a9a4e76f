"""The umpire's second review of the Warmaster half (RULES.md 2), worked by hand.

Unless a test says otherwise, stands are 4 x 2 cm (frontage 4 cm), `line_of_flyers(id, x, y)` is
three stands facing +x at (x, y - 4), (x, y), (x, y + 4), spanning x - 1 .. x + 1 by y - 6 .. y + 6,
and `enemy(id, x, y, count=3)` is three stands facing -x at (x, y), (x, y + 4), (x, y + 8),
spanning x - 1 .. x + 1 by y - 2 .. y + 10.
"""

from .builders import enemy, failed_rules, judge, line_of_flyers, scenario, terrain


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
    f = line_of_flyers("F", 90, 60)
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
    f = line_of_flyers("F", 90, 60)
    doc = scenario([f, enemy("Y", 102, 56, count=3), enemy("Z", 100, 76, count=3)], phase="combat")
    verdict = judge(doc, {"unit": "F", "type": "combat-advance", "end": _shifted(f, 8, 18)})
    assert not verdict.legal
    assert any("Y" in text and "closest" in text for _, _, text in failed_rules(verdict))
