"""What pages keep between requests, per scenario version (issue 16).

A scenario's version moves on with every change and never comes back to an old document, so
anything computed from (share token, version) can be kept without ever going stale:

- `situation_of`: the Situation (building a busy table costs ~50 ms), kept in this process (a
  Situation is not worth pickling). The engine's own memo rides on it, so the navigators and the
  stepper's reach overlays (`stepper.reach_overlays`) are kept per version too.
- `page_drawing`: the table SVG and its legend rows for the scenario page and the share page,
  drawn once (one scene for both) and kept in Django's cache framework, so every app server
  shares it when CACHES points at Redis (each keeps its own with the default local memory).

Both are thread-safe: the local cache takes a lock; Django's caches are safe across threads.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from pathlib import Path

from django.conf import settings
from django.core.cache import cache

from .pictures import table_svg_and_legend

#: Situations by (share token, version).
_SITUATIONS: OrderedDict = OrderedDict()
SITUATION_CACHE = 32
_SITUATIONS_LOCK = threading.Lock()


def situation_of(scenario):
    """`scenario.situation`, built once per version."""
    key = (scenario.share_token, scenario.version)
    with _SITUATIONS_LOCK:
        situation = _SITUATIONS.get(key)
        if situation is not None:
            _SITUATIONS.move_to_end(key)
            return situation
    situation = scenario.situation
    with _SITUATIONS_LOCK:
        _SITUATIONS[key] = situation
        while len(_SITUATIONS) > SITUATION_CACHE:
            _SITUATIONS.popitem(last=False)
    return situation


def _revision() -> str:
    """Changes whenever the drawing code or template does: a deploy never serves an old drawing
    from a shared cache that outlived it."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in (
        here / "scene.py",
        here / "pictures.py",
        Path(settings.BASE_DIR) / "templates" / "battlefield" / "table.svg",
    ):
        digest.update(path.read_bytes() if path.exists() else b"")
    return digest.hexdigest()[:12]


DRAWING_REVISION = _revision()
#: A day: versions move on, so old entries are only ever evicted, never wrong.
DRAWING_TIMEOUT = 86400


def page_drawing(scenario) -> dict:
    """{"svg": the table as safe SVG markup, "legend_rows": pictures.LegendRow list} for the
    scenario's current version."""
    key = f"arbiter:page-drawing:{DRAWING_REVISION}:{scenario.share_token}:{scenario.version}"
    drawing = cache.get(key)
    if drawing is None:
        svg, rows = table_svg_and_legend(situation_of(scenario))
        drawing = {"svg": svg, "legend_rows": rows}
        cache.set(key, drawing, DRAWING_TIMEOUT)
    return drawing
