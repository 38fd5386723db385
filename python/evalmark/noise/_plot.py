"""The tuning plot: false-alarm and miss probability against threshold, one colour per noise level.

Needs matplotlib (``pip install 'evalmark[plot]'``); it is imported only when a plot is drawn.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from evalmark.errors import OptionalDependencyError
from evalmark.noise._tuning import TuneReport


def plot_tuning(report: TuneReport, path: str | Path) -> Path:
    """Draw the report to ``path`` (format from its suffix, e.g. .png or .svg); returns the path."""
    pyplot = _pyplot()
    target = Path(path)
    figure, axes = pyplot.subplots(figsize=(8, 5))
    try:
        colours = pyplot.rcParams["axes.prop_cycle"].by_key()["color"]
        for index, level in enumerate(report.levels):
            rows = sorted(level.rows, key=lambda row: row.gate.min_passing)
            x = [row.gate.min_passing / report.cases for row in rows]
            colour = colours[index % len(colours)]
            label = level.rates.label
            axes.step(
                x,
                [r.healthy_fails for r in rows],
                where="pre",
                color=colour,
                marker="o",
                label=f"false alarm, {label}",
            )
            axes.step(
                x,
                [r.miss for r in rows],
                where="pre",
                color=colour,
                linestyle="--",
                marker="x",
                label=f"miss, {label}",
            )
        targets = {report.max_false_alarm: "false-alarm target", report.max_miss: "miss target"}
        if report.max_false_alarm == report.max_miss:
            targets = {report.max_miss: "false-alarm and miss target"}
        for value, name in targets.items():
            axes.axhline(value, color="grey", linewidth=0.8, linestyle=":", label=name)
        axes.set_xlabel(f"gate: pass rate ≥ threshold ({report.cases} cases)")
        axes.set_ylabel("probability")
        axes.set_ylim(-0.02, 1.02)
        axes.set_title("Gate risk under judge noise")
        axes.legend(fontsize="small")
        figure.tight_layout()
        figure.savefig(target)
    finally:
        pyplot.close(figure)
    return target


def _pyplot() -> Any:
    try:
        matplotlib = importlib.import_module("matplotlib")
    except ModuleNotFoundError:
        raise OptionalDependencyError("matplotlib", "plot", "plotting") from None
    matplotlib.use("Agg")
    return importlib.import_module("matplotlib.pyplot")
