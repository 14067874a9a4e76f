"""Pages served from what was already computed for the scenario's version (issue 16): the share
page draws the table once per version (not twice per request), a step's picture is drawn once
and kept with the step, and a change to the scenario is seen at once."""

import re

import pytest
from django.core.cache import cache
from django.test import Client

from battlefield import pagecache, stepper
from battlefield.models import Scenario, Step
from rules.memory import approximate_bytes
from tests.documents import scenario

from .test_steps import committed  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def empty_caches():
    cache.clear()
    yield
    cache.clear()


def count_calls(monkeypatch, module, name):
    calls = []
    real = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def svg(response) -> str:
    html = response.content.decode()
    return html[html.index("<svg") : html.index("</svg>")]


def test_the_share_page_draws_the_table_once_per_version(monkeypatch):
    drawn = count_calls(monkeypatch, pagecache, "table_svg_and_legend")
    s = Scenario.objects.create(document=scenario())
    anonymous = Client()
    first = anonymous.get(s.share_url())
    second = anonymous.get(s.share_url())
    assert first.status_code == second.status_code == 200
    assert len(drawn) == 1  # one drawing for the table and its legend, then from the cache
    assert svg(first) == svg(second)  # (the pages differ only in per-request nonces)
    # A change moves the version on: the next page shows the new table at once.
    s.rename("Renamed table")
    third = anonymous.get(s.share_url())
    assert len(drawn) == 2 and "Renamed table" in third.content.decode()


def test_a_step_picture_is_drawn_once_and_kept_with_the_step(committed, monkeypatch):  # noqa: F811
    drawn = count_calls(monkeypatch, stepper, "table_png")
    url = f"/s/{committed.share_token}/steps/0/table.png"
    first, second = Client().get(url), Client().get(url)
    assert first.status_code == second.status_code == 200
    assert first.content == second.content and first.content.startswith(b"\x89PNG")
    assert len(drawn) == 1
    assert bytes(Step.objects.get(scenario=committed, index=0).png) == first.content


def csrf_input(response) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', response.content.decode())[1]


def test_readers_share_one_rendering_of_the_page_each_with_their_own_csrf_token(
    monkeypatch, django_user_model
):
    """The share page's content is rendered once per version for every signed-in reader (and
    once for those signed out, who are sent to log in before copying); the "Copy to edit" form
    in it carries each visitor's own CSRF token, which works for them only."""
    rendered = count_calls(monkeypatch, pagecache, "render_to_string")
    s = Scenario.objects.create(document=scenario(), visibility=Scenario.Visibility.UNLISTED)
    one, two = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    one.force_login(django_user_model.objects.create_user("one"))
    two.force_login(django_user_model.objects.create_user("two"))
    first, second = one.get(s.share_url()), two.get(s.share_url())
    assert first.status_code == second.status_code == 200
    assert len(rendered) == 1
    assert "Copy to edit" in second.content.decode()
    fork = f"/s/{s.share_token}/copy"
    # Someone else's token is refused; one's own goes through (to the copy).
    assert one.post(fork, {"csrfmiddlewaretoken": csrf_input(second)}).status_code == 403
    assert one.post(fork, {"csrfmiddlewaretoken": csrf_input(first)}).status_code == 302
    # A signed-out reader gets the version rendered for readers signed out: a link to log in.
    signed_out = Client().get(s.share_url()).content.decode()
    assert len(rendered) == 2 and "Copy to edit" in signed_out
    assert f'action="{fork}"' not in signed_out


def test_the_owner_never_gets_the_readers_page_nor_readers_the_owners(django_user_model):
    owner = django_user_model.objects.create_user("owner")
    s = Scenario.objects.create(
        document=scenario(), owner=owner, visibility=Scenario.Visibility.UNLISTED
    )
    signed_in = Client()
    signed_in.force_login(owner)
    reader = Client()
    assert "New share link" not in reader.get(s.share_url()).content.decode()
    assert "New share link" in signed_in.get(s.share_url()).content.decode()
    assert "New share link" not in reader.get(s.share_url()).content.decode()


def test_a_change_of_who_may_see_it_shows_at_once(django_user_model):
    owner = django_user_model.objects.create_user("owner")
    s = Scenario.objects.create(
        document=scenario(), owner=owner, visibility=Scenario.Visibility.UNLISTED
    )
    reader = Client()
    assert "Anyone with this link" in reader.get(s.share_url()).content.decode()
    s.visibility = Scenario.Visibility.PUBLIC
    s.save()
    page = reader.get(s.share_url()).content.decode()
    assert "Anyone with this link" in page and 'name="robots"' not in page
    s.visibility = Scenario.Visibility.PRIVATE
    s.save()
    assert reader.get(s.share_url()).status_code == 404


