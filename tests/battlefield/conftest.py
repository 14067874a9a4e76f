import pytest

from rules import Verdict
from tests.registry import judge_move_type


@pytest.fixture
def judge_normal_moves_as(monkeypatch):
    """Make the engine judge 40K normal moves with a fixed answer, for plumbing tests that must
    not depend on which move types the engine covers. Restored after the test."""

    def install(legal: bool):
        def rule(situation, move):
            verdict = Verdict(move={"unit": move.unit, "type": move.type})
            verdict.check(
                rule="09.05",
                stage="eligible-if",
                passed=legal,
                subject=move.unit,
                text="A test's fixed answer.",
            )
            if legal:
                verdict.after = situation.moved({k: v.as_dict() for k, v in move.end.items()})
            return verdict

        judge_move_type(monkeypatch, "wh40k-11e", "normal", adjudicate=rule)

    return install
