"""The Combat phase for flyers (RULES.md 2.7): retreats and pursuits on the ground, advances and
fall backs flown.

How the engine reads 2.7 (and what it takes from the general combat rules, which RULES.md does not
restate):
- Retreat: the unit moves as a block straight away from the closest enemy stand, `hits` cm (the
  number of hits by which the combat was lost, this unit's share: 1 cm per hit). Along the ground:
  if the block runs into an enemy stand, woods, or terrain infantry cannot enter, the unit is
  destroyed (woods are treated like impassable terrain for a flyer on the ground); on friends it
  halts as it touches them unless they make way (`friends_make_way`, and an event names them).
- Pursuit: the unit moves as a block along the ground straight at the pursued unit (the one in
  `charge_targets`), from its stand nearest that unit, until it touches it; stands, woods and
  terrain infantry cannot enter stop it where it meets them.
- Advance and fall back are flown like Command phase moves (hops, end checks of 2.5). Their
  distance comes from the combat rules, which RULES.md does not fix: the engine holds them to a
  flyer's full pace of 100 cm, and says so in a finding. An advance ends touching an enemy; a fall
  back ends out of contact.
- 2.8: after any of these, a flying character who has joined the unit (its state `joined` names
  the unit) must leave if the unit ends where the character cannot be (woods or terrain infantry
  cannot enter): an event `character-must-leave` says so (the move `character-escape` follows).
Retreat and pursuit are computed by the engine (`suggest`); a hand placement must match it within
PLACEMENT_TOLERANCE.
"""

from __future__ import annotations

import math
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from shapely.ops import nearest_points

from ..dice import Dice
from ..errors import InvalidInput
from ..geometry import EPSILON
from ..move import Move, Pose
from ..situation import Model, Situation, Unit
from ..verdict import Verdict
from .bystanders import finish_past_characters
from .flying import (
    check_distances,
    check_engine_placement,
    check_flown_end,
    check_on_table,
    end_models,
    finish,
    fmt,
    in_combat,
    new_verdict,
    phase_check,
    refuse_ground_unit,
    touching_enemy_units,
)
from .stands import block_intervals, board, centroid, overlaps, swept_hull
from .terrain import forbidden_terrain_under, no_flyer_end_terrain

RULE = "flying-units/combat"
RULE_CHARACTERS = "flying-units/characters"


def _first_contacts(
    situation: Situation, unit: Unit, ux: float, uy: float, distance: float, skip_units=()
) -> list[tuple[float, str, str]]:
    """Along a ground move of the block: (t, kind, id) where it first meets each obstacle it enters.

    Obstacles already touching at the start that the block moves away from are not met."""
    b = board(situation)
    out: list[tuple[float, str, str]] = []
    region = None
    for m in unit.models:
        hull = swept_hull(m.footprint, ux * distance, uy * distance)
        region = hull if region is None else region.union(hull)
    if region is None or distance <= EPSILON:
        return out
    for o in b.stands_near(region):
        if o.unit == unit.id or o.unit in skip_units:
            continue
        kind = "friends" if b.army_of[o.unit] == unit.army else "enemy"
        for a, z in block_intervals(unit.models, ux, uy, distance, [o.footprint]):
            if z - a > 1e-9 or a > EPSILON:
                out.append((a, kind, o.unit))
                break
    for f, _kind in no_flyer_end_terrain(situation):
        if not f.footprint.intersects(region):
            continue
        for a, z in block_intervals(unit.models, ux, uy, distance, [f.footprint]):
            if z - a > 1e-9:
                out.append((a, "terrain", f.id))
                break
    return sorted(out)


def _moved(unit: Unit, ux: float, uy: float, t: float) -> list[Model]:
    return [m.placed(m.x + ux * t, m.y + uy * t) for m in unit.models]


