"""Game systems and the engine's two entry points, `adjudicate` and `suggest`.

Each system (like a python-chess variant) has its unit, constants and the move types it covers.
Move-type modules register a `MoveRule` here; a move type with no rule registered is refused with
a clear finding, never passed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .errors import InvalidInput
from .move import MOVE_TYPES, Move
from .situation import Situation
from .verdict import Finding, Verdict


@dataclass
class MoveRule:
    """How one move type is judged.

    - `adjudicate(situation, move) -> Verdict` judges a proposed placement (`move.end` set).
    - `suggest(situation, move) -> Move` returns the move with `end` (and `paths`) filled in by
      the engine, or raises InvalidInput when the move type needs the player's destinations.
    - `eligibility(situation, unit_id, declarations) -> list[Finding]` lists the eligible-if
      checks, for the UI's "which moves may this unit make now".
    - `reach(situation, move) -> [(geometry, "ground" | "skies")]`: where the unit's models can
      end, for the table overlay (never includes ground they cannot reach).
    """

    rule: str
    adjudicate: Callable[[Situation, Move], Verdict]
    suggest: Callable[[Situation, Move], Move] | None = None
    eligibility: Callable[[Situation, str, dict], list[Finding]] | None = None
    reach: Callable[[Situation, Move], list] | None = None


@dataclass
class System:
    name: str
    unit: str
    placement_tolerance: float
    move_rules: dict[str, MoveRule] = field(default_factory=dict)

    def register(self, move_type: str, rule: MoveRule) -> None:
        if move_type not in MOVE_TYPES[self.name]:
            raise ValueError(f"{move_type!r} is not a move type of {self.name}")
        self.move_rules[move_type] = rule


SYSTEMS = {
    # RULES.md 0: PLACEMENT_TOLERANCE, one named constant per system.
    "wh40k-11e": System("wh40k-11e", "in", placement_tolerance=0.05),
    "warmaster-revolution": System("warmaster-revolution", "cm", placement_tolerance=0.1),
}


def system_of(situation: Situation) -> System:
    return SYSTEMS[situation.system]


def _not_covered(situation: Situation, move: Move) -> Verdict:
    verdict = Verdict(move={"unit": move.unit, "type": move.type})
    verdict.check(
        "engine",
        "eligible-if",
        False,
        move.unit,
        f"Arbiter does not judge {move.type} moves for {situation.system} yet, so it "
        "cannot say whether this one is legal.",
    )
    return verdict


def _rule_for(situation: Situation, move: Move) -> MoveRule | None:
    system = system_of(situation)
    if move.type not in MOVE_TYPES[system.name]:
        raise InvalidInput(
            "type",
            f"{move.type!r} is not a move type of {system.name}; "
            f"use one of {', '.join(MOVE_TYPES[system.name])}",
        )
    situation.unit(move.unit)  # raises InvalidInput for an unknown unit
    return system.move_rules.get(move.type)


def adjudicate(situation: Situation, move: Move) -> Verdict:
    """Judge a move. When `move.end` is None the engine suggests a placement and judges that."""
    rule = _rule_for(situation, move)
    if rule is None:
        return _not_covered(situation, move)
    if move.end is None:
        if rule.suggest is None:
            raise InvalidInput("end", f"a {move.type} move needs the models' end positions")
        move = rule.suggest(situation, move)
    return rule.adjudicate(situation, move)


def suggest(situation: Situation, move: Move) -> Move:
    """The engine's placement for a move: `move` with `end` filled in."""
    rule = _rule_for(situation, move)
    if rule is None:
        raise InvalidInput(
            "type", f"Arbiter does not cover {move.type} moves for {situation.system} yet"
        )
    if rule.suggest is None:
        raise InvalidInput(
            "end",
            f"a {move.type} move needs the player's destinations; the engine does not suggest them",
        )
    return rule.suggest(situation, move)


def reach(situation: Situation, move: Move) -> list:
    """Where the moving unit's models can end, as [(geometry, "ground" | "skies")] for the table
    overlay; [] when the engine has no region for this move type. A move whose distance depends
    on dice not rolled yet raises InvalidInput("dice", ...)."""
    rule = _rule_for(situation, move)
    if rule is None or rule.reach is None:
        return []
    return rule.reach(situation, move)


def move_options(
    situation: Situation, unit_id: str, declarations: dict | None = None
) -> dict[str, list[Finding] | None]:
    """For each move type of the system: its eligible-if findings, or None if not covered yet."""
    system = system_of(situation)
    situation.unit(unit_id)
    options: dict[str, list[Finding] | None] = {}
    for move_type in MOVE_TYPES[system.name]:
        rule = system.move_rules.get(move_type)
        if rule is None:
            options[move_type] = None
        elif rule.eligibility is None:
            options[move_type] = []
        else:
            options[move_type] = rule.eligibility(situation, unit_id, dict(declarations or {}))
    return options
