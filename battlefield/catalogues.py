"""What the editor's setup panels offer (battlefield/armylists.py, templates/battlefield/
armylists.html): the surge triggers and limits any unit may be given, the 40K factions of the
dataset, and the Warmaster flyer catalogue. Kept apart from the views so the editor can read it
without importing them."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from . import dataset

if TYPE_CHECKING:
    from .models import Scenario

#: Surge triggers the engine judges (RULES.md 1.6; the schema's list), in words.
SURGE_TRIGGERS = [
    ("models-destroyed-by-shooting", "models destroyed by shooting"),
    ("models-hit-by-shooting", "models hit by shooting"),
    ("wounds-lost-to-shooting", "wounds lost to shooting"),
    ("enemy-ended-move-within-8", "an enemy ended a move within 8 in"),
]
SURGE_LIMITS = [
    ("", "no limit"),
    ("once-per-phase", "once per phase"),
    ("once-per-turn", "once per turn"),
    ("once-per-battle", "once per battle"),
]

DISTANCE = re.compile(r"^D6(\+[0-9]+)?$")

FLYERS_PATH = Path(__file__).resolve().parent / "demo" / "warmaster_flyers.json"


@cache
def warmaster_flyers() -> list[dict]:
    """The Warmaster Revolution flyer catalogue (our own data file of facts from the army
    lists: name, army, troop type, stands and the stand's facing edge)."""
    return json.loads(FLYERS_PATH.read_text())["flyers"]


def editor_extras(scenario: Scenario) -> dict:
    """The setup panels' context, for the editor's (battlefield/editor.py adds it)."""
    if scenario.system == "wh40k-11e":
        return {
            "surge_triggers": SURGE_TRIGGERS,
            "surge_limits": SURGE_LIMITS,
            "factions": dataset.catalogue().factions,
        }
    return {"flyers": warmaster_flyers()}
