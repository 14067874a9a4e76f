"""The ruler on every table page (issue 13, "Measuring everywhere"): the share and scenario
pages, both tables of a step page and a lesson's steps measure through an endpoint that answers
whoever may see that table, measures the table the page shows, and counts against the "api"
rate limit like the other engine endpoints."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from battlefield.models import Scenario
from tests.battlefield.test_steps import MOVED, committed, rolled_normal_move  # noqa: F401
from tests.documents import scenario as scenario_doc

pytestmark = pytest.mark.django_db

#: B1 (32 mm round base: radius 16 mm = 0.63 in) to the point (30, 30).
B1_TO_POINT = {"a": "model:B1", "b": "point:30,30"}


def test_a_private_scenarios_ruler_refuses_a_stranger_and_answers_its_owner(
    client, django_user_model
):
    owner = django_user_model.objects.create_user("owner")
    private = Scenario.objects.create(document=scenario_doc(), owner=owner, visibility="private")
    url = f"/s/{private.share_token}/ruler"
    assert Client().get(url, B1_TO_POINT).status_code == 404
    client.force_login(owner)
    response = client.get(url, B1_TO_POINT)
    # B1 stands at (30, 20): 10 in from the point, less its 0.63 in radius.
    assert response.status_code == 200 and "<strong>9.37″</strong>" in response.content.decode()


def test_a_shared_links_ruler_answers_anyone_and_the_share_page_offers_it():
    shared = Scenario.objects.create(document=scenario_doc(), visibility="unlisted")
    anyone = Client()
    html = anyone.get(f"/s/{shared.share_token}/").content.decode()
    assert f'data-ruler-url="/s/{shared.share_token}/ruler"' in html
    assert 'data-tool="ruler"' in html and 'role="group"' in html  # its models can be picked
    answer = anyone.get(f"/s/{shared.share_token}/ruler", {"a": "model:B1", "b": "model:B2"})
    # centres 1.5 in apart, two 0.63 in radii: 0.24 in edge to edge
    assert answer.status_code == 200 and "<strong>0.24″</strong>" in answer.content.decode()


def test_a_step_pages_rulers_measure_the_table_before_and_after_the_move(committed):  # noqa: F811
    token = committed.share_token
    anyone = Client()
    html = anyone.get(f"/s/{token}/steps/0/").content.decode()
    assert f"/s/{token}/steps/0/before/ruler" in html and f"/s/{token}/steps/0/after/ruler" in html
    before = anyone.get(f"/s/{token}/steps/0/before/ruler", B1_TO_POINT).content.decode()
    after = anyone.get(f"/s/{token}/steps/0/after/ruler", B1_TO_POINT).content.decode()
    # B1 moved from (30, 20) to (30, 25): 10 in then 5 in from the point, less 0.63 in.
    assert "<strong>9.37″</strong>" in before
    assert "<strong>4.37″</strong>" in after
    assert anyone.get(f"/s/{token}/steps/0/sideways/ruler", B1_TO_POINT).status_code == 404


def test_a_step_of_a_private_scenario_refuses_a_strangers_ruler(committed):  # noqa: F811
    committed.visibility = "private"
    committed.save()
    url = f"/s/{committed.share_token}/steps/0/after/ruler"
    assert Client().get(url, B1_TO_POINT).status_code == 404


def test_the_ruler_counts_against_the_api_rate_limit(settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "api": (2, 60)}
    shared = Scenario.objects.create(document=scenario_doc(), visibility="public")
    visitor = Client()
    url = f"/s/{shared.share_token}/ruler"
    codes = [visitor.get(url, B1_TO_POINT).status_code for _ in range(3)]
    assert codes == [200, 200, 429]


@pytest.fixture
def demo(db):
    call_command("load_demo", stdout=StringIO())


def test_a_lessons_ruler_measures_the_table_each_step_shows(demo):
    anyone = Client()
    assert 'data-ruler-url="/lessons/surge-basics/4/ruler"' in (
        anyone.get("/lessons/surge-basics/4/").content.decode()
    )
    # The "Try it" step's placement form measures too.
    assert 'data-ruler-url="/lessons/surge-basics/7/ruler"' in (
        anyone.get("/lessons/surge-basics/7/").content.decode()
    )
    b4_to_c3 = {"a": "model:B4", "b": "model:C3"}
    before = anyone.get("/lessons/surge-basics/4/ruler", b4_to_c3).content.decode()
    # B4 (24.4, 24.5), 32 mm base; C3 (30, 24.5), 50 mm base: 5.6 - 0.63 - 0.98 = 3.99 in.
    assert "<strong>3.99″</strong>" in before and "not in engagement range" in before
    # Step 6 shows the table after the surge, which ends every Berzerker engaged (21.02).
    after = [
        anyone.get("/lessons/surge-basics/6/ruler", {"a": "model:B4", "b": f"model:{c}"})
        for c in ("C1", "C2", "C3")
    ]
    assert all(r.status_code == 200 for r in after)
    assert any("within engagement range" in r.content.decode() for r in after)
    assert anyone.get("/lessons/surge-basics/99/ruler", b4_to_c3).status_code == 404
