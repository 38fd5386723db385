"""The hosted OpenAI Evals ``text_similarity`` grader, imported as evalmark checks that re-score
a run's output items to the recorded numbers (fixtures hand-built from the published schema;
their recorded scores were computed with the libraries named in the fixtures' README)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.errors import ImportFormatError
from evalmark.interop import read
from evalmark.samples._sample import Parameters, Sample
from evalmark.strategies._openai_evals import OpenAIEvalsMatch

HOSTED = Path(__file__).parent / "fixtures" / "openai_evals" / "hosted"
EVAL = HOSTED / "similarity_eval.json"
ITEMS = HOSTED / "similarity_items.jsonl"
KINDS = {
    "fuzzy_match": ("openai-evals", {"class": "text_similarity:fuzzy_match"}),
    "bleu": ("bleu", {}),
    "gleu": ("gleu", {}),
    "meteor": ("meteor", {}),
    "rouge_1": ("rouge-n", {"n": 1}),
    "rouge_2": ("rouge-n", {"n": 2}),
    "rouge_3": ("rouge-n", {"n": 3}),
    "rouge_4": ("rouge-n", {"n": 4}),
    "rouge_5": ("rouge-n", {"n": 5}),
    "rouge_l": ("rouge-l", {}),
}


def _eval_with(tmp_path: Path, **changes: object) -> Path:
    doc = json.loads(EVAL.read_text(encoding="utf-8"))
    doc["testing_criteria"][0].update(changes)
    path = tmp_path / "eval.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_each_metric_imports_as_its_check_with_the_pass_threshold() -> None:
    imported = read("openai-evals", EVAL, log=str(ITEMS))
    criteria = json.loads(EVAL.read_text(encoding="utf-8"))["testing_criteria"]
    expected = tuple(
        {
            KINDS[c["evaluation_metric"]][0]: {
                **KINDS[c["evaluation_metric"]][1],
                "threshold": c["pass_threshold"],
                "name": f"openai-{c['name'].replace('_', '-')}",
            }
        }
        for c in criteria
    )
    assert imported.checks == expected
    assert imported.lost == ()
    assert imported.samples[1].expected_output == "Water boils at 100 degrees Celsius at sea level."


def test_the_imported_suite_re_scores_the_recorded_grader_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "suite"
    args = ["import", "openai-evals", str(EVAL), "--log", str(ITEMS), "-o", str(out)]
    assert main([*args, "--name", "facts"]) == 0
    reports = tmp_path / "reports"
    assert main(["run", str(out), "--report-dir", str(reports), "--no-history"]) == 1
    report = json.loads((reports / "facts-gpt-4.1-mini-2025-04-14.json").read_text())
    got = {
        (s["name"], check): (r["passed"], round(r["score"], 6))
        for s in report["samples"]
        for check, r in s["results"].items()
    }
    rows = [json.loads(line) for line in ITEMS.read_text(encoding="utf-8").splitlines()]
    recorded = {
        (
            f"facts-similarity.{row['datasource_item_id']}",
            f"openai-{r['name'].replace('_', '-')}",
        ): (
            r["passed"],
            r["score"],
        )
        for row in rows
        for r in row["results"]
    }
    assert got == recorded
    capsys.readouterr()


def test_a_recorded_score_the_re_score_contradicts_is_refused(tmp_path: Path) -> None:
    lines = ITEMS.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[0])
    row["results"][1]["score"] = 0.38  # bleu: the re-score is 0.377079, the verdict the same
    items = tmp_path / "items.jsonl"
    items.write_text("\n".join([json.dumps(row), *lines[1:]]) + "\n", encoding="utf-8")
    with pytest.raises(ImportFormatError, match=r"items.jsonl:1.*score 0.38 for 'sim-bleu'"):
        read("openai-evals", EVAL, log=str(items))


def test_cosine_is_refused_unless_allowed_then_evalmarks_semantic_similarity(
    tmp_path: Path,
) -> None:
    path = _eval_with(tmp_path, evaluation_metric="cosine", pass_threshold=0.9)
    with pytest.raises(ImportFormatError) as caught:
        read("openai-evals", path, log=str(ITEMS))
    message = str(caught.value)
    assert "testing_criteria[0]" in message and "embedding model" in message
    assert "--allow-loss criterion:text_similarity:cosine" in message
    allowed = ["criterion:text_similarity:cosine"]
    imported = read("openai-evals", path, log=str(ITEMS), allow_loss=allowed)
    assert imported.checks[0] == {
        "semantic-similarity": {"threshold": 0.9, "name": "openai-sim-fuzzy-match"}
    }
    assert imported.lost == ("criterion:text_similarity:cosine",)


@pytest.mark.parametrize(
    ("changes", "found"),
    [
        ({"evaluation_metric": "rouge_9"}, "evaluation_metric 'rouge_9' is not one of"),
        ({"pass_threshold": 1.5}, "pass_threshold 1.5 is outside"),
        ({"pass_threshold": "high"}, "needs a numeric pass_threshold"),
    ],
)
def test_a_bad_criterion_is_a_typed_error_naming_it(
    tmp_path: Path, changes: dict[str, object], found: str
) -> None:
    with pytest.raises(ImportFormatError, match=r"eval.json.*testing_criteria\[0\]") as caught:
        read("openai-evals", _eval_with(tmp_path, **changes), log=str(ITEMS))
    assert found in str(caught.value)


def test_an_unknown_option_is_refused_by_name(tmp_path: Path) -> None:
    path = _eval_with(tmp_path, sampling="greedy")
    with pytest.raises(ImportFormatError, match=r"criterion\.sampling"):
        read("openai-evals", path, log=str(ITEMS))


def test_fuzzy_match_is_rapidfuzzs_weighted_ratio_over_100() -> None:
    check = OpenAIEvalsMatch("text_similarity:fuzzy_match", threshold=0.85)
    sample = Sample(name="s", parameters=Parameters(["q"]), expected_output="Rome")
    result = check.evaluate(sample, "It is rome.")
    assert (result.passed, result.score) == (True, 0.9)  # partial match of "rome", weighted
    low = Sample(name="s", parameters=Parameters(["q"]), expected_output="Lima")
    assert check.evaluate(low, "Cusco").passed is False


def test_an_allowed_cosine_uses_the_named_embedding_model_and_runs_offline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _eval_with(tmp_path, evaluation_metric="cosine", pass_threshold=0.9)
    allowed = ["criterion:text_similarity:cosine"]
    options = {"embedding_model": "hash"}
    imported = read("openai-evals", path, log=str(ITEMS), allow_loss=allowed, options=options)
    assert imported.checks[0]["semantic-similarity"]["model"] == "hash"
    with pytest.raises(ImportFormatError, match="embedding model 'nope' is not one of hash"):
        read(
            "openai-evals",
            path,
            log=str(ITEMS),
            allow_loss=allowed,
            options={"embedding_model": "nope"},
        )
    out = tmp_path / "suite"
    args = ["import", "openai-evals", str(path), "--log", str(ITEMS), "-o", str(out)]
    argv = [*args, "--allow-loss", allowed[0], "--embedding-model", "hash"]
    assert main(argv) == 0
    assert "model: hash" in (out / "suite.yaml").read_text(encoding="utf-8")
    assert main(["run", str(out), "--no-history", "--no-report"]) == 1  # other checks fail
    lm_eval = ["import", "lm-eval", str(ITEMS), "-o", str(tmp_path / "x")]
    assert main([*lm_eval, "--embedding-model", "hash"]) == 2
    assert "--embedding-model is an option of the openai-evals format" in capsys.readouterr().err
