"""The bundled offline demo, end to end: the healthy build passes, the regressed build fails
naming its three regressions, ``evalmark tune`` reads the suite, and car-rental runs."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType

import pytest

from evalmark import load_samples
from evalmark.cli import main
from evalmark.report import SuiteReport
from evalmark.suite._application import recorded_application
from evalmark.suite._loader import load_suite

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "golden" / "support"
CAR_RENTAL = ROOT / "golden" / "car-rental"
REGRESSIONS = ("team-price-eight-users-annual", "live-chat-hours", "sso-on-team-plan")


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def failing_block(out: str) -> str:
    return out.split("failing cases", 1)[1].split("\ngate ", 1)[0]


def test_the_healthy_build_passes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "run", str(SUPPORT), "--build", "healthy", "--no-report")
    assert code == 0
    assert "suite support, build healthy, 12 cases, 3 checks, judge: RuleJudge" in out
    assert "pass rate (cases)  100.0%  >= 90%    passed  12 of 12 cases pass every check" in out
    assert "failing cases" not in out
    assert out.rstrip().endswith("gate passed")


def test_the_regressed_build_fails_naming_the_three_regressions(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run_cli(capsys, "run", str(SUPPORT), "--build", "regressed", "--no-report")
    assert code == 1
    assert "pass rate (cases)  75.0%   >= 90%    FAILED  9 of 12 cases pass every check" in out
    block = failing_block(out)
    assert block.startswith(" (3):")
    named = re.findall(r"^  (\S+)  \(FAIL\)$", block, flags=re.MULTILINE)
    assert sorted(named) == sorted(REGRESSIONS)


def test_the_wrong_price_is_caught_only_by_the_facts_check(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = run_cli(capsys, "run", str(SUPPORT), "--build", "regressed", "--no-report")
    block = failing_block(out)
    price = block.split("team-price-eight-users-annual", 1)[1].split("\n  live-chat", 1)[0]
    assert "contains-facts: 2 of 2 expected facts missing: '$290 per user per year'; '$2,320'" in (
        price
    )
    assert "caught only by contains-facts (relevancy, groundedness passed it)" in price
    hallucination = block.split("live-chat-hours", 1)[1].split("\n  sso-on", 1)[0]
    assert "caught only by groundedness (contains-facts, relevancy passed it)" in hallucination
    assert "45, seconds" in hallucination
    off_topic = block.split("sso-on-team-plan", 1)[1]
    assert "relevancy: 0% of the content words of the question appear" in off_topic


def test_the_first_build_is_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "run", str(SUPPORT), "--no-report", "-q")
    assert code == 0 and "build healthy" in out


def test_reports_are_written_and_byte_stable(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for target in ("one", "two"):
        code, out, _ = run_cli(
            capsys,
            "run",
            str(SUPPORT),
            "--build",
            "regressed",
            "--report-dir",
            str(tmp_path / target),
        )
        assert code == 1
        assert f"reports: {tmp_path / target / 'support-regressed.md'}, " in out
    for name in ("support-regressed.md", "support-regressed.json"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    document = json.loads((tmp_path / "one" / "support-regressed.json").read_text())
    assert document["metadata"] == {"suite": "support", "build": "regressed"}


def _make_builds() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_builds", SUPPORT / "builds/make_builds.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_recorded_builds_replay_the_written_answers() -> None:
    builds = _make_builds().BUILDS
    suite = load_suite(SUPPORT)
    (evaluation,) = suite.evaluations
    samples = load_samples(*evaluation.samples)
    for build in ("healthy", "regressed"):
        answer = recorded_application(evaluation.application, build, "replay")
        for sample in samples:
            assert answer(*sample.parameters) == builds[build][sample.name], (build, sample.name)
    changed = sorted(n for n in builds["healthy"] if builds["healthy"][n] != builds["regressed"][n])
    assert changed == sorted(REGRESSIONS)


def test_tune_reads_the_suite(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "tune", str(SUPPORT), "--flip", "0.03,0.08", "--runs", "0")
    assert code == 0
    assert (
        "build 'healthy' as healthy (0 of 12 cases truly failing), 'regressed' as regressed "
        in (out)
    )
    assert "(3 truly failing); 24 judged checks in all" in out
    assert "the suite's gate: pass rate >= 0.9, i.e. >= 11/12 cases" in out
    assert "judge flip rate 0.03: 12 cases, 24 judged checks; regressed build: 3 truly failing" in (
        out
    )
    assert "pass rate≥0.9167  ≥11/12  0.1557" in out
    assert "judge flip rate 0.08" in out and "recommended:" in out


def test_car_rental_passes_with_the_lexical_retrievers_known_miss(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run_cli(capsys, "run", str(CAR_RENTAL), "--report-dir", str(tmp_path))
    assert code == 0
    assert "== chatbot" in out and "== retriever" in out
    assert "semantic-similarity   10/10" in out
    assert "retrieved-segments     4/5" in out
    assert "retrieve-pets  (FAIL)" in out
    assert "14 of 15 cases pass every check" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "car-rental-chatbot-current.json",
        "car-rental-chatbot-current.md",
        "car-rental-current.json",
        "car-rental-current.md",
        "car-rental-retriever.json",
        "car-rental-retriever.md",
    ]
    suite = SuiteReport.from_json((tmp_path / "car-rental-current.json").read_text())
    assert [r.name for r in suite.reports] == ["chatbot", "retriever"]
    assert (suite.summary.passed, suite.summary.evaluations) == (24, 25)
