"""The reusable move judge (rules/wh40k/moving.py): paths, distance, terrain, end of move."""

import math

from rules.verdict import Verdict
from rules.wh40k.moving import Mode, judge_move, mode_for

from .scenarios import R32, model, move, rect, situation, terrain, unit


def judged(s, mv, max_distance, mode=None):
    verdict = Verdict(move={})
    outcome = judge_move(s, mv, verdict, max_distance, rule="09.05", mode=mode)
    return verdict, outcome


def test_a_model_moving_exactly_its_maximum_in_open_ground_passes_and_0_01_more_fails():
    s = situation([unit("A", "red", [model("A1", 10, 10)])])
    verdict, outcome = judged(s, move("A", "normal", {"A1": (16, 10)}), 6)
    assert verdict.legal and outcome.models["A1"].distance == 6.0
    verdict, _ = judged(s, move("A", "normal", {"A1": (16.01, 10)}), 6)
    assert [round(f.measured, 6) for f in verdict.failures] == [6.01]


def test_a_straight_line_across_an_enemy_base_is_illegal_on_the_ground_and_legal_in_the_skies():
    # enemy E1 sits at (13, 10), right on A1's straight line from (10, 10) to (16, 10)
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10)], keywords=("INFANTRY", "FLY")),
            unit("E", "blue", [model("E1", 13, 10)]),
        ]
    )
    mv = move("A", "normal", {"A1": (16, 10)}, paths={"A1": [(13, 10)]})
    verdict, _ = judged(s, mv, 6)
    assert not verdict.legal
    assert any("crosses enemy model E1" in f.text for f in verdict.failures)
    verdict, _ = judged(s, mv, 4, mode=Mode(skies=True, through="all", through_rule="21.03"))
    # in the skies the straight 6" is within... a 4" limit? no: 6 > 4 fails on distance only
    assert [f.rule for f in verdict.failures] == ["09.05"]
    verdict, _ = judged(s, mv, 6, mode=Mode(skies=True, through="all", through_rule="21.03"))
    assert verdict.legal


def test_without_paths_a_ground_model_walks_round_an_enemy_and_pays_the_detour():
    s = situation(
        [unit("A", "red", [model("A1", 10, 10)]), unit("E", "blue", [model("E1", 13, 10)])]
    )
    verdict, outcome = judged(s, move("A", "normal", {"A1": (16, 10)}), 7)
    mm = outcome.models["A1"]
    assert verdict.legal and len(mm.path) > 2
    # detour round a 1.26" radius obstacle: longer than 6, shorter than going 1.26" out and back
    assert 6 < mm.distance < 6 + 2 * 2 * R32


def test_a_vehicle_crossing_a_three_inch_dense_ruin_pays_the_climb_and_infantry_does_not():
    ruin = terrain("ruin", rect(12, 0, 13, 44), height=3)  # a full-width 1" wall: no way round
    # 6" horizontally; the vehicle climbs 3 up and 3 down: 12"
    s = situation(
        [unit("V", "red", [model("V1", 9.5, 10, base=60)], keywords=("VEHICLE",), move=10)], [ruin]
    )
    verdict, outcome = judged(s, move("V", "normal", {"V1": (15.5, 10)}), 12)
    assert verdict.legal and math.isclose(outcome.models["V1"].distance, 12.0)
    verdict, _ = judged(s, move("V", "normal", {"V1": (15.5, 10)}), 11.99)
    assert not verdict.legal
    s = situation([unit("I", "red", [model("I1", 9.5, 10)])], [ruin])
    verdict, outcome = judged(s, move("I", "normal", {"I1": (15.5, 10)}), 6)
    assert verdict.legal and outcome.models["I1"].distance == 6.0


def test_no_ground_move_enters_solid_terrain_and_no_model_ends_inside_it():
    block = terrain("bunker", rect(12, 0, 13, 44), solid=True, kind="building")
    s = situation([unit("A", "red", [model("A1", 10, 10)], keywords=("INFANTRY", "FLY"))], [block])
    verdict, _ = judged(s, move("A", "normal", {"A1": (15, 10)}), 10)
    assert not verdict.legal and any("no legal path" in f.text for f in verdict.failures)
    verdict, _ = judged(
        s,
        move("A", "normal", {"A1": (15, 10)}),
        10,
        mode=mode_for(s.unit("A"), "normal", {"take_to_the_skies": True}),
    )
    assert verdict.legal
    verdict, _ = judged(
        s,
        move("A", "normal", {"A1": (12.5, 10)}),
        10,
        mode=mode_for(s.unit("A"), "normal", {"take_to_the_skies": True}),
    )
    assert [f.rule for f in verdict.failures] == ["13.06"]


