"""The live table (issue 17): every page that shows a scenario (share link, editor, stepper,
step log) polls a small endpoint with the version it shows as an ETag. While nothing changed the
answer is an empty 304, which htmx does not swap; once the stored version moves on (a committed
step, an undo, an edit by someone else) the answer is a banner saying what changed, with links,
and nothing else on the page is touched, so a half-placed move or a half-typed form stays.

The database is the one source of truth (one indexed read per poll), so any number of app
servers answer the same. A page in a background tab stops asking (static/js/live.js).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET

from .models import Scenario, Step
from .pagecache import per_version
from .permissions import can_view, light_scenario, shared_scenario
from .stepper import step_summary

#: How often a page asks (seconds); 50 viewers at this rate cost a few per cent of one core
#: (README "Load test").
POLL_SECONDS = 2


def etag(version: int) -> str:
    return f'"v{version}"'


def live_context(scenario: Scenario, *, since: int | None = None, steps: int | None = None):
    """What `battlefield/_live.html` needs for a page showing `scenario` as it is now."""
    return {
        "live_scenario": scenario,
        "live_etag": etag(scenario.version),
        "live_since": scenario.version if since is None else since,
        "live_steps": per_version(scenario, "step-count", scenario.steps.count)
        if steps is None
        else steps,
        "live_seconds": POLL_SECONDS,
    }


def _number(value: str | None, default: int) -> int:
    return int(value) if value and value.isdigit() and len(value) < 10 else default


def _page_path(request) -> str | None:
    """The page the viewer is on (htmx's HX-Current-URL), as a same-site path to reload."""
    url = request.headers.get("HX-Current-URL", "")
    if not url or not url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return None
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


@require_GET
def live(request, token: str):
    """GET /s/<token>/live?since=VERSION&steps=COUNT with `If-None-Match: "vVERSION"`: 304 while
    the scenario is at that version, else the banner (200, with the new ETag). 404 for anyone
    who may not see the scenario, like its share link."""
    scenario = shared_scenario(request, token, light=True)
    current = etag(scenario.version)
    if request.headers.get("If-None-Match") == current:
        response = HttpResponse(status=304)
    else:
        since = _number(request.GET.get("since"), scenario.version)
        steps = _number(request.GET.get("steps"), 0)
        new_steps = [
            {
                "index": s.index,
                "summary": step_summary(s),
                "url": reverse("step", args=[token, s.index]),
            }
            for s in Step.objects.filter(scenario=scenario, index__gte=steps).order_by("index")[:20]
        ]
        context = {
            **live_context(scenario, since=since, steps=steps),
            "changed": scenario.version != since,
            "new_steps": new_steps,
            "reload_url": _page_path(request) or scenario.share_url(),
        }
        response = TemplateResponse(request, "battlefield/_live.html", context)
    response["ETag"] = current
    # Always ask again: the answer changes whenever anyone changes the scenario.
    response["Cache-Control"] = "private, no-cache"
    return response


LIVE_PATH = re.compile(r"^/s/(?P<token>[-\w]+)/live$")


class LiveTableMiddleware:
    """The fast path for the live table's most common answer: "nothing changed" (304) to anyone
    polling a scenario that anyone with its link may see (unlisted or public). It answers before
    sessions, CSRF, messages and the rest are set up, which would cost more than the one indexed
    read the answer needs; everything else (a change, a private or club scenario, which needs
    the visitor's session) goes on to the `live` view. Sits right after SecurityMiddleware, and
    checks the Host header as CommonMiddleware would."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        tag = request.headers.get("If-None-Match")
        match = LIVE_PATH.match(request.path_info) if tag else None
        if match and request.method == "GET":
            request.get_host()  # DisallowedHost (400) for a host not in ALLOWED_HOSTS
            scenario = light_scenario(match["token"])
            if (
                scenario is not None
                and can_view(None, scenario, via_link=True)
                and tag == etag(scenario.version)
            ):
                response = HttpResponse(status=304)
                response["ETag"] = tag
                response["Cache-Control"] = "private, no-cache"
                return response
        return self.get_response(request)