def test_an_htmx_partial_of_the_share_page_is_the_kept_content(monkeypatch):
    rendered = count_calls(monkeypatch, pagecache, "render_to_string")
    s = Scenario.objects.create(document=scenario(), visibility=Scenario.Visibility.UNLISTED)
    whole = Client().get(s.share_url())
    partial = (
        Client()
        .get(s.share_url(), headers={"HX-Request": "true", "HX-Request-Type": "partial"})
        .content.decode()
    )
    assert len(rendered) == 1
    assert partial.strip().startswith("<article") and "<html" not in partial
    assert svg(whole) in partial


def test_an_entry_over_the_byte_bound_is_not_kept(monkeypatch):
    """The cache framework's entries are bounded in bytes (issue 16): a page or drawing over
    PAGE_ENTRY_BYTES is computed for each request instead of kept."""
    monkeypatch.setattr(pagecache, "PAGE_ENTRY_BYTES", 1000)
    drawn = count_calls(monkeypatch, pagecache, "table_svg_and_legend")
    rendered = count_calls(monkeypatch, pagecache, "render_to_string")
    s = Scenario.objects.create(document=scenario())
    for _ in range(2):
        assert Client().get(s.share_url()).status_code == 200
    assert len(drawn) == len(rendered) == 2


def test_situations_are_kept_within_their_byte_bound(monkeypatch):
    """The Situations kept per version are bounded by their approximate size, not only their
    number: with room for about two, a third pushes the oldest out."""
    pagecache.forget_situations()
    first = Scenario.objects.create(document=scenario())
    one = approximate_bytes(first.situation) * pagecache.SITUATION_GROWTH
    monkeypatch.setattr(pagecache, "SITUATION_CACHE_BYTES", int(one * 2.5))
    others = [Scenario.objects.create(document=scenario()) for _ in range(3)]
    for s in [first, *others]:
        pagecache.situation_of(s)
    count, size = pagecache.kept_situations()
    assert count == 2 and size <= pagecache.SITUATION_CACHE_BYTES
    kept = pagecache.situation_of(others[-1])
    assert pagecache.situation_of(others[-1]) is kept  # the newest is still kept
    pagecache.forget_situations()


def test_the_step_log_is_read_once_per_version(committed, client, django_assert_max_num_queries):  # noqa: F811
    """The stepper's log names each step's unit from the step's own document: read once per
    version, not on every page and Check; a new step (a new version) shows at once."""
    url = f"/scenarios/{committed.pk}/move"
    first = client.get(url)
    assert "Step 0" in first.content.decode()
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    assert not [q for q in queries.captured_queries if "battlefield_step" in q["sql"]]
    client.post(f"/scenarios/{committed.pk}/move/undo", {"version": str(committed.version)})
    assert "Undo of step 0" in client.get(url).content.decode()


def test_a_second_check_on_the_same_board_and_declared_move_reuses_the_reach_overlay(
    client, django_user_model, monkeypatch
):
    """The reachable region depends on the board (the version) and the declared move, not on
    where the player put the models: worked out once for both (issue 16: half of a Check)."""
    from shapely.geometry import box

    import rules

    asked = []

    def reach(situation, move):
        asked.append((move.unit, tuple(move.dice or ())))
        return [(box(25, 15, 35, 25), "ground")]

    monkeypatch.setattr(rules, "reach", reach, raising=False)
    owner = django_user_model.objects.create_user("checker")
    client.force_login(owner)
    s = Scenario.objects.create(document=scenario(), owner=owner)
    check = f"/scenarios/{s.pk}/move/check"
    declared = {"unit": "B", "type": "advance", "roll": "hand", "dice": "3"}
    for x in ("30", "31", "29.5"):  # three placements of the same move
        moved = {**declared, "pose-B1-x": x, "pose-B1-y": "25", "pose-B2-x": "33"}
        response = client.post(check, {**moved, "pose-B2-y": "25"})
        assert 'class="overlay reachable reachable-ground"' in response.content.decode()
    assert asked == [("B", (3,))]
    # Other dice are another declared move; a changed board (a new version) another board.
    client.post(check, {**declared, "dice": "5", "pose-B1-x": "30", "pose-B1-y": "25"})
    assert len(asked) == 2
    s.rename("Moved on")
    client.post(check, {**declared, "pose-B1-x": "30", "pose-B1-y": "25"})
    assert len(asked) == 3


def test_a_step_page_draws_its_tables_once(committed, monkeypatch):  # noqa: F811
    """A step never changes: its before and after tables are drawn for the first visitor and
    kept (per version of its scenario), not drawn again for every visitor."""
    drawn = count_calls(monkeypatch, stepper, "table_svg")
    url = f"/s/{committed.share_token}/steps/0/"
    first, second = Client().get(url), Client().get(url)
    assert first.status_code == second.status_code == 200
    assert len(drawn) == 2  # before and after, once
    assert 'id="before"' in second.content.decode() and 'id="after"' in second.content.decode()
    assert "Normal move by Khorne Berzerkers" in second.content.decode()
