"""Recorded traces evaluated by every existing path: ``Scorer().evaluate_test_cases``, a suite
file's ``traces:`` (the bundled golden/traces suite from the command line, offline), and the
verdicts written back as spans with their provenance (``evalmark traces annotate``)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import trace_producers as tp
from evalmark import Sample, Scorer, load_suite
from evalmark.cli import main
from evalmark.errors import SuiteError
from evalmark.strategies import TrajectoryMatch
from evalmark.traces import Provenance, annotate, read

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "golden" / "traces"
CALLS = [
    {"name": "search_flights", "arguments": {"from": "OSL", "to": "FCO", "date": "2026-05-03"}},
    {"name": "book_flight", "arguments": {"flight": "SK 4711"}},
    {"name": "send_email", "arguments": {"to": "ada@example.org"}},
]


def _sample(name: str, calls: list[dict[str, Any]]) -> Sample:
    return Sample(
        name=name, parameters=["q"], expected_output="", metadata={"expected-tool-calls": calls}
    )


def test_evaluate_test_cases_pairs_traces_with_samples_by_name(tmp_path: Path) -> None:
    path = tp.write_json_lines(tmp_path / "a.jsonl", [tp.encode(tp.agent_spans(["s-1", "s-2"]))])
    cases = list(read(path, match="session.id"))
    samples = [_sample("s-1", CALLS), _sample("s-2", CALLS[:2]), _sample("s-3", [])]
    report = Scorer().evaluate_test_cases(
        cases, TrajectoryMatch(), samples=samples, unevaluable={"s-4": "no-content: nothing"}
    )
    rows = {row.name: row for row in report.rows()}
    assert list(rows) == ["s-1", "s-2", "s-3"]
    assert rows["s-1"].passed and not rows["s-2"].passed
    assert rows["s-3"].verdict == "error" and "no test case named 's-3'" in rows["s-3"].explanation
    assert report.usage(0) is not None and report.usage(0).total_tokens == 575  # type: ignore[union-attr]
    without = Scorer().evaluate_test_cases(cases, TrajectoryMatch(expected=CALLS))
    assert [r.name for r in without.rows()] == ["s-1", "s-2"]
    assert all(r.passed for r in without.rows())
    errored = Scorer().evaluate_test_cases([], TrajectoryMatch(), unevaluable={"t": "broken"})
    assert next(errored.rows()).explanation.endswith("broken")


def test_the_golden_trace_suite_runs_offline_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(GOLDEN), "--no-history"]) == 0
    out = capsys.readouterr().out
    assert "3 of 3 cases pass every check" in out
    assert "tokens per case        575     <= 1000   passed" in out
    assert "no-genai-spans" in out  # the health-check trace, named by no sample, is listed
    report = json.loads((tmp_path / "out/traces/travel-agent-traces.json").read_text("utf-8"))
    assert report["metadata"]["unevaluable-traces"][0]["reason"] == "no-genai-spans"
    traces_sha = hashlib.sha256((GOLDEN / "agent.otlp.jsonl").read_bytes()).hexdigest()
    assert report["metadata"]["traces-sha256"] == traces_sha


def test_a_regressed_trace_fails_the_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(GOLDEN, suite)
    expected = (suite / "expected.yaml").read_text("utf-8")
    (suite / "expected.yaml").write_text(expected.replace("flight: AF 1203", "flight: AF 9999"))
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(suite), "--no-history"]) == 1
    out = capsys.readouterr().out
    assert "trip-bergen-paris" in out and 'expected book_flight(flight="AF 9999")' in out


def test_annotate_writes_linked_verdicts_with_provenance(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "verdicts.jsonl"
    assert main(["traces", "annotate", str(GOLDEN), "-o", str(out)]) == 0
    assert "wrote 6 verdicts on 3 traces" in capsys.readouterr().out
    first = out.read_bytes()
    assert main(["traces", "annotate", str(GOLDEN), "-o", str(out)]) == 0
    assert out.read_bytes() == first  # the same bytes every time
    evaluated = {c.metadata["trace-id"]: c for c in read(GOLDEN / "agent.otlp.jsonl", problems=[])}
    samples_sha = hashlib.sha256((GOLDEN / "expected.yaml").read_bytes()).hexdigest()
    traces_sha = hashlib.sha256((GOLDEN / "agent.otlp.jsonl").read_bytes()).hexdigest()
    spans = [
        span
        for line in first.decode("utf-8").splitlines()
        for span in json.loads(line)["resourceSpans"][0]["scopeSpans"][0]["spans"]
    ]
    assert len(spans) == 6
    for span in spans:
        case = evaluated[span["traceId"]]
        assert span["parentSpanId"] == case.metadata["span-id"]
        assert span["links"] == [{"traceId": span["traceId"], "spanId": case.metadata["span-id"]}]
        attributes = {a["key"]: next(iter(a["value"].values())) for a in span["attributes"]}
        assert attributes["gen_ai.evaluation.score.label"] == "pass"
        assert attributes["evalmark.samples.sha256"] == samples_sha
        assert attributes["evalmark.traces.sha256"] == traces_sha
        assert attributes["evalmark.version"]
        assert span["events"][0]["name"] == "gen_ai.evaluation.result"
    options = {
        a["value"]["stringValue"]
        for s in spans
        for a in s["attributes"]
        if a["key"] == "evalmark.check.options"
    }
    assert options == {'{"mode": "strict"}', "{}"}


def test_annotate_records_the_judge_prompt_checksum(tmp_path: Path) -> None:
    from evalmark.models._prompts import get_prompt

    suite = tmp_path / "suite"
    shutil.copytree(GOLDEN, suite)
    text = (suite / "suite.yaml").read_text("utf-8")
    (suite / "suite.yaml").write_text(text.replace("  - contains-facts ", "  - relevancy "))
    out = tmp_path / "verdicts.jsonl"
    main(["traces", "annotate", str(suite), "-o", str(out)])
    prompt = get_prompt("relevancy")
    text = prompt.text or f"{prompt.system}\n{prompt.body}"
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert f'"evalmark.prompt.sha256", "value": {{"stringValue": "{digest}"}}' in out.read_text()


def test_annotate_from_python_and_read_back(tmp_path: Path) -> None:
    path = tp.write_json_lines(tmp_path / "a.jsonl", [tp.encode(tp.agent_spans(["s-1"]))])
    cases = list(read(path, match="session.id"))
    report = Scorer().evaluate_test_cases(cases, TrajectoryMatch(expected=CALLS[:1]))
    assert annotate(report, cases, tmp_path / "v.jsonl") == 1
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert cases[0].metadata["trace-file-sha256"] == digest
    assert f'"evalmark.traces.sha256", "value": {{"stringValue": "{digest}"}}' in (
        tmp_path / "v.jsonl"
    ).read_text("utf-8")
    given = Provenance(traces_sha256="0" * 64)
    annotate(report, cases, tmp_path / "w.jsonl", provenance=given)
    assert f'"stringValue": "{"0" * 64}"' in (tmp_path / "w.jsonl").read_text("utf-8")
    problems: list[Any] = []
    assert list(read(tmp_path / "v.jsonl", problems=problems)) == []
    assert [p.reason for p in problems] == ["no-content"]  # a verdict is not an agent run


def test_suite_files_check_the_traces_key(tmp_path: Path) -> None:
    (tmp_path / "t.jsonl").write_text("", encoding="utf-8")
    good = "name: t\ntraces: {path: t.jsonl, match: session.id}\nstrategies: [trajectory-match]\n"
    (tmp_path / "suite.yaml").write_text(good, encoding="utf-8")
    evaluation = load_suite(tmp_path / "suite.yaml").evaluations[0]
    assert evaluation.traces is not None and evaluation.traces.match == "session.id"
    assert evaluation.samples == ()
    bad = "name: t\ntraces: {path: nope.jsonl, matc: x}\nstrategies: [trajectory-match]\n"
    (tmp_path / "suite.yaml").write_text(bad, encoding="utf-8")
    with pytest.raises(SuiteError) as caught:
        load_suite(tmp_path / "suite.yaml")
    message = str(caught.value)
    assert "suite.yaml:2" in message and "no such file 'nope.jsonl'" in message
    assert "matc" in message and "match" in message


def test_the_json_schema_accepts_the_trace_suite() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    import yaml

    from evalmark.suite import suite_file_schema

    validator = jsonschema.Draft202012Validator(suite_file_schema())
    document = yaml.safe_load((GOLDEN / "suite.yaml").read_text(encoding="utf-8"))
    assert list(validator.iter_errors(document)) == []
    assert list(validator.iter_errors({**document, "traces": {"match": "x"}}))


def test_a_dry_run_of_a_trace_suite_asks_no_application(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", str(GOLDEN), "--dry-run"]) == 0
    assert "total       model calls      0" in capsys.readouterr().out
