"""The permission matrix (issue 7): owner, club member, club organiser, another user and an
anonymous visitor, against every view that reads or writes a scenario, for each visibility.

Each table row reads (owner, member, organiser, other, anonymous); the expectations are
written out by hand from the issue, not computed from battlefield/permissions.py.
"""

import json

import pytest
from django.test import Client

from battlefield import permissions
from battlefield.models import Club, Membership, Scenario
from tests.documents import scenario

pytestmark = pytest.mark.django_db
ACTORS = ("owner", "member", "organiser", "other", "anonymous")
VISIBILITIES = ("private", "club", "unlisted", "public")
PARTIAL = {"HX-Request": "true", "HX-Request-Type": "partial"}


@pytest.fixture
def world(django_user_model):
    """A club with a member and an organiser; the owner is a member too; one outsider."""
    users = {
        name: django_user_model.objects.create_user(name)  # no password: hashing is slow
        for name in ("owner", "member", "organiser", "other")
    }
    club = Club.objects.create(name="Dice Club", slug="dice-club")
    Membership.objects.create(club=club, user=users["owner"])
    Membership.objects.create(club=club, user=users["member"])
    Membership.objects.create(club=club, user=users["organiser"], role="organiser")
    clients = {"anonymous": Client()}
    for name, user in users.items():
        clients[name] = Client()
        clients[name].force_login(user)
    return {"users": users, "club": club, "clients": clients}


def club_scenario(world, visibility: str) -> Scenario:
    return Scenario.objects.create(
        document=scenario(),
        owner=world["users"]["owner"],
        club=world["club"],
        visibility=visibility,
    )


def expect(row: str) -> dict:
    """'Y' for allowed, other letters as given; one letter per actor in ACTORS order."""
    return dict(zip(ACTORS, row.split(), strict=True))


# Looking at it by id (/scenarios/<id>/, its partial and its JSON download).
BY_ID = {
    "private": "200 404 404 404 404",
    "club": "200 200 200 404 404",
    "unlisted": "200 200 200 404 404",
    "public": "200 200 200 200 200",
}
# Looking at it through its share link (page, JSON, PNG).
BY_LINK = {
    "private": "200 404 404 404 404",
    "club": "200 200 200 404 404",
    "unlisted": "200 200 200 200 200",
    "public": "200 200 200 200 200",
}
# Renaming it (an edit): 403 where the visitor may see it but not change it.
EDIT = {
    "private": "302 404 404 404 404",
    "club": "302 302 302 404 404",
    "unlisted": "302 302 302 404 404",
    "public": "302 302 302 403 403",
}
# Deleting it: the owner, or an organiser of its club.
DELETE = {
    "private": "302 404 404 404 404",
    "club": "302 403 302 404 404",
    "unlisted": "302 403 302 404 404",
    "public": "302 403 302 403 403",
}
# Copy to edit: anyone who may see it through the link, with an account (anonymous: to log in).
COPY = {
    "private": "302 404 404 404 404",
    "club": "302 302 302 404 404",
    "unlisted": "302 302 302 302 login",
    "public": "302 302 302 302 login",
}


@pytest.mark.parametrize("visibility", VISIBILITIES)
@pytest.mark.parametrize("actor", ACTORS)
def test_looking_at_a_scenario_by_id(world, visibility, actor):
    s = club_scenario(world, visibility)
    client = world["clients"][actor]
    want = int(expect(BY_ID[visibility])[actor])
    assert client.get(s.get_absolute_url()).status_code == want
    assert client.get(s.get_absolute_url(), headers=PARTIAL).status_code == want
    assert client.get(f"/scenarios/{s.pk}/scenario.json").status_code == want


@pytest.mark.parametrize("visibility", VISIBILITIES)
@pytest.mark.parametrize("actor", ACTORS)
def test_looking_at_a_scenario_through_its_share_link(world, visibility, actor):
    s = club_scenario(world, visibility)
    client = world["clients"][actor]
    want = int(expect(BY_LINK[visibility])[actor])
    assert client.get(s.share_url()).status_code == want
    assert client.get(s.share_url(), headers=PARTIAL).status_code == want
    assert client.get(f"/s/{s.share_token}/scenario.json").status_code == want
    assert client.get(f"/s/{s.share_token}/table.png").status_code == want


