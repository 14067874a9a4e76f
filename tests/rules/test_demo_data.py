"""The demo data in battlefield/demo: scenarios, worked-example moves and the unit catalogue.

These files feed `manage.py load_demo`, the built-in lessons and the end-to-end tests, so they
must be valid input (FORMAT.md) and their geometry must really show what the rules examples in
RULES.md 3 describe. Measurements use rules.geometry, the same code the engine judges with.
"""

import itertools
import json
import math
import pathlib

import pytest
from shapely.geometry import LineString
from shapely.ops import unary_union

from rules import SYSTEMS, Move, Situation, adjudicate
from rules.geometry import Base, footprint_distance, within
from rules.situation import overlap
from rules.systems import SYSTEMS as SYSTEM_UNITS

DEMO = pathlib.Path(__file__).resolve().parents[2] / "battlefield" / "demo"
SCENARIOS = sorted((DEMO / "scenarios").glob("*.json"))
MOVES = sorted((DEMO / "moves").glob("*.json"))
PROFILES = json.loads((DEMO / "unit_profiles.json").read_text())

ENGAGEMENT_RANGE = (2.0, 5.0)  # RULES.md 1.2: 2" horizontally, 5" vertically
COHERENCY = (2.0, 9.0)  # RULES.md 1.2: 2" to one model, 9" to every model

#: Keywords the catalogue may use: the engine's own (FORMAT.md) plus a few descriptive ones
#: that it carries along unread (listed in battlefield/demo/README.md).
KNOWN_KEYWORDS = {
    "wh40k-11e": {
        "INFANTRY",
        "FLY",
        "MONSTER",
        "VEHICLE",
        "AIRCRAFT",
        "BEASTS",
        "SWARM",
        "MOBILE",
        "HOVER",
        "MOUNTED",
        "WALKER",
        "TRANSPORT",
        "CHARACTER",
        "BATTLELINE",
        "TITANIC",
        "TOWERING",
    },
    "warmaster-revolution": {
        "INFANTRY",
        "CAVALRY",
        "CHARIOT",
        "ARTILLERY",
        "MONSTER",
        "MACHINE",
        "CHARACTER",
        "GENERAL",
        "HERO",
        "WIZARD",
        "FLYING",
    },
}
#: RULES.md 1.1 typical 40K bases (mm).
ROUND_40K = {25, 28.5, 32, 40, 50, 60, 80, 90, 100, 130, 160}
OVAL_40K = {(75, 25), (60, 35.5), (95, 40), (90, 52), (105, 70), (120, 92), (150, 95), (170, 109)}
SURGE_TRIGGERS = {
    "models-destroyed-by-shooting",
    "models-hit-by-shooting",
    "wounds-lost-to-shooting",
    "enemy-ended-move-within-8",
}
SURGE_LIMITS = {None, "once-per-phase", "once-per-turn", "once-per-battle"}
#: The fields an ability may have in a scenario (FORMAT.md plus the site's scenario schema).
ABILITY_FIELDS = {"id", "name", "kind", "trigger", "distance", "limit", "text"}


def load(name: str) -> dict:
    return json.loads((DEMO / name).read_text())


def situation(name: str) -> Situation:
    return Situation.from_document(load(f"scenarios/{name}.json"))


def gap(s: Situation, a: str, b: str) -> float:
    """Horizontal edge-to-edge distance between two models (RULES.md 1.1)."""
    ma, mb = s.model(a), s.model(b)
    return footprint_distance(ma.base, ma.pos, mb.base, mb.pos)


def engaged(s: Situation, a: str, b: str) -> bool:
    h, v = ENGAGEMENT_RANGE
    return within(gap(s, a, b), h) and within(abs(s.model(a).z - s.model(b).z), v)


def unit_engaged(s: Situation, unit_a: str, unit_b: str) -> bool:
    return any(engaged(s, a.id, b.id) for a in s.unit(unit_a).models for b in s.unit(unit_b).models)


def unit_distance(s: Situation, unit_a: str, unit_b: str) -> float:
    """Straight distance between two units: the least over their model pairs (RULES.md 1.1)."""
    return min(
        math.hypot(gap(s, a.id, b.id), a.z - b.z)
        for a in s.unit(unit_a).models
        for b in s.unit(unit_b).models
    )


