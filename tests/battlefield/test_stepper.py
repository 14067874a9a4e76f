"""The move stepper: every step is a page (full, or the htmx partial), bad input answers 422
with the error partial, and commit / undo keep the whole log. Plumbing tests judge 40K normal
moves with a fixed answer (`judge_normal_moves_as`), so they hold whichever engines are on main."""

import re

import pytest

from battlefield.models import Scenario, Step
from battlefield.stepper import in_force, parse_dice
from rules import InvalidInput
from tests.documents import scenario
from tests.registry import judge_move_type

pytestmark = pytest.mark.django_db
PARTIAL = {"HX-Request": "true", "HX-Request-Type": "partial"}
FULL = {"HX-Request": "true", "HX-Request-Type": "full"}
PLACE = {"unit": "B", "type": "normal", "roll": "hand", "dice": "3"}
MOVED = {**PLACE, "pose-B1-x": "30", "pose-B1-y": "25", "pose-B2-x": "31.5", "pose-B2-y": "25"}


@pytest.fixture
def mine(client, django_user_model):
    """A scenario this signed-in visitor owns (editing needs an account, issue 7)."""
    owner = django_user_model.objects.create_user("owner")
    client.force_login(owner)
    return Scenario.objects.create(document=scenario(), owner=owner)


def url(s, tail=""):
    return f"/scenarios/{s.pk}/move{tail}"


def test_the_stepper_of_a_scenario_one_may_not_see_is_not_found(client):
    other = Scenario.objects.create(document=scenario())
    assert client.get(url(other)).status_code == 404
    assert client.post(url(other, "/check"), MOVED).status_code == 404
    assert client.post(url(other, "/commit"), {**MOVED, "version": "1"}).status_code == 404


def test_the_scenario_page_links_to_the_stepper_for_its_editor(client, mine):
    html = client.get(mine.get_absolute_url()).content.decode()
    assert f'href="{url(mine)}"' in html and "Make a move" in html


@pytest.mark.parametrize(
    "query,step",
    [
        ("", "unit"),
        ("?unit=B", "type"),
        ("?unit=B&type=normal", "declare"),
        ("?unit=B&type=normal&roll=hand&dice=3", "place"),
    ],
)
def test_each_step_is_a_full_page_of_its_own_url_and_an_htmx_partial(
    client, mine, query, step, judge_normal_moves_as
):
    judge_normal_moves_as(True)
    full = client.get(url(mine, query))
    assert full.status_code == 200
    html = full.content.decode()
    assert "<html" in html and f'data-step="{step}"' in html
    partial = client.get(url(mine, query), headers=PARTIAL).content.decode()
    assert "<html" not in partial and f'data-step="{step}"' in partial
    assert partial.lstrip().startswith('<div id="stepper"')


def test_a_history_restore_gets_the_whole_page(client, mine):
    html = client.get(url(mine, "?unit=B"), headers=FULL).content.decode()
    assert "<html" in html and 'data-step="type"' in html


def test_the_unit_step_lists_every_unit_with_a_link_that_keeps_the_state(client, mine):
    html = client.get(url(mine)).content.decode()
    assert f'hx-get="{url(mine)}?unit=B"' in html and f'href="{url(mine)}?unit=C"' in html
    assert 'hx-push-url="true"' in html


def test_move_types_not_covered_by_the_engine_say_so_and_offer_no_link(
    client, mine, judge_normal_moves_as, monkeypatch
):
    judge_normal_moves_as(True)
    judge_move_type(monkeypatch, "wh40k-11e", "charge", adjudicate=None)
    html = client.get(url(mine, "?unit=B")).content.decode()
    # normal is judged (by the fixture): a link to its declarations
    assert f'href="{url(mine)}?unit=B&amp;type=normal"' in html
    row = re.search(r'data-type="charge">(.*?)</li>', html, re.S).group(1)
    assert "not covered yet" in row and "href" not in row


