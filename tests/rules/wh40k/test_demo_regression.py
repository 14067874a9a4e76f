"""Old scenarios judge exactly as before (issue 12): every 40K demo move against the baseline
captured before the 3-D terrain model (tests/rules/wh40k/demo_regression.py)."""

import json

import pytest

from .demo_regression import BASELINE, _jsonable, _summary, cases

EXPECTED = json.loads(BASELINE.read_text())
CASES = cases()


def test_the_baseline_covers_every_demo_move_and_nothing_else():
    assert sorted(CASES) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_demo_move_is_judged_exactly_as_before(name):
    situation, move, suggested = CASES[name]
    assert _jsonable(_summary(situation, move, suggested=suggested)) == EXPECTED[name]
