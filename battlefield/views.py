"""Pages and the JSON API. Function views; each page answers the whole page, or its named
partial when htmx asks for one (`HX-Request-Type: partial`; a history restore asks for the
whole page).

Who may see and change what is decided in battlefield/permissions.py and nowhere else: every
view that reads or writes a scenario gets it through one of its functions. Creating, importing,
copying and saving need an account; anyone may look at a shared link.
"""

from __future__ import annotations

import json
from datetime import timedelta
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import RequestDataTooBig
from django.db.models import Q
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from django.utils.http import content_disposition_header
from django.utils.text import slugify
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import (
    require_GET,
    require_http_methods,
    require_POST,
    require_safe,
)
from django_htmx.http import HttpResponseClientRedirect

from rules import InvalidInput, adjudicate
from rules.situation import LIMITS
from rules.systems import SYSTEMS

from . import permissions
from .accounts import SharingForm
from .forms import ImportForm, NewScenarioForm, RenameForm
from .models import RESTORE_DAYS, Lesson, Scenario, blank_document
from .pagecache import page_drawing, per_version, reader_content, situation_of
from .permissions import (
    deletable_scenario,
    editable_scenario,
    managed_scenario,
    remember,
    shared_scenario,
    viewable_scenario,
)
from .pictures import legend_entries, picture_size, table_svg
from .ratelimit import rate_limit
from .scene import army_colours, scene
from .validation import (
    API_BODY_BYTES,
    TooLarge,
    adjudication_request,
    parse_json,
    validate_scenario,
)

# -- helpers ---------------------------------------------------------------------------------


def page(request, template: str, context: dict, *, partial: str = "content", status: int = 200):
    """The whole page, or only its named partial for an htmx partial request. One URL answers
    both, so caches must key on the headers that choose (Vary, htmx's caching advice)."""
    if request.htmx and request.htmx.request_type == "partial":
        template = f"{template}#{partial}"
    response = TemplateResponse(request, template, context, status=status)
    patch_vary_headers(response, ("HX-Request", "HX-Request-Type"))
    return response


def go(request, target):
    """Redirect; for htmx, ask the browser to load the page (HX-Redirect) instead of swapping."""
    url = target.get_absolute_url() if hasattr(target, "get_absolute_url") else target
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def owner_of(request):
    return request.user if request.user.is_authenticated else None


def account_needed(request, back: str | None = None):
    """Saving needs an account: send an anonymous visitor to log in, then back to `back` (the
    home page unless given; issue 13: signing in keeps your place). None when signed in."""
    if request.user.is_authenticated:
        return None
    messages.info(request, "Log in or sign up to create, import or copy a scenario.")
    response = redirect_to_login(back or reverse("home"))
    return HttpResponseClientRedirect(response["Location"]) if request.htmx else response


def home_context(request, **extra) -> dict:
    live = Scenario.objects.filter(deleted_at=None)
    mine = live.none()
    if request.user.is_authenticated:
        club_shared = Q(club__memberships__user=request.user) & ~Q(
            visibility=Scenario.Visibility.PRIVATE
        )
        mine = live.filter(Q(owner=request.user) | club_shared).distinct()
    return {
        "demo_scenarios": live.filter(visibility=Scenario.Visibility.PUBLIC),
        "my_scenarios": mine.select_related("club").order_by("-updated"),
        "lessons": Lesson.objects.select_related("scenario"),
        "new_form": NewScenarioForm(),
        "import_form": ImportForm(),
        "limits": LIMITS,
        **extra,
    }


# -- pages -----------------------------------------------------------------------------------


@require_GET
def home(request):
    return page(request, "battlefield/home.html", home_context(request))


@require_POST
def scenario_new(request):
    if refused := account_needed(request):
        return refused
    form = NewScenarioForm(request.POST)
    if not form.is_valid():
        return page(
            request,
            "battlefield/home.html",
            home_context(request, new_form=form),
            partial="new-form",
            status=422,
        )
    document = blank_document(form.system, form.cleaned_data["name"], *form.table_size())
    validate_scenario(document)
    scenario = Scenario.objects.create(document=document, owner=owner_of(request))
    remember(request, scenario)
    return go(request, scenario)


