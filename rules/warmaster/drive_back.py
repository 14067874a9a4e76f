"""Drive backs of flyers by shooting (RULES.md 2.6).

How the engine reads 2.6:
- Dice: one D6 per hit (`hits`), one die fewer when the target is defended, two fewer when it is
  fortified (fortified takes precedence). The unit moves the total in cm.
- Direction: straight away from the shooting stand (`shooter`, the closest enemy stand that shot
  at the unit), along the line from that stand's closest point to the closest point of the driven
  unit (2.6, 2.9). The unit moves as a block: no stand turns or changes place in the formation.
- Only infantry and artillery can be defended or fortified (2.9): the declaration is refused for
  any other flyer. Units in combat are not driven back.
- Flyers pass over whatever lies on the way; only where the block would end matters:
  - over woods or terrain infantry cannot enter: it stops in front of that piece, touching it;
  - over friendly stands: if the friends make way (`friends_make_way`) it ends there and the
    friends must step aside (an event names them; the engine does not move them); otherwise it
    halts where it first touches them, and is confused. Only friends free to move make way
    (`free_to_make_way`): one held by a spell or barred from moving this turn halts it too;
  - over or within 1 cm of enemy stands (nearer than 1 cm by more than RULES.md 0's 1e-6): it
    stops 1 cm in front of them (never nearer: `gap_zone`), and is confused; an enemy already
    within 1 cm at the start stops it where it is if the block would come nearer.
  Each stop can uncover another (stopping in front of a wood may leave the block over a friend),
  so the rules are applied until the end position is clear. Only the stops where the block ends
  are reported: a wood or an enemy it would have stopped at, but that a later stop pulled it
  back from, is no stop of this drive back (no finding, no confusion, no D6). The friends that
  make way, or that halted the flyers, are likewise read from that final position: a friend a
  later stop pulled the block back from is neither (no make-way, no confusion).
  Friends in combat cannot make way: the flyers halt 1 cm short of them, confused ([house]:
  "halt as they touch" read as the general rules' 1 cm). Characters never stop the flyers: a
  friendly one is moved aside, a lone enemy one displaced (bystanders.py).
- Any 6 rolled confuses the unit. A total beyond the flyer's full pace (100 cm) destroys it.
- Confusion rolls the players make, reported as `confusion-roll` events, never rolled by the
  engine (2.9): one D6 for a unit that halts in front of impassable terrain or woods (confused on
  a 6); one per unit forced aside for the flyers. Each friend that makes way rolls its own D6
  with its `make-way` move (a ground friend, which has no make-way verdict, here instead).
- Joined characters move with the unit (2.9); a flying one carried into terrain its mount cannot
  be in must leave it (2.8, through 2.9: event `character-must-leave`).
- Driven off the table (any part of a stand over the edge): the unit leaves the table; the
  leave-the-table D6 (-1 per stand lost) is owed and reported (`leave-table-roll`); the unit is
  shown where it left, touching the edge (2.9 "Leaving the table").
`suggest` computes the drive back; `adjudicate` of a hand placement requires each stand within
PLACEMENT_TOLERANCE of the engine's position.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from types import MappingProxyType

import shapely
from shapely.ops import nearest_points

from ..dice import Dice
from ..errors import InvalidInput
from ..geometry import EPSILON, fmt
from ..move import Move, Pose
from ..naming import named
from ..situation import Model, Situation, Unit
from ..verdict import Verdict
from .bystanders import die_with, finish_past_characters
from .flying import (
    FLYER_PACE,
    check_engine_placement,
    check_flown_end,
    check_out_of_combat,
    finish,
    in_combat,
    new_verdict,
    phase_check,
    refuse_ground_unit,
)
from .leaving import leave_the_table
from .stands import block_intervals, board, interval_containing, overlaps, table_limit
from .terrain import no_flyer_end_terrain

RULE = "flying-units/drive-back"
#: 2.6: flyers that would end over enemies stop this far (cm) in front of them.
ENEMY_GAP = 1.0
#: Quarter-circle segments of the 1 cm zone's rounded corners (`gap_zone`).
ZONE_QUAD_SEGS = 128
#: Circumscribing factor for those corners: GEOS splits an arc into a rounded number of equal
#: steps, so one step may span up to 1.5 quanta (as pathfinding.ARC_FACTOR).
ZONE_FACTOR = 1.0 / math.cos(0.75 * math.pi / (2 * ZONE_QUAD_SEGS)) + 1e-9
#: How far along the line (cm) a stop may lie beyond where the block ends and still be the one
#: that halted it: settle steps back 1e-7 cm from each stop, so the stop that ends the move lies
#: that far beyond the end, and every stop a later one pulled the block back from lies further.
STOP_SLACK = 1e-6


@dataclass
class Outcome:
    """The engine's drive back (or retreat): where the block ends and what happened on the way."""

    dice: list[int]
    distance: float
    direction: tuple[float, float]
    travelled: float = 0.0
    stops: list[tuple[str, list[str]]] = field(default_factory=list)  # (what, ids)
    confused_by: list[str] = field(default_factory=list)
    destroyed_by: str | None = None
    make_way: list[str] = field(default_factory=list)
    ends: list[Model] = field(default_factory=list)
    left_table: bool = False


