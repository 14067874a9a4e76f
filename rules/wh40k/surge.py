"""21.01-21.02 surge moves: the ability that grants one, the trigger, eligibility, the surge
target, and judging the placement (RULES.md 1.6).

A surge move is granted by an ability on the unit (FORMAT.md `units[].abilities`):

    {"id": "blood-surge", "kind": "surge", "name": "Blood Surge",
     "trigger": "models-destroyed-by-shooting", "distance": "D6", "limit": "once-per-phase"}

- `trigger`: `models-destroyed-by-shooting`, `models-hit-by-shooting`,
  `wounds-lost-to-shooting` (an enemy unit shot this unit and destroyed / hit / took a wound
  from one or more of its models) or `enemy-ended-move-within-8` (an enemy unit ended a move
  within 8 in of this unit, in that enemy's Movement phase).
- `distance`: `"D6"`, `"D6+1"`, `"D6+2"` (one D6 plus a fixed amount) or a number of inches.
- `limit` (Arbiter's field, optional): `once-per-phase`, `once-per-turn` or `once-per-battle`.
  Absent means the ability has no limit of its own.

The move declares `ability` and `trigger` (what happened): `{"event": "shot", "by": "A", "hits",
"wounds_lost", "models_destroyed"}` or `{"event": "enemy-ended-move", "by": "X"}`. Arbiter adds
an optional `"destroyed": [model ids]` to a shot: those models are removed before the surge (the
worked example of 21.01: the survivors surge), and `models_destroyed` defaults to their count.

After a legal surge the unit's state (FORMAT.md `units[].state`) gets `moved_this_phase: true`
and one more entry in `surges_used`, Arbiter's record of the ability's uses for its limit:
`[{"ability": "blood-surge", "round": 2, "turn": "blue", "phase": "shooting"}]` (`turn` is the
active army of that turn). A use counts against `once-per-phase` when round, turn and phase are
today's; against `once-per-turn` when round and turn are; against `once-per-battle` always.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import shapely

from ..dice import Dice
from ..errors import InvalidInput
from ..geometry import EPSILON, fmt, within
from ..move import Move, Pose
from ..naming import named
from ..situation import Model, Situation, Unit
from ..verdict import Finding, Verdict
from .flying import can_fly
from .measuring import engaged_enemy_units, engaged_with_model, unit_distance
from .move_types import surged_this_phase
from .moving import (
    PLACEMENT_TOLERANCE,
    MoveOutcome,
    end_placement,
    judge_move,
    level_text,
    reachable_regions,
)
from .surge_solver import SURGE_MODE, SurgeSpace, suggest_placement

RULE = "21.02"
SURGE_TRIGGERS = {
    "models-destroyed-by-shooting": (
        "one or more of its models are destroyed by an enemy unit's shooting"
    ),
    "models-hit-by-shooting": "one or more of its models are hit by an enemy unit's shooting",
    "wounds-lost-to-shooting": "one or more of its models lose a wound to an enemy unit's shooting",
    "enemy-ended-move-within-8": 'an enemy unit ends a move within 8" of it in its Movement phase',
}
SURGE_LIMITS = {"once-per-phase": "phase", "once-per-turn": "turn", "once-per-battle": "battle"}
#: The range of the "enemy ended a move nearby" trigger (RULES.md 1.6).
ENEMY_MOVE_TRIGGER_RANGE = 8.0
#: ...and the phase it belongs to: the opponent's Movement phase (RULES.md 1.6).
ENEMY_MOVE_TRIGGER_PHASE = "movement"
TRIGGER_FIELDS = {"event", "by", "hits", "wounds_lost", "models_destroyed", "destroyed"}
EVENTS = ("shot", "enemy-ended-move")
_DISTANCE = re.compile(r"^\s*D6\s*(?:\+\s*(\d+))?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class SurgeAbility:
    """A surge-granting ability as data: trigger, distance (D6 + bonus, or fixed) and limit."""

    id: str
    name: str
    trigger: str
    dice: int  # how many D6 the distance rolls (0 for a fixed distance)
    bonus: float  # added to the roll, or the fixed distance
    limit: str | None = None  # "phase" / "turn" / "battle", or None

    @classmethod
    def from_document(cls, doc: Mapping[str, Any], field: str = "ability") -> SurgeAbility:
        ident = doc.get("id")
        if not isinstance(ident, str) or not ident:
            raise InvalidInput(f"{field}.id", "a surge ability needs an id")
        trigger = doc.get("trigger")
        if trigger not in SURGE_TRIGGERS:
            raise InvalidInput(f"{field}.trigger", f"must be one of {', '.join(SURGE_TRIGGERS)}")
        distance = doc.get("distance")
        if isinstance(distance, (int, float)) and not isinstance(distance, bool):
            if not math.isfinite(distance) or distance < 0:
                raise InvalidInput(f"{field}.distance", "must be a distance of 0 or more")
            dice, bonus = 0, float(distance)
        elif isinstance(distance, str) and (match := _DISTANCE.match(distance)):
            dice, bonus = 1, float(match.group(1) or 0)
        else:
            raise InvalidInput(
                f"{field}.distance", 'must be "D6", "D6+1", "D6+2" or a number of inches'
            )
        limit = doc.get("limit")
        if limit is not None and limit not in SURGE_LIMITS:
            raise InvalidInput(f"{field}.limit", f"must be one of {', '.join(SURGE_LIMITS)}")
        return cls(
            ident,
            str(doc.get("name") or ident),
            trigger,
            dice,
            bonus,
            SURGE_LIMITS[limit] if limit else None,
        )

    @property
    def distance_text(self) -> str:
        if not self.dice:
            return f'{self.bonus:g}"'
        return "D6" + (f"+{self.bonus:g}" if self.bonus else "")

    def max_distance(self, rolls: list[int]) -> float:
        return float(sum(rolls)) + self.bonus


#: RULES.md 1.6: the `kind` of a unit ability that grants surge moves.
SURGE_ABILITY = "surge"


def surge_abilities(unit: Unit) -> list[SurgeAbility]:
    """The unit's surge-granting abilities (`kind: "surge"`), parsed."""
    return [
        SurgeAbility.from_document(a, f"units[{unit.id}].abilities[{i}]")
        for i, a in enumerate(unit.abilities)
        if a.get("kind") == SURGE_ABILITY
    ]


