"""Small valid documents shared by the engine and web tests (each test changes a copy)."""

import copy
import math

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


# -- the most costly 40K scenario of a given size (issue 15: cost model, deadline, bench) ------
#
# `worst_document(models, hull_vertices, terrain, terrain_vertices)`: a 200 x 150 in table with
# `terrain` solid pieces of `terrain_vertices` vertices each (near-circles 4 in across, in rows
# of 20: every piece a hard obstacle whose corners the path graph joins), and `models` models in
# units of up to 60, each on a hull base of `hull_vertices` vertices 1 in across (0: a round
# 25 mm base), packed in a disc (in coherency) in the lanes between the rows, armies alternating
# lane by lane (every enemy base is an obstacle too). The first piece is a wall across the first
# unit's lane, and `worst_move(doc)` moves that unit (Move 20) 17 in along its lane past it: a
# path round the wall for most models. No model overlaps another or is in engagement range.

WORST_WIDTH, WORST_HEIGHT = 200.0, 150.0
PER_UNIT = 60
SPACING = 1.02  # between the centres of models 1 in across


def _disc_of(count: int) -> list[tuple[float, float]]:
    """`count` grid points SPACING apart, nearest the origin first: a unit in coherency."""
    grid = [(SPACING * i, SPACING * j) for i in range(-6, 7) for j in range(-6, 7)]
    return sorted(grid, key=lambda p: (math.hypot(*p), p))[:count]


def _ring(cx: float, cy: float, radius, vertices: int) -> list[list[float]]:
    """A near-circle (or near-ellipse, radius (rx, ry)) of `vertices` vertices."""
    rx, ry = radius if isinstance(radius, tuple) else (radius, radius)
    return [
        [
            round(cx + rx * math.cos(2 * math.pi * k / vertices), 4),
            round(cy + ry * math.sin(2 * math.pi * k / vertices), 4),
        ]
        for k in range(vertices)
    ]


def worst_document(
    models: int = 600, hull_vertices: int = 60, terrain: int = 200, terrain_vertices: int = 100
) -> dict:
    pieces = [
        {
            "id": f"t{i}",
            "type": "building",
            "category": "dense",
            "height": 5,
            "solid": True,
            "footprint": _ring(5 + 10 * (i % 20), 7 + 14 * (i // 20), 2.0, terrain_vertices),
        }
        for i in range(terrain)
    ]
    if pieces:  # the first piece: a wall across the first unit's lane, which it must go round
        pieces[0]["footprint"] = _ring(40.0, 14.0, (0.5, 3.5), terrain_vertices)
    # a base 1 in across: a hull in table units, or (no hull vertices) a round 25 mm base
    base = {"hull": _ring(0, 0, 0.5, hull_vertices)} if hull_vertices else {"round": 25}
    units = []
    left = models
    u = 0
    while left > 0:
        count = min(PER_UNIT, left)
        left -= count
        centre = (30.0, 14.0 + 14 * u)  # the lanes between the rows of terrain
        units.append(
            {
                "id": f"u{u}",
                "army": "red" if u % 2 == 0 else "blue",
                "name": f"Unit {u}",
                "keywords": ["INFANTRY"],
                "move": 20 if u == 0 else 6,  # the first unit moves past the wall
                "models": [
                    {
                        "id": f"u{u}m{k}",
                        "base": base,
                        "x": round(centre[0] + x, 4),
                        "y": round(centre[1] + y, 4),
                    }
                    for k, (x, y) in enumerate(_disc_of(count))
                ],
            }
        )
        u += 1
    return {
        "format": "arbiter.scenario/1",
        "system": "wh40k-11e",
        "name": "Worst case",
        "table": {"width": WORST_WIDTH, "height": WORST_HEIGHT},
        "terrain": pieces,
        "armies": [{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}],
        "units": units,
        "turn": {"round": 1, "active_army": "red", "phase": "movement"},
    }


def worst_move(doc: dict, dx: float = 17.0) -> dict:
    """The first unit's normal move, every model `dx` in along its lane: past the wall, round
    it (a path graph for every model whose straight line the wall blocks)."""
    unit = doc["units"][0]
    return {
        "format": "arbiter.move/1",
        "unit": unit["id"],
        "type": "normal",
        "end": {m["id"]: {"x": m["x"] + dx, "y": m["y"]} for m in unit["models"]},
    }
