"""A histogram of the scores of each strategy of a report (the ``plot`` extra).

matplotlib is imported only when a plot is drawn; without it the call raises
:class:`~evalmark.errors.OptionalDependencyError` naming the extra to install.
"""

from __future__ import annotations

import importlib
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalmark.errors import OptionalDependencyError

if TYPE_CHECKING:
    from evalmark.report._model import Report

__all__ = ["score_histogram", "strategy_scores"]


def strategy_scores(
    report: Report, strategies: Sequence[str] | None = None
) -> dict[str, list[float]]:
    """The scores of each strategy (errors left out), in sample order."""
    names = list(strategies) if strategies is not None else list(report.strategies)
    unknown = [n for n in names if n not in report.strategies]
    if unknown:
        raise ValueError(
            f"no strategy named {', '.join(map(repr, unknown))} in the report; it has "
            f"{', '.join(report.strategies)}"
        )
    return {name: [r.score for r in report.column(name) if not r.is_error] for name in names}


def score_histogram(
    report: Report,
    path: str | Path,
    *,
    strategies: Sequence[str] | None = None,
    bins: int = 10,
) -> Path:
    """Draw one histogram of scores in [0, 1] per strategy (one panel each) to ``path`` (the
    format follows the suffix: .png, .svg, .pdf). The file is written whole or not at all."""
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise ValueError(f"bins must be a whole number >= 1, got {bins!r}")
    scores = strategy_scores(report, strategies)
    if not scores:
        raise ValueError("the report has no strategies to plot")
    pyplot = _pyplot()
    target = Path(path)
    figure, axes_grid = pyplot.subplots(
        len(scores), 1, figsize=(6, 2.4 * len(scores)), squeeze=False
    )
    try:
        for axes, (name, values) in zip(axes_grid[:, 0], scores.items(), strict=True):
            axes.hist(values, bins=bins, range=(0.0, 1.0), color="#4c72b0", edgecolor="white")
            axes.set_title(f"{name} ({len(values)} scores)", fontsize="medium")
            axes.set_xlim(0.0, 1.0)
            axes.set_ylabel("samples")
        axes_grid[-1, 0].set_xlabel("score")
        figure.tight_layout()
        handle, temporary = tempfile.mkstemp(
            dir=target.parent or Path("."), prefix=f".{target.name}.", suffix=target.suffix
        )
        os.close(handle)
        try:
            figure.savefig(temporary)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    finally:
        pyplot.close(figure)
    return target


def _pyplot() -> Any:
    try:
        matplotlib = importlib.import_module("matplotlib")
    except ModuleNotFoundError:
        raise OptionalDependencyError("matplotlib", "plot", "a score histogram") from None
    matplotlib.use("Agg")
    return importlib.import_module("matplotlib.pyplot")
