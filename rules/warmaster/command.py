"""The Command phase for flyers: initiative charges, orders and order moves (RULES.md 2.3, 2.5).

State fields read (FORMAT.md `units[].state`, plus the ones Arbiter adds, documented here):
- `confused`, `spell_prevents_movement`, `orders_this_phase` (int) on the ordered unit;
- `command` (int, the Command value) on the character giving the order;
- added: `ordered_by` (the character whose orders the unit took earlier this phase), `stands_lost`
  (int, stands the unit has lost: -1 each to the order roll) and `in_dense_terrain` (bool: -1).
A successful order updates `orders_this_phase` and `ordered_by`; an initiative move sets
`initiative_moved`. The phase runs in the order of 2.3 (initiative, home back, orders, character
moves), so initiative is refused after `homed_back` or orders, and a character whose
`moved_this_phase` is set (a `character-move` sets it) gives no more orders.
"""

from __future__ import annotations

import math
from types import MappingProxyType

from ..dice import Dice
from ..errors import InvalidInput
from ..geometry import EPSILON, within
from ..move import Move, Pose
from ..situation import Situation, Unit
from ..verdict import Finding, Verdict
from .flying import (
    COMMAND_RANGE,
    FLYER_CHARGE,
    FLYER_IRREGULAR_CHARGE,
    FLYER_PACE,
    check_distances,
    check_flown_end,
    end_models,
    engaged,
    finish,
    fmt,
    new_verdict,
    phase_check,
    refuse_ground_unit,
    touching_enemy_units,
)
from .stands import formation, is_character, unit_distance
from .terrain import unit_sees

RULE_ORDERS = "flying-units/orders"
RULE_COMMAND = "command/orders"
RULE_INITIATIVE = "flying-units/initiative"
RULE_CHARGE = "flying-units/moving"
RULE_FORTIFIED = "flying-units/fortified"
RULE_SIGHT = "flying-units/sight"
MAX_ORDERS = 3
INITIATIVE_RANGE = 20.0


def unit_index(situation: Situation, unit: Unit) -> int:
    return next(i for i, u in enumerate(situation.units) if u.id == unit.id)


def character_of(situation: Situation, move: Move, declaration: str) -> Unit:
    char_id = move.declared(declaration)
    if not char_id:
        raise InvalidInput(f"declarations.{declaration}", "name the character unit (its id)")
    if not situation.has_unit(char_id):
        raise InvalidInput(
            f"declarations.{declaration}", f"no unit with id {char_id!r} in this scenario"
        )
    return situation.unit(char_id)


def order_penalties(situation: Situation, unit: Unit, character: Unit) -> list[tuple[str, int]]:
    """2.3: the modifiers to the order roll, as (reason, value) pairs."""
    penalties = []
    gap = unit_distance(character.models, unit.models)
    steps = 0 if within(gap, COMMAND_RANGE) else math.ceil((gap - COMMAND_RANGE) / 20.0 - EPSILON)
    if steps:
        penalties.append((f"{fmt(gap)} cm from the character", -steps))
    earlier = int(unit.state.get("orders_this_phase", 0) or 0)
    if earlier:
        penalties.append((f"{earlier} order(s) already this phase", -earlier))
    if any(within(unit_distance(e.models, unit.models), 20.0) for e in situation.enemies_of(unit)):
        penalties.append(("an enemy within 20 cm", -1))
    if unit.flag("in_dense_terrain"):
        penalties.append(("in dense terrain", -1))
    lost = int(unit.state.get("stands_lost", 0) or 0)
    if lost:
        penalties.append((f"{lost} stand(s) lost", -lost))
    return penalties


