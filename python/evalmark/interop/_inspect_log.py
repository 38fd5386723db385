"""Decoding an inspect_ai log into typed samples: the fields a sample may hold are declared,
and the decoder itself refuses any other (``forbid_unknown_fields``), so a field the importer
does not know is found while decoding, not by comparing every sample's keys afterwards.

What a sample recorded per epoch (and the refused fields) stays undecoded (``msgspec.Raw``,
the JSON text) until it is read: the importer decodes the answer and the scores it re-scores,
and the rest when its samples are built. The whole text is checked to be JSON first, so a
later decoding cannot fail (a file with no escape and no byte beyond ASCII is checked by
the typed decoding itself).

A field the decoder refuses is declared on a retry, with every other undeclared field of the
sample that holds it; after a few retries (samples that each hold fields of their own) the
fields of every sample are read at once by a plain decoding, so a log is decoded a bounded
number of times however many fields it holds. The importer decides then, per sample,
whether a field holds something (a loss) or nothing.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable, Mapping
from operator import attrgetter
from pathlib import Path
from typing import Any, NoReturn

import msgspec

from evalmark._files.source import is_utf8
from evalmark.errors import ImportFormatError, Problem
from evalmark.interop._model import as_mapping
from evalmark.interop._zip import open_zip, read_member_from

__all__ = ["HEADER", "PER_EPOCH", "REFUSED", "Rows", "decode", "may_call", "read_log"]

# Per-epoch fields carried in the metadata ``inspect-results.<build>``.
PER_EPOCH = (
    "scores",
    "messages",
    "output",
    "model_usage",
    "store",
    "total_time",
    "working_time",
    "uuid",
    "started_at",
    "completed_at",
    "error_retries",
    "limit",
    "role_usage",
    "turn_count",
)
# Fields that define the sample's environment or record its failure: refused when set.
REFUSED = {
    "sandbox": "the sample's sandbox is not carried",
    "files": "the files copied into the sample's sandbox are not carried",
    "setup": "the sample's setup script is not carried",
    "events": "the run's event transcript is not carried (its messages, output, scores and "
    "usage are)",
    "error": "the sample failed and has no answer",
    # the pool the event transcript refers to (inspect 0.3.1xx on): lost with the transcript
    "events_data": "",
}
_READ = ("id", "epoch", "input", "target", "choices", "metadata", "attachments")
# The log's own fields (the ``.json`` log; the ``.eval`` zip's header is read as it is).
HEADER = (
    "version",
    "status",
    "eval",
    "plan",
    "results",
    "stats",
    "reductions",
    "tags",
    "metadata",
    "invalidated",
)
_UNKNOWN = re.compile(r"^Object contains unknown field `(.*?)`(?: - at `\$(.*)`)?$", re.DOTALL)
_ANY = msgspec.json.Decoder()
_SAMPLE_AT = re.compile(r"^\.samples\[\d+\]$")
_KEYS = msgspec.json.Decoder(dict[str, msgspec.Raw])
# typed decodings that declare the fields of the sample refused, before every sample's are read
_RETRIES = 2
# an escape of a character of "tool_calls" (U+005F to U+0074): the key may be spelled with one
_ESCAPED_NAME = re.compile(rb"\\u00[5-7]")


class _Samples(msgspec.Struct, gc=False):
    """A ``.json`` log's samples, undecoded."""

    samples: list[msgspec.Raw] | None = None


class Rows:
    """The typed samples of one log: ``typed``, in order, and ``wheres``, where each was read
    (``rows``: both, paired), and ``extra``, the fields the samples hold beyond the known
    ones, as (name in the log, attribute)."""

    def __init__(self, row_type: type[Any], extra: tuple[str, ...]) -> None:
        self.row_type = row_type
        self.extra = tuple((name, f"x_{index}") for index, name in enumerate(extra))
        self.typed: list[Any] = []
        self.wheres: list[str] = []
        self.data: bytes | None = None  # the log file's bytes

    @property
    def rows(self) -> list[tuple[str, Any]]:
        """Each typed sample with where it was read, in order."""
        return list(zip(self.wheres, self.typed, strict=True))

    def optional(self) -> tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]:
        """The fields that hold nothing unless set: their names in the log, by name, and a
        function giving their values in a row, in that order."""
        fields = sorted([*((name, name) for name in REFUSED), *self.extra])
        return tuple(n for n, _ in fields), attrgetter(*(a for _, a in fields))


