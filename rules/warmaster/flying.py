"""Moving flyers by hops (RULES.md 2.5): only the end position is checked.

Shared by every flown move (initiative and order moves, charges, combat advances and fall backs,
flying characters): the distance each stand moved against the move's limit, and the end-of-move
rules - on the table, not in terrain impassable to infantry or over woods, not on top of friendly
stands, not touching an enemy unless the move is a charge, and the unit's stands in touch.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping

import numpy as np
import shapely

from ..errors import InvalidInput
from ..geometry import EPSILON, fmt, within
from ..move import Move
from ..naming import named
from ..situation import Model, Situation, Unit
from ..systems import SYSTEMS
from ..verdict import Verdict
from .stands import (
    ENEMY_CLEARANCE,
    board,
    distance_moved,
    is_character,
    overlaps,
    same_facing,
    stands_overlap,
    stands_together,
)
from .terrain import forbidden_terrain_under, no_flyer_end_terrain

RULE_MOVING = "flying-units/moving"
RULE_TERRAIN = "flying-units/terrain"
#: RULES.md 0: how far a hand placement may be from the engine's where the engine computes a move.
PLACEMENT_TOLERANCE = SYSTEMS["warmaster-revolution"].placement_tolerance

#: 2.1 / 2.5: a flyer's full pace, order-move limit and charge limits (cm).
FLYER_PACE = 100.0
FLYER_CHARGE = 60.0
FLYER_IRREGULAR_CHARGE = 10.0
#: 2.3 / 2.4: orders and home back work within this distance of a character (cm).
COMMAND_RANGE = 20.0


def new_verdict(move: Move, **extra) -> Verdict:
    return Verdict(move={"unit": move.unit, "type": move.type, **extra})


def refuse_ground_unit(verdict: Verdict, unit: Unit, what: str = "flying units") -> bool:
    """The Warmaster half judges flying units only: anything else is refused, never passed.
    A flying character is judged by its own moves (`character-move`, `character-escape`)."""
    if unit.has("FLYING") and is_character(unit):
        verdict.check(
            rule="engine",
            stage="eligible-if",
            passed=False,
            subject=unit.id,
            text=(
                f"{named(unit)} is a character: Arbiter judges a flying character's moves as "
                "character-move and character-escape, not as the moves of a flying unit."
            ),
        )
        return False
    if unit.has("FLYING"):
        return True
    verdict.check(
        rule="engine",
        stage="eligible-if",
        passed=False,
        subject=unit.id,
        text=(
            f"Arbiter judges Warmaster {what} only, and {named(unit)} has no FLYING keyword, so "
            "it cannot say whether this move is legal."
        ),
    )
    return False


def check_may_still_move(verdict: Verdict, unit: Unit) -> None:
    """2.9 "Leaving the table": a unit that came back on a 3-4 may not move again this turn
    (state `may_not_move`). [house] This refuses the moves its owner makes (orders, initiative,
    home back, making way, pursuit, a combat advance or fall back); the moves the enemy forces on
    it (a drive back, a retreat) still happen, as the rules give no other way to settle them.
    Only a unit carrying the flag gets a finding: for the others the rule does not arise."""
    if unit.flag("may_not_move"):
        verdict.check(
            rule="general/leaving-the-table",
            stage="eligible-if",
            passed=False,
            subject=unit.id,
            text=f"{named(unit)} came back from leaving the table on a 3-4 and may not move "
            "again this turn (2.9).",
        )


def end_models(unit: Unit, move: Move) -> list[Model]:
    """The unit's stands at their proposed end poses (stands left out of `end` stay put)."""
    end = move.end or {}
    ids = {m.id for m in unit.models}
    for model_id in end:
        if model_id not in ids:
            raise InvalidInput(
                f"end.{model_id}", f"{named(model_id)} is not a stand of unit {named(unit)}"
            )
    out = []
    for m in unit.models:
        pose = end.get(m.id)
        out.append(m if pose is None else m.placed(pose.x, pose.y, facing=pose.facing))
    return out


