"""Pages for setting up a real game quickly (issue 14): a scenario from a published layout, the
11th-edition unit catalogue and roster import in the editor, surge abilities and corrections for
any unit, the Warmaster flyer catalogue, and the About page with the data's attribution.

The data work is done by battlefield/dataset.py (units, layouts) and battlefield/rosters.py
(reading and placing lists); every change to a scenario goes through the editor's one edit path
(`editor._edit`: version check, validation, undo history). Roster preview stores nothing.
"""

from __future__ import annotations

import re

from django.shortcuts import render
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from rules import InvalidInput
from rules.situation import LIMITS

from . import dataset
from .catalogues import DISTANCE, SURGE_LIMITS, SURGE_TRIGGERS, warmaster_flyers
from .editor import _edit, add_unit, base_from, number, tidy
from .models import Scenario, UnitProfile
from .permissions import editable_scenario, remember
from .ratelimit import rate_limit
from .rosters import ROSTER_BYTES, place_units, read_roster
from .validation import validate_scenario
from .views import account_needed, go, owner_of

TEMPLATE = "battlefield/armylists.html"

# -- a scenario from a layout -----------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@rate_limit("import")
def layout_new(request):
    """Pick a mission matchup's layout and name the two armies: the 60 x 44 table with its
    terrain, deployment zones and objective markers, opened in the editor. Each army's list may
    be pasted here too: the page then shows what both lists resolve to (nothing stored) and
    "Create scenario" makes the table with both armies set up in their zones."""
    if refused := account_needed(request):
        return refused
    layouts = dataset.layouts()
    data = request.POST
    context = {
        "matchups": layouts.matchups,
        "attribution": dataset.ATTRIBUTION,
        "chosen": str(data.get("layout", "")),
        "armies": [],
        "status": 200,
    }
    if request.method == "GET":
        return render(request, "battlefield/layout_new.html", context)
    layout_id = context["chosen"]
    names = (
        str(data.get("attacker", "")).strip() or "Attacker",
        str(data.get("defender", "")).strip() or "Defender",
    )
    if layout_id not in layouts.by_id:
        context["error"] = "choose one of the layouts"
        return render(request, "battlefield/layout_new.html", context, status=422)
    document = layouts.document(layout_id, names)
    lists = []
    for army, name in zip(dataset.PLAYERS, names, strict=True):
        text = str(data.get(f"{army}_list", ""))
        entry = {"id": army, "name": name, "text": text, "prefix": f"{army}-"}
        if text.strip():
            try:
                entry["preview"] = read_roster(text)
            except InvalidInput as exc:
                entry["error"] = exc.message
        lists.append(entry)
    context["armies"] = lists
    context["names"] = names
    if any("error" in entry for entry in lists):
        context["list_error"] = True
        return render(request, "battlefield/layout_new.html", context, status=422)
    if any("preview" in entry for entry in lists) and "confirm" not in data:
        return render(request, "battlefield/layout_new.html", context)
    try:
        for entry in lists:
            if "preview" in entry:
                picks = picks_from(entry["preview"], data, entry["prefix"])
                placed = place_units(document, entry["id"], picks)
                with_hand_made_abilities(document, placed)
        validate_scenario(document)
    except InvalidInput as exc:
        context["error"] = exc.message
        return render(request, "battlefield/layout_new.html", context, status=422)
    scenario = Scenario.objects.create(document=document, owner=owner_of(request))
    remember(request, scenario)
    return go(request, reverse("editor", args=[scenario.pk]))


# -- the unit catalogue -----------------------------------------------------------------------


@require_GET
def catalogue_search(request, pk: int):
    """Units of the dataset whose name holds the query, of one faction if asked (a partial)."""
    scenario = editable_scenario(request, pk)
    cat = dataset.catalogue()
    query = str(request.GET.get("q", ""))[:100]
    faction = str(request.GET.get("faction", ""))[:100]
    hits = cat.search(query, faction) if (query.strip() or faction) else []
    context = {
        "scenario": scenario,
        "hits": hits,
        "query": query,
        "faction": faction,
        "armies": scenario.situation.armies,
    }
    return TemplateResponse(request, f"{TEMPLATE}#catalogue-results", context)


