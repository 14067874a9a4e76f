"""Home back (RULES.md 2.4): a flyer far from its characters flies back toward one of them.

How the engine reads 2.4:
- Eligible: a flying unit (not a character), not touching an enemy, not held by a spell, more than
  20 cm from every friendly character (measured from the positions given: the scenario is taken to
  be the start of the Command phase). A confused unit may home back. Once a phase, and not after
  the unit has taken orders (state `homed_back`, `orders_this_phase`): orders come after home back.
  Nor once any unit of the army has had an order roll or any friendly character has made its own
  move (command.check_before_orders, 2.9).
- The 1D6 roll comes first (x 10 cm), then the player names the character (`home_back_to`).
- The stand nearest the character ("the first stand") flies straight toward the character stand
  along the line joining their closest points. If the roll is greater than the gap, it ends in
  touch with the character; otherwise it flies the full roll. When the end is not allowed
  (stands, units, terrain), it goes as far along that line as it can.
- The rest of the unit goes around that first stand: the engine keeps the unit's formation
  when it can, otherwise it puts each stand in touch with one already placed (side by side,
  behind, in front or corner to corner) as near as it can to where the formation would have put
  it. No stand turns, none ends nearer the character than the first, and every stand ends where
  a flyer may end.
- Judging a placement made by hand: the first stand must have moved along that straight line (off
  it by at most PLACEMENT_TOLERANCE) no further than allowed, and end no further from the
  character than the engine's own placement by more than PLACEMENT_TOLERANCE; the "none nearer"
  rule also allows PLACEMENT_TOLERANCE, because hands cannot place stands exactly level.
- After: a unit that ends within 20 cm of a friendly character may be ordered this phase, unless it
  is confused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from types import MappingProxyType

import numpy as np
import shapely
from shapely.geometry import LineString, Point, Polygon, box
from shapely.ops import nearest_points

from .. import budget
from ..dice import Dice
from ..errors import InvalidInput
from ..geometry import EPSILON, fmt
from ..move import Move, Pose
from ..naming import named
from ..situation import Model, Situation, Unit
from ..systems import Offer
from ..verdict import Verdict
from .bystanders import finish_past_characters
from .command import character_of, check_before_orders
from .flying import (
    COMMAND_RANGE,
    PLACEMENT_TOLERANCE,
    check_flown_end,
    check_may_still_move,
    check_out_of_combat,
    end_models,
    engine_may_place,
    new_verdict,
    no_end_index,
    phase_check,
    record_slide,
    refuse_ground_unit,
)
from .stands import (
    ENEMY_CLEARANCE,
    TOUCH,
    board,
    convex_pieces,
    free_contacts,
    is_character,
    merge_intervals,
    overlaps,
    same_facing,
    shape_offsets,
    stand_distance,
    stands_together,
    swept_hull,
    table_limit,
    touching_pieces,
    touching_regions,
    unit_distance,
)

RULE = "flying-units/home-back"
HOME_BACK_CM_PER_PIP = 10.0
#: How much smaller (cm) the first stand is swept, so that touching is not taken for blocking.
CORE = 1e-5
#: The character's region grown by the least gap is a polygon of ARC_SEGMENTS a quarter circle,
#: inscribed in the true rounded region; growing it by 1 / ARC_CHORD more makes it circumscribed,
#: so a spot found outside it is truly no nearer the character than the first stand.
ARC_SEGMENTS = 64
ARC_CHORD = math.cos(math.pi / (4 * ARC_SEGMENTS))
#: How far (cm) inside a stretch where the second stand has room the search starts (far
#: below PLACEMENT_TOLERANCE): at its very end the room is a single point.
ROOM_MARGIN = 1e-6
#: When the first stand's furthest allowed spot leaves no room for the others, it steps back
#: toward its start by this much and tries again (well inside the placement tolerance).
STEP_BACK = 0.05


def friendly_characters(situation: Situation, unit: Unit) -> list[Unit]:
    return [u for u in situation.friends_of(unit) if is_character(u)]


def home_back_offer(situation: Situation, unit_id: str, dice: Dice, declarations) -> Offer:
    """2.4, for the stepper after the roll: the friendly characters the flyer may home back to,
    each with its distance, and the roll (1D6 x 10 cm) the choice is made on."""
    unit = situation.unit(unit_id)
    (roll,) = dice.roll(1)
    dice.finish()
    reach = roll * HOME_BACK_CM_PER_PIP
    choices = tuple(
        (c.id, f"{named(c)}, {fmt(unit_distance(c.models, unit.models))} cm away")
        for c in friendly_characters(situation, unit)
    )
    return Offer(
        choices,
        f"Home back roll: {roll} x 10 = {fmt(reach)} cm",
        f"{named(unit)} has no friendly character to home back to.",
    )


def eligibility(verdict: Verdict, situation: Situation, unit: Unit) -> bool:
    """2.4 eligible-if: flyer, not a character, unengaged, no spell, > 20 cm from characters."""
    if not refuse_ground_unit(verdict, unit):
        return False
    phase_check(verdict, situation, unit, "command", RULE)
    check_may_still_move(verdict, unit)
    verdict.check(
        rule=RULE,
        stage="eligible-if",
        passed=not is_character(unit),
        subject=unit.id,
        pass_text="Home back is for flying units.",
        fail_text=f"{named(unit)} is a character; characters do not home back.",
    )
    check_out_of_combat(verdict, situation, unit, RULE, "; a unit in combat cannot home back.")
    spell = unit.flag("spell_prevents_movement")
    verdict.check(
        rule=RULE,
        stage="eligible-if",
        passed=not spell,
        subject=unit.id,
        pass_text="No spell stops this unit moving.",
        fail_text=f"A spell prevents {named(unit)} from moving, so it cannot home back.",
    )
    # 2.9: home back comes after initiative and before any order roll of the army, once a phase.
    check_before_orders(verdict, situation, unit, RULE)
    earlier = int(unit.state.get("orders_this_phase", 0) or 0)
    for done, text in (
        (unit.flag("homed_back"), f"{named(unit)} has already homed back this phase."),
        (
            earlier > 0,
            f"{named(unit)} has already taken orders this phase; home back comes before orders.",
        ),
    ):
        if done:
            verdict.check(rule=RULE, stage="eligible-if", passed=False, subject=unit.id, text=text)
    chars = friendly_characters(situation, unit)
    if not chars:
        verdict.check(
            rule=RULE,
            stage="eligible-if",
            passed=False,
            subject=unit.id,
            text=f"{named(unit)} has no friendly character to home back to.",
        )
    else:
        nearest = min(unit_distance(c.models, unit.models) for c in chars)
        far = nearest > COMMAND_RANGE + EPSILON
        verdict.check(
            rule=RULE,
            stage="eligible-if",
            passed=far,
            subject=unit.id,
            pass_text=f"{named(unit)} is {fmt(nearest)} cm from its nearest character, more than "
            f"{fmt(COMMAND_RANGE)} cm, so it may home back.",
            fail_text=f"{named(unit)} is {fmt(nearest)} cm from a character, "
            f"within {fmt(COMMAND_RANGE)} cm, so it cannot home back.",
            measured=nearest,
            limit=COMMAND_RANGE,
        )
    if unit.flag("confused"):
        verdict.check(
            rule=RULE,
            stage="eligible-if",
            passed=True,
            subject=unit.id,
            text=f"{named(unit)} is confused; a confused flyer may still home back.",
        )
    return verdict.legal


@dataclass(frozen=True)
class Plan:
    """The engine's home back for one roll and one character."""

    character: Unit
    char_stand: Model
    distance: float  # roll x 10 cm
    gap: float  # unit to character at the start
    first: Model  # the stand nearest the character at the start
    direction: tuple[float, float]
    wanted: float  # how far the first stand should fly (to touch, or the full roll)
    travelled: float  # how far it could fly
    ends: tuple[Model, ...] | None  # the placement, or None if none was found


