"""Bounded cost (issue 15): documents over the cost budget are refused at the door, and the
engine's deadline (rules/budget.py) turns a judgement or search that runs out into a clear
finding or refusal, in bounded time, never a silent pass.

The documents are the worst of their size (tests/documents.py `worst_document`); the deadline is
tiny, so the tests are quick: what is tested is that the engine stops and says so."""

import time

import pytest

from battlefield.validation import TooLarge, validate_move, validate_scenario
from rules import adjudicate, pathfinding, reach, suggest
from rules.budget import OutOfTime, TooComplex, check, deadline
from rules.move import Move
from tests.documents import worst_document, worst_move

#: A deadline no real judgement of these documents meets (seconds of CPU).
TINY = 0.001
#: How long a refusal may take after its deadline: the engine checks its clock every few steps.
PROMPT = 0.5


def within_limits():
    """The worst document the documented limits let in: 600 models (round bases), 30 terrain
    pieces of 100 vertices (3,000 vertices in all, the limit)."""
    doc = worst_document(models=600, hull_vertices=0, terrain=30, terrain_vertices=100)
    situation = validate_scenario(doc)
    return doc, situation


def test_the_issues_document_is_refused_at_the_door_saying_what_to_reduce():
    # issue 15: 600 models on 60-vertex hulls, 200 terrain pieces of 100 vertices. By hand:
    # 200 x 100 = 20,000 terrain vertices, 600 x 60 = 36,000 hull vertices.
    doc = worst_document(models=600, hull_vertices=60, terrain=200, terrain_vertices=100)
    with pytest.raises(TooLarge) as refused:
        validate_scenario(doc)
    message = refused.value.message
    assert refused.value.field == "units"  # the larger share: the hull bases
    assert "200 terrain pieces with 20,000 vertices in all" in message
    assert "600 hull bases with 36,000 vertices in all" in message
    assert "at most 3,000 vertices" in message


def test_terrain_vertices_over_the_budget_are_refused_naming_the_terrain():
    # 31 pieces x 100 vertices = 3,100 > 3,000, round bases: the terrain is what to reduce
    doc = worst_document(models=10, hull_vertices=0, terrain=31, terrain_vertices=100)
    with pytest.raises(TooLarge) as refused:
        validate_scenario(doc)
    assert refused.value.field == "terrain"
    assert "31 terrain pieces with 3,100 vertices in all" in refused.value.message


def test_walls_count_twice_toward_the_budget():
    # 29 pieces x 100 = 2,900; one wall of 60 points adds 120: 3,020 > 3,000
    doc = worst_document(models=10, hull_vertices=0, terrain=29, terrain_vertices=100)
    piece = doc["terrain"][5]
    xs = [p[0] for p in piece["footprint"]]
    cx, cy = (min(xs) + max(xs)) / 2, sum(p[1] for p in piece["footprint"]) / 100
    piece["type"] = "ruin"
    piece["solid"] = False
    piece["walls"] = [
        {"path": [[cx - 1 + i / 30, cy] for i in range(60)], "height": 5, "thickness": 0.25}
    ]
    with pytest.raises(TooLarge) as refused:
        validate_scenario(doc)
    assert "3,020 vertices in all" in refused.value.message


def test_a_document_at_the_limit_is_let_in():
    _, situation = within_limits()
    assert len(situation.terrain) == 30
    assert sum(len(u.models) for u in situation.units) == 600


def test_a_judgement_that_runs_out_is_an_engine_finding_in_bounded_time():
    doc, situation = within_limits()
    move = validate_move(worst_move(doc), situation.system)
    pathfinding.clear_cache()  # the path graph is built, not found in this thread's cache
    started = time.thread_time()
    with deadline(TINY):
        verdict = adjudicate(situation, move)
    spent = time.thread_time() - started
    assert not verdict.legal
    [finding] = verdict.failures
    assert finding.rule == "engine"
    assert finding.text.startswith(f"Too complex to judge here within {TINY:g} s")
    assert spent < TINY + PROMPT


def test_the_same_move_is_judged_without_a_deadline():
    # the one above is refused for its cost, not for anything wrong with it (small version of
    # the same layout: the wall in the lane, the unit going round it)
    doc = worst_document(models=60, hull_vertices=0, terrain=10, terrain_vertices=8)
    situation = validate_scenario(doc)
    verdict = adjudicate(situation, validate_move(worst_move(doc), situation.system))
    assert verdict.legal, [f.text for f in verdict.failures]


