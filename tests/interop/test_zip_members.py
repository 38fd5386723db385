"""Members cut from a zip's bytes (the ``.eval`` import's fast path) are the bytes
``zipfile`` reads, and a damaged one is refused as a damaged member."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from evalmark.errors import ImportFormatError
from evalmark.interop import read
from evalmark.interop._zip import read_member_from


def _zip(method: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        archive.writestr("a.json", b'{"id": 1}' * 50)
        archive.writestr("b.json", '{"id": "\u00e9"}'.encode())
    return buffer.getvalue()


@pytest.mark.parametrize("method", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_a_member_cut_from_the_bytes_is_what_zipfile_reads(method: int) -> None:
    data = _zip(method)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            assert read_member_from(data, archive, info, "x") == archive.read(info.filename)


@pytest.mark.parametrize("method", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_a_damaged_member_is_refused(method: int) -> None:
    data = _zip(method)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        info = archive.getinfo("a.json")
        start = info.header_offset + 30 + len(info.filename)
        flipped = bytearray(data)
        flipped[start + 3] ^= 0xFF
        with pytest.raises(ImportFormatError, match="damaged zip member"):
            read_member_from(bytes(flipped), archive, info, "x")
        with pytest.raises(ImportFormatError, match="damaged zip member: no local header"):
            read_member_from(data[: info.header_offset + 10], archive, info, "x")
        with pytest.raises(ImportFormatError, match="cut short"):
            read_member_from(data[: start + 5], archive, info, "x")


def _log() -> bytes:
    """A small ``.eval`` log of one sample."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps({"version": 2, "eval": {"task": "t"}}))
        sample = {"id": 1, "input": "q", "target": "a", "output": {"completion": "a"}}
        archive.writestr("samples/1_epoch_1.json", json.dumps(sample))
    return buffer.getvalue()


def test_any_changed_byte_of_an_eval_log_is_read_or_refused_with_the_file_named(
    tmp_path: Path,
) -> None:
    """Every byte changed, every way that leaves zipfile a different error to raise (a bad
    directory record, a zip version it does not know, an encrypted member): an
    ImportFormatError naming the file, never zipfile's own exception."""
    data = _log()
    path = tmp_path / "log.eval"
    refused = set()
    for at in range(len(data)):
        for bits in (0x01, 0xFF):
            path.write_bytes(data[:at] + bytes([data[at] ^ bits]) + data[at + 1 :])
            try:
                read("inspect", path, allow_loss=["status"])
            except ImportFormatError as exc:
                assert str(path) in str(exc)
                refused.add(str(exc))
    assert any("a damaged zip: " in text for text in refused)  # the directory's record
    assert any("an encrypted zip member" in text for text in refused)
