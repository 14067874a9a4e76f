"""The admin saves scenarios through the same validator as import and the API."""

import json

import pytest

from battlefield.models import Scenario
from tests.documents import scenario

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(client, django_user_model):
    user = django_user_model.objects.create_superuser("admin", "admin@example.org", "pw-for-tests")
    client.force_login(user)
    return client


def form(doc, **extra):
    return {
        "document": json.dumps(doc),
        "visibility": "private",
        "owner": "",
        "steps-TOTAL_FORMS": "0",
        "steps-INITIAL_FORMS": "0",
        **extra,
    }


def test_an_invalid_document_is_refused_in_the_admin_naming_the_field(admin):
    response = admin.post("/admin/battlefield/scenario/add/", form(scenario(colour="red")))
    assert response.status_code == 200
    assert "colour: unknown field" in response.content.decode().replace("&#x27;", "'")
    assert Scenario.objects.count() == 0


def test_a_valid_document_is_stored_and_each_admin_change_moves_the_version_on(admin):
    response = admin.post("/admin/battlefield/scenario/add/", form(scenario()))
    assert response.status_code == 302
    s = Scenario.objects.get()
    response = admin.post(
        f"/admin/battlefield/scenario/{s.pk}/change/", form(scenario(name="Changed in the admin"))
    )
    assert response.status_code == 302
    s.refresh_from_db()
    assert (s.name, s.version) == ("Changed in the admin", 2)


def test_the_admin_lists_open(admin):
    Scenario.objects.create(document=scenario())
    for url in (
        "/admin/battlefield/scenario/",
        "/admin/battlefield/unitprofile/",
        "/admin/battlefield/lesson/",
        "/admin/battlefield/picture/",
    ):
        assert admin.get(url).status_code == 200, url
