"""``evalmark compare ... --adjust holm|bh``: the paired comparison repeated for each check and
each tag, with the p-values adjusted for the family of comparisons
(:mod:`evalmark.noise._multiple`), so that testing many checks and tags does not turn noise into
findings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evalmark.noise._compare import mcnemar_exact
from evalmark.noise._multiple import ADJUSTMENTS, adjust_p_values

__all__ = ["family_rows", "family_text"]


def _verdicts(reports: Sequence[Any]) -> dict[str, dict[str, bool]]:
    """Per comparison ("check NAME", "tag NAME"): each case's verdict, by case name."""
    many = len(reports) > 1
    found: dict[str, dict[str, bool]] = {}
    for report in reports:
        for row in report.rows():
            case = f"{report.name}/{row.name}" if many else row.name
            for check, result in row.results.items():
                found.setdefault(f"check {check}", {})[case] = bool(result.passed)
            for tag in row.tags:
                found.setdefault(f"tag {tag}", {})[case] = bool(row.passed)
    return found


def family_rows(
    reports_a: Sequence[Any], reports_b: Sequence[Any], alpha: float, method: str
) -> list[dict[str, Any]]:
    """One row per check and tag found in both runs (checks first, then tags, each sorted):
    the exact McNemar test on the cases both ran, its p-value and the adjusted one."""
    a, b = _verdicts(reports_a), _verdicts(reports_b)
    names = sorted(set(a) & set(b), key=lambda n: (not n.startswith("check "), n))
    rows: list[dict[str, Any]] = []
    for name in names:
        cases = [case for case in a[name] if case in b[name]]
        if not cases:
            continue
        test = mcnemar_exact([a[name][c] for c in cases], [b[name][c] for c in cases])
        rows.append(
            {
                "comparison": name,
                "cases": len(cases),
                "worse": test.worse,
                "better": test.better,
                "p_value": test.p_value,
            }
        )
    adjusted = adjust_p_values([r["p_value"] for r in rows], method)  # type: ignore[arg-type]
    for row, p in zip(rows, adjusted, strict=True):
        finding = p <= alpha
        row["adjusted_p_value"] = p
        row["verdict"] = (
            "no difference"
            if not finding
            else ("worse" if row["worse"] > row["better"] else "better")
        )
    return rows


def family_text(rows: Sequence[dict[str, Any]], method: str, alpha: float) -> str:
    """The family's table, headed by the adjustment used."""
    from evalmark.report._render.terminal import table

    head = (
        f"\nper check and tag: {len(rows)} comparisons, p-values adjusted by "
        f"{ADJUSTMENTS[method]}, at α = {alpha:g}\n"
    )
    cells = [
        [
            r["comparison"],
            str(r["cases"]),
            str(r["worse"]),
            str(r["better"]),
            f"{r['p_value']:.4g}",
            f"{r['adjusted_p_value']:.4g}",
            "no difference" if r["verdict"] == "no difference" else f"B {r['verdict']}",
        ]
        for r in rows
    ]
    header = ["comparison", "cases", "worse", "better", "p", "adjusted p", "verdict"]
    return head + table(header, cells, right=[1, 2, 3, 4, 5])
