"""The move stepper: choose a unit, see its move types, declare, roll, place, check, commit.

Every step is a page of its own URL whose query string holds the whole state so far
(`?unit=B&type=surge&ability=blood-surge&roll=hand&dice=4&pose-B1-x=...`), so a reload or a
shared URL shows the same step, and each step is also the `stepper` partial that htmx swaps in.
Nothing is stored until "Commit": the engine judges in memory (`rules.adjudicate`), and a legal
verdict's scenario becomes the scenario's document while a `Step` records the move in the log.
"Undo" appends a step that restores the document from before the last step still in force.

Anyone who may view a scenario may try moves on it (issue 7): by id, or through its share link
(`/s/<token>/move`); choosing, Suggest and Check store nothing, and Commit and Undo are offered
only to those who may edit, everyone else being told how to keep a move (sign in, copy).

The same placement step serves the lessons' "Try it" (battlefield/lessons.py) with the move
locked and no commit.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.crypto import salted_hmac
from django.views.decorators.http import require_GET, require_POST, require_safe

import rules
from rules import InvalidInput, Move, Situation, adjudicate, move_options, suggest
from rules.budget import TooComplex
from rules.dice import Dice
from rules.move import MOVE_FORMAT
from rules.systems import SYSTEMS, Declaration, MoveType

from . import permissions, ratelimit
from .editor import casualties, remove_casualty, restore_casualty, ruler_answer, set_turn
from .models import Scenario, StaleScenario, Step
from .pagecache import per_version, situation_of
from .permissions import can_edit, editable_scenario, shared_scenario, viewable_scenario
from .pictures import Overlay, table_png, table_svg
from .ratelimit import rate_limit
from .showing import shown_overlays
from .text import bounded_number
from .validation import validate_move, validate_scenario
from .views import go, next_turn, page, picture_cache_control
from .words import declaration_words, event_rows, finding_rows, names_of, names_of_document

# -- what each move type declares: the registry's (rules.systems) -----------------------------

#: The template block that asks each kind of declaration (templates/battlefield/declarations.html).
DECLARE = "battlefield/declarations.html"
KIND_BLOCKS = {
    "flag": "flag",
    "yes-no": "yes-no",
    "count": "count",
    "choice": "pick",
    "enemy-unit": "pick",
    "friendly-unit": "pick",
    "enemy-model": "pick",
    "ability": "pick",
    "enemy-units": "units",
    "trigger": "trigger",
}
TRIGGER_COUNTS = ("hits", "wounds_lost", "models_destroyed")


def move_type_of(situation, name: str | None) -> MoveType | None:
    """The registry's description of a move type of the situation's game, or None."""
    return SYSTEMS[situation.system].move_types.get(name or "")


def asked(situation, name: str | None) -> tuple[Declaration, ...]:
    """The declarations the stepper asks for a move type, in the registry's order."""
    move_type = move_type_of(situation, name)
    return tuple(d for d in move_type.declarations if d.asked) if move_type else ()


def asked_after_roll(situation, name: str | None) -> tuple[Declaration, ...]:
    """The declarations asked only once the dice are known (`Declaration.after_roll`)."""
    return tuple(d for d in asked(situation, name) if d.after_roll)


def offer_of(situation, stage: Stage, declaration: Declaration):
    """The engine's `Offer` for a declaration: what it may be (e.g. 2.3: the characters within
    range who may order a flyer; 11.02: the charge targets within the roll). Asked after the
    roll, for the stage's dice (the same dice the judge rolls: the entered ones, or the
    server's from the seed); None when the declaration has no offer, or is asked after the roll
    and the dice are not chosen yet."""
    if declaration.after_roll and not stage.roll:
        return None
    return declaration.offered(
        situation, stage.unit or "", Dice(stage.dice, stage.seed), stage.declarations
    )


# -- the state in the query string ------------------------------------------------------------


@dataclass
class Stage:
    """The stepper's state, read from a query string or a posted form."""

    unit: str | None = None
    type: str | None = None
    declarations: dict = field(default_factory=dict)
    roll: str | None = None  # "server" or "hand" once the dice are chosen
    dice: tuple[int, ...] | None = None
    seed: int | None = None
    poses: dict[str, dict] = field(default_factory=dict)
    dice_text: str = ""
    asks_after: bool = False  # the move type asks declarations after the roll
    after: bool = False  # ... and they have been answered
    scratch: bool = False  # "try any move": every move type, whatever the phase; no Commit

    @property
    def name(self) -> str:
        """Which step this is: unit, type, declare, after (the roll) or place."""
        if not self.unit:
            return "unit"
        if not self.type:
            return "type"
        if not self.roll:
            return "declare"
        if self.asks_after and not self.after:
            return "after"
        return "place"

    def move(self, *, with_end: bool = True) -> Move:
        doc: dict = {"format": MOVE_FORMAT, "unit": self.unit, "type": self.type}
        if self.declarations:
            doc["declarations"] = self.declarations
        if self.dice is not None:
            doc["dice"] = list(self.dice)
        if self.seed is not None:
            doc["seed"] = self.seed
        if with_end and self.poses:
            doc["end"] = self.poses
        return validate_move(doc)

    def query(self, *, upto: str = "place", poses: bool = True) -> dict:
        """The query-string parameters that reproduce this state up to step `upto`."""
        q: dict = {SCRATCH: "1"} if self.scratch else {}
        if self.unit:
            q["unit"] = self.unit
        if upto == "type" or not self.type:
            return q
        q["type"] = self.type
        if upto == "declare":
            return q
        for name, value in self.declarations.items():
            if isinstance(value, dict):  # a trigger's parts, one field each
                for key, v in value.items():
                    q[f"{name}-{key}"] = v
            elif isinstance(value, list):
                q[name] = list(value)
            elif isinstance(value, bool):
                q[name] = "yes" if value else "no"
            else:
                q[name] = value
        if self.roll:
            q["roll"] = self.roll
        if self.roll == "hand":
            q["dice"] = " ".join(str(d) for d in self.dice or ())
        if self.seed is not None:
            q["seed"] = self.seed
        if self.after:
            q[AFTER] = "done"
        if poses:
            for mid, pose in self.poses.items():
                for key, v in pose.items():
                    q[f"pose-{mid}-{key}"] = exact(v)
        return q


