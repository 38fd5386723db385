"""Reading YAML, JSON and JSONL data files into records that remember where they came from.

Shared by the sample and the test-case loaders. The readers here only parse: they return one
``RawRecord`` per list item (or JSONL line) with its line and the position of every value inside
it, so the callers can report "file:line:column: sample 'x': what is wrong; what to do".

YAML is read with the safe loader only; tags that would build Python objects are refused before
anything is constructed. Nothing here runs code from a data file.
"""

from __future__ import annotations

import bisect
import contextlib
import difflib
import gc
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

import msgspec
import yaml
from yaml.constructor import SafeConstructor

from evalmark.errors import DataFileError, Problem

Format = Literal["yaml", "json", "jsonl"]
PathKey = tuple[str | int, ...]
Position = tuple[int, int]  # 1-based line and column

_EXTENSIONS: dict[str, Format] = {
    ".yaml": "yaml",
    ".yml": "yaml",
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
}
MAX_PROBLEMS = 20


def raise_problems(
    problems: Sequence[Problem], error: type[DataFileError], total: int | None = None
) -> None:
    """Raise ``error`` with the first problems, if there are any."""
    if problems:
        shown = list(problems[:MAX_PROBLEMS])
        more = (total if total is not None else len(problems)) - len(shown)
        raise error(shown, more=more)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while many small containers are built.

    Decoding a large file into dicts and lists otherwise triggers collections that traverse
    every object built so far, which makes decoding several times slower. Nothing made while
    paused holds a reference cycle.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def format_of(path: str | os.PathLike[str]) -> Format | None:
    """The data format implied by a file name's extension (case-insensitive), or None."""
    return _EXTENSIONS.get(Path(path).suffix.lower())


def describe_value(value: object) -> str:
    """A short, human name for the type of a decoded value ("a string", "a list"...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float | Decimal):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    return f"a {type(value).__name__}"


def read_bytes(path: Path, error: type[DataFileError]) -> bytes:
    """Read a file, turning a missing file into an error that shows the resolved path."""
    resolved = path.resolve()
    try:
        return path.read_bytes()
    except FileNotFoundError:
        hint = ""
        parent = resolved.parent
        if parent.is_dir():
            close = difflib.get_close_matches(
                resolved.name, sorted(os.listdir(parent)), n=1, cutoff=0.75
            )
            if close:
                hint = f"; did you mean {parent / close[0]}?"
        raise error(
            [
                Problem(
                    f"no such file (resolved to {resolved}; relative paths start from the "
                    f"current directory {Path.cwd()}){hint}",
                    path=str(path),
                )
            ]
        ) from None
    except IsADirectoryError:
        raise error(
            [Problem("is a directory: name the data files in it one by one", path=str(path))]
        ) from None
    except OSError as exc:
        raise error([Problem(f"cannot read the file: {exc.strerror}", path=str(path))]) from None


def strip_bom(data: bytes) -> bytes:
    """Drop a UTF-8 byte order mark."""
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


def _line_col_of_byte(data: bytes, offset: int) -> Position:
    offset = max(0, min(offset, len(data)))
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[start:offset].decode("utf-8", "replace")) + 1
    return line, column


def decode_text(data: bytes, path: str, error: type[DataFileError]) -> str:
    """Decode UTF-8, reporting the line and column of the first invalid byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _line_col_of_byte(data, exc.start)
        raise error(
            [
                Problem(
                    "the file is not valid UTF-8 text; save it as UTF-8",
                    path=path,
                    line=line,
                    column=column,
                )
            ]
        ) from None


# --------------------------------------------------------------------------- records


Locator = Callable[[int], tuple[Position, dict[PathKey, Position]]]


@dataclass(slots=True)
class RawRecord:
    """One item of a data file before validation, with where it and its parts start.

    Positions are found lazily for JSON (only when a problem is reported), eagerly for YAML.
    """

    value: Any
    index: int  # 0-based position among the file's records
    start: Position | None = None
    found: dict[PathKey, Position] | None = None
    locator: Locator | None = None

    def _locate(self) -> tuple[Position, dict[PathKey, Position]]:
        if self.start is None or self.found is None:
            assert self.locator is not None
            self.start, self.found = self.locator(self.index)
        return self.start, self.found

    @property
    def line(self) -> int:
        """The 1-based line where the record starts."""
        return (self.start or self._locate()[0])[0]

    @property
    def column(self) -> int:
        """The 1-based column where the record starts."""
        return (self.start or self._locate()[0])[1]

    @property
    def positions(self) -> dict[PathKey, Position]:
        """Where each key and value inside the record starts, by path."""
        return self._locate()[1]

    def position(self, path: PathKey, *, of_value: bool = False) -> Position:
        """The line and column of the key at ``path`` (or of its value with ``of_value``),
        falling back to the nearest enclosing item that has a known position."""
        positions = self.positions
        key = tuple(_norm_key(p) for p in path)
        if of_value and (*key, "\0value") in positions:
            return positions[(*key, "\0value")]
        while key:
            found = positions.get(key)
            if found is not None:
                return found
            key = key[:-1]
        return self.line, self.column


