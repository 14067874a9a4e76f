"""Findings and verdicts (FORMAT.md "Verdict"): every check made, passed or failed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .revision import judged_by

if TYPE_CHECKING:
    from .situation import Situation

VERDICT_FORMAT = "arbiter.verdict/1"
STAGES = ("eligible-if", "before-moving", "while-moving", "after-moving", "end-of-move")


@dataclass(frozen=True)
class Finding:
    """One check: the rule it applies, the stage, pass/fail, who it is about, the measurement
    and its limit, and a sentence a new player understands (our own words)."""

    rule: str
    stage: str
    passed: bool
    subject: str
    text: str
    measured: float | None = None
    limit: float | None = None

    def __post_init__(self) -> None:
        if self.stage not in STAGES:
            raise ValueError(f"unknown stage {self.stage!r}")

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "rule": self.rule,
            "stage": self.stage,
            "passed": self.passed,
            "subject": self.subject,
        }
        digits = self._digits()
        if self.measured is not None:
            d["measured"] = round(self.measured, digits)
        if self.limit is not None:
            d["limit"] = round(self.limit, digits)
        d["text"] = self.text
        return d

    def _digits(self) -> int:
        """Decimals to report: 4, or 7 for a failed check that 4 would show level with its limit
        (RULES.md 0: "within" allows 1e-6, so 2.000002" against 2" fails and must not read as
        2.0 against 2.0)."""
        m, limit = self.measured, self.limit
        if (
            not self.passed
            and m is not None
            and limit is not None
            and m != limit
            and round(m, 4) == round(limit, 4)
        ):
            return 7
        return 4


@dataclass(frozen=True)
class Die:
    value: int
    source: str  # "user" or "server"

    def as_dict(self) -> dict[str, Any]:
        return {"value": self.value, "source": self.source}


@dataclass
class Verdict:
    """The judgement of one move. `after` is the situation after the move when it is legal."""

    move: dict[str, Any]
    findings: list[Finding] = field(default_factory=list)
    models: dict[str, dict[str, Any]] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    after: Situation | None = None
    # The end poses judged (useful when the engine suggested them).
    proposed: dict[str, Any] | None = None

    @property
    def legal(self) -> bool:
        return all(f.passed for f in self.findings) and bool(self.findings)

    @property
    def failures(self) -> list[Finding]:
        return [f for f in self.findings if not f.passed]

    def add(self, finding: Finding) -> Finding:
        self.findings.append(finding)
        return finding

    def check(
        self,
        *,
        rule: str,
        stage: str,
        passed: bool,
        subject: str,
        text: str | None = None,
        pass_text: str | None = None,
        fail_text: str | None = None,
        measured: float | None = None,
        limit: float | None = None,
    ) -> bool:
        """Record a finding and return whether it passed.

        Give either one `text` (for a check whose outcome is known where it is written, such as
        a refusal) or both `pass_text` and `fail_text`: the finding keeps the sentence that fits
        its outcome, so no call site words its verdict inline.

        >>> v = Verdict(move={})
        >>> v.check(rule="03.01", stage="while-moving", passed=False, subject="A",
        ...         pass_text="A keeps to the table.", fail_text="A would leave the table.")
        False
        >>> v.findings[0].text
        'A would leave the table.'
        """
        passed = bool(passed)
        if text is None:
            if pass_text is None or fail_text is None:
                raise TypeError("check() needs text, or both pass_text and fail_text")
            text = pass_text if passed else fail_text
        elif pass_text is not None or fail_text is not None:
            raise TypeError("check() takes text or pass_text/fail_text, not both")
        self.add(
            Finding(
                rule=rule,
                stage=stage,
                passed=passed,
                subject=subject,
                text=text,
                measured=measured,
                limit=limit,
            )
        )
        return passed

    def as_dict(self) -> dict[str, Any]:
        d = {
            "format": VERDICT_FORMAT,
            "legal": self.legal,
            "move": self.move,
            "findings": [f.as_dict() for f in self.findings],
            "models": self.models,
            "events": self.events,
            "judged_by": judged_by(),
        }
        if self.proposed is not None:
            d["proposed"] = self.proposed
        if self.legal and self.after is not None:
            d["scenario"] = self.after.to_document()
        return d
