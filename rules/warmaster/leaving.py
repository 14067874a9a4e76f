"""Leaving the table (RULES.md 2.9 "Leaving the table").

How the engine reads it:
- A unit leaves when any part of any of its stands would cross the table edge. A retreat that does
  so destroys the unit (combat.py). A drive back, fall back, advance or making way (and, in the
  rulebook, a blunder) instead owes a D6, -1 per stand the unit has already lost (`stands_lost`):
  0 or less, destroyed; 1-2, off the table, rolled for again at the start of its side's next turn
  (before initiative); 3-4, back at once where it left, and it may not move again this turn; 5-6,
  back at once where it left.
- The players roll that D6. When the move carries it (`declarations.leave_table_roll`, 1 to 6)
  the engine judges the outcome; otherwise it reports the roll owed (`leave-table-roll` event)
  with what each result means.
- The unit keeps its formation and facing; "where it left" is its formation moved straight back
  until every stand is on the table again, touching the edge. Characters that joined it share its
  fate: they go, come back or die with it, and a General who does not come back at once ends the
  battle.
- [house] Moves the player steers in the Command phase (orders, initiative, home back) may never
  take a stand off the table: `flying.check_flown_end` refuses them.
- Off the table (a 1-2): the unit and its joined characters carry `off_table`; their stands keep
  the poses where it left, for the return. While off, no other move sees them (`on_the_table`
  judges every Warmaster move on the table without them), they make no move of their own, and at
  the start of their side's next turn, before initiative, the unit rolls to return
  (`return-to-table`): the same D6 bands, -1 per stand lost.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from ..dice import Dice
from ..errors import InvalidInput
from ..geometry import EPSILON
from ..move import Move, Pose
from ..naming import named
from ..situation import Model, Situation, Unit, on_table
from ..systems import MoveType
from ..verdict import Finding, Verdict
from .bystanders import carry_joined, die_with, joined_characters
from .flying import check_engine_placement, finish, new_verdict, phase_check, record_slide
from .stands import board, is_character, stands_overlap

RULE = "general/leaving-the-table"
DIE_FACES = 6
#: 2.9: what the leave-the-table D6 (after -1 per stand lost) means, by its highest total.
OUTCOMES = (
    (0, "destroyed", "the unit is destroyed"),
    (
        2,
        "off-table",
        "the unit stays off the table; roll again at the start of its side's next "
        "turn, before initiative",
    ),
    (
        4,
        "returns-may-not-move",
        "the unit returns at once where it left, and may not move again this turn",
    ),
    (6, "returns", "the unit returns at once where it left"),
)
BANDS = "; ".join(
    f"{'0 or less' if top == 0 else f'{top - 1}-{top}'}, {meaning}" for top, _, meaning in OUTCOMES
)


def off_the_table(situation: Situation, stands: list[Model]) -> bool:
    """2.9: any part of any stand beyond the table edge."""
    table = board(situation).table.buffer(EPSILON)
    return not all(table.contains(m.footprint) for m in stands)


def back_on_the_table(situation: Situation, stands: list[Model]) -> list[Model]:
    """Where the unit left: its stands moved together, straight back onto the (rectangular)
    table, the least distance, so the formation touches the edge it crossed."""
    tx0, ty0, tx1, ty1 = board(situation).table.bounds
    bounds = [m.footprint.bounds for m in stands]
    x0, y0 = min(b[0] for b in bounds), min(b[1] for b in bounds)
    x1, y1 = max(b[2] for b in bounds), max(b[3] for b in bounds)
    dx = max(0.0, tx0 - x0) + min(0.0, tx1 - x1)
    dy = max(0.0, ty0 - y0) + min(0.0, ty1 - y1)
    return [m.placed(m.x + dx, m.y + dy) for m in stands]


def _outcome(total: int) -> tuple[str, str]:
    for top, name, meaning in OUTCOMES:
        if total <= top:
            return name, meaning
    raise AssertionError("a D6 is at most 6")  # pragma: no cover


def _sharing(joined: list[Unit]) -> str:
    """The sentence saying the joined characters share the unit's fate (2.9), or nothing."""
    return (
        f" Its character(s) {', '.join(named(c) for c in joined)} share its fate." if joined else ""
    )