# -- what happened: the trigger -------------------------------------------------------------------
@dataclass(frozen=True)
class Trigger:
    """What happened that may trigger a surge (the move's `declarations.trigger`)."""

    event: str
    by: str
    hits: int = 0
    wounds_lost: int = 0
    models_destroyed: int = 0
    destroyed: tuple[str, ...] = ()

    @classmethod
    def from_document(cls, doc: Mapping[str, Any], field: str = "declarations.trigger") -> Trigger:
        if not isinstance(doc, Mapping):
            raise InvalidInput(field, "must be an object")
        for key in doc:
            if key not in TRIGGER_FIELDS:
                raise InvalidInput(f"{field}.{key}", f"unknown field {key!r}")
        event = doc.get("event")
        if event not in EVENTS:
            raise InvalidInput(f"{field}.event", f"must be one of {', '.join(EVENTS)}")
        by = doc.get("by")
        if not isinstance(by, str) or not by:
            raise InvalidInput(f"{field}.by", "must be the id of the enemy unit")
        counts = {}
        for key in ("hits", "wounds_lost", "models_destroyed"):
            value = doc.get(key, 0)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise InvalidInput(f"{field}.{key}", "must be a whole number of 0 or more")
            if value and event != "shot":
                raise InvalidInput(
                    f"{field}.{key}", "only a shot has hits, wounds lost or models destroyed"
                )
            counts[key] = value
        destroyed = doc.get("destroyed", [])
        if not isinstance(destroyed, list) or not all(isinstance(m, str) for m in destroyed):
            raise InvalidInput(f"{field}.destroyed", "must be a list of model ids")
        if destroyed and event != "shot":
            raise InvalidInput(f"{field}.destroyed", "only a shot destroys models")
        if destroyed and "models_destroyed" not in doc:
            counts["models_destroyed"] = len(destroyed)
        return cls(event, by, destroyed=tuple(destroyed), **counts)

    def describe(self) -> str:
        if self.event == "enemy-ended-move":
            return f"{named(self.by)} ended a move"
        parts = [
            f"{n} {one if n == 1 else many}"
            for n, one, many in (
                (self.hits, "hit", "hits"),
                (self.wounds_lost, "wound lost", "wounds lost"),
                (self.models_destroyed, "model destroyed", "models destroyed"),
            )
            if n
        ]
        return (
            f"{named(self.by)} shot it ({', '.join(parts)})"
            if parts
            else f"{named(self.by)} shot it to no effect"
        )


