"""Importing promptfoo configs and results (hand-built fixtures: promptfoo is a Node program
and cannot run here) and re-scoring them offline with promptfoo's semantics."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.errors import ImportFormatError
from evalmark.interop import FORMATS, read
from evalmark.strategies._promptfoo import PromptfooAsserts, promptfoo_assert_passes

FIXTURES = Path(__file__).parent / "fixtures" / "promptfoo"
RESULTS = FIXTURES / "results.json"
CONFIG = FIXTURES / "promptfooconfig.yaml"


def test_results_become_samples_and_one_build_per_provider() -> None:
    imported = read("promptfoo", RESULTS)
    assert imported.format == "promptfoo"
    assert imported.version == "results-3"
    assert [s.name for s in imported.samples] == [
        "test-1-prompt-1",
        "test-2-prompt-1",
        "test-3-prompt-1",
    ]
    assert list(imported.outputs) == ["openai-gpt-4o-mini", "anthropic-messages-claude-3-5-haiku"]
    assert imported.samples[0].parameters[0] == (
        "What is the capital of France? Answer with the city only."
    )
    cases = imported.test_cases("anthropic-messages-claude-3-5-haiku")
    assert [c.actual_output for c in cases] == [
        "The capital is Paris",
        '{"city": "Tokyo"}',
        "Madrid.",
    ]
    assert imported.samples[2].expected_output == "Madrid"
    assert (
        imported.sha256
        == hashlib.sha256(
            (12).to_bytes(8, "big")
            + b"results.json"
            + len(RESULTS.read_bytes()).to_bytes(8, "big")
            + RESULTS.read_bytes()
        ).hexdigest()
    )
    assert imported.kept["evalId"].startswith("eval-hand-built")


def test_rescoring_reproduces_promptfoos_own_verdicts() -> None:
    """Parity: every recorded row's success and score, re-computed offline."""
    rows = json.loads(RESULTS.read_text())["results"]["results"]
    imported = read("promptfoo", RESULTS)
    check = PromptfooAsserts()
    by_name = {s.name: s for s in imported.samples}
    assert len(rows) == 6
    for row in rows:
        sample = by_name[f"test-{row['testIdx'] + 1}-prompt-{row['promptIdx'] + 1}"]
        result = check.evaluate(sample, row["response"]["output"])
        assert result.passed is row["success"], row["id"]
        assert result.score == pytest.approx(row["score"]), row["id"]


def test_levenshtein_threshold_is_a_distance_as_in_promptfoo() -> None:
    assert promptfoo_assert_passes("levenshtein", "Paris.", "Paris", 1)
    assert not promptfoo_assert_passes("levenshtein", "Paris.", "Paris", 0)
    assert promptfoo_assert_passes("levenshtein", "Pariss", "Paris", None)  # default 5
    assert not promptfoo_assert_passes("not-icontains", "PARIS", "paris", None)
    assert promptfoo_assert_passes("equals", '{"a": 1}', {"a": 1}, None)
    assert not promptfoo_assert_passes("equals", "paris", "Paris", None)  # no normalizing


def test_a_config_expands_prompts_times_tests_with_default_test_and_csv() -> None:
    imported = read("promptfoo", CONFIG)
    assert imported.version == "config"
    assert len(imported.samples) == 8  # 2 prompts x (2 inline + 2 CSV tests)
    assert imported.outputs == {}
    first, second = imported.samples[0], imported.samples[1]
    assert first.parameters[0] == "What is the capital of France? Answer with the city only."
    assert second.parameters[0] == "Name the capital city of France."
    assert first.metadata["promptfoo-assert"] == [
        {"type": "levenshtein", "value": "Paris", "threshold": 3},
        {"type": "icontains", "value": "paris"},
        {"type": "not-contains", "value": "Lyon"},
    ]
    italy, spain = imported.samples[4], imported.samples[6]
    assert italy.metadata["promptfoo-assert"][1] == {"type": "icontains", "value": "rome"}
    assert spain.metadata["promptfoo-assert"][1] == {"type": "equals", "value": "Madrid"}
    assert imported.samples[2].metadata["promptfoo-threshold"] == 0.5
    assert imported.kept["providers"][0]["id"] == "openai:gpt-4o-mini"
    assert imported.files[-1].endswith("tests.csv")


def test_an_assertion_it_cannot_rescore_is_refused_with_file_line_and_field() -> None:
    with pytest.raises(ImportFormatError) as caught:
        read("promptfoo", FIXTURES / "unsupported.yaml")
    message = str(caught.value)
    assert caught.value.line == 10  # the line of "- type: javascript"
    assert "unsupported.yaml:10" in message
    assert "tests[0].assert[1].type" in message
    assert "--allow-loss assert:javascript" in message


def test_an_allowed_loss_imports_without_it_and_is_recorded() -> None:
    imported = read("promptfoo", FIXTURES / "unsupported.yaml", allow_loss=["assert:javascript"])
    assert imported.lost == ("assert:javascript",)
    assert imported.samples[0].metadata["promptfoo-assert"] == [
        {"type": "contains", "value": "Ada"}
    ]
    assert imported.source["lost"] == ["assert:javascript"]


