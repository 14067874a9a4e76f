"""Odd but valid input never crashes the 40K engine, and its verdicts stay plain JSON: oval and
hull bases at any facing, models above the table, empty or solid terrain, models at the table
edge, every move type, judged as given or as the engine suggests (RULES.md 1.1-1.7)."""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import InvalidInput, adjudicate, suggest

from .scenarios import model, move, rect, situation, terrain, unit

BASES = st.sampled_from(
    [
        {"round": 32},
        {"round": 160},
        {"oval": [95, 150]},
        {"oval": [25, 75]},
        {"hull": [[-2, -1], [2, -1], [2, 1], [-2, 1]]},
        {"hull": [[-1, -1], [1, -1], [0, 0], [1, 1], [-1, 1]]},  # concave
    ]
)
TERRAIN = st.sampled_from(
    [
        [],
        [terrain("R", rect(20, 10, 26, 20))],
        [terrain("S", rect(20, 10, 26, 20), category="exposed", solid=True)],
    ]
)
SURGE = [{"id": "s", "kind": "surge", "trigger": "models-hit-by-shooting", "distance": "D6"}]


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    base=BASES,
    enemy_base=BASES,
    at=st.tuples(st.floats(0, 60), st.floats(0, 44)),
    enemy_at=st.tuples(st.floats(0, 60), st.floats(0, 44)),
    to=st.tuples(st.floats(-3, 63), st.floats(-3, 47)),
    z=st.sampled_from([0, 0, 3, 6]),
    mate_z=st.sampled_from([0, 6]),
    facing=st.floats(0, 360),
    move_type=st.sampled_from(["normal", "advance", "fall-back", "charge", "surge"]),
    keywords=st.sampled_from([("INFANTRY",), ("VEHICLE",), ("MONSTER", "FLY")]),
    pieces=TERRAIN,
    skies=st.booleans(),
    suggested=st.booleans(),
)
def test_odd_but_valid_moves_are_judged_without_crashing_and_give_plain_json(
    base,
    enemy_base,
    at,
    enemy_at,
    to,
    z,
    mate_z,
    facing,
    move_type,
    keywords,
    pieces,
    skies,
    suggested,
):
    try:
        s = situation(
            [
                unit(
                    "A",
                    "red",
                    [
                        model("A1", *at, base=base, z=z, facing=facing),
                        # a unit mate 6" up is out of coherency vertically
                        model("A2", at[0], at[1] + 4, z=mate_z),
                    ],
                    keywords=keywords,
                    abilities=SURGE,
                ),
                unit("E", "blue", [model("E1", *enemy_at, base=enemy_base)]),
            ],
            pieces,
        )
    except InvalidInput:
        return  # a model off the table, say: refused when the scenario is read
    declarations = {}
    if move_type == "charge":
        declarations["charge_targets"] = ["E"]
    if move_type == "surge":
        declarations["trigger"] = {"event": "shot", "by": "E", "hits": 1}
    elif skies:
        declarations["take_to_the_skies"] = True
    dice = {"advance": [3], "charge": [4, 5], "surge": [4]}.get(move_type)
    end = None if suggested else {"A1": {"x": to[0], "y": to[1], "facing": facing}}
    proposal = move("A", move_type, end, dice=dice, **declarations)
    if suggested and move_type in ("charge", "surge"):
        proposal = suggest(s, proposal)
    try:
        verdict = adjudicate(s, proposal)
    except InvalidInput:
        return  # e.g. a normal move with no end: the player must say where
    json.dumps([f.as_dict() for f in verdict.findings], allow_nan=False)
    json.dumps(verdict.models, allow_nan=False)
    assert verdict.findings
