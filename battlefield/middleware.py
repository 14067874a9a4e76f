"""Answers for the limits and conflicts that views raise, in one place (issue 7):

- a request body over `settings.MAX_REQUEST_BYTES` -> 413 before any view reads it (and
  Django's own RequestDataTooBig -> 413, not 400);
- `RateLimited` -> 429 with `Retry-After`;
- `StaleScenario` (an edit made on an older version) -> 409 with an offer to reload; the stored
  scenario, the other person's change, is kept;
- `OverQuota` (a user's scenarios over their quota) -> 429 (how many) or 413 (bytes stored);
- the engine's deadline (`settings.ENGINE_DEADLINE`, rules/budget.py) set for the whole request;
  a search that runs out where no view turned it into a finding or a message (`OutOfTime`) ->
  413 "too complex to judge here", never a killed worker.

Each answer is JSON `{"error", "field"}` for the API (paths under /api/ or requests that accept
JSON only), a bare message element for htmx partial requests (htmx swaps 4xx answers), and a
small page otherwise.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils.http import url_has_allowed_host_and_scheme

from rules.budget import OutOfTime, deadline

from .models import OverQuota, StaleScenario
from .ratelimit import RateLimited


def wants_json(request) -> bool:
    accept = request.headers.get("Accept", "")
    return request.path.startswith("/api/") or (
        "application/json" in accept and "text/html" not in accept
    )


def answer(request, status: int, title: str, message: str, *, reload_url: str | None = None):
    if wants_json(request):
        return JsonResponse({"error": message, "field": ""}, status=status)
    partial = request.headers.get("HX-Request") == "true" and (
        request.headers.get("HX-Request-Type") != "full"
    )
    html = render_to_string(
        "registration/problem_partial.html" if partial else "registration/problem.html",
        {"title": title, "message": message, "reload_url": reload_url},
        request=request,
    )
    return HttpResponse(html, status=status)


def reload_url(request) -> str:
    """Where to reload: the page the browser is on (htmx says), else the referring page."""
    for url in (request.headers.get("HX-Current-URL"), request.headers.get("Referer")):
        if url and url_has_allowed_host_and_scheme(
            url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            return url
    return request.path


class LimitsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        length = request.headers.get("Content-Length", "")
        limit = settings.MAX_REQUEST_BYTES
        if length.isdigit() and int(length) > limit:
            return answer(
                request,
                413,
                "Too large",
                f"The request is {int(length):,} bytes; the limit is {limit:,} bytes.",
            )
        # A form (not a file upload) is read into memory whole: over Django's limit it would be
        # refused with a bare 400 by whichever middleware reads it first (the CSRF check), so
        # answer the documented 413 here, before anyone reads it (issue 15).
        form_limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if (
            form_limit is not None
            and length.isdigit()
            and int(length) > form_limit
            and request.content_type == "application/x-www-form-urlencoded"
        ):
            return answer(
                request,
                413,
                "Too large",
                f"The form is {int(length):,} bytes; the limit is {form_limit:,} bytes.",
            )
        with deadline(settings.ENGINE_DEADLINE):
            return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, RateLimited):
            response = answer(request, 429, "Too many requests", exception.message)
            response["Retry-After"] = str(exception.retry_after)
            return response
        if isinstance(exception, StaleScenario):
            return answer(
                request,
                409,
                "Changed by someone else",
                "Someone else changed this scenario after you opened it, so your change was not "
                "saved and theirs is kept. Reload to see the current version, then make your "
                "change again.",
                reload_url=reload_url(request),
            )
        if isinstance(exception, OverQuota):
            return answer(request, exception.status, "Quota reached", exception.message)
        if isinstance(exception, OutOfTime):
            return answer(
                request,
                413,
                "Too complex",
                f"{exception.message}. Try a smaller table, fewer terrain pieces or fewer models.",
            )
        if isinstance(exception, RequestDataTooBig):
            return answer(
                request,
                413,
                "Too large",
                f"The request is over {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes.",
            )
        return None