def check_distances(
    verdict: Verdict, unit: Unit, ends: list[Model], limit: float, rule: str, why: str
) -> None:
    """2.1 / 2.5 while moving: each stand's distance moved (its furthest-moving point) <= limit."""
    for start, end in zip(unit.models, ends, strict=True):
        moved = distance_moved(start, end.x, end.y, end.facing)
        verdict.models[start.id] = {"distance_moved": round(moved, 4), "end": pose_dict(end)}
        verdict.check(
            rule=rule,
            stage="while-moving",
            passed=within(moved, limit),
            subject=start.id,
            text=(
                f"{named(start)} moved {fmt(moved)} cm, measured at its furthest-moving point; "
                f"{why} allows {fmt(limit)} cm."
            ),
            measured=moved,
            limit=limit,
        )


def pose_dict(m: Model) -> dict:
    return {"x": round(m.x, 6), "y": round(m.y, 6), "facing": round(m.facing, 6)}


def record_slide(verdict: Verdict, start: Model, end: Model) -> None:
    """The per-stand result of a stand that moved without turning (home back, the moves the
    engine computes, coming back onto the table): the straight distance its centre moved."""
    verdict.models[start.id] = {
        "distance_moved": round(math.hypot(end.x - start.x, end.y - start.y), 4),
        "end": pose_dict(end),
    }


def check_flown_end(
    verdict: Verdict,
    situation: Situation,
    unit: Unit,
    ends: list[Model],
    *,
    may_touch_enemy: bool = False,
    ignore: Iterable[str] = (),
    stage: str = "end-of-move",
    together: bool = True,
    may_leave_table: bool = False,
) -> None:
    """2.2 / 2.5 end of move for flyers: table, terrain, friends, enemies, stands in touch.

    `ignore` lists unit ids whose stands do not count (e.g. friends making way).
    `may_leave_table`: a move that may take the unit over the edge (2.9 "Leaving the table": a
    combat advance or fall back, making way). A stand over the edge is then not refused here:
    the caller, once the move's own rules hold, sends the unit off the table (leaving.py)."""
    b = board(situation)
    ignore = set(ignore) | {unit.id}
    for i, m in enumerate(ends):
        fp = m.footprint
        on_table = b.table.buffer(EPSILON).contains(fp)
        if on_table or not may_leave_table:
            verdict.check(
                rule=RULE_MOVING,
                stage=stage,
                passed=on_table,
                subject=m.id,
                pass_text=f"{named(m)} ends on the table.",
                fail_text=f"{named(m)} would end off the table: [house] a move the player steers "
                "in the Command phase (an order, an initiative charge, a home back, a character's "
                "move) may not take any stand off the table (2.9).",
            )
        bad = forbidden_terrain_under(situation, m)  # a round character by its true circle
        verdict.check(
            rule=RULE_TERRAIN,
            stage=stage,
            passed=not bad,
            subject=m.id,
            pass_text=f"{named(m)} ends clear of woods and of terrain infantry cannot enter.",
            fail_text=f"{named(m)} would end over "
            f"{', '.join(f.id + ' (' + k + ')' for f, k in bad)}; a flyer "
            "may never end a move over woods or in terrain infantry cannot enter.",
        )
        # 2.9: characters in the way are moved aside or displaced (bystanders.py), never block.
        friends_under = sorted(
            {
                o.unit
                for o in b.stands_near(fp)
                if o.unit not in ignore
                and b.counts(o)
                and b.army_of[o.unit] == unit.army
                and stands_overlap(m, o)
            }
        )
        own_under = [o.id for o in ends[:i] if stands_overlap(m, o)]
        # Not even a charge may end on an enemy stand: it ends touching it (2.5).
        enemy_under = sorted(
            {
                f"enemy {named(o.unit)}"
                for o in b.stands_near(fp)
                if b.army_of[o.unit] != unit.army and b.counts(o) and stands_overlap(m, o)
            }
        )
        under = friends_under + own_under + enemy_under
        verdict.check(
            rule=RULE_MOVING,
            stage=stage,
            passed=not under,
            subject=m.id,
            pass_text=f"{named(m)} has room of its own and is not on top of other stands.",
            fail_text=f"{named(m)} would end on top of {', '.join(map(named, under))}; stands need "
            "room on the table, as on the ground.",
        )
        enemies = sorted(
            {
                o.unit
                for o in b.stands_near(fp, 2 * EPSILON)
                if b.army_of[o.unit] != unit.army
                and b.counts(o)
                and fp.distance(o.footprint) <= EPSILON
            }
        )
        if may_touch_enemy:
            continue
        verdict.check(
            rule=RULE_MOVING,
            stage=stage,
            passed=not enemies,
            subject=m.id,
            pass_text=f"{named(m)} ends out of contact with the enemy.",
            fail_text=f"{named(m)} would end touching enemy {', '.join(map(named, enemies))}, "
            "which only a charge may do.",
        )
    if not together:
        return  # the caller judges the formation (a retreat that lost stands, 2.9)
    together = stands_together(ends)
    verdict.check(
        rule="units/formation",
        stage=stage,
        passed=together,
        subject=unit.id,
        pass_text=f"Every stand of {named(unit)} touches another stand of the unit.",
        fail_text=f"The stands of {named(unit)} must each touch another stand of the unit, edge or "
        "corner.",
    )


