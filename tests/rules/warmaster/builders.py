"""Scenario builders for the Warmaster tests: flyers in cm, stands as `rect` bases."""

from rules import Move, Situation, adjudicate, suggest

INFANTRY = [40, 20]


def stand(model_id, x, y, facing=0, base=None):
    return {
        "id": model_id,
        "base": {"rect": list(base or INFANTRY)},
        "x": x,
        "y": y,
        "facing": facing,
    }


def flyers(unit_id, stands, army="red", state=None, keywords=("FLYING", "MONSTER")):
    return {
        "id": unit_id,
        "army": army,
        "name": unit_id,
        "keywords": list(keywords),
        "state": dict(state or {}),
        "models": stands,
    }


def line_of_flyers(unit_id, x, y, army="red", state=None, facing=0):
    """Three 4 x 2 cm stands facing +x, side by side down the y axis, centred on (x, y)."""
    return flyers(
        unit_id,
        [stand(f"{unit_id}{i + 1}", x, y + 4 * (i - 1), facing) for i in range(3)],
        army,
        state,
    )


def character(
    unit_id, x, y, army="red", command=9, round_mm=20, flying=False, state=None, rect=False
):
    """A character stand: round (20 mm) by default, or a 4 x 2 cm rectangle facing +x."""
    keywords = ["CHARACTER", "GENERAL"] + (["FLYING"] if flying else [])
    base = {"rect": list(INFANTRY)} if rect else {"round": round_mm}
    return {
        "id": unit_id,
        "army": army,
        "name": unit_id,
        "keywords": keywords,
        "state": {"command": command, **(state or {})},
        "models": [{"id": f"{unit_id}1", "base": base, "x": x, "y": y}],
    }


def enemy(unit_id, x, y, facing=180, count=1, state=None):
    return flyers(
        unit_id,
        [stand(f"{unit_id}{i + 1}", x, y + 4 * i, facing) for i in range(count)],
        army="blue",
        state=state,
        keywords=("INFANTRY",),
    )


def terrain(piece_id, kind, x0, y0, x1, y1):
    return {"id": piece_id, "type": kind, "footprint": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]}


def scenario(units, terrain_pieces=(), phase="command", active_army=None):
    """A 180 x 120 cm table in red's turn, except in the Shooting phase, where blue shoots at
    the red flyers (2.6: only the side whose turn it is shoots, the other is driven back)."""
    if active_army is None:
        active_army = "blue" if phase == "shooting" else "red"
    return {
        "format": "arbiter.scenario/1",
        "system": "warmaster-revolution",
        "name": "test",
        "table": {"width": 180, "height": 120},
        "terrain": list(terrain_pieces),
        "armies": [{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}],
        "units": list(units),
        "turn": {"round": 1, "active_army": active_army, "phase": phase},
    }


def judge(doc, move_doc):
    situation = Situation.from_document(doc)
    return adjudicate(situation, Move.from_document(move_doc, situation.system))


def suggested(doc, move_doc):
    situation = Situation.from_document(doc)
    return suggest(situation, Move.from_document(move_doc, situation.system))


def failed_rules(verdict):
    return [(f.rule, f.subject, f.text) for f in verdict.failures]


def legal_start(doc, unit_id="F"):
    """The situation for a generated scenario whose flyers start where flyers may stand (no stand
    over woods or impassable terrain, none within 1 cm of an enemy), or None."""
    from rules import InvalidInput
    from rules.warmaster.terrain import forbidden_terrain_under

    try:
        situation = Situation.from_document(doc)
    except InvalidInput:
        return None
    unit = situation.unit(unit_id)
    for m in unit.models:
        if forbidden_terrain_under(situation, m.footprint):
            return None
        for e in situation.enemies_of(unit):
            if any(m.footprint.distance(o.footprint) <= 1.0 for o in e.models):
                return None
    return situation
