"""The built-in lessons in battlefield/demo/lessons (format in that folder's README.md).

A lesson is narration over a scenario plus a "try it" move the player makes and is judged on, so
a broken lesson is a broken first evening with Arbiter. These tests check that every file is
valid, that the eight lessons issue 6 asks for are there, that each "try it" situation really
shows what its narration teaches (measured with rules.geometry, the engine's own measuring), and,
once the engine judges a lesson's move type, that the engine's own Suggest passes the lesson.
"""

import itertools
import json
import math
import pathlib
import re

import pytest
from shapely.geometry import LineString, box

from rules import SYSTEMS, InvalidInput, Move, Situation, adjudicate, suggest
from rules.geometry import footprint_distance, within
from rules.move import MOVE_FORMAT
from rules.warmaster.command import closest_visible_enemies
from rules.warmaster.stands import unit_distance

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEMO = ROOT / "battlefield" / "demo"
LESSONS = sorted((DEMO / "lessons").glob("*.json"))
SEEDS = ROOT.parent / "shared" / "seeds"

LESSON_FIELDS = {
    "format",
    "slug",
    "title",
    "system",
    "order",
    "summary",
    "rules",
    "scenario",
    "steps",
}
STEP_FIELDS = {"title", "text", "focus", "rules"}
#: What a narrated step may add: its own table and overlays (battlefield/lessons.py).
STEP_EXTRAS = {"table", "show", "measure"}
TRY_FIELDS = {"title", "text", "try", "expect"}
#: A 40K rule is a section number (21.02); a Warmaster rule is a chapter/heading slug, as the
#: engine's findings cite them (RULES.md 0, FORMAT.md "Verdict").
RULE_PATTERN = {
    "wh40k-11e": re.compile(r"^\d\d\.\d\d$"),
    "warmaster-revolution": re.compile(r"^[a-z]+(-[a-z]+)*/[a-z]+(-[a-z]+)*$"),
}
#: How narration cites a rule in its text: "(21.02)", "(21.03 FAQ)", "(Flying units: Home back)".
CITATION = {
    "wh40k-11e": r"\(\d\d\.\d\d\b",
    "warmaster-revolution": r"\(Flying units\b",
}
#: What issue 6 asks the lessons to teach, by slug.
REQUIRED_LESSONS = {
    "surge-basics",
    "surge-out-of-reach",
    "surge-choosing-the-target",
    "surge-limits",
    "take-to-the-skies",
    "declare-before-the-roll",
    "warmaster-home-back",
    "warmaster-flyers-and-drive-backs",
}
ENGAGEMENT = 2.0  # RULES.md 1.2: 2" horizontally (every model here stands at z = 0)
COHERENCY = (2.0, 9.0)  # RULES.md 1.2
TAKE_TO_THE_SKIES = 2.0  # RULES.md 1.7: 2" off the maximum distance
COMMAND_RANGE = 20.0  # RULES.md 2.3 / 2.4: 20 cm


def load(path: pathlib.Path) -> dict:
    return json.loads(path.read_text())


def lesson(slug: str) -> dict:
    return load(DEMO / "lessons" / f"{slug}.json")


def scenario_of(doc: dict) -> Situation:
    return Situation.from_document(load(DEMO / "scenarios" / f"{doc['scenario']}.json"))


def try_step(doc: dict) -> dict:
    return doc["steps"][-1]


def try_move(doc: dict) -> Move:
    return Move.from_document(try_step(doc)["try"], doc["system"])


def gap(a, b) -> float:
    """Horizontal edge-to-edge distance between two models (RULES.md 1.1)."""
    return footprint_distance(a.base, a.pos, b.base, b.pos)


def unit_gap(s: Situation, unit_a: str, unit_b: str) -> float:
    return min(gap(a, b) for a in s.unit(unit_a).models for b in s.unit(unit_b).models)


def engaged(s: Situation, unit_a: str, unit_b: str) -> bool:
    return within(unit_gap(s, unit_a, unit_b), ENGAGEMENT)


