"""The fixed parts of the HTML report: its style sheet, its filter script and the Content
Security Policy that allows exactly that script.

The script only hides and shows what the page already holds; with scripts off every case is
shown and the filter controls stay hidden. The policy names the script by its SHA-256 hash, so
no other script (such as one smuggled into a model output) could run even if it escaped
escaping.
"""

from __future__ import annotations

import base64
import hashlib

__all__ = ["CONTENT_SECURITY_POLICY", "SCRIPT", "STYLE"]

STYLE = """
[hidden]{display:none!important}
body{font-family:system-ui,sans-serif;margin:2rem auto;color:#1b1f24;max-width:76rem;
padding:0 1rem;line-height:1.45}
h1{margin-bottom:0.2rem} .meta{color:#57606a;margin-top:0}
table{border-collapse:collapse;margin:0.5rem 0 1.2rem}
th,td{border:1px solid #d0d7de;padding:0.3rem 0.6rem;text-align:left;vertical-align:top}
th{background:#f6f8fa} td.n{text-align:right;font-variant-numeric:tabular-nums}
tr.pass>td.v{color:#1a7f37} tr.fail>td.v,p.fail.v{color:#b3261e;font-weight:600}
tr.error>td.v,p.error.v{color:#9a6700;font-weight:600}
#gate{border:2px solid #d0d7de;border-radius:6px;padding:0.6rem 1rem;margin:1rem 0}
#gate.passed{border-color:#1a7f37;background:#f0fff4}
#gate.failed{border-color:#b3261e;background:#fff5f5}
#gate h2{margin:0.2rem 0 0.5rem} #gate.passed h2{color:#1a7f37} #gate.failed h2{color:#b3261e}
#filters{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:0.5rem 0.8rem}
#filters label{margin-right:1.2rem}
details.case{content-visibility:auto;contain-intrinsic-size:auto 2.6rem;
border:1px solid #d0d7de;border-left-width:6px;border-radius:4px;
margin:0.6rem 0;padding:0.3rem 0.8rem}
details.case.fail{border-left-color:#b3261e} details.case.error{border-left-color:#9a6700}
details.case.pass{border-left-color:#1a7f37}
details.case[open]{contain-intrinsic-size:auto 28rem}
details.case>summary{cursor:pointer;font-weight:600}
.badge{display:inline-block;min-width:3.2rem;font-size:0.8rem;text-align:center;
border-radius:3px;padding:0 0.3rem;margin-right:0.4rem;color:#fff}
.badge.pass{background:#1a7f37} .badge.fail{background:#b3261e} .badge.error{background:#9a6700}
.tag{font-weight:400;font-size:0.8rem;background:#ddf4ff;border-radius:3px;padding:0 0.3rem;
margin-left:0.3rem} .case-score{font-weight:400;color:#57606a;margin-left:0.6rem}
dl.io{display:grid;grid-template-columns:9rem 1fr;gap:0.3rem 0.8rem;margin:0.6rem 0}
dl.io dt{font-weight:600;color:#57606a} dl.io dd{margin:0}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:0;font-size:0.85rem}
ul.items,ol.items{margin:0;padding-left:1.2rem}
table.checks{width:100%} table.checks td.reason{width:60%}
details.raw summary{color:#57606a;font-size:0.85rem;cursor:pointer}
td.n.fail{color:#b3261e;font-weight:600} td.n.error{color:#9a6700;font-weight:600}
.transcript{border:1px solid #d0d7de;border-radius:6px;padding:0.4rem 1rem;margin:0.8rem 0}
.transcript h3{margin:0.3rem 0}
.turn{border-left:4px solid #d0d7de;padding:0.2rem 0.8rem 0.4rem;margin:0.6rem 0}
.turn.failing{border-left-color:#b3261e;background:#fff5f5}
.turn .who{margin:0.4rem 0 0.15rem;font-size:0.85rem;font-weight:600;color:#57606a}
.turn .who.assistant{text-align:right}
.turn-mark{margin-left:0.6rem;font-size:0.75rem;color:#fff;background:#b3261e;
border-radius:3px;padding:0 0.35rem}
.msg{border-radius:8px;padding:0.4rem 0.7rem;max-width:85%}
.msg pre{font-family:inherit;font-size:0.95rem} .msg.user{background:#ddf4ff;margin-right:auto}
.msg.assistant{background:#f6f8fa;border:1px solid #d0d7de;margin-left:auto}
.turn .tool{margin:0.2rem 0;font-size:0.85rem;text-align:right;color:#57606a}
p.flag{margin:0.4rem 0;padding:0.3rem 0.6rem;border-left:3px solid #b3261e;background:#fff;
color:#1b1f24} p.flag strong{color:#b3261e}
""".strip()

SCRIPT = """
(function () {
  "use strict";
  var panel = document.getElementById("filters");
  if (!panel) { return; }
  var tag = document.getElementById("filter-tag");
  var strategy = document.getElementById("filter-strategy");
  var failing = document.getElementById("filter-failing");
  var shown = document.getElementById("filter-shown");
  var cases = Array.prototype.map.call(document.querySelectorAll("details.case"), function (el) {
    return {
      el: el,
      tags: JSON.parse(el.getAttribute("data-tags")),
      bad: JSON.parse(el.getAttribute("data-bad")),
      checks: Array.prototype.map.call(el.querySelectorAll("tr.check"), function (row) {
        return { row: row, name: row.getAttribute("data-strategy") };
      })
    };
  });
  function apply() {
    var t = tag.value, s = strategy.value, onlyBad = failing.checked, count = 0;
    cases.forEach(function (c) {
      var keep = (t === "" || c.tags.indexOf(t) >= 0) &&
        (!onlyBad || (s === "" ? c.bad.length > 0 : c.bad.indexOf(s) >= 0));
      if (c.el.hidden === keep) { c.el.hidden = !keep; }
      if (keep) { count += 1; }
      c.checks.forEach(function (check) {
        var hide = s !== "" && check.name !== s;
        if (check.row.hidden !== hide) { check.row.hidden = hide; }
      });
    });
    shown.textContent = count + " of " + cases.length + " cases shown";
  }
  [tag, strategy, failing].forEach(function (el) { el.addEventListener("change", apply); });
  panel.hidden = false;
  apply();
})();
""".strip()


def _policy(script: str) -> str:
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'"


CONTENT_SECURITY_POLICY = _policy(SCRIPT)