def test_a_type_the_unit_may_not_make_lists_the_failed_eligible_if_findings(
    client, mine, monkeypatch
):
    from rules import Verdict
    from rules.verdict import Finding

    def refuse(situation, unit_id, declarations):
        return [
            Finding(
                rule="09.01",
                stage="eligible-if",
                passed=False,
                subject=unit_id,
                text="B has already moved.",
            )
        ]

    judge_move_type(
        monkeypatch,
        "wh40k-11e",
        "normal",
        adjudicate=lambda s, m: Verdict(move={}),
        suggest=None,
        eligibility=refuse,
    )
    html = client.get(url(mine, "?unit=B")).content.decode()
    row = re.search(r'data-type="normal">(.*?)</li>\s*</ul>', html, re.S).group(1)
    assert "not now" in row and "09.01" in row and "B has already moved." in row


def test_the_declaration_step_asks_only_what_the_move_type_uses(client, mine):
    surge = client.get(url(mine, "?unit=B&type=surge")).content.decode()
    assert 'name="trigger-event"' in surge and 'name="ability"' in surge
    assert 'name="take_to_the_skies"' not in surge and 'name="charge_targets"' not in surge
    charge = client.get(url(mine, "?unit=B&type=charge")).content.decode()
    assert 'name="take_to_the_skies"' in charge and 'name="trigger-event"' not in charge
    # 11.02: the charge targets are picked after the roll (asked on the next step)
    assert 'name="charge_targets"' not in charge
    # take to the skies is asked before the dice (21.03: declared before the roll)
    assert charge.index('name="take_to_the_skies"') < charge.index('name="roll"')


def test_every_declaration_kind_has_a_template_block_that_asks_it():
    from django.template.loader import get_template

    from battlefield.stepper import DECLARE, KIND_BLOCKS
    from rules.systems import DECLARATION_KINDS

    assert set(KIND_BLOCKS) == set(DECLARATION_KINDS)
    for block in set(KIND_BLOCKS.values()):
        get_template(f"{DECLARE}#{block}")


def test_rolling_on_the_server_fixes_the_seed_in_the_url(client, mine):
    response = client.get(url(mine, "?unit=B&type=surge&roll=server"))
    assert response.status_code == 302
    assert re.search(r"[?&]seed=\d+", response["Location"])
    assert "roll=server" in response["Location"]


def test_a_reloaded_placement_url_shows_the_same_placement(client, mine, judge_normal_moves_as):
    judge_normal_moves_as(True)
    query = "?unit=B&type=normal&roll=hand&dice=3&pose-B1-x=33.25&pose-B1-y=21"
    html = client.get(url(mine, query)).content.decode()
    assert 'name="pose-B1-x" id="pose-B1-x" value="33.25"' in html
    assert 'name="pose-B1-y" id="pose-B1-y" value="21"' in html
    # the model left out keeps its start position
    assert 'name="pose-B2-x" id="pose-B2-x" value="31.5"' in html


def test_the_placement_form_carries_the_names_the_table_script_writes(
    client, mine, judge_normal_moves_as
):
    judge_normal_moves_as(True)
    html = client.get(
        url(mine, "?" + "&".join(f"{k}={v}" for k, v in PLACE.items()))
    ).content.decode()
    form = re.search(r"<form id=\"placement\"(.*?)</form>", html, re.S).group(0)
    assert "data-placement" in form
    for model in ("B1", "B2"):
        for key in ("x", "y", "facing"):
            assert f'name="pose-{model}-{key}"' in form
    # Enter submits the form's first button: Check
    buttons = re.findall(r'<button type="submit"[^>]*id="([a-z-]+)"', form)
    assert buttons[0] == "check-button" and "suggest-button" in buttons
    assert 'aria-live="polite"' in html


@pytest.mark.parametrize(
    "query,field",
    [
        ("?unit=Z", "unit"),
        ("?unit=B&type=fly-away", "type"),
        ("?unit=B&type=normal&roll=hand&dice=7", "dice"),
        ("?unit=B&type=normal&roll=hand&dice=", "dice"),
        ("?unit=B&type=normal&roll=hand&dice=3&pose-B1-x=abc&pose-B1-y=2", "pose-B1-x"),
    ],
)
def test_bad_input_in_the_url_answers_422_with_the_error(
    client, mine, query, field, judge_normal_moves_as
):
    judge_normal_moves_as(True)
    response = client.get(url(mine, query), headers=PARTIAL)
    assert response.status_code == 422
    html = response.content.decode()
    assert 'role="alert"' in html and f"<code>{field}</code>" in html


