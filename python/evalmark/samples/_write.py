"""Writing samples, test cases and conversations to .yaml, .json or .jsonl files (kebab-case
keys), atomically: the file is complete or not there at all."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgspec

from evalmark._files.atomic import write_atomically
from evalmark._files.source import format_of
from evalmark._files.yaml_write import dump_yaml
from evalmark.errors import DataFileError, Problem, SampleError, TestCaseError
from evalmark.samples._case import Conversation, TestCase
from evalmark.samples._sample import Sample

__all__ = ["write_conversations", "write_records", "write_samples", "write_test_cases"]


def write_records(
    items: Iterable[Any], path: str | os.PathLike[str], error: type[DataFileError]
) -> None:
    """Write Structs to a file in the format its extension names, or raise ``error``."""
    target = Path(path)
    fmt = format_of(target)
    if fmt is None:
        raise error([Problem("choose a .yaml, .yml, .json or .jsonl file name", path=str(target))])
    records = list(items)
    encoder = msgspec.json.Encoder()
    try:
        if fmt == "jsonl":
            data = b"".join(encoder.encode(item) + b"\n" for item in records)
        elif fmt == "json":
            data = msgspec.json.format(encoder.encode(records), indent=2) + b"\n"
        else:
            encoder.encode(records)  # what UTF-8 cannot store, YAML's reader refuses too
            data = dump_yaml(msgspec.to_builtins(records))
    except UnicodeEncodeError:
        raise error([_unstorable(records, encoder, target)]) from None
    write_atomically(target, data)


def _unstorable(records: list[Any], encoder: msgspec.json.Encoder, target: Path) -> Problem:
    """The problem of the first record holding a lone surrogate (no UTF-8 form)."""
    for number, item in enumerate(records, start=1):
        try:
            encoder.encode(item)
        except UnicodeEncodeError:
            label = getattr(item, "name", None) or getattr(item, "id", None)
            return Problem(
                "holds a lone surrogate character, which UTF-8 cannot store; replace it "
                "(text decoded with errors='surrogateescape' or from a broken \\ud800 escape)",
                path=str(target),
                record=f"record {number}" + (f" ({label!r})" if label else ""),
            )
    return Problem("holds text UTF-8 cannot store", path=str(target))  # pragma: no cover


def write_samples(samples: Iterable[Sample], path: str | os.PathLike[str]) -> None:
    """Write samples to a .yaml, .json or .jsonl file (kebab-case keys), atomically."""
    write_records(samples, path, SampleError)


def write_test_cases(cases: Iterable[TestCase], path: str | os.PathLike[str]) -> None:
    """Write test cases to a .yaml, .json or .jsonl file (kebab-case keys), atomically."""
    write_records(cases, path, TestCaseError)


def write_conversations(
    conversations: Iterable[Conversation], path: str | os.PathLike[str]
) -> None:
    """Write conversations to a .yaml, .json or .jsonl file (kebab-case keys), atomically."""
    write_records(conversations, path, TestCaseError)