def in_coherency(s: Situation, unit_id: str) -> bool:
    """RULES.md 1.2: every model within 2" of another, within 9" of all, links connected."""
    models = [m.id for m in s.unit(unit_id).models]
    if len(models) == 1:
        return True
    near, far = COHERENCY
    if not all(within(gap(s, a, b), far) for a, b in itertools.combinations(models, 2)):
        return False
    linked, frontier = {models[0]}, [models[0]]
    while frontier:
        a = frontier.pop()
        for b in models:
            if b not in linked and within(gap(s, a, b), near):
                linked.add(b)
                frontier.append(b)
    return linked == set(models)


def apply(s: Situation, move: dict) -> Situation:
    """The situation with the move's end poses, checked again for overlapping models."""
    return Situation.from_document(s.moved(move["end"]).to_document())


# -- every file ---------------------------------------------------------------------------------


def test_there_is_demo_data_to_load():
    assert {p.stem for p in SCENARIOS} >= {
        "surge-berzerkers",
        "riptide-takes-to-the-skies",
        "40k-battlefield",
        "warmaster-flyers",
    }
    assert {p.stem for p in MOVES} >= {"surge-berzerkers", "riptide-takes-to-the-skies"}


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_scenario_loads_and_round_trips(path):
    doc = json.loads(path.read_text())
    s = Situation.from_document(doc)
    assert s.to_document() == doc
    assert Situation.from_document(s.to_document()) == s


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_no_model_stands_inside_a_solid_feature_and_every_unit_is_whole(path):
    s = Situation.from_document(json.loads(path.read_text()))
    for m in s.models():
        for t in s.terrain:
            if t.solid:
                assert not m.footprint.intersects(t.footprint), (m.id, t.id)
    if s.system == "wh40k-11e":
        assert all(in_coherency(s, u.id) for u in s.units)
    else:
        # RULES.md 2.1: every stand touches another stand of its unit.
        for u in s.units:
            for a in u.models:
                assert len(u.models) == 1 or any(
                    a.footprint.distance(b.footprint) <= 1e-6 for b in u.models if b is not a
                ), a.id


@pytest.mark.parametrize("path", MOVES, ids=lambda p: p.stem)
def test_every_move_parses_and_moves_only_its_own_unit(path):
    doc = json.loads(path.read_text())
    s = Situation.from_document(json.loads((DEMO / "scenarios" / path.name).read_text()))
    move = Move.from_document(doc, s.system)
    assert move.to_document() == doc
    unit_models = {m.id for m in s.unit(move.unit).models}
    assert set(move.end) <= unit_models


@pytest.mark.parametrize("path", MOVES, ids=lambda p: p.stem)
def test_the_engine_finds_every_demo_move_legal(path):
    """End to end: once a move type's rule is registered, the worked example must pass it."""
    s = Situation.from_document(json.loads((DEMO / "scenarios" / path.name).read_text()))
    move = Move.from_document(json.loads(path.read_text()), s.system)
    assert SYSTEMS[s.system].move_types[move.type].judged, f"{move.type} is not judged"
    verdict = adjudicate(s, move)
    assert verdict.legal, [f.as_dict() for f in verdict.failures]


# -- the unit catalogue -------------------------------------------------------------------------


def test_the_catalogue_has_at_least_thirty_units_across_both_systems():
    assert len(PROFILES) >= 30
    assert {p["system"] for p in PROFILES} == set(SYSTEM_UNITS)
    names = [(p["system"], p["name"]) for p in PROFILES]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p["name"])
def test_every_profile_has_a_valid_base_and_known_keywords(profile):
    assert set(profile) == {
        "system",
        "name",
        "faction",
        "keywords",
        "move",
        "base",
        "models",
        "abilities",
    }
    assert profile["faction"].strip()  # the editor's catalogue is grouped by faction
    system = profile["system"]
    assert set(profile["keywords"]) <= KNOWN_KEYWORDS[system]
    assert profile["move"] > 0 and isinstance(profile["models"], int) and profile["models"] >= 1
    assert all(set(a) <= ABILITY_FIELDS and a.get("kind") for a in profile["abilities"])
    # A one-model scenario proves the base is one the engine accepts.
    doc = {
        "format": "arbiter.scenario/1",
        "system": system,
        "table": {"width": 100, "height": 100},
        "armies": [{"id": "a"}],
        "units": [
            {
                "id": "u",
                "army": "a",
                "keywords": profile["keywords"],
                "move": profile["move"],
                "abilities": profile["abilities"],
                "models": [{"id": "m", "base": profile["base"], "x": 50, "y": 50}],
            }
        ],
    }
    model = Situation.from_document(doc).model("m")
    assert model.footprint.area > 0
    if system == "wh40k-11e":
        kind, size = next(iter(profile["base"].items()))
        if kind == "round":
            assert size in ROUND_40K
        elif kind == "oval":
            assert tuple(size) in OVAL_40K
        else:
            assert kind == "hull" and "VEHICLE" in profile["keywords"]


