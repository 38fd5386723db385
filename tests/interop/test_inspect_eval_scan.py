"""The quick import of an inspect ``.eval`` log (the zip read and scanned by the Rust core in
one pass) gives what the general import gives: the same samples, checks, answers, losses,
kept fields, tool calls and hash, or the same error, for zips written by Python's zipfile
(members deflated or stored, in any order, extra members, with or without
``reductions.json``, a header with extra fields) and damaged ones (a changed byte, a cut, a
member twice, a comment, bytes before the zip)."""

from __future__ import annotations

import io
import json
import tempfile
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalmark.interop import read
from evalmark.interop._inspect_scan import scan_eval
from inspect_logs import json_log
from inspect_quick_cases import import_result, quick_calls, samples

_BASE = json.dumps(json_log())  # loaded once: each example starts from a fresh copy
_OTHERS = [
    ("_journal/start.json", b'{"x": 1}'),
    ("summaries.json", b"[]"),
    ("samples/notes.txt", b"not JSON"),
]
_DAMAGES = [None] * 4 + ["flip", "cut", "twice", "comment", "prepend"]


def _members(draw: st.DrawFn, log: dict[str, Any]) -> list[tuple[str, bytes]]:
    """The members of the ``.eval`` log of ``log`` (one per sample and epoch, a name once)."""
    header = {key: value for key, value in log.items() if key != "samples"}
    if draw(st.booleans()):
        header["x-extra"] = {"run": [1, 2.5, None]}
    reductions = header.pop("reductions", None) if draw(st.booleans()) else None
    members = [("header.json", json.dumps(header).encode())]
    if reductions is not None or draw(st.booleans()):
        members.append(("reductions.json", json.dumps(reductions or []).encode()))
    names = set()
    for sample in log["samples"]:
        name = f"samples/{sample.get('id', 'none')}_epoch_{sample.get('epoch', 1)}.json"
        if name not in names:  # an unusual id may spell another's name
            names.add(name)
            members.append((name, json.dumps(sample, indent=draw(st.sampled_from([None, 1])))))
    members = [(n, t.encode() if isinstance(t, str) else t) for n, t in members]
    members += draw(st.lists(st.sampled_from(_OTHERS), unique=True))
    return draw(st.permutations(members))


def _zip(draw: st.DrawFn, members: list[tuple[str, bytes]], damage: str | None) -> bytes:
    """The zip of ``members`` as Python's zipfile writes it, damaged as ``damage`` says."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of a name written twice
        with zipfile.ZipFile(buffer, "w") as archive:
            for name, text in members:
                method = draw(st.sampled_from([zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED]))
                archive.writestr(name, text, compress_type=method, compresslevel=5)
            if damage == "twice":
                name, text = draw(st.sampled_from(members))
                archive.writestr(name, text + b" ", compress_type=zipfile.ZIP_DEFLATED)
            if damage == "comment":
                archive.comment = b"written by a test"
    data = buffer.getvalue()
    if damage == "flip":
        at = draw(st.integers(0, len(data) - 1))
        return (
            data[:at] + bytes([data[at] ^ draw(st.sampled_from([1, 0x20, 0xFF]))]) + data[at + 1 :]
        )
    if damage == "cut":
        return data[: draw(st.integers(0, len(data) - 1))]
    if damage == "prepend":
        return b"#!/bin/sh\n" + data
    return data


@st.composite
def _eval_logs(
    draw: st.DrawFn, damages: list[str | None] = _DAMAGES
) -> tuple[bytes, str | None, str]:
    """An ``.eval`` log's bytes, its damage (one of ``damages``) and its status."""
    log = json.loads(_BASE)
    log["status"] = draw(st.sampled_from(["success", "error"]))
    log["samples"] = draw(samples())
    damage = draw(st.sampled_from(damages))
    return _zip(draw, _members(draw, log), damage), damage, log["status"]


@settings(max_examples=150, deadline=None)
@given(
    found=_eval_logs(),
    allow=st.sampled_from([[], ["events", "error", "sandbox", "unknown_field", "attachments"]]),
)
def test_the_quick_import_of_an_eval_log_gives_what_the_general_import_gives(
    found: tuple[bytes, str | None, str], allow: list[str]
) -> None:
    data, _, status = found
    allowed = [*allow, "status"] if status != "success" else allow
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "log.eval"
        path.write_bytes(data)
        quick = import_result(path, allowed, True)
        general = import_result(path, allowed, False)
    assert quick == general
    if isinstance(quick, dict):
        assert quick["version"] == "eval log v2"


@settings(max_examples=40, deadline=None)
@given(log=_eval_logs(["cut", "twice", "comment", "prepend"]))
def test_a_cut_or_unusual_zip_is_left_to_the_general_reading(
    log: tuple[bytes, str | None, str],
) -> None:
    assert scan_eval(log[0]) is None


def test_a_common_eval_log_takes_the_quick_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = json_log()
    for sample in log["samples"]:
        sample.pop("attachments")
    log["samples"][1]["target"] = "Berlin"
    log["samples"][1]["input"] = "What is the capital of Germany?"
    header = {key: value for key, value in log.items() if key != "samples"}
    path = tmp_path / "log.eval"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps({**header, "x": {"y": 1}}))
        for sample in reversed(log["samples"]):
            archive.writestr(f"samples/{sample['id']}_epoch_1.json", json.dumps(sample))
    scanned = scan_eval(path.read_bytes())
    assert scanned is not None
    assert scanned.ids == [sample["id"] for sample in log["samples"]]
    assert scanned.header == {**header, "x": {"y": 1}}
    calls = quick_calls(monkeypatch)
    imported = read("inspect", path)
    assert calls == [True]
    assert imported.version == "eval log v2"
    assert [s.name for s in imported.samples] == ["capitals-1", "capitals-2", "capitals-3"]


def test_a_zip_of_more_than_65535_members_is_scanned() -> None:
    """Python's zipfile writes the zip64 end records for so many members: read as the end."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("header.json", b'{"eval": {"task": "t"}}')
        for index in range(65_540):
            sample = {"id": index, "input": "q", "output": {"completion": "a"}}
            archive.writestr(f"samples/{index}_epoch_1.json", json.dumps(sample))
    data = buffer.getvalue()
    assert data[-42:-38] == b"PK\x06\x07"  # the zip64 locator
    scanned = scan_eval(data)
    assert scanned is not None
    assert scanned.ids == list(range(65_540))
    assert scanned.completions == ["a"] * 65_540
