"""promptfoo results whose rows send several prompts are read column by column as the plain
reader reads them: a sample per test and prompt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evalmark.interop import read
from evalmark.interop._model import Losses
from evalmark.interop._promptfoo import _from_results
from evalmark.interop._promptfoo_reader import Reader
from evalmark.interop._promptfoo_results import _typed_cases


def _row(test: int, prompt: int) -> dict[str, Any]:
    question = f"Q{test}"
    return {
        "promptIdx": prompt,
        "testIdx": test,
        "testCase": {"vars": {"q": question}, "assert": [{"type": "equals", "value": "A"}]},
        "prompt": {"raw": f"{question} (prompt {prompt})", "label": "p"},
        "provider": "echo",
        "response": {"output": f"answer {test}/{prompt}"},
        "success": False,
        "score": 0.0,
    }


def test_several_prompts_give_the_plain_import(tmp_path: Path) -> None:
    rows = [_row(test, prompt) for test in range(3) for prompt in range(2)]
    doc = {"evalId": "e", "results": {"version": 3, "timestamp": "t", "results": rows}}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert _typed_cases(path.read_bytes()) is not None  # read column by column
    typed = read("promptfoo", path)
    reader = Reader(path, Losses(()))
    plain = _from_results(reader, reader.value)
    assert typed.outputs == plain.outputs
    assert typed.outputs["echo"]["test-3-prompt-2"] == "answer 2/1"
    assert [s.name for s in typed.samples] == [s.name for s in plain.samples]
    questions = [s.parameters[0] for s in typed.samples]
    assert questions == [s.parameters[0] for s in plain.samples]
    assert questions[1] == "Q0 (prompt 1)"