def _norm_key(part: str | int) -> str | int:
    return part.replace("_", "-") if isinstance(part, str) else part


class _LineIndex:
    """Maps character offsets of a text to 1-based (line, column)."""

    def __init__(self, text: str) -> None:
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def __call__(self, offset: int) -> Position:
        line = bisect.bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1


# --------------------------------------------------------------------------- YAML

_SAFE_TAGS = frozenset(t for t in SafeConstructor.yaml_constructors if t is not None)
_STR_TAG = "tag:yaml.org,2002:str"
_MERGE_TAG = "tag:yaml.org,2002:merge"

_YAML_HINTS = (
    ("found character '\\t'", "YAML indentation must use spaces, not tabs"),
    ("tab character", "YAML indentation must use spaces, not tabs"),
    ("mapping values are not allowed", "a plain value contains ': '; put it in quotes"),
    (
        "could not find expected ':'",
        "a key is missing its ':' or a multi-line value needs a block scalar (key: |)",
    ),
    ("found undefined alias", "every *alias needs an &anchor defined before it"),
)


def _short_tag(tag: str) -> str:
    return "!!" + tag.removeprefix("tag:yaml.org,2002:") if tag.startswith("tag:yaml.org") else tag


def read_yaml(
    data: bytes,
    path: str,
    error: type[DataFileError],
    *,
    text_keys: frozenset[PathKey] = frozenset(),
) -> list[RawRecord]:
    """Parse a YAML list of records safely.

    ``text_keys`` are paths inside a record (such as ``("cost",)``; "*" matches any list
    index) whose numbers are kept as the text written in the file, for exact decimals: YAML
    would otherwise round them to floats.
    """
    text = decode_text(strip_bom(data), path, error)
    try:
        loader = yaml.CSafeLoader(text)
    except AttributeError:  # pragma: no cover - libyaml missing
        loader = yaml.SafeLoader(text)  # type: ignore[assignment]
    try:
        try:
            root = loader.get_single_node()
        except yaml.MarkedYAMLError as exc:
            raise error([_yaml_problem(exc, path)]) from None
        if root is None:
            raise error([Problem("the file is empty: write a list of records", path=path)])
        records = _yaml_records(root, path, error)
        for record, node in records:
            _check_node_tree(node, path, error)
            for pattern in text_keys:
                _keep_numbers_as_text(node, pattern)
            try:
                record.value = loader.construct_document(node)
            except yaml.MarkedYAMLError as exc:
                raise error([_yaml_problem(exc, path)]) from None
        return [record for record, _ in records]
    finally:
        loader.dispose()


def _yaml_problem(exc: yaml.MarkedYAMLError, path: str) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    problem = exc.problem or exc.context or "unreadable YAML"
    if "expected a single document" in str(exc):
        message = (
            "malformed YAML: the file holds more than one document (a second '---'); "
            "put all records in one list"
        )
    else:
        message = f"malformed YAML: {problem}"
        if exc.context and exc.problem:
            message += f" ({exc.context}"
            if exc.context_mark is not None:
                message += f" at line {exc.context_mark.line + 1}"
            message += ")"
        for needle, hint in _YAML_HINTS:
            if needle in problem:
                message += f"; {hint}"
                break
    return Problem(
        message,
        path=path,
        line=mark.line + 1 if mark else None,
        column=mark.column + 1 if mark else None,
    )


def _yaml_records(
    root: yaml.Node, path: str, error: type[DataFileError]
) -> list[tuple[RawRecord, yaml.Node]]:
    if not isinstance(root, yaml.SequenceNode):
        line = root.start_mark.line + 1
        if isinstance(root, yaml.MappingNode):
            keys = [k.value for k, _ in root.value if isinstance(k, yaml.ScalarNode)]
            hint = (
                "the file holds a single mapping; make it a list by starting each record "
                "with '- ' (for example '- name: ...')"
            )
            if len(keys) == 1:
                hint = (
                    f"the file holds a mapping with the key '{keys[0]}'; write the list of "
                    "records at the top level instead"
                )
            raise error([Problem(f"expected a list of records: {hint}", path=path, line=line)])
        raise error(
            [Problem("expected a list of records, found a single value", path=path, line=line)]
        )
    records = []
    for index, node in enumerate(root.value):
        mark = node.start_mark
        record = RawRecord(None, index, (mark.line + 1, mark.column + 1), None, _yaml_locator(node))
        records.append((record, node))
    return records


