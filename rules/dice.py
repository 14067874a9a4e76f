"""Dice: entered by the player or rolled by the server with a recorded seed (RULES.md 0)."""

from __future__ import annotations

import random
from typing import Any

from .errors import InvalidInput
from .verdict import Die

_SYSTEM_RANDOM = random.SystemRandom()


class Dice:
    """Hands out the move's dice in the order the rules roll them.

    Values the player entered (`Move.dice`) are used first and marked "user"; when there are
    none, the server rolls with `seed` (a fresh random one if not given) and marks them "server".
    `rolled` keeps every die handed out, for the verdict.
    """

    def __init__(self, entered: tuple[int, ...] | None, seed: int | None = None):
        self.entered = list(entered) if entered is not None else None
        # (the operating system's randomness, as `secrets` uses, without importing `secrets`
        # and its hashing modules, a part of every `python -m rules` start)
        self.seed = seed if seed is not None else _SYSTEM_RANDOM.getrandbits(32)
        self._rng = random.Random(self.seed)
        self.rolled: list[Die] = []

    @property
    def from_user(self) -> bool:
        return self.entered is not None

    def roll(self, count: int = 1) -> list[int]:
        """Roll `count` D6."""
        values: list[int] = []
        for _ in range(count):
            if self.entered is not None:
                if not self.entered:
                    raise InvalidInput(
                        "dice",
                        f"this move needs {count - len(values)} "
                        f"more die value(s) than were entered",
                    )
                value, source = self.entered.pop(0), "user"
            else:
                value, source = self._rng.randint(1, 6), "server"
            self.rolled.append(Die(value, source))
            values.append(value)
        return values

    def finish(self) -> None:
        """Refuse left-over entered dice: the player entered more than the move rolls."""
        if self.entered:
            raise InvalidInput(
                "dice", f"{len(self.entered)} more die value(s) entered than this move rolls"
            )

    def as_list(self) -> list[dict[str, Any]]:
        return [d.as_dict() for d in self.rolled]

    def summary(self) -> dict[str, Any]:
        """The `move.dice` (and `move.seed` when the server rolled) part of a verdict."""
        d: dict[str, Any] = {"dice": self.as_list()}
        if self.rolled and not self.from_user:
            d["seed"] = self.seed
        return d
