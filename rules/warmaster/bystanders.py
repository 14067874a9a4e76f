"""Characters in the way of a move (RULES.md 2.9, "Characters are not units").

A character stand (General, Wizard, Hero) never blocks, halts or confuses a moving unit:
- a friendly character that a friendly move crosses or ends on is moved aside by its owner, the
  least distance needed ([house] if there is no room nearby: the nearest spot clear of stands and
  of terrain it cannot enter). The engine reports `character-moved-aside` with where it goes;
- a lone enemy character touched by a moving stand (flown moves: only where the move ends) moves
  at once up to 30 cm into touch with a friendly unit of its owner's choice, or is slain. The
  engine offers the nearest such spot (`character-displaced` with `to` and `distance`), or
  reports `slain` when none is within 30 cm. A character on foot goes round impassable terrain
  and enemy units: the engine only finds straight routes, so when none is clear it reports the
  displacement without a spot and says the owner places it (never "slain" on that ground).
The searches find the free stretches of the ring of touching positions exactly
(stands.free_contacts), so the spot offered is the nearest one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import shapely
from shapely.geometry import box

from .. import budget
from ..geometry import EPSILON, fmt
from ..naming import named
from ..situation import Model, Situation, Unit
from ..verdict import Verdict
from .flying import finish
from .stands import board, free_contacts, overlaps, stand_distance, stands_overlap, swept_hull
from .terrain import forbidden_terrain_under, kind_of, no_flyer_end_terrain

RULE = "general/characters"
#: 2.8: characters on flying mounts.
RULE_MOUNTS = "flying-units/characters"
#: 2.8 / 2.9: how far a displaced or escaping character may go (never more, mount or not).
DISPLACE_DISTANCE = 30.0


def barred_terrain_under(situation: Situation, character: Unit, where) -> list:
    """The pieces under `where` (a stand, or a footprint) the character cannot be in: for a
    flying mount the flyers' rule (woods, terrain infantry cannot enter, 2.5); on foot only
    terrain nobody enters (2.2). A round character stand is judged by its true circle
    (terrain.in_piece)."""
    bad = forbidden_terrain_under(situation, where)
    if character.has("FLYING"):
        return [f for f, _ in bad]
    return [f for f, kind in bad if kind == "impassable"]


def cannot_enter(situation: Situation, character: Unit, stand: Model) -> bool:
    """The character's own stand would be (even partly) in terrain it cannot be in."""
    return bool(barred_terrain_under(situation, character, stand))


def wholly_in_barred_terrain(situation: Situation, character: Unit, footprint) -> bool:
    """2.8: a stand of a unit stands in terrain the character cannot enter only when all of it
    does (no more than a sliver outside, as `overlaps` ignores a sliver): a stand whose rear edge
    dips into a wood still has a clear side for the character to stand against."""
    bad = barred_terrain_under(situation, character, footprint)
    if not bad:
        return False
    outside = footprint.difference(shapely.union_all([f.footprint for f in bad]))
    return outside.is_empty or outside.area <= EPSILON


def may_join(
    situation: Situation, character: Unit, host: Unit, stands: Sequence[Model] | None = None
) -> bool:
    """2.8: a character cannot join a unit whose stands all stand wholly in terrain it cannot
    enter (RULES.md 2.8; the character's own spot, touching a stand, is checked on its own).
    `stands`: the unit's stands where a move leaves them (default: where they stand)."""
    return not all(
        wholly_in_barred_terrain(situation, character, m.footprint)
        for m in (host.models if stands is None else stands)
    )


def _route_clear(situation: Situation, character: Unit, start: Model, end: Model, crossing):
    """A straight route on foot: no impassable terrain, no enemy unit but `crossing`."""
    if character.has("FLYING"):
        return True
    region = swept_hull(start.footprint, end.x - start.x, end.y - start.y)
    b = board(situation)
    for o in b.stands_near(region):
        if b.army_of[o.unit] != character.army and o.unit not in crossing and b.counts(o):
            if overlaps(region, o.footprint):
                return False
    for f in situation.terrain:
        if kind_of(situation, f) == "impassable" and overlaps(region, f.footprint):
            return False
    return True