def matches_text_key(where: PathKey, text_keys: frozenset[PathKey]) -> bool:
    """True if ``where`` matches one of the patterns ("*" stands for any list index)."""
    for pattern in text_keys:
        if len(pattern) == len(where) and all(
            p == w or (p == "*" and isinstance(w, int)) for p, w in zip(pattern, where, strict=True)
        ):
            return True
    return False


_NUMBER_TAGS = ("tag:yaml.org,2002:float", "tag:yaml.org,2002:int")


def _check_node_tree(node: yaml.Node, path: str, error: type[DataFileError]) -> None:
    """Refuse unsafe or unknown tags and doubled keys anywhere under ``node``."""
    seen: set[int] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        tag = current.tag
        if tag not in _SAFE_TAGS:
            mark = current.start_mark
            raise error(
                [
                    Problem(
                        _unsafe_tag_message(tag),
                        path=path,
                        line=mark.line + 1,
                        column=mark.column + 1,
                    )
                ]
            )
        if isinstance(current, yaml.MappingNode):
            first_line: dict[object, int] = {}
            for key_node, value_node in current.value:
                stack.append(value_node)
                if key_node.tag == _MERGE_TAG:
                    continue
                stack.append(key_node)
                key = key_node.value if isinstance(key_node, yaml.ScalarNode) else id(key_node)
                if key in first_line:
                    key_mark = key_node.start_mark
                    raise error(
                        [
                            Problem(
                                f"the key '{key}' appears twice (first at line "
                                f"{first_line[key]}); keep only one",
                                path=path,
                                line=key_mark.line + 1,
                                column=key_mark.column + 1,
                            )
                        ]
                    )
                first_line[key] = key_node.start_mark.line + 1
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)


def _unsafe_tag_message(tag: str) -> str:
    if tag.startswith("tag:yaml.org,2002:python/"):
        return (
            f"the YAML tag '{_short_tag(tag)}' would build a Python object; evalmark loads "
            "YAML safely and never runs code from a data file: remove the tag and write "
            "plain data"
        )
    return (
        f"unsupported YAML tag '{_short_tag(tag)}'; evalmark reads plain YAML (strings, "
        "numbers, booleans, lists, mappings): remove the tag"
    )


def _keep_numbers_as_text(node: yaml.Node, pattern: PathKey) -> None:
    """Retag the numbers found at ``pattern`` ("*" = every list item) as strings."""
    if not pattern:
        if isinstance(node, yaml.ScalarNode) and node.tag in _NUMBER_TAGS:
            node.tag = _STR_TAG
        return
    head, rest = pattern[0], pattern[1:]
    if head == "*" and isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _keep_numbers_as_text(item, rest)
    elif isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and _norm_key(key_node.value) == head:
                _keep_numbers_as_text(value_node, rest)


def _yaml_locator(node: yaml.Node) -> Locator:
    """Positions of every key and value under ``node``, found when a problem is reported."""

    def locate(index: int) -> tuple[Position, dict[PathKey, Position]]:
        found: dict[PathKey, Position] = {}
        seen: set[int] = set()
        stack: list[tuple[yaml.Node, PathKey]] = [(node, ())]
        while stack:
            current, where = stack.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            mark = current.start_mark
            found.setdefault(where, (mark.line + 1, mark.column + 1))
            if isinstance(current, yaml.MappingNode):
                for key_node, value_node in current.value:
                    if not isinstance(key_node, yaml.ScalarNode):
                        continue
                    child = (*where, _norm_key(key_node.value))
                    key_mark, value_mark = key_node.start_mark, value_node.start_mark
                    found.setdefault(child, (key_mark.line + 1, key_mark.column + 1))
                    found.setdefault(
                        (*child, "\0value"), (value_mark.line + 1, value_mark.column + 1)
                    )
                    stack.append((value_node, child))
            elif isinstance(current, yaml.SequenceNode):
                stack.extend((item, (*where, i)) for i, item in enumerate(current.value))
        start = node.start_mark
        return (start.line + 1, start.column + 1), found

    return locate


# --------------------------------------------------------------------------- JSON

