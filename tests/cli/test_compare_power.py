"""``evalmark compare`` says what its cases can detect, and why "no difference beyond noise" can
stand beside a failed gate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.noise._compare import minimum_detectable_difference
from evalmark.report import Report, write_report
from evalmark.suite._loader import load_suite
from evalmark.suite._runner import run_suite

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "golden" / "support"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def support_reports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("reports")
    suite = load_suite(SUPPORT)
    paths = []
    for build in ("healthy", "regressed"):
        (report,) = run_suite(suite, build=build, mode="replay").reports
        paths.append(write_report(report, folder / f"{build}.json"))
    return paths[0], paths[1]


def test_a_failed_gate_beside_no_difference_is_explained(
    capsys: pytest.CaptureFixture[str], support_reports: tuple[Path, Path]
) -> None:
    # 12 cases: healthy passes all 12, regressed 9 (gate: pass rate ≥ 0.9, i.e. 11 of 12).
    a, b = support_reports
    code, out, err = _run(capsys, "compare", str(a), str(b))
    assert code == 0 and err == ""
    mdd = minimum_detectable_difference(12, 3 / 12)
    assert mdd is not None
    assert f"minimum detectable difference: {mdd * 100:.1f} points of pass rate" in out
    assert "McNemar's exact test on 12 cases sees a change this large with 80% power" in out
    # the gate fails B once 2 of A's 12 passing cases fail: a drop of 16.7 points
    assert "B's gate fails at a drop of 16.7 points from A (2 of 12 cases): too small" in out
    assert '"no difference beyond noise" while B failed its gate (pass rate (cases))' in out
    assert (
        f"with 12 cases compare detects only changes of {mdd * 100:.1f} points or more, more "
        "than the drop of 16.7 points that fails the gate" in out
    )
    # the verdict stays the last line
    assert out.rstrip().splitlines()[-1].startswith("verdict: no difference")


def test_the_json_holds_the_mdd_and_the_gate(
    capsys: pytest.CaptureFixture[str], support_reports: tuple[Path, Path]
) -> None:
    a, b = support_reports
    _, out, _ = _run(capsys, "compare", str(a), str(b), "--format", "json")
    data = json.loads(out)
    assert data["minimum_detectable_difference"] == minimum_detectable_difference(12, 0.25)
    assert data["underpowered"] is True
    gate = data["gate_b"]
    assert gate["passed"] is False and gate["failed"] == ["pass rate (cases)"]
    assert gate["required_pass_rate"] == 0.9
    assert gate["drop_that_fails"] == pytest.approx(2 / 12)
    assert gate["cases_to_detect_that_drop"] > 12


def test_a_passed_gate_gets_no_explanation(
    capsys: pytest.CaptureFixture[str], support_reports: tuple[Path, Path]
) -> None:
    a, _ = support_reports
    _, out, _ = _run(capsys, "compare", str(a), str(a))
    assert "minimum detectable difference:" in out
    assert "while B failed its gate" not in out


def test_recorded_builds_of_a_suite_read_the_gate_of_the_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = _run(capsys, "compare", "healthy", "regressed", "--suite", str(SUPPORT))
    assert '"no difference beyond noise" while B failed its gate' in out


def test_without_a_gate_the_change_to_detect_is_the_option(
    capsys: pytest.CaptureFixture[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    tmp_path = tmp_path_factory.mktemp("plain")
    # reports without a gate (the pytest plugin, a plain evaluation): --detect sets the size
    paths = []
    for name, verdicts in (("a", [True] * 8), ("b", [True] * 6 + [False] * 2)):
        report = Report.from_dict(
            {
                "format": "evalmark-report",
                "version": 1,
                "name": name,
                "strategies": {"check": {}},
                "samples": [
                    {
                        "name": f"case-{i}",
                        "verdict": "pass" if ok else "fail",
                        "results": {"check": {"passed": ok, "score": float(ok)}},
                    }
                    for i, ok in enumerate(verdicts)
                ],
            }
        )
        paths.append(write_report(report, tmp_path / f"{name}.json"))
    _, out, _ = _run(capsys, "compare", *map(str, paths), "--detect", "0.1")
    assert "minimum detectable difference: " in out
    assert "a change of 10.0 points (--detect) is too small to be seen reliably here" in out
    assert "gate" not in out.split("\n", 1)[1]
    assert "8 cases in both" in out and "2 passed in A and failed in B" in out
