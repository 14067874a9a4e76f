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
@given(
    st.lists(
        st.tuples(st.floats(0, 12), st.floats(0, 12), st.sampled_from([0.0, 0.0, 3.0, 6.0])),
        min_size=2,
        max_size=8,
    )
)
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


def five_before_two():
    """B: five models in a line at y = 20 (x 20 to 26); C: two models 6" ahead at x 23 and 25."""
    from rules import Situation

    def model(mid, x, y):
        return {"id": mid, "base": {"round": 32}, "x": x, "y": y}

    return Situation.from_document(
        {
            "format": "arbiter.scenario/1",
            "system": "wh40k-11e",
            "table": {"width": 60, "height": 44},
            "terrain": [],
            "armies": [{"id": "red"}, {"id": "blue"}],
            "units": [
                {
                    "id": "B",
                    "army": "red",
                    "keywords": ["INFANTRY"],
                    "abilities": [
                        {
                            "id": "s",
                            "kind": "surge",
                            "trigger": "models-hit-by-shooting",
                            "distance": "D6",
                        }
                    ],
                    "models": [model(f"B{i}", 20 + 1.5 * i, 20) for i in range(5)],
                },
                {
                    "id": "C",
                    "army": "blue",
                    "models": [model("C1", 23.0, 26.0), model("C2", 25.0, 26.0)],
                },
                {"id": "A", "army": "blue", "models": [model("A1", 50.0, 40.0)]},
            ],
            "turn": {"round": 1, "active_army": "blue", "phase": "shooting"},
        }
    )


def surge_4():
    from rules import Move

    return Move.from_document(
        {
            "unit": "B",
            "type": "surge",
            "dice": [4],
            "declarations": {"trigger": {"event": "shot", "by": "A", "hits": 2}},
        },
        "wh40k-11e",
    )


def test_the_suggestion_gets_all_five_models_engaged_when_there_is_room():
    from rules import adjudicate

    verdict = adjudicate(five_before_two(), surge_4())
    assert verdict.legal
    assert all(r["engaged_with"] == ["C"] for r in verdict.models.values())


def test_when_the_greedy_pass_fails_the_slid_unit_is_improved_into_a_legal_placement(monkeypatch):
    from rules import adjudicate
    from rules.move import Pose
    from rules.wh40k import surge_solver
    from rules.wh40k.surge_solver import SurgeSpace, suggest_placement

    s = five_before_two()
    monkeypatch.setattr(surge_solver, "_greedy", lambda space: None)
    placed = suggest_placement(SurgeSpace(s, s.unit("B"), "C", 4.0))
    verdict = adjudicate(s, surge_4().with_end({k: Pose(m.x, m.y, m.z) for k, m in placed.items()}))
    assert verdict.legal, [f.text for f in verdict.failures]
    # Slid 3.83" straight ahead, B1-B4 end within 2" of C. B0 (20, 20) is 6.71 - 1.26 = 5.45"
    # from C1: the only spots it could engage from within 4" lie where B1 now stands, so it
    # stays unengaged, as close as it can get with the others fixed (the rule's own test).
    engaged = {mid for mid, r in verdict.models.items() if r["engaged_with"] == ["C"]}
    assert engaged == {"B1", "B2", "B3", "B4"}