def free_to_make_way(situation: Situation, unit: Unit) -> bool:
    """2.9: only unengaged units free to move make way: not in combat, not held by a spell, and
    not barred from moving this turn (back on the table on a 3-4, whose own make-way move is
    refused, flying.check_may_still_move). [house] Confusion does not stop them."""
    return not (
        in_combat(situation, unit)
        or unit.flag("spell_prevents_movement")
        or unit.flag("may_not_move")
    )


def dice_count(hits: int, defended: bool, fortified: bool) -> int:
    """2.6: one die per hit, one fewer if defended, two fewer if fortified."""
    return max(0, hits - (2 if fortified else 1 if defended else 0))


def direction_away(shooter: Model, unit: Unit) -> tuple[float, float]:
    """2.6 / 2.9: from the shooter's closest point to the closest point of the unit."""
    block = shapely.union_all([m.footprint for m in unit.models])
    p, q = nearest_points(shooter.footprint, block)
    dx, dy = q.x - p.x, q.y - p.y
    length = math.hypot(dx, dy)
    if length <= EPSILON:
        raise InvalidInput(
            "declarations.shooter", "the shooting stand touches the driven unit: it is in combat"
        )
    return dx / length, dy / length


def gap_zone(footprint: shapely.Polygon) -> shapely.Polygon:
    """Where a stand is less than ENEMY_GAP (1 cm) from `footprint`, drawn around it, never
    inside: exact along its straight faces (the mitred buffer), its rounded corners' edges
    outside the true arcs by at most 0.005 % of a cm (the round buffer circumscribed). A block
    stopped on its edge is never nearer than 1 cm (2.6, RULES.md 0)."""
    rounded = footprint.buffer(ENEMY_GAP * ZONE_FACTOR, quad_segs=ZONE_QUAD_SEGS)
    mitred = footprint.buffer(ENEMY_GAP, join_style="mitre", mitre_limit=10.0)
    return rounded.intersection(mitred)


