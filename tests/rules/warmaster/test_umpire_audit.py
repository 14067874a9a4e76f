"""An umpire's audit of the Warmaster engine against RULES.md section 2 (and section 0).

Every case is worked by hand from the rule text; the positions and the expected distances and
findings are written here from that working, never copied from the engine's output. Unless a test
says otherwise, stands are 4 x 2 cm, facing +x, and `line_of_flyers(id, x, y)` is three such stands
side by side at (x, y - 4), (x, y), (x, y + 4): x - 1 .. x + 1 by y - 6 .. y + 6.
"""

from .builders import enemy, failed_rules, flyers, judge, line_of_flyers, scenario, stand


def confusion_rolls(verdict):
    return sorted(
        (e["unit"], e["dice"], e["because"]) for e in verdict.events if e["event"] == "confusion-roll"
    )


def texts(verdict):
    return " ".join(f.text for f in verdict.findings)


# --- 2.9 "Confusion and making way": each confusion roll is reported once ---------------------
#
# F (x 99..101, y 48..60) is shot by S1 at (120, 54) and driven back 3 + 4 = 7 cm in -x: its stands
# would end at x 92..94. G1 at (93, 54) and H1 at (93, 58) (x 92..94) stand right there, so G and H
# make way. 2.9: G and H each roll one D6 (confused on a 6); F rolls one D6 per unit it forced
# aside, 2D6, with its drive back. G is a flyer: its D6 belongs to its own make-way move. H is
# infantry, whose make-way move Arbiter does not judge: its D6 is reported with the drive back.
# No roll is reported twice.


def _driven_onto_friends():
    return scenario(
        [
            line_of_flyers("F", 100, 54),
            enemy("S", 120, 54),
            flyers("G", [stand("G1", 93, 54)]),
            flyers("H", [stand("H1", 93, 58)], keywords=("INFANTRY",)),
        ],
        phase="shooting",
    )


def test_the_drive_back_reports_no_roll_a_flying_friend_makes_with_its_own_move():
    move = {
        "unit": "F",
        "type": "drive-back",
        "dice": [3, 4],
        "declarations": {"shooter": "S1", "hits": 2, "friends_make_way": True},
    }
    verdict = judge(_driven_onto_friends(), move)
    assert verdict.legal, failed_rules(verdict)
    assert confusion_rolls(verdict) == [
        ("F", "2D6", "forced friends to make way"),
        ("H", "1D6", "made way for F"),
    ]
    # the finding says where G's own die is reported
    assert "G: each rolls its own D6 (confused on a 6) with its make-way move" in texts(verdict)


def test_the_friends_make_way_move_reports_only_its_own_roll():
    # G makes way 10 cm back (-x): G1 from x 92..94 to x 82..84, clear of every stand.
    move = {
        "unit": "G",
        "type": "make-way",
        "end": {"G1": {"x": 83, "y": 54}},
        "declarations": {"made_way_for": "F"},
    }
    verdict = judge(_driven_onto_friends(), move)
    assert verdict.legal, failed_rules(verdict)
    assert confusion_rolls(verdict) == [("G", "1D6", "made way for F")]
    # and it says where the 2D6 of F (the unit that forced it aside) are reported
    assert "F's own verdict" in texts(verdict)


def test_a_retreat_through_friends_reports_only_the_retreating_units_roll():
    # F (x 49..51) lost a combat against E1 (x 51..53, touching F2's front) and retreats 8 cm in
    # -x, to x 41..43; flying friend G1 (x 43..45, y 52..56) is in the way and makes way. F rolls
    # 1D6 for forcing one unit aside; G's own D6 belongs to G's make-way move.
    doc = scenario(
        [
            line_of_flyers("F", 50, 54),
            enemy("E", 52, 54),
            flyers("G", [stand("G1", 44, 54)]),
        ],
        phase="combat",
    )
    move = {"unit": "F", "type": "retreat", "declarations": {"hits": 8, "friends_make_way": True}}
    verdict = judge(doc, move)
    assert verdict.legal, failed_rules(verdict)
    assert confusion_rolls(verdict) == [("F", "1D6", "forced friends to make way")]
    assert "make-way move" in texts(verdict)