@require_POST
@rate_limit("import")
def scenario_import(request):
    """Import a scenario JSON file: stored only if every check passes; otherwise a message that
    names the field and the problem, and nothing is stored."""
    if refused := account_needed(request):
        return refused
    form = ImportForm(request.POST, request.FILES)
    status = 422
    if form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            if upload.size > LIMITS["document_bytes"]:
                raise TooLarge(
                    "",
                    f"the file is {upload.size:,} bytes; the limit is "
                    f"{LIMITS['document_bytes']:,} bytes",
                )
            document = parse_json(upload.read())
            validate_scenario(document)
        except InvalidInput as exc:
            status = 413 if isinstance(exc, TooLarge) else 422
            form.add_error("file", f"{exc.field}: {exc.message}" if exc.field else exc.message)
        else:
            scenario = Scenario.objects.create(document=document, owner=owner_of(request))
            remember(request, scenario)
            messages.success(request, f"Imported “{scenario.name or 'scenario'}”.")
            return go(request, scenario)
    return page(
        request,
        "battlefield/home.html",
        home_context(request, import_form=form),
        partial="import-form",
        status=status,
    )


@require_http_methods(["GET", "POST"])
def scenario_detail(request, pk: int):
    """A scenario's own page, for those who may see it by id (owner, its club, or anyone when it
    is public); editing controls for those who may edit. POST renames it (each change bumps its
    version; a rename made on an older version is refused with 409)."""
    if request.method == "POST":
        scenario = editable_scenario(request, pk)
        permissions.check_version(request, scenario)
    else:
        scenario = viewable_scenario(request, pk)
    editable = permissions.can_edit(request, scenario)
    form = RenameForm(initial={"name": scenario.name})
    status = 200
    if request.method == "POST":
        form = RenameForm(request.POST)
        if form.is_valid():
            scenario.rename(form.cleaned_data["name"])
            if not request.htmx:
                return redirect(scenario)
        else:
            status = 422
    context = scenario_context(request, scenario, editable=editable, rename_form=form)
    partial = "heading" if request.method == "POST" else "content"
    return page(request, "battlefield/scenario.html", context, partial=partial, status=status)


@require_GET
def share(request, token: str):
    """The read-only share page: anyone with the link, no account, no edit controls."""
    scenario = shared_scenario(request, token, document=False)
    copy_asked = request.GET.get(COPY_ASKED) == "1" and request.user.is_authenticated
    if (
        permissions.can_manage(request, scenario)
        or permissions.can_delete(request, scenario)
        or copy_asked
    ):
        # the owner's controls, or the prompt to copy after signing in: this visitor's own page
        context = scenario_context(request, scenario, editable=False, copy_asked=copy_asked)
        return page(request, "battlefield/scenario.html", context)
    # A reader's content is the same for every reader of this version (issue 16: <= 5 ms): its
    # context is made only when it is rendered; the page around it needs only its frame.
    content = reader_content(
        request,
        scenario,
        lambda: scenario_context(request, scenario, editable=False, copy_asked=False),
    )
    context = frame_context(request, scenario, editable=False)
    return page(request, "battlefield/share.html", {**context, "content": content})


def frame_context(request, scenario: Scenario, *, editable: bool) -> dict:
    """What the scenario page shows around its content (templates/battlefield/scenario.html
    outside the `content` partial): its title, description and link preview."""
    # Per scenario version: the Situation (battlefield/pagecache)
    situation = situation_of(scenario)
    png_url = f"{request.build_absolute_uri(scenario_png_url(scenario))}?v={scenario.version}"
    return {
        "scenario": scenario,
        "situation": situation,
        "editable": editable,
        "share_absolute_url": request.build_absolute_uri(scenario.share_url()),
        "og_image": png_url,
        "unit_name": situation.unit_name,
    }