def _destroyed(verdict: Verdict, situation: Situation, unit: Unit) -> Verdict:
    """2.9, a total of 0 or less: the unit is destroyed and its joined characters die with it."""
    verdict.events.append({"event": "destroyed", "unit": unit.id})
    removed = [m.id for m in unit.models] + die_with(verdict, situation, unit)
    return finish(verdict, situation, [], {}, removed)


def leave_the_table(
    verdict: Verdict,
    situation: Situation,
    unit: Unit,
    move: Move,
    how: str,
    where: list[Model],
    *,
    measured: float | None = None,
    limit: float | None = None,
    state: Mapping[str, Mapping[str, Any]] | None = None,
) -> Verdict:
    """2.9: the whole unit leaves the table. `how` says what took it over the edge (a sentence
    without its full stop); `where` are its stands where it left, touching the edge; `state` the
    unit state the move itself records (a combat advance is still the phase's advance). Back on
    a 3-4, the unit and its joined characters carry `may_not_move` for the rest of the turn."""
    roll = move.declared("leave_table_roll")
    if roll is not None and (
        isinstance(roll, bool) or not isinstance(roll, int) or not 1 <= roll <= DIE_FACES
    ):
        raise InvalidInput("declarations.leave_table_roll", "a D6 result, 1 to 6")
    lost = int(unit.state.get("stands_lost", 0) or 0)
    joined = joined_characters(situation, unit)
    generals = [c.id for c in joined if c.has("GENERAL")]
    modifier = f", -1 per stand lost ({-lost})" if lost else ""
    sharing = _sharing(joined)
    event: dict = {"event": "leave-table-roll", "unit": unit.id, "dice": "D6", "modifier": -lost}
    if joined:
        event["characters"] = [c.id for c in joined]
    if roll is None:
        text = (
            f"{how}, so the whole unit leaves the table.{sharing} Roll a D6{modifier}: {BANDS}."
            + (" A General who does not return at once ends the battle." if generals else "")
        )
        outcome = None
    else:
        total = roll - lost
        outcome, meaning = _outcome(total)
        event.update(roll=roll, outcome=outcome)
        gone = outcome in ("destroyed", "off-table")
        if gone and generals:
            event["battle_over"] = True
        text = (
            f"{how}, so the whole unit leaves the table.{sharing} The D6 shows {roll}"
            + (f" - {lost} for stands lost = {total}" if lost else "")
            + f": {meaning}."
            + (
                f" The General {', '.join(map(named, generals))} does not return: the battle is "
                "over."
                if gone and generals
                else ""
            )
        )
    verdict.check(
        rule=RULE,
        stage="after-moving",
        passed=True,
        subject=unit.id,
        text=text,
        measured=measured,
        limit=limit,
    )
    verdict.events.append(event)
    if outcome == "destroyed":
        return _destroyed(verdict, situation, unit)
    carried = carry_joined(situation, unit, where)
    if not all(on_table(c, situation.table) for c in carried):
        # [house] a character stood between its unit and the edge: the unit and its characters
        # come back on together, keeping their places (the group touches the edge it crossed)
        group = back_on_the_table(situation, where + carried)
        where, carried = group[: len(where)], group[len(where) :]
    for m in where:
        record_slide(verdict, unit.model(m.id), m)
    after = {k: dict(v) for k, v in (state or {}).items()}
    if outcome == "returns-may-not-move":
        for u in (unit, *joined):
            after.setdefault(u.id, {})["may_not_move"] = True
    elif outcome == "off-table":
        # its stands stay where it left (the return puts them back there), marked gone
        for u in (unit, *joined):
            after.setdefault(u.id, {})["off_table"] = True
    return finish(verdict, situation, where + carried, after)