def test_check_answers_the_verdict_partial_and_the_table_out_of_band(
    client, mine, judge_normal_moves_as
):
    judge_normal_moves_as(False)
    response = client.post(url(mine, "/check"), MOVED, headers=PARTIAL)
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html
    assert "Not a legal move." in html and 'class="finding fail"' in html and "09.05" in html
    board = r'<figure id="board" class="board stepper-board"[^>]* hx-swap-oob="true">'
    assert re.search(board, html)
    assert html.count("<svg") == 1
    # the summary beside the placement buttons follows, out of band too
    assert '<p id="verdict-bar" class="verdict-bar illegal" hx-swap-oob="true">' in html
    # B failed: its models are outlined on the table, C's are not
    assert 'id="table-model-B1" class="model highlighted"' in html
    assert 'id="table-model-C1" class="model"' in html


def test_check_without_htmx_answers_the_whole_page_with_the_verdict(
    client, mine, judge_normal_moves_as
):
    judge_normal_moves_as(True)
    html = client.post(url(mine, "/check"), MOVED).content.decode()
    assert "<html" in html and "Legal move." in html


@pytest.mark.parametrize(
    "data,field",
    [
        ({**MOVED, "pose-B1-x": "east"}, "pose-B1-x"),
        ({**MOVED, "dice": "0"}, "dice"),
        ({**MOVED, "roll": ""}, "roll"),
        ({**MOVED, "unit": "nobody"}, "unit"),
    ],
)
def test_check_with_bad_input_answers_422_and_the_error_partial_into_the_verdict(
    client, mine, data, field, judge_normal_moves_as
):
    judge_normal_moves_as(True)
    response = client.post(url(mine, "/check"), data, headers=PARTIAL)
    assert response.status_code == 422
    assert response["HX-Retarget"] == "#verdict"
    html = response.content.decode()
    assert 'role="alert"' in html and field in html and "<svg" not in html


def test_suggest_for_a_type_the_engine_does_not_cover_is_refused_with_a_message(
    client, mine, monkeypatch
):
    judge_move_type(monkeypatch, "wh40k-11e", "advance", adjudicate=None)
    data = {**MOVED, "type": "advance"}
    response = client.post(url(mine, "/suggest"), data, headers=PARTIAL)
    assert response.status_code == 422
    assert "does not cover" in response.content.decode()


def test_suggest_fills_the_pose_fields_from_the_engine(client, mine, monkeypatch):
    from rules import Pose, Verdict

    def place(situation, move):
        return move.with_end({"B1": Pose(35.0, 27.5), "B2": Pose(36.5, 27.5)})

    judge_move_type(
        monkeypatch,
        "wh40k-11e",
        "normal",
        adjudicate=lambda s, m: Verdict(move={}),
        suggest=place,
    )
    html = client.post(url(mine, "/suggest"), PLACE, headers=PARTIAL).content.decode()
    assert html.lstrip().startswith('<fieldset id="pose-fields"')
    assert 'name="pose-B1-x" id="pose-B1-x" value="35"' in html
    assert 'name="pose-B2-y" id="pose-B2-y" value="27.5"' in html
    assert 'hx-swap-oob="true"' in html


def test_commit_appends_a_step_and_moves_the_models(client, mine, judge_normal_moves_as):
    judge_normal_moves_as(True)
    response = client.post(url(mine, "/commit"), {**MOVED, "version": "1"}, headers=PARTIAL)
    assert response.status_code == 200 and response["HX-Redirect"] == url(mine)
    mine.refresh_from_db()
    assert mine.version == 2
    assert mine.document["units"][0]["models"][0]["y"] == 25
    step = mine.steps.get()
    assert step.index == 0 and step.move["end"]["B1"] == {"x": 30.0, "y": 25.0}
    assert step.verdict["legal"] is True
    assert step.before == scenario()