def nearest_join(
    situation: Situation,
    character: Unit,
    *,
    away_from: Iterable[str] = (),
    crossing: Iterable[str] = (),
    ignore: Iterable[str] = (),
    limit: float = DISPLACE_DISTANCE,
    straight_route: bool = True,
    movers: Sequence[Model] = (),
) -> Model | None:
    """The character's nearest spot, within `limit`, touching a friendly unit it may join (not
    one in `away_from`), clear of other stands and of terrain it cannot be in; None if none.
    `ignore`: unit ids whose stands do not count as in the way (the mover's old place).
    `movers`: the mover's stands where its move ends, which the board does not hold yet: the
    spot is off them and, when they are the character's enemies, not touching them (a lone
    character displaced by an enemy move goes round the stand that touched it, 2.9)."""
    stand = character.models[0]
    away_from, crossing, ignore = set(away_from), set(crossing), set(ignore)
    b = board(situation)
    best, best_cost = None, math.inf
    for host in situation.friends_of(character):
        if (
            host.id in away_from
            or host.id in b.characters
            or not may_join(situation, character, host)
        ):
            continue
        for anchor in host.models:
            if anchor.footprint.distance(stand.footprint) > min(limit, best_cost) + EPSILON:
                continue
            for x, y in _free_contacts(
                situation, character, [anchor], ignore, movers, true_touch=True
            ):
                cost = math.hypot(x - stand.x, y - stand.y)
                if cost > min(limit, best_cost) + EPSILON:
                    break
                cand = stand.placed(x, y)
                if _free(situation, character, cand, ignore, movers) and (
                    not straight_route
                    or _route_clear(situation, character, stand, cand, crossing | {host.id})
                ):
                    best, best_cost = cand, cost
                    break
    return best


def _free_contacts(
    situation: Situation,
    character: Unit,
    anchors: list[Model],
    ignore: set,
    also_clear_of: Sequence[Model] = (),
    *,
    true_touch: bool = False,
) -> list[tuple[float, float]]:
    """Centres where the character's stand touches one of `anchors`, is off every stand (but
    its own and those of `ignore`) and every stand of `also_clear_of`, off terrain it cannot be
    in and not touching an enemy (`also_clear_of` included): nearest to where it stands first.
    Exact (stands.free_contacts; with `true_touch`, a round base touches with its circle, as
    joining a unit needs); the caller checks the spot it takes with `_free`."""
    b = board(situation)
    stand = character.models[0]
    x0, y0, x1, y1 = shapely.total_bounds([a.footprint for a in anchors])
    # Stands that can meet the character on a touching spot: within its outline's reach twice
    # over (the outline, not the base's radius: a round base is drawn as a circumscribed
    # polygon, so a stand just beyond twice the radius still meets it)
    sx0, sy0, sx1, sy1 = stand.footprint.bounds
    reach = math.hypot(sx1 - sx0, sy1 - sy0) + 4 * EPSILON if stand.base.kind == "round" else 10.0
    around = box(x0 - reach, y0 - reach, x1 + reach, y1 + reach)
    stands = [o for o in b.stands_near(around) if o.unit != character.id and o.unit not in ignore]
    flying = character.has("FLYING")
    terrain = [
        f.footprint
        for f, kind in no_flyer_end_terrain(situation)
        if (flying or kind == "impassable") and f.footprint.intersects(around)
    ]
    return free_contacts(
        stand,
        [a.footprint for a in anchors],
        (stand.x, stand.y),
        table=b.table,
        not_on=[o.footprint for o in [*anchors, *stands, *also_clear_of]] + terrain,
        clear_of=[
            o.footprint for o in [*stands, *also_clear_of] if b.army_of[o.unit] != character.army
        ],
        clearance=EPSILON,
        true_touch=true_touch,
    )


