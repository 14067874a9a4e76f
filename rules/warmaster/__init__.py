"""Warmaster (Revolution), flying units (RULES.md 2): the game's description in the registry.

Modules, in the rulebook's words: `stands` (stands, units, formations, distance moved),
`terrain` (terrain types and sight), `flying` (hops and where a flyer may end), `command`
(initiative and orders), `home_back`, `drive_back`, `combat` (retreat, pursuit, advance, fall
back) and `characters` (flying characters). The engine suggests the moves the player only rolls
for (home back, drive back, retreat, pursuit, a character's escape); moves the player steers
(initiative and order moves, combat advances and fall backs, character moves) need end poses.

`SYSTEM` is built in two steps: its constants and vocabulary first (the judges read them when
they are imported), then its move types, once the judges exist.
"""

from types import MappingProxyType

from ..geometry import MM_PER_CM
from ..systems import Declaration, MoveType, StateFlag, System, TerrainKind, register_system
from ..verdict import Verdict
from .stands import CHARACTER_KEYWORDS, stand_size_problem

SYSTEM = register_system(
    System(
        name="warmaster-revolution",
        title="Warmaster (Revolution)",
        unit="cm",
        mm_per_unit=MM_PER_CM,
        placement_tolerance=0.1,  # RULES.md 0: PLACEMENT_TOLERANCE
        phases=("command", "shooting", "combat"),
        state_flags=(
            # 2.9: confusion lasts until the end of the unit's own side's next Command phase (or
            # of the current one, if it became confused in it): the phase bar clears it when
            # its side's Command phase ends.
            StateFlag("confused", "Confused", "own-command"),
            # a character's own move (2.9: characters move last in the Command phase)
            StateFlag("moved_this_phase", "Moved this phase", "phase", offers=False),
            StateFlag("orders_this_phase", "Ordered this phase", "phase"),
            StateFlag("spell_prevents_movement", "A spell prevents movement", "battle"),
            StateFlag("ordered_by", "Ordered by", "phase", offers=False),
            StateFlag("homed_back", "Homed back this phase", "phase", offers=False),
            StateFlag("initiative_moved", "Used initiative this phase", "phase", offers=False),
            StateFlag("command", "Command value", "battle", offers=False),
            StateFlag("joined", "Joined unit", "battle", offers=False),
            StateFlag("stands_lost", "Stands lost", "battle", offers=False),
            # RULES.md 2.9: a unit that charged takes no more orders; a character whose (or whose
            # General's) order failed gives no more; a unit in combat without an enemy touching it
            # cannot make way.
            StateFlag("charged", "Charged this phase", "phase", offers=False),
            StateFlag("advanced", "Advanced this phase", "phase", offers=False),
            StateFlag("orders_over", "Orders over this phase", "phase", offers=False),
            # 2.9: a unit finishes its orders before another is ordered.
            StateFlag("orders_finished", "Orders finished this phase", "phase", offers=False),
            StateFlag("in_combat", "In combat", "battle"),
            # 2.9 "Leaving the table": back on a 3-4, the unit may not move again this turn.
            StateFlag("may_not_move", "Back from the table edge: no more moves this turn", "turn"),
            # 2.9 "Leaving the table": on a 1-2 the unit (and its characters) is gone until it
            # rolls to return; its stands keep the poses where it left.
            StateFlag(
                "off_table",
                "Off the table (2.9): rolls to return at the start of its side's turn",
                "battle",
                offers=False,
            ),
        ),
        # RULES.md 2.1: stands are 4 x 2 cm; a character's may be round, up to 2.5 cm across.
        bases=stand_size_problem,
        # RULES.md 2.9: characters are not units, so a character joins no other character.
        character_keywords=CHARACTER_KEYWORDS,
        # RULES.md 2.2: the kinds the engine judges and, for each, the rulebook's names.
        terrain_field="type",
        terrain_kinds=(
            TerrainKind("open", "Open ground", ("open", "hill", "bridge", "road")),
            TerrainKind("woods", "Woods", ("woods", "wood", "scrub", "tall-scrub")),
            TerrainKind("village", "Village", ("village",)),
            # 2.2 / 2.9: everyone enters, flyers may end there, dense for the order roll.
            TerrainKind("broken", "Broken or marshy ground", ("broken-ground", "marshy-ground")),
            TerrainKind(
                "water",
                "Shallow water, low obstacles",
                names=(
                    "river",
                    "shallow-river",
                    "ford",
                    "low-obstacle",
                    "loose-terrain",
                    "high-linear-obstacle",  # infantry only on the ground; flyers may end there
                ),
            ),
            TerrainKind(
                "impassable",
                "Impassable",
                names=(
                    "impassable",
                    "building",
                    "buildings",
                    "boulders",
                    "deep-water",
                    "lake",
                    "ravine",
                    "ravines",
                    "cliff",
                    "cliffs",
                    "mountain",
                    "mountains",
                ),
            ),
        ),
        # Common names players give terrain, each meaning one of the rulebook's names above
        # (the picture drew these before the engine judged them).
        terrain_aliases=MappingProxyType(
            {
                "hills": "hill",
                "forest": "woods",
                "town": "village",
                "stream": "river",
                "marsh": "marshy-ground",
                "broken": "broken-ground",
                "obstacle": "low-obstacle",
                "wall": "low-obstacle",
                "hedge": "low-obstacle",
                "fence": "low-obstacle",
                "lakes": "lake",
                "water": "deep-water",
                # 2.9 counts "villages and built-up areas" as dense terrain; plurals and the
                # singulars of plural names, as players write them
                "built-up-area": "village",
                "built-up-areas": "village",
                "villages": "village",
                "roads": "road",
                "bridges": "bridge",
                "rivers": "river",
                "fords": "ford",
                "swamp": "marshy-ground",
                "boulder": "boulders",
            }
        ),
    )
)