def without_destroyed(situation: Situation, unit_id: str, trigger: Trigger | None) -> Situation:
    """The situation with the models the shot destroyed taken off the table (21.01 example:
    only the survivors surge). Model ids of other units are refused."""
    if trigger is None or not trigger.destroyed:
        return situation
    unit = situation.unit(unit_id)
    own = {m.id for m in unit.models}
    for mid in trigger.destroyed:
        if mid not in own:
            raise InvalidInput(
                "declarations.trigger.destroyed", f"{mid!r} is not a model of unit {named(unit_id)}"
            )
    if own <= set(trigger.destroyed):
        raise InvalidInput(
            "declarations.trigger.destroyed", f"no model of unit {named(unit_id)} survives to surge"
        )
    return situation.moved(removed=trigger.destroyed)


def trigger_check(
    situation: Situation,
    unit: Unit,
    ability: SurgeAbility,
    trigger: Trigger | None,
    verdict: Verdict,
) -> bool:
    """21.02 eligible-if "the rule allowing it has been triggered": records the finding (with
    the distance measured for the "enemy ended a move nearby" trigger) and returns whether it
    was met."""
    wants = SURGE_TRIGGERS[ability.trigger]

    def refuse(why: str) -> bool:
        return verdict.check(
            rule=RULE, stage="eligible-if", passed=False, subject=unit.id, text=why
        )

    if trigger is None:
        return refuse(
            f"{ability.name} lets {named(unit)} surge when {wants}; no such event was declared, "
            "so it has not been triggered."
        )
    if not situation.has_unit(trigger.by):
        raise InvalidInput(
            "declarations.trigger.by", f"no unit with id {trigger.by!r} in this scenario"
        )
    by = situation.unit(trigger.by)
    if by.army == unit.army:
        return refuse(
            f"{named(trigger.by)} is a friendly unit; only an enemy unit can trigger "
            f"{ability.name}."
        )
    if ability.trigger == "enemy-ended-move-within-8":
        if trigger.event != "enemy-ended-move":
            return refuse(
                f"{ability.name} needs an enemy unit to end a move nearby, "
                f"not {trigger.describe()}."
            )
        turn = situation.turn
        if turn.phase not in (None, ENEMY_MOVE_TRIGGER_PHASE) or turn.active_army not in (
            None,
            by.army,
        ):
            # RULES.md 1.6: this trigger is an enemy ending a move in its own Movement phase
            # (a document that does not say whose phase it is gets the benefit of the doubt).
            return refuse(
                f"{ability.name} triggers when an enemy unit ends a move in its Movement phase; "
                f"this is {turn.active_army}'s {turn.phase} phase, so {named(trigger.by)} ending a "
                "move now does not trigger it."
            )
        gap = unit_distance(by, unit)
        ended = f'{named(trigger.by)} ended its move {gap:.2f}" from {named(unit)},'
        needs = f'the {ENEMY_MOVE_TRIGGER_RANGE:g}" {ability.name} needs.'
        return verdict.check(
            rule=RULE,
            stage="eligible-if",
            passed=within(gap, ENEMY_MOVE_TRIGGER_RANGE),
            subject=unit.id,
            pass_text=f"{ended} within {needs}",
            fail_text=f"{ended} further than {needs}",
            measured=gap,
            limit=ENEMY_MOVE_TRIGGER_RANGE,
        )
    if trigger.event != "shot":
        return refuse(f"{ability.name} needs {named(unit)} to be shot, not {trigger.describe()}.")
    count = {
        "models-destroyed-by-shooting": trigger.models_destroyed,
        "models-hit-by-shooting": max(trigger.hits, trigger.wounds_lost, trigger.models_destroyed),
        # a destroyed model lost its last wound, so it counts as a wound lost
        "wounds-lost-to-shooting": max(trigger.wounds_lost, trigger.models_destroyed),
    }[ability.trigger]
    return verdict.check(
        rule=RULE,
        stage="eligible-if",
        passed=bool(count),
        subject=unit.id,
        pass_text=f"{trigger.describe()}: {ability.name} triggers when {wants}.",
        fail_text=f"{trigger.describe()}, but {ability.name} only triggers when {wants}.",
    )


