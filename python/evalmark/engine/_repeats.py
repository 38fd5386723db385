"""pass@k and pass^k over repeated runs of the application itself.

With ``repeats=n`` the scorer calls the function under test ``n`` times per sample (run ``r``
inside ``call_context(run_index=base + r)``, so seeded fakes and cassettes tell the runs
apart) and applies every strategy to each answer. A case passes in a run when every check
passed. For a case that passed in ``c`` of ``n`` runs, with ``k <= n`` (default ``k = n``):

* pass@k, the chance that at least one of ``k`` runs passes: ``1 - C(n-c, k) / C(n, k)``;
* pass^k, the chance that all ``k`` runs pass: ``C(c, k) / C(n, k)``.

Both are the unbiased estimators from ``n`` runs; with ``k = n`` they are "some run passed"
and "every run passed". The overall figures are the means over the cases. The report of a
repeated run holds the first run's results, and its metadata ``repeats`` holds ``n``, ``k``,
the overall figures and, per case, ``passes`` (c) and both figures.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from evalmark.report._document import report_document
from evalmark.report._model import Report

__all__ = ["pass_at_k", "pass_hat_k", "repeat_summary", "with_repeats"]


def _check(n: int, c: int, k: int) -> None:
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that some of ``k`` runs pass, from ``c`` passes in ``n`` runs (unbiased)."""
    _check(n, c, k)
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """The chance that all ``k`` runs pass, from ``c`` passes in ``n`` runs (unbiased)."""
    _check(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def repeat_summary(reports: Sequence[Report], k: int | None = None) -> dict[str, Any]:
    """The ``repeats`` figures of ``n`` reports of the same samples (one per run)."""
    n = len(reports)
    if n == 0:
        raise ValueError("no runs to summarise")
    k = n if k is None else k
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= n:
        raise ValueError(f"k must be a whole number from 1 to the {n} repeats, got {k!r}")
    passes: dict[str, int] = {}
    for report in reports:
        for row in report.rows():
            passes[row.name] = passes.get(row.name, 0) + int(row.passed)
    cases = {
        name: {
            "passes": c,
            "pass_at_k": pass_at_k(n, c, k),
            "pass_hat_k": pass_hat_k(n, c, k),
        }
        for name, c in passes.items()
    }
    count = len(cases) or 1
    return {
        "n": n,
        "k": k,
        "pass_at_k": math.fsum(c["pass_at_k"] for c in cases.values()) / count,
        "pass_hat_k": math.fsum(c["pass_hat_k"] for c in cases.values()) / count,
        "cases": cases,
    }


def with_repeats(first: Report, summary: dict[str, Any]) -> Report:
    """``first`` with the ``repeats`` figures added to its metadata (through its JSON form,
    so the report is exactly what a reader of the written report gets)."""
    data = report_document(first)
    data["metadata"] = {**data.get("metadata", {}), "repeats": summary}
    return Report.from_dict(data)
