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


# -- issue 15: hostile text and numbers, the stepper, the ruler, worst-case documents ----------
#
# Every answer is a deliberate one: 200, 400, 404, 409, 413 or 429 (and the page redirects, 302
# or 303, and 304); 422 is the stepper's and import's "your input has a problem" with the form.
# Never a 500. The site's engine deadline is kept tiny here so worst-case documents answer fast
# (what they answer is the "too complex" finding or refusal, rules/budget.py).

#: Fewer examples for the slower journeys (the whole file stays under ~40 s).
FUZZ_FEW = settings(FUZZ, max_examples=25)
DELIBERATE = {200, 302, 303, 304, 400, 404, 409, 413, 422, 429}
TINY_DEADLINE = override_settings(ENGINE_DEADLINE=0.05)

#: Text that broke pages (issue 15): lone surrogates, NUL, bidi overrides, zero-width marks.
HOSTILE = ["\ud800", "\udfff", "\x00", "\u202e", "\u2066", "\u200b", "\ufeff", "a\nb", "\u0301"]
hostile_text = st.one_of(
    st.sampled_from(HOSTILE),
    st.lists(st.sampled_from([*HOSTILE, "x", "1", " ", "é"]), max_size=6).map("".join),
    st.text(max_size=12),
)
#: Numbers that broke pages: huge, tiny, near the float limit, long digit strings.
HOSTILE_NUMBERS = [
    "1e308",
    "-1e308",
    "1.7976931348623157e308",
    "5e-324",
    "-0",
    "1e-400",
    "9" * 400,
    "9" * 5000,
    "NaN",
    "inf",
    "0x10",
    "1_000",
    " 3",
    "",
]
number_text = st.one_of(
    st.sampled_from(HOSTILE_NUMBERS),
    st.floats().map(repr),
    st.integers().map(str),
    hostile_text,
)
hostile_values = st.one_of(
    json_values,
    hostile_text,
    st.sampled_from([1e308, -1e308, 5e-324, 10**400, -(10**400)]),
)


def deep(levels: int):
    """A list nested `levels` deep (as JSON text: Python cannot always write it)."""
    return ("[" * levels + "]" * levels).encode()


def raw_number_document(number: str) -> bytes:
    """A valid scenario with a model's x written as `number`, verbatim (huge digit strings and
    the like, which Python's json would not write)."""
    text = json.dumps(scenario()).replace('"x": 30.0', f'"x": {number}', 1)
    return text.encode("utf-8", "surrogatepass")


@pytest.fixture
def fuzz_owner(db):
    user, _ = get_user_model().objects.get_or_create(username="fuzz-owner")
    return user


def owned_scenario(owner, doc=None) -> Scenario:
    return Scenario.objects.create(document=doc or scenario(), owner=owner, visibility="unlisted")


@NO_LIMITS
@TINY_DEADLINE
@FUZZ_FEW
@given(
    body=st.one_of(
        st.sampled_from(HOSTILE_NUMBERS).map(raw_number_document),
        st.integers(1, 3).map(lambda k: deep(10**k)),
        st.fixed_dictionaries({"scenario": mutated(scenario()), "move": st.just(move())}).map(
            lambda d: json.dumps(d).encode("utf-8", "surrogatepass")
        ),
        st.builds(
            lambda text: json.dumps(
                {"scenario": scenario(name=text), "move": move()}, ensure_ascii=False
            ).encode("utf-8", "surrogatepass"),
            hostile_text,
        ),
    )
)
def test_the_api_answers_hostile_text_numbers_and_nesting_deliberately(body):
    response = Client().post("/api/v1/adjudicate", body, content_type="application/json")
    assert response.status_code in (200, 400, 413, 429)
    assert not Scenario.objects.exists()


@NO_LIMITS
@TINY_DEADLINE
def test_worst_case_documents_answer_deliberately_everywhere(fuzz_owner):
    """The worst document within the limits and one over them, through the API, import, the
    stepper's preview, Check and Suggest: 200 / 413 / 422, never a 500 or a hang."""
    from tests.documents import worst_document, worst_move

    within = worst_document(models=600, hull_vertices=0, terrain=30, terrain_vertices=100)
    over = worst_document(models=600, hull_vertices=60, terrain=200, terrain_vertices=100)
    client = Client()
    client.force_login(fuzz_owner)
    for doc, statuses in ((within, {200}), (over, {413})):
        body = json.dumps({"scenario": doc, "move": worst_move(doc)})
        api_answer = client.post("/api/v1/adjudicate", body, content_type="application/json")
        assert api_answer.status_code in statuses
        data = json.dumps(doc).encode()
        imported = client.post("/scenarios/import", {"file": SimpleUploadedFile("w.json", data)})
        assert imported.status_code in ({302} if doc is within else {413})
    verdict = client.post(
        "/api/v1/adjudicate",
        json.dumps({"scenario": within, "move": worst_move(within)}),
        content_type="application/json",
    ).json()
    assert [f["rule"] for f in verdict["findings"] if not f["passed"]] == ["engine"]
    stored = Scenario.objects.latest("pk")
    base = f"/scenarios/{stored.pk}/move"
    poses = {}
    for mid, pose in worst_move(within)["end"].items():
        poses[f"pose-{mid}-x"], poses[f"pose-{mid}-y"] = str(pose["x"]), str(pose["y"])
    form = {"unit": "u0", "type": "normal", "roll": "server", "seed": "1", **poses}
    # a server roll redirects to the seed bound to this step (issue 13), then the page answers
    preview = client.get(f"{base}?unit=u0&type=normal&roll=server&seed=1", follow=True)
    assert preview.status_code == 200  # the page, without the reach overlay it had no time for
    checked = client.post(f"{base}/check", form)
    assert checked.status_code == 200
    assert "Too complex to judge here within 0.05 s" in checked.content.decode()
    assert client.post(f"{base}/suggest", form).status_code in DELIBERATE
    committed = client.post(f"{base}/commit", {**form, "version": stored.version})
    assert committed.status_code == 422  # not judged legal, so not committed
    assert not stored.steps.exists()


