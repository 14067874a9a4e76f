"""Words for people (issue 13): the pages name units and models by their names, and a verdict's
events are shown as what happens, never as passed checks."""

import json
from pathlib import Path

import pytest

from battlefield.models import Scenario, Step
from battlefield.words import declaration_words, event_rows, names_of_document
from rules import Move, Situation, adjudicate

pytestmark = pytest.mark.django_db
PARTIAL = {"HX-Request": "true", "HX-Request-Type": "partial"}
DEMO = Path(__file__).resolve().parents[2] / "battlefield" / "demo"
SURGE = {
    "unit": "B",
    "type": "surge",
    "ability": "blood-surge",
    "trigger-event": "shot",
    "trigger-by": "A",
    "trigger-models_destroyed": "2",
    "roll": "hand",
    "dice": "4",
    "after": "done",  # the surge target, asked after the roll, left blank
}
DOCUMENT = {
    "units": [
        {"id": "B", "name": "Khorne Berzerkers", "models": [{"id": "B1"}, {"id": "B2"}]},
        {"id": "A", "name": "Strike Team", "models": [{"id": "A1"}]},
    ]
}


def test_ids_become_names():
    names = names_of_document(DOCUMENT)
    assert names["B"] == "Khorne Berzerkers" and names["B1"] == "B1 of Khorne Berzerkers"
    assert declaration_words("take_to_the_skies", True, names) == ("Take to the skies", "yes")
    assert declaration_words("trigger", {"event": "shot", "by": "A"}, names) == (
        "Trigger",
        "event shot, by Strike Team",
    )
    assert declaration_words("charge_targets", ["A"], names) == ("Charge targets", "Strike Team")


def test_events_read_as_sentences_with_names():
    names = names_of_document(DOCUMENT)
    assert event_rows([{"event": "destroyed", "unit": "B"}], names) == [
        "Khorne Berzerkers is destroyed."
    ]
    assert event_rows([{"event": "charged", "unit": "B", "target": "A"}], names) == [
        "Khorne Berzerkers charged Strike Team."
    ]
    assert event_rows([{"event": "fled", "unit": "A", "distance": 3}], names) == [
        "Strike Team: fled (distance 3)."
    ]


@pytest.fixture
def surge(client, django_user_model):
    owner = django_user_model.objects.create_user("owner")
    client.force_login(owner)
    document = json.loads((DEMO / "scenarios" / "surge-berzerkers.json").read_text())
    return Scenario.objects.create(document=document, owner=owner)


def test_the_placement_names_the_unit_its_target_and_the_declarations(client, surge):
    html = client.get(f"/scenarios/{surge.pk}/move", SURGE).content.decode()
    assert "Unit</a>: Khorne Berzerkers" in html
    assert 'id="move-target">Crisis Battlesuits<' in html
    assert "Trigger: event shot, by Strike Team" in html


def test_findings_name_their_subject(client, surge):
    checked = client.post(
        f"/scenarios/{surge.pk}/move/check",
        {**SURGE, "pose-B1-x": "29", "pose-B1-y": "19.4"},
        headers=PARTIAL,
    ).content.decode()
    assert '<span class="finding-subject">B1 of Khorne Berzerkers</span>' in checked
    assert '<span class="finding-subject">B1</span>' not in checked


def test_a_step_is_titled_with_the_units_name(client, surge):
    move_doc = json.loads((DEMO / "moves" / "surge-berzerkers.json").read_text())
    situation = Situation.from_document(surge.document)
    verdict = adjudicate(situation, Move.from_document(move_doc, situation.system))
    Step.append(surge, move_doc, verdict.as_dict(), before=surge.document)
    html = client.get(f"/s/{surge.share_token}/steps/0/").content.decode()
    assert "Step 0: Surge move by Khorne Berzerkers" in html
    assert '<span class="finding-subject">Khorne Berzerkers</span>' in html or (
        "of Khorne Berzerkers</span>" in html
    )