def number(value: float) -> str:
    """A coordinate as shown in a form field: at most three decimals, no trailing zeros."""
    text = f"{float(value):.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def exact(value: float) -> str:
    """A coordinate with its full precision (the shortest text that reads back as the same
    float): what links and hidden fields carry, so the engine's own placement comes back to it
    unchanged (issue 13: rounding 4.000 in to three decimals can land a hair over 4 in)."""
    text = repr(float(value))
    if text.endswith(".0"):
        text = text[:-2]
    return "0" if text == "-0" else text


#: The field saying the declarations asked after the roll were answered (some may be left blank).
AFTER = "after"

#: The field of a scratch try: any move type, in any phase, never committed.
SCRATCH = "scratch"

#: The hidden field beside each shown pose field that carries its full precision.
EXACT = "exact-"


def read_stage(params: QueryDict, situation) -> Stage:
    """The stepper state in `params`; raises InvalidInput naming the form field at fault."""
    stage = Stage(scratch=params.get(SCRATCH) == "1")
    stage.unit = params.get("unit") or None
    if stage.unit is None:
        return stage
    unit = situation.unit(stage.unit)  # InvalidInput for an unknown unit
    stage.type = params.get("type") or None
    if stage.type is None:
        return stage
    if move_type_of(situation, stage.type) is None:
        raise InvalidInput("type", f"{stage.type!r} is not a move type of this game")
    stage.declarations = read_declarations(params, asked(situation, stage.type))
    roll = params.get("roll") or None
    if roll not in (None, "server", "hand"):
        raise InvalidInput("roll", "choose to roll on the server or to enter the dice")
    stage.roll = roll
    if roll == "hand":
        stage.dice_text = params.get("dice", "").strip()
        stage.dice = parse_dice(stage.dice_text)
    elif roll == "server" and params.get("seed"):
        try:
            stage.seed = int(str(params["seed"]))
        except ValueError:
            raise InvalidInput("seed", "must be a whole number") from None
    after_roll = asked_after_roll(situation, stage.type)
    stage.asks_after = bool(after_roll)
    stage.after = bool(roll and after_roll) and (
        params.get(AFTER) == "done" or any(d.name in stage.declarations for d in after_roll)
    )
    if roll:
        # What is declared before the roll is checked as the dice are chosen (issue 13: a
        # choice that cannot work is refused before placement, not after it).
        check_offers(situation, stage, asked_before_roll(situation, stage.type))
    if stage.after:
        check_offers(situation, stage, after_roll)
    if roll:
        stage.poses = read_poses(params, unit)
    return stage


def asked_before_roll(situation, name: str | None) -> tuple[Declaration, ...]:
    """The declarations asked with the dice, before they are rolled."""
    return tuple(d for d in asked(situation, name) if not d.after_roll)


def check_offers(situation, stage: Stage, declarations: tuple[Declaration, ...]) -> None:
    """Refuse a declaration the engine does not offer (before the roll: e.g. a character out of
    range typed into the URL; after it: a target beyond these dice), and a required one left
    blank, among the declarations that have an offer (or, after the roll, any)."""
    for d in declarations:
        value = stage.declarations.get(d.name)
        offer = offer_of(situation, stage, d)
        if value is None:
            if d.required and d.after_roll:
                raise InvalidInput(d.name, f"{d.label}: choose after the roll")
            if d.required and offer is not None:
                raise InvalidInput(d.name, offer.empty or f"{d.label}: choose one")
            continue
        if offer is None:
            continue
        offered = {v for v, _ in offer.choices}
        refused = [v for v in (value if isinstance(value, list) else [value]) if v not in offered]
        if refused:
            when = " after this roll" if d.after_roll else ""
            raise InvalidInput(
                d.name,
                f"{d.label}: {', '.join(map(str, refused))} "
                f"{'is' if len(refused) == 1 else 'are'} not on offer{when}"
                + (f" ({offer.roll})" if offer.roll else "")
                + (f". {offer.empty}" if not offer.choices and offer.empty else ""),
            )


def read_declarations(params: QueryDict, declarations: tuple[Declaration, ...]) -> dict:
    """The declared values in `params`, each read the way its kind is asked; a declaration left
    blank is not declared."""
    declared: dict = {}
    for declaration in declarations:
        value = READERS.get(declaration.kind, _text)(params, declaration.name)
        if value is not None:
            declared[declaration.name] = value
    return declared


def _text(params: QueryDict, name: str):
    return params.get(name, "").strip() or None


def _flag(params: QueryDict, name: str):
    return True if params.get(name, "") in ("yes", "on", "true") else None


def _yes_no(params: QueryDict, name: str):
    value = params.get(name, "")
    if value in ("yes", "on", "true"):
        return True
    return False if value in ("no", "false") else None


def _count(params: QueryDict, name: str):
    text = params.get(name, "").strip()
    if not text:
        return None
    if not text.isdigit():
        raise InvalidInput(name, "must be a whole number")
    return int(text)


def _units(params: QueryDict, name: str):
    return [t for t in params.getlist(name) if t] or None


def _trigger(params: QueryDict, name: str):
    event = params.get(f"{name}-event", "")
    if not event:
        return None
    trigger: dict = {"event": event, "by": params.get(f"{name}-by", "")}
    for key in TRIGGER_COUNTS:
        text = params.get(f"{name}-{key}", "").strip()
        if text:
            if not text.isdigit():
                raise InvalidInput(f"{name}-{key}", "must be a whole number")
            trigger[key] = int(text)
    return trigger


#: How each declaration kind is read from the form (text for the kinds picked from a list).
READERS = {
    "flag": _flag,
    "yes-no": _yes_no,
    "count": _count,
    "enemy-units": _units,
    "trigger": _trigger,
}


def parse_dice(text: str) -> tuple[int, ...]:
    """Physical dice as typed: values 1 to 6 separated by spaces or commas."""
    values = text.replace(",", " ").split()
    if not values:
        raise InvalidInput("dice", "enter the value of each die you rolled, for example 4 or 3 5")
    if len(values) > 40 or not all(v.isdigit() and 1 <= int(v) <= 6 for v in values):
        raise InvalidInput("dice", "each die is a whole number from 1 to 6")
    return tuple(int(v) for v in values)