def plan_home_back(situation: Situation, unit: Unit, character: Unit, roll: int) -> Plan:
    """Compute the engine's placement (2.4)."""
    distance = roll * HOME_BACK_CM_PER_PIP
    char_stand = min(character.models, key=lambda c: unit_distance([c], unit.models))
    first = min(unit.models, key=lambda m: stand_distance(m, char_stand))
    gap, (ux, uy) = _line_to(first, char_stand)
    wanted = gap if distance > gap else distance
    ctx = _Context(situation, unit, char_stand)
    # Positions of the first stand along the line where it cannot end (open intervals).
    # Swept a little beyond `wanted`, so an obstacle that ends exactly there is told apart from
    # one the stand would still be inside.
    reach = swept_hull(first.footprint, ux * (wanted + 1), uy * (wanted + 1))
    blocked = _blocked_stretches(first, ux, uy, wanted + 1, ctx.obstacles_near(reach))
    top = min(wanted, ctx.table_limit(first, ux, uy))
    room = None  # worked out only when the unit does not fit at the furthest spot

    def down_to(t: float) -> float:
        """The largest t' <= t where the first stand may end (and, once `room` is known, has
        room beside it), or -1."""
        while t >= -EPSILON:
            nearer = _step_out(blocked, t)
            nearer = nearer if room is None else _inside(room, nearer)
            if nearer >= t - 1e-12:
                return max(t, 0.0)
            t = nearer
        return -1.0

    t = down_to(top)
    ends = ctx.place(first, ux * t, uy * t) if t >= 0.0 else None
    if ends is None and t > 0.0:
        room = ctx.room_beside(first, ux, uy, t)
        t = down_to(t)
        while t >= 0.0:
            ends = ctx.place(first, ux * t, uy * t)
            if ends is not None or t == 0.0:
                break
            t = down_to(t - STEP_BACK)
    return Plan(
        character,
        char_stand,
        distance,
        gap,
        first,
        (ux, uy),
        wanted,
        t if ends is not None else 0.0,
        tuple(ends) if ends else None,
    )