def scenario_context(request, scenario: Scenario, *, editable: bool, **extra) -> dict:
    context = frame_context(request, scenario, editable=editable)
    situation = context["situation"]
    # Per scenario version: the drawing with its legend (battlefield/pagecache)
    drawing = page_drawing(scenario)
    return {
        **context,
        "svg": drawing["svg"],
        "legend": legend(situation, drawing["legend_rows"]),
        # the ruler measures through the share link, which everyone who sees this page may use
        "ruler_url": reverse("share_ruler", args=[scenario.share_token]),
        "can_delete": permissions.can_delete(request, scenario),
        "can_manage": permissions.can_manage(request, scenario),
        "sharing_form": sharing_form(request, scenario),
        # (read from the document: kept per version, so a page need not read the document)
        "phase_bar": per_version(scenario, "phase-bar", lambda: phase_bar(scenario)),
        # "Copy to edit" while signed out: sign in, then back to this page to copy it
        "login_to_copy": f"{reverse('login')}?"
        + urlencode({"next": f"{scenario.share_url()}?{COPY_ASKED}=1"}),
        **extra,
    }


def sharing_form(request, scenario: Scenario):
    """The owner's visibility and club form, filled in (None for anyone else)."""
    if not permissions.can_manage(request, scenario):
        return None
    return SharingForm(
        initial={"visibility": scenario.visibility, "club": scenario.club_id}, user=request.user
    )


def scenario_png_url(scenario: Scenario) -> str:
    return reverse("share_png", args=[scenario.share_token])


def legend(situation, rows=None) -> dict:
    """What the page lists beside the table: armies in their picture colours with their units,
    and the terrain styles used (from the pictures' own legend, so the swatches match; `rows`
    when the caller has them already)."""
    palette = army_colours(situation)
    armies = []
    for army in situation.armies:
        units = [
            {
                "id": u.id,
                "name": u.name,
                "models": len(u.models),
                "move": u.move,
                "keywords": sorted(u.keywords),
            }
            for u in situation.units
            if u.army == army.id
        ]
        armies.append(
            {
                "id": army.id,
                "name": army.name,
                "colour": palette.get(army.id),
                "units": units,
                "models": sum(u["models"] for u in units),
            }
        )
    if rows is None:
        rows = legend_entries(situation)
    return {
        "armies": armies,
        "terrain": [row for row in rows if row.kind == "terrain"],
        "terrain_count": len(situation.terrain),
        "markers": [row for row in rows if row.kind in ("zone", "objective")],
        "source": dict(situation.source),
    }


#: The query field of a shared page reached by signing in to copy it: the page offers the copy.
COPY_ASKED = "copy"


@require_POST
def fork(request, token: str):
    """'Copy to edit': an editable private copy for this visitor (needs an account)."""
    original = shared_scenario(request, token)
    # Signed out: back to the shared page once signed in, where "Copy to edit" waits.
    if refused := account_needed(request, f"{original.share_url()}?{COPY_ASKED}=1"):
        return refused
    copy = original.fork(owner=owner_of(request))
    remember(request, copy)
    messages.success(request, "This is your own copy: changes here do not touch the original.")
    return go(request, copy)


# -- downloads -------------------------------------------------------------------------------


def json_download(scenario: Scenario) -> HttpResponse:
    body = json.dumps(scenario.export_document(), indent=2, ensure_ascii=False) + "\n"
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    filename = f"{slugify(scenario.name) or 'scenario'}.json"
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response


def picture_cache_control(scenario: Scenario, *, max_age: int) -> str:
    """Cache-Control for a picture of `scenario`: shared caches may keep only what anyone with
    the link may see (unlisted or public, issue 7), and must ask again before each use
    (`no-cache`, answered 304 by ETag while nothing changed), so a picture stops being served
    as soon as the scenario is made private or its link rotated (issue 15); anything else is
    the viewer's alone."""
    shared = scenario.visibility in (Scenario.Visibility.UNLISTED, Scenario.Visibility.PUBLIC)
    return "public, no-cache" if shared else f"private, max-age={max_age}"


def png_response(request, scenario: Scenario) -> HttpResponse:
    etag = f'"{scenario.share_token[:8]}-{scenario.version}"'
    if request.headers.get("If-None-Match") == etag:
        return HttpResponse(status=304)
    response = HttpResponse(scenario.png(), content_type="image/png")
    response["ETag"] = etag
    response["Cache-Control"] = picture_cache_control(scenario, max_age=300)
    if request.GET.get("download"):
        filename = f"{slugify(scenario.name) or 'scenario'}.png"
        response["Content-Disposition"] = content_disposition_header(True, filename)
    return response


