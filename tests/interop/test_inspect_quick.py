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

import evalmark.interop._inspect as inspect_import
import evalmark.interop._inspect_quick as inspect_quick
from evalmark.errors import ImportFormatError
from evalmark.interop import read
from evalmark.strategies._inspect import inspect_match
from inspect_logs import json_log

_BASE = json.dumps(json_log())  # loaded once: each example starts from a fresh copy
_TEXT = st.text(st.sampled_from("ab C.,!? \n\té"), max_size=8)


@st.composite
def _samples(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Samples mostly of the common shape, each with a chance of one unusual field."""
    count = draw(st.integers(0, 5))
    epochs = draw(st.sampled_from([None, 1, 2]))
    samples = []
    for index in range(count):
        for epoch in range(1, (epochs or 1) + 1):
            target = draw(_TEXT)
            answer = draw(_TEXT)
            verdict = "C" if inspect_match(answer, target) else "I"
            sample: dict[str, Any] = {
                "id": draw(st.sampled_from([index, f"s{index}"])),
                "input": draw(st.sampled_from([f"q{index}", [{"role": "user", "content": "q"}]])),
                "target": target,
                "messages": [{"role": "assistant", "content": answer}],
                "output": {"model": "m", "completion": answer},
                "scores": {"match": {"value": verdict, "answer": answer}},
                "events": [],
                "error": None,
                "attachments": {},
                "metadata": {"i": index},
            }
            if epochs is not None:
                sample["epoch"] = epoch
            samples.append(_unusual(draw, sample))
    return samples


def _unusual(draw: st.DrawFn, sample: dict[str, Any]) -> dict[str, Any]:
    """``sample`` with at most one field changed to an unusual value."""
    change = draw(
        st.sampled_from(
            [None] * 6
            + [
                ("id", 1.5),
                ("id", True),
                ("id", None),
                ("epoch", 0),
                ("epoch", "1"),
                ("target", ["x", "y"]),
                ("target", 3),
                ("input", 7),
                ("output", None),
                ("output", {"choices": [{"message": {"content": "x"}}]}),
                ("output", {"completion": 5}),
                ("scores", {"match": {"value": "X"}}),
                ("scores", {"match": {"value": 1.0}}),
                ("scores", {}),
                ("scores", None),
                ("events", [{"event": "x"}]),
                ("events", None),
                ("error", "boom"),
                ("error", ""),
                ("attachments", {"k": "v"}),
                ("sandbox", {"type": "docker"}),
                ("unknown_field", 1),
                ("unknown_field", None),
                ("uuid", "u"),
            ]
        )
    )
    if change is None:
        return sample
    field, value = change
    changed = dict(sample)
    if value is None and field in ("id", "output"):
        del changed[field]
    else:
        changed[field] = value
    return changed


def _read(path: Path, allow: list[str], quick: bool, scan: bool = True) -> Any:
    """What the import gives (its fields, the samples built, the tool calls read) or its
    error's message (``quick``: the quick import may read it; ``scan``: by the Rust scan)."""
    original = getattr(inspect_import, "quick_import")  # noqa: B009
    scan_log = getattr(inspect_quick, "scan_log")  # noqa: B009
    if not quick:
        setattr(inspect_import, "quick_import", lambda *args: None)  # noqa: B010
    if not scan:
        setattr(inspect_quick, "scan_log", lambda data: None)  # noqa: B010
    try:
        imported = read("inspect", path, allow_loss=allow)
        found = dict(vars(imported))
        found["_samples"] = imported.samples
        found["extra"] = dict(imported.extra)
        return found
    except ImportFormatError as exc:
        return str(exc)
    finally:
        setattr(inspect_import, "quick_import", original)  # noqa: B010
        setattr(inspect_quick, "scan_log", scan_log)  # noqa: B010


@settings(max_examples=150, deadline=None)
@given(
    samples=_samples(),
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
        quick = _read(path, allowed, True)
        typed = _read(path, allowed, True, scan=False)
        general = _read(path, allowed, False)
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
    calls: list[bool] = []
    original = getattr(inspect_import, "quick_import")  # noqa: B009

    def counted(*args: Any) -> Any:
        found = original(*args)
        calls.append(found is not None)
        return found

    monkeypatch.setattr(inspect_import, "quick_import", counted)
    if shape == "common":
        imported = read("inspect", path)
        assert calls == [True]
        assert [s.name for s in imported.samples] == ["capitals-1", "capitals-2", "capitals-3"]
    else:
        with pytest.raises(ImportFormatError, match="'zz'"):
            read("inspect", path)
        assert calls == [False]