def _line_to(first: Model, char_stand: Model) -> tuple[float, tuple[float, float]]:
    """2.4: the gap from the first stand to the character's stand and the unit vector of the
    straight line joining their closest points ((0, 0) when they touch). A round character is
    taken by its true circle (RULES.md 0): its closest point lies on the line from the stand's
    closest point to its centre, where the polygon drawn round the circle would turn the line by
    up to a twentieth of a degree (0.016 cm sideways over a 20 cm flight)."""
    if char_stand.base.kind == "round":
        centre = Point(char_stand.x, char_stand.y)
        p, _ = nearest_points(first.footprint, centre)
        reach = p.distance(centre)
        gap = max(0.0, reach - char_stand.base.radius)
        q = (centre.x, centre.y)
    else:
        p, end = nearest_points(first.footprint, char_stand.footprint)
        gap = reach = p.distance(end)
        q = (end.x, end.y)
    if gap <= EPSILON:
        return gap, (0.0, 0.0)
    return gap, ((q[0] - p.x) / reach, (q[1] - p.y) / reach)


def _blocked_stretches(
    first: Model, ux: float, uy: float, t_max: float, obstacles: list
) -> list[tuple[float, float]]:
    """The stretches of t in [0, t_max] where the first stand moved by t * (ux, uy) is on an
    obstacle, merged. Exact (stands.touching_regions): for each convex piece of an obstacle,
    the line meets the region where the stand touches or overlaps it in one segment. The stand
    made a hair (CORE) smaller meets it in a shorter one, or none when the stand only slides
    along the piece's edge, which is allowed; a stretch runs from where the true stand first
    touches the piece to where the smaller one leaves it."""
    if not obstacles or t_max <= EPSILON or (ux, uy) == (0.0, 0.0):
        return []
    core = first.footprint.buffer(-CORE, join_style="mitre")
    path = LineString([(0.0, 0.0), (ux * t_max, uy * t_max)])
    start = Point(0.0, 0.0)
    pieces = convex_pieces(obstacles)
    spans = []
    for shape in (first.footprint, core):
        corners = np.asarray(shape.exterior.coords[:-1])
        met = shapely.intersection(path, touching_pieces(pieces, corners))
        near = shapely.distance(start, met)
        spans.append((near, near + shapely.length(met), shapely.is_empty(met)))
    (outer, _, _), (_, inner_end, missed) = spans
    return merge_intervals(
        (float(a), float(min(b, t_max)))
        for a, b, gone in zip(outer, inner_end, missed, strict=True)
        if not gone
    )