def test_surge_abilities_are_data_the_engine_can_read():
    surges = {p["name"]: a for p in PROFILES for a in p["abilities"] if a["kind"] == "surge"}
    for ability in surges.values():
        assert set(ability) == {"id", "kind", "trigger", "distance", "limit"}
        assert ability["trigger"] in SURGE_TRIGGERS and ability["limit"] in SURGE_LIMITS
        assert ability["distance"] in ("D6", "D6+1", "D6+2") or isinstance(ability["distance"], int)
    # RULES.md 1.6: the four datasheet examples.
    assert (surges["Khorne Berzerkers"]["distance"], surges["Khorne Berzerkers"]["trigger"]) == (
        "D6",
        "models-destroyed-by-shooting",
    )
    assert (
        surges["Carnifexes"]["distance"],
        surges["Carnifexes"]["trigger"],
        surges["Carnifexes"]["limit"],
    ) == ("D6+2", "wounds-lost-to-shooting", "once-per-phase")
    assert (
        surges["Black Templars Crusader Squad"]["distance"],
        surges["Black Templars Crusader Squad"]["trigger"],
    ) == ("D6+1", "models-destroyed-by-shooting")
    assert (
        surges["Death Company Dreadnought"]["distance"],
        surges["Death Company Dreadnought"]["trigger"],
    ) == ("D6+1", "models-hit-by-shooting")


def test_the_40k_catalogue_covers_every_keyword_the_engine_moves_differently():
    keywords = set().union(*(p["keywords"] for p in PROFILES if p["system"] == "wh40k-11e"))
    assert {"INFANTRY", "FLY", "MONSTER", "VEHICLE", "AIRCRAFT", "BEASTS", "SWARM"} <= keywords
    for p in PROFILES:
        if "AIRCRAFT" in p["keywords"]:
            assert "FLY" in p["keywords"] and "oval" in p["base"], p["name"]  # flying bases


def test_warmaster_profiles_move_at_their_troop_type_pace():
    """RULES.md 2.1: infantry 20, cavalry and chariots 30, artillery 10, monsters 20,
    characters 60, flyers 100 (cm); infantry stands face a long edge, cavalry a short one."""
    pace = {
        "INFANTRY": 20,
        "CAVALRY": 30,
        "CHARIOT": 30,
        "ARTILLERY": 10,
        "MONSTER": 20,
        "CHARACTER": 60,
    }
    for p in PROFILES:
        if p["system"] != "warmaster-revolution":
            continue
        if "FLYING" in p["keywords"]:
            assert p["move"] == 100, p["name"]
        else:
            assert p["move"] == next(v for k, v in pace.items() if k in p["keywords"]), p["name"]
        if p["keywords"] == ["INFANTRY"]:
            assert p["base"] == {"rect": [40, 20]}
        if p["keywords"] == ["CAVALRY"]:
            assert p["base"] == {"rect": [20, 40]}
    flyers = [p["name"] for p in PROFILES if "FLYING" in p["keywords"]]
    assert {"Giant Eagles", "Chaos Harpies", "Bretonnian Pegasus Knights"} <= set(flyers)
    mounts = [p for p in PROFILES if "CHARACTER" in p["keywords"] and "FLYING" in p["keywords"]]
    assert mounts and all(any(a["kind"] == "mount" for a in p["abilities"]) for p in mounts)


# -- RULES.md 3.1: the surge worked example -------------------------------------------------------


