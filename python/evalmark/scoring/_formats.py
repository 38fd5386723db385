"""The file formats `evalmark score` reads and writes, told by the file name's extension."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Literal

__all__ = ["INPUT_FORMATS", "OUTPUT_FORMATS", "input_format", "output_format"]

FileFormat = Literal["jsonl", "csv", "parquet"]

INPUT_FORMATS: Mapping[str, FileFormat] = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".csv": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
}
OUTPUT_FORMATS: Mapping[str, FileFormat] = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".parquet": "parquet",
}


def _format(path: Path, formats: Mapping[str, FileFormat], role: str) -> FileFormat:
    kind = formats.get(path.suffix.lower())
    if kind is None:
        raise ValueError(
            f"{path}: cannot tell the {role} format from the extension {path.suffix or '(none)'};"
            " use .jsonl, .csv or .parquet"
        )
    return kind


def input_format(path: Path) -> FileFormat:
    """``jsonl``, ``csv`` or ``parquet`` from the input's extension; ValueError for any other."""
    return _format(path, INPUT_FORMATS, "input")


def output_format(path: Path) -> FileFormat:
    """``jsonl``, ``csv`` or ``parquet`` from the output's extension; ValueError for any other."""
    return _format(path, OUTPUT_FORMATS, "output")
