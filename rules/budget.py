"""A deadline for the engine's long searches (issue 15, README "Limits").

The web site and the API give every request a budget of CPU time for judging (settings
`ENGINE_DEADLINE`, 2 s by default); the command line has none unless asked (`--deadline`).
The engine's long loops (the path graph and its searches, the surge solver, the Warmaster
placement searches) call `check()`; once the budget is spent it raises `OutOfTime`, which
`rules.adjudicate` turns into a failed finding (rule "engine": too complex to judge here) and
`rules.suggest` and `rules.reach` into a refusal (`TooComplex`, an `InvalidInput`), so that a
document too costly to judge answers in bounded time with a clear message: never a killed worker,
never a silent pass.

The clock is the calling thread's CPU time, not the wall clock: on a busy machine (two cores
shared by several workers) the wall clock measures the neighbours as much as the judgement.
Reading that clock is a system call, so `check()` reads it only every `EVERY` calls; without a
deadline it costs one context-variable lookup.

    >>> import time
    >>> with deadline(0.0001):
    ...     started = time.thread_time()
    ...     while time.thread_time() - started < 0.01:
    ...         check("a long loop")
    Traceback (most recent call last):
    ...
    rules.budget.OutOfTime: Too complex to judge here within 0.0001 s: a long loop
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from .errors import InvalidInput

#: `check()` reads the clock once every this many calls (a call is one step of a loop whose
#: steps cost microseconds each, so the deadline is overrun by well under a millisecond).
EVERY = 64


class OutOfTime(Exception):  # noqa: N818 (the engine's word for it)
    """The judgement ran past its deadline. Not an `InvalidInput`, so that the engine's own
    `except InvalidInput` (a candidate placement that does not fit, say) never swallows it."""

    def __init__(self, seconds: float, where: str):
        self.seconds, self.where = seconds, where
        super().__init__(self.message)

    @property
    def message(self) -> str:
        return f"Too complex to judge here within {seconds_text(self.seconds)} s: {self.where}"


class TooComplex(InvalidInput):
    """The refusal a search answers when it runs out of time (`suggest`, `reach`)."""

    def __init__(self, out: OutOfTime):
        super().__init__(
            "",
            f"{out.message}. Try a smaller table, fewer terrain pieces or fewer models "
            "(README “Limits”).",
        )


class _Budget:
    """The deadline of one judgement, in this thread's CPU seconds, and the calls counted."""

    __slots__ = ("calls", "ends", "seconds")

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.ends = time.thread_time() + seconds
        self.calls = 0


_BUDGET: ContextVar[_Budget | None] = ContextVar("arbiter_engine_budget", default=None)


def seconds_text(seconds: float) -> str:
    """2 -> "2", 0.25 -> "0.25" (the deadline as people write it)."""
    return f"{seconds:g}"


@contextmanager
def deadline(seconds: float | None) -> Iterator[None]:
    """Run the block with a budget of `seconds` of this thread's CPU time; None or 0: no budget.
    A deadline already running is kept when it ends sooner (a nested call never extends it)."""
    outer = _BUDGET.get()
    if (
        not seconds
        or seconds <= 0
        or (outer is not None and outer.ends <= time.thread_time() + seconds)
    ):
        yield
        return
    token = _BUDGET.set(_Budget(seconds))
    try:
        yield
    finally:
        _BUDGET.reset(token)


def check(where: str) -> None:
    """Raise `OutOfTime` if the running deadline has passed (`where` says what was being done,
    for the message). One line in each long loop of the engine."""
    budget = _BUDGET.get()
    if budget is None:
        return
    budget.calls += 1
    if budget.calls % EVERY == 0 and time.thread_time() > budget.ends:
        raise OutOfTime(budget.seconds, where)


def check_now(where: str) -> None:
    """`check()` that reads the clock at once: before a single step that may be long (building
    a path graph for thousands of corners)."""
    budget = _BUDGET.get()
    if budget is not None and time.thread_time() > budget.ends:
        raise OutOfTime(budget.seconds, where)


def afford(seconds: float, what: str) -> None:
    """Refuse at once (`OutOfTime`) a step estimated to take `seconds` when less is left: a step
    that cannot be interrupted (one numpy operation on a path graph of thousands of corners)
    is never started only to overrun."""
    budget = _BUDGET.get()
    if budget is not None and time.thread_time() + seconds > budget.ends:
        raise OutOfTime(budget.seconds, what)


__all__ = ["EVERY", "OutOfTime", "TooComplex", "afford", "check", "check_now", "deadline"]
