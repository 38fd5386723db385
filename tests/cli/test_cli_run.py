"""``evalmark run`` and ``evalmark report``: options, exit codes, error messages, record modes,
baselines, written reports, and the progress bar."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from evalmark.cli import _run as run_module
from evalmark.cli import main
from evalmark.report import Report, render_report

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "golden" / "support"


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --------------------------------------------------------------------------- help


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (["run"], ["evalmark run golden/support --build healthy", "exit codes:", "2  usage"]),
        (["report"], ["evalmark report diff", "exit codes:"]),
        (["report", "diff"], ["A.json", "B.json", "--max-drop"]),
        (["tune"], ["evalmark tune golden/support", "--from-cassette"]),
    ],
)
def test_help_has_an_example_and_the_exit_codes(
    capsys: pytest.CaptureFixture[str], command: list[str], expected: list[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main([*command, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for text in expected:
        assert text in out


# --------------------------------------------------------------------------- run: input errors


def test_a_bad_suite_file_exits_2_with_file_line_and_suggestion(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text("name: x\nsamples: s.yaml\ncheks: [contains]\n", encoding="utf-8")
    code, out, err = cli(capsys, "run", str(suite))
    assert code == 2 and out == ""
    assert (
        f"{suite}:3:1: cheks: unknown key 'cheks' in the suite; did you mean 'strategies'?" in err
    )
    assert f"{suite}:2:1: samples: no such file 's.yaml'" in err
    assert "did you mean" not in err.split("s.yaml'", 1)[1].split("\n", 1)[0]


def test_a_missing_suite_file_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = cli(capsys, "run", str(tmp_path / "nope.yaml"))
    assert code == 2
    assert "nope.yaml: no such file" in err


def test_an_unknown_build_lists_the_recorded_ones(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "run", str(SUPPORT), "--build", "nightly")
    assert code == 2
    assert "no build named 'nightly'; the suite records: healthy, regressed" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--concurrency", "0"], "--concurrency must be at least 1, got 0"),
        (["--max-drop", "5"], "--max-drop is a fraction between 0 and 1"),
        (["--tags", "smoke,,billing"], "--tags: empty tag in 'smoke,,billing'"),
        (
            ["--tags", "nosuchtag"],
            "no sample of the suite carries nosuchtag; the samples' tags are api,",
        ),
    ],
)
def test_bad_options_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, _, err = cli(capsys, "run", str(SUPPORT), "--no-report", *args)
    assert code == 2
    assert message in err


def test_a_bad_record_mode_is_refused_by_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["run", str(SUPPORT), "--record-mode", "sometimes"])
    assert info.value.code == 2
    assert "invalid choice: 'sometimes'" in capsys.readouterr().err


# --------------------------------------------------------------------------- run: options


def test_tags_keep_the_cases_carrying_them(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(
        capsys, "run", str(SUPPORT), "--build", "regressed", "--tags", "smoke", "--no-report"
    )
    # smoke: refund-annual-team, team-price (regressed), api, eu, free-trial
    assert "5 cases" in out
    assert "team-price-eight-users-annual" in out and "live-chat-hours" not in out
    assert "4 of 5 cases pass every check" in out
    assert code == 1


def test_concurrency_does_not_change_the_result(capsys: pytest.CaptureFixture[str]) -> None:
    _, serial, _ = cli(
        capsys, "run", str(SUPPORT), "--build", "regressed", "--concurrency", "1", "--no-report"
    )
    _, parallel, _ = cli(
        capsys, "run", str(SUPPORT), "--build", "regressed", "--concurrency", "8", "--no-report"
    )
    assert serial == parallel


def test_quiet_prints_only_failures_and_gate(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "run", str(SUPPORT), "--build", "regressed", "-q", "--no-report")
    assert code == 1
    assert "averages" not in out and "case " not in out
    assert "failing cases (3):" in out and "gate FAILED" in out


def test_reports_go_to_the_suites_dir_relative_to_the_working_directory(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = cli(capsys, "run", str(SUPPORT), "-q")
    assert code == 0
    assert "reports: out/support/support-healthy.md, out/support/support-healthy.json" in (out)
    report = json.loads((tmp_path / "out/support/support-healthy.json").read_text())
    assert report["name"] == "support"


# --------------------------------------------------------------------------- run: record modes

APP = """
ANSWERS = {"What is one?": "One is the first number.", "What is two?": "Two follows one."}
CALLS = []


def answer(question):
    CALLS.append(question)
    return ANSWERS[question]
"""

SAMPLES = """\
- name: one
  parameters: [What is one?]
  expected-output: One is the first number.
  expected-facts: [first number]
