"""Clubs that an organiser can run (issue 15, item 5): invite links with a number of uses,
revocable and listed for organisers; organisers remove members; every change to a club recorded
with who and when, shown to organisers. And sign-up answers a taken user name like any other
invalid sign-up (issue 15, item 6)."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth.hashers import MD5PasswordHasher
from django.test import Client
from django.utils import timezone

from battlefield.models import Club, ClubEvent, Invite, Membership

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery staple"


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice", "alice@example.org", PASSWORD)


@pytest.fixture
def club(alice):
    signed_in(alice).post("/clubs/", {"name": "Dice & Glory"})
    return Club.objects.get()


def user(django_user_model, name):
    return django_user_model.objects.create_user(name, f"{name}@example.org", PASSWORD)


# -- invite links with a number of uses --------------------------------------------------------


def test_an_organiser_chooses_how_many_people_a_link_admits(alice, club, django_user_model):
    signed_in(alice).post(f"/clubs/{club.slug}/invite", {"max_uses": "2"})
    invite = Invite.objects.get()
    assert invite.max_uses == 2 and invite.uses == 0 and invite.uses_left == 2
    for name in ("bob", "carol"):
        response = signed_in(user(django_user_model, name)).post(invite.get_absolute_url())
        assert response.status_code == 302
    invite.refresh_from_db()
    assert invite.uses == 2 and invite.uses_left == 0
    dave = signed_in(user(django_user_model, "dave"))
    for method in (dave.get, dave.post):
        response = method(invite.get_absolute_url())
        assert response.status_code == 410
        assert "has been used by as many people as it allows" in response.content.decode()
        assert "Dice &amp; Glory" in response.content.decode()  # the page names the club
    assert club.memberships.count() == 3


def test_a_link_admits_ten_people_unless_the_organiser_says_otherwise(alice, club):
    signed_in(alice).post(f"/clubs/{club.slug}/invite")
    assert Invite.objects.get().max_uses == 10


@pytest.mark.parametrize("value", ["0", "-1", "1001", "many"])
def test_a_senseless_number_of_uses_is_refused(alice, club, value):
    organiser = signed_in(alice)
    response = organiser.post(f"/clubs/{club.slug}/invite", {"max_uses": value})
    assert response.status_code == 302 and not Invite.objects.exists()
    page = organiser.get(club.get_absolute_url()).content.decode()
    assert "between 1 and 1000" in page


def test_an_organiser_revokes_a_link(alice, club, django_user_model):
    organiser = signed_in(alice)
    organiser.post(f"/clubs/{club.slug}/invite")
    invite = Invite.objects.get()
    response = organiser.post(f"/clubs/{club.slug}/invites/{invite.pk}/revoke")
    assert response.status_code == 302
    invite.refresh_from_db()
    assert invite.revoked_at is not None and invite.revoked_by == alice
    bob = signed_in(user(django_user_model, "bob"))
    response = bob.post(invite.get_absolute_url())
    assert response.status_code == 410 and "was revoked" in response.content.decode()
    assert club.role_of(django_user_model.objects.get(username="bob")) is None


def test_only_organisers_revoke_links(alice, club, django_user_model):
    signed_in(alice).post(f"/clubs/{club.slug}/invite")
    invite = Invite.objects.get()
    bob_user = user(django_user_model, "bob")
    Membership.objects.create(club=club, user=bob_user)
    bob = signed_in(bob_user)
    assert bob.post(f"/clubs/{club.slug}/invites/{invite.pk}/revoke").status_code == 404
    assert bob.get(f"/clubs/{club.slug}/invites/{invite.pk}/revoke").status_code == 405
    invite.refresh_from_db()
    assert invite.revoked_at is None


def test_a_link_of_another_club_cannot_be_revoked_through_mine(alice, club, django_user_model):
    bob_user = user(django_user_model, "bob")
    signed_in(bob_user).post("/clubs/", {"name": "Other"})
    other = Club.objects.get(name="Other")
    signed_in(bob_user).post(f"/clubs/{other.slug}/invite")
    invite = Invite.objects.get(club=other)
    response = signed_in(alice).post(f"/clubs/{club.slug}/invites/{invite.pk}/revoke")
    assert response.status_code == 404


def test_organisers_see_the_links_with_uses_left_expiry_and_maker(alice, club, django_user_model):
    organiser = signed_in(alice)
    organiser.post(f"/clubs/{club.slug}/invite", {"max_uses": "3"})
    invite = Invite.objects.get()
    html = organiser.get(club.get_absolute_url()).content.decode()
    assert invite.get_absolute_url() in html
    assert "3 of 3 uses left" in html and "made by alice" in html
    assert f"/clubs/{club.slug}/invites/{invite.pk}/revoke" in html
    bob_user = user(django_user_model, "bob")
    Membership.objects.create(club=club, user=bob_user)
    member_html = signed_in(bob_user).get(club.get_absolute_url()).content.decode()
    assert invite.get_absolute_url() not in member_html and "uses left" not in member_html


def test_the_list_leaves_out_links_that_no_longer_work(alice, club):
    live = Invite.objects.create(club=club, created_by=alice)
    expired = Invite.objects.create(club=club, expires_at=timezone.now() - timedelta(minutes=1))
    used_up = Invite.objects.create(club=club, max_uses=1, uses=1)
    revoked = Invite.objects.create(club=club, revoked_at=timezone.now())
    html = signed_in(alice).get(club.get_absolute_url()).content.decode()
    assert live.token in html
    assert all(i.token not in html for i in (expired, used_up, revoked))


def test_an_unknown_link_is_still_a_404(django_user_model):
    bob = signed_in(user(django_user_model, "bob"))
    assert bob.get("/clubs/join/no-such-token/").status_code == 404


# -- removing members --------------------------------------------------------------------------


def test_an_organiser_removes_a_member(alice, club, django_user_model):
    bob_user = user(django_user_model, "bob")
    Membership.objects.create(club=club, user=bob_user)
    response = signed_in(alice).post(f"/clubs/{club.slug}/members/{bob_user.pk}/remove")
    assert response.status_code == 302 and club.role_of(bob_user) is None
    assert signed_in(bob_user).get(club.get_absolute_url()).status_code == 404


def test_a_member_removes_no_one(alice, club, django_user_model):
    bob_user = user(django_user_model, "bob")
    Membership.objects.create(club=club, user=bob_user)
    response = signed_in(bob_user).post(f"/clubs/{club.slug}/members/{alice.pk}/remove")
    assert response.status_code == 404 and club.role_of(alice) == "organiser"


def test_the_last_organiser_cannot_remove_themself(alice, club, django_user_model):
    bob_user = user(django_user_model, "bob")
    Membership.objects.create(club=club, user=bob_user)
    organiser = signed_in(alice)
    organiser.post(f"/clubs/{club.slug}/members/{alice.pk}/remove")
    assert club.role_of(alice) == "organiser"
    assert "at least one organiser" in organiser.get(club.get_absolute_url()).content.decode()


def test_an_organiser_may_remove_another_organiser(alice, club, django_user_model):
    bob_user = user(django_user_model, "bob")
    Membership.objects.create(club=club, user=bob_user, role="organiser")
    signed_in(alice).post(f"/clubs/{club.slug}/members/{bob_user.pk}/remove")
    assert club.role_of(bob_user) is None


def test_the_club_page_offers_removal_to_organisers_only(alice, club, django_user_model):
    bob_user = user(django_user_model, "bob")
    Membership.objects.create(club=club, user=bob_user)
    remove = f"/clubs/{club.slug}/members/{bob_user.pk}/remove"
    assert remove in signed_in(alice).get(club.get_absolute_url()).content.decode()
    assert remove not in signed_in(bob_user).get(club.get_absolute_url()).content.decode()


# -- the club's history ------------------------------------------------------------------------


def test_every_change_is_recorded_with_who_and_when(alice, club, django_user_model):
    organiser = signed_in(alice)
    organiser.post(f"/clubs/{club.slug}/invite", {"max_uses": "5"})
    invite = Invite.objects.get()
    bob_user = user(django_user_model, "bob")
    signed_in(bob_user).post(invite.get_absolute_url())
    organiser.post(f"/clubs/{club.slug}/members/{bob_user.pk}/role", {"role": "organiser"})
    organiser.post(f"/clubs/{club.slug}/members/{bob_user.pk}/role", {"role": "member"})
    organiser.post(f"/clubs/{club.slug}/members/{bob_user.pk}/remove")
    organiser.post(f"/clubs/{club.slug}/invites/{invite.pk}/revoke")
    events = list(ClubEvent.objects.filter(club=club).order_by("at", "pk"))
    assert [
        (e.kind, e.actor.username, e.member.username if e.member else None) for e in events
    ] == [
        ("created", "alice", "alice"),
        ("invite_created", "alice", None),
        ("joined", "bob", "bob"),
        ("role_changed", "alice", "bob"),
        ("role_changed", "alice", "bob"),
        ("removed", "alice", "bob"),
        ("invite_revoked", "alice", None),
    ]
    assert all(e.at is not None for e in events)
    assert events[2].invite == invite  # who joined by which link
    html = organiser.get(club.get_absolute_url()).content.decode()
    assert "alice removed bob" in html and "bob joined by an invite link" in html
    assert "alice made bob Organiser" in html and "alice revoked an invite link" in html


def test_members_do_not_see_the_history(alice, club, django_user_model):
    bob_user = user(django_user_model, "bob")
    Membership.objects.create(club=club, user=bob_user)
    html = signed_in(bob_user).get(club.get_absolute_url()).content.decode()
    assert "History" not in html and "created the club" not in html
    assert "created the club" in signed_in(alice).get(club.get_absolute_url()).content.decode()


def test_leaving_is_recorded(alice, club, django_user_model):
    bob_user = user(django_user_model, "bob")
    Membership.objects.create(club=club, user=bob_user)
    signed_in(bob_user).post(f"/clubs/{club.slug}/leave")
    event = ClubEvent.objects.filter(club=club).latest("at", "pk")
    assert event.kind == "left" and event.actor == bob_user and event.member == bob_user


def test_a_role_change_to_the_same_role_records_nothing(alice, club):
    before = ClubEvent.objects.count()
    signed_in(alice).post(f"/clubs/{club.slug}/members/{alice.pk}/role", {"role": "organiser"})
    assert ClubEvent.objects.count() == before


# -- sign-up does not tell who has an account --------------------------------------------------


class CountingHasher(MD5PasswordHasher):
    """Counts the passwords hashed: the slow, measurable part of a sign-up."""

    algorithm = "counting_md5"
    calls = 0

    def encode(self, password, salt):
        CountingHasher.calls += 1
        return super().encode(password, salt)


def sign_up(username: str, password2: str = PASSWORD, password1: str = PASSWORD):
    data = {"username": username, "email": "x@example.org"}
    data |= {"password1": password1, "password2": password2}
    return Client().post("/accounts/signup/", data)


def page_text(response, username: str) -> str:
    """The page without what differs between any two requests (the name typed, the token)."""
    html = response.content.decode().replace(username, "NAME")
    return re.sub(r"[A-Za-z0-9+/=_-]{32,}", "TOKEN", html)


@pytest.mark.parametrize(
    "password1, password2",
    [
        (PASSWORD, "something else"),  # the two passwords differ
        ("dice", "dice"),  # too short
        ("12345678", "12345678"),  # all digits, too common
    ],
)
def test_a_taken_name_is_not_told_apart_from_a_free_one_in_an_invalid_sign_up(
    alice, password1, password2
):
    taken = sign_up("alice", password2=password2, password1=password1)
    free = sign_up("zoe", password2=password2, password1=password1)
    assert taken.status_code == free.status_code == 422
    assert page_text(taken, "alice") == page_text(free, "zoe")
    assert "already exists" not in taken.content.decode()


def test_a_taken_name_costs_the_same_password_hashing_as_a_sign_up(alice, settings):
    settings.PASSWORD_HASHERS = ["tests.battlefield.test_club_invites.CountingHasher"]
    CountingHasher.calls = 0
    assert sign_up("zoe").status_code == 302
    hashed_by_a_sign_up = CountingHasher.calls
    CountingHasher.calls = 0
    refused = sign_up("ALICE")  # the name is taken whatever its case
    assert refused.status_code == 422 and "already exists" in refused.content.decode()
    assert CountingHasher.calls == hashed_by_a_sign_up == 1
    CountingHasher.calls = 0
    assert sign_up("alice", password2="other").status_code == 422
    assert sign_up("yves", password2="other").status_code == 422
    assert CountingHasher.calls == 0  # invalid either way: neither hashes
