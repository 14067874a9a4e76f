"""RULES.md 1.3: rotations are free, on the way as at the ends. A base that is not round may turn
to pass a gap its start and end facings do not fit, and turn back after it. Worked by hand.

V1, a VEHICLE on a 4.75 x 2.75" hull (facing 90: its long side along y), moves 14" from (8, 20)
to (22, 20), ending at facing 90 again. A dense ruin's 5" walls stand on x = 15 with a gap from
y 18.4 to 21.6 (3.2" wide). Held at facing 90 (4.75" across the gap) it fits nowhere in it and
must climb a wall: 14 + 2 x 5 = 24". Turned to facing 0 (2.75" across, 0.225" to spare each
side) it drives straight through: 14.0", exactly its move. Through a wall with no gap it still
pays the climb.
"""

import pytest

from rules import adjudicate

from .scenarios import move, situation, unit

HULL = {"hull": [[-2.375, -1.375], [2.375, -1.375], [2.375, 1.375], [-2.375, 1.375]]}


def board(gap=True):
    walls = (
        [
            {"path": [[15, 1], [15, 18.4]], "height": 5},
            {"path": [[15, 21.6], [15, 43]], "height": 5},
        ]
        if gap
        else [{"path": [[15, 1], [15, 43]], "height": 5}]
    )
    ruin = {
        "id": "ruin",
        "type": "ruin",
        "category": "dense",
        "height": 5,
        "solid": False,
        "footprint": [[14, 0.5], [16, 0.5], [16, 43.5], [14, 43.5]],
        "walls": walls,
    }
    return situation(
        [
            unit(
                "V",
                "red",
                [{"id": "V1", "base": HULL, "x": 8, "y": 20, "facing": 90}],
                keywords=("VEHICLE",),
                move=14,
            ),
            unit("F", "blue", [{"id": "F1", "base": {"round": 32}, "x": 55, "y": 40}]),
        ],
        [ruin],
    )


def distance_finding(verdict):
    (found,) = [f for f in verdict.findings if f.subject == "V1" and f.rule == "09.05"]
    return found


@pytest.mark.parametrize("paths", [None, {"V1": [[12, 20], [18, 20]]}])
def test_a_hull_turns_to_pass_a_gap_and_turns_back_at_no_cost(paths):
    verdict = adjudicate(
        board(), move("V", "normal", end={"V1": {"x": 22, "y": 20, "facing": 90}}, paths=paths)
    )
    assert verdict.legal, [f.text for f in verdict.findings if not f.passed]
    found = distance_finding(verdict)
    assert found.measured == pytest.approx(14.0, abs=1e-6) and found.limit == 14


def test_through_a_wall_with_no_gap_the_hull_still_pays_the_climb():
    verdict = adjudicate(
        board(gap=False), move("V", "normal", end={"V1": {"x": 22, "y": 20, "facing": 90}})
    )
    assert not verdict.legal
    assert distance_finding(verdict).measured == pytest.approx(24.0, abs=1e-6)
