"""Test helpers that change what the registry (`rules.systems`) says about one move type for the
length of a test (monkeypatch restores it)."""

import dataclasses

from rules import SYSTEMS


def judge_move_type(
    monkeypatch, system: str, name: str, adjudicate, suggest=None, eligibility=None, reach=None
) -> None:
    """Give a registered move type another judge, for plumbing tests that must not depend on
    the engine's; `adjudicate=None` makes the engine treat the move type as not covered yet."""
    types = SYSTEMS[system].move_types
    replaced = dataclasses.replace(
        types[name], adjudicate=adjudicate, suggest=suggest, eligibility=eligibility, reach=reach
    )
    monkeypatch.setitem(types, name, replaced)