def touching_enemy_units(situation: Situation, unit: Unit, stands: Iterable[Model]) -> list[str]:
    """Enemy units with a stand touching one of `stands`. 2.9: enemy characters are not units
    and never count (a lone one touched is displaced instead, bystanders.py)."""
    b = board(situation)
    ours = list(stands)
    out = set()
    # Every stand's neighbours within 2 x EPSILON in one query: (stand, neighbour) pairs.
    footprints = np.asarray([m.footprint for m in ours], dtype=object)
    near = b.tree.query(footprints, predicate="dwithin", distance=2 * EPSILON)
    for i, j in near.T:
        m, o = ours[int(i)], b.stands[int(j)]
        if (
            b.army_of[o.unit] != unit.army
            and b.counts(o)
            and m.footprint.distance(o.footprint) <= EPSILON
        ):
            out.add(o.unit)
    return sorted(out)


def engaged(situation: Situation, unit: Unit) -> list[str]:
    """A unit is engaged (in combat) when one of its stands touches an enemy unit's stand (2.9:
    enemy characters do not count)."""
    return touching_enemy_units(situation, unit, unit.models)


def in_combat(situation: Situation, unit: Unit) -> bool:
    """In combat: engaged, or marked so by the scenario (`state.in_combat`: e.g. a unit whose
    enemy has been removed but whose combat is not over this phase; format extension)."""
    return unit.flag("in_combat") or bool(engaged(situation, unit))


def check_out_of_combat(
    verdict: Verdict, situation: Situation, unit: Unit, rule: str, refusal: str
) -> bool:
    """2.4, 2.9: a unit in combat (engaged, or marked `in_combat`) may not make this move;
    `refusal` finishes the sentence that says so."""
    busy = engaged(situation, unit)
    why = f"touching enemy {', '.join(map(named, busy))}" if busy else "marked in combat"
    return verdict.check(
        rule=rule,
        stage="eligible-if",
        passed=not (unit.flag("in_combat") or busy),  # in_combat, without asking engaged again
        subject=unit.id,
        pass_text=f"{named(unit)} is not in combat.",
        fail_text=f"{named(unit)} is {why}{refusal}",
    )


def finish(
    verdict: Verdict,
    situation: Situation,
    ends: Mapping[str, Model] | list[Model],
    state: Mapping[str, Mapping] | None = None,
    removed: Iterable[str] = (),
) -> Verdict:
    """Record the situation after the move when every check passed."""
    if verdict.legal:
        models = ends.values() if isinstance(ends, Mapping) else ends
        poses = {m.id: {"x": m.x, "y": m.y, "facing": m.facing} for m in models}
        verdict.after = situation.moved(poses, state or {}, removed)
    return verdict


