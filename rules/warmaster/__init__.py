"""Warmaster (Revolution), flying units (RULES.md 2). Importing this registers its move rules.

Modules, in the rulebook's words: `stands` (stands, units, formations, distance moved),
`terrain` (terrain types and sight), `flying` (hops and where a flyer may end), `command`
(initiative and orders), `home_back`, `drive_back`, `combat` (retreat, pursuit, advance, fall
back) and `characters` (flying characters). The engine suggests the moves the player only rolls
for (home back, drive back, retreat, pursuit, a character's escape); moves the player steers
(initiative and order moves, combat advances and fall backs, character moves) need end poses.
"""

from ..systems import SYSTEMS, MoveRule
from ..verdict import Verdict
from . import characters, combat, command, drive_back, home_back
from .flying import phase_check, refuse_ground_unit

_SYSTEM = SYSTEMS["warmaster-revolution"]
_steered = command.eligibility_of  # eligible-if findings of a trial move that stays put


def _in_phase(phase: str, rule: str):
    """Eligible-if findings of a move the dice or the combat impose: a flying unit (2.5), in the
    phase the move belongs to (drive backs in the shooting phase, retreats and pursuits in the
    combat phase)."""

    def eligibility(situation, unit_id: str, declarations: dict):
        unit = situation.unit(unit_id)
        verdict = Verdict(move={})
        if refuse_ground_unit(verdict, unit):
            phase_check(verdict, situation, unit, phase, rule)
        return verdict.findings

    return eligibility


_RULES = {
    "initiative-charge": MoveRule(
        command.RULE_INITIATIVE,
        command.adjudicate_initiative_charge,
        command.needs_end,
        _steered(command.adjudicate_initiative_charge, "initiative-charge"),
    ),
    "order-move": MoveRule(
        command.RULE_ORDERS,
        command.adjudicate_order_move,
        command.needs_end,
        _steered(command.adjudicate_order_move, "order-move", (1, 1)),
    ),
    "order-charge": MoveRule(
        command.RULE_ORDERS,
        command.adjudicate_order_charge,
        command.needs_end,
        _steered(command.adjudicate_order_charge, "order-charge", (1, 1)),
    ),
    "home-back": MoveRule(
        home_back.RULE,
        home_back.adjudicate_home_back,
        home_back.suggest_home_back,
        home_back.home_back_eligibility,
    ),
    "drive-back": MoveRule(
        drive_back.RULE,
        drive_back.adjudicate_drive_back,
        drive_back.suggest_drive_back,
        _in_phase("shooting", drive_back.RULE),
    ),
    "retreat": MoveRule(
        combat.RULE,
        combat.adjudicate_retreat,
        combat.suggest_retreat,
        _in_phase("combat", combat.RULE),
    ),
    "pursuit": MoveRule(
        combat.RULE,
        combat.adjudicate_pursuit,
        combat.suggest_pursuit,
        _in_phase("combat", combat.RULE),
    ),
    "combat-advance": MoveRule(
        combat.RULE,
        combat.adjudicate_combat_advance,
        command.needs_end,
        _steered(combat.adjudicate_combat_advance, "combat-advance"),
    ),
    "combat-fall-back": MoveRule(
        combat.RULE,
        combat.adjudicate_combat_fall_back,
        command.needs_end,
        _steered(combat.adjudicate_combat_fall_back, "combat-fall-back"),
    ),
    "character-move": MoveRule(
        characters.RULE,
        characters.adjudicate_character_move,
        command.needs_end,
        _steered(characters.adjudicate_character_move, "character-move"),
    ),
    "character-escape": MoveRule(
        characters.RULE,
        characters.adjudicate_character_escape,
        characters.suggest_character_escape,
        _steered(characters.adjudicate_character_escape, "character-escape"),
    ),
}
for _type, _rule in _RULES.items():
    _SYSTEM.register(_type, _rule)