def in_coherency(models) -> bool:
    """RULES.md 1.2: each model within 2" of another, within 9" of all, the 2" links connected."""
    models = list(models)
    near, far = COHERENCY
    if not all(within(gap(a, b), far) for a, b in itertools.combinations(models, 2)):
        return False
    linked, frontier = {models[0].id}, [models[0]]
    while frontier:
        a = frontier.pop()
        for b in models:
            if b.id not in linked and within(gap(a, b), near):
                linked.add(b.id)
                frontier.append(b)
    return len(linked) == len(models)


def surge_maximum(s: Situation, move: Move) -> float:
    """21.02: the distance the ability states: D6 (+ a bonus), here with the lesson's fixed die."""
    ability = s.unit(move.unit).ability(move.declared("ability"))
    distance = ability["distance"]
    if isinstance(distance, (int, float)):
        return float(distance)
    bonus = distance.partition("+")[2]
    return move.dice[0] + (float(bonus) if bonus else 0.0)


def closest_enemies(s: Situation, unit_id: str) -> tuple[list[str], float]:
    """21.02 before moving: the closest enemy units; a unit that cannot FLY ignores AIRCRAFT
    (23.02). Every model here is at z = 0, so the straight distance is the horizontal one."""
    unit = s.unit(unit_id)
    gaps = {
        e.id: unit_gap(s, unit_id, e.id)
        for e in s.enemies_of(unit)
        if unit.has("FLY") or not e.has("AIRCRAFT")
    }
    closest = min(gaps.values())
    return sorted(k for k, v in gaps.items() if v <= closest + 1e-6), closest


def placed(s: Situation, ends: dict) -> Situation:
    """The situation with `ends` applied, built again from its document: that refuses any model
    overlapping another one (Situation.from_document)."""
    return Situation.from_document(s.moved(ends).to_document())


def straight_ground_move_ok(s: Situation, unit_id: str, ends: dict, maximum: float) -> None:
    """Each model's straight line to its end is no longer than `maximum` and crosses no enemy
    model and no solid feature, so it is a legal ground path of that length (RULES.md 1.3)."""
    unit = s.unit(unit_id)
    blockers = [m.footprint for e in s.enemies_of(unit) for m in e.models]
    blockers += [t.footprint for t in s.terrain if t.solid]
    for m in unit.models:
        end = ends[m.id]
        line = LineString([(m.x, m.y), (end["x"], end["y"])])
        assert within(line.length, maximum), (m.id, line.length)
        swept = line.buffer(m.base.radius)
        assert not any(swept.intersects(b) for b in blockers), m.id


def drive_back_shift(s: Situation, move: Move, distance: float) -> tuple[float, float]:
    """RULES.md 2.6: straight away from the shooting stand, from its centre to the unit's."""
    unit, shooter = s.unit(move.unit), s.model(move.declared("shooter"))
    cx = sum(m.x for m in unit.models) / len(unit.models)
    cy = sum(m.y for m in unit.models) / len(unit.models)
    length = math.hypot(cx - shooter.x, cy - shooter.y)
    return (cx - shooter.x) / length * distance, (cy - shooter.y) / length * distance


def shifted(s: Situation, unit_id: str, shift: tuple[float, float]):
    return [m.placed(m.x + shift[0], m.y + shift[1]) for m in s.unit(unit_id).models]


# -- every file -----------------------------------------------------------------------------------


def test_the_eight_lessons_of_issue_6_are_there():
    slugs = {p.stem for p in LESSONS}
    assert slugs >= REQUIRED_LESSONS
    assert len(LESSONS) >= 8