# -- limits ---------------------------------------------------------------------------------------
def uses_counting(
    situation: Situation, unit: Unit, ability: SurgeAbility
) -> list[Mapping[str, Any]]:
    """The recorded uses of `ability` that count against its limit now."""
    turn = situation.turn
    used = [
        u
        for u in (unit.state.get("surges_used") or [])
        if isinstance(u, Mapping) and u.get("ability") == ability.id
    ]
    if ability.limit == "battle":
        return used
    if ability.limit == "turn":
        return [
            u for u in used if u.get("round") == turn.round and u.get("turn") == turn.active_army
        ]
    if ability.limit == "phase":
        return [
            u
            for u in used
            if u.get("round") == turn.round
            and u.get("turn") == turn.active_army
            and u.get("phase") == turn.phase
        ]
    return []


def use_record(situation: Situation, unit: Unit, ability: SurgeAbility) -> list[dict[str, Any]]:
    """The unit's `surges_used` after one more use of `ability` now."""
    turn = situation.turn
    previous = [dict(u) for u in (unit.state.get("surges_used") or []) if isinstance(u, Mapping)]
    return previous + [
        {"ability": ability.id, "round": turn.round, "turn": turn.active_army, "phase": turn.phase}
    ]


# -- eligibility (21.02 eligible-if) ------------------------------------------------------------
def find_ability(unit: Unit, ability_id: str | None) -> tuple[SurgeAbility | None, str]:
    """The surge ability the move uses: the declared one, or the unit's only one."""
    abilities = surge_abilities(unit)
    if ability_id is not None:
        if unit.ability(ability_id) is None:
            raise InvalidInput(
                "declarations.ability", f"unit {named(unit)} has no ability {ability_id!r}"
            )
        found = next((a for a in abilities if a.id == ability_id), None)
        if found is None:
            return (
                None,
                f"{ability_id} is not an ability that grants a surge move, so it cannot allow one.",
            )
        return found, ""
    if len(abilities) == 1:
        return abilities[0], ""
    if not abilities:
        return (
            None,
            f"{named(unit)} has no ability that grants a surge move; a unit can only surge when a "
            "rule lets it.",
        )
    return None, (
        f"{named(unit)} has several surge abilities ({', '.join(a.id for a in abilities)}); "
        "declare which one is used."
    )


def eligibility_findings(
    situation: Situation,
    unit: Unit,
    ability: SurgeAbility | None,
    trigger: Trigger | None,
    why_no_ability: str = "",
) -> list[Finding]:
    """21.02 eligible-if, every condition checked (not only the first that fails):
    triggered (and within the ability's limit), not battle-shocked, unengaged, not moved this
    phase."""
    # Findings outside any one move (the surge offers list them too): a verdict only collects.
    checks = Verdict(move={})
    if ability is None:
        checks.check(
            rule=RULE, stage="eligible-if", passed=False, subject=unit.id, text=why_no_ability
        )
    else:
        trigger_check(situation, unit, ability, trigger, checks)
        if ability.limit:
            used = uses_counting(situation, unit, ability)
            checks.check(
                rule=RULE,
                stage="eligible-if",
                passed=not used,
                subject=unit.id,
                pass_text=f"{ability.name} can be used once per {ability.limit}; {named(unit)} has "
                f"not used it yet this {ability.limit}.",
                fail_text=f"{ability.name} can be used once per {ability.limit} and {named(unit)} "
                f"has already used it this {ability.limit}.",
                measured=len(used),
                limit=0,
            )
    checks.check(
        rule=RULE,
        stage="eligible-if",
        passed=not unit.flag("battle_shocked"),
        subject=unit.id,
        pass_text=f"{named(unit)} is not battle-shocked.",
        fail_text=f"{named(unit)} is battle-shocked, and a battle-shocked unit cannot surge.",
    )
    engaged = engaged_enemy_units(situation, unit)
    checks.check(
        rule=RULE,
        stage="eligible-if",
        passed=not engaged,
        subject=unit.id,
        pass_text=f"{named(unit)} is unengaged.",
        fail_text=f"{named(unit)} is engaged with {', '.join(map(named, engaged))}, and only an "
        "unengaged unit "
        "can surge.",
    )
    # A surge is a move (RULES.md 1.6): a surge recorded this phase, with any ability, counts
    # even when the moved flag was not set.
    surged = surged_this_phase(situation, unit)
    checks.check(
        rule=RULE,
        stage="eligible-if",
        passed=not (surged or unit.flag("moved_this_phase")),
        subject=unit.id,
        pass_text=f"{named(unit)} has not moved this phase.",
        fail_text=f"{named(unit)} already surged this phase: a surge is a move, so it has already "
        "moved this phase and cannot surge again, with this ability or another."
        if surged
        else f"{named(unit)} has already moved this phase, so it cannot surge now.",
    )
    return checks.findings


