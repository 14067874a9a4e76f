"""Scenarios, steps, the catalogue: tokens, versions, forks, the append-only log, PNG cache."""

import warnings

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.utils.deprecation import RemovedInDjango2028Warning

from battlefield.models import Picture, Scenario, StaleScenario, Step, UnitProfile, ordered
from tests.documents import scenario

pytestmark = pytest.mark.django_db


def make(**fields) -> Scenario:
    return Scenario.objects.create(document=scenario(), **fields)


def test_a_share_token_carries_at_least_128_random_bits_and_is_not_the_key():
    a, b = make(), make()
    # token_urlsafe(24): 24 random bytes = 192 bits, 32 URL-safe characters
    assert len(a.share_token) == 32 and a.share_token != b.share_token
    assert str(a.pk) not in (a.share_token, b.share_token)
    assert "-" * 4 not in a.share_token  # not a UUID's dashed layout


def test_system_and_name_come_from_the_document():
    s = make()
    assert (s.system, s.name) == ("wh40k-11e", "Two squads and a ruin")


def test_every_change_moves_the_version_on():
    s = make()
    assert s.version == 1
    s.rename("Renamed")
    s.refresh_from_db()
    assert (s.version, s.name, s.document["name"]) == (2, "Renamed", "Renamed")
    s.visibility = Scenario.Visibility.PUBLIC
    s.save()
    assert Scenario.objects.get(pk=s.pk).version == 3


def test_saving_a_stale_read_is_refused_and_loses_nothing():
    s = make()
    first, second = Scenario.objects.get(pk=s.pk), Scenario.objects.get(pk=s.pk)
    first.rename("First")
    with pytest.raises(StaleScenario):
        second.rename("Second")
    assert Scenario.objects.get(pk=s.pk).name == "First"


def test_copy_to_edit_makes_an_unlisted_copy_with_its_own_token():
    original = make(visibility=Scenario.Visibility.PUBLIC)
    copy = original.fork()
    assert copy.pk != original.pk and copy.share_token != original.share_token
    assert copy.document == original.document and copy.forked_from == original
    # unlisted: what "private" meant before accounts (the share link works, nothing is listed)
    assert copy.visibility == Scenario.Visibility.UNLISTED and copy.version == 1


def test_clean_runs_the_validator_and_names_the_field():
    s = Scenario(document=scenario(colour="red"))
    with pytest.raises(ValidationError) as err:
        s.full_clean()
    assert "colour: unknown field" in str(err.value)


def test_export_orders_keys_like_format_md_and_equals_the_stored_document():
    doc = {"units": [], "name": "n", "format": "arbiter.scenario/1", "zeta": {"b": 1, "a": 2}}
    out = ordered(doc)
    assert list(out) == ["format", "name", "units", "zeta"] and list(out["zeta"]) == ["a", "b"]
    assert out == doc


def test_steps_are_numbered_in_order_and_never_changed():
    s = make()
    verdict = {
        "legal": False,
        "move": {
            "unit": "B",
            "type": "normal",
            "dice": [{"value": 4, "source": "server"}],
            "seed": 7,
        },
    }
    first = Step.append(s, {"unit": "B", "type": "normal"}, verdict)
    second = Step.append(s, {"unit": "B", "type": "normal"}, verdict)
    assert (first.index, second.index) == (0, 1)
    assert first.dice == {"dice": [{"value": 4, "source": "server"}], "seed": 7}
    first.verdict = {}
    with pytest.raises(ValueError):
        first.save()


def test_two_steps_cannot_share_an_index():
    s = make()
    Step.objects.create(scenario=s, index=0, move={}, verdict={})
    with pytest.raises(IntegrityError), transaction.atomic():
        Step.objects.create(scenario=s, index=0, move={}, verdict={})


def test_a_unit_profile_is_checked_like_a_unit():
    good = UnitProfile(
        system="wh40k-11e", name="Intercessors", keywords=["INFANTRY"], move=6, base={"round": 32}
    )
    good.full_clean()
    bad = UnitProfile(
        system="wh40k-11e",
        name="Bad",
        keywords=["INFANTRY"],
        move=6,
        base={"round": 32, "oval": [60, 35]},
    )
    with pytest.raises(ValidationError) as err:
        bad.full_clean()
    assert "base: needs exactly one of" in str(err.value)


def test_unit_profiles_are_unique_per_system_and_name():
    UnitProfile.objects.create(system="wh40k-11e", name="Riptide", base={"round": 80})
    with pytest.raises(IntegrityError), transaction.atomic():
        UnitProfile.objects.create(system="wh40k-11e", name="Riptide", base={"round": 80})


def test_the_png_is_drawn_once_per_version_and_kept_in_the_database(monkeypatch):
    import battlefield.models

    calls = []
    real = battlefield.models.table_png

    def counting(situation, *args, **kwargs):
        calls.append(situation.name)
        return real(situation, *args, **kwargs)

    monkeypatch.setattr(battlefield.models, "table_png", counting)
    s = make()
    first = s.png()
    assert first.startswith(b"\x89PNG")
    assert Scenario.objects.get(pk=s.pk).png() == first and len(calls) == 1
    s.rename("Renamed")
    s.png()
    assert len(calls) == 2 and Picture.objects.get(scenario=s).version == 2


def test_a_stored_scenario_loads_under_any_fetch_mode_without_a_deprecation():
    """Django 6.1 passes the queryset's fetch mode to from_db(); ours must accept and keep it."""
    Scenario.objects.create(document=scenario())
    with warnings.catch_warnings():
        warnings.simplefilter("error", RemovedInDjango2028Warning)
        loaded = Scenario.objects.fetch_mode(models.FETCH_PEERS).get()
    assert loaded._state.fetch_mode is models.FETCH_PEERS