def test_a_unit_left_in_two_groups_breaks_coherency():
    s = situation(
        [unit("A", "red", [model("A1", 10, 10), model("A2", 11.5, 10), model("A3", 13, 10)])]
    )
    # A3 walks 5" away: A1-A2 still touch, A3 alone
    verdict, _ = judged(s, move("A", "normal", {"A3": (18, 10)}), 6)
    assert [f.rule for f in verdict.failures] == ["03.03"]


def test_models_cannot_end_on_top_of_each_other_or_off_the_table():
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10), model("A2", 11.5, 10)]),
            unit("F", "red", [model("F1", 20, 10)]),
        ]
    )
    verdict, _ = judged(s, move("A", "normal", {"A1": (19.5, 10), "A2": (18.5, 10)}), 10)
    assert any(f.rule == "03.01" and "overlapping" in f.text for f in verdict.failures)
    s = situation([unit("A", "red", [model("A1", 2, 10)])])
    verdict, _ = judged(s, move("A", "normal", {"A1": (0.5, 10)}), 10)
    assert any("leave the table" in f.text for f in verdict.failures)


def test_a_monster_or_vehicle_moves_through_infantry_but_not_through_other_vehicles():
    s = situation(
        [
            unit("V", "red", [model("V1", 10, 10, base=60)], keywords=("VEHICLE",), move=10),
            unit("I", "blue", [model("I1", 14, 10)]),
            unit("T", "blue", [model("T1", 14, 20, base=60)], keywords=("VEHICLE",)),
        ]
    )
    mv = move("V", "normal", {"V1": (18, 10)}, paths={"V1": [(14, 10)]})
    verdict, _ = judged(s, mv, 10)
    assert verdict.legal and any(f.rule == "17.01" for f in verdict.findings)
    mv = move("V", "normal", {"V1": (18, 20)}, paths={"V1": [(10, 20), (14, 20)]})
    verdict, _ = judged(s, mv, 30)
    assert not verdict.legal


def test_only_some_keywords_may_end_on_a_ruin_floor_and_never_above_its_height():
    ruin = terrain("ruin", rect(12, 5, 18, 15), height=3)
    s = situation(
        [
            unit("I", "red", [model("I1", 10, 10)]),
            unit("V", "red", [model("V1", 10, 20, base=60)], keywords=("VEHICLE",), move=12),
        ],
        [ruin],
    )
    verdict, outcome = judged(s, move("I", "normal", {"I1": {"x": 13, "y": 10, "z": 3}}), 6)
    # 3" along the ground then 3" up to the floor
    assert verdict.legal and outcome.models["I1"].distance == 6.0
    verdict, _ = judged(s, move("I", "normal", {"I1": {"x": 13, "y": 10, "z": 3.5}}), 10)
    assert [f.rule for f in verdict.failures] == ["13.06"]
    verdict, _ = judged(s, move("V", "normal", {"V1": {"x": 14, "y": 12, "z": 3}}), 20)
    assert any(f.rule == "13.06" and "cannot end above" in f.text for f in verdict.failures)


def test_an_oval_vehicle_is_routed_round_an_enemy_and_its_swept_base_checked_exactly():
    # a 95 x 150 mm oval (3.74 x 5.91") facing east drives 12" east past an enemy tank in its way
    s = situation(
        [
            unit(
                "V",
                "red",
                [model("V1", 10, 20, base={"oval": [150, 95]})],
                keywords=("VEHICLE",),
                move=12,
            ),
            unit("T", "blue", [model("T1", 16, 20, base=60)], keywords=("VEHICLE",)),
        ]
    )
    verdict, outcome = judged(s, move("V", "normal", {"V1": (22, 20)}), 20)
    mm = outcome.models["V1"]
    assert verdict.legal, [f.text for f in verdict.failures]
    assert len(mm.path) > 2 and mm.distance > 12  # it went round
    verdict, _ = judged(s, move("V", "normal", {"V1": (22, 20)}, paths={"V1": [(16, 20)]}), 20)
    assert any("crosses enemy model T1" in f.text for f in verdict.failures)


def test_a_hull_base_is_measured_to_its_outline():
    # a 4 x 2" rectangular hull facing east: its front edge is 2" ahead of the centre
    hull = {"hull": [[-2, -1], [2, -1], [2, 1], [-2, 1]]}
    s = situation(
        [
            unit("K", "red", [model("K1", 10, 20, base=hull)], keywords=("VEHICLE",), move=10),
            unit("E", "blue", [model("E1", 14 + R32, 20)]),
        ]
    )
    from rules.wh40k.measuring import model_distance

    # front edge x = 12, enemy edge x = 14: 2.0" exactly: engaged
    assert math.isclose(model_distance(s.model("K1"), s.model("E1")).horizontal, 2.0, abs_tol=1e-6)


