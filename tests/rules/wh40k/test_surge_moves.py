"""21.02 surge moves judged end to end at the rules level: the worked example of 21.01, the
"if possible" test of RULES.md 1.6, the after-moving checks, and the engine's suggestion."""

import math

import pytest

from rules import Move, Situation, adjudicate, suggest
from rules.wh40k.measuring import engaged_enemy_units

R = 16 / 25.4  # radius of a 32 mm base, in inches (0.63")
BLOOD_SURGE = {
    "id": "blood-surge",
    "kind": "surge",
    "name": "Blood Surge",
    "trigger": "models-destroyed-by-shooting",
    "distance": "D6",
}
SHOT = {"event": "shot", "by": "A", "hits": 4, "wounds_lost": 2, "models_destroyed": 2}


def model(mid, x, y, mm=32):
    return {"id": mid, "base": {"round": mm}, "x": x, "y": y}


def unit(uid, army, models, keywords=("INFANTRY",), abilities=(), state=None):
    doc = {
        "id": uid,
        "army": army,
        "name": uid,
        "keywords": list(keywords),
        "move": 6,
        "models": models,
        "abilities": list(abilities),
    }
    if state:
        doc["state"] = state
    return doc


def table(*units, terrain=()):
    return Situation.from_document(
        {
            "format": "arbiter.scenario/1",
            "system": "wh40k-11e",
            "name": "surge",
            "table": {"width": 60, "height": 44},
            "terrain": list(terrain),
            "armies": [{"id": "red", "name": "World Eaters"}, {"id": "blue", "name": "Tau"}],
            "units": list(units),
            "turn": {"round": 2, "active_army": "blue", "phase": "shooting"},
        }
    )


def surge(dice=(4,), end=None, trigger=SHOT, **declarations):
    doc = {
        "format": "arbiter.move/1",
        "unit": "B",
        "type": "surge",
        "declarations": {"ability": "blood-surge", "trigger": trigger, **declarations},
    }
    if dice is not None:
        doc["dice"] = list(dice)
    if end is not None:
        doc["end"] = {k: {"x": x, "y": y} for k, (x, y) in end.items()}
    return Move.from_document(doc, "wh40k-11e")


def line(prefix, n, x0, y, step=1.5, mm=32):
    return [model(f"{prefix}{i + 1}", x0 + i * step, y, mm) for i in range(n)]


def worked_example():
    """21.01: A shoots B and destroys B4 and B5; C, a line of Crisis suits, is the closest enemy."""
    b = unit("B", "red", line("B", 5, 28.0, 20.0), abilities=[BLOOD_SURGE])
    a = unit("A", "blue", line("A", 3, 28.0, 38.0))
    # C's centres 5.5" in front of B's: 5.5 - 2 x 0.63 = 4.24" apart; a 4" surge leaves 0.24"
    c = unit("C", "blue", line("C", 4, 28.0, 25.5, step=2.0))
    return table(b, a, c)


def failures(verdict):
    return [f for f in verdict.findings if not f.passed]


# -- the worked example of 21.01 ------------------------------------------------------------------
def test_worked_example_every_survivor_surges_4_inches_and_ends_engaged_with_c():
    s = worked_example()
    move = surge(dice=[4], trigger={"event": "shot", "by": "A", "destroyed": ["B4", "B5"]})
    verdict = adjudicate(s, move)  # no end: the engine suggests the placement and judges it
    assert verdict.legal, failures(verdict)
    assert verdict.move["max_distance"] == 4.0 and verdict.move["target"] == "C"
    assert verdict.move["dice"] == [{"value": 4, "source": "user"}]
    after = verdict.after
    assert [m.id for m in after.unit("B").models] == ["B1", "B2", "B3"]
    for m in after.unit("B").models:
        assert verdict.models[m.id]["engaged_with"] == ["C"]
        start = s.model(m.id)
        assert math.hypot(m.x - start.x, m.y - start.y) <= 4.0 + 1e-6
    assert engaged_enemy_units(after, "B") == ("C",)
    assert after.unit("B").flag("moved_this_phase")
    assert after.unit("B").state["surges_used"] == [
        {"ability": "blood-surge", "round": 2, "turn": "blue", "phase": "shooting"}
    ]


