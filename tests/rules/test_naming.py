"""Words for people (issue 13): the engine's sentences name units and models as players do.

Through the engine's entry points a unit is called by its name and a model as "<model id> of
<unit name>"; a unit without a name keeps its id; called outside an entry point (no naming
current) a sentence keeps the ids."""

import threading

from rules import Situation, adjudicate, move_options
from rules.naming import named, naming

from .warmaster.builders import character, judge, line_of_flyers, scenario
from .wh40k.test_surge_moves import BLOOD_SURGE, line, surge, table, unit


def named_unit(uid, army, models, name, **kw):
    return {**unit(uid, army, models, **kw), "name": name}


def berzerkers_and_crisis_suits():
    """21.01's worked example, named: the Strike Team shot the Berzerkers (B4, B5 destroyed);
    the Crisis Battlesuits' line is 5.5" in front of B's, 5.5 - 2 x 0.63 = 4.24" base to base."""
    return table(
        named_unit(
            "B", "red", line("B", 5, 28.0, 20.0), "Khorne Berzerkers", abilities=[BLOOD_SURGE]
        ),
        named_unit("A", "blue", line("A", 3, 28.0, 38.0), "Strike Team"),
        named_unit("C", "blue", line("C", 4, 28.0, 25.5, step=2.0), "Crisis Battlesuits"),
    )


SHOT_DOWN = {"event": "shot", "by": "A", "destroyed": ["B4", "B5"]}
#: each survivor straight ahead 4": then 1.5 - 1.26 = 0.24" from C's line, engaged (within 1").
AHEAD = {"B1": (28.0, 24.0), "B2": (29.5, 24.0), "B3": (31.0, 24.0)}


def texts(verdict, **where):
    return [
        f.text
        for f in verdict.findings
        if all(getattr(f, key) == value for key, value in where.items())
    ]


def test_a_finding_through_adjudicate_names_the_unit_and_the_model():
    verdict = adjudicate(berzerkers_and_crisis_suits(), surge(end=AHEAD, trigger=SHOT_DOWN))
    assert verdict.legal
    assert "Khorne Berzerkers is not battle-shocked." in texts(verdict, subject="B")
    assert texts(verdict, subject="B1", stage="while-moving", rule="21.02") == [
        'B1 of Khorne Berzerkers moves 4" of the 4" allowed.',
        'B1 of Khorne Berzerkers moved 4" of 4" and ends engaged with Crisis Battlesuits.',
    ]
    # the subjects stay ids: they are for machines (and the pages name them)
    assert {f.subject for f in verdict.findings} <= {"B", "B1", "B2", "B3", "C"}


def test_a_40k_surge_target_reads_as_a_player_says_it():
    verdict = adjudicate(berzerkers_and_crisis_suits(), surge(end=AHEAD, trigger=SHOT_DOWN))
    assert 'The surge target is Crisis Battlesuits, the closest enemy unit (4.24" away).' in texts(
        verdict, rule="21.02", stage="before-moving", subject="B"
    )


def test_a_unit_without_a_name_keeps_its_id_and_its_models_their_ids():
    # tests/rules/wh40k/test_surge_moves.py's units are named by their ids
    s = table(
        unit("B", "red", line("B", 5, 28.0, 20.0), abilities=[BLOOD_SURGE]),
        unit("A", "blue", line("A", 3, 28.0, 38.0)),
        unit("C", "blue", line("C", 4, 28.0, 25.5, step=2.0)),
    )
    verdict = adjudicate(s, surge(end=AHEAD, trigger=SHOT_DOWN))
    assert texts(verdict, subject="B1", stage="while-moving", rule="21.02") == [
        'B1 moves 4" of the 4" allowed.',
        'B1 moved 4" of 4" and ends engaged with C.',
    ]


def test_eligibility_through_move_options_names_the_unit():
    s = berzerkers_and_crisis_suits()
    findings = move_options(s, "B")["normal"]
    assert findings is not None
    assert "Khorne Berzerkers is unengaged." in [f.text for f in findings]


def test_outside_an_entry_point_named_gives_the_id_back():
    s = berzerkers_and_crisis_suits()
    assert named("B1") == "B1" and named(s.unit("B")) == "B"
    with naming(s):
        assert (
            named("B1") == "B1 of Khorne Berzerkers" and named(s.unit("C")) == "Crisis Battlesuits"
        )
        assert named("no-such-id") == "no-such-id"
    assert named("B1") == "B1"


def test_two_threads_judging_different_situations_each_read_their_own_names():
    first = berzerkers_and_crisis_suits()
    renamed = first.document | {
        "units": [
            {
                **u,
                "name": {"B": "Blood Warriors", "A": "Pathfinders", "C": "Stealth Suits"}[u["id"]],
            }
            for u in first.document["units"]
        ]
    }
    second = Situation.from_document(renamed)
    start = threading.Barrier(2)
    got: dict[str, list[str]] = {}

    def judge_many(name, situation):
        start.wait()
        for _ in range(5):
            verdict = adjudicate(situation, surge(end=AHEAD, trigger=SHOT_DOWN))
            got.setdefault(name, []).extend(texts(verdict, subject="B", rule="21.02"))

    threads = [
        threading.Thread(target=judge_many, args=("first", first)),
        threading.Thread(target=judge_many, args=("second", second)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert any("Crisis Battlesuits" in text for text in got["first"])
    assert any("Stealth Suits" in text for text in got["second"])
    assert not any("Stealth Suits" in t or "Blood Warriors" in t for t in got["first"])
    assert not any("Crisis Battlesuits" in t or "Khorne Berzerkers" in t for t in got["second"])


def test_a_warmaster_home_back_reads_as_a_player_says_it():
    # F: three flyers facing +x at x = 10, y = 50, 54, 58 (front edge x = 11); the General's
    # 20 mm base at (50, 54): gap 50 - 1 - 11 = 38 cm. A roll of 4 is 4 x 10 = 40 cm (2.4).
    flyers = {**line_of_flyers("F", 10, 54), "name": "Giant Eagles"}
    general = {**character("C", 50, 54), "name": "Elf General"}
    move = {
        "unit": "F",
        "type": "home-back",
        "dice": [4],
        "declarations": {"home_back_to": "C"},
    }
    verdict = judge(scenario([flyers, general]), move)
    assert verdict.legal
    words = [f.text for f in verdict.findings]
    assert "Giant Eagles rolled 4: it may home back up to 40 cm toward Elf General." in words
    assert "F2 of Giant Eagles, the stand nearest Elf General, flies straight toward it." in words


def test_a_move_document_is_unchanged_by_naming():
    # the verdict's data keep ids: the move, the models' keys, the events' units
    verdict = adjudicate(berzerkers_and_crisis_suits(), surge(end=AHEAD, trigger=SHOT_DOWN))
    assert verdict.move["unit"] == "B" and set(verdict.models) == {"B1", "B2", "B3"}