def test_reach_that_runs_out_is_a_clear_refusal():
    _, situation = within_limits()
    move = Move.from_document({"format": "arbiter.move/1", "unit": "u0", "type": "normal"})
    pathfinding.clear_cache()
    started = time.thread_time()
    with deadline(TINY), pytest.raises(TooComplex) as refused:
        reach(situation, move)
    assert time.thread_time() - started < TINY + PROMPT
    assert refused.value.message.startswith("Too complex to judge here within")
    assert "fewer terrain pieces" in refused.value.message


def _counting_regions(monkeypatch) -> list:
    """The reachable regions drawn from now on (one entry per start given to
    `Navigator.reachable_regions`, which every region is drawn by)."""
    drawn = []
    real = pathfinding.Navigator.reachable_regions

    def counted(self, starts, distances):
        drawn.extend(starts)
        return real(self, starts, distances)

    monkeypatch.setattr(pathfinding.Navigator, "reachable_regions", counted)
    return drawn


def test_a_reach_estimated_past_the_time_left_is_refused_before_any_region_is_drawn(monkeypatch):
    # The overlay of the worst document's Move 20 unit: 60 models, each with about 1,000 corners
    # of the path graph within 20" (some 30 s of CPU in all). Under the site's deadline of 2 s it
    # was drawn model by model until the deadline ran out, so a Check or preview spent its whole
    # budget on an overlay it could never show; its estimate now refuses it before the first.
    _, situation = within_limits()
    move = Move.from_document({"format": "arbiter.move/1", "unit": "u0", "type": "normal"})
    pathfinding.clear_cache()
    drawn = _counting_regions(monkeypatch)
    started = time.thread_time()
    with deadline(2), pytest.raises(TooComplex) as refused:
        reach(situation, move)
    assert drawn == []
    assert time.thread_time() - started < 1.0  # the navigators' corners only, not 2 s
    assert "drawing where 60 models can reach (" in refused.value.message
    assert 'corners within 20")' in refused.value.message


def test_a_reach_within_its_estimate_is_drawn_under_the_deadline(monkeypatch):
    # the same layout, small (10 models, 10 pieces of 8 vertices): the estimate lets it through
    doc = worst_document(models=10, hull_vertices=0, terrain=10, terrain_vertices=8)
    situation = validate_scenario(doc)
    move = Move.from_document({"format": "arbiter.move/1", "unit": "u0", "type": "normal"})
    pathfinding.clear_cache()
    drawn = _counting_regions(monkeypatch)
    with deadline(2):
        [(ground, kind)] = reach(situation, move)
    assert kind == "ground" and ground.area > 0
    assert len(drawn) == 10


def _unit_reach_inputs():
    """A navigator and three of its unit's starts (Move 20 round a wall, 10 pieces)."""
    from rules.wh40k.moving import mode_for, navigator_for

    doc = worst_document(models=10, hull_vertices=0, terrain=10, terrain_vertices=8)
    situation = validate_scenario(doc)
    unit = situation.unit("u0")
    first = unit.models[0]
    nav = navigator_for(situation, unit, first.base, mode_for(unit, "normal", model=first))
    return nav, [(m.x, m.y) for m in unit.models[:3]], [20.0] * 3


def test_a_units_regions_stop_at_the_deadline_between_one_region_and_the_next(monkeypatch):
    # Navigator.reachable_regions joins each start's pieces into its region after drawing the
    # pieces of all of them: unchecked, that tail ran on past the deadline (a second or more for
    # 60 models). Here the deadline runs out as the pieces are done: no region is joined.
    nav, starts, distances = _unit_reach_inputs()
    real = pathfinding.Navigator._visible_pieces
    drawn = []  # the pieces, drawn once without a deadline and handed back below

    def recorded(self, centres, segs):
        drawn.append(real(self, centres, segs))
        return drawn[-1]

    monkeypatch.setattr(pathfinding.Navigator, "_visible_pieces", recorded)
    nav.reachable_regions(starts, distances)
    handed = iter(drawn)
    started = time.thread_time()

    def out_of_time_after(self, centres, segs):
        while time.thread_time() - started < 0.6:  # the deadline passes here, unchecked
            pass
        return next(handed)

    monkeypatch.setattr(pathfinding.Navigator, "_visible_pieces", out_of_time_after)
    with deadline(0.5), pytest.raises(OutOfTime) as out:
        nav.reachable_regions(starts, distances)
    assert out.value.where == "drawing where models can reach"


