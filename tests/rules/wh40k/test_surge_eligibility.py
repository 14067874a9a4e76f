"""21.01-21.02 surge moves: abilities as data, triggers, limits, eligibility, the surge target."""

import pytest

from rules import InvalidInput, Situation
from rules.verdict import Verdict
from rules.wh40k.surge import (
    SurgeAbility,
    Trigger,
    choose_surge_target,
    eligibility_findings,
    find_ability,
    surge_offers,
    surge_target_candidates,
    use_record,
    uses_counting,
    without_destroyed,
)

BLOOD_SURGE = {
    "id": "blood-surge",
    "kind": "surge",
    "name": "Blood Surge",
    "trigger": "models-destroyed-by-shooting",
    "distance": "D6",
}


def model(mid, x, y, mm=32, **extra):
    return {"id": mid, "base": {"round": mm}, "x": x, "y": y, **extra}


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
    if state is not None:
        doc["state"] = state
    return doc


def situation(*units, phase="shooting", round_=2, active="blue"):
    return Situation.from_document(
        {
            "format": "arbiter.scenario/1",
            "system": "wh40k-11e",
            "name": "surge",
            "table": {"width": 60, "height": 44},
            "terrain": [],
            "armies": [{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}],
            "units": list(units),
            "turn": {"round": round_, "active_army": active, "phase": phase},
        }
    )


def berzerkers(x=30.0, y=20.0, abilities=(BLOOD_SURGE,), state=None, keywords=("INFANTRY",)):
    return unit(
        "B",
        "red",
        [model("B1", x, y), model("B2", x + 1.5, y), model("B3", x + 3.0, y)],
        keywords=keywords,
        abilities=abilities,
        state=state,
    )


def shooters(uid="A", x=30.0, y=35.0, keywords=("INFANTRY",)):
    return unit(
        uid, "blue", [model(f"{uid}1", x, y), model(f"{uid}2", x + 1.5, y)], keywords=keywords
    )


def passed(findings):
    return all(f.passed for f in findings)


# -- abilities as data ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "distance, rolls, expected",
    [("D6", [4], 4.0), ("D6+1", [4], 5.0), ("D6+2", [1], 3.0), (8, [], 8.0), (3.5, [], 3.5)],
)
def test_a_surge_distance_is_a_d6_plus_a_bonus_or_a_fixed_number(distance, rolls, expected):
    ability = SurgeAbility.from_document({**BLOOD_SURGE, "distance": distance})
    assert ability.dice == (1 if isinstance(distance, str) else 0)
    assert ability.max_distance(rolls) == expected


@pytest.mark.parametrize(
    "bad",
    [
        {"distance": "2D8"},
        {"distance": -1},
        {"trigger": "charged"},
        {"limit": "twice-per-game"},
        {"id": ""},
    ],
)
def test_a_malformed_surge_ability_is_refused_naming_the_field(bad):
    with pytest.raises(InvalidInput) as err:
        SurgeAbility.from_document({**BLOOD_SURGE, **bad})
    assert err.value.field.startswith("ability.")


def test_a_trigger_with_an_unknown_field_is_refused():
    with pytest.raises(InvalidInput) as err:
        Trigger.from_document({"event": "shot", "by": "A", "kills": 2})
    assert err.value.field == "declarations.trigger.kills"


def test_destroyed_models_are_counted_and_taken_off_before_the_surge():
    s = situation(berzerkers(), shooters())
    trigger = Trigger.from_document({"event": "shot", "by": "A", "destroyed": ["B2", "B3"]})
    assert trigger.models_destroyed == 2
    after = without_destroyed(s, "B", trigger)
    assert [m.id for m in after.unit("B").models] == ["B1"]


def test_destroying_a_model_of_another_unit_is_refused():
    s = situation(berzerkers(), shooters())
    trigger = Trigger.from_document({"event": "shot", "by": "A", "destroyed": ["A1"]})
    with pytest.raises(InvalidInput):
        without_destroyed(s, "B", trigger)


# -- triggers -------------------------------------------------------------------------------------
def offers_for(s, event, unit_id="B"):
    return {(u, a): f for u, a, f in surge_offers(s, unit_id, event)}


def test_a_shot_that_destroys_models_offers_blood_surge():
    s = situation(berzerkers(), shooters())
    findings = offers_for(
        s, {"event": "shot", "by": "A", "hits": 5, "wounds_lost": 3, "models_destroyed": 2}
    )
    assert passed(findings[("B", "blood-surge")])
    assert all(
        f.rule == "21.02" and f.stage == "eligible-if" for f in findings[("B", "blood-surge")]
    )


def test_hits_without_casualties_do_not_trigger_a_models_destroyed_surge():
    s = situation(berzerkers(), shooters())
    findings = offers_for(s, {"event": "shot", "by": "A", "hits": 5, "wounds_lost": 0})
    first = findings[("B", "blood-surge")][0]
    assert not first.passed and "destroyed" in first.text


