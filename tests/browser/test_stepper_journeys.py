"""Browser journeys through the move stepper, step links and lessons (Playwright, Debian's
Chromium). Each asserts what a player sees. Every move type they make is registered and judged
(rules.SYSTEMS): a journey never skips for want of one; it fails.

Browsers come from the shared tests/browser/conftest.py.
"""

from __future__ import annotations

import os
import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from battlefield.models import Scenario

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture
def fresh(new_context):
    """A factory of pages, each in a fresh browser context (own cookies) at the live server."""

    def make():
        page = new_context().new_page()
        page.errors = []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        return page

    return make


def shot(page, request, name: str):
    ARTIFACTS.mkdir(exist_ok=True)
    test = re.sub(r"[^A-Za-z0-9_.-]+", "-", request.node.name)
    page.screenshot(path=str(ARTIFACTS / f"{test}-{name}.png"), full_page=True)


def demo():
    call_command("load_demo", stdout=StringIO())


def sign_in(page) -> None:
    """Copying and saving need an account (issue 7): sign up a fresh player and log in."""
    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    name = f"player{users.count() + 1}"
    users.create_user(name, password="correct horse battery staple")
    page.goto("/accounts/login/?next=/clubs/")  # a page without pictures to draw
    page.get_by_label("Username").fill(name)
    page.get_by_label("Password").fill("correct horse battery staple")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"/clubs/$"))


def own_copy(page, demo_key: str) -> str:
    """Sign in, open the demo scenario's share page and press "Copy to edit": the copy's URL."""
    sign_in(page)
    scenario = Scenario.objects.get(demo_key=demo_key)
    page.goto(scenario.share_url())
    page.get_by_role("button", name="Copy to edit").click()
    page.wait_for_url(re.compile(r"/scenarios/\d+/$"))
    return page.url


def placement_values(page) -> dict[str, float]:
    return {
        name: float(page.locator(f'[name="{name}"]').input_value())
        for name in page.locator("#pose-fields input").evaluate_all("els => els.map(e => e.name)")
    }


def test_a_warmaster_home_back_with_dice_entered_by_hand(fresh, request):
    demo()
    page = fresh()
    own_copy(page, "warmaster-home-back")
    page.get_by_role("link", name="Make a move").click()
    page.get_by_role("link", name="Giant Eagles", exact=True).click()
    page.wait_for_url(re.compile(r"\?unit=eagles$"))
    page.get_by_role("link", name="Home back (flyers)").click()
    page.get_by_label("Enter physical dice:").check()
    page.get_by_label("Dice values, separated by spaces").fill("5")
    page.get_by_role("button", name="Roll and go on").click()
    # the character to home back to is chosen after the roll, on a step of its own
    page.get_by_label("Home back to", exact=True).select_option("elf-general")
    page.get_by_role("button", name="Go to placement").click()
    # 5 on the die: 5 x 10 cm
    page.wait_for_selector("#max-distance")
    assert page.locator("#max-distance").inner_text() == "50 cm"
    assert "dice=5" in page.url and "roll=hand" in page.url  # the step's own URL
    page.get_by_role("button", name="Suggest").click()
    page.locator("#verdict").filter(has_text="Press Check").wait_for()  # no eval under the CSP
    page.get_by_role("button", name="Check").click()
    page.wait_for_selector("#verdict .verdict-body")
    assert page.locator("#verdict").get_attribute("aria-live") == "polite"
    assert "Legal move." in page.locator("#verdict").inner_text()
    shot(page, request, "checked")
    page.reload()  # the URL alone restores the step
    assert page.locator("#max-distance").inner_text() == "50 cm"
    assert not page.errors


