"""`python -m rules SCENARIO.json MOVE.json [--compact]`: judge a move without the web site.

The same contract as `manage.py adjudicate` (README "Command line"): the verdict JSON on stdout;
exit status 0 the move is legal, 1 it is not, 2 the input is invalid (the message, naming the
field, on stderr), 3 the engine failed (a message, never a traceback). SCENARIO may be `-` for
stdin. Nothing is stored.

It needs no Django, so it starts in a fraction of the time: the engine, plus the one validator
(`battlefield/validation.py`, which imports no Django either, so that the site and this command
word every error alike). `import rules` alone never loads either: only running this module does.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import BinaryIO, TextIO

EXIT_LEGAL, EXIT_ILLEGAL, EXIT_INVALID, EXIT_ERROR = 0, 1, 2, 3


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m rules",
        description="Judge a move: prints the verdict JSON; exit 0 legal, 1 illegal, "
        "2 invalid input, 3 engine fault.",
    )
    parser.add_argument("scenario", help="scenario JSON file (FORMAT.md), or - for stdin")
    parser.add_argument("move", help="move JSON file (FORMAT.md)")
    parser.add_argument("--compact", action="store_true", help="print the verdict on one line")
    parser.add_argument(
        "--deadline",
        type=float,
        default=None,
        metavar="SECONDS",
        help="give up judging after this much CPU time: the verdict then has a failed "
        '"engine" finding, too complex to judge (exit 1); no deadline by default',
    )
    return parser


def _read(name: str, limit: float, stdin: BinaryIO) -> bytes:
    """The file's bytes (one more than the limit at most, so parse_json reports the size)."""
    limit = int(limit)
    from battlefield.validation import TooLarge  # noqa: PLC0415 (only the command needs it)

    from .errors import InvalidInput  # noqa: PLC0415

    try:
        if name == "-":
            return stdin.read(limit + 1)
        path = Path(name)
        size = path.stat().st_size
        if size > limit:
            raise TooLarge("", f"{name} is {size:,} bytes; the limit is {limit:,} bytes")
        return path.read_bytes()
    except OSError as exc:
        raise InvalidInput("", f"cannot read {name}: {exc.strerror}") from None


def main(
    argv: list[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    """Run the command; returns the exit status."""
    # The validator lives with the schema files in the web app's folder; it imports no Django.
    from battlefield.validation import (  # noqa: PLC0415
        API_BODY_BYTES,
        parse_json,
        validate_move,
        validate_scenario,
    )

    from . import InvalidInput, adjudicate  # noqa: PLC0415
    from .budget import deadline  # noqa: PLC0415
    from .situation import LIMITS  # noqa: PLC0415

    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    options = _parser().parse_args(argv)
    move_bytes = API_BODY_BYTES - LIMITS["document_bytes"]
    stdin = sys.stdin.buffer
    try:
        scenario = parse_json(
            _read(options.scenario, LIMITS["document_bytes"], stdin),
            what=f"scenario file {options.scenario}",
        )
        situation = validate_scenario(scenario)
        move_doc = parse_json(
            _read(options.move, move_bytes, stdin),
            limit=move_bytes,
            what=f"move file {options.move}",
        )
        move = validate_move(move_doc, situation.system)
        with deadline(options.deadline):
            verdict = adjudicate(situation, move)
        text = json.dumps(
            verdict.as_dict(), indent=None if options.compact else 2, ensure_ascii=False
        )
    except InvalidInput as exc:
        where = f"{exc.field}: " if exc.field else ""
        stderr.write(f"invalid input: {where}{exc.message}\n")
        return EXIT_INVALID
    except Exception as exc:  # no input may end in a traceback
        stderr.write(
            f"Arbiter could not judge this move: {exc.__class__.__name__}: {exc}. "
            "This is a fault in Arbiter, not in your files; please report it with them.\n"
        )
        return EXIT_ERROR
    stdout.write(text + "\n")
    return EXIT_LEGAL if verdict.legal else EXIT_ILLEGAL


if __name__ == "__main__":
    sys.exit(main())
