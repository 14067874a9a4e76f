"""Measuring (RULES.md 1.1, 1.2): distances, engagement range and coherency."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.geometry import Base
from rules.situation import Model
from rules.wh40k.measuring import (
    ENGAGEMENT_RANGE,
    coherency,
    engaged_enemy_units,
    in_engagement_range,
    model_distance,
    unit_distance,
)

from .scenarios import MM, R32, model, situation, unit


def two_models(dx, dz=0.0, base_b=32):
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10, z=None)]),
            unit("E", "blue", [model("E1", 10 + dx, 10, base=base_b, z=dz or None)]),
        ],
        [
            {
                "id": "floor",
                "type": "ruin",
                "category": "dense",
                "height": 10,
                "solid": False,
                "footprint": [[5, 5], [40, 5], [40, 20], [5, 20]],
            }
        ],
    )
    return s, s.model("A1"), s.model("E1")


def test_distance_between_round_bases_is_edge_to_edge_and_straight_uses_pythagoras():
    # centres 5" apart, two 32 mm bases: h = 5 - 2 * 0.629921 = 3.740157"; z 3": straight = hypot
    _, a, b = two_models(5.0, dz=3.0)
    d = model_distance(a, b)
    assert math.isclose(d.horizontal, 5 - 2 * R32, abs_tol=1e-9)
    assert d.vertical == 3.0
    assert math.isclose(d.straight, math.hypot(5 - 2 * R32, 3.0), abs_tol=1e-9)


def test_engagement_range_exactly_2_inches_holds_and_2_01_does_not():
    # centre gap = 2 + 2r gives h = 2.00" exactly; 0.01" further gives 2.01"
    _, a, b = two_models(2 + 2 * R32)
    assert in_engagement_range(a, b)
    _, a, b = two_models(2.01 + 2 * R32)
    assert not in_engagement_range(a, b)


def test_engagement_range_vertical_limit_is_5_inches():
    # touching horizontally (h = 0.5"), 5" up: in range; 5.01" up: not
    _, a, b = two_models(0.5 + 2 * R32, dz=5.0)
    assert in_engagement_range(a, b)
    _, a, b = two_models(0.5 + 2 * R32, dz=5.01)
    assert not in_engagement_range(a, b)
    assert ENGAGEMENT_RANGE.horizontal == 2.0 and ENGAGEMENT_RANGE.vertical == 5.0


def test_engaged_enemy_units_lists_enemies_in_range_and_honours_proposed_placements():
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10), model("A2", 11.5, 10)]),
            unit("F", "red", [model("F1", 12, 12)]),
            unit("E", "blue", [model("E1", 14, 10)]),
            unit("G", "blue", [model("G1", 30, 30)]),
        ]
    )
    a = s.unit("A")
    # A2 to E1: 2.5 - 1.26 = 1.24" -> engaged; G far away; F is a friend
    assert engaged_enemy_units(s, a) == ("E",)
    moved = s.model("A2").placed(25, 25)
    # A2 at (25,25) to G1 at (30,30): 7.07 - 1.26 = 5.81": not engaged; A1 to E1: 4 - 1.26 = 2.74"
    assert engaged_enemy_units(s, a, {"A2": moved}) == ()


def test_unit_distance_is_the_least_over_model_pairs():
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10), model("A2", 12, 10)]),
            unit("E", "blue", [model("E1", 20, 10), model("E2", 30, 10)]),
        ]
    )
    # closest pair A2-E1: 8 - 1.259843 = 6.740157"
    assert math.isclose(unit_distance(s.unit("A"), s.unit("E")), 8 - 2 * R32, abs_tol=1e-9)


def test_a_unit_in_a_line_of_two_inch_links_is_in_coherency():
    # gaps 2" exactly between neighbours: centres 2 + 2r apart
    step = 2 + 2 * R32
    models = (
        situation([unit("A", "red", [model(f"A{i}", 5 + i * step, 10) for i in range(3)])])
        .unit("A")
        .models
    )
    assert coherency(models).ok


def test_a_unit_left_in_two_groups_breaks_coherency():
    # A0-A1 touch (1.5" centres) and A2-A3 touch; 5" gap between the pairs (> 2")
    xs = [5, 6.5, 6.5 + 5 + 2 * R32, 8 + 5 + 2 * R32]
    models = (
        situation([unit("A", "red", [model(f"A{i}", x, 10) for i, x in enumerate(xs)])])
        .unit("A")
        .models
    )
    c = coherency(models)
    assert not c.ok and c.split and not c.isolated
    assert c.groups == (("A0", "A1"), ("A2", "A3"))


def test_a_model_alone_more_than_two_inches_away_is_isolated():
    xs = [5, 6.5, 6.5 + 2.01 + 2 * R32]  # third model 2.01" from the second
    models = (
        situation([unit("A", "red", [model(f"A{i}", x, 10) for i, x in enumerate(xs)])])
        .unit("A")
        .models
    )
    c = coherency(models)
    assert c.isolated == ("A2",)


def test_models_more_than_nine_inches_apart_break_coherency_even_when_linked():
    # 7 models in a chain with 1.99" gaps: ends are 6 * (1.99 + 1.26) - 1.26 = 18.24" apart
    step = 1.99 + 2 * R32
    models = (
        situation([unit("A", "red", [model(f"A{i}", 5 + i * step, 10) for i in range(7)])])
        .unit("A")
        .models
    )
    c = coherency(models)
    assert not c.isolated and not c.split
    assert ("A0", "A6") in c.too_far and not c.ok


@settings(max_examples=60, deadline=None)
@given(
    st.floats(0, 60),
    st.floats(0, 44),
    st.floats(0, 60),
    st.floats(0, 44),
    st.floats(0, 6),
    st.sampled_from([{"round": 32}, {"oval": [60, 35]}, {"round": 60}]),
    st.floats(0, 360),
)
def test_distance_is_symmetric_and_never_negative(x1, y1, x2, y2, z, base, facing):
    a = Model("A1", "A", Base.from_document({"round": 32}, MM), x1, y1)
    b = Model("B1", "B", Base.from_document(base, MM), x2, y2, z, facing)
    ab, ba = model_distance(a, b), model_distance(b, a)
    assert ab.horizontal >= 0 and ab.straight >= ab.horizontal
    assert math.isclose(ab.straight, ba.straight, abs_tol=1e-9)
