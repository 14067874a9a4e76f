"""Arbiter's rules engine: a pure library (stdlib + shapely, never Django).

    >>> from rules import Situation, Move, adjudicate
    >>> verdict = adjudicate(Situation.from_document(scenario), Move.from_document(move))
    >>> verdict.legal, [f.rule for f in verdict.failures]

Importing the package registers every move type the engine covers.
"""

from . import warmaster, wh40k  # noqa: F401  (registers move rules)
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
