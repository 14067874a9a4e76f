"""`python manage.py adjudicate SCENARIO.json MOVE.json`: print the verdict (FORMAT.md).

Exit status: 0 the move is legal, 1 it is not, 2 the input is invalid (the message, naming the
field, goes to stderr), 3 the engine failed (a fault to report; the message goes to stderr, never
a traceback). Nothing is stored.
"""

import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand

from rules import InvalidInput, adjudicate
from rules.budget import deadline
from rules.situation import LIMITS

from ...validation import API_BODY_BYTES, TooLarge, parse_json, validate_move, validate_scenario

EXIT_LEGAL, EXIT_ILLEGAL, EXIT_INVALID, EXIT_ERROR = 0, 1, 2, 3
MOVE_BYTES = API_BODY_BYTES - LIMITS["document_bytes"]


class Command(BaseCommand):
    help = (
        "Judge a move: prints the verdict JSON; exit 0 legal, 1 illegal, 2 invalid input, "
        "3 engine fault."
    )
    requires_system_checks = []
    requires_migrations_checks = False

    def add_arguments(self, parser):
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

    def handle(self, *args, **options):
        try:
            scenario = parse_json(
                self.read(options["scenario"], LIMITS["document_bytes"]),
                what=f"scenario file {options['scenario']}",
            )
            situation = validate_scenario(scenario)
            move_doc = parse_json(
                self.read(options["move"], MOVE_BYTES),
                limit=MOVE_BYTES,
                what=f"move file {options['move']}",
            )
            move = validate_move(move_doc, situation.system)
            with deadline(options["deadline"]):
                verdict = adjudicate(situation, move)
            # Built inside the try: the verdict's scenario-after is made on demand, and
            # anything wrong there is reported like the rest, never as a traceback.
            text = json.dumps(
                verdict.as_dict(), indent=None if options["compact"] else 2, ensure_ascii=False
            )
        except InvalidInput as exc:
            where = f"{exc.field}: " if exc.field else ""
            self.stderr.write(f"invalid input: {where}{exc.message}")
            sys.exit(EXIT_INVALID)
        except Exception as exc:  # no input may end in a traceback (issue 12)
            self.stderr.write(
                f"Arbiter could not judge this move: {exc.__class__.__name__}: {exc}. "
                "This is a fault in Arbiter, not in your files; please report it with them."
            )
            sys.exit(EXIT_ERROR)
        self.stdout.write(text)
        sys.exit(EXIT_LEGAL if verdict.legal else EXIT_ILLEGAL)

    def read(self, name: str, limit: int) -> bytes:
        """The file's bytes (one more than the limit at most, so parse_json reports the size)."""
        try:
            if name == "-":
                return sys.stdin.buffer.read(limit + 1)
            path = Path(name)
            size = path.stat().st_size
            if size > limit:
                raise TooLarge("", f"{name} is {size:,} bytes; the limit is {limit:,} bytes")
            return path.read_bytes()
        except OSError as exc:
            raise InvalidInput("", f"cannot read {name}: {exc.strerror}") from None
