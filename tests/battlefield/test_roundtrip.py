"""Export then import gives back the same document, for random valid scenarios."""

import json
import unicodedata

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from battlefield.models import Scenario
from battlefield.validation import validate_scenario
from rules import SYSTEMS

MM_PER_UNIT = {"wh40k-11e": 25.4, "warmaster-revolution": 10.0}
MAX_BASE_MM = 60
# Names: any text a name may hold (battlefield/text.py: no surrogates, controls or invisible
# formatting characters such as bidi controls), NFC-normalised as every way in stores it.
names = st.text(
    st.characters(codec="utf-8", exclude_categories=["Cs", "Cc", "Cf"]), max_size=30
).map(lambda text: unicodedata.normalize("NFC", text))
ids = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_-]{0,6}", fullmatch=True)


@st.composite
def scenarios(draw):
    system = draw(st.sampled_from(sorted(MM_PER_UNIT)))
    cell = 3 * MAX_BASE_MM / MM_PER_UNIT[system]  # one model per cell: bases never overlap
    cols, rows = draw(st.integers(2, 6)), draw(st.integers(2, 5))
    width, height = cols * cell, rows * cell
    used: set[str] = set()

    def fresh(prefix):
        ident = draw(ids.filter(lambda i: prefix + i not in used))
        used.add(prefix + ident)
        return prefix + ident

    terrain = []
    for _ in range(draw(st.integers(0, 3))):
        x, y = draw(st.floats(0, width - 2)), draw(st.floats(0, height - 2))
        w, h = draw(st.floats(1, 2)), draw(st.floats(1, 2))
        piece = {
            "id": fresh("t"),
            # 40K's type is a free label; Warmaster's is a name of the game's vocabulary (2.2).
            "type": draw(
                st.sampled_from(
                    ["ruin", "woods", "crater", "hill"]
                    if system == "wh40k-11e"
                    else sorted(SYSTEMS[system].terrain_names)
                )
            ),
            "footprint": [[x, y], [x + w, y], [x + w, y + h], [x, y + h]],
        }
        if system == "wh40k-11e":
            piece.update(
                category=draw(st.sampled_from(["exposed", "light", "dense"])),
                height=draw(st.integers(0, 9)),
                solid=draw(st.booleans()),
            )
        terrain.append(piece)
    armies = [{"id": fresh("a"), "name": draw(names)} for _ in range(draw(st.integers(1, 3)))]
    cells = draw(st.permutations([(c, r) for c in range(cols) for r in range(rows)]))
    units, k = [], 0
    for _ in range(draw(st.integers(0, 3))):
        models = []
        for _ in range(draw(st.integers(1, 3))):
            if k == len(cells):
                break
            c, r = cells[k]
            k += 1
            base = draw(
                st.one_of(
                    st.builds(lambda d: {"round": d}, st.integers(25, MAX_BASE_MM)),
                    st.builds(
                        lambda a, b: {"oval": [a, b]},
                        st.integers(40, MAX_BASE_MM),
                        st.integers(20, 39),
                    ),
                    st.builds(
                        lambda a, b: {"rect": [a, b]}, st.integers(20, 40), st.integers(20, 40)
                    ),
                )
                if system == "wh40k-11e"
                # Warmaster stands are 4 x 2 cm, either edge in front (RULES.md 2.1); the
                # units drawn here have no character keyword, so no round stands.
                else st.sampled_from([{"rect": [40, 20]}, {"rect": [20, 40]}])
            )
            model = {
                "id": fresh("m"),
                "base": base,
                "x": (c + 0.5) * cell + draw(st.floats(-0.1, 0.1)),
                "y": (r + 0.5) * cell + draw(st.floats(-0.1, 0.1)),
            }
            if draw(st.booleans()):
                model["facing"] = draw(st.floats(-180, 180))
            models.append(model)
        if not models:
            break
        unit = {
            "id": fresh("u"),
            "army": draw(st.sampled_from(armies))["id"],
            "name": draw(names),
            "keywords": draw(
                st.lists(
                    st.sampled_from(["INFANTRY", "FLY", "MONSTER", "FLYING"]),
                    unique=True,
                    max_size=2,
                )
            ),
            "models": models,
        }
        if draw(st.booleans()):
            unit["move"] = draw(st.integers(0, 20))
        if draw(st.booleans()):
            unit["state"] = {"battle_shocked": draw(st.booleans()), "confused": draw(st.booleans())}
        units.append(unit)
    doc = {
        "format": "arbiter.scenario/1",
        "system": system,
        "name": draw(names),
        "table": {"width": width, "height": height},
        "terrain": terrain,
        "armies": armies,
        "units": units,
        "turn": {"round": draw(st.integers(1, 7)), "active_army": armies[0]["id"]},
    }
    return doc


@pytest.mark.django_db
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(doc=scenarios())
def test_random_valid_scenarios_survive_export_and_import(doc):
    validate_scenario(doc)  # the generator only makes valid scenarios
    client = Client()
    # importing needs an account (issue 7)
    user, _ = get_user_model().objects.get_or_create(username="roundtrip")
    client.force_login(user)
    data = json.dumps(doc).encode()
    response = client.post("/scenarios/import", {"file": SimpleUploadedFile("s.json", data)})
    assert response.status_code == 302
    scenario = Scenario.objects.latest("pk")
    exported = json.loads(client.get(f"/scenarios/{scenario.pk}/scenario.json").content)
    assert exported == doc
    assert validate_scenario(exported).to_document() == doc