def test_commit_refuses_an_illegal_move_and_stores_nothing(client, mine, judge_normal_moves_as):
    judge_normal_moves_as(False)
    response = client.post(url(mine, "/commit"), {**MOVED, "version": "1"}, headers=PARTIAL)
    assert response.status_code == 422
    assert "Only a legal move can be committed" in response.content.decode()
    mine.refresh_from_db()
    assert mine.version == 1 and not mine.steps.exists()


def test_commit_on_a_stale_version_answers_409_with_a_reload_message(
    client, mine, judge_normal_moves_as
):
    judge_normal_moves_as(True)
    mine.rename("Renamed in another tab")  # version 2
    response = client.post(url(mine, "/commit"), {**MOVED, "version": "1"}, headers=PARTIAL)
    assert response.status_code == 409
    assert "Reload the page" in response.content.decode()
    mine.refresh_from_db()
    assert not mine.steps.exists()


def test_undo_appends_a_step_that_restores_the_document_and_keeps_the_log(
    client, mine, judge_normal_moves_as
):
    judge_normal_moves_as(True)
    client.post(url(mine, "/commit"), {**MOVED, "version": "1"})
    second = {**MOVED, "pose-B1-y": "27", "pose-B2-y": "27", "version": "2"}
    client.post(url(mine, "/commit"), second)
    mine.refresh_from_db()
    assert mine.document["units"][0]["models"][0]["y"] == 27
    client.post(url(mine, "/undo"), {"version": str(mine.version)})
    mine.refresh_from_db()
    assert mine.document["units"][0]["models"][0]["y"] == 25  # back to after step 0
    client.post(url(mine, "/undo"), {"version": str(mine.version)})
    mine.refresh_from_db()
    assert mine.document == scenario()  # back to the start
    steps = list(mine.steps.all())
    assert [s.index for s in steps] == [0, 1, 2, 3]
    assert [s.undoes for s in steps] == [None, None, 1, 0]
    assert in_force(steps) == []
    html = client.get(url(mine)).content.decode()
    assert html.count("(undone)") == 2 and "Undo the last step" not in html


def test_undo_with_nothing_to_undo_changes_nothing(client, mine):
    response = client.post(url(mine, "/undo"), {"version": "1"})
    assert response.status_code == 302
    mine.refresh_from_db()
    assert mine.version == 1 and not mine.steps.exists()


def test_steps_stay_append_only():
    s = Scenario.objects.create(document=scenario())
    step = Step.append(s, {"unit": "B"}, {"legal": True}, before=scenario())
    step.move = {}
    with pytest.raises(ValueError):
        step.save()


def test_dice_entered_by_hand_accept_spaces_or_commas():
    assert parse_dice("3 5") == (3, 5)
    assert parse_dice("3,5") == (3, 5)
    for bad in ("", "0", "7", "three", "3.5"):
        with pytest.raises(InvalidInput):
            parse_dice(bad)


# -- with the real engine ---------------------------------------------------------------------


def test_a_warmaster_home_back_with_dice_entered_by_hand_runs_through_every_step(
    client, django_user_model
):
    from io import StringIO

    from django.core.management import call_command

    call_command("load_demo", stdout=StringIO())
    demo = Scenario.objects.get(demo_key="warmaster-home-back")
    owner = django_user_model.objects.create_user("owner")  # editing needs an account (issue 7)
    client.force_login(owner)
    s = demo.fork(owner=owner)
    types = client.get(url(s, "?unit=eagles")).content.decode()
    assert f'href="/scenarios/{s.pk}/move?unit=eagles&amp;type=home-back"' in types
    declare = client.get(url(s, "?unit=eagles&type=home-back")).content.decode()
    # the character to home back to is chosen after the roll
    assert 'name="home_back_to"' not in declare and 'name="roll"' in declare
    rolled = {"unit": "eagles", "type": "home-back", "roll": "hand", "dice": "5"}
    after = client.get(url(s), rolled).content.decode()
    assert 'data-step="after"' in after
    assert 'name="home_back_to"' in after and 'value="elf-general"' in after
    state = {**rolled, "home_back_to": "elf-general", "after": "done"}
    place = client.get(url(s), state).content.decode()
    # a 5 on the home back die: 5 x 10 cm = 50 cm
    assert re.search(r'id="max-distance">50 cm', place)
    assert 'title="entered by hand">5</span>' in place
    suggested = client.post(url(s, "/suggest"), state, headers=PARTIAL).content.decode()
    poses = dict(re.findall(r'name="(pose-[^"]+)" id="[^"]+" value="([^"]+)"', suggested))
    assert set(poses) >= {"pose-EA1-x", "pose-EA1-y", "pose-EA2-x", "pose-EA2-y"}
    checked = client.post(url(s, "/check"), {**state, **poses}, headers=PARTIAL).content.decode()
    assert "Legal move." in checked and 'class="finding fail"' not in checked
    client.post(url(s, "/commit"), {**state, **poses, "version": str(s.version)})
    step = s.steps.get()
    assert step.dice["dice"] == [{"value": 5, "source": "user"}]
    assert step.verdict["legal"] is True


