"""A suite naming a build, cassette, samples file or function that does not exist fails before
the run with exit 2, naming the suite file, the line and the closest name that exists; in
replay mode no message advises recording into a path that does not exist."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.errors import SuiteError
from evalmark.suite import load_application

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = ROOT / "golden" / "support"

APP = "def answer(question):\n    return 'an answer'\n"


@pytest.fixture(autouse=True)
def _restore_imports(tmp_path: Path) -> Iterator[None]:
    """The modules a suite imports from the test's folder (and the folders it adds to the
    path) leave with the test."""
    path = list(sys.path)
    yield
    sys.path[:] = path
    for name, module in list(sys.modules.items()):
        where = getattr(module, "__file__", None) or ""
        if where.startswith(str(tmp_path)):
            del sys.modules[name]


@pytest.fixture
def support_copy(tmp_path: Path) -> Path:
    target = tmp_path / "support"
    shutil.copytree(SUPPORT, target, ignore=shutil.ignore_patterns("docs"))
    return target


def _edit(suite_dir: Path, old: str, new: str) -> None:
    path = suite_dir / "suite.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _line_of(suite_dir: Path, text: str) -> int:
    lines = (suite_dir / "suite.yaml").read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["run", *args, "--no-history"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _advice(err: str) -> str:
    """The message after the resolved path it names (a temporary path may hold any word)."""
    return err.rsplit(")", 1)[-1]


@pytest.mark.parametrize("with_function", [False, True])
def test_a_mistyped_cassette_fails_before_the_run_naming_line_and_closest_file(
    capsys: pytest.CaptureFixture[str], support_copy: Path, with_function: bool
) -> None:
    _edit(support_copy, "healthy: builds/healthy.jsonl", "healthy: builds/helthy.jsonl")
    if with_function:
        (support_copy / "app.py").write_text(APP, encoding="utf-8")
        _edit(support_copy, "  builds:\n", "  function: app.py:answer\n  builds:\n")
    report_dir = support_copy / "reports"
    code, out, err = _run(capsys, str(support_copy), "--report-dir", str(report_dir))
    assert code == 2, out + err
    line = _line_of(support_copy, "builds/helthy.jsonl")
    assert f"suite.yaml:{line}: the cassette of build 'healthy' does not exist" in err
    assert "did you mean 'builds/healthy.jsonl'?" in err
    assert "record" not in _advice(err), err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert out == "" and not report_dir.exists(), "nothing ran, nothing written"


def test_a_missing_cassette_may_be_recorded_with_a_function_in_a_record_mode(
    capsys: pytest.CaptureFixture[str], support_copy: Path
) -> None:
    (support_copy / "app.py").write_text(APP, encoding="utf-8")
    _edit(support_copy, "healthy: builds/healthy.jsonl", "healthy: builds/new.jsonl")
    _edit(support_copy, "  builds:\n", "  function: app.py:answer\n  builds:\n")
    code, out, err = _run(
        capsys, str(support_copy), "--no-report", "-q", "--record-mode", "record-missing"
    )
    assert code == 1, err  # the stub application answers badly, but it ran and recorded
    assert "gate FAILED" in out
    assert (support_copy / "builds" / "new.jsonl").exists()


def test_an_unknown_build_names_the_closest_one_and_the_builds_line(
    capsys: pytest.CaptureFixture[str], support_copy: Path
) -> None:
    code, out, err = _run(capsys, str(support_copy), "--build", "helthy", "--no-report")
    assert code == 2 and out == ""
    line = _line_of(support_copy, "  builds:")
    assert f"suite.yaml:{line}: no build named 'helthy'; did you mean 'healthy'?" in err
    assert "the suite records: healthy, regressed" in err


def test_a_mistyped_samples_file_names_line_and_closest_file(
    capsys: pytest.CaptureFixture[str], support_copy: Path
) -> None:
    _edit(support_copy, "samples: samples.yaml", "samples: sample.yaml")
    code, out, err = _run(capsys, str(support_copy), "--no-report")
    assert code == 2 and out == ""
    line = _line_of(support_copy, "samples: sample.yaml")
    assert f"suite.yaml:{line}" in err and "did you mean 'samples.yaml'?" in err


@pytest.mark.parametrize(
    ("reference", "expected"),
    [
        ("app.py:answr", "app.py has no callable 'answr'; did you mean 'app.py:answer'?"),
        ("ap.py:answer", "no such file"),
        ("ap:answer", "no module named 'ap'"),
        ("helpers.aps:answer", "no module named 'helpers.aps'"),
    ],
)
def test_a_mistyped_function_names_line_and_closest_name(
    capsys: pytest.CaptureFixture[str], support_copy: Path, reference: str, expected: str
) -> None:
    (support_copy / "app.py").write_text(APP, encoding="utf-8")
    (support_copy / "helpers").mkdir()
    (support_copy / "helpers" / "__init__.py").write_text("", encoding="utf-8")
    (support_copy / "helpers" / "apps.py").write_text(APP, encoding="utf-8")
    _edit(support_copy, "  builds:\n", f"  function: {reference}\n  builds:\n")
    code, out, err = _run(capsys, str(support_copy), "--no-report")
    assert code == 2 and out == "", err
    line = _line_of(support_copy, "function:")
    assert f"suite.yaml:{line}: function '{reference}': " in err and expected in err
    closest = {"ap.py:answer": "app.py", "ap:answer": "app:answer"}.get(reference)
    if closest is not None:
        assert f"did you mean '{closest}'?" in err
    if reference.startswith("helpers"):
        assert "did you mean 'helpers.apps:answer'?" in err


def test_a_mistyped_judge_cassette_fails_before_the_run(
    capsys: pytest.CaptureFixture[str], support_copy: Path
) -> None:
    (support_copy / "judge.py").write_text(
        "from evalmark.models import RuleJudge\n\ndef make():\n    return RuleJudge()\n",
        encoding="utf-8",
    )
    (support_copy / "judge.jsonl").write_text("", encoding="utf-8")
    _edit(
        support_copy,
        "  kind: rule ",
        "  kind: recorded\n  cassette: jugde.jsonl\n  model: judge.py:make ",
    )
    code, out, err = _run(capsys, str(support_copy), "--no-report")
    assert code == 2 and out == ""
    line = _line_of(support_copy, "cassette: jugde.jsonl")
    assert f"suite.yaml:{line}: the judge's cassette does not exist: jugde.jsonl" in err
    assert "did you mean 'judge.jsonl'?" in err and "record" not in _advice(err)


def test_a_dry_run_reports_the_same_input_errors(
    capsys: pytest.CaptureFixture[str], support_copy: Path
) -> None:
    _edit(support_copy, "healthy: builds/healthy.jsonl", "healthy: builds/helthy.jsonl")
    code, out, err = _run(capsys, str(support_copy), "--dry-run")
    assert code == 2 and out == ""
    assert "the cassette of build 'healthy' does not exist" in err


def test_load_application_checks_its_evaluation_before_answering(support_copy: Path) -> None:
    (support_copy / "app.py").write_text(APP, encoding="utf-8")
    _edit(support_copy, "healthy: builds/healthy.jsonl", "healthy: builds/helthy.jsonl")
    _edit(support_copy, "  builds:\n", "  function: app.py:answer\n  builds:\n")
    line = _line_of(support_copy, "builds/helthy.jsonl")
    with pytest.raises(SuiteError, match=rf"suite\.yaml:{line}: the cassette of build 'healthy'"):
        load_application(support_copy)
    assert callable(load_application(support_copy, "regressed"))