def test_an_unknown_format_is_a_typed_error() -> None:
    assert FORMATS == ("promptfoo", "openai-evals", "deepeval", "lm-eval", "ragas", "inspect")
    with pytest.raises(ImportFormatError, match="unknown import format 'nope'"):
        read("nope", RESULTS)


def test_the_command_writes_a_suite_that_replays_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["import", "promptfoo", str(RESULTS), "-o", "suite"]) == 0
    assert "imported 3 samples" in capsys.readouterr().out
    source = json.loads((tmp_path / "suite" / "source.json").read_text())
    assert (source["format"], source["version"]) == ("promptfoo", "results-3")
    assert sorted(p.name for p in (tmp_path / "suite" / "builds").iterdir()) == [
        "anthropic-messages-claude-3-5-haiku.jsonl",
        "openai-gpt-4o-mini.jsonl",
    ]
    # promptfoo failed one of three tests of the default build: the gate (every case) fails
    assert main(["run", "suite", "-q"]) == 1
    out = capsys.readouterr().out
    assert "test-2-prompt-1" in out


def test_the_command_refuses_a_loss_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["import", "promptfoo", str(FIXTURES / "unsupported.yaml"), "-o", str(tmp_path)])
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "assert:javascript" in err
    assert not (tmp_path / "suite.yaml").exists()


def test_the_command_offers_the_formats_the_package_reads() -> None:
    from evalmark.cli import _import

    assert _import.FORMATS == FORMATS


def test_a_results_field_it_does_not_know_is_refused_at_its_line(tmp_path: Path) -> None:
    doc = json.loads(RESULTS.read_text())
    doc["results"]["results"][1]["traceId"] = "abc"
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc, indent=2))
    with pytest.raises(ImportFormatError) as caught:
        read("promptfoo", path)
    line = path.read_text().splitlines()[caught.value.line - 1]
    assert '"traceId"' in line
    assert "--allow-loss result.traceId" in str(caught.value)


def test_bleu_is_promptfoos_own_bleu_worked_by_hand() -> None:
    from evalmark.strategies._promptfoo import promptfoo_assert_score, promptfoo_bleu

    assert promptfoo_bleu("The cat sat on the mat", "the cat sat on the mat") == 1.0
    # 1..4-gram precisions 5/6, 3/5, 1/4, 0 (counted as 1e-7); equal lengths: no penalty
    expected = (5 / 6 * 3 / 5 * 1 / 4 * 1e-7) ** 0.25
    assert promptfoo_bleu("the cat is on the mat", ["the cat sat on the mat"]) == pytest.approx(
        expected
    )
    # several references: per order, the reference with the most clipped matches
    two = ["a cat sat on the mat", "the cat sat on a mat today"]
    best = (6 / 7 * 4 / 6 * 3 / 5 * 2 / 4) ** 0.25
    assert promptfoo_bleu("the cat sat on the mat today", two) == pytest.approx(best)
    # promptfoo's brevity penalty is exp(1 - c/r): above 1 for a short candidate
    short = promptfoo_bleu("the cat sat on", "the cat sat on the mat")
    assert short == pytest.approx(math.exp(1 - 4 / 6)) and short > 1
    assert promptfoo_assert_score("bleu", "the cat sat on", "the cat sat on the mat", None) == (
        True,
        pytest.approx(short),
    )  # default threshold 0.5
    ok, score = promptfoo_assert_score("not-bleu", "the cat sat on", "the cat sat on the mat", 0.5)
    assert not ok and score == pytest.approx(1 - short)
    assert promptfoo_assert_score("bleu", "", "x", None) == (False, 0.0)  # promptfoo errors


def test_a_bleu_assertion_imports_and_scores_its_value(tmp_path: Path) -> None:
    from evalmark.strategies._promptfoo import PromptfooAsserts, promptfoo_bleu

    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(
        "prompts: ['Describe {{ animal }}']\n"
        "providers: [echo]\n"
        "tests:\n"
        "  - vars: {animal: cat}\n"
        "    assert:\n"
        "      - {type: bleu, value: the cat sat on the mat, threshold: 0.6}\n"
        "      - {type: contains, value: cat}\n"
    )
    (sample,) = read("promptfoo", config).samples
    result = PromptfooAsserts().evaluate(sample, "the cat sat on")
    short = math.exp(1 - 4 / 6)  # 1.40: promptfoo's score goes above 1
    assert result.passed and result.score == 1.0  # evalmark's scores stay in [0, 1]
    assert result.metadata["promptfoo-score"] == pytest.approx((short + 1) / 2)
    low = PromptfooAsserts().evaluate(sample, "a cat on a rug")
    assert not low.passed and low.metadata["failed"] == ["bleu"]
    assert low.score == pytest.approx(
        (promptfoo_bleu("a cat on a rug", "the cat sat on the mat") + 1) / 2
    )
