"""The Command phase for flyers: initiative charges, orders and order moves (RULES.md 2.3, 2.5).

State fields read (FORMAT.md `units[].state`, plus the ones Arbiter adds, documented here):
- `confused`, `spell_prevents_movement`, `orders_this_phase` (int) on the ordered unit;
- `command` (int, the Command value) on the character giving the order;
- added: `ordered_by` (the character whose orders the unit took earlier this phase), `stands_lost`
  (int, stands the unit has lost: -1 each to the order roll) and `in_dense_terrain` (bool: -1).
- added: `orders_finished` (bool, on a unit whose character has gone on to order another unit:
  2.9, a unit finishes its orders before another is ordered).
A successful order updates `orders_this_phase` and `ordered_by`, and an order roll sets
`orders_over` on every other character that gave orders earlier this phase and `orders_finished`
on the other units its character ordered (order_sequence); an initiative move sets
`initiative_moved`. The phase runs in the order of 2.3 (initiative, home back, orders, character
moves), so initiative is refused once any unit of the army has `homed_back` or had an order
roll, and once any friendly character has `moved_this_phase` (a `character-move` sets it) no
unit of the army uses initiative, homes back or takes an order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from types import MappingProxyType

from ..dice import Dice
from ..errors import InvalidInput
from ..geometry import EPSILON, fmt, within
from ..move import Move, Pose
from ..naming import named
from ..situation import Situation, Unit
from ..systems import Offer
from ..verdict import Finding, Verdict
from .bystanders import finish_past_characters
from .flying import (
    COMMAND_RANGE,
    FLYER_CHARGE,
    FLYER_IRREGULAR_CHARGE,
    FLYER_PACE,
    check_distances,
    check_flown_end,
    check_may_still_move,
    check_out_of_combat,
    end_models,
    new_verdict,
    phase_check,
    refuse_ground_unit,
    touching_enemy_units,
)
from .stands import board, formation, is_character, overlaps, unit_distance
from .terrain import kind_of, unit_sees

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


#: 2.9: terrain kinds that are dense for the order roll (villages, broken or marshy ground, woods).
DENSE_KINDS = frozenset({"woods", "village", "broken"})


def in_dense_terrain(situation: Situation, unit: Unit) -> bool:
    """2.9: any stand even partly in dense terrain (or the scenario's `in_dense_terrain`)."""
    if unit.flag("in_dense_terrain"):
        return True
    return any(
        kind_of(situation, f) in DENSE_KINDS and overlaps(m.footprint, f.footprint)
        for f in situation.terrain
        for m in unit.models
    )


def order_penalties(situation: Situation, unit: Unit, character: Unit) -> list[tuple[str, int]]:
    """2.9: the modifiers to the order roll, as (reason, value) pairs, all adding up."""
    penalties = []
    gap = unit_distance(character.models, unit.models)
    # -1 per full 20 cm beyond 20 cm; a flyer is only ordered from within 20 cm, so always 0.
    steps = 0 if within(gap, COMMAND_RANGE) else math.floor((gap - COMMAND_RANGE) / 20.0 + EPSILON)
    if steps:
        penalties.append((f"{fmt(gap)} cm from the character", -steps))
    earlier = int(unit.state.get("orders_this_phase", 0) or 0)
    if earlier:
        which = {1: "the 2nd order", 2: "the 3rd order"}.get(earlier, f"order {earlier + 1}")
        penalties.append((which, -earlier))
    b = board(situation)
    enemies = [e for e in situation.enemies_of(unit) if e.id not in b.characters]
    near = min((unit_distance(e.models, unit.models) for e in enemies), default=math.inf)
    if within(near, 20.0):
        penalties.append((f"the closest enemy unit {fmt(near)} cm away", -1))
    if in_dense_terrain(situation, unit):
        penalties.append(("in dense terrain", -1))
    lost = int(unit.state.get("stands_lost", 0) or 0)
    if lost:
        penalties.append((f"{lost} stand(s) lost", -lost))
    return penalties


def army_order_rolls(situation: Situation, unit: Unit) -> list[str]:
    """2.9: the friendly units that have had an order roll this phase (passed or failed)."""
    return [
        u.id
        for u in situation.units
        if u.army == unit.army and int(u.state.get("orders_this_phase", 0) or 0) > 0
    ]


def army_characters_moved(situation: Situation, unit: Unit) -> list[str]:
    """2.9: the friendly characters that have made their own move this phase."""
    return [
        u.id for u in situation.friends_of(unit) if is_character(u) and u.flag("moved_this_phase")
    ]


def orders_over(situation: Situation, character: Unit) -> str | None:
    """2.9: why `character` gives no more orders this phase, or None: its own failed order, or
    the General's, which ends every character's orders (whether or not their own flag is set,
    e.g. in an imported or hand-edited state)."""
    if character.flag("orders_over"):
        others = [c for c in characters_who_ordered(situation, character) if c != character.id]
        if others:
            return (
                f"{named(character)}'s orders are over for this phase: it failed one, or "
                f"{', '.join(map(named, others))} has given orders since, and a character "
                "finishes all its orders before another starts."
            )
        return (
            f"{named(character)} has failed an order this phase (or the General has), which ends "
            "its orders for the phase."
        )
    for other in situation.friends_of(character):
        if is_character(other) and other.has("GENERAL") and other.flag("orders_over"):
            return (
                f"{named(other)}, the General, has failed an order this phase, which ends all "
                f"orders for the phase, {named(character)}'s too."
            )
    return None


def characters_who_ordered(situation: Situation, unit: Unit) -> list[str]:
    """The friendly characters (of `unit`'s army) that have given an order this phase, read from
    the `ordered_by` of the units that have had an order roll."""
    return sorted(
        {
            str(u.state["ordered_by"])
            for u in situation.units
            if u.army == unit.army
            and u.state.get("ordered_by")
            and int(u.state.get("orders_this_phase", 0) or 0) > 0
        }
    )


def order_sequence(
    verdict: Verdict, situation: Situation, unit: Unit, character: Unit
) -> dict[str, dict]:
    """2.9: what an order by `character` to `unit` finishes, as state for the situation after.
    A character finishes all its orders before another starts: every other friendly character
    that has given orders this phase is done (`orders_over`). A unit finishes its orders before
    another is ordered: the other units this character has ordered are done (`orders_finished`).
    A passed finding names each one newly finished."""
    state: dict[str, dict] = {}
    for other in characters_who_ordered(situation, unit):
        if other != character.id and not situation.unit(other).flag("orders_over"):
            state[other] = {"orders_over": True}
            verdict.check(
                rule=RULE_COMMAND,
                stage="after-moving",
                passed=True,
                subject=other,
                text=f"{named(character)} now gives orders, so {named(other)}'s orders are over "
                "for this phase: a character finishes all its orders before another starts.",
            )
    for u in situation.friends_of(unit):
        if (
            u.id != unit.id
            and u.state.get("ordered_by") == character.id
            and int(u.state.get("orders_this_phase", 0) or 0) > 0
            and not u.flag("orders_finished")
        ):
            state[u.id] = {"orders_finished": True}
            verdict.check(
                rule=RULE_COMMAND,
                stage="after-moving",
                passed=True,
                subject=u.id,
                text=f"{named(character)} now orders {named(unit)}, so {named(u)} takes no more "
                "orders this phase: a unit finishes its orders before another is ordered.",
            )
    return state


def order_offer(situation: Situation, unit_id: str, dice: Dice, declarations) -> Offer:
    """2.3 / 2.9, for the stepper before the roll: the characters who may order this flyer now.
    A flyer takes orders only from a friendly character within COMMAND_RANGE of it; a character
    whose orders are over this phase gives no more; once the unit has had an order this phase,
    only the character who gave it may order it again. Each is offered with its distance."""
    unit = situation.unit(unit_id)
    earlier = int(unit.state.get("orders_this_phase", 0) or 0)
    previous = unit.state.get("ordered_by") if earlier else None
    choices = []
    for character in situation.friends_of(unit):
        if not is_character(character) or orders_over(situation, character):
            continue
        if previous and character.id != previous:
            continue
        gap = unit_distance(character.models, unit.models)
        if within(gap, COMMAND_RANGE):
            choices.append((character.id, f"{named(character)}, {fmt(gap)} cm away"))
    general = next(
        (c for c in situation.friends_of(unit) if c.has("GENERAL") and c.flag("orders_over")), None
    )
    moved = army_characters_moved(situation, unit)
    if moved:
        choices = []  # orders come before character moves (2.9), as order_sequence judges
        why = (
            f"{', '.join(map(named, moved))} has already moved, and orders come before "
            "characters move"
        )
    elif unit.flag("orders_finished"):
        choices = []
        why = "its orders are finished: a unit finishes its orders before another is ordered"
    elif general is not None and is_character(general):
        why = (
            f"{named(general)}, the General, has failed an order, which ends all orders this phase"
        )
    elif previous:
        why = f"only {previous}, who gave its earlier order this phase, may order it"
    else:
        why = f"a flyer takes orders only from a friendly character within {fmt(COMMAND_RANGE)} cm"
    return Offer(
        tuple(choices),
        empty=f"No character can order {named(unit)} now: {why}.",
    )


def enemy_unit_offer(verb: str):
    """2.9, for the stepper before the roll: the offer of the enemy units a flyer may `verb`
    (charge or pursue). A character, alone or joined, is not a unit and a unit never targets
    one (refuse_character_target; a lone one the flyers touch is displaced instead), so none is
    offered."""

    def offer(situation: Situation, unit_id: str, dice: Dice, declarations) -> Offer:
        unit = situation.unit(unit_id)
        choices = tuple(
            (e.id, f"{e.name} ({e.id})") for e in situation.enemies_of(unit) if not is_character(e)
        )
        return Offer(
            choices,
            empty=f"{named(unit)} has no enemy unit to {verb}: characters are not units and a "
            f"unit never {verb}s one (2.9).",
        )

    return offer


def check_before_orders(verdict: Verdict, situation: Situation, unit: Unit, rule: str) -> None:
    """2.9: initiative and home back come before any order: refused once any friendly order
    roll has been made this phase ([house]: a failed roll counts), and once any friendly
    character has made its own move (the last sub-phase, which ends orders too)."""
    moved = army_characters_moved(situation, unit)
    rolls = army_order_rolls(situation, unit)
    for too_late, text in (
        (
            moved,
            f"{', '.join(map(named, moved))} has already made its own move; characters move "
            "last in the Command phase, after initiative, home back and orders, so it is too "
            "late for initiative or home back now.",
        ),
        (
            rolls,
            f"Orders have already been given in this army this phase ({', '.join(rolls)}); "
            "initiative and home back come before any order, so it is too late now "
            "(a failed order roll counts too [house]).",
        ),
    ):
        if too_late:
            verdict.check(rule=rule, stage="eligible-if", passed=False, subject=unit.id, text=text)


def check_order(verdict: Verdict, situation: Situation, unit: Unit, move: Move, dice: Dice) -> bool:
    """2.3: may this flyer be ordered by the declared character, and does the 2D6 roll pass?"""
    character = character_of(situation, move, "ordered_by")
    ok = verdict.check(
        rule=RULE_COMMAND,
        stage="eligible-if",
        passed=is_character(character) and character.army == unit.army,
        subject=character.id,
        pass_text=f"{named(character)} is a friendly character who can give orders.",
        fail_text=f"{named(character)} is not a friendly character, so it cannot give orders.",
    )
    ok &= verdict.check(
        rule=RULE_COMMAND,
        stage="eligible-if",
        passed=not unit.flag("confused"),
        subject=unit.id,
        pass_text=f"{named(unit)} is not confused.",
        fail_text=f"{named(unit)} is confused and cannot be given orders this phase.",
    )
    ok &= verdict.check(
        rule=RULE_COMMAND,
        stage="eligible-if",
        passed=not unit.flag("spell_prevents_movement"),
        subject=unit.id,
        pass_text="No spell stops this unit moving.",
        fail_text=f"A spell prevents {named(unit)} from moving.",
    )
    earlier = int(unit.state.get("orders_this_phase", 0) or 0)
    ok &= verdict.check(
        rule=RULE_COMMAND,
        stage="eligible-if",
        passed=earlier < MAX_ORDERS,
        subject=unit.id,
        text=f"{named(unit)} has had {earlier} order(s) this phase; a unit takes at most "
        f"{MAX_ORDERS}.",
        measured=earlier,
        limit=MAX_ORDERS - 1,
    )
    previous = unit.state.get("ordered_by")
    if earlier and previous:
        ok &= verdict.check(
            rule=RULE_COMMAND,
            stage="eligible-if",
            passed=previous == character.id,
            subject=unit.id,
            text=f"All of a unit's orders in a phase come from one character ({previous}).",
        )
    # 2.9: character moves come after all orders: once any friendly character has moved, no
    # more orders are given this phase.
    moved = army_characters_moved(situation, unit)
    if moved:
        ok &= verdict.check(
            rule=RULE_COMMAND,
            stage="eligible-if",
            passed=False,
            subject=character.id,
            text=(
                f"{', '.join(map(named, moved))} has already made its own move; characters move "
                "after all "
                "orders are given, so no more orders this phase."
            ),
        )
    over = orders_over(situation, character)
    if over:
        ok &= verdict.check(
            rule=RULE_COMMAND, stage="eligible-if", passed=False, subject=character.id, text=over
        )
    if unit.flag("orders_finished"):
        ok &= verdict.check(
            rule=RULE_COMMAND,
            stage="eligible-if",
            passed=False,
            subject=unit.id,
            text=f"{named(unit)}'s orders are finished for this phase: "
            f"{named(previous or character)} went on to order another unit, and a unit finishes "
            "its orders before another is ordered.",
        )
    for flag, text in (
        ("initiative_moved", "moved by initiative this phase, so it cannot be ordered"),
        ("charged", "charged this phase, so it takes no more orders"),
    ):
        if unit.flag(flag):
            ok &= verdict.check(
                rule=RULE_COMMAND,
                stage="eligible-if",
                passed=False,
                subject=unit.id,
                text=f"{named(unit)} {text}.",
            )
    gap = unit_distance(character.models, unit.models)
    ok &= verdict.check(
        rule=RULE_ORDERS,
        stage="eligible-if",
        passed=within(gap, COMMAND_RANGE),
        subject=unit.id,
        text=(
            f"{named(character)} is {fmt(gap)} cm from {named(unit)}; a flying unit takes orders "
            "only "
            f"from a character within {fmt(COMMAND_RANGE)} cm."
        ),
        measured=gap,
        limit=COMMAND_RANGE,
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
    passed = total <= needed and total != 12
    # 2.9: a failed order does not refuse the move (a first one still allows half pace): this
    # finding records the roll, and failed_order's findings and event report the failure. So a
    # failed roll carries no limit, which its measure would exceed under a passed finding.
    verdict.check(
        rule=RULE_COMMAND,
        stage="before-moving",
        passed=True,
        subject=unit.id,
        text=(
            f"The order roll {rolled[0]} + {rolled[1]} = {total} is compared with Command "
            f"{command} with {why}: {needed}. "
            + ("The order is passed." if passed else "The order fails.")
        ),
        measured=total,
        limit=needed if passed else None,
    )
    return passed


#: 2.9: a flyer's half-pace move after a failed first order (cm; flown [house]).
FLYER_HALF_PACE = 10.0


def failed_order(
    verdict: Verdict, situation: Situation, unit: Unit, move: Move, total: int
) -> Verdict:
    """2.9: what a unit may do after a failed order roll, and what the failure ends."""
    character = character_of(situation, move, "ordered_by")
    earlier = int(unit.state.get("orders_this_phase", 0) or 0)
    general = character.has("GENERAL")
    blunder = total == 12 and not general
    if total == 12 and general:
        limit, why = 0.0, "The General rolled 12: the order fails and the unit may not move at all"
    elif blunder:
        limit, why = (
            0.0,
            (
                f"{named(character)} rolled 12: a blunder. The unit makes no half-pace move; "
                "roll a D6 "
                "on the Blunder table (Arbiter does not judge the blunder's result)"
            ),
        )
        verdict.events.append({"event": "blunder-roll", "unit": unit.id, "dice": "D6"})
    elif earlier == 0:
        limit, why = (
            FLYER_HALF_PACE,
            (
                "A failed first order lets the unit move half pace, 10 cm for flyers (flown "
                "[house]), without charging or ending touching an enemy"
            ),
        )
    else:
        limit, why = 0.0, "A failed later order: the unit does not move"
    ends = end_models(unit, move) if move.end is not None else list(unit.models)
    verdict.check(
        rule=RULE_COMMAND,
        stage="before-moving",
        passed=True,
        subject=unit.id,
        text=why + ".",
        measured=None,
        limit=limit,
    )
    check_distances(verdict, unit, ends, limit, RULE_COMMAND, "after a failed order, the unit")
    check_flown_end(verdict, situation, unit, ends, may_touch_enemy=False)
    ends_text = (
        "all orders for the phase (the General failed)"
        if general
        else (f"{named(character)}'s orders for the phase")
    )
    verdict.check(
        rule=RULE_COMMAND,
        stage="after-moving",
        passed=True,
        subject=character.id,
        text=f"The failed order ends {ends_text}.",
    )
    verdict.events.append(
        {"event": "order-failed", "unit": unit.id, "roll": total, "by": move.declared("ordered_by")}
    )
    state: dict[str, dict] = {
        unit.id: {"orders_this_phase": earlier + 1, "ordered_by": character.id}
    }
    if verdict.legal:
        state.update(order_sequence(verdict, situation, unit, character))
    over = [c for c in situation.friends_of(unit) if is_character(c)] if general else [character]
    for c in over:
        state[c.id] = {"orders_over": True}
    return finish_past_characters(verdict, situation, unit, ends, state)


def charge_limit(unit: Unit) -> tuple[float, str]:
    """2.5: 60 cm for a flyer's charge, 10 cm from irregular formation: the formation the stands
    stand in (2.1), whatever the move declares (check_declared_formation judges that)."""
    if formation(unit.models) == "irregular":
        return FLYER_IRREGULAR_CHARGE, "a flyer's charge from irregular formation"
    return FLYER_CHARGE, "a flyer's charge"


def check_declared_formation(verdict: Verdict, unit: Unit, move: Move) -> None:
    """2.5, 2.9: `declarations.irregular` (FORMAT.md) must agree with the formation the stands
    stand in. The stands decide the limit (a charge from irregular formation goes 10 cm, 2.5;
    an ordered move from it half pace, 2.9); a declaration that says otherwise means the
    scenario and the table disagree, which the umpire wants to hear about rather than have one
    of them silently win."""
    declared = move.declared("irregular")
    if declared is None:
        return
    charge = move.type.endswith("charge")
    what = "charge" if charge else "move"
    shape = formation(unit.models)
    said = "in irregular formation" if declared else "in a regular formation (line or column)"
    stands = "in irregular formation" if shape == "irregular" else f"in a {shape}"
    verdict.check(
        rule=RULE_CHARGE,
        stage="before-moving",
        passed=bool(declared) == (shape == "irregular"),
        subject=unit.id,
        pass_text=f"{named(unit)} {'charges' if charge else 'moves'} {said}, as its stands stand.",
        fail_text=f"The {what} declares {named(unit)} {said}, but its stands stand {stands}; "
        f"the formation the stands are in sets the {what}'s limit, so correct the declaration "
        "or the stands' positions.",
    )


def check_charge_contact(
    verdict: Verdict, situation: Situation, unit: Unit, ends, targets: list[str], rule: str
) -> list[str]:
    touched = touching_enemy_units(situation, unit, ends)
    wanted = [t for t in targets if t in touched] if targets else touched
    verdict.check(
        rule=rule,
        stage="after-moving",
        passed=bool(wanted),
        subject=unit.id,
        pass_text=f"{named(unit)} ends in contact with {', '.join(map(named, wanted))}.",
        fail_text="A charge must end touching "
        f"{' or '.join(map(named, targets)) if targets else 'an enemy unit'}.",
    )
    for enemy_id in touched:
        enemy = situation.unit(enemy_id)
        if enemy.flag("fortified") or move_declares_fortified(verdict):
            verdict.check(
                rule=RULE_FORTIFIED,
                stage="after-moving",
                passed=True,
                subject=enemy_id,
                text=(
                    f"Flyers may attack {named(enemy_id)} even though it is fortified, but it "
                    "still "
                    "counts as fortified against them."
                ),
            )
    return touched


def refuse_character_target(
    verdict: Verdict,
    situation: Situation,
    unit: Unit,
    target: str,
    rule: str,
    verb: str = "charge",
    instead: str = "a lone enemy character the flyers end touching is displaced instead",
    stage: str = "before-moving",
) -> bool:
    """2.9: a unit never targets a character: it never charges one (one it flies into touch
    with is displaced, or slain, instead) nor pursues one. True, with the failed finding, when
    `target` is one; `verb` names the move ("charge", "pursue"), `instead` what happens
    instead, `stage` the finding's stage."""
    if not situation.has_unit(target) or not is_character(situation.unit(target)):
        return False
    verdict.check(
        rule=rule,
        stage=stage,
        passed=False,
        subject=unit.id,
        text=f"{named(target)} is a character: a unit can never {verb} a character (2.9); "
        f"{instead}.",
    )
    return True


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
        rule=RULE_SIGHT,
        stage="before-moving",
        passed=bool(seen),
        subject=unit.id,
        pass_text=f"{named(unit)} can see {', '.join(map(named, seen))} from where it starts.",
        fail_text=f"{named(unit)} cannot see {' or '.join(map(named, targets))} from where it "
        "starts: stands and "
        "terrain block a flyer's view as they block any unit's, so it cannot charge there.",
    )


def move_declares_fortified(verdict: Verdict) -> bool:
    return bool(verdict.move.get("fortified"))


def may_ignore_fortified(enemy: Unit) -> bool:
    """2.9: initiative may pass over an enemy unit that is fortified infantry or artillery."""
    return enemy.flag("fortified") and (enemy.has("INFANTRY") or enemy.has("ARTILLERY"))


def closest_visible_enemies(
    situation: Situation, unit: Unit, skip: Iterable[str] = ()
) -> tuple[list[Unit], float]:
    """2.3 / 2.9: the closest enemy units the flyer can see (several when equally close, within
    EPSILON: the player picks one), and their distance. Characters are never targets; the units
    in `skip` (e.g. fortified infantry an initiative chooses to ignore) are not counted."""
    passed_over = set(board(situation).characters) | set(skip)
    seen = [
        (unit_distance(unit.models, e.models), e)
        for e in situation.enemies_of(unit)
        if e.id not in passed_over and unit_sees(situation, unit, e)
    ]
    if not seen:
        return [], math.inf
    gap = min(d for d, _ in seen)
    return [e for d, e in seen if d <= gap + EPSILON], gap


def _common_eligibility(verdict: Verdict, situation: Situation, unit: Unit, rule: str) -> None:
    phase_check(verdict, situation, unit, "command", rule)
    check_may_still_move(verdict, unit)
    check_out_of_combat(verdict, situation, unit, rule, " and cannot move in the Command phase.")


def adjudicate_initiative_charge(situation: Situation, move: Move) -> Verdict:
    """2.3: a flyer may use initiative to charge the closest enemy it can see within 20 cm."""
    unit = situation.unit(move.unit)
    limit, why = charge_limit(unit)
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
            rule=RULE_INITIATIVE,
            stage="eligible-if",
            passed=not unit.flag(flag),
            subject=unit.id,
            pass_text=f"{named(unit)} is free to use initiative.",
            fail_text=f"{named(unit)} {text} and cannot use initiative.",
        )
    # 2.9: initiative moves come first in the phase, one per unit, before any order roll
    check_before_orders(verdict, situation, unit, RULE_INITIATIVE)
    if unit.flag("initiative_moved"):
        verdict.check(
            rule=RULE_INITIATIVE,
            stage="eligible-if",
            passed=False,
            subject=unit.id,
            text=f"{named(unit)} has already charged on initiative this phase, so it cannot use "
            "initiative now.",
        )
    # 2.4: home backs are made after the initiative moves, so the first home back in the army
    # ends them.
    homed = [u.id for u in situation.units if u.army == unit.army and u.flag("homed_back")]
    if homed:
        verdict.check(
            rule=RULE_INITIATIVE,
            stage="eligible-if",
            passed=False,
            subject=unit.id,
            text=f"{', '.join(map(named, homed))} homed back this phase; home back comes after the "
            f"initiative moves, so {named(unit)} cannot use initiative now.",
        )
    check_declared_formation(verdict, unit, move)
    ignored = []
    if move.declared("ignore_fortified"):
        # 2.9: the player's choice; only fortified infantry and artillery may be passed over.
        ignored = [e.id for e in situation.enemies_of(unit) if may_ignore_fortified(e)]
        verdict.check(
            rule=RULE_INITIATIVE,
            stage="before-moving",
            passed=True,
            subject=unit.id,
            text=(
                f"The player chose to ignore fortified enemy infantry and artillery "
                f"({', '.join(map(named, ignored)) or 'none on the table'}) when finding the "
                "closest enemy; "
                "other fortified units still count."
            ),
        )
    closest, gap = closest_visible_enemies(situation, unit, ignored)
    declared = move.declared("charge_targets")
    target = next((e for e in closest if declared and [e.id] == list(declared)), None)
    target = target or (closest[0] if closest else None)
    found = target is not None and within(gap, INITIATIVE_RANGE)
    if target is None:
        verdict.check(
            rule=RULE_INITIATIVE,
            stage="eligible-if",
            passed=False,
            subject=unit.id,
            text=f"{named(unit)} can see no enemy unit, so it cannot charge on initiative.",
            limit=INITIATIVE_RANGE,
        )
    else:
        # One sentence either way: it states the distance against the limit.
        closest_text = (
            f"The closest enemy {named(unit)} can see is {named(target)}, {fmt(gap)} cm away "
            "(initiative "
            f"reaches {fmt(INITIATIVE_RANGE)} cm)."
        )
        verdict.check(
            rule=RULE_INITIATIVE,
            stage="eligible-if",
            passed=found,
            subject=unit.id,
            pass_text=closest_text,
            fail_text=closest_text,
            measured=gap,
            limit=INITIATIVE_RANGE,
        )
    if target is not None and declared:
        names = " or ".join(named(e) for e in closest)
        verdict.check(
            rule=RULE_INITIATIVE,
            stage="before-moving",
            passed=list(declared) == [target.id],
            subject=unit.id,
            text=f"An initiative charge goes against the closest visible enemy, {names}.",
        )
    if target is not None:
        verdict.move["target"] = target.id
    if not verdict.legal or target is None:
        return verdict
    ends = end_models(unit, move)
    check_distances(verdict, unit, ends, limit, RULE_CHARGE, why)
    check_flown_end(verdict, situation, unit, ends, may_touch_enemy=True)
    check_charge_contact(verdict, situation, unit, ends, [target.id], RULE_INITIATIVE)
    if verdict.legal:  # `charged`: the charge reached its target (docs/format.md), not an attempt
        verdict.events.append({"event": "charged", "unit": unit.id, "target": target.id})
    return finish_past_characters(
        verdict, situation, unit, ends, {unit.id: {"initiative_moved": True, "charged": True}}
    )


