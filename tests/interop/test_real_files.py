"""Importing the files the real producers wrote, committed under ``fixtures/real`` (one folder
per producer and version, written by ``fixtures/real/make_fixtures.py``), without the producers.

inspect_ai 0.3.285 writes every ``.eval`` zip member with Zstandard, which Python's zipfile
reads only from 3.14 on; before that evalmark reads them with the ``zstandard`` package.
"""

from __future__ import annotations

import json
import os
import sys
import zipfile
from pathlib import Path

import pytest

from evalmark.cli import main
from evalmark.errors import ImportFormatError
from evalmark.interop import read
from evalmark.interop._zip import ZSTD
from evalmark.strategies._inspect import InspectScorer

REAL = Path(__file__).parent / "fixtures" / "real"
INSPECT_JSON = REAL / "inspect_ai-0.3.285" / "capitals.json"
INSPECT_EVAL = REAL / "inspect_ai-0.3.285" / "capitals.eval"
RAGAS = REAL / "ragas-0.4.3"
DEEPEVAL_CHAT = REAL / "deepeval-4.3.1" / "chat.json"


def require_zstandard() -> None:
    """Skip without the zstandard package (the dev extra has it); under CI, fail."""
    try:
        import zstandard  # noqa: F401
    except ImportError:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("CI must read the Zstandard .eval fixture, but zstandard is missing")
        pytest.skip("zstandard is not installed (the dev extra has it)")


def test_every_member_of_the_real_eval_zip_is_zstandard() -> None:
    with zipfile.ZipFile(INSPECT_EVAL) as archive:
        methods = {info.compress_type for info in archive.infolist()}
        names = archive.namelist()
    assert methods == {ZSTD}
    assert {"header.json", "reductions.json", "summaries.json"} <= set(names)
    assert "samples/jp_epoch_2.json" in names


def test_the_real_json_log_imports_with_its_new_fields_carried() -> None:
    imported = read("inspect", INSPECT_JSON, allow_loss=["events"])
    assert imported.lost == ("events",)
    names = [s.name for s in imported.samples]
    assert names == ["capitals-1", "capitals-2", "capitals-4", "capitals-jp"]
    log = json.loads(INSPECT_JSON.read_text())
    recorded = {f"capitals-{s['id']}": s for s in log["samples"]}
    (check,) = imported.checks
    scorer = InspectScorer("match", location=check["inspect-scorer"]["location"])
    for sample in imported.samples:
        row = recorded[sample.name]
        answer = imported.outputs["mockllm-model"][sample.name]
        assert answer == row["output"]["completion"]
        assert scorer.evaluate(sample, answer).passed == (row["scores"]["match"]["value"] == "C")
        results = sample.metadata["inspect-results"]["mockllm-model"]
        assert results["turn-count"] == row["turn_count"]
        assert results["role-usage"] == row["role_usage"]
    (case,) = [c for c in imported.test_cases("mockllm-model") if c.tool_calls]
    (call,) = case.tool_calls
    assert (call.name, call.arguments, call.result) == ("lookup", {"country": "Peru"}, "Lima")


def test_the_real_logs_transcript_is_refused_unless_allowed() -> None:
    with pytest.raises(ImportFormatError, match="--allow-loss events") as caught:
        read("inspect", INSPECT_JSON)
    assert caught.value.problems[0].record == "events"


def test_the_real_eval_zip_reads_its_zstandard_members() -> None:
    require_zstandard()
    imported = read("inspect", INSPECT_EVAL, allow_loss=["events"])
    assert imported.version == "eval log v2"
    assert sorted(imported.outputs) == ["mockllm-model-epoch-1", "mockllm-model-epoch-2"]
    for answers in imported.outputs.values():
        assert answers == {
            "capitals-1": "The capital is Paris.",
            "capitals-2": "Berlin",
            "capitals-jp": "Kyoto",
        }
    # reductions.json is kept with the header's fields
    assert imported.kept["reductions"][0]["scorer"] == "includes"
    assert imported.kept["eval"]["packages"] == {"inspect_ai": "0.3.285"}


def test_the_imported_eval_zip_replays_inspects_verdicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_zstandard()
    monkeypatch.chdir(tmp_path)
    source = str(INSPECT_EVAL)
    assert main(["import", "inspect", source, "-o", "s", "--allow-loss", "events"]) == 0
    assert main(["run", "s", "-q", "--report-dir", "r", "--report-format", "json"]) == 1
    (report,) = Path("r").glob("*.json")
    verdicts = {c["name"]: c["verdict"] for c in json.loads(report.read_text())["samples"]}
    assert verdicts == {"capitals-1": "pass", "capitals-2": "pass", "capitals-jp": "fail"}


def test_without_zstandard_the_import_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if hasattr(zipfile, "ZIP_ZSTANDARD"):  # Python 3.14, or zipfile patched by inspect_ai
        pytest.skip("this zipfile reads Zstandard itself")
    monkeypatch.setitem(sys.modules, "zstandard", None)  # an import of it fails
    with pytest.raises(ImportFormatError, match="zstandard") as caught:
        read("inspect", INSPECT_EVAL, allow_loss=["events"])
    assert caught.value.problems[0].path == f"{INSPECT_EVAL}:header.json"
    monkeypatch.chdir(tmp_path)
    assert main(["import", "inspect", str(INSPECT_EVAL), "-o", "s"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'evalmark[inspect]'" in err


def test_a_damaged_zstandard_member_is_refused(tmp_path: Path) -> None:
    require_zstandard()
    data = bytearray(INSPECT_EVAL.read_bytes())
    with zipfile.ZipFile(INSPECT_EVAL) as archive:
        info = archive.getinfo("samples/1_epoch_1.json")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start + info.compress_size // 2] ^= 0xFF
    path = tmp_path / "damaged.eval"
    path.write_bytes(bytes(data))
    with pytest.raises(ImportFormatError, match="damaged zip member") as caught:
        read("inspect", path, allow_loss=["events"])
    assert caught.value.problems[0].path == f"{path}:samples/1_epoch_1.json"


def test_the_real_ragas_files_read_as_the_hand_built_ones() -> None:
    imported = read("ragas", RAGAS / "single_turn.jsonl")
    france, japan = imported.samples
    assert japan.parameters[0] == "Capital of Japan? (東京?)"
    assert france.context == ("France's capital is Paris.",)
    assert imported.outputs == {"ragas": {"sample-1": "Paris.", "sample-2": "Kyoto"}}
    (conversation,) = read("ragas", RAGAS / "multi_turn.jsonl").samples
    messages = conversation.parameters[0]
    assert [m["type"] for m in messages] == ["human", "ai", "human", "ai", "tool"]
    assert messages[3]["tool_calls"][0]["args"]["people"] == 2


def test_a_real_conversational_deepeval_golden_becomes_a_conversation() -> None:
    imported = read("deepeval", DEEPEVAL_CHAT)
    assert imported.samples == ()
    (conversation,) = imported.conversations
    assert conversation.turns == ("A table for two, please.",)
    assert conversation.answers == {"deepeval": ("Booked.",)}