from . import characters, combat, command, drive_back, home_back, leaving, make_way  # noqa: E402
from .flying import phase_check, refuse_ground_unit  # noqa: E402

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


#: 2.9: only enemy units are offered, never a character (a unit can never charge one).
CHARGE_TARGETS = Declaration(
    "charge_targets", "enemy-units", "Charge targets", offer=command.enemy_unit_offer("charge")
)
#: 2.7: flyers may attack a fortified unit, which still counts as fortified against them.
CHARGES_FORTIFIED = Declaration("fortified", "flag", "The unit charged is fortified")
#: 2.9: an initiative may pass over fortified enemy infantry and artillery (the player's choice).
IGNORE_FORTIFIED = Declaration(
    "ignore_fortified", "flag", "Ignore fortified enemy infantry and artillery"
)
#: 2.5, 2.9: a flyer charging from irregular formation goes at most 10 cm, and one ordered to move
#: from it half pace. The stands decide the formation; a declaration that disagrees with them is
#: refused (command.check_declared_formation), so the stepper does not ask for it (the format
#: still takes it).
IRREGULAR = Declaration("irregular", "flag", "In irregular formation", asked=False)
#: 2.3: only the characters within range who may still give orders are offered (before the roll).
ORDERED_BY = Declaration(
    "ordered_by", "friendly-unit", "Ordered by", required=True, offer=command.order_offer
)
HITS = Declaration("hits", "count", "Hits", required=True)
FRIENDS_MAKE_WAY = Declaration("friends_make_way", "yes-no", "Friends in the way")
#: 2.9 retreats: the losing units sharing the result, and the side retreated from on a tie.
LOSING_UNITS = Declaration("losing_units", "count", "Losing units sharing the result")
#: 2.9 "Leaving the table": the D6 the players rolled when the unit went over the edge. A document
#: may carry it (then the engine judges the outcome); the stepper does not ask it, and the verdict
#: reports the roll owed instead.
LEAVE_TABLE_ROLL = Declaration(
    "leave_table_roll", "count", "Leave-the-table D6 (if it left)", asked=False
)
RETREAT_FROM = Declaration(
    "retreat_from",
    "choice",
    "Retreat away from (on a tie)",
    choices=(("front", "Front"), ("rear", "Rear"), ("left", "Left"), ("right", "Right")),
)
#: 2.9: only enemy units are offered, never a character (a unit never targets one).
PURSUED = Declaration(
    "charge_targets",
    "enemy-units",
    "Pursued unit",
    required=True,
    offer=command.enemy_unit_offer("pursue"),
)

