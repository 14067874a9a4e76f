"""The live table (issue 17): every page showing a scenario polls /s/<token>/live with the
version it shows as an ETag; 304 while nothing changed, a banner naming what changed once the
stored version moved on."""

import re

import pytest
from django.test import Client

from battlefield.models import Scenario
from tests.battlefield.test_steps import MOVED, rolled_normal_move
from tests.documents import scenario
from tests.registry import judge_move_type

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(client, django_user_model):
    user = django_user_model.objects.create_user("owner")
    client.force_login(user)
    return user


@pytest.fixture
def shared(owner):
    return Scenario.objects.create(
        document=scenario(), owner=owner, visibility=Scenario.Visibility.UNLISTED
    )


def poller(html: str) -> dict:
    """The poller's URL and ETag as the page renders them."""
    tag = re.search(r'<div id="live"[^>]*>', html, re.S).group(0)
    url = re.search(r'hx-get="([^"]+)"', tag).group(1).replace("&amp;", "&")
    etag = re.search(r"If-None-Match\": \"\\\"(v\d+)\\\"\"", tag).group(1)
    return {"url": url, "etag": f'"{etag}"', "trigger": re.search(r'hx-trigger="([^"]+)"', tag)[1]}


def test_every_page_showing_a_scenario_polls_with_its_version(client, shared):
    pages = [
        shared.share_url(),
        f"/scenarios/{shared.pk}/",
        f"/scenarios/{shared.pk}/edit",
        f"/scenarios/{shared.pk}/move",
        f"/s/{shared.share_token}/move",
    ]
    for url in pages:
        html = client.get(url).content.decode()
        live = poller(html)
        assert live["etag"] == f'"v{shared.version}"', url
        assert live["url"] == f"/s/{shared.share_token}/live?since={shared.version}&steps=0"
        assert live["trigger"].startswith("every 2s"), url


def test_nothing_changed_answers_304_with_one_query(shared, django_assert_max_num_queries):
    anonymous = Client()
    url = f"/s/{shared.share_token}/live?since=1&steps=0"
    with django_assert_max_num_queries(1):
        response = anonymous.get(url, headers={"If-None-Match": '"v1"'})
    assert response.status_code == 304
    assert response.content == b""
    assert response["ETag"] == '"v1"'
    assert "no-cache" in response["Cache-Control"]


def test_a_committed_step_shows_a_banner_with_its_link(client, shared, monkeypatch):
    judge_move_type(monkeypatch, "wh40k-11e", "normal", adjudicate=rolled_normal_move)
    client.post(f"/scenarios/{shared.pk}/move/commit", {**MOVED, "version": "1"})
    shared.refresh_from_db()
    assert shared.version == 2
    viewer = Client()
    response = viewer.get(
        f"/s/{shared.share_token}/live?since=1&steps=0",
        headers={
            "If-None-Match": '"v1"',
            "HX-Request": "true",
            "HX-Current-URL": f"http://testserver/s/{shared.share_token}/move?unit=B",
        },
    )
    assert response.status_code == 200
    assert response["ETag"] == '"v2"'
    html = response.content.decode()
    assert "The table changed" in html and "version 1 → 2" in html
    assert (
        f'href="/s/{shared.share_token}/steps/0/"' in html
        and "Normal move by Khorne Berzerkers" in html
    )
    assert f'href="/s/{shared.share_token}/move?unit=B"' in html  # reload the page one is on
    # the banner keeps polling, now from the new version, still listing what changed since load
    live = poller(html)
    assert live["etag"] == '"v2"'
    assert live["url"] == f"/s/{shared.share_token}/live?since=1&steps=0"
    again = viewer.get(live["url"], headers={"If-None-Match": live["etag"]})
    assert again.status_code == 304


def test_an_edit_and_an_undo_move_the_version_on(client, shared):
    shared.rename("Renamed")  # any change bumps the version
    response = Client().get(
        f"/s/{shared.share_token}/live?since=1&steps=0", headers={"If-None-Match": '"v1"'}
    )
    assert response.status_code == 200 and "version 1 → 2" in response.content.decode()


def test_a_reload_link_to_another_site_is_not_offered(shared):
    shared.rename("Renamed")
    response = Client().get(
        f"/s/{shared.share_token}/live?since=1&steps=0",
        headers={"If-None-Match": '"v1"', "HX-Current-URL": "https://evil.example/x"},
    )
    assert "evil.example" not in response.content.decode()
    assert f'href="{shared.share_url()}"' in response.content.decode()


def test_a_signed_in_viewer_gets_the_304_without_a_session_or_user_lookup(
    client, shared, django_assert_num_queries
):
    """The fast path (issue 17): a viewer who is signed in (session cookie sent) still costs
    one read of the scenario's row per poll, and nothing of the session or the account."""
    url = f"/s/{shared.share_token}/live?since=1&steps=0"
    assert client.cookies.get("sessionid")  # the owner is signed in
    with django_assert_num_queries(1) as queries:
        response = client.get(url, headers={"If-None-Match": '"v1"'})
    assert response.status_code == 304 and response.content == b""
    (query,) = [q["sql"] for q in queries.captured_queries]
    assert "battlefield_scenario" in query
    assert "session" not in query and "auth_user" not in query


def test_a_deleted_scenario_stops_answering_its_pollers(client, shared):
    url = f"/s/{shared.share_token}/live"
    shared.soft_delete()
    assert Client().get(url, headers={"If-None-Match": '"v1"'}).status_code == 404
    assert client.get(url, headers={"If-None-Match": '"v1"'}).status_code == 404  # owner too


def test_a_private_scenario_does_not_answer_strangers(owner):
    private = Scenario.objects.create(
        document=scenario(), owner=owner, visibility=Scenario.Visibility.PRIVATE
    )
    assert Client().get(f"/s/{private.share_token}/live").status_code == 404


def test_the_fast_path_answers_304_before_sessions_and_checks_the_host(shared):
    """Unlisted and public scenarios: 'nothing changed' comes from LiveTableMiddleware, before
    the session is read; a host not allowed is still refused."""
    anonymous = Client()
    url = f"/s/{shared.share_token}/live"
    response = anonymous.get(url, headers={"If-None-Match": '"v1"'})
    assert response.status_code == 304 and "Vary" not in response  # no session touched
    assert (
        anonymous.get(url, headers={"If-None-Match": '"v1"'}, HTTP_HOST="evil.example").status_code
        == 400
    )


def test_a_club_scenario_polls_through_the_members_session(client, owner, django_user_model):
    from battlefield.models import Club, Membership

    club = Club.objects.create(name="Club", slug="club")
    member = django_user_model.objects.create_user("member")
    Membership.objects.create(club=club, user=member, role=Membership.Role.MEMBER)
    s = Scenario.objects.create(
        document=scenario(), owner=owner, club=club, visibility=Scenario.Visibility.CLUB
    )
    url = f"/s/{s.share_token}/live"
    assert Client().get(url, headers={"If-None-Match": '"v1"'}).status_code == 404
    seen = Client()
    seen.force_login(member)
    assert seen.get(url, headers={"If-None-Match": '"v1"'}).status_code == 304