def read_poses(params: QueryDict, unit) -> dict[str, dict]:
    """The models' proposed end poses from `pose-<model id>-x/-y/-facing`; a model without
    fields stays where it is."""
    poses: dict[str, dict] = {}
    for model in unit.models:
        pose: dict = {}
        for key in ("x", "y", "facing"):
            name = f"pose-{model.id}-{key}"
            text = params.get(name, "").strip()
            if not text:
                continue
            pose[key] = unrounded(bounded_number(text, name), params.get(EXACT + name, ""))
        if pose:
            if "x" not in pose or "y" not in pose:
                raise InvalidInput(f"pose-{model.id}-x", f"{model.id} needs both x and y")
            poses[model.id] = pose
    return poses


def unrounded(shown: float, exact_text: str) -> float:
    """The full-precision value behind a shown field, while the field still shows it rounded;
    the shown value itself once the player changed it (or when the hidden value is no number)."""
    try:
        value = bounded_number(exact_text, "exact")
    except InvalidInput:
        return shown
    return value if float(number(value)) == shown else shown


def start_poses(unit) -> dict[str, dict]:
    poses = {}
    for m in unit.models:
        pose = {"x": m.x, "y": m.y}
        if m.facing is not None:
            pose["facing"] = m.facing
        poses[m.id] = pose
    return poses


# -- what the pages show ----------------------------------------------------------------------


@dataclass
class Urls:
    """Where the stepper's links and forms go (a scenario's stepper, or a lesson's try-it)."""

    here: str
    check: str
    suggest: str
    commit: str | None = None
    ruler: str = ""  # the ruler's address (editor.share_ruler), when the table may be measured
    casualty: str | None = None  # where casualties are removed and restored (editors only)


def reach_overlays(situation, move: Move, verdict) -> list:
    """The reachable region(s) when the engine exposes them (`rules.reach`, returning
    (geometry, "ground" | "skies") pairs); nothing otherwise, never a made-up shape."""
    reach = getattr(rules, "reach", None)
    if reach is None or verdict is None:
        return []
    # Kept on the situation (one per scenario version, `situation_of`) by declared move: the
    # region depends on the board and the declarations, not on where the player put the models,
    # and it is half the cost of a Check.
    memo = situation.memo.setdefault("battlefield.reach_overlays", OrderedDict())
    key = (
        reach,  # the engine's function (a test may stand in its own)
        move.unit,
        move.type,
        json.dumps(move.declarations, sort_keys=True, default=str),
        tuple(move.dice or ()),
        move.seed,
    )
    if key in memo:
        return memo[key]
    try:
        regions = reach(situation, move)
    except TooComplex:  # over the engine's deadline: no overlay, and not tried again each time
        regions = []
    except (InvalidInput, NotImplementedError):
        return []
    overlays = []
    for geometry, kind in regions or ():
        css = "reachable reachable-skies" if kind == "skies" else "reachable reachable-ground"
        label = "reachable taking to the skies" if kind == "skies" else "reachable on the ground"
        if kind.startswith("floor"):  # 40K upper floors (RULES.md 1.5): 'floor 3"'
            css, label = "reachable reachable-floor", f"reachable on the {kind} up"
        overlays.append(Overlay(geometry, css, label))
    memo[key] = overlays
    while len(memo) > REACH_MEMO:
        memo.popitem(last=False)
    return overlays


#: Declared moves whose reach is kept per scenario version.
REACH_MEMO = 8


def failing_models(situation, verdict) -> list[str]:
    """Model ids to outline: subjects of failed findings that are models, or every model of a
    failing unit."""
    ids: list[str] = []
    for finding in verdict.failures if verdict else ():
        try:
            situation.model(finding.subject)
            ids.append(finding.subject)
            continue
        except (InvalidInput, KeyError):
            pass
        try:
            ids.extend(m.id for m in situation.unit(finding.subject).models)
        except (InvalidInput, KeyError):
            pass
    return ids


def unit_choices(situation) -> list[dict]:
    """The units to choose from, by the names players know them by (issue 13); a unit's id is
    shown only beside a name two units share."""
    names = {a.id: a.name for a in situation.armies}
    active = situation.turn.active_army if situation.turn else None
    seen = Counter(u.name for u in situation.units)
    return [
        {
            "id": u.id,
            "name": u.name,
            "shared_name": seen[u.name] > 1,
            "army": names.get(u.army, u.army),
            "models": len(u.models),
            "active": u.army == active,
        }
        for u in situation.units
    ]


def out_of_phase(situation, move_type: MoveType) -> str:
    """Why a move type is not made in the table's current phase ("" when it is, when the move
    type belongs to no phase, or when the table names no phase): the referee's phase, as the
    phase bar keeps it (issue 13 item 15)."""
    phase = situation.turn.phase if situation.turn else None
    if not phase or not move_type.phases or phase in move_type.phases:
        return ""
    return (
        f"{move_type.title} is made in the {' or '.join(move_type.phases)} phase, and the "
        f"table is in the {phase} phase."
    )


def option_rows(situation, stage: Stage) -> list[dict]:
    """Each move type the unit may make now, and for each it may not, why. Outside a scratch
    try, a move type of another phase is not offered at all."""
    options = move_options(situation, stage.unit or "", stage.declarations)
    rows = []
    for move_type, findings in options.items():
        reasons: list = []
        phase_words = out_of_phase(situation, SYSTEMS[situation.system].move_types[move_type])
        if findings is None:
            status = "not-covered"
        elif phase_words and not stage.scratch:
            status, reasons = "other-phase", [phase_words]
        else:
            failed = [f for f in findings if not f.passed]
            status, reasons = ("blocked", failed) if failed else ("allowed", findings)
        rows.append(
            {
                "type": move_type,
                "name": SYSTEMS[situation.system].move_types[move_type].title,
                "status": status,
                "findings": reasons,
                "declares": bool(asked(situation, move_type)),
            }
        )
    return rows


