"""``evalmark history html``: the history as one static, self-contained page.

The page carries its data as JSON and draws it with a small script of its own: an overview of
every run's pass rate per suite, and for the newest runs (:data:`DETAIL_RUNS`) trend charts per
check and per tag, a grid of every case's verdict in every run, filters, a case's history on
click, and the difference between two runs. The page's size does not grow with the history:
the overview averages consecutive runs into at most :data:`OVERVIEW_POINTS` points per suite,
and older runs' details stay in ``evalmark history show``. Nothing is fetched; every text from
the history (model output included) reaches the page through ``textContent``, never as markup.
"""

from __future__ import annotations

import json
import math
import re
from importlib import resources
from pathlib import Path
from typing import Any

from evalmark._files.atomic import write_atomically
from evalmark._files.text import to_utf8
from evalmark.history._queries import list_runs
from evalmark.history._store import HistoryStore

__all__ = ["DETAIL_RUNS", "dashboard_data", "render_dashboard", "write_dashboard"]

_PAGE = "dashboard.html"
_SCRIPT = "dashboard.js"
_STYLE = "dashboard.css"
_PLACEHOLDER = re.compile(r"\{\{(title|style|data|script)\}\}")


DETAIL_RUNS = 200
"""How many of the newest runs the page carries in full (every result)."""
OVERVIEW_POINTS = 400
"""At most this many points per suite in the page's overview of every run."""

# Each run's pass rate (cases): the share of its cases whose every check passed unerrored.
_RUN_RATES = """
SELECT r.id, r.suite, r.started_at, p.cases, p.cases_passed FROM runs r JOIN (
  SELECT run_id, COUNT(*) AS cases, SUM(ok) AS cases_passed FROM (
    SELECT x.run_id, MIN(CASE WHEN x.error IS NULL THEN x.passed ELSE 0 END) AS ok
    FROM results x GROUP BY x.run_id, x.case_name
  ) GROUP BY run_id
) p ON p.run_id = r.id
"""


def dashboard_data(
    store: HistoryStore, *, suite: str | None = None, detail: int = DETAIL_RUNS
) -> dict[str, Any]:
    """What the page's script reads: the newest ``detail`` runs (oldest first) with every
    result, and an overview of every run: per suite, the pass rate (cases) of each run, runs
    averaged in equal groups so that no suite has more than :data:`OVERVIEW_POINTS` points. A
    history of any length makes a page of about the same size."""
    runs = list(reversed(list_runs(store, suite=suite, limit=detail)))
    out_runs = []
    for run in runs:
        out_runs.append(
            {
                "id": run.id,
                "suite": run.suite,
                "build": run.build,
                "started": run.started_at,
                "commit": run.git_commit,
                "dirty": run.git_dirty,
                "gate": run.gate_passed,
                "results": [
                    {
                        "case": r.case,
                        "strategy": r.strategy,
                        "passed": r.passed,
                        "score": r.score,
                        "error": r.error,
                        "explanation": r.explanation,
                        "tags": list(r.tags),
                    }
                    for r in store.results_of(run.id)
                ],
            }
        )
    total = store.query(
        "SELECT COUNT(*) AS n FROM runs" + (" WHERE suite = ?" if suite else ""),
        (suite,) if suite else (),
    )[0]["n"]
    return {"runs": out_runs, "total_runs": total, "overview": _overview(store, suite)}


def _overview(store: HistoryStore, suite: str | None) -> list[dict[str, Any]]:
    """Per suite (sorted), every run's pass rate, grouped into at most OVERVIEW_POINTS points:
    each point is ``[first run id, last run id, runs, mean pass rate]``."""
    sql = _RUN_RATES + (" WHERE r.suite = ?" if suite else "") + " ORDER BY r.id"
    per_suite: dict[str, list[tuple[int, float]]] = {}
    for row in store.query(sql, (suite,) if suite else ()):
        rate = row["cases_passed"] / row["cases"] if row["cases"] else 0.0
        per_suite.setdefault(row["suite"], []).append((row["id"], rate))
    overview = []
    for name in sorted(per_suite):
        rates = per_suite[name]
        size = -(-len(rates) // OVERVIEW_POINTS)  # ceiling: equal groups of consecutive runs
        points = []
        for start in range(0, len(rates), size):
            group = rates[start : start + size]
            mean = math.fsum(rate for _, rate in group) / len(group)
            points.append([group[0][0], group[-1][0], len(group), round(mean, 6)])
        overview.append({"suite": name, "runs": len(rates), "points": points})
    return overview


def _asset(name: str) -> str:
    return resources.files("evalmark.history").joinpath("assets", name).read_text("utf-8")


def _script_safe_json(data: Any) -> str:
    """JSON that cannot end the ``<script>`` element it sits in, whatever its strings hold."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(raw, escaped)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def render_dashboard(data: dict[str, Any], *, title: str = "evalmark history") -> str:
    """The whole page as text."""
    from html import escape

    parts = {
        "title": escape(title),
        "style": _asset(_STYLE),
        "data": _script_safe_json(data),
        "script": _asset(_SCRIPT),
    }
    # One pass over the page's own text: a placeholder inside the data or the title (a
    # "{{script}}" in a case name) is text, never replaced.
    return _PLACEHOLDER.sub(lambda m: parts[m.group(1)], _asset(_PAGE))


def write_dashboard(store: HistoryStore, folder: str | Path, *, suite: str | None = None) -> Path:
    """Write ``index.html`` into ``folder`` (created if missing); returns its path."""
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    page = target / "index.html"
    title = f"evalmark history: {suite}" if suite else "evalmark history"
    write_atomically(
        page, to_utf8(render_dashboard(dashboard_data(store, suite=suite), title=title))
    )
    return page
