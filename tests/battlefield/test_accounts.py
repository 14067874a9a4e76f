"""Accounts (sign up, log in and out, change and reset the password) and clubs (create, invite
by an expiring link, join, leave, roles)."""

import re
from datetime import timedelta
from urllib.parse import quote

import pytest
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from battlefield.models import Club, Invite, Membership, Scenario
from tests.documents import scenario

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def fast_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice", "alice@example.org", PASSWORD)


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# -- accounts ----------------------------------------------------------------------------------


def test_signing_up_creates_the_account_and_signs_in(django_user_model):
    client = Client()
    response = client.post(
        "/accounts/signup/",
        {
            "username": "bob",
            "email": "bob@example.org",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert response.status_code == 302 and response["Location"] == "/"
    assert django_user_model.objects.get(username="bob").email == "bob@example.org"
    assert "bob" in client.get("/").content.decode()  # the header names the account


def test_a_sign_up_with_mismatched_passwords_is_refused_with_422(django_user_model):
    response = Client().post(
        "/accounts/signup/",
        {"username": "bob", "email": "bob@example.org", "password1": PASSWORD, "password2": "x"},
    )
    assert response.status_code == 422 and not django_user_model.objects.exists()


def test_a_sign_up_goes_back_to_a_safe_next_page_only():
    data = {"username": "bob", "email": "b@example.org", "password1": PASSWORD}
    data["password2"] = PASSWORD
    response = Client().post("/accounts/signup/?next=https://evil.example/", data)
    assert response["Location"] == "/"


def test_log_in_and_log_out(alice):
    client = Client()
    response = client.post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302
    assert "alice" in client.get("/").content.decode()
    assert client.get("/accounts/logout/").status_code == 405  # logging out is a POST
    assert client.post("/accounts/logout/").status_code == 302
    assert "Log in" in client.get("/").content.decode()


def test_a_wrong_password_does_not_sign_in(alice):
    client = Client()
    response = client.post("/accounts/login/", {"username": "alice", "password": "wrong"})
    assert response.status_code == 200 and "_auth_user_id" not in client.session


def test_changing_the_password(alice):
    client = signed_in(alice)
    new = "another correct horse 77"
    response = client.post(
        "/accounts/password_change/",
        {"old_password": PASSWORD, "new_password1": new, "new_password2": new},
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password(new)


def test_resetting_the_password_by_mail(alice):
    client = Client()
    response = client.post("/accounts/password_reset/", {"email": "alice@example.org"})
    assert response.status_code == 302 and len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["alice@example.org"] and "Reset your Arbiter password" in message.subject
    link = re.search(r"http://testserver(/accounts/reset/\S+)", message.body).group(1)
    form_page = client.get(link, follow=True)
    assert form_page.status_code == 200 and "Choose a new password" in form_page.content.decode()
    new = "a brand new horse 2026"
    done = client.post(
        form_page.redirect_chain[-1][0], {"new_password1": new, "new_password2": new}
    )
    assert done.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password(new)


def test_a_reset_for_an_unknown_address_sends_nothing_and_says_the_same():
    response = Client().post("/accounts/password_reset/", {"email": "nobody@example.org"})
    assert response.status_code == 302 and len(mail.outbox) == 0


@pytest.mark.parametrize(
    "url, data",
    [
        ("/scenarios/new", {"name": "Skirmish", "table": "wh40k-11e:60x44"}),
        ("/scenarios/import", None),
    ],
)
def test_creating_or_importing_needs_an_account(url, data):
    if data is None:
        data = {"file": SimpleUploadedFile("s.json", b"{}")}
    response = Client().post(url, data)
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert not Scenario.objects.exists()
    htmx = Client().post(url, data, headers={"HX-Request": "true"})
    assert htmx["HX-Redirect"].startswith("/accounts/login/")


def test_the_home_page_says_that_saving_needs_an_account():
    html = Client().get("/").content.decode()
    assert "needs an account" in html and 'href="/accounts/signup/"' in html


def test_a_signed_in_users_scenario_is_theirs(alice):
    client = signed_in(alice)
    client.post("/scenarios/new", {"name": "Skirmish", "table": "wh40k-11e:60x44"})
    s = Scenario.objects.get()
    assert s.owner == alice and s.visibility == "unlisted"


# -- clubs -----------------------------------------------------------------------------------


@pytest.fixture
def club(alice):
    client = signed_in(alice)
    response = client.post("/clubs/", {"name": "Dice & Glory"})
    club = Club.objects.get()
    assert response.status_code == 302 and response["Location"] == club.get_absolute_url()
    return club


def test_the_creator_of_a_club_is_its_organiser(alice, club):
    assert club.slug == "dice-glory" and club.role_of(alice) == "organiser"
    assert "Dice &amp; Glory" in signed_in(alice).get("/clubs/").content.decode()


def test_a_club_page_is_not_found_for_non_members(club, django_user_model):
    bob = django_user_model.objects.create_user("bob")
    assert signed_in(bob).get(club.get_absolute_url()).status_code == 404
    anonymous = Client().get(club.get_absolute_url())
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]


def test_two_clubs_of_the_same_name_get_different_slugs(alice, club):
    signed_in(alice).post("/clubs/", {"name": "Dice & Glory"})
    assert sorted(Club.objects.values_list("slug", flat=True)) == ["dice-glory", "dice-glory-2"]


def test_joining_by_an_invite_link(alice, club, django_user_model):
    organiser = signed_in(alice)
    organiser.post(f"/clubs/{club.slug}/invite")
    invite = Invite.objects.get()
    assert invite.expires_at - invite.created >= timedelta(days=6, hours=23)
    link = invite.get_absolute_url()
    assert link in organiser.get(club.get_absolute_url()).content.decode()

    # signed out: the invite names the club, and signing in (or up) comes back to it (issue 13)
    anonymous = Client().get(link)
    assert anonymous.status_code == 200
    html = anonymous.content.decode()
    assert "Log in to join Dice &amp; Glory" in html
    assert f'href="/accounts/login/?next={quote(link, safe="")}"' in html
    assert f'href="/accounts/signup/?next={quote(link, safe="")}"' in html
    assert f'action="{link}"' not in html  # no Join button before signing in
    assert Client().post(link).status_code == 302  # joining itself needs the account

    bob = signed_in(django_user_model.objects.create_user("bob"))
    page = bob.get(link)
    assert page.status_code == 200 and "Join Dice &amp; Glory" in page.content.decode()
    assert club.role_of(django_user_model.objects.get(username="bob")) is None  # GET joins no one
    assert bob.post(link).status_code == 302
    assert club.role_of(django_user_model.objects.get(username="bob")) == "member"
    assert bob.get(club.get_absolute_url()).status_code == 200


def test_an_expired_invite_link_is_refused(club, django_user_model):
    invite = Invite.objects.create(club=club, expires_at=timezone.now() - timedelta(minutes=1))
    bob = signed_in(django_user_model.objects.create_user("bob"))
    assert bob.get(invite.get_absolute_url()).status_code == 410
    assert bob.post(invite.get_absolute_url()).status_code == 410
    assert not club.memberships.filter(user__username="bob").exists()


def test_only_organisers_make_invites_and_change_roles(alice, club, django_user_model):
    bob_user = django_user_model.objects.create_user("bob")
    Membership.objects.create(club=club, user=bob_user)
    bob = signed_in(bob_user)
    assert bob.post(f"/clubs/{club.slug}/invite").status_code == 404
    promote = bob.post(f"/clubs/{club.slug}/members/{bob_user.pk}/role", {"role": "organiser"})
    assert promote.status_code == 404
    assert club.role_of(bob_user) == "member"
    organiser = signed_in(alice)
    organiser.post(f"/clubs/{club.slug}/members/{bob_user.pk}/role", {"role": "organiser"})
    assert club.role_of(bob_user) == "organiser"
    assert not Invite.objects.exists()


def test_a_club_keeps_at_least_one_organiser(alice, club, django_user_model):
    bob_user = django_user_model.objects.create_user("bob")
    Membership.objects.create(club=club, user=bob_user)
    organiser = signed_in(alice)
    organiser.post(f"/clubs/{club.slug}/members/{alice.pk}/role", {"role": "member"})
    assert club.role_of(alice) == "organiser"
    organiser.post(f"/clubs/{club.slug}/leave")
    assert club.role_of(alice) == "organiser"  # the last organiser cannot leave members behind
    signed_in(bob_user).post(f"/clubs/{club.slug}/leave")
    assert club.role_of(bob_user) is None


def test_the_last_member_leaving_ends_the_club_but_not_its_scenarios(alice, club):
    s = Scenario.objects.create(document=scenario(), owner=alice, club=club, visibility="club")
    response = signed_in(alice).post(f"/clubs/{club.slug}/leave")
    assert response.status_code == 302 and not Club.objects.exists()
    s.refresh_from_db()
    assert s.club is None and s.owner == alice


def test_a_member_who_leaves_loses_the_club_scenarios(alice, club, django_user_model):
    bob_user = django_user_model.objects.create_user("bob")
    Membership.objects.create(club=club, user=bob_user)
    s = Scenario.objects.create(document=scenario(), owner=alice, club=club, visibility="club")
    bob = signed_in(bob_user)
    assert bob.get(s.get_absolute_url()).status_code == 200
    bob.post(f"/clubs/{club.slug}/leave")
    assert bob.get(s.get_absolute_url()).status_code == 404


def test_the_club_page_lists_its_shared_scenarios_only(alice, club):
    shared = Scenario.objects.create(document=scenario(), owner=alice, club=club, visibility="club")
    Scenario.objects.create(
        document=scenario(name="Secret plan"), owner=alice, club=club, visibility="private"
    )
    html = signed_in(alice).get(club.get_absolute_url()).content.decode()
    assert shared.get_absolute_url() in html and "Secret plan" not in html


def test_the_admin_manages_clubs(alice, club, django_user_model):
    admin = django_user_model.objects.create_superuser("root", "root@example.org", PASSWORD)
    client = signed_in(admin)
    assert client.get("/admin/battlefield/club/").status_code == 200
    assert client.get(f"/admin/battlefield/club/{club.pk}/change/").status_code == 200
    assert client.get("/admin/battlefield/membership/").status_code == 200