def test_worked_example_with_the_players_own_placement():
    s = worked_example()
    # each survivor straight ahead 4": centres 1.5" apart from C's line: 1.5 - 1.26 = 0.24" away
    end = {"B1": (28.0, 24.0), "B2": (29.5, 24.0), "B3": (31.0, 24.0)}
    verdict = adjudicate(
        s, surge(end=end, trigger={"event": "shot", "by": "A", "destroyed": ["B4", "B5"]})
    )
    assert verdict.legal, failures(verdict)
    texts = [
        f.text
        for f in verdict.findings
        if f.stage == "while-moving" and f.subject == "B1" and f.rule == "21.02"
    ]
    # the distance (21.02: the surge's own maximum), then the duty
    assert texts == ['B1 moves 4" of the 4" allowed.', 'B1 moved 4" of 4" and ends engaged with C.']


def test_a_second_surge_in_the_same_phase_is_refused():
    s = worked_example()
    first = adjudicate(s, surge(trigger={"event": "shot", "by": "A", "destroyed": ["B4", "B5"]}))
    assert first.legal
    again = adjudicate(
        first.after, surge(trigger={"event": "shot", "by": "A", "models_destroyed": 1})
    )
    assert not again.legal and again.after is None
    assert any("already moved this phase" in f.text for f in failures(again))


@pytest.mark.parametrize(
    "state, words",
    [({"battle_shocked": True}, "battle-shocked"), ({"moved_this_phase": True}, "already moved")],
)
def test_an_ineligible_unit_does_not_move_and_is_told_why(state, words):
    doc = worked_example().to_document()
    doc["units"][0]["state"] = state
    verdict = adjudicate(Situation.from_document(doc), surge())
    assert not verdict.legal and verdict.after is None
    assert any(words in f.text for f in failures(verdict))
    assert all(f.stage in ("eligible-if", "before-moving") for f in verdict.findings)


def test_an_engaged_unit_cannot_surge():
    b = unit("B", "red", line("B", 3, 28.0, 20.0), abilities=[BLOOD_SURGE])
    a = unit("A", "blue", line("A", 2, 28.0, 21.5))  # 1.5 - 1.26 = 0.24" away: engaged
    verdict = adjudicate(table(b, a), surge())
    assert not verdict.legal and any("engaged with A" in f.text for f in failures(verdict))


def test_taking_to_the_skies_is_refused_for_a_surge_and_the_finding_says_why():
    doc = worked_example().to_document()
    doc["units"][0]["keywords"] = ["INFANTRY", "FLY"]
    verdict = adjudicate(Situation.from_document(doc), surge(take_to_the_skies=True))
    refused = [f for f in failures(verdict) if f.rule == "21.03"]
    assert refused and "only for normal, advance, fall-back and charge" in refused[0].text
    assert verdict.after is None


# -- "if possible" (RULES.md 1.6) -----------------------------------------------------------------
def test_a_model_stopping_short_of_engagement_is_illegal_and_told_where_it_could_have_stood():
    # C is 7.8" ahead here and B rolls a 6; B1 stops 2.3" from C1 instead of 2.0"
    b = unit("B", "red", line("B", 3, 28.0, 20.0), abilities=[BLOOD_SURGE])
    c = unit("C", "blue", line("C", 3, 28.0, 27.8))
    a = unit("A", "blue", line("A", 3, 28.0, 40.0))
    s = table(b, a, c)
    # gap 7.8 - 2 x 0.63 = 6.54"; centres 2 + 2R = 3.26" apart are exactly 2" apart (engaged):
    # B2 and B3 move 4.54" straight ahead to that line; B1 stops 0.3" before it, 2.3" away
    engaged_y = 27.8 - (2 + 2 * R)
    end = {"B1": (28.0, engaged_y - 0.3), "B2": (29.5, engaged_y), "B3": (31.0, engaged_y)}
    verdict = adjudicate(s, surge(dice=[6], end=end))
    assert not verdict.legal
    (fault,) = failures(verdict)
    assert fault.subject == "B1" and fault.stage == "while-moving"
    assert "could have ended engaged" in fault.text and fault.measured == pytest.approx(2.3)
    x, y = (float(v) for v in fault.text.split("at (")[1].split(")")[0].split(", "))
    assert math.hypot(x - 28.0, y - engaged_y) < 0.05  # the spot it could have stood is just ahead


