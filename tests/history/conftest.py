"""Fixtures of the history tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A path for a fresh history database."""
    return tmp_path / ".evalmark" / "history.sqlite"
