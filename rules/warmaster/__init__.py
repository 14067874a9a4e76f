"""Warmaster (Revolution), flying units (RULES.md 2). Importing this registers its move rules.

Modules, in the rulebook's words: `stands` (stands, units, formations, distance moved),
`terrain` (terrain types and sight), `flying` (hops and where a flyer may end), `command`
(initiative and orders), `home_back`, `drive_back`, `combat` (retreat, pursuit, advance, fall
back) and `characters` (flying characters).
"""

from ..systems import SYSTEMS, MoveRule
from . import command, home_back

_SYSTEM = SYSTEMS["warmaster-revolution"]

_SYSTEM.register("initiative-charge", MoveRule("flying-units/initiative", command.adjudicate_initiative_charge,
                                               command.needs_end))
_SYSTEM.register("order-move", MoveRule("flying-units/orders", command.adjudicate_order_move, command.needs_end))
_SYSTEM.register("order-charge", MoveRule("flying-units/orders", command.adjudicate_order_charge,
                                          command.needs_end))
_SYSTEM.register("home-back", MoveRule(home_back.RULE, home_back.adjudicate_home_back,
                                       home_back.suggest_home_back, home_back.home_back_eligibility))
