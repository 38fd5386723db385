"""A blind labelling page: one self-contained HTML file to label items pass or fail.

The items are those of a calibration set's file (``id``, ``prompt``, the prompt's variables),
read without their ``label`` and ``note``, which the page never shows: the person labelling
sees neither an earlier label nor the judge's opinion. An item may carry ``judge_score`` (the
judge's verdict, true / false, or its score from 0 to 1), used only to order the page: the
items the judge was least sure of come first, since their labels tell an estimate the most
(a score near 0.5 is uncertain, a yes/no verdict is certain). Within each band of certainty
the order is a seeded hash of the ids, so the same file and seed give the same page.

The page follows the HTML reports' rules: no network (``default-src 'none'``), styles inline
and one inline script allowed by its SHA-256 hash. The labels are kept in the browser (also in
its local storage, when the browser allows it) and exported as ``labels.jsonl``: each labelled
item with its id, prompt, variables and the label, which ``evalmark judge calibrate`` and
``evalmark judge estimate`` read.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from html import escape
from pathlib import Path
from typing import Any

from evalmark._files.atomic import write_atomically
from evalmark._files.problems import raise_problems
from evalmark._files.read import read_records, require_format
from evalmark._files.source import read_bytes
from evalmark.calibration._labels import _Checker
from evalmark.errors import CalibrationError

__all__ = ["PAGE_POLICY", "label_page", "page_items", "write_label_page"]

_HIDDEN = ("label", "note", "judge_score")

SCRIPT = r"""
(function () {
  "use strict";
  var items = JSON.parse(document.getElementById("items").textContent);
  var key = "evalmark-labels-" + document.body.dataset.page;
  var labels = {};
  try { labels = JSON.parse(window.localStorage.getItem(key) || "{}"); } catch (e) { labels = {}; }
  function save() {
    try { window.localStorage.setItem(key, JSON.stringify(labels)); } catch (e) { /* memory */ }
  }
  function exported() {
    return items.filter(function (it) { return labels[it.id]; }).map(function (it) {
      var row = {id: it.id};
      if (it.prompt !== null) { row.prompt = it.prompt; }
      Object.keys(it.values).forEach(function (k) { row[k] = it.values[k]; });
      row.label = labels[it.id];
      return JSON.stringify(row);
    }).join("\n");
  }
  function refresh() {
    var done = 0;
    items.forEach(function (it, i) {
      var mark = document.getElementById("mark-" + i);
      mark.textContent = labels[it.id] ? labels[it.id] : "not labelled";
      if (labels[it.id]) { done += 1; }
    });
    document.getElementById("progress").textContent = done + " of " + items.length + " labelled";
    var text = exported();
    document.getElementById("export-text").value = text ? text + "\n" : "";
  }
  document.querySelectorAll("button[data-label]").forEach(function (b) {
    b.addEventListener("click", function () {
      var id = items[Number(b.dataset.index)].id;
      labels[id] = b.dataset.label;
      save();
      refresh();
    });
  });
  document.getElementById("export").addEventListener("click", function () {
    var text = exported();
    var blob = new Blob([text ? text + "\n" : ""], {type: "application/x-ndjson"});
    var link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = "labels.jsonl";
    document.body.appendChild(link);
    link.click();
    link.remove();
  });
  document.getElementById("tools").hidden = false;
  refresh();
})();
"""

STYLE = (
    "body{font:15px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:60em;padding:0 1em}"
    "section.item{border:1px solid #bbb;border-radius:6px;margin:1em 0;padding:.6em 1em}"
    "pre{white-space:pre-wrap;background:#f4f4f4;padding:.5em;margin:.2em 0 .6em}"
    "h3{font-size:.85em;margin:.4em 0 0;color:#444}"
    "textarea{width:100%;height:8em}"
    "button{margin-right:.6em;padding:.3em 1em}"
)


def _policy(script: str) -> str:
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'"


PAGE_POLICY = _policy(SCRIPT)


def _certainty(score: Any) -> float:
    """0 for a judge that could not be less sure (score 0.5), 1 for a yes/no verdict; an item
    without a score counts as certain."""
    if isinstance(score, bool) or score is None:
        return 1.0
    return min(1.0, abs(float(score) - 0.5) * 2.0)


def _band(certainty: float) -> int:
    return 0 if certainty < 0.2 else 1 if certainty < 0.6 else 2


def page_items(path: str | os.PathLike[str], seed: int = 0) -> list[dict[str, Any]]:
    """The items of ``path`` in the page's order, each ``{"id", "prompt", "values"}`` without
    the hidden fields; a ``CalibrationError`` naming the file, line and field."""
    source = Path(path)
    where = str(source)
    fmt = require_format(source, CalibrationError, " of items to label")
    records = read_records(read_bytes(source, CalibrationError), where, fmt, CalibrationError)
    check = _Checker(where)
    rows: list[tuple[int, str, dict[str, Any]]] = []
    seen: set[str] = set()
    for record in records:
        value = record.value
        if not isinstance(value, dict):
            check.report(record, None, "each item is a mapping: id, prompt, the prompt's variables")
            continue
        ident = value.get("id")
        if not isinstance(ident, str) or not ident.strip() or ident in seen:
            check.report(record, None, "expected a text id, each id once", "id")
            continue
        seen.add(ident)
        score = value.get("judge_score")
        if score is not None and (
            not isinstance(score, int | float)
            or (not isinstance(score, bool) and not 0 <= score <= 1)
        ):
            check.report(
                record, ident, f"expected true, false or 0 to 1, got {score!r}", "judge_score"
            )
            continue
        prompt = value.get("prompt")
        values = {k: v for k, v in value.items() if k not in ("id", "prompt", *_HIDDEN)}
        item = {
            "id": ident,
            "prompt": prompt if isinstance(prompt, str) else None,
            "values": values,
        }
        order = hashlib.sha256(f"{seed}:{ident}".encode()).hexdigest()
        rows.append((_band(_certainty(score)), order, item))
    if check.problems:
        raise_problems(check.problems, CalibrationError)
    if not rows:
        raise CalibrationError(f"{where}: no items to label")
    return [item for _, _, item in sorted(rows, key=lambda r: (r[0], r[1]))]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)


def label_page(items: list[dict[str, Any]], title: str) -> str:
    """The page's HTML for ``items`` (as :func:`page_items` gives them)."""
    data = json.dumps(items, ensure_ascii=False).replace("<", "\\u003c")
    page = hashlib.sha256(data.encode("utf-8")).hexdigest()[:16]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{PAGE_POLICY}">',
        f"<title>Label: {escape(title)}</title><style>{STYLE}</style></head>",
        f'<body data-page="{page}"><h1>Label: {escape(title)}</h1>',
        "<p>Decide for each item whether it passes its check. The page shows no earlier label "
        "and no judge verdict. Labels stay in this browser; export them as labels.jsonl.</p>",
        '<div id="tools" hidden><p id="progress"></p>'
        '<button id="export" type="button">Export labels.jsonl</button>'
        '<textarea id="export-text" readonly aria-label="labels.jsonl"></textarea></div>',
    ]
    for index, item in enumerate(items):
        blocks = "".join(
            f"<h3>{escape(str(name))}</h3><pre>{escape(_text(value))}</pre>"
            for name, value in item["values"].items()
        )
        prompt = f" · check {escape(item['prompt'])}" if item["prompt"] else ""
        parts.append(
            f'<section class="item" id="item-{index}"><h2>{escape(item["id"])}{prompt}</h2>'
            f"{blocks}"
            f'<button type="button" data-index="{index}" data-label="pass">pass</button>'
            f'<button type="button" data-index="{index}" data-label="fail">fail</button>'
            f'<span id="mark-{index}"></span></section>'
        )
    parts.append(f'<script type="application/json" id="items">{data}</script>')
    parts.append(f"<script>{SCRIPT}</script></body></html>")
    return "\n".join(parts) + "\n"


def write_label_page(
    source: str | os.PathLike[str], target: str | os.PathLike[str], seed: int = 0
) -> Path:
    """Write the labelling page of the items in ``source`` to ``target`` (atomically)."""
    items = page_items(source, seed)
    path = Path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, label_page(items, Path(source).name).encode("utf-8"))
    return path
