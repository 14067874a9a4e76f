"""Every move type the registry describes can be played through the move page (issue 10).

`PLAYS` holds one legal move of each registered move type, worked by hand from RULES.md: the
table, the declarations and dice, and the end positions (or None: the engine places the models,
through Suggest). The test plays each through the stepper as a player would: the declaration
step must ask every declaration the registry lists, then Check must call the move legal. A move
type registered without a play here fails `test_every_registered_move_type_has_a_play`.
"""

import copy
import re

import pytest

from battlefield.models import Scenario
from battlefield.stepper import Stage
from rules import SYSTEMS
from tests.documents import scenario as scenario_40k

WARMASTER = "warmaster-revolution"
WH40K = "wh40k-11e"


# -- tables, built by hand -----------------------------------------------------------------------


def table_40k(phase: str, crisis=(40.0, 30.0)) -> dict:
    """tests/documents.py's table (Berzerkers B1 (30, 20), B2 (31.5, 20), 32 mm bases; Crisis
    C1 on a 95 x 150 mm oval facing +y), red's turn in `phase`, C1 centred on `crisis`."""
    doc = scenario_40k(turn={"round": 2, "active_army": "red", "phase": phase})
    doc["units"][1]["models"][0]["x"], doc["units"][1]["models"][0]["y"] = crisis
    return doc


def berzerkers_at(y: float) -> dict:
    return {"B1": {"x": 30.0, "y": y}, "B2": {"x": 31.5, "y": y}}


def stand(model_id, x, y, facing=0):
    """A Warmaster 4 x 2 cm stand (RULES.md 2.1); facing 0 is +x, the 4 cm front along y."""
    return {"id": model_id, "base": {"rect": [40, 20]}, "x": x, "y": y, "facing": facing}


def flyers(x=50.0):
    """Unit F: three flying stands facing +x at (x, 50), (x, 54), (x, 58), edge to edge."""
    return {
        "id": "F",
        "army": "red",
        "name": "Giant Eagles",
        "keywords": ["MONSTER", "FLYING"],
        "models": [stand(f"F{i + 1}", x, 50 + 4 * i) for i in range(3)],
    }


def foe(x, y, facing=180):
    """Unit E: one enemy infantry stand."""
    return {
        "id": "E",
        "army": "blue",
        "name": "Orc Boyz",
        "keywords": ["INFANTRY"],
        "models": [stand("E1", x, y, facing)],
    }


def general(x, y, flying=False):
    """Character G (Command 9) on a 20 mm round base."""
    return {
        "id": "G",
        "army": "red",
        "name": "General",
        "keywords": ["CHARACTER", "GENERAL"] + (["FLYING"] if flying else []),
        "state": {"command": 9},
        "models": [{"id": "G1", "base": {"round": 20}, "x": x, "y": y}],
    }


def table_warmaster(phase: str, *units) -> dict:
    return {
        "format": "arbiter.scenario/1",
        "system": WARMASTER,
        "name": "Every move type",
        "table": {"width": 180, "height": 120},
        "terrain": [],
        "armies": [{"id": "red", "name": "High Elves"}, {"id": "blue", "name": "Orcs"}],
        "units": list(units),
        "turn": {"round": 1, "active_army": "red", "phase": phase},
    }


def flyers_at(x: float) -> dict:
    return {f"F{i + 1}": {"x": x, "y": 50 + 4 * i} for i in range(3)}


# -- one legal move of each move type ------------------------------------------------------------

#: (system, move type) -> (table, unit, declarations, dice, end poses or None to Suggest).
PLAYS = {
    # Pursuit (2.7): E1 stands at x 59..61, F's front edge at 51: F pursues 8 cm along the ground
    # into contact with the unit it names, centres ending at x 58.
    (WARMASTER, "pursuit"): (
        table_warmaster("combat", flyers(), foe(60, 54)),
        "F",
        {"charge_targets": ["E"]},
        None,
        None,
    ),
}


def form(table: dict, unit: str, move_type: str, declarations: dict, dice, poses=None) -> dict:
    """The move page's fields for a move, as the stepper writes them (Stage.query)."""
    stage = Stage(
        unit=unit,
        type=move_type,
        declarations=declarations,
        roll="hand" if dice else "server",
        dice=tuple(dice) if dice else None,
        seed=None if dice else 1,
        poses=poses or {},
    )
    return stage.query()


POSE = re.compile(r'name="pose-([\w.:-]+)-(x|y|facing)" id="[^"]*" value="([^"]*)"')


def play(client, pk: int, system: str, move_type: str):
    table, unit, declarations, dice, end = copy.deepcopy(PLAYS[system, move_type])
    base = f"/scenarios/{pk}/move"
    page = client.get(base, {"unit": unit, "type": move_type}).content.decode()
    for declaration in SYSTEMS[system].move_types[move_type].declarations:
        if declaration.asked:
            name = declaration.name
            field = f"{name}-event" if declaration.kind == "trigger" else name
            assert f'name="{field}"' in page, f"the form does not ask {name}"
    if end is None:
        suggested = client.post(f"{base}/suggest", form(table, unit, move_type, declarations, dice))
        assert suggested.status_code == 200, suggested.content.decode()[-2000:]
        end = {}
        for model, key, value in POSE.findall(suggested.content.decode()):
            end.setdefault(model, {})[key] = float(value)
        assert end, "Suggest filled in no pose fields"
    checked = client.post(f"{base}/check", form(table, unit, move_type, declarations, dice, end))
    return checked.status_code, checked.content.decode()


@pytest.fixture
def owner(client, django_user_model):
    user = django_user_model.objects.create_user("owner")
    client.force_login(user)
    return user


@pytest.mark.django_db
@pytest.mark.parametrize("system, move_type", sorted(PLAYS), ids="/".join)
def test_one_legal_move_of_each_move_type_plays_through_the_move_page(
    client, owner, system, move_type
):
    table = PLAYS[system, move_type][0]
    scenario = Scenario.objects.create(document=copy.deepcopy(table), owner=owner)
    status, html = play(client, scenario.pk, system, move_type)
    assert status == 200, html[-2000:]
    assert "Legal: all" in html, re.findall(r"Not legal: [^<]*", html)
