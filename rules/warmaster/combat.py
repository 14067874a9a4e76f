"""The Combat phase for flyers (RULES.md 2.7): retreats and pursuits on the ground, advances and
fall backs flown.

How the engine reads 2.7 (and what it takes from the general combat rules, which RULES.md does not
restate):
- Retreat: the unit moves as a block away from the side most enemy stands touch (with none
  touching, straight away from the closest enemy stand of its engagement: the units linked to it
  by a chain of units in touch, `engagement_enemies`), `hits` cm shared by `losing_units`
  (rounded up, at least 1 cm). Along the ground, stand by stand (2.9): a stand that would cross
  an enemy stand, woods, terrain infantry cannot enter, friends in combat, or friends that do not
  make way (`friends_make_way`; only friends free to move can, drive_back.free_to_make_way) is
  destroyed, and so is one that would end touching an enemy of another engagement; the others
  complete the retreat. Friends that make way are named in an event.
- Pursuit, advance and fall back follow a combat the unit fought (`check_fought`): it must be
  in combat, touching an enemy stand or marked `in_combat`; who won is the players' to say.
- Pursuit: only of a retreating enemy the unit can see (2.9). The unit moves as a block along
  the ground straight at the pursued unit (the one in `charge_targets`), from its stand nearest
  that unit, until it touches it; stands, woods and
  terrain infantry cannot enter stop it where it meets them.
- Advance and fall back are flown like Command phase moves (hops, end checks of 2.5), over the
  distances of 2.9: an advance at most 20 cm, into the closest enemy unit the advancer can see
  and reach (`reaches`: a legal end touching it, found with the unit moved as a block; characters
  are not units), and only once no enemy stand touches the unit (every
  enemy unit of its combat destroyed); a fall back at most 3D6 cm with a stand (the first placed)
  ending behind the line of contact ([house] reading: a stand whose edge lies on the line is
  behind it), confused if it ends within 1 cm of enemies or units in combat. Either one that
  takes a stand over the table edge takes the unit off the table (leaving.py: the D6 owed, or its
  outcome), but only once it is a legal advance or fall back by its own rules, wherever its
  stands end: an advance in contact with its target, a fall back behind the line of contact.
- 2.9: joined characters move with the unit in all of these, and die with it (a retreat off the
  table or one that destroys every stand).
- 2.8: after any of these, a flying character who has joined the unit (its state `joined` names
  the unit) must leave if every stand of the unit ends wholly where the character cannot be
  (woods or terrain infantry cannot enter; a unit it could no longer join, bystanders.may_join),
  or if it would itself end in such terrain, carried as the surviving stand nearest to it moves:
  an event `character-must-leave` says so (the move `character-escape` follows). The test is
  bystanders.characters_must_leave, which every move carrying joined characters asks (drive
  backs and making way too: 2.9 hands a mount that cannot follow its unit to 2.8).
Retreat and pursuit are computed by the engine (`suggest`); a hand placement must match it within
PLACEMENT_TOLERANCE.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import replace
from types import MappingProxyType
from typing import Any

import shapely
import shapely.affinity
from shapely.ops import nearest_points

from .. import budget
from ..dice import Dice
from ..errors import InvalidInput
from ..geometry import EPSILON, fmt, fmt_beside, within
from ..move import Move, Pose
from ..naming import named
from ..situation import Model, Situation, Unit
from ..verdict import Verdict
from .bystanders import (
    die_with,
    finish_past_characters,
)
from .command import closest_visible_enemies, refuse_character_target
from .drive_back import free_to_make_way, made_way_rolls
from .flying import (
    FLYER_PACE,
    check_distances,
    check_engine_placement,
    check_flown_end,
    check_may_still_move,
    check_on_table,
    end_models,
    engaged,
    finish,
    in_combat,
    new_verdict,
    phase_check,
    refuse_ground_unit,
    touching_enemy_units,
)
from .leaving import back_on_the_table, leave_the_table, off_the_table
from .stands import (
    TOUCH,
    block_intervals,
    board,
    free_contacts,
    shape_offsets,
    stands_together,
    sweep_intervals,
    swept_hull,
    table_limit,
    touching_regions,
)
from .terrain import no_flyer_end_terrain, unit_sees

RULE = "flying-units/combat"


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
        if o.unit == unit.id or o.unit in skip_units or not b.counts(o):
            continue  # 2.9: characters never block
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


SIDES = ("front", "rear", "left", "right")


def retreat_distance(move: Move) -> float:
    """2.9: the combat-result difference (`hits`) divided by the number of losing units
    (`losing_units`, default 1), rounded up, at least 1 cm."""
    hits = move.declared("hits")
    if hits is None or hits < 0:
        raise InvalidInput(
            "declarations.hits", "a retreat needs the number of hits the combat was lost by"
        )
    losers = move.declared("losing_units") or 1
    if not isinstance(losers, int) or losers < 1:
        raise InvalidInput("declarations.losing_units", "a whole number, 1 or more")
    return float(max(1, math.ceil(hits / losers)))


def _frame(m: Model) -> tuple[float, float, float, float]:
    a = math.radians(m.facing)
    return math.cos(a), math.sin(a), -math.sin(a), math.cos(a)  # forward, right


def side_touched(m: Model, enemy: Model) -> str | None:
    """Which side of stand m the enemy stand touches: the edge the contact lies on; a corner
    contact counts on m's edge parallel to the enemy stand's front (2.9)."""
    contact = m.footprint.exterior.intersection(enemy.footprint.buffer(2 * EPSILON))
    if contact.is_empty:
        return None
    c = contact.centroid
    fx, fy, rx, ry = _frame(m)
    frontage, depth = m.base.size
    f = (c.x - m.x) * fx + (c.y - m.y) * fy
    r = (c.x - m.x) * rx + (c.y - m.y) * ry
    on_fb = abs(abs(f) - depth / 2) < 1e-3
    on_lr = abs(abs(r) - frontage / 2) < 1e-3
    if on_fb and on_lr:  # a corner: the edge parallel to the enemy's front
        efx, efy, _, _ = _frame(enemy)
        parallel_to_front_edge = abs(efx * fx + efy * fy) >= math.sqrt(0.5)
        on_lr = not parallel_to_front_edge
        on_fb = parallel_to_front_edge
    if on_fb:
        return "front" if f > 0 else "rear"
    if on_lr:
        return "right" if r > 0 else "left"
    return None


def _touching_sides(situation: Situation, unit: Unit) -> dict[str, dict[str, list]]:
    """For each side of the unit, the enemy stands touching it (characters are not units) and
    where: {side: {enemy stand id: [contact geometries]}} (2.9)."""
    b = board(situation)
    touching: dict[str, dict[str, list]] = {side: {} for side in SIDES}
    for m in unit.models:
        for o in b.stands_near(m.footprint, 2 * EPSILON):
            if b.army_of[o.unit] == unit.army or not b.counts(o):
                continue
            if m.footprint.distance(o.footprint) <= EPSILON and m.base.kind == "rect":
                side = side_touched(m, o)
                if side:  # each enemy stand counts once per side
                    contact = m.footprint.exterior.intersection(o.footprint.buffer(2 * EPSILON))
                    touching[side].setdefault(o.id, []).append(contact)
    return touching


def _away_from_sides(unit: Unit) -> dict[str, tuple[float, float]]:
    """The unit vector pointing away from each side of the unit (its first stand's frame)."""
    fx, fy, rx, ry = _frame(unit.models[0])
    return {"front": (-fx, -fy), "rear": (fx, fy), "left": (rx, ry), "right": (-rx, -ry)}


def engagement_enemies(situation: Situation, unit: Unit) -> set[str]:
    """2.9: the enemy units of `unit`'s combat engagement: every unit linked to it by a chain of
    units whose stands touch (a supporting unit touches the friend it supports, which touches its
    enemy). Characters are not units and link nothing. An enemy touching none of them is in
    another combat, or in none."""
    b = board(situation)
    found, todo = {unit.id}, [unit]
    while todo:
        current = todo.pop()
        for m in current.models:
            for o in b.stands_near(m.footprint, 2 * EPSILON):
                if o.unit in found or not b.counts(o):
                    continue
                if m.footprint.distance(o.footprint) <= EPSILON:
                    found.add(o.unit)
                    todo.append(situation.unit(o.unit))
    return {u for u in found if b.army_of[u] != unit.army}


def retreat_direction(situation: Situation, unit: Unit, move: Move) -> tuple[float, float, str]:
    """2.9: away from the side with the most touching enemy stands (the loser picks on a tie:
    `retreat_from`); with none touching (a supporting unit), straight away from the closest
    enemy stand of its engagement (`engagement_enemies`), or of all when none is linked to it."""
    b = board(situation)
    touching = _touching_sides(situation, unit)
    counts = {side: len(ids) for side, ids in touching.items()}
    most = max(counts.values())
    away = _away_from_sides(unit)
    if most > 0:
        tied = [side for side in SIDES if counts[side] == most]
        chosen = move.declared("retreat_from")
        if len(tied) > 1 and chosen not in tied:
            raise InvalidInput(
                "declarations.retreat_from",
                f"as many enemy stands touch the unit's {' and '.join(tied)}: the losing player "
                "chooses which side it retreats from",
            )
        side = chosen if len(tied) > 1 else tied[0]
        ux, uy = away[side]
        return ux, uy, f"away from its {side}, where {most} enemy stand(s) touch it"
    enemies = [o for o in b.stands if b.army_of[o.unit] != unit.army and b.counts(o)]
    # 2.9: away from the closest enemy of its engagement (an enemy in no combat with it is
    # no part of it); with none linked to it on the table, the closest enemy of all
    ours = engagement_enemies(situation, unit)
    enemies = [o for o in enemies if o.unit in ours] or enemies
    if not enemies:
        raise InvalidInput("unit", f"{named(unit)} has no enemy to retreat from")
    block = shapely.union_all([m.footprint for m in unit.models])
    nearest = min(enemies, key=lambda o: o.footprint.distance(block))
    p, q = nearest_points(nearest.footprint, block)
    gap = p.distance(q)
    if gap <= EPSILON:
        raise InvalidInput("unit", f"{named(unit)} has no direction to retreat in")
    return (q.x - p.x) / gap, (q.y - p.y) / gap, f"straight away from {named(nearest.unit)}"


def plan_retreat(situation: Situation, unit: Unit, move: Move) -> dict:
    """2.9: the retreat, judged stand by stand along the ground."""
    distance = retreat_distance(move)
    ux, uy, why = retreat_direction(situation, unit, move)
    b = board(situation)
    make_way = bool(move.declared("friends_make_way"))
    engagement = engagement_enemies(situation, unit)
    plan: dict[str, Any] = {
        "distance": distance,
        "why": why,
        "direction": (ux, uy),
        "destroyed": {},  # stand id -> what blocked it
        "make_way": [],
        "off_table": False,
    }
    edge = table_limit(b.table, [m.footprint for m in unit.models], ux, uy)
    if distance > edge + EPSILON:
        plan["off_table"] = True
        plan["ends"] = []
        return plan
    terrain = no_flyer_end_terrain(situation)
    make_way_units: set[str] = set()
    ends = []
    for m in unit.models:
        region = swept_hull(m.footprint, ux * distance, uy * distance)
        # crossing = sharing area on the way (a hair smaller stand: sliding along an edge or
        # starting in touch and moving away is not crossing)
        core = m.footprint.buffer(-1e-4, join_style="mitre")
        end_fp = m.placed(m.x + ux * distance, m.y + uy * distance).footprint
        blocked = None
        for o in b.stands_near(region):
            if o.unit == unit.id or not b.counts(o):
                continue  # 2.9: characters never block
            crossing = bool(sweep_intervals(core, ux, uy, distance, [o.footprint]))
            ends_touching = end_fp.distance(o.footprint) <= EPSILON
            other = situation.unit(o.unit)
            if b.army_of[o.unit] != unit.army:
                if crossing:
                    blocked = f"enemy {named(o.unit)}"
                elif ends_touching and o.unit not in engagement:
                    blocked = (
                        f"enemy {named(o.unit)} of another combat, which it would end touching"
                    )
            elif crossing:
                if in_combat(situation, other):
                    blocked = f"{named(o.unit)}, friends in combat who cannot make way"
                elif not free_to_make_way(situation, other):
                    blocked = f"{named(o.unit)}, friends not free to move, who cannot make way"
                elif make_way:
                    make_way_units.add(o.unit)
                else:
                    blocked = f"{named(o.unit)}, friends who do not make way"
            if blocked:
                break
        if not blocked:
            for f, kind in terrain:
                if f.footprint.intersects(region) and sweep_intervals(
                    core, ux, uy, distance, [f.footprint]
                ):
                    blocked = f"{f.id} ({kind}), which it cannot cross on the ground"
                    break
        if blocked:
            plan["destroyed"][m.id] = blocked
        else:
            ends.append(m.placed(m.x + ux * distance, m.y + uy * distance))
    plan["ends"] = ends
    plan["make_way"] = sorted(make_way_units)
    return plan


def pursued(situation: Situation, unit: Unit, move: Move) -> Unit:
    """The one enemy named in `charge_targets` as the pursued (a character among them: the
    judge refuses it, refuse_character_target)."""
    targets = list(move.declared("charge_targets") or [])
    if len(targets) != 1 or not situation.has_unit(targets[0]):
        raise InvalidInput("declarations.charge_targets", "name the one enemy unit being pursued")
    target = situation.unit(targets[0])
    if target.army == unit.army:
        raise InvalidInput(
            "declarations.charge_targets", f"{named(target)} is not an enemy of {named(unit)}"
        )
    return target


def plan_pursuit(situation: Situation, unit: Unit, move: Move) -> dict:
    target = pursued(situation, unit, move)
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


def check_fought(
    verdict: Verdict, situation: Situation, unit: Unit, result: str, move: str
) -> None:
    """2.9: a pursuit, an advance or a fall back follows a combat the unit fought (a winner
    pursues or advances, a winner or a drawn unit falls back). A unit touching an enemy stand,
    or marked `in_combat`, is in combat. One that touches none is usually in combat too (its enemy
    retreated, or was destroyed, before it pursues or advances), and FORMAT.md has no field for
    it: unless the scenario marks it `in_combat: false`, the engine takes the players' word and
    says so. Who won which round the scenario cannot say: that is left to the players.
    `result`: what the unit must have done in its combat ("won it"); `move`: the move made
    ("pursues")."""
    busy = engaged(situation, unit)
    if busy or in_combat(situation, unit):
        how = f"touching enemy {', '.join(map(named, busy))}" if busy else "marked in combat"
        text = (
            f"{named(unit)} is in combat ({how}): it fought a combat this phase, and the "
            f"players say that it {result}."
        )
        verdict.check(rule=RULE, stage="eligible-if", passed=True, subject=unit.id, text=text)
        return
    declared = unit.state.get("in_combat") is False
    verdict.check(
        rule=RULE,
        stage="eligible-if",
        passed=not declared,
        subject=unit.id,
        pass_text=f"{named(unit)} touches no stand of an enemy unit: the engine takes the players' "
        "word that "
        f"it fought a combat this phase and {result} (its enemy retreated or was destroyed; "
        "mark it in_combat: false if it did not).",
        fail_text=f"{named(unit)} is marked not in combat: only a unit that fought a combat this "
        f"phase and {result} {move} (2.9).",
    )


def adjudicate_retreat(situation: Situation, move: Move) -> Verdict:
    """2.7 / 2.9: a flyer's retreat along the ground, stand by stand."""
    unit = situation.unit(move.unit)
    verdict = new_verdict(move)
    if not refuse_ground_unit(verdict, unit):
        return verdict
    phase_check(verdict, situation, unit, "combat", RULE)
    plan = plan_retreat(situation, unit, move)
    verdict.move["max_distance"] = plan["distance"]
    losers = move.declared("losing_units") or 1
    verdict.check(
        rule=RULE,
        stage="before-moving",
        passed=True,
        subject=unit.id,
        text=(
            f"{named(unit)}'s side lost the combat by {move.declared('hits')}, shared by {losers} "
            "losing "
            f"unit(s), rounded up: it retreats {fmt(plan['distance'])} cm along the ground, "
            f"{plan['why']}, keeping formation and facing."
        ),
        measured=plan["distance"],
        limit=None,
    )
    if plan["off_table"]:
        verdict.check(
            rule=RULE,
            stage="while-moving",
            passed=True,
            subject=unit.id,
            text=(
                f"The retreat takes {named(unit)} over the table edge: a unit that retreats off "
                "the "
                "table "
                "is destroyed (2.9)."
            ),
        )
        verdict.events.append({"event": "destroyed", "unit": unit.id})
        gone = [m.id for m in unit.models] + die_with(verdict, situation, unit)
        return finish(verdict, situation, [], {}, gone)
    for stand_id, what in plan["destroyed"].items():
        verdict.check(
            rule=RULE,
            stage="while-moving",
            passed=True,
            subject=stand_id,
            text=(
                f"Retreating on the ground, {named(stand_id)} would have to cross {what}: that "
                "stand is "
                "destroyed (2.9: a blocked retreat is judged stand by stand)."
            ),
        )
        verdict.events.append({"event": "stand-destroyed", "unit": unit.id, "stand": stand_id})
    removed = list(plan["destroyed"])
    if len(removed) == len(unit.models):
        verdict.events.append({"event": "destroyed", "unit": unit.id})
        return finish(verdict, situation, [], {}, removed + die_with(verdict, situation, unit))
    survivors = [m for m in unit.models if m.id not in plan["destroyed"]]
    kept = dataclasses.replace(unit, models=tuple(survivors))
    if move.end is not None:
        # A pose the player gave for a stand the retreat destroys is moot: that stand is gone.
        alive = {k: v for k, v in move.end.items() if k not in plan["destroyed"]}
        move = dataclasses.replace(move, end=MappingProxyType(alive))
    ends = check_engine_placement(
        verdict, RULE, kept, move, plan["ends"], "the retreat along the ground"
    )
    check_flown_end(
        verdict,
        situation,
        kept,
        ends,
        may_touch_enemy=True,
        ignore=plan["make_way"],
        together=not removed,
    )
    if plan["make_way"]:
        verdict.events.append({"event": "make-way", "unit": unit.id, "friends": plan["make_way"]})
        made_way_rolls(verdict, situation, unit, plan["make_way"], RULE)
    if removed and not stands_together(ends):
        verdict.check(
            rule=RULE,
            stage="after-moving",
            passed=True,
            subject=unit.id,
            text=(
                f"The surviving stands of {named(unit)} are split: if they are still out of "
                "formation "
                "and unengaged at the end of the turn, the owner removes one more stand of their "
                "choice (2.9)."
            ),
        )
        verdict.events.append({"event": "remove-a-stand-if-still-split", "unit": unit.id})
    state = {}
    if removed:
        lost = int(unit.state.get("stands_lost", 0) or 0)
        state = {unit.id: {"stands_lost": lost + len(removed)}}
    on_the_way = characters_on_the_way(situation, kept, plan["direction"], plan["distance"])
    return finish_past_characters(
        verdict, situation, kept, ends, state, removed, on_the_way, with_joined=True
    )


def characters_on_the_way(
    situation: Situation, unit: Unit, direction: tuple[float, float], distance: float
) -> list[str]:
    """2.9: lone enemy characters a ground move touches anywhere on its path."""
    b = board(situation)
    ux, uy = direction
    out = set()
    for m in unit.models:
        region = swept_hull(m.footprint, ux * distance, uy * distance)
        for o in b.stands_near(region, 2 * EPSILON):
            if o.unit in b.characters and b.army_of[o.unit] != unit.army:
                if region.distance(o.footprint) <= EPSILON:
                    out.add(o.unit)
    return sorted(out)


def _edge_outside(situation: Situation, target: Unit) -> float:
    """Length of the target's stand edges outside terrain a flyer on the ground cannot enter."""
    blocked = [f.footprint for f, _ in no_flyer_end_terrain(situation)]
    edges = shapely.union_all([m.footprint.exterior for m in target.models])
    if blocked:
        edges = edges.difference(shapely.union_all(blocked))
    return edges.length


#: 2.9: a pursuer may pursue only an enemy with at least this much edge (cm) outside terrain
#: the pursuer cannot enter.
PURSUIT_EDGE = 1.0


def adjudicate_pursuit(situation: Situation, move: Move) -> Verdict:
    """2.7 / 2.9: a pursuit along the ground, straight at the retreating enemy, up to full pace;
    a pursuit that cannot reach it is refused (the unit stands or falls back instead)."""
    unit = situation.unit(move.unit)
    verdict = new_verdict(move)
    if not refuse_ground_unit(verdict, unit):
        return verdict
    phase_check(verdict, situation, unit, "combat", RULE)
    check_may_still_move(verdict, unit)
    check_fought(verdict, situation, unit, "won it", "pursues")
    # 2.9: a unit never targets a character; refused, the pursuit moves nothing (no character
    # displaced or slain on the way)
    if refuse_character_target(
        verdict,
        situation,
        unit,
        pursued(situation, unit, move).id,
        RULE,
        verb="pursue",
        instead=f"a pursuit goes after a retreating enemy unit, so {named(unit)} stands or falls "
        "back instead",
        stage="eligible-if",
    ):
        return verdict
    plan = plan_pursuit(situation, unit, move)
    verdict.move.update(max_distance=plan["distance"], target=plan["target"])
    target = situation.unit(plan["target"])
    outside = _edge_outside(situation, target)
    verdict.check(
        rule=RULE,
        stage="eligible-if",
        passed=outside >= PURSUIT_EDGE - EPSILON,
        subject=unit.id,
        pass_text=f"{fmt(outside)} cm of {named(target)}'s edge lies outside woods and impassable "
        f"terrain, at least {fmt(PURSUIT_EDGE)} cm, so {named(unit)} may pursue it.",
        fail_text=f"Only {fmt(outside)} cm of {named(target)}'s edge lies outside terrain "
        f"{named(unit)} "
        f"cannot enter on the ground; it needs {fmt(PURSUIT_EDGE)} cm, so {named(unit)} cannot "
        "pursue: it stands or falls back instead.",
        measured=outside,
        limit=PURSUIT_EDGE,
    )
    seen = unit_sees(situation, unit, target)
    verdict.check(
        rule=RULE,
        stage="eligible-if",
        passed=seen,
        subject=unit.id,
        pass_text=f"{named(unit)} can see {named(target)}, which it pursues.",
        fail_text=f"{named(unit)} cannot see {named(target)} from where it stands: a unit "
        "pursues only "
        "a retreating enemy it can see (2.9); it stands or falls back instead.",
    )
    reach = plan["distance"] <= FLYER_PACE + EPSILON
    verdict.check(
        rule=RULE,
        stage="eligible-if",  # 2.9: only a unit that can reach the enemy may pursue
        passed=reach and not plan["halted"],
        subject=unit.id,
        pass_text=f"{named(unit)} pursues {fmt(plan['distance'])} cm along the ground into contact "
        f"with {plan['target']} (a full-pace move reaches {fmt(FLYER_PACE)} cm).",
        fail_text=(
            f"Pursuing on the ground, {named(unit)} would be stopped by {plan['halted'][1]} after "
            f"{fmt(plan['travelled'])} cm, short of {plan['target']}: a unit that cannot reach "
            "the enemy cannot pursue; it stands or falls back instead."
            if plan["halted"]
            else f"{plan['target']} is {fmt_beside(plan['distance'], FLYER_PACE)} cm away along "
            "the ground, beyond "
            f"the {fmt(FLYER_PACE)} cm of a full-pace move: a unit that cannot reach the enemy "
            "cannot pursue; it stands or falls back instead."
        ),
        measured=plan["distance"],
        limit=FLYER_PACE,
    )
    if not verdict.legal:
        return verdict
    ends = check_engine_placement(
        verdict, RULE, unit, move, plan["ends"], "the move along the ground"
    )
    if check_on_table(verdict, situation, RULE, unit, plan["ends"], "This move"):
        check_flown_end(verdict, situation, unit, ends, may_touch_enemy=True)
    on_the_way = characters_on_the_way(situation, unit, plan["direction"], plan["travelled"])
    return finish_past_characters(
        verdict, situation, unit, ends, None, (), on_the_way, with_joined=True
    )


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
    check_may_still_move(verdict, unit)
    if advance:
        check_fought(verdict, situation, unit, "destroyed every enemy unit in it", "advances")
    else:
        check_fought(verdict, situation, unit, "won or drew it", "falls back")
    dice = Dice(move.dice, move.seed)
    if advance:
        verdict.check(
            rule=RULE,
            stage="eligible-if",
            passed=not unit.flag("advanced"),
            subject=unit.id,
            pass_text=f"{named(unit)} has not advanced yet this Combat phase.",
            fail_text=f"{named(unit)} has already advanced this Combat phase: a unit advances at "
            "most once per Combat phase (2.9).",
        )
        still = engaged(situation, unit)
        verdict.check(
            rule=RULE,
            stage="eligible-if",
            passed=not still,
            subject=unit.id,
            pass_text=f"No enemy unit touches {named(unit)}: nothing is left of its combat.",
            fail_text=f"Enemy {', '.join(map(named, still))} still in contact with "
            f"{named(unit)}: a unit may "
            "advance only once every enemy unit in its combat is destroyed (2.9).",
        )
        limit = ADVANCE_DISTANCE
        verdict.check(
            rule=RULE,
            stage="before-moving",
            passed=True,
            subject=unit.id,
            text=(
                "A combat advance is flown, over stands and terrain, and no stand may move "
                "more than "
                f"{fmt(limit)} cm (2.9)."
            ),
            measured=None,
            limit=limit,
        )
    else:
        rolled = dice.roll(FALL_BACK_DICE)
        dice.finish()
        verdict.move.update(dice.summary())
        limit = float(sum(rolled))
        verdict.check(
            rule=RULE,
            stage="before-moving",
            passed=True,
            subject=unit.id,
            text=(
                f"A fall back is flown up to 3D6 cm: {' + '.join(map(str, rolled))} = "
                f"{fmt(limit)} cm "
                "(2.9)."
            ),
            measured=limit,
            limit=None,
        )
    verdict.move["max_distance"] = limit
    if move.end is None:
        raise InvalidInput("end", f"a {move.type} needs the stands' end positions")
    what = "advance" if advance else "fall back"
    ends = end_models(unit, move)
    check_distances(verdict, unit, ends, limit, RULE, f"a flown combat {what}")
    # 2.9: an advance or fall back may take the unit over the edge, but only as an advance or a
    # fall back: its own rules are judged first, wherever its stands end.
    check_flown_end(verdict, situation, unit, ends, may_touch_enemy=advance, may_leave_table=True)
    if not advance:
        _check_behind_the_line_of_contact(verdict, situation, unit, ends)
    state = {}
    if advance:
        touched = touching_enemy_units(situation, unit, ends)
        verdict.check(
            rule=RULE,
            stage="after-moving",
            passed=bool(touched),
            subject=unit.id,
            pass_text=f"{named(unit)} advances into contact with {', '.join(map(named, touched))}.",
            fail_text=f"A combat advance brings {named(unit)} into contact with the enemy; "
            "it ends touching none.",
        )
        if touched:
            _check_advance_target(verdict, situation, unit, touched)
        state = {unit.id: {"advanced": True}}
    if verdict.legal and off_the_table(situation, ends):
        where = back_on_the_table(situation, ends)
        how = f"The {what} takes {named(unit)} over the table edge"
        return leave_the_table(verdict, situation, unit, move, how, where, state=state)
    if not advance:
        near = _near_enemies_or_combat(situation, unit, ends)
        if near and verdict.legal:  # a refused fall back ends nowhere, so confuses nothing
            verdict.check(
                rule=RULE,
                stage="after-moving",
                passed=True,
                subject=unit.id,
                text=(
                    f"{named(unit)} ends its fall back within {fmt(FALL_BACK_GAP)} cm of "
                    f"{', '.join(map(named, near))} (enemies or units in combat), so it is "
                    "confused (2.9)."
                ),
            )
            verdict.events.append({"event": "confused", "unit": unit.id, "because": near})
            state = {unit.id: {"confused": True}}
    return finish_past_characters(verdict, situation, unit, ends, state, with_joined=True)


def _check_behind_the_line_of_contact(
    verdict: Verdict, situation: Situation, unit: Unit, ends: list[Model]
) -> None:
    """2.9: a fall back's first stand ends behind the line across the line of contact, on the
    unit's own side (a stand whose edge lies on the line is behind it). The line of contact is
    where the enemy stands touch the unit at the start, on the side most of them touch (on a tie,
    behind any of those lines will do). A unit no enemy touches has no line of contact: it is not
    checked, and the finding says so."""
    touching = _touching_sides(situation, unit)
    most = max(len(ids) for ids in touching.values())
    if not most:
        verdict.check(
            rule=RULE,
            stage="after-moving",
            passed=True,
            subject=unit.id,
            text=f"No enemy stand touches {named(unit)}, so there is no line of contact to fall "
            "back behind.",
        )
        return
    away = _away_from_sides(unit)
    beyond = math.inf  # how far the best-placed stand ends beyond its line of contact
    for side, contacts in touching.items():
        if len(contacts) < most:
            continue
        tx, ty = -away[side][0], -away[side][1]  # toward the enemy
        line = max(
            x * tx + y * ty for parts in contacts.values() for c in parts for x, y in _coords(c)
        )
        for m in ends:
            ahead = max(x * tx + y * ty for x, y in m.footprint.exterior.coords) - line
            beyond = min(beyond, max(0.0, ahead))
    verdict.check(
        rule=RULE,
        stage="after-moving",
        passed=beyond <= EPSILON,
        subject=unit.id,
        pass_text=f"A stand of {named(unit)} ends behind the line of contact with the enemy (on "
        "the line counts as behind [house]).",
        fail_text=f"Every stand of {named(unit)} ends beyond the line of contact with the enemy "
        "(the "
        f"nearest by {fmt(beyond)} cm): a fall back ends with its first stand behind that line "
        "(2.9).",
        measured=beyond,
        limit=0.0,
    )


def _coords(geometry) -> list[tuple[float, float]]:
    """Every vertex of a contact (a point, a segment or several)."""
    parts = getattr(geometry, "geoms", [geometry])
    return [(x, y) for g in parts for x, y in g.coords]


def reaches(situation: Situation, unit: Unit, enemy: Unit) -> bool:
    """2.9 "reach": the unit has some legal end touching `enemy` within the 20 cm of an advance.

    The engine looks for one with the unit moved as a block without turning (each point then
    moves the same distance): for each of its stands in turn, the exact free stretches of the
    ring of centres where that stand touches an enemy stand (stands.free_contacts), the other
    stands carried along and kept off the same obstacles (other units' stands, woods and
    terrain infantry cannot enter, the table edge). The nearest spot of each stretch within
    20 cm is judged with the advance's own end checks (check_flown_end). An end reachable only
    by turning or re-forming is not looked for: an enemy reached only so counts as out of reach.
    RULES.md allows those (2.7: the advance is flown as in the Command phase, pose to pose; 2.9
    limits only each stand's 20 cm), but the poses of a turned or re-formed unit are not a ring
    the engine can walk exactly, so the findings that rely on this say what was searched."""
    b = board(situation)
    targets = [o.footprint for o in enemy.models]
    x0, y0, x1, y1 = shapely.total_bounds(targets)
    size = max(
        math.hypot(px - m.x, py - m.y)
        for m in unit.models
        for s in unit.models
        for px, py in s.footprint.exterior.coords
    )
    reach = ADVANCE_DISTANCE + 2 * size
    around = shapely.box(x0 - reach, y0 - reach, x1 + reach, y1 + reach)
    obstacles = [o.footprint for o in b.stands_near(around) if o.unit != unit.id and b.counts(o)]
    obstacles += [f.footprint for f, _ in no_flyer_end_terrain(situation)]
    tx0, ty0, tx1, ty1 = b.table.bounds
    outside = shapely.box(tx0 - 1e3, ty0 - 1e3, tx1 + 1e3, ty1 + 1e3)
    for first in unit.models:
        forbidden = []
        for other in unit.models:
            offsets = shape_offsets(other)
            rx, ry = other.x - first.x, other.y - first.y
            on = shapely.buffer(touching_regions(obstacles, offsets), -TOUCH, join_style="mitre")
            forbidden += [shapely.affinity.translate(g, -rx, -ry) for g in on]
            lo, hi = offsets.min(axis=0), offsets.max(axis=0)
            on_table = shapely.box(
                tx0 - lo[0] - rx, ty0 - lo[1] - ry, tx1 - hi[0] - rx, ty1 - hi[1] - ry
            )
            forbidden.append(outside.difference(on_table))
        spots = free_contacts(
            first, targets, (first.x, first.y), table=b.table, forbidden=forbidden
        )
        for x, y in spots:
            budget.check("searching for an advance's reach")
            dx, dy = x - first.x, y - first.y
            if not within(math.hypot(dx, dy), ADVANCE_DISTANCE):
                break  # nearest first: the rest of the stretches are further still
            ends = [m.placed(m.x + dx, m.y + dy) for m in unit.models]
            trial = Verdict(move={})  # a scratch verdict: only its legality is read
            check_flown_end(trial, situation, unit, ends, may_touch_enemy=True)
            if trial.legal and enemy.id in touching_enemy_units(situation, unit, ends):
                return True
    return False


def _check_advance_target(
    verdict: Verdict, situation: Situation, unit: Unit, touched: list[str]
) -> None:
    """2.9: an advance goes into the closest enemy unit the advancer can see, from where it
    starts, and reach (`reaches`; 20 cm); characters are not units and are never its target.
    A closer enemy it could not end touching is passed over for the next closest."""
    unreachable: list[Unit] = []
    beyond: list[Unit] = []  # with no target: the closest it can see, further than 20 cm
    while True:
        closest, gap = closest_visible_enemies(situation, unit, [e.id for e in unreachable])
        if not closest or not within(gap, ADVANCE_DISTANCE):
            beyond, closest = closest, []
            break
        # the move itself shows a touched enemy is reachable when it is legal so far
        fits = [
            e for e in closest if (e.id in touched and verdict.legal) or reaches(situation, unit, e)
        ]
        if fits:
            closest = fits
            break
        unreachable += closest
    names = " or ".join(named(e) for e in closest)
    # reaches() searches the unit moved as a block: say so, rather than claim no turn or
    # change of formation could reach the enemy passed over (2.7 flies the advance pose to pose)
    passed_over = (
        f"; {' and '.join(map(named, unreachable))} "
        f"{'is' if len(unreachable) == 1 else 'are'} closer, but {named(unit)}, moved as a "
        f"block without turning, could not end touching it anywhere a flyer may end within "
        f"{fmt(ADVANCE_DISTANCE)} cm (Arbiter does not search turns or changes of formation: "
        "if one reaches it, the advance must go into it)"
        if unreachable
        else ""
    )
    # With no target, the distance judged against the 20 cm is that of the closest enemy it can
    # see past those out of reach (if it sees none, there is nothing to measure).
    past = f", past {' and '.join(map(named, unreachable))} (out of reach)," if unreachable else ""
    further = (
        f"; the closest enemy unit it can see{past} is {' or '.join(map(named, beyond))}, "
        f"{fmt_beside(gap, ADVANCE_DISTANCE)} cm away"
        if beyond
        else ""
    )
    verdict.check(
        rule=RULE,
        stage="after-moving",
        passed=bool(closest) and any(e.id in touched for e in closest),
        subject=unit.id,
        measured=gap if closest or beyond else None,
        limit=ADVANCE_DISTANCE,
        pass_text=f"{named(unit)} advances into {names}, the closest enemy unit it can see and "
        f"reach ({fmt(gap)} cm away){passed_over}.",
        fail_text=(
            f"An advance goes into the closest enemy unit {named(unit)} can see and reach: "
            f"{names}, {fmt(gap)} cm away, not {', '.join(map(named, touched))}{passed_over}."
            if closest
            else f"{named(unit)} can see no enemy unit it could end touching within the "
            f"{fmt(ADVANCE_DISTANCE)} cm of an advance, moved as a block without turning, so "
            "it has nothing to advance into (Arbiter does not search turns or changes of "
            f"formation){further}."
        ),
    )


def _near_enemies_or_combat(situation: Situation, unit: Unit, ends: list[Model]) -> list[str]:
    """Units (not characters) within 1 cm of the end stands that are enemies or in combat."""
    b = board(situation)
    out = set()
    for m in ends:
        for o in b.stands_near(m.footprint, FALL_BACK_GAP):
            if o.unit == unit.id or not b.counts(o):
                continue
            if m.footprint.distance(o.footprint) >= FALL_BACK_GAP - EPSILON:
                continue  # at least 1 cm away (RULES.md 0: to within 1e-6)
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