def _free(
    situation: Situation, character: Unit, cand: Model, ignore: set, movers: Sequence[Model] = ()
) -> bool:
    """May the character stand at `cand`: on the table, out of terrain it cannot be in, off
    every stand (but those of `ignore`; `movers` too: a move's end stands, not on the board
    yet) and not touching an enemy."""
    budget.check("searching for a place to stand")
    b = board(situation)
    fp = cand.footprint
    if not b.table.buffer(EPSILON).contains(fp) or cannot_enter(situation, character, cand):
        return False
    for o in b.stands_near(fp, 2 * EPSILON):
        if o.unit == character.id or o.unit in ignore:
            continue
        if stands_overlap(cand, o):
            return False
        if b.army_of[o.unit] != character.army and fp.distance(o.footprint) <= EPSILON:
            return False  # not into touch with an enemy
    for o in movers:
        if stands_overlap(cand, o) or (
            b.army_of[o.unit] != character.army and stand_distance(cand, o) <= EPSILON
        ):
            return False
    return True


def nearest_clear(situation: Situation, character: Unit, blockers: list[Model]) -> Model | None:
    """[house] The nearest spot clear of every stand (the movers' end stands `blockers`
    included) and of terrain the character cannot be in: on the rings round the blockers
    (exact, `_free_contacts`)."""
    stand = character.models[0]
    ignore = {m.unit for m in blockers}
    for x, y in _free_contacts(situation, character, blockers, ignore, blockers):
        cand = stand.placed(x, y)
        if not any(stands_overlap(cand, o) for o in blockers) and _free(
            situation, character, cand, ignore
        ):
            return cand
    return None


def characters_in_the_way(
    verdict: Verdict,
    situation: Situation,
    unit: Unit,
    ends: list[Model],
    *,
    touched_on_the_way: Iterable[str] = (),
    skip: Iterable[str] = (),
) -> tuple[dict[str, Model], list[str]]:
    """2.9: the characters the move's end stands are on (friends) or touch (lone enemies), and
    where each goes. Adds a finding and an event for each; returns (new poses by model id, ids
    of slain character units) for the situation after the move."""
    b = board(situation)
    moved: dict[str, Model] = {}
    slain: list[str] = []
    hit = set(touched_on_the_way)
    for m in ends:
        for o in b.stands_near(m.footprint, 2 * EPSILON):
            if o.unit in b.characters and o.unit != unit.id and o.unit not in skip:
                if b.army_of[o.unit] == unit.army and stands_overlap(m, o):
                    hit.add(o.unit)
                # touching (RULES.md 0) measured from the character's true circle
                elif b.army_of[o.unit] != unit.army and stand_distance(m, o) <= EPSILON:
                    hit.add(o.unit)
    for char_id in sorted(hit):
        character = situation.unit(char_id)
        if character.army == unit.army:
            spot = nearest_clear(situation, character, ends)
            _moved_aside(verdict, unit, character, spot, moved)
        elif not character.state.get("joined"):
            _displaced(verdict, situation, unit, ends, character, moved, slain)
    return moved, slain


def joined_characters(situation: Situation, unit: Unit) -> list[Unit]:
    """The friendly characters that have joined `unit` (their state `joined` names it)."""
    return [c for c in situation.friends_of(unit) if c.state.get("joined") == unit.id]


def carry_joined(situation: Situation, unit: Unit, ends: list[Model]) -> list[Model]:
    """2.9: in the Shooting and Combat phases joined characters move with their unit. Each
    character stand keeps its place beside the unit: it moves as the unit's stand nearest to it
    moved ([house] where the unit's stands do not all move alike)."""
    moved = {m.id: m for m in ends}
    out = []
    for character in joined_characters(situation, unit):
        for c in character.models:
            near = min(unit.models, key=lambda m: m.footprint.distance(c.footprint))
            if near.id in moved:
                to = moved[near.id]
                out.append(c.placed(c.x + to.x - near.x, c.y + to.y - near.y))
    return out


def die_with(verdict: Verdict, situation: Situation, unit: Unit) -> list[str]:
    """2.9: joined characters die with their unit. Adds a `slain` event for each; returns the
    model ids to remove."""
    gone = []
    for joined in joined_characters(situation, unit):
        verdict.events.append(
            {"event": "slain", "unit": joined.id, "general": joined.has("GENERAL")}
        )
        gone += [m.id for m in joined.models]
    return gone


