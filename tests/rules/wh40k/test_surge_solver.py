"""The surge solver's building blocks (rules/wh40k/surge_solver.py)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.geometry import Base
from rules.situation import Model
from rules.wh40k.measuring import coherency
from rules.wh40k.surge_solver import disc, disc_around, inner_radius, joins_in_coherency

BASE = Base.from_document({"round": 32}, 25.4)


def placed(i, x, y, z=0.0):
    return Model(f"M{i}", "B", BASE, x, y, z)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 12), st.floats(0, 12), st.sampled_from([0.0, 0.0, 3.0, 6.0])),
                min_size=2, max_size=8))
def test_adding_one_model_to_its_mates_is_coherent_exactly_when_the_whole_unit_is(points):
    models = [placed(i, x, y, z) for i, (x, y, z) in enumerate(points)]
    *mates, last = models
    assert joins_in_coherency(last, mates, coherency(mates)) == coherency(models).ok


def test_keep_out_discs_contain_the_circle_and_must_be_inside_discs_lie_within_it():
    # a 128-gon inscribed in a 3" circle reaches 3" at its corners and 3 cos(pi/128) between them
    inner, outer = disc(0, 0, 3.0), disc_around(0, 0, 3.0)
    assert 2.999 < inner.exterior.distance(type(inner.centroid)(0, 0)) <= 3.0
    assert 3.0 <= outer.exterior.distance(type(outer.centroid)(0, 0)) < 3.001


def test_the_inner_radius_of_an_oval_is_half_its_width():
    oval = Base.from_document({"oval": [60, 35]}, 25.4)
    assert abs(inner_radius(oval) - 35 / 2 / 25.4) < 1e-9
