"""Second review of the Warmaster engine against RULES.md 2: the order of the Command phase (2.3),
sight for charges (2.3), round characters in touch (2.1) and where an escaping character may end
(2.8).

Geometry as in test_command: unit F is three 4 x 2 cm stands facing +x at x = 10, y = 50, 54, 58
(x 9..11, y 48..60). A rect stand centred at x = c spans c - 1 .. c + 1; a round 20 mm character
centred at x = c spans c - 1 .. c + 1 (its true circle, radius 1 cm).
"""

import pytest

from .builders import (
    character,
    enemy,
    failed_rules,
    judge,
    line_of_flyers,
    scenario,
    suggested,
    terrain,
)

F_END = (("F1", 50), ("F2", 54), ("F3", 58))


def to_x(x):
    return {m: {"x": x, "y": y} for m, y in F_END}


def home_back(roll=2):
    # C at x = 82: gap 81 - 11 = 70 cm; a roll of 2 flies the full 20 cm, to x = 30
    return {
        "unit": "F",
        "type": "home-back",
        "dice": [roll],
        "declarations": {"home_back_to": "C"},
        "end": to_x(30),
    }


def eligible_failures(verdict):
    return [f for f in verdict.failures if f.stage == "eligible-if"]


# -- 2.3: initiative, then home back, then orders, then character moves -------------------------


def test_the_home_back_of_a_fresh_unit_is_legal():
    doc = scenario([line_of_flyers("F", 10, 54), character("C", 82, 54)])
    verdict = judge(doc, home_back())
    assert verdict.legal, failed_rules(verdict)


@pytest.mark.parametrize(
    "state, why",
    [
        ({"homed_back": True}, "already homed back"),
        ({"orders_this_phase": 1}, "orders come after home back"),
    ],
)
def test_a_unit_homes_back_once_and_never_after_taking_orders(state, why):
    doc = scenario([line_of_flyers("F", 10, 54, state=state), character("C", 82, 54)])
    verdict = judge(doc, home_back())
    failures = eligible_failures(verdict)
    assert failures and failures[0].rule == "flying-units/home-back", why


@pytest.mark.parametrize(
    "state", [{"initiative_moved": True}, {"homed_back": True}, {"orders_this_phase": 1}]
)
def test_initiative_comes_first_and_only_once(state):
    # E at x = 26 (25..27): gap 14 cm, in reach; F ends at x = 24 with its front on x = 25
    doc = scenario([line_of_flyers("F", 10, 54, state=state), enemy("E", 26, 54)])
    fresh = scenario([line_of_flyers("F", 10, 54), enemy("E", 26, 54)])
    move = {"unit": "F", "type": "initiative-charge", "end": to_x(24)}
    assert judge(fresh, move).legal
    failures = eligible_failures(judge(doc, move))
    assert failures and failures[0].rule == "flying-units/initiative"


def test_a_character_that_has_made_its_own_move_gives_no_more_orders():
    # C (rect, x 19..21, y 69..71) is 9 cm from F; it has moved, so the orders are over for it
    doc = scenario(
        [
            line_of_flyers("F", 10, 54),
            character("C", 20, 70, rect=True, state={"moved_this_phase": True}),
        ]
    )
    order = {
        "unit": "F",
        "type": "order-move",
        "dice": [1, 1],
        "end": to_x(60),
        "declarations": {"ordered_by": "C"},
    }
    failures = eligible_failures(judge(doc, order))
    assert [f.rule for f in failures] == ["command/orders"]
    assert failures[0].subject == "C"


def test_a_character_move_records_that_the_character_has_moved():
    doc = scenario([character("K", 20, 54, flying=True)])
    verdict = judge(doc, {"unit": "K", "type": "character-move", "end": {"K1": {"x": 60, "y": 54}}})
    assert verdict.legal, failed_rules(verdict)
    assert verdict.after.unit("K").state["moved_this_phase"] is True
    again = judge(
        scenario([character("K", 60, 54, flying=True, state={"moved_this_phase": True})]),
        {"unit": "K", "type": "character-move", "end": {"K1": {"x": 80, "y": 54}}},
    )
    assert [f.stage for f in again.failures] == ["eligible-if"]


