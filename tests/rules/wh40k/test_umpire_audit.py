"""An umpire's audit of RULES.md section 1: one hand-worked case per rule statement that had no
test of its own. Every position, distance and expected finding below is worked out by hand from
the rule text (32 mm base: radius 16 / 25.4 = 0.630"), never copied from the engine."""

import math

from rules import adjudicate, suggest
from rules.wh40k.measuring import coherency, in_engagement_range, model_distance
from rules.wh40k.move_types import charge_target_options
from rules.wh40k.surge import surge_target_candidates

from . import test_surge_eligibility as surge_rules
from . import test_terrain_3d as terrain_3d
from .scenarios import R32, model, move, rect, situation, terrain, unit

#: A 60 x 35.5 mm oval: half length 1.181", half width 0.699".
OVAL = {"oval": [60, 35.5]}
HALF_LENGTH, HALF_WIDTH = 30 / 25.4, 17.75 / 25.4


def failures(verdict):
    return [(f.rule, f.stage) for f in verdict.failures]


# -- 1.1 and 1.2: ovals are measured to their outline, turned by their facing -----------------
def test_an_oval_is_engaged_at_two_inches_from_its_end_and_its_side():
    # O1 (oval, facing 0: long axis along x) at (10, 10). E1 2" beyond its end along x: engaged;
    # 2.02" beyond: not. E1 2" below its side along y: engaged.
    def pair(ex, ey, facing=0):
        s = situation(
            [
                unit("O", "red", [model("O1", 10, 10, base=OVAL, facing=facing)]),
                unit("E", "blue", [model("E1", ex, ey)]),
            ]
        )
        return s.model("O1"), s.model("E1")

    # (measured from the true ellipse, not the polygon drawn round it: RULES.md 0)
    o, e = pair(10 + HALF_LENGTH + 2 + R32, 10)
    assert math.isclose(model_distance(o, e).horizontal, 2.0, abs_tol=1e-9)
    assert in_engagement_range(o, e)
    assert not in_engagement_range(*pair(10 + HALF_LENGTH + 2.02 + R32, 10))
    assert in_engagement_range(*pair(10, 10 + HALF_WIDTH + 2 + R32))
    # E1 2.3" from the oval's side: facing 0 puts its end there, 2.3 - (1.181 - 0.699) = 1.82"
    # away (engaged); turned to 90 its side faces E1, 2.3" away (not engaged).
    ex = 10 + HALF_WIDTH + 2.3 + R32
    o, e = pair(ex, 10)
    assert math.isclose(
        model_distance(o, e).horizontal, 2.3 - (HALF_LENGTH - HALF_WIDTH), abs_tol=1e-9
    )
    assert in_engagement_range(o, e)
    assert not in_engagement_range(*pair(ex, 10, facing=90))


# -- 1.2: passing through engagement range does not engage ------------------------------------
def test_a_normal_move_may_pass_within_engagement_range_if_it_ends_outside_it():
    # A1 walks 6" east from (10, 10) to (16, 10). E1 stands at (13, 11.26 + 1): its edge is 1"
    # from A1's path, so A1 passes well inside 2" of it. At the end the centres are
    # hypot(3, 2.26) = 3.756" apart: 3.756 - 1.26 = 2.50" edge to edge, out of range.
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10)]),
            unit("E", "blue", [model("E1", 13, 10 + 2 * R32 + 1)]),
        ]
    )
    v = adjudicate(s, move("A", "normal", {"A1": (16, 10)}, paths={"A1": [(13, 10)]}))
    assert v.legal, failures(v)
    assert v.models["A1"]["distance_moved"] == 6.0


# -- 1.2: coherency ----------------------------------------------------------------------------
def star_of_seven(cx=20.0, cy=20.0, gap=1.5):
    """A centre model and three arms of two, 120 degrees apart, each link `gap` edge to edge
    (centres 1.26 + gap apart). With gap 1.5: centres 2.76" apart; the two models of different
    arms nearest each other are 2.76 x sqrt(3) = 4.78" apart (3.52" edge to edge, no link); the
    arm ends are 5.52 x sqrt(3) = 9.56" apart (8.30" edge to edge, within 9")."""
    step = 2 * R32 + gap
    models = [model("C", cx, cy)]
    for arm, angle in enumerate((90, 210, 330)):
        a = math.radians(angle)
        for k in (1, 2):
            models.append(
                model(f"a{arm}{k}", cx + k * step * math.cos(a), cy + k * step * math.sin(a))
            )
    return models


