"""What judged a verdict (issue 17): the engine's version and the rules revision it follows, so
that a step link opened a year later says what judged it (`judged_by` in the verdict,
docs/format.md).

RULES_REVISION names the rules contract (RULES.md, shared with the team) the engine implements:
its date and the first 12 hex digits of its SHA-256. When RULES.md changes, the engine is brought
in line and this changes with it (tests/rules/test_revision.py compares it with the file when
the file is at hand)."""

from __future__ import annotations

import os
import sys

RULES_REVISION = "RULES.md 2026-12-01 c8816119b9de"

#: The installed package's metadata folder is named `{name}-{version}.dist-info` (the wheel
#: format, PEP 427), so the version is read from the folder's name: `importlib.metadata` would
#: cost the command line (`python -m rules`) an eighth of its start (issue 16).
DIST_INFO = ("arbiter-", ".dist-info")


def engine_version() -> str:
    """'arbiter X.Y.Z', the installed package's version (pyproject.toml)."""
    prefix, suffix = DIST_INFO
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for name in names:
            if name.startswith(prefix) and name.endswith(suffix):
                return f"arbiter {name[len(prefix) : -len(suffix)]}"
    return "arbiter (not installed)"  # run from a checkout without installing it


ENGINE_VERSION = engine_version()


def judged_by() -> dict[str, str]:
    return {"engine": ENGINE_VERSION, "rules": RULES_REVISION}
