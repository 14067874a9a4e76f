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


# -- ovals are measured from the true ellipse (RULES.md 0: within D is D + 1e-6; 1.1) -----------
# A 150 x 95 mm oval (a Carnifex-sized base): half axes 2.9528" and 1.8701". Its drawn outline is
# a polygon round the curve, up to 0.004" too large; distances are taken from the curve itself.
BIG_OVAL = Base("oval", (150 / MM, 95 / MM))
A_HALF, B_HALF = 75 / MM, 47.5 / MM


def on_oval(cx, cy, facing, t, a=A_HALF, b=B_HALF):
    """The point of the oval's curve at parameter t and its outward unit normal (table frame)."""
    phi = math.radians(facing)
    x, y = a * math.cos(t), b * math.sin(t)
    nx, ny = math.cos(t) / a, math.sin(t) / b
    n = math.hypot(nx, ny)
    nx, ny = nx / n, ny / n
    c, s = math.cos(phi), math.sin(phi)
    return (cx + c * x - s * y, cy + s * x + c * y), (c * nx - s * ny, s * nx + c * ny)


def oval_model(mid, x, y, facing):
    return Model(mid, "O", BIG_OVAL, x, y, 0.0, facing)


def round_model(mid, x, y, diameter_mm=32):
    return Model(mid, "E", Base("round", (diameter_mm / MM,)), x, y, 0.0, 0.0)


@settings(max_examples=60, deadline=None)
@given(
    t=st.floats(0, 2 * math.pi),
    facing=st.floats(0, 360),
    gap=st.floats(0.0005, 4.0),
)
def test_a_round_base_off_an_ovals_curve_measures_its_true_gap(t, facing, gap):
    (px, py), (nx, ny) = on_oval(20, 20, facing, t)
    r = 16 / MM
    e = round_model("E1", px + nx * (gap + r), py + ny * (gap + r))
    assert math.isclose(
        model_distance(oval_model("O1", 20, 20, facing), e).horizontal, gap, abs_tol=1e-9
    )


def test_a_round_base_2_002_inches_off_an_ovals_side_at_an_angle_is_not_engaged():
    # on the outward normal at parameter 45 degrees, where the drawn polygon bulges most
    (px, py), (nx, ny) = on_oval(15, 20, 0, math.radians(45))
    r = 16 / MM
    o = oval_model("O1", 15, 20, 0)
    assert not in_engagement_range(
        o, round_model("E1", px + nx * (2.002 + r), py + ny * (2.002 + r))
    )
    assert in_engagement_range(o, round_model("E1", px + nx * (2.0 + r), py + ny * (2.0 + r)))


def test_two_ovals_tip_to_tip_2_004_inches_apart_are_not_in_coherency():
    a, b = oval_model("V1", 20, 30, 0), oval_model("V2", 20 + 2 * A_HALF + 2.004, 30, 0)
    assert math.isclose(model_distance(a, b).horizontal, 2.004, abs_tol=1e-9)
    assert not coherency([a, b]).ok
    assert coherency([a, oval_model("V2", 20 + 2 * A_HALF + 2.0, 30, 0)]).ok


@settings(max_examples=60, deadline=None)
@given(
    t=st.floats(0, 2 * math.pi),
    s=st.floats(0, 2 * math.pi),
    facing=st.floats(0, 360),
    gap=st.floats(0.001, 3.0),
)
def test_two_ovals_measure_the_length_of_their_common_normal(t, s, facing, gap):
    # B is turned so that its normal at parameter s points back along A's normal at t: the two
    # curves then have parallel tangent lines `gap` apart, which separate them
    (px, py), (nx, ny) = on_oval(20, 20, facing, t)
    local_normal = math.atan2(math.sin(s) / B_HALF, math.cos(s) / A_HALF)
    facing_b = math.degrees(math.atan2(-ny, -nx) - local_normal)
    (qx, qy), _ = on_oval(0, 0, facing_b, s)
    b = oval_model("B1", px + nx * gap - qx, py + ny * gap - qy, facing_b)
    assert math.isclose(
        model_distance(oval_model("A1", 20, 20, facing), b).horizontal, gap, abs_tol=1e-9
    )


@settings(max_examples=60, deadline=None)
@given(t=st.floats(0, 2 * math.pi), facing=st.floats(0, 360), gap=st.floats(0.001, 3.0))
def test_an_oval_and_a_hull_measure_the_gap_between_curve_and_edge(t, facing, gap):
    # a 4 x 2" rectangle whose long edge's middle sits `gap` out along the oval's normal at t
    (px, py), (nx, ny) = on_oval(20, 20, facing, t)
    hull_facing = math.degrees(math.atan2(ny, nx))  # depth along the normal
    rect = Base("rect", (4.0, 2.0))  # frontage 4 across the normal, depth 2 along it
    cx, cy = px + nx * (gap + 1.0), py + ny * (gap + 1.0)
    other = Model("R1", "R", rect, cx, cy, 0.0, hull_facing)
    assert math.isclose(
        model_distance(oval_model("A1", 20, 20, facing), other).horizontal, gap, abs_tol=1e-9
    )


def test_ovals_that_overlap_or_touch_measure_zero():
    a = oval_model("A1", 20, 20, 0)
    assert model_distance(a, oval_model("B1", 20 + 2 * A_HALF - 0.001, 20, 0)).horizontal == 0
    assert model_distance(a, oval_model("B1", 21, 20.5, 30)).horizontal == 0  # centre inside
    assert model_distance(a, round_model("E1", 20, 20, 25)).horizontal == 0  # inside the oval


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=0, max_value=10**6),
    st.integers(min_value=1, max_value=12),
    st.integers(min_value=1, max_value=12),
)
def test_the_unit_distance_of_many_pairs_is_the_least_pair_measured_exactly(seed, n, m):
    # From 64 pairs on, unit_distance measures only the pairs whose enclosing circles could
    # beat the least found (issue 16): the same number as measuring every pair, for round,
    # oval, rect and hull bases at several heights, near and far.
    import random

    rng = random.Random(seed)
    kinds = [
        {"round": 32},
        {"round": 60},
        {"oval": [90, 52]},
        {"rect": [60, 35]},
        {"hull": [[-2.5, -1.4], [2.5, -1.4], [2.5, 1.4], [-2.5, 1.4]]},
    ]

    def placed(uid, count, x0):
        return [
            Model(
                f"{uid}{k}",
                uid,
                Base.from_document(rng.choice(kinds), MM),
                x0 + rng.uniform(0, 8),
                rng.uniform(0, 10),
                rng.choice([0.0, 0.0, 3.0]),
                rng.uniform(0, 360),
            )
            for k in range(count)
        ]

    a, b = placed("A", n, 0.0), placed("B", m, rng.uniform(2, 14))
    every = min(model_distance(p, q).straight for p in a for q in b)
    assert unit_distance(a, b) == every