def _surge_from(data) -> dict | None:
    """A surge ability from the form (trigger, distance, limit), or None when none is asked."""
    trigger = str(data.get("surge_trigger", "")).strip()
    if not trigger:
        return None
    if trigger not in dict(SURGE_TRIGGERS):
        raise InvalidInput("surge_trigger", "choose one of the surge triggers")
    distance_text = str(data.get("surge_distance", "")).strip().upper()
    if DISTANCE.match(distance_text):
        distance: str | float = distance_text
    else:
        distance = tidy(
            number(
                data,
                "surge_distance",
                minimum=0,
                maximum=100,
                label="surge distance (a number of inches, D6 or D6+N)",
            )
        )
    limit = str(data.get("surge_limit", ""))
    if limit not in dict(SURGE_LIMITS):
        raise InvalidInput("surge_limit", "choose a limit")
    ability = {
        "id": "surge",
        "name": "Surge",
        "kind": "surge",
        "trigger": trigger,
        "distance": distance,
    }
    if limit:
        ability["limit"] = limit
    return ability


def _hand_made_abilities(system: str, name: str) -> list[dict]:
    """The abilities of the hand-made catalogue profile of that name (RULES.md 1.6), if any."""
    profile = UnitProfile.objects.filter(system=system, name__iexact=name).first()
    return list(profile.abilities) if profile and profile.abilities else []


@require_POST
def catalogue_add(request, pk: int):
    """A dataset unit, its model count within the dataset's range, set up in its army's zone."""

    def change(doc, data):
        cu = dataset.catalogue().by_key.get(str(data.get("unit", "")))
        if cu is None:
            raise InvalidInput("unit", "choose a unit from the catalogue")
        count = int(
            number(
                data,
                "count",
                default=float(cu.min_models),
                minimum=1,
                maximum=LIMITS["models_per_unit"],
                label="number of models",
            )
        )
        (unit_id,) = place_units(doc, str(data.get("army", "")), [(cu, count)])
        unit = next(u for u in doc["units"] if u["id"] == unit_id)
        abilities = _hand_made_abilities(doc["system"], cu.name)
        if abilities:
            unit["abilities"] = abilities
        return f"Added {cu.name} ({unit_id})"

    return _edit(request, pk, change)


# -- roster import ------------------------------------------------------------------------------


def _roster_text(request) -> str:
    upload = request.FILES.get("file")
    if upload is not None:
        if upload.size > ROSTER_BYTES:
            raise InvalidInput("file", f"a list file may be at most {ROSTER_BYTES:,} bytes")
        raw = upload.read()
        try:
            return raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InvalidInput("file", "the file is not text (UTF-8)") from None
    return str(request.POST.get("list", ""))


@require_POST
@rate_limit("import")
def roster_preview(request, pk: int):
    """What a list resolves to, before anything is stored: each unit with its base and M, each
    unresolved entry with the closest candidates to pick from."""
    scenario = editable_scenario(request, pk)
    context = {
        "scenario": scenario,
        "army": str(request.POST.get("army", "")),
        "armies": scenario.situation.armies,
    }
    status = 200
    try:
        text = _roster_text(request)
        context["preview"] = read_roster(text)
        context["list_text"] = text
    except InvalidInput as exc:
        context["error"] = exc.message
        context["error_field"] = exc.field
        status = 422
    return TemplateResponse(request, f"{TEMPLATE}#roster-preview", context, status=status)


def picks_from(preview, data, prefix: str = "") -> list:
    """The units to place from a previewed list: every resolved entry not left out
    (`<prefix>skip-<i>`), and for an unresolved one the candidate picked (`<prefix>pick-<i>`)."""
    cat = dataset.catalogue()
    picks = []
    for entry in preview.entries:
        if entry.unit is not None:
            if f"{prefix}skip-{entry.index}" not in data:
                picks.append((entry.unit, entry.count))
            continue
        chosen = str(data.get(f"{prefix}pick-{entry.index}", ""))
        if chosen:
            if chosen not in cat.by_key:
                raise InvalidInput(
                    f"{prefix}pick-{entry.index}", f"choose a unit for {entry.raw_name}"
                )
            picks.append((cat.by_key[chosen], entry.count))
    return picks