def declaration_fields(situation, stage: Stage) -> dict:
    """What the declaration form asks, each declaration with the block that asks its kind and
    the choices the table offers: before the dice, and after them."""
    unit = situation.unit(stage.unit)
    enemies = [(u.id, f"{u.name} ({u.id})") for u in situation.enemies_of(unit)]
    choices = {
        "enemy-units": enemies,
        "enemy-unit": enemies,
        "friendly-unit": [(u.id, f"{u.name} ({u.id})") for u in situation.friends_of(unit)],
        "enemy-model": [(m.id, m.id) for u in situation.enemies_of(unit) for m in u.models],
        "ability": [
            (a["id"], f"{a['id']} ({a['distance']})" if a.get("distance") else a["id"])
            for a in unit.abilities
            if a.get("kind") == stage.type  # the abilities that grant this move type
        ],
    }
    fields: dict[str, list] = {"before": [], "after": []}
    for d in asked(situation, stage.type):
        offer = offer_of(situation, stage, d)
        blank = "(choose)" if d.required else "(not declared)"
        value = stage.declarations.get(d.name)
        if d.kind == "trigger" and value is None:
            value = {}
        fields["after" if d.after_roll else "before"].append(
            {
                "name": d.name,
                "kind": d.kind,
                "id": "f-" + d.name.replace("_", "-"),
                "label": d.label,
                "required": d.required,
                "value": value,
                "choices": offer.choices
                if offer is not None
                else d.choices or choices.get(d.kind, ()),
                "roll": offer.roll if offer is not None else "",
                "empty": offer.empty if offer is not None and not offer.choices else "",
                "units": enemies,  # who set a trigger off
                "blank": None if d.kind == "choice" else blank,
                "template": f"{DECLARE}#{KIND_BLOCKS[d.kind]}",
            }
        )
    return fields


def stepper_context(
    situation,
    stage: Stage,
    urls: Urls,
    *,
    verdict=None,
    locked=False,
    error: InvalidInput | None = None,
    preview: bool = True,
) -> dict:
    """Everything the stepper template shows for `stage`."""
    unit = situation.unit(stage.unit) if stage.unit else None
    move_type = move_type_of(situation, stage.type)
    context: dict = {
        "stage": stage,
        "step": stage.name,
        "urls": urls,
        "locked": locked,
        "error": error,
        "situation": situation,
        "unit": unit,
        "unit_name": situation.unit_name,
        "move_name": move_type.title if move_type else stage.type,
        "dice_hint": move_type.dice if move_type else "",
        "verdict": verdict,
        "suggests": bool(move_type and move_type.suggests),
        "error_words": field_words(situation, stage.type, error.field) if error else "",
    }
    context["back"] = {
        "unit": link(urls.here, {SCRATCH: "1"} if stage.scratch else {}),
        "type": link(urls.here, stage.query(upto="type")),
        "declare": link(urls.here, stage.query(upto="declare")),
    }
    scratch = {SCRATCH: "1"} if stage.scratch else {}
    if stage.name == "unit":
        context["units"] = unit_choices(situation)
        for row in context["units"]:
            row["link"] = link(urls.here, {**scratch, "unit": row["id"]})
    elif stage.name == "type":
        context["options"] = option_rows(situation, stage)
        for row in context["options"]:
            row["link"] = link(urls.here, {**scratch, "unit": stage.unit, "type": row["type"]})
        context["scratch_link"] = link(urls.here, {SCRATCH: "1", "unit": stage.unit})
        context["phase"] = situation.turn.phase if situation.turn else None
    elif stage.name in ("declare", "after"):
        context["fields"] = declaration_fields(situation, stage)
    if stage.name == "after":
        names = names_of(situation)
        context["hidden"] = [
            (name, v)
            for name, value in stage.query(poses=False).items()
            if name not in {d.name for d in asked_after_roll(situation, stage.type)}
            for v in (value if isinstance(value, list) else [value])
        ]
        context["hidden"].append((AFTER, "done"))
        context["dice"] = [{"value": d, "source": "user"} for d in stage.dice or ()]
        context["declared"] = [
            declaration_words(name, value, names)
            for name, value in stage.declarations.items()
            if name not in {d.name for d in asked_after_roll(situation, stage.type)}
        ]
    if stage.name == "place":
        context.update(
            place_context(
                situation,
                stage,
                verdict=verdict,
                preview=preview,
                urls_here=urls.here,
                ruler_url=urls.ruler,
            )
        )
    else:
        context["svg"] = table_svg(
            situation, highlight=[m.id for m in unit.models] if unit else (), dom_id="table"
        )
    return context


def place_context(
    situation,
    stage: Stage,
    *,
    verdict=None,
    preview: bool = True,
    urls_here: str = "",
    ruler_url: str = "",
) -> dict:
    """The placement step: the models' pose fields, the facts of the roll (maximum distance,
    target) and the table showing the proposed placement, failing models outlined."""
    unit = situation.unit(stage.unit)
    poses = {**start_poses(unit), **stage.poses}
    facts = verdict
    if facts is None and preview:
        # Judging the placement as it stands gives the roll's facts (the same dice: a server
        # roll keeps its seed); its findings are shown only after "Check".
        facts = adjudicate(
            situation,
            stage.move(with_end=False).with_end(
                {mid: rules.Pose(p["x"], p["y"], None, p.get("facing")) for mid, p in poses.items()}
            ),
        )
    if verdict is not None and verdict.legal and verdict.after is not None:
        shown = verdict.after
    else:
        shown = placed(situation, unit, poses)
    move_facts = facts.move if facts is not None else {}
    highlight = failing_models(situation, verdict) if verdict is not None else []
    overlays = reach_overlays(situation, stage.move(with_end=False), facts)
    models = [
        {
            "id": m.id,
            "x": number(poses[m.id]["x"]),
            "y": number(poses[m.id]["y"]),
            "facing": number(poses[m.id].get("facing") or 0),
            "exact": {
                "x": exact(poses[m.id]["x"]),
                "y": exact(poses[m.id]["y"]),
                "facing": exact(poses[m.id].get("facing") or 0),
            },
            "start_x": number(m.x),
            "start_y": number(m.y),
            "start": {"x": exact(m.x), "y": exact(m.y), "facing": exact(m.facing or 0)},
            "failing": m.id in highlight,
        }
        for m in unit.models
    ]
    names = names_of(situation)
    hidden = []
    for name, value in stage.query(poses=False).items():
        for v in value if isinstance(value, list) else [value]:
            hidden.append((name, v))
    return {
        "declared": [
            declaration_words(name, value, names) for name, value in stage.declarations.items()
        ],
        "hidden": hidden,
        "share_placement": link(urls_here, stage.query()) if urls_here else "",
        "ruler_url": ruler_url,
        "models": models,
        "facts": move_facts,
        # the engine's record of the dice; before it has one, the dice as entered
        "dice": move_facts.get("dice")
        or [{"value": d, "source": "user"} for d in stage.dice or ()],
        "max_distance": move_facts.get("max_distance"),
        "target": move_facts.get("target"),
        "target_name": names.get(move_facts.get("target") or "", move_facts.get("target")),
        "svg": table_svg(
            shown,
            highlight=highlight,
            # the reach, then what the move shows (#13): target zone, where it could have gone
            # (the page's script draws the start ghosts and paths while placing)
            overlays=overlays
            + shown_overlays(
                situation, facts, placed=shown, ghosts=verdict is not None, trails=False
            ),
            dom_id="table",
            interactive=True,
        ),
        "findings": finding_rows(verdict.findings, names) if verdict is not None else [],
        "events": event_rows(verdict.events, names) if verdict is not None else [],
        "explanation": explanation(verdict) if verdict is not None else "",
    }