def test_lessons_have_distinct_orders_within_each_system():
    docs = [load(p) for p in LESSONS]
    for system in SYSTEMS:
        orders = [d["order"] for d in docs if d["system"] == system]
        assert orders, system
        assert len(orders) == len(set(orders)), (system, sorted(orders))
    assert {d["system"] for d in docs} == set(SYSTEMS)


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_every_lesson_has_the_documented_fields(path):
    doc = load(path)
    assert set(doc) == LESSON_FIELDS
    assert doc["format"] == "arbiter.lesson/1"
    assert doc["slug"] == path.stem and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", doc["slug"])
    assert doc["system"] in SYSTEMS
    assert (
        isinstance(doc["order"], int) and not isinstance(doc["order"], bool) and doc["order"] >= 1
    )
    assert doc["title"].strip() and len(doc["title"]) <= 80
    assert doc["summary"].strip() and sentences(doc["summary"]) == 1
    assert (DEMO / "scenarios" / f"{doc['scenario']}.json").is_file()
    assert scenario_of(doc).system == doc["system"]
    assert len(doc["steps"]) >= 3


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_every_step_is_narration_that_cites_its_rules(path):
    doc = load(path)
    pattern = RULE_PATTERN[doc["system"]]
    assert doc["rules"] and all(pattern.match(r) for r in doc["rules"]), doc["rules"]
    assert len(doc["rules"]) == len(set(doc["rules"]))
    cited = set()
    for i, step in enumerate(doc["steps"]):
        extras = set() if i == len(doc["steps"]) - 1 else STEP_EXTRAS
        assert set(step) - extras == (TRY_FIELDS if i == len(doc["steps"]) - 1 else STEP_FIELDS), (
            step["title"]
        )
        assert step["title"].strip() and step["text"].strip()
        assert 2 <= sentences(step["text"]) <= 5, step["title"]
        if "rules" in step:
            assert step["rules"] and all(pattern.match(r) for r in step["rules"]), step["title"]
            cited.update(step["rules"])
            # The narration itself names the rule behind its claims, in brackets.
            assert re.search(CITATION[doc["system"]], step["text"]), step["title"]
    # The lesson's list of rules is exactly what its steps cite.
    assert cited == set(doc["rules"])
    # Section numbers named in the text are ones the steps cite (a typo would mislead).
    if doc["system"] == "wh40k-11e":
        named = set(re.findall(r"\((\d\d\.\d\d)\b", " ".join(s["text"] for s in doc["steps"])))
        assert named and named <= cited, named - cited


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_focus_ids_name_units_or_models_of_the_scenario(path):
    doc = load(path)
    s = scenario_of(doc)
    ids = {u.id for u in s.units} | {m.id for m in s.models()}
    for step in doc["steps"][:-1]:
        assert step["focus"] and set(step["focus"]) <= ids, (
            step["title"],
            set(step["focus"]) - ids,
        )


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_the_try_it_step_is_a_move_without_end_poses_and_with_fixed_dice(path):
    doc = load(path)
    step = try_step(doc)
    assert step["title"] == "Try it" and step["expect"] in ("legal", "illegal")
    assert sum("try" in s for s in doc["steps"]) == 1
    raw = step["try"]
    assert raw["format"] == MOVE_FORMAT
    assert "end" not in raw and "paths" not in raw and "seed" not in raw
    move = Move.from_document(raw, doc["system"])
    assert move.to_document() == raw
    s = scenario_of(doc)
    assert s.has_unit(move.unit)
    # Fixed dice, as many as the move rolls (FORMAT.md "dice"), so the lesson is reproducible.
    needed = {
        "surge": 1,  # every surge ability here rolls one D6 (21.01)
        "advance": 1,  # M + D6 (09.06)
        "charge": 2,  # 2D6 (11.04)
        "home-back": 1,  # 1D6 x 10 cm (RULES.md 2.4)
        "character-escape": 0,  # no dice: 30 cm to a friendly unit (RULES.md 2.8)
    }.get(move.type, None)
    if move.type == "drive-back":
        needed = move.declared("hits")  # one D6 per hit (RULES.md 2.6)
    assert move.dice is not None and len(move.dice) == needed
    for unit_id in (
        move.declared("surge_target"),
        move.declared("home_back_to"),
        *(move.declared("charge_targets") or []),
    ):
        assert unit_id is None or s.has_unit(unit_id)
    if move.declared("shooter"):
        s.model(move.declared("shooter"))


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_the_engine_suggests_a_legal_move_for_every_try_it(path):
    """The lesson's own "Suggest" button: adjudicate(suggest(try)) must give what it expects."""
    doc = load(path)
    s = scenario_of(doc)
    move = try_move(doc)
    assert SYSTEMS[s.system].move_types[move.type].judged, f"{move.type} is not judged"
    try:
        suggested = suggest(s, move)
    except InvalidInput as refusal:
        # Normal, advance and fall-back moves go where the player wants (RULES.md 1.4): the
        # engine refuses to choose, so the lesson must not promise a Suggest button.
        assert refusal.field == "end"
        assert "Suggest" not in try_step(doc)["text"]
        return
    verdict = adjudicate(s, suggested)
    expected = try_step(doc)["expect"] == "legal"
    assert verdict.legal == expected, [f.as_dict() for f in verdict.failures]