def _inside(intervals: list[tuple[float, float]], t: float) -> float:
    """The largest t' <= t inside one of the (closed, sorted) intervals, or -1 if none."""
    best = -1.0
    for a, b in intervals:
        if a - 1e-9 <= t <= b + 1e-9:
            return t
        if b < t:
            best = b
    return best


def _step_out(blocked: list[tuple[float, float]], t: float) -> float:
    """The largest t' <= t not strictly inside a blocked interval (touching ends are allowed)."""
    for a, b in blocked:
        if a + 1e-9 < t < b - 1e-9:
            return a
    return t


class _Context:
    """What a placement may not touch or cover, for one unit homing back."""

    def __init__(self, situation: Situation, unit: Unit, char_stand: Model):
        self.situation = situation
        self.unit = unit
        self.char_fp = char_stand.footprint
        self.board = board(situation)
        self.terrain, self.terrain_tree = no_end_index(situation)
        # 2.9: characters are not units; any but the one flown to is moved aside (a friend) or
        # displaced (a lone enemy) where the unit ends, so none stops the placement.
        self.passed_over = (self.board.characters - {char_stand.unit}) | {unit.id}
        # The centres where a stand touches the character, by stand shape, and those nearer it
        # than a gap, by shape and gap: the search asks again for each stand placed round the
        # first and at each spot the first is tried at.
        self._on_character: dict[bytes, Polygon] = {}
        self._others: dict[str, list[Model]] = {}
        self._near_character: dict[tuple[bytes, float], Polygon] = {}

    def in_the_way(self, region, margin: float = 0.0) -> tuple[list[Polygon], list[Polygon]]:
        """Near `region`: what a stand of the unit may not end on (its army's other stands, the
        character flown to, terrain a flyer may not end over), and the enemy stands it must
        keep clear of. Other characters are passed over (2.9)."""
        friends: list[Polygon] = []
        enemies: list[Polygon] = []
        for o in self.board.stands_near(region, margin):
            if o.unit in self.passed_over:
                continue
            (friends if self.board.army_of[o.unit] == self.unit.army else enemies).append(
                o.footprint
            )
        if self.terrain_tree is not None:
            friends.extend(self.terrain[int(i)] for i in self.terrain_tree.query(region))
        return friends, enemies

    def obstacles_near(self, region) -> list:
        friends, enemies = self.in_the_way(region, 2 * ENEMY_CLEARANCE)
        return friends + [e.buffer(ENEMY_CLEARANCE, join_style="mitre") for e in enemies]

    def room_beside(
        self, first: Model, ux: float, uy: float, t_max: float
    ) -> list[tuple[float, float]] | None:
        """The t in [0, t_max] at which, with the first stand moved t along (ux, uy), some spot
        touching it is on the table and off other units' stands, enemies and terrain a flyer may
        not end over: another stand of the unit must touch the first, so only there can the
        unit be placed (a necessary condition: the search steps over the rest). Exact: each
        edge of the ring of touching centres sweeps a parallelogram; its free part, mapped back
        to (position along the edge, t), spans the t at which that edge has a free spot. None
        when the unit is one stand or its stands differ in shape or facing."""
        offsets = shape_offsets(first)
        others = [shape_offsets(m) for m in self.unit.models if m.id != first.id]
        if not others or any(
            other.shape != offsets.shape
            or not np.all(np.abs(other - offsets) <= 1e-8 + 1e-5 * np.abs(offsets))  # allclose
            for other in others
        ):
            return None
        (ring,) = touching_regions([first.footprint], offsets)
        swept = swept_hull(ring, ux * t_max, uy * t_max)
        area = swept.buffer(2 * float(np.abs(offsets).max()) + 2 * ENEMY_CLEARANCE)
        friends, enemies = self.in_the_way(area)
        on, clear = convex_pieces(friends), convex_pieces(enemies)
        grow = np.repeat([-TOUCH, ENEMY_CLEARANCE / 2 - TOUCH], [len(on), len(clear)])
        taken = shapely.union_all(  # both kinds of region in one go, each as on its own
            shapely.buffer(touching_pieces(on + clear, offsets), grow, join_style="mitre")
        )
        x0, y0, x1, y1 = self.board.table.bounds
        free = box(
            x0 - EPSILON - offsets[:, 0].min(),
            y0 - EPSILON - offsets[:, 1].min(),
            x1 + EPSILON - offsets[:, 0].max(),
            y1 + EPSILON - offsets[:, 1].max(),
        ).difference(taken)
        spans = []
        corners = list(ring.exterior.coords)
        for (ax, ay), (bx, by) in zip(corners, corners[1:], strict=False):
            ex, ey = bx - ax, by - ay
            across = ex * uy - ey * ux
            if abs(across) <= 1e-12:  # the edge lies along the move: a stretch of one line
                length = ex * ux + ey * uy
                if length < 0:
                    ax, ay, length = bx, by, -length
                line = LineString(
                    [(ax, ay), (ax + ux * (length + t_max), ay + uy * (length + t_max))]
                )
                for piece in shapely.get_parts(line.intersection(free)):
                    ts = [(px - ax) * ux + (py - ay) * uy for px, py in piece.coords]
                    spans.append((max(0.0, min(ts) - length), min(t_max, max(ts))))
                continue
            sweep = Polygon(
                [
                    (ax, ay),
                    (bx, by),
                    (bx + ux * t_max, by + uy * t_max),
                    (ax + ux * t_max, ay + uy * t_max),
                ]
            )
            for piece in shapely.get_parts(sweep.intersection(free)):
                if piece.is_empty:
                    continue
                ts = [
                    ((px - ax) * ey - (py - ay) * ex) / -across
                    for px, py in shapely.get_coordinates(piece)
                ]
                spans.append((max(0.0, min(ts)), min(t_max, max(ts))))
        # An end of a stretch is a spot where the second stand only just fits: a hair inside
        # it (ROOM_MARGIN), the search round the first stand still finds that spot.
        return [
            (a, b - ROOM_MARGIN) if b - a > 2 * ROOM_MARGIN else ((a + b) / 2,) * 2
            for a, b in merge_intervals(spans)
        ]

    def table_limit(self, stand: Model, ux: float, uy: float) -> float:
        """How far the stand can move along (ux, uy) and stay on the table."""
        return table_limit(self.board.table, [stand.footprint], ux, uy)

    def allowed(self, fp, placed: list, min_gap: float) -> bool:
        """May a stand of the homing unit end with this footprint? Besides where any flyer may
        end: not on a stand of its own already placed, and no nearer the character than the
        first stand (`min_gap`)."""
        budget.check("placing the stands homing back")
        return (
            fp.distance(self.char_fp) >= min_gap - EPSILON
            and not any(overlaps(fp, other) for other in placed)
            and engine_may_place(self.situation, self.unit, fp, self.passed_over)
        )

    def place(self, first: Model, dx: float, dy: float) -> list[Model] | None:
        """Place the first stand moved by (dx, dy) and the others around it, or None."""
        first_end = first.placed(first.x + dx, first.y + dy)
        fp = first_end.footprint
        if not self.allowed(fp, [], 0.0):
            return None
        min_gap = fp.distance(self.char_fp)
        placed = {first.id: first_end}
        others = self.others(first)
        # Keep the formation when every stand can simply move with the first.
        kept = {m.id: m.placed(m.x + dx, m.y + dy) for m in others}
        fps = [fp]
        fits = 0  # how many of the others, in order, may end where the formation puts them
        while fits < len(others) and self.allowed(kept[others[fits].id].footprint, fps, min_gap):
            fps.append(kept[others[fits].id].footprint)
            fits += 1
        if fits == len(others):
            placed.update(kept)
            return [placed[m.id] for m in self.unit.models]
        for i, m in enumerate(others):
            ideal = kept[m.id]
            fps = [p.footprint for p in placed.values()]
            best: Model | None = ideal
            # While the stands before it are where the formation put them, the check above has
            # already answered for it: allowed before the `fits`-th stand, not at it.
            as_kept = i <= fits and all(placed[o.id] is kept[o.id] for o in others[:i])
            ok = i < fits if as_kept else self.allowed(ideal.footprint, fps, min_gap)
            if not ok or all(ideal.footprint.distance(p) > EPSILON for p in fps):
                best = self.nearest_touching(m, fps, (ideal.x, ideal.y), min_gap)
            if best is None:
                return None
            placed[m.id] = best
        ends = [placed[m.id] for m in self.unit.models]
        return ends if stands_together(ends) else None

    def others(self, first: Model) -> list[Model]:
        """The unit's other stands, nearest the first stand (where they start) first: the order
        they are placed in, the same at every spot the first is tried at."""
        if first.id not in self._others:
            self._others[first.id] = sorted(
                (m for m in self.unit.models if m.id != first.id),
                key=lambda m: m.footprint.distance(first.footprint),
            )
        return self._others[first.id]

    def nearest_touching(
        self, m: Model, placed: list, toward: tuple[float, float], min_gap: float
    ) -> Model | None:
        """The spot nearest `toward` where stand `m` (keeping its facing) touches a stand already
        placed and may end (`allowed`), or None. Exact, not sampled (stands.free_contacts): the
        other units' stands and the terrain it may not end over are kept off, enemies by
        ENEMY_CLEARANCE, and the character's region is grown by `min_gap` (no stand nearer the
        character than the first); the spot taken is checked once more by `allowed`."""
        offsets = shape_offsets(m)
        bounds = shapely.bounds(placed)  # shapely.total_bounds, without its slow NaN guard
        (x0, y0), (x1, y1) = bounds[:, :2].min(axis=0), bounds[:, 2:].max(axis=0)
        reach = 2 * float(np.abs(offsets).max()) + 2 * ENEMY_CLEARANCE
        friends, enemies = self.in_the_way(box(x0 - reach, y0 - reach, x1 + reach, y1 + reach))
        friends = list(placed) + friends
        spots = free_contacts(
            m,
            placed,
            toward,
            table=self.board.table,
            not_on=friends,
            clear_of=enemies,
            clearance=ENEMY_CLEARANCE / 2,
            forbidden=[self.near_character(offsets, min_gap)],
        )
        for x, y in spots:
            cand = m.placed(x, y)
            if self.allowed(cand.footprint, placed, min_gap):
                return cand
        return None

    def near_character(self, offsets: np.ndarray, min_gap: float) -> Polygon:
        """The centres where a stand (corners at `offsets` from its centre) would end nearer
        the character flown to than `min_gap` (2.4: none nearer than the first stand), or on it
        when `min_gap` is 0. Worked out once for each stand shape and gap of the search."""
        shape = offsets.tobytes()
        key = (shape, min_gap)
        if key not in self._near_character:
            near = min_gap - EPSILON
            if shape not in self._on_character:
                (self._on_character[shape],) = touching_regions([self.char_fp], offsets)
            character = self._on_character[shape]
            self._near_character[key] = (
                character.buffer(near / ARC_CHORD, quad_segs=ARC_SEGMENTS)
                if near > 0
                else character.buffer(-TOUCH, join_style="mitre")
            )
        return self._near_character[key]