def placed(situation, unit, poses: dict[str, dict]):
    """The situation with `unit`'s models drawn at `poses`, for the picture only: the other
    models keep their (already built) values, and nothing is checked here, since the verdict
    says what is wrong with a placement. Far cheaper than rebuilding from the document."""
    models = tuple(
        dataclasses.replace(
            m,
            x=poses[m.id]["x"],
            y=poses[m.id]["y"],
            facing=poses[m.id].get("facing", m.facing) or 0.0,
        )
        if m.id in poses
        else m
        for m in unit.models
    )
    units = tuple(
        dataclasses.replace(u, models=models) if u.id == unit.id else u for u in situation.units
    )
    return dataclasses.replace(situation, units=units)


def explanation(verdict) -> str:
    """One or two plain sentences summing up a verdict."""
    if not verdict.findings:
        return "Arbiter made no checks, so it cannot call this move legal."
    failures = verdict.failures
    if not failures:
        return f"Legal: all {len(verdict.findings)} checks pass."
    first = failures[0]
    more = (
        f" ({len(failures) - 1} more check{'s' if len(failures) > 2 else ''} fail too.)"
        if len(failures) > 1
        else ""
    )
    return f"Not legal: {first.text}{more}"


#: The stepper's own form fields, as people know them (issue 13: answers without field names).
FIELD_WORDS = {
    "unit": "Unit",
    "type": "Move type",
    "roll": "Dice",
    "dice": "Dice",
    "seed": "Server roll",
    "end": "Placement",
}


def field_words(situation, move_type: str | None, field_name: str | None) -> str:
    """The form field an input error is about, in the words the form shows (a declaration's
    label, a model's name), or "" when it is nothing the player filled in (a version, a step)."""
    if not field_name:
        return ""
    name = field_name.removeprefix("declarations.").removeprefix(EXACT)
    if name in FIELD_WORDS:
        return FIELD_WORDS[name]
    if name.startswith("pose-"):
        model, _, part = name[len("pose-") :].rpartition("-")
        return f"{names_of(situation).get(model, model) if situation else model}, {part}"
    if situation is not None:
        for d in asked(situation, move_type):
            if name == d.name or name.startswith(f"{d.name}-"):
                return d.label
    return ""


def link(base: str, query: dict) -> str:
    return f"{base}?{urlencode(query, doseq=True)}" if query else base


# -- views ------------------------------------------------------------------------------------

TEMPLATE = "battlefield/move.html"


def scenario_urls(scenario: Scenario, *, token: str | None = None, commit: bool = True) -> Urls:
    """The stepper's addresses: by id, or by share token (`token`) for a visitor who came
    through the share link; `commit` only for those who may edit (issue 7)."""
    if token is not None:
        here, check, suggest_ = "share_move", "share_move_check", "share_move_suggest"
        args: list = [token]
    else:
        here, check, suggest_ = "move", "move_check", "move_suggest"
        args = [scenario.pk]
    return Urls(
        here=reverse(here, args=args),
        check=reverse(check, args=args),
        suggest=reverse(suggest_, args=args),
        commit=reverse("move_commit", args=[scenario.pk]) if commit else None,
        ruler=reverse("share_ruler", args=[scenario.share_token]),
        casualty=reverse("move_casualty", args=[scenario.pk]) if commit else None,
    )


def tried_scenario(request, pk: int | None = None, token: str | None = None):
    """The scenario a stepper page works on and its addresses (issue 7: anyone who may view a
    scenario may try moves on it, since choosing, Suggest and Check store nothing): by id for
    those who may see it by id, by share token for anyone the link admits; 404 otherwise.
    Commit and Undo stay for those who may edit."""
    # (the document is read only if the Situation kept for this version is not: pagecache)
    if token is not None:
        scenario = shared_scenario(request, token, document=False)
    else:
        assert pk is not None, "a stepper URL names the scenario by id or by token"
        scenario = viewable_scenario(request, pk, document=False)
    return scenario, scenario_urls(scenario, token=token, commit=can_edit(request, scenario))


def base_context(request, scenario: Scenario) -> dict:
    may_edit = can_edit(request, scenario)
    # (each step reads its document to name the unit: kept per version, not read per Check)
    log, can_undo = per_version(
        scenario, "step-log", lambda: (log_rows(scenario), undoable(scenario) is not None)
    )
    context = {
        "scenario": scenario,
        "log": log,
        "may_edit": may_edit,
        "undoable": may_edit and can_undo,
        "save_note": None,
    }
    if not may_edit:
        # Trying only: say how to keep a move (an account, then a copy of one's own).
        share = scenario.share_url()
        context["save_note"] = {
            "signed_in": request.user.is_authenticated,
            "login": f"{reverse('login')}?{urlencode({'next': share})}",
            "copy": reverse("fork", args=[scenario.share_token]),
        }
    return context


PLACE = "battlefield/move_place.html"


def error_response(request, context: dict, exc: InvalidInput, status: int = 422):
    """The error partial (422 for bad input, 409 for a stale version), always into the
    verdict's live region (Suggest would otherwise swap it over the pose fields)."""
    scenario = context.get("scenario")
    situation = context.get("situation") or (situation_of(scenario) if scenario else None)
    words = field_words(situation, request.POST.get("type"), exc.field)
    context = {**context, "error": exc, "error_words": words}
    response = TemplateResponse(request, f"{PLACE}#error", context, status=status)
    if request.htmx:
        response["HX-Retarget"] = "#verdict"
        response["HX-Reswap"] = "innerHTML"
    return response


