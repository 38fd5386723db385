"""promptfoo results files for the scan's tests: a Hypothesis strategy of files mostly of
the common shape (:func:`results_files`), and the two readings of a file to compare
(:func:`imports`, :func:`same`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from evalmark.errors import ImportFormatError
from evalmark.interop._model import Imported, Losses, hash_later
from evalmark.interop._promptfoo import _CARRIED
from evalmark.interop._promptfoo_results import _typed_import
from evalmark.interop._promptfoo_scan import scan_import

_TEXT = st.text(st.sampled_from("ab C.,!?\n\té\u2028"), max_size=6)
_PROVIDERS = [{"id": "openai:gpt", "label": ""}, "echo", {"id": "x", "label": "L/1"}]


def imports(path: Path) -> tuple[Imported | None, Imported | ImportFormatError | None]:
    """The file read by the scan (None: left to the other readings) and by typed rows (None:
    not typed rows; the error: refused)."""
    data = path.read_bytes()
    digest = hash_later([path], {path: data})

    def whole(losses: Losses) -> Imported:
        found = _typed_import(path, data, losses, digest)
        assert found is not None
        return found

    try:
        typed = _typed_import(path, data, Losses(()), digest)
    except ImportFormatError as error:
        typed = error
    return scan_import(path, data, Losses(()), whole, digest), typed


def same(quick: Imported, typed: Imported) -> None:
    assert (quick.format, quick.version, quick.files) == (typed.format, typed.version, typed.files)
    assert quick.outputs == typed.outputs
    assert [list(answers) for answers in quick.outputs.values()] == [
        list(answers) for answers in typed.outputs.values()
    ]
    assert quick.kept == typed.kept and list(quick.kept) == list(typed.kept)
    assert (quick.sha256, quick.checks, quick.lost) == (typed.sha256, typed.checks, typed.lost)
    for build in typed.outputs:
        assert quick.columns(build) == typed.columns(build)
    assert quick.samples == typed.samples


def _case(draw: st.DrawFn, question: str) -> dict[str, Any]:
    """A test case of the common shape: an expected answer, maybe other assertions."""
    asserts: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(sorted(_CARRIED)))
        entry: dict[str, Any] = {"type": kind}
        if kind != "equals" or draw(st.booleans()):
            entry["value"] = draw(_TEXT | st.lists(_TEXT, max_size=2) | st.integers(-2, 2))
            if kind == "equals" and not isinstance(entry["value"], str):
                entry["value"] = str(entry["value"])
        if draw(st.booleans()):
            entry["threshold"] = draw(st.floats(0, 1))
        asserts.append(entry)
    case: dict[str, Any] = {"vars": {"q": question, "n": draw(st.integers(-3, 3))}}
    if asserts or draw(st.booleans()):
        case["assert"] = asserts
    if draw(st.booleans()):
        case["metadata"] = {"tag": draw(_TEXT)}
    return case


_UNUSUAL: list[tuple[str, Any]] = [
    ("output", ["not", "a", "text"]),
    ("output", None),
    ("response", "a text"),
    ("response", None),
    ("testCase", None),
    ("testCase", {"vars": {"q": True}}),
    ("testCase", {"assert": [{"type": "equals", "value": "{{q}}"}]}),
    ("testCase", {"assert": [{"type": "equals", "value": 3}]}),
    ("testCase", {"assert": [{"type": "javascript", "value": "1"}]}),
    ("testCase", {"assert": [{"type": "equals", "value": "x", "provider": "p"}]}),
    ("testCase", {"options": {}}),
    ("testIdx", 1.0),
    ("testIdx", None),
    ("testIdx", 2**70),
    ("promptIdx", -1),
    ("provider", "another"),
    ("prompt", {"label": "no raw"}),
    ("latencyMs", 2**70),
    ("unknownField", 1),
    ("gradingResult", {"pass": True, "score": 1, "reason": "ok"}),
]


@st.composite
def results_files(draw: st.DrawFn) -> tuple[bytes, bool]:
    """A results file, mostly of the common shape, and whether it is common (no row with an
    unusual field, no provider answering a sample twice)."""
    providers = draw(st.lists(st.sampled_from([*_PROVIDERS, None]), min_size=1, max_size=3))
    rows, common, questions, answered = [], True, {}, set()
    for index in range(draw(st.integers(0, 5))):
        sample = (draw(st.sampled_from([index, index, 0])), draw(st.sampled_from([0, 0, 1])))
        question = questions.setdefault(sample, draw(_TEXT))  # a sample's in each of its rows
        provider = draw(st.sampled_from(providers))
        row: dict[str, Any] = {
            "prompt": {"raw": question, "label": "{{q}}"},
            "promptIdx": sample[1],
            "testIdx": sample[0],
            "testCase": _case(draw, question),
            "provider": provider,
            "response": {"output": draw(_TEXT), "cached": draw(st.booleans())},
            "success": draw(st.booleans()),
            "score": draw(st.floats(0, 1)),
        }
        if provider is None:
            del row["provider"]
        if draw(st.integers(0, 5)) == 0:
            key, value = draw(st.sampled_from(_UNUSUAL))
            (row["response"] if key == "output" else row)[key] = value
            common = common and key == "gradingResult"
        answered.add((sample, json.dumps(provider)))  # each of _PROVIDERS names its own build
        rows.append(row)
    body: dict[str, Any] = {"version": draw(st.sampled_from([3, 3, 3.0, 2])), "results": rows}
    if draw(st.booleans()):
        body.update(timestamp="2026-12-07", stats={"successes": 1, "failures": 0})
    document: dict[str, Any] = {"results": body}
    if draw(st.booleans()):
        document = {"evalId": "eval-1", "config": {"description": draw(_TEXT)}, **document}
    if draw(st.integers(0, 9)) == 0:
        document["unknown"] = 1
        common = False
    common = common and body["version"] == 3 and len(answered) == len(rows) > 0
    text = json.dumps(document, ensure_ascii=draw(st.booleans()))
    if draw(st.integers(0, 9)) == 0 and '"testIdx": ' in text:  # a key repeated
        text = text.replace('"testIdx": ', '"testIdx": 0, "testIdx": ', 1)
        common = False
    return text.encode("utf-8"), common