def test_any_model_may_move_through_an_aircraft():
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10)]),
            unit(
                "J", "blue", [model("J1", 13, 10, base=60)], keywords=("AIRCRAFT", "FLY", "VEHICLE")
            ),
        ]
    )
    # straight through J1's base to (16, 10): 6" of 6"
    verdict, _ = judged(s, move("A", "normal", {"A1": (16, 10)}, paths={"A1": [(13, 10)]}), 6)
    assert verdict.legal and any(f.rule == "23.02" for f in verdict.findings)


def test_a_model_cut_off_vertically_breaks_coherency_with_a_finite_measurement():
    # A2 climbs a 6" ruin: 0" apart horizontally but 6" apart vertically, more than the 5"
    # that both coherency conditions allow. The finding must say so and stay valid JSON (no
    # infinite measurement).
    s = situation(
        [unit("A", "red", [model("A1", 10, 10), model("A2", 11.5, 10)])],
        [terrain("R", rect(11, 8, 16, 12), height=6)],
    )
    verdict, _ = judged(s, move("A", "normal", {"A2": {"x": 11.5, "y": 10, "z": 6}}), 10)
    (finding,) = [f for f in verdict.failures if f.rule == "03.03"]
    assert finding.measured is None or math.isfinite(finding.measured)
    assert '5" vertically' in finding.text


def test_infantry_going_from_one_ruin_floor_to_another_climbs_down_and_up_again():
    # Two 3" ruins with 2" of open ground between (x 12..14). I1 stands on the first at z = 3
    # and ends on the second at z = 3: 5" across, and it cannot float over the gap, so it pays
    # 3" down and 3" up: 5 + 3 + 3 = 11". On one ruin (x 8..12) the floor-to-floor move is free.
    ruins = [terrain("R1", rect(8, 8, 12, 12)), terrain("R2", rect(14, 8, 18, 12))]
    s = situation([unit("I", "red", [model("I1", 10, 10, z=3)])], ruins)
    _, outcome = judged(s, move("I", "normal", {"I1": {"x": 15, "y": 10, "z": 3}}), 20)
    assert math.isclose(outcome.models["I1"].distance, 11.0)
    _, outcome = judged(s, move("I", "normal", {"I1": {"x": 11, "y": 10, "z": 3}}), 20)
    assert math.isclose(outcome.models["I1"].distance, 1.0)
    # With a 2" crate filling the gap it only steps down to the crate and up: 5 + 1 + 1 = 7".
    crate = terrain("C", rect(11, 8, 15, 12), category="light", height=2)
    s = situation([unit("I", "red", [model("I1", 10, 10, z=3)])], [*ruins, crate])
    _, outcome = judged(s, move("I", "normal", {"I1": {"x": 15, "y": 10, "z": 3}}), 20)
    assert math.isclose(outcome.models["I1"].distance, 7.0)


def test_an_oval_parked_along_the_table_edge_may_drive_off_and_turn():
    # A 75 x 25 mm oval (2.95" x 0.98") at x = 0.5 facing 90: its length runs along the left
    # edge and its half width 0.49" keeps it on the table. It drives 9.5" to (10, 20) and ends
    # facing 0. Turned to facing 0 where it starts it would reach x = 0.5 - 1.48 < 0, but it
    # only turns once clear of the edge (rotations are free), so the move is legal.
    s = situation(
        [
            unit(
                "A",
                "red",
                [model("A1", 0.5, 20, base={"oval": [75, 25]}, facing=90)],
                keywords=("MOUNTED",),
                move=12,
            )
        ]
    )
    verdict, _ = judged(s, move("A", "normal", {"A1": {"x": 10, "y": 20, "facing": 0}}), 12)
    assert verdict.legal, [f.text for f in verdict.failures]
    # ...but it may not end facing 0 at the edge: (0.5, 25) facing 0 sticks out 0.98" past it
    verdict, _ = judged(s, move("A", "normal", {"A1": {"x": 0.5, "y": 25, "facing": 0}}), 12)
    assert any("leave the table" in f.text for f in verdict.failures)


