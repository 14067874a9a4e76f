"""POST /api/v1/adjudicate: the verdict or an error naming the field; nothing stored."""

import json

import pytest
from django.test import Client

from battlefield.models import Scenario
from battlefield.validation import API_BODY_BYTES
from tests.documents import move, scenario

pytestmark = pytest.mark.django_db
URL = "/api/v1/adjudicate"


def post(payload, client=None):
    body = payload if isinstance(payload, bytes) else json.dumps(payload)
    return (client or Client()).post(URL, body, content_type="application/json")


def test_a_move_is_answered_with_a_verdict_without_a_csrf_token():
    client = Client(enforce_csrf_checks=True)
    response = post({"scenario": scenario(), "move": move()}, client)
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    verdict = response.json()
    assert verdict["format"] == "arbiter.verdict/1" and isinstance(verdict["legal"], bool)
    assert verdict["move"]["unit"] == "B" and verdict["move"]["type"] == "normal"
    assert verdict["findings"] and {"rule", "stage", "passed", "subject", "text"} <= set(
        verdict["findings"][0]
    )
    assert Scenario.objects.count() == 0


def test_a_legal_verdict_carries_the_scenario_after_the_move(judge_normal_moves_as):
    judge_normal_moves_as(legal=True)
    verdict = post({"scenario": scenario(), "move": move()}).json()
    assert verdict["legal"] is True
    assert verdict["scenario"]["units"][0]["models"][0] == {
        "id": "B1",
        "base": {"round": 32},
        "x": 30.0,
        "y": 22.0,
    }


def test_an_illegal_move_is_still_200_with_its_failed_findings(judge_normal_moves_as):
    judge_normal_moves_as(legal=False)
    response = post({"scenario": scenario(), "move": move()})
    verdict = response.json()
    assert response.status_code == 200 and verdict["legal"] is False and "scenario" not in verdict
    assert [f["passed"] for f in verdict["findings"]] == [False]


@pytest.mark.parametrize(
    "payload, field, words",
    [
        ({"scenario": scenario(colour="red"), "move": move()}, "colour", "unknown field"),
        ({"scenario": scenario(), "move": move(unit="Z")}, "unit", "no unit"),
        (
            {"scenario": scenario(), "move": move(type="order-move")},
            "type",
            "must be one of normal",
        ),
        ({"scenario": scenario(), "move": move(end={"B1": {"x": "far"}})}, "end.B1.x", "number"),
        ({"scenario": scenario()}, "move", "required"),
        ([1, 2], "", "JSON object"),
        (b'{"scenario": ', "", "not valid JSON"),
    ],
)
def test_invalid_input_is_400_with_the_error_and_the_field(payload, field, words):
    response = post(payload)
    body = response.json()
    assert response.status_code == 400 and set(body) == {"error", "field"}
    assert body["field"] == field and words in body["error"]


def test_a_request_over_the_limit_is_413():
    response = post(b" " * (API_BODY_BYTES + 1))
    assert response.status_code == 413 and set(response.json()) == {"error", "field"}


def test_more_units_than_the_limit_is_413():
    doc = scenario()
    doc["units"] = [dict(doc["units"][0], id=f"U{i}", models=[]) for i in range(101)]
    response = post({"scenario": doc, "move": move()})
    assert response.status_code == 413 and response.json()["field"] == "units"


def test_the_api_only_accepts_post():
    assert Client().get(URL).status_code == 405


def test_the_api_verdict_says_what_judged_it():
    """Issue 17: a verdict kept for a year still says which engine and rules revision judged it."""
    from rules.revision import judged_by

    verdict = post({"scenario": scenario(), "move": move()}).json()
    assert verdict["judged_by"] == judged_by()
    assert verdict["judged_by"]["engine"].startswith("arbiter ")
