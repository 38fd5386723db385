"""Files written by the real producers (inspect_ai, Ragas, DeepEval: the ``producers`` extra),
imported and re-scored: each sample, answer and score must equal what the producer recorded.

The producers run offline (inside ``evalmark.offline()``, their telemetry switched off by their
documented variables); inspect_ai's ``mockllm`` counts tokens with a local counter. Without the
extra these tests skip, except under ``CI=true``, where a missing producer fails the run.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import evalmark
from evalmark.cli import main
from evalmark.interop import read
from evalmark.strategies._inspect import InspectScorer

FIXTURES = Path(__file__).parent / "fixtures"
# the producers' own import-time deprecation warnings are theirs, not evalmark's
pytestmark = pytest.mark.filterwarnings("ignore")


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make_real = _load(FIXTURES / "real" / "make_fixtures.py", "real_producer_fixtures")


def producer(name: str) -> ModuleType:
    """The producer's module; skips without it, but fails under CI (which installs them)."""
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        try:
            return importlib.import_module(name)
        except ImportError as exc:
            pytest.fail(f"CI must run the real-producer tests, but {name} does not import: {exc}")
    return pytest.importorskip(name, reason="the producers extra is not installed")


@pytest.fixture
def offline_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A working folder, the producers' telemetry off and the network guard on (a call it
    refused fails the test, even one the producer caught); the logging handlers inspect_ai
    adds to the root logger are taken off again after the test."""
    for key, value in make_real.QUIET_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    evalmark.offline.attempts(clear=True)
    try:
        with evalmark.offline():
            yield tmp_path
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    assert evalmark.offline.attempts(clear=True) == []


def committed(producer_name: str) -> Path:
    """The folder of the files the installed producer's version wrote (committed)."""
    folder = FIXTURES / "real" / f"{producer_name}-{make_real.producer_versions()[producer_name]}"
    assert folder.is_dir(), f"no committed files for {folder.name}: run {make_real.__file__}"
    return folder


def _rescore(imported: Any, build: str) -> dict[str, bool]:
    (check,) = imported.checks
    options = check["inspect-scorer"]
    scorer = InspectScorer(
        options["scorer"], location=options.get("location", "end"), ignore_case=True
    )
    answers = imported.outputs[build]
    return {s.name: scorer.evaluate(s, answers[s.name]).passed for s in imported.samples}


def test_an_inspect_json_log_imports_as_inspect_recorded_it(offline_dir: Path) -> None:
    producer("inspect_ai")
    from inspect_ai.log import read_eval_log

    path = make_real.inspect_log(offline_dir, "json")
    fresh = json.loads(path.read_text())
    kept = json.loads((committed("inspect_ai") / path.name).read_text())
    assert sorted(fresh) == sorted(kept)  # the committed log has this version's shape
    assert [sorted(s) for s in fresh["samples"]] == [sorted(s) for s in kept["samples"]]
    log = read_eval_log(str(path))
    assert log.samples is not None
    imported = read("inspect", path, allow_loss=["events"])
    by_name = {s.name: s for s in imported.samples}
    verdicts = _rescore(imported, "mockllm-model")
    for recorded in log.samples:
        name = f"capitals-{recorded.id}"
        sample = by_name[name]
        question = sample.parameters[0]
        if isinstance(recorded.input, str):
            assert question == recorded.input
        else:
            assert [m["content"] for m in question] == [m.text for m in recorded.input]
        targets = [recorded.target] if isinstance(recorded.target, str) else recorded.target
        assert (sample.expected_outputs or (sample.expected_output,)) == tuple(targets)
        assert imported.outputs["mockllm-model"][name] == recorded.output.completion
        assert recorded.scores is not None
        assert verdicts[name] == (recorded.scores["match"].value == "C")
        results = sample.metadata["inspect-results"]["mockllm-model"]
        usage = {m: u.model_dump(exclude_none=True) for m, u in recorded.model_usage.items()}
        assert results["model-usage"] == usage
    (case,) = [c for c in imported.test_cases("mockllm-model") if c.tool_calls]
    (call,) = case.tool_calls
    assert (call.name, call.arguments, call.result) == ("lookup", {"country": "Peru"}, "Lima")
    assert imported.kept["results"]["scores"][0]["metrics"]["accuracy"]["value"] == 0.75


