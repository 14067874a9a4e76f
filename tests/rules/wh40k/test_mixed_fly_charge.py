"""RULES.md 1.7 with 1.4: in a unit where only some models have FLY, only those take to the
skies; the charge's "within 1" / engaged if it can" weighs, for each other model, only the spots
it can reach on foot (a judge's review). Positions worked by hand; 32 mm bases, r = 0.63".

A1 has FLY (its own keyword), A2 does not. A solid block S (x 17.5..18.5, y 15..25) stands
between A2 at (14, 20) and the target E1 at (20, 20). The unit takes to the skies and charges
with 9 (4 + 5): 7" for the whole move. A1 flies over S to (19.3, 18.55), 0.35" from E1. On foot,
A2 can only go round S: past its end at y 25 and back, about 10.6" against 7", so its best is
the near side of the block, (16.87, 20): 20 - 16.87 - 1.26 = 1.87" from E1, engaged (2" or
less) but not within 1". No spot within 1" of E1 is reachable on foot, so the placement is
legal; the same unit with FLY on every model must put A2 within 1" (over the block).
"""

from rules import adjudicate, suggest

from .scenarios import model, move, rect, situation, terrain, unit


def board(everyone_flies=False):
    a1 = model("A1", 14, 18.5)
    a2 = model("A2", 14, 20)
    a1["keywords"] = ["FLY"]
    keywords = ("INFANTRY", "FLY") if everyone_flies else ("INFANTRY",)
    return situation(
        [unit("A", "red", [a1, a2], keywords=keywords), unit("E", "blue", [model("E1", 20, 20)])],
        [terrain("S", rect(17.5, 15, 18.5, 25), solid=True, height=3)],
        phase="charge",
    )


def charge(end=None):
    return move("A", "charge", end=end, dice=[4, 5], charge_targets=["E"], take_to_the_skies=True)


HAND = {"A1": (19.3, 18.55), "A2": (16.87, 20)}


def test_the_model_without_fly_is_not_told_it_could_have_flown_within_1():
    v = adjudicate(board(), charge(HAND))
    assert v.legal, [f.text for f in v.failures]


def test_with_fly_on_every_model_the_same_placement_is_short():
    v = adjudicate(board(everyone_flies=True), charge(HAND))
    assert any('could have got within 1"' in f.text for f in v.failures)


def test_the_suggestion_keeps_the_model_without_fly_on_foot():
    s = board()
    placed = suggest(s, charge())
    assert adjudicate(s, placed).legal
