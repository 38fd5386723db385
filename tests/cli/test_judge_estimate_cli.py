"""``evalmark judge estimate``: PPI and PPI++ from a JSON report and people's labels, on the
support suite's regressed build and golden/support/labels.jsonl, checked by hand arithmetic."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.models._modes import MODE_ENV

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "golden" / "support"
LABELS = SUPPORT / "labels.jsonl"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(MODE_ENV, raising=False)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("estimate")
    args = ["run", str(SUPPORT), "--build", "regressed", "--report-dir", str(out)]
    assert main([*args, "--no-history", "-q"]) == 1
    return out / "support-regressed.json"


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["judge", "estimate", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_estimate_on_the_support_suite(capsys: pytest.CaptureFixture[str], report: Path) -> None:
    code, out, _ = _cli(
        capsys, str(report), "--check", "groundedness", "--labels", str(LABELS), "--json"
    )
    assert code == 0
    found = {e["method"]: e for e in json.loads(out)["estimates"]}
    # the report: the judge passes 10 of 12; on the 6 labelled cases it passes 4, people 3
    # (it passed team-price-eight-users-annual, which people failed); it passes all 6 others.
    f_lab = [1, 1, 1, 1, 0, 0]
    y = [1, 1, 1, 0, 0, 0]
    n = m = 6
    z = 1.959963984540054
    diff = [f - t for f, t in zip(f_lab, y, strict=True)]
    mean_d = sum(diff) / n
    s2_d = sum((d - mean_d) ** 2 for d in diff) / (n - 1)
    ppi = 1.0 - mean_d  # unlabelled mean 6/6
    assert found["ppi"]["estimate"] == pytest.approx(5 / 6)
    assert found["ppi"]["estimate"] == pytest.approx(ppi)
    assert found["ppi"]["low"] == pytest.approx(ppi - z * math.sqrt(s2_d / n))
    assert found["ppi"]["high"] == 1.0
    every = [1] * 10 + [0] * 2
    mean_e = sum(every) / 12
    s2_e = sum((v - mean_e) ** 2 for v in every) / 11
    mean_f, mean_y = sum(f_lab) / n, sum(y) / n
    cov = sum((a - mean_f) * (b - mean_y) for a, b in zip(f_lab, y, strict=True)) / (n - 1)
    lam = cov / ((1 + n / m) * s2_e)
    assert found["ppi++"]["lambda"] == pytest.approx(lam)
    assert found["ppi++"]["estimate"] == pytest.approx(mean_y + lam * (1.0 - mean_f))
    code, out, _ = _cli(capsys, str(report), "--check", "groundedness", "--labels", str(LABELS))
    assert "judge's pass rate (raw)  83.3% (10/12)" in out
    assert f"PPI++ (λ = {lam:.3f})" in out


def test_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], report: Path, tmp_path: Path
) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text('{"id": "nobody", "label": "pass"}\n')
    code, _, err = _cli(capsys, str(report), "--check", "groundedness", "--labels", str(labels))
    assert code == 2 and "nobody" in err and "no case of the report" in err
    labels.write_text('{"id": "live-chat-hours", "label": "maybe"}\n')
    code, _, err = _cli(capsys, str(report), "--check", "groundedness", "--labels", str(labels))
    assert code == 2 and "labels.jsonl" in err and "maybe" in err
    code, _, err = _cli(capsys, str(report), "--check", "nope", "--labels", str(LABELS))
    assert code == 2 and "its checks: contains-facts, relevancy, groundedness" in err