def test_a_units_regions_are_drawn_in_blocks_of_bounded_size(monkeypatch):
    # All the starts' centres against all the blocking segments, as one set of arrays, took
    # gigabytes for the worst unit (60 x 1,000 centres x 3,900 segments); in blocks of
    # GRAPH_BLOCK_CELLS pairs the memory is bounded and the regions are the same.
    nav, starts, distances = _unit_reach_inputs()
    monkeypatch.setattr(pathfinding, "GRAPH_BLOCK_CELLS", 10**12)
    whole = nav.reachable_regions(starts, distances)  # one block
    sizes = []
    real = pathfinding.Navigator._visible_pieces

    def recorded(self, centres, segs):
        sizes.append((len(centres), len(segs)))
        return real(self, centres, segs)

    monkeypatch.setattr(pathfinding.Navigator, "_visible_pieces", recorded)
    monkeypatch.setattr(pathfinding, "GRAPH_BLOCK_CELLS", 20_000)
    blocks = nav.reachable_regions(starts, distances)
    assert len(sizes) > 1
    assert all(n * s <= 20_000 for n, s in sizes)
    assert [g.wkb for g in blocks] == [g.wkb for g in whole]


def test_a_surge_suggestion_that_runs_out_is_a_clear_refusal():
    # a surge toward the nearest enemy unit (the second lane) of 6": the solver's search
    doc, _ = within_limits()
    doc["turn"] = {"round": 2, "active_army": "blue", "phase": "shooting"}
    doc["units"][0]["abilities"] = [
        {
            "id": "surge",
            "kind": "surge",
            "trigger": "models-destroyed-by-shooting",
            "distance": "D6",
        }
    ]
    situation = validate_scenario(doc)
    move = validate_move(
        {
            "format": "arbiter.move/1",
            "unit": "u0",
            "type": "surge",
            "declarations": {
                "ability": "surge",
                "trigger": {"event": "shot", "by": "u1", "models_destroyed": 1},
            },
            "dice": [6],
        },
        situation.system,
    )
    pathfinding.clear_cache()
    with deadline(TINY), pytest.raises(TooComplex):
        suggest(situation, move)


def test_a_step_too_long_for_the_time_left_is_not_started():
    # the path graph's estimate (rules.pathfinding.GRAPH_SECONDS x corners squared) is checked
    # before the step that cannot be interrupted
    from rules.budget import afford

    with deadline(1.0), pytest.raises(OutOfTime, match="a path graph of 20,000 corners"):
        afford(pathfinding.GRAPH_SECONDS * 20_000**2, "a path graph of 20,000 corners")
    afford(1e9, "anything")  # no deadline: nothing is refused


def test_without_a_deadline_check_never_raises():
    for _ in range(1000):
        check("a loop")


def test_a_nested_deadline_never_extends_the_running_one():
    with deadline(TINY), deadline(60.0), pytest.raises(OutOfTime) as out:
        started = time.thread_time()
        while time.thread_time() - started < 0.2:
            check("a loop")
    assert out.value.seconds == TINY


def test_the_command_line_judges_with_a_deadline_only_when_asked(tmp_path):
    import io
    import json

    from rules.__main__ import EXIT_ILLEGAL, main

    doc, _ = within_limits()
    (tmp_path / "scenario.json").write_text(json.dumps(doc))
    (tmp_path / "move.json").write_text(json.dumps(worst_move(doc)))
    pathfinding.clear_cache()
    out = io.StringIO()
    status = main(
        [str(tmp_path / "scenario.json"), str(tmp_path / "move.json"), "--deadline", "0.001"],
        stdout=out,
        stderr=io.StringIO(),
    )
    assert status == EXIT_ILLEGAL
    [finding] = [f for f in json.loads(out.getvalue())["findings"] if not f["passed"]]
    assert finding["rule"] == "engine"
    assert "Too complex to judge here within 0.001 s" in finding["text"]