# -- the move rule -----------------------------------------------------------------------------


def _roll_and_character(verdict: Verdict, situation: Situation, unit: Unit, move: Move, dice: Dice):
    (roll,) = dice.roll(1)
    verdict.move.update(dice.summary())
    character = character_of(situation, move, "home_back_to")
    ok = is_character(character) and character.army == unit.army
    verdict.check(
        rule=RULE,
        stage="before-moving",
        passed=ok,
        subject=character.id,
        pass_text=f"{named(unit)} rolled {roll}: it may home back up to "
        f"{fmt(roll * HOME_BACK_CM_PER_PIP)} cm toward {named(character)}.",
        fail_text=f"{named(character)} is not a friendly character, "
        f"so {named(unit)} cannot home back to it.",
        measured=roll * HOME_BACK_CM_PER_PIP,
        limit=None,
    )
    verdict.move["max_distance"] = roll * HOME_BACK_CM_PER_PIP
    verdict.move["target"] = character.id
    return roll, character, ok


def suggest_home_back(situation: Situation, move: Move) -> Move:
    """The engine's placement: the move with `end` filled in (and the seed of any server roll)."""
    unit = situation.unit(move.unit)
    dice = Dice(move.dice, move.seed)
    probe = new_verdict(move)
    if not eligibility(probe, situation, unit):
        poses = {}
    else:
        roll, character, ok = _roll_and_character(probe, situation, unit, move, dice)
        plan = plan_home_back(situation, unit, character, roll) if ok else None
        ends = plan.ends if plan and plan.ends else unit.models
        poses = {m.id: Pose(m.x, m.y, None, m.facing) for m in ends}
    return replace(move, end=MappingProxyType(poses), seed=move.seed if move.dice else dice.seed)