def check_order(verdict: Verdict, situation: Situation, unit: Unit, move: Move, dice: Dice) -> bool:
    """2.3: may this flyer be ordered by the declared character, and does the 2D6 roll pass?"""
    character = character_of(situation, move, "ordered_by")
    ok = verdict.check(
        RULE_COMMAND,
        "eligible-if",
        is_character(character) and character.army == unit.army,
        character.id,
        f"{character.id} is a friendly character who can give orders."
        if is_character(character) and character.army == unit.army
        else f"{character.id} is not a friendly character, so it cannot give orders.",
    )
    ok &= verdict.check(
        RULE_COMMAND,
        "eligible-if",
        not unit.flag("confused"),
        unit.id,
        f"{unit.id} is not confused."
        if not unit.flag("confused")
        else f"{unit.id} is confused and cannot be given orders this phase.",
    )
    ok &= verdict.check(
        RULE_COMMAND,
        "eligible-if",
        not unit.flag("spell_prevents_movement"),
        unit.id,
        "No spell stops this unit moving."
        if not unit.flag("spell_prevents_movement")
        else f"A spell prevents {unit.id} from moving.",
    )
    earlier = int(unit.state.get("orders_this_phase", 0) or 0)
    ok &= verdict.check(
        RULE_COMMAND,
        "eligible-if",
        earlier < MAX_ORDERS,
        unit.id,
        f"{unit.id} has had {earlier} order(s) this phase; a unit takes at most {MAX_ORDERS}.",
        earlier,
        MAX_ORDERS - 1,
    )
    previous = unit.state.get("ordered_by")
    if earlier and previous:
        ok &= verdict.check(
            RULE_COMMAND,
            "eligible-if",
            previous == character.id,
            unit.id,
            f"All of a unit's orders in a phase come from one character ({previous}).",
        )
    # 2.3: character moves come after orders, so a character that has moved gives no more.
    if character.flag("moved_this_phase"):
        ok &= verdict.check(
            RULE_COMMAND,
            "eligible-if",
            False,
            character.id,
            f"{character.id} has already made its own move; characters move after giving "
            "their orders, so it gives no more this phase.",
        )
    gap = unit_distance(character.models, unit.models)
    ok &= verdict.check(
        RULE_ORDERS,
        "eligible-if",
        within(gap, COMMAND_RANGE),
        unit.id,
        f"{character.id} is {fmt(gap)} cm from {unit.id}; a flying unit takes orders only "
        f"from a character within {fmt(COMMAND_RANGE)} cm.",
        gap,
        COMMAND_RANGE,
    )
    if not ok:
        return False
    command = character.state.get("command")
    if isinstance(command, bool) or not isinstance(command, int):
        raise InvalidInput(
            f"units[{unit_index(situation, character)}].state.command",
            "the character giving the order needs its Command value (an integer)",
        )
    penalties = order_penalties(situation, unit, character)
    needed = command + sum(v for _, v in penalties)
    rolled = dice.roll(2)
    total = sum(rolled)
    why = ", ".join(f"{v} for {r}" for r, v in penalties) or "no modifiers"
    return verdict.check(
        RULE_COMMAND,
        "before-moving",
        total <= needed,
        unit.id,
        f"The order roll {rolled[0]} + {rolled[1]} = {total} must be at most Command "
        f"{command} with {why}: {needed}."
        + ("" if total <= needed else " The order fails and the unit stays put."),
        total,
        needed,
    )


def charge_limit(unit: Unit, move: Move) -> tuple[float, str]:
    """2.5: 60 cm for a flyer's charge, 10 cm from irregular formation (declared or seen)."""
    shape = formation(unit.models)
    if move.declared("irregular") or shape == "irregular":
        return FLYER_IRREGULAR_CHARGE, "a flyer's charge from irregular formation"
    return FLYER_CHARGE, "a flyer's charge"


def check_charge_contact(
    verdict: Verdict, situation: Situation, unit: Unit, ends, targets: list[str], rule: str
) -> list[str]:
    touched = touching_enemy_units(situation, unit, ends)
    wanted = [t for t in targets if t in touched] if targets else touched
    verdict.check(
        rule,
        "after-moving",
        bool(wanted),
        unit.id,
        f"{unit.id} ends in contact with {', '.join(wanted)}."
        if wanted
        else f"A charge must end touching {' or '.join(targets) if targets else 'an enemy unit'}.",
    )
    for enemy_id in touched:
        enemy = situation.unit(enemy_id)
        if enemy.flag("fortified") or move_declares_fortified(verdict):
            verdict.check(
                RULE_FORTIFIED,
                "after-moving",
                True,
                enemy_id,
                f"Flyers may attack {enemy_id} even though it is fortified, but it still "
                "counts as fortified against them.",
            )
    return touched


