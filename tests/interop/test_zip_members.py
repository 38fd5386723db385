"""Members cut from a zip's bytes (the ``.eval`` import's fast path) are the bytes
``zipfile`` reads, and a damaged one is refused as a damaged member."""

from __future__ import annotations

import io
import zipfile

import pytest

from evalmark.errors import ImportFormatError
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