# -- 2.3: a flyer charges only an enemy it can see ------------------------------------------------


def test_an_order_charge_needs_sight_of_the_enemy_at_the_start():
    # A building (x 30..35, y 30..80) stands between F (x 9..11) and E (x 59..61, y 53..55): every
    # sight line crosses it. F hops 48 cm (within 60) to touch E: the hop is fine, the sight is not.
    units = [line_of_flyers("F", 10, 54), character("C", 20, 70, rect=True), enemy("E", 60, 54)]
    charge = {
        "unit": "F",
        "type": "order-charge",
        "dice": [1, 1],
        "end": to_x(58),
        "declarations": {"ordered_by": "C", "charge_targets": ["E"]},
    }
    open_ground = judge(scenario(units), charge)
    assert open_ground.legal, failed_rules(open_ground)
    blind = judge(scenario(units, [terrain("b", "building", 30, 30, 35, 80)]), charge)
    assert [f.rule for f in blind.failures] == ["flying-units/sight"]
    assert "cannot see" in blind.failures[0].text


# -- 2.1: a round character in touch is measured from its true circle ----------------------------


@pytest.mark.parametrize(
    "x, y",
    [
        (48, 54),  # the circle (x 47..49) touches U's rear edge x = 49
        (50, 61),  # the circle (y 60..62) touches U3's side y = 60
    ],
)
def test_a_round_character_may_end_exactly_in_touch_with_a_friendly_stand(x, y):
    doc = scenario([character("K", 20, 54, flying=True), line_of_flyers("U", 50, 54)])
    verdict = judge(doc, {"unit": "K", "type": "character-move", "end": {"K1": {"x": x, "y": y}}})
    assert verdict.legal, failed_rules(verdict)


def test_a_round_character_overlapping_a_friendly_stand_by_a_millimetre_is_on_top_of_it():
    # centre at 48.1: the circle (x 47.1..49.1) reaches 1 mm past U's rear edge x = 49
    doc = scenario([character("K", 20, 54, flying=True), line_of_flyers("U", 50, 54)])
    verdict = judge(
        doc, {"unit": "K", "type": "character-move", "end": {"K1": {"x": 48.1, "y": 54}}}
    )
    assert any("on top of U" in t for _, _, t in failed_rules(verdict))


# -- 2.8: an escaping character joins a unit, not another character ------------------------------


def test_an_escape_must_end_touching_a_friendly_unit_not_a_lone_character():
    # K (round, x 49..51) is touched by E (x 51..53). Character C is a rect at x 39..41; ending
    # at x = 42 (x 41..43) K touches C only: 8 cm moved, but C is no unit to join.
    # Unit U (x 69..71) is 18 cm away, within 30: the engine's escape goes there.
    units = [
        character("K", 50, 54, flying=True),
        enemy("E", 52, 54),
        character("C", 40, 54, rect=True),
        line_of_flyers("U", 70, 54),
    ]
    verdict = judge(
        scenario(units, phase="combat"),
        {"unit": "K", "type": "character-escape", "end": {"K1": {"x": 42, "y": 54}}},
    )
    assert [f.text for f in verdict.failures] == ["K must end touching another friendly unit."]
    # touching U's rear edge x = 69 with the circle: centre x = 68, 18 cm moved
    verdict = judge(
        scenario(units, phase="combat"),
        {"unit": "K", "type": "character-escape", "end": {"K1": {"x": 68, "y": 54}}},
    )
    assert verdict.legal, failed_rules(verdict)


# -- 2.5: a charge ends touching the enemy, never on top of it -----------------------------------