@pytest.mark.parametrize("visibility", VISIBILITIES)
@pytest.mark.parametrize("actor", ACTORS)
def test_renaming_a_scenario(world, visibility, actor):
    s = club_scenario(world, visibility)
    response = world["clients"][actor].post(
        s.get_absolute_url(), {"name": "Renamed", "version": s.version}
    )
    want = int(expect(EDIT[visibility])[actor])
    assert response.status_code == want
    s.refresh_from_db()
    assert (s.name == "Renamed") == (want == 302)
    assert s.version == (2 if want == 302 else 1)


@pytest.mark.parametrize("visibility", VISIBILITIES)
@pytest.mark.parametrize("actor", ACTORS)
def test_deleting_a_scenario(world, visibility, actor):
    s = club_scenario(world, visibility)
    response = world["clients"][actor].post(f"/scenarios/{s.pk}/delete")
    want = int(expect(DELETE[visibility])[actor])
    assert response.status_code == want
    s.refresh_from_db()
    assert (s.deleted_at is not None) == (want == 302)


@pytest.mark.parametrize("visibility", VISIBILITIES)
@pytest.mark.parametrize("actor", ACTORS)
def test_copying_a_scenario(world, visibility, actor):
    s = club_scenario(world, visibility)
    response = world["clients"][actor].post(f"/s/{s.share_token}/copy")
    want = expect(COPY[visibility])[actor]
    if want == "login":
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
        assert Scenario.objects.count() == 1
    else:
        assert response.status_code == int(want)
        assert Scenario.objects.count() == (2 if want == "302" else 1)
    if want == "302":
        copy = Scenario.objects.exclude(pk=s.pk).get()
        assert copy.owner == world["users"][actor] and copy.visibility == "unlisted"
        assert copy.club is None


@pytest.mark.parametrize("visibility", VISIBILITIES)
@pytest.mark.parametrize("actor", ACTORS)
def test_only_the_owner_changes_visibility_rotates_the_link_or_restores(world, visibility, actor):
    s = club_scenario(world, visibility)
    client = world["clients"][actor]
    token = s.share_token
    sharing = client.post(
        f"/scenarios/{s.pk}/sharing", {"visibility": "public", "club": "", "version": s.version}
    )
    rotate = client.post(f"/scenarios/{s.pk}/rotate-link")
    s.refresh_from_db()
    if actor == "owner":
        assert sharing.status_code == 302 and rotate.status_code == 302
        assert s.visibility == "public" and s.club is None and s.share_token != token
    else:
        assert sharing.status_code == 404 and rotate.status_code == 404
        assert s.visibility == visibility and s.club is not None and s.share_token == token
    s.soft_delete()
    restore = client.post(f"/scenarios/{s.pk}/restore")
    s.refresh_from_db()
    assert restore.status_code == (302 if actor == "owner" else 404)
    assert (s.deleted_at is None) == (actor == "owner")


def test_a_scenario_without_a_club_is_its_owners_alone(world):
    s = Scenario.objects.create(
        document=scenario(), owner=world["users"]["owner"], visibility="unlisted"
    )
    for actor in ("member", "organiser", "other", "anonymous"):
        client = world["clients"][actor]
        assert client.get(s.get_absolute_url()).status_code == 404
        assert client.post(s.get_absolute_url(), {"name": "x"}).status_code == 404
        assert client.post(f"/scenarios/{s.pk}/delete").status_code == 404
        assert client.get(s.share_url()).status_code == 200  # unlisted: the link works


def test_a_private_scenario_is_not_found_by_id_token_or_a_guess(world):
    s = club_scenario(world, "private")
    other = world["clients"]["other"]
    neighbour = s.share_token[:-1] + ("B" if s.share_token.endswith("A") else "A")
    for url in (
        s.get_absolute_url(),
        s.share_url(),
        f"/s/{neighbour}/",
        f"/s/{s.pk}/",
        f"/scenarios/{s.pk}/scenario.json",
    ):
        response = other.get(url)
        assert response.status_code == 404 and b"Two squads" not in response.content