@pytest.mark.parametrize(
    "trigger, event, met",
    [
        ("models-hit-by-shooting", {"hits": 1}, True),
        ("models-hit-by-shooting", {}, False),
        ("wounds-lost-to-shooting", {"hits": 3, "wounds_lost": 1}, True),
        ("wounds-lost-to-shooting", {"hits": 3}, False),
        (
            "wounds-lost-to-shooting",
            {"models_destroyed": 1},
            True,
        ),  # a destroyed model lost a wound
    ],
)
def test_each_shooting_trigger_needs_its_own_kind_of_harm(trigger, event, met):
    s = situation(berzerkers(abilities=[{**BLOOD_SURGE, "trigger": trigger}]), shooters())
    findings = offers_for(s, {"event": "shot", "by": "A", **event})
    assert findings[("B", "blood-surge")][0].passed is met


def test_an_enemy_ending_a_move_within_8_inches_triggers_that_kind_of_surge():
    ability = {**BLOOD_SURGE, "trigger": "enemy-ended-move-within-8"}
    # B3 at x=33; X1 at x=41.5: centres 8.5" apart, minus two 16 mm radii (1.26"): 7.24" apart
    near = situation(
        berzerkers(abilities=[ability]),
        unit("X", "blue", [model("X1", 41.5, 20.0)]),
        phase="movement",
    )
    assert offers_for(near, {"event": "enemy-ended-move", "by": "X"})[("B", "blood-surge")][
        0
    ].passed
    # X1 at x=43: 10 - 1.26 = 8.74" away
    far = situation(
        berzerkers(abilities=[ability]),
        unit("X", "blue", [model("X1", 43.0, 20.0)]),
        phase="movement",
    )
    first = offers_for(far, {"event": "enemy-ended-move", "by": "X"})[("B", "blood-surge")][0]
    assert not first.passed and first.text.startswith('X ended its move 8.74"')
    # the finding carries the measurement and the limit: 8.74" against 8"
    assert round(first.measured, 2) == 8.74 and first.limit == 8.0


def test_a_friendly_unit_cannot_trigger_a_surge():
    s = situation(berzerkers(), unit("F", "red", [model("F1", 10, 10)]), shooters())
    first = offers_for(s, {"event": "shot", "by": "F", "models_destroyed": 1})[
        ("B", "blood-surge")
    ][0]
    assert not first.passed and "friendly" in first.text


def test_offers_after_a_shot_need_the_unit_that_was_shot():
    s = situation(berzerkers(), shooters())
    with pytest.raises(InvalidInput):
        surge_offers(s, None, SHOT)


def test_offers_for_every_unit_list_each_surge_ability():
    other = unit(
        "K",
        "red",
        [model("K1", 10, 10)],
        abilities=[{**BLOOD_SURGE, "id": "k-surge", "trigger": "enemy-ended-move-within-8"}],
    )
    s = situation(berzerkers(), other, shooters())
    offers = surge_offers(s, None, {"event": "enemy-ended-move", "by": "A"})
    assert [(u, a) for u, a, _ in offers] == [("B", "blood-surge"), ("K", "k-surge")]


# -- eligibility ----------------------------------------------------------------------------------
def eligibility(s, trigger=None, ability_id=None):
    u = s.unit("B")
    ability, why = find_ability(u, ability_id)
    return eligibility_findings(
        s, u, ability, Trigger.from_document(trigger) if trigger else None, why
    )


SHOT = {"event": "shot", "by": "A", "models_destroyed": 1}


def test_a_battle_shocked_unit_is_not_eligible():
    s = situation(berzerkers(state={"battle_shocked": True}), shooters())
    failed = [f for f in eligibility(s, SHOT) if not f.passed]
    assert len(failed) == 1 and "battle-shocked" in failed[0].text


def test_an_engaged_unit_is_not_eligible():
    # A1 at (30, 21.5): 1.5" from B1's centre, bases touching-ish: engaged
    s = situation(berzerkers(), shooters(x=30.0, y=22.0))
    failed = [f for f in eligibility(s, SHOT) if not f.passed]
    assert len(failed) == 1 and "engaged with A" in failed[0].text


def test_a_unit_that_moved_this_phase_is_not_eligible():
    s = situation(berzerkers(state={"moved_this_phase": True}), shooters())
    failed = [f for f in eligibility(s, SHOT) if not f.passed]
    assert len(failed) == 1 and "already moved" in failed[0].text


def test_without_a_trigger_the_surge_is_not_eligible():
    s = situation(berzerkers(), shooters())
    failed = [f for f in eligibility(s) if not f.passed]
    assert len(failed) == 1 and "not been triggered" in failed[0].text


def test_a_unit_without_a_surge_ability_cannot_surge():
    s = situation(berzerkers(abilities=()), shooters())
    failed = [f for f in eligibility(s, SHOT) if not f.passed]
    assert "no ability that grants a surge" in failed[0].text


