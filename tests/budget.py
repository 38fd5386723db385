"""How many examples a property test runs: a share of the loaded Hypothesis profile.

``examples(n)`` is ``n`` under the ``ci`` profile (300 examples by default), a third of it under
``dev`` and ten times it under ``deep`` (``make test-deep``), so a test that sets its own number
of examples still follows the profile. tests/conftest.py loads the profile before any test module
is imported.
"""

from __future__ import annotations

from hypothesis import settings

_CI_EXAMPLES = 300


def examples(n: int) -> int:
    """``n`` examples scaled by the loaded profile (never fewer than 5)."""
    return max(5, round(n * settings.default.max_examples / _CI_EXAMPLES))
