"""No verdict changes: every move of the regression corpus is judged exactly as the goldens say.

The corpus (tests/regression/corpus.py) is the demo moves, the lessons' "try it" moves and moves
generated over every move type on the demo tables and on seeded random 40K tables. A change that
is meant to change verdicts regenerates the goldens (`make goldens`) and the diff is reviewed.
"""

import difflib
import functools
import json

import pytest

from . import corpus

CASES = {group: corpus.cases(group) for group in corpus.GROUPS}


@functools.cache
def golden(group: str) -> dict:
    path = corpus.golden_path(group)
    if not path.exists():
        pytest.fail(f"no goldens at {path}: run `make goldens` on the commit to compare with")
    return json.loads(path.read_text())


def test_the_corpus_is_large_enough():
    """Issue 16: at least 200 moves, over both systems and every way a move reaches the engine."""
    assert sum(len(c) for c in CASES.values()) >= 200
    assert all(CASES[group] for group in corpus.GROUPS)


def test_no_golden_lost_or_added():
    """The goldens and the corpus name the same cases (a new case means regenerating them)."""
    for group in corpus.GROUPS:
        assert sorted(CASES[group]) == sorted(golden(group)), group


@pytest.mark.parametrize(
    ("group", "key"), [(group, key) for group in corpus.GROUPS for key in CASES[group]]
)
def test_verdict_unchanged(group, key):
    scenario, move = CASES[group][key]
    got = corpus.judge(json.loads(json.dumps(scenario)), move)
    want = golden(group).get(key)
    if got != want:
        diff = difflib.unified_diff(
            corpus.dumps(want or {}).splitlines(),
            corpus.dumps(got).splitlines(),
            "golden",
            "now",
            lineterm="",
        )
        pytest.fail(f"verdict changed for {key}:\n" + "\n".join(diff), pytrace=False)