@require_GET
def move(request, pk: int | None = None, token: str | None = None):
    """The stepper page of one step (its URL holds the state); the `stepper` partial for htmx.
    By id (`/scenarios/<pk>/move`) or through the share link (`/s/<token>/move`)."""
    scenario, urls = tried_scenario(request, pk, token)
    if request.GET.get("type"):
        # A chosen move is previewed by the engine (reach, paths, the proposed end): as costly
        # as a Check, so it counts against the same limit (issue 15), though it is a GET.
        ratelimit.check(request, "api")
    situation = situation_of(scenario)
    seed = str(step_seed(scenario))
    if request.GET.get("roll") == "server" and request.GET.get("seed") != seed:
        # The server's roll is the step's own (`step_seed`): written into the URL, so a reload
        # or a shared link shows the same dice, and put back when the URL asks for other dice.
        params = request.GET.copy()
        params["seed"] = seed
        return redirect(f"{urls.here}?{params.urlencode()}")
    if request.GET.get(SCRATCH) == "1":
        # a scratch try is never committed, and changes nothing on the table
        urls = dataclasses.replace(urls, commit=None, casualty=None)
    context = base_context(request, scenario)
    try:
        stage = read_stage(request.GET, situation)
        context.update(stepper_context(situation, stage, urls))
        if urls.casualty and stage.name == "place":
            context["casualties"] = casualties(scenario, stage.unit or "")
            context["casualty_back"] = request.get_full_path()
        status = 200
    except InvalidInput as exc:
        stage = Stage(unit=request.GET.get("unit") or None, type=request.GET.get("type") or None)
        try:
            stage = after_the_roll(request.GET, situation, exc) or fallback(stage, situation)
            if stage.name != "after":
                keep_entries(stage, request.GET, situation)
            context.update(stepper_context(situation, stage, urls, error=exc))
        except InvalidInput:
            context.update(stepper_context(situation, Stage(), urls, error=exc))
        status = 422
    return page(request, TEMPLATE, context, partial="stepper", status=status)


def keep_entries(stage: Stage, params: QueryDict, situation) -> None:
    """After an input error, keep what the player entered so the form shows it again."""
    try:
        stage.declarations = read_declarations(params, asked(situation, stage.type))
    except InvalidInput:
        pass
    stage.dice_text = params.get("dice", "").strip()


def after_the_roll(params: QueryDict, situation, exc: InvalidInput) -> Stage | None:
    """After a refused declaration made after the roll, the step that asks it again, with
    everything else the player entered (the dice, the other declarations); None for any other
    error, or when the rest does not read cleanly either."""
    names = {d.name for d in asked_after_roll(situation, params.get("type"))}
    if exc.field not in names:
        return None
    kept = params.copy()
    kept.pop(exc.field, None)
    kept.pop(AFTER, None)
    try:
        stage = read_stage(kept, situation)
    except InvalidInput:
        return None
    return stage if stage.name == "after" else None


def fallback(stage: Stage, situation) -> Stage:
    """The furthest step that still reads cleanly after an input error."""
    if stage.unit:
        try:
            situation.unit(stage.unit)
        except InvalidInput:
            return Stage()
    if stage.type and move_type_of(situation, stage.type) is None:
        stage.type = None
    return stage


def step_seed(scenario: Scenario) -> int:
    """The server's dice of the next step of a scenario (issue 13 item 15): derived with the
    server's secret from the scenario and its step count, so a step has one roll that going
    back, reloading, editing the table (e.g. removing and restoring a casualty) or editing the
    seed in the URL cannot change; committing a move (or an undo, also a step) makes the next
    step's roll a new one."""
    # the step count kept per version (the live table's, battlefield/live.py): a step changes
    # the version, so it is never stale
    value = f"{scenario.pk}:{per_version(scenario, 'step-count', scenario.steps.count)}"
    return int(salted_hmac(STEP_DICE_SALT, value, algorithm="sha256").hexdigest()[:8], 16)


#: The salt of `step_seed` (a server secret keyed per purpose).
STEP_DICE_SALT = "battlefield.stepper.step_seed"


def bound_dice(params: QueryDict, scenario: Scenario) -> QueryDict:
    """`params` with the server's roll replaced by the step's own (a posted seed is ignored)."""
    if params.get("roll") != "server":
        return params
    params = params.copy()
    params["seed"] = str(step_seed(scenario))
    return params


def judged(request, situation, urls: Urls, *, locked=False, scenario: Scenario | None = None):
    """Read the posted placement and judge it: (stage, verdict, context). With `scenario`, the
    server's dice are the step's own (`step_seed`), whatever seed was posted."""
    params = bound_dice(request.POST, scenario) if scenario is not None else request.POST
    stage = read_stage(params, situation)
    placing(stage)
    verdict = adjudicate(situation, stage.move())
    context = stepper_context(situation, stage, urls, verdict=verdict, locked=locked)
    return stage, verdict, context


def placing(stage: Stage) -> None:
    """Refuse to judge or suggest before the dice, and before what is declared after them."""
    if stage.name == "after":
        raise InvalidInput(AFTER, "declare what is asked after the roll first")
    if stage.name != "place":
        raise InvalidInput("roll", "choose the dice first: roll on the server or enter them")


def check_response(request, context: dict):
    """The verdict (into the aria-live region) plus the table, swapped out of band; the whole
    page without htmx."""
    if request.htmx:
        return TemplateResponse(request, f"{PLACE}#checked", {**context, "oob": True})
    return TemplateResponse(request, TEMPLATE, context)


@require_POST
@rate_limit("api")  # each one runs the engine, like the adjudication API
def move_check(request, pk: int | None = None, token: str | None = None):
    """Judge the posted placement in memory: nothing is stored, so viewing is enough."""
    scenario, urls = tried_scenario(request, pk, token)
    context = base_context(request, scenario)
    try:
        _, _, stepper = judged(request, situation_of(scenario), urls, scenario=scenario)
    except InvalidInput as exc:
        return error_response(request, context, exc)
    return check_response(request, {**context, **stepper})


@require_POST
@rate_limit("api")  # each one runs the engine, like the adjudication API
def move_suggest(request, pk: int | None = None, token: str | None = None):
    scenario, urls = tried_scenario(request, pk, token)
    return suggest_response(
        request, situation_of(scenario), urls, base_context(request, scenario), scenario=scenario
    )


