"""Loading samples, test cases and conversations from YAML, JSON and JSON Lines files.

One path serves every kind of record. A file is first decoded straight into its Structs (fast,
in C); when that fails for any reason, or names repeat, the file is read again record by record
with the position of every value, which accepts snake_case keys in JSON and reports every
problem as a typed error naming the file, line, column, record and what to do.

The empty-file rule, the same for every loader of evalmark (scoring inputs too): a file with no
content (no bytes, or only blank lines) is an error, since it is most often a failed export or a
wrong path; an explicitly empty collection (``[]``) holds no records.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Generic, TypeVar

import msgspec

from evalmark._files.located import PathKey, RawRecord
from evalmark._files.read import read_records, require_format, too_deep
from evalmark._files.source import Format, format_of, gc_paused, read_bytes, strip_bom
from evalmark._files.validate import RecordSpec, Report, convert_records
from evalmark.errors import DataFileError, SampleError, TestCaseError
from evalmark.samples._case import Conversation, TestCase
from evalmark.samples._keys import (
    CONVERSATION_SPEC,
    SAMPLE_SPEC,
    TEST_CASE_SPEC,
    check_conversation,
    check_sample,
    check_test_case,
)
from evalmark.samples._plugins import loader_for
from evalmark.samples._sample import Sample, Samples, decode_hook, tag_set

__all__ = ["FileKind", "load_conversations", "load_samples", "load_test_cases", "read_file"]

T = TypeVar("T")


class FileKind(Generic[T]):
    """What a kind of data file holds and how its records are checked."""

    def __init__(
        self,
        target: type[T],
        spec: RecordSpec,
        error: type[DataFileError],
        *,
        rules: Callable[[dict[str, Any], Report], None],
        unique_key: str | None,
        name_key: str,
        text_keys: frozenset[PathKey] = frozenset(),
        dec_hook: Callable[[type, Any], Any] | None = None,
        snake_fast_path: bool = False,
        unsupported_hint: str = "",
    ) -> None:
        self.target = target
        self.spec = spec
        self.error = error
        self.rules = rules
        self.unique_key = unique_key
        self.name_key = name_key
        self.text_keys = text_keys
        self.dec_hook = dec_hook
        self.snake_fast_path = snake_fast_path
        self.unsupported_hint = unsupported_hint
        self.one = msgspec.json.Decoder(target, dec_hook=dec_hook)
        self.many = msgspec.json.Decoder(list[target], dec_hook=dec_hook)  # type: ignore[valid-type]
        self.snake_keys = {key.replace("-", "_"): key for key in spec.keys if "-" in key}

    def unique(self, items: tuple[T, ...]) -> bool:
        """True when no two items share the unique key."""
        if self.unique_key is None:
            return True
        return len({getattr(item, self.unique_key) for item in items}) == len(items)


SAMPLES: FileKind[Sample] = FileKind(
    Sample,
    SAMPLE_SPEC,
    SampleError,
    rules=check_sample,
    unique_key="name",
    name_key="name",
    dec_hook=decode_hook,
    snake_fast_path=True,
    unsupported_hint="; for another source register a loader with evalmark.register_sample_loader",
)
TEST_CASES: FileKind[TestCase] = FileKind(
    TestCase,
    TEST_CASE_SPEC,
    TestCaseError,
    rules=check_test_case,
    unique_key=None,
    name_key="name",
    text_keys=frozenset({("cost",)}),
)
CONVERSATIONS: FileKind[Conversation] = FileKind(
    Conversation,
    CONVERSATION_SPEC,
    TestCaseError,
    rules=check_conversation,
    unique_key="id",
    name_key="id",
    text_keys=frozenset({("turns", "*", "cost")}),
)
_GENERIC_JSON = msgspec.json.Decoder()


def read_file(path: Path, kind: FileKind[T]) -> tuple[tuple[T, ...], list[RawRecord] | None]:
    """The items of one file, and its raw records when it was read record by record."""
    shown = str(path)
    fmt = require_format(path, kind.error, kind.unsupported_hint)
    data = read_bytes(path, kind.error)
    try:
        with gc_paused():
            items = _decode_fast(data, fmt, kind)
        if items and kind.unique(items):
            return items, None
        records = read_records(data, shown, fmt, kind.error, text_keys=kind.text_keys)
        converted = convert_records(
            records,
            path=shown,
            spec=kind.spec,
            target=kind.target,
            error=kind.error,
            snake_case=fmt != "yaml",
            rules=kind.rules,
            dec_hook=kind.dec_hook,
            unique_key=kind.unique_key,
            name_key=kind.name_key,
        )
        return tuple(converted), records
    except RecursionError:
        raise kind.error([too_deep(data, shown, fmt)]) from None


def _decode_fast(data: bytes, fmt: Format, kind: FileKind[T]) -> tuple[T, ...]:
    """Decode a JSON or JSON Lines file straight into Structs, or () to read it checked."""
    if fmt == "yaml":
        return ()
    data = strip_bom(data)
    try:
        if fmt == "json":
            return tuple(kind.many.decode(data))
        decode = kind.one.decode
        return tuple([decode(line) for line in data.split(b"\n") if line.strip()])
    except (msgspec.DecodeError, msgspec.ValidationError):
        return _decode_snake_case(data, fmt, kind) if kind.snake_fast_path else ()


def _decode_snake_case(data: bytes, fmt: Format, kind: FileKind[T]) -> tuple[T, ...]:
    """Decode a file that uses snake_case keys, or () to send it to the checked reader."""
    try:
        if fmt == "json":
            raw = _GENERIC_JSON.decode(data)
        else:
            decode = _GENERIC_JSON.decode
            raw = [decode(line) for line in data.split(b"\n") if line.strip()]
        if not isinstance(raw, list):
            return ()
        renamed = []
        for record in raw:
            fields = {kind.snake_keys.get(key, key): value for key, value in record.items()}
            if len(fields) != len(record):  # both spellings of a key: the reader explains
                return ()
            renamed.append(fields)
        return tuple(msgspec.convert(renamed, list[kind.target], dec_hook=kind.dec_hook))  # type: ignore[name-defined]
    except (msgspec.DecodeError, msgspec.ValidationError, AttributeError, TypeError):
        return ()


def _load_files(sources: tuple[str | os.PathLike[str], ...], kind: FileKind[T]) -> tuple[T, ...]:
    if not sources:
        raise TypeError("give at least one file to load")
    out: list[T] = []
    for source in sources:
        out.extend(read_file(Path(os.fspath(source)).expanduser(), kind)[0])
    return tuple(out)


def load_test_cases(*sources: str | os.PathLike[str]) -> tuple[TestCase, ...]:
    """Load test cases from .yaml/.yml, .json or .jsonl files, in the order given."""
    return _load_files(sources, TEST_CASES)


def load_conversations(*sources: str | os.PathLike[str]) -> tuple[Conversation, ...]:
    """Load conversations (each with its turns) from .yaml/.yml, .json or .jsonl files."""
    return _load_files(sources, CONVERSATIONS)


# --------------------------------------------------------------------------- samples


class _Loaded(msgspec.Struct, frozen=True):
    samples: tuple[Sample, ...]
    source: str
    records: list[RawRecord] | None = None  # when known, for locating duplicates

    def where(self, index: int) -> str:
        """``file:line`` of the sample at ``index`` (the file alone when unknown)."""
        records = self.records
        if records is None and format_of(self.source) is not None:
            try:
                records = read_records(
                    read_bytes(Path(self.source), SampleError),
                    self.source,
                    format_of(self.source),  # type: ignore[arg-type]
                    SampleError,
                )
            except SampleError:
                return self.source
        if records is not None and index < len(records):
            return f"{self.source}:{records[index].line}"
        return self.source


def _load_one(source: object) -> _Loaded:
    loader = loader_for(source)
    if loader is not None:
        result = loader.load(source)
        shown = f"{source!r} (loaded by {type(loader).__name__})"
        if isinstance(result, Samples):
            return _Loaded(result.items, shown)
        if isinstance(result, Iterable) and not isinstance(result, str | bytes):
            items = tuple(result)
            if all(isinstance(s, Sample) for s in items):
                return _Loaded(items, shown)
        raise SampleError(
            f"the sample loader {type(loader).__name__} returned {type(result).__name__} for "
            f"{source!r}; a loader's load() must return Samples"
        )
    if isinstance(source, Samples):
        return _Loaded(source.items, repr(source))
    if isinstance(source, str | os.PathLike):
        text = os.fspath(source)
        if isinstance(text, str) and "://" in text:
            raise SampleError(
                f"no registered sample loader supports {text!r}; built-in loaders read local "
                ".yaml, .json and .jsonl files (register a loader for other sources)"
            )
        path = Path(text).expanduser()
        items, records = read_file(path, SAMPLES)
        return _Loaded(items, str(path), records)
    if isinstance(source, Iterable) and not isinstance(source, bytes | dict):
        items = tuple(source)
        if all(isinstance(s, Sample) for s in items):
            return _Loaded(items, "samples given in code")
    raise TypeError(
        f"cannot load samples from {type(source).__name__}: pass a file path, a Samples, a "
        "list of Sample, or register a loader for this kind of source"
    )


def load_samples(*sources: object, tags: Iterable[str] | str | None = None) -> Samples:
    """Load samples from files (or other sources) and merge them in the order given.

    Each source keeps its own order. Files are chosen by extension (.yaml/.yml, .json,
    .jsonl); relative paths start from the current directory. Registered loaders are asked
    first. With ``tags``, only samples carrying any of those tags are kept.
    """
    if not sources:
        raise TypeError("load_samples needs at least one source (a file path)")
    _refuse_repeated_files(sources)
    with gc_paused():
        loaded = [_load_one(source) for source in sources]
        if len(loaded) == 1:
            items = loaded[0].samples
        else:
            items = tuple(sample for part in loaded for sample in part.samples)
            if len({sample.name for sample in items}) != len(items):
                _raise_repeated_name(loaded)
        samples = Samples(items)
    if tags is not None:
        samples = samples.filter_by_tags(*tag_set(tags))
    return samples


def _raise_repeated_name(loaded: list[_Loaded]) -> None:
    origin: dict[str, tuple[int, int]] = {}
    for s_index, part in enumerate(loaded):
        for i, sample in enumerate(part.samples):
            if sample.name in origin:
                first_source, first_i = origin[sample.name]
                raise SampleError(
                    f"{part.where(i)}: sample '{sample.name}': the name is also used at "
                    f"{loaded[first_source].where(first_i)}; names must be unique across "
                    "all sources: rename one"
                )
            origin[sample.name] = (s_index, i)


def _refuse_repeated_files(sources: tuple[object, ...]) -> None:
    seen: dict[Path, object] = {}
    for source in sources:
        if isinstance(source, str | os.PathLike) and "://" not in os.fspath(source):
            resolved = Path(os.fspath(source)).expanduser().resolve()
            if resolved in seen:
                raise SampleError(
                    f"the file {resolved} is given twice (as {seen[resolved]!s} and "
                    f"{source!s}); give each file once"
                )
            seen[resolved] = source
