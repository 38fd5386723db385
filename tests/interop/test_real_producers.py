"""Files written by the real producers (inspect_ai, Ragas, DeepEval: the ``producers`` extra),
imported and re-scored: each sample, answer and score must equal what the producer recorded.

The producers live in a venv of their own (``make producers`` builds ``.venv-producers``), never
in the test venv: ``EVALMARK_PRODUCERS_PYTHON`` names its Python. Each producer runs there in a
subprocess (``fixtures/real/make_fixtures.py --case NAME``, this checkout's ``python/`` on its
``PYTHONPATH``) that writes its files inside ``evalmark.offline()``, with the producers' telemetry
switched off by their documented variables, and dumps what the producer itself reads back from
them; the test imports the files here and compares. inspect_ai's ``mockllm`` counts tokens with
a local counter. Without ``EVALMARK_PRODUCERS_PYTHON`` these tests skip, except under
``CI=true``, where they fail saying how to build the producers' venv.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import evalmark
from evalmark.cli import main
from evalmark.interop import read
from evalmark.strategies._inspect import InspectScorer

FIXTURES = Path(__file__).parent / "fixtures"
SCRIPT = FIXTURES / "real" / "make_fixtures.py"
CHECKOUT_PYTHON = Path(__file__).resolve().parents[2] / "python"
PRODUCERS_PYTHON = "EVALMARK_PRODUCERS_PYTHON"
TIMEOUT = 240  # seconds for one producer run: under the 300 s per test, so a hang fails as such
Produced = tuple[Path, dict[str, Any]]


def _quiet_env() -> dict[str, str]:
    """The producers' telemetry and update checks off: ``make_fixtures.QUIET_ENV``."""
    spec = importlib.util.spec_from_file_location("real_producer_fixtures", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.QUIET_ENV)


def producers_python() -> str:
    """The producers' Python; skips without it, but fails under CI (which builds it)."""
    python = os.environ.get(PRODUCERS_PYTHON, "")
    if python:
        return python
    how = (
        f"{PRODUCERS_PYTHON} is not set: build the producers' venv with `make producers` and "
        f"set {PRODUCERS_PYTHON}=$PWD/.venv-producers/bin/python"
    )
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"CI must run the real-producer tests, but {how}")
    pytest.skip(how)


@pytest.fixture(scope="session")
def produce(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Produced]:
    """Runs one case of ``make_fixtures.py`` (once per session) with the producers' Python:
    the folder of its files and the producer's read-back of them."""
    done: dict[str, Produced | str] = {}  # a case's files, or why it failed (not rerun)

    def run(case: str) -> Produced:
        if case not in done:
            python = producers_python()
            out = tmp_path_factory.mktemp(case)
            env = {**os.environ, **_quiet_env(), "PYTHONPATH": str(CHECKOUT_PYTHON)}
            env.pop("PYTHONHOME", None)
            command = [python, str(SCRIPT), "--case", case, "--out", str(out)]
            try:
                ran = subprocess.run(
                    command, cwd=out, env=env, capture_output=True, text=True, timeout=TIMEOUT
                )
            except subprocess.TimeoutExpired:
                done[case] = f"{' '.join(command)} ran past {TIMEOUT} s"
            else:
                if ran.returncode != 0:
                    done[case] = f"{' '.join(command)} failed:\n{ran.stderr[-6000:]}"
                else:
                    readback = json.loads((out / f"{case}.readback.json").read_text("utf-8"))
                    done[case] = (out, readback)
        produced = done[case]
        if isinstance(produced, str):
            pytest.fail(produced, pytrace=False)
        # no network call in the producer's run, not even one the producer caught
        assert produced[1]["refused"] == []
        return produced

    return run


@pytest.fixture
def offline_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A working folder with the network guard on for evalmark's own import and run (a call
    it refused fails the test)."""
    monkeypatch.chdir(tmp_path)
    evalmark.offline.attempts(clear=True)
    with evalmark.offline():
        yield tmp_path
    assert evalmark.offline.attempts(clear=True) == []


def committed(readback: dict[str, Any], producer_name: str) -> Path:
    """The folder of the files the producer's version wrote (committed)."""
    folder = FIXTURES / "real" / f"{producer_name}-{readback['versions'][producer_name]}"
    assert folder.is_dir(), f"no committed files for {folder.name}: run {SCRIPT}"
    return folder


def _rescore(imported: Any, build: str) -> dict[str, bool]:
    (check,) = imported.checks
    options = check["inspect-scorer"]
    scorer = InspectScorer(
        options["scorer"], location=options.get("location", "end"), ignore_case=True
    )
    answers = imported.outputs[build]
    return {s.name: scorer.evaluate(s, answers[s.name]).passed for s in imported.samples}


