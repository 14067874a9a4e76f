"""Characters on flying mounts (RULES.md 2.5, 2.8).

- `character-move`: a character with the FLYING keyword hops up to 100 cm under the flyers' end
  rules (2.2, 2.5); it may end touching friendly units (to join them) but not enemies, enemy
  characters included; a friendly character it ends on is moved aside (2.9). It moves
  once a phase and sets `moved_this_phase` (2.3: character moves come after orders). Where it
  ends decides the unit it is with (2.8, 2.9): `joined` names the friendly unit it ends touching
  and may join, and is removed when it touches none, so a unit it flew away from no longer
  carries it.
- `character-escape`: a lone flying character touched by the enemy, or one that has joined a unit
  (state `joined`) whose stands all stand wholly where the character cannot be (woods, terrain
  infantry cannot enter) or that was itself carried with its unit into such terrain, moves up
  to 30 cm - not 100 - to end touching another friendly unit it may join (not one whose stands
  all stand wholly in such terrain; a stand only partly in it is joined on its clear side); if it
  cannot reach one, it is slain. `suggest` finds the shortest
  such move (nearest friendly unit first); `adjudicate` judges a hand placement against the 30 cm
  limit and the end rules.
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from ..errors import InvalidInput
from ..geometry import EPSILON, fmt
from ..move import Move, Pose
from ..naming import named
from ..situation import Model, Situation, Unit
from ..verdict import Verdict
from .bystanders import barred_terrain_under, finish_past_characters, may_join, nearest_join
from .flying import (
    FLYER_PACE,
    check_distances,
    check_flown_end,
    end_models,
    engaged,
    finish,
    in_combat,
    new_verdict,
    phase_check,
)
from .stands import board, is_character, stand_distance

RULE = "flying-units/characters"
ESCAPE_DISTANCE = 30.0


def _refuse_unless_flying_character(verdict: Verdict, unit: Unit) -> bool:
    ok = is_character(unit) and unit.has("FLYING")
    verdict.check(
        rule=RULE if ok else "engine",
        stage="eligible-if",
        passed=ok,
        subject=unit.id,
        pass_text=f"{named(unit)} is a character on a flying mount.",
        fail_text="Arbiter judges this move for characters on flying mounts only, and "
        f"{named(unit)} "
        "is not one, so it cannot say whether the move is legal.",
    )
    return ok


def adjudicate_character_move(situation: Situation, move: Move) -> Verdict:
    """2.5: a character riding a flying mount hops up to 100 cm under the flyers' terrain rules."""
    unit = situation.unit(move.unit)
    verdict = new_verdict(move, max_distance=FLYER_PACE)
    if not _refuse_unless_flying_character(verdict, unit):
        return verdict
    phase_check(verdict, situation, unit, "command", RULE)
    if move.end is None:
        raise InvalidInput("end", "a character-move needs the character's end position")
    if unit.flag("moved_this_phase"):
        verdict.check(
            rule=RULE,
            stage="eligible-if",
            passed=False,
            subject=unit.id,
            text=f"{named(unit)} has already made its move this phase.",
        )
    check_not_leaving_a_fight(verdict, situation, unit)
    ends = end_models(unit, move)
    check_distances(verdict, unit, ends, FLYER_PACE, RULE, "a character on a flying mount")
    check_flown_end(verdict, situation, unit, ends)
    check_clear_of_enemy_characters(verdict, situation, unit, ends)
    if not verdict.legal:
        return verdict  # a refused move ends nowhere: it joins and leaves nothing
    joined = _joined_after_move(verdict, situation, unit, ends)
    # 2.9: a friendly character it ends on is moved aside, as for any friendly move
    return finish_past_characters(
        verdict, situation, unit, ends, {unit.id: {"moved_this_phase": True, "joined": joined}}
    )


def check_not_leaving_a_fight(verdict: Verdict, situation: Situation, unit: Unit) -> None:
    """2.8: a flying character that joined a unit in combat stays with it while it fights; it
    leaves only when the unit retreats, falls back, pursues or advances where the character
    cannot go (`character-escape`). So its own Command-phase move is refused while the unit it
    joined is in combat (touching an enemy unit, or marked `in_combat`). Only a character whose
    unit is in combat gets a finding: for the others the rule does not arise."""
    joined = unit.state.get("joined")
    if joined and situation.has_unit(joined) and in_combat(situation, situation.unit(joined)):
        verdict.check(
            rule=RULE,
            stage="eligible-if",
            passed=False,
            subject=unit.id,
            text=f"{named(unit)} has joined {named(joined)}, which is in combat: a character "
            "stays with a unit it joined while the unit fights (2.8), so it cannot make its "
            "own move now.",
        )