def test_seven_models_each_with_one_unit_mate_within_two_inches_are_in_coherency():
    # RULES.md 1.2 (11th edition): one mate within 2" h / 5" v, all within 9" h / 5" v, the links
    # connected. There is no second-neighbour rule for units of 7 or more (our reading, listed in
    # docs/rules-coverage.md): the three arm ends have one link each and the unit is coherent.
    c = coherency(model_of(star_of_seven()))
    assert c.ok, c.failures()
    # ...and a move that keeps that shape (everyone 1" east) is legal.
    s = situation([unit("A", "red", star_of_seven())])
    end = {m.id: (m.x + 1, m.y) for m in s.unit("A").models}
    v = adjudicate(s, move("A", "normal", end))
    assert v.legal, failures(v)


def model_of(docs):
    s = situation([unit("A", "red", list(docs))])
    return s.unit("A").models


def test_a_unit_mate_exactly_5_inches_up_is_linked_and_5_01_is_not():
    # A2 stands 1" (edge to edge) from A1 on a 10" block; at z = 5 they are linked, at 5.01 not.
    block = terrain("B", rect(11, 5, 20, 15), height=10)
    for z, ok in ((5.0, True), (5.01, False)):
        s = situation(
            [unit("A", "red", [model("A1", 10, 10), model("A2", 10 + 2 * R32 + 1, 10, z=z)])],
            [block],
        )
        assert coherency(s.unit("A").models).ok is ok


# -- 1.3: distance moved, friends, the table edge ---------------------------------------------
def test_the_distance_moved_is_the_sum_of_the_path_segments():
    # (10, 10) -> (13, 10) -> (13, 14): 3 + 4 = 7". Legal with M 7, illegal with M 6.9.
    path = {"A1": [(13, 10)]}
    for m, legal in ((7, True), (6.9, False)):
        s = situation([unit("A", "red", [model("A1", 10, 10)], move=m)])
        v = adjudicate(s, move("A", "normal", {"A1": (13, 14)}, paths=path))
        assert v.legal is legal, failures(v)
        assert math.isclose(v.models["A1"]["distance_moved"], 7.0, abs_tol=1e-6)


def test_a_model_may_move_through_a_friendly_model_of_another_unit():
    # A1 walks straight through friendly B1 at (13, 10) to (16, 10): 6" of 6", legal.
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10)]),
            unit("B", "red", [model("B1", 13, 10)]),
        ]
    )
    v = adjudicate(s, move("A", "normal", {"A1": (16, 10)}, paths={"A1": [(13, 10)]}))
    assert v.legal, failures(v)
    assert v.models["A1"]["distance_moved"] == 6.0


def test_a_path_that_crosses_the_table_edge_is_refused():
    # A1 at (1, 10) goes by (0.2, 12) to (1, 14): 2.15 + 2.15 = 4.3" of 6", but at (0.2, 12) its
    # base (radius 0.63") reaches x = -0.43, over the table edge.
    s = situation([unit("A", "red", [model("A1", 1, 10)])])
    v = adjudicate(s, move("A", "normal", {"A1": (1, 14)}, paths={"A1": [(0.2, 12)]}))
    assert not v.legal
    # The same trip by (1, 12) stays on the table.
    v = adjudicate(s, move("A", "normal", {"A1": (1, 14)}, paths={"A1": [(1, 12)]}))
    assert v.legal, failures(v)


# -- 1.4: moving through models by move type ---------------------------------------------------
def monster_and_screen():
    # MONSTER K1 (60 mm, radius 1.181") at (10, 10), M 10; enemy infantry S1 at (15, 10) in its
    # way; enemy infantry T1 (the charge target) at (23, 10).
    return situation(
        [
            unit("K", "red", [model("K1", 10, 10, base=60)], keywords=("MONSTER",), move=10),
            unit("S", "blue", [model("S1", 15, 10)]),
            unit("T", "blue", [model("T1", 23, 10)]),
        ]
    )


