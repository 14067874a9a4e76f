"""Small builders for 40K test scenarios (documents per FORMAT.md, then Situations)."""

from rules import Move, Situation

MM = 25.4
R32 = 16 / MM  # radius of a 32 mm base in inches


def model(mid, x, y, base=32, z=None, facing=None):
    m = {"id": mid, "base": base if isinstance(base, dict) else {"round": base}, "x": x, "y": y}
    if z is not None:
        m["z"] = z
    if facing is not None:
        m["facing"] = facing
    return m


def unit(uid, army, models, keywords=("INFANTRY",), move=6, state=None, abilities=None):
    u = {
        "id": uid,
        "army": army,
        "name": uid,
        "keywords": list(keywords),
        "move": move,
        "models": models,
    }
    if state:
        u["state"] = state
    if abilities:
        u["abilities"] = abilities
    return u


def terrain(tid, points, category="dense", height=3, solid=False, kind="ruin"):
    return {
        "id": tid,
        "type": kind,
        "category": category,
        "height": height,
        "solid": solid,
        "footprint": [list(p) for p in points],
    }


def rect(x0, y0, x1, y1):
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def scenario(units, terrain_pieces=(), width=60, height=44, phase="movement", active="red"):
    return {
        "format": "arbiter.scenario/1",
        "system": "wh40k-11e",
        "name": "test",
        "table": {"width": width, "height": height},
        "terrain": list(terrain_pieces),
        "armies": [{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}],
        "units": list(units),
        "turn": {"round": 2, "active_army": active, "phase": phase},
    }


def situation(units, terrain_pieces=(), **kw):
    return Situation.from_document(scenario(units, terrain_pieces, **kw))


def move(unit_id, type_, end=None, dice=None, paths=None, **declarations):
    doc = {"format": "arbiter.move/1", "unit": unit_id, "type": type_}
    if declarations:
        doc["declarations"] = declarations
    if dice is not None:
        doc["dice"] = list(dice)
    if end is not None:
        doc["end"] = {
            k: (v if isinstance(v, dict) else {"x": v[0], "y": v[1]}) for k, v in end.items()
        }
    if paths is not None:
        doc["paths"] = {k: [list(p) for p in v] for k, v in paths.items()}
    return Move.from_document(doc, "wh40k-11e")
