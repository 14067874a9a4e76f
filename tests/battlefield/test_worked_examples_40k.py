"""RULES.md section 3 items 1-3 (the 40K worked examples), end to end through the command line
and the HTTP API, on the demo scenarios a user can load (battlefield/demo/)."""

import json
import pathlib

import pytest

from .cli import adjudicate_cli

DEMO = pathlib.Path(__file__).resolve().parents[2] / "battlefield" / "demo"
LEGAL, ILLEGAL = 0, 1


def demo(name: str) -> tuple[dict, dict]:
    scenario = json.loads((DEMO / "scenarios" / f"{name}.json").read_text())
    move = json.loads((DEMO / "moves" / f"{name}.json").read_text())
    return scenario, move


def failed(verdict: dict) -> list[tuple[str, str]]:
    return [(f["rule"], f["text"]) for f in verdict["findings"] if not f["passed"]]


# -- 1. Surge (21.01 example) ------------------------------------------------------------------


def test_the_berzerkers_surge_of_4_ends_every_survivor_engaged_with_c(tmp_path):
    scenario, move = demo("surge-berzerkers")
    result = adjudicate_cli(tmp_path, scenario, move)
    assert result.status == LEGAL, failed(result.verdict)
    assert result.verdict["move"]["target"] == "C"
    assert result.verdict["move"]["max_distance"] == 4
    survivors = [m["id"] for u in scenario["units"] if u["id"] == "B" for m in u["models"]]
    for model_id in survivors:
        report = result.verdict["models"][model_id]
        assert report["distance_moved"] <= 4 + 1e-6
        assert report["engaged_with"] == ["C"]


@pytest.mark.django_db
def test_the_berzerkers_surge_is_judged_the_same_through_the_api(client):
    scenario, move = demo("surge-berzerkers")
    response = client.post(
        "/api/v1/adjudicate", {"scenario": scenario, "move": move}, content_type="application/json"
    )
    assert response.status_code == 200
    verdict = response.json()
    assert verdict["legal"] is True, failed(verdict)
    assert verdict["move"]["target"] == "C"
    after = {u["id"]: u for u in verdict["scenario"]["units"]}
    assert after["B"]["state"]["moved_this_phase"] is True


def test_the_engine_places_the_berzerkers_itself_when_no_end_is_given(tmp_path):
    scenario, move = demo("surge-berzerkers")
    del move["end"]
    result = adjudicate_cli(tmp_path, scenario, move)
    assert result.status == LEGAL, failed(result.verdict)
    assert all(r["engaged_with"] == ["C"] for r in result.verdict["models"].values())


# -- 2. Take to the skies (21.03 example) -------------------------------------------------------


def test_the_riptide_takes_to_the_skies_for_14_inches_over_vehicles_and_terrain(tmp_path):
    scenario, move = demo("riptide-takes-to-the-skies")
    result = adjudicate_cli(tmp_path, scenario, move)
    assert result.status == LEGAL, failed(result.verdict)
    # M 10 + advance roll 6 = 16", minus 2" for taking to the skies = 14".
    assert result.verdict["move"]["max_distance"] == 14
    assert result.verdict["models"]["R1"]["distance_moved"] <= 14 + 1e-6


def test_the_same_advance_on_the_ground_is_illegal(tmp_path):
    scenario, move = demo("riptide-takes-to-the-skies")
    move["declarations"] = {}
    result = adjudicate_cli(tmp_path, scenario, move)
    assert result.status == ILLEGAL
    assert result.verdict["move"]["max_distance"] == 16
    assert failed(result.verdict)


# -- 3. The FAQ: declare before the roll ----------------------------------------------------------


def test_taking_to_the_skies_declared_after_the_advance_roll_is_refused(tmp_path):
    scenario, move = demo("riptide-takes-to-the-skies")
    move["declarations"] = {"take_to_the_skies": True, "declared_after_roll": True}
    result = adjudicate_cli(tmp_path, scenario, move)
    assert result.status == ILLEGAL
    assert any(rule.startswith("21.03") for rule, _ in failed(result.verdict))