def illegal_fixed_committed_shared(
    fresh, request, demo_key: str, query: str, field: str, shift: float
):
    """Place a model by hand so the move is illegal (Enter checks), see the failing finding and
    the outlined model, fix it with Suggest, commit, open the step link in a fresh context."""
    demo()
    page = fresh()
    copy_url = own_copy(page, demo_key)
    pk = re.search(r"/scenarios/(\d+)/", copy_url).group(1)
    page.goto(f"/scenarios/{pk}/move?{query}")
    model = field.split("-")[1]
    box = page.locator(f'[name="{field}"]')
    box.fill(str(float(box.input_value()) + shift))
    box.press("Enter")
    page.wait_for_selector("#verdict .verdict-body")
    assert "Not a legal move." in page.locator("#verdict").inner_text()
    failing = page.locator("#verdict .finding.fail")
    assert failing.count() >= 1
    assert page.locator(f"#table-model-{model}.highlighted").count() == 1
    shot(page, request, "illegal")
    page.get_by_role("button", name="Suggest").click()
    page.locator("#verdict").filter(has_text="Press Check").wait_for()  # no eval under the CSP
    assert page.locator(f"#table-model-{model}.highlighted").count() == 0
    page.get_by_role("button", name="Check").click()
    page.wait_for_selector("#verdict .verdict-body.legal")
    page.get_by_role("button", name="Commit").click()
    page.wait_for_selector("text=Step 0 committed")
    link = page.get_by_role("link", name="Step 0").get_attribute("href")
    assert re.fullmatch(r"/s/[\w-]+/steps/0/", link)
    # a fresh browser context, not the editor: the step link is read-only and shows the verdict
    stranger = fresh()
    stranger.goto(link)
    assert "Verdict: legal" in stranger.locator("main").inner_text()
    assert stranger.locator("#before").count() == 1 and stranger.locator("#after").count() == 1
    # read-only: the only forms are the two tables' rulers, which measure and change nothing
    assert stranger.locator("main form:not([data-measure-only])").count() == 0
    assert stranger.locator("main form[data-measure-only]").count() == 2
    og = stranger.locator('meta[property="og:image"]').get_attribute("content")
    assert og.endswith(link + "table.png")
    shot(stranger, request, "step-link")
    assert not page.errors and not stranger.errors


def test_an_illegal_home_back_is_outlined_fixed_with_suggest_committed_and_shared(fresh, request):
    # EA1 flown 20 cm sideways, off the straight line toward the general
    illegal_fixed_committed_shared(
        fresh,
        request,
        "warmaster-home-back",
        "unit=eagles&type=home-back&home_back_to=elf-general&roll=hand&dice=5",
        "pose-EA1-x",
        -20,
    )


def test_an_illegal_surge_is_outlined_fixed_with_suggest_committed_and_shared(fresh, request):
    # B1 moved 3" away from the Crisis Battlesuits instead of toward them
    illegal_fixed_committed_shared(
        fresh,
        request,
        "surge-berzerkers",
        "unit=B&type=surge&ability=blood-surge&trigger-event=shot&trigger-by=A"
        "&trigger-models_destroyed=2&roll=hand&dice=4&after=done",
        "pose-B1-x",
        -3,
    )


def test_the_surge_lesson_runs_to_the_end(fresh, request):
    demo()
    page = fresh()
    page.goto("/")
    page.get_by_role("link", name=re.compile("Surge basics")).click()
    page.wait_for_url(re.compile(r"/lessons/surge-basics/$"))
    while page.get_by_role("link", name="Next").count():
        # wait for the step the link leads to, not just any step URL (the old link is swapped out)
        target = page.get_by_role("link", name="Next").get_attribute("href")
        page.get_by_role("link", name="Next").click()
        page.wait_for_url(f"**{target}")
        page.wait_for_selector(f'a[rel="next"]:not([href="{target}"]), #narration-h:text("Try it")')
    assert page.locator("#narration-h").inner_text() == "Try it"
    page.get_by_role("button", name="Suggest").click()
    page.locator("#verdict").filter(has_text="Press Check").wait_for()  # no eval under the CSP
    page.get_by_role("button", name="Check").click()
    page.wait_for_selector("#verdict .verdict-body")
    assert "Legal move." in page.locator("#verdict").inner_text()
    shot(page, request, "try-it")
    assert not page.errors


def test_taking_to_the_skies_drops_the_maximum_distance_by_2(fresh, request):
    demo()
    page = fresh()
    copy_url = own_copy(page, "riptide-takes-to-the-skies")
    pk = re.search(r"/scenarios/(\d+)/", copy_url).group(1)
    unit = Scenario.objects.get(pk=pk).document["units"][0]["id"]
    for u in Scenario.objects.get(pk=pk).document["units"]:
        if "FLY" in u.get("keywords", []):
            unit = u["id"]
            break
    base = f"/scenarios/{pk}/move?unit={unit}&type=advance&roll=hand&dice=4"
    page.goto(base)
    ground = float(page.locator("#max-distance").inner_text().split()[0])
    page.goto(base + "&take_to_the_skies=yes")
    skies = float(page.locator("#max-distance").inner_text().split()[0])
    shot(page, request, "skies")
    assert skies == ground - 2
    assert not page.errors
