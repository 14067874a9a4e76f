"""Pages and the JSON API. Function views; each page answers the whole page, or its named
partial when htmx asks for one (`HX-Request-Type: partial`; a history restore asks for the
whole page).

Who may edit what, until accounts exist: the browser session that created or copied a scenario
(its ids are kept in the session, which lives in the database, so any app server knows them),
or the signed-in owner. Everyone else sees a scenario only through its share link, read-only.
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.core.exceptions import RequestDataTooBig
from django.db.models import Q
from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.utils.http import content_disposition_header
from django.utils.text import slugify
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from rules import InvalidInput, adjudicate
from rules.situation import LIMITS

from .forms import ImportForm, NewScenarioForm, RenameForm
from .models import Lesson, Scenario, blank_document
from .permissions import SESSION_KEY, editable_scenario, remember
from .validation import (
    API_BODY_BYTES,
    TooLarge,
    adjudication_request,
    parse_json,
    validate_scenario,
)

# -- helpers ---------------------------------------------------------------------------------


def page(request, template: str, context: dict, *, partial: str = "content", status: int = 200):
    """The whole page, or only its named partial for an htmx partial request."""
    if request.htmx and request.htmx.request_type == "partial":
        template = f"{template}#{partial}"
    return TemplateResponse(request, template, context, status=status)


def go(request, target):
    """Redirect; for htmx, ask the browser to load the page (HX-Redirect) instead of swapping."""
    url = target.get_absolute_url() if hasattr(target, "get_absolute_url") else target
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def owner_of(request):
    return request.user if request.user.is_authenticated else None


def home_context(request, **extra) -> dict:
    own_ids = request.session.get(SESSION_KEY, [])
    mine = Q(pk__in=own_ids, owner=None)
    if request.user.is_authenticated:
        mine |= Q(owner=request.user)
    return {
        "demo_scenarios": Scenario.objects.filter(visibility=Scenario.Visibility.PUBLIC),
        "my_scenarios": Scenario.objects.filter(mine).order_by("-updated"),
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
def scenario_import(request):
    """Import a scenario JSON file: stored only if every check passes; otherwise a message that
    names the field and the problem, and nothing is stored."""
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
    """The owner's page of a scenario. POST renames it (each change bumps its version)."""
    scenario = editable_scenario(request, pk)
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
    context = scenario_context(request, scenario, editable=True, rename_form=form)
    partial = "heading" if request.method == "POST" else "content"
    return page(request, "battlefield/scenario.html", context, partial=partial, status=status)


@require_GET
def share(request, token: str):
    """The read-only share page: anyone with the link, no account, no edit controls."""
    scenario = get_object_or_404(Scenario, share_token=token)
    return page(
        request, "battlefield/scenario.html", scenario_context(request, scenario, editable=False)
    )


def scenario_context(request, scenario: Scenario, *, editable: bool, **extra) -> dict:
    from .pictures import table_svg

    situation = scenario.situation
    png_url = f"{request.build_absolute_uri(scenario_png_url(scenario))}?v={scenario.version}"
    return {
        "scenario": scenario,
        "situation": situation,
        "svg": table_svg(situation),
        "legend": legend(situation),
        "editable": editable,
        "share_absolute_url": request.build_absolute_uri(scenario.share_url()),
        "og_image": png_url,
        "unit_name": situation.unit_name,
        **extra,
    }


def scenario_png_url(scenario: Scenario) -> str:
    from django.urls import reverse

    return reverse("share_png", args=[scenario.share_token])


def legend(situation) -> dict:
    """What the page lists beside the table: armies in their picture colours with their units,
    and the terrain styles used (from the pictures' own legend, so the swatches match)."""
    from .pictures import legend_entries
    from .scene import army_colours

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
    terrain = [row for row in legend_entries(situation) if row.kind == "terrain"]
    return {"armies": armies, "terrain": terrain, "terrain_count": len(situation.terrain)}


@require_POST
def fork(request, token: str):
    """'Copy to edit': an editable private copy for this visitor."""
    original = get_object_or_404(Scenario, share_token=token)
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


def png_response(request, scenario: Scenario) -> HttpResponse:
    etag = f'"{scenario.share_token[:8]}-{scenario.version}"'
    if request.headers.get("If-None-Match") == etag:
        return HttpResponse(status=304)
    response = HttpResponse(scenario.png(), content_type="image/png")
    response["ETag"] = etag
    response["Cache-Control"] = "public, max-age=300"
    if request.GET.get("download"):
        filename = f"{slugify(scenario.name) or 'scenario'}.png"
        response["Content-Disposition"] = content_disposition_header(True, filename)
    return response


@require_GET
def scenario_json(request, pk: int):
    return json_download(editable_scenario(request, pk))


@require_GET
def share_json(request, token: str):
    return json_download(get_object_or_404(Scenario, share_token=token))


@require_GET
def share_png(request, token: str):
    return png_response(request, get_object_or_404(Scenario, share_token=token))


# -- JSON API ------------------------------------------------------------------------------


def api_error(exc: InvalidInput, status: int | None = None) -> JsonResponse:
    if status is None:
        status = 413 if isinstance(exc, TooLarge) else 400
    return JsonResponse(exc.as_dict(), status=status)


@csrf_exempt
@require_POST
def api_adjudicate(request):
    """POST /api/v1/adjudicate {"scenario", "move"}: 200 with the verdict (legal or not),
    400 {"error", "field"} for invalid input, 413 when too large. Nothing is stored."""
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
