"""The starter suite as a pytest test: `pytest tests` runs it with the evalmark plugin."""

from __future__ import annotations

import sys
from pathlib import Path

from evalmark.pytest import evaluation_test
from evalmark.strategies import ContainsFacts

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from app import answer  # noqa: E402


@evaluation_test(samples=ROOT / "samples.yaml", function=answer, strategy=ContainsFacts())
def test_answers_state_the_expected_facts() -> None:
    """Every answer states every expected fact of its sample."""
