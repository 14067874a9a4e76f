"""The pages of issue 14: a scenario from a layout, the dataset catalogue, roster import (preview
stores nothing; placing goes through the editor's one edit path), a surge ability and corrections
for any unit, the Warmaster flyers, and the About page with the data's attribution."""

from pathlib import Path

import pytest

from battlefield.catalogues import warmaster_flyers
from battlefield.models import Scenario

pytestmark = pytest.mark.django_db
PARTIAL = {"HX-Request": "true", "HX-Request-Type": "partial"}
ROSTERS = Path(__file__).parent / "rosters"


@pytest.fixture
def player(client, django_user_model):
    user = django_user_model.objects.create_user("player", password="a long enough password")
    client.force_login(user)
    return user


@pytest.fixture
def layout_table(client, player):
    """A scenario from the Take and Hold layout, made by the page's form."""
    response = client.post(
        "/scenarios/from-layout",
        {"layout": "bm-take-vs-take-01", "attacker": "Sisters", "defender": "Orks"},
    )
    scenario = Scenario.objects.latest("pk")
    assert response.status_code == 302 and response["Location"] == f"/scenarios/{scenario.pk}/edit"
    return scenario


def test_a_layout_gives_table_terrain_zones_objectives_and_source(client, layout_table):
    doc = layout_table.document
    assert doc["table"] == {"width": 60.0, "height": 44.0}
    assert [a["name"] for a in doc["armies"]] == ["Sisters", "Orks"]
    assert {z["army"] for z in doc["deployment_zones"]} == {"attacker", "defender"}
    assert doc["objectives"] and any(t.get("floors") for t in doc["terrain"])
    page = client.get(f"/scenarios/{layout_table.pk}/").content.decode()
    assert "Deployment zone: Sisters" in page and "Objective marker" in page
    assert "1.4.5" in page and "CC BY 4.0" in page  # the data's version and licence, shown
    svg = client.get(f"/scenarios/{layout_table.pk}/").content.decode()
    assert 'class="source-caption"' in svg


def test_the_layout_page_lists_matchups_and_refuses_an_unknown_layout(client, player):
    page = client.get("/scenarios/from-layout").content.decode()
    assert '<optgroup label="Take and Hold vs Take and Hold">' in page
    count = Scenario.objects.count()
    response = client.post("/scenarios/from-layout", {"layout": "no-such-layout"})
    assert response.status_code == 422 and Scenario.objects.count() == count


def test_catalogue_search_and_add_places_the_unit_in_its_zone(client, layout_table):
    url = f"/scenarios/{layout_table.pk}/edit/dataset"
    html = client.get(
        url, {"q": "battle sisters", "faction": "adepta-sororitas"}, headers=PARTIAL
    ).content.decode()
    assert "Battle Sisters Squad" in html and "32 mm round" in html
    response = client.post(
        f"{url}/add",
        {
            "version": layout_table.version,
            "unit": "adepta-sororitas/battle-sisters-squad",
            "army": "defender",
            "count": "10",
        },
    )
    assert response.status_code == 302
    layout_table.refresh_from_db()
    (unit,) = layout_table.document["units"]
    assert unit["army"] == "defender" and len(unit["models"]) == 10 and unit["move"] == 6
    assert layout_table.document["source"]["unit_dataslates"] == ["launch"]