def adjudicate_home_back(situation: Situation, move: Move) -> Verdict:
    """2.4: judge a home back placement (the engine's or one made by hand)."""
    unit = situation.unit(move.unit)
    verdict = new_verdict(move)
    if not eligibility(verdict, situation, unit):
        return verdict
    dice = Dice(move.dice, move.seed)
    roll, character, ok = _roll_and_character(verdict, situation, unit, move, dice)
    dice.finish()
    if not ok:
        return verdict
    if move.end is None:
        raise InvalidInput("end", "a home back to judge needs the stands' end positions")
    plan = plan_home_back(situation, unit, character, roll)
    ends = end_models(unit, move)
    tol = PLACEMENT_TOLERANCE
    char_fp = plan.char_stand.footprint
    for start, end in zip(unit.models, ends, strict=True):
        record_slide(verdict, start, end)
        turned = not same_facing(start.facing, end.facing, 1e-3)
        verdict.check(
            rule=RULE,
            stage="while-moving",
            passed=not turned,
            subject=start.id,
            pass_text=f"{named(start)} keeps its facing.",
            fail_text=f"{named(start)} turned from {fmt(start.facing)} to {fmt(end.facing)} "
            "degrees; no stand may change its orientation when homing back.",
        )
    # The first stand flies straight toward the character.
    first_end = next(e for e in ends if e.id == plan.first.id)
    dx, dy = first_end.x - plan.first.x, first_end.y - plan.first.y
    ux, uy = plan.direction
    along = dx * ux + dy * uy
    aside = abs(dx * uy - dy * ux) if (ux, uy) != (0.0, 0.0) else math.hypot(dx, dy)
    straight = aside <= tol and along >= -tol
    verdict.check(
        rule=RULE,
        stage="while-moving",
        passed=straight,
        subject=plan.first.id,
        pass_text=f"{named(plan.first)}, the stand nearest {named(character)}, flies straight "
        "toward it.",
        fail_text=f"{named(plan.first)}, the stand nearest {named(character)}, must fly straight "
        "toward "
        f"it; it ends {fmt(aside)} cm off that line.",
        measured=aside,
        limit=tol,
    )
    flew = f"{named(plan.first)} flew {fmt(max(along, 0))} cm toward {named(character)}"
    allowed = f"{fmt(plan.wanted)} cm ({_how_far(plan)})"
    # The limit reported is the one judged, the placement tolerance included (as for the end
    # below): a passed finding never shows a measurement beyond its limit.
    verdict.check(
        rule=RULE,
        stage="while-moving",
        passed=along <= plan.wanted + tol,
        subject=plan.first.id,
        pass_text=f"{flew}; it may fly {allowed}.",
        fail_text=f"{flew}, further than the {allowed} it may fly.",
        measured=along,
        limit=plan.wanted + tol,
    )
    check_flown_end(verdict, situation, unit, ends)
    first_gap = first_end.footprint.distance(char_fp)
    for end in ends:
        if end.id == plan.first.id:
            continue
        gap = end.footprint.distance(char_fp)
        verdict.check(
            rule=RULE,
            stage="after-moving",
            passed=gap >= first_gap - tol,
            subject=end.id,
            pass_text=f"{named(end)} is no nearer {named(character)} than {named(plan.first)}.",
            fail_text=f"{named(end)} ends {fmt(gap)} cm from {named(character)}, nearer than the "
            "first "
            f"stand ({fmt(first_gap)} cm); no stand may end nearer than the first.",
            measured=gap,
            limit=max(first_gap - tol, 0.0),  # the least gap judged, the tolerance included
        )
    best = (
        plan.ends[[m.id for m in plan.ends].index(plan.first.id)].footprint.distance(char_fp)
        if plan.ends
        else plan.gap - plan.wanted
    )
    close = first_gap <= best + tol
    if plan.distance > plan.gap:
        goal = (
            f"The roll ({fmt(plan.distance)} cm) is more than the gap ({fmt(plan.gap)} cm), "
            f"so the unit flies into touch with {named(character)}"
        )
    else:
        goal = (
            f"The roll ({fmt(plan.distance)} cm) is not more than the gap ({fmt(plan.gap)} cm), "
            "so the unit flies the full distance rolled"
        )
    blocked = plan.ends is not None and plan.travelled < plan.wanted - tol
    if blocked:
        goal += (
            f", but stands or terrain where it would land stop it: it goes as far as it can, "
            f"{fmt(plan.travelled)} cm"
        )
    verdict.check(
        rule=RULE,
        stage="after-moving",
        passed=close,
        subject=unit.id,
        pass_text=f"{goal}. It ends {fmt(first_gap)} cm from {named(character)}.",
        fail_text=f"{goal}. It ends {fmt(first_gap)} cm from {named(character)}, "
        f"but it could end {fmt(best)} cm away.",
        measured=first_gap,
        limit=best + tol,
    )
    if verdict.legal:  # what a home back allows follows only one that is made
        _after(verdict, situation, unit, ends)
    return finish_past_characters(verdict, situation, unit, ends, {unit.id: {"homed_back": True}})


