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


#: The turn of the stepper's table: red (the Berzerkers) in the movement phase.
RED_MOVES = {"round": 2, "active_army": "red", "phase": "movement"}


@pytest.fixture
def mine(client, django_user_model):
    """A scenario this signed-in visitor owns (editing needs an account, issue 7), in red's
    movement phase (so the Berzerkers' normal move is on offer)."""
    owner = django_user_model.objects.create_user("owner")
    client.force_login(owner)
    return Scenario.objects.create(document=scenario(turn=RED_MOVES), owner=owner)


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
    assert buttons[0] == "check-button"
    # the engine does not suggest normal moves (the player steers them): no Suggest to press
    assert "suggest-button" not in buttons
    assert 'aria-live="polite"' in html


@pytest.mark.parametrize(
    "query,words",
    [
        ("?unit=Z", "Unit"),
        ("?unit=B&type=fly-away", "Move type"),
        ("?unit=B&type=normal&roll=hand&dice=7", "Dice"),
        ("?unit=B&type=normal&roll=hand&dice=", "Dice"),
        (
            "?unit=B&type=normal&roll=hand&dice=3&pose-B1-x=abc&pose-B1-y=2",
            "B1 of Khorne Berzerkers, x",
        ),
    ],
)
def test_bad_input_in_the_url_answers_422_with_the_error_in_the_forms_words(
    client, mine, query, words, judge_normal_moves_as
):
    judge_normal_moves_as(True)
    response = client.get(url(mine, query), headers=PARTIAL)
    assert response.status_code == 422
    html = response.content.decode()
    # the field as the form shows it, never the developer's field name (issue 13 item 9)
    assert 'role="alert"' in html and f"That did not work ({words}):" in html
    assert "<code>" not in html


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
        ({**MOVED, "pose-B1-x": "east"}, "(B1 of Khorne Berzerkers, x)"),
        ({**MOVED, "dice": "0"}, "(Dice)"),
        ({**MOVED, "roll": ""}, "(Dice)"),
        ({**MOVED, "unit": "nobody"}, "(Unit)"),
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
    assert step.before == scenario(turn=RED_MOVES)


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
    assert mine.document == scenario(turn=RED_MOVES)  # back to the start
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
    # 2.4: only characters are homed back to (the Spearmen are friends but no character), and
    # the choice is made on the roll, shown with it
    assert 'value="spearmen"' not in after and "Home back roll: 5 x 10 = 50 cm" in after
    refused = client.get(url(s), {**rolled, "home_back_to": "spearmen", "after": "done"})
    assert refused.status_code == 422 and "spearmen is not on offer" in refused.content.decode()
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
    assert 'data-step="declare"' in html and "That did not work (Dice):" in html
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
    from battlefield.stepper import step_seed
    from rules.dice import Dice

    seed = step_seed(charging)
    rolled = sum(Dice(None, seed).roll(2))
    html = client.get(url(charging), {**CHARGE, "roll": "server", "seed": seed}).content.decode()
    assert 'data-step="after"' in html
    # Boyz 6.7", Gretchin 9.5" (table above): on offer exactly when the step's roll reaches them
    assert ('value="O"' in html) == (rolled >= 6.7 and rolled != 2)
    assert ('value="G"' in html) == (rolled >= 9.5)


def test_the_server_roll_is_the_steps_own_and_the_url_cannot_change_it(client, charging):
    """Issue 13 item 15: going back and rolling again, or editing the seed in the URL, gives the
    same dice; committing a step (a new version) gives the next step new ones."""
    from battlefield.stepper import step_seed

    first = client.get(url(charging), {**CHARGE, "roll": "server"})
    again = client.get(url(charging), {**CHARGE, "roll": "server"})
    assert first.status_code == 302 and first["Location"] == again["Location"]
    bound = re.search(r"seed=(\d+)", first["Location"]).group(1)
    assert bound == str(step_seed(charging))
    edited = client.get(url(charging), {**CHARGE, "roll": "server", "seed": "12345"})
    assert edited.status_code == 302 and f"seed={bound}" in edited["Location"]
    charging.rename("Charge, later")  # editing the table does not re-roll the step
    assert str(step_seed(charging)) == bound
    Step.append(charging, {"unit": "A", "type": "charge"}, {"legal": True}, before=charge_table())
    charging.rename("Charge, after the step")  # a commit saves the moved table: a new version
    assert str(step_seed(charging)) != bound  # the next step has dice of its own