@require_GET
def scenario_json(request, pk: int):
    return json_download(viewable_scenario(request, pk))


@require_GET
def share_json(request, token: str):
    return json_download(shared_scenario(request, token))


@require_safe
def share_png(request, token: str):
    return png_response(request, shared_scenario(request, token))


@require_GET
def share_svg(request, token: str):
    """The table as an SVG file to download (self-contained: no styles or scripts to fetch);
    always an attachment, never shown inline under the site's origin."""
    scenario = shared_scenario(request, token)
    body = '<?xml version="1.0" encoding="UTF-8"?>\n' + table_svg(scenario.situation) + "\n"
    response = HttpResponse(body, content_type="image/svg+xml; charset=utf-8")
    filename = f"{slugify(scenario.name) or 'scenario'}.svg"
    response["Content-Disposition"] = content_disposition_header(True, filename)
    response["Cache-Control"] = picture_cache_control(scenario, max_age=300)
    return response


def link_preview(request, scenario: Scenario, situation) -> dict:
    """Open Graph picture of a scenario for link previews: its PNG's absolute URL (by version)
    and its size in pixels, known before it is drawn."""
    width, height = picture_size(scene(situation).view)
    url = f"{request.build_absolute_uri(scenario_png_url(scenario))}?v={scenario.version}"
    return {"image": url, "width": width, "height": height}


# -- JSON API ------------------------------------------------------------------------------


def api_error(exc: InvalidInput, status: int | None = None) -> JsonResponse:
    if status is None:
        status = 413 if isinstance(exc, TooLarge) else 400
    return JsonResponse(exc.as_dict(), status=status)


@csrf_exempt
@require_POST
@rate_limit("api")
def api_adjudicate(request):
    """POST /api/v1/adjudicate {"scenario", "move"}: 200 with the verdict (legal or not),
    400 {"error", "field"} for invalid input, 413 when too large, 429 when a client sends too
    many, 415 for a body that is not `application/json` (a form or text/plain is what a
    cross-site page can send without asking). Nothing is stored."""
    if request.content_type != "application/json":
        return JsonResponse(
            {
                "error": "send the request as JSON, with the header Content-Type: application/json",
                "field": "",
            },
            status=415,
        )
    length = request.headers.get("Content-Length", "")
    if length.isdigit() and int(length) > API_BODY_BYTES:
        return api_error(
            TooLarge(
                "", f"the request is {int(length):,} bytes; the limit is {API_BODY_BYTES:,} bytes"
            )
        )
    try:
        body = request.body
    except RequestDataTooBig:
        return api_error(TooLarge("", f"the request is over {API_BODY_BYTES:,} bytes"))
    try:
        payload = parse_json(body, limit=API_BODY_BYTES, what="request")
        situation, move = adjudication_request(payload)
        verdict = adjudicate(situation, move)
    except InvalidInput as exc:
        return api_error(exc)
    return JsonResponse(verdict.as_dict())


# -- owner's controls: visibility and club, share link, delete and restore ---------------------


# -- the phase bar (issue 13 item 15) ---------------------------------------------------------


def next_turn(document: dict, *, whole_turn: bool) -> tuple[int, str, str]:
    """The (round, active army, phase) after the table's: the next phase of the game's phases in
    order, or, after the last phase (or with `whole_turn`), the first phase of the next army's
    turn; the battle round goes on once every army has had its turn (armies in their order)."""
    phases = SYSTEMS[document["system"]].phases
    armies = [a["id"] for a in document.get("armies", [])]
    turn = document.get("turn") or {}
    round_ = int(turn.get("round") or 1)
    army, phase = str(turn.get("active_army") or ""), turn.get("phase")
    if army not in armies:  # no player's turn yet: the first army begins
        return round_, armies[0], phases[0]
    if not whole_turn:
        if phase not in phases:
            return round_, army, phases[0]
        if phases.index(phase) + 1 < len(phases):
            return round_, army, phases[phases.index(phase) + 1]
    following = (armies.index(army) + 1) % len(armies)
    return round_ + (following == 0), armies[following], phases[0]


