"""Small documents (FORMAT.md shapes) for the engine's docstring examples.

>>> one_squad_and_a_target()["units"][0]["name"]
'Intercessors'
"""

from typing import Any


def one_squad_and_a_target(phase: str = "movement") -> dict[str, Any]:
    """A 40K table with one Intercessor (A1) at (10, 10) and one enemy Ork Boy (B1) 8" away."""
    return {
        "format": "arbiter.scenario/1",
        "system": "wh40k-11e",
        "name": "One squad and a target",
        "table": {"width": 60, "height": 44},
        "terrain": [],
        "armies": [{"id": "red", "name": "Ultramarines"}, {"id": "blue", "name": "Orks"}],
        "units": [
            {
                "id": "A",
                "army": "red",
                "name": "Intercessors",
                "keywords": ["INFANTRY"],
                "move": 6,
                "models": [{"id": "A1", "base": {"round": 32}, "x": 10, "y": 10}],
            },
            {
                "id": "B",
                "army": "blue",
                "name": "Boyz",
                "keywords": ["INFANTRY"],
                "move": 6,
                "models": [{"id": "B1", "base": {"round": 32}, "x": 18, "y": 10}],
            },
        ],
        "turn": {"round": 1, "active_army": "red", "phase": phase},
    }
