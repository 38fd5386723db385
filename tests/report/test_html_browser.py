"""The HTML report in a real browser: headless Chromium driven by Playwright.

Skipped (with the reason) where Playwright or a Chromium executable is missing, as the history
dashboard's browser test is; CI installs both.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from test_html_helpers import HOSTILE, SAMPLES, bad, make, support

from evalmark import Sample
from evalmark.gates._rules import GateResult
from evalmark.report import render_report

# generous: a busy machine starts chromium slowly (playwright waits 30 s by default)
BROWSER_MS = 120_000

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
CHROMIUM = (
    os.environ.get("EVALMARK_CHROMIUM")
    or shutil.which("chromium")
    or shutil.which("chromium-browser")
)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium executable on PATH")


def _visible_cases(page: Any) -> list[str]:
    return [
        str(el.get_attribute("id")) for el in page.locator("details.case").all() if el.is_visible()
    ]


def _visible_checks(page: Any, case: str) -> list[str]:
    # rows left shown by the filter (a passing case is closed, so is_visible would not tell)
    found = page.eval_on_selector_all(
        f"#{case} tr.check", "rows => rows.filter(r => !r.hidden).map(r => r.dataset.strategy)"
    )
    return [str(name) for name in found]


def test_the_report_in_chromium(tmp_path: Path) -> None:
    path = tmp_path / "report.html"
    path.write_text(render_report(support(), "html", samples=SAMPLES), encoding="utf-8")
    hostile_path = tmp_path / "hostile.html"
    hostile = make(
        [f"case {HOSTILE}"],
        [(f"tag {HOSTILE}",)],
        {f"check {HOSTILE}": [bad(f"reason {HOSTILE}")]},
        [f"output {HOSTILE}"],
        (GateResult(f"gate {HOSTILE}", 0.9, 0.0, False, HOSTILE),),
    )
    sample = Sample(name=f"case {HOSTILE}", parameters=[HOSTILE], expected_output=HOSTILE)
    hostile_path.write_text(render_report(hostile, "html", samples=[sample]), encoding="utf-8")
    errors: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox"], timeout=BROWSER_MS
        )
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 1400})
            page.set_default_timeout(BROWSER_MS)
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(path.as_uri())
            # the script ran (the policy allowed it): the filters are shown
            assert page.locator("#filters").is_visible()
            assert errors == [], errors
            assert page.locator("#gate h2").inner_text() == "Gate FAILED"
            assert _visible_cases(page) == ["case-3", "case-1", "case-2", "case-0", "case-4"]
            assert page.locator("#filter-shown").inner_text() == "5 of 5 cases shown"

            page.select_option("#filter-tag", "billing")
            assert _visible_cases(page) == ["case-1", "case-0"]
            page.check("#filter-failing")
            assert _visible_cases(page) == ["case-1"]
            page.select_option("#filter-tag", "")
            assert _visible_cases(page) == ["case-3", "case-1", "case-2"]
            assert page.locator("#filter-shown").inner_text() == "3 of 5 cases shown"

            # a check: only its rows, and with "failing only" only the cases it failed
            page.select_option("#filter-strategy", "groundedness")
            assert _visible_cases(page) == ["case-3", "case-2"]
            assert _visible_checks(page, "case-2") == ["groundedness"]
            page.uncheck("#filter-failing")
            assert len(_visible_cases(page)) == 5
            assert _visible_checks(page, "case-0") == ["groundedness"]
            page.select_option("#filter-strategy", "")
            assert _visible_checks(page, "case-0") == ["facts", "groundedness"]

            # hostile names, tags, outputs and reasons show as text and never run
            page.goto(hostile_path.as_uri())
            assert HOSTILE in page.locator("details.case").inner_text()
            assert page.evaluate("window.__pwned") is None
            page.select_option("#filter-tag", f"tag {HOSTILE}")
            page.check("#filter-failing")
            assert len(_visible_cases(page)) == 1
            assert errors == [], errors

            # scripts off: every case is there, the (dead) filters are not shown
            context = browser.new_context(java_script_enabled=False)
            still = context.new_page()
            still.set_default_timeout(BROWSER_MS)
            still.goto(path.as_uri())
            assert not still.locator("#filters").is_visible()
            assert len(_visible_cases(still)) == 5
            assert still.locator("#case-1 dl.io").is_visible()  # failing cases open
            context.close()
        finally:
            browser.close()
    assert errors == [], errors
