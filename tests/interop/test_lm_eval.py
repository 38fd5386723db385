"""Importing lm-evaluation-harness sample logs (hand-built from the 0.4 ``--log_samples``
format: the harness needs torch and a model), with the filter duplicates as builds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalmark.errors import ImportFormatError
from evalmark.interop import read
from evalmark.strategies._lm_eval import LmEvalExactMatch, lm_eval_exact_match

LOG = (
    Path(__file__).parent
    / "fixtures"
    / "lm_eval"
    / "samples_gsm8k_2024-05-01T12-00-00.000000.jsonl"
)
GSM8K = {"ignore_case": True, "regexes_to_ignore": [",", "\\$", "(?s).*#### ", "\\.$"]}


def test_each_filter_is_a_build_of_the_same_documents() -> None:
    imported = read("lm-eval", LOG, options=GSM8K)
    assert [s.name for s in imported.samples] == ["gsm8k-0", "gsm8k-1"]
    assert imported.samples[0].parameters[0].startswith("Question: Natalia sold clips")
    assert imported.samples[0].expected_output.endswith("#### 72")
    assert imported.outputs == {
        "strict-match": {"gsm8k-0": "72", "gsm8k-1": "[invalid]"},
        "flexible-extract": {"gsm8k-0": "72", "gsm8k-1": "$10"},
    }
    assert imported.samples[1].metadata["lm-eval-results"] == {
        "strict-match": {"exact_match": 0.0},
        "flexible-extract": {"exact_match": 1.0},
    }
    assert imported.kept == {"task": "gsm8k"}
    (check,) = imported.checks
    assert check == {
        "lm-eval-exact-match": {
            "ignore-case": True,
            "regexes-to-ignore": [",", "\\$", "(?s).*#### ", "\\.$"],
        }
    }


def test_rescoring_reproduces_every_recorded_exact_match() -> None:
    imported = read("lm-eval", LOG, options=GSM8K)
    strategy = LmEvalExactMatch(ignore_case=True, regexes_to_ignore=GSM8K["regexes_to_ignore"])
    rows = [json.loads(line) for line in LOG.read_text().splitlines()]
    by_name = {s.name: s for s in imported.samples}
    for row in rows:
        sample = by_name[f"gsm8k-{row['doc_id']}"]
        result = strategy.evaluate(sample, row["filtered_resps"][0])
        assert result.score == row["exact_match"]


def test_without_the_tasks_options_the_numbers_differ_and_the_import_refuses() -> None:
    with pytest.raises(ImportFormatError) as caught:
        read("lm-eval", LOG)
    assert caught.value.line == 1
    assert "exact_match options" in str(caught.value)


def test_exact_match_has_no_hidden_normalization() -> None:
    assert not lm_eval_exact_match(" 72", "72")  # evalmark's exact-match would trim
    assert lm_eval_exact_match("$1,000", "1000", regexes_to_ignore=[",", "\\$"])
    assert lm_eval_exact_match("Paris!", "paris", ignore_case=True, ignore_punctuation=True)


def test_another_metric_is_refused_unless_allowed(tmp_path: Path) -> None:
    row = json.loads(LOG.read_text().splitlines()[0])
    row["metrics"] = ["exact_match", "bleu"]
    row["bleu"] = 0.5
    path = tmp_path / "samples_t.jsonl"
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(ImportFormatError, match="--allow-loss metric:bleu"):
        read("lm-eval", path, options=GSM8K)
    imported = read("lm-eval", path, options=GSM8K, allow_loss=["metric:bleu"])
    assert imported.lost == ("metric:bleu",)
    assert imported.samples[0].metadata["lm-eval-results"]["strict-match"]["bleu"] == 0.5
