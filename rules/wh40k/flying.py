"""21.03 Flying models: taking to the skies (RULES.md 1.7).

A unit with a FLY model can FLY. When it is picked to make one of the four ordinary moves
(normal, advance, fall back, charge), its player may declare that it takes to the skies
(`declarations.take_to_the_skies`): before any model moves, and for an advance or a charge
before the dice are rolled. The move's maximum distance drops by 2" (never below 0; HOVER
keeps the full distance), vertical distance is ignored and the models cross every model and
every terrain feature; the end-of-move checks still apply (rules/wh40k/moving.py handles the
travel with `Mode(skies=True)`).

A declaration made after the roll (`declarations.declared_after_roll`, an Arbiter extension) is
refused with a finding that explains why.
"""

from __future__ import annotations

from ..move import Move
from ..naming import named
from ..situation import Model, Unit
from ..verdict import Verdict
from .moving import article, model_has

SKIES_MOVE_TYPES = ("normal", "advance", "fall-back", "charge")
ROLLED_MOVE_TYPES = ("advance", "charge")
SKIES_PENALTY = 2.0


def can_fly(unit: Unit) -> bool:
    """21.03: a unit with the FLY keyword (on any of its models) can FLY."""
    return unit.has("FLY") or any(model_can_fly(unit, m) for m in unit.models)


def model_can_fly(unit: Unit, model: Model) -> bool:
    """RULES.md 1.7: in a unit where only some models have FLY, only those models get the
    skies' freedoms (the unit's keywords are every model's; `Model.keywords` adds its own)."""
    return model_has(unit, model, "FLY")


def takes_to_the_skies(move: Move) -> bool:
    return bool(move.declared("take_to_the_skies", False))


def check_declaration(verdict: Verdict, unit: Unit, move: Move) -> bool:
    """21.03 before moving: may this unit take to the skies for this move, declared when it was?

    Adds the findings and returns whether the declaration stands. Only called when the move
    declares it.
    """
    ok = verdict.check(
        rule="21.03",
        stage="before-moving",
        passed=can_fly(unit),
        subject=unit.id,
        pass_text=f"{named(unit)} can FLY, so it may take to the skies.",
        fail_text=f"{named(unit)} has no FLY model, so it cannot take to the skies.",
    )
    ok &= verdict.check(
        rule="21.03",
        stage="before-moving",
        passed=move.type in SKIES_MOVE_TYPES,
        subject=unit.id,
        pass_text=f"Taking to the skies is allowed for {article(move.type)} move.",
        fail_text=f"Taking to the skies is only for normal, advance, fall-back and charge moves, "
        f"not {article(move.type)} move.",
    )
    late = bool(move.declared("declared_after_roll", False))
    if move.type in ROLLED_MOVE_TYPES:
        ok &= verdict.check(
            rule="21.03",
            stage="before-moving",
            passed=not late,
            subject=unit.id,
            pass_text=f"{named(unit)} declared it would take to the skies before rolling for its "
            f"{move.type}.",
            fail_text=f"Too late: taking to the skies must be declared before the {move.type} "
            "roll, not after seeing the dice.",
        )
    else:
        ok &= verdict.check(
            rule="21.03",
            stage="before-moving",
            passed=not late,
            subject=unit.id,
            pass_text=f"{named(unit)} declared it would take to the skies before any model moved.",
            fail_text="Too late: taking to the skies must be declared before any model of the "
            "unit moves.",
        )
    return ok


def skies_max_distance(unit: Unit, max_distance: float) -> float:
    """21.03: the maximum distance less 2" (not below 0); HOVER keeps it whole."""
    if unit.has("HOVER"):
        return max_distance
    return max(0.0, max_distance - SKIES_PENALTY)
