"""RULES.md 1.5 and 1.6 as a property over random 3-D tables: a ruin with a wall and an upper
floor (sometimes a second one, lower, over its other half), the surge target standing on that
floor (or beside it), the surging unit on the ground.
The engine's surge suggestion is always judged legal: adjudicate(suggest(x)) never fails."""

import math

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rules import Move, Situation, adjudicate, suggest
from rules.wh40k.measuring import engaged_enemy_units

from .test_surge_property import surge_move


@st.composite
def tables(draw):
    cx, cy = draw(st.floats(14, 46)), draw(st.floats(12, 32))
    floor_z = draw(st.sampled_from([3.0, 6.0]))
    ruin = {
        "id": "ruin",
        "type": "ruin",
        "category": "dense",
        "height": 6,
        "footprint": [[cx - 3, cy - 3], [cx + 3, cy - 3], [cx + 3, cy + 3], [cx - 3, cy + 3]],
        "walls": [{"path": [[cx - 3, cy - 2.875], [cx + 3, cy - 2.875]], "height": 6}],
        "floors": [
            {
                "footprint": [[cx - 3, cy - 3], [cx + 3, cy - 3], [cx + 3, cy], [cx - 3, cy]],
                "height": floor_z,
            }
        ],
    }
    if floor_z == 6.0 and draw(st.booleans()):
        # a 3" floor over the other half: a model that cannot engage the target 6" up may get
        # nearer it there than anywhere on the ground (RULES.md 1.5: every level is weighed)
        ruin["floors"].append(
            {
                "footprint": [[cx - 3, cy], [cx + 3, cy], [cx + 3, cy + 3], [cx - 3, cy + 3]],
                "height": 3.0,
            }
        )
    c_n = draw(st.integers(1, 3))
    on_floor = draw(st.booleans())
    c_models = [
        {
            "id": f"C{i + 1}",
            "base": {"round": 32},
            "x": cx - 1.5 + 1.4 * i,
            "y": cy - 1.5,
            **({"z": floor_z} if on_floor else {}),
        }
        for i in range(c_n)
    ]
    n = draw(st.integers(1, 4))
    side = draw(st.sampled_from([-1, 1]))
    gap = draw(st.floats(1.5, 6))
    bx, by = cx + side * (3 + gap), cy - 2 + draw(st.floats(-2, 3))
    b_models = [
        {
            "id": f"B{i + 1}",
            "base": {"round": 32},
            "x": bx + side * 1.4 * (i % 2),
            "y": by + 1.4 * (i // 2),
        }
        for i in range(n)
    ]
    doc = {
        "format": "arbiter.scenario/1",
        "system": "wh40k-11e",
        "table": {"width": 60, "height": 44},
        "terrain": [ruin],
        "armies": [{"id": "red"}, {"id": "blue"}],
        "units": [
            {
                "id": "B",
                "army": "red",
                "keywords": ["INFANTRY"],
                "move": 6,
                "models": b_models,
                "abilities": [
                    {
                        "id": "surge",
                        "kind": "surge",
                        "trigger": "models-hit-by-shooting",
                        "distance": "D6+2",
                    }
                ],
            },
            {"id": "C", "army": "blue", "keywords": ["INFANTRY"], "move": 6, "models": c_models},
            {
                "id": "A",
                "army": "blue",
                "keywords": ["INFANTRY"],
                "move": 6,
                "models": [{"id": "A1", "base": {"round": 32}, "x": 58.0, "y": 42.0}],
            },
        ],
        "turn": {"round": 1, "active_army": "blue", "phase": "shooting"},
    }
    return doc, draw(st.integers(1, 6))


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(tables())
def test_the_suggested_surge_on_a_3d_table_is_legal(case):
    doc, roll = case
    try:
        s = Situation.from_document(doc)
    except Exception:
        assume(False)
    assume(not engaged_enemy_units(s, s.unit("B")))
    suggested = suggest(s, surge_move(roll))
    verdict = adjudicate(s, suggested)
    assume(verdict.move.get("target") == "C")
    assert verdict.legal, [f.text for f in verdict.failures]


@st.composite
def low_wall_tables(draw):
    """RULES.md 1.5 (last bullet): a dense wall 2.1-3" tall across the table at x = 30, which a
    MONSTER or VEHICLE unit on the left climbs (up and down counted) to reach its target on the
    right; the wall is sometimes broken by a gap the unit could drive through instead."""
    height = draw(st.floats(2.1, 3.0))
    walls = [{"path": [[30, 1], [30, 43]], "height": height}]
    if draw(st.booleans()):
        gap_y = draw(st.floats(8, 32))
        walls = [
            {"path": [[30, 1], [30, gap_y]], "height": height},
            {"path": [[30, gap_y + 4], [30, 43]], "height": height},
        ]
    ruin = {
        "id": "wall",
        "type": "ruin",
        "category": "dense",
        "height": height,
        "footprint": [[29, 0.5], [31, 0.5], [31, 43.5], [29, 43.5]],
        "walls": walls,
    }
    keyword = draw(st.sampled_from(["MONSTER", "VEHICLE"]))
    base = draw(st.sampled_from([32, 60]))
    r = base / 2 / 25.4
    n = draw(st.sampled_from([1, 1, 2, 3]))
    bx, by = 29 - r - draw(st.floats(0.2, 2.5)), draw(st.floats(10, 30))
    b_models = [
        {"id": f"B{i + 1}", "base": {"round": base}, "x": bx, "y": by + (2 * r + 0.3) * i}
        for i in range(n)
    ]
    cx, cy = 31 + draw(st.floats(3, 6)), by + draw(st.floats(-4, 4))
    c_models = [
        {"id": f"C{i + 1}", "base": {"round": 32}, "x": cx, "y": cy + 1.4 * i}
        for i in range(draw(st.integers(1, 3)))
    ]
    distance = draw(st.sampled_from([10, 12, "D6+2"]))
    doc = {
        "format": "arbiter.scenario/1",
        "system": "wh40k-11e",
        "table": {"width": 60, "height": 44},
        "terrain": [ruin],
        "armies": [{"id": "red"}, {"id": "blue"}],
        "units": [
            {
                "id": "B",
                "army": "red",
                "keywords": [keyword],
                "move": 8,
                "models": b_models,
                "abilities": [
                    {
                        "id": "surge",
                        "kind": "surge",
                        "trigger": "models-hit-by-shooting",
                        "distance": distance,
                    }
                ],
            },
            {"id": "C", "army": "blue", "keywords": ["INFANTRY"], "move": 6, "models": c_models},
            {
                "id": "A",
                "army": "blue",
                "keywords": ["INFANTRY"],
                "move": 6,
                "models": [{"id": "A1", "base": {"round": 32}, "x": 58.0, "y": 42.0}],
            },
        ],
        "turn": {"round": 1, "active_army": "blue", "phase": "shooting"},
    }
    return doc, draw(st.integers(1, 6)) if isinstance(distance, str) else None


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(low_wall_tables())
def test_the_suggested_surge_over_a_low_wall_is_legal(case):
    doc, roll = case
    try:
        s = Situation.from_document(doc)
    except Exception:
        assume(False)
    assume(not engaged_enemy_units(s, s.unit("B")))
    trigger = {"event": "shot", "by": "A", "hits": 1}
    move = Move.from_document(
        {
            "unit": "B",
            "type": "surge",
            **({"dice": [roll]} if roll else {}),
            "declarations": {"trigger": trigger},
        },
        "wh40k-11e",
    )
    suggested = suggest(s, move)
    verdict = adjudicate(s, suggested)
    assume(verdict.move.get("target") == "C")
    assert verdict.legal, [f.text for f in verdict.failures]
    b_models = s.unit("B").models
    if len(b_models) == 1:
        # Worked by hand: straight at a target model over the wall to 1.9" from it costs the
        # way there plus the climb up and down; where that is within the move (and the spot
        # clears the wall and the other target models), the suggestion must end engaged.
        b, height = b_models[0], doc["terrain"][0]["height"]
        most = verdict.move["max_distance"]
        targets = s.unit("C").models
        for t in targets:
            d = math.hypot(t.x - b.x, t.y - b.y)
            along = d - (b.base.radius + t.base.radius + 1.9)
            x = b.x + (t.x - b.x) * along / d
            y = b.y + (t.y - b.y) * along / d
            clear = all(
                math.hypot(o.x - x, o.y - y) > b.base.radius + o.base.radius + 0.01 for o in targets
            )
            if clear and x > 30.125 + b.base.radius + 0.01 and along + 2 * height < most - 0.01:
                assert verdict.models[b.id]["engaged_with"] == ["C"], (x, y, along)
                break
