"""Every verdict says what judged it (issue 17): the engine's version and the rules revision."""

import hashlib
from pathlib import Path

import pytest

from rules import Verdict
from rules.revision import RULES_REVISION, judged_by

RULES_MD = Path(__file__).resolve().parents[2].parent / "shared" / "RULES.md"


def test_a_verdict_names_the_engine_and_the_rules_revision():
    verdict = Verdict(move={"unit": "B", "type": "normal"})
    verdict.check(
        rule="09.05", stage="while-moving", passed=True, subject="B", text="A test's fixed answer."
    )
    stamp = verdict.as_dict()["judged_by"]
    assert stamp == judged_by()
    assert stamp["engine"].startswith("arbiter ")
    assert stamp["rules"] == RULES_REVISION


@pytest.mark.skipif(not RULES_MD.exists(), reason="shared/RULES.md is not beside the checkout")
def test_the_rules_revision_is_the_rules_contract_in_force():
    digest = hashlib.sha256(RULES_MD.read_bytes()).hexdigest()[:12]
    assert RULES_REVISION.endswith(digest), (
        f"shared/RULES.md changed (SHA-256 starts {digest}): bring the engine in line, then "
        f"update RULES_REVISION in rules/revision.py"
    )


def test_the_engine_version_is_the_installed_packages():
    from importlib import metadata

    from rules.revision import engine_version

    assert engine_version() == f"arbiter {metadata.version('arbiter')}"
