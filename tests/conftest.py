"""Fixtures every test gets: a fast password hasher and a rate-limit clock the test owns."""

import pytest

# A fixed instant at the start of a day, so that no test's requests straddle a rate-limit
# window (minutes, hours) by chance; a test that needs time to pass moves `rate_limit_clock`.
FROZEN_EPOCH = 1_800_000_000 - 1_800_000_000 % 86_400


class Clock:
    def __init__(self, now: float):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture(autouse=True)
def rate_limit_clock(monkeypatch):
    """The rate limits count time by this clock, not the wall clock (a test near a window's end
    would otherwise see its counters start afresh half-way)."""
    clock = Clock(float(FROZEN_EPOCH))
    try:
        from battlefield import ratelimit
    except ImportError:  # the engine's own tests run without Django
        return clock
    monkeypatch.setattr(ratelimit, "clock", clock)
    return clock


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    """Tests create many accounts; the production hasher costs ~0.3 s a password."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
