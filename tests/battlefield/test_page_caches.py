"""Pages served from what was already computed for the scenario's version (issue 16): the share
page draws the table once per version (not twice per request), a step's picture is drawn once
and kept with the step, and a change to the scenario is seen at once."""

import pytest
from django.core.cache import cache
from django.test import Client

from battlefield import pagecache, stepper
from battlefield.models import Scenario, Step
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