_BYTE_OFFSET = re.compile(r"\(byte (\d+)\)")
_JSON_HINTS = (
    ("trailing comma", "JSON allows no comma before '}' or ']'"),
    ("truncated", "the JSON ends too early: a bracket, brace or quote is not closed"),
    ("invalid character", "strings need double quotes; keys must be quoted"),
)


def _json_decode_problem(
    exc: msgspec.DecodeError, data: bytes, path: str, line_offset: int = 0
) -> Problem:
    text = str(exc)
    match = _BYTE_OFFSET.search(text)
    offset = int(match.group(1)) if match else len(data)
    line, column = _line_col_of_byte(data, offset)
    message = "malformed JSON: " + _BYTE_OFFSET.sub("", text.removeprefix("JSON is malformed: "))
    message = message.strip()
    for needle, hint in _JSON_HINTS:
        if needle in text.lower():
            message += f"; {hint}"
            break
    return Problem(message, path=path, line=line + line_offset, column=column)


_GENERIC_JSON = msgspec.json.Decoder(float_hook=Decimal)


def _floats_except(value: Any, keep: frozenset[PathKey], where: PathKey = ()) -> Any:
    """Turn the Decimals of an exact parse back into floats, except at the ``keep`` paths."""
    if isinstance(value, Decimal):
        return value if keep and matches_text_key(where, keep) else float(value)
    if isinstance(value, dict):
        return {
            k: _floats_except(v, keep, (*where, _norm_key(k) if isinstance(k, str) else k))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_floats_except(v, keep, (*where, i)) for i, v in enumerate(value)]
    return value


def read_json(
    data: bytes,
    path: str,
    error: type[DataFileError],
    *,
    text_keys: frozenset[PathKey] = frozenset(),
) -> list[RawRecord]:
    """Parse a JSON list of records; numbers under ``text_keys`` keep their exact value."""
    data = strip_bom(data)
    if not data.strip():
        raise error([Problem("the file is empty: write a JSON list of records", path=path)])
    try:
        value = _GENERIC_JSON.decode(data)
    except msgspec.DecodeError as exc:
        decode_text(data, path, error)
        raise error([_json_decode_problem(exc, data, path)]) from None
    text = data.decode("utf-8")
    if not isinstance(value, list):
        hint = "wrap the records in [ ... ]"
        if isinstance(value, dict) and len(value) == 1:
            hint = f"write the list under '{next(iter(value))}' at the top level"
        raise error(
            [
                Problem(
                    f"expected a JSON list of records, found {describe_value(value)}; {hint}",
                    path=path,
                    line=1,
                )
            ]
        )
    locator = _JsonLocator(text)
    return [
        RawRecord(_floats_except(item, text_keys), i, locator=locator)
        for i, item in enumerate(value)
    ]