def surge_offers(
    situation: Situation, unit_id: str | None, event: Mapping[str, Any]
) -> list[tuple[str, str, list[Finding]]]:
    """Which surge moves are on offer after `event` (a trigger document), and why or why not.

    `unit_id` None means every unit with a surge ability. A shot only concerns the unit it hit,
    so give that unit's id for a shot. Returns (unit id, ability id, eligible-if findings) per
    ability; an offer stands when all its findings passed.
    """
    trigger = Trigger.from_document(event, "event")
    if unit_id is None and trigger.event == "shot":
        raise InvalidInput(
            "unit", "a shot concerns the unit it hit: name that unit to list its surge moves"
        )
    units = [situation.unit(unit_id)] if unit_id is not None else list(situation.units)
    offers = []
    for unit in units:
        for ability in surge_abilities(unit):
            offers.append(
                (unit.id, ability.id, eligibility_findings(situation, unit, ability, trigger))
            )
    return offers


def eligibility(situation: Situation, unit_id: str, declarations: dict[str, Any]) -> list[Finding]:
    """MoveType.eligibility: the eligible-if findings for the declared (or only) surge ability."""
    unit = situation.unit(unit_id)
    raw = declarations.get("trigger")
    trigger = Trigger.from_document(raw) if raw is not None else None
    ability, why = find_ability(unit, declarations.get("ability"))
    return eligibility_findings(situation, unit, ability, trigger, why)


# -- before moving: the surge target --------------------------------------------------------------
@dataclass(frozen=True)
class TargetChoice:
    """21.02 before moving: the closest enemy units (ties within EPSILON) and who was ignored."""

    candidates: tuple[str, ...]
    distance: float
    ignored_aircraft: tuple[str, ...] = ()


def surge_target_candidates(situation: Situation, unit: Unit) -> TargetChoice:
    """21.02 before moving: the closest enemy units by straight distance (RULES.md 1.1); a unit
    that cannot FLY ignores AIRCRAFT units (23.02). Several within EPSILON of the closest tie."""
    flyer = can_fly(unit)
    ignored, gaps = [], []
    for enemy in situation.enemies_of(unit):
        if enemy.has("AIRCRAFT") and not flyer:
            ignored.append(enemy.id)
            continue
        gaps.append((unit_distance(unit, enemy), enemy.id))
    if not gaps:
        return TargetChoice((), math.inf, tuple(ignored))
    closest = min(g for g, _ in gaps)
    return TargetChoice(
        tuple(i for g, i in gaps if g <= closest + EPSILON), closest, tuple(ignored)
    )