def with_hand_made_abilities(doc: dict, unit_ids: list[str]) -> None:
    """Units placed from the data keep the surge of a hand-made profile of the same name."""
    for unit in doc["units"]:
        if unit["id"] in unit_ids and (found := _hand_made_abilities(doc["system"], unit["name"])):
            unit["abilities"] = found


@require_POST
def roster_place(request, pk: int):
    """Place the accepted units of a previewed list (read again: nothing was stored)."""

    def change(doc, data):
        preview = read_roster(str(data.get("list", "")))
        picks = picks_from(preview, data)
        if not picks:
            raise InvalidInput("list", "no units to place: pick a unit for the entries above")
        added = place_units(doc, str(data.get("army", "")), picks)
        with_hand_made_abilities(doc, added)
        return f"Placed {len(added)} units from {preview.format}"

    return _edit(request, pk, change)


# -- any unit: a surge ability, corrections -----------------------------------------------------


def _unit(doc: dict, unit_id: str) -> dict:
    for unit in doc.get("units", []):
        if unit["id"] == unit_id:
            return unit
    raise InvalidInput("unit", f"there is no unit {unit_id!r} on this table")


@require_POST
def unit_surge(request, pk: int):
    """Give a unit a surge ability (RULES.md 1.6: trigger, distance, limit), or take it away."""

    def change(doc, data):
        unit = _unit(doc, str(data.get("unit", "")))
        abilities = [a for a in unit.get("abilities", []) if a.get("kind") != "surge"]
        ability = _surge_from(data)
        if ability:
            taken = {a.get("id") for a in abilities}
            ability["id"] = next(
                f"surge-{n}" if n else "surge"
                for n in range(99)
                if (f"surge-{n}" if n else "surge") not in taken
            )
            abilities.append(ability)
        if abilities:
            unit["abilities"] = abilities
        else:
            unit.pop("abilities", None)
        return (
            f"{'Gave' if ability else 'Took'} {unit['name']} a surge ability"
            if ability
            else f"Took the surge ability from {unit['name']}"
        )

    return _edit(request, pk, change)


@require_POST
def unit_correct(request, pk: int):
    """Correct what the data got wrong for one unit: its M, keywords and the base of its models
    (the unit's own fields win over the dataset; the data itself is never changed)."""

    def change(doc, data):
        unit = _unit(doc, str(data.get("unit", "")))
        move_text = str(data.get("move", "")).strip()
        if move_text:
            unit["move"] = tidy(number(data, "move", minimum=0, maximum=1000))
        if "keywords" in data:
            words = [w.strip().upper() for w in re.split(r"[,]+", str(data["keywords"]))]
            unit["keywords"] = sorted({w for w in words if w})
        if str(data.get("base_a", "")).strip():
            base = base_from(data)
            for model in unit["models"]:
                model["base"] = dict(base)
        return f"Corrected {unit['name']}"

    return _edit(request, pk, change)


# -- Warmaster flyers -------------------------------------------------------------------------


@require_POST
def flyer_add(request, pk: int):
    """A flying unit or a character on a flying mount from the Warmaster catalogue, one click."""

    def change(doc, data):
        flyer = next((f for f in warmaster_flyers() if f["id"] == data.get("flyer")), None)
        if flyer is None:
            raise InvalidInput("flyer", "choose a flyer from the catalogue")
        table = doc["table"]
        unit = add_unit(
            doc,
            army=str(data.get("army", "")),
            name=f"{flyer['name']} ({flyer['army']})",
            keywords=flyer["keywords"],
            move=flyer["move"],
            base=flyer["base"],
            count=flyer["stands"],
            x=number(data, "x", default=table["width"] / 2, label="centre x"),
            y=number(data, "y", default=table["height"] / 2, label="centre y"),
            facing=number(data, "facing", default=270.0, label="facing (degrees)"),
        )
        return f"Added {flyer['name']} ({unit})"

    return _edit(request, pk, change)


# -- About ------------------------------------------------------------------------------------


@require_GET
def about(request):
    """Where the data comes from, with the attribution its licence asks for."""
    return render(request, "battlefield/about.html", {"dataset": dataset})
