"""``evalmark run --judge-rates`` and the suite's ``judge-rates:``: judged pass rates beside
their correction for the judge, in the terminal and in every report format. The figures are
checked against counts read from the JSON report's results and the Rogan–Gladen formula."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.models._modes import MODE_ENV
from evalmark.noise import JudgeRates, RateCounts, write_rates
from evalmark.noise._correction import corrected_rate
from evalmark.report import Report, render_report

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "golden" / "support"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(MODE_ENV, raising=False)


@pytest.fixture
def rates(tmp_path: Path) -> Path:
    # the counts golden/judge-calibration gives (tests/cli/test_judge_cli.py checks them)
    return write_rates(
        tmp_path / "rates.json",
        JudgeRates(RateCounts(4, 21), RateCounts(5, 23), source="calibration"),
    )


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["run", *args, "--no-history"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _expected(document: dict, check: str, tag: str | None) -> tuple[int, int, float]:
    """(passed, judged, Rogan–Gladen estimate) counted from the report's own results."""
    rows = [r for r in document["samples"] if tag is None or tag in (r.get("tags") or [])]
    verdicts = [r["results"][check]["passed"] for r in rows]
    passed, judged = sum(verdicts), len(verdicts)
    fp, ff = 4 / 21, 5 / 23
    return passed, judged, min(max((passed / judged - fp) / (1 - fp - ff), 0.0), 1.0)


def test_run_shows_and_writes_corrected_rates(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rates: Path
) -> None:
    out_dir = tmp_path / "out"
    code, out, _ = _run(
        capsys,
        str(SUPPORT),
        "--build",
        "regressed",
        "--judge-rates",
        str(rates),
        "--report-dir",
        str(out_dir),
    )
    assert code == 1  # the regressed build fails its gate, corrected or not
    assert "corrected for the judge (false pass 4/21, false fail 5/23; 95% intervals)" in out
    report = Report.read(out_dir / "support-regressed.json")
    found = report.metadata["judge_correction"]
    assert {row["check"] for row in found["rows"]} == {"relevancy", "groundedness"}
    document = json.loads((out_dir / "support-regressed.json").read_text())
    for row in found["rows"]:
        passed, judged, estimate = _expected(document, row["check"], row["tag"])
        assert (row["passed"], row["judged"]) == (passed, judged)
        assert row["raw"] == pytest.approx(passed / judged)
        assert row["corrected"] == pytest.approx(estimate)
        figure = corrected_rate(passed, judged, RateCounts(4, 21), RateCounts(5, 23))
        assert (row["low"], row["high"]) == (figure.low, figure.high)
    overall = next(r for r in found["rows"] if r["check"] == "groundedness" and r["tag"] is None)
    section = out.split("corrected for the judge")[1]
    line = next(x for x in section.splitlines() if x.startswith("groundedness "))
    assert f"{100 * overall['raw']:.1f}%" in line and f"{100 * overall['low']:.1f}%" in line
    md = (out_dir / "support-regressed.md").read_text()
    html = (out_dir / "support-regressed.html").read_text()
    assert "## Corrected for the judge" in md and "| groundedness | all | 10/12 | 83.3% |" in md
    assert '<section id="judge-correction">' in html
    junit = render_report(report, "xml")
    assert '<property name="judge-corrected groundedness" value="raw 83.3% (10/12)' in junit


def test_without_rates_nothing_changes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = _run(capsys, str(SUPPORT), "--build", "healthy", "--report-dir", str(tmp_path))
    assert code == 0 and "corrected for the judge" not in out
    report = Report.read(tmp_path / "support-healthy.json")
    assert "judge_correction" not in report.metadata
    for fmt in ("md", "html", "xml"):
        assert "orrected" not in render_report(report, fmt)


def test_the_suite_key_names_the_rates_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rates: Path
) -> None:
    suite = tmp_path / "support"
    shutil.copytree(SUPPORT, suite)
    shutil.copy(rates, suite / "rates.json")
    text = (suite / "suite.yaml").read_text()
    (suite / "suite.yaml").write_text(text + "\njudge-rates: rates.json\n")
    code, out, _ = _run(capsys, str(suite), "--build", "healthy", "--no-report")
    assert code == 0 and "corrected for the judge (false pass 4/21" in out


def test_a_bad_rates_file_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "rates.json"
    bad.write_text('{"format": "evalmark-judge-rates", "false_pass": {"errors": 3}}')
    code, _, err = _run(capsys, str(SUPPORT), "--judge-rates", str(bad), "--no-report")
    assert code == 2 and "rates.json" in err and "false_pass" in err
    assert "Traceback" not in err
    chance = write_rates(tmp_path / "chance.json", JudgeRates(RateCounts(6, 10), RateCounts(5, 10)))
    code, _, err = _run(capsys, str(SUPPORT), "--judge-rates", str(chance), "--no-report")
    assert code == 2 and "chance.json" in err and "no better than chance" in err
    suite = tmp_path / "s"
    shutil.copytree(SUPPORT, suite)
    (suite / "suite.yaml").write_text((suite / "suite.yaml").read_text() + "\njudge-rates: 3\n")
    code, _, err = _run(capsys, str(suite), "--no-report")
    assert code == 2 and "judge-rates" in err and "rates file" in err
