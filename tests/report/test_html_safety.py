"""The HTML report is safe to open: every run text escaped (``<script>``, ``</script>``,
quotes in names, tags, checks, outputs, inputs and gates), nothing fetched, only the page's own
script allowed by the Content Security Policy, filter data as JSON attributes, and judge
explanations shown without their verdict line."""

from __future__ import annotations

import base64
import hashlib
import json
import re

import pytest
from test_html_helpers import (
    HOSTILE,
    SAMPLES,
    bad,
    cases,
    make,
    make_named,
    parse,
    support,
)

from evalmark import Sample
from evalmark.gates._rules import GateResult
from evalmark.report import render_report
from evalmark.report._render.html_inputs import judge_reason


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("Supported.\nVERDICT: yes", "Supported."),
        ("Supported. VERDICT: NO", "Supported."),
        ("Supported.\n**Verdict:** yes\n", "Supported."),
        ("Close enough.\nGRADE: 4", "Close enough."),
        ("VERDICT: no", ""),
        ("The VERDICT: no line came first, then this reason.", None),
        ("no verdict here", None),
        ("x" * 10_000 + " VERDICT: yes", "x" * 10_000),
        ("overturned the verdict: yesterday's", None),
    ],
)
def test_judge_reason(text: str, reason: str | None) -> None:
    assert judge_reason(text) == (text if reason is None else reason)


def test_filters_list_tags_and_checks_and_start_hidden() -> None:
    doc = parse(render_report(support(), "html"))
    form = doc.by_id("filters")
    assert "hidden" in form.attrs  # shown by the script only: nothing dead with scripts off
    tags = [o.attrs["value"] for o in doc.by_id("filter-tag").find_all("option")]
    checks = [o.attrs["value"] for o in doc.by_id("filter-strategy").find_all("option")]
    assert tags == ["", "billing", "pricing", "smoke", "support"]
    assert checks == ["", "facts", "groundedness"]
    assert doc.by_id("filter-failing").attrs["type"] == "checkbox"
    data = {
        c.attrs["id"]: (json.loads(str(c.attrs["data-tags"])), json.loads(str(c.attrs["data-bad"])))
        for c in cases(doc)
    }
    assert data["case-1"] == (["billing", "pricing"], ["facts"])
    assert data["case-3"] == (["smoke"], ["facts", "groundedness"])
    assert data["case-4"] == ([], [])


def test_self_contained_and_the_policy_allows_only_the_inline_script() -> None:
    page = render_report(support(), "html", samples=SAMPLES)
    doc = parse(page)
    scripts = doc.find_all("script")
    assert len(scripts) == 1 and "src" not in scripts[0].attrs
    for node in doc.iter():
        for key in ("src", "href", "action", "srcset"):
            assert key not in node.attrs, (node.tag, key)
    assert not re.search(r"https?://|url\(|@import", page)
    (policy,) = [
        m.attrs["content"]
        for m in doc.find_all("meta")
        if m.attrs.get("http-equiv") == "Content-Security-Policy"
    ]
    digest = base64.b64encode(hashlib.sha256(scripts[0].text.encode()).digest()).decode()
    assert policy == (
        f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'"
    )


def test_every_run_text_is_escaped() -> None:
    hostile = HOSTILE
    report = make(
        [f"case {hostile}"],
        [(f"tag {hostile}",)],
        {f"check {hostile}": [bad(f"reason {hostile}\nVERDICT: no")]},
        [f"output {hostile}"],
        (GateResult(f"gate {hostile}", 0.9, 0.0, False, f"detail {hostile}"),),
    )
    sample = Sample(
        name=f"case {hostile}",
        parameters=[f"input {hostile}"],
        expected_output=f"expected {hostile}",
        expected_facts=[f"fact {hostile}"],
        context=[f"context {hostile}"],
    )
    report = make_named(report, f"report {hostile}")
    page = render_report(report, "html", samples=[sample])
    doc = parse(page)
    assert len(doc.find_all("script")) == 1 and doc.find_all("img") == []
    assert "<img" not in page and "window.__pwned" not in page.split("<script>")[-1]
    assert page.count("</script>") == 1
    texts = doc.text
    for where in ("case", "tag", "check", "output", "gate", "detail", "input", "expected"):
        assert f"{where} {hostile}" in texts, where
    for where in ("fact", "context", "report", "reason"):
        assert f"{where} {hostile}" in texts, where
    case = cases(doc)[0]
    assert json.loads(str(case.attrs["data-tags"])) == [f"tag {hostile}"]
    assert json.loads(str(case.attrs["data-bad"])) == [f"check {hostile}"]
    options = [o.attrs["value"] for o in doc.by_id("filter-strategy").find_all("option")]
    assert options == ["", f"check {hostile}"]
