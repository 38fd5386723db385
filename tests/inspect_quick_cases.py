"""The cases of the inspect quick import's tests (``.json`` and ``.eval`` logs): samples mostly
of the common shape, some with one unusual field, and what an import gives, read the quick
way (by the Rust scan or not) or the general way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

import evalmark.interop._inspect as inspect_import
import evalmark.interop._inspect_quick as inspect_quick
from evalmark.errors import ImportFormatError
from evalmark.interop import read
from evalmark.strategies._inspect import inspect_match

TEXT = st.text(st.sampled_from("ab C.,!? \n\té"), max_size=8)


@st.composite
def samples(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Samples mostly of the common shape, each with a chance of one unusual field."""
    count = draw(st.integers(0, 5))
    epochs = draw(st.sampled_from([None, 1, 2]))
    samples = []
    for index in range(count):
        for epoch in range(1, (epochs or 1) + 1):
            target = draw(TEXT)
            answer = draw(TEXT)
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
            samples.append(unusual(draw, sample))
    return samples


def unusual(draw: st.DrawFn, sample: dict[str, Any]) -> dict[str, Any]:
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


def import_result(path: Path, allow: list[str], quick: bool, scan: bool = True) -> Any:
    """What the import gives (its fields, the samples built, the tool calls read) or its
    error's message (``quick``: the quick import may read it; ``scan``: by the Rust scan)."""
    original = getattr(inspect_import, "quick_import")  # noqa: B009
    scans = {name: getattr(inspect_quick, name) for name in ("scan_log", "scan_eval")}
    if not quick:
        setattr(inspect_import, "quick_import", lambda *args: None)  # noqa: B010
    if not scan:
        for name in scans:
            setattr(inspect_quick, name, lambda data: None)
    try:
        imported = read("inspect", path, allow_loss=allow)
        found = dict(vars(imported))
        found["_samples"] = imported.samples
        found["extra"] = dict(imported.extra)
        return found
    except ImportFormatError as exc:
        return str(exc)
    except Exception as exc:  # a zip Python's zipfile cannot open: refused alike
        return f"{type(exc).__name__}: {exc}"
    finally:
        setattr(inspect_import, "quick_import", original)  # noqa: B010
        for name, scan_of in scans.items():
            setattr(inspect_quick, name, scan_of)


def quick_calls(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Record, for each call of the inspect importer's quick import from now on, whether it
    read the log (the list returned fills as the import runs)."""
    calls: list[bool] = []
    original = getattr(inspect_import, "quick_import")  # noqa: B009

    def counted(*args: Any) -> Any:
        found = original(*args)
        calls.append(found is not None)
        return found

    monkeypatch.setattr(inspect_import, "quick_import", counted)
    return calls
