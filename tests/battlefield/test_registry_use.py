"""The web app reads each game from the registry (rules.systems) and from its one presentation
module (battlefield/games/<game>.py), never from its own copies (issue 10)."""

import pathlib
import re

from battlefield.games import GAMES
from rules import SYSTEMS

ROOT = pathlib.Path(__file__).resolve().parents[2]
#: Where the web app may not spell a game: everything but the presentation modules, the
#: migrations (Django writes choices there) and the demo data.
SCANNED = [
    p
    for folder in ("battlefield", "templates")
    for p in sorted((ROOT / folder).rglob("*"))
    if p.suffix in (".py", ".html", ".svg", ".txt", ".js")
    and not {"games", "migrations", "demo"} & set(p.relative_to(ROOT).parts)
]
#: Literals that are the same word as a move type but mean something else.
NOT_A_MOVE_TYPE = {
    ("battlefield/scene.py", "normal"),  # a font weight
    ("battlefield/words.py", "make-way"),  # the Warmaster event (docs/format.md), not the move
}


def spelled(names) -> re.Pattern:
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"""["']({alternatives})["']""")


def test_no_game_id_is_spelled_in_the_web_app_outside_its_presentation_module():
    pattern = spelled(SYSTEMS)
    found = [f"{p.relative_to(ROOT)}: {m}" for p in SCANNED for m in pattern.findall(p.read_text())]
    assert found == []


def test_no_move_type_is_spelled_in_the_web_app():
    pattern = spelled({t for system in SYSTEMS.values() for t in system.move_types})
    found = [
        f"{p.relative_to(ROOT)}: {m}"
        for p in SCANNED
        for m in pattern.findall(p.read_text())
        if (str(p.relative_to(ROOT)), m) not in NOT_A_MOVE_TYPE
    ]
    assert found == []


def test_no_template_or_view_branches_on_the_game():
    pattern = re.compile(r"system\s*[!=]=\s*[\"']")
    found = [str(p.relative_to(ROOT)) for p in SCANNED if pattern.search(p.read_text())]
    assert found == []


def test_every_registered_game_has_a_presentation_module_and_nothing_else_does():
    assert set(GAMES) == set(SYSTEMS)


def test_each_presentation_module_styles_every_terrain_kind_of_its_game():
    for system, module in GAMES.items():
        assert set(module.TERRAIN_LOOKS) == {k.name for k in SYSTEMS[system].terrain_kinds}
        for kind in SYSTEMS[system].terrain_kinds:
            finer = set(module.TERRAIN_LOOKS[kind.name]) - {None}
            assert finer <= set(kind.names), f"{system} {kind.name}: looks for names of no kind"


def test_the_picture_styles_warmaster_terrain_by_the_engine_s_kind_with_finer_looks():
    from battlefield.games.warmaster import STYLES
    from battlefield.scene import scene
    from rules import Situation
    from tests.rules.test_registry import home_back_table

    def look(name):
        drawing = scene(Situation.from_document(home_back_table(name)))
        return drawing.terrain[0].css.split()[-1]

    # a forest is woods (one look for the kind), hills look like a hill though the engine
    # moves over them as open ground, a lake and "water" look like deep water (impassable)
    assert look("forest") == look("Woods") == f"terrain-{STYLES['woods'].key}"
    assert look("hills") == "terrain-hill" and look("road") == "terrain-road"
    assert look("lake") == look("water") == "terrain-deep-water"
    assert look("wall") == "terrain-obstacle" and look("town") == "terrain-village"