def test_a_check_posting_another_seed_is_judged_with_the_steps_own_dice(client, mine):
    from battlefield.stepper import step_seed
    from rules.dice import Dice

    (rolled,) = Dice(None, step_seed(mine)).roll(1)
    other = next(s for s in range(100) if Dice(None, s).roll(1) != [rolled])  # another die
    posted = {"unit": "B", "type": "advance", "roll": "server", "seed": str(other)}
    html = client.post(url(mine, "/check"), {**posted, **berzerkers_at(21)}).content.decode()
    # the advance die shown with the verdict is the step's, whatever seed was posted
    shown = re.findall(r'title="rolled on the server">(\d)</span>', html)
    assert shown == [str(rolled)]


def berzerkers_at(y):
    return {"pose-B1-x": "30", "pose-B1-y": str(y), "pose-B2-x": "31.5", "pose-B2-y": str(y)}


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
    assert "(Charge targets)" in html and "G is not on offer after this roll" in html
    # back on the step that asks the targets, with the dice as entered
    assert 'data-step="after"' in html and 'name="dice" value="3 4"' in html
    assert 'name="charge_targets" value="O"' in html


def test_checking_a_charge_at_a_target_not_on_offer_is_refused(client, charging):
    response = client.post(
        url(charging, "/check"),
        {**CHARGE, "dice": "3 4", "charge_targets": "K", "pose-A1-x": "16.6", "pose-A1-y": "20"},
    )
    assert response.status_code == 422
    assert "(Charge targets)" in response.content.decode()


def test_leaving_the_required_targets_blank_asks_them_again(client, charging):
    response = client.get(url(charging), {**CHARGE, "dice": "3 4", "after": "done"})
    assert response.status_code == 422
    html = response.content.decode()
    assert 'data-step="after"' in html and "Charge targets: choose after the roll" in html


def test_a_surge_placement_offers_suggest_and_a_normal_move_does_not(client, mine):
    """Suggest only where the engine suggests (issue 13 item 9): 21.02 surges are placed by the
    engine, normal moves (09.05) are steered by the player."""
    surge = {
        "unit": "B",
        "type": "surge",
        "ability": "blood-surge",
        "trigger-event": "shot",
        "trigger-by": "C",
        "trigger-models_destroyed": "2",
        "roll": "hand",
        "dice": "4",
        "after": "done",
    }
    assert 'id="suggest-button"' in client.get(url(mine), surge).content.decode()
    normal = client.get(url(mine), {"unit": "B", "type": "normal", "roll": "hand", "dice": "3"})
    assert 'id="suggest-button"' not in normal.content.decode()


# -- 2.3 (RULES.md): a flyer is ordered only by a friendly character within 20 cm -----------


def stand(model_id, x, y):
    """A Warmaster 4 x 2 cm stand facing +x (RULES.md 2.1): x - 1 to x + 1, y - 2 to y + 2."""
    return {"id": model_id, "base": {"rect": [40, 20]}, "x": x, "y": y, "facing": 0}


def character(uid, name, x, keywords=("CHARACTER", "GENERAL")):
    """A character on a 20 mm round base (radius 1 cm) at (x, 54), Command 9."""
    return {
        "id": uid,
        "army": "red",
        "name": name,
        "keywords": list(keywords),
        "state": {"command": 9},
        "models": [{"id": f"{uid}1", "base": {"round": 20}, "x": x, "y": 54.0}],
    }