def settle(
    situation: Situation,
    unit: Unit,
    ux: float,
    uy: float,
    distance: float,
    *,
    friends_make_way: bool,
    outcome: Outcome,
) -> None:
    """Move the block `distance` along (ux, uy) and apply 2.6's stops until the end is clear."""
    b = board(situation)
    terrain = no_flyer_end_terrain(situation)
    reach = distance + 1.0
    # Enemies already within 1 cm at the start stop the block only if it comes nearer to them
    # (the shooter it moves away from, or an enemy beside it, does not).
    start_gap = {
        (m.id, o.id): m.footprint.distance(o.footprint)
        for m in unit.models
        for o in b.stands_near(m.footprint, ENEMY_GAP)
        if b.army_of[o.unit] != unit.army and m.footprint.distance(o.footprint) < ENEMY_GAP
    }
    t = distance
    found: list[tuple[str, list[str], float]] = []  # (what, ids, where along the line it stops)
    for _ in range(50):
        block = [m.placed(m.x + ux * t, m.y + uy * t) for m in unit.models]
        stops = []
        over_terrain = [
            f for f, _ in terrain if any(overlaps(m.footprint, f.footprint) for m in block)
        ]
        if over_terrain:
            stops.append(
                ("terrain", [f.id for f in over_terrain], [f.footprint for f in over_terrain])
            )
        friends: dict[str, Model] = {}
        enemies: dict[str, Model] = {}
        held: dict[str, Model] = {}  # friends not free to move, who cannot make way (2.9)
        busy = {}
        for m in block:
            for o in b.stands_near(m.footprint, ENEMY_GAP):
                if o.unit == unit.id or not b.counts(o):
                    continue  # 2.9: characters never stop or confuse the flyers
                if b.army_of[o.unit] == unit.army and in_combat(situation, situation.unit(o.unit)):
                    if m.footprint.distance(o.footprint) < ENEMY_GAP - EPSILON:
                        busy[o.id] = o
                elif b.army_of[o.unit] == unit.army:
                    if overlaps(m.footprint, o.footprint):
                        free = free_to_make_way(situation, situation.unit(o.unit))
                        (friends if free else held)[o.id] = o
                else:
                    gap = m.footprint.distance(o.footprint)
                    before = start_gap.get((m.id, o.id), ENEMY_GAP)
                    if gap < ENEMY_GAP - EPSILON and gap < before - EPSILON:
                        enemies[o.id] = o
        if friends and not friends_make_way:  # friends who make way are settled at the end
            units = sorted({o.unit for o in friends.values()})
            stops.append(("friends", units, [o.footprint for o in friends.values()]))
        if held:
            units = sorted({o.unit for o in held.values()})
            stops.append(("held", units, [o.footprint for o in held.values()]))
        if busy:
            stops.append(
                (
                    "busy",
                    sorted({o.unit for o in busy.values()}),
                    [gap_zone(o.footprint) for o in busy.values()],
                )
            )
        if enemies:
            stops.append(
                (
                    "enemy",
                    sorted({o.unit for o in enemies.values()}),
                    [gap_zone(o.footprint) for o in enemies.values()],
                )
            )
        if not stops:
            break
        new_t = t
        for what, ids, shapes in stops:
            hit = interval_containing(block_intervals(unit.models, ux, uy, reach, shapes), t)
            stop_at = hit[0] if hit else t
            found.append((what, ids, stop_at))
            new_t = min(new_t, stop_at)
        if new_t >= t - 1e-9:  # cannot move back any further
            break
        t = max(0.0, new_t - 1e-7)
    outcome.travelled = t
    # Only the stops the block reaches are its stops: one that a later stop pulled it back
    # from (it halted on friends short of the wood it would have stopped in front of) never
    # happened, so it is neither reported nor confuses, nor owes a D6.
    for what, ids, stop_at in found:
        if stop_at <= t + STOP_SLACK:
            outcome.stops.append((what, ids))
            if what in ("friends", "held", "enemy", "busy"):
                # halting on friends confuses alike, whether they would not or could not move
                outcome.confused_by.append("friends" if what == "held" else what)
    outcome.ends = [m.placed(m.x + ux * t, m.y + uy * t) for m in unit.models]
    _friends_where_it_ends(situation, unit, outcome, friends_make_way)


