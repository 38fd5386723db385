"""inspect_ai logs for the importer's tests: the hand-built fixture log (from
``interop/fixtures/inspect/make_fixtures.py``) and a writer that saves a log as a ``.json``
file or, for a ``.eval`` path, as the zip with one member per sample."""

from __future__ import annotations

import importlib.util
import json
import zipfile
from pathlib import Path
from types import ModuleType
from typing import Any

FIXTURES = Path(__file__).parent / "interop" / "fixtures" / "inspect"


def fixture_generator() -> ModuleType:
    """The fixtures' generator, loaded from its file under a name of its own."""
    spec = importlib.util.spec_from_file_location(
        "inspect_log_fixtures", FIXTURES / "make_fixtures.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def json_log() -> dict[str, Any]:
    """A fresh copy of the fixture log as a ``.json`` log's value."""
    log: dict[str, Any] = fixture_generator().json_log()
    return log


def write_log(path: Path, log: dict[str, Any], escaped: bytes | None = None) -> Path:
    """``log`` as a ``.json`` log or, for a ``.eval`` path, as the zip (a header member and one
    member per sample), with every ``"tool_calls"`` key spelled ``escaped`` when it is given."""
    texts: dict[str, Any] = {"": log}
    if path.suffix == ".eval":
        texts = {"header.json": {k: v for k, v in log.items() if k != "samples"}}
        for sample in log["samples"]:
            texts[f"samples/{sample['id']}_epoch_{sample['epoch']}.json"] = sample
    data = {name: json.dumps(value).encode("utf-8") for name, value in texts.items()}
    if escaped is not None:
        data = {name: text.replace(b'"tool_calls"', escaped) for name, text in data.items()}
    if path.suffix == ".eval":
        with zipfile.ZipFile(path, "w") as archive:
            for name, text in data.items():
                archive.writestr(name, text)
    else:
        path.write_bytes(data[""])
    return path
