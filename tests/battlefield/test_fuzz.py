"""Fuzzing the import and adjudication API with hypothesis: whatever arrives, the answer is a
deliberate one (API: 200, 400, 413 or 429; import page: a redirect to the stored scenario, or
422 / 413 / 429 with the form), never a 500, and nothing is stored from a rejected input."""

import copy
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from battlefield.models import Scenario
from tests.documents import move, scenario

pytestmark = pytest.mark.django_db
FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# Rate limits are tested in test_ratelimit.py; here they would only stop the fuzzing early.
NO_LIMITS = override_settings(RATE_LIMITS={})

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)


def paths(value, prefix=()):
    """Every place in a JSON value (as key/index tuples)."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, (*prefix, i))


@st.composite
def mutated(draw, original):
    """A valid document with one place replaced by any JSON value, or deleted."""
    doc = copy.deepcopy(original)
    where = draw(st.sampled_from(list(paths(doc))[1:]))
    parent = doc
    for step in where[:-1]:
        parent = parent[step]
    if draw(st.booleans()) and isinstance(parent, dict):
        del parent[where[-1]]
    else:
        parent[where[-1]] = draw(json_values)
    return doc


def api(body) -> int:
    data = body if isinstance(body, bytes) else json.dumps(body)
    return Client().post("/api/v1/adjudicate", data, content_type="application/json")


@NO_LIMITS
@FUZZ
@given(
    body=st.one_of(
        st.binary(max_size=200),
        json_values,
        st.fixed_dictionaries({"scenario": mutated(scenario()), "move": st.just(move())}),
        st.fixed_dictionaries({"scenario": st.just(scenario()), "move": mutated(move())}),
    )
)
def test_the_adjudication_api_answers_every_input_deliberately(body):
    response = api(body)
    # 415: an empty body carries no Content-Type, and the API reads only application/json.
    assert response.status_code in (200, 400, 413, 415, 429)
    assert response["Content-Type"] == "application/json"
    if response.status_code != 200:
        assert set(response.json()) == {"error", "field"}
    assert not Scenario.objects.exists()  # the API never stores anything


@NO_LIMITS
@FUZZ
@given(
    data=st.one_of(
        st.binary(max_size=200),
        json_values.map(lambda v: json.dumps(v).encode()),
        mutated(scenario()).map(lambda d: json.dumps(d).encode()),
    )
)
def test_the_import_stores_a_scenario_only_when_it_accepts_the_file(data):
    user, _ = get_user_model().objects.get_or_create(username="fuzzer")
    client = Client()
    client.force_login(user)
    before = Scenario.objects.count()
    response = client.post("/scenarios/import", {"file": SimpleUploadedFile("s.json", data)})
    assert response.status_code in (302, 413, 422, 429)
    stored = Scenario.objects.count() - before
    if response.status_code == 302:
        assert stored == 1
        assert Scenario.objects.latest("pk").document == json.loads(data)
    else:
        assert stored == 0