def test_an_inspect_json_log_imports_as_inspect_recorded_it(
    offline_dir: Path, produce: Callable[[str], Produced]
) -> None:
    out, readback = produce("inspect")
    path = out / "capitals.json"
    fresh = json.loads(path.read_text())
    kept = json.loads((committed(readback, "inspect_ai") / path.name).read_text())
    assert sorted(fresh) == sorted(kept)  # the committed log has this version's shape
    assert [sorted(s) for s in fresh["samples"]] == [sorted(s) for s in kept["samples"]]
    log = readback["json"]["samples"]
    imported = read("inspect", path, allow_loss=["events"])
    by_name = {s.name: s for s in imported.samples}
    assert sorted(by_name) == sorted(f"capitals-{recorded['id']}" for recorded in log)
    verdicts = _rescore(imported, "mockllm-model")
    for recorded in log:
        name = f"capitals-{recorded['id']}"
        sample = by_name[name]
        question = sample.parameters[0]
        if isinstance(recorded["input"], str):
            assert question == recorded["input"]
        else:
            assert [m["content"] for m in question] == recorded["input"]
        target = recorded["target"]
        targets = [target] if isinstance(target, str) else target
        assert (sample.expected_outputs or (sample.expected_output,)) == tuple(targets)
        assert imported.outputs["mockllm-model"][name] == recorded["completion"]
        assert recorded["scores"] is not None
        assert verdicts[name] == (recorded["scores"]["match"] == "C")
        results = sample.metadata["inspect-results"]["mockllm-model"]
        assert results["model-usage"] == recorded["model_usage"]
    (case,) = [c for c in imported.test_cases("mockllm-model") if c.tool_calls]
    (call,) = case.tool_calls
    assert (call.name, call.arguments, call.result) == ("lookup", {"country": "Peru"}, "Lima")
    assert imported.kept["results"]["scores"][0]["metrics"]["accuracy"]["value"] == 0.75


def test_an_inspect_eval_zip_gives_one_build_per_epoch(
    offline_dir: Path, produce: Callable[[str], Produced]
) -> None:
    out, readback = produce("inspect")
    path = out / "capitals.eval"
    log = readback["eval"]["samples"]
    assert log
    imported = read("inspect", path, allow_loss=["events"])
    assert sorted(imported.outputs) == ["mockllm-model-epoch-1", "mockllm-model-epoch-2"]
    for recorded in log:
        build = f"mockllm-model-epoch-{recorded['epoch']}"
        name = f"capitals-{recorded['id']}"
        assert imported.outputs[build][name] == recorded["completion"]
        assert recorded["scores"] is not None
        assert _rescore(imported, build)[name] == (recorded["scores"]["includes"] == "C")
    assert imported.kept["reductions"][0]["scorer"] == "includes"
    assert main(["import", "inspect", str(path), "-o", "s", "--allow-loss", "events"]) == 0
    assert main(["run", "s", "-q", "--report-dir", "r", "--report-format", "json"]) == 1
    (report,) = (offline_dir / "r").glob("*.json")
    verdicts = {c["name"]: c["verdict"] for c in json.loads(report.read_text())["samples"]}
    first_epoch = {  # the suite replays epoch 1: each verdict is inspect's score of it
        f"capitals-{s['id']}": "pass" if s["scores"] and s["scores"]["includes"] == "C" else "fail"
        for s in log
        if s["epoch"] == 1
    }
    assert verdicts == first_epoch


def test_ragas_datasets_import_as_ragas_reads_them_back(
    offline_dir: Path, produce: Callable[[str], Produced]
) -> None:
    out, readback = produce("ragas")
    single, multi = out / "single_turn.jsonl", out / "multi_turn.jsonl"
    for path in (single, multi):  # the committed files are what this version writes
        assert path.read_bytes() == (committed(readback, "ragas") / path.name).read_bytes()
    written = readback["single"]
    imported = read("ragas", single)
    for sample, original in zip(imported.samples, written, strict=True):
        assert sample.parameters[0] == original["user_input"]
        assert sample.expected_output == original["reference"]
        assert sample.context == tuple(original["reference_contexts"] or ())
        assert imported.outputs["ragas"][sample.name] == original["response"]
    cases = imported.test_cases("ragas")
    assert [c.retrieval_context for c in cases] == [tuple(s["retrieved_contexts"]) for s in written]
    (conversation,) = read("ragas", multi).samples
    (original,) = readback["multi"]
    assert [(m["type"], m["content"]) for m in conversation.parameters[0]] == [
        (m["type"], m["content"]) for m in original
    ]
    assert main(["import", "ragas", str(single), "-o", "s", "--check", "exact-match"]) == 0
    assert main(["run", "s", "-q"]) == 1  # Kyoto is not Tokyo


@pytest.mark.parametrize("file_type", ["json", "jsonl", "csv"])
def test_deepeval_goldens_import_as_deepeval_saved_them(
    offline_dir: Path, produce: Callable[[str], Produced], file_type: str
) -> None:
    out, readback = produce("deepeval")
    written = out / readback["files"][file_type]
    if readback["versions"]["deepeval"] == "4.3.1":  # the version that wrote them
        assert written.read_bytes() == (FIXTURES / "deepeval" / written.name).read_bytes()
    goldens = readback["goldens"]
    imported = read("deepeval", written)
    for sample, golden in zip(imported.samples, goldens, strict=True):
        assert sample.parameters[0] == golden["input"]
        assert sample.expected_output == golden["expected_output"]
        assert sample.context == tuple(golden["context"] or ())
        assert imported.outputs["deepeval"][sample.name] == golden["actual_output"]
    for case, golden in zip(imported.test_cases("deepeval"), goldens, strict=True):
        assert case.retrieval_context == tuple(golden["retrieval_context"] or ())
        assert [[c.name, c.arguments] for c in case.tool_calls] == golden["tools_called"]


def test_a_deepeval_conversational_golden_becomes_a_conversation(
    offline_dir: Path, produce: Callable[[str], Produced]
) -> None:
    out, readback = produce("deepeval")
    path = out / readback["chat"]
    assert path.read_bytes() == (committed(readback, "deepeval") / path.name).read_bytes()
    (conversation,) = read("deepeval", path).conversations
    assert conversation.turns == ("A table for two, please.",)
    assert conversation.answers == {"deepeval": ("Booked.",)}