def test_a_monster_walks_through_infantry_in_a_normal_move_but_not_in_a_charge():
    # 17.01 is for normal and advance moves only. Straight east to (19, 10): 9" of 10". S1's centre
    # is then 4" from K1's, 4 - 1.181 - 0.63 = 2.19" edge to edge, and T1's 4" too: unengaged.
    s = monster_and_screen()
    v = adjudicate(s, move("K", "normal", {"K1": (19, 10)}, paths={"K1": [(15, 10)]}))
    assert v.legal, failures(v)
    # The charge: roll 12; T is 23 - 10 - 1.181 - 0.63 = 11.19" away, within 12" and the roll.
    # K1 ends in base contact with T1 at x = 23 - 1.811 = 21.189 (11.19" moved) but along a line
    # that crosses S1: refused (a charge gives no permission to cross enemy models).
    end_x = 23 - HALF_LENGTH - R32
    v = adjudicate(
        s,
        move(
            "K",
            "charge",
            {"K1": (end_x, 10)},
            paths={"K1": [(15, 10)]},
            dice=[6, 6],
            charge_targets=["T"],
        ),
    )
    assert ("03.01", "while-moving") in failures(v)


def test_a_monster_may_not_cross_infantry_in_an_ordered_retreat():
    # K1 at (20, 10) engaged with E1 (base contact at x = 21.811); S1 behind it at (15, 10). An
    # ordered retreat west through S1 to (11, 10), 9" of 10", ending 4 - 1.811 = 2.19" from S1,
    # is refused (17.01 is for normal and advance moves); a Desperate Escape may cross it.
    s = situation(
        [
            unit("K", "red", [model("K1", 20, 10, base=60)], keywords=("MONSTER",), move=10),
            unit("E", "blue", [model("E1", 20 + HALF_LENGTH + R32, 10)]),
            unit("S", "blue", [model("S1", 15, 10)]),
        ]
    )
    path = {"K1": [(15, 10)]}
    v = adjudicate(
        s, move("K", "fall-back", {"K1": (11, 10)}, paths=path, fall_back_mode="ordered-retreat")
    )
    assert failures(v) == [("03.01", "while-moving")]
    v = adjudicate(
        s, move("K", "fall-back", {"K1": (11, 10)}, paths=path, fall_back_mode="desperate-escape")
    )
    assert v.legal, failures(v)


def test_a_fall_back_needs_an_engaged_unit():
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10)]),
            unit("E", "blue", [model("E1", 10 + 2 * R32 + 2.5, 10)]),  # 2.5" away: unengaged
        ]
    )
    v = adjudicate(s, move("A", "fall-back", {"A1": (6, 10)}))
    assert ("09.07", "eligible-if") in failures(v)


# -- 1.4: Desperate Escape hazard rolls --------------------------------------------------------
def desperate(unit_keywords, model_keywords):
    """Two models (60 mm) in base contact with E1/E2; each model may carry its own keywords."""
    s = situation(
        [
            unit(
                "V",
                "red",
                [
                    {**model(f"V{i}", 10, 10 + 3 * i, base=60), "keywords": list(kw)}
                    for i, kw in enumerate(model_keywords, 1)
                ],
                keywords=unit_keywords,
                move=8,
            ),
            unit(
                "E",
                "blue",
                [model(f"E{i}", 10 + HALF_LENGTH + R32, 10 + 3 * i) for i in (1, 2)],
            ),
        ]
    )
    end = {f"V{i}": (4, 10 + 3 * i) for i in (1, 2)}
    v = adjudicate(s, move("V", "fall-back", end, fall_back_mode="desperate-escape"))
    assert v.legal, failures(v)
    return [e["mortal_wounds"] for e in v.events if e["event"] == "hazard-roll"]


