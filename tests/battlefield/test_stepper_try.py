"""Trying a move on a scratch copy (issue 7): anyone who may view a scenario may run the stepper
on it, choose, declare, roll, Suggest and Check, and nothing is stored; Commit and Undo are only
for those who may edit, and everyone else is told how to keep a move (an account, then a copy).
Plumbing tests judge 40K normal moves with a fixed answer (`judge_normal_moves_as`)."""

import pytest
from django.test import Client

from battlefield.models import Scenario
from tests.documents import scenario

pytestmark = pytest.mark.django_db
PARTIAL = {"HX-Request": "true", "HX-Request-Type": "partial"}
PLACE = {"unit": "B", "type": "normal", "roll": "hand", "dice": "3"}
MOVED = {**PLACE, "pose-B1-x": "30", "pose-B1-y": "25", "pose-B2-x": "31.5", "pose-B2-y": "25"}
ACTORS = ("owner", "other", "anonymous")


@pytest.fixture
def clients(django_user_model):
    owner = django_user_model.objects.create_user("owner")
    other = django_user_model.objects.create_user("other")
    signed = {}
    for name, user in (("owner", owner), ("other", other)):
        signed[name] = Client()
        signed[name].force_login(user)
    return {**signed, "anonymous": Client(), "users": {"owner": owner}}


def owned(clients, visibility: str) -> Scenario:
    return Scenario.objects.create(
        document=scenario(), owner=clients["users"]["owner"], visibility=visibility
    )


def tried(s: Scenario, tail: str = "") -> str:
    return f"/s/{s.share_token}/move{tail}"


def test_the_share_page_offers_to_try_a_move_through_the_link(clients):
    s = owned(clients, "unlisted")
    html = clients["anonymous"].get(s.share_url()).content.decode()
    assert f'href="{tried(s)}"' in html and "Try a move" in html


# Through the share link: whoever the link admits (unlisted and public: anyone) may try; a
# private scenario is nobody's business but its owner's.
LINK = {
    "private": {"owner": 200, "other": 404, "anonymous": 404},
    "club": {"owner": 200, "other": 404, "anonymous": 404},  # not a member of its club
    "unlisted": {"owner": 200, "other": 200, "anonymous": 200},
    "public": {"owner": 200, "other": 200, "anonymous": 200},
}
# By id: only a public scenario is seen by strangers (an unlisted one needs its link).
BY_ID = {
    "private": {"owner": 200, "other": 404, "anonymous": 404},
    "club": {"owner": 200, "other": 404, "anonymous": 404},
    "unlisted": {"owner": 200, "other": 404, "anonymous": 404},
    "public": {"owner": 200, "other": 200, "anonymous": 200},
}


@pytest.mark.parametrize("visibility", LINK)
@pytest.mark.parametrize("actor", ACTORS)
def test_who_may_try_a_move_and_nothing_is_stored(
    clients, visibility, actor, judge_normal_moves_as
):
    judge_normal_moves_as(True)
    s = owned(clients, visibility)
    client = clients[actor]
    for base, table in ((tried(s), LINK), (f"/scenarios/{s.pk}/move", BY_ID)):
        want = table[visibility][actor]
        assert client.get(base).status_code == want
        assert client.get(f"{base}?unit=B&type=normal", headers=PARTIAL).status_code == want
        assert client.get(base, {**PLACE}).status_code == want
        assert client.post(f"{base}/check", MOVED, headers=PARTIAL).status_code == want
        assert client.post(f"{base}/suggest", PLACE, headers=PARTIAL).status_code in (
            (want, 422) if want == 200 else (want,)  # 422: the fixed rule has no suggest
        )
    s.refresh_from_db()
    assert s.version == 1 and s.steps.count() == 0


@pytest.mark.parametrize("visibility,refused", [("unlisted", 404), ("public", 403)])
def test_only_an_editor_may_commit_or_undo(clients, visibility, refused, judge_normal_moves_as):
    judge_normal_moves_as(True)
    s = owned(clients, visibility)
    for actor in ("other", "anonymous"):
        client = clients[actor]
        response = client.post(f"/scenarios/{s.pk}/move/commit", {**MOVED, "version": "1"})
        assert response.status_code == refused
        assert client.post(f"/scenarios/{s.pk}/move/undo").status_code == refused
    s.refresh_from_db()
    assert s.version == 1 and s.steps.count() == 0


def test_an_anonymous_visitor_sees_no_commit_or_undo_but_how_to_save(
    clients, judge_normal_moves_as
):
    judge_normal_moves_as(True)
    s = owned(clients, "unlisted")
    client = clients["anonymous"]
    html = client.get(tried(s), PLACE).content.decode()
    assert "Try a move" in html and "nothing you do here is saved" in html
    # the engine does not suggest normal moves (issue 13: Suggest only where it can)
    assert 'id="check-button"' in html and 'id="suggest-button"' not in html
    assert "Commit" not in html and "Undo" not in html
    assert "Sign in</a> and copy the scenario to save moves" in html
    assert f'href="/accounts/login/?next=%2Fs%2F{s.share_token}%2F"' in html
    # the placement form posts to the share link's own check, not the id's
    assert f'hx-post="{tried(s, "/check")}"' in html
    response = client.post(tried(s, "/check"), MOVED, headers=PARTIAL)
    assert response.status_code == 200 and "Legal move." in response.content.decode()
    assert client.post(tried(s, "/check"), MOVED).status_code == 200  # without htmx: the page


def test_a_signed_in_stranger_is_offered_a_copy_of_their_own(clients):
    s = owned(clients, "public")
    html = clients["other"].get(f"/scenarios/{s.pk}/move", PLACE).content.decode()
    assert "Commit" not in html
    assert f'action="/s/{s.share_token}/copy"' in html and "Copy the scenario" in html


def test_the_owner_trying_through_the_link_may_still_commit(clients, judge_normal_moves_as):
    judge_normal_moves_as(True)
    s = owned(clients, "unlisted")
    html = clients["owner"].get(tried(s), PLACE).content.decode()
    assert f'formaction="/scenarios/{s.pk}/move/commit"' in html
    assert "copy the scenario to save" not in html
    response = clients["owner"].post(f"/scenarios/{s.pk}/move/commit", {**MOVED, "version": "1"})
    assert response.status_code == 302
    s.refresh_from_db()
    assert s.version == 2 and s.steps.count() == 1


def test_a_server_roll_through_the_link_fixes_its_seed_in_the_link(clients):
    s = owned(clients, "unlisted")
    response = clients["anonymous"].get(
        tried(s), {"unit": "B", "type": "advance", "roll": "server"}
    )
    assert response.status_code == 302
    assert response["Location"].startswith(tried(s) + "?") and "seed=" in response["Location"]
