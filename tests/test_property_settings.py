"""Property tests are repeatable (tests/conftest.py): CI on a fresh clone draws the examples that
were drawn before landing, unless HYPOTHESIS_PROFILE=explore asks for new ones."""

import os

import pytest
from hypothesis import settings


@pytest.mark.skipif(
    os.environ.get("HYPOTHESIS_PROFILE", "repeatable") != "repeatable", reason="exploring"
)
def test_property_tests_draw_the_same_examples_every_run():
    # a module's own settings (as test_surge_property builds them) keep the profile's choice
    own = settings(max_examples=7, deadline=None)
    assert settings.default.derandomize is True
    assert own.derandomize is True