def test_hazard_rolls_cost_three_mortal_wounds_when_every_model_is_a_monster_or_vehicle():
    # RULES.md 1.4: 3 mortal wounds if every model is MONSTER/VEHICLE, whether the keyword is the
    # unit's or each model's own (`models[].keywords`).
    assert desperate(("VEHICLE",), [(), ()]) == [3, 3]
    assert desperate(("INFANTRY",), [("MONSTER",), ("VEHICLE",)]) == [3, 3]
    # One model that is neither: every model risks 1.
    assert desperate(("INFANTRY",), [("MONSTER",), ()]) == [1, 1]


# -- 1.4: the charge ---------------------------------------------------------------------------
def test_an_aircraft_unit_cannot_charge():
    # RULES.md 1.4: charge eligible if ... not AIRCRAFT. J is 3" from E with a roll of 8.
    s = situation(
        [
            unit(
                "J", "red", [model("J1", 10, 10)], keywords=("AIRCRAFT", "FLY", "VEHICLE"), move=20
            ),
            unit("E", "blue", [model("E1", 10 + 2 * R32 + 3, 10)]),
        ]
    )
    v = adjudicate(s, move("J", "charge", {"J1": (13, 10)}, dice=[4, 4], charge_targets=["E"]))
    assert ("11.04", "eligible-if") in failures(v)
    assert any("AIRCRAFT" in f.text for f in v.failures)


def raised_target(charger_keywords):
    # A1 on the ground at (10, 10); E1 on a 4" block, 5" away horizontally (edge to edge):
    # straight distance sqrt(5^2 + 4^2) = 6.40".
    return situation(
        [
            unit("A", "red", [model("A1", 10, 10)], keywords=charger_keywords),
            unit("E", "blue", [model("E1", 10 + 2 * R32 + 5, 10, z=4)]),
        ],
        [terrain("B", rect(14, 6, 20, 14), height=4)],
    )


def test_charge_targets_are_within_the_roll_in_3d_on_foot_and_horizontally_in_the_skies():
    foot = raised_target(("INFANTRY",))
    assert charge_target_options(foot, "A", [3, 3]) == []  # 6.40 > 6
    assert charge_target_options(foot, "A", [3, 4]) == ["E"]  # 6.40 <= 7
    flyer = raised_target(("INFANTRY", "FLY"))
    # In the skies: 5" horizontally, within the roll less 2".
    assert charge_target_options(flyer, "A", [3, 3], take_to_the_skies=True) == []  # 5 > 4
    assert charge_target_options(flyer, "A", [3, 4], take_to_the_skies=True) == ["E"]  # 5 <= 5
    hover = raised_target(("INFANTRY", "FLY", "HOVER"))
    assert charge_target_options(hover, "A", [2, 3], take_to_the_skies=True) == ["E"]  # 5 <= 5
    assert charge_target_options(hover, "A", [2, 2], take_to_the_skies=True) == []  # 5 > 4


# -- 1.6: the surge target is the closest by straight (3-D) distance ---------------------------
def test_the_surge_target_is_the_closest_enemy_measured_in_three_dimensions():
    # U1 stands on a block, 3" away horizontally; G1 is on the ground 4.5" away. With U1 4" up it
    # is sqrt(9 + 16) = 5" away, so G is the target; with U1 3" up, sqrt(18) = 4.24": U.
    for z, expected in ((4, ("G",)), (3, ("U",))):
        s = situation(
            [
                unit("B", "red", [model("B1", 10, 10)]),
                unit("U", "blue", [model("U1", 10 + 2 * R32 + 3, 10, z=z)]),
                unit("G", "blue", [model("G1", 10, 10 + 2 * R32 + 4.5)]),
            ],
            [terrain("T", rect(12, 7, 16, 13), height=z)],
        )
        assert surge_target_candidates(s, s.unit("B")).candidates == expected