def check_clear_of_enemy_characters(
    verdict: Verdict, situation: Situation, unit: Unit, ends: list[Model]
) -> None:
    """A character's own move (2.5, 2.8) ends neither on nor touching an enemy character.
    check_flown_end passes over characters (2.9: they are not units, and a lone one a unit
    touches is displaced); but a character never charges, and the displacement of 2.9 follows
    a unit's move, so a character that ends against an enemy character is refused, as the
    escape's own search keeps clear of every enemy stand (bystanders._free). Touching is
    measured from the true circles (RULES.md 0). Only a character that touches one gets a
    finding: for the others the rule does not arise."""
    b = board(situation)
    touched = sorted(
        {
            o.unit
            for m in ends
            for o in b.stands_near(m.footprint, 2 * EPSILON)
            if o.unit in b.characters
            and b.army_of[o.unit] != unit.army
            and stand_distance(m, o) <= EPSILON
        }
    )
    if touched:
        verdict.check(
            rule=RULE,
            stage="end-of-move",
            passed=False,
            subject=unit.id,
            text=f"{named(unit)} would end touching or on the enemy character "
            f"{', '.join(map(named, touched))}; a character never moves into contact with the "
            "enemy.",
        )


def _units_touched(
    situation: Situation, unit: Unit, ends: list[Model], but: tuple = ()
) -> list[str]:
    """The friendly units (never characters, 2.9) the character's end stand touches, but those
    of `but`: the units it could join there (2.8). Touching is measured from the true shapes
    (stand_distance: a round base's circle, not the polygon drawn round it, RULES.md 0)."""
    b = board(situation)
    return sorted(
        {
            o.unit
            for m in ends
            for o in b.stands_near(m.footprint, 2 * EPSILON)
            if o.unit != unit.id
            and o.unit not in but
            and b.army_of[o.unit] == unit.army
            and not is_character(situation.unit(o.unit))
            and stand_distance(m, o) <= EPSILON
        }
    )


def _joined_after_move(
    verdict: Verdict, situation: Situation, unit: Unit, ends: list[Model]
) -> str | None:
    """2.8, 2.9: a character is with the unit it touches. Ending its own move touching a
    friendly unit it may join, it has joined that unit (the one it had joined, if it still
    touches it; otherwise the first by id, which its owner may change); touching none, it has
    left the unit it had joined, and no longer moves with it. Returns the unit joined, or None."""
    before = unit.state.get("joined")
    touched = _units_touched(situation, unit, ends)
    joinable = [h for h in touched if may_join(situation, unit, situation.unit(h))]
    host = before if before in joinable else next(iter(joinable), None)
    if host is not None:
        text = f"{named(unit)} ends touching {named(host)} and " + (
            "stays with it." if host == before else "joins it (2.8)."
        )
    elif touched:
        text = (
            f"{named(unit)} ends touching {', '.join(map(named, touched))}, but every stand of it "
            "stands wholly in terrain its flying mount cannot enter, so it joins no unit (2.8)."
        )
    elif before:
        text = (
            f"{named(unit)} ends touching no unit, so it has left {named(before)}: it no longer "
            "moves with it (2.9)."
        )
    else:
        return None
    verdict.check(rule=RULE, stage="after-moving", passed=True, subject=unit.id, text=text)
    return host


def escape_reason(situation: Situation, unit: Unit) -> str | None:
    """Why a flying character must fly to another unit now (2.8), or None."""
    joined = unit.state.get("joined")
    if joined and situation.has_unit(joined):
        host = situation.unit(joined)
        # carried with its unit into terrain its mount cannot be in (characters_must_leave)
        own = barred_terrain_under(situation, unit, unit.models[0])
        if own:
            return (
                f"it was carried with {named(joined)} into {', '.join(sorted(f.id for f in own))}, "
                "where it cannot be"
            )
        # the test that bars joining a unit (2.8): a unit with any stand partly clear keeps it
        if may_join(situation, unit, host):
            return None
        bad = sorted(
            {f.id for m in host.models for f in barred_terrain_under(situation, unit, m.footprint)}
        )
        return (
            f"every stand of the unit it joined, {named(joined)}, stands wholly in "
            f"{', '.join(bad)}, where it cannot be"
        )
    busy = engaged(situation, unit)
    if busy:
        return f"it is alone and touched by enemy {', '.join(map(named, busy))}"
    return None