- name: two
  parameters: [What is two?]
  expected-output: Two follows one.
  expected-facts: [follows one]
"""

LIVE_SUITE = """\
name: live
samples: samples.yaml
application:
  model-id: tiny-app
  function: app.py:answer
  builds:
    main: builds/main.jsonl
strategies: [contains-facts]
gate: {pass-rate: 1.0}
"""


@pytest.fixture
def live_suite(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    (tmp_path / "samples.yaml").write_text(SAMPLES, encoding="utf-8")
    (tmp_path / "suite.yaml").write_text(LIVE_SUITE, encoding="utf-8")
    return tmp_path


def test_record_missing_records_a_build_that_then_replays(
    capsys: pytest.CaptureFixture[str], live_suite: Path
) -> None:
    cassette = live_suite / "builds/main.jsonl"
    code, out, err = cli(capsys, "run", str(live_suite), "--no-report", "--record-mode", "replay")
    assert code == 2, err  # replaying a cassette that does not exist is an input error
    assert "the cassette of build 'main' does not exist: builds/main.jsonl" in err
    assert "record" not in err.rsplit(")", 1)[1] and out == ""
    assert not cassette.exists()
    code, out, _ = cli(
        capsys, "run", str(live_suite), "--no-report", "--record-mode", "record-missing"
    )
    assert code == 0
    lines = cassette.read_text().splitlines()
    assert len(lines) == 3 and '"model":"tiny-app"' in lines[1]
    (live_suite / "app.py").write_text("def answer(question):\n    raise AssertionError\n")
    code, out, _ = cli(capsys, "run", str(live_suite), "--no-report")
    assert code == 0, out


def test_a_build_without_its_cassette_and_without_a_function(
    capsys: pytest.CaptureFixture[str], live_suite: Path
) -> None:
    text = LIVE_SUITE.replace("  function: app.py:answer\n", "")
    (live_suite / "suite.yaml").write_text(text, encoding="utf-8")
    code, _, err = cli(capsys, "run", str(live_suite), "--no-report")
    assert code == 2
    assert "suite.yaml:6: the cassette of build 'main' does not exist" in err
    assert "record" not in err.rsplit(")", 1)[1] and "fix the path" in err


@pytest.mark.parametrize("mode", ["rewrite", "off"])
def test_rewriting_a_build_needs_a_live_function(
    capsys: pytest.CaptureFixture[str], mode: str, tmp_path: Path
) -> None:
    cassette = SUPPORT / "builds" / "healthy.jsonl"
    before = cassette.read_bytes()
    code, _, err = cli(capsys, "run", str(SUPPORT), "--no-report", "--record-mode", mode)
    assert code == 2
    assert f"record mode {mode} (" in err and "calls the application, but the suite " in err
    assert "names no live 'function' for build 'healthy'; add one, or replay" in err
    assert cassette.read_bytes() == before


def test_a_live_function_alone_is_called_directly(
    capsys: pytest.CaptureFixture[str], live_suite: Path
) -> None:
    text = LIVE_SUITE.replace("  builds:\n    main: builds/main.jsonl\n", "")
    (live_suite / "suite.yaml").write_text(text, encoding="utf-8")
    code, out, _ = cli(capsys, "run", str(live_suite), "--no-report")
    assert code == 0
    assert "suite live, 2 cases, 1 check\n" in out


def test_a_function_that_cannot_be_found(
    capsys: pytest.CaptureFixture[str], live_suite: Path
) -> None:
    text = LIVE_SUITE.replace("app.py:answer", "app.py:reply").replace(
        "  builds:\n    main: builds/main.jsonl\n", ""
    )
    (live_suite / "suite.yaml").write_text(text, encoding="utf-8")
    code, _, err = cli(capsys, "run", str(live_suite), "--no-report")
    assert code == 2
    assert "function 'app.py:reply': app.py has no callable 'reply' (it has answer" in err


# --------------------------------------------------------------------------- baselines and diff


@pytest.fixture
def two_reports(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> tuple[Path, Path]:
    for build in ("healthy", "regressed"):
        cli(capsys, "run", str(SUPPORT), "--build", build, "--report-dir", str(tmp_path))
    return tmp_path / "support-healthy.json", tmp_path / "support-regressed.json"


def test_run_against_a_baseline(
    capsys: pytest.CaptureFixture[str], two_reports: tuple[Path, Path]
) -> None:
    healthy, _ = two_reports
    code, out, _ = cli(
        capsys, "run", str(SUPPORT), "--build", "healthy", "--no-report", "--baseline", str(healthy)
    )
    assert code == 0
    assert f"baseline {healthy}:" in out and "regressions (pass -> fail): 0" in out
    assert "no drop against baseline 'support'" in out and "gate passed" in out
    code, out, _ = cli(
        capsys, "run", str(SUPPORT), "--build", "regressed", "--no-report",
        "--baseline", str(healthy), "--max-drop", "1.0",
    )  # fmt: skip
    assert code == 1  # the gate fails although no drop can exceed 100 points
    assert "allowed drop 100 points" in out
    assert "regressions (pass -> fail): 5" in out


def test_a_baseline_drop_fails_the_run_even_when_the_gate_passes(
    capsys: pytest.CaptureFixture[str], live_suite: Path, tmp_path: Path
) -> None:
    text = LIVE_SUITE.replace("  builds:\n    main: builds/main.jsonl\n", "")
    (live_suite / "suite.yaml").write_text(text.replace("1.0", "0.5"), encoding="utf-8")
    code, _, _ = cli(capsys, "run", str(live_suite), "--report-dir", str(tmp_path / "base"))
    assert code == 0
    baseline = tmp_path / "base" / "live.json"
    app = (live_suite / "app.py").read_text().replace("Two follows one.", "Two is even.")
    (live_suite / "app.py").write_text(app, encoding="utf-8")
    code, out, _ = cli(
        capsys, "run", str(live_suite), "--baseline", str(baseline),
        "--report-dir", str(tmp_path / "now"),
    )  # fmt: skip
    # The drop is a gate condition: the table, the verdict, the exit code and every written
    # report agree (the gate used to say "passed" while the run exited 1).
    assert "1 of 2 cases pass every check" in out and "gate FAILED" in out
    assert "gate passed" not in out
    assert code == 1
    assert "live: no drop against baseline 'live'" in out
    assert "pass rate fell from 100.0% to 50.0% (-50.0 points)" in out
    written = json.loads((tmp_path / "now" / "live.json").read_text())
    drop = [g for g in written["gate"] if "baseline" in g["label"]]
    assert len(drop) == 1 and drop[0]["passed"] is False
    assert "no drop against baseline" in (tmp_path / "now" / "live.md").read_text()
    read_back = Report.read(tmp_path / "now" / "live.json")
    assert "no drop against baseline" in render_report(read_back, "html")
    code, _, _ = cli(
        capsys, "run", str(live_suite), "--no-report", "--baseline", str(baseline),
        "--max-drop", "0.5",
    )  # fmt: skip
    assert code == 0


def test_a_missing_baseline_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = cli(
        capsys, "run", str(SUPPORT), "--no-report", "--baseline", str(tmp_path / "none.json")
    )
    assert code == 2 and "--baseline: no such report" in err


def test_report_diff_shows_what_changed(
    capsys: pytest.CaptureFixture[str], two_reports: tuple[Path, Path]
) -> None:
    healthy, regressed = two_reports
    code, out, _ = cli(capsys, "report", "diff", str(healthy), str(regressed))
    assert code == 0
    assert out.startswith(f"{healthy} -> {regressed}\n")
    assert "overall (cases)       100.0%   75.0%   -25.0" in out
    assert "check contains-facts  100.0%   83.3%   -16.7" in out
    assert "regressions (pass -> fail): 5" in out
    assert "  team-price-eight-users-annual [contains-facts] pass -> fail: 2 of 2 expected" in out
    assert "fixes (fail -> pass): 0" in out
    code, out, _ = cli(capsys, "report", "diff", str(regressed), str(healthy))
    assert "fixes (fail -> pass): 5" in out


def test_report_diff_max_drop_gates(
    capsys: pytest.CaptureFixture[str], two_reports: tuple[Path, Path]
) -> None:
    healthy, regressed = two_reports
    code, out, _ = cli(capsys, "report", "diff", str(healthy), str(regressed), "--max-drop", "0.05")
    assert code == 1
    assert "FAILED: report 'support' dropped against baseline 'support'" in out
    code, _, _ = cli(capsys, "report", "diff", str(regressed), str(healthy), "--max-drop", "0.05")
    assert code == 0


def test_report_diff_markdown(
    capsys: pytest.CaptureFixture[str], two_reports: tuple[Path, Path]
) -> None:
    healthy, regressed = two_reports
    code, out, _ = cli(
        capsys, "report", "diff", str(healthy), str(regressed), "--format", "markdown"
    )
    assert code == 0 and out.startswith("# Comparison: support against support")


def test_report_diff_input_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, two_reports: tuple[Path, Path]
) -> None:
    healthy, _ = two_reports
    code, _, err = cli(capsys, "report", "diff", str(tmp_path / "gone.json"), str(healthy))
    assert code == 2 and "gone.json: no such report" in err
    other = tmp_path / "other.json"
    other.write_text('{"hello": 1}', encoding="utf-8")
    code, _, err = cli(capsys, "report", "diff", str(other), str(healthy))
    assert code == 2 and "other.json: not an evalmark JSON report" in err
    code, _, err = cli(capsys, "report")
    assert code == 2 and "evalmark report diff A.json B.json" in err


def test_report_render(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, two_reports: tuple[Path, Path]
) -> None:
    _, regressed = two_reports
    target = tmp_path / "out.html"
    code, _, _ = cli(
        capsys, "report", "render", str(regressed), "--format", "html", "-o", str(target)
    )
    assert code == 0
    assert target.read_text().lstrip().lower().startswith("<!doctype html")
    code, out, _ = cli(capsys, "report", "render", str(regressed))
    assert code == 0 and out.startswith("# Evaluation report: support")


def test_ctrl_c_exits_130_without_reports(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("evalmark.suite._runner.run_suite", interrupted)
    code, out, err = cli(capsys, "run", str(SUPPORT), "--report-dir", str(tmp_path / "r"))
    assert code == 130 and out == ""
    assert "evalmark run: interrupted; no report written" in err
    assert not (tmp_path / "r").exists()


# --------------------------------------------------------------------------- progress bar


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_a_terminal_without_any_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(run_module, "_PROGRESS_DELAY", 0.0)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["run", str(ROOT / "golden" / "car-rental"), "-q", "--no-history"]) == 0
    shown = terminal.getvalue()
    assert "evaluating" in shown and "/15 samples" in shown
    assert shown.endswith("\r\x1b[2K")  # the line is gone when the run ends
    assert "evaluating" not in capsys.readouterr().out  # stdout stays clean


@pytest.mark.parametrize(("flag", "tty"), [("--no-progress", True), (None, False)])
def test_no_progress_when_told_or_off_a_terminal(
    monkeypatch: pytest.MonkeyPatch, flag: str | None, tty: bool
) -> None:
    monkeypatch.setattr(run_module, "_PROGRESS_DELAY", 0.0)
    stream = _Terminal() if tty else io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    argv = ["run", str(ROOT / "golden" / "car-rental"), "-q", "--no-history"]
    assert main(argv + ([flag] if flag else [])) == 0
    assert "evaluating" not in stream.getvalue()


def test_suite_text_in_help_matches_the_bundled_suite() -> None:
    text = textwrap.dedent(run_module._EPILOG)
    assert "golden/support/suite.yaml" in text
    assert (ROOT / "golden/support/suite.yaml").exists()


def test_record_mode_reaches_cassettes_inside_a_live_application(
    capsys: pytest.CaptureFixture[str], live_suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("EVALMARK_RECORD_MODE", raising=False)
    (live_suite / "app.py").write_text(
        "import os\n\n"
        "def answer(question):\n"
        "    return 'mode ' + os.environ.get('EVALMARK_RECORD_MODE', 'unset')\n",
        encoding="utf-8",
    )
    (live_suite / "samples.yaml").write_text(
        "- name: mode\n  parameters: [which?]\n  expected-output: mode off\n"
        "  expected-facts: [mode off]\n",
        encoding="utf-8",
    )
    text = LIVE_SUITE.replace("  builds:\n    main: builds/main.jsonl\n", "")
    (live_suite / "suite.yaml").write_text(text, encoding="utf-8")
    code, _, _ = cli(capsys, "run", str(live_suite), "--no-report", "--record-mode", "off")
    assert code == 0
    code, out, _ = cli(capsys, "run", str(live_suite), "--no-report")
    assert code == 1 and "'mode off'" in out
    assert "EVALMARK_RECORD_MODE" not in os.environ


def test_report_formats_and_a_baseline_named_in_the_suite(
    capsys: pytest.CaptureFixture[str], live_suite: Path, tmp_path: Path
) -> None:
    text = LIVE_SUITE.replace("  builds:\n    main: builds/main.jsonl\n", "")
    text += "report: {formats: [md, json, html, xml]}\n"
    (live_suite / "suite.yaml").write_text(text, encoding="utf-8")
    out_dir = tmp_path / "out"
    code, _, _ = cli(capsys, "run", str(live_suite), "--report-dir", str(out_dir))
    assert code == 0
    assert sorted(p.name for p in out_dir.iterdir()) == [
        "live.html",
        "live.json",
        "live.md",
        "live.xml",
    ]
    assert (out_dir / "live.xml").read_text().startswith("<?xml")
    baseline = live_suite / "baseline.json"
    baseline.write_bytes((out_dir / "live.json").read_bytes())
    with_baseline = text.replace(
        "gate: {pass-rate: 1.0}", "gate: {pass-rate: 0.5, baseline: baseline.json}"
    )
    (live_suite / "suite.yaml").write_text(with_baseline, encoding="utf-8")
    app = (live_suite / "app.py").read_text().replace("Two follows one.", "Two is even.")
    (live_suite / "app.py").write_text(app, encoding="utf-8")
    code, out, _ = cli(capsys, "run", str(live_suite), "--no-report")
    assert code == 1
    assert f"baseline {baseline}:" in out and "gate FAILED" in out


PLUGIN_SUITE_TESTS = """
from evalmark.pytest import evaluation_test
from evalmark.strategies import ExactMatch
from evalmark.samples._samples import Sample, Samples