def choose_surge_target(
    situation: Situation,
    unit: Unit,
    declared: str | None,
    verdict: Verdict,
    placed: list[Model] | None = None,
) -> str | None:
    """21.02 before moving: record the surge target finding(s); None when there is none.
    Equally close units and no `declared` choice: `placed` (the models where the move ends)
    engaging exactly one of them shows the player's choice, as at the table."""
    choice = surge_target_candidates(situation, unit)
    note = (
        f" AIRCRAFT units are ignored because {named(unit)} cannot FLY "
        f"({', '.join(choice.ignored_aircraft)})."
        if choice.ignored_aircraft
        else ""
    )
    if not choice.candidates:
        verdict.check(
            rule=RULE,
            stage="before-moving",
            passed=False,
            subject=unit.id,
            text=(
                f"There is no enemy unit {named(unit)} could surge toward, so it has no surge "
                f"target.{note}"
            ),
        )
        return None
    if declared is not None and not situation.has_unit(declared):
        raise InvalidInput(
            "declarations.surge_target", f"no unit with id {declared!r} in this scenario"
        )
    if len(choice.candidates) == 1:
        target = choice.candidates[0]
        if declared is not None and declared != target:
            verdict.check(
                rule=RULE,
                stage="before-moving",
                passed=False,
                subject=unit.id,
                text=(
                    f"The surge target must be the closest enemy unit, {named(target)} "
                    f'({choice.distance:.2f}" away), not {named(declared)}.{note}'
                ),
                measured=unit_distance(unit, situation.unit(declared)),
                limit=choice.distance,
            )
            return None
        verdict.check(
            rule=RULE,
            stage="before-moving",
            passed=True,
            subject=unit.id,
            text=(
                f"The surge target is {named(target)}, the closest enemy unit "
                f'({choice.distance:.2f}" away).{note}'
            ),
            measured=choice.distance,
        )
        return target
    tied = ", ".join(choice.candidates)
    if declared is None and placed:
        reached = {e for m in placed for e in engaged_with_model(situation, unit, m)}
        engaged = [c for c in choice.candidates if c in reached]
        if len(engaged) == 1:
            verdict.check(
                rule=RULE,
                stage="before-moving",
                passed=True,
                subject=unit.id,
                text=(
                    f'{tied} are equally close ({choice.distance:.2f}"); the placement engages '
                    f"only {engaged[0]}, so that is the player's surge target.{note}"
                ),
                measured=choice.distance,
            )
            return engaged[0]
    if declared is None:
        verdict.check(
            rule=RULE,
            stage="before-moving",
            passed=False,
            subject=unit.id,
            text=(
                f'{tied} are equally close ({choice.distance:.2f}"); the player chooses which '
                "one is "
                f"the surge target (declare surge_target).{note}"
            ),
            measured=choice.distance,
        )
        return None
    if declared not in choice.candidates:
        verdict.check(
            rule=RULE,
            stage="before-moving",
            passed=False,
            subject=unit.id,
            text=(
                f'{declared} is not among the closest enemy units ({tied}, {choice.distance:.2f}" '
                f"away), so it cannot be the surge target.{note}"
            ),
            measured=choice.distance,
        )
        return None
    verdict.check(
        rule=RULE,
        stage="before-moving",
        passed=True,
        subject=unit.id,
        text=(
            f'{tied} are equally close ({choice.distance:.2f}"); the player chose {declared} as '
            "the "
            f"surge target.{note}"
        ),
        measured=choice.distance,
    )
    return declared


# -- the move -------------------------------------------------------------------------------------
def _declarations(move: Move) -> tuple[str | None, Trigger | None]:
    raw = move.declarations.get("trigger")
    return move.declarations.get("ability"), (
        Trigger.from_document(raw) if raw is not None else None
    )


def _refuse_take_to_the_skies(move: Move, unit: Unit, verdict: Verdict) -> None:
    """21.03: take to the skies belongs to normal, advance, fall-back and charge moves only."""
    if move.declarations.get("take_to_the_skies"):
        verdict.check(
            rule="21.03",
            stage="before-moving",
            passed=False,
            subject=unit.id,
            text=(
                f"{named(unit)} cannot take to the skies for a surge move: that is only for "
                "normal, "
                "advance, fall-back and charge moves, so a surge is always made along the ground."
            ),
        )


def _prepare(
    situation: Situation, move: Move
) -> tuple[Situation, Unit, SurgeAbility | None, Trigger | None, list[Finding]]:
    """Shared by adjudicate and suggest: the situation without the destroyed models, the unit,
    the ability, the trigger, and the eligible-if findings."""
    ability_id, trigger = _declarations(move)
    situation = without_destroyed(situation, move.unit, trigger)
    unit = situation.unit(move.unit)
    ability, why = find_ability(unit, ability_id)
    return (
        situation,
        unit,
        ability,
        trigger,
        eligibility_findings(situation, unit, ability, trigger, why),
    )