def test_an_inspect_eval_zip_gives_one_build_per_epoch(offline_dir: Path) -> None:
    producer("inspect_ai")
    from inspect_ai.log import read_eval_log

    path = make_real.inspect_log(offline_dir, "eval")
    log = read_eval_log(str(path))
    assert log.samples is not None
    imported = read("inspect", path, allow_loss=["events"])
    assert sorted(imported.outputs) == ["mockllm-model-epoch-1", "mockllm-model-epoch-2"]
    for recorded in log.samples:
        build = f"mockllm-model-epoch-{recorded.epoch}"
        name = f"capitals-{recorded.id}"
        assert imported.outputs[build][name] == recorded.output.completion
        assert recorded.scores is not None
        assert _rescore(imported, build)[name] == (recorded.scores["includes"].value == "C")
    assert imported.kept["reductions"][0]["scorer"] == "includes"
    assert main(["import", "inspect", str(path), "-o", "s", "--allow-loss", "events"]) == 0
    assert main(["run", "s", "-q", "--report-dir", "r", "--report-format", "json"]) == 1
    (report,) = (offline_dir / "r").glob("*.json")
    verdicts = {c["name"]: c["verdict"] for c in json.loads(report.read_text())["samples"]}
    first_epoch = {  # the suite replays epoch 1: each verdict is inspect's score of it
        f"capitals-{s.id}": "pass" if s.scores and s.scores["includes"].value == "C" else "fail"
        for s in log.samples
        if s.epoch == 1
    }
    assert verdicts == first_epoch


def test_ragas_datasets_import_as_ragas_reads_them_back(offline_dir: Path) -> None:
    producer("ragas")
    from ragas import EvaluationDataset

    single, multi = make_real.ragas_datasets(offline_dir)
    for path in (single, multi):  # the committed files are what this version writes
        assert path.read_bytes() == (committed("ragas") / path.name).read_bytes()
    written = EvaluationDataset.from_jsonl(str(single))
    imported = read("ragas", single)
    for sample, original in zip(imported.samples, written.samples, strict=True):
        assert sample.parameters[0] == original.user_input
        assert sample.expected_output == original.reference
        assert sample.context == tuple(original.reference_contexts or ())
        assert imported.outputs["ragas"][sample.name] == original.response
    cases = imported.test_cases("ragas")
    assert [c.retrieval_context for c in cases] == [
        tuple(s.retrieved_contexts) for s in written.samples
    ]
    (conversation,) = read("ragas", multi).samples
    (original,) = EvaluationDataset.from_jsonl(str(multi)).samples
    assert [(m["type"], m["content"]) for m in conversation.parameters[0]] == [
        (m.type, m.content) for m in original.user_input
    ]
    assert main(["import", "ragas", str(single), "-o", "s", "--check", "exact-match"]) == 0
    assert main(["run", "s", "-q"]) == 1  # Kyoto is not Tokyo


@pytest.mark.parametrize("file_type", ["json", "jsonl", "csv"])
def test_deepeval_goldens_import_as_deepeval_saved_them(offline_dir: Path, file_type: str) -> None:
    producer("deepeval")
    from deepeval.dataset import EvaluationDataset

    goldens = _load(FIXTURES / "deepeval" / "make_fixtures.py", "deepeval_fixtures").GOLDENS
    written = EvaluationDataset(goldens=goldens).save_as(
        file_type=file_type, directory=str(offline_dir), file_name="goldens"
    )
    if make_real.producer_versions()["deepeval"] == "4.3.1":  # the version that wrote them
        assert (
            Path(written).read_bytes() == (FIXTURES / "deepeval" / Path(written).name).read_bytes()
        )
    imported = read("deepeval", written)
    for sample, golden in zip(imported.samples, goldens, strict=True):
        assert sample.parameters[0] == golden.input
        assert sample.expected_output == golden.expected_output
        assert sample.context == tuple(golden.context or ())
        assert imported.outputs["deepeval"][sample.name] == golden.actual_output
    for case, golden in zip(imported.test_cases("deepeval"), goldens, strict=True):
        assert case.retrieval_context == tuple(golden.retrieval_context or ())
        assert [(c.name, c.arguments) for c in case.tool_calls] == [
            (c.name, c.input_parameters or {}) for c in golden.tools_called or ()
        ]


def test_a_deepeval_conversational_golden_becomes_a_conversation(offline_dir: Path) -> None:
    producer("deepeval")
    path = make_real.deepeval_conversational(offline_dir)
    assert path.read_bytes() == (committed("deepeval") / path.name).read_bytes()
    (conversation,) = read("deepeval", path).conversations
    assert conversation.turns == ("A table for two, please.",)
    assert conversation.answers == {"deepeval": ("Booked.",)}