def test_when_the_target_is_out_of_reach_every_model_must_close_to_its_minimum_distance():
    b = unit("B", "red", line("B", 3, 28.0, 10.0), abilities=[BLOOD_SURGE])
    c = unit("C", "blue", line("C", 3, 28.0, 30.0))
    a = unit("A", "blue", line("A", 3, 28.0, 40.0))
    s = table(b, a, c)
    # each B model is 20 - 1.26 = 18.74" from its C counterpart; a 3" surge: 15.74" at best
    good = {"B1": (28.0, 13.0), "B2": (29.5, 13.0), "B3": (31.0, 13.0)}
    verdict = adjudicate(s, surge(dice=[3], end=good))
    assert verdict.legal, failures(verdict)
    lazy = {**good, "B3": (31.0, 12.0)}  # B3 moved 2" of 3": 16.74", a full inch short
    verdict = adjudicate(s, surge(dice=[3], end=lazy))
    (fault,) = failures(verdict)
    assert fault.subject == "B3" and fault.measured == pytest.approx(16.74, abs=0.01)
    assert fault.limit == pytest.approx(15.74, abs=0.02) and "could have got to 15.7" in fault.text
    suggested = adjudicate(s, surge(dice=[3]))
    assert suggested.legal
    for mid in ("B1", "B2", "B3"):
        m = suggested.after.model(mid)
        assert min(
            math.hypot(m.x - c.x, m.y - c.y) - 2 * R for c in s.unit("C").models
        ) == pytest.approx(15.74, abs=0.06)


def test_only_the_models_that_can_reach_engage_and_the_rest_close_in():
    # C1 at (20, 25). Engaged when centres are within 2 + 2 x 0.63 = 3.26".
    # B1 (20, 20): 5.00" off, needs 1.74"; B2 (22, 20): 5.39", needs 2.13"; B3 (24, 20): 6.40",
    # needs 3.14" > 3; B4, B5 further still. A 3" surge: only B1 and B2 can engage.
    b = unit("B", "red", line("B", 5, 20.0, 20.0, step=2.0), abilities=[BLOOD_SURGE])
    c = unit("C", "blue", [model("C1", 20.0, 25.0)])
    a = unit("A", "blue", line("A", 2, 40.0, 40.0))
    s = table(b, a, c)
    verdict = adjudicate(s, surge(dice=[3]))
    assert verdict.legal, failures(verdict)
    engaged = {mid for mid, r in verdict.models.items() if r["engaged_with"] == ["C"]}
    assert engaged == {"B1", "B2"}


def test_a_placement_that_engages_a_second_enemy_unit_is_illegal():
    s = worked_example()
    doc = s.to_document()
    # D1 starts 6.52 - 1.26 = 5.26" from B5, further than C (4.24"), so C is the target
    doc["units"].append(unit("D", "blue", [model("D1", 37.5, 25.5)]))
    s = Situation.from_document(doc)
    # B5 ends at (35, 23.6), 3.74" from its start: 3.14 - 1.26 = 1.88" from D1, engaged with D
    end = {
        "B1": (28.0, 24.0),
        "B2": (29.5, 24.0),
        "B3": (31.0, 24.0),
        "B4": (32.5, 24.0),
        "B5": (35.0, 23.6),
    }
    verdict = adjudicate(s, surge(end=end))
    assert not verdict.legal
    after = [f for f in failures(verdict) if f.stage == "after-moving"]
    assert after and "engaged with D" in after[0].text
    # and the engine's own suggestion keeps clear of D
    suggested = adjudicate(s, surge())
    assert suggested.legal, failures(suggested)
    assert engaged_enemy_units(suggested.after, "B") == ("C",)