def plan_escape(situation: Situation, unit: Unit) -> Model | None:
    """2.8: the shortest legal move (<= 30 cm) ending touching another friendly unit the
    character may join, or None. Exact (bystanders.nearest_join, stands.free_contacts)."""
    joined = unit.state.get("joined")
    return nearest_join(
        situation,
        unit,
        away_from={joined} if joined else set(),
        limit=ESCAPE_DISTANCE,
        straight_route=False,  # a flying mount flies over whatever is in the way
    )


def suggest_character_escape(situation: Situation, move: Move) -> Move:
    unit = situation.unit(move.unit)
    end = plan_escape(situation, unit) if is_character(unit) and unit.has("FLYING") else None
    poses = {} if end is None else {end.id: Pose(end.x, end.y, None, end.facing)}
    return replace(move, end=MappingProxyType(poses))


def adjudicate_character_escape(situation: Situation, move: Move) -> Verdict:
    """2.8: a flying character escapes up to 30 cm to a friendly unit, or is slain."""
    unit = situation.unit(move.unit)
    verdict = new_verdict(move, max_distance=ESCAPE_DISTANCE)
    if not _refuse_unless_flying_character(verdict, unit):
        return verdict
    reason = escape_reason(situation, unit)
    verdict.check(
        rule=RULE,
        stage="eligible-if",
        passed=reason is not None,
        subject=unit.id,
        pass_text=f"{named(unit)} must leave: {reason}.",
        fail_text=f"{named(unit)} is neither a lone character touched by the enemy nor with a "
        "unit in "
        "terrain it cannot enter, so it has no escape move to make.",
    )
    if reason is None:
        return verdict
    # A player's placement is judged on its own: a legal one proves a place exists, so the
    # character is ruled slain only when no placement is given and the search finds none.
    if not move.end and plan_escape(situation, unit) is None:
        general = unit.has("GENERAL")
        verdict.check(
            rule=RULE,
            stage="after-moving",
            passed=True,
            subject=unit.id,
            text=(
                f"No friendly unit it may join can be reached within {fmt(ESCAPE_DISTANCE)} cm, "
                f"so {named(unit)} is slain"
                + (" (a General: the battle is over)." if general else ".")
            ),
        )
        verdict.events.append({"event": "slain", "unit": unit.id, "general": general})
        return finish(verdict, situation, [], {}, [m.id for m in unit.models])
    if not move.end:
        raise InvalidInput("end", "a character-escape to judge needs the character's end position")
    ends = end_models(unit, move)
    check_distances(
        verdict,
        unit,
        ends,
        ESCAPE_DISTANCE,
        RULE,
        "a flying character escaping to a unit (30 cm, not 100)",
    )
    check_flown_end(verdict, situation, unit, ends)
    check_clear_of_enemy_characters(verdict, situation, unit, ends)
    # a unit to join, as plan_escape: another than the one it leaves
    hosts = _units_touched(situation, unit, ends, but=(unit.state.get("joined"),))
    joinable = [h for h in hosts if may_join(situation, unit, situation.unit(h))]
    if hosts and not joinable:
        verdict.check(
            rule=RULE,
            stage="after-moving",
            passed=False,
            subject=unit.id,
            text=(
                f"Every stand of {', '.join(map(named, hosts))} stands wholly in terrain "
                f"{named(unit)} cannot enter (woods or impassable terrain, for a flying mount), "
                "so it cannot join that unit (2.8)."
            ),
        )
    hosts = joinable or hosts
    verdict.check(
        rule=RULE,
        stage="after-moving",
        passed=bool(hosts),
        subject=unit.id,
        pass_text=f"{named(unit)} ends touching {', '.join(map(named, hosts))} and joins it.",
        fail_text=f"{named(unit)} must end touching another friendly unit.",
    )
    # 2.9: a friendly character it ends on is moved aside, as for any friendly move
    return finish_past_characters(
        verdict, situation, unit, ends, {unit.id: {"joined": hosts[0]}} if hosts else {}
    )