def adjudicate_surge(situation: Situation, move: Move) -> Verdict:
    """21.02: judge a surge move's proposed placement (`move.end`), every stage in rule order.

    Nothing moves unless every finding passes; the verdict's `after` is then the situation with
    the unit placed, `moved_this_phase` set and the ability's use recorded in `surges_used`.
    """
    situation, unit, ability, trigger, findings = _prepare(situation, move)
    verdict = Verdict(move={"unit": unit.id, "type": "surge"})
    verdict.findings.extend(findings)
    _refuse_take_to_the_skies(move, unit, verdict)
    if not verdict.legal or ability is None:
        verdict.check(
            rule=RULE,
            stage="before-moving",
            passed=False,
            subject=unit.id,
            text=f"{named(unit)} cannot make this surge move, so none of its models moves.",
        )
        return verdict
    dice = Dice(move.dice, move.seed)
    max_distance = ability.max_distance(dice.roll(ability.dice))
    dice.finish()
    verdict.move.update({"ability": ability.id, "max_distance": max_distance, **dice.summary()})
    verdict.check(
        rule=RULE,
        stage="before-moving",
        passed=True,
        subject=unit.id,
        text=(
            f"{ability.name} gives a surge of {ability.distance_text}"
            + (f": rolled {', '.join(str(d.value) for d in dice.rolled)}" if ability.dice else "")
            + f', so each model may move up to {max_distance:g}".'
        ),
        measured=max_distance,
    )
    ends = move.end or {}
    proposed = [end_placement(situation, m, ends.get(m.id)) for m in unit.models]
    target = choose_surge_target(
        situation, unit, move.declarations.get("surge_target"), verdict, proposed
    )
    verdict.move["target"] = target
    if target is None:
        return verdict
    # 03.01 / 13.06 while moving and end of move, as for any ground move (never in the skies);
    # the maximum distance is the surge's own (21.02: as the granting rule states), so the
    # distance finding cites 21.02 as a normal move's cites 09.05
    ground = judge_move(situation, move, verdict, max_distance, rule=RULE, mode=SURGE_MODE)
    placed = {m.id: ground.placements.get(m.id, m) for m in unit.models}
    verdict.proposed = {mid: {"x": m.x, "y": m.y} for mid, m in placed.items()}
    space = SurgeSpace(situation, unit, target, max_distance)
    _while_moving(space, placed, ground, verdict)
    _after_moving(situation, unit, target, placed, verdict)
    if verdict.legal:
        state = {
            unit.id: {"moved_this_phase": True, "surges_used": use_record(situation, unit, ability)}
        }
        verdict.after = situation.moved(ground.poses, state)
    return verdict


def _while_moving(
    space: SurgeSpace, placed: dict[str, Model], ground: MoveOutcome, verdict: Verdict
) -> None:
    """21.02 while moving, per model: engaged with the target if possible, else as close as
    possible (RULES.md 1.6, tested by `SurgeSpace.better_position`)."""
    target = space.target.id
    tolerance = PLACEMENT_TOLERANCE
    for mid, model in placed.items():
        moved = ground.models[mid].distance if mid in ground.models else 0.0
        result = verdict.models.setdefault(mid, {})
        engaged = space.engaged_with_target(model)
        gap = space.target_distance(model)
        result["engaged_with"] = sorted(engaged_with_model(space.situation, space.unit, model))
        if engaged:
            verdict.check(
                rule=RULE,
                stage="while-moving",
                passed=True,
                subject=mid,
                text=(
                    f'{named(mid)} moved {fmt(moved)}" of {fmt(space.max_distance)}" and ends '
                    "engaged "
                    f"with {named(target)}."
                ),
                measured=moved,
                limit=space.max_distance,
            )
            continue
        better = space.better_position(mid, placed, tolerance)
        if better is None:
            verdict.check(
                rule=RULE,
                stage="while-moving",
                passed=True,
                subject=mid,
                text=(
                    f'{named(mid)} moved {fmt(moved)}" of {fmt(space.max_distance)}" and ends '
                    f'{fmt(gap)}" from '
                    f"{named(target)}; it could not have ended engaged with {named(target)}"
                    # 1.3: rotations are free; a base that is not round is searched turned for
                    # engaging, at its own facing for getting closer (surge_solver)
                    + (", turned or not," if model.base.kind != "round" else ",")
                    + f' nor more than {fmt(tolerance)}" closer to it'
                    + (" at its own facing." if model.base.kind != "round" else ".")
                ),
                measured=gap,
            )
        elif better.engaged:
            verdict.check(
                rule=RULE,
                stage="while-moving",
                passed=False,
                subject=mid,
                text=(
                    f'{named(mid)} ends {fmt(gap)}" from {named(target)}, not engaged, but it '
                    "could have ended "
                    f"engaged with it at ({better.model.x:.2f}, {better.model.y:.2f}) "
                    f"{level_text(better.model)}{_turned_text(model, better.model)}, "
                    f'{fmt(better.moved)}" from its '
                    f"start; each model must end engaged with the surge target if it can."
                ),
                measured=gap,
                limit=better.distance,
            )
        else:
            verdict.check(
                rule=RULE,
                stage="while-moving",
                passed=False,
                subject=mid,
                text=(
                    f'{named(mid)} ends {fmt(gap)}" from {named(target)}, but it could have got to '
                    f'{fmt(better.distance)}" at ({better.model.x:.2f}, {better.model.y:.2f}) '
                    f"{level_text(better.model)}{_turned_text(model, better.model)}; a model "
                    "that cannot engage the surge "
                    f"target must end as close to it as it can."
                ),
                measured=gap,
                limit=better.distance,
            )


