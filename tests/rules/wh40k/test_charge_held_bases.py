"""RULES.md 1.4 with 1.1 and 1.3: a charger whose base is not round, judged for "within 1" if it
can" and "engaged if it can", and suggested, with its outline held at its facing, not its
enclosing circle. Positions and distances worked by hand.

C1, MONSTER, a 105 x 70 mm oval (4.134" x 2.756": 2.067" from its centre to its ends, 1.378" to
its sides) facing 0 (its long axis along x) at (10, 20), charges T (T1, 32 mm, r = 0.63", at
(19, 20)) with 2D6 = 8. Two impassable blocks (x 13..15) leave a gap y 18.4..21.6, 3.2" wide:
the oval (2.756" wide) drives through it with 0.22" to spare each side; its enclosing circle
(4.134" across) cannot. T is 19 - 0.63 - (10 + 2.067) = 6.303" away, within 12" and the 8" roll.
Straight through the gap, C1 is in base contact with T1 at x = 19 - 0.63 - 2.067 = 16.303, a
6.303" move, and within 1" of it from x = 15.303 (5.303" moved).
"""

from rules import adjudicate, suggest

from .scenarios import move, rect, situation, terrain, unit

OVAL = {"oval": [105, 70]}


def board():
    return situation(
        [
            unit(
                "C",
                "red",
                [{"id": "C1", "base": OVAL, "x": 10, "y": 20, "facing": 0}],
                keywords=("MONSTER",),
                move=8,
            ),
            unit("T", "blue", [{"id": "T1", "base": {"round": 32}, "x": 19, "y": 20}]),
        ],
        [
            terrain("A", rect(13, 10, 15, 18.4), solid=True, kind="building", height=5),
            terrain("B", rect(13, 21.6, 15, 30), solid=True, kind="building", height=5),
        ],
        phase="charge",
    )


def charge(x=None):
    end = None if x is None else {"C1": {"x": x, "y": 20, "facing": 0}}
    return move("C", "charge", end=end, dice=[4, 4], charge_targets=["T"])


def test_an_oval_stopping_short_of_the_gap_is_told_it_could_have_got_within_1_and_engaged():
    v = adjudicate(board(), charge(11))
    texts = [f.text for f in v.failures if f.stage == "while-moving"]
    # before, the enclosing circle found no way through the gap: "could not get within 1""
    assert any('could have got within 1"' in t for t in texts), texts
    assert any("could have reached it" in t for t in texts), texts


def test_the_oval_through_the_gap_into_base_contact_is_legal():
    v = adjudicate(board(), charge(16.3))
    assert v.legal, [f.text for f in v.failures]


def test_the_suggested_charge_drives_the_oval_through_the_gap():
    s = board()
    placed = suggest(s, charge())
    v = adjudicate(s, placed)
    assert v.legal, [f.text for f in v.failures]
    assert placed.end["C1"].x > 15


def test_a_unit_that_must_go_round_a_block_is_suggested_a_legal_charge():
    # A judge's review: three Carnifex ovals (facing 0) at (8, 14), (8, 18), (8, 22) charge E
    # (five 32 mm models at x = 20, y 15..23) with 10 (5 + 5) past a solid block (x 15..17,
    # y 13..21). Only M3's way, under the block, reaches within 1" of E5; M1 and M2 must follow it
    # to stay within 2" of a unit mate. Before, M1 went first, found no spot, and held the whole
    # unit back: nobody moved and the charge was suggested as failed.
    models = [
        {"id": f"M{i + 1}", "base": OVAL, "x": 8, "y": y, "facing": 0}
        for i, y in enumerate((14, 18, 22))
    ]
    s = situation(
        [
            unit("M", "red", models, keywords=("MONSTER",), move=8),
            unit(
                "E",
                "blue",
                [
                    {"id": f"E{i + 1}", "base": {"round": 32}, "x": 20, "y": 15 + 2 * i}
                    for i in range(5)
                ],
            ),
        ],
        [terrain("K", rect(15, 13, 17, 21), solid=True, kind="building", height=5)],
        phase="charge",
    )
    placed = suggest(s, move("M", "charge", dice=[5, 5], charge_targets=["E"]))
    v = adjudicate(s, placed)
    assert v.legal, [f.text for f in v.failures]