def test_roster_preview_stores_nothing_and_names_the_unresolved(client, layout_table):
    version = layout_table.version
    response = client.post(
        f"/scenarios/{layout_table.pk}/edit/roster",
        {"army": "attacker", "list": (ROSTERS / "gw_unknown.txt").read_text()},
        headers=PARTIAL,
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "Battle Sisters Squad" in html and "Serafim Sqaud" in html
    assert 'name="pick-1"' in html and "adepta-sororitas/seraphim-squad" in html
    layout_table.refresh_from_db()
    assert layout_table.version == version and layout_table.document["units"] == []


def test_a_malformed_roster_file_is_refused_naming_the_line(client, layout_table):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("list.json", (ROSTERS / "newrecruit_malformed.json").read_bytes())
    response = client.post(
        f"/scenarios/{layout_table.pk}/edit/roster",
        {"army": "attacker", "file": upload},
        headers=PARTIAL,
    )
    assert response.status_code == 422
    assert "line 9, column 8" in response.content.decode()
    layout_table.refresh_from_db()
    assert layout_table.document["units"] == []


def test_placing_a_roster_with_a_pick_for_the_unknown_entry(client, layout_table):
    text = (ROSTERS / "gw_unknown.txt").read_text()
    response = client.post(
        f"/scenarios/{layout_table.pk}/edit/roster/place",
        {
            "version": layout_table.version,
            "army": "attacker",
            "list": text,
            "pick-1": "adepta-sororitas/seraphim-squad",
        },
    )
    assert response.status_code == 302
    layout_table.refresh_from_db()
    units = layout_table.document["units"]
    assert [(u["name"], len(u["models"])) for u in units] == [
        ("Battle Sisters Squad", 10),
        ("Seraphim Squad", 5),
    ]
    assert all(u["army"] == "attacker" for u in units)


def test_a_surge_ability_can_be_given_to_any_unit_and_taken_away(client, layout_table):
    client.post(
        f"/scenarios/{layout_table.pk}/edit/dataset/add",
        {"version": layout_table.version, "unit": "adepta-sororitas/canoness", "army": "attacker"},
    )
    layout_table.refresh_from_db()
    unit_id = layout_table.document["units"][0]["id"]
    url = f"/scenarios/{layout_table.pk}/edit/surge"
    response = client.post(
        url,
        {
            "version": layout_table.version,
            "unit": unit_id,
            "surge_trigger": "enemy-ended-move-within-8",
            "surge_distance": "d6+1",
            "surge_limit": "once-per-battle",
        },
    )
    assert response.status_code == 302
    layout_table.refresh_from_db()
    assert layout_table.document["units"][0]["abilities"] == [
        {
            "id": "surge",
            "name": "Surge",
            "kind": "surge",
            "trigger": "enemy-ended-move-within-8",
            "distance": "D6+1",
            "limit": "once-per-battle",
        }
    ]
    bad = client.post(
        url,
        {
            "version": layout_table.version,
            "unit": unit_id,
            "surge_trigger": "enemy-ended-move-within-8",
            "surge_distance": "2D6",
        },
    )
    assert bad.status_code == 422
    client.post(url, {"version": layout_table.version, "unit": unit_id, "surge_trigger": ""})
    layout_table.refresh_from_db()
    assert "abilities" not in layout_table.document["units"][0]


def test_a_unit_the_data_gets_wrong_is_corrected_in_the_scenario(client, layout_table):
    client.post(
        f"/scenarios/{layout_table.pk}/edit/dataset/add",
        {
            "version": layout_table.version,
            "unit": "adepta-sororitas/sororitas-rhino",
            "army": "attacker",
        },
    )
    layout_table.refresh_from_db()
    unit_id = layout_table.document["units"][0]["id"]
    response = client.post(
        f"/scenarios/{layout_table.pk}/edit/correct",
        {
            "version": layout_table.version,
            "unit": unit_id,
            "move": "10",
            "keywords": "vehicle, transport",
            "base_kind": "oval",
            "base_a": "110",
            "base_b": "70",
        },
    )
    assert response.status_code == 302
    layout_table.refresh_from_db()
    unit = layout_table.document["units"][0]
    assert unit["move"] == 10 and unit["keywords"] == ["TRANSPORT", "VEHICLE"]
    assert unit["models"][0]["base"] == {"oval": [110, 70]}


def test_a_warmaster_flyer_is_one_click(client, player):
    client.post("/scenarios/new", {"name": "Flyers", "table": "warmaster-revolution:180x120"})
    scenario = Scenario.objects.latest("pk")
    html = client.get(f"/scenarios/{scenario.pk}/edit").content.decode()
    assert "Pegasus Knights" in html and "Harpies" in html
    army = scenario.document["armies"][0]["id"]
    response = client.post(
        f"/scenarios/{scenario.pk}/edit/flyer",
        {"version": scenario.version, "flyer": "pegasus-knights", "army": army},
    )
    assert response.status_code == 302
    scenario.refresh_from_db()
    (unit,) = scenario.document["units"]
    assert unit["name"] == "Pegasus Knights (Bretonnia)" and len(unit["models"]) == 3
    assert set(unit["keywords"]) == {"MONSTER", "FLYING"} and unit["move"] == 100
    assert unit["models"][0]["base"] == {"rect": [20, 40]}  # monsters face a short edge


def test_the_flyer_catalogue_holds_the_army_lists_facts():
    """Spot checks written from the Warmaster Revolution army lists (the catalogue was first
    written from memory and had Terradons as cavalry, two-stand Giant Eagles, a Dark Elf
    Dragon and a Vampire on a Zombie Dragon)."""
    flyers = {(f["army"], f["name"]): f for f in warmaster_flyers()}
    assert flyers["Lizardmen", "Terradons"]["troop_type"] == "monster"
    assert flyers["High Elves", "Giant Eagles"]["stands"] == 3
    assert flyers["High Elves", "Dragon Rider"]["stands"] == 1
    for army, name in [
        ("Chaos", "Harpies"),
        ("Dark Elves", "Harpies"),
        ("Vampire Counts", "Fell Bats"),
    ]:
        assert flyers[army, name]["facing_edge"] == "long"  # based like infantry, by their list
        assert flyers[army, name]["base"] == {"rect": [40, 20]}
    assert flyers["Dwarfs", "Gyrocopter"]["keywords"] == ["MACHINE", "FLYING"]
    assert ("Dark Elves", "General on Manticore") in flyers
    assert not any(army == "Dark Elves" and "Dragon" in name for army, name in flyers)
    assert ("Vampire Counts", "Vampire Lord on Winged Nightmare") in flyers
    assert ("Tomb Kings", "Tomb King on Zombie Dragon") in flyers
    assert all(f["move"] == 100 for f in flyers.values())


def test_about_page_and_footer_give_the_attribution(client):
    about = client.get("/about").content.decode()
    assert "40kdc-data" in about and "CC BY 4.0" in about and "Alpaca Software" in about
    assert "Changes made by Arbiter" in about and "1.4.5" in about
    home = client.get("/").content.decode()
    assert "40kdc-data" in home and 'href="/about"' in home


def test_a_layout_with_both_lists_previews_then_sets_up_both_armies(client, player):
    lists = {
        "layout": "bm-take-vs-take-01",
        "attacker": "Sisters",
        "defender": "More sisters",
        "attacker_list": (ROSTERS / "gw_clean.txt").read_text(),
        "defender_list": (ROSTERS / "newrecruit_unknown.txt").read_text(),
    }
    count = Scenario.objects.count()
    preview = client.post("/scenarios/from-layout", lists)
    html = preview.content.decode()
    assert preview.status_code == 200 and Scenario.objects.count() == count  # nothing stored
    assert "Exorcist" in html and "Retributer Squadd" in html
    assert 'name="defender-pick-1"' in html
    created = client.post(
        "/scenarios/from-layout",
        {**lists, "confirm": "1", "defender-pick-1": "adepta-sororitas/retributor-squad"},
    )
    assert created.status_code == 302
    doc = Scenario.objects.latest("pk").document
    by_army = {
        a: [u["name"] for u in doc["units"] if u["army"] == a] for a in ("attacker", "defender")
    }
    assert by_army == {
        "attacker": ["Canoness", "Battle Sisters Squad", "Seraphim Squad", "Exorcist"],
        "defender": ["Battle Sisters Squad", "Retributor Squad"],
    }


def test_a_layout_with_a_malformed_list_stores_nothing_and_says_where(client, player):
    count = Scenario.objects.count()
    response = client.post(
        "/scenarios/from-layout",
        {
            "layout": "bm-take-vs-take-01",
            "confirm": "1",
            "attacker_list": (ROSTERS / "gw_malformed.txt").read_text(),
        },
    )
    assert response.status_code == 422 and Scenario.objects.count() == count
    assert "line 1" in response.content.decode()
