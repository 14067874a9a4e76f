"""What judged a verdict (issue 17): the engine's version and the rules revision it follows, so
that a step link opened a year later says what judged it (`judged_by` in the verdict,
docs/format.md).

RULES_REVISION names the rules contract (RULES.md, shared with the team) the engine implements:
its date and the first 12 hex digits of its SHA-256. When RULES.md changes, the engine is brought
in line and this changes with it (tests/rules/test_revision.py compares it with the file when
the file is at hand)."""

from __future__ import annotations

from importlib import metadata

RULES_REVISION = "RULES.md 2026-12-01 c8816119b9de"


def engine_version() -> str:
    """'arbiter X.Y.Z', the installed package's version (pyproject.toml)."""
    try:
        return f"arbiter {metadata.version('arbiter')}"
    except metadata.PackageNotFoundError:  # run from a checkout without installing it
        return "arbiter (not installed)"


ENGINE_VERSION = engine_version()


def judged_by() -> dict[str, str]:
    return {"engine": ENGINE_VERSION, "rules": RULES_REVISION}