def phase_bar(scenario: Scenario) -> dict:
    """What the phase bar shows: the round, whose turn and which phase, and what its buttons
    would make of them."""
    document = scenario.document
    names = {a["id"]: a.get("name") or a["id"] for a in document.get("armies", [])}
    turn = document.get("turn") or {}
    bar = {
        "round": turn.get("round"),
        "army": names.get(turn.get("active_army"), ""),
        "phase": turn.get("phase") or "",
    }
    if names:
        for key, whole in (("next_phase", False), ("next_turn", True)):
            round_, army, phase = next_turn(document, whole_turn=whole)
            bar[key] = f"round {round_}, {names[army]}, {phase} phase"
    return bar


@require_POST
def scenario_sharing(request, pk: int):
    """The owner sets visibility and club (only a club they belong to)."""
    scenario = managed_scenario(request, pk)
    form = SharingForm(request.POST, user=request.user)
    if form.is_valid():
        permissions.check_version(request, scenario)
        breaking = links_broken(scenario, form.cleaned_data["visibility"])
        if breaking and request.POST.get("confirm") != "yes":
            # Issue 13: say so before breaking the step links already shared; the form comes
            # back with the choice kept and a button that confirms it.
            context = scenario_context(
                request, scenario, editable=True, sharing_form=form, sharing_warning=breaking
            )
            return page(request, "battlefield/scenario.html", context, status=409)
        scenario.visibility = form.cleaned_data["visibility"]
        scenario.club = form.cleaned_data["club"]
        scenario.save()
        messages.success(request, f"Now {scenario.get_visibility_display().lower()}.")
        return go(request, scenario)
    context = scenario_context(request, scenario, editable=True, sharing_form=form)
    return page(request, "battlefield/scenario.html", context, status=422)


#: Who a share link (and each step link) admits: anyone, for these visibilities.
LINK_OPEN = (Scenario.Visibility.UNLISTED, Scenario.Visibility.PUBLIC)


def links_broken(scenario: Scenario, visibility: str) -> str:
    """The warning for a visibility that will close step links already handed out ("" when it
    closes none): the scenario's link admitted anyone, the new visibility does not, and it has
    steps whose links may be shared."""
    steps = scenario.steps.count()
    if not steps or scenario.visibility not in LINK_OPEN or visibility in LINK_OPEN:
        return ""
    return (
        f"This scenario has {steps} step link{'s' if steps != 1 else ''} that anyone with them "
        "can open now. Made club-only or private, those links (and the share link) will open "
        "only for its club's members (or only for you): anyone you sent them to will be "
        "refused."
    )


@require_POST
def scenario_rotate_link(request, pk: int):
    """A new share link for the owner; the old one is dead from now on."""
    scenario = managed_scenario(request, pk)
    scenario.rotate_share_token()
    messages.success(request, "New share link made: the old link no longer works.")
    return go(request, scenario)


@require_POST
def scenario_delete(request, pk: int):
    """Soft delete (owner, or an organiser of its club): the owner may restore it for 30 days."""
    scenario = deletable_scenario(request, pk)
    scenario.soft_delete()
    messages.success(
        request,
        f"Deleted “{scenario.name or 'scenario'}”. Its owner can restore it from "
        f"“Deleted scenarios” until {scenario.restorable_until:%d %B %Y}.",
    )
    return go(request, reverse("home"))


@require_GET
def scenarios_deleted(request):
    """The signed-in owner's deleted scenarios that can still be restored."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    since = timezone.now() - timedelta(days=RESTORE_DAYS)
    deleted = Scenario.objects.filter(owner=request.user, deleted_at__gte=since).order_by(
        "-deleted_at"
    )
    return page(request, "clubs/deleted.html", {"deleted": deleted, "days": RESTORE_DAYS})


@require_POST
def scenario_restore(request, pk: int):
    scenario = managed_scenario(request, pk, deleted=True)
    if scenario.deleted_at is None or scenario.deleted_at < timezone.now() - timedelta(
        days=RESTORE_DAYS
    ):
        raise Http404("No such scenario")
    scenario.restore()
    messages.success(request, f"Restored “{scenario.name or 'scenario'}”.")
    return go(request, scenario)
