"""Fixtures every test gets: a fast password hasher, a rate-limit clock the test owns and an
engine deadline with room for coverage tracing; and property tests that draw the same examples
on every run."""

import os

import pytest
from hypothesis import settings

# Property tests draw the same examples on every run (derandomize), so CI on a fresh clone judges
# exactly what was judged before landing: a random draw that fails there would block a landing
# for a case nobody saw. To look for new cases, run with HYPOTHESIS_PROFILE=explore; a failure
# found that way is kept as a test of its own. (Loaded here, before any test module builds its
# own settings: those inherit every field they do not set.)
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

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


@pytest.fixture(autouse=True)
def _engine_deadline_for_a_loaded_test_machine(settings):
    """The engine's deadline is CPU time (2 s in production), and coverage tracing on a shared
    2-core CI machine doubles what a judgement costs; the deadline's own tests set a tiny one
    with override_settings, which takes precedence over this."""
    settings.ENGINE_DEADLINE = 20.0
