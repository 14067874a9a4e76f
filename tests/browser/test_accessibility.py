"""axe-core (vendored, test-only: tests/browser/vendor/README.md) finds no serious or critical
accessibility violation on the pages a player uses, at 1280 x 800 and on a 390 x 844 touch phone
(issue 13): home, a scenario, its editor, a move's placement step, a committed step and a
lesson. The table's zoom toolbar and measuring layers are on these pages, so they are checked
with the rest."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest

from battlefield.models import Scenario, Step
from rules import Move, Situation, adjudicate

pytestmark = pytest.mark.django_db(transaction=True)
AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
DEMO = Path(__file__).resolve().parents[2] / "battlefield" / "demo"
SIZES = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
}
SURGE = (
    "unit=B&type=surge&ability=blood-surge&trigger-event=shot&trigger-by=A"
    "&trigger-models_destroyed=2&roll=hand&dice=4&after=done"
)


@pytest.fixture
def pages(django_user_model) -> tuple[dict[str, str], object]:
    """The pages to check (name -> path) and their owner."""
    from django.core.management import call_command

    call_command("load_demo", stdout=StringIO())
    owner = django_user_model.objects.create_user("owner", password="a long enough password")
    document = json.loads((DEMO / "scenarios" / "surge-berzerkers.json").read_text())
    scenario = Scenario.objects.create(document=document, owner=owner, name="Surge")
    move_doc = json.loads((DEMO / "moves" / "surge-berzerkers.json").read_text())
    situation = Situation.from_document(document)
    verdict = adjudicate(situation, Move.from_document(move_doc, situation.system))
    Step.append(scenario, move_doc, verdict.as_dict(), before=document)
    return {
        "home": "/",
        "scenario": f"/scenarios/{scenario.pk}/",
        "editor": f"/scenarios/{scenario.pk}/edit",
        "move": f"/scenarios/{scenario.pk}/move?{SURGE}",
        "share": f"/s/{scenario.share_token}/",
        "step": f"/s/{scenario.share_token}/steps/0/",
        "lesson": "/lessons/surge-basics/",
        "lesson-measured": "/lessons/surge-basics/4/",
    }, owner


@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize(
    "name", ["home", "scenario", "share", "editor", "move", "step", "lesson", "lesson-measured"]
)
def test_no_serious_or_critical_accessibility_violations(new_context, login, pages, size, name):
    paths, owner = pages
    # axe is injected as a script: the site's Content Security Policy would (rightly) refuse it
    context = new_context(bypass_csp=True, **SIZES[size])
    login(context, owner)
    page = context.new_page()
    response = page.goto(paths[name])
    assert response is not None and response.status == 200
    page.wait_for_load_state("load")
    page.add_script_tag(path=str(AXE))
    result = page.evaluate(
        "axe.run(document, {resultTypes: ['violations'], rules: {region: {enabled: false}}})"
    )
    assert result["testEngine"]["version"] == "4.14.1"
    bad = [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes'][:3]]}"
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert not bad, "\n".join(bad)
