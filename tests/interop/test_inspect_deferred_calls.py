"""The inspect importer finds the samples' tool calls when they are first read, not while it
imports and re-scores: what it carries for them is the same."""

from __future__ import annotations

import json
import pickle
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evalmark.cli import main
from evalmark.errors import ImportFormatError
from evalmark.interop import read

LOG = Path(__file__).parent / "fixtures" / "inspect" / "capitals.json"


def _count_tool_searches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the searches for a ``tool_calls`` key, wherever the importer's modules bound the
    search function."""
    import evalmark.interop._inspect_log as inspect_log

    original: Callable[[Any], bool] = inspect_log.may_call
    calls: list[int] = []

    def counted(text: Any) -> bool:
        calls.append(len(text))
        return original(text)

    for name, module in list(sys.modules.items()):
        if name.startswith("evalmark.interop") and getattr(module, "may_call", None) is original:
            monkeypatch.setattr(module, "may_call", counted)
    return calls


def test_tool_calls_are_found_when_first_read(monkeypatch: pytest.MonkeyPatch) -> None:
    searches = _count_tool_searches(monkeypatch)
    imported = read("inspect", LOG)
    expected, answers = imported.columns("mockllm-model")
    assert answers == ["It is Paris.", "berlin", "Lima, I think"]
    assert expected[0] == "Paris"
    assert searches == []  # importing and reading the columns does not look for them
    (case,) = [c for c in imported.test_cases("mockllm-model") if c.tool_calls]
    assert searches  # reading them does
    assert (case.tool_calls[0].name, case.tool_calls[0].result) == ("lookup", "Lima")
    assert list(imported.extra) == ["capitals-3"]


def test_deferred_tool_calls_pickle_and_compare_as_a_dict() -> None:
    imported = read("inspect", LOG)
    copy = pickle.loads(pickle.dumps(imported))
    assert type(copy.extra) is dict
    assert copy.extra == imported.extra
    assert dict(imported.extra) == copy.extra
    assert repr(imported.extra) == repr(copy.extra)
    assert copy.extra["capitals-3"]["tool_calls"][0].arguments == {"country": "Peru"}


def test_a_tool_call_with_no_function_is_refused_naming_the_sample(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log = json.loads(LOG.read_text(encoding="utf-8"))
    for message in log["samples"][2]["messages"]:
        for call in message.get("tool_calls") or []:
            del call["function"]
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    imported = read("inspect", path)
    assert imported.columns("mockllm-model")[1][2] == "Lima, I think"  # the re-score holds
    with pytest.raises(ImportFormatError) as refused:
        dict(imported.extra)
    assert "sample capitals-3: a tool call has no 'function'" in str(refused.value)
    assert str(path) in str(refused.value)
    monkeypatch.chdir(tmp_path)
    assert main(["import", "inspect", str(path), "-o", "s"]) == 2  # one line, no traceback
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "a tool call has no 'function'" in err
