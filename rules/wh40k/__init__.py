"""Warhammer 40,000, 11th edition (RULES.md 1). Importing this registers its move rules.

Modules: `measuring` (1.1-1.2: distances, engagement, coherency), `moving` (1.3 and 1.5: the
reusable move judge), `move_types` (1.4: normal, advance, fall back, charge), `flying` (1.7:
taking to the skies). Surge moves (1.6) live in `surge` and register themselves there.
"""

import importlib.util
from functools import partial

from ..systems import SYSTEMS, MoveRule
from . import move_types

_system = SYSTEMS["wh40k-11e"]
for _type, _rule in move_types.RULES.items():
    _system.register(
        _type,
        MoveRule(
            rule=_rule,
            adjudicate=move_types.adjudicate_move,
            suggest=move_types.suggest_charge
            if _type == "charge"
            else move_types.suggest_needs_end,
            eligibility=partial(move_types.eligibility, move_type=_type),
        ),
    )

# Surge moves (21.02) are built on top of this package in their own module, which registers
# itself when imported.
if importlib.util.find_spec(f"{__name__}.surge") is not None:
    from . import surge  # type: ignore[attr-defined]  # noqa: F401