def plan_retreat(situation: Situation, unit: Unit, move: Move) -> dict:
    hits = move.declared("hits")
    if hits is None or hits < 0:
        raise InvalidInput(
            "declarations.hits", "a retreat needs the number of hits the combat was lost by"
        )
    b = board(situation)
    enemies = [o for o in b.stands if b.army_of[o.unit] != unit.army]
    if not enemies:
        raise InvalidInput("unit", f"{unit.id} has no enemy to retreat from")
    nearest = min(
        enemies, key=lambda o: min(o.footprint.distance(m.footprint) for m in unit.models)
    )
    cx, cy = centroid(unit.models)
    length = math.hypot(cx - nearest.x, cy - nearest.y)
    if length <= EPSILON:
        raise InvalidInput(
            "unit", f"{unit.id} has no direction to retreat in: an enemy sits on its centre"
        )
    ux, uy = (cx - nearest.x) / length, (cy - nearest.y) / length
    distance = float(hits)
    plan: dict[str, Any] = {
        "distance": distance,
        "from": nearest.id,
        "direction": (ux, uy),
        "destroyed": None,
        "halted": None,
        "make_way": [],
    }
    t = distance
    for a, kind, ident in _first_contacts(situation, unit, ux, uy, distance):
        if a >= t:
            break
        if kind in ("enemy", "terrain"):
            plan["destroyed"] = (kind, ident)
            break
        if move.declared("friends_make_way"):
            continue
        plan["halted"] = ident
        t = a
        break
    ends = _moved(unit, ux, uy, t)
    plan["travelled"] = t
    plan["ends"] = ends
    if move.declared("friends_make_way"):
        plan["make_way"] = sorted(
            {
                o.unit
                for m in ends
                for o in b.stands_near(m.footprint)
                if o.unit != unit.id
                and b.army_of[o.unit] == unit.army
                and overlaps(m.footprint, o.footprint)
            }
        )
    return plan


def plan_pursuit(situation: Situation, unit: Unit, move: Move) -> dict:
    targets = list(move.declared("charge_targets") or [])
    if len(targets) != 1 or not situation.has_unit(targets[0]):
        raise InvalidInput("declarations.charge_targets", "name the one enemy unit being pursued")
    target = situation.unit(targets[0])
    if target.army == unit.army:
        raise InvalidInput(
            "declarations.charge_targets", f"{target.id} is not an enemy of {unit.id}"
        )
    pairs = [(m, o) for m in unit.models for o in target.models]
    m, o = min(pairs, key=lambda p: p[0].footprint.distance(p[1].footprint))
    p, q = nearest_points(m.footprint, o.footprint)
    gap = p.distance(q)
    ux, uy = ((q.x - p.x) / gap, (q.y - p.y) / gap) if gap > EPSILON else (0.0, 0.0)
    plan = {"distance": gap, "target": target.id, "direction": (ux, uy), "halted": None}
    t = gap
    for a, kind, ident in _first_contacts(situation, unit, ux, uy, gap, skip_units=(target.id,)):
        if a < t - 1e-9:
            plan["halted"] = (kind, ident)
            t = a
        break
    plan["travelled"] = t
    plan["ends"] = _moved(unit, ux, uy, t)
    return plan


def _suggest(planner):
    def suggest(situation: Situation, move: Move) -> Move:
        unit = situation.unit(move.unit)
        plan = planner(situation, unit, move)
        poses = {m.id: Pose(m.x, m.y, None, m.facing) for m in plan["ends"]}
        return replace(move, end=MappingProxyType(poses))

    return suggest


def characters_must_leave(
    verdict: Verdict, situation: Situation, unit: Unit, ends: list[Model]
) -> None:
    """2.8: a flying character with this unit leaves it if the unit ends where it cannot be."""
    for other in situation.friends_of(unit):
        if other.state.get("joined") != unit.id or not other.has("FLYING"):
            continue
        bad = [f.id for m in ends for f, _ in forbidden_terrain_under(situation, m.footprint)]
        if bad:
            verdict.check(
                RULE_CHARACTERS,
                "after-moving",
                True,
                other.id,
                f"{unit.id} ends in {', '.join(sorted(set(bad)))}, where {other.id} cannot be: the "
                "character must fly up to 30 cm to another friendly unit or be slain.",
            )
            verdict.events.append(
                {"event": "character-must-leave", "unit": other.id, "from": unit.id}
            )


