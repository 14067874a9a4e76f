"""Words for people (issue 13): the engine's sentences name units and models the way players do.

Players know a unit by its name ("Khorne Berzerkers"), not by the id the format gives it ("B"),
and a model as "B1 of Khorne Berzerkers". Ids stay where machines read them (a finding's
`subject`, event keys, the verdict's data); the sentences written for people use `named(...)`.

Why a context rather than an argument: the sentences are built deep inside the judges (a
coherency check, a path that crosses an enemy, a trigger described in words), and many of the
helpers that write them are handed a unit or an id, not the situation. So each public entry
point of the engine (`rules.systems`) makes its situation's names current for the length of the
call with `naming(situation)`, and every sentence asks `named(x)`. The names live in a
`contextvars.ContextVar`, so two threads (or two nested calls) judging different situations
each read their own. With no naming current (a test calling a judge directly) `named` gives the
id back unchanged.

    >>> from rules import Situation
    >>> from rules.examples import one_squad_and_a_target
    >>> table = Situation.from_document(one_squad_and_a_target())
    >>> named("A1")
    'A1'
    >>> with naming(table):
    ...     named("A1"), named(table.unit("B"))
    ('A1 of Intercessors', 'Boyz')
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

#: The names current in this context: unit id -> unit name, model id -> "model id of unit name".
_NAMES: ContextVar[Mapping[str, str] | None] = ContextVar("rules.naming", default=None)


def _name_unit(names: dict[str, str], unit_id: str, name: str | None, model_ids: list[str]) -> None:
    """A unit by its name (its id when it has none) and each model as "<model id> of <unit
    name>"; the models of a unit without a name keep their bare ids ("A1", not "A1 of A")."""
    names[unit_id] = name or unit_id
    if name and name != unit_id:
        for model_id in model_ids:
            names.setdefault(model_id, f"{model_id} of {name}")


def names_of_document(document: Mapping[str, Any] | None) -> dict[str, str]:
    """Unit id -> unit name (its id when it has none) and model id -> "<model id> of <unit
    name>", from a scenario document (FORMAT.md `units`): see `_name_unit`."""
    names: dict[str, str] = {}
    for unit in (document or {}).get("units", ()):
        _name_unit(names, unit["id"], unit.get("name"), [m["id"] for m in unit.get("models", ())])
    return names


def names_of(situation: Any) -> dict[str, str]:
    """The same names from a built situation (kept on it: a situation never changes)."""
    memo = situation.memo
    names = memo.get("rules.naming")
    if names is None:
        names = {}
        for unit in situation.units:
            _name_unit(names, unit.id, unit.name, [m.id for m in unit.models])
        memo["rules.naming"] = names
    return names


@contextmanager
def naming(situation: Any) -> Iterator[Mapping[str, str]]:
    """Make `situation`'s unit and model names current until the block ends."""
    names = names_of(situation)
    token = _NAMES.set(names)
    try:
        yield names
    finally:
        _NAMES.reset(token)


def named(x: Any) -> str:
    """A unit, a model or an id by name for people: a unit's name, a model as "<model id> of
    <unit name>"; the id itself when it is not in the current naming (or none is current)."""
    key = x if isinstance(x, str) else str(x.id)
    names = _NAMES.get()
    return key if names is None else names.get(key, key)
