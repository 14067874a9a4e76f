"""Signing in keeps your place, your scenarios come first, and a visibility change that closes
shared step links says so first (issue 13 item 14)."""

from urllib.parse import quote

import pytest
from django.test import Client

from battlefield.models import Club, Membership, Scenario, Step
from tests.documents import scenario

pytestmark = pytest.mark.django_db


def test_copy_to_edit_while_signed_out_signs_in_and_comes_back_to_the_copy(
    client, django_user_model
):
    shared = Scenario.objects.create(document=scenario(), visibility="unlisted")
    back = f"{shared.share_url()}?copy=1"
    page = client.get(shared.share_url()).content.decode()
    # the button is a link to sign in, coming back to this page
    assert f'href="/accounts/login/?next={quote(back, safe="")}"' in page
    posted = client.post(f"/s/{shared.share_token}/copy")
    assert posted.status_code == 302 and quote(back, safe="/") in posted["Location"]
    client.force_login(django_user_model.objects.create_user("reader"))
    again = client.get(back).content.decode()
    assert "You are signed in: press “Copy to edit”" in again
    assert f'action="/s/{shared.share_token}/copy"' in again


def test_the_header_and_the_signup_page_keep_next(client):
    shared = Scenario.objects.create(document=scenario(), visibility="unlisted")
    page = client.get(shared.share_url()).content.decode()
    here = quote(shared.share_url())
    assert f'href="/accounts/login/?next={here}"' in page
    assert f'href="/accounts/signup/?next={here}"' in page
    signup = client.get(f"/accounts/signup/?next={here}").content.decode()
    assert f'href="/accounts/login/?next={here}"' in signup


def test_the_signed_in_home_lists_your_and_your_clubs_scenarios_before_the_demos(
    client, django_user_model
):
    me = django_user_model.objects.create_user("me")
    club = Club.objects.create(name="Dice Club", slug="dice-club")
    Membership.objects.create(club=club, user=me, role="member")
    Scenario.objects.create(document=scenario(name="A public demo"), visibility="public")
    Scenario.objects.create(document=scenario(name="Mine"), owner=me)
    Scenario.objects.create(document=scenario(name="The club's"), club=club, visibility="club")
    client.force_login(me)
    html = client.get("/").content.decode()
    assert html.index("Mine") < html.index("A public demo")
    assert html.index("The club&#x27;s") < html.index("A public demo")
    assert "Dice Club" in html


def test_closing_a_link_with_steps_warns_first_and_changes_only_when_confirmed(
    client, django_user_model
):
    owner = django_user_model.objects.create_user("owner")
    client.force_login(owner)
    s = Scenario.objects.create(document=scenario(), owner=owner, visibility="unlisted")
    Step.append(s, {"unit": "B", "type": "normal"}, {"legal": True}, before=scenario())
    s.refresh_from_db()
    data = {"visibility": "private", "club": "", "version": s.version}
    warned = client.post(f"/scenarios/{s.pk}/sharing", data)
    assert warned.status_code == 409
    html = warned.content.decode()
    assert "1 step link that anyone with them can open now" in html
    assert 'name="confirm" value="yes"' in html
    s.refresh_from_db()
    assert s.visibility == "unlisted"
    assert client.post(f"/scenarios/{s.pk}/sharing", {**data, "confirm": "yes"}).status_code == 302
    s.refresh_from_db()
    assert s.visibility == "private"
    # opening the link again closes nothing: no warning
    data["version"] = s.version
    opened = client.post(f"/scenarios/{s.pk}/sharing", {**data, "visibility": "unlisted"})
    assert opened.status_code == 302


def test_a_scenario_without_steps_changes_visibility_without_a_warning(client, django_user_model):
    owner = django_user_model.objects.create_user("owner")
    client.force_login(owner)
    s = Scenario.objects.create(document=scenario(), owner=owner, visibility="public")
    data = {"visibility": "private", "club": "", "version": s.version}
    assert client.post(f"/scenarios/{s.pk}/sharing", data).status_code == 302


def test_anyone_signed_out_sees_the_copy_link_not_a_form():
    shared = Scenario.objects.create(document=scenario(), visibility="public")
    html = Client().get(shared.share_url()).content.decode()
    assert f'action="/s/{shared.share_token}/copy"' not in html and "Copy to edit" in html