# -- off the table: gone until it rolls to return --------------------------------------------------

RETURN = "return-to-table"
#: The state a unit's move this phase leaves (the initiative, orders, home backs and characters'
#: moves of command.py, home_back.py, characters.py): once one is on the army, its turn has begun.
MOVED_THIS_PHASE = (
    "initiative_moved",
    "charged",
    "orders_this_phase",
    "ordered_by",
    "orders_over",
    "orders_finished",
    "homed_back",
    "moved_this_phase",
)
#: Declaration kinds that name a unit or a stand on the table (systems.DECLARATION_KINDS).
NAMES_A_UNIT = ("friendly-unit", "enemy-unit", "enemy-units", "enemy-model")


def off_table_units(situation: Situation) -> list[Unit]:
    """2.9: the units off the table (`off_table`) and the characters that joined them, who share
    their fate whatever their own state says."""
    gone = [u for u in situation.units if u.flag("off_table")]
    if not gone:
        return []
    ids = {u.id for u in gone}
    return gone + [c for c in situation.units if c.id not in ids and c.state.get("joined") in ids]


def without_off_table(situation: Situation, keep: tuple[str, ...] = ()) -> Situation:
    """The table other moves see (2.9): `situation` without the stands of the units off the
    table (but those of `keep`). The same object when no unit is off; kept in the situation's
    memo, as every move type asks for it."""
    gone = [u for u in off_table_units(situation) if u.id not in keep]
    if not gone:
        return situation
    key = f"warmaster.without-off-table:{','.join(keep)}"
    if key not in situation.memo:
        situation.memo[key] = situation.moved(removed=[m.id for u in gone for m in u.models])
    return situation.memo[key]


def _group(situation: Situation, unit_id: str) -> tuple[str, ...]:
    """A unit and its joined characters, who leave and return together."""
    unit = situation.unit(unit_id)
    return (unit.id, *(c.id for c in joined_characters(situation, unit)))


def off_table_refusals(
    situation: Situation, move_type: MoveType, unit_id: str, declarations: Mapping[str, Any]
) -> list[Finding]:
    """2.9: the eligible-if findings that refuse a move made by a unit off the table (but its
    return) or naming one in its declarations (a shooter, a character giving the order...)."""
    gone = {u.id: u for u in off_table_units(situation)}
    verdict = Verdict(move={})
    unit = situation.unit(unit_id)
    if unit.id in gone and move_type.name != RETURN:
        host = gone.get(str(unit.state.get("joined")), unit)
        with_host = f", with {named(host)}," if host is not unit else ""
        verdict.check(
            rule=RULE,
            stage="eligible-if",
            passed=False,
            subject=unit.id,
            text=f"{named(unit)}{with_host} is off the table (2.9); it rolls to return at the "
            "start of its side's turn.",
        )
    stands = {m.id: u for u in gone.values() for m in u.models}
    for d in move_type.declarations:
        if d.kind not in NAMES_A_UNIT or declarations.get(d.name) is None:
            continue
        value = declarations[d.name]
        for name in value if isinstance(value, list) else [value]:
            named_unit = gone.get(name) or stands.get(name)
            if named_unit is not None:
                verdict.check(
                    rule=RULE,
                    stage="eligible-if",
                    passed=False,
                    subject=unit.id,
                    text=f"{d.label}: {named(name)} is off the table (2.9) and takes no part in "
                    "this move until it returns.",
                )
    return verdict.findings


def _restored(verdict: Verdict, situation: Situation, judged: Situation) -> Verdict:
    """The verdict of a move judged on `judged` (the table without the units off it), its
    situation after rebuilt on `situation`: the poses, state and losses of the units the move
    touched, the units off the table kept as they were."""
    if judged is situation or verdict.after is None:
        return verdict
    units = verdict.after.document["units"]
    poses = {m["id"]: m for u in units for m in u["models"]}
    state = {u["id"]: u.get("state", {}) for u in units}
    removed = [m.id for m in judged.models() if m.id not in poses]
    verdict.after = situation.moved(poses, state, removed)
    return verdict


