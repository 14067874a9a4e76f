"""Small valid documents shared by the engine and web tests (each test changes a copy)."""

import copy

SCENARIO = {
    "format": "arbiter.scenario/1",
    "system": "wh40k-11e",
    "name": "Two squads and a ruin",
    "table": {"width": 60, "height": 44},
    "terrain": [
        {
            "id": "ruin-1",
            "type": "ruin",
            "category": "dense",
            "height": 5,
            "solid": False,
            "footprint": [[20, 10], [26, 10], [26, 16], [20, 16]],
        }
    ],
    "armies": [{"id": "red", "name": "World Eaters"}, {"id": "blue", "name": "Tau Empire"}],
    "units": [
        {
            "id": "B",
            "army": "red",
            "name": "Khorne Berzerkers",
            "keywords": ["INFANTRY"],
            "move": 6,
            "state": {"battle_shocked": False},
            "abilities": [
                {
                    "id": "blood-surge",
                    "kind": "surge",
                    "trigger": "models-destroyed-by-shooting",
                    "distance": "D6",
                }
            ],
            "models": [
                {"id": "B1", "base": {"round": 32}, "x": 30.0, "y": 20.0},
                {"id": "B2", "base": {"round": 32}, "x": 31.5, "y": 20.0},
            ],
        },
        {
            "id": "C",
            "army": "blue",
            "name": "Crisis Battlesuits",
            "keywords": ["VEHICLE", "FLY"],
            "move": 10,
            "models": [
                {"id": "C1", "base": {"oval": [95, 150]}, "x": 40.0, "y": 30.0, "facing": 90}
            ],
        },
    ],
    "turn": {"round": 2, "active_army": "blue", "phase": "shooting"},
}

MOVE = {
    "format": "arbiter.move/1",
    "unit": "B",
    "type": "normal",
    "end": {"B1": {"x": 30.0, "y": 22.0}, "B2": {"x": 31.5, "y": 22.0}},
}


def scenario(**overrides) -> dict:
    doc = copy.deepcopy(SCENARIO)
    doc.update(overrides)
    return doc


def move(**overrides) -> dict:
    doc = copy.deepcopy(MOVE)
    doc.update(overrides)
    return doc
