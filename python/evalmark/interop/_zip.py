"""Reading a zip member whatever its compression, including Zstandard (method 93).

inspect_ai writes the members of its ``.eval`` logs with Zstandard. Python reads such
members by itself from 3.14 on; before that, the member's raw bytes are decompressed with the
``zstandard`` package (the ``inspect`` extra) and checked against the member's CRC-32. Without
that package the import stops with an :class:`~evalmark.errors.ImportFormatError` saying what
to install.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib

from evalmark.errors import ImportFormatError, Problem

__all__ = ["open_zip", "read_member", "read_member_from"]

ZSTD = 93  # the zip method number of Zstandard (APPNOTE 4.4.5)
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # the 30 bytes before a member's name
_LOCAL_SIGNATURE = b"PK\x03\x04"


def open_zip(data: bytes, where: str) -> zipfile.ZipFile:
    """The zip whose bytes are ``data``, open; one whose directory Python's zipfile cannot
    read (a damaged record, a zip version it does not know) is refused, ``where`` naming it."""
    try:
        return zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, NotImplementedError, EOFError, ValueError) as exc:
        message = f"a damaged zip: {exc}; its directory cannot be read: import an undamaged copy"
        raise ImportFormatError([Problem(message, path=where)]) from None


def read_member(archive: zipfile.ZipFile, name: str, where: str) -> bytes:
    """The bytes of member ``name`` of ``archive`` (``where`` names it in an error)."""
    info = archive.getinfo(name)
    try:
        return archive.read(name)
    except NotImplementedError:  # this Python's zipfile has no Zstandard
        if info.compress_type != ZSTD:
            raise ImportFormatError(
                [Problem(f"zip compression method {info.compress_type} is not read", path=where)]
            ) from None
        return _read_zstd(archive, info, where)
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise ImportFormatError([Problem(f"a damaged zip member: {exc}", path=where)]) from None
    except RuntimeError:  # zipfile asks for the password of an encrypted member
        if not info.flag_bits & 0x1:
            raise
        message = "an encrypted zip member: a password-protected log is not read; decrypt it"
        raise ImportFormatError([Problem(message, path=where)]) from None
    except Exception as exc:  # a Zstandard decoder's own error (Python 3.14's, or zstandard's)
        if info.compress_type != ZSTD:
            raise
        raise ImportFormatError([Problem(f"a damaged zip member: {exc}", path=where)]) from None


def read_member_from(
    data: bytes, archive: zipfile.ZipFile, info: zipfile.ZipInfo, where: str
) -> bytes:
    """The bytes of member ``info`` of ``archive``, whose whole file is ``data``: a stored or
    deflated member is cut from ``data`` and inflated in one call (no file reads, no stream
    per member), any other is read by :func:`read_member`."""
    method = info.compress_type
    if method not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, ZSTD) or info.flag_bits & 0x1:
        return read_member(archive, info.filename, where)
    if method == ZSTD:
        try:
            import zstandard  # noqa: F401
        except ImportError:  # this Python's own zipfile may read it (3.14 on)
            return read_member(archive, info.filename, where)
    offset = info.header_offset
    header = data[offset : offset + _LOCAL_HEADER.size]
    if len(header) != _LOCAL_HEADER.size or header[:4] != _LOCAL_SIGNATURE:
        raise ImportFormatError([Problem("a damaged zip member: no local header", path=where)])
    fields = _LOCAL_HEADER.unpack(header)
    start = offset + _LOCAL_HEADER.size + fields[-2] + fields[-1]
    raw = data[start : start + info.compress_size]
    if len(raw) != info.compress_size:
        raise ImportFormatError([Problem("a damaged zip member: it is cut short", path=where)])
    if method == ZSTD:
        return _inflated_zstd(raw, info, where)
    try:
        member = zlib.decompress(raw, -15) if method == zipfile.ZIP_DEFLATED else raw
    except zlib.error as exc:
        raise ImportFormatError([Problem(f"a damaged zip member: {exc}", path=where)]) from None
    return _checked(member, info, where)


def _checked(member: bytes, info: zipfile.ZipInfo, where: str) -> bytes:
    """``member`` when its size and CRC-32 are the ones the zip's directory records."""
    if len(member) != info.file_size or zlib.crc32(member) != info.CRC:
        message = "a damaged zip member: its size or CRC-32 differs from the zip's directory"
        raise ImportFormatError([Problem(message, path=where)])
    return member


def _read_zstd(archive: zipfile.ZipFile, info: zipfile.ZipInfo, where: str) -> bytes:
    try:
        import zstandard
    except ImportError:
        message = (
            "the member is compressed with Zstandard, which this Python's zipfile cannot read: "
            "install the zstandard package (pip install 'evalmark[inspect]') or use Python 3.14"
        )
        raise ImportFormatError([Problem(message, path=where)]) from None
    del zstandard  # imported to know it is there
    return _inflated_zstd(_raw_bytes(archive, info, where), info, where)


def _inflated_zstd(raw: bytes, info: zipfile.ZipInfo, where: str) -> bytes:
    """A Zstandard member's stored bytes ``raw``, decompressed with the zstandard package
    and checked."""
    import zstandard

    try:
        reader = zstandard.ZstdDecompressor().stream_reader(
            io.BytesIO(raw), read_across_frames=True
        )
        data: bytes = reader.read()
    except zstandard.ZstdError as exc:
        raise ImportFormatError([Problem(f"a damaged zip member: {exc}", path=where)]) from None
    return _checked(data, info, where)


def _raw_bytes(archive: zipfile.ZipFile, info: zipfile.ZipInfo, where: str) -> bytes:
    """The member's bytes as stored, after its local header."""
    handle = archive.fp
    if handle is None:
        raise ImportFormatError([Problem("the zip file is closed", path=where)])
    handle.seek(info.header_offset)
    header = handle.read(_LOCAL_HEADER.size)
    if len(header) != _LOCAL_HEADER.size or header[:4] != _LOCAL_SIGNATURE:
        raise ImportFormatError([Problem("a damaged zip member: no local header", path=where)])
    fields = _LOCAL_HEADER.unpack(header)
    name_length, extra_length = fields[-2], fields[-1]
    handle.seek(name_length + extra_length, io.SEEK_CUR)
    raw = handle.read(info.compress_size)
    if len(raw) != info.compress_size:
        raise ImportFormatError([Problem("a damaged zip member: it is cut short", path=where)])
    return raw