def suggest_response(
    request,
    situation,
    urls: Urls,
    context: dict,
    *,
    locked=False,
    full_page=None,
    scenario: Scenario | None = None,
):
    """Fill the pose fields with the engine's placement (rules.suggest); nothing is judged
    until the player presses Check. With `scenario`, the server's dice are the step's own."""
    params = bound_dice(request.POST, scenario) if scenario is not None else request.POST
    try:
        stage = read_stage(params, situation)
        placing(stage)
        suggested = suggest(situation, stage.move(with_end=False))
    except InvalidInput as exc:
        return error_response(request, context, exc)
    stage.poses = {
        mid: {k: v for k, v in pose.as_dict().items() if k != "z"}
        for mid, pose in (suggested.end or {}).items()
    }
    context = {**context, **stepper_context(situation, stage, urls, locked=locked)}
    if request.htmx:
        return TemplateResponse(request, f"{PLACE}#suggested", {**context, "oob": True})
    if full_page is not None:
        return full_page(stage)
    return TemplateResponse(request, TEMPLATE, context)


@require_POST
def move_commit(request, pk: int):
    """Append the step and make the verdict's scenario the document: only a legal move, only
    on the version the player saw (409 when someone changed it meanwhile)."""
    scenario = editable_scenario(request, pk)
    context = base_context(request, scenario)
    stale = InvalidInput(
        "version",
        "This scenario changed since you loaded it (in another "
        "tab or by someone else). Reload the page to see it, then "
        "make the move again.",
    )
    if request.POST.get("version") != str(scenario.version):
        return error_response(request, context, stale, status=409)
    if request.POST.get(SCRATCH) == "1":
        scratch = InvalidInput(
            SCRATCH, "A scratch try is not committed: make the move from the move page instead."
        )
        return error_response(request, context, scratch)
    try:
        stage, verdict, stepper = judged(
            request, situation_of(scenario), scenario_urls(scenario), scenario=scenario
        )
    except InvalidInput as exc:
        return error_response(request, context, exc)
    if not verdict.legal or verdict.after is None:
        stepper["commit_refused"] = True
        return TemplateResponse(
            request,
            f"{PLACE}#checked",
            {**context, **stepper, "oob": bool(request.htmx)},
            status=422,
        )
    before = scenario.document
    after = verdict.after.to_document()
    try:
        validate_scenario(after)
        with transaction.atomic():
            scenario.document = after
            scenario.save()
            step = Step.append(
                scenario, stage.move().to_document(), verdict.as_dict(), before=before
            )
    except StaleScenario:
        return error_response(request, context, stale, status=409)
    except InvalidInput as exc:
        return error_response(request, context, exc)
    messages.success(
        request,
        f"Step {step.index} committed. Its read-only link: "
        f"{request.build_absolute_uri(step_url(step))}",
    )
    return go(request, reverse("move", args=[scenario.pk]))


@require_POST
def move_undo(request, pk: int):
    """Step back: a new step restores the document from before the last step still in force
    (the log keeps every step)."""
    scenario = editable_scenario(request, pk)
    target = undoable(scenario)
    if target is None:
        messages.info(request, "There is no step to undo.")
        return go(request, reverse("move", args=[scenario.pk]))
    # The version is required (issue 15): an undo made on an older page would take back a
    # step someone else committed since.
    if request.POST.get("version") != str(scenario.version):
        context = base_context(request, scenario)
        exc = InvalidInput(
            "version", "This scenario changed since you loaded it. Reload the page before undoing."
        )
        return error_response(request, context, exc, status=409)
    before = scenario.document
    try:
        with transaction.atomic():
            scenario.document = target.before
            scenario.save()
            step = Step.append(
                scenario, {"undo": target.index}, {}, before=before, undoes=target.index
            )
    except StaleScenario:
        context = base_context(request, scenario)
        exc = InvalidInput("version", "This scenario changed meanwhile. Reload the page.")
        return error_response(request, context, exc, status=409)
    messages.success(request, f"Step {target.index} undone (recorded as step {step.index}).")
    return go(request, reverse("move", args=[scenario.pk]))


# -- casualties (issue 13 item 4) -------------------------------------------------------------


@require_POST
def move_casualty(request, pk: int):
    """Remove the chosen model as a casualty, or restore one (editors only): an edit like any
    other (the editor's history, refused on an older version), then back to the move page."""
    scenario = editable_scenario(request, pk)
    permissions.check_version(request, scenario)
    here = reverse("move", args=[scenario.pk])
    back = request.POST.get("back", "")
    back = back if back.startswith(f"{here}?") or back == here else here
    document = copy.deepcopy(scenario.document)
    try:
        if request.POST.get("restore"):
            label = restore_casualty(document, scenario, request.POST["restore"])
        elif request.POST.get("remove"):
            label = remove_casualty(document, request.POST["remove"])
        else:
            raise InvalidInput("remove", "choose the model to remove")
        scenario.apply_edit(document, label, version=scenario.version)
    except InvalidInput as exc:
        messages.error(request, f"That did not work: {exc.message}.")
    else:
        messages.success(request, f"{label}.")
    return redirect(back)


# -- the phase bar (issue 13 item 15) -------------------------------------------------------


@require_POST
def scenario_turn(request, pk: int):
    """The phase bar's buttons: on to the next phase, or to the next player's turn, the way a
    referee keeps them. The editor's `set_turn` clears what lasted only for the phase (or the
    turn: StateFlag.lasts), so the engine judges the new phase afresh; an edit like any other
    (undone in the editor, refused on an older version)."""
    scenario = editable_scenario(request, pk)
    permissions.check_version(request, scenario)
    document = copy.deepcopy(scenario.document)
    whole_turn = request.POST.get("onto") == "turn"
    round_, army, phase = next_turn(document, whole_turn=whole_turn)
    set_turn(document, round_, army, phase)
    names = {a["id"]: a.get("name") or a["id"] for a in document.get("armies", [])}
    label = (
        f"Next turn: round {round_}, {names[army]}, {phase} phase"
        if whole_turn
        else f"Next phase: {phase}"
    )
    scenario.apply_edit(document, label, version=scenario.version)
    messages.success(request, f"{label}.")
    return go(request, scenario)


# -- the log ----------------------------------------------------------------------------------