# -- 1.7: taking to the skies ------------------------------------------------------------------
def test_a_flyer_falls_back_over_the_enemy_in_the_skies_as_an_ordered_retreat():
    # F1 (FLY, M 8: 6" in the skies) in base contact with E1 to its east and blocked by E2 to its
    # west. In the skies it may cross E2 as an Ordered Retreat: west to (4, 10), 6" of 6", ending
    # 4 - 1.26 = 2.74" from E2, and no hazard roll is owed. On foot the line crosses E2: refused.
    s = situation(
        [
            unit("F", "red", [model("F1", 10, 10)], keywords=("INFANTRY", "FLY"), move=8),
            unit("E", "blue", [model("E1", 10 + 2 * R32, 10), model("E2", 8, 10)]),
        ]
    )
    end = {"F1": (4, 10)}
    path = {"F1": [(8, 10)]}
    v = adjudicate(
        s,
        move(
            "F",
            "fall-back",
            end,
            paths=path,
            fall_back_mode="ordered-retreat",
            take_to_the_skies=True,
        ),
    )
    assert v.legal, failures(v)
    assert v.move["max_distance"] == 6 and v.events == []
    v = adjudicate(s, move("F", "fall-back", end, paths=path, fall_back_mode="ordered-retreat"))
    assert not v.legal


def test_a_flyer_in_the_skies_cannot_end_on_an_enemy_model_or_inside_a_solid_feature():
    # F1 (FLY, M 10: 8" in the skies) at (10, 10); a solid block x 13-17, y 8-12; E1 at (10, 16).
    s = situation(
        [
            unit("F", "red", [model("F1", 10, 10)], keywords=("INFANTRY", "FLY"), move=10),
            unit("E", "blue", [model("E1", 10, 16)]),
        ],
        [terrain("S", rect(13, 8, 17, 12), height=3, solid=True, kind="building")],
    )
    # Straight over the block to (18, 10): 8" of 8", its edge 18 - 0.63 = 17.37 clear of x = 17.
    v = adjudicate(s, move("F", "normal", {"F1": (18, 10)}, take_to_the_skies=True))
    assert v.legal, failures(v)
    # Ending inside the block (15, 10), 5" away: refused.
    v = adjudicate(s, move("F", "normal", {"F1": (15, 10)}, take_to_the_skies=True))
    assert failures(v) == [("13.06", "end-of-move")]
    # Ending on E1 (10, 16), 6" away: refused, although the skies let it cross every model.
    v = adjudicate(s, move("F", "normal", {"F1": (10, 16)}, take_to_the_skies=True))
    assert ("03.01", "end-of-move") in failures(v)


# -- 1.4 and 1.7: a charge in the skies weighs the floors it can fly to -------------------------
def raised_charge(keywords):
    # A1 on the ground at (10, 10). E1 stands on a 4" block (x 15.5 to 21) at (18, 10, 4).
    return situation(
        [
            unit("A", "red", [model("A1", 10, 10)], keywords=keywords),
            unit("E", "blue", [model("E1", 18, 10, z=4)]),
        ],
        [terrain("B", rect(15.5, 6, 21, 14), height=4)],
    )


def test_a_charger_in_the_skies_that_could_fly_within_one_inch_of_a_target_on_a_floor_must():
    # Roll 9, in the skies 7". E is 18 - 10 - 1.26 = 6.74" away horizontally: a target. A1 stops
    # on the ground at (14.8, 10), against the block: 18 - 14.8 - 1.26 = 1.94" h and 4" v from E1,
    # engaged, but sqrt(1.94^2 + 4^2) = 4.45" away, not within 1". Flying (vertical distance
    # ignored) it could have ended on the block in base contact with E1 at (16.74, 10, 4), 6.74"
    # from its start, its whole base over the block (left edge 16.11 > 15.5): 11.04 says it must.
    s = raised_charge(("INFANTRY", "FLY"))
    v = adjudicate(
        s,
        move(
            "A",
            "charge",
            {"A1": (14.8, 10)},
            dice=[5, 4],
            charge_targets=["E"],
            take_to_the_skies=True,
        ),
    )
    assert failures(v) == [("11.04", "while-moving")]
    # The engine's own suggestion flies up there, and is legal.
    m = suggest(s, move("A", "charge", dice=[5, 4], charge_targets=["E"], take_to_the_skies=True))
    assert m.end["A1"].z == 4
    assert adjudicate(s, m).legal
    # On foot the same spot costs 6.74 + 4 climbed = 10.74" of 9": the ground placement stands
    # (E1 is sqrt(6.74^2 + 4^2) = 7.84" away, within the roll of 9).
    s = raised_charge(("INFANTRY",))
    v = adjudicate(s, move("A", "charge", {"A1": (14.8, 10)}, dice=[5, 4], charge_targets=["E"]))
    assert v.legal, failures(v)


