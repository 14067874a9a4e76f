"""Text and numbers from outside, checked the same way at every way in (issue 15): documents
(import, API, command line, editor) through `clean_document`, form fields through
`text_validator`, query strings through `bounded_number`.

- Every string is NFC-normalised and may not hold a lone UTF-16 surrogate (it cannot be written
  as UTF-8, so every page showing it would fail), NUL or another control character (PostgreSQL
  refuses NUL; the others break pages and logs); free text (descriptions, notes) keeps tabs and
  line breaks.
- Names may not hold bidi controls or zero-width and other invisible format characters (Unicode
  category Cf): they make a name read differently from what it is (a reversed "srekrezreB"
  shown as "Berzerkers", two names that look alike), on pages and in pictures.
- Numbers are finite and at most `NUMBER_LIMIT` in size: a 5,000-digit integer or 1e308 is no
  coordinate, facing or count any table has, and arithmetic on them overflows.

A scenario stored before these checks may still hold such text: `readable` makes it safe to show
(and so to open, fix and delete).
"""

from __future__ import annotations

import math
import re
import unicodedata

from rules import InvalidInput

#: Largest size of any number in a document or a query string (a server dice seed is 32 bits).
NUMBER_LIMIT = 10_000_000_000
#: Longest integer literal read from JSON, in characters: longer ones are refused by
#: `clean_document` (naming the field) instead of being converted (Python refuses over 4,300
#: digits with an error of its own).
INTEGER_DIGITS = 24

#: Keys whose strings are free text (may hold line breaks and tabs).
FREE_TEXT_KEYS = frozenset({"description", "notes", "note", "text", "source", "attribution"})
#: Keys whose strings are names that pages and pictures show.
NAME_KEYS = frozenset({"name"})

_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_LINE_CONTROL = re.compile("[\t\n\r]")
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def problem(text: str, *, name: bool = False, free: bool = False) -> str | None:
    """What is wrong with `text` (already NFC), in words, or None."""
    if text.isprintable():
        # every character refused below is in Unicode's category C (Cc controls, Cs
        # surrogates, Cf format and bidi controls), which `isprintable` rejects: one C-speed
        # pass answers for the strings that are fine, nearly all of them
        return None
    if _SURROGATE.search(text):
        return "holds a broken character (a lone UTF-16 surrogate)"
    if "\x00" in text:
        return "holds a NUL character"
    if _CONTROL.search(text) or (not free and _LINE_CONTROL.search(text)):
        return "holds a control character" + ("" if free else " (line breaks and tabs included)")
    if _BIDI.search(text):
        return "holds a text-direction control character, which makes it read differently"
    if name and any(unicodedata.category(ch) == "Cf" for ch in text):
        return "holds an invisible formatting character (zero-width or similar)"
    return None


def normalise(text: str) -> str:
    """NFC, so that the same name typed on two keyboards is the same name."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def json_int(literal: str) -> int | float:
    """`json.loads(parse_int=...)`: an integer literal, or infinity when it is too long to be a
    number any document holds (refused with its field by `clean_document`)."""
    if len(literal) > INTEGER_DIGITS:
        return -math.inf if literal.startswith("-") else math.inf
    return int(literal)


def _number_problem(value: float) -> str | None:
    if not math.isfinite(value) or abs(value) > NUMBER_LIMIT:
        return f"must be a number between -{NUMBER_LIMIT:,} and {NUMBER_LIMIT:,}"
    return None


def _field(path: tuple) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def clean_document(doc, path: tuple = ()):
    """Check every string and number of a parsed JSON document (see the module docstring),
    normalising strings in place; raise InvalidInput naming the first field at fault. Returns
    the document."""
    stack: list[tuple[object, tuple]] = [(doc, path)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, dict):
            for key in list(node):
                if not isinstance(key, str) or problem(key):
                    raise InvalidInput(_field(where), "has a field name with broken characters")
                value = node[key]
                here = (*where, key)
                if isinstance(value, str):
                    value = node[key] = normalise(value)
                    wrong = problem(value, name=key in NAME_KEYS, free=key in FREE_TEXT_KEYS)
                    if wrong:
                        raise InvalidInput(_field(here), wrong)
                else:
                    stack.append((value, here))
        elif isinstance(node, list):
            for i, value in enumerate(node):
                if isinstance(value, str):
                    value = node[i] = normalise(value)
                    if wrong := problem(value):
                        raise InvalidInput(_field((*where, i)), wrong)
                else:
                    stack.append((value, (*where, i)))
        elif isinstance(node, (int, float)) and not isinstance(node, bool):
            if wrong := _number_problem(node):
                raise InvalidInput(_field(where), wrong)
        elif isinstance(node, str):
            node = normalise(node)
            if wrong := problem(node):
                raise InvalidInput(_field(where), wrong)
    return doc


def bounded_number(text: str, field: str, *, what: str = "") -> float:
    """A number typed into a query string or form: finite and at most NUMBER_LIMIT in size, or
    InvalidInput naming the field."""
    text = text.strip()
    prefix = f"{what} " if what else ""
    if len(text) > 40:
        raise InvalidInput(field, f"{prefix}must be a number, and a short one")
    try:
        value = float(text)
    except ValueError:
        raise InvalidInput(field, f"{prefix}must be a number") from None
    if wrong := _number_problem(value):
        raise InvalidInput(field, f"{prefix}{wrong}")
    return value


def readable(value):
    """`value` (a stored document or a string) with the characters that break or spoof pages
    replaced (surrogates by U+FFFD) or dropped (controls, bidi and invisible characters): for
    showing what was stored before the checks, so that it can be opened, fixed and deleted.
    Returns `value` itself when nothing needed changing (the usual case: no copy is made)."""
    if isinstance(value, str):
        if value.isascii() and not _CONTROL.search(value):
            return value
        fixed = _SURROGATE.sub("\ufffd", value)
        fixed = _CONTROL.sub("", _BIDI.sub("", fixed))
        fixed = "".join(ch for ch in fixed if unicodedata.category(ch) != "Cf")
        return value if fixed == value else fixed
    if isinstance(value, dict):
        items = [(readable(k), readable(v)) for k, v in value.items()]
        changed = any(
            k2 is not k or v2 is not v
            for (k, v), (k2, v2) in zip(value.items(), items, strict=True)
        )
        return dict(items) if changed else value
    if isinstance(value, list):
        fixed_list = [readable(v) for v in value]
        changed = any(a is not b for a, b in zip(value, fixed_list, strict=True))
        return fixed_list if changed else value
    return value