def adjudicate_retreat(situation: Situation, move: Move) -> Verdict:
    unit = situation.unit(move.unit)
    verdict = new_verdict(move)
    if not refuse_ground_unit(verdict, unit):
        return verdict
    phase_check(verdict, situation, unit, "combat", RULE)
    plan = plan_retreat(situation, unit, move)
    verdict.move["max_distance"] = plan["distance"]
    verdict.check(
        RULE,
        "before-moving",
        True,
        unit.id,
        f"{unit.id} lost the combat by {move.declared('hits')} hit(s), so it retreats "
        f"{fmt(plan['distance'])} cm (1 cm a hit) along the ground, straight away from "
        f"{plan['from']}.",
        plan["distance"],
        None,
    )
    if plan["destroyed"]:
        kind, ident = plan["destroyed"]
        verdict.check(
            RULE,
            "while-moving",
            True,
            unit.id,
            f"Retreating on the ground, {unit.id} runs into "
            f"{'enemy ' + ident if kind == 'enemy' else ident + ', which it cannot cross on foot'} "
            "and is destroyed.",
        )
        verdict.events.append({"event": "destroyed", "unit": unit.id})
        return finish(verdict, situation, [], {}, [m.id for m in unit.models])
    if plan["halted"]:
        verdict.check(
            RULE,
            "while-moving",
            True,
            unit.id,
            f"{unit.id} halts after {fmt(plan['travelled'])} cm where it touches friends "
            f"({plan['halted']}) who do not make way.",
            plan["travelled"],
            plan["distance"],
        )
    ends = check_engine_placement(
        verdict, RULE, unit, move, plan["ends"], "the move along the ground"
    )
    if check_on_table(verdict, situation, RULE, unit, plan["ends"], "This move"):
        check_flown_end(
            verdict, situation, unit, ends, may_touch_enemy=True, ignore=plan["make_way"]
        )
    if plan["make_way"]:
        verdict.events.append({"event": "make-way", "unit": unit.id, "friends": plan["make_way"]})
    characters_must_leave(verdict, situation, unit, ends)
    return finish(verdict, situation, ends)


def adjudicate_pursuit(situation: Situation, move: Move) -> Verdict:
    unit = situation.unit(move.unit)
    verdict = new_verdict(move)
    if not refuse_ground_unit(verdict, unit):
        return verdict
    phase_check(verdict, situation, unit, "combat", RULE)
    plan = plan_pursuit(situation, unit, move)
    verdict.move.update(max_distance=plan["distance"], target=plan["target"])
    if plan["halted"]:
        kind, ident = plan["halted"]
        verdict.check(
            RULE,
            "while-moving",
            True,
            unit.id,
            f"Pursuing on the ground, {unit.id} is stopped by {ident} "
            f"after {fmt(plan['travelled'])} cm "
            f"and does not reach {plan['target']}.",
            plan["travelled"],
            plan["distance"],
        )
    else:
        verdict.check(
            RULE,
            "while-moving",
            True,
            unit.id,
            f"{unit.id} pursues {fmt(plan['distance'])} cm along the ground into contact with "
            f"{plan['target']}.",
            plan["distance"],
            None,
        )
    ends = check_engine_placement(
        verdict, RULE, unit, move, plan["ends"], "the move along the ground"
    )
    if check_on_table(verdict, situation, RULE, unit, plan["ends"], "This move"):
        check_flown_end(verdict, situation, unit, ends, may_touch_enemy=True)
    characters_must_leave(verdict, situation, unit, ends)
    return finish(verdict, situation, ends)