def on_the_table(move_type: MoveType) -> MoveType:
    """2.9: `move_type` judged, suggested, offered and reached on the table as other moves see
    it: the units off the table are not there (they block nothing and are never measured), make
    no move of their own but the return, and are carried unchanged into the table after."""

    def seen(situation: Situation, unit_id: str) -> Situation:
        keep = _group(situation, unit_id) if move_type.name == RETURN else ()
        return without_off_table(situation, keep)

    def refused(situation: Situation, move: Move) -> Verdict | None:
        findings = off_table_refusals(situation, move_type, move.unit, move.declarations)
        if not findings:
            return None
        verdict = new_verdict(move)
        verdict.findings.extend(findings)
        return verdict

    judge, placer, eligible, region = (
        move_type.adjudicate,
        move_type.suggest,
        move_type.eligibility,
        move_type.reach,
    )
    assert judge is not None, f"{move_type.name}: a Warmaster move type the engine judges"

    def adjudicate(situation: Situation, move: Move) -> Verdict:
        if not off_table_units(situation):
            return judge(situation, move)
        verdict = refused(situation, move)
        if verdict is not None:
            return verdict
        judged = seen(situation, move.unit)
        return _restored(judge(judged, move), situation, judged)

    def suggest(situation: Situation, move: Move) -> Move:
        assert placer is not None
        if not off_table_units(situation):
            return placer(situation, move)
        if refused(situation, move) is not None:
            return replace(move, end=MappingProxyType({}))  # nothing to place: refused
        return placer(seen(situation, move.unit), move)

    def eligibility(situation: Situation, unit_id: str, declarations: dict) -> list[Finding]:
        assert eligible is not None
        if not off_table_units(situation):
            return eligible(situation, unit_id, declarations)
        findings = off_table_refusals(situation, move_type, unit_id, declarations)
        return findings or eligible(seen(situation, unit_id), unit_id, declarations)

    def reach(situation: Situation, move: Move) -> list[tuple[Any, str]]:
        assert region is not None
        if not off_table_units(situation):
            return region(situation, move)
        if refused(situation, move) is not None:
            return []
        return region(seen(situation, move.unit), move)

    def offered(offer: Callable) -> Callable:
        def offer_on_the_table(situation, unit_id, dice, declarations):
            gone = {u.id for u in off_table_units(situation)}
            on = situation if unit_id in gone else seen(situation, unit_id)
            return offer(on, unit_id, dice, declarations)

        return offer_on_the_table

    return replace(
        move_type,
        adjudicate=adjudicate,
        suggest=suggest if placer is not None else None,
        eligibility=eligibility if eligible is not None else None,
        reach=reach if region is not None else None,
        declarations=tuple(
            replace(d, offer=offered(d.offer)) if d.offer is not None else d
            for d in move_type.declarations
        ),
    )


def _may_return(verdict: Verdict, situation: Situation, unit: Unit) -> bool:
    """2.9: only a unit off the table rolls to return, at the start of its side's turn, before
    initiative: in the Command phase, its army's turn, before any unit of its army has moved."""
    verdict.check(
        rule=RULE,
        stage="eligible-if",
        passed=unit.flag("off_table") and not is_character(unit),
        subject=unit.id,
        pass_text=f"{named(unit)} is off the table and rolls to return (2.9).",
        fail_text=f"{named(unit)} returns with the unit it joined (2.9)."
        if is_character(unit)
        else f"{named(unit)} is not off the table: only a unit that left it on a 1-2 rolls to "
        "return (2.9).",
    )
    # (whose turn: phase_check, the Command phase being its own side's)
    phase_check(verdict, situation, unit, "command", RULE)
    moved = [
        u.id
        for u in situation.units
        if u.army == unit.army and any(u.state.get(flag) for flag in MOVED_THIS_PHASE)
    ]
    verdict.check(
        rule=RULE,
        stage="eligible-if",
        passed=not moved,
        subject=unit.id,
        pass_text="No unit of its army has moved this phase yet: the return comes first (2.9).",
        fail_text=f"{', '.join(map(named, moved))} already moved or took orders this phase; the "
        "return is rolled at the start of the turn, before initiative (2.9).",
    )
    return verdict.legal


