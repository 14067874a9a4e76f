"""Every move type the registry describes can be played through the move page (issue 10).

`PLAYS` holds one legal move of each registered move type, worked by hand from RULES.md: the
table, the declarations and dice, and the end positions (or None: the engine places the models,
through Suggest). The test plays each through the stepper as a player would: the declaration
step must ask every declaration the registry lists, then Check must call the move legal. A move
type registered without a play here fails `test_every_registered_move_type_has_a_play`.
"""

import copy
import json
import pathlib
import re

import pytest

from battlefield.models import Scenario
from battlefield.stepper import Stage
from rules import SYSTEMS
from tests.documents import scenario as scenario_40k

DEMO = pathlib.Path(__file__).resolve().parents[2] / "battlefield" / "demo"
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


def flyers(x=50.0, state=None):
    """Unit F: three flying stands facing +x at (x, 50), (x, 54), (x, 58), edge to edge."""
    return {
        "id": "F",
        "army": "red",
        "name": "Giant Eagles",
        "keywords": ["MONSTER", "FLYING"],
        "state": dict(state or {}),
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


def demo_scenario(name: str) -> dict:
    return json.loads((DEMO / "scenarios" / f"{name}.json").read_text())


DRIVE_BACK = json.loads((DEMO / "moves" / "warmaster-drive-back.json").read_text())


def flyers_at(x: float) -> dict:
    return {f"F{i + 1}": {"x": x, "y": 50 + 4 * i} for i in range(3)}


# -- one legal move of each move type ------------------------------------------------------------

#: (system, move type) -> (table, unit, declarations, dice, end poses or None to Suggest).
PLAYS = {
    # 09.05: B moves 4 in straight down the table, well under its Move of 6 in, far from C.
    (WH40K, "normal"): (table_40k("movement"), "B", {}, None, berzerkers_at(24.0)),
    # 09.06: an advance of 6 + 3 in; B goes 8 in.
    (WH40K, "advance"): (table_40k("movement"), "B", {}, [3], berzerkers_at(28.0)),
    # 09.07: C1 (x 33.05..38.95) is 0.92 in from B2, engaged (2 in, 03.04); B falls back 6 in
    # up the table, ending 2.4 in clear of C1's edge.
    (WH40K, "fall-back"): (
        table_40k("movement", crisis=(36.0, 20.0)),
        "B",
        {},
        None,
        berzerkers_at(14.0),
    ),
    # 11.04: C1 is about 8 in away (within 12 in); a roll of 12 brings B into engagement range,
    # placed by the engine.
    (WH40K, "charge"): (table_40k("charge"), "B", {"charge_targets": ["C"]}, [6, 6], None),
    # 21.02: the surge demo (RULES.md worked example): two Berzerkers shot down, a roll of 4.
    (WH40K, "surge"): (
        demo_scenario("surge-berzerkers"),
        "B",
        {
            "ability": "blood-surge",
            "trigger": {"event": "shot", "by": "A", "models_destroyed": 2},
        },
        [4],
        None,
    ),
    # 2.4: the home back demo: a 5 (50 cm) carries the eagles 46 cm into touch with their
    # General at (90, 100).
    (WARMASTER, "home-back"): (
        demo_scenario("warmaster-home-back"),
        "eagles",
        {"home_back_to": "elf-general"},
        [5],
        {"EA1": {"x": 88.0, "y": 98.0, "facing": 90}, "EA2": {"x": 92.0, "y": 98.0, "facing": 90}},
    ),
    # 2.6: the drive back demo, placed by the engine.
    (WARMASTER, "drive-back"): (
        demo_scenario("warmaster-drive-back"),
        DRIVE_BACK["unit"],
        DRIVE_BACK["declarations"],
        DRIVE_BACK["dice"],
        None,
    ),
    # 2.3: E1 (x 64..66) is the closest enemy, 13 cm from F's front edge (51), in sight: F
    # charges on its initiative, centres to x 63, its front touching E1.
    (WARMASTER, "initiative-charge"): (
        table_warmaster("command", flyers(), foe(65, 54)),
        "F",
        {"charge_targets": ["E"]},
        None,
        flyers_at(63),
    ),
    # 2.3 / 2.5: G is 9 cm from F (within 20 cm); 2 + 3 = 5 passes Command 9 less nothing; F
    # hops 20 cm (of 100).
    (WARMASTER, "order-move"): (
        table_warmaster("command", flyers(), general(40, 54), foe(120, 54)),
        "F",
        {"ordered_by": "G"},
        [2, 3],
        flyers_at(70),
    ),
    # 2.5: ordered the same way, F charges 48 cm (of 60) into E1 at x 99..101.
    (WARMASTER, "order-charge"): (
        table_warmaster("command", flyers(), general(40, 54), foe(100, 54)),
        "F",
        {"ordered_by": "G", "charge_targets": ["E"]},
        [2, 3],
        flyers_at(98),
    ),
    # 2.7: after a combat lost by 5, F retreats 5 cm straight away from E1, along the ground.
    (WARMASTER, "retreat"): (
        table_warmaster("combat", flyers(), foe(52, 54)),
        "F",
        {"hits": 5},
        None,
        None,
    ),
    # Pursuit (2.7): E1 stands at x 59..61, F's front edge at 51: F, which won its combat (marked
    # in combat, 2.9), pursues 8 cm along the ground into contact with the unit it names, centres
    # ending at x 58.
    (WARMASTER, "pursuit"): (
        table_warmaster("combat", flyers(state={"in_combat": True}), foe(60, 54)),
        "F",
        {"charge_targets": ["E"]},
        None,
        None,
    ),
    # 2.7: an advance flown 8 cm into E1 (of the 20 cm of 2.9, held to the flyers' pace) by F,
    # whose enemy was destroyed (marked in combat, 2.9).
    (WARMASTER, "combat-advance"): (
        table_warmaster("combat", flyers(state={"in_combat": True}), foe(60, 54)),
        "F",
        {},
        None,
        flyers_at(58),
    ),
    # 2.7: a fall back flown 5 cm straight back from E1.
    (WARMASTER, "combat-fall-back"): (
        table_warmaster("combat", flyers(), foe(52, 54)),
        "F",
        {},
        None,
        flyers_at(45),
    ),
    # 2.9 making way: D, driven back onto F, is another red flying unit at x 79..81; F, a line
    # out of combat in the Shooting phase, moves straight back 10 cm (of its 100 cm pace).
    (WARMASTER, "make-way"): (
        table_warmaster(
            "shooting",
            flyers(),
            {
                "id": "D",
                "army": "red",
                "name": "Pegasus Knights",
                "keywords": ["CAVALRY", "FLYING"],
                "models": [stand(f"D{i + 1}", 80, 50 + 4 * i) for i in range(3)],
            },
        ),
        "F",
        {"made_way_for": "D"},
        None,
        flyers_at(40),
    ),
    # 2.5 / 2.8: the flying General flies 50 cm (of 100), clear of every stand.
    (WARMASTER, "character-move"): (
        table_warmaster("command", general(40, 54, flying=True), flyers(100), foe(150, 54)),
        "G",
        {},
        None,
        {"G1": {"x": 90.0, "y": 54.0}},
    ),
    # 2.9 "Leaving the table": F left over the left edge on a 1-2 (its stands at x 0..2, where
    # it left); at the start of red's turn it rolls 6 and returns there, placed by the engine.
    (WARMASTER, "return-to-table"): (
        table_warmaster("command", dict(flyers(1), state={"off_table": True}), foe(150, 54)),
        "F",
        {},
        [6],
        None,
    ),
    # 2.8: E1 (facing +y, y 55..57) touches the lone General (y 53..55); it flies to join F,
    # 19 cm away (of 30), placed by the engine.
    (WARMASTER, "character-escape"): (
        table_warmaster("combat", general(40, 54, flying=True), flyers(60), foe(40, 56, 90)),
        "G",
        {},
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
        after=True,  # the declarations asked after the roll are answered
    )
    return stage.query()


POSE = re.compile(r'name="pose-([\w.:-]+)-(x|y|facing)" id="[^"]*" value="([^"]*)"')


def play(client, pk: int, system: str, move_type: str):
    table, unit, declarations, dice, end = copy.deepcopy(PLAYS[system, move_type])
    base = f"/scenarios/{pk}/move"
    page = client.get(base, {"unit": unit, "type": move_type}).content.decode()
    for declaration in SYSTEMS[system].move_types[move_type].declarations:
        if declaration.asked and not declaration.after_roll:
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


def test_every_registered_move_type_has_a_play():
    registered = {(name, t) for name, system in SYSTEMS.items() for t in system.move_types}
    assert registered - set(PLAYS) == set(), "add a legal move of each new move type to PLAYS"
