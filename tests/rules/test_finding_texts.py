"""House habit (issue 10): a check states its pass and fail sentences apart.

`Verdict.check` takes either one `text` (for a check whose outcome is fixed where it is written,
such as a refusal with `passed=False`) or the pair `pass_text`/`fail_text`. A `text=` that picks
its words by the outcome (`text=A if ok else B`, an f-string with `{'x' if ok else 'y'}`,
`refusal or "..."`) hides the two sentences in one expression; these tests read the engine's
source and name every such call, and every `Finding(...)` built from positional arguments.
"""

import ast
import functools
from pathlib import Path

RULES = Path(__file__).resolve().parents[2] / "rules"
WARMASTER = RULES / "warmaster"


def _sources(warmaster: bool) -> list[Path]:
    return sorted(p for p in RULES.rglob("*.py") if (WARMASTER in p.parents) == warmaster)


@functools.cache
def _all_calls(path: Path) -> tuple[tuple[str | None, ast.Call], ...]:
    """Every call in a source file with the name it calls (parsed once per test session)."""
    calls = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            calls.append((called, node))
    return tuple(calls)


def _calls(path: Path, name: str):
    return (node for called, node in _all_calls(path) if called == name)


def _picks_text_by_outcome(call: ast.Call) -> bool:
    """`text=` holds a choice (conditional or `or`) while `passed=` is not a literal."""
    keywords = {k.arg: k.value for k in call.keywords}
    text, passed = keywords.get("text"), keywords.get("passed")
    if text is None or passed is None or isinstance(passed, ast.Constant):
        return False
    return any(isinstance(n, ast.IfExp | ast.BoolOp) for n in ast.walk(text))


def inline_texts(paths: list[Path]) -> list[str]:
    """Where a `.check(` call picks its `text=` by its outcome, as "path:line"."""
    return [
        f"{p}:{call.lineno}"
        for p in paths
        for call in _calls(p, "check")
        if _picks_text_by_outcome(call)
    ]


def positional_findings(paths: list[Path]) -> list[str]:
    """Where a `Finding(` is built from positional arguments, as "path:line"."""
    return [f"{p}:{call.lineno}" for p in paths for call in _calls(p, "Finding") if call.args]


def test_the_scan_names_a_text_chosen_by_the_outcome(tmp_path):
    """The scan itself: it names each inline choice and lets through the separate texts and the
    conditional wording of a check whose outcome is fixed."""
    source = tmp_path / "example.py"
    source.write_text(
        "v.check(rule='1', stage='s', passed=ok, subject='A', text='in' if ok else 'out')\n"
        "v.check(rule='1', stage='s', passed=ok, subject='A', text=f\"{'in' if ok else 'out'}\")\n"
        "v.check(rule='1', stage='s', passed=ok, subject='A', text=why or 'in')\n"
        "v.check(rule='1', stage='s', passed=ok, subject='A', pass_text='in', fail_text='out')\n"
        "v.check(rule='1', stage='s', passed=False, subject='A', text='a' if big else 'b')\n"
        "Finding('1', 's', True, 'A', 'in')\n"
        "Finding(rule='1', stage='s', passed=True, subject='A', text='in')\n"
    )
    assert inline_texts([source]) == [f"{source}:1", f"{source}:2", f"{source}:3"]
    assert positional_findings([source]) == [f"{source}:6"]


def test_no_check_in_the_engine_picks_its_text_by_its_outcome():
    assert inline_texts(_sources(warmaster=False)) == []


def test_every_finding_in_the_engine_is_built_with_keyword_arguments():
    assert positional_findings(_sources(warmaster=False)) == []


def test_no_warmaster_check_picks_its_text_by_its_outcome():
    assert inline_texts(_sources(warmaster=True)) == []


def test_every_warmaster_finding_is_built_with_keyword_arguments():
    assert positional_findings(_sources(warmaster=True)) == []


def test_a_number_set_against_its_limit_shows_the_decimals_that_tell_them_apart():
    # RULES.md 0: 1.002" against a 1" limit fails and must not read "1" ... within 1""
    from rules.geometry import fmt_beside

    assert fmt_beside(1.002, 1.0) == "1.002"
    assert fmt_beside(24.0013, 24.0, '"') == '24.001"'
    assert fmt_beside(2.0000004, 2.0) == "2.0000004"
    assert fmt_beside(7.4, 7.0) == "7.4" and fmt_beside(1.0, 1.0) == "1"