def _how_far(plan: Plan) -> str:
    """2.4: a roll greater than the gap takes the unit into touch; otherwise the full roll."""
    return "into touch" if plan.distance > plan.gap else "the full roll"


def _after(verdict: Verdict, situation: Situation, unit: Unit, ends: list[Model]) -> None:
    """2.4 after: within 20 cm of a character, an unconfused unit may be ordered this phase."""
    chars = friendly_characters(situation, unit)
    near = min((unit_distance(c.models, ends) for c in chars), default=math.inf)
    if unit.flag("confused"):
        verdict.check(
            rule=RULE,
            stage="after-moving",
            passed=True,
            subject=unit.id,
            text=f"{named(unit)} homed back while confused, so it cannot be given orders this "
            "phase.",
        )
        return
    if near <= COMMAND_RANGE + EPSILON:
        verdict.check(
            rule=RULE,
            stage="after-moving",
            passed=True,
            subject=unit.id,
            text=(
                f"{named(unit)} ends {fmt(near)} cm from a character, within {fmt(COMMAND_RANGE)} "
                "cm, so "
                "it may be given orders this phase."
            ),
            measured=near,
            limit=COMMAND_RANGE,
        )
        verdict.events.append({"event": "may-be-ordered", "unit": unit.id})
    else:
        verdict.check(
            rule=RULE,
            stage="after-moving",
            passed=True,
            subject=unit.id,
            text=(
                f"{named(unit)} ends {fmt(near)} cm from its nearest character, beyond "
                f"{fmt(COMMAND_RANGE)} cm, so it cannot be given orders this phase."
            ),
            # no limit: the move is legal (passed) and the gap only out of command range, which
            # a limit it breaks on a passed finding would misread
            measured=near,
        )


def home_back_eligibility(situation: Situation, unit_id: str, declarations: dict) -> list:
    verdict = Verdict(move={})
    eligibility(verdict, situation, situation.unit(unit_id))
    return verdict.findings