def test_the_berzerkers_have_lost_two_models_and_c_is_their_closest_enemy():
    s = situation("surge-berzerkers")
    b = s.unit("B")
    assert len(b.models) == 10 - 2
    assert b.ability("blood-surge")["distance"] == "D6"
    assert (s.turn.phase, s.turn.active_army) == ("shooting", s.unit("A").army)
    assert not b.flag("battle_shocked") and not b.flag("moved_this_phase")
    assert not any(unit_engaged(s, "B", e.id) for e in s.enemies_of(b))  # eligible: unengaged
    distances = {e.id: unit_distance(s, "B", e.id) for e in s.enemies_of(b)}
    assert min(distances, key=distances.get) == "C"
    assert distances["C"] < distances["A"]


def test_with_a_four_every_berzerker_ends_engaged_with_c_and_only_c():
    s = situation("surge-berzerkers")
    move = load("moves/surge-berzerkers.json")
    assert move["dice"] == [4] and move["declarations"]["trigger"] == {
        "event": "shot",
        "by": "A",
        "models_destroyed": 2,
    }
    after = apply(s, move)
    assert set(move["end"]) == {m.id for m in s.unit("B").models}
    obstacles = unary_union(
        [t.footprint for t in s.terrain]
        + [m.footprint for e in s.enemies_of(s.unit("B")) for m in e.models]
    )
    for model in s.unit("B").models:
        end = after.model(model.id)
        # The straight line is an unobstructed path, so its length is the distance moved.
        path = LineString([(model.x, model.y), (end.x, end.y)])
        assert not path.intersects(obstacles)
        assert within(path.length, 4.0)
        assert any(engaged(after, model.id, c.id) for c in after.unit("C").models), model.id
    assert not unit_engaged(after, "B", "A")
    assert in_coherency(after, "B")


def test_before_the_roll_each_berzerker_could_reach_c_with_a_four():
    """Each survivor's edge is within 4 + 2 = 6" of C's nearest base, so a 4 is enough."""
    s = situation("surge-berzerkers")
    for model in s.unit("B").models:
        nearest = min(gap(s, model.id, c.id) for c in s.unit("C").models)
        assert 2.0 < nearest <= 6.0


# -- RULES.md 3.2: the Riptide takes to the skies ------------------------------------------------


def test_the_riptide_flies_fourteen_inches_over_vehicles_and_terrain():
    s = situation("riptide-takes-to-the-skies")
    riptide = s.unit("R")
    move = load("moves/riptide-takes-to-the-skies.json")
    assert riptide.has("FLY") and riptide.move == 10
    assert move["type"] == "advance" and move["declarations"] == {"take_to_the_skies": True}
    # advance: M + D6 = 10 + 6 = 16"; taking to the skies takes 2" off: 14"
    maximum = riptide.move + move["dice"][0] - 2
    assert maximum == 14
    start, end = riptide.models[0], apply(s, move).model("R1")
    line = LineString([(start.x, start.y), (end.x, end.y)])
    assert 13.0 <= line.length <= maximum
    crossed = [m for e in s.enemies_of(riptide) for m in e.models if line.intersects(m.footprint)]
    assert any(s.unit(m.unit).has("VEHICLE") for m in crossed)
    assert any(line.intersects(t.footprint) for t in s.terrain)


def test_on_the_ground_the_riptide_could_not_reach_that_spot_with_sixteen_inches():
    """Blocked: enemy VEHICLE hulls (it may not pass through them, 17.01), solid features, and
    dense features over 2" tall whose climb up and down (2 x height) plus the straight distance
    already exceeds 16". With those grown by the base's radius, start and end are cut apart."""
    s = situation("riptide-takes-to-the-skies")
    riptide = s.unit("R")
    start = riptide.models[0]
    end = apply(s, load("moves/riptide-takes-to-the-skies.json")).model("R1")
    straight = math.hypot(end.x - start.x, end.y - start.y)
    blockers = [
        m.footprint
        for e in s.enemies_of(riptide)
        for m in e.models
        if s.unit(m.unit).has("VEHICLE") or s.unit(m.unit).has("MONSTER")
    ]
    blockers += [
        t.footprint
        for t in s.terrain
        if t.solid or (t.category == "dense" and t.height > 2 and straight + 2 * t.height > 16)
    ]
    free = s.table.area.difference(unary_union(blockers).buffer(start.base.radius))
    pieces = list(getattr(free, "geoms", [free]))
    holding = [
        i
        for i, piece in enumerate(pieces)
        for p in (start, end)
        if piece.distance(LineString([(p.x, p.y), (p.x, p.y + 1e-9)])) < 1e-9
    ]
    assert len(holding) == 2 and holding[0] != holding[1]


