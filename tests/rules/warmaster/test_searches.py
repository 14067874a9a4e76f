"""The searches behind "as far as possible" and "can it escape" (RULES.md 0, 2.4, 2.6, 2.8;
issue 11): each finds the true best placement within PLACEMENT_TOLERANCE, not a sample of it.

Hand-worked cases first, then properties on random tables (hypothesis): the engine's suggestion
is legal whenever one exists, and no placement found another way beats it by more than the
tolerance.
"""

import math
import os

import pytest
from hypothesis import HealthCheck, assume, given, settings

from rules import Move, adjudicate, suggest
from rules.warmaster.flying import PLACEMENT_TOLERANCE

from .builders import (
    character,
    enemy,
    failed_rules,
    flyers,
    judge,
    legal_start,
    line_of_flyers,
    scenario,
    stand,
    suggested,
)
from .test_drive_back import drive, drive_back_cases
from .test_home_back import home_back

EXAMPLES = int(os.environ.get("WM_EXAMPLES", 30))
PROPERTY = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)


# -- drive backs (2.6): the halt is exact --------------------------------------------------------


def test_a_drive_back_halts_exactly_where_it_first_touches_a_slanted_friend():
    # F: stands facing +x at x 99..101, y 48..60 (F3 is y 56..60); shooter S1 at (120, 54): the
    # block moves -x. Friend K1 is a 4 x 2 cm stand turned 45 degrees, centred (88, 62): its
    # corner (88 + 1/sqrt 2, 62 - 3/sqrt 2) = (88.707, 59.879) lies inside F3's band and the
    # edge from it rises at 45 degrees, crossing y = 60 at x = 86 + 4/sqrt 2 = 88.828. F3's rear
    # edge (x = 99 - d) first touches K1 there: d = 13 - 2 sqrt 2 = 10.172 cm. The dice say
    # 5 + 6 = 11 cm, which would end on K1, so the block halts at d, centres at x = 87 + 2 sqrt 2.
    doc = scenario(
        [
            line_of_flyers("F", 100, 54),
            enemy("S", 120, 54),
            flyers("K", [stand("K1", 88, 62, facing=45)], keywords=("INFANTRY",)),
        ],
        phase="shooting",
    )
    verdict = judge(doc, drive([5, 6]))
    assert verdict.legal, failed_rules(verdict)
    halt = 87 + 2 * math.sqrt(2)
    assert [v["end"]["x"] for v in verdict.models.values()] == [pytest.approx(halt, abs=1e-5)] * 3
    # a hand placement 0.2 cm short of the halt is refused (more than the tolerance)
    short = {m: {"x": halt - 0.2, "y": y} for m, y in (("F1", 50), ("F2", 54), ("F3", 58))}
    assert not judge(doc, {**drive([5, 6]), "end": short}).legal


def _block_stops(situation, unit, ux, uy, t):
    """Is the block, moved t along (ux, uy), where 2.6 stops a drive back: over woods or
    terrain infantry cannot enter, on a friend's stand, or within 1 cm of an enemy's?"""
    from rules.warmaster.drive_back import ENEMY_GAP
    from rules.warmaster.stands import overlaps
    from rules.warmaster.terrain import forbidden_terrain_under

    for m in unit.models:
        fp = m.placed(m.x + ux * t, m.y + uy * t).footprint
        if forbidden_terrain_under(situation, fp):
            return True
        for other in situation.units:
            if other.id == unit.id:
                continue
            for o in other.models:
                if other.army == unit.army and overlaps(fp, o.footprint):
                    return True
                if other.army != unit.army and fp.distance(o.footprint) < ENEMY_GAP - 1e-3:
                    if fp.distance(o.footprint) < m.footprint.distance(o.footprint) - 1e-6:
                        return True
    return False


@PROPERTY
@given(drive_back_cases())
def test_a_drive_back_that_stops_short_could_not_go_a_tolerance_further(case):
    """The halt is tight: when the engine stops the block before the dice total, the block
    moved PLACEMENT_TOLERANCE further (still within the total) would end where 2.6 stops it."""
    doc, dice = case
    situation = legal_start(doc)
    assume(situation is not None)
    move = Move.from_document(drive(dice), "warmaster-revolution")
    verdict = adjudicate(situation, suggest(situation, move))
    assert verdict.legal, failed_rules(verdict)
    assume(verdict.after is not None)
    assume(not any(e["event"] == "leave-table-roll" for e in verdict.events))  # off the edge
    unit = situation.unit("F")
    total = float(sum(dice))
    start, end = unit.models[0], verdict.after.model(unit.models[0].id)
    travelled = math.hypot(end.x - start.x, end.y - start.y)
    assume(travelled < total - PLACEMENT_TOLERANCE and travelled > 0)
    ux, uy = (end.x - start.x) / travelled, (end.y - start.y) / travelled
    assert _block_stops(situation, unit, ux, uy, travelled + PLACEMENT_TOLERANCE)


# -- home back (2.4): characters other than the one flown to never block (2.9) -------------------


def test_home_back_lands_in_line_over_a_friendly_hero_who_is_moved_aside():
    # F: stands facing +x at x 9..11, y 48..60; C (round 20 mm) at (82, 54), near edge x = 81:
    # the gap is 70 cm, the roll 6 (60 cm), so the line lands with centres at x = 70. Another
    # friendly character, H, stands at (70, 50) (58 cm from F: F may home back), under F1's
    # place in the line. 2.9: a character is not a unit and never blocks; its owner moves it
    # aside. The line keeps its formation.
    hero = character("H", 70, 50)
    hero["keywords"] = ["CHARACTER", "HERO"]
    doc = scenario([line_of_flyers("F", 10, 54), character("C", 82, 54), hero])
    verdict = judge(doc, suggested(doc, home_back(6)).to_document())
    assert verdict.legal, failed_rules(verdict)
    assert {k: (v["end"]["x"], v["end"]["y"]) for k, v in verdict.models.items()} == {
        "F1": (pytest.approx(70), pytest.approx(50)),
        "F2": (pytest.approx(70), pytest.approx(54)),
        "F3": (pytest.approx(70), pytest.approx(58)),
    }
    moved = [e for e in verdict.events if e["event"] == "character-moved-aside"]
    assert [e["unit"] for e in moved] == ["H"] and moved[0]["to"] is not None
    spot = verdict.after.model("H1")
    assert all(
        spot.footprint.distance(verdict.after.model(m).footprint) >= -1e-9
        and not spot.footprint.intersection(verdict.after.model(m).footprint).area > 1e-6
        for m in ("F1", "F2", "F3")
    )