def test_a_closer_aircraft_is_not_the_surge_target_of_infantry():
    s = worked_example()
    doc = s.to_document()
    doc["units"].append(
        unit("J", "blue", [model("J1", 40.0, 20.0, mm=100)], keywords=("AIRCRAFT", "FLY"))
    )
    # J1 is 6 - 0.63 - 1.97 = 3.4" from B5, closer than C (4.24"), but B cannot FLY
    verdict = adjudicate(Situation.from_document(doc), surge())
    assert verdict.legal and verdict.move["target"] == "C"


def test_a_tie_needs_the_players_choice_and_a_choice_outside_the_tie_is_refused():
    b = unit("B", "red", [model("B1", 30.0, 20.0)], abilities=[BLOOD_SURGE])
    c = unit("C", "blue", [model("C1", 30.0, 25.0)])
    d = unit("D", "blue", [model("D1", 30.0, 15.0)])
    a = unit("A", "blue", [model("A1", 50.0, 40.0)])
    s = table(b, a, c, d)
    open_tie = adjudicate(s, surge())
    assert not open_tie.legal and "C, D are equally close" in failures(open_tie)[0].text
    chosen = adjudicate(s, surge(surge_target="D"))
    assert chosen.legal and chosen.move["target"] == "D"
    assert chosen.after.model("B1").y < 20.0
    wrong = adjudicate(s, surge(surge_target="A"))
    assert not wrong.legal and "not among the closest" in failures(wrong)[0].text


def test_a_tie_is_settled_by_a_placement_that_engages_only_one_of_the_tied_units():
    """21.02 / RULES.md 1.6 (a judge's review): with C and D equally close and no surge_target
    declared, a placement engaging D alone shows the player's choice, as it would at the table;
    one engaging neither (or both) still needs the declaration."""
    b = unit("B", "red", [model("B1", 30.0, 20.0)], abilities=[BLOOD_SURGE])
    c = unit("C", "blue", [model("C1", 30.0, 25.0)])
    d = unit("D", "blue", [model("D1", 30.0, 15.0)])
    a = unit("A", "blue", [model("A1", 50.0, 40.0)])
    s = table(b, a, c, d)
    # 3.74" apart edge to edge; 2" closer leaves 1.74" to D1, 5.74" to C1
    shown = adjudicate(s, surge(end={"B1": (30.0, 18.0)}))
    assert shown.legal and shown.move["target"] == "D"
    assert any("engages only D" in f.text for f in shown.findings)
    unsettled = adjudicate(s, surge(end={"B1": (31.0, 20.0)}))
    assert not unsettled.legal and "C, D are equally close" in failures(unsettled)[0].text


def test_server_rolled_dice_are_reported_with_their_seed_and_replayed_by_judging():
    s = worked_example()
    move = suggest(s, surge(dice=None))
    verdict = adjudicate(s, move)
    assert verdict.move["dice"][0]["source"] == "server" and "seed" in verdict.move
    assert verdict.legal, failures(verdict)


def test_a_fixed_distance_surge_rolls_no_dice():
    doc = worked_example().to_document()
    doc["units"][0]["abilities"] = [{**BLOOD_SURGE, "distance": 5}]
    verdict = adjudicate(Situation.from_document(doc), surge(dice=None))
    assert verdict.legal and verdict.move["max_distance"] == 5.0 and verdict.move["dice"] == []


