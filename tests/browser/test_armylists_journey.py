"""Issue 14's browser journey: a real game set up in a minute. After sign-in, in at most 10
actions: a new scenario from a layout with both armies' lists pasted (preview, then create), and a
normal move committed with a unit of each army. Browsers come from tests/browser/conftest.py."""

from __future__ import annotations

import math
import re
from pathlib import Path
from urllib.parse import urlencode

import pytest

from battlefield.models import Scenario
from rules import Move, Situation, adjudicate

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ROSTERS = Path(__file__).resolve().parents[1] / "battlefield" / "rosters"


def forward_move_url(scenario: Scenario, unit: dict) -> str:
    """The stepper's placement for a normal move of `unit` straight ahead (its models face the
    middle of the table), by the first of 2, 1.5, 1 and 0.5 in that the engine passes: the
    player's typed positions, as the placement form would send them."""
    situation = Situation.from_document(scenario.document)
    facing = math.radians(unit["models"][0].get("facing", 0))
    for step in (2.0, 1.5, 1.0, 0.5):
        end = {
            m["id"]: {
                "x": round(m["x"] + step * math.cos(facing), 3),
                "y": round(m["y"] + step * math.sin(facing), 3),
            }
            for m in unit["models"]
        }
        move = Move.from_document(
            {"format": "arbiter.move/1", "unit": unit["id"], "type": "normal", "end": end}
        )
        if adjudicate(situation, move).legal:
            break
    else:  # pragma: no cover
        pytest.fail(f"no straight normal move for {unit['id']}")
    params = {"unit": unit["id"], "type": "normal", "roll": "server", "seed": "1"}
    for model_id, pose in end.items():
        params[f"pose-{model_id}-x"] = pose["x"]
        params[f"pose-{model_id}-y"] = pose["y"]
        if unit["models"][0].get("facing") is not None:
            params[f"pose-{model_id}-facing"] = unit["models"][0]["facing"]
    return f"/scenarios/{scenario.pk}/move?{urlencode(params)}"


def test_a_layout_two_lists_and_a_move_each_in_ten_actions(page, login, django_user_model):
    user = django_user_model.objects.create_user("player", password="a long enough password")
    login(page, user)
    actions = 0

    def act(step):
        nonlocal actions
        actions += 1
        return step()

    act(lambda: page.goto("/scenarios/from-layout"))
    act(
        lambda: page.get_by_label("Attacker's list (optional)").fill(
            (ROSTERS / "gw_clean.txt").read_text()
        )
    )
    act(
        lambda: page.get_by_label("Defender's list (optional)").fill(
            (ROSTERS / "newrecruit_clean.txt").read_text()
        )
    )
    act(lambda: page.get_by_role("button", name="Create scenario").click())
    # The preview: what each list resolved to, before anything is stored.
    page.get_by_role("heading", name="Attacker's list").wait_for(timeout=60_000)
    assert "Exorcist" in page.content() and "Penitent Engines" in page.content()
    assert Scenario.objects.count() == 0
    act(lambda: page.get_by_role("button", name="Create scenario").click())
    page.wait_for_url("**/edit", timeout=60_000)
    scenario = Scenario.objects.get()
    units = scenario.document["units"]
    assert {u["army"] for u in units} == {"attacker", "defender"} and len(units) == 7
    assert page.locator("svg .deployment-zone").count() == 2

    for army in ("attacker", "defender"):
        scenario.refresh_from_db()
        unit = next(
            u
            for u in scenario.document["units"]
            if u["army"] == army and u["name"] == "Battle Sisters Squad"
        )
        version = scenario.version
        act(lambda unit=unit: page.goto(forward_move_url(scenario, unit)))
        act(lambda: page.get_by_role("button", name="Commit").click())
        # Committed: the page says so with the step's read-only link.
        # Judging and saving take a few seconds when the machine is busy (the full suite).
        page.get_by_text(re.compile(r"Step \d+ committed")).first.wait_for(timeout=60_000)
        scenario.refresh_from_db()
        assert scenario.version > version

    assert actions <= 10
    moved = [u for u in scenario.document["units"] if u.get("state", {}).get("moved_this_phase")]
    assert {u["army"] for u in moved} == {"attacker", "defender"}
