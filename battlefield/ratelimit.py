"""Rate limits per client address and per signed-in user, counted in the database.

Several app servers behind one database share the counts (`RateCounter` rows), so nothing is
kept in process memory. Each scope (sign-up, log-in, password reset, import, the adjudication
API) allows `count` requests per `seconds` window, per client address and, when signed in, per
user; the next one is refused with `RateLimited`, which battlefield/middleware.py answers with
429, a plain message and `Retry-After`.

Limits come from `settings.RATE_LIMITS` ({scope: (count, seconds)}); each can be changed with
the environment variable `RATE_LIMIT_<SCOPE>=count/seconds` (README "Configuration"). Only
POST requests are counted.

Windows are fixed (the count starts afresh every `seconds`): simple, one row per key and
window, one UPDATE per request. A burst across a window boundary may pass up to twice the count,
which is fine for turning away floods.
"""

from __future__ import annotations

import functools
import hashlib
import time

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F

from .models import RateCounter


class RateLimited(Exception):
    """Too many requests of one kind from one client address or user."""

    def __init__(self, scope: str, count: int, seconds: int, retry_after: int):
        self.scope, self.count, self.seconds, self.retry_after = scope, count, seconds, retry_after
        super().__init__(self.message)

    @property
    def message(self) -> str:
        what = SCOPE_NAMES.get(self.scope, self.scope)
        return (
            f"Too many {what}: at most {self.count} {rate(self.seconds)}. "
            f"Please wait {duration(self.retry_after)} and try again."
        )


SCOPE_NAMES = {
    "signup": "sign-ups",
    "login": "log-in attempts",
    "login_address": "log-in attempts from your network",
    "login_account": "failed log-ins on this account",
    "password_reset": "password reset requests",
    "import": "imports",
    "api": "adjudication requests",
}


def rate(seconds: int) -> str:
    """'a minute', 'an hour', 'every 5 minutes' (for 'at most 3 a minute')."""
    text = duration(seconds)
    return text if text.startswith("a") else f"every {text}"


def duration(seconds: int) -> str:
    if seconds % 3600 == 0:
        hours = seconds // 3600
        return "an hour" if hours == 1 else f"{hours} hours"
    if seconds % 60 == 0:
        minutes = seconds // 60
        return "a minute" if minutes == 1 else f"{minutes} minutes"
    return "a second" if seconds == 1 else f"{seconds} seconds"


def client_address(request) -> str:
    """The client's address. Behind `TRUSTED_PROXIES` proxies, the address the outermost trusted
    proxy saw (X-Forwarded-For, counted from the right, so a client cannot forge it)."""
    proxies = getattr(settings, "TRUSTED_PROXIES", 0)
    if proxies:
        hops = [h.strip() for h in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        hops = [h for h in hops if h]
        if len(hops) >= proxies:
            return hops[-proxies]
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def limit_for(scope: str) -> tuple[int, int] | None:
    """(count, seconds) for a scope, or None when it has no limit."""
    limit = settings.RATE_LIMITS.get(scope)
    if not limit or limit[0] <= 0:
        return None
    return int(limit[0]), int(limit[1])


def _count(key: str, window: int) -> int:
    """Add one to the counter of `key` in `window` and return the new count (atomic: a
    conditional UPDATE, or an INSERT that a concurrent INSERT may beat, then UPDATE)."""
    counters = RateCounter.objects.filter(key=key, window=window)
    with transaction.atomic():
        if not counters.update(count=F("count") + 1):
            try:
                with transaction.atomic():
                    RateCounter.objects.create(key=key, window=window, count=1)
                # A new window: the key's old windows are of no more use.
                RateCounter.objects.filter(key=key, window__lt=window).delete()
                return 1
            except IntegrityError:
                counters.update(count=F("count") + 1)
        return counters.values_list("count", flat=True).get()


def clock() -> float:
    """The time rate-limit windows are counted by (seconds since the epoch); tests replace it."""
    return time.time()


def _peek(key: str, window: int) -> int:
    """The count of `key` in `window`, without counting."""
    return (
        RateCounter.objects.filter(key=key, window=window).values_list("count", flat=True).first()
        or 0
    )


def _count_below(key: str, window: int, count: int) -> bool:
    """Add one to the counter of `key` in `window` if it is below `count` (one conditional
    UPDATE, atomic on its own); False, counting nothing, when there is no counter yet in this
    window or it has reached `count` (the caller then takes the long way: refuse, or start the
    window's counter)."""
    below = RateCounter.objects.filter(key=key, window=window, count__lt=count)
    return bool(below.update(count=F("count") + 1))


def hashed(text: str) -> str:
    """A fixed-size key part for text a client chose (a user name tried): any characters, any
    length, always a short, storable key."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def check(
    request,
    scope: str,
    *,
    also: tuple[str, ...] = (),
    client: bool = True,
    now: float | None = None,
) -> None:
    """Count this request in `scope` for its user when signed in, else for its address (a club's
    wifi is one address for everyone, so a signed-in user is counted alone; `client=False`:
    neither), and for any `also` keys; raise RateLimited over the limit.

    A request already over a limit is refused without being counted, so a flood of refused
    requests writes nothing (the rows stay bounded by the keys that were allowed)."""
    limit = limit_for(scope)
    if limit is None:
        return
    count, seconds = limit
    now = clock() if now is None else now
    window = int(now // seconds * seconds)
    user = getattr(request, "user", None)
    if not client:  # only the `also` keys
        keys = []
    elif user is not None and user.is_authenticated:
        keys = [f"{scope}:user:{user.pk}"]
    else:
        keys = [f"{scope}:addr:{client_address(request)}"]
    keys = [key[:200] for key in keys + [f"{scope}:{key}" for key in also]]
    if len(keys) == 1 and _count_below(keys[0], window, count):
        return  # the usual request, well within its limit: counted in one query
    refusal = RateLimited(scope, count, seconds, max(1, int(window + seconds - now)))
    if any(_peek(key, window) >= count for key in keys):
        raise refusal
    over = False
    for key in keys:
        over |= _count(key, window) > count
    if over:
        raise refusal


def over_limit(scope: str, key: str, *, now: float | None = None) -> RateLimited | None:
    """The refusal `key` has earned in `scope` (without counting), or None."""
    limit = limit_for(scope)
    if limit is None:
        return None
    count, seconds = limit
    now = clock() if now is None else now
    window = int(now // seconds * seconds)
    if _peek(f"{scope}:{key}"[:200], window) >= count:
        return RateLimited(scope, count, seconds, max(1, int(window + seconds - now)))
    return None


def count_event(scope: str, key: str, *, now: float | None = None) -> None:
    """Count one event of `key` in `scope` (e.g. a failed log-in on an account)."""
    limit = limit_for(scope)
    if limit is not None:
        now = clock() if now is None else now
        _count(f"{scope}:{key}"[:200], int(now // limit[1] * limit[1]))


def rate_limit(scope: str):
    """Decorate a view: its POST requests count against `scope`."""

    def decorate(view):
        @functools.wraps(view)
        def wrapped(request, *args, **kwargs):
            if request.method == "POST":
                check(request, scope)
            return view(request, *args, **kwargs)

        return wrapped

    return decorate


def purge(older_than_seconds: int = 86_400, *, now: float | None = None) -> int:
    """Delete counters of windows that started long ago (`manage.py purge`)."""
    now = clock() if now is None else now
    deleted, _ = RateCounter.objects.filter(window__lt=now - older_than_seconds).delete()
    return deleted
