"""Warhammer 40,000, 11th edition (RULES.md 1): the game's description in the registry.

Modules: `measuring` (1.1-1.2: distances, engagement, coherency), `moving` (1.3 and 1.5: the
reusable move judge), `move_types` (1.4: normal, advance, fall back, charge), `flying` (1.7:
taking to the skies), `surge` (1.6: surge moves).

`SYSTEM` is built in two steps: its constants first (the judges read the tolerance when they are
imported), then its move types, once the judges exist.
"""

from functools import partial
from types import MappingProxyType

from ..geometry import MM_PER_INCH
from ..systems import Declaration, MoveType, StateFlag, System, TerrainKind, register_system

SYSTEM = register_system(
    System(
        name="wh40k-11e",
        title="Warhammer 40,000 (11th edition)",
        unit="in",
        mm_per_unit=MM_PER_INCH,
        placement_tolerance=0.05,  # RULES.md 0: PLACEMENT_TOLERANCE
        phases=("command", "movement", "shooting", "charge", "fight"),
        state_flags=(
            StateFlag("battle_shocked", "Battle-shocked", "battle"),
            StateFlag("moved_this_phase", "Moved this phase", "phase"),
            StateFlag("advanced_this_turn", "Advanced this turn", "turn"),
            StateFlag("fell_back_this_turn", "Fell back this turn", "turn"),
            # When each surge was used (21.02: once per phase), kept for the battle.
            StateFlag("surges_used", "Surge moves used", "battle", offers=False),
        ),
        # RULES.md 1.5: 40K terrain is judged by its category; `solid` is a flag of its own.
        terrain_field="category",
        terrain_kinds=(
            TerrainKind("exposed", "Exposed terrain", ("exposed",)),
            TerrainKind("light", "Light terrain", ("light",)),
            TerrainKind("dense", "Dense terrain", ("dense",)),
        ),
        terrain_aliases=MappingProxyType({}),
    )
)

from . import move_types, surge  # noqa: E402  (the judges read SYSTEM's tolerance)

TAKE_TO_THE_SKIES = Declaration(
    "take_to_the_skies",
    "flag",
    "Take to the skies (FLY units; declared before the roll, 21.03)",
)
# Arbiter's extension (docs/format.md): the declaration above was made after the roll, which
# 21.03 does not allow; lessons carry it, the stepper never asks it.
DECLARED_AFTER_ROLL = Declaration(
    "declared_after_roll", "flag", "Declared after the roll", asked=False
)
# 11.02: the targets are picked after the roll, among the enemy units within it.
CHARGE_TARGETS = Declaration(
    "charge_targets",
    "enemy-units",
    "Charge targets",
    required=True,
    after_roll=True,
    offer=move_types.charge_target_offer,
)

SYSTEM.add(
    MoveType(
        name="normal",
        title="Normal move",
        rule=move_types.RULES["normal"],
        eligibility=partial(move_types.eligibility, move_type="normal"),
        declarations=(TAKE_TO_THE_SKIES, DECLARED_AFTER_ROLL),
        phases=("movement",),
        adjudicate=move_types.adjudicate_move,
        reach=move_types.reach,
    ),
    MoveType(
        name="advance",
        title="Advance",
        rule=move_types.RULES["advance"],
        eligibility=partial(move_types.eligibility, move_type="advance"),
        declarations=(TAKE_TO_THE_SKIES, DECLARED_AFTER_ROLL),
        dice="one D6",
        phases=("movement",),
        adjudicate=move_types.adjudicate_move,
        reach=move_types.reach,
    ),
    MoveType(
        name="fall-back",
        title="Fall back",
        rule=move_types.RULES["fall-back"],
        eligibility=partial(move_types.eligibility, move_type="fall-back"),
        declarations=(
            TAKE_TO_THE_SKIES,
            DECLARED_AFTER_ROLL,
            Declaration(
                "fall_back_mode",
                "choice",
                "Fall back mode",
                choices=(
                    ("ordered-retreat", "ordered retreat"),
                    ("desperate-escape", "desperate escape"),
                ),
            ),
        ),
        dice="none, or one D6 for a desperate escape test per model",
        phases=("movement",),
        adjudicate=move_types.adjudicate_move,
        reach=move_types.reach,
    ),
    MoveType(
        name="charge",
        title="Charge",
        rule=move_types.RULES["charge"],
        suggest=move_types.suggest_charge,
        eligibility=partial(move_types.eligibility, move_type="charge"),
        declarations=(TAKE_TO_THE_SKIES, DECLARED_AFTER_ROLL, CHARGE_TARGETS),
        dice="two D6",
        phases=("charge",),
        adjudicate=move_types.adjudicate_move,
        reach=move_types.reach,
    ),
    MoveType(
        name="surge",
        title="Surge move",
        rule="21.02",
        adjudicate=surge.adjudicate_surge,
        suggest=surge.suggest_surge,
        eligibility=surge.eligibility,
        reach=surge.reach,
        declarations=(
            Declaration("ability", "ability", "Ability"),
            Declaration(
                "trigger",
                "trigger",
                "What set it off",
                choices=tuple(
                    zip(
                        surge.EVENTS,
                        ("shot by an enemy unit", "an enemy unit ended a move"),
                        strict=True,
                    )
                ),
            ),
            Declaration(
                "surge_target", "enemy-unit", "Surge target, only to break a tie", after_roll=True
            ),
        ),
        dice="as the ability says (often one D6)",
        # 21.01: a surge answers the enemy, in whichever phase its trigger happens.
        phases=(),
    ),
)