SAMPLES = [Sample(name=f"q{{i}}", parameters=[str(i)], expected_output=str(i)) for i in range(4)]


def {name}(question):
    return {body}


@evaluation_test(
    samples=Samples(SAMPLES), function={name}, strategy=ExactMatch(), min_pass_rate=None
)
def test_echo():
    pass


@evaluation_test(
    samples=Samples(SAMPLES[:2]), function={name}, strategy=ExactMatch(), min_pass_rate=None
)
def test_short():
    pass
"""


@pytest.fixture
def plugin_suites(tmp_path: Path) -> tuple[Path, Path]:
    """Two suite reports written by the pytest plugin itself: all right, then one wrong."""
    made = []
    for folder, body in (("base", "question"), ("now", "'x' if question == '1' else question")):
        project = tmp_path / folder
        project.mkdir()
        (project / "test_app.py").write_text(
            PLUGIN_SUITE_TESTS.format(name="echo", body=body), encoding="utf-8"
        )
        installed = any(ep.name == "evalmark" for ep in entry_points(group="pytest11"))
        plugin = [] if installed else ["-p", "evalmark.pytest._plugin"]
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *plugin,
             f"--evalmark-report={project / 'out'}", str(project)],
            capture_output=True, text=True, timeout=120, cwd=project, check=False,
        )  # fmt: skip
        assert result.returncode == 0, result.stdout + result.stderr
        made.append(project / "out" / "evaluation-suite-report.json")
    return made[0], made[1]


def test_report_render_and_diff_read_the_pytest_plugins_suite_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, plugin_suites: tuple[Path, Path]
) -> None:
    base, now = plugin_suites
    code, out, err = cli(capsys, "report", "render", str(now))
    assert code == 0, err
    assert out.startswith("# Evaluation suite: pytest")
    assert "| test_app.py::test_echo | 75.0% | 3 of 4 |" in out
    code, out, _ = cli(capsys, "report", "render", str(now), "--format", "json")
    assert code == 0 and json.loads(out)["format"] == "evalmark-suite"
    code, out, err = cli(capsys, "report", "render", str(now), "--format", "html")
    assert code == 0, err  # the whole pytest suite on one page
    assert "Evaluation suite: pytest" in out and out.count('<section class="report"') == 2
    code, _, err = cli(capsys, "report", "render", str(now), "--format", "junit")
    assert code == 2 and "holds 2 reports; pick one with --report NAME" in err
    code, _, err = cli(capsys, "report", "render", str(now), "--format", "pdf")
    assert code == 2 and "--format pdf: no such report format; known formats: " in err
    target = tmp_path / "echo.html"
    code, _, err = cli(
        capsys, "report", "render", str(now), "--format", "html",
        "--report", "test_app.py::test_echo", "-o", str(target),
    )  # fmt: skip
    assert code == 0, err
    assert target.read_text().lstrip().lower().startswith("<!doctype html")
    code, _, err = cli(
        capsys, "report", "render", str(now), "--report", "nope", "--format", "junit"
    )
    assert code == 2 and "no report named 'nope'; it holds: test_app.py::test_echo" in err
    code, out, err = cli(capsys, "report", "diff", str(base), str(now), "--max-drop", "0.05")
    assert code == 1, err
    assert "== test_app.py::test_echo" in out and "== test_app.py::test_short" in out
    assert "overall (cases)   100.0%  75.0%   -25.0" in out
    assert "q1 [ExactMatch] pass -> fail" in out
    code, out, _ = cli(
        capsys, "report", "diff", str(base), str(now), "--report", "test_app.py::test_short"
    )
    assert code == 0 and "regressions (pass -> fail): 1" in out and "==" not in out
