"""Errors raised at the engine's boundary.

An illegal move is never an exception: it is a verdict with failed findings. Exceptions are for
input that cannot be judged at all.
"""

from typing import Any


class InvalidInput(ValueError):
    """Malformed input, naming the field it is about (FORMAT.md "Errors").

    >>> InvalidInput("units[2].models[0].base", "needs exactly one of round, oval, rect, hull")
    InvalidInput('units[2].models[0].base', 'needs exactly one of round, oval, rect, hull')
    """

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message

    def __repr__(self) -> str:
        return f"InvalidInput({self.field!r}, {self.message!r})"

    def as_dict(self) -> dict[str, Any]:
        return {"error": self.message, "field": self.field}