def _adjudicate_order(situation: Situation, move: Move, charge: bool) -> Verdict:
    unit = situation.unit(move.unit)
    limit, why = charge_limit(unit) if charge else (FLYER_PACE, "an order move by flyers")
    verdict = new_verdict(move, max_distance=limit)
    if move.declared("fortified"):
        verdict.move["fortified"] = True
    if not refuse_ground_unit(verdict, unit):
        return verdict
    _common_eligibility(verdict, situation, unit, RULE_ORDERS)
    # 2.5 / 2.9: the stands' formation sets a charge's limit and an order move's alike
    check_declared_formation(verdict, unit, move)
    dice = Dice(move.dice, move.seed)
    if not verdict.legal:
        return verdict
    ordered = check_order(verdict, situation, unit, move, dice)
    verdict.move.update(dice.summary())
    if not verdict.legal:
        return verdict
    dice.finish()
    if not ordered:
        return failed_order(verdict, situation, unit, move, sum(d.value for d in dice.rolled))
    if move.end is None:
        raise InvalidInput(
            "end",
            f"an {move.type} needs the stands' end positions; the engine does not choose them",
        )
    ends = end_models(unit, move)
    if formation(unit.models) == "irregular" and not charge:
        # 2.9: a flyer that starts an ordered move in irregular formation moves half pace.
        limit, why = FLYER_IRREGULAR_CHARGE, "an order move from irregular formation (half pace)"
        verdict.move["max_distance"] = limit
    check_distances(verdict, unit, ends, limit, RULE_CHARGE, why)
    check_flown_end(verdict, situation, unit, ends, may_touch_enemy=charge)
    if charge:
        targets = [
            t
            for t in move.declared("charge_targets") or []
            if not refuse_character_target(verdict, situation, unit, t, RULE_CHARGE)
        ]
        touched = check_charge_contact(verdict, situation, unit, ends, targets, RULE_CHARGE)
        check_charge_sight(verdict, situation, unit, targets or touched)
    earlier = int(unit.state.get("orders_this_phase", 0) or 0)
    character = move.declared("ordered_by")
    state = {"orders_this_phase": earlier + 1, "ordered_by": character}
    if charge:
        state["charged"] = True
    finished = (
        order_sequence(verdict, situation, unit, character_of(situation, move, "ordered_by"))
        if verdict.legal
        else {}
    )
    return finish_past_characters(verdict, situation, unit, ends, {unit.id: state, **finished})


def adjudicate_order_move(situation: Situation, move: Move) -> Verdict:
    """2.3 / 2.5: an ordered flyer hops up to 100 cm."""
    return _adjudicate_order(situation, move, charge=False)


def adjudicate_order_charge(situation: Situation, move: Move) -> Verdict:
    """2.3 / 2.5: an ordered flyer charges up to 60 cm (10 cm from irregular formation)."""
    return _adjudicate_order(situation, move, charge=True)


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
                        rule=RULE_COMMAND,
                        stage="eligible-if",
                        passed=False,
                        subject=unit_id,
                        text=f"{named(unit_id)} has no friendly character to give it orders.",
                    )
                ]
        end = {m.id: Pose(m.x, m.y, None, m.facing) for m in unit.models}
        trial = Move(
            unit_id, move_type, MappingProxyType(declarations), dice, MappingProxyType(end)
        )
        try:
            verdict = adjudicator(situation, trial)
        except InvalidInput as err:
            return [
                Finding(
                    rule="engine",
                    stage="eligible-if",
                    passed=False,
                    subject=unit_id,
                    text=err.message,
                )
            ]
        return [f for f in verdict.findings if f.stage == "eligible-if"]

    return eligibility