def check_charge_sight(verdict: Verdict, situation: Situation, unit: Unit, targets) -> None:
    """2.3: a flyer charges an enemy it can see from where it starts, as a ground unit would;
    flying over things does not let it see past them. (The initiative charge finds its target
    by sight already.)"""
    if not targets:
        return  # no enemy reached: the contact finding already refuses the charge
    for t in targets:
        if not situation.has_unit(t):
            raise InvalidInput("declarations.charge_targets", f"no unit with id {t!r}")
    seen = [t for t in targets if unit_sees(situation, unit, situation.unit(t))]
    verdict.check(
        RULE_SIGHT,
        "before-moving",
        bool(seen),
        unit.id,
        f"{unit.id} can see {', '.join(seen)} from where it starts."
        if seen
        else f"{unit.id} cannot see {' or '.join(targets)} from where it starts: stands and "
        "terrain block a flyer's view as they block any unit's, so it cannot charge there.",
    )


def move_declares_fortified(verdict: Verdict) -> bool:
    return bool(verdict.move.get("fortified"))


def closest_visible_enemies(situation: Situation, unit: Unit) -> tuple[list[Unit], float]:
    """2.3: the closest enemy units the flyer can see (several when equally close, within
    EPSILON: the player picks one), and their distance."""
    seen = [
        (unit_distance(unit.models, e.models), e)
        for e in situation.enemies_of(unit)
        if unit_sees(situation, unit, e)
    ]
    if not seen:
        return [], math.inf
    gap = min(d for d, _ in seen)
    return [e for d, e in seen if d <= gap + EPSILON], gap


def _common_eligibility(verdict: Verdict, situation: Situation, unit: Unit, rule: str) -> None:
    phase_check(verdict, situation, unit, "command", rule)
    busy = engaged(situation, unit)
    verdict.check(
        rule,
        "eligible-if",
        not busy,
        unit.id,
        f"{unit.id} is not in combat."
        if not busy
        else f"{unit.id} is touching enemy {', '.join(busy)} and cannot move in the Command phase.",
    )


def adjudicate_initiative_charge(situation: Situation, move: Move) -> Verdict:
    """2.3: a flyer may use initiative to charge the closest enemy it can see within 20 cm."""
    unit = situation.unit(move.unit)
    limit, why = charge_limit(unit, move)
    verdict = new_verdict(move, max_distance=limit)
    if move.declared("fortified"):
        verdict.move["fortified"] = True
    if not refuse_ground_unit(verdict, unit):
        return verdict
    _common_eligibility(verdict, situation, unit, RULE_INITIATIVE)
    for flag, text in (
        ("confused", "is confused"),
        ("spell_prevents_movement", "is held by a spell"),
    ):
        verdict.check(
            RULE_INITIATIVE,
            "eligible-if",
            not unit.flag(flag),
            unit.id,
            f"{unit.id} {text} and cannot use initiative."
            if unit.flag(flag)
            else f"{unit.id} is free to use initiative.",
        )
    # 2.3: initiative moves come first in the phase, one per unit
    for flag, text in (
        ("initiative_moved", "has already charged on initiative this phase"),
        ("homed_back", "has homed back, and home back comes after initiative moves"),
        ("orders_this_phase", "has taken orders, and orders come after initiative moves"),
    ):
        if unit.flag(flag):
            verdict.check(
                RULE_INITIATIVE,
                "eligible-if",
                False,
                unit.id,
                f"{unit.id} {text}, so it cannot use initiative now.",
            )
    closest, gap = closest_visible_enemies(situation, unit)
    declared = move.declared("charge_targets")
    target = next((e for e in closest if declared and [e.id] == list(declared)), None)
    target = target or (closest[0] if closest else None)
    found = target is not None and within(gap, INITIATIVE_RANGE)
    verdict.check(
        RULE_INITIATIVE,
        "eligible-if",
        found,
        unit.id,
        f"The closest enemy {unit.id} can see is {target.id}, {fmt(gap)} cm away (initiative "
        f"reaches {fmt(INITIATIVE_RANGE)} cm)."
        if target
        else f"{unit.id} can see no enemy unit, so it cannot charge on initiative.",
        None if target is None else gap,
        INITIATIVE_RANGE,
    )
    if target is not None and declared:
        names = " or ".join(e.id for e in closest)
        verdict.check(
            RULE_INITIATIVE,
            "before-moving",
            list(declared) == [target.id],
            unit.id,
            f"An initiative charge goes against the closest visible enemy, {names}.",
        )
    if target is not None:
        verdict.move["target"] = target.id
    if not verdict.legal or target is None:
        return verdict
    ends = end_models(unit, move)
    check_distances(verdict, unit, ends, limit, RULE_CHARGE, why)
    check_flown_end(verdict, situation, unit, ends, may_touch_enemy=True)
    check_charge_contact(verdict, situation, unit, ends, [target.id], RULE_INITIATIVE)
    verdict.events.append({"event": "charged", "unit": unit.id, "target": target.id})
    return finish(verdict, situation, ends, {unit.id: {"initiative_moved": True}})