# -- narration in our own words ----------------------------------------------------------------


def sentences(text: str) -> int:
    """Sentences end with . ! or ? before a space or the end (21.02 and 3.6 are not endings)."""
    return len(re.findall(r"[.!?](?=\s|$)", text.strip()))


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the rulebook seeds are not beside this checkout")
def test_no_lesson_copies_eight_words_in_a_row_from_the_rulebooks():
    grams = set()
    for seed in SEEDS.glob("*.txt"):
        w = words(seed.read_text(errors="ignore"))
        grams.update(tuple(w[i : i + 8]) for i in range(len(w) - 7))
    assert grams
    for path in [*LESSONS, DEMO / "lessons" / "README.md"]:
        w = words(path.read_text())
        copied = [" ".join(w[i : i + 8]) for i in range(len(w) - 7) if tuple(w[i : i + 8]) in grams]
        assert not copied, (path.name, copied)


# -- each situation shows what its lesson teaches -----------------------------------------------


def test_surge_basics_every_survivor_can_reach_c_with_the_fixed_roll():
    doc = lesson("surge-basics")
    s, move = scenario_of(doc), try_move(doc)
    assert closest_enemies(s, move.unit)[0] == ["C"]
    maximum = surge_maximum(s, move)  # D6 rolled 4: 4"
    assert maximum == 4
    for m in s.unit(move.unit).models:
        # moving 4" closes a gap of at most 4 + 2 = 6" to within engagement range
        assert 2.0 < min(gap(m, c) for c in s.unit("C").models) <= maximum + ENGAGEMENT, m.id


def test_out_of_reach_no_model_can_end_engaged_so_each_must_get_as_close_as_it_can():
    doc = lesson("surge-out-of-reach")
    s, move = scenario_of(doc), try_move(doc)
    (target,), _ = closest_enemies(s, move.unit)
    maximum = surge_maximum(s, move)  # D6+1 rolled 2: 2 + 1 = 3"
    assert maximum == 3
    for m in s.unit(move.unit).models:
        # more than 3 + 2 = 5" away: even a straight 3" leaves it outside the 2" range
        assert min(gap(m, t) for t in s.unit(target).models) > maximum + ENGAGEMENT, m.id
    # Straight at the target, the full 3": still in coherency and still not engaged.
    ends = {m.id: {"x": m.x + maximum, "y": m.y} for m in s.unit(move.unit).models}
    straight_ground_move_ok(s, move.unit, ends, maximum)
    after = placed(s, ends)
    assert in_coherency(after.unit(move.unit).models)
    assert not engaged(after, move.unit, target)
    assert unit_gap(after, move.unit, target) == pytest.approx(
        unit_gap(s, move.unit, target) - maximum, abs=0.01
    )


def test_choosing_the_target_skips_the_aircraft_and_leaves_a_tie_the_player_breaks():
    doc = lesson("surge-choosing-the-target")
    s, move = scenario_of(doc), try_move(doc)
    unit = s.unit(move.unit)
    assert not unit.has("FLY")
    everyone = {e.id: unit_gap(s, unit.id, e.id) for e in s.enemies_of(unit)}
    nearest = min(everyone, key=everyone.get)
    assert s.unit(nearest).has("AIRCRAFT")  # 3.0" away, but ignored (23.02)
    tied, distance = closest_enemies(s, unit.id)
    assert tied == ["C", "D"] and distance == pytest.approx(4.378, abs=1e-3)
    assert everyone[nearest] < distance
    assert move.declared("surge_target") in tied
    # A witness: every Berzerker 2.5" straight down ends engaged with D, far from C and F.
    maximum = surge_maximum(s, move)  # 4"
    ends = {m.id: {"x": m.x, "y": m.y + 2.5} for m in unit.models}
    straight_ground_move_ok(s, unit.id, ends, maximum)
    after = placed(s, ends)
    assert all(
        any(within(gap(after.model(m.id), d), ENGAGEMENT) for d in after.unit("D").models)
        for m in unit.models
    )
    assert not engaged(after, unit.id, "C") and not engaged(after, unit.id, nearest)
    assert in_coherency(after.unit(unit.id).models)