def test_a_charge_may_end_touching_the_enemy_but_not_on_top_of_it():
    # E at x = 60 spans 59..61. F ending at x = 58 (front on 59) touches it: 48 cm, legal.
    # F ending at x = 60 sits on E's stand (50 cm, within 60): stands need room of their own.
    doc = scenario(
        [line_of_flyers("F", 10, 54), character("C", 20, 70, rect=True), enemy("E", 60, 54)]
    )

    def charge(x):
        return {
            "unit": "F",
            "type": "order-charge",
            "dice": [1, 1],
            "end": to_x(x),
            "declarations": {"ordered_by": "C"},
        }

    assert judge(doc, charge(58)).legal
    on_top = judge(doc, charge(60))
    assert [s for _, s, t in failed_rules(on_top) if "on top of enemy E" in t] == ["F2"]


def test_an_initiative_charge_or_combat_advance_onto_an_enemy_stand_is_refused():
    # E at x = 26 spans 25..27; F ending at x = 26 covers it
    for phase, move_type in (("command", "initiative-charge"), ("combat", "combat-advance")):
        doc = scenario([line_of_flyers("F", 10, 54), enemy("E", 26, 54)], phase=phase)
        verdict = judge(doc, {"unit": "F", "type": move_type, "end": to_x(26)})
        assert any("on top of enemy E" in t for _, _, t in failed_rules(verdict)), move_type


# -- characters move as characters, not as flying units ------------------------------------------


@pytest.mark.parametrize(
    "move_type, phase, declarations",
    [
        ("order-move", "command", {"ordered_by": "C"}),
        ("initiative-charge", "command", {}),
        ("combat-advance", "combat", {}),
    ],
)
def test_a_flying_character_is_not_judged_as_a_flying_unit(move_type, phase, declarations):
    # K (round, x 9..11) and enemy E (x 25..27): a 14 cm hop would do for a unit, not for K
    doc = scenario(
        [
            character("K", 10, 54, flying=True),
            character("C", 20, 70, rect=True),
            enemy("E", 26, 54),
        ],
        phase=phase,
    )
    move = {
        "unit": "K",
        "type": move_type,
        "dice": [1, 1],
        "end": {"K1": {"x": 24, "y": 54}},
        "declarations": declarations,
    }
    verdict = judge(doc, move)
    assert not verdict.legal
    assert verdict.failures[0].rule == "engine" and "character-move" in verdict.failures[0].text


# -- 2.3: initiative against the closest visible enemy, ties left to the player -----------------


@pytest.mark.parametrize("target", ["E", "H"])
def test_two_enemies_equally_close_are_both_fair_initiative_targets(target):
    # E1 (x 25..27, y 48..52) and H1 (y 56..60) are both 14 cm from F's front edge x = 11
    doc = scenario([line_of_flyers("F", 10, 54), enemy("E", 26, 50), enemy("H", 26, 58)])
    move = {
        "unit": "F",
        "type": "initiative-charge",
        "end": to_x(24),
        "declarations": {"charge_targets": [target]},
    }
    verdict = judge(doc, move)
    assert verdict.legal, failed_rules(verdict)
    assert verdict.move["target"] == target


# -- 2.6: driven back toward an enemy already within 1 cm ---------------------------------------


def test_flyers_driven_back_toward_an_enemy_already_within_1_cm_cannot_close_on_it():
    # F spans x 59..61; enemy B (x 56.5..58.5) is 0.5 cm behind F's rear edge x = 59. Shooter S
    # at x = 80 drives F 4 cm toward -x: it would end over B (x 55..57). It may come no nearer
    # than 1 cm, and it is nearer already: it stays at x = 60 and is confused.
    doc = scenario(
        [line_of_flyers("F", 60, 54), enemy("S", 80, 54), enemy("B", 57.5, 54)], phase="shooting"
    )
    move = {
        "unit": "F",
        "type": "drive-back",
        "dice": [4],
        "declarations": {"shooter": "S1", "hits": 1},
    }
    end = {k: p.as_dict() for k, p in suggested(doc, move).end.items()}
    verdict = judge(doc, {**move, "end": end})
    assert verdict.legal, failed_rules(verdict)
    assert {m.x for m in verdict.after.unit("F").models} == {60}
    assert verdict.after.unit("F").state["confused"] is True


