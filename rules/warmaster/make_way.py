"""Making way (RULES.md 2.9 "Confusion and making way"): the move type `make-way`.

A friend in the way of a unit that is driven back, retreats, cannot avoid falling back or is
itself making way may make way: its owner moves it aside or back. How the engine reads it:
- Who: an unengaged unit (no enemy stand touching it, not `in_combat`) that is free to move (no
  spell holds it); [house] a confused unit may still make way. `made_way_for` names the friendly
  unit it makes way for (a unit, never a character: characters are moved aside instead).
- Phase: the Shooting or Combat phase (drive backs, retreats, fall backs); never for charges,
  advances, pursuits, orders or home back, which belong to other phases or force no one aside.
- How far: its normal move for its formation, here a flyer's full pace (100 cm) in a line or
  column, and half pace (10 cm, as for an order) in irregular formation. The player places the
  stands (moving aside or moving back); each stand's distance is its furthest-moving point (2.1).
- What it may not do: touch an enemy unit or a unit in combat, at the end or on the way (each
  stand's straight path is checked); cross impassable terrain on the way; end anywhere a flyer
  may not end (2.5: over woods, in impassable terrain, on stands); break formation (every stand
  touching another). The stands of the unit it makes way for are ignored while they are still to
  move off; once they stand over this unit (the table after their drive back or retreat), this
  unit must end clear of them, as of any friendly stand.
- After: the unit owes its own confusion D6 (confused on a 6, `confusion-roll` event); the unit it
  made way for rolls one per unit it forced aside (its own verdict says so). Over the table
  edge, once its way and its end are judged legal, it leaves the table (leaving.py). Joined
  characters move with it (a Shooting or Combat phase move); a flying one carried into terrain
  its mount cannot be in must leave it (2.8, through 2.9: event `character-must-leave`).
"""

from __future__ import annotations

from ..errors import InvalidInput
from ..geometry import EPSILON
from ..move import Move
from ..naming import named
from ..situation import Model, Situation, Unit
from ..verdict import Finding, Verdict
from .bystanders import finish_past_characters
from .drive_back import confusion_roll
from .flying import (
    FLYER_PACE,
    check_distances,
    check_flown_end,
    check_may_still_move,
    end_models,
    engaged,
    in_combat,
    new_verdict,
    refuse_ground_unit,
)
from .leaving import back_on_the_table, leave_the_table, off_the_table
from .stands import board, formation, is_character, overlaps, stands_overlap, swept_hull
from .terrain import kind_of

RULE = "general/making-way"
#: 2.9: making way happens while friends are driven back (Shooting) or retreat or fall back
#: (Combat).
PHASES = ("shooting", "combat")
#: 2.9: a flyer's normal move out of a line or column is half pace, as for an order.
IRREGULAR_PACE = 10.0


def _check_free(verdict: Verdict, situation: Situation, unit: Unit) -> None:
    """2.9: unengaged, free to move, in a phase where friends are pushed aside."""
    current = situation.turn.phase
    if current is not None:
        verdict.check(
            rule=RULE,
            stage="eligible-if",
            passed=current in PHASES,
            subject=unit.id,
            pass_text=f"Friends make way in the {current} phase.",
            fail_text=f"Units make way only for friends driven back (Shooting phase) or "
            f"retreating or falling back (Combat phase), not in the {current} phase.",
        )
    busy = engaged(situation, unit)
    verdict.check(
        rule=RULE,
        stage="eligible-if",
        passed=not in_combat(situation, unit),
        subject=unit.id,
        pass_text=f"{named(unit)} is not in combat, so it may make way.",
        fail_text=f"{named(unit)} is in combat"
        + (f" with {', '.join(map(named, busy))}" if busy else "")
        + ": only unengaged units make way.",
    )
    verdict.check(
        rule=RULE,
        stage="eligible-if",
        passed=not unit.flag("spell_prevents_movement"),
        subject=unit.id,
        pass_text=f"{named(unit)} is free to move"
        + (" ([house]: confused units may still make way)." if unit.flag("confused") else "."),
        fail_text=f"A spell holds {named(unit)}: only units free to move make way.",
    )


def make_way_eligibility(situation: Situation, unit_id: str, declarations: dict) -> list[Finding]:
    """Eligible-if findings: a flying unit that is free to make way now."""
    unit = situation.unit(unit_id)
    verdict = Verdict(move={})
    if refuse_ground_unit(verdict, unit):
        _check_free(verdict, situation, unit)
    return verdict.findings