def in_force(steps) -> list:
    """The steps whose effect stands: each undo step takes back the latest one still in force."""
    stack: list = []
    for step in steps:
        if step.undoes is None:
            stack.append(step)
        elif stack and stack[-1].index == step.undoes:
            stack.pop()
    return stack


def undoable(scenario: Scenario):
    """The step an Undo would take back (it must know the document before it), or None."""
    stack = in_force(scenario.steps.all())
    if stack and stack[-1].before is not None:
        return stack[-1]
    return None


def log_rows(scenario: Scenario) -> list[dict]:
    steps = list(scenario.steps.all())
    standing = {s.index for s in in_force(steps)}
    rows = []
    for step in steps:
        rows.append(
            {
                "index": step.index,
                "url": step_url(step),
                "summary": step_summary(step),
                "undone": step.undoes is None and step.index not in standing,
            }
        )
    return rows


def step_summary(step: Step) -> str:
    if step.undoes is not None:
        return f"Undo of step {step.undoes}"
    move = step.move or {}
    move_type = SYSTEMS[step.scenario.system].move_types.get(move.get("type", ""))
    name = move_type.title if move_type else move.get("type", "move")
    unit = move.get("unit", "?")
    return f"{name} by {names_of_document(step.before).get(unit, unit)}"


def step_url(step: Step) -> str:
    return reverse("step", args=[step.scenario.share_token, step.index])


# -- step links -------------------------------------------------------------------------------


def shared_step(request, token: str, index: int, *, document: bool = True) -> tuple[Scenario, Step]:
    """`document=False`: leave the scenario's document and the step's picture unread until
    something asks for them."""
    # 404 unless its link may be used (issue 7)
    scenario = shared_scenario(request, token, document=document)
    steps = Step.objects if document else Step.objects.defer("png")
    step = get_object_or_404(steps, scenario=scenario, index=index)
    return scenario, step


def step_situations(step: Step):
    """The table before and after a step, and the models to outline."""
    after_doc = step.verdict.get("scenario") if step.undoes is None else None
    if step.undoes is not None:
        # An undo restored the document of the step it undid.
        undone = Step.objects.filter(scenario=step.scenario_id, index=step.undoes).first()
        after_doc = undone.before if undone else None
    before = Situation.from_document(step.before) if step.before else None
    after = Situation.from_document(after_doc, check_overlaps=False) if after_doc else None
    failing = [f["subject"] for f in step.verdict.get("findings", []) if not f.get("passed")]
    shown = after or before
    highlight = []
    if shown is not None:
        ids = {m.id for u in shown.units for m in u.models}
        highlight = [s for s in failing if s in ids]
    return before, after, highlight


@require_GET
def step_detail(request, token: str, index: int):
    """A committed step, read-only for anyone with the link: before and after, dice, verdict."""
    scenario, step = shared_step(request, token, index, document=False)

    def drawn() -> dict:
        """What the step shows, from its documents (a step never changes; kept per version)."""
        before, after, highlight = step_situations(step)
        names = names_of_document(step.before)
        move = step.verdict.get("move", {})
        return {
            "summary": step_summary(step),
            "findings": finding_rows(step.verdict.get("findings", []), names),
            "events": event_rows(step.verdict.get("events", []), names),
            # the target by the name the table labels (#13), not its id
            "target_name": names.get(move.get("target") or "", move.get("target")),
            "before_svg": table_svg(
                before,
                overlays=shown_overlays(before, step.verdict, trails=False, ghosts=False),
                dom_id="before",
                interactive=True,  # its models are the ruler's ends (step_ruler)
            )
            if before
            else None,
            "after_svg": table_svg(
                after,
                highlight=highlight,
                overlays=shown_overlays(before, step.verdict, placed=after) if before else (),
                dom_id="after",
                interactive=True,  # its models are the ruler's ends (step_ruler)
            )
            if after
            else None,
            "unit_name": (after or before).unit_name if (after or before) else "",
        }

    context = {
        "scenario": scenario,
        "step": step,
        **per_version(scenario, f"step-page-{index}", drawn),
        "verdict": step.verdict,
        "dice": step.dice.get("dice", []),
        "seed": step.dice.get("seed"),
        "og_image": request.build_absolute_uri(reverse("step_png", args=[token, index])),
        "page_url": request.build_absolute_uri(step_url(step)),
        "previous": index - 1 if index > 0 else None,
        "next": index + 1 if scenario.steps.filter(index=index + 1).exists() else None,
    }
    return page(request, "battlefield/step.html", context)


#: The step page's two tables, as the ruler's `table` parameter names them.
STEP_TABLES = ("before", "after")


@require_GET
def step_ruler(request, token: str, index: int, table: str):
    """The ruler on a step page's before or after table (`editor.ruler_answer`), for whoever
    may see the step through its link."""
    if table not in STEP_TABLES:
        raise Http404("A step has a before and an after table")
    _, step = shared_step(request, token, index, document=False)
    before, after, _ = step_situations(step)
    situation = before if table == "before" else after
    if situation is None:
        raise Http404("This table was not recorded for this step")
    return ruler_answer(request, situation)


@require_safe
def step_png(request, token: str, index: int):
    """The step's picture (after, failing models outlined): its link preview. Steps never
    change, so the picture may be cached for long; by shared caches only when anyone with the
    link may see it (views.picture_cache_control)."""
    scenario, step = shared_step(request, token, index)
    etag = f'"{token[:8]}-step-{index}"'
    if request.headers.get("If-None-Match") == etag:
        return HttpResponse(status=304)
    png = step.png
    if png is None:
        before, after, highlight = step_situations(step)
        shown = after or before
        if shown is None:  # nothing of its own to show: the scenario as it is now (not kept)
            png = table_png(scenario.situation, highlight=highlight)
        else:
            # A step never changes, so its picture is drawn once and kept with it (every app
            # server reads the same row); a concurrent first request draws it too, harmlessly.
            # the same overlays as the page's "after" table: target zone, trails (#13)
            overlays = shown_overlays(before, step.verdict, placed=after) if before else ()
            png = bytes(table_png(shown, highlight=highlight, overlays=overlays))
            Step.objects.filter(pk=step.pk, png__isnull=True).update(png=png)
    response = HttpResponse(bytes(png), content_type="image/png")
    response["ETag"] = etag
    response["Cache-Control"] = picture_cache_control(scenario, max_age=86400)
    return response
