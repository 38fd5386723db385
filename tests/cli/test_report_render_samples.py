"""``evalmark report render R.json --format html --samples FILE[,FILE]``: the HTML page of a JSON
report shows each case's input, expected answer, facts and context, read from the sample files
(the JSON report does not carry them); sample files that miss a case are a one-line error."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalmark import Scorer
from evalmark.cli import main
from evalmark.report import render_report
from evalmark.samples._load import load_samples
from evalmark.strategies import ContainsFacts

FIRST = """\
- name: refund-window
  parameters: ["How long is the refund window?"]
  expected-output: Thirty days from the purchase.
  expected-facts: ["30 days"]
  context: ["Annual plans are refunded in full within 30 days <of purchase>."]
"""
SECOND = """\
- name: sso-plan
  parameters: ["Which plan has SSO?"]
  expected-output: The Enterprise plan.
  expected-facts: ["Enterprise plan only"]
"""


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    first, second = tmp_path / "first.yaml", tmp_path / "second.yaml"
    first.write_text(FIRST, "utf-8")
    second.write_text(SECOND, "utf-8")
    samples = load_samples(first, second)
    answers = {"How long is the refund window?": "Within 30 days.", "Which plan has SSO?": "Pro."}
    report = Scorer().evaluate(samples, answers.__getitem__, ContainsFacts(), name="support")
    written = tmp_path / "support.json"
    written.write_text(render_report(report, "json"), "utf-8")
    return written, first, second


def _render(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["report", "render", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_samples_add_each_cases_inputs(
    files: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    report, first, second = files
    code, bare, _ = _render(capsys, str(report), "--format", "html")
    assert code == 0 and "How long is the refund window?" not in bare
    code, page, _ = _render(
        capsys, str(report), "--format", "html", "--samples", f"{first},{second}"
    )
    assert code == 0
    for text in (
        "<dt>Input</dt>",
        "How long is the refund window?",
        "Thirty days from the purchase.",
        "<dt>Expected facts</dt>",
        "Enterprise plan only",
        "<dt>Context</dt>",
        "within 30 days &lt;of purchase&gt;.",
    ):
        assert text in page, text
    assert "<of purchase>" not in page
    # the same with the option given once per file
    code, again, _ = _render(
        capsys, str(report), "--format", "html", "--samples", str(first), "--samples", str(second)
    )
    assert code == 0 and again == page


def test_samples_missing_a_case_name_it(
    files: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    report, first, _ = files
    code, out, err = _render(capsys, str(report), "--format", "html", "--samples", str(first))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"--samples {first}: no sample for 1 case (of 2) of report 'support'" in err
    assert err.rstrip().endswith("sso-plan; pass the sample files the run read")


def test_samples_only_go_with_html(
    files: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    report, first, _ = files
    code, _, err = _render(capsys, str(report), "--format", "markdown", "--samples", str(first))
    assert code == 2
    assert "--samples adds the inputs to the HTML report and the inspect log only" in err


def test_a_bad_sample_file_is_a_one_line_error(
    files: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report, _, _ = files
    bad = tmp_path / "bad.yaml"
    bad.write_text("- name: x\n  parameters: 3\n", "utf-8")
    code, _, err = _render(capsys, str(report), "--format", "html", "--samples", str(bad))
    assert code == 2 and str(bad) in err and "Traceback" not in err
    code, _, err = _render(
        capsys, str(report), "--format", "html", "--samples", str(tmp_path / "none.yaml")
    )
    assert code == 2 and "none.yaml" in err