def _friends_where_it_ends(
    situation: Situation, unit: Unit, outcome: Outcome, friends_make_way: bool
) -> None:
    """2.6 / 2.9: only friends the flyers end over make way, and only friends they end touching
    halted them. A later stop can pull the block back clear of a friend it would first have
    ended over (1 cm short of friends in combat, say): that friend neither makes way nor halts
    it, and owes or causes no confusion."""
    b = board(situation)
    over, touching = set(), set()
    for m in outcome.ends:
        for o in b.stands_near(m.footprint, 2 * EPSILON):
            if o.unit == unit.id or not b.counts(o) or b.army_of[o.unit] != unit.army:
                continue
            if in_combat(situation, situation.unit(o.unit)):
                continue  # friends in combat never make way: the "busy" stop
            if overlaps(m.footprint, o.footprint):
                over.add(o.unit)
            elif m.footprint.distance(o.footprint) <= EPSILON:
                touching.add(o.unit)
    if friends_make_way:
        outcome.make_way = sorted(u for u in over if free_to_make_way(situation, situation.unit(u)))
    kept = []
    for what, ids in outcome.stops:
        if what in ("friends", "held"):
            ids = [i for i in ids if i in touching or i in over]
            if not ids:
                continue
        kept.append((what, ids))
    outcome.stops = kept
    if not any(what in ("friends", "held") for what, _ in kept):
        outcome.confused_by = [c for c in outcome.confused_by if c != "friends"]


def plan_drive_back(situation: Situation, unit: Unit, move: Move, dice: Dice) -> Outcome:
    shooter_id = move.declared("shooter")
    if not shooter_id:
        raise InvalidInput("declarations.shooter", "name the shooting stand (its model id)")
    try:
        shooter = situation.model(shooter_id)
    except InvalidInput:
        raise InvalidInput(
            "declarations.shooter", f"no stand with id {shooter_id!r} in this scenario"
        ) from None
    if situation.unit(shooter.unit).army == unit.army:
        raise InvalidInput(
            "declarations.shooter", f"{named(shooter_id)} is not an enemy stand of {named(unit)}"
        )
    hits = move.declared("hits")
    if hits is None or hits < 1:
        raise InvalidInput("declarations.hits", "a drive back needs the number of hits (1 or more)")
    count = dice_count(hits, bool(move.declared("defended")), bool(move.declared("fortified")))
    rolled = dice.roll(count) if count else []
    ux, uy = direction_away(shooter, unit)
    outcome = Outcome(rolled, float(sum(rolled)), (ux, uy))
    if 6 in rolled:
        outcome.confused_by.append("a 6")
    if outcome.distance > FLYER_PACE + EPSILON:
        outcome.destroyed_by = "pace"
        outcome.ends = list(unit.models)
        return outcome
    b = board(situation)
    edge = table_limit(b.table, [m.footprint for m in unit.models], ux, uy)
    if outcome.distance > edge + EPSILON:
        # 2.9: any part of a stand crossing the edge takes the whole unit off the table
        outcome.left_table = True
        outcome.travelled = edge
        outcome.ends = [m.placed(m.x + ux * edge, m.y + uy * edge) for m in unit.models]
        return outcome
    settle(
        situation,
        unit,
        ux,
        uy,
        outcome.distance,
        friends_make_way=bool(move.declared("friends_make_way")),
        outcome=outcome,
    )
    return outcome


def suggest_drive_back(situation: Situation, move: Move) -> Move:
    unit = situation.unit(move.unit)
    dice = Dice(move.dice, move.seed)
    outcome = plan_drive_back(situation, unit, move, dice)
    poses = {m.id: Pose(m.x, m.y, None, m.facing) for m in outcome.ends}
    return replace(move, end=MappingProxyType(poses), seed=move.seed if move.dice else dice.seed)


STOP_TEXT = {
    "terrain": "it would have ended over {ids}, so it stops in front of it",
    "friends": "it would have ended on friends ({ids}) who do not make way, so it halts where it "
    "touches them and is confused",
    "enemy": "it would have ended over or next to enemy {ids}, so it stops 1 cm in front of "
    "them and "
    "is confused",
    "held": "it would have ended on friends ({ids}) who are not free to move, so cannot make "
    "way (2.9): it halts where it touches them and is confused",
    "busy": "it would have ended over or next to friends in combat ({ids}), who cannot make way, "
    "so it halts 1 cm short of them and is confused [house: 1 cm]",
}


