"""``evalmark history html``: the history as one static, self-contained page.

The page carries its data as JSON and draws it with a small script of its own: trend charts per
check and per tag, a grid of every case's verdict in every run, filters, a case's history on
click, and the difference between two runs. Nothing is fetched; every text from the history
(model output included) reaches the page through ``textContent``, never as markup.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

from evalmark._files.atomic import write_atomically
from evalmark._files.text import to_utf8
from evalmark.history._queries import list_runs
from evalmark.history._store import HistoryStore

__all__ = ["dashboard_data", "render_dashboard", "write_dashboard"]

_PAGE = "dashboard.html"
_SCRIPT = "dashboard.js"
_STYLE = "dashboard.css"
_PLACEHOLDER = re.compile(r"\{\{(title|style|data|script)\}\}")


def dashboard_data(store: HistoryStore, *, suite: str | None = None) -> dict[str, Any]:
    """Every run (oldest first) with its results, as the page's script reads them."""
    runs = list(reversed(list_runs(store, suite=suite)))
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
    return {"runs": out_runs}


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
