"""Small things clubs notice (issue 17): caches told which header picks partial or page, an
icon and theme colour, link previews with picture sizes, a print stylesheet, the table as an
SVG file, a licence."""

import re
import tomllib
from io import BytesIO, StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client
from PIL import Image

from battlefield.models import Lesson, Scenario
from tests.documents import scenario

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def meta(html: str, prop: str) -> str:
    return re.search(rf'<meta property="{re.escape(prop)}" content="([^"]*)"', html).group(1)


@pytest.fixture
def shared():
    return Scenario.objects.create(document=scenario(), visibility=Scenario.Visibility.PUBLIC)


def test_pages_that_answer_partials_and_whole_pages_vary_on_htmx_headers(client, shared):
    for url in ("/", shared.share_url(), f"/s/{shared.share_token}/move"):
        vary = client.get(url)["Vary"]
        assert "HX-Request" in vary and "HX-Request-Type" in vary, url
        partial = client.get(url, headers={"HX-Request": "true", "HX-Request-Type": "partial"})
        assert "HX-Request" in partial["Vary"]


def test_every_page_has_an_icon_and_a_theme_colour(client):
    html = client.get("/").content.decode()
    assert '<meta name="theme-color" content="#2b5fab">' in html
    icon = re.search(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">', html).group(1)
    assert (ROOT / "static" / icon.removeprefix("/static/")).read_text().startswith("<svg")
    assert re.search(r'<link rel="stylesheet" href="[^"]*print\.css" media="print">', html)


def test_the_home_page_preview_names_its_picture_and_its_true_size(client):
    html = client.get("/").content.decode()
    image = meta(html, "og:image")
    assert image.startswith("http://testserver/static/") and image.endswith("og-card.png")
    with Image.open(ROOT / "static" / "img" / "og-card.png") as picture:
        assert picture.size == (
            int(meta(html, "og:image:width")),
            int(meta(html, "og:image:height")),
        )
    assert meta(html, "og:title") and meta(html, "og:description")


def test_a_lesson_preview_shows_its_table_at_the_size_the_png_is_drawn(client):
    call_command("load_demo", stdout=StringIO())
    lesson = Lesson.objects.first()
    html = client.get(f"/lessons/{lesson.slug}/").content.decode()
    assert meta(html, "og:title").startswith(lesson.title)
    assert meta(html, "og:url") == f"http://testserver/lessons/{lesson.slug}/"
    image = meta(html, "og:image")
    png = client.get(image.removeprefix("http://testserver"))
    assert png.status_code == 200
    with Image.open(BytesIO(png.content)) as picture:
        assert picture.size == (
            int(meta(html, "og:image:width")),
            int(meta(html, "og:image:height")),
        )


def test_the_table_downloads_as_a_self_contained_svg(client, shared):
    html = client.get(shared.share_url()).content.decode()
    assert (
        f'href="/s/{shared.share_token}/table.svg?v={shared.version}" download>Download SVG' in html
    )
    response = client.get(f"/s/{shared.share_token}/table.svg")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml; charset=utf-8"
    assert response["Content-Disposition"].startswith("attachment;")
    body = response.content.decode()
    assert body.startswith(
        '<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg"'
    )
    assert "<script" not in body and "<style" not in body and "href=" not in body
    private = Scenario.objects.create(document=scenario(), visibility=Scenario.Visibility.PRIVATE)
    assert Client().get(f"/s/{private.share_token}/table.svg").status_code == 404


def test_the_project_has_a_licence():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License")
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"] == "MIT"
