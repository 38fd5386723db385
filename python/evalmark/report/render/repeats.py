"""The pass@k / pass^k section of a report made with repeated runs (``Scorer(repeats=n)``),
for the Markdown report: the overall figures, then one row per case."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evalmark.report.render.common import cell, markdown_table, number

if TYPE_CHECKING:
    from evalmark.report.model import Report

__all__ = ["repeats_markdown"]


def repeats_markdown(report: Report) -> list[str]:
    """The section's Markdown lines; none for a report without repeats."""
    repeats: Any = report.metadata.get("repeats")
    if not isinstance(repeats, Mapping):
        return []
    n, k = repeats.get("n"), repeats.get("k")
    out = [
        "",
        f"## Repeated runs: pass@{k} and pass^{k}",
        "",
        f"The application answered each case {n} times. pass@{k}: the chance that at least one "
        f"of {k} runs passes; pass^{k}: the chance that all {k} pass (unbiased estimates from "
        f"{n} runs). Overall: pass@{k} **{number(repeats.get('pass_at_k'))}**, pass^{k} "
        f"**{number(repeats.get('pass_hat_k'))}**.",
        "",
    ]
    cases: Mapping[str, Mapping[str, Any]] = repeats.get("cases", {})
    out += markdown_table(
        ["Case", "Runs passed", f"pass@{k}", f"pass^{k}"],
        [":--", "--:", "--:", "--:"],
        [
            [cell(name), f"{c['passes']} of {n}", number(c["pass_at_k"]), number(c["pass_hat_k"])]
            for name, c in cases.items()
        ],
    )
    return out