def phase_check(verdict: Verdict, situation: Situation, unit: Unit, phase: str, rule: str) -> None:
    """The move belongs to a phase; a scenario that names another phase cannot make it. The
    Command phase is a side's own (2.3, 2.9: "its own side's Command phase"), so only the units of
    the army whose turn it is move in it. A drive back (2.6) is the outcome of shooting the
    players have already resolved (its hits are given): the engine judges where it goes, not
    whose turn the shot was in (docs/rules-coverage.md). In the Combat phase both sides' units
    fight, retreat and pursue."""
    current = situation.turn.phase
    if current is None:
        return
    verdict.check(
        rule=rule,
        stage="eligible-if",
        passed=current == phase,
        subject=unit.id,
        pass_text=f"This move is made in the {phase} phase.",
        fail_text=f"This move is made in the {phase} phase, and the scenario is in the {current} "
        "phase.",
    )
    active = situation.turn.active_army
    if phase == "command" and active is not None and unit.army != active:
        verdict.check(
            rule=rule,
            stage="eligible-if",
            passed=False,
            subject=unit.id,
            text=f"{named(unit)} moves in its own side's Command phase, and this is the other "
            "side's turn.",
        )


def check_engine_placement(
    verdict: Verdict, rule: str, unit: Unit, move: Move, engine_ends: list[Model], what: str
) -> list[Model]:
    """For moves the engine computes (drive back, retreat, pursuit): the stands judged are the
    player's (`move.end`) or else the engine's, and each must lie within PLACEMENT_TOLERANCE of
    the engine's position with the same facing. Returns the stands judged."""
    ends = end_models(unit, move) if move.end is not None else engine_ends
    for engine, hand in zip(engine_ends, ends, strict=True):
        off = math.hypot(engine.x - hand.x, engine.y - hand.y)
        ok = off <= PLACEMENT_TOLERANCE and same_facing(engine.facing, hand.facing, 1e-3)
        record_slide(verdict, unit.model(hand.id), hand)
        verdict.check(
            rule=rule,
            stage="after-moving",
            passed=ok,
            subject=hand.id,
            pass_text=f"{named(hand)} is where {what} puts it.",
            fail_text=f"{named(hand)} should end at ({fmt(engine.x)}, {fmt(engine.y)}) facing "
            f"{fmt(engine.facing)}; it is {fmt(off)} cm away from there.",
            measured=off,
            limit=PLACEMENT_TOLERANCE,
        )
    return ends


def check_on_table(
    verdict: Verdict,
    situation: Situation,
    rule: str,
    unit: Unit,
    ends: list[Model],
    what: str,
    moved: float | None = None,
) -> bool:
    """A computed move that would leave the table is refused: RULES.md does not say what then."""
    table = board(situation).on_table
    on = all(table.contains(m.footprint) for m in ends)
    verdict.check(
        rule=rule,
        stage="while-moving",
        passed=on,
        subject=unit.id,
        pass_text=f"{named(unit)} stays on the table.",
        fail_text=f"{what} takes {named(unit)} off the table edge; Arbiter does not judge that "
        "case, "
        "so settle it by the rulebook.",
        measured=moved,
    )
    return on


def no_end_index(situation: Situation) -> tuple[list, shapely.STRtree | None]:
    """Footprints a flyer may not end over (woods, impassable), indexed once per situation."""
    cache = board(situation).cache
    if "no-end" not in cache:
        polygons = [f.footprint for f, _ in no_flyer_end_terrain(situation)]
        cache["no-end"] = (polygons, shapely.STRtree(polygons) if polygons else None)
    return cache["no-end"]


def engine_may_place(
    situation: Situation, unit: Unit, fp, ignore: Collection[str] = frozenset()
) -> bool:
    """Where the engine itself may put a stand of a flyer it places (home back, escapes): on the
    table, clear of woods and terrain infantry cannot enter, not on another unit's stand, and
    ENEMY_CLEARANCE away from enemy stands (so that it is never touching one). `ignore`: units
    whose stands do not count (characters, which 2.9 moves aside or displaces)."""
    b = board(situation)
    if not b.on_table.contains(fp):
        return False
    # Only stands within 2 x ENEMY_CLEARANCE can be under it or too near it.
    for i in b.tree.query(fp, predicate="dwithin", distance=2 * ENEMY_CLEARANCE):
        o = b.stands[int(i)]
        if o.unit == unit.id or o.unit in ignore:
            continue
        if b.army_of[o.unit] == unit.army:
            if overlaps(fp, o.footprint):
                return False
        elif fp.distance(o.footprint) <= ENEMY_CLEARANCE / 2:
            return False
    polygons, tree = no_end_index(situation)
    return tree is None or not any(overlaps(fp, polygons[int(i)]) for i in tree.query(fp))
