"""The bundled golden datasets: every file loads, and the data agrees with its sources."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from evalmark import Samples, load_samples
from evalmark.cli import main
from evalmark.cli._schema import SCHEMAS, render

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "golden"
SCHEMA_DIR = ROOT / "python" / "evalmark" / "samples" / "schemas"

# Every samples file we ship, with the number of samples it holds.
SAMPLE_FILES = {
    "support/samples.yaml": 12,
    "car-rental/chatbot.yaml": 10,
    "car-rental/retriever.json": 5,
    "rag/samples.jsonl": 3,
    "sentiment/samples.json": 3,
    "chat/samples.yaml": 3,
    "guardrail/samples.jsonl": 14,
}


def load(relative: str) -> Samples:
    return load_samples(GOLDEN / relative)


def documents(folder: str) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted((GOLDEN / folder).glob("*.md")))


def normalized(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower())


@pytest.mark.parametrize(("relative", "count"), sorted(SAMPLE_FILES.items()))
def test_every_golden_file_loads(relative: str, count: int) -> None:
    samples = load(relative)
    assert len(samples) == count
    for sample in samples:
        assert sample.tags, f"{relative}: {sample.name} has no tags"
        assert all(isinstance(p, str | list) for p in sample.parameters)


def test_all_golden_sample_files_are_listed() -> None:
    found = {
        str(p.relative_to(GOLDEN))
        for p in GOLDEN.rglob("*")
        if p.suffix in {".yaml", ".yml", ".json", ".jsonl"}
        and p.parent.name not in {"cassettes", "metrics"}
        and p.name not in {"suite.yaml"}
    }
    assert set(SAMPLE_FILES) <= found
    assert {p.rsplit(".", 1)[1] for p in SAMPLE_FILES} == {"yaml", "json", "jsonl"}


def test_all_golden_files_merge_without_name_clashes() -> None:
    merged = load_samples(*(GOLDEN / p for p in SAMPLE_FILES))
    assert len(merged) == sum(SAMPLE_FILES.values())


def test_support_samples_are_grounded_in_the_docs() -> None:
    docs = documents("support/docs")
    samples = load("support/samples.yaml")
    for sample in samples:
        assert sample.expected_output, sample.name
        assert sample.context, sample.name
        assert len(sample.expected_facts) >= 2, sample.name
        for passage in sample.context:
            assert passage in docs, f"{sample.name}: context is not a passage of the docs"
        for fact in sample.expected_facts:
            assert normalized(fact) in normalized(sample.expected_output), (sample.name, fact)
        assert (GOLDEN / "support" / "docs" / sample.metadata["source"]).is_file()


def test_support_facts_are_concrete_numbers_a_regression_can_get_wrong() -> None:
    facts = [f for s in load("support/samples.yaml") for f in s.expected_facts]
    with_numbers = [f for f in facts if re.search(r"\d", f)]
    assert len(with_numbers) >= 12
    docs = normalized(documents("support/docs"))
    for needle in ("$29 per user per month", "$290 per user per year", "600 requests per minute"):
        assert normalized(needle) in docs


def test_car_rental_chatbot_and_retriever_come_from_the_policies() -> None:
    policies = documents("car-rental/policies")
    chatbot = load("car-rental/chatbot.yaml")
    retriever = load("car-rental/retriever.json")
    for sample in chatbot:
        assert sample.expected_output and sample.expected_outputs is None
        for fact in sample.expected_facts:
            assert normalized(fact) in normalized(sample.expected_output), (sample.name, fact)
        assert (GOLDEN / "car-rental" / "policies" / sample.metadata["policy"]).is_file()
    for sample in retriever:
        assert sample.expected_output is None and sample.expected_outputs
        for segment in sample.expected_outputs:
            assert segment in policies, f"{sample.name}: segment not found in the policies"
        assert (GOLDEN / "car-rental" / "policies" / sample.metadata["policy"]).is_file()


def test_guardrail_covers_the_forgotten_edge_cases() -> None:
    samples = load("guardrail/samples.jsonl")
    verdicts = [s.expected_output for s in samples]
    assert set(verdicts) == {"ACCEPT", "REJECT"}
    edges = {s.metadata.get("edge-case") for s in samples}
    required = {
        "empty input",
        "very long question",
        "special characters",
        "another language",
        "ambiguous follow-up",
        "injection attempt",
        "code in the question",
    }
    assert required <= edges
    assert samples["empty-input"].parameters[0] == ""
    assert len(samples["very-long-question"].parameters[0]) > 1200
    assert "```python" in samples["code-in-question"].parameters[0]
    assert samples["prompt-injection-direct"].expected_output == "REJECT"


def test_small_datasets_have_their_shape() -> None:
    rag = load("rag/samples.jsonl")
    assert all(s.context and s.expected_facts for s in rag)
    sentiment = load("sentiment/samples.json")
    assert {s.expected_output for s in sentiment} == {"positive", "negative", "neutral"}
    for chat in load("chat/samples.yaml"):
        (history,) = chat.parameters
        assert history[-1]["role"] == "user"
        assert all(set(m) == {"role", "content"} for m in history)


# --------------------------------------------------------------------------- schemas


@pytest.mark.parametrize("kind", sorted(SCHEMAS))
def test_committed_schema_matches_the_model(kind: str) -> None:
    committed = (SCHEMA_DIR / f"{kind}.schema.json").read_text(encoding="utf-8")
    assert committed == render(kind), f"regenerate: evalmark schema {kind} -o {kind}.schema.json"


def _records(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    if path.suffix == ".json":
        return json.loads(text)
    return yaml.safe_load(text)


@pytest.mark.parametrize("relative", sorted(SAMPLE_FILES))
def test_golden_files_validate_against_the_published_schema(relative: str) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((SCHEMA_DIR / "samples.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    errors = [e.message for e in validator.iter_errors(_records(GOLDEN / relative))]
    assert errors == []


@pytest.mark.parametrize(
    ("record", "fragment"),
    [
        ({"name": "a", "parameters": "q", "expected-output": "x"}, "is not of type 'array'"),
        ({"name": "a", "parameters": [], "expected": "x"}, "'expected' was unexpected"),
        ({"name": "a", "parameters": []}, "is not valid under any of the given schemas"),
        (
            {"name": "a", "parameters": [], "expected-output": "x", "expected_output": "x"},
            "should not be valid",
        ),
    ],
)
def test_schema_refuses_what_the_loader_refuses(record: dict[str, Any], fragment: str) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((SCHEMA_DIR / "samples.schema.json").read_text(encoding="utf-8"))
    messages = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors([record])]
    assert any(fragment in m for m in messages), messages


def test_testcase_schema_accepts_a_full_record() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((SCHEMA_DIR / "testcases.schema.json").read_text(encoding="utf-8"))
    record = {
        "input": "q",
        "actual_output": "a",
        "tool-calls": [{"name": "s", "arguments": {}, "duration-ms": 3}],
        "reasoning-trace": [{"type": "plan", "content": "x"}],
        "token-usage": {"input": 1, "output": 2},
        "cost": "0.0001",
    }
    validator = jsonschema.Draft202012Validator(schema)
    assert list(validator.iter_errors([record])) == []
    assert list(validator.iter_errors([dict(record, cost=0.5)])) == []
    assert list(validator.iter_errors([dict(record, cost="cheap")])) != []
    assert list(validator.iter_errors([{"input": "q"}])) != []


def test_schema_command_prints_and_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["schema", "samples"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["title"] == "evalmark samples"
    target = tmp_path / "out" / "t.schema.json"
    assert main(["schema", "testcases", "-o", str(target)]) == 0
    assert json.loads(target.read_text(encoding="utf-8"))["title"] == "evalmark test cases"
    with pytest.raises(SystemExit):
        main(["schema", "nonsense"])