def test_flyers_driven_away_from_an_adjacent_shooter_move_the_full_distance():
    # S at x = 62.5 (x 61.5..63.5) is 0.5 cm in front of F's front edge x = 61;
    # driven 4 cm away from it, F ends at x = 56, not confused (no 6, nothing in the way).
    doc = scenario([line_of_flyers("F", 60, 54), enemy("S", 62.5, 54)], phase="shooting")
    move = {
        "unit": "F",
        "type": "drive-back",
        "dice": [4],
        "declarations": {"shooter": "S1", "hits": 1},
    }
    verdict = judge(doc, {**move, "end": {m: {"x": 56, "y": y} for m, y in F_END}})
    assert verdict.legal, failed_rules(verdict)
    assert not verdict.after.unit("F").flag("confused")


# -- property: odd but valid tables never crash the engine ---------------------------------------

import math  # noqa: E402

from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from rules import InvalidInput, Move, Situation, adjudicate, suggest  # noqa: E402
from rules.geometry import Base  # noqa: E402
from rules.warmaster.stands import corners  # noqa: E402
from rules.warmaster.terrain import forbidden_terrain_under  # noqa: E402

from .builders import flyers, stand  # noqa: E402

PHASES = {
    "home-back": "command",
    "initiative-charge": "command",
    "order-move": "command",
    "order-charge": "command",
    "character-move": "command",
    "drive-back": "shooting",
    "retreat": "combat",
    "pursuit": "combat",
    "combat-advance": "combat",
    "combat-fall-back": "combat",
    "character-escape": "combat",
}
COMPUTED = {"home-back", "drive-back", "retreat", "pursuit", "character-escape"}


def along_the_table(draw, low, high, size):
    """A coordinate for a unit whose extent is low..high around it: hard against either edge of
    the table (touching it) or anywhere between."""
    where = draw(st.sampled_from(["near edge", "far edge", "between"]))
    if where == "near edge":
        return -low
    if where == "far edge":
        return size - high
    return draw(st.floats(-low, size - high))


def inside(v, size, margin=2.5):
    return min(max(v, margin), size - margin)


@st.composite
def odd_tables(draw):
    """Rotated stands, cavalry-shaped stands, round and rect characters, units hard against the
    table edge and terrain touching or crossing them."""
    facing = draw(st.sampled_from([0, 90, 180, 270, 33.3, 301]))
    base = draw(st.sampled_from([[40, 20], [20, 40]]))
    a = math.radians(facing)
    rx, ry = -math.sin(a), math.cos(a)
    step = base[0] / 10
    offsets = [(rx * step * (i - 1), ry * step * (i - 1)) for i in range(3)]
    shape = Base("rect", (base[0] / 10, base[1] / 10))
    corner_points = [c for dx, dy in offsets for c in corners(shape, dx, dy, facing)]
    xs, ys = [c[0] for c in corner_points], [c[1] for c in corner_points]
    x = along_the_table(draw, min(xs), max(xs), 180)
    y = along_the_table(draw, min(ys), max(ys), 120)
    taken = [shape.footprint(x + dx, y + dy, facing) for dx, dy in offsets]

    def free_spot(base_doc, reach):
        """A spot around the unit, on the table and on no stand placed so far, or None."""
        angle, gap = draw(st.floats(0, 2 * math.pi)), draw(st.floats(0, reach))
        px = inside(x + (7 + gap) * math.cos(angle), 180)
        py = inside(y + (7 + gap) * math.sin(angle), 120)
        kind, size = next(iter(base_doc.items()))
        sizes = tuple(v / 10 for v in size) if isinstance(size, list) else (size / 10,)
        fp = Base(kind, sizes).footprint(px, py)
        if any(fp.intersection(t).area > 0 for t in taken):
            return None
        taken.append(fp)
        return px, py

    rect_character = draw(st.booleans())
    round_mm = draw(st.sampled_from([20, 25]))
    spot = free_spot({"rect": [40, 20]} if rect_character else {"round": round_mm}, 35)
    assume(spot is not None)
    units = [
        flyers(
            "F",
            [
                stand(f"F{i + 1}", x + dx, y + dy, facing, base)
                for i, (dx, dy) in enumerate(offsets)
            ],
            state={"confused": draw(st.booleans())},
        ),
        character(
            "C",
            *spot,
            round_mm=round_mm,
            rect=rect_character,
            flying=True,
            state={"joined": draw(st.sampled_from([None, "F"]))},
        ),
    ]
    for _ in range(draw(st.integers(1, 3))):
        spot = free_spot({"rect": [40, 20]}, 15)
        if spot is None:
            continue
        units.append(
            flyers(
                f"O{len(units) - 2}",
                [stand(f"O{len(units) - 2}s", *spot)],
                army=draw(st.sampled_from(["red", "blue"])),
                keywords=("INFANTRY",),
            )
        )
    assume(len(units) > 2)
    pieces = []
    for i in range(draw(st.integers(0, 3))):
        tx, ty = (
            inside(x + draw(st.floats(-15, 15)), 170),
            inside(y + draw(st.floats(-15, 15)), 110),
        )
        kind = draw(st.sampled_from(["woods", "impassable", "hill", "river", "village"]))
        w, h = draw(st.floats(1, 15)), draw(st.floats(1, 15))
        pieces.append(terrain(f"t{i}", kind, tx, ty, tx + w, ty + h))
    move_type = draw(st.sampled_from(sorted(PHASES)))
    return scenario(units, pieces, phase=PHASES[move_type]), move_type, draw(st.randoms())