def return_eligibility(situation: Situation, unit_id: str, declarations: dict) -> list[Finding]:
    verdict = Verdict(move={})
    _may_return(verdict, situation, situation.unit(unit_id))
    return verdict.findings


def suggest_return(situation: Situation, move: Move) -> Move:
    """2.9: a unit returns where it left, which its stands (and its characters') still mark."""
    unit = situation.unit(move.unit)
    poses = {m.id: Pose(m.x, m.y, None, m.facing) for m in unit.models}
    return replace(move, end=MappingProxyType(poses))


def adjudicate_return(situation: Situation, move: Move) -> Verdict:
    """2.9: the D6 to return, -1 per stand lost, read on the leave-the-table bands (`OUTCOMES`):
    destroyed, still off (roll again next turn), back where it left unable to move this turn, or
    back free to move. [house] A unit back where another unit now stands is reported, not
    passed: RULES.md does not say where it comes back then."""
    unit = situation.unit(move.unit)
    verdict = new_verdict(move)
    if not _may_return(verdict, situation, unit):
        return verdict
    dice = Dice(move.dice, move.seed)
    (roll,) = dice.roll(1)
    dice.finish()
    if not 1 <= roll <= DIE_FACES:
        raise InvalidInput("dice", "one D6, 1 to 6")
    verdict.move.update(dice.summary())
    lost = int(unit.state.get("stands_lost", 0) or 0)
    total = roll - lost
    outcome, meaning = _outcome(total)
    joined = joined_characters(situation, unit)
    verdict.events.append(
        {
            "event": "return-roll",
            "unit": unit.id,
            "roll": roll,
            "modifier": -lost,
            "outcome": outcome,
        }
    )
    sharing = _sharing(joined)
    verdict.check(
        rule=RULE,
        stage="before-moving",
        passed=True,
        subject=unit.id,
        text=f"{named(unit)} rolls to return to the table: the D6 shows {roll}"
        + (f" - {lost} for stands lost = {total}" if lost else "")
        + f": {meaning}.{sharing}",
    )
    if outcome == "destroyed":
        return _destroyed(verdict, situation, unit)
    if outcome == "off-table":
        return finish(verdict, situation, [])
    ends = check_engine_placement(
        verdict, RULE, unit, move, list(unit.models), "the return where it left"
    )
    mine = {unit.id, *(c.id for c in joined)}
    b = board(situation)
    in_the_way = sorted(
        {
            o.unit
            for m in ends
            for o in b.stands_near(m.footprint)
            if o.unit not in mine and stands_overlap(m, o)
        }
    )
    verdict.check(
        rule=RULE,
        stage="end-of-move",
        passed=not in_the_way,
        subject=unit.id,
        pass_text=f"Where {named(unit)} left the table is clear of other stands.",
        fail_text=f"{', '.join(map(named, in_the_way))} now stands where {named(unit)} left the "
        "table. [house] RULES.md does not say where it returns then, and two units may not "
        "overlap: settle it by the rulebook.",
    )
    state: dict[str, dict[str, Any]] = {u.id: {"off_table": False} for u in (unit, *joined)}
    if outcome == "returns-may-not-move":
        for u in (unit, *joined):
            state[u.id]["may_not_move"] = True
    return finish(verdict, situation, ends + carry_joined(situation, unit, ends), state)


__all__ = [
    "RETURN",
    "RULE",
    "adjudicate_return",
    "back_on_the_table",
    "leave_the_table",
    "off_table_units",
    "off_the_table",
    "on_the_table",
    "return_eligibility",
    "suggest_return",
    "without_off_table",
]
