"""The quick import of a common inspect ``.json`` log (one pass for the re-score, by the Rust
scan or by the typed decoding; the samples from the general reading when first read) gives
what the general import gives: the same samples, checks, answers, losses, kept fields, tool
calls and hash, or the same error, for logs of every shape, common or not."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalmark.errors import ImportFormatError
from evalmark.interop import read
from inspect_logs import json_log
from inspect_quick_cases import import_result, quick_calls, samples

_BASE = json.dumps(json_log())  # loaded once: each example starts from a fresh copy


@settings(max_examples=150, deadline=None)
@given(
    samples=samples(),
    allow=st.sampled_from([[], ["events", "error", "sandbox", "unknown_field", "attachments"]]),
    status=st.sampled_from(["success", "error"]),
    spaced=st.booleans(),
)
def test_the_quick_import_gives_what_the_general_import_gives(
    samples: list[dict[str, Any]], allow: list[str], status: str, spaced: bool
) -> None:
    log = json.loads(_BASE)
    log["status"] = status
    log["samples"] = samples
    text = json.dumps(log, indent=1 if spaced else None)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "log.json"
        path.write_text(text, encoding="utf-8")
        allowed = [*allow, "status"] if status != "success" else allow
        quick = import_result(path, allowed, True)
        typed = import_result(path, allowed, True, scan=False)
        general = import_result(path, allowed, False)
    assert quick == typed == general


@pytest.mark.parametrize("shape", ["common", "unknown field"])
def test_a_common_log_takes_the_quick_import_and_another_the_general(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    log = json_log()
    for sample in log["samples"]:
        sample.pop("attachments")
    log["samples"][1]["input"] = "What is the capital of Germany?"
    log["samples"][1]["target"] = "Berlin"  # several targets: the general import's
    if shape == "unknown field":
        log["samples"][2]["zz"] = 1
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    calls = quick_calls(monkeypatch)
    if shape == "common":
        imported = read("inspect", path)
        assert calls == [True]
        assert [s.name for s in imported.samples] == ["capitals-1", "capitals-2", "capitals-3"]
    else:
        with pytest.raises(ImportFormatError, match="'zz'"):
            read("inspect", path)
        assert calls == [False]
