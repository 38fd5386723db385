"""Reading a data file into raw records, whatever its format: the one entry point the sample
and test-case loaders share.

The empty-file rule of every evalmark loader: a file with no content (no bytes, or only blank
lines) is an error, since it is most often a failed export or a wrong path; an explicitly empty
collection (``[]`` in YAML or JSON, a CSV with only its header row, a Parquet table without
rows) holds no records.
"""

from __future__ import annotations

from pathlib import Path

from evalmark._files.json_read import nesting_problem, read_json, read_jsonl
from evalmark._files.located import PathKey, RawRecord
from evalmark._files.source import Format, format_of, gc_paused
from evalmark._files.yaml_read import nesting_problem as yaml_nesting_problem
from evalmark._files.yaml_read import read_yaml
from evalmark.errors import DataFileError, Problem

__all__ = ["read_records", "require_format", "too_deep"]


def require_format(path: Path, error: type[DataFileError], hint: str = "") -> Format:
    """The format ``path``'s extension names, or ``error`` saying which extensions are read
    (or, for a folder, naming the data files in it)."""
    if path.is_dir():
        found = sorted(p.name for p in path.iterdir() if format_of(p) is not None)
        listed = ", ".join(found[:10]) if found else "none"
        raise error(
            [
                Problem(
                    "is a directory: name the data files in it one by one (data files "
                    f"there: {listed})",
                    path=str(path),
                )
            ]
        )
    fmt = format_of(path)
    if fmt is None:
        raise error(
            [
                Problem(
                    f"unsupported file type '{path.suffix or '(none)'}': read .yaml, .yml, "
                    f".json or .jsonl files{hint}",
                    path=str(path),
                )
            ]
        )
    return fmt


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
        raise error([too_deep(data, path, fmt)]) from None


def too_deep(data: bytes, path: str, fmt: Format) -> Problem:
    """The problem to report when reading or checking a file's data overflowed the stack."""
    if fmt == "yaml":
        return yaml_nesting_problem(data, path)
    return nesting_problem(data, path)