def _turned_text(model: Model, spot: Model) -> str:
    """', turned to face 0°' when the better spot needs the model turned (1.3: rotations are
    free), else nothing."""
    if model.base.kind == "round" or abs(spot.facing - model.facing) <= EPSILON:
        return ""
    return f", turned to face {fmt(spot.facing)}°"


def _after_moving(
    situation: Situation, unit: Unit, target: str, placed: dict[str, Model], verdict: Verdict
) -> None:
    """21.02 after moving: engaged with no enemy unit but the target; cannot move again this
    phase."""
    engaged = [e for e in engaged_enemy_units(situation, unit, placed) if e != target]
    verdict.check(
        rule=RULE,
        stage="after-moving",
        passed=not engaged,
        subject=unit.id,
        pass_text=f"{named(unit)} is engaged with no enemy unit other than the surge target "
        f"{named(target)}.",
        fail_text=f"{named(unit)} would end engaged with {', '.join(map(named, engaged))}, which "
        "is not its "
        f"surge target {named(target)}; a surge may only end engaged with the surge target.",
    )
    verdict.check(
        rule=RULE,
        stage="after-moving",
        passed=True,
        subject=unit.id,
        text=f"{named(unit)} is marked as having moved this phase, so it cannot move again this "
        "phase.",
    )


def suggest_surge(situation: Situation, move: Move) -> Move:
    """21.02: the engine's placement for a surge (see surge_solver): `move` with `end` filled in
    and the dice fixed (the seed is kept, so judging it rolls the same values)."""
    trimmed, unit, ability, trigger, findings = _prepare(situation, move)
    dice = Dice(move.dice, move.seed)
    if (
        not all(f.passed for f in findings)
        or ability is None
        or move.declarations.get("take_to_the_skies")
    ):
        # Not eligible: the suggestion is to stay put; judging it explains why.
        end = {m.id: Pose(m.x, m.y, m.z, m.facing) for m in unit.models}
        return Move(move.unit, move.type, move.declarations, move.dice, end, {}, dice.seed)
    max_distance = ability.max_distance(dice.roll(ability.dice))
    verdict = Verdict(move={})
    target = choose_surge_target(trimmed, unit, move.declarations.get("surge_target"), verdict)
    if target is None:
        end = {m.id: Pose(m.x, m.y, m.z, m.facing) for m in unit.models}
    else:
        space = SurgeSpace(trimmed, unit, target, max_distance)
        placed = suggest_placement(space)
        end = {mid: Pose(m.x, m.y, m.z, m.facing) for mid, m in placed.items()}
    return Move(move.unit, move.type, move.declarations, move.dice, end, {}, dice.seed)


def reach(situation: Situation, move: Move) -> list[tuple[Any, str]]:
    """Where each surviving model can end, for the table overlay: always on the ground (a surge
    never takes to the skies). The distance comes from the entered dice; before the roll there
    is none yet (InvalidInput)."""
    situation, unit, ability, _trigger, _findings = _prepare(situation, move)
    if ability is None:
        return []
    if ability.dice and move.dice is None:
        raise InvalidInput("dice", "the surge roll sets how far the unit can go")
    max_distance = ability.max_distance(Dice(move.dice, move.seed).roll(ability.dice))
    regions = reachable_regions(
        situation, unit.models, max_distance, [SURGE_MODE] * len(unit.models), estimate_first=True
    )
    return [(shapely.union_all(regions), "ground")]