def test_every_failed_condition_is_reported_not_only_the_first():
    s = situation(berzerkers(state={"moved_this_phase": True, "battle_shocked": True}), shooters())
    assert len([f for f in eligibility(s, SHOT) if not f.passed]) == 2


def test_a_once_per_phase_ability_used_this_phase_is_refused_but_not_next_phase():
    ability = {**BLOOD_SURGE, "limit": "once-per-phase"}
    used = [{"ability": "blood-surge", "round": 2, "turn": "blue", "phase": "shooting"}]
    s = situation(berzerkers(abilities=[ability], state={"surges_used": used}), shooters())
    failed = [f.text for f in eligibility(s, SHOT) if not f.passed]
    # Both the limit and "a surge is a move" (RULES.md 1.6): it surged this phase.
    assert len(failed) == 2 and "already used it this phase" in failed[0]
    assert "already surged this phase" in failed[1]
    later = situation(
        berzerkers(abilities=[ability], state={"surges_used": used}), shooters(), phase="fight"
    )
    assert passed(eligibility(later, SHOT))


def test_a_once_per_battle_ability_stays_used():
    ability = {**BLOOD_SURGE, "limit": "once-per-battle"}
    used = [{"ability": "blood-surge", "round": 1, "turn": "red", "phase": "movement"}]
    s = situation(
        berzerkers(abilities=[ability], state={"surges_used": used}), shooters(), round_=4
    )
    assert not passed(eligibility(s, SHOT))


def test_a_use_is_recorded_with_round_turn_and_phase():
    ability = SurgeAbility.from_document({**BLOOD_SURGE, "limit": "once-per-turn"})
    s = situation(berzerkers(), shooters())
    record = use_record(s, s.unit("B"), ability)
    assert record == [{"ability": "blood-surge", "round": 2, "turn": "blue", "phase": "shooting"}]
    after = s.moved(state={"B": {"surges_used": record}})
    assert len(uses_counting(after, after.unit("B"), ability)) == 1


# -- the surge target -----------------------------------------------------------------------------
def test_the_surge_target_is_the_closest_enemy_unit():
    s = situation(berzerkers(), shooters(y=35.0), unit("C", "blue", [model("C1", 31.5, 26.0)]))
    choice = surge_target_candidates(s, s.unit("B"))
    # B2 (31.5, 20) to C1 (31.5, 26): 6 - 1.26 = 4.74"
    assert choice.candidates == ("C",) and choice.distance == pytest.approx(6 - 32 / 25.4)


def test_a_closer_aircraft_is_ignored_by_a_unit_that_cannot_fly_and_chosen_by_one_that_can():
    jet = unit(
        "J", "blue", [model("J1", 31.5, 24.0, mm=60)], keywords=("VEHICLE", "AIRCRAFT", "FLY")
    )
    far = unit("C", "blue", [model("C1", 31.5, 30.0)])
    s = situation(berzerkers(), jet, far)
    walker = surge_target_candidates(s, s.unit("B"))
    assert walker.candidates == ("C",) and walker.ignored_aircraft == ("J",)
    s2 = situation(berzerkers(keywords=("INFANTRY", "FLY")), jet, far)
    assert surge_target_candidates(s2, s2.unit("B")).candidates == ("J",)


def test_equally_close_units_are_listed_for_the_player_to_choose():
    # C1 and D1 both 5" from B2's centre in x/y: mirror images
    s = situation(
        berzerkers(),
        unit("C", "blue", [model("C1", 31.5, 25.0)]),
        unit("D", "blue", [model("D1", 31.5, 15.0)]),
    )
    assert surge_target_candidates(s, s.unit("B")).candidates == ("C", "D")
    v = Verdict(move={})
    assert choose_surge_target(s, s.unit("B"), None, v) is None and "chooses" in v.findings[-1].text
    v = Verdict(move={})
    assert choose_surge_target(s, s.unit("B"), "D", v) == "D" and v.legal
    far = situation(
        berzerkers(),
        unit("C", "blue", [model("C1", 31.5, 25.0)]),
        unit("D", "blue", [model("D1", 31.5, 15.0)]),
        unit("E", "blue", [model("E1", 50, 40)]),
    )
    v = Verdict(move={})
    assert choose_surge_target(far, far.unit("B"), "E", v) is None
    assert "not among the closest" in v.findings[-1].text


def test_naming_a_farther_unit_as_the_surge_target_is_refused():
    s = situation(
        berzerkers(),
        unit("C", "blue", [model("C1", 31.5, 25.0)]),
        unit("D", "blue", [model("D1", 31.5, 10.0)]),
    )
    v = Verdict(move={})
    assert choose_surge_target(s, s.unit("B"), "D", v) is None
    assert not v.legal and "must be the closest enemy unit, C" in v.findings[-1].text