def test_the_riptide_ends_unengaged_and_on_open_ground():
    s = situation("riptide-takes-to-the-skies")
    after = apply(s, load("moves/riptide-takes-to-the-skies.json"))
    assert not any(unit_engaged(after, "R", e.id) for e in after.enemies_of(after.unit("R")))
    assert not any(
        after.model("R1").footprint.intersects(t.footprint) for t in after.terrain if t.solid
    )


# -- the big tables -----------------------------------------------------------------------------


def test_the_40k_battlefield_has_every_kind_of_unit_and_terrain():
    s = situation("40k-battlefield")
    assert (s.table.width, s.table.height) == (60, 44)
    keywords = set().union(*(u.keywords for u in s.units))
    assert {"FLY", "INFANTRY", "VEHICLE", "MONSTER", "AIRCRAFT"} <= keywords
    kinds = {m.base.kind for m in s.models()}
    assert {"round", "oval", "hull"} <= kinds
    assert any(m.base.kind == "oval" and m.facing % 180 for m in s.models())
    ruins = [t for t in s.terrain if t.category == "dense" and not t.solid]
    assert len(ruins) >= 3 and all(3 <= t.height <= 9 for t in ruins)
    assert len({round(t.footprint.area) for t in ruins}) >= 3  # several sizes
    assert {"light", "exposed"} <= {t.category for t in s.terrain}
    assert any(t.solid for t in s.terrain)
    for a, b in itertools.combinations(list(s.models()), 2):
        assert not overlap(a, b)


def test_the_warmaster_table_has_flyers_characters_and_every_terrain_type():
    s = situation("warmaster-flyers")
    assert (s.table.width, s.table.height) == (180, 120)
    command = {
        k: u.state.get("command")
        for u in s.units
        for k in ("GENERAL", "HERO", "WIZARD")
        if u.has(k)
    }
    assert command == {"GENERAL": 9, "HERO": 8, "WIZARD": 7}
    assert any(u.has("FLYING") and not u.has("CHARACTER") for u in s.units)
    assert any(u.has("FLYING") and u.has("CHARACTER") for u in s.units)
    assert {"woods", "river", "hill", "village", "impassable"} <= {t.type for t in s.terrain}
    # Stands are 4 x 2 cm: 40 x 20 mm at 10 mm to the cm.
    assert all(
        m.base in (Base("rect", (4.0, 2.0)), Base("rect", (2.0, 4.0))) or m.base.kind == "round"
        for m in s.models()
    )
    # Nobody starts in woods or impassable ground unless infantry may be there (RULES.md 2.2).
    for u in s.units:
        for m in u.models:
            for t in s.terrain:
                if t.type in ("woods", "impassable"):
                    assert not m.footprint.intersects(t.footprint), (m.id, t.id)


def test_warmaster_ground_units_stand_in_line_or_column():
    """A line: stands side by side, front edges level. A column: one behind another."""
    s = situation("warmaster-flyers")
    for u in s.units:
        if len(u.models) < 2 or u.has("FLYING"):
            continue
        facing = {m.facing for m in u.models}
        assert len(facing) == 1, u.id
        (angle,) = facing
        ahead = (math.cos(math.radians(angle)), math.sin(math.radians(angle)))
        depth = {round(m.x * ahead[0] + m.y * ahead[1], 6) for m in u.models}
        across = {round(-m.x * ahead[1] + m.y * ahead[0], 6) for m in u.models}
        assert len(depth) == 1 or len(across) == 1, u.id  # line, or column


# -- the smaller lessons ------------------------------------------------------------------------


def test_a_berzerker_surge_looks_past_the_aircraft_to_c():
    """RULES.md 1.6 / 23.02: a unit that cannot FLY ignores AIRCRAFT when finding its target."""
    s = situation("surge-ignores-aircraft")
    b = s.unit("B")
    assert not b.has("FLY")
    distances = {e.id: unit_distance(s, "B", e.id) for e in s.enemies_of(b)}
    assert s.unit(min(distances, key=distances.get)).has("AIRCRAFT")
    ground = {k: v for k, v in distances.items() if not s.unit(k).has("AIRCRAFT")}
    assert min(ground, key=ground.get) == "C"
    after = apply(s, load("moves/surge-ignores-aircraft.json"))
    assert all(
        any(engaged(after, m.id, c.id) for c in after.unit("C").models)
        for m in after.unit("B").models
    )
    assert [e.id for e in after.enemies_of(b) if unit_engaged(after, "B", e.id)] == ["C"]


