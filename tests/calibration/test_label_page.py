"""``evalmark label build``: the blind labelling page. Its content and order here; in headless
Chromium (skipped without Playwright or a chromium executable, as the reports' browser tests
are): label three items, export labels.jsonl, calibrate the judge from the export."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from evalmark.calibration._label_page import PAGE_POLICY, SCRIPT, page_items
from evalmark.cli import main

# generous: a busy machine starts chromium slowly (playwright waits 30 s by default)
BROWSER_MS = 120_000

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "golden" / "judge-calibration"
HOSTILE = "</script><script>alert(1)</script><b>&amp;"


def _items(tmp_path: Path, scores: dict[str, Any]) -> Path:
    rows = [json.loads(line) for line in (GOLDEN / "labels.jsonl").read_text().splitlines()]
    for row in rows:
        if row["id"] in scores:
            row["judge_score"] = scores[row["id"]]
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_the_page_is_blind_ordered_and_locked_down(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = _items(tmp_path, {"c01-refund-annual-right": 0.5, "c03-team-price-right": 0.7})
    ordered = page_items(items, seed=4)
    assert [i["id"] for i in ordered[:2]] == ["c01-refund-annual-right", "c03-team-price-right"]
    assert ordered == page_items(items, seed=4) and ordered != page_items(items, seed=5)
    assert page_items(items, seed=5)[:2] == ordered[:2]  # the uncertain band comes first always
    out = tmp_path / "labels.html"
    assert main(["label", "build", str(items), "-o", str(out), "--seed", "4"]) == 0
    html = out.read_text()
    for hidden in ('"label"', '"note"', "judge_score", "states the 30-day window"):
        assert hidden not in html
    digest = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in PAGE_POLICY and PAGE_POLICY in html
    assert "default-src 'none'" in html and "http" not in html.replace("http-equiv", "")
    inline = re.findall(r"<script>(.*?)</script>", html, re.S)
    assert inline == [SCRIPT]  # one executed script, the hashed one
    hostile = tmp_path / "hostile.jsonl"
    hostile.write_text(json.dumps({"id": HOSTILE, "outputs": HOSTILE}) + "\n")
    assert main(["label", "build", str(hostile), "-o", str(tmp_path / "h.html")]) == 0
    text = (tmp_path / "h.html").read_text()
    assert text.count("<script>alert(1)") == 0 and len(re.findall(r"<script>", text)) == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "judge_score": 3}\n')
    capsys.readouterr()
    assert main(["label", "build", str(bad), "-o", str(tmp_path / "b.html")]) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl" in err and "judge_score" in err and "Traceback" not in err


sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
CHROMIUM = (
    os.environ.get("EVALMARK_CHROMIUM")
    or shutil.which("chromium")
    or shutil.which("chromium-browser")
)


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium executable on PATH")
def test_label_three_items_export_and_calibrate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = _items(tmp_path, {})
    page = tmp_path / "labels.html"
    assert main(["label", "build", str(items), "-o", str(page)]) == 0
    order = [i["id"] for i in page_items(items)]
    chosen = {order[0]: "pass", order[1]: "fail", order[2]: "pass"}
    exported = tmp_path / "export.jsonl"
    errors: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox"], timeout=BROWSER_MS
        )
        try:
            context = browser.new_context(accept_downloads=True)
            tab = context.new_page()
            tab.set_default_timeout(BROWSER_MS)
            tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            tab.on("pageerror", lambda e: errors.append(str(e)))
            tab.goto(page.as_uri())
            assert tab.locator("#tools").is_visible()  # the script ran under the policy
            assert tab.locator("#progress").inner_text() == "0 of 44 labelled"
            for index, label in enumerate(chosen.values()):
                tab.click(f"#item-{index} button[data-label={label}]")
            assert tab.locator("#progress").inner_text() == "3 of 44 labelled"
            assert tab.locator("#mark-1").inner_text() == "fail"
            with tab.expect_download() as download:
                tab.click("#export")
            download.value.save_as(str(exported))
            shown = tab.locator("#export-text").input_value()
            assert errors == [], errors
        finally:
            browser.close()
    text = exported.read_text()
    assert text == shown
    rows = [json.loads(line) for line in text.splitlines()]
    assert {r["id"]: r["label"] for r in rows} == chosen
    assert all("judge_score" not in r and "note" not in r for r in rows)
    capsys.readouterr()
    cassette = f"cassette:{GOLDEN / 'judge.jsonl'}"
    code = main(["judge", "calibrate", str(exported), "--judge", cassette, "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["items"] == 3
    replies = {
        json.loads(line)["id"]: json.loads(line)["reply"]
        for line in (GOLDEN / "judge-replies.jsonl").read_text().splitlines()
    }

    def verdict(reply: str) -> bool:
        try:
            return bool(json.loads(reply)["score"])
        except ValueError:
            return False  # an unreadable reply counts as a fail

    agree = sum(verdict(replies[i]) == (label == "pass") for i, label in chosen.items())
    assert result["accuracy"] == pytest.approx(agree / 3)
