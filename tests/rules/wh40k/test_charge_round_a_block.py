"""RULES.md 1.4 with 1.3 and 1.5: the suggested charge of a unit that must go round an impassable
block (a table rule, 1.5) to reach its target. The suggestion is judged as the API judges a move
(`rules.adjudicate` on the move read back from its document); it must be legal and engage at
least as many models as a hand placement the same judge accepts. Positions worked by hand.

Boards (x to the right, y down): the target E is five 32 mm models (r = 0.63") in a column,
2" apart, beyond a solid block that stands between it and the charger.

(a), (c): three 80 mm models (r = 1.575") at (8, 14), (8, 18), (8, 22); block K x 15..17,
y 13..21; E at x = 20, y = 15..23. A model is engaged within 1.575 + 0.63 + 2 = 4.205" of a
target's centre. Going over the top (y < 13) costs M1 10.4" or more to engage E1; going under
(y > 21), M2 and M3 engage E5 at (15.81, 23) (9.32") and (17.03, 25.97) (9.86"), M1 never can.
(a) Roll 10 (5 + 5): the hand placement puts M2 and M3 there and M1 at (11.5, 21.5), 8.28" on a
straight line west of the block, 1.41" from M2 and closer to E (6.3" from E4, 9.84" before):
two engaged. Before, M1 looked for its way to M2 at a point inside the block's margin, found
none and stayed behind, out of coherency.
(c) Roll 12 (6 + 6): M1, the nearest model, can now engage E1 over the top (10.4"), and was
sent there first; M2 and M3 have no way over the top within 12", so they could not follow and
the unit split. Under the block, M3 at (18.78, 25.95) (11.48") and M2 at (16.83, 22.58)
(10.26") get within 1" of E5 (as they must, since they can), and M1 at (12, 22) (8.94", 1.71"
from M2) follows them: two engaged.

(b): three vehicles with 5 x 3" hulls facing along x (each 2.5" long and 1.5" wide from its
centre) at (6, 13), (6, 17), (6, 21), Move 10, charge E (x = 18, y = 15..23) with 10 (5 + 5)
past block K x 12..14, y 11..23. Only V3 can reach E, under the block: at (14.29, 24.54),
9.74" on, its front corner (16.79, 23.04) 1.99" from E5's edge. V2 follows to (9.41, 20.61)
(4.97"): its hull (6.91..11.91, 19.11..22.11) is 0.93" from V3's (11.79..16.79, 23.04..26.04).
V1 goes to (7, 16.5) (3.64"): its hull (4.5..9.5, 15..18) is 1.11" from V2's, and 7.87" from
E2 (8.87" before): one engaged, and legal. Before, V1 looked for a point touching V2
with its enclosing circle, 2.31" from V2's hull, and stayed behind, out of coherency.
"""

import pytest

from rules import Move, adjudicate, suggest

from .scenarios import model, move, rect, situation, terrain, unit

HULL = {"hull": [[-2.5, -1.5], [2.5, -1.5], [2.5, 1.5], [-2.5, 1.5]]}


def big_bases():
    return situation(
        [
            unit(
                "M",
                "red",
                [model(f"M{i + 1}", 8, y, base=80) for i, y in enumerate((14, 18, 22))],
                keywords=("MONSTER",),
                move=8,
            ),
            unit("E", "blue", [model(f"E{i + 1}", 20, 15 + 2 * i) for i in range(5)]),
        ],
        [terrain("K", rect(15, 13, 17, 21), solid=True, kind="building", height=5)],
        phase="charge",
    )


def vehicles():
    return situation(
        [
            unit(
                "V",
                "red",
                [model(f"V{i + 1}", 6, y, base=HULL, facing=0) for i, y in enumerate((13, 17, 21))],
                keywords=("VEHICLE",),
                move=10,
            ),
            unit("E", "blue", [model(f"E{i + 1}", 18, 15 + 2 * i) for i in range(5)]),
        ],
        [terrain("K", rect(12, 11, 14, 23), solid=True, kind="building", height=5)],
        phase="charge",
    )


def judged(s, placed):
    """The verdict the API gives: the move read back from its document, then `adjudicate`."""
    return adjudicate(s, Move.from_document(placed.to_document(), s.system))


def engaged(verdict):
    return sum(bool(m["engaged_with"]) for m in verdict.models.values())


def held(x, y):
    return {"x": x, "y": y, "facing": 0}


CASES = {
    "80 mm bases round a block": (
        big_bases,
        "M",
        [5, 5],
        {"M1": (11.5, 21.5), "M2": (15.81, 23), "M3": (17.03, 25.97)},
    ),
    "5 x 3 inch hulls round a block": (
        vehicles,
        "V",
        [5, 5],
        {"V1": held(7, 16.5), "V2": held(9.41, 20.61), "V3": held(14.29, 24.54)},
    ),
    "a 12 that would send the first model round the other side": (
        big_bases,
        "M",
        [6, 6],
        {"M1": (12, 22), "M2": (16.83, 22.58), "M3": (18.78, 25.95)},
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_the_hand_placement_is_legal(case):
    board, uid, dice, end = CASES[case]
    v = judged(board(), move(uid, "charge", end=end, dice=dice, charge_targets=["E"]))
    assert v.legal, [f.text for f in v.failures]


@pytest.mark.parametrize("case", CASES)
def test_the_suggestion_is_legal_and_engages_as_many_models_as_the_hand_placement(case):
    board, uid, dice, end = CASES[case]
    s = board()
    hand = judged(s, move(uid, "charge", end=end, dice=dice, charge_targets=["E"]))
    v = judged(s, suggest(s, move(uid, "charge", dice=dice, charge_targets=["E"])))
    assert v.legal, [f.text for f in v.failures]
    assert engaged(v) >= engaged(hand)
