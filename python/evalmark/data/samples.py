"""Samples: the input/expected cases an application is evaluated on, and their loaders.

A ``Sample`` is one case (a name, the inputs for the function under test, and what a good
answer looks like); ``Samples`` is an ordered, immutable collection of them with unique names.
``load_samples`` reads YAML, JSON and JSON Lines files (or anything a registered loader
supports) and merges them in the order given.

File keys are kebab-case (``expected-output``); JSON and JSON Lines also accept snake_case
(``expected_output``). Every problem in a file is reported as a ``SampleError`` naming the file,
the line, the sample and what to do.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any, Protocol, overload, runtime_checkable

import msgspec

from evalmark._files.formats import (
    RawRecord,
    describe_value,
    dump_yaml,
    format_of,
    gc_paused,
    read_bytes,
    read_records,
    strip_bom,
    write_atomically,
)
from evalmark._files.records import (
    RecordSpec,
    Report,
    build_file_schema,
    convert_records,
)
from evalmark.errors import Problem, SampleError

__all__ = [
    "Parameters",
    "Sample",
    "SampleError",
    "SampleLoader",
    "Samples",
    "load_samples",
    "register_sample_loader",
    "sample_file_schema",
    "unregister_sample_loader",
    "write_samples",
]

ENTRY_POINT_GROUP = "evalmark.sample_loaders"


class Parameters(tuple[Any, ...]):
    """The inputs handed to the function under test: a tuple with a forgiving ``get``."""

    __slots__ = ()

    def get(self, index: int, default: Any = None) -> Any:
        """The parameter at ``index`` (negative counts from the end), or ``default``."""
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError(f"parameter indexes are integers, got {type(index).__name__}")
        try:
            return self[index]
        except IndexError:
            return default

    def __repr__(self) -> str:
        return f"Parameters({list(self)!r})"


def _as_str_tuple(value: object, field: str, name: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise SampleError(
            f"sample '{name}': {field} must be a list of strings, got {describe_value(value)}; "
            f'write it as a list, e.g. ["..."]'
        )
    items = tuple(value)
    for item in items:
        if not isinstance(item, str):
            raise SampleError(
                f"sample '{name}': every item of {field} must be a string, got "
                f"{describe_value(item)} ({item!r})"
            )
    return items


class Sample(
    msgspec.Struct,
    frozen=True,
    kw_only=True,
    rename="kebab",
    forbid_unknown_fields=True,
    omit_defaults=True,
    gc=False,
):
    """One evaluation case.

    ``parameters`` are the inputs for the function under test (always a list, even for one
    value). Exactly one of ``expected_output`` (the expected answer) and ``expected_outputs``
    (expected items, e.g. the segments a retriever should return) is set. ``expected_facts``
    are facts a good answer contains; ``context`` the documents the application is shown.
    Lists given in Python are stored as tuples, so values compare equal however they were made.
    """

    name: str
    parameters: Parameters
    expected_output: str | None = None
    expected_outputs: tuple[str, ...] | None = None
    expected_facts: tuple[str, ...] = ()
    context: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    metadata: dict[str, Any] = {}

    def __post_init__(self) -> None:
        # Runs for every decoded sample, so the common case (already well typed) is checked
        # first with as few attribute reads as possible; anything unusual takes the slow path.
        name = self.name
        output = self.expected_output
        outputs = self.expected_outputs
        if (
            type(name) is str
            and name
            and not name.isspace()
            and type(self.parameters) is Parameters
            and (
                (outputs is None and type(output) is str)
                or (output is None and type(outputs) is tuple)
            )
            and type(self.expected_facts) is tuple
            and type(self.context) is tuple
            and type(self.tags) is tuple
        ):
            return
        self._check_and_coerce()

    def _check_and_coerce(self) -> None:
        name = self.name
        if not isinstance(name, str) or not name.strip():
            raise SampleError(
                f"a sample needs a non-empty name (a string), got {describe_value(name)}"
            )
        if type(self.parameters) is not Parameters:
            value = self.parameters
            if isinstance(value, str | bytes | dict) or not isinstance(value, Iterable):
                raise SampleError(
                    f"sample '{name}': parameters must be a list, even for a single input "
                    f"(got {describe_value(value)}); write parameters=[value]"
                )
            msgspec.structs.force_setattr(self, "parameters", Parameters(value))
        if (self.expected_output is None) is (self.expected_outputs is None):
            raise SampleError(
                f"sample '{name}': give exactly one of expected-output (the expected answer) "
                "and expected-outputs (a list of expected items)"
            )
        self._coerce_lists(name)
        if type(self.expected_output) is not str and self.expected_output is not None:
            raise SampleError(
                f"sample '{name}': expected-output must be a string, got "
                f"{describe_value(self.expected_output)}"
            )

    def _coerce_lists(self, name: str) -> None:
        for field in ("expected_facts", "context", "tags"):
            value = getattr(self, field)
            if type(value) is not tuple:
                msgspec.structs.force_setattr(
                    self, field, _as_str_tuple(value, field.replace("_", "-"), name)
                )
        outputs = self.expected_outputs
        if outputs is not None and type(outputs) is not tuple:
            msgspec.structs.force_setattr(
                self, "expected_outputs", _as_str_tuple(outputs, "expected-outputs", name)
            )

    def has_tag(self, *tags: str) -> bool:
        """True if the sample carries any of ``tags``."""
        return any(tag in self.tags for tag in tags)


def _decode_hook(type_: type, obj: Any) -> Any:
    if type_ is Parameters:
        if isinstance(obj, list | tuple):
            return Parameters(obj)
        raise TypeError(f"Expected `array`, got `{_msgspec_type_name(obj)}`")
    raise NotImplementedError(f"cannot decode {type_!r}")


def _msgspec_type_name(obj: object) -> str:
    names = {str: "str", int: "int", float: "float", bool: "bool", dict: "object"}
    return "null" if obj is None else names.get(type(obj), type(obj).__name__)


class Samples(msgspec.Struct, frozen=True, gc=False):
    """An ordered, immutable collection of samples with unique names.

    Behaves as a sequence: ``len``, iteration, ``samples[0]``, ``samples[1:3]`` (a Samples),
    and ``samples["refund-window"]`` by name.
    """

    items: tuple[Sample, ...] = ()

    def __post_init__(self) -> None:
        items = self.items
        if type(items) is not tuple:
            if isinstance(items, Sample) or not isinstance(items, Iterable):
                raise TypeError(f"Samples takes an iterable of Sample, got {type(items).__name__}")
            items = tuple(items)
            msgspec.structs.force_setattr(self, "items", items)
        try:
            names = {sample.name for sample in items}
        except AttributeError:
            names = set()
        if len(names) != len(items):
            for sample in items:
                if not isinstance(sample, Sample):
                    raise TypeError(
                        f"Samples holds Sample values only, got {type(sample).__name__}"
                    )
            raise SampleError(_duplicates_message(items))

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Sample]:
        return iter(self.items)

    def __bool__(self) -> bool:
        return bool(self.items)

    @overload
    def __getitem__(self, key: int | str) -> Sample: ...
    @overload
    def __getitem__(self, key: slice) -> Samples: ...
    def __getitem__(self, key: int | str | slice) -> Sample | Samples:
        """A sample by position or by name; a slice gives a Samples."""
        if isinstance(key, slice):
            return Samples(self.items[key])
        if isinstance(key, str):
            for sample in self.items:
                if sample.name == key:
                    return sample
            raise KeyError(_missing_name_message(key, self.names))
        return self.items[key]

    def __contains__(self, item: object) -> bool:
        if isinstance(item, str):
            return item in self.names
        return item in self.items

    def __reversed__(self) -> Iterator[Sample]:
        return reversed(self.items)

    def __add__(self, other: Samples) -> Samples:
        if not isinstance(other, Samples):
            return NotImplemented
        return Samples(self.items + other.items)

    def __repr__(self) -> str:
        shown = ", ".join(repr(s.name) for s in self.items[:5])
        more = f", ... ({len(self.items)} samples)" if len(self.items) > 5 else ""
        return f"Samples([{shown}{more}])"

    def index(self, name: str) -> int:
        """The position of the sample called ``name``."""
        for i, sample in enumerate(self.items):
            if sample.name == name:
                return i
        raise KeyError(_missing_name_message(name, self.names))

    def count(self, sample: object) -> int:
        """How many times ``sample`` occurs (0 or 1: names are unique)."""
        return self.items.count(sample)

    @property
    def names(self) -> tuple[str, ...]:
        """The sample names, in order."""
        return tuple(sample.name for sample in self.items)

    @property
    def tags(self) -> tuple[str, ...]:
        """Every tag carried by some sample, sorted."""
        return tuple(sorted({tag for sample in self.items for tag in sample.tags}))

    def filter_by_tags(self, *tags: str) -> Samples:
        """The samples carrying any of ``tags``, in order.

        A tag that no sample carries is an error (most often a typo, which would otherwise
        quietly select nothing).
        """
        wanted = _tag_set(tags)
        known = set(self.tags)
        unknown = sorted(wanted - known)
        if unknown:
            raise SampleError(_unknown_tags_message(unknown, sorted(known)))
        return Samples(tuple(s for s in self.items if not wanted.isdisjoint(s.tags)))

    def filter(self, predicate: Callable[[Sample], bool]) -> Samples:
        """The samples for which ``predicate`` is true, in order."""
        return Samples(tuple(s for s in self.items if predicate(s)))


Sequence.register(Samples)


def _tag_set(tags: Iterable[str] | str) -> set[str]:
    if isinstance(tags, str):
        tags = (tags,)
    wanted = set()
    for tag in tags:
        if not isinstance(tag, str):
            raise TypeError(f"tags are strings, got {type(tag).__name__} {tag!r}")
        wanted.add(tag)
    if not wanted:
        raise ValueError("give at least one tag to filter by")
    return wanted


def _unknown_tags_message(unknown: list[str], known: list[str]) -> str:
    import difflib

    parts = []
    for tag in unknown:
        close = difflib.get_close_matches(tag, known, n=1)
        parts.append(f"'{tag}'" + (f" (did you mean '{close[0]}'?)" if close else ""))
    in_use = ", ".join(known) if known else "none"
    return f"no sample carries the tag {', '.join(parts)}; the tags in use are: {in_use}"


def _missing_name_message(name: str, names: Sequence[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, list(names), n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return f"no sample named '{name}'{hint}"


def _duplicates_message(items: Sequence[Sample]) -> str:
    seen: set[str] = set()
    doubled: list[str] = []
    for sample in items:
        if sample.name in seen and sample.name not in doubled:
            doubled.append(sample.name)
        seen.add(sample.name)
    listed = ", ".join(f"'{n}'" for n in doubled)
    return f"sample names must be unique; used more than once: {listed}"


# --------------------------------------------------------------------------- file reading

SAMPLE_SPEC = RecordSpec(
    kind="sample",
    keys=(
        "name",
        "parameters",
        "expected-output",
        "expected-outputs",
        "expected-facts",
        "context",
        "tags",
        "metadata",
    ),
    aliases={
        "expected": "expected-output",
        "output": "expected-output",
        "answer": "expected-output",
        "expected-answer": "expected-output",
        "reference": "expected-output",
        "ground-truth": "expected-output",
        "target": "expected-output",
        "outputs": "expected-outputs",
        "expected-segments": "expected-outputs",
        "expected-items": "expected-outputs",
        "parameter": "parameters",
        "params": "parameters",
        "input": "parameters",
        "inputs": "parameters",
        "args": "parameters",
        "arguments": "parameters",
        "question": "parameters",
        "query": "parameters",
        "prompt": "parameters",
        "facts": "expected-facts",
        "expected-fact": "expected-facts",
        "contexts": "context",
        "documents": "context",
        "docs": "context",
        "tag": "tags",
        "labels": "tags",
        "meta": "metadata",
        "id": "name",
        "title": "name",
    },
)

_JSON_SAMPLE = msgspec.json.Decoder(Sample, dec_hook=_decode_hook)
_JSON_SAMPLES = msgspec.json.Decoder(list[Sample], dec_hook=_decode_hook)


class _Loaded(msgspec.Struct, frozen=True):
    samples: tuple[Sample, ...]
    source: str
    records: list[RawRecord] | None = None  # when known, for locating duplicates

    def where(self, index: int) -> str:
        if self.records is not None and index < len(self.records):
            return f"{self.source}:{self.records[index].line}"
        return self.source


def _read_file(path: Path) -> _Loaded:
    fmt = format_of(path)
    shown = str(path)
    if path.is_dir():
        found = sorted(p.name for p in path.iterdir() if format_of(p) is not None)
        listed = ", ".join(found[:10]) if found else "none"
        raise SampleError(
            [
                Problem(
                    "is a directory: name the sample files in it one by one (data files "
                    f"there: {listed})",
                    path=shown,
                )
            ]
        )
    if fmt is None:
        raise SampleError(
            [
                Problem(
                    f"unsupported file type '{path.suffix or '(none)'}': samples are read from "
                    ".yaml, .yml, .json or .jsonl files; for another source register a loader "
                    "with evalmark.register_sample_loader",
                    path=shown,
                )
            ]
        )
    data = read_bytes(path, SampleError)
    # Fast path: decode straight into Sample structs. On any failure (including snake_case
    # keys, which the structs do not know) the records are read again one by one, which
    # accepts snake_case and reports every problem with its line.
    items: tuple[Sample, ...] = ()
    try:
        with gc_paused():
            if fmt == "json":
                items = tuple(_JSON_SAMPLES.decode(strip_bom(data)))
            elif fmt == "jsonl":
                decode = _JSON_SAMPLE.decode
                lines = strip_bom(data).split(b"\n")
                items = tuple([decode(line) for line in lines if line.strip()])
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        items = _snake_case_fast_path(data, fmt) if fmt != "yaml" else ()
    if items and len({sample.name for sample in items}) == len(items):
        return _Loaded(items, shown)
    records = read_records(data, shown, fmt, SampleError)
    return _Loaded(_samples_from_records(records, shown, snake_case=fmt != "yaml"), shown, records)


_SNAKE_KEYS = {key.replace("-", "_"): key for key in SAMPLE_SPEC.keys if "-" in key}
_GENERIC_JSON = msgspec.json.Decoder()


def _snake_case_fast_path(data: bytes, fmt: str) -> tuple[Sample, ...]:
    """Decode a file that uses snake_case keys, or () to send it to the checked reader."""
    data = strip_bom(data)
    try:
        with gc_paused():
            if fmt == "json":
                raw = _GENERIC_JSON.decode(data)
            else:
                decode = _GENERIC_JSON.decode
                raw = [decode(line) for line in data.split(b"\n") if line.strip()]
            if not isinstance(raw, list):
                return ()
            renamed = []
            for record in raw:
                fields = {_SNAKE_KEYS.get(key, key): value for key, value in record.items()}
                if len(fields) != len(record):  # both spellings of a key: the reader explains
                    return ()
                renamed.append(fields)
            return tuple(msgspec.convert(renamed, list[Sample], dec_hook=_decode_hook))
    except (
        msgspec.DecodeError,
        msgspec.ValidationError,
        AttributeError,
        TypeError,
        RecursionError,
    ):
        return ()


def _samples_from_records(
    records: list[RawRecord], path: str, *, snake_case: bool
) -> tuple[Sample, ...]:
    return tuple(
        convert_records(
            records,
            path=path,
            spec=SAMPLE_SPEC,
            target=Sample,
            error=SampleError,
            snake_case=snake_case,
            rules=_check_sample_rules,
            dec_hook=_decode_hook,
            unique_key="name",
        )
    )


def _check_sample_rules(fields: dict[str, Any], report: Report) -> None:
    if "name" not in fields:
        report((), "missing 'name': give every sample a unique name, e.g. name: refund-window")
    elif not isinstance(fields["name"], str) or not fields["name"].strip():
        report(
            ("name",),
            f"'name' must be a non-empty string, got {describe_value(fields['name'])}",
            of_value=True,
        )
    if "parameters" not in fields:
        report(
            (),
            "missing 'parameters': list the inputs of the function under test, "
            'e.g. parameters: ["How long is the refund window?"]',
        )
    elif not isinstance(fields["parameters"], list):
        report(
            ("parameters",),
            "'parameters' must be a list, even for a single input (got "
            f"{describe_value(fields['parameters'])}); write it as a list, "
            'e.g. parameters: ["..."]',
            of_value=True,
        )
    one, many = "expected-output" in fields, "expected-outputs" in fields
    if one and many:
        report(
            ("expected-outputs",),
            "both 'expected-output' and 'expected-outputs' are given; keep one: "
            "'expected-output' for one expected answer, 'expected-outputs' for a list of "
            "expected items (retrievers)",
        )
    elif not one and not many:
        report(
            (),
            "missing the expectation: add 'expected-output' (the expected answer) or "
            "'expected-outputs' (a list of expected items, for retrievers)",
        )


# --------------------------------------------------------------------------- plug-ins


@runtime_checkable
class SampleLoader(Protocol):
    """A source of samples that the built-in file loaders do not read."""

    def supports(self, source: object) -> bool:
        """True if this loader can load ``source``."""
        ...

    def load(self, source: object) -> Samples:
        """Load ``source`` into samples."""
        ...


_lock = threading.Lock()
_registered: list[SampleLoader] = []
_from_entry_points: list[SampleLoader] | None = None


def register_sample_loader(loader: SampleLoader) -> SampleLoader:
    """Register a loader; registered loaders are asked, in order, before the built-in ones."""
    if isinstance(loader, type):
        raise TypeError(
            f"register an instance, not the class: register_sample_loader({loader.__name__}())"
        )
    if not (
        callable(getattr(loader, "supports", None)) and callable(getattr(loader, "load", None))
    ):
        raise TypeError(
            f"a sample loader needs supports(source) and load(source) methods; "
            f"{type(loader).__name__} lacks them"
        )
    with _lock:
        if loader not in _registered:
            _registered.append(loader)
    return loader


def unregister_sample_loader(loader: SampleLoader) -> None:
    """Forget a loader registered with ``register_sample_loader``."""
    with _lock:
        try:
            _registered.remove(loader)
        except ValueError:
            raise ValueError(f"{loader!r} is not a registered sample loader") from None


def _entry_point_loaders() -> list[SampleLoader]:
    global _from_entry_points
    with _lock:
        if _from_entry_points is None:
            found: list[SampleLoader] = []
            points = importlib_metadata.entry_points(group=ENTRY_POINT_GROUP)
            for point in sorted(points, key=lambda p: p.name):
                try:
                    obj = point.load()
                    loader = obj() if isinstance(obj, type) else obj
                except Exception as exc:
                    raise SampleError(
                        f"the sample loader plug-in '{point.name}' ({point.value}) failed to "
                        f"load: {exc}; fix or uninstall the package that provides it"
                    ) from exc
                found.append(loader)
            _from_entry_points = found
        return list(_from_entry_points)


def _loader_for(source: object) -> SampleLoader | None:
    with _lock:
        registered = list(_registered)
    for loader in [*registered, *_entry_point_loaders()]:
        if loader.supports(source):
            return loader
    return None


def _load_one(source: object) -> _Loaded:
    loader = _loader_for(source)
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
        return _read_file(Path(text).expanduser())
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
        samples = samples.filter_by_tags(*_tag_set(tags))
    return samples


def _raise_repeated_name(loaded: list[_Loaded]) -> None:
    origin: dict[str, tuple[int, int]] = {}
    for s_index, part in enumerate(loaded):
        for i, sample in enumerate(part.samples):
            if sample.name in origin:
                first_source, first_i = origin[sample.name]
                raise SampleError(
                    f"{_locate(part, i)}: sample '{sample.name}': the name is also used at "
                    f"{_locate(loaded[first_source], first_i)}; names must be unique across "
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


def _locate(part: _Loaded, index: int) -> str:
    if part.records is None and format_of(part.source) is not None:
        try:
            records = read_records(
                read_bytes(Path(part.source), SampleError),
                part.source,
                format_of(part.source),  # type: ignore[arg-type]
                SampleError,
            )
            return f"{part.source}:{records[index].line}"
        except (SampleError, IndexError):
            return part.source
    return part.where(index)


# --------------------------------------------------------------------------- writing


def write_samples(samples: Iterable[Sample], path: str | os.PathLike[str]) -> None:
    """Write samples to a .yaml, .json or .jsonl file (kebab-case keys), atomically."""
    target = Path(path)
    fmt = format_of(target)
    if fmt is None:
        raise SampleError(
            [Problem("choose a .yaml, .yml, .json or .jsonl file name", path=str(target))]
        )
    items = list(samples)
    if fmt == "jsonl":
        encoder = msgspec.json.Encoder()
        data = b"".join(encoder.encode(s) + b"\n" for s in items)
    elif fmt == "json":
        data = msgspec.json.format(msgspec.json.encode(items), indent=2) + b"\n"
    else:
        data = dump_yaml(msgspec.to_builtins(items))
    write_atomically(target, data)


# --------------------------------------------------------------------------- JSON Schema

_SAMPLE_FIELDS: dict[str, dict[str, dict[str, Any]]] = {
    "Sample": {
        "name": {"description": "A unique name for the sample.", "minLength": 1},
        "parameters": {
            "description": "The inputs handed to the function under test; always a list, "
            "even for a single value."
        },
        "expected-output": {"description": "The expected answer (may span several lines)."},
        "expected-outputs": {
            "description": "The expected items, e.g. the segments a retriever should return."
        },
        "expected-facts": {"description": "Facts a good answer must contain."},
        "context": {"description": "The documents the application is shown."},
        "tags": {"description": "Labels for selecting and grouping samples."},
        "metadata": {"description": "Free-form data kept with the sample."},
    }
}


def _schema_hook(type_: type) -> dict[str, Any]:
    if type_ is Parameters:
        return {"type": "array"}
    raise NotImplementedError


def sample_file_schema() -> dict[str, Any]:
    """The JSON Schema of a samples file (YAML, JSON, or one JSON Lines line per item)."""
    schema = build_file_schema(
        Sample,
        title="evalmark samples",
        description="A list of evaluation samples. YAML files use the kebab-case keys; JSON "
        "and JSON Lines files also accept snake_case. In JSON Lines, each line holds one item.",
        fields=_SAMPLE_FIELDS,
        schema_hook=_schema_hook,
    )
    definition = schema["$defs"]["Sample"]
    definition["oneOf"] = [
        {"required": [key]}
        for key in ("expected-output", "expected_output", "expected-outputs", "expected_outputs")
    ]
    return schema