def test_surge_limits_shows_each_reason_a_unit_may_not_surge():
    doc = lesson("surge-limits")
    s, move = scenario_of(doc), try_move(doc)
    surging = s.unit(move.unit)
    assert not surging.flag("battle_shocked") and not surging.flag("moved_this_phase")
    assert not any(engaged(s, surging.id, e.id) for e in s.enemies_of(surging))
    others = [u for u in s.friends_of(surging) if u.ability("blood-surge")]
    assert any(u.flag("battle_shocked") for u in others)
    assert any(u.flag("moved_this_phase") for u in others)
    assert any(any(engaged(s, u.id, e.id) for e in s.enemies_of(u)) for u in others)


def test_surge_limits_the_target_is_not_the_shooter_and_a_careless_surge_engages_the_shooter():
    doc = lesson("surge-limits")
    s, move = scenario_of(doc), try_move(doc)
    unit, shooter = s.unit(move.unit), move.declared("trigger")["by"]
    assert closest_enemies(s, unit.id)[0] == ["C"] and shooter != "C"
    maximum = surge_maximum(s, move)  # D6 rolled 5: 5"
    # Some Berzerker could end within 2" of the shooters: 5.65" <= 5 + 2.
    assert unit_gap(s, unit.id, shooter) <= maximum + ENGAGEMENT
    # A careless end for B5, engaged with C2 but also within 2" of E1, breaks the surge.
    careless = placed(s, {"B5": {"x": 18.2, "y": 24.0}})
    assert within(gap(careless.model("B5"), careless.model("C2")), ENGAGEMENT)
    assert within(gap(careless.model("B5"), careless.model("E1")), ENGAGEMENT)
    # A legal witness: the column steps 3" right to face C from the left.
    ends = {f"B{i + 1}": {"x": 17.0, "y": 17.2 + 1.4 * i} for i in range(5)}
    straight_ground_move_ok(s, unit.id, ends, maximum)
    after = placed(s, ends)
    for m in after.unit(unit.id).models:
        assert any(within(gap(m, c), ENGAGEMENT) for c in after.unit("C").models), m.id
    assert [e.id for e in after.enemies_of(unit) if engaged(after, unit.id, e.id)] == ["C"]
    assert in_coherency(after.unit(unit.id).models)


def test_the_riptide_lesson_flies_its_sixteen_inch_advance_as_fourteen():
    doc = lesson("take-to-the-skies")
    s, move = scenario_of(doc), try_move(doc)
    riptide = s.unit(move.unit)
    assert (
        riptide.has("FLY") and move.type == "advance" and move.declared("take_to_the_skies") is True
    )
    assert riptide.move + move.dice[0] - TAKE_TO_THE_SKIES == 14  # 10 + 6 - 2