def test_a_rotated_share_link_kills_the_old_one(world):
    s = club_scenario(world, "unlisted")
    old = s.share_url()
    owner = world["clients"]["owner"]
    owner.post(f"/scenarios/{s.pk}/rotate-link")
    s.refresh_from_db()
    assert Client().get(old).status_code == 404
    assert Client().get(s.share_url()).status_code == 200


def test_a_deleted_scenario_is_gone_for_everyone_until_its_owner_restores_it(world):
    s = club_scenario(world, "public")
    assert world["clients"]["organiser"].post(f"/scenarios/{s.pk}/delete").status_code == 302
    for actor in ACTORS:
        client = world["clients"][actor]
        assert client.get(s.get_absolute_url()).status_code == 404
        assert client.get(s.share_url()).status_code == 404
    assert b"Two squads" not in Client().get("/").content
    owner = world["clients"]["owner"]
    assert b"Restore</button>" in owner.get("/scenarios/deleted").content
    assert (
        b"Restore</button>" not in world["clients"]["organiser"].get("/scenarios/deleted").content
    )
    assert owner.post(f"/scenarios/{s.pk}/restore").status_code == 302
    assert Client().get(s.share_url()).status_code == 200
    assert s.steps.count() == 0 and Scenario.objects.count() == 1  # nothing was removed


def test_restore_is_refused_after_thirty_days(world):
    from datetime import timedelta

    from django.utils import timezone

    s = club_scenario(world, "unlisted")
    s.soft_delete()
    Scenario.objects.filter(pk=s.pk).update(deleted_at=timezone.now() - timedelta(days=31))
    owner = world["clients"]["owner"]
    assert owner.post(f"/scenarios/{s.pk}/restore").status_code == 404
    assert b"Restore</button>" not in owner.get("/scenarios/deleted").content


def test_the_owner_may_choose_only_a_club_they_belong_to(world):
    s = Scenario.objects.create(document=scenario(), owner=world["users"]["other"])
    foreign = world["club"]
    response = world["clients"]["other"].post(
        f"/scenarios/{s.pk}/sharing", {"visibility": "club", "club": foreign.pk}
    )
    s.refresh_from_db()
    assert response.status_code == 422 and s.club is None and s.visibility == "unlisted"


def test_club_visibility_needs_a_club(world):
    s = Scenario.objects.create(document=scenario(), owner=world["users"]["owner"])
    response = world["clients"]["owner"].post(
        f"/scenarios/{s.pk}/sharing", {"visibility": "club", "club": ""}
    )
    assert response.status_code == 422 and "Choose the club" in response.content.decode()


def test_the_home_page_lists_public_scenarios_and_the_visitors_own_and_club_ones(world):
    public = club_scenario(world, "public")
    club = club_scenario(world, "club")
    Scenario.objects.create(
        document=scenario(name="Owner's secret"),
        owner=world["users"]["owner"],
        visibility="private",
    )
    anonymous = Client().get("/").content.decode()
    assert public.share_url() in anonymous and club.get_absolute_url() not in anonymous
    member = world["clients"]["member"].get("/").content.decode()
    assert club.get_absolute_url() in member and "Owner&#x27;s secret" not in member
    owner = world["clients"]["owner"].get("/").content.decode()
    assert "Owner&#x27;s secret" in owner


def test_the_permission_functions_accept_a_user_as_well_as_a_request(world):
    s = club_scenario(world, "club")
    users = world["users"]
    assert permissions.can_edit(users["member"], s) and not permissions.can_edit(users["other"], s)
    assert permissions.can_delete(users["organiser"], s)
    assert not permissions.can_delete(users["member"], s)
    assert permissions.can_view(users["member"], s)


def test_the_editable_page_shows_controls_by_role(world):
    s = club_scenario(world, "club")
    owner = world["clients"]["owner"].get(s.get_absolute_url()).content.decode()
    member = world["clients"]["member"].get(s.get_absolute_url()).content.decode()
    organiser = world["clients"]["organiser"].get(s.get_absolute_url()).content.decode()
    assert 'id="sharing-form"' in owner and "Delete scenario" in owner and 'class="rename"' in owner
    assert 'id="sharing-form"' not in member and "Delete scenario" not in member
    assert 'class="rename"' in member
    assert "Delete scenario" in organiser and 'id="sharing-form"' not in organiser