def test_a_placement_off_the_table_is_still_drawn_and_judged(client, mine, judge_normal_moves_as):
    judge_normal_moves_as(False)
    response = client.post(url(mine, "/check"), {**MOVED, "pose-B1-x": "75"}, headers=PARTIAL)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="table-model-B1" class="model highlighted"' in html
    assert 'transform="translate(75 25)' in html


def test_a_committed_move_is_shown_from_the_new_version(client, mine, judge_normal_moves_as):
    judge_normal_moves_as(True)
    client.post(url(mine, "/commit"), {**MOVED, "version": "1"})
    html = client.get(
        url(mine, "?" + "&".join(f"{k}={v}" for k, v in PLACE.items()))
    ).content.decode()
    assert 'id="pose-B1-y" value="25"' in html  # the start is now where step 0 left B1


def test_the_reachable_region_is_drawn_only_when_the_engine_gives_one(
    client, mine, monkeypatch, judge_normal_moves_as
):
    from shapely.geometry import box

    import rules

    judge_normal_moves_as(True)
    query = url(mine, "?" + "&".join(f"{k}={v}" for k, v in PLACE.items()))
    assert 'class="overlay ' not in client.get(query).content.decode()
    monkeypatch.setattr(
        rules,
        "reach",
        lambda situation, move: [(box(25, 15, 35, 25), "ground"), (box(24, 14, 36, 26), "skies")],
        raising=False,
    )
    html = client.get(query).content.decode()
    assert 'class="overlay reachable reachable-ground"' in html
    assert 'class="overlay reachable reachable-skies"' in html


def test_after_an_input_error_the_declaration_form_keeps_what_was_entered(client, mine):
    response = client.get(
        url(mine),
        {
            "unit": "B",
            "type": "charge",
            "charge_targets": "C",
            "take_to_the_skies": "yes",
            "roll": "hand",
            "dice": "9",
        },
    )
    assert response.status_code == 422
    html = response.content.decode()
    assert 'data-step="declare"' in html and "<code>dice</code>" in html
    assert 'name="take_to_the_skies" value="yes" checked' in html
    assert 'value="9"' in html and 'value="hand" id="roll-hand" checked' in html


# -- 11.02 (RULES.md 1.4): the charge targets are asked after the roll, among those within it --


#: Built by hand: 32 mm bases (radius 0.63"), all on y 20. A's base edge to each enemy's edge:
#: Boyz 6.7" (centres 7.96" apart), Gretchin 9.5" (10.76"), Killa Kans 14" (15.26", beyond 12").
def charge_table() -> dict:
    def unit(uid, army, name, x):
        return {
            "id": uid,
            "army": army,
            "name": name,
            "keywords": ["INFANTRY"],
            "move": 6,
            "models": [{"id": f"{uid}1", "base": {"round": 32}, "x": x, "y": 20.0}],
        }

    return scenario(
        terrain=[],
        armies=[{"id": "red", "name": "World Eaters"}, {"id": "green", "name": "Orks"}],
        units=[
            unit("A", "red", "Berzerkers", 10.0),
            unit("O", "green", "Boyz", 17.96),
            unit("G", "green", "Gretchin", 20.76),
            unit("K", "green", "Killa Kans", 25.26),
        ],
        turn={"round": 2, "active_army": "red", "phase": "charge"},
    )