SYSTEM.add(
    MoveType(
        name="initiative-charge",
        title="Initiative charge",
        rule=command.RULE_INITIATIVE,
        adjudicate=command.adjudicate_initiative_charge,
        eligibility=_steered(command.adjudicate_initiative_charge, "initiative-charge"),
        declarations=(CHARGE_TARGETS, CHARGES_FORTIFIED, IRREGULAR, IGNORE_FORTIFIED),
        phases=("command",),
    ),
    MoveType(
        name="order-move",
        title="Move by order",
        rule=command.RULE_ORDERS,
        adjudicate=command.adjudicate_order_move,
        eligibility=_steered(command.adjudicate_order_move, "order-move", (1, 1)),
        declarations=(ORDERED_BY, IRREGULAR),
        dice="two D6 for the order",
        phases=("command",),
    ),
    MoveType(
        name="order-charge",
        title="Charge by order",
        rule=command.RULE_ORDERS,
        adjudicate=command.adjudicate_order_charge,
        eligibility=_steered(command.adjudicate_order_charge, "order-charge", (1, 1)),
        declarations=(ORDERED_BY, CHARGE_TARGETS, CHARGES_FORTIFIED, IRREGULAR),
        dice="two D6 for the order",
        phases=("command",),
    ),
    MoveType(
        name="home-back",
        title="Home back (flyers)",
        rule=home_back.RULE,
        adjudicate=home_back.adjudicate_home_back,
        suggest=home_back.suggest_home_back,
        eligibility=home_back.home_back_eligibility,
        declarations=(
            # 2.4: rolled first, then the character is chosen among the friendly ones.
            Declaration(
                "home_back_to",
                "friendly-unit",
                "Home back to",
                after_roll=True,
                offer=home_back.home_back_offer,
            ),
        ),
        dice="one D6",
        phases=("command",),
    ),
    MoveType(
        name="drive-back",
        title="Drive back",
        rule=drive_back.RULE,
        adjudicate=drive_back.adjudicate_drive_back,
        suggest=drive_back.suggest_drive_back,
        eligibility=_in_phase("shooting", drive_back.RULE),
        declarations=(
            Declaration("shooter", "enemy-model", "Shooting stand", required=True),
            HITS,
            # 2.6: one die fewer if the flyers are defended, two fewer if fortified.
            Declaration("defended", "flag", "Defended"),
            Declaration("fortified", "flag", "Fortified"),
            FRIENDS_MAKE_WAY,
            LEAVE_TABLE_ROLL,
        ),
        dice="one D6 per hit",
        phases=("shooting",),
    ),
    MoveType(
        name="retreat",
        title="Retreat",
        rule=combat.RULE,
        adjudicate=combat.adjudicate_retreat,
        suggest=combat.suggest_retreat,
        eligibility=_in_phase("combat", combat.RULE),
        declarations=(HITS, LOSING_UNITS, RETREAT_FROM, FRIENDS_MAKE_WAY),
        phases=("combat",),
    ),
    MoveType(
        name="pursuit",
        title="Pursuit",
        rule=combat.RULE,
        adjudicate=combat.adjudicate_pursuit,
        suggest=combat.suggest_pursuit,
        eligibility=_in_phase("combat", combat.RULE),
        declarations=(PURSUED,),
        phases=("combat",),
    ),
    MoveType(
        name="combat-advance",
        title="Advance after combat",
        rule=combat.RULE,
        adjudicate=combat.adjudicate_combat_advance,
        eligibility=_steered(combat.adjudicate_combat_advance, "combat-advance"),
        declarations=(LEAVE_TABLE_ROLL,),
        phases=("combat",),
    ),
    MoveType(
        name="combat-fall-back",
        title="Fall back after combat",
        rule=combat.RULE,
        adjudicate=combat.adjudicate_combat_fall_back,
        eligibility=_steered(combat.adjudicate_combat_fall_back, "combat-fall-back", (1, 1, 1)),
        declarations=(LEAVE_TABLE_ROLL,),
        dice="three D6 (2.9: the fall back distance)",
        phases=("combat",),
    ),
    MoveType(
        name="make-way",
        title="Make way",
        rule=make_way.RULE,
        adjudicate=make_way.adjudicate_make_way,
        eligibility=make_way.make_way_eligibility,
        declarations=(
            Declaration("made_way_for", "friendly-unit", "Making way for", required=True),
            LEAVE_TABLE_ROLL,
        ),
        phases=("shooting", "combat"),
    ),
    MoveType(
        name="character-move",
        title="Character move",
        rule=characters.RULE,
        adjudicate=characters.adjudicate_character_move,
        eligibility=_steered(characters.adjudicate_character_move, "character-move"),
        phases=("command",),
    ),
    MoveType(
        name="character-escape",
        title="Character escape",
        rule=characters.RULE,
        adjudicate=characters.adjudicate_character_escape,
        suggest=characters.suggest_character_escape,
        eligibility=_steered(characters.adjudicate_character_escape, "character-escape"),
        # 2.8: whenever the enemy contacts the lone character, in any phase.
        phases=(),
    ),
    MoveType(
        name=leaving.RETURN,
        title="Return to the table",
        rule=leaving.RULE,
        adjudicate=leaving.adjudicate_return,
        suggest=leaving.suggest_return,
        eligibility=leaving.return_eligibility,
        dice="one D6",
        phases=("command",),
    ),
)
# 2.9 "Leaving the table": every move is judged on the table without the units off it, so no
# judge need ask whether a unit it measures is there (leaving.on_the_table).
for _name, _move_type in SYSTEM.move_types.items():
    SYSTEM.move_types[_name] = leaving.on_the_table(_move_type)