def moved_aside_event(char_id: str, to: dict | None) -> dict:
    return {"event": "character-moved-aside", "unit": char_id, "to": to}


def _moved_aside(verdict, unit, character, spot, moved) -> None:
    stand = character.models[0]
    if spot is None:
        text = (
            f"{named(unit)} may pass over and end on its own character {named(character)}; the "
            "owner "
            "moves the character aside to the nearest clear spot (Arbiter found none nearby, "
            "so place it by hand)."
        )
        verdict.events.append(moved_aside_event(character.id, None))
    else:
        gap = math.hypot(spot.x - stand.x, spot.y - stand.y)
        text = (
            f"{named(unit)} may pass over and end on its own character {named(character)}: "
            "characters "
            f"never block a move. The owner moves {named(character)} {fmt(gap)} cm aside, to "
            f"({fmt(spot.x)}, {fmt(spot.y)}); {named(unit)} is not halted or confused."
        )
        moved[stand.id] = spot
        verdict.events.append(
            {
                "event": "character-moved-aside",
                "unit": character.id,
                "to": {"x": round(spot.x, 4), "y": round(spot.y, 4)},
                "distance": round(gap, 4),
            }
        )
    verdict.check(
        rule=RULE,
        stage="after-moving",
        passed=True,
        subject=character.id,
        text=text + " [house where no room]",
    )


def _displaced(verdict, situation, unit, ends, character, moved, slain) -> None:
    """2.9: a lone enemy character the move's end stands `ends` touch moves up to 30 cm into
    touch with a friendly unit (going round those stands: it may not end on or touching them),
    or is slain."""
    stand = character.models[0]
    spot = nearest_join(situation, character, crossing={unit.id}, ignore={unit.id}, movers=ends)
    if spot is not None:
        gap = math.hypot(spot.x - stand.x, spot.y - stand.y)
        moved[stand.id] = spot
        verdict.check(
            rule=RULE,
            stage="after-moving",
            passed=True,
            subject=character.id,
            text=(
                f"{named(unit)} touches the lone enemy character {named(character)}, which is "
                "not a "
                "unit: it "
                f"must move at once up to {fmt(DISPLACE_DISTANCE)} cm to join a friendly unit. The "
                f"nearest place is {fmt(gap)} cm away, at ({fmt(spot.x)}, {fmt(spot.y)}); its "
                "owner "
                "may choose another unit within reach. The move stays legal."
            ),
            measured=gap,
            limit=DISPLACE_DISTANCE,
        )
        verdict.events.append(
            {
                "event": "character-displaced",
                "unit": character.id,
                "to": {"x": round(spot.x, 4), "y": round(spot.y, 4)},
                "distance": round(gap, 4),
            }
        )
        return
    hop = None
    if not character.has("FLYING"):
        # On foot the route may bend round obstacles, which the engine does not search: if a
        # hop would reach a unit, the owner places the character; it is not ruled slain.
        hop = nearest_join(
            situation, character, ignore={unit.id}, straight_route=False, movers=ends
        )
    if hop is not None:
        verdict.check(
            rule=RULE,
            stage="after-moving",
            passed=True,
            subject=character.id,
            text=(
                f"{named(unit)} touches the lone enemy character {named(character)}: it must "
                "move up to "
                f"{fmt(DISPLACE_DISTANCE)} cm round impassable terrain and enemy units to join a "
                "friendly unit. Arbiter finds no straight route, so its owner places it (or, if no "
                "route of 30 cm exists, it is slain)."
            ),
        )
        verdict.events.append({"event": "character-displaced", "unit": stand.unit, "to": None})
        return
    general = character.has("GENERAL")
    verdict.check(
        rule=RULE,
        stage="after-moving",
        passed=True,
        subject=character.id,
        text=(
            f"{named(unit)} touches the lone enemy character {named(character)}, and no friendly "
            "unit it "
            f"could join is within {fmt(DISPLACE_DISTANCE)} cm: it is slain"
            + (" (a General: the battle is over)." if general else ".")
        ),
    )
    slain.append(character.id)
    verdict.events.append({"event": "slain", "unit": stand.unit, "general": general})


