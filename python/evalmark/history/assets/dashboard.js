// The history dashboard. Every value from the history is put into the page with textContent or
// as an attribute value, never parsed as markup.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("history-data").textContent);
  const SVG = "http://www.w3.org/2000/svg";
  const ALL = "";
  const el = (tag, attrs, text) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  };
  const svg = (tag, attrs) => {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    return node;
  };
  const unique = (values) => Array.from(new Set(values)).sort();
  const fill = (select, values, label) => {
    select.replaceChildren(el("option", { value: ALL }, label));
    for (const v of values) select.appendChild(el("option", { value: v }, v));
  };
  const runs = data.runs;
  const state = { suite: ALL, strategy: ALL, tag: ALL };
  const suiteSelect = document.getElementById("filter-suite");
  const strategySelect = document.getElementById("filter-strategy");
  const tagSelect = document.getElementById("filter-tag");
  fill(suiteSelect, unique(runs.map((r) => r.suite).concat((data.overview || []).map((s) => s.suite))), "every suite");
  fill(strategySelect, unique(runs.flatMap((r) => r.results.map((x) => x.strategy))), "every check");
  fill(tagSelect, unique(runs.flatMap((r) => r.results.flatMap((x) => x.tags))), "every tag");

  const selectedRuns = () => runs.filter((r) => state.suite === ALL || r.suite === state.suite);
  const keep = (x) =>
    (state.strategy === ALL || x.strategy === state.strategy) &&
    (state.tag === ALL || x.tags.includes(state.tag));
  const verdict = (x) => (x.error ? "error" : x.passed ? "pass" : "fail");

  function chart(title, points, format, count) {
    const box = el("div", { class: "chart", "data-chart": title });
    box.appendChild(el("h3", {}, title));
    const w = 320, h = 140, pad = 26;
    const plot = svg("svg", { width: w, height: h, role: "img", "aria-label": title });
    plot.appendChild(svg("line", { class: "axis", x1: pad, y1: h - pad, x2: w - 6, y2: h - pad }));
    plot.appendChild(svg("line", { class: "axis", x1: pad, y1: 6, x2: pad, y2: h - pad }));
    for (const [v, label] of [[0, "0"], [1, "1"]]) {
      const t = svg("text", { x: 4, y: (h - pad) - v * (h - pad - 6) + 3 });
      t.textContent = label;
      plot.appendChild(t);
    }
    const xs = (i) => pad + (points.length < 2 ? (w - pad - 6) / 2 : (i * (w - pad - 12)) / (points.length - 1));
    const ys = (v) => (h - pad) - v * (h - pad - 6);
    const drawn = points.filter((p) => p.value !== null);
    if (drawn.length > 1) {
      const d = drawn.map((p, i) => (i ? "L" : "M") + xs(p.index) + " " + ys(p.value)).join(" ");
      plot.appendChild(svg("path", { class: "line", d: d }));
    }
    for (const p of drawn) {
      const dot = svg("circle", { class: "point", cx: xs(p.index), cy: ys(p.value), r: 3.5, "data-run": p.run });
      const tip = svg("title", {});
      tip.textContent = (p.label || "run " + p.run) + ": " + format(p.value);
      dot.appendChild(tip);
      plot.appendChild(dot);
    }
    const last = svg("text", { x: pad + 4, y: h - 8 });
    last.textContent = (count === undefined ? points.length : count) + " runs" + (drawn.length ? ", last " + format(drawn[drawn.length - 1].value) : "");
    plot.appendChild(last);
    box.appendChild(plot);
    return box;
  }

  function series(rs, pick) {
    return rs.map((run, index) => {
      const xs = run.results.filter(pick);
      const value = xs.length ? xs.reduce((s, x) => s + x.score, 0) / xs.length : null;
      return { index: index, run: run.id, value: value };
    });
  }
  // The share of cases whose every selected check passed: the gate's definition of pass rate.
  function passSeries(rs, pick) {
    return rs.map((run, index) => {
      const cases = new Map();
      for (const x of run.results.filter(pick)) cases.set(x.case, (cases.get(x.case) ?? true) && x.passed && !x.error);
      const value = cases.size ? Array.from(cases.values()).filter(Boolean).length / cases.size : null;
      return { index: index, run: run.id, value: value };
    });
  }

  function drawCharts(rs) {
    const box = document.getElementById("charts");
    box.replaceChildren();
    const wrap = el("div", { class: "charts" });
    const pct = (v) => (100 * v).toFixed(1) + "%";
    wrap.appendChild(chart("pass rate (cases)", passSeries(rs, keep), pct));
    const strategies = unique(rs.flatMap((r) => r.results.filter(keep).map((x) => x.strategy)));
    for (const s of strategies) {
      wrap.appendChild(chart("mean score: " + s, series(rs, (x) => keep(x) && x.strategy === s), (v) => v.toFixed(3)));
    }
    const tags = unique(rs.flatMap((r) => r.results.filter(keep).flatMap((x) => x.tags)));
    for (const t of tags) {
      wrap.appendChild(chart("pass rate (cases), tag " + t, passSeries(rs, (x) => keep(x) && x.tags.includes(t)), pct));
    }
    box.appendChild(wrap);
  }

  function caseKeys(rs) {
    return unique(rs.flatMap((r) => r.results.filter(keep).map((x) => x.case)));
  }

  function drawGrid(rs) {
    const box = document.getElementById("grid");
    box.replaceChildren();
    const table = el("table", { id: "case-grid" });
    const head = el("tr");
    head.appendChild(el("th", {}, "case"));
    for (const r of rs) head.appendChild(el("th", { title: r.started }, "#" + r.id));
    table.appendChild(head);
    for (const name of caseKeys(rs)) {
      const row = el("tr", { class: "case-row", "data-case": name });
      row.appendChild(el("td", { class: "name" }, name));
      for (const r of rs) {
        const xs = r.results.filter((x) => x.case === name && keep(x));
        const v = !xs.length ? "none" : xs.some((x) => x.error) ? "error" : xs.every((x) => x.passed) ? "pass" : "fail";
        row.appendChild(el("td", { class: "cell " + v, title: v }, { pass: "✓", fail: "✗", error: "!", none: "·" }[v]));
      }
      row.addEventListener("click", () => showCase(name, rs));
      table.appendChild(row);
    }
    box.appendChild(table);
  }

  function showCase(name, rs) {
    const box = document.getElementById("case-history");
    box.hidden = false;
    box.replaceChildren(el("h3", {}, "history of " + name));
    const table = el("table", { id: "case-history-table" });
    const head = el("tr");
    for (const h of ["run", "started", "check", "verdict", "score", "explanation"]) head.appendChild(el("th", {}, h));
    table.appendChild(head);
    for (const r of rs) {
      for (const x of r.results.filter((x) => x.case === name && keep(x))) {
        const row = el("tr");
        row.appendChild(el("td", {}, "#" + r.id));
        row.appendChild(el("td", {}, r.started));
        row.appendChild(el("td", {}, x.strategy));
        row.appendChild(el("td", { class: "cell " + verdict(x) }, verdict(x)));
        row.appendChild(el("td", {}, x.score.toFixed(3)));
        row.appendChild(el("td", { class: "explanation" }, x.error || x.explanation));
        table.appendChild(row);
      }
    }
    box.appendChild(table);
  }

  const diffA = document.getElementById("diff-a");
  const diffB = document.getElementById("diff-b");
  function fillDiff(rs) {
    const ids = rs.map((r) => String(r.id));
    for (const s of [diffA, diffB]) {
      s.replaceChildren();
      for (const id of ids) s.appendChild(el("option", { value: id }, "#" + id));
    }
    if (ids.length) {
      diffA.value = ids[Math.max(0, ids.length - 2)];
      diffB.value = ids[ids.length - 1];
    }
  }
  function drawDiff(rs) {
    const box = document.getElementById("diff");
    box.replaceChildren();
    const a = rs.find((r) => String(r.id) === diffA.value);
    const b = rs.find((r) => String(r.id) === diffB.value);
    if (!a || !b) return;
    const key = (x) => x.case + "\u0000" + x.strategy;
    const before = new Map(a.results.filter(keep).map((x) => [key(x), x]));
    const after = new Map(b.results.filter(keep).map((x) => [key(x), x]));
    const table = el("table", { id: "diff-table" });
    const head = el("tr");
    for (const h of ["change", "case", "check", "before", "after"]) head.appendChild(el("th", {}, h));
    table.appendChild(head);
    let count = 0;
    const add = (kind, x, p, q) => {
      const row = el("tr", { "data-change": kind });
      for (const t of [kind, x.case, x.strategy, p ? verdict(p) : "—", q ? verdict(q) : "—"]) row.appendChild(el("td", {}, t));
      table.appendChild(row);
      count += 1;
    };
    for (const [k, q] of after) {
      const p = before.get(k);
      if (!p) add("new", q, null, q);
      else if (p.passed !== q.passed) add(p.passed ? "regression" : "fix", q, p, q);
    }
    for (const [k, p] of before) if (!after.has(k)) add("removed", p, p, null);
    box.appendChild(count ? table : el("p", {}, "no verdict changed between #" + a.id + " and #" + b.id));
  }

  // Every run of the history, per suite: one point per run, or per group of consecutive runs
  // (their mean pass rate) in a long history; the sections below show the newest runs.
  function drawOverview() {
    const box = document.getElementById("overview");
    box.replaceChildren();
    const wrap = el("div", { class: "charts" });
    const pct = (v) => (100 * v).toFixed(1) + "%";
    for (const s of data.overview || []) {
      if (state.suite !== ALL && s.suite !== state.suite) continue;
      const points = s.points.map((p, i) => ({
        index: i, run: p[1], value: p[3],
        label: p[2] === 1 ? "run " + p[0] : "runs " + p[0] + "–" + p[1] + " (" + p[2] + ")",
      }));
      wrap.appendChild(chart("pass rate (cases), every run: " + s.suite, points, pct, s.runs));
    }
    box.appendChild(wrap);
  }

  function draw() {
    const rs = selectedRuns();
    const total = data.total_runs === undefined ? runs.length : data.total_runs;
    const shown = total > runs.length ? "the newest " + rs.length + " of " + total + " runs" : rs.length + " runs";
    document.getElementById("summary").textContent =
      shown + ", " + caseKeys(rs).length + " cases" + (state.suite ? " of " + state.suite : "");
    drawOverview();
    drawCharts(rs);
    drawGrid(rs);
    document.getElementById("case-history").hidden = true;
    drawDiff(rs);
  }
  suiteSelect.addEventListener("change", () => { state.suite = suiteSelect.value; fillDiff(selectedRuns()); draw(); });
  strategySelect.addEventListener("change", () => { state.strategy = strategySelect.value; draw(); });
  tagSelect.addEventListener("change", () => { state.tag = tagSelect.value; draw(); });
  diffA.addEventListener("change", () => drawDiff(selectedRuns()));
  diffB.addEventListener("change", () => drawDiff(selectedRuns()));
  fillDiff(selectedRuns());
  draw();
  document.body.setAttribute("data-ready", "true");  // drawn: what a browser test waits for
})();
