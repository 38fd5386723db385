"""The history dashboard in a real browser: headless Chromium driven by Playwright.

Skipped (with the reason) where Playwright or a Chromium executable is missing; CI installs
both (Debian's ``chromium`` and the ``playwright`` package, no browser download).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from history_builders import make_run

from evalmark.history import open_history
from evalmark.history._dashboard import write_dashboard

# generous: a busy machine starts chromium slowly (playwright waits 30 s by default)
BROWSER_MS = 120_000

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
CHROMIUM = (
    os.environ.get("EVALMARK_CHROMIUM")
    or shutil.which("chromium")
    or shutil.which("chromium-browser")
)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium executable on PATH")

HOSTILE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def page_path(tmp_path: Path) -> Path:
    db = tmp_path / "history.sqlite"
    with open_history(db) as store:
        for index, score in enumerate((0.9, 0.8, 0.7)):
            store.append(
                make_run(
                    [
                        ("refund", "facts", True, 1.0),
                        ("pricing", "f1", score >= 0.8, score),
                        ("sso", "judge", index != 1, float(index != 1)),
                    ],
                    started=f"2026-12-0{index + 1}T10:00:00Z",
                )
            )
        hostile = make_run([("injected", "judge", False, 0.0)], tags=("security",))
        results = tuple(
            r.__class__(**{**_fields(r), "explanation": HOSTILE}) for r in hostile.results
        )
        object.__setattr__(hostile, "results", results)
        store.append(hostile)
        return write_dashboard(store, tmp_path / "site")


def _fields(result: object) -> dict[str, object]:
    return {name: getattr(result, name) for name in result.__slots__}  # type: ignore[attr-defined]


def test_the_dashboard_in_chromium(page_path: Path) -> None:
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
            page.goto(page_path.as_uri())
            page.wait_for_selector("#case-grid")
            assert errors == [], errors

            # one point per run in the pass-rate chart (4 runs), and per run that has the check
            assert page.locator('[data-chart="pass rate (cases)"] circle.point').count() == 4
            assert page.locator('[data-chart="mean score: f1"] circle.point').count() == 3

            # a filter changes what is shown: the tag "security" leaves only the injected case
            assert page.locator("tr.case-row").count() == 4
            page.select_option("#filter-tag", "security")
            assert page.locator("tr.case-row").count() == 1
            page.select_option("#filter-tag", "")

            # clicking a case shows its history, one row per run
            page.click('tr.case-row[data-case="sso"]')
            assert page.locator("#case-history").is_visible()
            assert page.locator("#case-history-table tr").count() == 1 + 4 - 1  # header + 3 runs

            # the hostile explanation is shown as text and never runs
            page.click('tr.case-row[data-case="injected"]')
            assert HOSTILE in page.locator("#case-history").inner_text()
            assert page.evaluate("window.__pwned") is None

            # the diff of the last two runs lists the changed checks
            assert page.locator("#diff-table tr[data-change]").count() >= 1

            build = ROOT / "build"
            build.mkdir(exist_ok=True)
            page.screenshot(path=str(build / "history-dashboard.png"), full_page=True)
        finally:
            browser.close()
    assert errors == [], errors
