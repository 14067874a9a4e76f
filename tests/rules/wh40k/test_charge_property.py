"""RULES.md 1.4 as a property over random tables with an impassable block (1.5) between a unit
and its charge target: the engine's charge suggestion, judged as the API judges it, is legal, or
else fails only because no model reached the target (the path round the block can be longer
than the roll although the target is within it as the crow flies); and no simple alternative
engages more models: the suggestion with one of its unengaged models moved, the others where
they are, to a spot 1.5" from a target model, is refused or engages no more.
"""

import math

from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from rules import Move, Pose, Situation, adjudicate, suggest
from rules.wh40k.measuring import unit_distance

R = 16 / 25.4  # a 32 mm base


@st.composite
def boards(draw):
    n = draw(st.integers(2, 5))
    x0, y0 = 10.0, draw(st.floats(12, 24))
    attackers = [
        {"id": f"A{i + 1}", "base": {"round": 32}, "x": x0 + 1.4 * (i % 2), "y": y0 + 1.4 * i}
        for i in range(n)
    ]
    ex, ey = draw(st.floats(18, 21)), y0 + draw(st.floats(-3, 3))
    targets = [
        {"id": f"E{i + 1}", "base": {"round": 32}, "x": ex, "y": ey + 1.4 * i}
        for i in range(draw(st.integers(1, 3)))
    ]
    # the block between them, its ends at random heights
    bx = draw(st.floats(13.2, 15.5))
    top, bottom = y0 - draw(st.floats(0, 5)), y0 + 1.4 * n + draw(st.floats(0, 5))
    block = [[bx, top], [bx + 1.5, top], [bx + 1.5, bottom], [bx, bottom]]
    doc = {
        "format": "arbiter.scenario/1",
        "system": "wh40k-11e",
        "table": {"width": 60, "height": 44},
        "terrain": [
            {
                "id": "K",
                "type": "building",
                "category": "dense",
                "height": 5,
                "solid": True,
                "footprint": block,
            }
        ],
        "armies": [{"id": "red"}, {"id": "blue"}],
        "units": [
            {"id": "A", "army": "red", "keywords": ["INFANTRY"], "move": 6, "models": attackers},
            {"id": "E", "army": "blue", "keywords": ["INFANTRY"], "move": 6, "models": targets},
        ],
        "turn": {"round": 2, "active_army": "red", "phase": "charge"},
    }
    return doc, [draw(st.integers(3, 6)), draw(st.integers(3, 6))]


def judged(s, move):
    """The verdict the API gives: the move read back from its document, then `adjudicate`."""
    return adjudicate(s, Move.from_document(move.to_document(), s.system))


def engaged(verdict):
    return sum(bool(m["engaged_with"]) for m in verdict.models.values())


@settings(
    max_examples=10,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # shrinking judges hundreds of moves
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(boards())
def test_the_suggested_charge_is_legal_and_no_model_moved_alone_engages_more(case):
    doc, dice = case
    s = Situation.from_document(doc)
    unit, target = s.unit("A"), s.unit("E")
    assume(unit_distance(unit, target) <= sum(dice) - 0.5)  # a target the roll lets them pick
    charge = Move.from_document(
        {"unit": "A", "type": "charge", "dice": dice, "declarations": {"charge_targets": ["E"]}},
        s.system,
    )
    placed = suggest(s, charge)
    verdict = judged(s, placed)
    failed = {(f.rule, f.stage) for f in verdict.failures}
    # 11.04 after moving: the charge fails when nobody can reach the target, nothing else
    assert failed <= {("11.04", "after-moving")}, [f.text for f in verdict.failures]

    # one unengaged model moved alone, to spots 1.5" from a target model, nearest first
    for mid, result in verdict.models.items():
        if result["engaged_with"]:
            continue
        start = unit.model(mid)
        spots = [
            (t.x + (2 * R + 1.5) * math.cos(a), t.y + (2 * R + 1.5) * math.sin(a))
            for t in target.models
            for a in (2 * math.pi * k / 16 for k in range(16))
        ]
        spots.sort(key=lambda p: math.hypot(p[0] - start.x, p[1] - start.y))
        for x, y in spots[:2]:
            other = judged(s, placed.with_end({**placed.end, mid: Pose(x, y)}))
            assert not other.legal or engaged(other) <= engaged(verdict), (mid, x, y)
