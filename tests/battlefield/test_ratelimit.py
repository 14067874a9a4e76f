"""Rate limits on sign-up, log-in, password reset, imports and the adjudication API: per client
address and per user, counted in the database (shared by every app server), 429 when over."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, RequestFactory

from battlefield import ratelimit
from battlefield.models import RateCounter, Scenario
from tests.documents import move, scenario

pytestmark = pytest.mark.django_db


@pytest.fixture
def limits(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.RATE_LIMITS = {
        "signup": (2, 3600),
        "login": (3, 300),
        "login_account": (3, 3600),
        "password_reset": (2, 3600),
        "import": (2, 3600),
        "api": (3, 60),
    }
    return settings.RATE_LIMITS


def request_from(address, user=None, forwarded=None):
    from django.contrib.auth.models import AnonymousUser

    extra = {"REMOTE_ADDR": address}
    if forwarded:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    request = RequestFactory().post("/", **extra)
    request.user = user or AnonymousUser()
    return request


def test_the_limit_allows_count_requests_per_window_then_refuses(limits):
    # api: 3 per 60 s; the window starting at t=600 s runs to 660 s
    for _ in range(3):
        ratelimit.check(request_from("10.0.0.1"), "api", now=600.0)
    with pytest.raises(ratelimit.RateLimited) as refused:
        ratelimit.check(request_from("10.0.0.1"), "api", now=615.0)
    assert refused.value.retry_after == 45  # 660 - 615
    assert "Too many adjudication requests: at most 3 a minute" in refused.value.message
    ratelimit.check(request_from("10.0.0.2"), "api", now=615.0)  # another address is counted apart
    ratelimit.check(request_from("10.0.0.1"), "api", now=660.0)  # a new window starts afresh


def test_a_request_within_its_limit_is_counted_in_one_query_and_a_refused_one_not_at_all(
    limits, django_assert_num_queries
):
    """The usual request (its window's counter exists, below the limit) costs one conditional
    UPDATE; the limit is still exact, and a refused request leaves the count where it was."""
    ratelimit.check(request_from("10.0.3.1"), "api", now=600.0)  # starts the window's counter
    with django_assert_num_queries(1):
        ratelimit.check(request_from("10.0.3.1"), "api", now=601.0)
    ratelimit.check(request_from("10.0.3.1"), "api", now=602.0)
    for _ in range(2):
        with pytest.raises(ratelimit.RateLimited):
            ratelimit.check(request_from("10.0.3.1"), "api", now=603.0)
    assert RateCounter.objects.get(key="api:addr:10.0.3.1", window=600).count == 3


def test_a_user_is_limited_across_addresses(limits, django_user_model):
    user = django_user_model.objects.create_user("roamer")
    for i in range(3):
        ratelimit.check(request_from(f"10.0.1.{i}", user), "api", now=0.0)
    with pytest.raises(ratelimit.RateLimited):
        ratelimit.check(request_from("10.0.1.99", user), "api", now=1.0)


def test_counts_live_in_the_database_not_in_the_process(limits):
    ratelimit.check(request_from("10.0.0.1"), "api", now=0.0)
    ratelimit.check(request_from("10.0.0.1"), "api", now=0.0)
    assert RateCounter.objects.get(key="api:addr:10.0.0.1", window=0).count == 2
    # what another server would see: the same row, one more request
    RateCounter.objects.filter(key="api:addr:10.0.0.1").update(count=3)
    with pytest.raises(ratelimit.RateLimited):
        ratelimit.check(request_from("10.0.0.1"), "api", now=1.0)


def test_a_new_window_drops_the_keys_old_counters_and_purge_drops_stale_ones(limits):
    ratelimit.check(request_from("10.0.0.1"), "api", now=0.0)
    ratelimit.check(request_from("10.0.0.1"), "api", now=60.0)
    assert list(RateCounter.objects.values_list("window", flat=True)) == [60]
    assert ratelimit.purge(older_than_seconds=3600, now=60.0 + 7200) == 1
    assert not RateCounter.objects.exists()


def test_forwarded_for_is_trusted_only_behind_configured_proxies(limits, settings):
    forged = request_from("10.9.9.9", forwarded="1.2.3.4")
    assert ratelimit.client_address(forged) == "10.9.9.9"
    settings.TRUSTED_PROXIES = 1
    # the client put "1.2.3.4" in front; our proxy appended the address it saw
    assert ratelimit.client_address(request_from("10.9.9.9", forwarded="1.2.3.4, 5.6.7.8")) == (
        "5.6.7.8"
    )


def test_a_zero_limit_turns_a_scope_off(limits):
    limits["api"] = (0, 60)
    for _ in range(10):
        ratelimit.check(request_from("10.0.0.1"), "api")
    assert not RateCounter.objects.exists()


def test_the_adjudication_api_answers_429_in_json(limits):
    client = Client()
    body = json.dumps({"scenario": scenario(), "move": move()})
    statuses = [
        client.post("/api/v1/adjudicate", body, content_type="application/json").status_code
        for _ in range(4)
    ]
    assert statuses == [200, 200, 200, 429]
    refused = client.post("/api/v1/adjudicate", body, content_type="application/json")
    assert refused.json() == {
        "error": "Too many adjudication requests: at most 3 a minute. "
        f"Please wait {ratelimit.duration(int(refused['Retry-After']))} and try again.",
        "field": "",
    }
    assert 1 <= int(refused["Retry-After"]) <= 60


def test_a_refused_client_is_served_again_when_the_window_has_passed(limits, rate_limit_clock):
    client = Client()
    body = json.dumps({"scenario": scenario(), "move": move()})

    def post():
        return client.post("/api/v1/adjudicate", body, content_type="application/json")

    assert [post().status_code for _ in range(4)] == [200, 200, 200, 429]
    # The window is a minute from its start: the test's clock starts on a minute boundary.
    assert post()["Retry-After"] == "60"
    rate_limit_clock.advance(59)
    assert post()["Retry-After"] == "1"
    rate_limit_clock.advance(1)
    assert post().status_code == 200


def test_log_in_attempts_are_limited(limits, django_user_model):
    django_user_model.objects.create_user("alice", password="right password 1")
    client = Client()
    for _ in range(3):
        response = client.post("/accounts/login/", {"username": "alice", "password": "wrong"})
        assert response.status_code == 200
    refused = client.post("/accounts/login/", {"username": "alice", "password": "right password 1"})
    assert refused.status_code == 429 and "Too many log-in attempts" in refused.content.decode()
    assert "_auth_user_id" not in client.session
    assert client.get("/accounts/login/").status_code == 200  # looking at the form is not counted


def test_sign_ups_are_limited(limits, django_user_model):
    client = Client()
    for i in range(2):
        client.post("/accounts/signup/", {"username": f"u{i}", "email": "u@example.org"})
    refused = client.post(
        "/accounts/signup/",
        {"username": "u9", "email": "u@example.org", "password1": "x y z w 1234"},
    )
    assert refused.status_code == 429 and "Too many sign-ups" in refused.content.decode()
    assert not django_user_model.objects.filter(username="u9").exists()


def test_password_resets_are_limited(limits):
    client = Client()
    for _ in range(2):
        assert (
            client.post("/accounts/password_reset/", {"email": "a@example.org"}).status_code == 302
        )
    refused = client.post("/accounts/password_reset/", {"email": "a@example.org"})
    assert refused.status_code == 429


def test_imports_are_limited_per_user_and_an_htmx_request_gets_the_message_alone(
    limits, django_user_model
):
    user = django_user_model.objects.create_user("importer")
    client = Client()
    client.force_login(user)
    data = json.dumps(scenario()).encode()
    for _ in range(2):
        response = client.post("/scenarios/import", {"file": SimpleUploadedFile("s.json", data)})
        assert response.status_code == 302
    refused = client.post(
        "/scenarios/import",
        {"file": SimpleUploadedFile("s.json", data)},
        headers={"HX-Request": "true", "HX-Request-Type": "partial"},
    )
    html = refused.content.decode()
    assert refused.status_code == 429 and "Too many imports: at most 2 an hour" in html
    assert html.startswith('<div class="problem error" role="alert">')
    assert Scenario.objects.count() == 2


def test_the_admin_log_in_shares_the_log_in_limit(limits):
    """Per address and account name together (issue 15: another name from the same address,
    a club's wifi, is not refused)."""
    client = Client()
    for _ in range(3):
        client.post("/admin/login/", {"username": "root", "password": "guess"})
    assert (
        client.post("/admin/login/", {"username": "root", "password": "guess"}).status_code == 429
    )
    assert client.post("/accounts/login/", {"username": "root", "password": "y"}).status_code == 429
    assert client.post("/accounts/login/", {"username": "x", "password": "y"}).status_code == 200


def test_log_in_attempts_on_one_account_are_limited_across_addresses(limits):
    """Failed log-ins per account, over a longer window (tests/battlefield/test_fair_limits.py
    shows the owner passing it from a known browser)."""
    for i in range(3):
        Client(REMOTE_ADDR=f"10.1.0.{i}").post(
            "/accounts/login/", {"username": "Alice", "password": "guess"}
        )
    refused = Client(REMOTE_ADDR="10.1.0.99").post(
        "/accounts/login/", {"username": "alice", "password": "guess"}
    )
    assert refused.status_code == 429
    other = Client(REMOTE_ADDR="10.1.0.99").post(
        "/accounts/login/", {"username": "bob", "password": "guess"}
    )
    assert other.status_code == 200


def test_checking_moves_in_a_lesson_counts_against_the_adjudication_limit(client, limits):
    """Check and Suggest run the engine like the API does, so they share its limit (3 here)."""
    from django.core.management import call_command

    call_command("load_demo", verbosity=0)
    url = "/lessons/surge-basics/check"
    statuses = [client.post(url, {}).status_code for _ in range(4)]
    assert 429 not in statuses[:3] and statuses[3] == 429
