"""The score histogram per strategy."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from evalmark import Sample, Scorer
from evalmark.errors import OptionalDependencyError
from evalmark.report._plot import score_histogram, strategy_scores
from evalmark.strategies import ExactMatch, TokenF1


def _report() -> Any:
    samples = [
        Sample(name=f"s{i}", parameters=[i], expected_output="the cat sat") for i in range(4)
    ]
    said = ["the cat sat", "a cat sat", "dog", "the cat"]
    return Scorer().evaluate(samples, lambda i: said[i], ExactMatch(), TokenF1(0.5))


def test_scores_per_strategy() -> None:
    scores = strategy_scores(_report())
    assert scores["ExactMatch"] == [1.0, 0.0, 0.0, 0.0]
    assert scores["TokenF1"][0] == 1.0 and scores["TokenF1"][2] == 0.0
    with pytest.raises(ValueError, match="no strategy named 'Nope'"):
        strategy_scores(_report(), ["Nope"])


def test_histogram_is_written(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    target = score_histogram(_report(), tmp_path / "scores.png", bins=5)
    assert target.read_bytes().startswith(b"\x89PNG")
    assert [p.name for p in tmp_path.iterdir()] == ["scores.png"]
    with pytest.raises(ValueError, match="bins"):
        score_histogram(_report(), tmp_path / "x.png", bins=0)


def test_without_matplotlib_the_error_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # None in sys.modules makes any import of matplotlib raise ModuleNotFoundError
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(OptionalDependencyError, match=r"evalmark\[plot\]"):
        score_histogram(_report(), tmp_path / "x.png")
    assert list(tmp_path.iterdir()) == []
