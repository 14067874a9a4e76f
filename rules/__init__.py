"""Arbiter's rules engine: a pure library (stdlib + shapely, never Django).

    >>> from rules import Situation, Move, adjudicate
    >>> scenario = {"format": "arbiter.scenario/1", "system": "wh40k-11e", "name": "One squad",
    ...     "table": {"width": 60, "height": 44}, "terrain": [],
    ...     "armies": [{"id": "red", "name": "Red"}],
    ...     "units": [{"id": "A", "army": "red", "name": "Intercessors", "keywords": ["INFANTRY"],
    ...                "move": 6,
    ...                "models": [{"id": "A1", "base": {"round": 32}, "x": 10, "y": 10}]}],
    ...     "turn": {"round": 1, "active_army": "red", "phase": "movement"}}
    >>> move = {"format": "arbiter.move/1", "unit": "A", "type": "normal",
    ...         "end": {"A1": {"x": 14, "y": 10}}}
    >>> verdict = adjudicate(Situation.from_document(scenario), Move.from_document(move))
    >>> verdict.legal, verdict.models["A1"]["distance_moved"]
    (True, 4.0)
    >>> move["end"]["A1"]["x"] = 17  # 7" is more than its Move of 6"
    >>> verdict = adjudicate(Situation.from_document(scenario), Move.from_document(move))
    >>> verdict.legal, [f.rule for f in verdict.failures]
    (False, ['09.05'])

Importing the package registers every move type the engine covers.
"""

import os

# Judging uses no threaded linear algebra, but OpenBLAS (loaded with numpy, through shapely)
# starts a pool of threads that spin on every core: ~90 ms of CPU per `python -m rules` on two
# cores, and CPU taken from the web app's requests. One thread, unless the host says otherwise
# (it must be set before numpy loads; once numpy is loaded this changes nothing).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from . import warmaster, wh40k  # noqa: E402, F401  (registers move rules)
from .errors import InvalidInput
from .move import Move, Pose
from .situation import Model, Situation, TerrainFeature, Unit
from .systems import SYSTEMS, adjudicate, move_options, reach, suggest
from .verdict import Finding, Verdict

__all__ = [
    "SYSTEMS",
    "Finding",
    "InvalidInput",
    "Model",
    "Move",
    "Pose",
    "Situation",
    "TerrainFeature",
    "Unit",
    "Verdict",
    "adjudicate",
    "move_options",
    "reach",
    "suggest",
]
