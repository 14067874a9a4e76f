"""Home back (RULES.md 2.4): a flyer far from its characters flies back toward one of them.

How the engine reads 2.4:
- Eligible: a flying unit (not a character), not touching an enemy, not held by a spell, more than
  20 cm from every friendly character (measured from the positions given: the scenario is taken to
  be the start of the Command phase). A confused unit may home back. Once a phase, and not after
  the unit has taken orders (state `homed_back`, `orders_this_phase`): orders come after home back.
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

from shapely.ops import nearest_points

from .. import budget
from ..dice import Dice
from ..errors import InvalidInput
from ..geometry import EPSILON, fmt
from ..move import Move, Pose
from ..situation import Model, Situation, Unit
from ..verdict import Verdict
from .command import character_of, check_before_orders
from .flying import (
    COMMAND_RANGE,
    PLACEMENT_TOLERANCE,
    check_flown_end,
    end_models,
    engaged,
    engine_may_place,
    finish,
    new_verdict,
    no_end_index,
    phase_check,
    pose_dict,
    refuse_ground_unit,
)
from .stands import (
    ENEMY_CLEARANCE,
    board,
    contact_centres,
    interval_containing,
    is_character,
    merge_intervals,
    overlaps,
    same_facing,
    stands_together,
    sweep_intervals,
    swept_hull,
    table_limit,
    unit_distance,
)

RULE = "flying-units/home-back"
HOME_BACK_CM_PER_PIP = 10.0
#: How much smaller (cm) the first stand is swept, so that touching is not taken for blocking.
CORE = 1e-5
#: Spacing (cm) of the spots tried round a stand already placed: below PLACEMENT_TOLERANCE.
SEARCH_STEP = 0.05
#: When the first stand's furthest allowed spot leaves no room for the others, it steps back
#: toward its start by this much and tries again (well inside the placement tolerance).
STEP_BACK = 0.05


def friendly_characters(situation: Situation, unit: Unit) -> list[Unit]:
    return [u for u in situation.friends_of(unit) if is_character(u)]


def eligibility(verdict: Verdict, situation: Situation, unit: Unit) -> bool:
    """2.4 eligible-if: flyer, not a character, unengaged, no spell, > 20 cm from characters."""
    if not refuse_ground_unit(verdict, unit):
        return False
    phase_check(verdict, situation, unit, "command", RULE)
    verdict.check(
        rule=RULE,
        stage="eligible-if",
        passed=not is_character(unit),
        subject=unit.id,
        text="Home back is for flying units."
        if not is_character(unit)
        else f"{unit.id} is a character; characters do not home back.",
    )
    busy = engaged(situation, unit)
    verdict.check(
        rule=RULE,
        stage="eligible-if",
        passed=not busy,
        subject=unit.id,
        text=f"{unit.id} is not in combat."
        if not busy
        else f"{unit.id} is touching enemy {', '.join(busy)}; a unit in combat cannot home back.",
    )
    spell = unit.flag("spell_prevents_movement")
    verdict.check(
        rule=RULE,
        stage="eligible-if",
        passed=not spell,
        subject=unit.id,
        text="No spell stops this unit moving."
        if not spell
        else f"A spell prevents {unit.id} from moving, so it cannot home back.",
    )
    # 2.9: home back comes after initiative and before any order roll of the army, once a phase.
    check_before_orders(verdict, situation, unit, RULE)
    earlier = int(unit.state.get("orders_this_phase", 0) or 0)
    for done, text in (
        (unit.flag("homed_back"), f"{unit.id} has already homed back this phase."),
        (
            earlier > 0,
            f"{unit.id} has already taken orders this phase; home back comes before orders.",
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
            text=f"{unit.id} has no friendly character to home back to.",
        )
    else:
        nearest = min(unit_distance(c.models, unit.models) for c in chars)
        far = nearest > COMMAND_RANGE + EPSILON
        verdict.check(
            rule=RULE,
            stage="eligible-if",
            passed=far,
            subject=unit.id,
            text=f"{unit.id} is {fmt(nearest)} cm from its nearest character, more than "
            f"{fmt(COMMAND_RANGE)} cm, so it may home back."
            if far
            else f"{unit.id} is {fmt(nearest)} cm from a character, "
            f"within {fmt(COMMAND_RANGE)} cm, "
            "so it cannot home back.",
            measured=nearest,
            limit=COMMAND_RANGE,
        )
    if unit.flag("confused"):
        verdict.check(
            rule=RULE,
            stage="eligible-if",
            passed=True,
            subject=unit.id,
            text=f"{unit.id} is confused; a confused flyer may still home back.",
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
    target = char_stand.footprint
    first = min(unit.models, key=lambda m: m.footprint.distance(target))
    p, q = nearest_points(first.footprint, target)
    gap = p.distance(q)
    if gap <= EPSILON:
        ux, uy = 0.0, 0.0
    else:
        ux, uy = (q.x - p.x) / gap, (q.y - p.y) / gap
    wanted = gap if distance > gap else distance
    ctx = _Context(situation, unit, char_stand)
    # Positions of the first stand along the line where it cannot end (open intervals).
    # Swept a little beyond `wanted`, so an obstacle that ends exactly there is told apart from
    # one the stand would still be inside.
    reach = swept_hull(first.footprint, ux * (wanted + 1), uy * (wanted + 1))
    # Swept a hair smaller, so sliding along a friend's edge (touching, which is allowed) is not
    # taken for running into it; the stop is then put that hair back (CORE) before the contact.
    core = first.footprint.buffer(-CORE, join_style="mitre")
    blocked = []
    for obstacle in ctx.obstacles_near(reach):
        full = sweep_intervals(first.footprint, ux, uy, wanted + 1, [obstacle])
        for a, b in sweep_intervals(core, ux, uy, wanted + 1, [obstacle]):
            # the blocked stretch starts where the true stand first touches this obstacle
            outer = interval_containing(full, a)
            blocked.append((outer[0] if outer else a, b))
    blocked = merge_intervals(blocked)
    t = min(wanted, ctx.table_limit(first, ux, uy))
    t = _step_out(blocked, t)
    ends = None
    while t >= -EPSILON:
        t = max(t, 0.0)
        ends = ctx.place(first, ux * t, uy * t)
        if ends is not None or t == 0.0:
            break
        t = _step_out(blocked, t - STEP_BACK)
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

    def obstacles_near(self, region) -> list:
        out = []
        for o in self.board.stands_near(region, 2 * ENEMY_CLEARANCE):
            if o.unit == self.unit.id:
                continue
            if self.board.army_of[o.unit] == self.unit.army:
                out.append(o.footprint)
            else:
                out.append(o.footprint.buffer(ENEMY_CLEARANCE, join_style="mitre"))
        if self.terrain_tree is not None:
            out.extend(self.terrain[int(i)] for i in self.terrain_tree.query(region))
        return out

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
            and engine_may_place(self.situation, self.unit, fp)
        )

    def place(self, first: Model, dx: float, dy: float) -> list[Model] | None:
        """Place the first stand moved by (dx, dy) and the others around it, or None."""
        first_end = first.placed(first.x + dx, first.y + dy)
        fp = first_end.footprint
        if not self.allowed(fp, [], 0.0):
            return None
        min_gap = fp.distance(self.char_fp)
        placed = {first.id: first_end}
        others = sorted(
            (m for m in self.unit.models if m.id != first.id),
            key=lambda m: m.footprint.distance(first.footprint),
        )
        # Keep the formation when every stand can simply move with the first.
        kept = {m.id: m.placed(m.x + dx, m.y + dy) for m in others}
        fps = [fp]
        if all(self._ok_in_order(kept[m.id], fps, min_gap) for m in others):
            placed.update(kept)
            return [placed[m.id] for m in self.unit.models]
        placed = {first.id: first_end}
        for m in others:
            ideal = kept[m.id]
            best = None
            if self.allowed(
                ideal.footprint, [p.footprint for p in placed.values()], min_gap
            ) and any(ideal.footprint.distance(p.footprint) <= EPSILON for p in placed.values()):
                best = ideal
            else:
                # every spot touching a stand already placed (the rings sampled every
                # SEARCH_STEP, so the nearest free spot is found to within it), nearest first
                best_cost = math.inf
                fps = [p.footprint for p in placed.values()]
                for anchor in placed.values():
                    for x, y in contact_centres(
                        anchor.footprint, m, (ideal.x, ideal.y), SEARCH_STEP
                    ):
                        cost = math.hypot(x - ideal.x, y - ideal.y)
                        if cost >= best_cost:
                            break
                        cand = m.placed(x, y)
                        if self.allowed(cand.footprint, fps, min_gap):
                            best, best_cost = cand, cost
                            break
            if best is None:
                return None
            placed[m.id] = best
        ends = [placed[m.id] for m in self.unit.models]
        return ends if stands_together(ends) else None

    def _ok_in_order(self, m: Model, fps: list, min_gap: float) -> bool:
        if not self.allowed(m.footprint, fps, min_gap):
            return False
        fps.append(m.footprint)
        return True


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
        text=f"{unit.id} rolled {roll}: it may home back up to "
        f"{fmt(roll * HOME_BACK_CM_PER_PIP)} cm "
        f"toward {character.id}."
        if ok
        else f"{character.id} is not a friendly character, so {unit.id} cannot home back to it.",
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
        verdict.models[start.id] = {
            "distance_moved": round(math.hypot(end.x - start.x, end.y - start.y), 4),
            "end": pose_dict(end),
        }
        turned = not same_facing(start.facing, end.facing, 1e-3)
        verdict.check(
            rule=RULE,
            stage="while-moving",
            passed=not turned,
            subject=start.id,
            text=f"{start.id} keeps its facing."
            if not turned
            else f"{start.id} turned from {fmt(start.facing)} to {fmt(end.facing)} degrees; "
            "no stand may "
            "change its orientation when homing back.",
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
        text=f"{plan.first.id}, the stand nearest {character.id}, flies straight toward it."
        if straight
        else f"{plan.first.id}, the stand nearest {character.id}, must fly straight toward it; "
        "it ends "
        f"{fmt(aside)} cm off that line.",
        measured=aside,
        limit=tol,
    )
    verdict.check(
        rule=RULE,
        stage="while-moving",
        passed=along <= plan.wanted + tol,
        subject=plan.first.id,
        text=(
            f"{plan.first.id} flew {fmt(max(along, 0))} cm toward {character.id}; it may fly "
            f"{fmt(plan.wanted)} cm "
            f"({'into touch' if plan.distance > plan.gap else 'the full roll'})."
        ),
        measured=along,
        limit=plan.wanted,
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
            text=f"{end.id} is no nearer {character.id} than {plan.first.id}."
            if gap >= first_gap - tol
            else f"{end.id} ends {fmt(gap)} cm from {character.id}, nearer than the first stand "
            f"({fmt(first_gap)} cm); no stand may end nearer than the first.",
            measured=gap,
            limit=first_gap,
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
            f"so the unit flies into touch with {character.id}"
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
        text=(
            f"{goal}. It ends {fmt(first_gap)} cm from {character.id}"
            + ("." if close else f", but it could end {fmt(best)} cm away.")
        ),
        measured=first_gap,
        limit=best + tol,
    )
    _after(verdict, situation, unit, ends)
    return finish(verdict, situation, ends, {unit.id: {"homed_back": True}})


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
            text=f"{unit.id} homed back while confused, so it cannot be given orders this phase.",
        )
        return
    if near <= COMMAND_RANGE + EPSILON:
        verdict.check(
            rule=RULE,
            stage="after-moving",
            passed=True,
            subject=unit.id,
            text=(
                f"{unit.id} ends {fmt(near)} cm from a character, within {fmt(COMMAND_RANGE)} "
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
                f"{unit.id} ends {fmt(near)} cm from its nearest character, beyond "
                f"{fmt(COMMAND_RANGE)} cm, so it cannot be given orders this phase."
            ),
            measured=near,
            limit=COMMAND_RANGE,
        )


def home_back_eligibility(situation: Situation, unit_id: str, declarations: dict) -> list:
    verdict = Verdict(move={})
    eligibility(verdict, situation, situation.unit(unit_id))
    return verdict.findings