def test_the_eagles_roll_more_than_the_gap_and_home_back_into_touch():
    """RULES.md 2.4: 1D6 x 10 cm; a roll over the gap ends in touch with the character."""
    s = situation("warmaster-home-back")
    move = load("moves/warmaster-home-back.json")
    eagles, general = s.unit("eagles"), s.unit(move["declarations"]["home_back_to"])
    assert eagles.has("FLYING") and general.has("CHARACTER")
    start_gap = min(
        a.footprint.distance(b.footprint) for a in eagles.models for b in general.models
    )
    # eligible: more than 20 cm from every friendly character
    for friend in s.friends_of(eagles):
        if friend.has("CHARACTER"):
            assert (
                min(a.footprint.distance(b.footprint) for a in eagles.models for b in friend.models)
                > 20
            )
    assert move["dice"][0] * 10 > start_gap  # 5 x 10 = 50 cm > 46 cm
    after = apply(s, move)
    moved = after.unit("eagles")
    assert (
        min(a.footprint.distance(b.footprint) for a in moved.models for b in general.models) <= 1e-6
    )
    shifts = {
        (round(b.x - a.x, 6), round(b.y - a.y, 6))
        for a, b in zip(eagles.models, moved.models, strict=True)
    }
    assert len(shifts) == 1  # one straight move for the block, no stand turned
    assert all(a.facing == b.facing for a, b in zip(eagles.models, moved.models, strict=True))
    (shift,) = shifts
    assert math.hypot(*shift) == pytest.approx(start_gap)  # the whole 46 cm gap...
    toward = (
        general.models[0].x - sum(m.x for m in eagles.models) / len(eagles.models),
        general.models[0].y - sum(m.y for m in eagles.models) / len(eagles.models),
    )
    assert shift[0] * toward[1] - shift[1] * toward[0] == pytest.approx(0)  # ...straight at
    assert shift[0] * toward[0] + shift[1] * toward[1] > 0  # the General
    woods = [t.footprint for t in s.terrain if t.type == "woods"]
    assert any(
        LineString([(m.x, m.y), (m.x + shift[0], m.y + shift[1])]).intersects(w)
        for m in eagles.models
        for w in woods
    )  # it flew over a wood...
    assert not any(m.footprint.intersects(w) for m in moved.models for w in woods)  # ...not into it


def test_the_pegasus_knights_are_driven_back_over_a_wood_and_land_beyond_it():
    """RULES.md 2.6: straight away from the shooting stand, 1D6 per hit, over the wood."""
    s = situation("warmaster-drive-back")
    move = load("moves/warmaster-drive-back.json")
    pegasus = s.unit(move["unit"])
    shooter = s.model(move["declarations"]["shooter"])
    assert len(move["dice"]) == move["declarations"]["hits"] and 6 not in move["dice"]
    total = sum(move["dice"])  # 4 + 5 = 9 cm, less than the 100 cm pace
    assert total < pegasus.move
    after = apply(s, move)
    shifts = {
        (round(b.x - a.x, 6), round(b.y - a.y, 6))
        for a, b in zip(pegasus.models, after.unit(move["unit"]).models, strict=True)
    }
    (shift,) = shifts
    assert math.hypot(*shift) == pytest.approx(total)
    cx = sum(m.x for m in pegasus.models) / len(pegasus.models)
    cy = sum(m.y for m in pegasus.models) / len(pegasus.models)
    away = (cx - shooter.x, cy - shooter.y)
    assert shift[0] * away[1] - shift[1] * away[0] == pytest.approx(0)  # parallel...
    assert shift[0] * away[0] + shift[1] * away[1] > 0  # ...and away from the shooter
    woods = [t.footprint for t in s.terrain if t.type == "woods"]
    assert any(
        LineString([(m.x, m.y), (m.x + shift[0], m.y + shift[1])]).intersects(w)
        for m in pegasus.models
        for w in woods
    )
    assert not any(
        m.footprint.intersects(w) for m in after.unit(move["unit"]).models for w in woods
    )