def _friend_made_way_for(verdict: Verdict, situation: Situation, unit: Unit, move: Move) -> Unit:
    friend_id = move.declared("made_way_for")
    if not friend_id or not situation.has_unit(friend_id):
        raise InvalidInput(
            "declarations.made_way_for", "name the friendly unit this unit makes way for"
        )
    friend = situation.unit(friend_id)
    verdict.check(
        rule=RULE,
        stage="eligible-if",
        passed=friend.army == unit.army and friend.id != unit.id and not is_character(friend),
        subject=unit.id,
        pass_text=f"{named(unit)} makes way for {named(friend)}, a friendly unit.",
        fail_text=f"A unit makes way only for another friendly unit, and {named(friend)} is not "
        "one "
        "(a character in the way is moved aside instead).",
    )
    return friend


def _pace(unit: Unit) -> tuple[float, str]:
    shape = formation(unit.models)
    if shape == "irregular":
        return IRREGULAR_PACE, "[house] a unit in irregular formation makes way at half pace"
    return FLYER_PACE, f"[house] a {shape} of flyers makes way at full pace"


def _check_the_way(
    verdict: Verdict, situation: Situation, unit: Unit, friend: Unit, ends: list[Model]
) -> None:
    """2.9: no stand's path crosses impassable terrain or touches an enemy unit or a unit in
    combat (characters are not units; the friend made way for is moving off)."""
    b = board(situation)
    impassable = [f for f in situation.terrain if kind_of(situation, f) == "impassable"]
    for start, end in zip(unit.models, ends, strict=True):
        path = swept_hull(start.footprint, end.x - start.x, end.y - start.y).union(end.footprint)
        crossed = sorted(f.id for f in impassable if overlaps(path, f.footprint))
        verdict.check(
            rule=RULE,
            stage="while-moving",
            passed=not crossed,
            subject=start.id,
            pass_text=f"{named(start)} crosses no impassable terrain.",
            fail_text=f"{named(start)} would cross {', '.join(crossed)}, impassable terrain: a "
            "unit "
            "making way may not.",
        )
        touched = set()
        for o in b.stands_near(path, 2 * EPSILON):
            if o.unit in (unit.id, friend.id) or not b.counts(o):
                continue
            if path.distance(o.footprint) > EPSILON:
                continue
            other = situation.unit(o.unit)
            if other.army != unit.army or in_combat(situation, other):
                touched.add(o.unit)
        verdict.check(
            rule=RULE,
            stage="while-moving",
            passed=not touched,
            subject=start.id,
            pass_text=f"{named(start)} touches no enemy unit and no unit in combat.",
            fail_text=f"{named(start)} would touch {', '.join(map(named, sorted(touched)))} (an "
            "enemy, or a "
            "unit in combat): a unit making way may not.",
        )


def adjudicate_make_way(situation: Situation, move: Move) -> Verdict:
    """2.9: a friend makes way, moved by its owner, within its normal move for its formation."""
    unit = situation.unit(move.unit)
    limit, why = _pace(unit)
    verdict = new_verdict(move, max_distance=limit)
    if not refuse_ground_unit(verdict, unit):
        return verdict
    check_may_still_move(verdict, unit)
    _check_free(verdict, situation, unit)
    friend = _friend_made_way_for(verdict, situation, unit, move)
    if move.end is None:
        raise InvalidInput("end", "a unit making way needs the stands' end positions")
    ends = end_models(unit, move)
    check_distances(verdict, unit, ends, limit, RULE, why)
    if not verdict.legal:
        return verdict
    roll = confusion_roll(unit.id, 1, f"made way for {named(friend)}")
    # 2.9: making way may take the unit over the edge, but its way is judged first
    _check_the_way(verdict, situation, unit, friend, ends)
    # The friend's stands are ignored while they are still to move off; once it stands where it
    # ends (over this unit, after its drive back or retreat), this unit must end clear of them.
    moved_in = any(stands_overlap(m, o) for m in unit.models for o in friend.models)
    ignore = () if moved_in else (friend.id,)
    check_flown_end(verdict, situation, unit, ends, ignore=ignore, may_leave_table=True)
    if not verdict.legal:
        return verdict  # it did not make way: no D6 is owed for it
    if off_the_table(situation, ends):
        verdict.events.append(roll)
        how = f"Making way takes {named(unit)} over the table edge"
        return leave_the_table(
            verdict, situation, unit, move, how, back_on_the_table(situation, ends)
        )
    verdict.check(
        rule=RULE,
        stage="after-moving",
        passed=True,
        subject=unit.id,
        text=(
            f"{named(unit)} made way for {named(friend)}: roll a D6 for it, confused on a 6 (the "
            "D6 "
            f"{named(friend)} owes for forcing it aside is reported in {named(friend)}'s own "
            "verdict)."
        ),
    )
    verdict.events.append(roll)
    return finish_past_characters(verdict, situation, unit, ends, with_joined=True)
