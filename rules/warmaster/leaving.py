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
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import InvalidInput
from ..geometry import EPSILON
from ..move import Move
from ..naming import named
from ..situation import Model, Situation, Unit, on_table
from ..verdict import Verdict
from .bystanders import carry_joined, joined_characters
from .flying import finish, record_slide
from .stands import board

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
    sharing = (
        f" Its character(s) {', '.join(named(c) for c in joined)} share its fate." if joined else ""
    )
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
        verdict.events.append({"event": "destroyed", "unit": unit.id})
        for c in joined:
            verdict.events.append({"event": "slain", "unit": c.id, "general": c.has("GENERAL")})
        removed = [m.id for u in (unit, *joined) for m in u.models]
        return finish(verdict, situation, [], {}, removed)
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
    return finish(verdict, situation, where + carried, after)


__all__ = ["RULE", "back_on_the_table", "leave_the_table", "off_the_table"]