def test_declare_before_the_roll_flying_reaches_the_termagants_and_walking_cannot():
    doc = lesson("declare-before-the-roll")
    s, move = scenario_of(doc), try_move(doc)
    jump = s.unit(move.unit)
    (target,) = move.declared("charge_targets")
    assert jump.has("FLY") and move.type == "charge"
    assert move.declared("take_to_the_skies") is True and not move.declared(
        "declared_after_roll", False
    )
    assert s.turn.phase == "charge" and s.turn.active_army == jump.army
    assert not jump.flag("advanced_this_turn") and not jump.flag("fell_back_this_turn")
    assert unit_gap(s, jump.id, target) <= 12  # 11.04: a target within 12"
    ground, flying = sum(move.dice), sum(move.dice) - TAKE_TO_THE_SKIES  # 4 + 5 = 9", flying 7"
    (block,) = [t for t in s.terrain if t.solid]
    # Flying: straight down 6.3" over the block, each model ends within 1" of a Termagant.
    ends = {m.id: {"x": m.x, "y": m.y + 6.3} for m in jump.models}
    after = placed(s, ends)
    for m in jump.models:
        line = LineString([(m.x, m.y), (ends[m.id]["x"], ends[m.id]["y"])])
        assert line.intersects(block.footprint) and within(line.length, flying)
        end = after.model(m.id)
        assert not end.footprint.intersects(block.footprint)
        assert any(within(gap(end, t), 1.0) for t in after.unit(target).models), m.id
    assert in_coherency(after.unit(jump.id).models)
    # Walking: a ground path may not enter the solid block (13.06), so it must pass one of its
    # ends, crossing the block's middle line outside the block grown by the base's radius. From
    # there it still has to reach engagement range of a Termagant. Lower bound, sampled every
    # 0.01" (the length is 2-Lipschitz in the crossing point, so the bound errs by <= 0.02").
    x0, y0, x1, y1 = block.footprint.bounds
    middle = (y0 + y1) / 2
    for m in jump.models:
        r = m.base.radius
        assert m.y + r < y0 and all(t.y - t.base.radius > y1 for t in s.unit(target).models)
        reach = [(t.x, t.y, ENGAGEMENT + r + t.base.radius) for t in s.unit(target).models]
        best = math.inf
        for k in range(1001):
            for x in (x0 - r - k * 0.01, x1 + r + k * 0.01):
                to_zone = min(max(0.0, math.hypot(x - tx, middle - ty) - d) for tx, ty, d in reach)
                best = min(best, math.hypot(x - m.x, middle - m.y) + to_zone)
        assert best - 0.02 > 11 > ground, (m.id, best)  # the narration says more than 11"
    assert box(x0, y0, x1, y1).equals(block.footprint)


def test_warmaster_home_back_roll_is_more_than_the_gap_so_the_eagles_end_in_touch():
    doc = lesson("warmaster-home-back")
    s, move = scenario_of(doc), try_move(doc)
    eagles = s.unit(move.unit)
    character = s.unit(move.declared("home_back_to"))
    assert eagles.has("FLYING") and character.has("CHARACTER") and character.army == eagles.army
    assert s.turn.phase == "command" and s.turn.active_army == eagles.army
    gaps = {
        c.id: min(a.footprint.distance(b.footprint) for a in eagles.models for b in c.models)
        for c in s.friends_of(eagles)
        if c.has("CHARACTER")
    }
    assert all(g > COMMAND_RANGE for g in gaps.values())  # may home back
    assert move.dice[0] * 10 > gaps[character.id]  # 5 x 10 = 50 cm > 46 cm: into touch
    assert not eagles.flag("confused")  # so it may be ordered afterwards


def test_warmaster_drive_back_passes_over_the_wood_and_lands_clear_of_it():
    doc = lesson("warmaster-flyers-and-drive-backs")
    s, move = scenario_of(doc), try_move(doc)
    unit = s.unit(move.unit)
    shooter = s.model(move.declared("shooter"))
    assert unit.has("FLYING") and s.unit(shooter.unit).army != unit.army
    total = sum(move.dice)  # 4 + 5 = 9 cm
    assert total <= unit.move and 6 not in move.dice  # not destroyed, not confused
    dx, dy = drive_back_shift(s, move, total)
    woods = [t.footprint for t in s.terrain if t.type == "woods"]
    moved = shifted(s, unit.id, (dx, dy))
    assert any(
        LineString([(m.x, m.y), (m.x + dx, m.y + dy)]).intersects(w)
        for m in unit.models
        for w in woods
    )
    assert not any(m.footprint.intersects(w) for m in moved for w in woods)
    others = [o for u in s.units if u.id != unit.id for o in u.models]
    assert not any(m.footprint.intersects(o.footprint) for m in moved for o in others)