def _row_type(extra: tuple[str, ...]) -> type[Any]:
    """The typed sample declaring the known fields and ``extra`` (each as ``x_N``)."""
    fields: list[tuple[str, Any, Any]] = [(name, msgspec.Raw, None) for name in PER_EPOCH]
    fields += [("id", Any, msgspec.UNSET), ("epoch", Any, None), ("input", Any, None)]
    fields += [("target", Any, ""), ("choices", Any, None), ("metadata", Any, None)]
    fields += [("attachments", Any, None)]  # the _READ fields, then the optional ones
    fields += [(name, msgspec.Raw, None) for name in REFUSED]
    fields += [(f"x_{index}", msgspec.Raw, None) for index in range(len(extra))]
    rename = {f"x_{index}": name for index, name in enumerate(extra)}
    return msgspec.defstruct(
        "InspectSample", fields, forbid_unknown_fields=True, gc=False, rename=rename
    )


def _error(message: str, where: str, field: str | None = None) -> ImportFormatError:
    return ImportFormatError([Problem(message, path=where, record=field)])


def may_call(text: Any) -> bool:
    """Whether JSON ``text`` (bytes) may hold a ``tool_calls`` key: it holds the name, or an
    escape that may spell one of its characters (False: it holds none)."""
    return b'"tool_calls"' in text or _ESCAPED_NAME.search(text) is not None


def read_log(path: Path, data: bytes | None = None) -> tuple[str, Mapping[str, Any], Rows]:
    """The log's kind (``json`` or ``eval``), its header and its typed samples (``data``:
    the file's bytes, read already)."""
    extra: tuple[str, ...] = ()
    retries = 0
    while True:
        rows = Rows(_row_type(extra), extra)
        rows.data = data
        try:
            if zipfile.is_zipfile(io.BytesIO(data) if data is not None else path):
                return "eval", _read_zip(path, rows), rows
            return "json", _read_json(path, rows), rows
        except _Unknown as unknown:
            if unknown.field in extra:  # a name the decoder reports but does not match
                raise _error(
                    f"sample field {unknown.field!r} cannot be read: rename it", str(path)
                ) from None
            retries += 1
            found = unknown.keys if retries <= _RETRIES else _every_key(rows.data)
            declared = {*PER_EPOCH, *_READ, *REFUSED, *extra}
            names = dict.fromkeys((unknown.field, *found))
            extra += tuple(name for name in names if name not in declared)


class _Unknown(Exception):
    """A sample holds a field not declared yet: declare it (and ``keys``, the sample's other
    fields, or every sample's for a ``.json`` log) and decode again."""

    def __init__(self, field: str, keys: tuple[str, ...] = ()) -> None:
        super().__init__(field)
        self.field = field
        self.keys = keys


def _keys(text: Any) -> tuple[str, ...]:
    """The keys of the JSON object ``text`` (none when it is not one)."""
    try:
        return tuple(_KEYS.decode(text))
    except msgspec.DecodeError:  # not an object (ValidationError is a DecodeError)
        return ()


def _every_key(data: bytes | None) -> tuple[str, ...]:
    """The fields of every sample of the log whose bytes are ``data``, in order (a sample
    that is not an object, or a member that cannot be read, holds none)."""
    if data is None:
        return ()
    if not zipfile.is_zipfile(io.BytesIO(data)):
        try:
            samples = msgspec.json.decode(data, type=_Samples).samples
        except msgspec.DecodeError:
            return ()
        return tuple(dict.fromkeys(key for text in samples or () for key in _keys(text)))
    keys: dict[str, None] = {}
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            if info.filename.startswith("samples/") and info.filename.endswith(".json"):
                try:
                    member = read_member_from(data, archive, info, info.filename)
                except ImportFormatError:
                    continue
                keys.update(dict.fromkeys(_keys(member)))
    return tuple(keys)


def _read_zip(path: Path, rows: Rows) -> Mapping[str, Any]:
    data = rows.data = path.read_bytes() if rows.data is None else rows.data
    with open_zip(data, str(path)) as archive:
        names = archive.namelist()
        if "header.json" not in names:
            raise _error(
                "no header.json member: the log is unfinished (the run is still going or "
                "was stopped); finish it or import a complete log",
                str(path),
                "header.json",
            )
        header = dict(as_mapping(_member(data, archive, "header.json", path, Any)))
        if "reductions" not in header and "reductions.json" in names:
            header["reductions"] = _member(data, archive, "reductions.json", path, Any)
        members = sorted(
            (n for n in names if n.startswith("samples/") and n.endswith(".json")),
            key=_member_order,
        )
        for name in members:
            rows.typed.append(_member(data, archive, name, path, rows.row_type))
            rows.wheres.append(f"{path}:{name}")
    return header