def test_the_export_of_a_club_scenario_is_the_document(world):
    s = club_scenario(world, "club")
    response = world["clients"]["member"].get(f"/scenarios/{s.pk}/scenario.json")
    assert json.loads(response.content) == s.document


# Step links (/s/<token>/steps/<n>/ and its PNG) follow their scenario's share link rules.
@pytest.mark.parametrize("visibility", VISIBILITIES)
@pytest.mark.parametrize("actor", ACTORS)
def test_looking_at_a_step_through_its_link(world, visibility, actor):
    from battlefield.models import Step

    s = club_scenario(world, visibility)
    Step.append(
        s, {"unit": "B", "type": "normal"}, {"legal": False, "findings": []}, before=s.document
    )
    client = world["clients"][actor]
    want = int(expect(BY_LINK[visibility])[actor])
    assert client.get(f"/s/{s.share_token}/steps/0/").status_code == want
    assert client.get(f"/s/{s.share_token}/steps/0/table.png").status_code == want


def test_the_deleted_list_needs_an_account():
    response = Client().get("/scenarios/deleted")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


# The move stepper (battlefield/stepper.py): anyone who may see a scenario by id may try moves
# on it (nothing is stored); undoing edits through permissions.editable_scenario, the same table
# as renaming. Trying through the share link: tests/battlefield/test_stepper_try.py.
@pytest.mark.parametrize("visibility", VISIBILITIES)
@pytest.mark.parametrize("actor", ACTORS)
def test_opening_the_stepper_and_undoing(world, visibility, actor):
    s = club_scenario(world, visibility)
    client = world["clients"][actor]
    see = int(expect(BY_ID[visibility])[actor])
    assert client.get(f"/scenarios/{s.pk}/move").status_code == see
    assert client.get(f"/scenarios/{s.pk}/move", headers=PARTIAL).status_code == see
    want = int(expect(EDIT[visibility])[actor])
    # nothing to undo: editors are sent back to the stepper, nobody else learns anything
    assert client.post(f"/scenarios/{s.pk}/move/undo").status_code == want
    s.refresh_from_db()
    assert s.version == 1 and s.steps.count() == 0


def test_the_owner_shares_a_scenario_with_their_club_and_its_members_see_it(world):
    s = Scenario.objects.create(document=scenario(), owner=world["users"]["owner"])
    member = world["clients"]["member"]
    assert member.get(s.get_absolute_url()).status_code == 404
    response = world["clients"]["owner"].post(
        f"/scenarios/{s.pk}/sharing",
        {"visibility": "club", "club": world["club"].pk, "version": "1"},
    )
    assert response.status_code == 302
    s.refresh_from_db()
    assert s.visibility == "club" and s.club == world["club"] and s.version == 2
    assert member.get(s.get_absolute_url()).status_code == 200
    assert world["clients"]["other"].get(s.share_url()).status_code == 404


# The scenario editor (battlefield/editor.py) edits through permissions.editable_scenario too.
@pytest.mark.parametrize("visibility", VISIBILITIES)
@pytest.mark.parametrize("actor", ACTORS)
def test_opening_the_editor(world, visibility, actor):
    s = club_scenario(world, visibility)
    want = int(expect(EDIT[visibility])[actor])
    response = world["clients"][actor].get(f"/scenarios/{s.pk}/edit")
    assert response.status_code == (200 if want == 302 else want)


@pytest.mark.parametrize("visibility", VISIBILITIES)
@pytest.mark.parametrize("actor", ACTORS)
def test_the_ruler_on_a_shared_table(world, visibility, actor):
    s = club_scenario(world, visibility)
    want = int(expect(BY_LINK[visibility])[actor])
    response = world["clients"][actor].get(f"/s/{s.share_token}/ruler?a=model:B1&b=model:C1")
    assert response.status_code == want
