"""``evalmark prompts ls|show`` and ``evalmark judge calibrate``."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.models._modes import MODE_ENV
from evalmark.models._prompts import CATALOG

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "golden" / "judge-calibration"
LABELS = str(GOLDEN / "labels.jsonl")
CASSETTE = str(GOLDEN / "judge.jsonl")


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(MODE_ENV, raising=False)


# --------------------------------------------------------------------------- prompts


def test_prompts_ls_lists_every_prompt_by_group(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "prompts", "ls")
    assert code == 0
    for name in CATALOG:
        assert f"  {name} " in out
    assert out.index("quality:") < out.index("rag:") < out.index("conversation:")
    assert "hallucination" in out and "[inputs, outputs, context, reference_outputs?]" in out
    assert out.rstrip().endswith("evalmark prompts show NAME")
    code, out, _ = cli(capsys, "prompts", "ls", "--group", "security")
    assert code == 0 and "pii-leakage" in out and "toxicity" not in out
    code, out, _ = cli(capsys, "prompts", "ls", "--json")
    rows = json.loads(out)
    assert {r["name"] for r in rows} == set(CATALOG)
    assert next(r for r in rows if r["name"] == "language-detection")["score"] == "schema"


def test_prompts_show_describes_and_renders(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "prompts", "show", "rag-groundedness")
    assert code == 0
    assert out.startswith("rag-groundedness (rag): Groundedness in the retrieved documents")
    assert "context (passages): the documents the retriever returned" in out
    assert "{{context}}" in out
    code, out, _ = cli(capsys, "prompts", "show", "rag-groundedness", "--raw")
    assert out == CATALOG["rag-groundedness"].text
    code, out, _ = cli(capsys, "prompts", "show", "conciseness", "--render", "--score", "0,0.5,1")
    assert code == 0 and "--- system ---" in out and "--- user ---" in out
    assert "evalmark-prompt: conciseness" in out and "<<<BEGIN OUTPUTS>>>\n<outputs>" in out
    assert '"enum": [\n        0.0,\n        0.5,\n        1.0\n      ]' in out
    code, out, _ = cli(capsys, "prompts", "show", "conciseness", "--render", "--mode", "native")
    assert "RESPONSE_SCHEMA" not in out


def test_prompts_show_of_an_unknown_name_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = cli(capsys, "prompts", "show", "concise")
    assert code == 2 and out == ""
    assert err.startswith("evalmark prompts: error: no judge prompt named 'concise'")
    assert "did you mean 'conciseness'?" in err and err.count("\n") == 1
    code, _, err = cli(capsys, "prompts", "ls", "--group", "fun")
    assert code == 2 and "the groups are quality, rag" in err


# --------------------------------------------------------------------------- calibrate


def test_calibrate_the_golden_judge_offline(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rates = tmp_path / "rates.json"
    suite = tmp_path / "suite"
    code, out, err = cli(
        capsys,
        "judge",
        "calibrate",
        LABELS,
        "--judge",
        f"cassette:{CASSETTE}",
        "--rates-out",
        str(rates),
        "--suite",
        str(suite),
    )
    assert code == 0, err
    assert out.startswith("judge support-judge-v1 on ")
    assert "44 labelled items" in out and "1 unusable reply counted as fail" in out
    assert "label pass            18           5" in out
    assert "label fail             4          17" in out
    assert "accuracy        0.795" in out
    assert "Cohen's kappa   0.591" in out
    assert "true-pass rate  0.783 (18/23, 95% Wilson interval 0.581–0.903)" in out
    assert "true-fail rate  0.810 (17/21, 95% Wilson interval 0.600–0.923)" in out
    assert "disagreements (9):" in out
    assert "c13-region-dropped-negation [correctness] label fail, judge pass: " in out
    assert "c15-chat-unreadable-reply [correctness] label pass, judge no verdict: JudgeReply" in out
    document = json.loads(rates.read_text())
    assert document["false_pass"] == {"errors": 4, "trials": 21}
    assert document["false_fail"] == {"errors": 5, "trials": 23}
    assert (suite / ".evalmark" / "judge-rates.json").read_text() == rates.read_text()
    assert f"rates written to {rates}" in out


def test_calibrate_as_json_and_with_a_kappa_gate(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "judge", "calibrate", LABELS, "--judge", CASSETTE, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["confusion"] == {"labels": ["pass", "fail"], "matrix": [[18, 5], [4, 17]]}
    assert data["kappa"] == pytest.approx(0.5909, abs=1e-4)
    assert len(data["disagreements"]) == 9
    code, _, err = cli(
        capsys, "judge", "calibrate", LABELS, "--judge", CASSETTE, "--min-kappa", "0.7"
    )
    assert code == 1 and "Cohen's kappa 0.591 is below --min-kappa 0.7" in err
    code, _, _ = cli(
        capsys, "judge", "calibrate", LABELS, "--judge", CASSETTE, "--min-kappa", "0.5"
    )
    assert code == 0


def test_calibrate_with_rule_judge_needs_no_cassette(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(
        capsys, "judge", "calibrate", LABELS, "--judge", "rule", "--score", "0,0.5,1"
    )
    assert code == 0 and out.startswith("judge rule-judge on ")
    code, _, err = cli(capsys, "judge", "calibrate", LABELS, "--judge", "rule:2")
    assert code == 2 and "min_overlap must be in [0, 1]" in err


def test_a_changed_judge_setting_misses_the_recording_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = cli(
        capsys, "judge", "calibrate", LABELS, "--judge", CASSETTE, "--no-reasoning"
    )
    # every request differs from the recorded ones: nothing to measure, one line, exit 2
    assert code == 2 and out == ""
    assert "every judge call failed, nothing to measure; the first: CassetteMiss: " in err
    assert "no recording of this request" in err and err.count("\n") == 1


def test_calibrate_records_a_live_judge_then_replays_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "judges.py").write_text(
        textwrap.dedent(
            """
            from evalmark.models import RuleJudge

            CALLS = []

            class Live(RuleJudge):
                model_id = "live-judge"

                def chat(self, messages, **params):
                    CALLS.append(1)
                    return super().chat(messages, **params)

            def make():
                return Live()
            """
        )
    )
    monkeypatch.chdir(tmp_path)
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        '{"id": "a", "prompt": "toxicity", "outputs": "Thanks!", "label": "pass"}\n'
        '{"id": "b", "prompt": "toxicity", "outputs": "You idiot.", "label": "fail"}\n'
    )
    args = ["judge", "calibrate", str(labels), "--judge", "judges.py:make", "--cassette", "j.jsonl"]
    code, out, err = cli(capsys, *args, "--record-mode", "record-missing")
    assert code == 0, err
    assert "label pass             1           0" in out
    assert (tmp_path / "j.jsonl").exists()
    code, replayed, err = cli(
        capsys, "judge", "calibrate", str(labels), "--judge", "cassette:j.jsonl"
    )
    assert code == 0, err
    assert replayed.splitlines()[1:] == out.splitlines()[1:]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.jsonl", "--judge", "rule"], "no such file"),
        ([LABELS, "--judge", "nonsense"], "--judge 'nonsense': the judge: 'rule'"),
        ([LABELS, "--judge", "cassette:nowhere.jsonl"], "no such file"),
        ([LABELS, "--judge", "rule", "--threshold", "3"], "--threshold must be between 0 and 1"),
        ([LABELS, "--judge", "rule", "--score", "high"], "--score 'high': give bool"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = cli(capsys, "judge", "calibrate", *args)
    assert code == 2 and out == ""
    assert err.startswith("evalmark judge: error: ") and message in err
    assert "Traceback" not in err


def test_the_demo_command_runs_from_a_fresh_process(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalmark",
            "judge",
            "calibrate",
            "golden/judge-calibration/labels.jsonl",
            "--judge",
            "cassette:golden/judge-calibration/judge.jsonl",
            "--rates-out",
            str(tmp_path / "judge-rates.json"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "CI": "true"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Cohen's kappa   0.591" in done.stdout


def test_evalmark_tune_reads_the_rates_calibrate_wrote(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import shutil

    suite = tmp_path / "support"
    shutil.copytree(ROOT / "golden" / "support", suite)
    code, _, err = cli(
        capsys, "judge", "calibrate", LABELS, "--judge", CASSETTE, "--suite", str(suite)
    )
    assert code == 0, err
    code, out, err = cli(capsys, "tune", str(suite))
    assert code == 0, err
    rates = suite / ".evalmark" / "judge-rates.json"
    assert f"judge noise: false pass 4/21, false fail 5/23 from {rates}" in out
    assert "measured by: evalmark judge calibrate" in out