def _member(data: bytes, archive: zipfile.ZipFile, name: str, path: Path, kind: Any) -> Any:
    """Member ``name`` of the ``.eval`` zip (whose bytes are ``data``), decoded from JSON as
    ``kind``."""
    where = f"{path}:{name}"
    member = read_member_from(data, archive, archive.getinfo(name), where)
    try:
        _check_json(member)
        return msgspec.json.decode(member, type=kind)
    except msgspec.ValidationError as exc:
        try:
            _refused(str(exc), "", where)
        except _Unknown as unknown:
            raise _Unknown(unknown.field, _keys(member)) from None
    except msgspec.DecodeError as exc:
        raise _decode_error(member, exc, where) from None


def _member_order(name: str) -> tuple[int, int | str, int]:
    """``samples/ID_epoch_N.json`` ordered by id (numbers as numbers), then epoch."""
    stem = name[len("samples/") : -len(".json")]
    sample_id, _, epoch = stem.rpartition("_epoch_")
    number = int(epoch) if epoch.isdigit() else 0
    if sample_id.isdigit():
        return (0, int(sample_id), number)
    return (1, sample_id, number)


def _read_json(path: Path, rows: Rows) -> Mapping[str, Any]:
    fields: list[tuple[str, Any, Any]] = [(name, Any, msgspec.UNSET) for name in HEADER]
    fields.append(("samples", list[rows.row_type] | None, None))  # type: ignore[name-defined]
    log_type = msgspec.defstruct("InspectLog", fields, gc=False)
    where = str(path)
    data = rows.data = path.read_bytes() if rows.data is None else rows.data
    try:
        _check_json(data)
        log: Any = msgspec.json.decode(data, type=log_type)
    except msgspec.ValidationError as exc:
        try:
            _refused(str(exc), ".samples", where)
        except _Unknown as unknown:  # the samples' fields are read at once: as cheap as one's
            raise _Unknown(unknown.field, _every_key(data)) from None
    except msgspec.DecodeError as exc:
        raise _decode_error(data, exc, where) from None
    if log.eval is msgspec.UNSET:
        raise _error("not an inspect_ai log: no 'eval' key", where, "eval")
    rows.typed = log.samples or []
    rows.wheres = [where] * len(rows.typed)  # one file: every sample's place
    header = {name: getattr(log, name) for name in HEADER}
    return {name: value for name, value in header.items() if value is not msgspec.UNSET}


def decode(value: Any) -> Any:
    """``value`` decoded when it is still JSON text (``msgspec.Raw``)."""
    return _ANY.decode(value) if type(value) is msgspec.Raw else value


def _check_json(data: bytes) -> None:
    """Check that the whole text is UTF-8, which skipping a value (``msgspec.Raw``) does not
    (the rest of JSON's syntax it checks); what is not is refused with the decoder's own
    words."""
    if not is_utf8(data):
        msgspec.json.decode(data)


def _decode_error(data: bytes, exc: msgspec.DecodeError, where: str) -> ImportFormatError:
    """The error of text that is not JSON, in the words of the untyped decoder (skipping a
    value words some errors differently)."""
    try:
        msgspec.json.decode(data)
    except msgspec.DecodeError as untyped:
        exc = untyped
    return _error(f"not JSON: {exc}", where)


def _refused(message: str, prefix: str, where: str) -> NoReturn:
    """Raise what a validation error of the typed decoding means (``prefix``: the path of
    the samples list in the document, empty for one sample)."""
    unknown = _UNKNOWN.match(message)
    if unknown is not None:
        at = unknown.group(2) or ""
        at_sample = _SAMPLE_AT.match(at) if prefix else not at
        if at_sample:
            raise _Unknown(unknown.group(1))
    at = message.rpartition(" - at `$")[2].rstrip("`") if " - at `$" in message else ""
    if prefix and at == prefix:
        raise _error("'samples' must be a list", where, "samples")
    if prefix and not at:
        raise _error("not an inspect_ai log: no 'eval' key", where, "eval")
    raise _error("a sample needs an 'id'", where, "id")