def characters_must_leave(
    verdict: Verdict, situation: Situation, unit: Unit, ends: list[Model]
) -> None:
    """2.8: a flying character with this unit leaves it if the unit ends where it could not join
    it (every stand wholly in terrain the character cannot enter, may_join), or if the
    character itself, carried as the surviving stand nearest to it moves ([house], 2.9), would
    end in such terrain: either way it is cut off from the unit where it may not be.

    2.8 names the Combat phase's moves (retreat, fall back, pursuit, advance); 2.9 has joined
    characters move with their unit in the Shooting phase too and hands a mount that cannot
    follow to 2.8, so every move that carries joined characters (a drive back, a making way)
    asks this, through finish_past_characters.
    `unit`: the stands that survive the move (a retreat's blocked stands are gone)."""
    if not verdict.legal:
        return  # a refused move ends nowhere: no character has to leave
    carried = {c.unit: c for c in carry_joined(situation, unit, ends)}
    for other in situation.friends_of(unit):
        if other.state.get("joined") != unit.id or not other.has("FLYING"):
            continue
        if not may_join(situation, other, unit, ends):
            bad = {f.id for m in ends for f in barred_terrain_under(situation, other, m.footprint)}
            text = (
                f"Every stand of {named(unit)} ends wholly in {', '.join(sorted(bad))}, "
                f"where {named(other)} cannot be: the character must fly up to 30 cm to "
                "another friendly unit or be slain."
            )
        elif other.id in carried and cannot_enter(situation, other, carried[other.id]):
            spot = carried[other.id]
            bad = {f.id for f in barred_terrain_under(situation, other, spot)}
            text = (
                f"Moving with {named(unit)}, {named(other)} would end at ({fmt(spot.x)}, "
                f"{fmt(spot.y)}) in {', '.join(sorted(bad))}, where its flying mount cannot be: "
                "the character must fly up to 30 cm to another friendly unit or be slain."
            )
        else:
            continue
        verdict.check(
            rule=RULE_MOUNTS, stage="after-moving", passed=True, subject=other.id, text=text
        )
        verdict.events.append({"event": "character-must-leave", "unit": other.id, "from": unit.id})


def finish_past_characters(
    verdict: Verdict,
    situation: Situation,
    unit: Unit,
    ends: list[Model],
    state=None,
    removed: Iterable[str] = (),
    touched_on_the_way: Iterable[str] = (),
    *,
    with_joined: bool = False,
) -> Verdict:
    """`finish` for a move whose end stands may meet characters: they are moved aside or
    displaced (or slain) as 2.9 says, in the findings, the events and the situation after.

    `with_joined`: a Shooting or Combat phase move, which the unit's joined characters make with
    it (2.9; one whose mount cannot follow must leave, characters_must_leave); in the Command
    phase they stay where they are."""
    if not verdict.legal:
        # a refused move moves nothing: no character is moved aside, displaced or slain by it
        # (a lone enemy General "slain" by a refused charge would end the battle in the log)
        return verdict
    if with_joined:
        characters_must_leave(verdict, situation, unit, ends)
    carried = carry_joined(situation, unit, ends) if with_joined else []
    for c in carried:
        verdict.check(
            rule=RULE,
            stage="after-moving",
            passed=True,
            subject=c.id,
            text=f"{named(c)} has joined {named(unit)} and moves with it ([house]: as the stand "
            "nearest "
            f"to it moves), to ({fmt(c.x)}, {fmt(c.y)}).",
        )
    moved, slain = characters_in_the_way(
        verdict,
        situation,
        unit,
        ends,
        touched_on_the_way=touched_on_the_way,
        skip={c.id for c in joined_characters(situation, unit)} if with_joined else (),
    )
    gone = list(removed) + [m.id for c in slain for m in situation.unit(c).models]
    return finish(verdict, situation, [*ends, *carried, *moved.values()], state, gone)


__all__ = [
    "carry_joined",
    "characters_must_leave",
    "die_with",
    "joined_characters",
    "finish_past_characters",
    "characters_in_the_way",
    "nearest_join",
    "may_join",
    "wholly_in_barred_terrain",
    "DISPLACE_DISTANCE",
]