def test_a_surge_goes_around_solid_terrain_not_through_it():
    b = unit("B", "red", [model("B1", 30.0, 20.0)], abilities=[BLOOD_SURGE])
    c = unit("C", "blue", [model("C1", 30.0, 27.0)])
    a = unit("A", "blue", [model("A1", 50.0, 40.0)])
    wall = {
        "id": "wall",
        "type": "building",
        "category": "dense",
        "height": 6,
        "solid": True,
        "footprint": [[27, 22.5], [33, 22.5], [33, 23.5], [27, 23.5]],
    }
    s = table(b, a, c, terrain=[wall])
    # straight through the wall B1 would need 7 - 1.26 - 2 = 3.74"; around it (3.6" sideways
    # each way) it cannot engage with 4", so it ends as close as it can without crossing
    verdict = adjudicate(s, surge(dice=[4]))
    assert verdict.legal, failures(verdict)
    assert verdict.models["B1"]["engaged_with"] == []
    straight = adjudicate(s, surge(dice=[4], end={"B1": (30.0, 23.74 + 0.0)}))
    assert not straight.legal


def test_a_unit_that_can_fly_surges_toward_a_closer_aircraft_but_along_the_ground():
    b = unit(
        "B", "red", line("B", 3, 28.0, 20.0), keywords=("INFANTRY", "FLY"), abilities=[BLOOD_SURGE]
    )
    jet = unit(
        "J", "blue", [model("J1", 29.5, 25.0, mm=60)], keywords=("VEHICLE", "AIRCRAFT", "FLY")
    )
    c = unit("C", "blue", line("C", 3, 28.0, 30.0))
    a = unit("A", "blue", line("A", 3, 28.0, 40.0))
    s = table(b, jet, c, a)
    # J1 (60 mm: r 1.18") is 5 - 0.63 - 1.18 = 3.19" from B2; C is 10 - 1.26 = 8.74" away
    verdict = adjudicate(s, surge(dice=[4]))
    assert verdict.legal, failures(verdict)
    assert verdict.move["target"] == "J"
    assert all(r["engaged_with"] == ["J"] for r in verdict.models.values())
    assert not any(f.rule == "21.03" for f in verdict.findings)


def test_when_no_legal_placement_exists_the_verdict_says_so_and_nothing_moves():
    # B1 and B2 start 12" apart (out of coherency); a 1" surge cannot bring them within 9"
    b = unit(
        "B", "red", [model("B1", 20.0, 20.0), model("B2", 32.0, 20.0)], abilities=[BLOOD_SURGE]
    )
    c = unit("C", "blue", [model("C1", 26.0, 26.0)])
    a = unit("A", "blue", [model("A1", 50.0, 40.0)])
    verdict = adjudicate(table(b, a, c), surge(dice=[1]))
    assert not verdict.legal and verdict.after is None
    assert any(f.rule == "03.03" and not f.passed for f in verdict.findings)


def test_the_verdict_is_plain_json():
    import json

    verdict = adjudicate(
        worked_example(), surge(trigger={"event": "shot", "by": "A", "destroyed": ["B4", "B5"]})
    )
    doc = json.loads(json.dumps(verdict.as_dict()))
    assert doc["legal"] and doc["move"]["target"] == "C" and doc["move"]["max_distance"] == 4.0
    assert doc["scenario"]["units"][0]["state"]["moved_this_phase"] is True


def test_an_enemy_ending_its_move_nearby_sets_off_a_fixed_8_inch_surge_in_its_movement_phase():
    ability = {
        "id": "ambush",
        "kind": "surge",
        "trigger": "enemy-ended-move-within-8",
        "distance": 8,
    }
    b = unit("B", "red", line("B", 3, 28.0, 20.0), abilities=[ability])
    # X1 ended its move at (29.5, 27.5): 7.5 - 1.26 = 6.24" from B2, within 8"
    x = unit("X", "blue", [model("X1", 29.5, 27.5)])
    doc = table(b, x).to_document()
    doc["turn"] = {"round": 3, "active_army": "blue", "phase": "movement"}
    s = Situation.from_document(doc)
    move = surge(dice=None, trigger={"event": "enemy-ended-move", "by": "X"}, ability="ambush")
    verdict = adjudicate(s, move)
    assert verdict.legal, failures(verdict)
    assert verdict.move["max_distance"] == 8.0 and verdict.move["target"] == "X"
    assert all(r["engaged_with"] == ["X"] for r in verdict.models.values())
