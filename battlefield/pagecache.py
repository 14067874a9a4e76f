"""What pages keep between requests, per scenario version (issue 16).

A scenario's version moves on with every change (an edit, a committed step, an undo, a rename, a
change of who may see it) and never comes back to an old document, so anything computed from
(scenario, version) can be kept without ever going stale:

- `situation_of`: the Situation (building a busy table costs ~50 ms), kept in this process (a
  Situation is not worth pickling). The engine's own memo rides on it, so the stepper's reach
  overlays (`stepper.reach_overlays`) are kept per version too.
- `page_drawing`: the table SVG and its legend rows for the scenario page and the share page,
  drawn once (one scene for both).
- `per_version`: anything else a page shows that only a new version changes (the stepper's log
  of steps, which would otherwise read every step's document on every Check).
- `reader_content`: the share page's whole content as a reader sees it (anyone who may not
  manage or delete the scenario), rendered once per version; only the page around it (the
  visitor's own menu, CSRF token and CSP nonce) is rendered per request.

The last two are kept in Django's cache framework, so every app server shares them when CACHES
points at Redis (each keeps its own with the default local memory). Every cache is bounded in
bytes, not only in entries (issue 16): the Situations by their approximate size in memory
(`rules.memory`), the cache framework's entries by refusing any over PAGE_ENTRY_BYTES, so the
local-memory cache holds at most its MAX_ENTRIES (settings.CACHES) times that.

Both are thread-safe: the local cache takes a lock; Django's caches are safe across threads.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.core.cache import cache
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from rules.memory import approximate_bytes

from .pictures import table_svg_and_legend

#: Situations by (share token, version): at most this many, and at most this many bytes.
SITUATION_CACHE = 32
SITUATION_CACHE_BYTES = 256 * 2**20
#: A Situation's size is measured once, when it is kept; the engine's memo on it grows as pages
#: ask more of it (prepared terrain, reach overlays), so count it as this many times as large.
SITUATION_GROWTH = 2
_SITUATIONS: OrderedDict = OrderedDict()  # key -> (situation, bytes)
_SITUATIONS_LOCK = threading.Lock()
_situation_bytes = 0


def situation_of(scenario):
    """`scenario.situation`, built once per version."""
    global _situation_bytes
    key = (scenario.share_token, scenario.version)
    with _SITUATIONS_LOCK:
        kept = _SITUATIONS.get(key)
        if kept is not None:
            _SITUATIONS.move_to_end(key)
            return kept[0]
    situation = scenario.situation
    size = approximate_bytes(situation) * SITUATION_GROWTH
    with _SITUATIONS_LOCK:
        if key in _SITUATIONS:  # another thread built it meanwhile
            _situation_bytes -= _SITUATIONS.pop(key)[1]
        _SITUATIONS[key] = (situation, size)
        _situation_bytes += size
        while len(_SITUATIONS) > SITUATION_CACHE or (
            _situation_bytes > SITUATION_CACHE_BYTES and len(_SITUATIONS) > 1
        ):
            _situation_bytes -= _SITUATIONS.popitem(last=False)[1][1]
    return situation


def forget_situations() -> None:
    """Empty this process's Situations (tests, benchmarks)."""
    global _situation_bytes
    with _SITUATIONS_LOCK:
        _SITUATIONS.clear()
        _situation_bytes = 0


def kept_situations() -> tuple[int, int]:
    """(how many Situations are kept, their approximate bytes)."""
    with _SITUATIONS_LOCK:
        return len(_SITUATIONS), _situation_bytes


def _revision() -> str:
    """Changes whenever the page code or a template does: a deploy never serves an old drawing
    or page from a shared cache that outlived it."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    templates = Path(settings.BASE_DIR) / "templates"
    for path in sorted([*here.glob("*.py"), *templates.rglob("*.*")]):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


PAGE_REVISION = _revision()
#: A day: versions move on, so old entries are only ever evicted, never wrong.
PAGE_TIMEOUT = 86400
#: The largest entry kept in the cache framework (a drawing or a page's content); a larger one
#: is computed for each request instead. A 600-model table's page is ~0.5 MB.
PAGE_ENTRY_BYTES = 2**20


def _keep(key: str, value, size: int) -> None:
    if size <= PAGE_ENTRY_BYTES:
        cache.set(key, value, PAGE_TIMEOUT)


def page_drawing(scenario) -> dict:
    """{"svg": the table as safe SVG markup, "legend_rows": pictures.LegendRow list} for the
    scenario's current version."""
    key = f"arbiter:page-drawing:{PAGE_REVISION}:{scenario.share_token}:{scenario.version}"
    drawing = cache.get(key)
    if drawing is None:
        # interactive: the page's ruler takes its models as ends (issue 13)
        svg, rows = table_svg_and_legend(situation_of(scenario), interactive=True)
        drawing = {"svg": svg, "legend_rows": rows}
        _keep(key, drawing, len(svg) + 200 * len(rows))
    return drawing


def per_version(scenario, name: str, compute):
    """`compute()`, kept for the scenario's version under `name` (something pages show that
    only a change of the scenario changes, like its log of steps: every step comes with a new
    version)."""
    key = f"arbiter:{name}:{PAGE_REVISION}:{scenario.share_token}:{scenario.version}"
    value = cache.get(key)
    if value is None:
        value = compute()
        _keep(key, value, len(repr(value)))
    return value


#: Rendered where the CSRF token goes in a kept page, and replaced by the visitor's own token
#: on the way out (a token is per visitor; the rest of a reader's page is not).
CSRF_PLACEHOLDER = "arbiter-csrf-placeholder-f3b9c1"


def reader_content(request, scenario, context_of: Callable[[], dict]) -> SafeString:
    """The share page's `content` partial for a reader, rendered (with the context
    `context_of()` makes, only then) once per version: keyed by
    the scenario's share token (random and never reused, unlike a row id), its version, who may
    see it (visibility, club), the site address its links are written with, and whether the
    reader is signed in (a signed-in reader copies with a form, a signed-out one is sent to log
    in first). Rendered without the request, so nothing else of the visitor's own (session,
    account, messages) is kept in it."""
    club = scenario.club.name if scenario.club_id else ""
    origin = request.build_absolute_uri("/")
    address = hashlib.sha256(f"{origin}\n{club}".encode()).hexdigest()[:16]
    signed_in = bool(request.user.is_authenticated)
    key = (
        f"arbiter:reader-content:{PAGE_REVISION}:{scenario.share_token}:{scenario.version}:"
        f"{scenario.visibility}:{scenario.club_id}:{address}:{int(signed_in)}"
    )
    html = cache.get(key)
    if html is None:
        reader = {"is_authenticated": signed_in}  # all the content reads of its visitor
        html = render_to_string(
            "battlefield/scenario.html#content",
            {**context_of(), "user": reader, "csrf_token": CSRF_PLACEHOLDER},
        )
        _keep(key, html, len(html))
    return mark_safe(html.replace(CSRF_PLACEHOLDER, get_token(request)))  # noqa: S308 (ours)