def test_climbing_given_in_a_paths_waypoint_counts_towards_the_distance():
    # I1 walks from (10, 10) on the ground via a waypoint on the 3" floor of a ruin at (13, 10)
    # and back down to the ground at (16, 10): 6" across plus 3" up and 3" down = 12".
    s = situation([unit("I", "red", [model("I1", 10, 10)])], [terrain("R", rect(12, 8, 14, 12))])
    mv = move("I", "normal", {"I1": (16, 10)}, paths={"I1": [(13, 10, 3)]})
    _, outcome = judged(s, mv, 20)
    assert math.isclose(outcome.models["I1"].distance, 12.0)
    # in the skies vertical distance is ignored: 6"
    _, outcome = judged(s, mv, 20, mode=Mode(True, "all", "21.03"))
    assert math.isclose(outcome.models["I1"].distance, 6.0)
    # a waypoint without z (or at 0) is wherever the ground or floor is: on the 3" floor from
    # (12.5, 10) to (13.5, 10) via (13, 11), 2 x hypot(0.5, 1) = 2.24" and no climbing
    s = situation(
        [unit("I", "red", [model("I1", 12.5, 10, z=3)])], [terrain("R", rect(12, 8, 14, 12))]
    )
    mv = move("I", "normal", {"I1": {"x": 13.5, "y": 10, "z": 3}}, paths={"I1": [(13, 11)]})
    _, outcome = judged(s, mv, 20)
    assert math.isclose(outcome.models["I1"].distance, 2 * math.hypot(0.5, 1))


RHINO = {"hull": [[-2.5, -1.8], [2.2, -1.8], [2.5, -1.5], [2.5, 1.5], [2.2, 1.8], [-2.5, 1.8]]}


def test_a_hull_finds_its_own_path_down_an_alley_its_enclosing_circle_cannot_enter():
    """RULES.md 1.3 (a judge's case): a Rhino 3.6" wide (5" long) drives down a 4" alley
    between two buildings and turns out of it, with no waypoints given. Its enclosing circle
    (6.2" across) cannot enter the alley, so that path goes round both buildings (35.9"); the
    base itself, held at its facing, fits. Shortest: along the alley until its rear corner
    clears the building's corner (26, 22), i.e. the centre at (28.5, 20.2), then straight to
    (30, 24): hypot(11.5, 0.2) + hypot(1.5, 3.8) = 15.59"."""
    s = situation(
        [
            unit("V", "red", [model("V1", 17, 20, base=RHINO, facing=0)], keywords=("VEHICLE",)),
            unit("F", "blue", [model("F9", 55, 40)]),
        ],
        [
            terrain("b1", rect(20, 8, 26, 18), height=6, solid=True, kind="building"),
            terrain("b2", rect(20, 22, 26, 32), height=6, solid=True, kind="building"),
        ],
    )
    verdict, outcome = judged(s, move("V", "advance", {"V1": (30, 24)}), 17)
    assert verdict.legal, [f.text for f in verdict.failures]
    shortest = math.hypot(11.5, 0.2) + math.hypot(1.5, 3.8)
    assert math.isclose(outcome.models["V1"].distance, shortest, abs_tol=1e-6)
    # with 15.5" to go there is no way: refused on distance, with the distance it needs
    verdict, _ = judged(s, move("V", "advance", {"V1": (30, 24)}), 15.5)
    assert [round(f.measured, 4) for f in verdict.failures] == [round(shortest, 4)]
    # an alley narrower than the hull (3.5" against 3.6") leaves only the way round
    s = situation(
        [
            unit("V", "red", [model("V1", 17, 19.75, base=RHINO, facing=0)], keywords=("VEHICLE",)),
            unit("F", "blue", [model("F9", 55, 40)]),
        ],
        [
            terrain("b1", rect(20, 8, 26, 18), height=6, solid=True, kind="building"),
            terrain("b2", rect(20, 21.5, 26, 32), height=6, solid=True, kind="building"),
        ],
    )
    verdict, outcome = judged(s, move("V", "advance", {"V1": (30, 24)}), 40)
    assert verdict.legal and outcome.models["V1"].distance > 30


def test_a_hull_driving_past_a_ruin_its_enclosing_circle_would_climb_pays_no_climb():
    """RULES.md 1.5: a vehicle pays to climb a dense section over 2" only where its base
    crosses it. A Rhino (hull 1.8" either side of its centre line) drives 8" straight along a
    4" ruin whose edge is 0.5" from its side: its enclosing circle (3.08") would cross the ruin
    and pay 4" up and 4" down; the hull itself never touches it, so 8" of an 8" move."""
    s = situation(
        [
            unit("V", "red", [model("V1", 10, 20, base=RHINO, facing=0)], keywords=("VEHICLE",)),
            unit("F", "blue", [model("F9", 55, 40)]),
        ],
        [terrain("r1", rect(12, 22.3, 16, 26), height=4)],
    )
    verdict, outcome = judged(s, move("V", "normal", {"V1": (18, 20)}), 8)
    assert verdict.legal, [f.text for f in verdict.failures]
    assert outcome.models["V1"].vertical == 0 and outcome.models["V1"].distance == 8