def order_table(general_x: float = 40.0) -> dict:
    """Giant Eagles F: stands at x 50, y 50 / 54 / 58, so the unit spans x 49 to 51. The
    General's base edge is 49 - (general_x + 1) cm from it (40: 8 cm, within 20 cm); the Hero
    at x 80 is 79 - 51 = 28 cm away (beyond 20 cm); the Spearmen are no character at all."""
    return {
        "format": "arbiter.scenario/1",
        "system": "warmaster-revolution",
        "name": "Orders",
        "table": {"width": 180, "height": 120},
        "terrain": [],
        "armies": [{"id": "red", "name": "High Elves"}, {"id": "blue", "name": "Orcs"}],
        "units": [
            {
                "id": "F",
                "army": "red",
                "name": "Giant Eagles",
                "keywords": ["MONSTER", "FLYING"],
                "models": [stand(f"F{i + 1}", 50.0, 50.0 + 4 * i) for i in range(3)],
            },
            character("G", "Elf General", general_x),
            character("H", "Elf Hero", 80.0, ("CHARACTER", "HERO")),
            {
                "id": "S",
                "army": "red",
                "name": "Spearmen",
                "keywords": ["INFANTRY"],
                "models": [stand("S1", 20.0, 90.0)],
            },
            {
                "id": "E",
                "army": "blue",
                "name": "Orc Boyz",
                "keywords": ["INFANTRY"],
                "models": [stand("E1", 150.0, 54.0)],
            },
        ],
        "turn": {"round": 1, "active_army": "red", "phase": "command"},
    }


@pytest.fixture
def ordering(client, django_user_model):
    owner = django_user_model.objects.create_user("orderer")
    client.force_login(owner)
    return Scenario.objects.create(document=order_table(), owner=owner)


ORDER = {"unit": "F", "type": "order-move"}


def test_ordered_by_offers_only_the_characters_within_20_cm_with_their_distance(client, ordering):
    html = client.get(url(ordering), ORDER).content.decode()
    assert 'data-step="declare"' in html
    picker = re.search(r'<select id="f-ordered-by".*?</select>', html, re.S).group(0)
    assert 'value="G"' in picker and "Elf General, 8 cm away" in picker
    assert 'value="H"' not in picker  # the Hero is 28 cm away
    assert 'value="S"' not in picker and 'value="E"' not in picker  # no character; no friend


def test_a_character_out_of_range_is_refused_before_placement_keeping_the_dice(client, ordering):
    response = client.get(
        url(ordering), {**ORDER, "ordered_by": "H", "roll": "hand", "dice": "2 3"}
    )
    assert response.status_code == 422
    html = response.content.decode()
    assert 'data-step="declare"' in html and "(Ordered by)" in html
    assert "H is not on offer" in html
    assert 'value="2 3"' in html and 'value="hand" id="roll-hand" checked' in html
    ok = client.get(url(ordering), {**ORDER, "ordered_by": "G", "roll": "hand", "dice": "2 3"})
    assert ok.status_code == 200 and 'data-step="place"' in ok.content.decode()


def test_with_no_character_in_range_the_declaration_step_says_so(client, django_user_model):
    owner = django_user_model.objects.create_user("alone")
    client.force_login(owner)
    # the General at x 10: its edge (x 11) is 38 cm from the eagles; the Hero 28 cm
    far = Scenario.objects.create(document=order_table(general_x=10.0), owner=owner)
    html = client.get(url(far), ORDER).content.decode()
    assert 'name="ordered_by"' not in html
    assert "No character can order Giant Eagles now" in html and "within 20 cm" in html
    refused = client.get(url(far), {**ORDER, "roll": "hand", "dice": "2 3"})
    assert refused.status_code == 422 and 'data-step="declare"' in refused.content.decode()


