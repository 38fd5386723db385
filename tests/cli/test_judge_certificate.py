"""``evalmark judge calibrate --min-tpr-lower --min-tnr-lower``: a judge certificate measured on
held-out items never used as few-shot examples, and the suite's ``judge-certificate:`` that
refuses a run when the certificate failed or its model or prompt changed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from statsmodels.stats.proportion import proportion_confint

from evalmark.calibration import _certificate as cert
from evalmark.calibration import load_labels
from evalmark.cli import main
from evalmark.errors import CalibrationError
from evalmark.models._modes import MODE_ENV

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "golden" / "judge-calibration"
SUPPORT = ROOT / "golden" / "support"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(MODE_ENV, raising=False)


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _golden(capsys: pytest.CaptureFixture[str], out: Path, limit: str) -> tuple[int, str, dict]:
    code, text, _ = _cli(
        capsys,
        "judge",
        "calibrate",
        str(GOLDEN / "labels.jsonl"),
        "--judge",
        f"cassette:{GOLDEN / 'judge.jsonl'}",
        "--min-tpr-lower",
        limit,
        "--min-tnr-lower",
        limit,
        "--certificate-out",
        str(out),
    )
    return code, text, json.loads(out.read_text())


def test_a_certificate_that_passes_and_one_that_fails(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, text, passed = _golden(capsys, tmp_path / "pass.json", "0.55")
    assert code == 0 and passed["certified"] is True
    assert "certificate: CERTIFIED: true-pass lower bound 0.581 ≥ 0.55" in text
    for key, hits, trials in (("true_pass", 18, 23), ("true_fail", 17, 21)):
        low, high = proportion_confint(hits, trials, alpha=0.05, method="wilson")
        assert (passed[key]["hits"], passed[key]["trials"]) == (hits, trials)
        assert passed[key]["low"] == pytest.approx(low) and passed[key]["high"] == pytest.approx(
            high
        )
    assert passed["model_id"] == "support-judge-v1"
    assert set(passed["prompts"]) == {"conciseness", "correctness", "rag-groundedness", "toxicity"}
    assert passed["split"]["held_out"] == 44 and passed["split"]["pool"] == 0
    assert len(passed["split"]["sha256"]) == 64
    code, text, failed = _golden(capsys, tmp_path / "fail.json", "0.8")
    assert code == 1 and failed["certified"] is False
    assert (
        "NOT certified: true-pass lower bound 0.581 < 0.8, true-fail lower bound 0.600 < 0.8"
        in text
    )
    assert failed["split"]["sha256"] == passed["split"]["sha256"]


def test_the_held_out_split_is_never_a_few_shot_example(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    items = load_labels(GOLDEN / "labels.jsonl").items
    pool, held = cert.split_items(items, 0.5, 3)
    assert {i.id for i in pool}.isdisjoint({i.id for i in held})
    assert len(pool) + len(held) == 44 and 10 < len(held) < 34
    assert cert.split_items(items, 0.5, 3) == (pool, held)  # the seed decides, nothing else
    examples = cert.few_shot_examples(pool, 2, 3)
    pooled = {(i.prompt, json.dumps(dict(i.values), sort_keys=True)) for i in pool}
    for prompt, rows in examples.items():
        assert len(rows) <= 2
        for row in rows:
            values = {k: v for k, v in row.items() if k not in ("score", "reasoning")}
            assert (prompt, json.dumps(values, sort_keys=True)) in pooled
    cert.check_disjoint(held, examples)
    leaked = {held[0].prompt: [{**held[0].values, "score": True, "reasoning": ""}]}
    with pytest.raises(CalibrationError, match=held[0].id):
        cert.check_disjoint(held, leaked)
    out = tmp_path / "c.json"
    args = ["judge", "calibrate", str(GOLDEN / "labels.jsonl"), "--judge", "rule"]
    args += ["--holdout", "0.5", "--split-seed", "3", "--few-shot-per-prompt", "2"]
    code, text, _ = _cli(capsys, *args, "--certificate-out", str(out))
    document = json.loads(out.read_text())
    assert f"{len(held)} labelled items" in text
    assert document["split"] | {"sha256": ""} == {
        "seed": 3,
        "holdout": 0.5,
        "held_out": len(held),
        "pool": len(pool),
        "sha256": "",
    }
    assert document["split"]["sha256"] == cert.split_hash(held)
    assert document["few_shot"]["per_prompt"] == 2
    assert code == 0  # no limits asked: certified at 0


def _labels(path: Path) -> Path:
    rows = []
    for i in range(20):
        topic = f"invoice template number {i}"
        rows += [
            {
                "id": f"r{i}-pass",
                "prompt": "relevancy",
                "question": f"How do I edit {topic}?",
                "response": f"To edit {topic}, open it and change it.",
                "label": "pass",
            },
            {
                "id": f"r{i}-fail",
                "prompt": "relevancy",
                "question": f"How do I edit {topic}?",
                "response": "Our office dog is called Biscuit.",
                "label": "fail",
            },
            {
                "id": f"g{i}-pass",
                "prompt": "groundedness",
                "context": f"Trash keeps {topic} 30 days.",
                "response": f"Trash keeps {topic} 30 days.",
                "label": "pass",
            },
            {
                "id": f"g{i}-fail",
                "prompt": "groundedness",
                "context": f"Trash keeps {topic} 30 days.",
                "response": "Weekend chat costs fifteen dollars per seat.",
                "label": "fail",
            },
        ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_a_suite_requires_its_certificate(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    suite = tmp_path / "support"
    shutil.copytree(SUPPORT, suite)
    certificate = suite / "judge-certificate.json"
    code, text, _ = _cli(
        capsys,
        "judge",
        "calibrate",
        str(_labels(tmp_path / "labels.jsonl")),
        "--judge",
        "rule:0.6",
        "--min-tpr-lower",
        "0.8",
        "--min-tnr-lower",
        "0.8",
        "--certificate-out",
        str(certificate),
    )
    assert code == 0, text
    (suite / "suite.yaml").write_text(
        (suite / "suite.yaml").read_text() + "\njudge-certificate: judge-certificate.json\n"
    )
    run = ["run", str(suite), "--build", "healthy", "--no-report", "--no-history", "-q"]
    assert _cli(capsys, *run)[0] == 0
    document = json.loads(certificate.read_text())
    for change, reason in (
        (
            {"model_id": "gpt-judge"},
            "it certifies model 'gpt-judge', the suite's judge is 'rule-judge'",
        ),
        ({"certified": False}, "the judge failed its certification"),
        (
            {"prompts": {**document["prompts"], "relevancy": "0" * 64}},
            "the prompt 'relevancy' changed",
        ),
        (
            {"prompts": {"groundedness": document["prompts"]["groundedness"]}},
            "it does not cover the prompt 'relevancy'",
        ),
    ):
        certificate.write_text(json.dumps({**document, **change}))
        code, _, err = _cli(capsys, *run)
        assert code == 2 and reason in err and "judge-certificate.json" in err, err
        assert "Traceback" not in err
