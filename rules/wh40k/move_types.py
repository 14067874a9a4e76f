"""The four move types of RULES.md 1.4: normal (09.05), advance (09.06), fall back (09.07) and
charge (11.04), each optionally taking to the skies (21.03).

Each move is judged in layers, like a chess move: eligible-if, before-moving (declarations and
dice), while-moving and end-of-move (rules/wh40k/moving.py `judge_move`), after-moving. Every
check is a finding; the move is legal when all pass, and only then is `verdict.after` set.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import Any

import shapely
from shapely.geometry import LineString, Point
from shapely.ops import nearest_points, unary_union

from ..budget import check
from ..dice import Dice
from ..errors import InvalidInput
from ..geometry import EPSILON, fmt, fmt_beside, within
from ..move import Move, Pose
from ..naming import named
from ..situation import Model, Situation, Unit, overlap
from ..systems import Offer
from ..verdict import Finding, Verdict
from . import flying
from .measuring import (
    COHERENCY_RANGE,
    ENGAGEMENT_RANGE,
    coherency,
    engaged_enemy_units,
    engagement_gap,
    horizontal_distance,
    in_engagement_range,
    model_distance,
    placed_models,
    unit_distance,
)
from .moving import (
    Mode,
    MoveOutcome,
    MoveVerdict,
    Waypoint,
    article,
    climbing_reach,
    fall_back_mode,
    floor_reach,
    inscribed_radius,
    judge_move,
    level_text,
    may_stand,
    mode_for,
    model_has,
    plan_path,
    reachable_region,
    reachable_regions,
    situation_cache,
    terrain_bounds,
)

RULES = {"normal": "09.05", "advance": "09.06", "fall-back": "09.07", "charge": "11.04"}
#: 11.02: declaring a charge, rolling and picking the targets.
CHARGE_DECLARE_RULE = "11.02"
#: 11.04: charge targets must be within this distance, and a charging unit within it of an enemy.
CHARGE_RANGE = 12.0
#: 11.04 while moving: each model ends within this distance of a target if it can.
CHARGE_CLOSE = 1.0
FALL_BACK_MODES = ("ordered-retreat", "desperate-escape")


# -- eligibility ------------------------------------------------------------------------------
def surged_this_phase(situation: Situation, unit: Unit) -> bool:
    """21.02 after moving: a unit that surged cannot move again this phase. Its surges are
    recorded with round, turn and phase (`surges_used`, rules/wh40k/surge.py)."""
    turn = situation.turn
    return any(
        isinstance(use, Mapping)
        and (use.get("round"), use.get("turn"), use.get("phase"))
        == (turn.round, turn.active_army, turn.phase)
        for use in unit.state.get("surges_used") or []
    )


def eligible(
    verdict: Verdict,
    situation: Situation,
    unit: Unit,
    move_type: str,
    declarations: Mapping[str, Any],
) -> bool:
    """The eligible-if checks of RULES.md 1.4 for this move type, as findings."""
    rule = RULES[move_type]
    engaged = engaged_enemy_units(situation, unit)
    ok = True
    if surged_this_phase(situation, unit):
        ok &= verdict.check(
            rule="21.02",
            stage="eligible-if",
            passed=False,
            subject=unit.id,
            text=(
                f"{named(unit)} made a surge move this phase, so it cannot move again until the "
                "next "
                "phase."
            ),
        )
    if move_type in ("normal", "advance", "charge"):
        ok &= verdict.check(
            rule=rule,
            stage="eligible-if",
            passed=not engaged,
            subject=unit.id,
            pass_text=f"{named(unit)} is unengaged.",
            fail_text=f"{named(unit)} is engaged with {', '.join(map(named, engaged))}. An "
            "engaged unit cannot "
            f"make {article(move_type)} move.",
        )
    if move_type == "fall-back":
        ok &= verdict.check(
            rule=rule,
            stage="eligible-if",
            passed=bool(engaged),
            subject=unit.id,
            pass_text=f"{named(unit)} is engaged with {', '.join(map(named, engaged))}.",
            fail_text=f"{named(unit)} is unengaged. Only an engaged unit can fall back.",
        )
        chosen = fall_back_mode(unit, declarations)
        if chosen not in FALL_BACK_MODES:
            raise InvalidInput(
                "declarations.fall_back_mode", f"must be one of {', '.join(FALL_BACK_MODES)}"
            )
        shocked = unit.flag("battle_shocked")
        ok &= verdict.check(
            rule=rule,
            stage="eligible-if",
            passed=not (shocked and chosen == "ordered-retreat"),
            subject=unit.id,
            pass_text=f"{named(unit)} falls back as "
            f"{'an Ordered Retreat' if chosen == 'ordered-retreat' else 'a Desperate Escape'}.",
            fail_text=f"{named(unit)} is battle-shocked, so it cannot make an Ordered Retreat: it "
            "must fall back as a Desperate Escape.",
        )
    if move_type == "charge":
        if unit.has("AIRCRAFT"):
            # RULES.md 1.4: an AIRCRAFT unit is never eligible to charge. Only the refusal is a
            # finding, like the surge above: other charges read as they always did.
            ok &= verdict.check(
                rule=rule,
                stage="eligible-if",
                passed=False,
                subject=unit.id,
                text=f"{named(unit)} is an AIRCRAFT unit, and AIRCRAFT units cannot charge.",
            )
        enemies = situation.enemies_of(unit)
        nearest = min((unit_distance(unit, e) for e in enemies), default=math.inf)
        ok &= verdict.check(
            rule=rule,
            stage="eligible-if",
            passed=within(nearest, CHARGE_RANGE),
            subject=unit.id,
            pass_text=f'{named(unit)} is {fmt(nearest)}" from the nearest enemy, within 12".',
            fail_text=f'{named(unit)} has no enemy within 12" (nearest {fmt(nearest)}"), so it '
            "cannot charge."
            if enemies
            else f"{named(unit)} has no enemy to charge.",
            measured=None if nearest == math.inf else nearest,
            limit=CHARGE_RANGE,
        )
        for flag, word, participle in (
            ("advanced_this_turn", "advanced", "advanced"),
            ("fell_back_this_turn", "fell back", "fallen back"),
        ):
            ok &= verdict.check(
                rule=rule,
                stage="eligible-if",
                passed=not unit.flag(flag),
                subject=unit.id,
                pass_text=f"{named(unit)} has not {participle} this turn.",
                fail_text=f"{named(unit)} {word} this turn, so it cannot charge.",
            )
    return ok


def eligibility(
    situation: Situation, unit_id: str, declarations: dict[str, Any], move_type: str
) -> list[Finding]:
    verdict = Verdict(move={})
    eligible(verdict, situation, situation.unit(unit_id), move_type, declarations)
    return verdict.findings


# -- the moves ------------------------------------------------------------------------------------
def _characteristic(unit: Unit, move_type: str) -> float:
    if unit.move is None:
        raise InvalidInput(
            "unit",
            f"unit {named(unit)} has no Move characteristic (`move`), which a {move_type} move "
            "needs",
        )
    return unit.move


def _charge_targets(situation: Situation, unit: Unit, move: Move) -> tuple[Unit, ...]:
    targets = move.declared("charge_targets")
    if isinstance(targets, list) and not targets:
        return ()  # none picked after the roll: `_check_charge_targets` says why the charge fails
    if not targets:
        raise InvalidInput(
            "declarations.charge_targets",
            "a charge needs its targets, picked after the roll (a list of enemy unit ids)",
        )
    out = []
    for i, tid in enumerate(targets):
        if not isinstance(tid, str) or not situation.has_unit(tid):
            raise InvalidInput(f"declarations.charge_targets[{i}]", f"no unit with id {tid!r}")
        out.append(situation.unit(tid))
    return tuple(dict.fromkeys(out))


#: 11.02: an unmodified charge roll of 2 always fails.
CHARGE_FAILS_ON = 2


def _charge_reach_distance(unit: Unit, target: Unit, skies: bool) -> float:
    """RULES.md 1.4: how far a charge target is, unit to unit (closest bases, 1.1; no path and no
    added engagement range). Taking to the skies measures ignoring vertical distance."""
    if skies:
        return min(horizontal_distance(a, b) for a in unit.models for b in target.models)
    return unit_distance(unit, target)


def _no_target(situation: Situation, unit: Unit, max_distance: float, skies: bool) -> str:
    """Why no enemy unit can be picked for this charge roll (11.02), in words: none within 12"
    and within the roll, or only AIRCRAFT there, which a unit that cannot FLY may not pick."""
    text = f'No enemy unit it may charge is within 12" and within the {fmt(max_distance)}" charge'
    if flying.can_fly(unit):
        return text
    aircraft = [
        named(e)
        for e in situation.enemies_of(unit)
        if e.has("AIRCRAFT")
        and within(d := _charge_reach_distance(unit, e, skies), CHARGE_RANGE)
        and within(d, max_distance)
    ]
    if aircraft:
        text += (
            f" ({', '.join(aircraft)} {'is' if len(aircraft) == 1 else 'are'} within it, but only "
            "a unit that can FLY may pick an AIRCRAFT unit)"
        )
    return text


def _target_refusal(
    unit: Unit, target: Unit, distance: float, max_distance: float, skies: bool
) -> str | None:
    """Why `target` cannot be picked for this charge roll (11.02), or None when it can."""
    if target.army == unit.army:
        return f"{named(target)} is a friendly unit; only enemy units can be charged."
    if target.has("AIRCRAFT") and not flying.can_fly(unit):
        return (
            f"{named(target)} is an AIRCRAFT unit: only a unit that can FLY may pick it as a "
            "charge "
            "target."
        )
    if not within(distance, CHARGE_RANGE):
        return (
            f'Target {named(target)} is {fmt(distance)}" away: charge targets must be within 12".'
        )
    if not within(distance, max_distance):
        reach = (
            'the roll less 2" for taking to the skies'
            if skies and not unit.has("HOVER")
            else ("the roll")
        )
        return (
            f'Target {named(target)} is {fmt_beside(distance, max_distance)}" away, beyond the '
            f'{fmt(max_distance)}" '
            f"charge ({reach}): in 11th edition the targets are picked after the roll, among "
            "the enemy units within it."
        )
    return None


def _check_charge_targets(
    verdict: Verdict,
    situation: Situation,
    unit: Unit,
    targets: tuple[Unit, ...],
    max_distance: float,
    skies: bool,
) -> bool:
    """11.02 (RULES.md 1.4): the roll first, then targets each within 12" and within the roll;
    an unmodified 2 always fails."""
    rule = CHARGE_DECLARE_RULE
    rolls = [d["value"] for d in verdict.move.get("dice", [])]
    ok = True
    if len(rolls) == 2 and sum(rolls) == CHARGE_FAILS_ON:
        ok &= verdict.check(
            rule=rule,
            stage="before-moving",
            passed=False,
            subject=unit.id,
            text=(
                f"The charge roll is an unmodified 2 ({rolls[0]} + {rolls[1]}): a roll of 2 always "
                "fails, and the unit does not move."
            ),
            measured=float(CHARGE_FAILS_ON),
            limit=float(CHARGE_FAILS_ON + 1),
        )
    if not targets:
        # RULES.md 1.4: with no target picked after the roll the unit does not move; say whether
        # any enemy unit was within 12" and within the roll to be picked
        offered = [
            named(e)
            for e in situation.enemies_of(unit)
            if _target_refusal(unit, e, _charge_reach_distance(unit, e, skies), max_distance, skies)
            is None
        ]
        ok &= verdict.check(
            rule=rule,
            stage="before-moving",
            passed=False,
            subject=unit.id,
            text=(
                f"No charge target was picked: a charge needs at least one of the enemy units "
                f'within 12" and within the {fmt(max_distance)}" charge ({", ".join(offered)}); '
                "without one the unit does not move."
                if offered
                else f"{_no_target(situation, unit, max_distance, skies)}: the charge fails, and "
                "the unit does not move."
            ),
        )
    for t in targets:
        d = _charge_reach_distance(unit, t, skies) if t.army != unit.army else math.inf
        refusal = _target_refusal(unit, t, d, max_distance, skies)
        limit = min(CHARGE_RANGE, max_distance)
        ok &= verdict.check(
            rule=rule,
            stage="before-moving",
            passed=refusal is None,
            subject=unit.id,
            pass_text=f'Target {named(t)} is {fmt(d)}" away, within 12" and within the '
            f'{fmt(max_distance)}" charge.',
            fail_text=refusal or "",
            measured=None if not math.isfinite(d) else d,
            limit=None if not math.isfinite(d) else limit,
        )
    return ok


def charge_target_options(
    situation: Situation, unit_id: str, dice: Iterable[int], take_to_the_skies: bool = False
) -> list[str]:
    """11.02 (RULES.md 1.4): the enemy units the player may pick as charge targets after rolling
    `dice` (the two charge dice): those within 12" and within the charge distance (the roll, less
    2" when taking to the skies without HOVER), AIRCRAFT only for a unit that can FLY. Empty on
    an unmodified 2. For the stepper, which asks for the targets after the roll."""
    unit = situation.unit(unit_id)
    rolls = [int(d) for d in dice]
    if len(rolls) != 2 or sum(rolls) == CHARGE_FAILS_ON:
        return []
    max_distance = float(sum(rolls))
    if take_to_the_skies:
        max_distance = flying.skies_max_distance(unit, max_distance)
    return [
        e.id
        for e in situation.enemies_of(unit)
        if _target_refusal(
            unit,
            e,
            _charge_reach_distance(unit, e, take_to_the_skies),
            max_distance,
            take_to_the_skies,
        )
        is None
    ]


def charge_target_offer(
    situation: Situation, unit_id: str, dice: Dice, declarations: Mapping[str, Any]
) -> Offer:
    """11.02 (RULES.md 1.4), for the stepper: the charge targets on offer after the roll (the
    first two dice of `dice`, as the judge rolls them), each with its unit-to-unit distance, and
    why there are none (an unmodified 2, or no enemy unit within 12" and within the roll)."""
    unit = situation.unit(unit_id)
    rolls = dice.roll(2)
    dice.finish()
    skies = bool(declarations.get("take_to_the_skies"))
    max_distance = float(sum(rolls))
    roll = f'Charge roll: {rolls[0]} + {rolls[1]} = {fmt(max_distance)}"'
    if skies:
        max_distance = flying.skies_max_distance(unit, max_distance)
        roll += f' (taking to the skies: {fmt(max_distance)}")'
    if sum(rolls) == CHARGE_FAILS_ON:
        return Offer(
            (),
            roll,
            "The charge roll is an unmodified 2: a roll of 2 always fails, so the charge fails "
            "and the unit does not move.",
        )
    offered = set(charge_target_options(situation, unit_id, rolls, skies))
    choices = tuple(
        (e.id, f'{e.name} ({e.id}), {fmt(_charge_reach_distance(unit, e, skies))}"')
        for e in situation.enemies_of(unit)
        if e.id in offered
    )
    return Offer(
        choices,
        roll,
        f"{_no_target(situation, unit, max_distance, skies)}: the charge fails (no targets "
        "within the roll), and the unit does not move.",
    )


def _max_distance(
    situation: Situation, unit: Unit, move: Move, verdict: Verdict, dice: Dice
) -> float:
    """The move's maximum distance, rolling its dice; recorded in verdict.move."""
    if move.type == "advance":
        m = _characteristic(unit, move.type)
        (roll,) = dice.roll(1)
        base = m + roll
        why = f'M {fmt(m)}" + D6 {roll}'
    elif move.type == "charge":
        rolls = dice.roll(2)
        base = float(sum(rolls))
        why = f"2D6 {rolls[0]} + {rolls[1]}"
    else:
        base = _characteristic(unit, move.type)
        why = f'M {fmt(base)}"'
    verdict.move["roll_basis"] = why
    if flying.takes_to_the_skies(move):
        reduced = flying.skies_max_distance(unit, base)
        verdict.move["max_distance_before_skies"] = base
        return reduced
    return base


def adjudicate_move(situation: Situation, move: Move) -> Verdict:
    """Judge one of the four ordinary moves, on foot or in the skies (RULES.md 1.3-1.5, 1.7)."""
    unit = situation.unit(move.unit)
    rule = RULES[move.type]
    skies = flying.takes_to_the_skies(move)
    verdict = MoveVerdict(move={"unit": unit.id, "type": move.type})
    if skies:
        verdict.move["take_to_the_skies"] = True
    ok = eligible(verdict, situation, unit, move.type, move.declarations)
    if move.type == "fall-back":
        verdict.move["fall_back_mode"] = fall_back_mode(unit, move.declarations)

    if skies:
        ok &= flying.check_declaration(verdict, unit, move)
        if not flying.can_fly(unit):
            # Refused above; the rest is judged as the ground move it has to be.
            skies = False
            declarations = {k: v for k, v in move.declarations.items() if k != "take_to_the_skies"}
            move = replace(move, declarations=MappingProxyType(declarations))

    dice = Dice(move.dice, move.seed)
    max_distance = _max_distance(situation, unit, move, verdict, dice)
    dice.finish()
    verdict.move.update(dice.summary())
    verdict.move["max_distance"] = max_distance
    if skies:
        verdict.check(
            rule="21.03",
            stage="before-moving",
            passed=True,
            subject=unit.id,
            text=(
                f'Taking to the skies: maximum distance {fmt(max_distance)}"'
                + (
                    " (HOVER: no reduction)."
                    if unit.has("HOVER")
                    else f' ({fmt(verdict.move["max_distance_before_skies"])}" less 2"); vertical '
                    "distance "
                    "is ignored and the models may cross all models and terrain."
                )
            ),
            measured=max_distance,
            limit=verdict.move["max_distance_before_skies"],
        )

    targets: tuple[Unit, ...] = ()
    if move.type == "charge":
        targets = _charge_targets(situation, unit, move)
        verdict.move["targets"] = [t.id for t in targets]
        ok &= _check_charge_targets(verdict, situation, unit, targets, max_distance, skies)

    mode = mode_for(unit, move.type, move.declarations)
    outcome = judge_move(situation, move, verdict, max_distance, rule=rule, mode=mode)

    if move.type == "charge":
        ok &= _charge_while_moving(
            situation, unit, move, verdict, outcome, targets, max_distance, mode
        )
    engaged_after = engaged_enemy_units(situation, unit, outcome.placements)
    if move.type in ("normal", "advance", "fall-back"):
        gap = engagement_gap(
            placed_models(unit, outcome.placements),
            (m for e in situation.enemies_of(unit) for m in e.models),
        )
        verdict.check(
            rule=rule,
            stage="after-moving",
            passed=not engaged_after,
            subject=unit.id,
            pass_text=f"{named(unit)} ends unengaged.",
            fail_text=f"{named(unit)} would end engaged with "
            f"{', '.join(map(named, engaged_after))}; after "
            f"{article(move.type)} move the unit must be unengaged.",
            # the closest enemy model within 5" vertically, against engagement range
            measured=gap,
            limit=None if gap is None else ENGAGEMENT_RANGE.horizontal,
        )
    else:
        target_ids = [t.id for t in targets]
        missing = [t for t in target_ids if t not in engaged_after]
        verdict.check(
            rule=rule,
            stage="after-moving",
            passed=not missing,
            subject=unit.id,
            pass_text=f"{named(unit)} ends engaged with every target "
            f"({', '.join(map(named, target_ids))}).",
            fail_text=f"{named(unit)} must end engaged with every charge target, but not with "
            f"{', '.join(map(named, missing))}.",
        )
        others = [e for e in engaged_after if e not in target_ids]
        verdict.check(
            rule=rule,
            stage="after-moving",
            passed=not others,
            subject=unit.id,
            pass_text=f"{named(unit)} is engaged with no enemy it did not target.",
            fail_text=f"{named(unit)} would end engaged with {', '.join(map(named, others))}, "
            "which it did not "
            "declare as a target: a charge may only engage its targets.",
        )
    if move.type in ("advance", "fall-back"):
        # RULES.md 1.4 after moving: an advance bars charging; a fall back bars charging,
        # shooting and starting an action (the players keep to it: the engine judges moves only)
        verdict.check(
            rule=rule,
            stage="after-moving",
            passed=True,
            subject=unit.id,
            text=(
                f"{named(unit)} cannot charge this turn after advancing."
                if move.type == "advance"
                else f"{named(unit)} cannot charge, shoot or start an action this turn after "
                "falling back."
            ),
        )

    state = {"moved_this_phase": True}
    if move.type == "advance":
        state["advanced_this_turn"] = True
    if move.type == "fall-back":
        state["fell_back_this_turn"] = True
    if verdict.legal:
        verdict.events.extend(_events(unit, move, outcome))
        poses = outcome.poses
        verdict.after_move(lambda: situation.moved(poses, {unit.id: state}))
    return verdict


def _events(unit: Unit, move: Move, outcome: MoveOutcome) -> list[dict[str, Any]]:
    """09.07 Desperate Escape: a hazard roll per model, then a battle-shock roll (RULES.md 1.4)."""
    if move.type != "fall-back" or fall_back_mode(unit, move.declarations) != "desperate-escape":
        return []
    # RULES.md 1.4: 3 mortal wounds only if every model is MONSTER or VEHICLE, whether the
    # keyword is the unit's or the model's own (`models[].keywords`).
    big = all(model_has(unit, m, "MONSTER") or model_has(unit, m, "VEHICLE") for m in unit.models)
    events = [
        {
            "event": "hazard-roll",
            "rule": "09.07",
            "unit": unit.id,
            "model": m.id,
            "dice": "D6",
            "fails_on": [1, 2],
            "mortal_wounds": 3 if big else 1,
            "text": f"{named(m)} takes a hazard roll: on a 1 or 2 it suffers {3 if big else 1} "
            "mortal "
            "wound"
            f"{'s' if big else ''}.",
        }
        for m in unit.models
    ]
    if not unit.flag("battle_shocked"):
        events.append(
            {
                "event": "battle-shock-roll",
                "rule": "09.07",
                "unit": unit.id,
                "text": f"{named(unit)} made a Desperate Escape without being battle-shocked: it "
                "takes a "
                "battle-shock roll.",
            }
        )
    return events


# -- charge obligations ------------------------------------------------------------------------
def _distance_to(model: Model, units: tuple[Unit, ...]) -> float:
    return min(model_distance(model, t).straight for u in units for t in u.models)


#: Rings round each target model where the engine looks for charge spots: base contact, within
#: 1", within engagement range (the suggestion and the "if it can" test use the same ones).
CHARGE_RINGS = (0.0, 0.5, CHARGE_CLOSE - 0.01, ENGAGEMENT_RANGE.horizontal - 0.01)
RING_POINTS = 48


def _floor_levels_near(
    situation: Situation, target: Model, reach: float, gaps: Sequence[float]
) -> list[float]:
    """RULES.md 1.5 ("if it can" weighs every level): the heights of the floors (the tops of
    old-shape blocks) within `reach` of `target` horizontally from which a model could meet the
    rings `gaps`: within 1" of it (straight distance) for the inner rings, within 5" of its level
    for engagement. A charger that cannot afford the target's own floor may engage it from the
    floor below. Only for a target above the table: one on the ground is ringed on the ground."""
    if target.z <= EPSILON:
        return []
    vertical = CHARGE_CLOSE if max(gaps) <= CHARGE_CLOSE else ENGAGEMENT_RANGE.vertical
    cache = situation_cache(situation)
    if "charge_surfaces" not in cache:
        cache["charge_surfaces"] = [
            (shape, height, shape.bounds)
            for feature in situation.terrain
            for shape, height in (
                [(f.footprint, f.height) for f in feature.floors]
                if feature.layered
                else feature.standing_levels
            )
        ]
    centre = Point(target.x, target.y)
    return [
        height
        for shape, height, (x0, y0, x1, y1) in cache["charge_surfaces"]
        if abs(height - target.z) <= vertical + EPSILON
        and x0 - reach <= target.x <= x1 + reach
        and y0 - reach <= target.y <= y1 + reach
        and shape.distance(centre) <= reach
    ]


def _ring_spots(
    m: Model,
    target_models: Sequence[Model],
    gaps: Sequence[float],
    max_distance: float,
    skies: bool = False,
    situation: Situation | None = None,
) -> list[Model]:
    """`m` placed round the target models at the given edge gaps, nearest to m first, keeping
    only spots within `max_distance` as the crow flies (the climb counted, except in the skies:
    21.03 ignores vertical distance). Each ring is tried
    on the ground, at the target's level and (given the `situation`) on every floor near the
    target close enough in height to meet the ring (RULES.md 1.5: "if it can" weighs every
    level); whether a model may stand there is `_spot_free`'s."""
    spots = []
    # how far each base reaches from its centre towards the other, ring point by ring point: its
    # radius for a round base, else its outline's extent held at its facing (a Carnifex's oval
    # side on reaches 1.38", not its enclosing 2.07"), so each ring stands at its gap
    angles = [2 * math.pi * k / RING_POINTS for k in range(RING_POINTS)]
    towards = [(math.cos(a), math.sin(a)) for a in angles]
    mover = _extents(m, [(-ux, -uy) for ux, uy in towards])
    for gap in gaps:
        for t in target_models:
            target = _extents(t, towards)
            reach = t.base.radius + m.base.radius + gap + 1e-4
            floors = [] if situation is None else _floor_levels_near(situation, t, reach, gaps)
            for z in dict.fromkeys((0.0, t.z, *floors)):
                climb = 0.0 if skies else abs(z - m.z)
                for k, (ux, uy) in enumerate(towards):
                    out = target[k] + mover[k] + gap + 1e-4
                    x, y = t.x + out * ux, t.y + out * uy
                    d = math.hypot(x - m.x, y - m.y) + climb
                    if within(d, max_distance):
                        spots.append((d, gap, k, m.placed(x, y, z)))
    spots.sort(key=lambda item: (item[0], item[1], item[2]))
    return [spot for *_, spot in spots]


def _extents(model: Model, directions: Sequence[tuple[float, float]]) -> list[float]:
    """How far `model`'s base reaches from its centre along each unit vector: its radius when
    round, else the farthest point of its outline at its facing."""
    if model.base.kind == "round":
        return [model.base.radius] * len(directions)
    corners = shapely.get_coordinates(model.footprint) - (model.x, model.y)
    return [float((corners[:, 0] * ux + corners[:, 1] * uy).max()) for ux, uy in directions]


def _meets(spot: Model, target_models: Sequence[Model], gaps: Sequence[float]) -> bool:
    """Does a spot on the rings `gaps` really do what they stand for, measured in 3-D (1.1):
    within 1" (straight distance) for the inner rings, engaged (2" h, 5" v) for the outer?
    A ground spot 0.99" beside a target 3" up is 3.16" from it, not within 1"."""
    if max(gaps) <= CHARGE_CLOSE:
        return any(within(model_distance(spot, t).straight, CHARGE_CLOSE) for t in target_models)
    return any(in_engagement_range(spot, t) for t in target_models)


def _spot_free(
    situation: Situation,
    unit: Unit,
    spot: Model,
    mine: Iterable[Model],
    non_targets: Iterable[Unit],
    start: Model | None = None,
) -> bool:
    """Could `spot` end a move: on the table, on nothing, out of solid terrain, standing where a
    model may stand (1.5: on the ground or stable on a floor, never through an enclosed part),
    engaging no enemy that is not a target? (`mine`: the unit's other models where they end;
    `start`: where the model starts, for the climbing rule of 1.5.)"""
    if not may_stand(situation, unit, spot, start):
        return False
    r = spot.base.radius
    w, h = situation.table.width, situation.table.height
    if not (r <= spot.x <= w - r and r <= spot.y <= h - r):
        return False
    for other in situation.units:
        if other.id == unit.id:
            continue
        for b in other.models:
            if (
                abs(b.x - spot.x) < r + b.base.radius + 0.1
                and abs(b.y - spot.y) < r + b.base.radius + 0.1
            ):
                if abs(b.z - spot.z) <= EPSILON and overlap(spot, b):
                    return False
    if not _clear_of(spot, mine):
        return False
    for t, (x0, y0, x1, y1) in terrain_bounds(situation):
        if t.solid and x0 - r <= spot.x <= x1 + r and y0 - r <= spot.y <= y1 + r:
            if (
                t.footprint.distance(Point(spot.x, spot.y)) < r - EPSILON
                or spot.base.kind != "round"
            ):
                if spot.footprint.intersection(t.footprint).area > EPSILON:
                    return False
    return not any(in_engagement_range(spot, e) for u in non_targets for e in u.models)


def _clear_of(spot: Model, mine: Iterable[Model]) -> bool:
    """1.3 ending a move: `spot` overlaps none of the unit's other models where they end (bases
    are in each other's way only on one level, 1.5)."""
    r = spot.base.radius
    return not any(
        b.id != spot.id
        and abs(b.x - spot.x) < r + b.base.radius
        and abs(b.y - spot.y) < r + b.base.radius
        and abs(b.z - spot.z) <= EPSILON
        and overlap(spot, b)
        for b in mine
    )


def _linked(spot: Model, mine: Iterable[Model]) -> bool:
    """03.03: `spot` is within 2" horizontally of one of the unit's other models (bases whose
    enclosing circles are further apart are not measured)."""
    reach = spot.base.radius + COHERENCY_RANGE.horizontal + EPSILON
    return any(
        abs(o.x - spot.x) < reach + o.base.radius
        and abs(o.y - spot.y) < reach + o.base.radius
        and within(model_distance(spot, o).horizontal, COHERENCY_RANGE.horizontal)
        for o in mine
    )


def _path_within(
    situation: Situation,
    unit: Unit,
    start: Model,
    spot: Model,
    mode: Mode,
    max_distance: float,
    memo: dict[Any, Any] | None = None,
) -> list[Waypoint] | None:
    """The waypoints of the shortest legal path from `start` to `spot` (`plan_path`, the move
    judge's), or None when there is none within `max_distance`. With a `memo` (one suggestion:
    the same model, mode and maximum distance throughout) each spot's path is found once."""
    key = ("path", start.id, spot.x, spot.y, spot.z, spot.facing)
    if memo is not None and key in memo:
        known: list[Waypoint] | None = memo[key]
        return known
    pts, horizontal, vertical, found = plan_path(
        situation, unit, start, spot, mode, limit=max_distance
    )
    result = pts if found and horizontal + vertical <= max_distance + EPSILON else None
    if memo is not None:
        memo[key] = result
    return result


def _way_to(
    situation: Situation,
    unit: Unit,
    start: Model,
    spot: Model,
    mode: Mode,
    max_distance: float,
    memo: dict[Any, Any],
) -> list[Waypoint] | None:
    """Can `start`'s model reach `spot` within `max_distance`: its waypoints, or None. A round
    base going to the ground is looked up in its reachable region (conservative, built once per
    model in `memo`: the straight line stands for the path, which the move judge finds again).
    A spot on a floor has the exact path, its climb counted (the ground region does not reach
    floors); a base that is not round the path the move judge takes, the base held at its
    facing where its enclosing circle (the region's) cannot pass (1.3)."""
    if spot.z > EPSILON or start.base.kind != "round":
        return _path_within(situation, unit, start, spot, mode, max_distance, memo)
    key = ("region", start.id)
    if key not in memo:
        # Spots are on the ground: a model on a floor pays its way down first (1.5).
        budget = max_distance - (0.0 if mode.skies else start.z)
        memo[key] = reachable_region(situation, start.id, max(budget, 0.0), mode)
        shapely.prepare(memo[key])
    if not memo[key].contains(Point(spot.x, spot.y)):
        return None
    return [(start.x, start.y), (spot.x, spot.y)]


class _Seen:
    """An iterable read lazily once and remembered: spots a search filtered, which a later
    search with the same memo reads again without filtering them again."""

    def __init__(self, items: Iterable[Model]):
        self._items = iter(items)
        self._seen: list[Model] = []

    def __iter__(self) -> Iterator[Model]:
        yield from self._seen  # what an earlier reading found (it may stop part way)
        for item in self._items:
            self._seen.append(item)
            yield item


def _find_spot(
    situation: Situation,
    unit: Unit,
    start: Model,
    others: Iterable[Model],
    targets: Iterable[Unit],
    non_targets: Iterable[Unit],
    gaps: Sequence[float],
    max_distance: float,
    mode: Mode,
    exact_path: bool = False,
    coherent: bool = True,
    memo: dict[Any, Any] | None = None,
) -> tuple[Model, list[Waypoint]] | None:
    """A spot on the rings `gaps` round the target models where `start`'s model could end, with
    `others` (the unit's other models, where they end) fixed: free
    (`_spot_free`), keeping the unit in coherency, and reachable within `max_distance`. Returns
    (spot, waypoints) or None. Reachability is the conservative reachable region, then for a
    spot outside it the region reached by climbing (`climbing_reach`) and the exact path, or
    with `exact_path` the shortest legal path (what the suggestion uses). A `memo` (one
    suggestion, trying its models in several orders) keeps the spots free of everything but the
    unit's own models, and the paths, from one try to the next."""
    others = list(others)
    memo = {} if memo is None else memo
    beyond: list[Model] = []
    target_models = [t for u in targets for t in u.models]
    key = ("spots", start.id, tuple(gaps), tuple(t.id for t in target_models))
    if key not in memo:
        memo[key] = _Seen(
            spot
            for spot in _ring_spots(start, target_models, gaps, max_distance, mode.skies, situation)
            if _meets(spot, target_models, gaps)
            and _spot_free(situation, unit, spot, (), non_targets, start)
        )
    for spot in memo[key]:
        if not _clear_of(spot, others):
            continue
        if coherent and others and not _linked(spot, others):
            continue
        if exact_path:
            pts = _path_within(situation, unit, start, spot, mode, max_distance, memo)
        else:
            pts = _way_to(situation, unit, start, spot, mode, max_distance, memo)
            if pts is None and spot.z <= EPSILON and start.base.kind == "round":
                beyond.append(spot)  # outside the region: maybe reached by climbing, tried last
                continue
        if pts is None:
            continue
        if not coherent or coherency([spot, *others]).ok:
            return spot, pts
    if not beyond:
        return None
    # 1.5: "if it can" weighs ground reached by climbing too, which the region leaves out (a
    # model on a floor pays its way down first, as for the region)
    budget = max(max_distance - (0.0 if mode.skies else start.z), 0.0)
    over = climbing_reach(situation, unit, start, budget, mode)
    if over is None or over.is_empty:
        return None
    for spot in [*beyond, *_spots_over_climbs(situation, start, others, target_models, gaps, over)]:
        if not over.contains(Point(spot.x, spot.y)) or not _meets(spot, target_models, gaps):
            continue
        if not _spot_free(situation, unit, spot, others, non_targets, start):
            continue
        # a candidate only (`climbing_reach`): its exact path, the climb counted, decides
        pts = _path_within(situation, unit, start, spot, mode, max_distance, memo)
        if pts is None:
            continue
        if not coherent or coherency([spot, *others]).ok:
            return spot, pts
    return None


def _spots_over_climbs(
    situation: Situation,
    start: Model,
    others: Sequence[Model],
    target_models: Sequence[Model],
    gaps: Sequence[float],
    over: Any,
) -> list[Model]:
    """Ground spots for `start`'s model within the outer ring `gaps` of the target models and
    in `over` (ground reached by climbing, `climbing_reach`), clear of the unit's other models
    and of walls: the one nearest the targets, the one nearest the start, and one inside. The
    rings are sampled and the ground past a wall within the move can be a sliver narrower than
    their spacing (a MONSTER that climbs 2.5" up and down has little move left)."""
    grow = inscribed_radius(start.base) - 0.01
    zone = unary_union([t.footprint.buffer(max(gaps) + grow) for t in target_models])
    r = start.base.radius + 0.01
    keep_out = [o.footprint.buffer(r) for o in others if abs(o.z) <= EPSILON] + [
        w.shape.buffer(r) for t in situation.terrain for w in t.walls
    ]
    room = over.intersection(zone)
    if keep_out and not room.is_empty:
        room = room.difference(unary_union(keep_out))
    room = room.buffer(-0.005)
    if room.is_empty:
        return []
    towards = unary_union([t.footprint for t in target_models])
    points = [
        nearest_points(room, towards)[0],
        nearest_points(room, Point(start.x, start.y))[0],
        room.representative_point(),
    ]
    return [start.placed(p.x, p.y, 0.0) for p in points]


def _others(unit: Unit, ends: Mapping[str, Model], start: Model) -> list[Model]:
    """The unit's other models, where `ends` puts them or where they stand."""
    return [ends.get(m.id, m) for m in unit.models if m.id != start.id]


def spot_text(spot: Model) -> str:
    """Where a model could have stood, with its level (RULES.md 1.5): 'at (13, 11.74) on the
    floor 3" up' or 'at (13, 9.5) on the ground'."""
    return f"at ({fmt(spot.x)}, {fmt(spot.y)}) {level_text(spot)}"


def _could_end_within(
    situation: Situation,
    unit: Unit,
    start: Model,
    ends: Mapping[str, Model],
    targets: Iterable[Unit],
    non_targets: Iterable[Unit],
    gap: float,
    max_distance: float,
    mode: Mode,
) -> Model | None:
    """11.04 "if it can": with every other model where the proposal puts it, is there a spot the
    model can reach (reachable region, conservative, or over a climb by its exact path: RULES.md
    1.5) within `gap` of a target model, that it may end on and that keeps the unit in
    coherency? Spots are sampled on the rings of
    `CHARGE_RINGS`, on the ground and at each target's level, so a spot narrower than their
    spacing can be missed (the engine then accepts the model's placement). Returns such a spot,
    or None."""
    gaps = [g for g in CHARGE_RINGS if g <= gap]
    found = _find_spot(
        situation,
        unit,
        start,
        _others(unit, ends, start),
        targets,
        non_targets,
        gaps,
        max_distance,
        mode,
    )
    return None if found is None else found[0]


def _charge_while_moving(
    situation: Situation,
    unit: Unit,
    move: Move,
    verdict: Verdict,
    outcome: MoveOutcome,
    targets: Sequence[Unit],
    max_distance: float,
    mode: Mode,
) -> bool:
    """11.04 while moving: each model ends closer to a target, within 1" of one if it can, and
    engaged with one if it can. "If it can" is `_could_end_within`, the same test the surge move
    uses for "if possible" (RULES.md 1.6): other models stay where the proposal puts them.
    """
    rule = RULES["charge"]
    enemy_targets = tuple(t for t in targets if t.army != unit.army)
    if not enemy_targets:
        return True
    non_targets = [e for e in situation.enemies_of(unit) if e not in enemy_targets]
    ends = outcome.placements
    ok = True
    for mid, mm in outcome.models.items():
        # each model searched as it moves (RULES.md 1.7: a model without FLY in a unit taking to
        # the skies can only reach what it reaches on foot)
        model_mode = mode_for(unit, move.type, move.declarations, mm.start) if mode.skies else mode
        # Closer to *a* target: any one of them will do, not necessarily the nearest.
        gains = [
            (_distance_to(mm.end, (t,)), _distance_to(mm.start, (t,)), t.id) for t in enemy_targets
        ]
        closer = [g for g in gains if g[0] < g[1] - EPSILON]
        if closer:
            after, before, towards = min(closer)
        else:
            after = _distance_to(mm.end, enemy_targets)
            before = _distance_to(mm.start, enemy_targets)
            towards = ""
        ok &= verdict.check(
            rule=rule,
            stage="while-moving",
            passed=bool(closer),
            subject=mid,
            pass_text=f'{named(mid)} ends closer to target {towards} ({fmt(before)}" to '
            f'{fmt(after)}").',
            fail_text=f"{named(mid)} must end closer to at least one charge target, but it gets "
            "closer "
            f'to none (nearest: {fmt(before)}" before, {fmt(after)}" after).',
            measured=after,
            limit=before,
        )
        after = _distance_to(mm.end, enemy_targets)
        if within(after, CHARGE_CLOSE):
            verdict.check(
                rule=rule,
                stage="while-moving",
                passed=True,
                subject=mid,
                text=f'{named(mid)} ends within 1" of a target.',
                measured=after,
                limit=CHARGE_CLOSE,
            )
        else:
            could = _could_end_within(
                situation,
                unit,
                mm.start,
                ends,
                enemy_targets,
                non_targets,
                CHARGE_CLOSE,
                max_distance,
                model_mode,
            )
            if could is None:
                verdict.check(
                    rule=rule,
                    stage="while-moving",
                    passed=True,
                    subject=mid,
                    text=f'{named(mid)} could not get within 1" of a target, so ending '
                    f'{fmt(after)}" '
                    "away is allowed.",
                    measured=after,
                    limit=CHARGE_CLOSE,
                )
            else:
                ok &= verdict.check(
                    rule=rule,
                    stage="while-moving",
                    passed=False,
                    subject=mid,
                    text=f'{named(mid)} ends {fmt_beside(after, CHARGE_CLOSE)}" from the nearest '
                    "target, but it could "
                    "have "
                    f'got within 1" ({spot_text(could)}): a charging model must end within 1" '
                    "of a target if it can.",
                    measured=after,
                    limit=CHARGE_CLOSE,
                )
        if any(in_engagement_range(mm.end, t) for u in enemy_targets for t in u.models):
            verdict.check(
                rule=rule,
                stage="while-moving",
                passed=True,
                subject=mid,
                text=f"{named(mid)} ends engaged with a target.",
            )
        else:
            could = _could_end_within(
                situation,
                unit,
                mm.start,
                ends,
                enemy_targets,
                non_targets,
                ENGAGEMENT_RANGE.horizontal,
                max_distance,
                model_mode,
            )
            if could is None:
                verdict.check(
                    rule=rule,
                    stage="while-moving",
                    passed=True,
                    subject=mid,
                    text=f"{named(mid)} could not reach engagement range of a target.",
                )
            else:
                ok &= verdict.check(
                    rule=rule,
                    stage="while-moving",
                    passed=False,
                    subject=mid,
                    text=f"{named(mid)} ends outside engagement range, but it could have reached "
                    "it "
                    f"({spot_text(could)}): a charging model must end engaged with a target if "
                    "it can.",
                )
    return ok


# -- suggestions --------------------------------------------------------------------------------
#: Rings round a unit mate already placed where a model that cannot reach a target may end
#: beside it: base contact, 1", just under 2" (coherency, 03.03).
FOLLOW_RINGS = (0.0, CHARGE_CLOSE, COHERENCY_RANGE.horizontal - 0.01)
#: How many of the suggestion's tries the judge is asked about, best first; when it accepts
#: none, the best is suggested as it is (a judgement costs about as much as a try).
JUDGED_TRIES = 3
#: One try of the charge suggestion: each model's end, and the route it takes there.
Placement = tuple[dict[str, Model], dict[str, list[Waypoint]]]


def suggest_charge(situation: Situation, move: Move) -> Move:
    """A charge placement that meets 11.04's obligations when the dice allow it.

    A try (`_ChargeSearch.place`) places the models one at a time. With several targets, the
    model nearest to each target goes at it first. Then the models closest to the targets go.
    Each takes the nearest spot, as the crow flies, in base contact with a target model (else
    within 1", else within engagement range) that it can reach by a legal path, that is free
    (no overlap, no solid terrain, no enemy that is not a target within engagement range) and
    within 2" of a model already placed. A model that finds none waits for the others; then it
    moves as far as it can towards the nearest target model, or else ends beside a unit mate
    already placed (`_follow`). Then a repair pass gives each model still short of 1" (or of
    engagement) a better spot if one is free now that the whole unit is placed.

    The first model placed decides where the others can go: round one side of a block or the
    other (RULES.md 1.5), and a model sent the short way round may leave its unit mates no way
    to follow. So when the first try leaves a model unengaged or the unit out of coherency,
    each other model that can reach a target leads a try of its own. The tries are ranked by
    `_standing` (every target engaged, the unit coherent, every model closer to a target; then
    the most models engaged, then the most within 1"), and the judge (`adjudicate_move`) is asked
    about the best `JUDGED_TRIES` in turn: the first it accepts is the suggestion, else the best.
    The tries share their spots and paths, and there are at most as many as models, so the
    suggestion is deterministic and bounded (the `budget` deadline still stops it).
    """
    if move.end is not None:
        return move  # the player's own placement: nothing to suggest
    unit = situation.unit(move.unit)
    targets = tuple(t for t in _charge_targets(situation, unit, move) if t.army != unit.army)
    seed = move.seed
    if move.dice is None and seed is None:
        seed = Dice(None).seed  # fix the server's roll now so adjudicate sees the same dice
    move = replace(move, seed=seed)
    max_distance = _max_distance(situation, unit, move, Verdict(move={}), Dice(move.dice, seed))
    search = _ChargeSearch(situation, move, targets, max_distance)
    first = search.place(None)
    assert first is not None  # only a leader can fail to be placed
    if not targets or search.complete(first) or not search.in_reach(move):
        # nobody to charge, every model engaged already, or a charge no placement can make
        return _suggested(move, first)
    tries = [first]
    # a leader is tried when its way differs from those of the leaders tried before (the first
    # try's leader is the model it placed first): leaders going the same way round the same
    # corners lead much the same tries
    ways = {_way_round(next(iter(first[1].values())))}
    for leader in search.order:
        check("trying the charging models in another order")
        led = search.spot(leader, (), targets, search.TIERS)
        if led is None or _way_round(led[1]) in ways:
            continue
        ways.add(_way_round(led[1]))
        tried = search.place(leader)
        if tried is not None and all(tried[0] != t[0] for t in tries):
            tries.append(tried)
            if search.complete(tried):
                break  # no try can engage more
    # best first; sorted() is stable, so equal tries keep their order (deterministic)
    ranked = sorted(tries, key=lambda t: _standing(unit, t[0], targets), reverse=True)
    for placement in ranked[:JUDGED_TRIES]:
        candidate = _suggested(move, placement)
        if adjudicate_move(situation, candidate).legal:
            return candidate
    return _suggested(move, ranked[0])


def _way_round(route: Sequence[Waypoint]) -> bool | None:
    """Which way a route goes round what is in its way: whether the corner it bends at farthest
    from the straight line between its ends is on that line's left (None for a straight
    route). Models going round the same side of a block share it."""
    (x0, y0), (x1, y1) = route[0][:2], route[-1][:2]
    sides = [(x1 - x0) * (p[1] - y0) - (y1 - y0) * (p[0] - x0) for p in route[1:-1]]
    return max(sides, key=abs) < 0 if sides else None


def _suggested(move: Move, placement: Placement) -> Move:
    """`move` with a try's ends, and the routes that bend as its paths."""
    placed, routes = placement
    end = {mid: Pose(c.x, c.y, c.z, c.facing) for mid, c in placed.items()}
    paths = {
        mid: tuple((p[0], p[1], 0.0) for p in pts[1:-1])
        for mid, pts in routes.items()
        if len(pts) > 2
    }
    return replace(move, end=MappingProxyType(end), paths=MappingProxyType(paths))


class _ChargeSearch:
    """What the tries of one charge suggestion share: the unit, its targets, the maximum
    distance, each model's way of moving, and the ring spots and paths each model finds (the
    same in every try, `memo`)."""

    #: The rings tried in turn: base contact, within 1", within engagement range.
    TIERS = ((0.0,), (0.5, CHARGE_CLOSE - 0.01), (ENGAGEMENT_RANGE.horizontal - 0.01,))

    def __init__(
        self, situation: Situation, move: Move, targets: tuple[Unit, ...], max_distance: float
    ):
        self.situation = situation
        self.unit = unit = situation.unit(move.unit)
        self.targets = targets
        self.max_distance = max_distance
        # each model as it moves (RULES.md 1.7: in a unit taking to the skies, only FLY models)
        self.modes = {m.id: mode_for(unit, move.type, move.declarations, m) for m in unit.models}
        self.target_models = [t for u in targets for t in u.models]
        self.non_targets = [e for e in situation.enemies_of(unit) if e not in targets]
        self.order = sorted(unit.models, key=lambda m: _distance_to(m, targets) if targets else 0.0)
        self.memo: dict[Any, Any] = {}

    def complete(self, placement: Placement) -> bool:
        """Every target engaged, the unit coherent, every model closer to a target and
        engaged with one: no other try can do better."""
        ok, engaged, _ = _standing(self.unit, placement[0], self.targets)
        return ok and engaged == len(self.unit.models)

    def in_reach(self, move: Move) -> bool:
        """Is every declared target one this roll lets the unit pick (11.02)? If not, the
        charge fails whatever the placement."""
        skies = flying.takes_to_the_skies(move)
        return all(
            _target_refusal(
                self.unit,
                t,
                _charge_reach_distance(self.unit, t, skies),
                self.max_distance,
                skies,
            )
            is None
            for t in _charge_targets(self.situation, self.unit, move)
        )

    def spot(
        self,
        m: Model,
        others: Iterable[Model],
        targets: tuple[Unit, ...],
        tiers: Sequence[Sequence[float]],
        coherent: bool = True,
    ) -> tuple[Model, list[Waypoint]] | None:
        """`_find_spot` on each tier of rings in turn, by the exact path."""
        for gaps in tiers if targets else ():
            found = _find_spot(
                self.situation,
                self.unit,
                m,
                others,
                targets,
                self.non_targets,
                gaps,
                self.max_distance,
                self.modes[m.id],
                exact_path=True,
                coherent=coherent,
                memo=self.memo,
            )
            if found:
                return found
        return None

    def place(self, leader: Model | None) -> Placement | None:
        """One try, `leader` first (None: the nearest models first); None when the leader
        cannot reach a target."""
        placement: Placement = ({}, {})
        placed, routes = placement
        if leader is not None:
            led = self.spot(leader, (), self.targets, self.TIERS)
            if led is None:
                return None
            placed[leader.id], routes[leader.id] = led
        # Every target must end engaged: first send the model nearest to each target at it.
        for target in self.targets if len(self.targets) > 1 else ():
            if any(in_engagement_range(p, t) for p in placed.values() for t in target.models):
                continue  # the leader engages it already
            free = [m for m in self.unit.models if m.id not in placed]
            for m in sorted(free, key=lambda m: _distance_to(m, (target,)))[:1]:
                # not yet coherent: the models placed next will close the gap
                found = self.spot(m, placed.values(), (target,), self.TIERS, coherent=False)
                if found:
                    placed[m.id], routes[m.id] = found
        self._the_others(placement)
        self._repair(placement)
        return placement

    def _the_others(self, placement: Placement) -> None:
        """Models that reach a spot at the target go first, in order; one that cannot (yet)
        waits until the others are placed: a model stuck behind a block would otherwise hold
        the whole unit back (every later model must end within 2" of one placed before it)."""
        placed, routes = placement
        waiting = []
        for m in self.order:
            if m.id in placed:
                continue
            # only the models placed so far count (the rest have not moved yet)
            chosen = self.spot(m, list(placed.values()), self.targets, self.TIERS)
            if chosen is None:
                waiting.append(m)
            else:
                placed[m.id], routes[m.id] = chosen
        for m in waiting:
            chosen = self.spot(m, list(placed.values()), self.targets, self.TIERS)
            if chosen is None and self.target_models:
                chosen = _towards(
                    self.situation,
                    self.unit,
                    m,
                    self.target_models,
                    self.max_distance,
                    self.modes[m.id],
                    lambda c: self._acceptable(c, placed),
                )
            if chosen is None and placed and self.targets:
                # its own way to the target leaves the unit behind (round the other side of a
                # block): end beside a model already placed instead
                chosen = _follow(
                    self.situation,
                    self.unit,
                    m,
                    list(placed.values()),
                    self.targets,
                    self.non_targets,
                    self.max_distance,
                    self.modes[m.id],
                    self.memo,
                )
            placed[m.id], routes[m.id] = chosen if chosen else (m, [(m.x, m.y)])

    def _acceptable(self, candidate: Model, placed: Mapping[str, Model]) -> bool:
        """Free, and within 2" of a model already placed (if any)."""
        mine = list(placed.values())
        if not _spot_free(self.situation, self.unit, candidate, mine, self.non_targets):
            return False
        return not mine or any(
            model_distance(candidate, p).horizontal <= COHERENCY_RANGE.horizontal for p in mine
        )

    def _repair(self, placement: Placement) -> None:
        """A better spot may be free now that everyone is placed."""
        placed, routes = placement
        for m in self.order:
            here = placed[m.id]
            if not self.target_models or within(_distance_to(here, self.targets), CHARGE_CLOSE):
                continue
            engaged = any(in_engagement_range(here, t) for t in self.target_models)
            tiers = self.TIERS[: 2 if engaged else 3]
            better = self.spot(m, _others(self.unit, placed, m), self.targets, tiers)
            if better:
                placed[m.id], routes[m.id] = better


def _standing(
    unit: Unit, placed: Mapping[str, Model], targets: tuple[Unit, ...]
) -> tuple[bool, int, int]:
    """How good a try of the charge suggestion is, to rank the tries (11.04, 03.03): (every
    target engaged, the unit coherent and every model closer to a target; the number of models
    engaged with a target; the number within 1" of one)."""
    ends = list(placed.values())
    target_models = [t for u in targets for t in u.models]
    engaged = [p for p in ends if any(in_engagement_range(p, t) for t in target_models)]
    every_target = all(
        any(in_engagement_range(p, t) for p in engaged for t in u.models) for u in targets
    )
    closer = all(
        any(_distance_to(placed[m.id], (t,)) < _distance_to(m, (t,)) - EPSILON for t in targets)
        for m in unit.models
    )
    close = sum(within(_distance_to(p, targets), CHARGE_CLOSE) for p in ends)
    return every_target and closer and coherency(ends).ok, len(engaged), close


def _follow(
    situation: Situation,
    unit: Unit,
    m: Model,
    mates: Sequence[Model],
    targets: Sequence[Unit],
    non_targets: Iterable[Unit],
    max_distance: float,
    mode: Mode,
    memo: dict[Any, Any] | None = None,
) -> tuple[Model, list[Waypoint]] | None:
    """A spot for a charging model whose own way to the targets leaves its unit behind (round
    the other side of a block, RULES.md 1.5): within 2" of a unit mate already placed (03.03,
    on rings round the mates, each base at its own extent), free, reachable, and closer to a
    target than it started (11.04); the nearest to the targets. None if there is none."""
    memo = {} if memo is None else memo
    target_models = [t for u in targets for t in u.models]
    before = {t.id: _distance_to(m, (t,)) for t in targets}
    round_base = m.base.kind == "round"
    spots = _ring_spots(m, mates, FOLLOW_RINGS, max_distance, mode.skies, situation)
    # nearest the targets first, measured between centres (cheap); each is then measured exactly
    spots.sort(
        key=lambda s: min(math.hypot(s.x - t.x, s.y - t.y) - t.base.radius for t in target_models)
    )
    for spot in spots:
        check("placing a charging model beside its unit")
        # the cheap tests first
        if not _clear_of(spot, mates) or not _linked(spot, mates):
            continue
        if not any(_distance_to(spot, (t,)) < before[t.id] - EPSILON for t in targets):
            continue
        path = None
        if round_base:  # its reachable region answers at once: before the longer tests
            path = _way_to(situation, unit, m, spot, mode, max_distance, memo)
            if path is None:
                continue
        key = ("free", m.id, spot.x, spot.y, spot.z)  # the same spot comes back in later tries
        if key not in memo:
            memo[key] = _spot_free(situation, unit, spot, (), non_targets, m)
        if not memo[key]:
            continue
        if path is None:  # another base's path is a search: only for a spot it may end on
            path = _way_to(situation, unit, m, spot, mode, max_distance, memo)
        if path is not None:
            return spot, path
    return None


def _towards(
    situation: Situation,
    unit: Unit,
    m: Model,
    target_models: Sequence[Model],
    max_distance: float,
    mode: Mode,
    acceptable: Callable[[Model], bool],
) -> tuple[Model, list[Waypoint]] | None:
    """Move as far as allowed along the shortest path towards the nearest target model."""
    nearest = min(target_models, key=lambda t: math.hypot(t.x - m.x, t.y - m.y))
    gap = nearest.base.radius + m.base.radius + 1e-4
    d = math.hypot(nearest.x - m.x, nearest.y - m.y) or 1.0
    goal = m.placed(
        nearest.x + (m.x - nearest.x) / d * gap, nearest.y + (m.y - nearest.y) / d * gap, 0.0
    )
    pts, horizontal, vertical, found = plan_path(situation, unit, m, goal, mode, limit=max_distance)
    if not found:
        return None
    line = LineString(pts) if len(pts) > 1 else None
    if line is None:
        return None
    for fraction in (1.0, 0.95, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1):
        budget = min(line.length, max_distance - vertical) * fraction
        p = line.interpolate(budget)
        c = m.placed(p.x, p.y, 0.0)
        if acceptable(c):
            cut = [q for q in pts if LineString(pts).project(Point(q)) < budget - 1e-9]
            return c, [*cut, (p.x, p.y)]
    return None


def reach(situation: Situation, move: Move) -> list[tuple[Any, str]]:
    """Where the moving unit's models can end, for the table overlay: [(geometry, "ground" |
    "skies")], the union of each model's reachable region (never includes unreachable ground),
    then on the ground one entry per upper floor the unit can reach, kind 'floor 3"' with its
    height (`floor_reach`, RULES.md 1.5).

    The maximum distance is the move's: M, M + the advance die, the charge dice (entered dice
    only: before the roll there is no distance yet, so InvalidInput), less 2" in the skies.
    Move types this module does not judge raise NotImplementedError.
    """
    if situation.system != "wh40k-11e" or move.type not in RULES:
        raise NotImplementedError(f"no reachable region for {move.type} moves")
    unit = situation.unit(move.unit)
    if move.type in ("advance", "charge") and move.dice is None:
        raise InvalidInput("dice", f"the {move.type} roll sets how far the unit can go")
    max_distance = _max_distance(situation, unit, move, Verdict(move={}), Dice(move.dice))
    mode = mode_for(unit, move.type, move.declarations)
    # each model by its own keywords too (a MONSTER of an INFANTRY unit crosses infantry)
    regions = reachable_regions(
        situation,
        unit.models,
        max_distance,
        [mode_for(unit, move.type, move.declarations, m) for m in unit.models],
        estimate_first=True,
    )
    ground = [(shapely.union_all(regions), "skies" if mode.skies else "ground")]
    return ground if mode.skies else ground + floor_reach(situation, unit, max_distance)