def adjudicate_drive_back(situation: Situation, move: Move) -> Verdict:
    """2.6: judge a flyer's drive back (the engine's or a hand placement)."""
    unit = situation.unit(move.unit)
    verdict = new_verdict(move, max_distance=None)
    if not refuse_ground_unit(verdict, unit):
        return verdict
    phase_check(verdict, situation, unit, "shooting", RULE)
    check_out_of_combat(verdict, situation, unit, RULE, "; units in combat are not driven back.")
    for declared in ("defended", "fortified"):
        if move.declared(declared):
            may = unit.has("INFANTRY") or unit.has("ARTILLERY")
            verdict.check(
                rule=RULE,
                stage="eligible-if",
                passed=may,
                subject=unit.id,
                pass_text=f"{named(unit)} is infantry or artillery, so it can be {declared}.",
                fail_text=f"Only infantry and artillery stands can be {declared}, and "
                f"{named(unit)} is "
                "neither: it rolls every drive-back die.",
            )
    if not verdict.legal:
        return verdict
    dice = Dice(move.dice, move.seed)
    outcome = plan_drive_back(situation, unit, move, dice)
    dice.finish()
    verdict.move.update(max_distance=outcome.distance, **dice.summary())
    shooter = move.declared("shooter")
    rolled = " + ".join(map(str, outcome.dice)) or "no dice"
    fewer = (
        " (fortified: two fewer)"
        if move.declared("fortified")
        else " (defended: one fewer)"
        if move.declared("defended")
        else ""
    )
    verdict.check(
        rule=RULE,
        stage="before-moving",
        passed=True,
        subject=unit.id,
        text=(
            f"{len(outcome.dice)} dice for {move.declared('hits')} hit(s)"
            f"{fewer}"
            f": {rolled} = {fmt(outcome.distance)} cm, straight away from {named(shooter)}."
        ),
        measured=outcome.distance,
        limit=FLYER_PACE,
    )
    if outcome.destroyed_by:
        verdict.check(
            rule=RULE,
            stage="after-moving",
            passed=True,
            subject=unit.id,
            text=(
                f"Driven back {fmt(outcome.distance)} cm, more than its full pace of "
                f"{fmt(FLYER_PACE)} cm: "
                f"{named(unit)} is destroyed."
            ),
            measured=outcome.distance,
            limit=FLYER_PACE,
        )
        verdict.events.append({"event": "destroyed", "unit": unit.id})
        gone = [m.id for m in unit.models] + die_with(verdict, situation, unit)
        return finish(verdict, situation, [], {}, gone)
    for what, ids in outcome.stops:
        verdict.check(
            rule=RULE,
            stage="while-moving",
            passed=True,
            subject=unit.id,
            text=(
                f"{named(unit)} flies over what lies in its way, but "
                + STOP_TEXT[what].format(ids=", ".join(map(named, ids)))
                + "."
            ),
        )
    if outcome.left_table:
        return _left_table(verdict, situation, unit, move, outcome)
    ends = check_engine_placement(verdict, RULE, unit, move, outcome.ends, "the drive back")
    check_flown_end(verdict, situation, unit, ends, ignore=outcome.make_way, stage="end-of-move")
    if outcome.make_way:
        verdict.events.append({"event": "make-way", "unit": unit.id, "friends": outcome.make_way})
    _confusion_rolls(verdict, situation, unit, outcome)
    state = {}
    if outcome.confused_by:
        verdict.events.append(
            {"event": "confused", "unit": unit.id, "because": sorted(set(outcome.confused_by))}
        )
        verdict.check(
            rule=RULE,
            stage="after-moving",
            passed=True,
            subject=unit.id,
            text=f"{named(unit)} is confused ({', '.join(sorted(set(outcome.confused_by)))}).",
        )
        state = {unit.id: {"confused": True}}
    return finish_past_characters(verdict, situation, unit, ends, state, with_joined=True)