class _JsonLocator:
    """Finds where the items of a JSON list start, scanning the text once, when first asked."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._found: list[tuple[Position, dict[PathKey, Position]]] | None = None

    def __call__(self, index: int) -> tuple[Position, dict[PathKey, Position]]:
        if self._found is None:
            lines = _LineIndex(self._text)
            try:
                starts, maps = _json_positions(self._text)
            except RecursionError:  # nested too deeply to scan: positions stay unknown
                return (1, 1), {}
            self._found = [
                (lines(start), {key: lines(offset) for key, offset in found.items()})
                for start, found in zip(starts, maps, strict=True)
            ]
        return self._found[index]


def _jsonl_locator(text: str, number: int) -> Locator:
    def locate(index: int) -> tuple[Position, dict[PathKey, Position]]:
        lines = _LineIndex(text)
        try:
            _, maps = _json_positions("[" + text + "]")
        except RecursionError:  # nested too deeply to scan: positions stay unknown
            return (number, 1), {}
        found = {}
        for key, offset in maps[0].items():
            line, column = lines(max(0, offset - 1))
            found[key] = (number + line - 1, column)
        return (number, 1), found

    return locate


def read_jsonl(
    data: bytes,
    path: str,
    error: type[DataFileError],
    *,
    text_keys: frozenset[PathKey] = frozenset(),
) -> list[RawRecord]:
    """Parse JSON Lines: one record per non-blank line."""
    data = strip_bom(data)
    decode_text(data, path, error)
    records: list[RawRecord] = []
    problems: list[Problem] = []
    for number, line_bytes in enumerate(data.split(b"\n"), start=1):
        if not line_bytes.strip():
            continue
        try:
            value = _GENERIC_JSON.decode(line_bytes)
        except msgspec.DecodeError as exc:
            decode_text(line_bytes, path, error)
            problem = _json_decode_problem(exc, line_bytes, path, number - 1)
            if not records and not problems and line_bytes.strip() in (b"[", b"{"):
                problem = Problem(
                    problem.message + "; each line of a JSON Lines file must hold one whole "
                    "record (a pretty-printed JSON list belongs in a .json file)",
                    path=path,
                    line=number,
                    column=problem.column,
                )
            problems.append(problem)
            continue
        locator = _jsonl_locator(line_bytes.decode("utf-8"), number)
        records.append(
            RawRecord(_floats_except(value, text_keys), len(records), (number, 1), None, locator)
        )
    raise_problems(problems, error)
    if not records:
        raise error([Problem("the file is empty: write one JSON record per line", path=path)])
    return records


_WS = re.compile(r"[ \t\n\r]*")
_SCALAR = json.JSONDecoder()


def _json_positions(text: str) -> tuple[list[int], list[dict[PathKey, int]]]:
    """Offsets of the elements of a top-level JSON array and of every value inside each."""
    pos = _WS.match(text, 0).end()  # type: ignore[union-attr]
    assert text[pos] == "["
    pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
    starts: list[int] = []
    maps: list[dict[PathKey, int]] = []
    if text[pos] == "]":
        return starts, maps
    while True:
        starts.append(pos)
        found: dict[PathKey, int] = {}
        pos = _scan_value(text, pos, (), found)
        maps.append(found)
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if text[pos] == "]":
            return starts, maps
        pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]


def _scan_value(text: str, pos: int, where: PathKey, found: dict[PathKey, int]) -> int:
    found.setdefault(where, pos)
    char = text[pos]
    if char == "{":
        pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
        if text[pos] == "}":
            return pos + 1
        while True:
            key, end = _SCALAR.raw_decode(text, pos)
            child = (*where, _norm_key(key))
            found.setdefault(child, pos)
            pos = _WS.match(text, end).end()  # type: ignore[union-attr]
            pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]  # past ':'
            found.setdefault((*child, "\0value"), pos)
            pos = _scan_value(text, pos, child, found)
            pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
            if text[pos] == "}":
                return pos + 1
            pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
    if char == "[":
        pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
        if text[pos] == "]":
            return pos + 1
        i = 0
        while True:
            pos = _scan_value(text, pos, (*where, i), found)
            pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
            if text[pos] == "]":
                return pos + 1
            pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
            i += 1
    _, end = _SCALAR.raw_decode(text, pos)
    return int(end)


def read_records(
    data: bytes,
    path: str,
    fmt: Format,
    error: type[DataFileError],
    *,
    text_keys: frozenset[PathKey] = frozenset(),
) -> list[RawRecord]:
    """Parse ``data`` in format ``fmt`` into raw records."""
    reader = {"yaml": read_yaml, "json": read_json, "jsonl": read_jsonl}[fmt]
    try:
        with gc_paused():
            return reader(data, path, error, text_keys=text_keys)
    except RecursionError:
        raise error(
            [Problem("the data is nested too deeply to read; flatten it", path=path)]
        ) from None


# --------------------------------------------------------------------------- writing


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder, then rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        try:
            mode = path.stat().st_mode & 0o777
        except FileNotFoundError:
            mode = 0o644
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


class _BlockDumper(yaml.SafeDumper):
    """Writes multi-line strings as literal blocks and keeps key order."""


_YAML_BREAKS = ("\x85", "\u2028", "\u2029")


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value and _block_safe(value):
        return dumper.represent_scalar(_STR_TAG, value, style="|")
    if any(ch in value for ch in _YAML_BREAKS):
        # YAML reads these as line breaks unless they are escaped in double quotes.
        return dumper.represent_scalar(_STR_TAG, value, style='"')
    return dumper.represent_scalar(_STR_TAG, value)


def _block_safe(value: str) -> bool:
    # Literal blocks cannot hold trailing spaces on a line, tabs or most control characters
    # faithfully; fall back to a quoted scalar for those.
    return (
        not any(line != line.rstrip(" ") for line in value.split("\n"))
        and all(ch == "\n" or ch.isprintable() for ch in value)
        and not value.startswith(" ")
    )


_BlockDumper.add_representer(str, _represent_str)
_BlockDumper.add_representer(tuple, lambda d, v: d.represent_list(list(v)))
_BlockDumper.add_representer(Decimal, lambda d, v: d.represent_scalar(_STR_TAG, str(v)))


def dump_yaml(records: list[Any]) -> bytes:
    """Serialize plain records as block-style YAML (UTF-8, keys in the given order)."""
    text = yaml.dump(
        records,
        Dumper=_BlockDumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=100,
    )
    return ("---\n" + text).encode("utf-8")
