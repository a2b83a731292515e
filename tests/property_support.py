"""Hypothesis settings for the property tests (profiles: ``tests/conftest.py``).

A test asks for ``examples(n)``: ``n`` examples replayed identically on every run, or ten times
as many fresh ones in an exploring run (``make test-explore``).
"""

import os

from hypothesis import settings

SCALE = 10 if os.environ.get("HYPOTHESIS_PROFILE") == "explore" else 1


def examples(count: int) -> settings:
    """Settings for a property test that draws ``count`` examples in a normal run."""
    return settings(max_examples=count * SCALE, deadline=None)