# -- 1.6: the "enemy ended a move nearby" trigger belongs to the opponent's Movement phase -------
def test_an_enemy_ending_a_move_nearby_triggers_only_in_that_enemys_movement_phase():
    # X1 (blue) ends 7.24" from B3 (centres 8.5" apart less 1.26"): within 8". The trigger counts
    # in blue's Movement phase; in blue's Shooting phase, or in red's own Movement phase, no enemy
    # ends a move of the opponent's Movement phase, so the ability has not been triggered.
    ability = {**surge_rules.BLOOD_SURGE, "trigger": "enemy-ended-move-within-8"}
    event = {"event": "enemy-ended-move", "by": "X"}
    for phase, active, met in (
        ("movement", "blue", True),
        ("shooting", "blue", False),
        ("movement", "red", False),
    ):
        s = surge_rules.situation(
            surge_rules.berzerkers(abilities=[ability]),
            surge_rules.unit("X", "blue", [surge_rules.model("X1", 41.5, 20.0)]),
            phase=phase,
            active=active,
        )
        first = surge_rules.offers_for(s, event)[("B", "blood-surge")][0]
        assert first.passed is met, (phase, active, first.text)


# -- 1.5: who crosses what ---------------------------------------------------------------------
def lone_wall(category):
    # A 3" wall along y = 11 from x = 20 to 30, in a feature 20..30 x 10..12.
    return terrain_3d.ruin(
        "W", rect(20, 10, 30, 12), 3, walls=[([(20, 11), (30, 11)], 3, None)], category=category
    )


def test_every_model_crosses_exposed_and_light_features_freely_but_a_vehicle_climbs_dense():
    # V1 (40 mm, M 6) from (25, 8) to (25, 14) straight over the 3" wall: 6" of 6" when the
    # feature is exposed or light; dense, it must climb 3" up and 3" down: 12" of 6".
    for category, legal in (("exposed", True), ("light", True), ("dense", False)):
        s = situation([terrain_3d.vehicle(25, 8, move_=6)], [lone_wall(category)])
        v = adjudicate(s, move("V", "normal", {"V1": (25, 14)}))
        assert v.legal is legal, (category, failures(v))


def test_a_mobile_model_moves_through_a_dense_wall_but_cannot_end_on_an_upper_floor():
    # 13.06: MOBILE models pass through dense features horizontally (walls included): 6" of 6".
    s = situation(
        [unit("M", "red", [model("M1", 25, 8, base=40)], keywords=("VEHICLE", "MOBILE"))],
        [lone_wall("dense")],
    )
    v = adjudicate(s, move("M", "normal", {"M1": (25, 14)}))
    assert v.legal, failures(v)
    # Ending above the ground is only for INFANTRY, BEASTS, SWARM, FLY and MONSTER models: from
    # (8, 13) onto the tower's 3" floor at (12, 13) (4" across, 3" up: 7" of 12") is refused.
    s = situation(
        [unit("M", "red", [model("M1", 8, 13, base=40)], keywords=("VEHICLE", "MOBILE"), move=12)],
        [terrain_3d.tower()],
    )
    v = adjudicate(s, move("M", "normal", {"M1": {"x": 12, "y": 13, "z": 3}}))
    assert ("13.06", "end-of-move") in failures(v)


def test_every_model_must_be_within_5_inches_vertically_of_every_other_model():
    # A ladder of 2" links: A1 on the ground, A2 4" up, A3 8" up, each 1" (edge to edge) from the
    # one before. Each link holds (4" vertically), but A1 and A3 are 8" apart vertically, more
    # than the 5" the second coherency condition allows.
    step = 2 * R32 + 1
    block = terrain("B", rect(5, 5, 30, 15), height=10)
    s = situation(
        [
            unit(
                "A",
                "red",
                [
                    model("A1", 10, 10),
                    model("A2", 10 + step, 10, z=4),
                    model("A3", 10 + 2 * step, 10, z=8),
                ],
            )
        ],
        [block],
    )
    c = coherency(s.unit("A").models)
    assert not c.ok and c.too_far == (("A1", "A3"),) and not c.isolated and not c.split