stepper_params = st.dictionaries(
    st.sampled_from(
        [
            "unit",
            "type",
            "roll",
            "dice",
            "seed",
            "version",
            "pose-B1-x",
            "pose-B1-y",
            "pose-B1-facing",
            "pose-B2-x",
            "pose-C1-facing",
            "ability",
            "trigger-event",
            "trigger-by",
            "trigger-models_destroyed",
            "take_to_the_skies",
            "surge_target",
            "path-B1",
            "stage",
        ]
    ),
    st.one_of(
        st.sampled_from(["B", "C", "normal", "surge", "advance", "hand", "server"]), number_text
    ),
    max_size=8,
)


def _clean_for_form(params: dict) -> dict:
    """Form values as a browser could send them: NUL and lone surrogates are bytes a browser
    never sends unescaped, but a client can; Django's test client needs str it can encode."""
    return {
        k: v.encode("utf-8", "surrogatepass").decode("utf-8", "replace") for k, v in params.items()
    }


@NO_LIMITS
@TINY_DEADLINE
@FUZZ_FEW
@given(params=stepper_params, how=st.sampled_from(["get", "check", "suggest", "commit"]))
def test_the_stepper_answers_any_query_and_form_deliberately(fuzz_owner, params, how):
    stored = Scenario.objects.filter(owner=fuzz_owner).first() or owned_scenario(fuzz_owner)
    client = Client()
    client.force_login(fuzz_owner)
    base = f"/scenarios/{stored.pk}/move"
    data = _clean_for_form(params)
    if how == "get":
        response = client.get(base, data)
    elif how == "commit":
        response = client.post(f"{base}/commit", data)
    else:
        response = client.post(f"{base}/{how}", data)
    assert response.status_code in DELIBERATE, (how, params)
    # the same through the share link, for anyone (no account)
    token_base = f"/s/{stored.share_token}/move"
    if how == "get":
        response = Client().get(token_base, data)
    elif how in ("check", "suggest"):
        response = Client().post(f"{token_base}/{how}", data)
    assert response.status_code in DELIBERATE, (how, params)


@NO_LIMITS
@FUZZ_FEW
@given(
    a=st.one_of(
        number_text,
        st.builds("model:{}".format, hostile_text),
        st.builds("point:{},{}".format, number_text, number_text),
    ),
    b=st.one_of(number_text, st.builds("point:{},{}".format, number_text, number_text)),
)
def test_the_ruler_answers_any_query_deliberately(fuzz_owner, a, b):
    stored = Scenario.objects.filter(owner=fuzz_owner).first() or owned_scenario(fuzz_owner)
    data = _clean_for_form({"a": a, "b": b})
    assert Client().get(f"/s/{stored.share_token}/ruler", data).status_code in DELIBERATE
    client = Client()
    client.force_login(fuzz_owner)
    assert client.get(f"/scenarios/{stored.pk}/ruler", data).status_code in DELIBERATE


@NO_LIMITS
@FUZZ_FEW
@given(name=hostile_text, value=hostile_values)
def test_the_import_answers_hostile_names_and_values_deliberately(fuzz_owner, name, value):
    client = Client()
    client.force_login(fuzz_owner)
    doc = scenario(name=name)
    doc["units"][0]["name"] = value if isinstance(value, str) else name
    doc["units"][0]["models"][0]["x"] = value
    data = json.dumps(doc, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass")
    response = client.post("/scenarios/import", {"file": SimpleUploadedFile("s.json", data)})
    assert response.status_code in DELIBERATE
    if response.status_code == 302:  # stored: every page of it opens
        stored = Scenario.objects.latest("pk")
        for url in (stored.get_absolute_url(), stored.share_url(), f"/scenarios/{stored.pk}/edit"):
            assert client.get(url).status_code == 200