def test_warmaster_confused_harpies_fall_short_of_the_sorcerer_but_land_within_orders_range():
    doc = lesson("warmaster-home-back-confused")
    s, move = scenario_of(doc), try_move(doc)
    harpies = s.unit(move.unit)
    assert harpies.has("FLYING") and harpies.flag("confused")
    gaps = {
        c.id: min(a.footprint.distance(b.footprint) for a in harpies.models for b in c.models)
        for c in s.friends_of(harpies)
        if c.has("CHARACTER")
    }
    assert len(gaps) >= 2 and all(g > COMMAND_RANGE for g in gaps.values())  # a choice to make
    chosen = move.declared("home_back_to")
    assert min(gaps, key=gaps.get) == chosen
    flown = move.dice[0] * 10  # 3 x 10 = 30 cm
    assert flown <= gaps[chosen]  # not more than the 48 cm gap: the full roll, not into touch
    assert gaps[chosen] - flown <= COMMAND_RANGE  # 48 - 30 = 18 cm: orderable, but confused


def test_warmaster_pegasus_would_land_on_the_crag_so_it_stops_in_front_of_it():
    doc = lesson("warmaster-drive-back-crag")
    s, move = scenario_of(doc), try_move(doc)
    total = sum(move.dice)  # 3 + 6 = 9 cm, and the 6 confuses
    assert 6 in move.dice and total <= s.unit(move.unit).move
    crags = [t.footprint for t in s.terrain if t.type == "impassable"]
    full = shifted(s, move.unit, drive_back_shift(s, move, total))
    assert any(m.footprint.intersection(c).area > 1 for m in full for c in crags)
    # Stopped after 5 cm: the rear edges touch the crag and nothing lies on it.
    stopped = shifted(s, move.unit, drive_back_shift(s, move, 5.0))
    assert min(m.footprint.distance(c) for m in stopped for c in crags) <= 1e-6
    assert all(m.footprint.intersection(c).area <= 1e-9 for m in stopped for c in crags)


def test_warmaster_pegasus_driven_onto_friends_who_stay_put_halts_touching_them():
    doc = lesson("warmaster-drive-back-into-friends")
    s, move = scenario_of(doc), try_move(doc)
    unit = s.unit(move.unit)
    assert move.declared("friends_make_way") is False
    friends = [m for f in s.friends_of(unit) if not f.has("CHARACTER") for m in f.models]
    full = shifted(s, unit.id, drive_back_shift(s, move, sum(move.dice)))  # 3 + 5 = 8 cm
    assert any(m.footprint.intersection(f.footprint).area > 1 for m in full for f in friends)
    # Halted after 3 cm, on touching the Halberdiers.
    halted = shifted(s, unit.id, drive_back_shift(s, move, 3.0))
    assert min(m.footprint.distance(f.footprint) for m in halted for f in friends) <= 1e-6
    assert all(m.footprint.intersection(f.footprint).area <= 1e-9 for m in halted for f in friends)


def test_characters_and_flyers_the_warboss_is_nearer_but_the_boyz_are_the_target():
    """RULES.md 2.9: the lone Warboss is 7.75 cm from the eagles, the Boyz 16 cm; characters are
    not units, so the closest visible enemy unit (the initiative target) is the Boyz."""
    s = scenario_of(lesson("warmaster-characters-and-flyers"))
    eagles = s.unit("eagles")
    assert unit_distance(eagles.models, s.unit("warboss").models) == pytest.approx(7.75)
    closest, gap = closest_visible_enemies(s, eagles)
    assert [u.id for u in closest] == ["boyz"] and gap == pytest.approx(16.0)


def test_characters_and_flyers_the_prince_is_touched_and_the_spearmen_within_30_cm():
    s = scenario_of(lesson("warmaster-characters-and-flyers"))
    prince, wolves = s.model("PR1"), s.unit("wolves")
    assert (
        min(footprint_distance(prince.base, prince.pos, m.base, m.pos) for m in wolves.models)
        <= 1e-6
    )
    gap = min(
        footprint_distance(prince.base, prince.pos, m.base, m.pos)
        for m in s.unit("spearmen").models
    )
    assert gap == pytest.approx(17.75, abs=0.01) and within(gap, 30.0)