@pytest.mark.parametrize("move_type", ["order-charge", "initiative-charge"])
def test_a_warmaster_charge_offers_enemy_units_but_never_an_enemy_character(
    client, django_user_model, move_type
):
    """RULES.md 2.9: characters are not units, and a unit can never charge one (the judge
    refuses it). So the charge step offers the Orc Boyz, and not the Orc Warboss, a lone enemy
    character, nor the enemy General who has joined the Boyz."""
    owner = django_user_model.objects.create_user("charging-flyers")
    client.force_login(owner)
    doc = order_table()
    boss = {**character("W", "Orc Warboss", 120.0), "army": "blue"}
    joined = {**character("J", "Orc General", 148.0), "army": "blue", "state": {"joined": "E"}}
    joined["models"] = [{**joined["models"][0], "x": 148.0, "y": 54.0}]
    doc["units"] += [boss, joined]
    scenario_ = Scenario.objects.create(document=doc, owner=owner)
    html = client.get(url(scenario_), {"unit": "F", "type": move_type}).content.decode()
    assert 'data-step="declare"' in html
    assert 'name="charge_targets" value="E"' in html
    assert 'value="W"' not in html and 'value="J"' not in html
    named = {"unit": "F", "type": move_type, "ordered_by": "G", "charge_targets": "W"}
    refused = client.get(url(scenario_), {**named, "roll": "hand", "dice": "2 3"})
    assert refused.status_code == 422 and "W is not on offer" in refused.content.decode()


def test_a_warmaster_pursuit_offers_enemy_units_but_never_an_enemy_character(
    client, django_user_model
):
    """RULES.md 2.9: characters are not units, and a unit never targets one; a pursuit goes
    after a retreating enemy unit (the judge refuses one at a character). So the pursuit step
    offers the Orc Boyz, and not the Orc Warboss, a lone enemy character, nor the enemy
    General who has joined the Boyz (as the charge step does)."""
    owner = django_user_model.objects.create_user("pursuing-flyers")
    client.force_login(owner)
    doc = order_table()
    doc["turn"]["phase"] = "combat"
    doc["units"][0]["state"] = {"in_combat": True}
    boss = {**character("W", "Orc Warboss", 120.0), "army": "blue"}
    joined = {**character("J", "Orc General", 148.0), "army": "blue", "state": {"joined": "E"}}
    joined["models"] = [{**joined["models"][0], "x": 148.0, "y": 54.0}]
    doc["units"] += [boss, joined]
    scenario_ = Scenario.objects.create(document=doc, owner=owner)
    html = client.get(url(scenario_), {"unit": "F", "type": "pursuit"}).content.decode()
    assert 'data-step="declare"' in html
    assert 'name="charge_targets" value="E"' in html
    assert 'value="W"' not in html and 'value="J"' not in html
    named = {"unit": "F", "type": "pursuit", "charge_targets": "W", "roll": "server"}
    refused = client.get(url(scenario_), named, follow=True)  # to the step's own seed
    assert refused.status_code == 422 and "W is not on offer" in refused.content.decode()


# -- turn and phase as a referee keeps them (issue 13 item 15) ---------------------------------


def test_only_the_moves_of_the_tables_phase_are_offered_with_a_scratch_try_of_any(client, charging):
    """The charge table is in red's charge phase: a charge (11) is offered, a normal move (09,
    movement phase) is not, unless the player asks for a scratch try, which has no Commit."""
    html = client.get(url(charging), {"unit": "A"}).content.decode()
    assert f'href="{url(charging)}?unit=A&amp;type=charge"' in html
    assert f'href="{url(charging)}?unit=A&amp;type=normal"' not in html
    assert "Normal move is made in the movement phase, and the table is in the charge phase" in html
    scratch = f"{url(charging)}?scratch=1&amp;unit=A"
    assert f'href="{scratch}"' in html and "Try any move" in html
    tried = client.get(url(charging), {"scratch": "1", "unit": "A"}).content.decode()
    assert f'href="{scratch}&amp;type=normal"' in tried and "A scratch try" in tried
    placing = client.get(
        url(charging),
        {"scratch": "1", "unit": "A", "type": "normal", "roll": "server"},
        follow=True,
    ).content.decode()
    assert 'data-step="place"' in placing and 'id="commit-button"' not in placing
    assert 'name="scratch" value="1"' in placing
    refused = client.post(
        url(charging, "/commit"),
        {
            "scratch": "1",
            "unit": "A",
            "type": "normal",
            "roll": "server",
            "pose-A1-x": "11",
            "pose-A1-y": "20",
            "version": str(charging.version),
        },
    )
    assert refused.status_code == 422 and not charging.steps.exists()