def test_infantry_walks_through_a_dense_wall_but_cannot_end_partway_through_it():
    # I1 (32 mm) from (25, 8) through the 3" dense wall (y = 11) to (25, 14): 6" of 6", legal.
    # Ending at (25, 11), its base astride the wall, is refused (RULES.md 1.3).
    s = situation([unit("I", "red", [model("I1", 25, 8)])], [lone_wall("dense")])
    v = adjudicate(s, move("I", "normal", {"I1": (25, 14)}))
    assert v.legal, failures(v)
    v = adjudicate(s, move("I", "normal", {"I1": (25, 11)}))
    assert failures(v) == [("13.06", "end-of-move")]
    assert "partway through a wall" in v.failures[0].text
    # In base contact with the wall's face (y = 11 - 0.125 - 0.63 = 10.245) is fine.
    v = adjudicate(s, move("I", "normal", {"I1": (25, 11 - 0.125 - R32)}))
    assert v.legal, failures(v)


def test_a_charge_target_exactly_at_the_roll_may_be_picked_and_one_0_01_beyond_may_not():
    # E1 is 7" away edge to edge (centres 7 + 1.26 apart), F1 7.01". A roll of 7 (3 + 4) offers E
    # only; a roll of 8 offers both.
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10)]),
            unit("E", "blue", [model("E1", 10 + 2 * R32 + 7, 10)]),
            unit("F", "blue", [model("F1", 10, 10 + 2 * R32 + 7.01)]),
        ]
    )
    assert charge_target_options(s, "A", [3, 4]) == ["E"]
    assert charge_target_options(s, "A", [4, 4]) == ["E", "F"]


def test_a_charging_model_may_move_through_an_aircraft_it_does_not_charge():
    # 23.02 holds for every move: A1 (10, 10) charges T1 straight through the AIRCRAFT J1 (60 mm
    # at (14, 10), its edges at 12.82 and 15.18: 2.19" from A1, unengaged). Roll 9; T is
    # 19.5 - 10 - 1.26 = 8.24" away. A1 ends in base contact at (18.24, 10), 18.24 - 0.63 - 15.18
    # = 2.43" from J1: not engaged with it.
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10)]),
            unit("J", "blue", [model("J1", 14, 10, base=60)], keywords=("AIRCRAFT", "FLY")),
            unit("T", "blue", [model("T1", 19.5, 10)]),
        ]
    )
    v = adjudicate(
        s,
        move(
            "A",
            "charge",
            {"A1": (19.5 - 2 * R32, 10)},
            paths={"A1": [(14, 10)]},
            dice=[4, 5],
            charge_targets=["T"],
        ),
    )
    assert v.legal, failures(v)
    assert any(f.rule == "23.02" for f in v.findings)


def test_charge_eligibility_measures_12_inches_in_3d_even_for_a_unit_that_takes_to_the_skies():
    # Our reading (docs/rules-coverage.md): eligibility comes when the unit is selected, before it
    # declares it takes to the skies. E1 stands on a 6" block 11" away horizontally: straight
    # distance sqrt(11^2 + 6^2) = 12.53", so no enemy is within 12" and the flyer cannot charge.
    # With E1 3" up (sqrt(121 + 9) = 11.40") it can, and in the skies a roll of 12 leaves 10":
    # the target, 11" away horizontally, is then beyond the roll less 2".
    for z, eligible in ((6, False), (3, True)):
        s = situation(
            [
                unit("A", "red", [model("A1", 10, 10)], keywords=("INFANTRY", "FLY")),
                unit("E", "blue", [model("E1", 10 + 2 * R32 + 11, 10, z=z)]),
            ],
            [terrain("B", rect(20, 6, 26, 14), height=z)],
        )
        v = adjudicate(
            s,
            move(
                "A",
                "charge",
                {"A1": (10 + 11, 10)},
                dice=[6, 6],
                charge_targets=["E"],
                take_to_the_skies=True,
            ),
        )
        assert (("11.04", "eligible-if") in failures(v)) is not eligible, failures(v)
        assert ("11.02", "before-moving") in failures(v)  # 11" > 12 - 2