def _adjudicate_order(situation: Situation, move: Move, charge: bool) -> Verdict:
    unit = situation.unit(move.unit)
    limit, why = charge_limit(unit, move) if charge else (FLYER_PACE, "an order move by flyers")
    verdict = new_verdict(move, max_distance=limit)
    if move.declared("fortified"):
        verdict.move["fortified"] = True
    if not refuse_ground_unit(verdict, unit):
        return verdict
    _common_eligibility(verdict, situation, unit, RULE_ORDERS)
    dice = Dice(move.dice, move.seed)
    if not verdict.legal:
        return verdict
    ordered = check_order(verdict, situation, unit, move, dice)
    verdict.move.update(dice.summary())
    if not ordered:
        return verdict
    dice.finish()
    if move.end is None:
        raise InvalidInput(
            "end",
            f"an {move.type} needs the stands' end positions; the engine does not choose them",
        )
    ends = end_models(unit, move)
    check_distances(verdict, unit, ends, limit, RULE_CHARGE, why)
    check_flown_end(verdict, situation, unit, ends, may_touch_enemy=charge)
    if charge:
        targets = list(move.declared("charge_targets") or [])
        touched = check_charge_contact(verdict, situation, unit, ends, targets, RULE_CHARGE)
        check_charge_sight(verdict, situation, unit, targets or touched)
    earlier = int(unit.state.get("orders_this_phase", 0) or 0)
    character = move.declared("ordered_by")
    return finish(
        verdict,
        situation,
        ends,
        {unit.id: {"orders_this_phase": earlier + 1, "ordered_by": character}},
    )


def adjudicate_order_move(situation: Situation, move: Move) -> Verdict:
    """2.3 / 2.5: an ordered flyer hops up to 100 cm."""
    return _adjudicate_order(situation, move, charge=False)


def adjudicate_order_charge(situation: Situation, move: Move) -> Verdict:
    """2.3 / 2.5: an ordered flyer charges up to 60 cm (10 cm from irregular formation)."""
    return _adjudicate_order(situation, move, charge=True)


def needs_end(situation: Situation, move: Move) -> Move:
    raise InvalidInput(
        "end",
        f"a {move.type} needs the player's end positions for the stands; the engine "
        "does not choose where a unit is ordered",
    )


def eligibility_of(adjudicator, move_type: str, dice: tuple[int, ...] | None = None):
    """An `eligibility` for move_options: the eligible-if findings of a trial move that leaves the
    unit where it is. Order moves without `ordered_by` try the nearest friendly character."""

    def eligibility(situation: Situation, unit_id: str, declarations: dict) -> list[Finding]:
        unit = situation.unit(unit_id)
        declarations = dict(declarations)
        if move_type.startswith("order-") and "ordered_by" not in declarations:
            chars = [u for u in situation.friends_of(unit) if is_character(u)]
            if chars:
                nearest = min(chars, key=lambda c: unit_distance(c.models, unit.models))
                declarations["ordered_by"] = nearest.id
            else:
                return [
                    Finding(
                        RULE_COMMAND,
                        "eligible-if",
                        False,
                        unit_id,
                        f"{unit_id} has no friendly character to give it orders.",
                    )
                ]
        end = {m.id: Pose(m.x, m.y, None, m.facing) for m in unit.models}
        trial = Move(
            unit_id, move_type, MappingProxyType(declarations), dice, MappingProxyType(end)
        )
        try:
            verdict = adjudicator(situation, trial)
        except InvalidInput as err:
            return [Finding("engine", "eligible-if", False, unit_id, err.message)]
        return [f for f in verdict.findings if f.stage == "eligible-if"]

    return eligibility