@settings(
    max_examples=int(__import__("os").environ.get("WM_EXAMPLES", 60)),
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(odd_tables())
def test_odd_but_valid_tables_give_verdicts_not_crashes(case):
    doc, move_type, rnd = case
    try:
        situation = Situation.from_document(doc)
    except InvalidInput:
        assume(False)
    unit_id = "C" if move_type.startswith("character") else "F"
    for m in situation.unit(unit_id).models:
        assume(not forbidden_terrain_under(situation, m.footprint))  # a flyer never starts there
    declarations = {
        "home-back": {"home_back_to": "C"},
        "drive-back": {"shooter": "O0s", "hits": rnd.randint(1, 4)},
        "retreat": {"hits": rnd.randint(0, 5)},
        "pursuit": {"charge_targets": ["O0"]},
        "order-move": {"ordered_by": "C"},
        "order-charge": {"ordered_by": "C"},
    }.get(move_type, {})
    move_doc = {
        "unit": unit_id,
        "type": move_type,
        "declarations": declarations,
        "dice": [rnd.randint(1, 6) for _ in range(4)],
    }
    fields = (
        "declarations.shooter",
        "declarations.charge_targets",
        "declarations.retreat_from",  # 2.9: a tie between sides is the loser's choice
        "unit",
        "end",
    )
    for end in (None, "hand"):
        if end == "hand":
            move_doc["end"] = {
                m.id: {"x": m.x + rnd.uniform(-30, 30), "y": m.y + rnd.uniform(-30, 30)}
                for m in situation.unit(unit_id).models
            }
        try:
            move = Move.from_document(move_doc, situation.system)
            if end is None:
                if move_type not in COMPUTED:
                    continue
                move = suggest(situation, move)
            verdict = adjudicate(situation, move)
        except InvalidInput as err:
            assert err.field in fields or err.field.startswith("dice"), (err.field, err.message)
            continue
        verdict.as_dict()
        for finding in verdict.failures:
            assert finding.text and finding.rule and finding.stage
        eligible = all(f.passed for f in verdict.findings if f.stage == "eligible-if")
        if end is None and eligible:
            # the engine's own placement is legal, or refused because Arbiter does not judge it
            assert verdict.legal or any("does not judge" in f.text for f in verdict.failures), (
                failed_rules(verdict)
            )
