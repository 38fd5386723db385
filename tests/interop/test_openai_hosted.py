"""Importing the hosted OpenAI Evals API's shapes: an eval's ``testing_criteria`` and a run's
output items (fixtures hand-built from the published schema: the API cannot be called here)."""

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
EVAL = HOSTED / "eval.json"
ITEMS = str(HOSTED / "output_items.jsonl")


def test_string_checks_become_checks_and_output_items_a_build() -> None:
    imported = read("openai-evals", EVAL, log=ITEMS)
    assert (imported.format, imported.version) == ("openai-evals", "hosted")
    assert imported.checks == (
        {"openai-evals": {"class": "string_check:eq", "name": "openai-exact"}},
        {"openai-evals": {"class": "string_check:ilike", "name": "openai-mentions"}},
        {
            "openai-evals": {
                "class": "text_similarity:fuzzy_match",
                "threshold": 0.8,
                "name": "openai-close",
            }
        },
    )
    assert [s.name for s in imported.samples] == [f"capitals-hosted.{i}" for i in range(3)]
    first = imported.samples[0]
    assert first.parameters[0][1] == {"role": "user", "content": "What is the capital of France?"}
    assert first.expected_output == "Paris"
    assert first.metadata["openai-item"]["ground_truth"] == "Paris"
    assert imported.outputs == {
        "gpt-4o-mini-2024-07-18": {
            "capitals-hosted.0": "Paris",
            "capitals-hosted.1": "It is rome.",
            "capitals-hosted.2": "Cusco",
        }
    }
    assert imported.lost == ()
    assert "data_source_config" in imported.source["kept"]


@pytest.mark.parametrize(
    ("operation", "answer", "reference", "passed"),
    [
        ("eq", "Paris", "Paris", True),
        ("eq", "Paris ", "Paris", False),
        ("ne", "Rome", "Paris", True),
        ("like", "It is Paris.", "Paris", True),
        ("like", "It is paris.", "Paris", False),
        ("ilike", "It is paris.", "Paris", True),
    ],
)
def test_string_check_operations(operation: str, answer: str, reference: str, passed: bool) -> None:
    check = OpenAIEvalsMatch(f"string_check:{operation}")
    sample = Sample(name="s", parameters=Parameters(["q"]), expected_output=reference)
    assert check.evaluate(sample, answer).passed is passed


def test_a_recorded_result_the_re_score_contradicts_is_refused(tmp_path: Path) -> None:
    lines = Path(ITEMS).read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[1])
    row["results"][0]["passed"] = True  # "It is rome." does not equal "Rome"
    items = tmp_path / "items.jsonl"
    items.write_text("\n".join([lines[0], json.dumps(row), lines[2]]) + "\n", encoding="utf-8")
    with pytest.raises(ImportFormatError, match=r"items.jsonl:2.*passed=True for 'exact'"):
        read("openai-evals", EVAL, log=str(items))


def test_a_python_grader_and_a_missing_log_are_refused(tmp_path: Path) -> None:
    doc = json.loads(EVAL.read_text(encoding="utf-8"))
    doc["testing_criteria"].append(
        {"type": "python", "name": "code", "source": "def grade(sample, item):\n    return 1.0"}
    )
    path = tmp_path / "eval.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ImportFormatError, match="criterion:python"):
        read("openai-evals", path, log=ITEMS)
    with pytest.raises(ImportFormatError, match="pass --log with the run's output items"):
        read("openai-evals", EVAL)


def test_the_imported_suite_replays_the_runs_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "suite"
    args = ["import", "openai-evals", str(EVAL), "--log", ITEMS, "-o", str(out)]
    assert main([*args, "--name", "hosted"]) == 0
    reports = tmp_path / "reports"
    code = main(["run", str(out), "--report-dir", str(reports), "--no-history"])
    assert code == 1
    report = json.loads((reports / "hosted-gpt-4o-mini-2024-07-18.json").read_text())
    verdicts = {
        s["name"]: {c: r["passed"] for c, r in s["results"].items()} for s in report["samples"]
    }
    items = [json.loads(line) for line in Path(ITEMS).read_text(encoding="utf-8").splitlines()]
    recorded = {
        f"capitals-hosted.{i['datasource_item_id']}": {
            f"openai-{r['name']}": r["passed"] for r in i["results"]
        }
        for i in items
    }
    assert verdicts == recorded  # the checks decide as the run recorded
    capsys.readouterr()
