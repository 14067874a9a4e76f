"""The registry: one description per game system, and the engine's entry points.

Each game package builds its `System` explicitly (`rules/wh40k/__init__.py`,
`rules/warmaster/__init__.py`) and registers it with `register_system`, the way python-chess
registers variants. The web app, the JSON Schema tests and the engine all read the game from here
and nowhere else:

    >>> from rules import SYSTEMS
    >>> charge = SYSTEMS["wh40k-11e"].move_types["charge"]
    >>> charge.title, charge.dice, [d.name for d in charge.declarations if d.asked]
    ('Charge', 'two D6', ['take_to_the_skies', 'charge_targets'])
    >>> SYSTEMS["warmaster-revolution"].terrain_kind("Tall scrub").name
    'woods'

The pieces (frozen dataclasses):

- `System`: the game's `name` (FORMAT.md `system`), `title`, `unit` of measure and `mm_per_unit`,
  `placement_tolerance` (RULES.md 0), its `phases` in order (FORMAT.md `turn.phase`), its
  `state_flags`, its `terrain_kinds` (read from the field `terrain_field` of each piece, with
  `terrain_aliases` for common synonyms), the `bases` it allows (None: any) and its
  `move_types` by name.
- `MoveType`: one move type: `name` (FORMAT.md `type`), `title` for people, the `rule` section it
  is judged by, its `declarations`, its `dice` in words, the `phases` it is made in, and its
  judge: `adjudicate`, `suggest` (None: the player places the models, so the move does not
  suggest), `eligibility` and `reach`. A move type whose `adjudicate` is None is described but
  not judged yet: the engine refuses it with a finding saying so, never passes it.
- `Declaration`: one thing declared for a move (FORMAT.md "Move": declarations): its `name`, its
  `kind` (one of `DECLARATION_KINDS`: how the web app asks for it and the JSON type it has),
  `label`, whether it is `required`, its `choices` ((value, label) pairs, for kind "choice" and the
  trigger's events), whether it is asked `after_roll`, and whether the stepper `asked` it at all
  (False: documents may carry it, e.g. a lesson's, but a player is not asked it). A declaration
  may have an `offer`: the engine's `Offer` of only the values that can work, called as
  `offer(situation, unit_id, dice, declarations)` with the move's `Dice`. One asked before the
  roll is offered from the table alone (e.g. Warmaster 2.3: the characters within command range
  who may still give orders); one asked after the roll, once the dice are known (e.g. 11.02: the
  charge targets within the roll; Warmaster 2.4: home back to a character, chosen after its
  roll).
- `StateFlag`: one key of `units[].state`: `name`, `label`, how long it `lasts` ("phase": cleared
  when a new phase begins; "turn": when a new turn begins; "battle": until the player changes it)
  and whether the editor `offers` it as a tick box.
- `TerrainKind`: a kind of terrain the engine judges: `name`, `label` and the canonical terrain
  `names` of that kind (RULES.md 1.5 for 40K categories, 2.2 for Warmaster types).

Adding a move type: write its judge in the game's package (one engine module), add one
`MoveType(...)` entry to the game's `System` in its `__init__.py`, and document and test it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .budget import OutOfTime, TooComplex
from .errors import InvalidInput
from .naming import naming
from .verdict import Finding, Verdict

if TYPE_CHECKING:
    from .dice import Dice
    from .move import Move
    from .situation import Situation, TerrainFeature

#: Declaration kinds and the JSON type each value has. The web app asks each kind one way:
#: "flag" a tick box (true when ticked), "yes-no" a yes / no / not-asked choice, "choice" one of
#: the declaration's `choices`, "count" a whole number, "enemy-units" tick boxes of enemy units,
#: "enemy-unit" one enemy unit, "friendly-unit" one friendly unit (e.g. a character),
#: "enemy-model" one enemy model, "ability" one of the unit's abilities that grant the move type
#: (`abilities[].kind` is the move type's name, e.g. a surge ability), "trigger" what set
#: a surge off (21.01: an event from `choices`, by whom, and the counts).
DECLARATION_KINDS: Mapping[str, type] = MappingProxyType(
    {
        "flag": bool,
        "yes-no": bool,
        "choice": str,
        "count": int,
        "enemy-units": list,
        "enemy-unit": str,
        "friendly-unit": str,
        "enemy-model": str,
        "ability": str,
        "trigger": dict,
    }
)

#: How long a state flag lasts: the phase, the turn, the battle, or until the end of its own
#: side's (next) Command phase (Warmaster's confusion, RULES.md 2.9).
LASTS = ("phase", "turn", "battle", "own-command")


@dataclass(frozen=True)
class Offer:
    """What a declaration may be (before the roll, from the table; after it, given the dice):
    its `choices` ((value, label) pairs), the `roll` in words, and the sentence saying why
    nothing is on offer (`empty`), shown when `choices` is empty."""

    choices: tuple[tuple[str, str], ...]
    roll: str = ""
    empty: str = ""


@dataclass(frozen=True)
class Declaration:
    """One declaration of a move (FORMAT.md "Move": declarations)."""

    name: str
    kind: str
    label: str
    required: bool = False
    choices: tuple[tuple[str, str], ...] = ()
    after_roll: bool = False
    asked: bool = True
    offer: Callable[[Situation, str, Dice, Mapping[str, Any]], Offer] | None = field(
        default=None, compare=False
    )

    def __post_init__(self) -> None:
        if self.kind not in DECLARATION_KINDS:
            raise ValueError(f"{self.name}: unknown declaration kind {self.kind!r}")

    @property
    def json_type(self) -> type:
        return DECLARATION_KINDS[self.kind]

    def offered(
        self, situation: Situation, unit_id: str, dice: Dice, declarations: Mapping[str, Any]
    ) -> Offer | None:
        """The engine's `Offer` for this declaration, its sentences naming units by name
        (issue 13); None when the declaration has no offer."""
        if self.offer is None:
            return None
        with naming(situation):
            return self.offer(situation, unit_id, dice, declarations)


@dataclass(frozen=True, kw_only=True)
class MoveType:
    """One move type of a game: what people call it, what it declares and rolls, when it is
    made and how the engine judges it (see the module docstring)."""

    name: str
    title: str
    rule: str
    adjudicate: Callable[[Situation, Move], Verdict] | None
    suggest: Callable[[Situation, Move], Move] | None = None
    eligibility: Callable[[Situation, str, dict[str, Any]], list[Finding]] | None = None
    reach: Callable[[Situation, Move], list[tuple[Any, str]]] | None = None
    declarations: tuple[Declaration, ...] = ()
    dice: str = "none"
    phases: tuple[str, ...] = ()

    @property
    def judged(self) -> bool:
        """The engine judges this move type (otherwise it refuses it with a finding)."""
        return self.adjudicate is not None

    @property
    def suggests(self) -> bool:
        """The engine can place the models itself (`rules.suggest`)."""
        return self.suggest is not None

    def declaration(self, name: str) -> Declaration | None:
        return next((d for d in self.declarations if d.name == name), None)


@dataclass(frozen=True)
class StateFlag:
    """One key of `units[].state` (FORMAT.md) and how long it lasts."""

    name: str
    label: str
    lasts: str
    offers: bool = True

    def __post_init__(self) -> None:
        if self.lasts not in LASTS:
            raise ValueError(f"{self.name}: lasts must be one of {LASTS}")


@dataclass(frozen=True)
class TerrainKind:
    """A kind of terrain the engine judges, with the canonical names of that kind."""

    name: str
    label: str
    names: tuple[str, ...]


def terrain_key(text: str) -> str:
    """A terrain name as the registry keys it: lower case, words joined by hyphens."""
    return "-".join(str(text).strip().lower().replace("_", " ").split())


@dataclass(frozen=True, kw_only=True)
class System:
    """One game system: its unit, tolerance, phases, state, terrain and move types."""

    name: str
    title: str
    unit: str
    mm_per_unit: float
    placement_tolerance: float
    phases: tuple[str, ...]
    state_flags: tuple[StateFlag, ...] = ()
    terrain_field: str = "type"
    terrain_kinds: tuple[TerrainKind, ...] = ()
    terrain_aliases: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    #: The bases the game allows, checked when a scenario is read: given a unit's keywords (with
    #: the model's own) and a model's `base` document (mm), None when the game allows it, else a
    #: sentence saying what it allows. None: any base (RULES.md 1.1); Warmaster: 2.1's stands.
    bases: Callable[[frozenset[str], Mapping[str, Any]], str | None] | None = field(
        default=None, compare=False
    )
    #: The keywords that make a unit a character, which is not a unit (Warmaster 2.9): a
    #: character's `state.joined` may not name one, checked when a scenario is read. Empty: the
    #: game has no such check.
    character_keywords: frozenset[str] = frozenset()
    move_types: dict[str, MoveType] = field(default_factory=dict)

    def add(self, *move_types: MoveType) -> None:
        """Add move types, in the order people see them."""
        for move_type in move_types:
            if move_type.name in self.move_types:
                raise ValueError(f"{self.name} already has a {move_type.name!r} move type")
            unknown = set(move_type.phases) - set(self.phases)
            if unknown:
                raise ValueError(
                    f"{move_type.name}: {sorted(unknown)} are not phases of {self.name}"
                )
            self.move_types[move_type.name] = move_type

    # -- state --------------------------------------------------------------------------------

    def flag(self, name: str) -> StateFlag | None:
        return next((f for f in self.state_flags if f.name == name), None)

    def flags_cleared(self, *, new_turn: bool, own_command_over: bool = False) -> tuple[str, ...]:
        """The state flags that end when a new phase begins (and, with `new_turn`, a new turn;
        with `own_command_over`, for a unit whose side's Command phase has just ended)."""
        lasting = ("phase", "turn") if new_turn else ("phase",)
        if own_command_over:
            lasting = (*lasting, "own-command")
        return tuple(f.name for f in self.state_flags if f.lasts in lasting)

    # -- terrain ------------------------------------------------------------------------------

    @property
    def terrain_names(self) -> dict[str, str]:
        """Every accepted terrain name (canonical names and aliases) -> its canonical name."""
        names = {n: n for kind in self.terrain_kinds for n in kind.names}
        names.update(self.terrain_aliases)
        return names

    def terrain_name(self, text: str | None) -> str | None:
        """The canonical terrain name of `text` (an alias or a canonical name), or None."""
        return self.terrain_names.get(terrain_key(text or ""))

    def terrain_kind(self, text: str | None) -> TerrainKind | None:
        """The kind of terrain a name (the piece's `terrain_field`) belongs to, or None."""
        name = self.terrain_name(text)
        return next((k for k in self.terrain_kinds if name in k.names), None)

    def kind_of(self, feature: TerrainFeature) -> TerrainKind | None:
        return self.terrain_kind(getattr(feature, self.terrain_field))

    def unknown_terrain(self, text: object, path: str) -> InvalidInput:
        """The error for a terrain name this game does not know, listing the names it does."""
        return InvalidInput(
            path,
            f"{text!r} is not a {self.title} terrain name Arbiter knows; use one of "
            f"{', '.join(sorted(self.terrain_names))}",
        )


#: The registered game systems by name (FORMAT.md `system`).
SYSTEMS: dict[str, System] = {}


def register_system(system: System) -> System:
    if system.name in SYSTEMS:
        raise ValueError(f"{system.name} is registered already")
    SYSTEMS[system.name] = system
    return system


def system_of(situation: Situation) -> System:
    return SYSTEMS[situation.system]


def move_types_of(system: str | None = None) -> tuple[str, ...]:
    """The move type names of one system, or of every system when `system` is None."""
    systems = [SYSTEMS[system]] if system in SYSTEMS else list(SYSTEMS.values())
    return tuple(name for s in systems for name in s.move_types)


def declarations_of(system: str | None = None) -> dict[str, Declaration]:
    """Every declaration a move of `system` (or of any system) may carry, by name."""
    systems = [SYSTEMS[system]] if system in SYSTEMS else list(SYSTEMS.values())
    found: dict[str, Declaration] = {}
    for s in systems:
        for move_type in s.move_types.values():
            for d in move_type.declarations:
                found.setdefault(d.name, d)
    return found


# -- the engine's entry points ---------------------------------------------------------------


def _not_covered(situation: Situation, move: Move) -> Verdict:
    verdict = Verdict(move={"unit": move.unit, "type": move.type})
    verdict.check(
        rule="engine",
        stage="eligible-if",
        passed=False,
        subject=move.unit,
        text=(
            f"Arbiter does not judge {move.type} moves for {situation.system} yet, so it "
            "cannot say whether this one is legal."
        ),
    )
    return verdict


def _odd_bases(situation: Situation, move: Move) -> Verdict:
    """A table with bases the game does not allow (a scenario stored before the game checked
    them, `Situation.odd_bases`): every distance would be measured from the wrong outline, so no
    move is judged on it until they are mended; one failed finding for each."""
    verdict = Verdict(move={"unit": move.unit, "type": move.type})
    for path, problem in situation.odd_bases:
        verdict.check(
            rule="units/stands",
            stage="eligible-if",
            passed=False,
            subject=move.unit,
            text=f"The scenario's {path}: {problem}. Change it to judge moves on this table.",
        )
    return verdict


def _out_of_time(move: Move, out: OutOfTime) -> Verdict:
    """The verdict of a judgement that ran past its deadline (rules/budget.py): one failed
    finding that says so, never a silent pass."""
    verdict = Verdict(move={"unit": move.unit, "type": move.type})
    verdict.check(
        rule="engine",
        stage="eligible-if",
        passed=False,
        subject=move.unit,
        text=(
            f"{out.message}. Arbiter cannot say whether this move is legal; try a smaller "
            "table, fewer terrain pieces or fewer models."
        ),
    )
    return verdict


def _move_type(situation: Situation, move: Move) -> MoveType:
    system = system_of(situation)
    if move.type not in system.move_types:
        raise InvalidInput(
            "type",
            f"{move.type!r} is not a move type of {system.name}; "
            f"use one of {', '.join(system.move_types)}",
        )
    situation.unit(move.unit)  # raises InvalidInput for an unknown unit
    return system.move_types[move.type]


def _needs_end(move_type: MoveType) -> InvalidInput:
    return InvalidInput(
        "end",
        f"{move_type.title}: the player chooses where the models go, so give each moving "
        "model's end position in `end` (the engine does not suggest this move)",
    )


def adjudicate(situation: Situation, move: Move) -> Verdict:
    """Judge a move. When `move.end` is None the engine suggests a placement and judges that.

    >>> from rules import Move, Situation
    >>> from rules.examples import one_squad_and_a_target
    >>> table = Situation.from_document(one_squad_and_a_target())
    >>> move = Move.from_document({"format": "arbiter.move/1", "unit": "A", "type": "normal",
    ...                            "end": {"A1": {"x": 10, "y": 14}}})
    >>> verdict = adjudicate(table, move)
    >>> verdict.legal, verdict.models["A1"]["distance_moved"]
    (True, 4.0)
    """
    with naming(situation):
        move_type = _move_type(situation, move)
        if move_type.adjudicate is None:
            return _not_covered(situation, move)
        if situation.odd_bases:
            return _odd_bases(situation, move)
        if move.end is None and move_type.suggest is None:
            raise _needs_end(move_type)
        try:
            if move.end is None and move_type.suggest is not None:
                move = move_type.suggest(situation, move)
            return move_type.adjudicate(situation, move)
        except OutOfTime as out:
            return _out_of_time(move, out)


def suggest(situation: Situation, move: Move) -> Move:
    """The engine's placement for a move: `move` with `end` filled in.

    A charge rolled 4 + 5 at a unit whose base is 6.74" away (1.4): the charger ends in base
    contact, 6.74" on.

    >>> from rules import Move, Situation
    >>> from rules.examples import one_squad_and_a_target
    >>> table = Situation.from_document(one_squad_and_a_target(phase="charge"))
    >>> charge = Move.from_document({"format": "arbiter.move/1", "unit": "A", "type": "charge",
    ...                              "declarations": {"charge_targets": ["B"]}, "dice": [4, 5]})
    >>> placed = suggest(table, charge)
    >>> round(placed.end["A1"].x, 2), adjudicate(table, placed).legal
    (16.74, True)
    """
    with naming(situation):
        move_type = _move_type(situation, move)
        if move_type.adjudicate is None:
            raise InvalidInput(
                "type", f"Arbiter does not cover {move.type} moves for {situation.system} yet"
            )
        if move_type.suggest is None:
            raise _needs_end(move_type)
        try:
            return move_type.suggest(situation, move)
        except OutOfTime as out:
            raise TooComplex(out) from None


def reach(situation: Situation, move: Move) -> list[tuple[Any, str]]:
    """Where the moving unit's models can end, as [(geometry, "ground" | "skies")] for the table
    overlay; [] when the engine has no region for this move type. A move whose distance depends
    on dice not rolled yet raises InvalidInput("dice", ...).

    >>> from rules import Move, Situation
    >>> from rules.examples import one_squad_and_a_target
    >>> table = Situation.from_document(one_squad_and_a_target())
    >>> regions = reach(table, Move.from_document(
    ...     {"format": "arbiter.move/1", "unit": "A", "type": "normal"}))
    >>> [kind for _, kind in regions], regions[0][0].area < 3.1416 * 6**2  # not into engagement
    (['ground'], True)
    """
    with naming(situation):
        move_type = _move_type(situation, move)
        if move_type.adjudicate is None or move_type.reach is None:
            return []
        try:
            return move_type.reach(situation, move)
        except OutOfTime as out:
            raise TooComplex(out) from None


def move_options(
    situation: Situation, unit_id: str, declarations: dict[str, Any] | None = None
) -> dict[str, list[Finding] | None]:
    """For each move type of the system: its eligible-if findings, or None if not covered yet.

    >>> from rules import Situation
    >>> from rules.examples import one_squad_and_a_target
    >>> options = move_options(Situation.from_document(one_squad_and_a_target()), "A")
    >>> list(options), all(f.passed for f in options["normal"])
    (['normal', 'advance', 'fall-back', 'charge', 'surge'], True)
    """
    system = system_of(situation)
    situation.unit(unit_id)
    options: dict[str, list[Finding] | None] = {}
    for name, move_type in system.move_types.items():
        if move_type.adjudicate is None:
            options[name] = None
        elif move_type.eligibility is None:
            options[name] = []
        else:
            with naming(situation):
                options[name] = move_type.eligibility(situation, unit_id, dict(declarations or {}))
    return options