@pytest.fixture
def charging(client, django_user_model):
    owner = django_user_model.objects.create_user("charger")
    client.force_login(owner)
    return Scenario.objects.create(document=charge_table(), owner=owner)


CHARGE = {"unit": "A", "type": "charge", "roll": "hand"}


def test_the_charge_asks_for_the_dice_first_and_not_for_the_targets(client, charging):
    html = client.get(url(charging), {"unit": "A", "type": "charge"}).content.decode()
    assert 'data-step="declare"' in html and 'name="roll"' in html
    assert 'name="charge_targets"' not in html


def test_after_the_roll_only_the_enemy_units_within_it_are_offered_with_their_distance(
    client, charging
):
    response = client.get(url(charging), {**CHARGE, "dice": "3 4"})
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-step="after"' in html
    assert "3 + 4 = 7" in html
    # Boyz 6.7" are within the 7" roll; Gretchin 9.5" are not; Killa Kans 14" beyond 12"
    assert 'name="charge_targets" value="O"' in html and "Boyz (O), 6.7&quot;" in html
    assert 'value="G"' not in html and 'value="K"' not in html
    # the dice are kept in the form that asks the targets
    assert 'name="dice" value="3 4"' in html and 'name="after" value="done"' in html
    ten = client.get(url(charging), {**CHARGE, "dice": "5 5"}).content.decode()
    assert (
        "Boyz (O), 6.7&quot;" in ten and "Gretchin (G), 9.5&quot;" in ten and 'value="K"' not in ten
    )


def test_the_server_roll_offers_the_targets_within_the_dice_the_judge_rolls(client, charging):
    from rules.dice import Dice

    seed = next(s for s in range(100) if sum(Dice(None, s).roll(2)) >= 10)
    html = client.get(url(charging), {**CHARGE, "roll": "server", "seed": seed}).content.decode()
    assert 'data-step="after"' in html and 'value="O"' in html and 'value="G"' in html


def test_no_target_within_the_roll_says_the_charge_fails(client, charging):
    html = client.get(url(charging), {**CHARGE, "dice": "1 2"}).content.decode()
    assert 'data-step="after"' in html and 'name="charge_targets"' not in html
    assert "the charge fails (no targets within the roll)" in html


def test_an_unmodified_2_always_fails(client, charging):
    html = client.get(url(charging), {**CHARGE, "dice": "1 1"}).content.decode()
    assert 'name="charge_targets"' not in html and "a roll of 2 always fails" in html


def test_a_target_on_offer_goes_on_to_placement(client, charging):
    response = client.get(
        url(charging), {**CHARGE, "dice": "3 4", "charge_targets": "O", "after": "done"}
    )
    assert response.status_code == 200
    assert 'data-step="place"' in response.content.decode()


def test_a_target_not_on_offer_is_refused_naming_the_declaration_keeping_the_rest(client, charging):
    response = client.get(
        url(charging),
        {**CHARGE, "dice": "3 4", "charge_targets": "G", "after": "done"},
    )
    assert response.status_code == 422
    html = response.content.decode()
    assert "<code>charge_targets</code>" in html and "G is not on offer after this roll" in html
    # back on the step that asks the targets, with the dice as entered
    assert 'data-step="after"' in html and 'name="dice" value="3 4"' in html
    assert 'name="charge_targets" value="O"' in html


def test_checking_a_charge_at_a_target_not_on_offer_is_refused(client, charging):
    response = client.post(
        url(charging, "/check"),
        {**CHARGE, "dice": "3 4", "charge_targets": "K", "pose-A1-x": "16.6", "pose-A1-y": "20"},
    )
    assert response.status_code == 422
    assert "charge_targets" in response.content.decode()


def test_leaving_the_required_targets_blank_asks_them_again(client, charging):
    response = client.get(url(charging), {**CHARGE, "dice": "3 4", "after": "done"})
    assert response.status_code == 422
    html = response.content.decode()
    assert 'data-step="after"' in html and "Charge targets: choose after the roll" in html