def confusion_roll(unit_id: str, dice: int, because: str) -> dict:
    """A confusion roll the players make (2.9): `dice` D6, confused on any 6."""
    return {"event": "confusion-roll", "unit": unit_id, "dice": f"{dice}D6", "because": because}


def _confusion_rolls(verdict: Verdict, situation: Situation, unit: Unit, outcome: Outcome) -> None:
    """2.9: the separate confusion D6s owed, reported for the players to roll."""
    if any(what == "terrain" for what, _ in outcome.stops):
        verdict.events.append(confusion_roll(unit.id, 1, "halted in front of terrain"))
        verdict.check(
            rule=RULE,
            stage="after-moving",
            passed=True,
            subject=unit.id,
            text=(
                f"{named(unit)} halted in front of terrain it may not end over: roll a separate "
                "D6 for "
                "it, confused on a 6 (not one of the drive-back dice)."
            ),
        )
    if outcome.make_way:
        made_way_rolls(verdict, situation, unit, outcome.make_way, RULE)


def made_way_rolls(
    verdict: Verdict, situation: Situation, unit: Unit, friends: list[str], rule: str
) -> None:
    """2.9 "Confusion and making way": the confusion D6s owed when `friends` made way for `unit`,
    each reported once, in the verdict of the move where the player rolls it. `unit` rolls one D6
    per unit it forced aside, here. A flying friend rolls its own D6 with its `make-way` move; a
    ground friend has no make-way verdict (the engine judges flyers only), so its D6 is reported
    here."""
    judged = [f for f in friends if situation.unit(f).has("FLYING")]
    ground = [f for f in friends if f not in judged]
    for friend in ground:
        verdict.events.append(confusion_roll(friend, 1, f"made way for {named(unit)}"))
    verdict.events.append(confusion_roll(unit.id, len(friends), "forced friends to make way"))
    text = (
        f"{', '.join(map(named, friends))} made way: {named(unit)} rolls {len(friends)} D6 (one "
        "per unit it "
        "forced aside) and is confused on any 6."
    )
    if judged:
        text += (
            f" {', '.join(map(named, judged))}: each rolls its own D6 (confused on a 6) with its "
            "make-way "
            "move, not here."
        )
    if ground:
        text += (
            f" {', '.join(map(named, ground))}: each rolls a D6 too, confused on a 6 (reported "
            "here, as "
            "Arbiter does not judge a ground unit's make-way move)."
        )
    verdict.check(rule=rule, stage="after-moving", passed=True, subject=unit.id, text=text)


def _left_table(
    verdict: Verdict, situation: Situation, unit: Unit, move: Move, outcome: Outcome
) -> Verdict:
    """2.9 "Leaving the table": the unit leaves where the drive back reaches the edge. A 6
    among the dice confuses it all the same (2.6): back at once, back unable to move, or off
    the table until it rolls to return; only a unit the D6 destroys is beyond it."""
    how = (
        f"The drive back of {fmt(outcome.distance)} cm takes {named(unit)} over the table edge "
        f"after {fmt(outcome.travelled)} cm"
    )
    confused = {unit.id: {"confused": True}} if outcome.confused_by else None
    verdict = leave_the_table(
        verdict,
        situation,
        unit,
        move,
        how,
        outcome.ends,
        measured=outcome.distance,
        limit=outcome.travelled,
        state=confused,
    )
    left = next(e for e in verdict.events if e["event"] == "leave-table-roll")
    if confused and left.get("outcome") != "destroyed":
        verdict.check(
            rule=RULE,
            stage="after-moving",
            passed=True,
            subject=unit.id,
            text=f"{named(unit)} is confused (a 6 among the drive-back dice), whatever the D6 "
            "to leave the table brings.",
        )
        verdict.events.append({"event": "confused", "unit": unit.id, "because": ["a 6"]})
    return verdict