def test_next_phase_and_next_turn_move_the_table_on_and_clear_the_phase_flags(client, mine):
    """tests/documents.py: round 2, Tau Empire (blue) in the shooting phase; armies red, blue.
    40K phases: command, movement, shooting, charge, fight."""
    doc = scenario()
    doc["units"][0]["state"] = {"moved_this_phase": True, "advanced_this_turn": True}
    mine.document = doc
    mine.save()
    page = client.get(mine.get_absolute_url()).content.decode()
    assert "Round 2" in page and "Tau Empire</strong> to play" in page
    assert "Shooting phase" in page and 'value="phase"' in page

    def advance(what):
        mine.refresh_from_db()
        client.post(f"/scenarios/{mine.pk}/turn", {"onto": what, "version": mine.version})
        mine.refresh_from_db()
        return mine.document["turn"], mine.document["units"][0].get("state", {})

    turn, state = advance("phase")
    assert turn == {"round": 2, "active_army": "blue", "phase": "charge"}
    assert "moved_this_phase" not in state and state["advanced_this_turn"] is True
    turn, _ = advance("phase")
    assert turn["phase"] == "fight"
    # after the last phase, the next army's turn; blue was the last army, so round 3
    turn, state = advance("phase")
    assert turn == {"round": 3, "active_army": "red", "phase": "command"}
    assert "advanced_this_turn" not in state
    turn, _ = advance("turn")
    assert turn == {"round": 3, "active_army": "blue", "phase": "command"}


def test_the_phase_bar_refuses_a_stale_page_and_a_visitor(client, mine, django_user_model):
    stale = client.post(f"/scenarios/{mine.pk}/turn", {"onto": "phase", "version": "0"})
    assert stale.status_code == 409
    client.force_login(django_user_model.objects.create_user("stranger"))
    other = client.post(f"/scenarios/{mine.pk}/turn", {"onto": "phase", "version": "1"})
    assert other.status_code == 404
    mine.refresh_from_db()
    assert mine.document["turn"]["phase"] == "movement"


# -- casualties (issue 13 item 4): removed from the move page, and restored ------------------


def test_a_casualty_is_removed_and_restored_from_the_placement_step(client, mine):
    place = url(mine) + "?unit=B&type=surge&ability=blood-surge&roll=hand&dice=4&after=done"
    html = client.get(place).content.decode()
    assert f'action="{url(mine, "/casualty")}"' in html and 'name="remove"' in html
    removed = client.post(
        url(mine, "/casualty"), {"remove": "B2", "version": mine.version, "back": place}
    )
    assert removed.status_code == 302 and removed["Location"] == place
    mine.refresh_from_db()
    assert [m["id"] for m in mine.document["units"][0]["models"]] == ["B1"]
    back = client.get(place).content.decode()
    assert "Casualty: B2 of Khorne Berzerkers removed." in back
    assert 'name="restore" value="B2"' in back
    # B1 is the last model: a wiped-out unit is deleted in the editor, not here
    last = client.post(url(mine, "/casualty"), {"remove": "B1", "version": mine.version})
    assert last.status_code == 302
    mine.refresh_from_db()
    assert len(mine.document["units"][0]["models"]) == 1
    assert "B1 is the last model of Khorne Berzerkers" in client.get(place).content.decode()
    client.post(url(mine, "/casualty"), {"restore": "B2", "version": mine.version})
    mine.refresh_from_db()
    assert mine.document == scenario(turn=RED_MOVES)  # B2 back where it stood
    assert 'name="restore"' not in client.get(place).content.decode()


def test_casualties_are_for_editors_on_the_version_they_saw(client, mine, django_user_model):
    stale = client.post(url(mine, "/casualty"), {"remove": "B2", "version": "0"})
    assert stale.status_code == 409
    client.force_login(django_user_model.objects.create_user("stranger"))
    assert client.post(url(mine, "/casualty"), {"remove": "B2", "version": "1"}).status_code == 404
    mine.refresh_from_db()
    assert len(mine.document["units"][0]["models"]) == 2