#: 2.9: no stand may move more than this in a combat advance (flyers too, flown).
ADVANCE_DISTANCE = 20.0
#: 2.9: a fall back is up to 3D6 cm; it must end this far from enemies and units in combat.
FALL_BACK_DICE = 3
FALL_BACK_GAP = 1.0


def _adjudicate_flown(situation: Situation, move: Move, advance: bool) -> Verdict:
    """2.7 / 2.9: a combat advance (at most 20 cm, into contact) or fall back (at most 3D6 cm,
    ending 1 cm from enemies and units in combat or confused), flown over stands and terrain."""
    unit = situation.unit(move.unit)
    verdict = new_verdict(move)
    if not refuse_ground_unit(verdict, unit):
        return verdict
    phase_check(verdict, situation, unit, "combat", RULE)
    dice = Dice(move.dice, move.seed)
    if advance:
        limit = ADVANCE_DISTANCE
        verdict.check(
            RULE,
            "before-moving",
            True,
            unit.id,
            f"A combat advance is flown, over stands and terrain, and no stand may move more than "
            f"{fmt(limit)} cm (2.9).",
            None,
            limit,
        )
    else:
        rolled = dice.roll(FALL_BACK_DICE)
        dice.finish()
        verdict.move.update(dice.summary())
        limit = float(sum(rolled))
        verdict.check(
            RULE,
            "before-moving",
            True,
            unit.id,
            f"A fall back is flown up to 3D6 cm: {' + '.join(map(str, rolled))} = {fmt(limit)} cm "
            "(2.9).",
            limit,
            None,
        )
    verdict.move["max_distance"] = limit
    if move.end is None:
        raise InvalidInput("end", f"a {move.type} needs the stands' end positions")
    what = "advance" if advance else "fall back"
    ends = end_models(unit, move)
    check_distances(verdict, unit, ends, limit, RULE, f"a flown combat {what}")
    check_flown_end(verdict, situation, unit, ends, may_touch_enemy=advance)
    state = {}
    if advance:
        touched = touching_enemy_units(situation, unit, ends)
        verdict.check(
            RULE,
            "after-moving",
            bool(touched),
            unit.id,
            f"{unit.id} advances into contact with {', '.join(touched)}."
            if touched
            else f"A combat advance brings {unit.id} into contact with the enemy; "
            "it ends touching none.",
        )
    else:
        near = _near_enemies_or_combat(situation, unit, ends)
        if near:
            verdict.check(
                RULE,
                "after-moving",
                True,
                unit.id,
                f"{unit.id} ends its fall back within {fmt(FALL_BACK_GAP)} cm of "
                f"{', '.join(near)} (enemies or units in combat), so it is confused (2.9).",
            )
            verdict.events.append({"event": "confused", "unit": unit.id, "because": near})
            state = {unit.id: {"confused": True}}
    characters_must_leave(verdict, situation, unit, ends)
    return finish_past_characters(verdict, situation, unit, ends, state)


def _near_enemies_or_combat(situation: Situation, unit: Unit, ends: list[Model]) -> list[str]:
    """Units (not characters) within 1 cm of the end stands that are enemies or in combat."""
    b = board(situation)
    out = set()
    for m in ends:
        for o in b.stands_near(m.footprint, FALL_BACK_GAP):
            if o.unit == unit.id or not b.counts(o):
                continue
            if m.footprint.distance(o.footprint) >= FALL_BACK_GAP - 1e-9:
                continue
            other = situation.unit(o.unit)
            if other.army != unit.army or in_combat(situation, other):
                out.add(o.unit)
    return sorted(out)


def adjudicate_combat_advance(situation: Situation, move: Move) -> Verdict:
    return _adjudicate_flown(situation, move, advance=True)


def adjudicate_combat_fall_back(situation: Situation, move: Move) -> Verdict:
    return _adjudicate_flown(situation, move, advance=False)


suggest_retreat = _suggest(plan_retreat)
suggest_pursuit = _suggest(plan_pursuit)
